"""Tag selection for the per-tag pages (scalars, parameter distribution, images, tensors).

MindInsight's "Tag Selection" row: an "All" checkbox, one checkbox per tag (long names cut with
"…", the full name on hover) and a regular-expression filter ("Enter tag (regular expression
supported)"); the page shows one chart per tag that is checked AND matches the filter, a page of
charts at a time ("Total N" pager).

API (``prefix`` is a short id prefix unique on the page, e.g. ``"hist"``):

* ``tag_select(prefix, tags, selected, pattern="")`` -> component. ``tags`` = every tag of the
  job in display order, ``selected`` = the checked ones (None = all). Holds these ids:
  ``{prefix}-tags`` (dcc.Checklist, ``value`` = the checked tags, including ones hidden by the
  filter), ``{prefix}-all`` (the "All" checklist), ``{prefix}-filter`` (dcc.Input, ``value`` =
  the pattern), ``{prefix}-tag-list`` (dcc.Store with ``tags``), ``{prefix}-tag-count`` and
  ``{prefix}-filter-error`` (spans).
* ``register_tag_select(app, prefix)``: call once per prefix in the page's ``register``; keeps
  "All", the checkboxes and the filter consistent (one server callback, no data access). "All"
  (un)checks every tag that matches the filter; it is ticked when all matching tags are checked;
  tags that do not match the filter are hidden from the list.
* Page state in the URL: ``tags`` (absent = all; :func:`encode_tags` / :func:`decode_tags`,
  comma-separated with ``\\`` escapes, a lone ``,`` = none) and ``filter`` (the pattern).
  :func:`selection_from_params` reads them back and reports tags of the URL the job does not
  have; :func:`tags_to_params` writes them.
* :func:`visible_tags` = what to draw (checked and matching, in ``tags`` order);
  :func:`page_of` / :func:`pager` cut it into pages (``page`` parameter, ``{prefix}-prev`` /
  ``{prefix}-next`` buttons).
* :func:`encode_map` / :func:`decode_map`: the same escaping for per-tag URL state
  (``steps=tag=12,other=40``).
* :func:`user_change`: False when a callback fires because its components were just rendered
  (Dash then reports every input as triggered, even with ``prevent_initial_call``); a page's
  "controls -> URL" callback should return ``no_update`` then, or it rewrites the URL it was
  built from (dropping unknown tags, resetting the page).

Everything except the two component builders and :func:`register_tag_select` is pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import dash
from dash import Input, Output, State, ctx, dcc, html

#: Tags longer than this are cut in the checkbox label (the full name stays in the tooltip).
LABEL_CHARS = 36


# --- URL encoding --------------------------------------------------------------------------------


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
    """Inverse of :func:`encode_tags`; None (no parameter) means "all tags"."""
    if text is None:
        return None
    return [tag for tag in _split(text, ",") if tag]


def encode_map(values: Mapping[str, object]) -> str:
    """``{"a": 1, "b,c": "[0,:]"}`` -> ``a=1,b\\,c=[0\\,:]`` (``\\``, ``,`` and ``=`` escaped)."""
    return ",".join(f"{_escape(str(k), ',=')}={_escape(str(v), ',=')}"
                    for k, v in values.items())


def decode_map(text: str | None) -> dict[str, str]:
    """Inverse of :func:`encode_map`; malformed items are skipped."""
    out: dict[str, str] = {}
    if not text:
        return out
    for item in _split_raw(text, ","):
        pair = _split_raw(item, "=")
        if len(pair) == 2 and pair[0]:
            out[_unescape(pair[0])] = _unescape(pair[1])
    return out


# --- selection -----------------------------------------------------------------------------------


def filter_tags(tags: Sequence[str], pattern: str) -> tuple[list[str], str | None]:
    """Tags matching ``pattern`` (a regular expression searched anywhere in the tag, case
    insensitive, as MindInsight's tag filter); an invalid expression keeps every tag and returns
    the error message."""
    if not pattern:
        return list(tags), None
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as error:
        return list(tags), f"invalid regular expression: {error}"
    return [tag for tag in tags if compiled.search(tag)], None


def visible_tags(tags: Sequence[str], selected: Iterable[str] | None, pattern: str) -> list[str]:
    """The tags to draw: checked (None = all) and matching the filter, in ``tags`` order."""
    matching, _ = filter_tags(tags, pattern)
    if selected is None:
        return matching
    chosen = set(selected)
    return [tag for tag in matching if tag in chosen]


def selection_from_params(params: Mapping[str, str], tags: Sequence[str], key: str = "tags"
                          ) -> tuple[list[str] | None, list[str]]:
    """``(selected, unknown)`` from the URL: the checked tags the job has (None = all) and the
    tags named in the URL that the job does not have (for a message)."""
    wanted = decode_tags(params.get(key))
    if wanted is None:
        return None, []
    known = set(tags)
    return [t for t in wanted if t in known], [t for t in wanted if t not in known]


def tags_to_params(tags: Sequence[str], selected: Sequence[str] | None, pattern: str
                   ) -> dict[str, str | None]:
    """The ``tags`` / ``filter`` URL parameters (None = leave out: every tag, no filter)."""
    chosen = None if selected is None or set(tags) <= set(selected) else [
        t for t in tags if t in set(selected)]
    return {"tags": None if chosen is None else encode_tags(chosen), "filter": pattern or None}


def short_label(tag: str, limit: int = LABEL_CHARS) -> str:
    """``tag`` cut to ``limit`` characters with "…" in the middle (both ends usually matter:
    ``conv1.weight/auto`` vs ``conv2.weight/auto``)."""
    if len(tag) <= limit:
        return tag
    head = (limit - 1) // 2
    return tag[:head] + "…" + tag[len(tag) - (limit - 1 - head):]


# --- paging --------------------------------------------------------------------------------------


def page_of(items: Sequence[Any], page: int, size: int) -> tuple[list[Any], int, int]:
    """``(items on the page, page clamped to 1..pages, pages)``."""
    pages = max(1, -(-len(items) // max(1, size)))
    page = max(1, min(page, pages))
    start = (page - 1) * size
    return list(items[start:start + size]), page, pages



def page_after(trigger: Any, prefix: str, page: int) -> tuple[int, bool]:
    """(the page to show, whether ``trigger`` was the pager) after a change of the controls:
    ``{prefix}-prev`` / ``{prefix}-next`` turn the page; a change of the tags or the filter goes
    back to page 1; anything else keeps it."""
    if trigger == f"{prefix}-prev":
        return max(1, page - 1), True
    if trigger == f"{prefix}-next":
        return page + 1, True
    if trigger in (f"{prefix}-tags", f"{prefix}-filter"):
        return 1, False
    return page, False


def tags_on_page(params: Mapping[str, str], tags: Sequence[str], pattern: str, page: int,
                 page_size: int) -> tuple[list[str], int, int, list[str], str]:
    """What a per-tag page shows, from its URL: (tags on the current page, that page, the
    number of pages, tags of the URL the job does not have, the "Total N tags" text). Tags
    shown are the checked ones that match ``pattern``."""
    selected, unknown = selection_from_params(params, tags)
    visible = visible_tags(tags, selected, pattern)
    on_page, page, pages = page_of(visible, page, page_size)
    total = f"Total {len(visible)} tag{'' if len(visible) == 1 else 's'}"
    return on_page, page, pages, unknown, total

def pager(prefix: str, total: int, page: int, pages: int, noun: str = "tag") -> html.Div:
    """"Total N" and ‹ page / pages › buttons (``{prefix}-prev`` / ``{prefix}-next``)."""
    return html.Div(className="di-pager", children=[
        html.Span(f"Total {total} {noun}{'' if total == 1 else 's'}", id=f"{prefix}-total"),
        html.Button("‹", id=f"{prefix}-prev", className="di-icon-button", disabled=page <= 1,
                    title="Previous page"),
        html.Span(f"{page} / {pages}", id=f"{prefix}-page"),
        html.Button("›", id=f"{prefix}-next", className="di-icon-button",
                    disabled=page >= pages, title="Next page"),
    ])


# --- component -----------------------------------------------------------------------------------


def tag_option(tag: str) -> dict[str, Any]:
    """A checklist option: the label cut by :func:`short_label`, the full name on hover."""
    return {"label": html.Span(short_label(tag), title=tag, className="di-tag-label"),
            "value": tag}


def _options(tags: Sequence[str], pattern: str) -> list[dict[str, Any]]:
    matching, _ = filter_tags(tags, pattern)
    return [tag_option(tag) for tag in matching]


def _state(tags: Sequence[str], selected: Sequence[str], pattern: str
           ) -> tuple[list[str], str, str | None]:
    """(``All`` value, "n of m" text, filter error) for a selection."""
    matching, error = filter_tags(tags, pattern)
    chosen = set(selected)
    shown = sum(1 for tag in matching if tag in chosen)
    everything = bool(matching) and shown == len(matching)
    text = f"{shown} of {len(tags)} shown" if pattern or shown != len(tags) else \
        f"{len(tags)} tag{'' if len(tags) == 1 else 's'}"
    return (["all"] if everything else []), text, error


def tag_select(prefix: str, tags: Sequence[str], selected: Sequence[str] | None,
               pattern: str = "", label: str = "Tag Selection") -> html.Div:
    """The tag selection row (see the module docstring for its ids)."""
    chosen = list(tags) if selected is None else [t for t in tags if t in set(selected)]
    all_value, count, error = _state(tags, chosen, pattern)
    return html.Div(className="di-tag-select", children=[
        dcc.Store(id=f"{prefix}-tag-list", data=list(tags)),
        html.Span(label, className="di-control-label"),
        dcc.Checklist(id=f"{prefix}-all", options=[{"label": " All", "value": "all"}],
                      value=all_value, className="di-tag-all"),
        dcc.Checklist(id=f"{prefix}-tags", options=_options(tags, pattern), value=chosen,
                      className="di-tag-list", inline=True),
        html.Div(className="di-tag-tools", children=[
            dcc.Input(id=f"{prefix}-filter", value=pattern, type="text", debounce=0.4,
                      placeholder="Filter tags (regular expression)",
                      className="di-input di-tag-filter"),
            html.Span(count, id=f"{prefix}-tag-count", className="di-muted"),
            html.Span(error or "", id=f"{prefix}-filter-error", className="di-error-text"),
        ]),
    ])


def sync_selection(trigger: str | None, tags: Sequence[str], selected: Sequence[str] | None,
                   all_value: Sequence[str] | None, pattern: str
                   ) -> tuple[list[str], list[str], str, str | None]:
    """What the row shows after a change: ``(checked tags, All value, count text, error)``.

    ``trigger`` is ``"all"`` when the All box was clicked: it then checks (ticked) or unchecks
    (cleared) every tag matching the filter and leaves the hidden ones as they were.
    """
    chosen = [t for t in tags if t in set(selected or [])]
    if trigger == "all":
        matching, _ = filter_tags(tags, pattern)
        if all_value:
            chosen = [t for t in tags if t in set(chosen) | set(matching)]
        else:
            chosen = [t for t in chosen if t not in set(matching)]
    all_state, count, error = _state(tags, chosen, pattern)
    return chosen, all_state, count, error


def user_change() -> bool:
    """True inside a callback fired by one changed input (a user action), False when Dash
    fired it for newly rendered components (all its inputs reported at once)."""
    return len(ctx.triggered) == 1 and ctx.triggered_id is not None


def register_tag_select(app: dash.Dash, prefix: str) -> None:
    """Keep the row of ``prefix`` consistent: All <-> checkboxes, filter -> visible options."""

    @app.callback(
        Output(f"{prefix}-tags", "value"), Output(f"{prefix}-all", "value"),
        Output(f"{prefix}-tags", "options"), Output(f"{prefix}-tag-count", "children"),
        Output(f"{prefix}-filter-error", "children"),
        Input(f"{prefix}-all", "value"), Input(f"{prefix}-tags", "value"),
        Input(f"{prefix}-filter", "value"), State(f"{prefix}-tag-list", "data"),
        prevent_initial_call=True,
    )
    def sync(all_value: list[str] | None, selected: list[str] | None, pattern: str | None,
             tags: list[str] | None) -> tuple:
        if not user_change():
            return (dash.no_update,) * 5
        tags = tags or []
        trigger = ctx.triggered_id
        kind = "all" if trigger == f"{prefix}-all" else None
        chosen, all_state, count, error = sync_selection(kind, tags, selected, all_value,
                                                         pattern or "")
        options = _options(tags, pattern or "") if trigger == f"{prefix}-filter" \
            else dash.no_update
        return (chosen if chosen != (selected or []) else dash.no_update,
                all_state if all_state != (all_value or []) else dash.no_update,
                options, count, error or "")
