"""``web.clicks``: a click told apart from its button being drawn, as Dash reports them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from dash._callback_context import context_value
from dash._utils import AttributeDict

from dash_insight.web.clicks import drawn_not_clicked, picker_button_drawn


@contextmanager
def fired_by(*inputs: tuple[Any, Any]) -> Iterator[None]:
    """Run the body as a callback that ``(component id, n_clicks)`` pairs fired."""
    triggered = [
        {
            "prop_id": (
                json.dumps(i, separators=(",", ":"), sort_keys=True) if isinstance(i, dict) else i
            )
            + ".n_clicks",
            "value": value,
        }
        for i, value in inputs
    ]
    token = context_value.set(AttributeDict(triggered_inputs=triggered))
    try:
        yield
    finally:
        context_value.reset(token)


@pytest.mark.parametrize("clicks, drawn", [(None, True), (0, True), (1, False), (7, False)])
def test_a_button_with_no_clicks_was_drawn(clicks: int | None, drawn: bool) -> None:
    with fired_by(({"type": "sort", "column": "loss"}, clicks)):
        assert drawn_not_clicked() is drawn
    with fired_by(("compare-download-csv", clicks)):
        assert drawn_not_clicked() is drawn


def test_no_trigger_is_no_click() -> None:
    with fired_by():  # the initial call: Dash's "falsy" triggered list
        assert drawn_not_clicked()
        assert not picker_button_drawn()  # not a picker button: its id is None


@pytest.mark.parametrize(
    "component, clicks, drawn",
    [
        ("scalar-tags-all", None, True),
        ("scalar-tags-none", 0, True),
        ("scalar-tags-all", 1, False),
        ("compare-jobs-none", 2, False),
        ("scalar-tags-filter", None, False),  # not All / None: the callback goes on
        ({"type": "sort", "column": "all"}, None, False),
    ],
)
def test_a_picker_button_drawn_not_clicked(component: Any, clicks: int | None, drawn: bool) -> None:
    with fired_by((component, clicks)):
        assert picker_button_drawn() is drawn
