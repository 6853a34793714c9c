"""Operator page (MindInsight's ``/profiling-cpu/operator``): the operator-type chart and the
type / all-operators tables.

URL: ``/profiler/operator?train_id=./job[&dir=./profiler][&device=0]`` plus the view state:
``chart=pie|bar``, ``measure=total|avg``, ``view=type|all``, ``tq`` (type search),
``tsort``/``torder`` (type table), ``open`` (expanded types, comma-separated), ``q`` (operator
name search), ``sort``/``order``/``page``/``size`` (all-operators table).

Differences from MindInsight, on purpose: the chart is sized by total time by default (its
share is the share of the operator time; MindInsight sized it by average time per launch); a
type row expands into the operators of *that* type (MindInsight filtered on ``kernel_type``, not
a CPU column, so every operator was listed); the all-operators table adds each operator's input
shapes (from ``cpu_framework``) and its launch-time distribution (min / median / p95 / max, from
the launch timestamps) and shows the time proportion in percent (MindInsight: a fraction under
a "(%)" head); both tables are sorted by total time at first (MindInsight: average time).
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import dash
from dash import ALL, Input, Output, State, dcc, html

from dash_insight.core.csv_cells import csv_text as text_cell
from dash_insight.core.i18n import N_, format_number, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.profiler import figures, page_shared, query
from dash_insight.plugins.profiler.query_profile import OpTables, Profile
from dash_insight.plugins.profiler.service import ProfilerService, ProfileUnavailable
from dash_insight.web.binding import triggered
from dash_insight.web.components.figures import graph_config
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.components.tag_select import goto_box
from dash_insight.web.url_state import (
    MAX_PAGE,
    Choice,
    Descending,
    Int,
    Names,
    Text,
    TypedUrlState,
    make_search,
    parse_search,
)

PATH = page_shared.OPERATOR_PATH
PAGE_SIZES = (10, 20, 50)
SUB_PAGE_SIZE = 10

TYPE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("op_type", N_("op_type")),
    ("type_occurrences", N_("type_occurrences (times)")),
    ("execution_frequency", N_("execution_frequency (times)")),
    ("total_compute_time", N_("total_compute_time (us)")),
    ("avg_time", N_("avg_time (us/time)")),
    ("total_time_proportion", N_("total_time_proportion (%)")),
)
OP_COLUMNS: tuple[tuple[str, str], ...] = (
    ("op_side", N_("op_side")),
    ("op_type", N_("op_type")),
    ("op_name", N_("op_name")),
    ("full_op_name", N_("full_op_name")),
    ("op_occurrences", N_("op_occurrences (times)")),
    ("op_total_time", N_("op_total_time (us)")),
    ("op_avg_time", N_("op_avg_time (us/time)")),
    ("total_time_proportion", N_("total_time_proportion (%)")),
    ("subgraph", N_("subgraph")),
    ("input_shapes", N_("input shapes")),
    ("min", N_("min (us)")),
    ("median", N_("median (us)")),
    ("p95", N_("p95 (us)")),
    ("max", N_("max (us)")),
)
OP_KEYS = tuple(column for column, _ in OP_COLUMNS)
TYPE_KEYS = tuple(column for column, _ in TYPE_COLUMNS)
#: The drill-down sub-table leaves out what every row of it shares.
SUB_COLUMNS = tuple(c for c in OP_COLUMNS if c[0] not in ("op_side", "op_type", "subgraph"))


def titled(columns: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``columns`` with their titles in the current language. The titles are MindInsight's
    column names (``type_occurrences (times)``); the CSV download keeps them as they are, for
    scripts that read it."""
    return tuple((column, _(title)) for column, title in columns)


@dataclass(frozen=True)
class OperatorState:
    """The view state of the page (all of it in the URL)."""

    chart: str = "pie"
    measure: str = figures.MEASURE_TOTAL
    view: str = "type"
    type_search: str = ""
    type_sort: str = "total_compute_time"
    type_descending: bool = True
    open: tuple[str, ...] = ()
    search: str = ""
    sort: str = "op_total_time"
    descending: bool = True
    page: int = 1
    size: int = 10


DEFAULT = OperatorState()


#: Longest search text kept from a URL (an operator name is far shorter).
MAX_SEARCH_CHARS = 256

#: The page's URL state: each attribute of :class:`OperatorState` and its URL parameter.
STATE: TypedUrlState[OperatorState] = TypedUrlState(
    OperatorState,
    chart=Choice("chart", DEFAULT.chart, ("pie", "bar")),
    measure=Choice("measure", DEFAULT.measure, tuple(figures.MEASURES)),
    view=Choice("view", DEFAULT.view, ("type", "all")),
    type_search=Text("tq", max_chars=MAX_SEARCH_CHARS),
    type_sort=Choice("tsort", DEFAULT.type_sort, TYPE_KEYS),
    type_descending=Descending("torder"),
    open=Names("open"),
    search=Text("q", max_chars=MAX_SEARCH_CHARS),
    sort=Choice("sort", DEFAULT.sort, OP_KEYS),
    descending=Descending("order"),
    page=Int("page", 1, 1, MAX_PAGE),
    size=Int("size", DEFAULT.size, 1, max(PAGE_SIZES), allowed=PAGE_SIZES),
)


def parse_state(params: dict[str, str]) -> OperatorState:
    """The state of ``params``; unknown values fall back to the defaults."""
    return STATE.parse(params)


def state_params(state: OperatorState) -> dict[str, Any]:
    """URL parameters of ``state`` (defaults left out)."""
    return STATE.params(state)


def with_state(search: str | None, state: OperatorState) -> str:
    params = {
        key: value for key, value in parse_search(search).items() if key in page_shared.SHARED
    }
    return make_search({**params, **state_params(state)})


#: What the chart shows depends on these URL parameters only (the table on all of them).
CHART_PARAMS = (*page_shared.SHARED, "chart", "measure")


def drawn_keys(search: str | None) -> tuple[str, str]:
    """(chart key, table key): the URL's parameters that decide what the chart and what the
    table show, spelled one way. A redraw callback whose key equals the one drawn sends
    nothing: the page is drawn filled in, and Dash still fires the redraws when the URL
    component reports the URL on mounting, or when the page comes in through in-app
    navigation (a second build and render of the whole table)."""
    params = parse_search(with_state(search, parse_state(parse_search(search))))
    chart = make_search({key: params.get(key) for key in CHART_PARAMS})
    return chart, make_search(params)


# -- rows ------------------------------------------------------------------------------------


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else query.format_number(value)


def op_rows(profile: Profile, inputs: dict[str, str]) -> list[list[Any]]:
    """The all-operators rows: MindInsight's 9 columns (the proportion in percent), the input
    shapes and the launch-time distribution."""
    rows = []
    spread = profile.distribution
    for i, (stat, row) in enumerate(zip(profile.details, profile.detail_rows, strict=True)):
        shown = list(row)
        shown[7] = query.format_number(stat.proportion * 100)
        shown.append(inputs.get(stat.full_name, ""))
        if spread is not None:
            shown += [
                _number(float(spread.minimum[i])),
                _number(float(spread.median[i])),
                _number(float(spread.p95[i])),
                _number(float(spread.maximum[i])),
            ]
        else:
            shown += [None] * 4
        rows.append(shown)
    return rows


def sort_page(
    rows: list[list[Any]], columns: tuple[str, ...], sort: str, descending: bool
) -> list[list[Any]]:
    """Stable sort by one column, missing values (None) last in both directions."""
    index = columns.index(sort)
    present = [row for row in rows if row[index] is not None]
    missing = [row for row in rows if row[index] is None]
    return sorted(present, key=lambda row: row[index], reverse=descending) + missing


def type_table_rows(profile: Profile | OpTables, state: OperatorState) -> list[list[Any]]:
    """The type rows matching the type search, sorted."""
    condition = (
        {"op_type": {"partial_match_str_in": [state.type_search]}} if state.type_search else {}
    )
    found = query.filter_rows(profile.type_rows, query.CPU_TYPE_COLUMNS, condition)
    return sort_page(found, TYPE_KEYS, state.type_sort, state.type_descending)


def all_table_rows(rows: list[list[Any]], state: OperatorState) -> list[list[Any]]:
    """The operator rows whose name contains the search (MindInsight's ``op_name``
    ``partial_match_str_in``), sorted; not paged."""
    condition = {"op_name": {"partial_match_str_in": [state.search]}} if state.search else {}
    found = query.filter_rows(rows, OP_KEYS, condition)
    return sort_page(found, OP_KEYS, state.sort, state.descending)


def drill_down_rows(rows: list[list[Any]], op_type: str, page: int) -> tuple[list[list[Any]], int]:
    """One page (10 rows, by average time as MindInsight) of the operators of ``op_type``:
    the search MindInsight's drill-down should have sent (``op_type in [type]``)."""
    answer = query.search(
        rows,
        OP_KEYS,
        {
            "filter_condition": {"op_type": {"in": [op_type]}},
            "sort_condition": {"name": "op_avg_time", "type": "descending"},
            "group_condition": {"offset": page, "limit": SUB_PAGE_SIZE},
        },
    )
    return answer["object"], answer["size"]


def csv_text(columns: tuple[tuple[str, str], ...], rows: list[list[Any]]) -> str:
    """The table as CSV: headers with units, values as shown; text cells starting like a
    formula prefixed with ``'`` (:func:`~dash_insight.core.csv_cells.csv_text`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([title for _, title in columns])
    for row in rows:
        writer.writerow([_csv_cell(value) for value in row])
    return out.getvalue()


def _csv_cell(value: Any) -> Any:
    """A cell of the CSV download: None empty, text neutralised, numbers as they are."""
    if value is None:
        return ""
    return text_cell(value) if isinstance(value, str) else value


# -- layout ----------------------------------------------------------------------------------


#: The unit of each numeric column (its label's parenthesised part): one format per column.
COLUMN_UNITS: dict[str, str] = {
    column: unit
    for column, label in (*TYPE_COLUMNS, *OP_COLUMNS)
    if (unit := page_shared.unit_of(label)) is not None
}


def _cell(column: str, value: Any) -> Any:
    """A table cell as shown (the CSV keeps the raw numbers)."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return value
    unit = COLUMN_UNITS.get(column)
    if isinstance(value, int | float) and math.isfinite(value):
        if unit is not None:
            return page_shared.format_measure(value, unit)
        return f"{value:g}" if isinstance(value, float) else value
    return value


def layout(app: dash.Dash, service: ProfilerService, params: dict[str, str]) -> html.Div:
    state = parse_state(params)
    search = make_search(params)
    chart_key, table_key = drawn_keys(search)
    figure, title, legend = chart_view(service, search)
    table, total, page, pager_style, type_search_style, op_search_style, problems = table_view(
        app, service, search, {}
    )
    return html.Div(
        [
            page_shared.head(app, service, params, PATH),
            html.Div(problems, id="prof-problems"),
            _chart_section(state, figure, title, legend),
            _table_section(
                state, table, (total, page, pager_style), type_search_style, op_search_style
            ),
            dcc.Store(id="prof-sub-pages", data={}),
            dcc.Store(id="prof-chart-drawn", data=chart_key),
            dcc.Store(id="prof-table-drawn", data=table_key),
        ]
    )


def _chart_section(state: OperatorState, figure: Any, title: str, legend: Any) -> html.Div:
    """The type chart's panel: measure and chart kind over the chart and its legend."""
    return html.Div(
        className="di-panel di-prof-section",
        children=[
            html.Div(
                className="di-toolbar",
                children=[
                    html.Span(title, id="prof-chart-title", className="di-prof-chart-title"),
                    html.Div(className="di-spacer"),
                    dcc.RadioItems(
                        id="prof-measure",
                        value=state.measure,
                        inline=True,
                        className="di-inline-options",
                        options=[
                            {"label": _("total time"), "value": figures.MEASURE_TOTAL},
                            {
                                "label": _("average per launch"),
                                "value": figures.MEASURE_AVERAGE,
                            },
                        ],
                    ),
                    dcc.RadioItems(
                        id="prof-chart-kind",
                        value=state.chart,
                        inline=True,
                        className="di-inline-options",
                        options=[
                            {"label": _("Pie"), "value": "pie"},
                            {"label": _("Bar"), "value": "bar"},
                        ],
                    ),
                ],
            ),
            html.Div(
                className="di-prof-chart-row",
                children=[
                    dcc.Graph(
                        id="prof-op-chart",
                        figure=figure,
                        config=graph_config(),
                        className="di-prof-chart",
                    ),
                    html.Div(legend, id="prof-chart-legend"),
                ],
            ),
        ],
    )


def _table_section(
    state: OperatorState,
    table: Any,
    pager: tuple[Any, Any, dict[str, str]],
    type_search_style: dict[str, str],
    op_search_style: dict[str, str],
) -> html.Div:
    """The operator table's panel: view, searches and export over the table and its pager."""
    total, page, pager_style = pager
    return html.Div(
        className="di-panel di-prof-section",
        children=[
            html.Div(
                className="di-toolbar",
                children=[
                    dcc.RadioItems(
                        id="prof-view",
                        value=state.view,
                        inline=True,
                        className="di-inline-options",
                        options=[
                            {"label": _("Type"), "value": "type"},
                            {"label": _("All"), "value": "all"},
                        ],
                    ),
                    dcc.Input(
                        id="prof-type-search",
                        value=state.type_search,
                        debounce=0.3,
                        type="text",
                        className="di-input",
                        style=type_search_style,
                        placeholder=_("Enter operator type (not case sensitive)"),
                    ),
                    dcc.Input(
                        id="prof-op-search",
                        value=state.search,
                        debounce=0.3,
                        type="text",
                        className="di-input",
                        style=op_search_style,
                        placeholder=_("Enter operator name (not case sensitive)"),
                    ),
                    html.Div(className="di-spacer"),
                    html.Button(_("Export CSV"), id="prof-export", className="di-button secondary"),
                    dcc.Download(id="prof-download"),
                ],
            ),
            html.Div(table, id="prof-table", className="di-prof-scroll"),
            _pager(state.size, total, page, pager_style),
        ],
    )


def _pager(size: int, total: Any, page: Any, style: dict[str, str]) -> html.Div:
    """Total, page size and page buttons under the operator table."""
    return html.Div(
        id="prof-pager",
        className="di-pager",
        style=style,
        children=[
            html.Span(total, id="prof-total"),
            SelectInput(
                id="prof-size",
                value=size,
                style={"width": "110px"},
                options=[
                    {"label": _("{count} / page").format(count=n), "value": n} for n in PAGE_SIZES
                ],
            ),
            html.Button("‹", id="prof-prev", className="di-icon-button di-page-button"),
            html.Span(page, id="prof-page"),
            html.Button("›", id="prof-next", className="di-icon-button di-page-button"),
            goto_box("prof-goto", "di-number", "di-inline"),
        ],
    )


def chart_view(service: ProfilerService, search: str | None) -> tuple[Any, str, Any]:
    """The type chart's figure, title and legend (the pie's; none for the bar chart) for the
    URL's ``search``."""
    params = parse_search(search)
    state = parse_state(params)
    try:
        profile = page_shared.load_tables(service, params)
    except ProfileUnavailable:
        return {"data": [], "layout": {"height": 60}}, "", None
    items = figures.slices(profile.types, state.measure)
    title = str(figures.MEASURE_TITLES[state.measure])
    if len(profile.types) > figures.TOP_TYPES + 1:
        title += " · " + _("top {top} of {count} types + Other").format(
            top=figures.TOP_TYPES, count=len(profile.types)
        )
    figure = figures.type_figure(items, state.measure, state.chart, legend=False)
    return figure, title, chart_legend(items, state.chart)


def chart_legend(items: Sequence[figures.Slice], kind: str) -> Any:
    """The pie's legend in HTML beside the chart, one entry per slice in the slice's colour:
    the browser lays it out at once where Plotly measures every entry of an SVG legend (40 %
    of drawing the pie)."""
    if kind != "pie" or not items:
        return None
    return html.Ul(
        className="di-prof-legend",
        children=[
            html.Li(
                figures.legend_text(item),
                title=f"{figures.shown_label(item)}: {item.share:.2%}",
                style={"borderLeftColor": colour},
            )
            for item, colour in zip(items, figures.colours(len(items)), strict=True)
        ],
    )


def table_view(
    app: dash.Dash, service: ProfilerService, search: str | None, sub_pages: dict | None
) -> tuple:
    """The table section for the URL's ``search``: table, total, page, the pager's and the two
    search boxes' styles, and the problems panel."""
    params = parse_search(search)
    state = parse_state(params)
    hidden: dict[str, str] = {"display": "none"}
    shown: dict[str, str] = {}
    searches = (shown, hidden) if state.view == "type" else (hidden, shown)

    def link(changed: OperatorState) -> str:
        return app.get_relative_path(PATH) + with_state(search, changed)

    if state.view == "type" and not state.open:
        # Nothing shown needs the launches (the distribution): the tables alone, so the page
        # opens without parsing the launch file (most of a large profile's parse).
        try:
            tables = page_shared.load_tables(service, params)
        except ProfileUnavailable as error:
            return (page_shared.unavailable(app, error), "", "", hidden, *searches, None)
        table = _type_table(tables, [], state, {}, link)
        return table, "", "", hidden, *searches, page_shared.problems_panel(tables)
    try:
        loaded = page_shared.load(service, params)
    except ProfileUnavailable as error:
        return (page_shared.unavailable(app, error), "", "", hidden, *searches, None)
    profile = loaded.profile
    inputs, more = service.inputs(loaded.found, loaded.device)
    problems = page_shared.problems_panel(profile, more)
    if state.view == "type":
        table = _type_table(profile, op_rows(profile, inputs), state, sub_pages or {}, link)
        return table, "", "", hidden, *searches, problems
    rows = all_table_rows(op_rows(profile, inputs), state)
    pages = max(1, -(-len(rows) // state.size))
    page = min(state.page, pages)
    start = (page - 1) * state.size

    def sort_href(column: str) -> str:
        column, descending = _toggle_sort(state.sort, state.descending, column)
        return link(replace(state, sort=column, descending=descending, page=1))

    table = page_shared.sortable_table(
        titled(OP_COLUMNS),
        rows[start : start + state.size],
        "all",
        state.sort,
        state.descending,
        _cell,
        sort_href=sort_href,
    )
    return (
        table,
        _("Total {count}").format(count=format_number(len(rows))),
        f"{page} / {pages}",
        shown,
        *searches,
        problems,
    )


# -- callbacks -------------------------------------------------------------------------------


def _redraw(key: str, drawn: str | None, trigger: Any, clicked: bool) -> bool:
    """Whether a redraw callback must draw: the URL's view state is not the one drawn, or
    something else asked for it (``trigger``: a click on Refresh, a drill-down's page); not
    when Dash fired it only for the URL it was drawn for."""
    return key != drawn or (trigger != "url" and clicked)


def _toggle_sort(current: str, descending: bool, column: str) -> tuple[str, bool]:
    """Clicking the sorted column flips its order; another column sorts it descending."""
    return (column, not descending) if column == current else (column, True)


def controls_to_url(
    trigger: Any,
    chart: str,
    measure: str,
    view: str,
    type_search: str | None,
    op_search: str | None,
    _prev: Any,
    _next: Any,
    size: int | None,
    goto: int | None,
    search: str | None,
) -> Any:
    """The URL the chart kind, measure, view, searches and pager write (``no_update``: the
    same state, whatever the URL's spelling, or controls just drawn: ``trigger`` None)."""
    state = parse_state(parse_search(search))
    if trigger == "prof-chart-kind":
        state = replace(state, chart=chart)
    elif trigger == "prof-measure":
        state = replace(state, measure=measure)
    elif trigger == "prof-view":
        state = replace(state, view=view)
    elif trigger == "prof-type-search":
        state = replace(state, type_search=str(type_search or "").strip())
    elif trigger == "prof-op-search":
        state = replace(state, search=str(op_search or "").strip(), page=1)
    elif trigger == "prof-prev":
        state = replace(state, page=max(1, state.page - 1))
    elif trigger == "prof-next":
        state = replace(state, page=state.page + 1)
    elif trigger == "prof-size":
        state = replace(state, size=size if size in PAGE_SIZES else DEFAULT.size, page=1)
    elif trigger == "prof-goto" and isinstance(goto, int) and goto:
        state = replace(state, page=max(1, goto))
    else:
        return dash.no_update
    new_search = with_state(search, state)
    # Unchanged (whatever the URL's spelling): write nothing, or every view re-renders.
    return dash.no_update if parse_search(new_search) == parse_search(search) else new_search


def render_chart(
    app: dash.Dash,
    service: ProfilerService,
    trigger: Any,
    clicked: bool,
    search: str | None,
    _clicks: Any,
    pathname: str | None,
    drawn: str | None,
) -> tuple[Any, ...]:
    """The chart, its title and legend and the key of what they show; nothing on another
    page or when the URL's chart state is the one drawn (the layout is drawn filled in)."""
    key = drawn_keys(search)[0]
    if not page_shared.is_page(app, pathname, PATH) or not _redraw(key, drawn, trigger, clicked):
        return (dash.no_update,) * 4
    return (*chart_view(service, search), key)


def render_table(
    app: dash.Dash,
    service: ProfilerService,
    trigger: Any,
    clicked: bool,
    search: str | None,
    _clicks: Any,
    sub_pages: dict | None,
    pathname: str | None,
    drawn: str | None,
) -> tuple[Any, ...]:
    """The table, its total, pager and searches' visibility, the problems and the key of
    what they show; nothing on another page or when the URL's table state is the one drawn."""
    key = drawn_keys(search)[1]
    if not page_shared.is_page(app, pathname, PATH) or not _redraw(key, drawn, trigger, clicked):
        return (dash.no_update,) * 8
    return (*table_view(app, service, search, sub_pages), key)


def sub_page(trigger: Any, clicked: bool, _clicks: list, pages: dict | None) -> Any:
    """The drill-down page of each operator type after a click on one's ‹ or ›."""
    if not isinstance(trigger, dict) or not clicked:
        return dash.no_update
    pages = dict(pages) if isinstance(pages, dict) else {}
    pages[trigger["op_type"]] = max(0, pages.get(trigger["op_type"], 0) + trigger["step"])
    return pages


def export(service: ProfilerService, clicks: int | None, search: str | None) -> Any:
    """Export: the shown table (every page of it) as CSV; nothing for a drawn button."""
    if not clicks:
        return dash.no_update
    params = parse_search(search)
    state = parse_state(params)
    job = params.get("train_id", "job").strip("./").replace("/", "_") or "job"
    try:
        if state.view == "type":
            tables = page_shared.load_tables(service, params)
            text = csv_text(TYPE_COLUMNS, type_table_rows(tables, state))
            return dcc.send_string(text, f"{job}_op_types_device{tables.device}.csv")
        loaded = page_shared.load(service, params)
    except ProfileUnavailable:
        return dash.no_update
    inputs, _unused = service.inputs(loaded.found, loaded.device)
    text = csv_text(OP_COLUMNS, all_table_rows(op_rows(loaded.profile, inputs), state))
    return dcc.send_string(text, f"{job}_operators_device{loaded.device}.csv")


def register(app: dash.Dash, service: ProfilerService) -> None:
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("prof-chart-kind", "value"),
        Input("prof-measure", "value"),
        Input("prof-view", "value"),
        Input("prof-type-search", "value"),
        Input("prof-op-search", "value"),
        Input("prof-prev", "n_clicks"),
        Input("prof-next", "n_clicks"),
        Input("prof-size", "value"),
        Input("prof-goto", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(controls_to_url, single=True))
    # The layout is drawn filled in (no round trip on opening the page); these redraw it when
    # the URL's view state changes, and say what they drew.
    app.callback(
        Output("prof-op-chart", "figure"),
        Output("prof-chart-title", "children"),
        Output("prof-chart-legend", "children"),
        Output("prof-chart-drawn", "data"),
        Input("url", "search"),
        Input("refresh-now", "n_clicks"),
        State("url", "pathname"),
        State("prof-chart-drawn", "data"),
        prevent_initial_call=True,
    )(triggered(functools.partial(render_chart, app, service), clicked=True))
    app.callback(
        Output("prof-table", "children"),
        Output("prof-total", "children"),
        Output("prof-page", "children"),
        Output("prof-pager", "style"),
        Output("prof-type-search", "style"),
        Output("prof-op-search", "style"),
        Output("prof-problems", "children"),
        Output("prof-table-drawn", "data"),
        Input("url", "search"),
        Input("refresh-now", "n_clicks"),
        Input("prof-sub-pages", "data"),
        State("url", "pathname"),
        State("prof-table-drawn", "data"),
        prevent_initial_call=True,
    )(triggered(functools.partial(render_table, app, service), clicked=True))
    app.callback(
        Output("prof-sub-pages", "data"),
        Input({"type": "prof-sub-page", "op_type": ALL, "step": ALL}, "n_clicks"),
        State("prof-sub-pages", "data"),
        prevent_initial_call=True,
    )(triggered(sub_page, clicked=True))
    app.callback(
        Output("prof-download", "data"),
        Input("prof-export", "n_clicks"),
        State("url", "search"),
        prevent_initial_call=True,
    )(functools.partial(export, service))


def _type_table(
    profile: Profile | OpTables,
    operators: list[list[Any]],
    state: OperatorState,
    sub_pages: dict[str, int],
    link: Callable[[OperatorState], str],
) -> Any:
    """The type rows; each row's expander is a link to the page with that type opened or
    closed (URL state: no callback per row); an opened type shows its rows of ``operators``
    (:func:`op_rows`: needed only when a type is open)."""
    rows = type_table_rows(profile, state)
    expanders = []
    extra: dict[int, Any] = {}
    for i, row in enumerate(rows):
        op_type = row[0]
        is_open = op_type in state.open
        opened = tuple(t for t in state.open if t != op_type) if is_open else (*state.open, op_type)
        expanders.append(
            dcc.Link(
                "▾" if is_open else "▸",
                className="di-prof-expand",
                href=link(replace(state, open=opened)),
                id=page_shared.element_id("prof-expand", op_type),
                title=_("operators of type {type}").format(type=op_type),
            )
        )
        if is_open:
            extra[i] = _drill_down(operators, op_type, sub_pages.get(op_type, 0))

    def sort_href(column: str) -> str:
        column, descending = _toggle_sort(state.type_sort, state.type_descending, column)
        return link(replace(state, type_sort=column, type_descending=descending))

    return page_shared.sortable_table(
        titled(TYPE_COLUMNS),
        rows,
        "type",
        state.type_sort,
        state.type_descending,
        _cell,
        lead=expanders,
        extra_rows=extra,
        sort_href=sort_href,
    )


def _drill_down(operators: list[list[Any]], op_type: str, page: int) -> Any:
    rows, size = drill_down_rows(operators, op_type, page)
    pages = max(1, -(-size // SUB_PAGE_SIZE))
    page = min(page, pages - 1)
    if not rows and size:
        rows, size = drill_down_rows(operators, op_type, page)
    keep = [OP_KEYS.index(column) for column, _ in SUB_COLUMNS]
    table = page_shared.sortable_table(
        titled(SUB_COLUMNS),
        [[row[i] for i in keep] for row in rows],
        f"sub-{op_type}",
        None,
        True,
        _cell,
    )
    return html.Div(
        className="di-prof-drill",
        id={"type": "prof-drill", "op_type": op_type},
        children=[
            table,
            html.Div(
                className="di-pager",
                children=[
                    html.Span(
                        f"{op_type}: "
                        + ngettext("{count} operator", "{count} operators", size).format(count=size)
                    ),
                    html.Button(
                        "‹",
                        id={"type": "prof-sub-page", "op_type": op_type, "step": -1},
                        className="di-icon-button di-page-button",
                        disabled=page <= 0,
                    ),
                    html.Span(f"{page + 1} / {pages}"),
                    html.Button(
                        "›",
                        id={"type": "prof-sub-page", "op_type": op_type, "step": 1},
                        className="di-icon-button di-page-button",
                        disabled=page >= pages - 1,
                    ),
                ],
            ),
        ],
    )
