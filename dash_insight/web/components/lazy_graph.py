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
               config: Mapping[str, Any], class_name: str, preview: Any = None) -> html.Div:
    """The place of ``dcc.Graph(id=graph_id, figure=figure, config=config,
    className=class_name, responsive=True)``, drawn when on screen. ``key`` names it among the
    lazy graphs of the app (a page prefix and the tag); the slot takes the graph's class name
    too, so it holds the graph's height before it is drawn. ``preview``: what the slot holds
    until then (a page's first paint: the chart drawn on the server)."""
    return html.Div(className="di-lazy-graph", children=[
        dcc.Store(id=lazy_figure_id(key), data=lazy_figure(graph_id, figure, config, class_name)),
        html.Div(preview, id={"type": SLOT, "key": key}, className=f"di-lazy-slot {class_name}"),
    ])


def lazy_figure_id(key: str) -> dict[str, str]:
    """The id of the store of a lazy graph's figure: a callback that draws a new figure in
    the graph answers :func:`lazy_figure` to it."""
    return {"type": FIGURE, "key": key}


def lazy_figure(graph_id: dict[str, str] | str, figure: Any, config: Mapping[str, Any],
                class_name: str, style: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """What a lazy graph's store holds: the figure and the graph's properties (``style``: the
    graph's own, e.g. a height that depends on the figure: the graph is responsive, so its
    size is its box's, not the figure's); None (the slot stays empty) while there is no
    figure."""
    if figure is None:
        return None
    graph: dict[str, Any] = {"id": graph_id, "config": dict(config), "className": class_name}
    if style:
        graph["style"] = dict(style)
    return {"figure": figure, "graph": graph}


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
