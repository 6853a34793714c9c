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

The table of a small slice (at most ``PLAIN_MAX_VALUES`` values, every slice MindInsight's
defaults open but a large tensor's) is a plain HTML table drawn in the browser
(``assets/tensor-tables.js``): an AG Grid cost the page 0.1-0.2 s of main thread to mount, the
plain table a few milliseconds. A larger slice is a dash-ag-grid grid (row and column
virtualisation: only the visible cells exist in the page). Both are built by
:mod:`dash_insight.plugins.tensors.query_table` and formatted by the same functions
(``assets/dashAgGridFunctions-tensors.js``); value format and decimals change in the browser
(``tensorsPage`` in ``assets/per-tag-pages.js``). A card comes
with its first table, held in its slot's ``data-view`` and mounted when the card comes on
screen (:func:`stored_view`): the page asks the server nothing at load, and tables below the
first screen cost nothing until scrolled to; the cards below the first screen show their tag
at once and the rest when they come on screen (:func:`held_until_on_screen`). The page's
frame (tag selection, pager, URL -> cards) is :mod:`dash_insight.web.per_tag_page`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any

import dash
import dash_ag_grid as dag
from dash import ALL, MATCH, ClientsideFunction, Input, Output, State, dcc, html
from plotly.io.json import to_json_plotly

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import format_wall_time, interpolate, lazy_gettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.tensors import query_tensor
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.plugins.tensors.query_table import (
    CELL_STYLE,
    PLAIN_MAX_VALUES,
    VALUE_FORMATTER,
    colour_scale,
    dims_from_items,
    dims_items,
    grid_context,
    plain_table,
    selected_count,
    start_dims,
    statistics_items,
    table_data,
    too_large_message,
    value_kind,
)
from dash_insight.plugins.tensors.query_tensor import (
    MAX_RESPONSE_VALUES,
    DimsError,
    ResponseTooLargeError,
    parse_dims,
)
from dash_insight.web import per_tag_page
from dash_insight.web.binding import triggered
from dash_insight.web.callback_types import CallbackValueError
from dash_insight.web.components.deferred import deferred_children
from dash_insight.web.components.figures import GRAPH_CONFIG
from dash_insight.web.components.grid_text import grid_locale_text
from dash_insight.web.components.histogram_views import (
    AXES,
    VIEWS,
    histogram_figure,
    register_full_screen,
    series_from_tensor_histograms,
    shown_text,
)
from dash_insight.web.components.native_inputs import RangeInput, SelectInput
from dash_insight.web.per_tag_page import CardContext, PerTagPage, PerTagUrl, segmented
from dash_insight.web.url_state import Choice, Int, TagMap, same_search

PATH = "/tensors"
PREFIX = "tensor"
PAGE_SIZE = 6
#: Steps drawn per histogram chart at most.
MAX_STEPS = 100
DEFAULT_DECIMALS = 5
MAX_DECIMALS = 10
#: The pattern-id type of a table card's view store (:func:`stored_view`).
VIEW_STORE = "tensor-table"
#: Table cards in a row of the page's grid (two in a 1600 px window: the first screen's), and
#: a table card's height inside its border (values-pages.css ``.di-vt-card``), kept by a card
#: below them until it is filled (:func:`held_until_on_screen`).
CARD_ROW = 2
CARD_HEIGHT = "501px"
#: The store whose change asks for every table card's statistics again
#: (:func:`restyled_statistics`).
STATS_ASKED = "tensor-stats-asked"

#: The statistics panel's labels (:func:`statistics_items` names them in English).
STATISTIC_LABELS = {
    "max": lazy_gettext("max"),
    "min": lazy_gettext("min"),
    "mean": lazy_gettext("mean"),
    "count": lazy_gettext("count"),
    "type": lazy_gettext("type"),
    "true": lazy_gettext("true"),
    "false": lazy_gettext("false"),
    "negative": lazy_gettext("negative"),
    "zero": lazy_gettext("zero"),
    "positive": lazy_gettext("positive"),
}


def empty() -> list[Any]:
    """What a job without tensors shows: how to record them."""
    return interpolate(
        _(
            "This job has no tensor yet. In the training script, add {summary} in the network "
            "or {add_value} to save tensor data (each value costs 4 bytes per step: keep tensors "
            "small)."
        ),
        summary=html.Code("ops.TensorSummary()('name', x)"),
        add_value=html.Code("SummaryRecord.add_value('tensor', name, tensor)"),
    )


@dataclass(frozen=True)
class TensorsUrl(PerTagUrl):
    """What the page's URL says (:data:`STATE`): the job, tags, filter and page of every
    per-tag page, the ``view`` (table / histogram); ``hview`` and ``axis`` of the histogram
    view; ``fmt`` and ``dec`` of the table (applied in the browser); per tag, the step
    (``steps``) and the dims applied (``dims``) when not the defaults (at most
    MAX_URL_LIST_ITEMS tags each)."""

    view: str = "table"
    hview: str = "top"
    axis: str = "step"
    fmt: str = "value"
    dec: int = DEFAULT_DECIMALS
    steps: dict[str, str] = field(default_factory=dict)
    dims: dict[str, str] = field(default_factory=dict)


#: The page's URL state: each attribute of :class:`TensorsUrl` and its URL parameter.
STATE = per_tag_page.page_state(
    TensorsUrl,
    view=Choice("view", "table", ("table", "histogram")),
    hview=Choice("hview", "top", VIEWS),
    axis=Choice("axis", "step", AXES),
    fmt=Choice("fmt", "value", ("value", "sci")),
    dec=Int("dec", DEFAULT_DECIMALS, 0, MAX_DECIMALS),
    steps=TagMap("steps"),
    dims=TagMap("dims"),
)


@dataclass(frozen=True)
class TableStore:
    """What a table card keeps for its callbacks (its ``tensor-data`` store): the tag, its
    steps (ascending) and their wall times, and the card's default dims."""

    tag: str
    steps: list[int]
    walls: list[float]
    default: str

    def data(self) -> dict[str, Any]:
        """The store's JSON value (:meth:`read` reads it back)."""
        return {"tag": self.tag, "steps": self.steps, "walls": self.walls, "default": self.default}

    @staticmethod
    def read(data: object) -> TableStore:
        """The store a callback was given; CallbackValueError (400) unless it is what
        :meth:`data` wrote: a tag, one step or more (integers), a wall time (a number) per
        step, the default dims (text)."""
        if not isinstance(data, dict):
            raise CallbackValueError("a tensor card's store must be an object")
        tag, steps, walls, default = (data.get(k) for k in ("tag", "steps", "walls", "default"))
        if not isinstance(tag, str) or not isinstance(default, str):
            raise CallbackValueError("a tensor card's store names its tag and default dims")
        if not isinstance(steps, list) or not isinstance(walls, list) or not steps:
            raise CallbackValueError("a tensor card's store lists its steps and wall times")
        if len(walls) != len(steps) or not all(_is_int(s) for s in steps):
            raise CallbackValueError("a tensor card's steps are integers, one wall time each")
        if not all(_is_number(w) for w in walls):
            raise CallbackValueError("a tensor card's wall times are numbers")
        return TableStore(tag, steps, walls, default)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def slider_index(position: object, count: int, default: int) -> int:
    """The index of the step a card's slider is at among ``count`` steps: ``position``
    clamped to them; ``default`` for none, or for anything but a finite number."""
    if isinstance(position, bool) or not isinstance(position, int | float):
        return default
    return max(0, min(count - 1, int(position))) if math.isfinite(position) else default


def table_stores(data: object, *lists: object) -> list[TableStore]:
    """The table cards' stores of an ``ALL`` callback (:meth:`TableStore.read`), at most a
    page of them, with ``lists`` (the cards' other values) as long; CallbackValueError (400)
    else."""
    if not isinstance(data, list) or len(data) > PAGE_SIZE:
        raise CallbackValueError(f"a tensors page has at most {PAGE_SIZE} cards")
    if any(not isinstance(values, list) or len(values) != len(data) for values in lists):
        raise CallbackValueError("the tensor cards' values must be one per card")
    return [TableStore.read(item) for item in data]


# --- rendering -----------------------------------------------------------------------------------


def statistics_panel(stats: dict[str, Any], kind: str, fmt: str, dec: int) -> html.Div:
    """The statistics under a table, in the table's format and decimals."""
    return html.Div(
        className="di-vt-stats",
        children=[
            html.Span([f"{STATISTIC_LABELS.get(label, label)} ", html.B(text)])
            for label, text in statistics_items(stats, kind, fmt, dec)
        ],
    )


def table_view(
    queries: TensorQueries, train_id: str, tag: str, step: int, dims: str, fmt: str, dec: int
) -> tuple[Any, Any, str | None]:
    """(table or message, statistics, dims error) of one step with ``dims`` applied. The
    table of a small slice is ``{"plain": ...}`` (:func:`plain_table`, drawn by
    ``assets/tensor-tables.js``), a larger one an AG Grid."""
    try:
        value = queries.tensor(train_id, tag, step)
        stats = queries.statistics(train_id, tag, step)
    except DataError as error:
        return (
            html.Div(localize_reason(str(error)), className="di-vt-message di-error-text"),
            None,
            None,
        )
    array = value.array
    kind = value_kind(array.dtype)
    panel = statistics_panel(stats, kind, fmt, dec)
    shape = tuple(array.shape)
    try:
        count = selected_count(shape, dims)
    except DimsError as error:
        return dash.no_update, panel, localize_reason(str(error))
    if count > MAX_RESPONSE_VALUES:
        return (
            html.Div(
                too_large_message(dims, count),
                className="di-vt-message di-warning",
                id={"type": "tensor-limit", "tag": tag},
            ),
            panel,
            None,
        )
    try:
        values = query_tensor.slice_tensor(array, dims)
    except ResponseTooLargeError as error:  # counted above; kept for safety
        return (
            html.Div(localize_reason(str(error)), className="di-vt-message di-warning"),
            panel,
            None,
        )
    except DimsError as error:
        return dash.no_update, panel, localize_reason(str(error))
    selection = (parse_dims(dims, shape), shape)
    context = grid_context(kind, fmt, dec, colour_scale(values))
    if values.size <= PLAIN_MAX_VALUES:
        plain = plain_table(values, selection, context, _("The slice has no values."))
        return {"plain": plain}, panel, None
    grid = _grid(tag, values, selection, kind, context)
    return html.Div(grid, className="di-vt-table"), panel, None


def _grid(
    tag: str,
    values: Any,
    selection: tuple[Any, tuple[int, ...]],
    kind: str,
    context: dict[str, Any],
) -> dag.AgGrid:
    """The AG Grid of a slice's ``values``: ``selection`` is the parsed dims and the tensor's
    shape (for the row and column labels), ``context`` the cell functions' (:func:`grid_context`:
    kind, value format, decimals, colour scale), as a plain table's."""
    row_data, column_defs = table_data(values, *selection)
    column_options: dict[str, Any] = {"width": 104}
    if kind == "s":  # text (TensorBoard's text summaries): wide, wrapped cells
        column_options = {"width": 480, "wrapText": True, "autoHeight": True}
    grid = dag.AgGrid(
        id={"type": "tensor-grid", "tag": tag},
        rowData=row_data,
        columnDefs=column_defs,
        defaultColDef={
            **column_options,
            "sortable": False,
            "resizable": True,
            "suppressMovable": True,
            "cellDataType": False,
            "valueFormatter": VALUE_FORMATTER,
            "cellStyle": CELL_STYLE,
        },
        dashGridOptions={
            "context": context,
            "suppressCellFocus": False,
            "animateRows": False,
            "headerHeight": 28,
            "rowHeight": 26,
            "localeText": grid_locale_text(_("The slice has no values.")),
        },
        style={"height": "100%", "width": "100%"},
    )
    return grid


def table_card(queries: TensorQueries, train_id: str, tag: str, state: TensorsUrl) -> html.Section:
    """A table card: shape and type, the step shown, dimension boxes, the table (held in the
    card's view store, mounted when on screen: :func:`stored_view`), statistics, step
    slider."""
    steps = queries.provider.value_steps(train_id, PluginName.TENSOR, tag)
    step_list = [int(s) for s in steps.step.tolist()]
    wanted = state.steps.get(tag)
    position = len(step_list) - 1
    if wanted is not None and wanted.lstrip("-").isdigit() and int(wanted) in step_list:
        position = step_list.index(int(wanted))
    meta = (steps.meta[position] if steps.meta else None) or {}
    shape = tuple(int(d) for d in meta.get("dims", []))
    default = start_dims(shape)
    dims = state.dims.get(tag, default)
    key = {"tag": tag}
    boxes = _dimension_boxes(tag, dims, shape)
    walls = steps.wall_time.tolist()
    data = TableStore(tag, step_list, walls, default).data()
    view, panel, error = table_view(
        queries, train_id, tag, step_list[position], dims, state.fmt, state.dec
    )
    return html.Section(
        className="di-panel di-card di-vp-card di-vt-card",
        id={"type": "tensor-card", "tag": tag},
        children=[
            _card_head(tag),
            html.Div(
                className="di-card-body",
                children=[
                    dcc.Store(id={"type": "tensor-data", **key}, data=data),
                    dcc.Store(id={"type": "tensor-applied", **key}, data=dims),
                    _card_meta(
                        key,
                        shape,
                        meta.get("data_type", "?"),
                        step_label(step_list, walls, position),
                    ),
                    _dimension_controls(key, boxes, default, error or ""),
                    dcc.Loading(
                        [dcc.Store(id={"type": VIEW_STORE, **key}), _view_slot(key, view)],
                        type="dot",
                        delay_show=300,
                    ),
                    html.Div(panel, id={"type": "tensor-stats", **key}),
                    _step_slider(key, len(step_list), position),
                ],
            ),
        ],
    )


def _card_meta(key: dict[str, str], shape: tuple[int, ...], data_type: str, step: str) -> html.Div:
    """The tensor's shape and type, and the ``step`` shown (:func:`step_label`)."""
    return html.Div(
        className="di-vt-meta",
        children=[
            html.Span([_("Shape: "), html.B(f"[{', '.join(str(d) for d in shape)}]")]),
            html.Span([_("Data type: "), html.B(data_type)]),
            html.Span(step, id={"type": "tensor-step", **key}),
        ],
    )


def _view_slot(key: dict[str, str], view: Any) -> html.Div:
    """The slot a card's table (or message) is mounted into, with the card's first ``view``
    in its ``data-view`` (:func:`stored_view`: read by ``tensorsPage`` when the slot comes on
    screen, also in a card filled after the page's layout, which no Dash callback sees); until
    then it keeps the table's height (a dims error of the URL shows none: no view)."""
    text = stored_view(view)
    held: dict[str, Any] = {} if text is None else {"data-view": text}
    return html.Div(
        id={"type": "tensor-view", **key},
        className="di-vt-slot",
        style=None if text is None else {"minHeight": "300px"},
        **held,
    )


def step_label(steps: list[int], walls: list[float], index: int) -> str:
    """ "Step: 500 · 2026-11-22 05:19:56": the step at ``index`` and its wall time."""
    return _("Step: {step}").format(step=steps[index]) + f" · {format_wall_time(walls[index])}"


def stored_view(view: Any) -> str | None:
    """What a card's slot (its first view) and view store (a new step or slice) hold: its
    table (or message) as JSON text, mounted into the
    card's slot by ``tensorsPage`` (``assets/per-tag-pages.js``) when the slot is on
    screen (a grid mounted off screen cost the first screen its time: a page of six grids
    took React 0.6 s to commit); None (the slot stays as it is) for ``no_update``. Text, not
    an object: Dash neither walks nor compares the rows of a table not shown."""
    if view is dash.no_update:
        return None
    return str(to_json_plotly(view))


def _step_slider(key: dict[str, str], count: int, position: int) -> html.Div:
    """The slider over the ``count`` steps of a tag, at ``position`` (disabled with one)."""
    return html.Div(
        RangeInput(
            id={"type": "tensor-slider", **key},
            min=0,
            max=max(1, count - 1),
            value=position,
            disabled=count < 2,
        ),
        className="di-vi-slider",
        title=_("Step"),
    )


def _dimension_boxes(tag: str, dims: str, shape: tuple[int, ...]) -> list[Any]:
    """One text box per dimension of ``shape`` (an index or a slice), comma-separated."""
    boxes: list[Any] = []
    for axis, item in enumerate(dims_items(dims, len(shape))):
        if axis:
            boxes.append(html.Span(",", className="di-muted"))
        boxes.append(
            html.Span(
                dcc.Input(
                    id={"type": "tensor-dim", "tag": tag, "axis": axis},
                    value=item,
                    type="text",
                    debounce=False,
                    n_submit=0,
                ),
                title=_(
                    "dimension {number} of size {size}: an index (0, -1) or a slice (:, 2:5)"
                ).format(number=axis + 1, size=shape[axis]),
            )
        )
    return boxes


def _dimension_controls(
    key: dict[str, str], boxes: list[Any], default: str, error: str
) -> html.Div:
    """The dimension boxes between brackets, Apply and Default, and the boxes' ``error``
    line."""
    return html.Div(
        className="di-vt-controls",
        children=[
            html.Div(
                className="di-vt-dims",
                children=[
                    html.Span(
                        _("Dimension selection"),
                        className="di-control-label",
                        title=_(
                            "One box per dimension: an index, or a slice "
                            "start:stop "
                            "(':' = all). At most two slices; at most 100,000 "
                            "values."
                        ),
                    ),
                    html.Span("[", className="di-muted"),
                    *boxes,
                    html.Span("]", className="di-muted"),
                    html.Button(
                        "✓",
                        id={"type": "tensor-apply", **key},
                        className="di-button secondary",
                        title=_("Apply (or Enter)"),
                    ),
                    html.Button(
                        _("Default"),
                        id={"type": "tensor-reset", **key},
                        className="di-link-button",
                        title=_("Back to the default selection {dims}").format(dims=default),
                    ),
                ],
            ),
            html.Div(error, id={"type": "tensor-dims-error", **key}, className="di-error-text"),
        ],
    )


def _card_head(tag: str) -> html.Div:
    """The card's tag and its full-screen button."""
    return html.Div(
        className="di-card-head",
        children=[
            html.Span(tag, title=tag, className="di-vp-tag"),
            html.Button(
                _("Full screen"),
                id={"type": "tensor-full", "tag": tag},
                title=_("Full screen"),
                className="di-link-button di-vp-full",
            ),
        ],
    )


def histogram_card(
    queries: TensorQueries, train_id: str, tag: str, state: TensorsUrl, theme: str | None = None
) -> html.Section:
    """A histogram card: the tensor's steps in the Top or Front view."""
    foot: list[Any] = []
    try:
        total = len(queries.provider.value_steps(train_id, PluginName.TENSOR, tag))
        found = queries.histograms(train_id, tag, max_steps=MAX_STEPS)
        series = series_from_tensor_histograms(found.rows, total)
        body: Any = dcc.Graph(
            figure=histogram_figure(series, state.hview, state.axis, height=None, theme=theme),
            config=GRAPH_CONFIG,
            className="di-vp-graph",
            responsive=True,
            id={"type": "tensor-graph", "tag": tag},
        )
        foot.append(shown_text(series))
        foot.extend(
            html.Div(large.message, className="di-vt-message di-error-text")
            for large in found.too_large
        )
    except DataError as error:
        body = html.Div(localize_reason(str(error)), className="di-vt-message di-error-text")
    return html.Section(
        className="di-panel di-card di-vp-card",
        id={"type": "tensor-card", "tag": tag},
        children=[
            html.Div(
                className="di-card-head",
                children=[
                    html.Span(tag, title=tag, className="di-vp-tag"),
                    html.Button(
                        _("Full screen"),
                        id={"type": "tensor-full", "tag": tag},
                        title=_("Full screen"),
                        className="di-link-button di-vp-full",
                    ),
                ],
            ),
            html.Div(body, className="di-card-body"),
            html.Div(foot, className="di-card-foot"),
        ],
    )


def controls(state: TensorsUrl) -> list[html.Div]:
    """View (table / histogram); value format and decimals of the table; angle of view and
    vertical axis of the histograms. Controls of the other view are hidden."""
    table = state.view == "table"
    hidden = {"display": "none"}
    return [
        html.Div(
            className="di-vp-row",
            children=[
                html.Span(_("View"), className="di-control-label"),
                segmented(
                    "tensor-view-mode",
                    [("table", _("Table")), ("histogram", _("Histogram"))],
                    state.view,
                ),
                _table_controls(state, {} if table else hidden),
                _histogram_controls(state, hidden if table else {}),
            ],
        )
    ]


def _table_controls(state: TensorsUrl, style: dict[str, str]) -> html.Span:
    """The table's value format and decimal places."""
    return html.Span(
        id="tensor-table-controls",
        className="di-vp-group",
        style=style,
        children=[
            html.Span(_("Type"), className="di-control-label"),
            segmented(
                "tensor-fmt",
                [("value", _("Value")), ("sci", _("Scientific notation"))],
                state.fmt,
            ),
            html.Span(_("Decimal places"), className="di-control-label"),
            SelectInput(
                id="tensor-dec",
                value=state.dec,
                style={"width": "80px"},
                options=list(range(MAX_DECIMALS + 1)),
            ),
            # Set by tensorsPage.views when cards came after the format was chosen.
            dcc.Store(id=STATS_ASKED),
        ],
    )


def _histogram_controls(state: TensorsUrl, style: dict[str, str]) -> html.Span:
    """The histograms' angle of view and (front view) vertical axis."""
    return html.Span(
        id="tensor-histogram-controls",
        className="di-vp-group",
        style=style,
        children=[
            html.Span(_("Angle of view"), className="di-control-label"),
            segmented(
                "tensor-hview",
                [("front", _("Front")), ("top", _("Top"))],
                state.hview,
            ),
            html.Span(
                id="tensor-axis-group",
                className="di-vp-group",
                style={"display": "none"} if state.hview == "front" else {},
                children=[
                    html.Span(_("Vertical axis"), className="di-control-label"),
                    segmented(
                        "tensor-axis",
                        [
                            ("step", _("Step")),
                            ("relative", _("Relative time (s)")),
                            ("absolute", _("Absolute time")),
                        ],
                        state.axis,
                    ),
                ],
            ),
        ],
    )


def tensor_card(context: CardContext[TensorQueries, TensorsUrl], tag: str) -> html.Section:
    """The card of the page's view: histograms or a table."""
    if context.state.view == "histogram":
        return histogram_card(context.service, context.train_id, tag, context.state, context.theme)
    return table_card(context.service, context.train_id, tag, context.state)


def histogram_view(state: TensorsUrl) -> bool:
    """Histogram cards follow the theme; tables do not."""
    return state.view == "histogram"


def held_until_on_screen(card: Any) -> Any:
    """A table card below the first screen: its head (the tag) at once, the rest when the card
    comes on screen (``deferred_children``): the first screen does not render the controls,
    statistics and slider of cards it does not show. Other cards as they are."""
    if "di-vt-card" not in (getattr(card, "className", None) or ""):
        return card
    return deferred_children(card, CARD_HEIGHT, CARD_ROW, keep=_is_head)


def _is_head(component: Any) -> bool:
    return getattr(component, "className", None) == "di-card-head"


PAGE: PerTagPage[TensorQueries, TensorsUrl] = PerTagPage(
    prefix=PREFIX,
    plugin=PluginName.TENSOR,
    noun="tensor",
    title=lazy_gettext("Tensors"),
    kind=lazy_gettext("tensor"),
    empty=empty,
    state=STATE,
    page_size=PAGE_SIZE,
    card=tensor_card,
    controls=controls,
    control_fields=(
        ("tensor-view-mode", "view"),
        ("tensor-hview", "hview"),
        ("tensor-axis", "axis"),
        ("tensor-fmt", "fmt"),
        ("tensor-dec", "dec"),
    ),
    card_fields=("view", "hview", "axis"),
    themed=histogram_view,
    grid_class="di-vt-grid",
    below_first_screen=held_until_on_screen,
    first_cards=CARD_ROW,
)


def layout(app: dash.Dash, service: TensorQueries, params: dict[str, str]) -> html.Div:
    return per_tag_page.layout(PAGE, app, service, params)


def step_view(
    queries: TensorQueries,
    trigger: Any,
    position: int | None,
    _apply: int | None,
    _reset: int | None,
    _submits: list[int | None],
    items: list[str | None],
    applied: str | None,
    data: dict[str, Any],
    search: str | None,
) -> tuple[Any, Any, str, Any, str]:
    """What a table card shows after its slider, ✓ / Enter or Default (``trigger``): (table or
    message, statistics, step label, dims applied (``no_update`` when the typed dims are
    wrong), dims error). ``data`` is the card's store (:class:`TableStore`)."""
    kind = trigger.get("type") if isinstance(trigger, dict) else None
    state = STATE.parse_search(search)
    card = TableStore.read(data)
    index = slider_index(position, len(card.steps), 0)
    step = card.steps[index]
    dims = applied or card.default
    if kind in ("tensor-apply", "tensor-dim"):
        dims = dims_from_items(items)
    elif kind == "tensor-reset":
        dims = card.default
    view, panel, error = table_view(
        queries, state.train_id, card.tag, step, dims, state.fmt, state.dec
    )
    label = step_label(card.steps, card.walls, index)
    if error:
        return view, panel, label, dash.no_update, error
    return view, panel, label, dims, ""


def card_view(
    queries: TensorQueries,
    trigger: Any,
    position: int | None,
    apply: int | None,
    reset: int | None,
    submits: list[int | None],
    items: list[str | None],
    applied: str | None,
    data: dict[str, Any],
    search: str | None,
) -> tuple[Any, Any, str, Any, str]:
    """:func:`step_view` with its table (or message) as the card's view store holds it
    (:func:`stored_view`; ``no_update`` when the typed dims are wrong)."""
    view, panel, label, dims, error = step_view(
        queries, trigger, position, apply, reset, submits, items, applied, data, search
    )
    stored = dash.no_update if view is dash.no_update else stored_view(view)
    return stored, panel, label, dims, error


def restyled_statistics(
    queries: TensorQueries,
    fmt: str | None,
    dec: int | None,
    _asked: object,
    positions: list[int | None],
    data: list[dict[str, Any]],
    search: str | None,
) -> list[Any]:
    """Every table card's statistics in the format and decimals just chosen, or when cards
    built before were mounted after it was (a card below the first screen: its statistics
    are in the format of the URL it was built for; ``tensorsPage.views`` sets
    :data:`STATS_ASKED`). The table formats its cells again in the browser; the statistics are
    cached per step, so this is a look-up per card. A card whose tensor cannot be read keeps
    its message."""
    train_id = STATE.parse_search(search).train_id
    fmt = "sci" if fmt == "sci" else "value"
    if not isinstance(dec, int) or not 0 <= dec <= MAX_DECIMALS:
        dec = DEFAULT_DECIMALS
    panels: list[Any] = []
    for position, card in zip(positions, table_stores(data, positions), strict=True):
        step = card.steps[slider_index(position, len(card.steps), 0)]
        try:
            array = queries.tensor(train_id, card.tag, step).array
            stats = queries.statistics(train_id, card.tag, step)
        except DataError:
            panels.append(dash.no_update)
            continue
        panels.append(statistics_panel(stats, value_kind(array.dtype), fmt, dec))
    return panels


def card_state_search(
    applied: list[str | None],
    positions: list[int | None],
    data: list[dict[str, Any]],
    search: str | None,
) -> Any:
    """The URL with the cards' steps and dims (``no_update``: unchanged): a tag's step is
    written when not its last one, its dims when not its default; tags not on the page keep
    theirs."""
    state = STATE.parse_search(search)
    steps, dims = dict(state.steps), dict(state.dims)
    for card, dims_value, position in zip(
        table_stores(data, applied, positions), applied, positions, strict=True
    ):
        last = len(card.steps) - 1
        index = slider_index(position, len(card.steps), last)
        steps.pop(card.tag, None)
        dims.pop(card.tag, None)
        if index != last:
            steps[card.tag] = str(card.steps[index])
        if isinstance(dims_value, str) and dims_value and dims_value != card.default:
            dims[card.tag] = dims_value
    if steps == state.steps and dims == state.dims:
        return dash.no_update
    new = STATE.search(replace(state, steps=steps, dims=dims))
    return dash.no_update if same_search(new, search) else new


def default_dims(_clicks: int | None, data: dict[str, Any], values: list[str]) -> list[str]:
    """Default: the dimension boxes back to the card's default selection."""
    return dims_items(TableStore.read(data).default, len(values))


# --- callbacks -----------------------------------------------------------------------------------


def register(app: dash.Dash, service: TensorQueries) -> None:
    per_tag_page.register(PAGE, app, service)
    register_full_screen(app, "tensor-card", "tensor-full")

    _register_clientside(app)
    app.callback(
        Output({"type": "tensor-stats", "tag": ALL}, "children", allow_duplicate=True),
        Input("tensor-fmt", "value"),
        Input("tensor-dec", "value"),
        Input(STATS_ASKED, "data"),
        State({"type": "tensor-slider", "tag": ALL}, "value"),
        State({"type": "tensor-data", "tag": ALL}, "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(functools.partial(restyled_statistics, service))
    app.callback(
        Output({"type": "tensor-dim", "tag": MATCH, "axis": ALL}, "value"),
        Input({"type": "tensor-reset", "tag": MATCH}, "n_clicks"),
        State({"type": "tensor-data", "tag": MATCH}, "data"),
        State({"type": "tensor-dim", "tag": MATCH, "axis": ALL}, "value"),
        prevent_initial_call=True,
    )(default_dims)
    app.callback(
        Output({"type": VIEW_STORE, "tag": MATCH}, "data"),
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
        # Not at load: the cards come with their first view.
        prevent_initial_call=True,
    )(triggered(functools.partial(card_view, service)))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input({"type": "tensor-applied", "tag": ALL}, "data"),
        Input({"type": "tensor-slider", "tag": ALL}, "value"),
        State({"type": "tensor-data", "tag": ALL}, "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(card_state_search)


def _register_clientside(app: dash.Dash) -> None:
    """The browser-side callbacks: which controls show, and the grids' number format."""
    app.clientside_callback(
        ClientsideFunction(namespace="tensorsPage", function_name="controlsStyle"),
        Output("tensor-table-controls", "style"),
        Output("tensor-histogram-controls", "style"),
        Output("tensor-axis-group", "style"),
        Input("tensor-view-mode", "value"),
        Input("tensor-hview", "value"),
        prevent_initial_call=True,
    )

    # The cards' tables into their slots: those on screen at once, the others when they
    # come on screen.
    app.clientside_callback(
        ClientsideFunction(namespace="tensorsPage", function_name="views"),
        Output({"type": "tensor-view", "tag": ALL}, "children"),
        Input({"type": VIEW_STORE, "tag": ALL}, "data"),
        State({"type": VIEW_STORE, "tag": ALL}, "id"),
    )

    # Value format and decimals: every grid and plain table formats again in the browser (the
    # slots' className is not changed: it makes Dash call this when no table is a grid).
    app.clientside_callback(
        ClientsideFunction(namespace="tensorsPage", function_name="format"),
        Output({"type": "tensor-grid", "tag": ALL}, "dashGridOptions"),
        Output({"type": "tensor-view", "tag": ALL}, "className"),
        Input("tensor-fmt", "value"),
        Input("tensor-dec", "value"),
        State({"type": "tensor-grid", "tag": ALL}, "dashGridOptions"),
        State({"type": "tensor-grid", "tag": ALL}, "id"),
        prevent_initial_call=True,
    )
