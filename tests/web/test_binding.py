"""``web.binding``: callbacks bound with the id that fired them, and layouts preset with what a
callback would answer at load."""

from __future__ import annotations

import dash
import pytest
from dash import Output, dcc, html

from dash_insight.web.binding import preset


def test_preset_sets_each_output_in_the_tree() -> None:
    figure_id = {"type": "figure", "key": "loss"}
    tree = html.Div([html.Section([html.Span(id="count")]), dcc.Store(id=figure_id)], id="page")
    outputs = (
        Output("count", "children"),
        Output(figure_id, "data"),
        Output("page", "className"),
        Output("count", "title"),
    )
    assert preset(tree, outputs, ("3 of 5", {"x": [1]}, "drawn", dash.no_update)) is tree
    span, store = tree.children[0].children[0], tree.children[1]
    assert span.children == "3 of 5" and store.data == {"x": [1]}
    assert tree.className == "drawn"
    assert getattr(span, "title", None) is None  # no_update leaves it as it was


def test_preset_refuses_an_output_not_in_the_tree_and_a_count_mismatch() -> None:
    tree = html.Div(html.Span(id="count"))
    with pytest.raises(KeyError):
        preset(tree, (Output("missing", "children"),), ("x",))
    with pytest.raises(ValueError):
        preset(tree, (Output("count", "children"),), ("x", "y"))
