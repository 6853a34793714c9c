"""Query-string state: every page, job, tag and view setting that matters lives in the URL.

A page declares its state once: a frozen dataclass, and a :class:`TypedUrlState` giving each
attribute its :class:`Field` (URL parameter name, default, bounds or choices).
:meth:`TypedUrlState.parse` reads the URL parameters into the dataclass (anything missing,
malformed or out of range becomes the default or the nearest bound; every list and text
bounded) and :meth:`TypedUrlState.search` writes a state back as a query string with the
defaults left out, so ``parse(search(state)) == state`` for every parsed state, links stay
short and mypy checks what callbacks read::

    @dataclass(frozen=True)
    class PageUrl:
        train_id: str = ""
        view: str = "top"
        page: int = 1

    STATE = TypedUrlState(PageUrl, train_id=Text("train_id"),
                          view=Choice("view", "top", ("top", "front")),
                          page=Int("page", 1, 1, MAX_PAGE))
    state = STATE.parse(parse_search("?train_id=./a&view=side&page=0"))
    # PageUrl(train_id="./a", view="top", page=1)
    STATE.search(replace(state, view="front"))  # "?train_id=.%2Fa&view=front"

Lists of tags and per-tag values travel as one parameter each (:func:`encode_tags`,
:func:`encode_map`: comma-separated with ``\\`` escapes).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qsl, urlencode

from dash_insight.web.limits import MAX_URL_CHARS, MAX_URL_LIST_ITEMS

#: Largest page number a URL may ask for (a pager clamps it to the pages there are).
MAX_PAGE = 10**6


def parse_search(search: object) -> dict[str, str]:
    """``?a=1&b=x`` -> {"a": "1", "b": "x"} (the last value wins for repeated keys). Anything
    but a string (a hostile callback body) reads as no parameter; a search longer than
    :data:`~dash_insight.web.limits.MAX_URL_CHARS` (refused earlier by ``dash_requests``) is
    read only that far."""
    if not isinstance(search, str):
        return {}
    return dict(parse_qsl(search[:MAX_URL_CHARS].lstrip("?"), keep_blank_values=False))


def same_search(new: str, current: str | None) -> bool:
    """Whether two query strings say the same: the same parameters and values once decoded,
    in any order. ``?train_id=./job`` (typed or linked by hand) and ``?train_id=.%2Fjob`` (as
    the pages write it) are one state: writing the second over the first would run every
    callback of the page again for nothing (the whole grid was drawn twice)."""

    def pairs(search: str | None) -> list[tuple[str, str]]:
        return sorted(parse_search(search).items())

    return pairs(new) == pairs(current)


def make_search(params: Mapping[str, object]) -> str:
    """{"a": 1, "b": None} -> ``?a=1``; empty values are left out."""
    kept = {k: str(v) for k, v in params.items() if v not in (None, "", False)}
    return "?" + urlencode(kept) if kept else ""


def int_param(params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """An integer parameter clamped to [low, high]; the default when absent or not a number."""
    try:
        value = int(params.get(name, default))
    except ValueError:
        return default
    return max(low, min(high, value))


# --- lists and maps in one parameter --------------------------------------------------------------


def _escape(text: str, specials: str) -> str:
    out = text.replace("\\", "\\\\")
    for char in specials:
        out = out.replace(char, "\\" + char)
    return out


def _split(text: str, separator: str) -> list[str]:
    """Split on unescaped ``separator``, then drop the escapes."""
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    """Drop the ``\\`` escapes of :func:`_escape`."""
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)


def _split_raw(text: str, separator: str) -> list[str]:
    """Split on unescaped ``separator``, keeping the escapes (for nested splitting)."""
    parts, start, escaped = [], 0, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == separator:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def encode_tags(tags: Sequence[str]) -> str:
    """Tags as one URL value: comma-separated, ``\\`` and ``,`` escaped; no tag -> ``","``."""
    if not tags:
        return ","
    return ",".join(_escape(tag, ",") for tag in tags)


def decode_tags(text: str | None) -> list[str] | None:
    """Inverse of :func:`encode_tags`; None (no parameter) means "all tags". At most
    :data:`~dash_insight.web.limits.MAX_URL_LIST_ITEMS` names are kept."""
    if text is None:
        return None
    return [tag for tag in _split(text[:MAX_URL_CHARS], ",") if tag][:MAX_URL_LIST_ITEMS]


def encode_map(values: Mapping[str, object]) -> str:
    """``{"a": 1, "b,c": "[0,:]"}`` -> ``a=1,b\\,c=[0\\,:]`` (``\\``, ``,`` and ``=`` escaped).
    ``assets/per-tag-pages.js`` (``encodeMap``) writes the same in the browser."""
    return ",".join(f"{_escape(str(k), ',=')}={_escape(str(v), ',=')}" for k, v in values.items())


def decode_map(text: str | None) -> dict[str, str]:
    """Inverse of :func:`encode_map`; malformed items are skipped. At most
    :data:`~dash_insight.web.limits.MAX_URL_LIST_ITEMS` items of the first
    :data:`~dash_insight.web.limits.MAX_URL_CHARS` characters are kept."""
    out: dict[str, str] = {}
    if not text:
        return out
    for item in _split_raw(text[:MAX_URL_CHARS], ","):
        pair = _split_raw(item, "=")
        if len(pair) == 2 and pair[0]:
            out[_unescape(pair[0])] = _unescape(pair[1])
            if len(out) == MAX_URL_LIST_ITEMS:
                break
    return out


# --- declared state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One URL parameter of a page: ``name`` in the URL.

    Subclasses say how a URL text becomes a value (:meth:`parse`: never raises, bad text gives
    the default), how a value becomes URL text (:meth:`text`: None = leave the parameter out,
    which it is at the default) and how the value of the page's control becomes a value
    (:meth:`from_control`)."""

    name: str

    def parse(self, raw: str | None) -> Any:
        raise NotImplementedError

    def text(self, value: Any) -> str | None:
        raise NotImplementedError

    def from_control(self, value: Any) -> Any:
        """The state value for a control's value (by default read like URL text)."""
        return self.parse(None if value is None else str(value))


@dataclass(frozen=True)
class Text(Field):
    """Free text (a job id, a regular expression), at most ``max_chars`` of it; absent =
    ``default``."""

    default: str = ""
    max_chars: int = MAX_URL_CHARS

    def parse(self, raw: str | None) -> str:
        return self.default if raw is None else raw[: self.max_chars]

    def text(self, value: Any) -> str | None:
        return None if value in (None, "", self.default) else str(value)

    def from_control(self, value: Any) -> str:
        return self.default if value is None else str(value)[: self.max_chars]


@dataclass(frozen=True)
class Choice(Field):
    """One of ``choices``; anything else = ``default``. With ``fold_case``, ``Viridis`` is
    ``viridis`` (``choices`` are then lower case)."""

    default: str = ""
    choices: tuple[str, ...] = ()
    fold_case: bool = False

    def parse(self, raw: str | None) -> str:
        if raw is not None and self.fold_case:
            raw = raw.lower()
        return raw if raw in self.choices else self.default

    def text(self, value: Any) -> str | None:
        return None if value == self.default or value not in self.choices else str(value)


@dataclass(frozen=True)
class Int(Field):
    """An integer clamped to ``[low, high]``; not a number, or not one of ``allowed`` when
    given (a page size), = ``default``."""

    default: int = 0
    low: int = 0
    high: int = MAX_PAGE
    allowed: tuple[int, ...] = ()

    def parse(self, raw: str | None) -> int:
        try:
            value = int(raw) if raw is not None else self.default
        except ValueError:
            return self.default
        return self._valid(max(self.low, min(self.high, value)))

    def _valid(self, value: int) -> int:
        return value if not self.allowed or value in self.allowed else self.default

    def text(self, value: Any) -> str | None:
        return None if value == self.default else str(int(value))

    def from_control(self, value: Any) -> int:
        if value is None:
            return self.default
        try:
            return self._valid(max(self.low, min(self.high, int(value))))
        except (TypeError, ValueError):
            return self.default


@dataclass(frozen=True)
class Float(Field):
    """A number clamped to ``[low, high]``, written with ``%g`` (six significant digits);
    not a finite number = ``default``."""

    default: float = 0.0
    low: float = 0.0
    high: float = 1.0

    def parse(self, raw: str | None) -> float:
        try:
            value = float(raw) if raw is not None else self.default
        except ValueError:
            return self.default
        if not math.isfinite(value):
            return self.default
        return max(self.low, min(self.high, value))

    def text(self, value: Any) -> str | None:
        return None if value == self.default else f"{float(value):g}"

    def from_control(self, value: Any) -> float:
        if value is None:
            return self.default
        try:
            return self.parse(str(float(value)))
        except (TypeError, ValueError):
            return self.default


@dataclass(frozen=True)
class Flag(Field):
    """On (``1`` in the URL) or off (absent)."""

    def parse(self, raw: str | None) -> bool:
        return raw == "1"

    def text(self, value: Any) -> str | None:
        return "1" if value else None

    def from_control(self, value: Any) -> bool:
        """A checklist's value: on when anything is ticked."""
        return bool(value)


@dataclass(frozen=True)
class Descending(Field):
    """A sort order: descending unless the URL says ``asc`` (absent = descending)."""

    def parse(self, raw: str | None) -> bool:
        return raw != "asc"

    def text(self, value: Any) -> str | None:
        return None if value else "asc"


@dataclass(frozen=True)
class Names(Field):
    """Plain names separated by commas (names without commas: operator types), at most
    ``limit`` of them; absent = none."""

    limit: int = MAX_URL_LIST_ITEMS

    def parse(self, raw: str | None) -> tuple[str, ...]:
        if not raw:
            return ()
        # The URL is bounded (MAX_URL_CHARS), so is this split.
        return tuple(name for name in raw.split(",") if name)[: self.limit]

    def text(self, value: Any) -> str | None:
        return ",".join(value) or None


@dataclass(frozen=True)
class Tags(Field):
    """A list of names (:func:`encode_tags`); absent = None (pages read it as "all")."""

    def parse(self, raw: str | None) -> list[str] | None:
        return decode_tags(raw)

    def text(self, value: Any) -> str | None:
        return None if value is None else encode_tags(list(value))

    def from_control(self, value: Any) -> list[str] | None:
        return None if value is None else [str(item) for item in value]


@dataclass(frozen=True)
class TagMap(Field):
    """Per-tag values (:func:`encode_map`, e.g. ``steps=a=12,b=40``); absent = {}."""

    def parse(self, raw: str | None) -> dict[str, str]:
        return decode_map(raw)

    def text(self, value: Any) -> str | None:
        return encode_map(value) if value else None

    def from_control(self, value: Any) -> dict[str, str]:
        return {str(k): str(v) for k, v in (value or {}).items()}


State = TypeVar("State")


class TypedUrlState(Generic[State]):
    """The URL state of a page as the frozen dataclass ``cls``: ``fields`` gives each of its
    attributes the :class:`Field` that reads it from (and writes it to) the URL parameter of
    the field's name, in URL order (one parameter per attribute). ``parse(search(state)) ==
    state`` for every parsed state."""

    def __init__(self, cls: type[State], **fields: Field) -> None:
        attributes = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        if set(fields) != attributes:
            raise ValueError(f"{cls.__name__} has {sorted(attributes)}, not {sorted(fields)}")
        names = [f.name for f in fields.values()]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate URL parameters in {names}")
        self.cls = cls
        self.fields = fields

    def parse(self, params: Mapping[str, str]) -> State:
        """The state of URL parameters (anything missing or malformed: the default)."""
        return self.cls(**{key: f.parse(params.get(f.name)) for key, f in self.fields.items()})

    def parse_search(self, search: str | None) -> State:
        return self.parse(parse_search(search))

    def from_controls(self, state: State, values: Mapping[str, Any]) -> State:
        """``state`` with the attributes named in ``values`` set from their controls' values
        (each bounded as from the URL)."""
        changed = {key: self.fields[key].from_control(value) for key, value in values.items()}
        return dataclasses.replace(state, **changed)  # type: ignore[type-var]

    def params(self, state: State) -> dict[str, str | None]:
        """The URL parameters of ``state``; None for those at their default (left out)."""
        return {f.name: f.text(getattr(state, key)) for key, f in self.fields.items()}

    def search(self, state: State, keep: Mapping[str, str] | None = None) -> str:
        """The query string of ``state`` (``"?a=1"``, ``""`` when all is default), in field
        order, then the parameters of ``keep`` that no field reads (a URL's other parameters,
        e.g. a comparison tab's own when a shared helper rewrites its URL)."""
        names = {f.name for f in self.fields.values()}
        others = {k: v for k, v in (keep or {}).items() if k not in names}
        return make_search({**self.params(state), **others})
