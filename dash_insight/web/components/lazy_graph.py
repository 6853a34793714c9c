"""A chart drawn when it comes on screen (issue 17 item 8: draw only what is on screen).

A page of a dozen cards of a few hundred traces each (parameter distribution) spent seconds of
the browser's time drawing charts nobody had scrolled to. :func:`lazy_graph` sends the figure
with the card, in a ``dcc.Store`` beside an empty slot that keeps the graph's place; the
browser (``assets/lazy-graphs.js``) mounts the ``dcc.Graph``, created once with its figure,
when the slot comes within a few rows of the screen (an IntersectionObserver on every slot,
whenever it arrives in the document), and again with the new figure when the card's store
changes while it is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dash import ClientsideFunction, Input, Output, State, dcc, html
from dash.dependencies import ALL

#: The pattern-id types of a lazy graph's parts: its figure's store and its slot.
FIGURE = "lazy-graph-figure"
SLOT = "lazy-graph-slot"


def lazy_graph(key: str, graph_id: dict[str, str] | str, figure: Any,
               config: Mapping[str, Any], class_name: str) -> html.Div:
    """The place of ``dcc.Graph(id=graph_id, figure=figure, config=config,
    className=class_name, responsive=True)``, drawn when on screen. ``key`` names it among the
    lazy graphs of the app (a page prefix and the tag); the slot takes the graph's class name
    too, so it holds the graph's height before it is drawn."""
    graph = {"id": graph_id, "config": dict(config), "className": class_name}
    return html.Div(className="di-lazy-graph", children=[
        dcc.Store(id={"type": FIGURE, "key": key}, data={"figure": figure, "graph": graph}),
        html.Div(id={"type": SLOT, "key": key}, className=f"di-lazy-slot {class_name}"),
    ])


def register_lazy_graphs(app: Any) -> None:
    """The browser side of every lazy graph of ``app`` (registered once per app): new or
    changed figures are drawn at once in the slots on screen, the others when scrolled to."""
    if getattr(app, "_dash_insight_lazy_graphs", False):
        return
    app._dash_insight_lazy_graphs = True
    app.clientside_callback(
        ClientsideFunction(namespace="lazyGraphs", function_name="figures"),
        Output({"type": SLOT, "key": ALL}, "children"),
        Input({"type": FIGURE, "key": ALL}, "data"),
        State({"type": FIGURE, "key": ALL}, "id"),
    )
