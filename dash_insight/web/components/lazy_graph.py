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

import base64
from collections.abc import Mapping
from typing import Any

import numpy as np
import orjson
from dash import ClientsideFunction, Input, Output, State, dcc, html
from dash.dependencies import ALL
from plotly.io.json import to_json_plotly

#: The pattern-id types of a lazy graph's parts: its figure's store and its slot.
FIGURE = "lazy-graph-figure"
SLOT = "lazy-graph-slot"


def lazy_graph(
    key: str,
    graph_id: dict[str, str] | str,
    figure: Any,
    config: Mapping[str, Any],
    class_name: str,
    preview: Any = None,
) -> html.Div:
    """The place of ``dcc.Graph(id=graph_id, figure=figure, config=config,
    className=class_name, responsive=True)``, drawn when on screen. ``key`` names it among the
    lazy graphs of the app (a page prefix and the tag); the slot takes the graph's class name
    too, so it holds the graph's height before it is drawn. ``preview``: what the slot holds
    until then (a page's first paint: the chart drawn on the server)."""
    return html.Div(
        className="di-lazy-graph",
        children=[
            dcc.Store(
                id=lazy_figure_id(key), data=lazy_figure(graph_id, figure, config, class_name)
            ),
            html.Div(preview, id=lazy_slot_id(key), className=f"di-lazy-slot {class_name}"),
        ],
    )


def lazy_figure_id(key: str) -> dict[str, str]:
    """The id of the store of a lazy graph's figure: a callback that draws a new figure in
    the graph answers :func:`lazy_figure` to it."""
    return {"type": FIGURE, "key": key}


def lazy_slot_id(key: str) -> dict[str, str]:
    """The id of a lazy graph's slot: a callback may answer its ``style`` (the height the graph
    will have, so that what is below it does not move when it is drawn)."""
    return {"type": SLOT, "key": key}


def lazy_figure(
    graph_id: dict[str, str] | str,
    figure: Any,
    config: Mapping[str, Any],
    class_name: str,
    style: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """What a lazy graph's store holds: the figure and the graph's properties (``style``: the
    graph's own, e.g. a height that depends on the figure: the graph is responsive, so its
    size is its box's, not the figure's); None (the slot stays empty) while there is no
    figure."""
    if figure is None:
        return None
    graph: dict[str, Any] = {"id": graph_id, "config": dict(config), "className": class_name}
    if style:
        graph["style"] = dict(style)
    return {"figure": figure_json(figure), "graph": graph}


def figure_json(figure: Any) -> str:
    """``figure`` (a plain dict of lists and numpy arrays, or a ``go.Figure``) as JSON text,
    which the browser parses when it draws the chart (``assets/lazy-graphs.js``). A dict is
    encoded by orjson at once: Dash's encoder walked every element of a page's figures in
    Python first (0.2 s of the parameter distribution page's answer on this machine), and
    the renderer compared the figures' objects on every update (a string compares at once)."""
    if isinstance(figure, dict):
        data = [
            {key: _typed_array(value) for key, value in trace.items()}
            for trace in figure.get("data", [])
        ]
        return orjson.dumps(
            {**figure, "data": data}, default=_json_default, option=orjson.OPT_SERIALIZE_NUMPY
        ).decode()
    return str(to_json_plotly(figure))


def _typed_array(value: Any) -> Any:
    """A trace's numeric array as Plotly's typed array (``{"dtype", "bdata"}``: base64 of its
    bytes, as plotly.py sends a figure's arrays; 11 characters a float, 18 in decimal), other
    values as they are. Plotly.js reads 8-bit to 32-bit integers and 32 or 64-bit floats:
    wider integers go as 32-bit ones when they fit, else as floats."""
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu" or not value.size:
        return value
    array = value
    if array.dtype.kind == "f":
        array = array.astype("<f8" if array.dtype.itemsize > 4 else "<f4")
    elif array.dtype.itemsize > 4:
        fits = array.min() >= -(2**31) and array.max() < 2**31
        array = array.astype("<i4" if fits else "<f8")
    else:
        array = array.astype(array.dtype.newbyteorder("<"))
    array = np.ascontiguousarray(array)
    spec = {
        "dtype": array.dtype.str.lstrip("<|"),
        "bdata": base64.b64encode(array.tobytes()).decode(),
    }
    return spec if array.ndim == 1 else {**spec, "shape": ",".join(map(str, array.shape))}


def _json_default(value: Any) -> Any:
    """What orjson does not encode itself: non-contiguous or object arrays, numpy scalars,
    lazily translated strings."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


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
