"""Query-string state: every page, job, tag and view setting that matters lives in the URL."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode


def parse_search(search: str | None) -> dict[str, str]:
    """``?a=1&b=x`` -> {"a": "1", "b": "x"} (the last value wins for repeated keys)."""
    return dict(parse_qsl((search or "").lstrip("?"), keep_blank_values=False))


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

