"""The JSON types a callback's parameters take, read from its annotations.

Every page callback annotates its inputs and states (``search: str | None``, ``stored: dict |
None``, ``tags: list[str] | None``). A body whose values are of another JSON type (a list where
the callback takes a string, a number where it takes a dict) is one the renderer never sends:
when the callback fails on it, :func:`wrong_type` names the value, so ``dash_requests`` answers
400 instead of 500. It is asked only after a failure, so an annotation narrower than what the
browser sends never refuses a working page. ``None`` is always accepted (the renderer sends it
for a property not set yet); numbers are interchangeable (a slider sends ``3`` or ``3.0``); an
annotation this module does not know (``Any``, a class) accepts everything.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

_NUMBER = (int, float)
#: Annotation words and the JSON values they take (``bool`` is not a number here).
_SIMPLE: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": _NUMBER,
    "float": _NUMBER,
    "bool": (bool,),
    "dict": (dict,),
    "list": (list,),
    "tuple": (list,),
}


class CallbackValueError(ValueError):
    """A callback's value that the page never sends: a store not of the shape the page wrote
    in it, lists of one component's values not as long as another's, more cards than a page
    has. A callback raises it before any work; ``dash_requests`` answers 400 with its text."""


def _split_union(annotation: str) -> list[str]:
    """``"list[str] | dict | None"`` -> ``["list[str]", "dict", "None"]`` (``|`` inside
    brackets kept)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in annotation:
        depth += (char == "[") - (char == "]")
        if char == "|" and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return parts


def accepts(annotation: str, value: Any) -> bool:
    """Whether ``value`` (decoded JSON) is of a type ``annotation`` (a string, as ``from
    __future__ import annotations`` keeps them) allows; unknown annotations allow anything."""
    if value is None:
        return True
    for part in _split_union(annotation):
        if part == "None":
            continue
        base, _, inner = part.partition("[")
        kinds = _SIMPLE.get(base.strip())
        if kinds is None:
            return True  # Any, a class, a type alias: not ours to judge
        if isinstance(value, bool) and bool not in kinds:
            continue
        if not isinstance(value, kinds):
            continue
        if not isinstance(value, list) or _items_accepted(inner, value):
            return True
    return False


def _items_accepted(inner: str, items: list[Any]) -> bool:
    """``list[<inner>]``: every item of a type ``inner`` allows (``list`` alone: any)."""
    inner = inner.rstrip("]").strip()
    return not inner or all(accepts(inner, item) for item in items)


@functools.lru_cache(maxsize=512)
def parameter_annotations(function: Callable[..., Any]) -> tuple[str, ...] | None:
    """The annotation text of each positional parameter of the function a Dash callback wraps
    (``"Any"`` where none); None when it takes ``*args`` or keywords only."""
    wrapped = getattr(function, "__wrapped__", function)
    try:
        parameters = inspect.signature(wrapped).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind not in kinds for p in parameters):
        return None
    return tuple(p.annotation if isinstance(p.annotation, str) else "Any" for p in parameters)


def wrong_type(function: Callable[..., Any], values: Sequence[Any]) -> int | None:
    """The position of the first of ``values`` (the callback's inputs then states, as Dash
    passes them) whose JSON type its parameter's annotation does not allow; None when all
    fit or the parameters cannot be matched to the values."""
    annotations = parameter_annotations(function)
    if annotations is None or len(annotations) != len(values):
        return None
    for position, (annotation, value) in enumerate(zip(annotations, values, strict=True)):
        if not accepts(annotation, value):
            return position
    return None
