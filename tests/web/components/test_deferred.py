"""A component mounted when it comes on screen (web/components/deferred.py,
assets/deferred.js)."""

from __future__ import annotations

import json

from dash import html

from dash_insight.web.components.deferred import deferred_children
from tests.pages import find


def test_a_card_holds_its_children_back_but_its_title() -> None:
    title = html.Div("loss", className="title")
    card = html.Div(
        [html.Button("log", id="b"), title],
        id={"type": "card", "n": "1"},
        className="card",
        style={"order": 2},
    )
    holder = deferred_children(card, "300px", 3, keep=lambda c: c is title)
    props = holder.to_plotly_json()["props"]
    assert props["id"] == {"type": "card", "n": "1"}
    assert props["className"] == "di-deferred card" and props["children"] == [title]
    assert props["style"] == {"order": 2, "minHeight": "300px"}
    assert json.loads(props["data-style"]) == {"order": 2}  # the card's own, once filled
    assert props["data-batch"] == "3"
    assert [c["props"].get("id") for c in json.loads(props["data-component"])] == ["b", None]
    assert find(holder, "b").children == "log"
