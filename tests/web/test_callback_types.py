"""The JSON types a callback's annotated parameters take (web/callback_types.py)."""

from __future__ import annotations

from typing import Any

import pytest

from dash_insight.web.callback_types import accepts, parameter_annotations, wrong_type


@pytest.mark.parametrize(
    ("annotation", "value", "taken"),
    [
        ("str | None", "?a=1", True),
        ("str | None", None, True),
        ("str | None", ["x"], False),
        ("str | None", 3, False),
        ("int | None", 3, True),
        ("int | None", 3.0, True),  # a slider may send either
        ("int | None", True, False),
        ("bool", True, True),
        ("dict | None", {"a": 1}, True),
        ("dict | None", "x", False),
        ("list[str] | None", ["a", "b"], True),
        ("list[str] | None", ["a", 1], False),
        ("list[int | None]", [1, None], True),
        ("list[int | None]", [1, "x"], False),
        ("list", [1, "x", {}], True),
        ("list[dict[str, Any]] | None", [{"a": 1}], True),
        ("Any", {"anything": [1]}, True),
        ("Mapping[str, str]", 5, True),  # not ours to judge
    ],
)
def test_accepts(annotation: str, value: Any, taken: bool) -> None:
    assert accepts(annotation, value) is taken


def _callback(search: str | None, stored: dict | None, tags: list[str] | None) -> Any:
    return search, stored, tags


def _variadic(*values: Any) -> Any:
    return values


def test_wrong_type_names_the_first_misfit() -> None:
    assert parameter_annotations(_callback) == ("str | None", "dict | None", "list[str] | None")
    assert wrong_type(_callback, ["?a", {}, ["t"]]) is None
    assert wrong_type(_callback, [None, None, None]) is None
    assert wrong_type(_callback, ["?a", "junk", ["t"]]) == 1
    assert wrong_type(_callback, [["?a"], "junk", ["t"]]) == 0
    assert wrong_type(_callback, ["?a", {}]) is None  # cannot be matched: Dash's own check
    assert wrong_type(_variadic, [1, 2]) is None
