"""Data graph of one job (MindInsight's "Data Graph" page): the dataset pipeline, left to right
from the source dataset to the last operation; a Map is a box around its operations.

URL: ``/data-graph?train_id=./job&node=<id>`` (ids are tree paths, see
:func:`dash_insight.plugins.graphs.query_dataset.pipeline`). Clicking a node shows its
parameters, list values decoded from MindSpore's JSON encoding.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

import dash
import dash_cytoscape as cyto
from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate
from dash_insight.core.provider import DataError
from dash_insight.plugins.graphs.figures_cytoscape import (
    CLIENTSIDE_NAMESPACE,
    DATA_LEGEND,
    ELK_CLASS,
    ELK_FIT,
    ELK_RIGHT,
    canvas_buttons,
    data_stylesheet,
    legend,
    pipeline_elements,
    register_canvas_tools,
)
from dash_insight.plugins.graphs.query_dataset import Pipeline, decode_value, display_text, pipeline
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.web.components.page_head import job_page_head
from dash_insight.web.url_state import Text, TypedUrlState, make_search, parse_search

PATH = "/data-graph"
#: Prefix of the canvas ids (``data-graph-cy``, ``data-graph-canvas-wrap``, its buttons).
CANVAS = "data-graph"
#: cytoscape ``png()`` options of "Download PNG": the whole pipeline, white, twice the pixels.
PNG_OPTIONS = {"full": True, "bg": "#ffffff", "scale": 2}


#: The longest job id or node id read from the URL (longer ones are cut).
MAX_NAME_CHARS = 4096


@dataclass(frozen=True)
class DataGraphUrl:
    """The page's URL state (:data:`STATE`): the job and the chosen node ("": none)."""

    train_id: str = ""
    node: str = ""


#: :class:`DataGraphUrl` in the URL (``?train_id=&node=``), each text bounded.
STATE: TypedUrlState[DataGraphUrl] = TypedUrlState(
    DataGraphUrl,
    train_id=Text("train_id", max_chars=MAX_NAME_CHARS),
    node=Text("node", max_chars=MAX_NAME_CHARS),
)


def no_pipeline() -> list[Any]:
    """What a job without a dataset graph shows: how to record one."""
    return interpolate(
        _(
            "No data graph. SummaryCollector records the dataset pipeline with {collect} (in the "
            "job's _lineage file)."
        ),
        collect=html.Code("collect_specified_data={'collect_dataset_graph': True}"),
    )


def parameter_rows(parameters: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, text) of a node's parameters, as MindInsight's panel lists them; a sampler (a
    dict) is shown as JSON."""
    rows = []
    for key, value in parameters.items():
        if isinstance(value, dict):
            rows.append(
                (
                    key,
                    json.dumps(
                        {k: decode_value(v) for k, v in value.items()}, ensure_ascii=False, indent=1
                    ),
                )
            )
        else:
            rows.append((key, display_text(value)))
    return rows


def node_panel(graph: Pipeline, node_id: str | None) -> Any:
    if not node_id:
        return html.Div(_("Click a node to see its parameters."), className="di-muted")
    node = graph.by_id.get(node_id)
    if node is None:
        return html.Div(
            _("No node {name!r} in this pipeline.").format(name=node_id), className="di-error-text"
        )
    rows = parameter_rows(node.parameters)
    items: list[Any] = []
    for key, text in rows:
        items += [html.Dt(key), html.Dd(html.Pre(text) if "\n" in text else text)]
    header = html.Div(
        [html.B(node.label), html.Span(f" · {node.kind}", className="di-muted")],
        id="data-graph-info-title",
    )
    return [header, html.Dl(items) if items else html.Div(_("No parameter."), className="di-muted")]


def layout(app: dash.Dash, service: GraphService, params: dict[str, str]) -> html.Div:
    """The page's frame: the job's head, the canvas with its toolbar, node information and
    legend beside it; the render callback fills them from the URL."""
    train_id = STATE.parse(params).train_id
    return html.Div(
        className="gp-page",
        children=[
            job_page_head(app, _("Data Graph"), train_id),
            dcc.Store(id="data-graph-shown"),
            html.Div(className="gp-layout", children=[main_panel(), side_panel()]),
        ],
    )


def main_panel() -> html.Section:
    """The summary line and canvas buttons, the notices and the pipeline's canvas."""
    return html.Section(
        className="di-panel gp-main",
        children=[
            html.Div(
                className="di-toolbar gp-toolbar",
                children=[
                    html.Span(id="data-graph-summary", className="di-muted"),
                    html.Div(className="di-spacer"),
                    html.Button(_("Fit"), id="data-graph-fit", className="di-button secondary"),
                    *canvas_buttons(CANVAS, "data-graph", PNG_OPTIONS),
                ],
            ),
            html.Div(id="data-graph-notice", className="gp-notice"),
            html.Div(
                id="data-graph-canvas-wrap",
                className="dg-canvas-wrap",
                children=[
                    cyto.Cytoscape(
                        id="data-graph-cy",
                        elements=[],
                        layout={"name": "preset", "fit": True, "padding": 30},
                        stylesheet=data_stylesheet(None),
                        minZoom=0.1,
                        maxZoom=3,
                        autoungrabify=True,
                        boxSelectionEnabled=False,
                        className=f"gp-cy {ELK_CLASS} {ELK_RIGHT} {ELK_FIT}",
                        style={"width": "100%", "height": "100%"},
                    ),
                ],
            ),
        ],
    )


def side_panel() -> html.Aside:
    """Beside the canvas: the chosen node's parameters and the legend."""
    return html.Aside(
        className="gp-side",
        children=[
            html.Div(
                className="di-panel gp-box",
                children=[
                    html.Div(_("Node Information"), className="gp-box-title"),
                    html.Div(id="data-graph-info", className="gp-info dg-info"),
                ],
            ),
            html.Div(
                className="di-panel gp-box", children=legend(DATA_LEGEND, "data-graph-legend")
            ),
        ],
    )


def _message(text: Any, theme: str | None, signature: list[Any] | None) -> tuple:
    """The page's answer when there is no pipeline to draw: ``text`` says why."""
    return (
        [],
        data_stylesheet(None, theme),
        None,
        html.Div(text, className="di-empty gp-message"),
        None,
        signature,
    )


def render(
    service: GraphService,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    theme: str | None,
    shown: list[Any] | None,
) -> Any:
    """The pipeline, its stylesheet, the chosen node's panel, a notice and the summary line;
    nothing when the job, the node and the theme are what is shown."""
    url = STATE.parse_search(search)
    train_id, node_id = url.train_id, url.node or None
    try:
        version = service.provider.job(train_id).version
        graph = pipeline(service.provider.dataset_graph(train_id))
    except DataError as error:
        return _message(localize_reason(str(error)), theme, None)
    signature = [train_id, version, node_id, theme]
    if shown == signature:
        return (dash.no_update,) * 6
    if not graph.nodes:
        return _message(no_pipeline(), theme, signature)
    same = isinstance(shown, list) and shown[:2] == signature[:2]
    selected = node_id if node_id in graph.by_id else None
    notice = (
        None
        if selected or not node_id
        else html.Div(
            _("No node {name!r} in this pipeline.").format(name=node_id), className="di-warning"
        )
    )
    operations = sum(1 for n in graph.nodes if n.kind == "operator")
    summary = _("{datasets} dataset operation(s), {maps} map operation(s)").format(
        datasets=len(graph.nodes) - operations, maps=operations
    )
    return (
        dash.no_update if same else pipeline_elements(graph),
        data_stylesheet(selected, theme),
        node_panel(graph, selected),
        notice,
        summary,
        signature,
    )


def select(data: dict | None, search: str | None) -> Any:
    """A tapped node becomes the URL's ``node`` (bounded as read from the URL); the URL's
    other parameters stay as they are."""
    params = parse_search(search)
    url = STATE.parse(params)
    node_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(node_id, str) or not node_id:
        return dash.no_update
    chosen = STATE.from_controls(url, {"node": node_id[:MAX_NAME_CHARS]})
    if chosen == url:
        return dash.no_update
    return make_search({**params, **STATE.params(chosen)})


def register(app: dash.Dash, service: GraphService) -> None:
    app.callback(
        Output("data-graph-cy", "elements"),
        Output("data-graph-cy", "stylesheet"),
        Output("data-graph-info", "children"),
        Output("data-graph-notice", "children"),
        Output("data-graph-summary", "children"),
        Output("data-graph-shown", "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("theme", "data"),
        State("data-graph-shown", "data"),
    )(functools.partial(render, service))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("data-graph-cy", "tapNodeData"),
        State("url", "search"),
        prevent_initial_call=True,
    )(select)
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "fitCanvas"),
        Output("data-graph-fit", "title"),
        Input("data-graph-fit", "n_clicks"),
        State("data-graph-cy", "id"),
        prevent_initial_call=True,
    )
    register_canvas_tools(app, CANVAS)
