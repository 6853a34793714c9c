"""Training dashboard of one job: a card per kind of data, each opening its page.

URL: ``/dashboard?train_id=./job``. Cards: scalars (first two tags), parameter distribution
(first histogram tag, top view), tensor (corner of the first tensor's last step),
computational graph (top-level scopes and the data flowing between them), data graph (the
dataset pipeline), latest image (with "switch tag"). A card without data says how to record it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import dash
import dash_cytoscape as cyto
import numpy as np
import plotly.graph_objects as go
from dash import Input, Output, State, dcc, html

from ...data.provider import DataError, DataProvider
from ...data.service import DataService
from ..components.figures import histogram_ridge_figure, small_layout
from ..urls import make_search, parse_search

PATH = "/dashboard"
PREVIEW_POINTS = 300
PREVIEW_HISTOGRAM_STEPS = 20

EMPTY = {
    "scalar": ["No scalar yet. SummaryCollector records ", html.Code("loss"), "; add your own "
               "with ", html.Code("SummaryRecord.add_value('scalar', 'acc', value)"), " or ",
               html.Code("dash_insight.SummaryWriter.add_scalar"), "."],
    "histogram": ["No parameter distribution yet. SummaryCollector records the first five "
                  "weights by default (", html.Code("collect_specified_data="
                                                    "{'histogram_regular': ...}"), "); or use ",
                  html.Code("HistogramSummary"), " / ", html.Code("add_value('histogram', ...)"),
                  "."],
    "tensor": ["No tensor yet. In the training script, add ", html.Code("ops.TensorSummary"),
               " or ", html.Code("add_value('tensor', name, tensor)"), " to save tensor data."],
    "graph": ["No computational graph. SummaryCollector records it in GRAPH_MODE ",
              html.Code("collect_specified_data={'collect_graph': True}"), "; PyNative runs have "
              "none."],
    "dataset": ["No data graph. SummaryCollector records the dataset pipeline with ",
                html.Code("collect_specified_data={'collect_dataset_graph': True}"), "."],
    "image": ["No image yet. SummaryCollector records the first input batch with ",
              html.Code("collect_input_data"), "; or use ", html.Code("ImageSummary"), " / ",
              html.Code("add_value('image', name, nchw)"), "."],
}


def _card(app: dash.Dash, title: str, page: str | None, train_id: str, body: Any,
          foot: Any = None, card_id: str | None = None) -> html.Section:
    head: list[Any] = [html.Span(title)]
    if page is not None:
        head.append(dcc.Link("Open ›", href=app.get_relative_path(page)
                             + make_search({"train_id": train_id})))
    return html.Section(className="di-panel di-card", id=card_id or "", children=[
        html.Div(head, className="di-card-head"),
        html.Div(body, className="di-card-body"),
        html.Div(foot, className="di-card-foot") if foot else None,
    ])


def _empty(kind: str) -> html.Div:
    return html.Div(EMPTY[kind], className="di-empty")


def scalar_preview(provider: DataProvider, train_id: str, tags: list[str]) -> Any:
    """The first two scalar tags, the second on a right-hand axis (as MindInsight)."""
    if not tags:
        return _empty("scalar"), None
    figure = go.Figure(layout=small_layout(height=240))
    for i, tag in enumerate(tags[:2]):
        series = provider.read_scalars(train_id, tag, max_points=PREVIEW_POINTS)
        values = np.where(np.isfinite(series.value), series.value, np.nan)
        figure.add_trace(go.Scatter(x=series.step, y=values, name=tag, mode="lines",
                                    yaxis="y2" if i else "y"))
    if len(tags) > 1:
        figure.update_layout(yaxis2={"overlaying": "y", "side": "right", "showgrid": False})
    figure.update_layout(showlegend=True, legend={"orientation": "h", "y": -0.2})
    return (dcc.Graph(figure=figure, config={"displayModeBar": False, "staticPlot": True},
                      id="preview-scalar"),
            f"{len(tags)} scalar tag(s)")


def histogram_preview(provider: DataProvider, train_id: str, tags: list[str]) -> Any:
    if not tags:
        return _empty("histogram"), None
    steps = provider.histograms(train_id, tags[0], max_steps=PREVIEW_HISTOGRAM_STEPS)
    figure = histogram_ridge_figure(steps, height=240)
    return (dcc.Graph(figure=figure, config={"displayModeBar": False, "staticPlot": True},
                      id="preview-histogram"),
            f"{tags[0]} · {len(tags)} tag(s)")


def tensor_preview(provider: DataProvider, train_id: str, tags: list[str]) -> Any:
    """A corner (at most 3x3) of the first tensor tag's last step, cells coloured by value."""
    if not tags:
        return _empty("tensor"), None
    tag = tags[0]
    steps = provider.value_steps(train_id, "tensor", tag)
    step = int(steps.step[-1])
    meta = steps.meta[-1] or {}
    dims = list(meta.get("dims", []))
    index = ",".join(["0"] * max(0, len(dims) - 2) + [f"0:{min(3, d)}" for d in dims[-2:]])
    try:
        corner = np.atleast_2d(provider.tensor_slice(train_id, tag, step, f"[{index}]"))
    except DataError as error:
        return html.Div(str(error), className="di-empty"), tag
    finite = corner[np.isfinite(corner)] if corner.dtype.kind == "f" else corner.astype(float)
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)

    def cell(value: Any) -> html.Td:
        share = 0.5 if high == low or not np.isfinite(float(value)) else (
            (float(value) - low) / (high - low))
        colour = f"rgba(0, 165, 167, {0.1 + 0.5 * share:.2f})"
        text = str(value) if corner.dtype.kind in "biu" else f"{float(value):.4g}"
        return html.Td(text, style={"background": colour})

    table = html.Table(className="di-heat", children=[
        html.Tbody([html.Tr([cell(v) for v in row]) for row in corner.tolist()])])
    return (html.Div([table], style={"display": "flex", "justifyContent": "center"}),
            f"{tag} · step {step} · shape {dims} · {meta.get('data_type', '')}")


def graph_preview(provider: DataProvider, train_id: str, tags: list[str]) -> Any:
    """Top-level name scopes with their node counts, and the edges between them."""
    if not tags:
        return _empty("graph"), None
    graph = provider.read_graph(train_id, tags[-1])
    scope_of = {node.name: (node.scope or node.full_name or node.name).split("/")[0]
                for node in graph.node}
    counts = Counter(scope_of.values())
    edges: Counter[tuple[str, str]] = Counter()
    for node in graph.node:
        for edge in node.input:
            source = scope_of.get(edge.name)
            if source and source != scope_of[node.name]:
                edges[(source, scope_of[node.name])] += 1
    scopes = sorted(counts, key=lambda s: (-counts[s], s))
    elements = [{"data": {"id": s, "label": f"{s}\n{counts[s]} nodes"},
                 "position": {"x": 170 * i, "y": 60 * (i % 2)}} for i, s in enumerate(scopes)]
    elements += [{"data": {"source": a, "target": b, "label": f"{n} tensors"}}
                 for (a, b), n in edges.items()]
    stylesheet = [
        {"selector": "node", "style": {"label": "data(label)", "text-wrap": "wrap",
                                       "text-valign": "center", "shape": "round-rectangle",
                                       "width": 130, "height": 48, "font-size": 11,
                                       "background-color": "#d7eef2", "border-width": 1,
                                       "border-color": "#00a5a7"}},
        {"selector": "edge", "style": {"label": "data(label)", "font-size": 9,
                                       "curve-style": "bezier", "target-arrow-shape": "triangle",
                                       "line-color": "#9aa0a8", "target-arrow-color": "#9aa0a8",
                                       "text-background-color": "#ffffff",
                                       "text-background-opacity": 0.7}},
    ]
    return (cyto.Cytoscape(id="preview-graph", elements=elements, layout={"name": "preset"},
                           stylesheet=stylesheet, userZoomingEnabled=False,
                           userPanningEnabled=False, autoungrabify=True,
                           style={"width": "100%", "height": "230px"}),
            f"{tags[-1]} · {len(graph.node)} nodes")


def pipeline_steps(graph: dict[str, Any] | None) -> list[tuple[str, list[str]]]:
    """The dataset pipeline from source to last op: (op type, its map operations)."""
    chain = []
    node = graph
    while node:
        operations = [op.get("tensor_op_name") or op.get("tensor_op_module") or "op"
                      for op in node.get("operations", [])]
        chain.append((str(node.get("op_type", "?")), operations))
        children = node.get("children") or []
        node = children[0] if children else None
    return chain[::-1]


def dataset_preview(provider: DataProvider, train_id: str) -> Any:
    chain = pipeline_steps(provider.dataset_graph(train_id))
    if not chain:
        return _empty("dataset"), None
    items: list[Any] = []
    for i, (op_type, operations) in enumerate(chain):
        if i:
            items.append(html.Span("→", className="di-arrow"))
        items.append(html.Div([op_type, html.Small(", ".join(operations))] if operations
                              else op_type, className="di-op"))
    return html.Div(items, className="di-pipeline", id="preview-dataset"), f"{len(chain)} ops"


def image_preview(app: dash.Dash, provider: DataProvider, train_id: str, tags: list[str],
                  index: int) -> Any:
    if not tags:
        return _empty("image"), None
    tag = tags[index % len(tags)]
    steps = provider.value_steps(train_id, "image", tag)
    src = app.get_relative_path("/v1/mindinsight/datavisual/image/single-image") + make_search(
        {"train_id": train_id, "tag": f"{tag}/image", "step": int(steps.step[-1])})
    return (html.Img(src=src, className="di-card-image", id="preview-image", alt=tag),
            f"{tag} · step {int(steps.step[-1])} · {len(tags)} tag(s)")


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    train_id = params.get("train_id", "")
    return html.Div([
        html.Div(className="di-page-head", children=[
            html.H1("Training Dashboard", className="di-title"),
            html.Span(f"Summary path: {train_id}", className="di-subtitle"),
        ]),
        dcc.Store(id="image-tag-index", data=0),
        dcc.Store(id="dashboard-shown"),  # (train_id, version, image index) on screen
        html.Div(id="dashboard-cards", className="di-cards"),
    ])


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider

    @app.callback(
        Output("dashboard-cards", "children"), Output("dashboard-shown", "data"),
        Input("url", "search"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"), Input("image-tag-index", "data"),
        State("dashboard-shown", "data"),
    )
    def cards(search: str | None, _ticks: int | None, _clicks: int | None,
              image_index: int | None, shown: list | None) -> Any:
        train_id = parse_search(search).get("train_id", "")
        try:
            job = provider.job(train_id)
        except DataError as error:
            return html.Div(className="di-panel di-empty", children=[
                html.P(str(error)), dcc.Link("Back to the summary list",
                                             href=app.get_relative_path("/"))]), None
        current = [train_id, job.version, image_index or 0, len(job.reasons)]
        if shown == current:
            return dash.no_update, dash.no_update  # nothing new: keep the cards as they are
        tags = job.tags
        built = []
        specs = [
            ("Scalars", "/scalars", "card-scalar",
             lambda: scalar_preview(provider, train_id, tags["scalar"])),
            ("Parameter Distribution", "/histograms", "card-histogram",
             lambda: histogram_preview(provider, train_id, tags["histogram"])),
            ("Tensors", "/tensors", "card-tensor",
             lambda: tensor_preview(provider, train_id, tags["tensor"])),
            ("Computational Graph", "/graph", "card-graph",
             lambda: graph_preview(provider, train_id, tags["graph"])),
            ("Data Graph", "/data-graph", "card-dataset",
             lambda: dataset_preview(provider, train_id)),
            ("Images", "/images", "card-image",
             lambda: image_preview(app, provider, train_id, tags["image"], image_index or 0)),
        ]
        for title, page, card_id, build in specs:
            try:
                body, foot = build()
            except DataError as error:  # e.g. a file changed under us: say so, keep the rest
                body, foot = html.Div(str(error), className="di-empty di-error-text"), None
            has_data = foot is not None
            if card_id == "card-image" and len(tags["image"]) > 1:
                foot = [foot, " · ", html.Button("Switch tag", id="switch-image-tag",
                                                 className="di-link-button")]
            built.append(_card(app, title, page if has_data else None, train_id, body, foot,
                               card_id))
        if job.reasons:
            built.insert(0, html.Details(className="di-panel di-warning", style={
                "gridColumn": "1 / -1", "padding": "10px 14px"}, children=[
                html.Summary(f"⚠ This job has {len(job.reasons)} problem(s); everything "
                             "readable is shown."),
                html.Ul([html.Li(r) for r in job.reasons[:50]])]))
        return built, current

    @app.callback(Output("image-tag-index", "data"), Input("switch-image-tag", "n_clicks"),
                  State("image-tag-index", "data"), prevent_initial_call=True)
    def switch_image_tag(clicks: int | None, index: int | None) -> int:
        return (index or 0) + 1 if clicks else dash.no_update
