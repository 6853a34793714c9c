"""Tensors: a table of one step's values (sliced to at most two dimensions) or the histogram of
every step, one card per tensor tag.

URL: ``/tensors?train_id=./job&tags=...&filter=...&view=table|histogram&hview=top|front
&axis=step|relative|absolute&fmt=value|sci&dec=5&steps=tag=12,...&dims=tag=[0\\,:\\,:],...&page=N``.

MindInsight 2.3.1's page (ui-reference 06a-06d, tensor visualization design): Tag Selection,
"View" Table / Histogram. Table: "Dimension Selection" with one box per dimension in the dims
grammar (an index or a Python slice; at most two slices; defaults: leading dimensions 0, the last
two ``:``, the last cut to ``0:1000``; here also the rows cut so the default fits 100,000
values, so a 1000x1000 tensor opens), a ✓ button (or Enter), value or scientific notation with
0-10 decimals (default 5), cells coloured by value, shape and data type, statistics, a step
slider; more than 100,000 selected values -> "The requested data exceeds the upper limit
100,000 ...". Bool and integer tensors are shown as such (MindInsight showed them as floats).
Histogram: the Top / Front views of the parameter distribution page over the tensor's steps.
Every step is kept (MindInsight: 20 sampled).

The table is a dash-ag-grid grid (row and column virtualisation: only the visible cells exist in
the page); value format and decimals change in the browser.
"""

from __future__ import annotations

from typing import Any

import dash
import dash_ag_grid as dag
import numpy as np
from dash import ALL, MATCH, Input, Output, State, ctx, dcc, html

from dash_insight.core.provider import DataError
from dash_insight.core.vocabulary import Plugin
from dash_insight.plugins.tensors import algorithms as tensor_algorithms
from dash_insight.plugins.tensors.algorithms import (
    MAX_RESPONSE_VALUES,
    DimsError,
    ResponseTooLargeError,
    default_dims,
    parse_dims,
)
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web.components.histogram_views import (
    AXES,
    VIEWS,
    format_wall_time,
    histogram_figure,
    register_full_screen,
    series_from_tensor_histograms,
    shown_text,
)
from dash_insight.web.components.tag_select import (
    decode_map,
    encode_map,
    page_after,
    pager,
    register_tag_select,
    selection_from_params,
    tag_select,
    tags_on_page,
    tags_to_params,
    user_change,
)
from dash_insight.web.components.value_pages import GRAPH_CONFIG, head, plugin_tags, unknown_message
from dash_insight.web.url_state import int_param, make_search, parse_search

PATH = "/tensors"
PREFIX = "tensor"
PAGE_SIZE = 6
#: Steps drawn per histogram chart at most.
MAX_STEPS = 100
DEFAULT_DECIMALS = 5
MAX_DECIMALS = 10

EMPTY = ["This job has no tensor yet. In the training script, add ",
         html.Code("ops.TensorSummary()('name', x)"), " in the network or ",
         html.Code("SummaryRecord.add_value('tensor', name, tensor)"),
         " to save tensor data (each value costs 4 bytes per step: keep tensors small)."]

#: AG Grid value formatter (a dash-ag-grid function string: its evaluator knows neither
#: ``typeof`` nor ``isFinite``, hence ``Number(v) === v`` for "is a number"):
#: bools and integers as they are, floats with ``context.dec`` decimals, fixed or scientific;
#: "NAN" / "INF" / "-INF" strings as sent.
VALUE_FORMATTER = (
    "params.value === true ? 'true' : params.value === false ? 'false' : "
    "Number(params.value) === params.value ? (params.context.kind === 'f' ? "
    "(params.context.fmt === 'sci' ? params.value.toExponential(params.context.dec) : "
    "params.value.toFixed(params.context.dec)) : String(params.value)) : "
    "(params.value == null ? '' : String(params.value))"
)
#: Cells coloured on a diverging scale: orange below 0, teal above, stronger with |value| /
#: ``context.scale`` (the largest finite |value| shown); true cells teal; NaN/Inf in red.
CELL_STYLE = (
    "Number(params.value) === params.value ? ({color: 'inherit', backgroundColor: "
    "params.context.scale > 0 ? (params.value < 0 ? 'rgba(232, 124, 37, ' + "
    "Math.min(1, -params.value / params.context.scale) * 0.7 + ')' : 'rgba(0, 165, 167, ' + "
    "Math.min(1, params.value / params.context.scale) * 0.7 + ')') : 'transparent'}) : "
    "params.value === true ? ({color: 'inherit', backgroundColor: 'rgba(0, 165, 167, 0.45)'}) : "
    "params.value === false || params.value == null ? ({color: 'inherit', backgroundColor: "
    "'transparent'}) : ({color: 'var(--error)', backgroundColor: 'transparent'})"
)


# --- pure helpers --------------------------------------------------------------------------------


def page_state(params: dict[str, str]) -> dict[str, Any]:
    """View settings from the URL, unknown values replaced by the defaults."""
    view = params.get("view", "table")
    hview = params.get("hview", "top")
    axis = params.get("axis", "step")
    return {
        "view": view if view in ("table", "histogram") else "table",
        "hview": hview if hview in VIEWS else "top",
        "axis": axis if axis in AXES else "step",
        "fmt": "sci" if params.get("fmt") == "sci" else "value",
        "dec": int_param(params, "dec", DEFAULT_DECIMALS, 0, MAX_DECIMALS),
        "page": int_param(params, "page", 1, 1, 10**6),
        "filter": params.get("filter", ""),
        "steps": decode_map(params.get("steps")),
        "dims": decode_map(params.get("dims")),
    }


def start_dims(shape: tuple[int, ...]) -> str:
    """The dims a card opens with: MindInsight's defaults, rows cut to fit 100,000 values."""
    return default_dims(shape, max_values=MAX_RESPONSE_VALUES)


def dims_items(dims: str, rank: int) -> list[str]:
    """The per-dimension boxes of a dims string (``"[0, :, 2:5]"`` -> ``["0", ":", "2:5"]``);
    padded with ``":"`` / cut to ``rank`` boxes when the string does not fit."""
    inner = dims.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    items = [item.strip() for item in inner.split(",")] if inner.strip() else []
    return (items + [":"] * rank)[:rank]


def dims_from_items(items: list[str | None]) -> str:
    """``["0", ":", ""]`` -> ``"[0,:,]"`` (empty boxes kept so the grammar reports them)."""
    return "[" + ",".join((item or "").strip() for item in items) + "]"


def selected_count(shape: tuple[int, ...], dims: str) -> int:
    """How many values ``dims`` selects from a tensor of ``shape`` (no data touched)."""
    index = parse_dims(dims, shape)
    return int(np.broadcast_to(np.zeros((), np.uint8), shape)[index].size)


def axis_indices(item: int | slice, size: int) -> list[int]:
    """The tensor indices a sliced dimension shows (``slice(2, 5)`` -> ``[2, 3, 4]``)."""
    if isinstance(item, slice):
        return list(range(*item.indices(size)))
    return [item % size if size else item]


def json_values(array: np.ndarray) -> list[Any]:
    """The values of ``array`` (flattened) for the browser: bools as bools, integers as ints,
    floats as their shortest representation at the recorded precision (float32 ``0.1`` -> 0.1,
    not 0.10000000149011612), NaN / ±Inf as "NAN" / "INF" / "-INF" (MindInsight's strings)."""
    flat = np.asarray(array).reshape(-1)
    if flat.dtype.kind != "f":
        return flat.tolist()
    finite = np.isfinite(flat)
    if flat.dtype in (np.float16, np.float32):
        values: list[Any] = [float(text) for text in flat.astype(str)] if finite.all() else [
            float(text) if ok else None for text, ok in zip(flat.astype(str), finite,
                                                            strict=True)]
    else:
        values = flat.tolist()
    if not finite.all():
        for position in np.flatnonzero(~finite).tolist():
            value = flat[position]
            values[position] = "NAN" if np.isnan(value) else ("INF" if value > 0 else "-INF")
    return values


def value_kind(dtype: np.dtype) -> str:
    """``"b"`` (bool), ``"i"`` (integer) or ``"f"`` (float) for the grid's formatter."""
    return "b" if dtype.kind == "b" else ("i" if dtype.kind in "iu" else "f")


def colour_scale(values: np.ndarray) -> float:
    """Largest finite |value| (0 when none, or for bool tensors): the colour scale's end."""
    flat = np.asarray(values).reshape(-1)
    if flat.dtype.kind == "b" or not flat.size:
        return 0.0
    if flat.dtype.kind == "f":
        flat = flat[np.isfinite(flat)]
        if not flat.size:
            return 0.0
    return float(np.abs(flat.astype(np.float64)).max())


def table_data(values: np.ndarray, index: tuple[int | slice, ...], shape: tuple[int, ...]
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """AG Grid ``rowData`` and ``columnDefs`` of a slice: a 2-D slice as rows x columns, 1-D as
    one column, 0-D as one cell; row and column headers are the tensor's own indices."""
    sliced = [(axis, item) for axis, item in enumerate(index) if isinstance(item, slice)]
    if len(sliced) >= 2:
        rows = axis_indices(sliced[0][1], shape[sliced[0][0]])
        columns = axis_indices(sliced[1][1], shape[sliced[1][0]])
        grid = np.asarray(values).reshape(len(rows), len(columns))
    elif len(sliced) == 1:
        rows = axis_indices(sliced[0][1], shape[sliced[0][0]])
        columns = [-1]
        grid = np.asarray(values).reshape(len(rows), 1)
    else:
        rows, columns = [-1], [-1]
        grid = np.asarray(values).reshape(1, 1)
    flat = json_values(grid)
    width = len(columns)
    keys = [f"c{j}" for j in range(width)]
    row_data = [dict(zip(keys, flat[i * width:(i + 1) * width], strict=True), row=r)
                for i, r in enumerate(rows)]
    column_defs: list[dict[str, Any]] = [{
        "field": "row", "headerName": "", "pinned": "left", "width": 64,
        "valueFormatter": {"function": "params.value < 0 ? '' : String(params.value)"},
        "cellStyle": None, "cellClass": "di-vt-index"}]
    column_defs += [{"field": key, "headerName": "value" if c < 0 else str(c)}
                    for key, c in zip(keys, columns, strict=True)]
    return row_data, column_defs


def grid_context(kind: str, fmt: str, dec: int, scale: float) -> dict[str, Any]:
    return {"kind": kind, "fmt": fmt, "dec": dec, "scale": scale}


def too_large_message(dims: str, count: int) -> str:
    """MindInsight's limit message, with the size asked for."""
    return (f"The requested data exceeds the upper limit {MAX_RESPONSE_VALUES:,}: the dims "
            f"{dims} select {count:,} values. Shard or query other dimensions, e.g. '0:100' "
            "instead of ':'.")


def _number(value: float, kind: str) -> str:
    if kind != "f":
        return f"{int(value):,}" if float(value).is_integer() else f"{value:.6g}"
    return f"{value:.6g}"


def statistics_items(stats: dict[str, Any], kind: str) -> list[tuple[str, str]]:
    """(label, text) pairs of the statistics panel (MindInsight's max/min/mean/count/NaN/±Inf
    and sign counts, named for what they count)."""
    items = [("max", _number(stats["max"], kind)), ("min", _number(stats["min"], kind)),
             ("mean", f"{stats['avg']:.6g}"), ("count", f"{stats['count']:,}")]
    if stats.get("is_bool"):
        items += [("true", f"{stats['true_count']:,}"), ("false", f"{stats['false_count']:,}")]
    else:
        items += [("negative", f"{stats['neg_zero_count']:,}"),
                  ("zero", f"{stats['zero_count']:,}"),
                  ("positive", f"{stats['pos_zero_count']:,}")]
    if kind == "f":
        items += [("NaN", f"{stats['nan_count']:,}"), ("+Inf", f"{stats['pos_inf_count']:,}"),
                  ("-Inf", f"{stats['neg_inf_count']:,}")]
    return items


def state_search(train_id: str, tag_params: dict[str, str | None], state: dict[str, Any]
                 ) -> str:
    """The URL query of a page state (defaults left out)."""
    return make_search({
        "train_id": train_id, **tag_params,
        "view": None if state["view"] == "table" else state["view"],
        "hview": None if state["hview"] == "top" else state["hview"],
        "axis": None if state["axis"] == "step" else state["axis"],
        "fmt": None if state["fmt"] == "value" else state["fmt"],
        "dec": None if state["dec"] == DEFAULT_DECIMALS else state["dec"],
        "steps": encode_map(state["steps"]) or None,
        "dims": encode_map(state["dims"]) or None,
        "page": None if state["page"] == 1 else state["page"],
    })


# --- rendering -----------------------------------------------------------------------------------


def table_view(queries: TensorQueries, train_id: str, tag: str, step: int, dims: str,
               fmt: str, dec: int) -> tuple[Any, Any, str | None]:
    """(table or message, statistics, dims error) of one step with ``dims`` applied."""
    try:
        value = queries.tensor(train_id, tag, step)
        stats = queries.statistics(train_id, tag, step)
    except DataError as error:
        return html.Div(str(error), className="di-vt-message di-error-text"), None, None
    array = value.array
    kind = value_kind(array.dtype)
    panel = html.Div(className="di-vt-stats", children=[
        html.Span([f"{label} ", html.B(text)]) for label, text in statistics_items(stats, kind)])
    shape = tuple(array.shape)
    try:
        count = selected_count(shape, dims)
    except DimsError as error:
        return dash.no_update, panel, str(error)
    if count > MAX_RESPONSE_VALUES:
        return (html.Div(too_large_message(dims, count), className="di-vt-message di-warning",
                         id={"type": "tensor-limit", "tag": tag}), panel, None)
    try:
        values = tensor_algorithms.slice_tensor(array, dims)
    except ResponseTooLargeError as error:  # counted above; kept for safety
        return html.Div(str(error), className="di-vt-message di-warning"), panel, None
    except DimsError as error:
        return dash.no_update, panel, str(error)
    row_data, column_defs = table_data(values, parse_dims(dims, shape), shape)
    grid = dag.AgGrid(
        id={"type": "tensor-grid", "tag": tag}, rowData=row_data, columnDefs=column_defs,
        defaultColDef={"width": 104, "sortable": False, "resizable": True,
                       "suppressMovable": True, "cellDataType": False,
                       "valueFormatter": {"function": VALUE_FORMATTER},
                       "cellStyle": {"function": CELL_STYLE}},
        dashGridOptions={"context": grid_context(kind, fmt, dec, colour_scale(values)),
                         "suppressCellFocus": False, "animateRows": False,
                         "headerHeight": 28, "rowHeight": 26},
        style={"height": "100%", "width": "100%"})
    return html.Div(grid, className="di-vt-table"), panel, None


def _segmented(component_id: str, options: list[tuple[str, str]], value: str
               ) -> dcc.RadioItems:
    return dcc.RadioItems(id=component_id, value=value, inline=True, className="di-segmented",
                          options=[{"label": label, "value": v} for v, label in options])


def table_card(queries: TensorQueries, train_id: str, tag: str, state: dict[str, Any]
               ) -> html.Section:
    """A table card: shape and type, dimension boxes, the table (filled by a callback),
    statistics, step slider."""
    steps = queries.provider.value_steps(train_id, Plugin.TENSOR, tag)
    step_list = [int(s) for s in steps.step.tolist()]
    wanted = state["steps"].get(tag)
    position = len(step_list) - 1
    if wanted is not None and wanted.lstrip("-").isdigit() and int(wanted) in step_list:
        position = step_list.index(int(wanted))
    meta = (steps.meta[position] if steps.meta else None) or {}
    shape = tuple(int(d) for d in meta.get("dims", []))
    default = start_dims(shape)
    dims = state["dims"].get(tag, default)
    key = {"tag": tag}
    boxes: list[Any] = []
    for axis, item in enumerate(dims_items(dims, len(shape))):
        if axis:
            boxes.append(html.Span(",", className="di-muted"))
        boxes.append(html.Span(dcc.Input(
            id={"type": "tensor-dim", "tag": tag, "axis": axis}, value=item, type="text",
            debounce=False, n_submit=0), title=f"dimension {axis + 1} of size {shape[axis]}: "
                                               "an index (0, -1) or a slice (:, 2:5)"))
    data = {"tag": tag, "steps": step_list, "walls": steps.wall_time.tolist(),
            "default": default}
    return html.Section(className="di-panel di-card di-vp-card di-vt-card",
                        id={"type": "tensor-card", "tag": tag}, children=[
        html.Div(className="di-card-head", children=[
            html.Span(tag, title=tag, className="di-vp-tag"),
            html.Button("Full screen", id={"type": "tensor-full", "tag": tag},
                        title="Full screen", className="di-link-button di-vp-full"),
        ]),
        html.Div(className="di-card-body", children=[
            dcc.Store(id={"type": "tensor-data", **key}, data=data),
            dcc.Store(id={"type": "tensor-applied", **key}, data=dims),
            html.Div(className="di-vt-meta", children=[
                html.Span(["Shape: ", html.B(f"[{', '.join(str(d) for d in shape)}]")]),
                html.Span(["Data type: ", html.B(meta.get("data_type", "?"))]),
                html.Span(id={"type": "tensor-step", **key}),
            ]),
            html.Div(className="di-vt-controls", children=[
                html.Div(className="di-vt-dims", children=[
                    html.Span("Dimension selection", className="di-control-label",
                              title="One box per dimension: an index, or a slice start:stop "
                                    "(':' = all). At most two slices; at most 100,000 values."),
                    html.Span("[", className="di-muted"), *boxes,
                    html.Span("]", className="di-muted"),
                    html.Button("✓", id={"type": "tensor-apply", **key},
                                className="di-button secondary", title="Apply (or Enter)"),
                    html.Button("Default", id={"type": "tensor-reset", **key},
                                className="di-link-button",
                                title=f"Back to the default selection {default}"),
                ]),
                html.Div(id={"type": "tensor-dims-error", **key}, className="di-error-text"),
            ]),
            dcc.Loading(html.Div(id={"type": "tensor-view", **key}), type="dot",
                        delay_show=300),
            html.Div(id={"type": "tensor-stats", **key}),
            html.Div(dcc.Slider(id={"type": "tensor-slider", **key}, min=0,
                                max=max(1, len(step_list) - 1), step=1, value=position,
                                marks=None, allow_direct_input=False,
                                disabled=len(step_list) < 2),
                     className="di-vi-slider", title="Step"),
        ]),
    ])


def histogram_card(queries: TensorQueries, train_id: str, tag: str, state: dict[str, Any],
                   theme: str | None) -> html.Section:
    """A histogram card: the tensor's steps in the Top or Front view."""
    foot: list[Any] = []
    try:
        total = len(queries.provider.value_steps(train_id, Plugin.TENSOR, tag))
        series = series_from_tensor_histograms(
            queries.histograms(train_id, tag, max_steps=MAX_STEPS), total)
        body: Any = dcc.Graph(
            figure=histogram_figure(series, state["hview"], state["axis"], height=None,
                                    theme=theme),
            config=GRAPH_CONFIG, className="di-vp-graph", responsive=True,
            id={"type": "tensor-graph", "tag": tag})
        foot.append(shown_text(series))
    except DataError as error:
        body = html.Div(str(error), className="di-vt-message di-error-text")
    return html.Section(className="di-panel di-card di-vp-card",
                        id={"type": "tensor-card", "tag": tag}, children=[
        html.Div(className="di-card-head", children=[
            html.Span(tag, title=tag, className="di-vp-tag"),
            html.Button("Full screen", id={"type": "tensor-full", "tag": tag},
                        title="Full screen", className="di-link-button di-vp-full"),
        ]),
        html.Div(body, className="di-card-body"),
        html.Div(foot, className="di-card-foot"),
    ])


def layout(app: dash.Dash, service: TensorQueries, params: dict[str, str]) -> html.Div:
    train_id = params.get("train_id", "")
    title = head(app, "Tensors", train_id)
    tags, message = plugin_tags(app, service.provider, train_id, Plugin.TENSOR, title, EMPTY,
                                "tensor-empty")
    if message is not None:
        return message
    state = page_state(params)
    selected, _ = selection_from_params(params, tags)
    table = state["view"] == "table"
    hidden = {"display": "none"}
    return html.Div([
        title,
        html.Div(className="di-panel di-vp-controls", children=[
            tag_select(PREFIX, tags, selected, state["filter"]),
            html.Div(className="di-vp-row", children=[
                html.Span("View", className="di-control-label"),
                _segmented("tensor-view-mode", [("table", "Table"), ("histogram", "Histogram")],
                           state["view"]),
                html.Span(id="tensor-table-controls", className="di-vp-group",
                          style={} if table else hidden, children=[
                    html.Span("Type", className="di-control-label"),
                    _segmented("tensor-fmt", [("value", "Value"),
                                              ("sci", "Scientific notation")], state["fmt"]),
                    html.Span("Decimal places", className="di-control-label"),
                    dcc.Dropdown(id="tensor-dec", value=state["dec"], clearable=False,
                                 searchable=False, style={"width": "80px"},
                                 options=list(range(MAX_DECIMALS + 1))),
                ]),
                html.Span(id="tensor-histogram-controls", className="di-vp-group",
                          style=hidden if table else {}, children=[
                    html.Span("Angle of view", className="di-control-label"),
                    _segmented("tensor-hview", [("front", "Front"), ("top", "Top")],
                               state["hview"]),
                    html.Span(id="tensor-axis-group", className="di-vp-group",
                              style=hidden if state["hview"] == "front" else {}, children=[
                        html.Span("Vertical axis", className="di-control-label"),
                        _segmented("tensor-axis", [("step", "Step"),
                                                   ("relative", "Relative time (s)"),
                                                   ("absolute", "Absolute time")],
                                   state["axis"]),
                    ]),
                ]),
            ]),
        ]),
        dcc.Store(id="tensor-query"),
        dcc.Store(id="tensor-shown"),
        html.Div(id="tensor-notice"),
        html.Div(id="tensor-cards", className="di-vt-grid"),
        pager(PREFIX, 0, 1, 1),
    ])


# --- callbacks -----------------------------------------------------------------------------------


def register(app: dash.Dash, service: TensorQueries) -> None:
    provider = service.provider
    register_tag_select(app, PREFIX)
    register_full_screen(app, "tensor-card", "tensor-full")

    app.clientside_callback(
        """function(view, hview) {
            const hide = {display: 'none'};
            return [view === 'histogram' ? hide : {}, view === 'histogram' ? {} : hide,
                    hview === 'front' ? hide : {}];
        }""",
        Output("tensor-table-controls", "style"), Output("tensor-histogram-controls", "style"),
        Output("tensor-axis-group", "style"),
        Input("tensor-view-mode", "value"), Input("tensor-hview", "value"),
        prevent_initial_call=True,
    )

    # The part of the URL the cards depend on: steps, dims and format are applied in place.
    app.clientside_callback(
        """function(search, current) {
            const params = new URLSearchParams(search || '');
            const keys = ['train_id', 'tags', 'filter', 'page', 'view', 'hview', 'axis'];
            const query = keys.map(k => params.get(k));
            if (JSON.stringify(query) === JSON.stringify(current)) {
                return window.dash_clientside.no_update;
            }
            return query;
        }""",
        Output("tensor-query", "data"), Input("url", "search"), State("tensor-query", "data"),
    )

    # Value format and decimals: every grid re-formats in the browser.
    app.clientside_callback(
        """function(fmt, dec, options, ids) {
            return options.map((opts, k) => {
                const context = Object.assign({}, (opts || {}).context,
                                              {fmt: fmt || 'value', dec: dec === null ? 5 : dec});
                const api = window.dash_ag_grid && window.dash_ag_grid.getApi
                    ? window.dash_ag_grid.getApi(ids[k]) : null;
                if (api) {
                    api.setGridOption('context', context);
                    api.refreshCells({force: true});
                }
                return Object.assign({}, opts, {context: context});
            });
        }""",
        Output({"type": "tensor-grid", "tag": ALL}, "dashGridOptions"),
        Input("tensor-fmt", "value"), Input("tensor-dec", "value"),
        State({"type": "tensor-grid", "tag": ALL}, "dashGridOptions"),
        State({"type": "tensor-grid", "tag": ALL}, "id"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(f"{PREFIX}-tags", "value"), Input(f"{PREFIX}-filter", "value"),
        Input("tensor-view-mode", "value"), Input("tensor-hview", "value"),
        Input("tensor-axis", "value"), Input("tensor-fmt", "value"), Input("tensor-dec", "value"),
        Input(f"{PREFIX}-prev", "n_clicks"), Input(f"{PREFIX}-next", "n_clicks"),
        State(f"{PREFIX}-tag-list", "data"), State("url", "search"),
        prevent_initial_call=True,
    )
    def controls_to_url(selected: list[str] | None, pattern: str | None, view: str | None,
                        hview: str | None, axis: str | None, fmt: str | None, dec: int | None,
                        _prev: int | None, _next: int | None, tags: list[str] | None,
                        search: str | None) -> Any:
        if not user_change():
            return dash.no_update
        params = parse_search(search)
        state = page_state(params)
        trigger = ctx.triggered_id
        state["page"], paged = page_after(trigger, PREFIX, state["page"])
        if not paged:
            state.update(view=view or "table", hview=hview or "top", axis=axis or "step",
                         fmt=fmt or "value",
                         dec=DEFAULT_DECIMALS if dec is None else int(dec))
        new = state_search(params.get("train_id", ""),
                           tags_to_params(tags or [], selected, pattern or ""), state)
        return dash.no_update if new == (search or "") else new

    @app.callback(
        Output("tensor-cards", "children"), Output("tensor-notice", "children"),
        Output(f"{PREFIX}-total", "children"), Output(f"{PREFIX}-page", "children"),
        Output(f"{PREFIX}-prev", "disabled"), Output(f"{PREFIX}-next", "disabled"),
        Output("tensor-shown", "data"),
        Input("tensor-query", "data"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"), Input("theme", "data"), State("url", "search"),
        State("tensor-shown", "data"),
    )
    def cards(_query: list | None, _ticks: int | None, _clicks: int | None, theme: str | None,
              search: str | None, shown: list | None) -> Any:
        params = parse_search(search)
        train_id = params.get("train_id", "")
        try:
            job = provider.job(train_id)
        except DataError as error:
            return (html.Div(str(error), className="di-empty"), None, "", "", True, True,
                    None)
        tags = job.tags["tensor"]
        state = page_state(params)
        on_page, page, pages, unknown, total = tags_on_page(params, tags, state["filter"],
                                                            state["page"], PAGE_SIZE)
        histogram = state["view"] == "histogram"
        key = [train_id, job.version, on_page, state["view"], unknown] + (
            [state["hview"], state["axis"], theme] if histogram else [])
        if shown == key:
            return (dash.no_update,) * 7
        built: Any = []
        for tag in on_page:
            try:
                built.append(histogram_card(service, train_id, tag, state, theme) if histogram
                             else table_card(service, train_id, tag, state))
            except DataError as error:
                built.append(html.Section(str(error), className="di-panel di-empty"))
        if not built:
            built = html.Div("No tag selected: tick tags above, or clear the filter.",
                             className="di-empty")
        return (built, unknown_message(unknown, train_id, "tensor"), total, f"{page} / {pages}",
                page <= 1, page >= pages, key)

    @app.callback(
        Output({"type": "tensor-dim", "tag": MATCH, "axis": ALL}, "value"),
        Input({"type": "tensor-reset", "tag": MATCH}, "n_clicks"),
        State({"type": "tensor-data", "tag": MATCH}, "data"),
        State({"type": "tensor-dim", "tag": MATCH, "axis": ALL}, "value"),
        prevent_initial_call=True,
    )
    def reset_dims(_clicks: int | None, data: dict, values: list[str]) -> list[str]:
        return dims_items(data["default"], len(values))

    @app.callback(
        Output({"type": "tensor-view", "tag": MATCH}, "children"),
        Output({"type": "tensor-stats", "tag": MATCH}, "children"),
        Output({"type": "tensor-step", "tag": MATCH}, "children"),
        Output({"type": "tensor-applied", "tag": MATCH}, "data"),
        Output({"type": "tensor-dims-error", "tag": MATCH}, "children"),
        Input({"type": "tensor-slider", "tag": MATCH}, "value"),
        Input({"type": "tensor-apply", "tag": MATCH}, "n_clicks"),
        Input({"type": "tensor-reset", "tag": MATCH}, "n_clicks"),
        Input({"type": "tensor-dim", "tag": MATCH, "axis": ALL}, "n_submit"),
        State({"type": "tensor-dim", "tag": MATCH, "axis": ALL}, "value"),
        State({"type": "tensor-applied", "tag": MATCH}, "data"),
        State({"type": "tensor-data", "tag": MATCH}, "data"),
        State("url", "search"),
    )
    def show_step(position: int | None, _apply: int | None, _reset: int | None,
                  _submits: list[int | None],
                  items: list[str | None], applied: str | None, data: dict,
                  search: str | None) -> tuple:
        trigger = ctx.triggered_id
        typed = isinstance(trigger, dict) and trigger.get("type") == "tensor-dim"
        state = page_state(parse_search(search))
        steps = data["steps"]
        index = max(0, min(len(steps) - 1, int(position or 0)))
        step = steps[index]
        dims = applied or data["default"]
        if (isinstance(trigger, dict) and trigger.get("type") == "tensor-apply") or typed:
            dims = dims_from_items(items)
        elif isinstance(trigger, dict) and trigger.get("type") == "tensor-reset":
            dims = data["default"]
        view, panel, error = table_view(service, parse_search(search).get("train_id", ""),
                                        data["tag"], step, dims, state["fmt"], state["dec"])
        label = f"Step: {step} · {format_wall_time(data['walls'][index])}"
        if error:
            return view, panel, label, dash.no_update, error
        return view, panel, label, dims, ""

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input({"type": "tensor-applied", "tag": ALL}, "data"),
        Input({"type": "tensor-slider", "tag": ALL}, "value"),
        State({"type": "tensor-data", "tag": ALL}, "data"), State("url", "search"),
        prevent_initial_call=True,
    )
    def card_state_to_url(applied: list[str | None], positions: list[int | None],
                          data: list[dict], search: str | None) -> Any:
        params = parse_search(search)
        state = page_state(params)
        steps, dims = dict(state["steps"]), dict(state["dims"])
        for item, dims_value, position in zip(data, applied, positions, strict=True):
            tag = item["tag"]
            index = len(item["steps"]) - 1 if position is None else int(position)
            steps.pop(tag, None)
            dims.pop(tag, None)
            if index != len(item["steps"]) - 1:
                steps[tag] = str(item["steps"][index])
            if dims_value and dims_value != item["default"]:
                dims[tag] = dims_value
        if steps == state["steps"] and dims == state["dims"]:
            return dash.no_update
        params["steps"] = encode_map(steps)
        params["dims"] = encode_map(dims)
        new = make_search(params)
        return dash.no_update if new == (search or "") else new
