"""Model lineage and data lineage: compare trainings by hyper-parameters, metrics and datasets.

MindInsight's model-traceback and data-traceback pages (spec §4.6, ui-reference 09/10) in one
page: a parallel-coordinates chart (one axis per chosen column, one line per job, coloured by a
metric; brushing an axis filters the table; SVG drawn by assets/lineage-chart.js), a table with
sorting, filtering, links to each job's dashboard, show / hide selected rows, CSV export and
editable remarks and tags (persisted in the workspace, shared with ``PUT /lineagemgr/lineages``),
and on the model tab an overview: an objective's distribution, each hyper-parameter's importance
(|Pearson r| as MindInsight, and |Spearman rho|) over the jobs in the table, and a scatter of
one parameter against the objective.

URL state: ``?tab=model|dataset&columns=<id>,<id>&color=<metric>&sort=<column>:asc|desc
&filters=<JSON {column: [[low, high], ...] | [value, ...]}>&show=<ids>&hide=<ids>
&objective=<target>&param=<hyper-parameter>``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import dash
import dash_ag_grid as dag
from dash import ClientsideFunction, Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dash_insight.core.i18n import N_, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.run_marks import RunMarkError, parse_labels
from dash_insight.plugins.lineage import figures
from dash_insight.plugins.lineage import query as lineage_data
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.plugins.lineage.service_remarks import RemarkError
from dash_insight.web.binding import preset, triggered
from dash_insight.web.components.grid_text import grid_locale_text
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.components.svg_chart import SvgChart, height_style
from dash_insight.web.url_state import encode_tags, make_search, parse_search, same_search

PATH = "/lineage"
PAGE_SIZES = [10, 20, 50, 100]


def _tabs(app: dash.Dash) -> html.Nav:
    base = app.get_relative_path(PATH)
    return html.Nav(
        className="di-lineage-tabs",
        children=[
            dcc.Link(_("Model lineage"), href=base, id="lineage-tab-model"),
            dcc.Link(_("Data lineage"), href=base + "?tab=dataset", id="lineage-tab-dataset"),
        ],
    )


#: The overview's charts, top to bottom: ``lineage-<name>``, SVG charts of figures.py's specs.
_OVERVIEW_CHARTS = ("distribution", "importance", "scatter")


def _overview_chart(name: str) -> SvgChart:
    return SvgChart(id=f"lineage-{name}", className=f"di-lineage-{name}")


def _overview() -> html.Aside:
    return html.Aside(
        id="lineage-overview",
        className="di-panel di-lineage-overview",
        children=[
            html.H2(_("Optimization objective"), className="di-lineage-h"),
            SelectInput(id="lineage-objective", placeholder=_("No metric yet")),
            html.Div(id="lineage-overview-note", className="di-muted di-lineage-note"),
            html.H3(_("Objective distribution"), className="di-lineage-h3"),
            _overview_chart("distribution"),
            html.H3(
                _("Parameter importance"),
                className="di-lineage-h3",
                title=_(
                    "|Pearson r| is MindInsight's importance (linear effects); |Spearman ρ| "
                    "also catches monotonic ones. Computed over the jobs in the table."
                ),
            ),
            _overview_chart("importance"),
            html.H3(_("Parameter and objective"), className="di-lineage-h3"),
            SelectInput(id="lineage-param", placeholder=_("No numeric parameter")),
            _overview_chart("scatter"),
        ],
    )


def lineage_grid() -> dag.AgGrid:
    """The lineage table: one row per job, its columns chosen on the page."""
    return dag.AgGrid(
        id="lineage-grid",
        rowData=[],
        columnDefs=[],
        className="di-lineage-grid",
        getRowId="lineageTrainId(params)",  # assets/dashAgGridFunctions-lineage.js
        # Headers wrap onto more lines rather than being cut ("[M]Accu…"), #38 item 8.1.
        defaultColDef={
            "sortable": True,
            "resizable": True,
            "minWidth": 110,
            "flex": 1,
            "wrapHeaderText": True,
            "autoHeaderHeight": True,
        },
        dashGridOptions={
            "rowSelection": {"mode": "multiRow", "enableClickSelection": False},
            "suppressFieldDotNotation": True,
            "domLayout": "autoHeight",
            "pagination": True,
            "paginationPageSize": 20,
            "paginationPageSizeSelector": PAGE_SIZES,
            "tooltipShowDelay": 400,
            "stopEditingWhenCellsLoseFocus": True,
            "enableCellTextSelection": True,
            "localeText": grid_locale_text(_("No job matches the brushes and filters.")),
            "selectionColumnDef": {"pinned": "left"},
        },
        csvExportParams={
            "fileName": "lineage.csv",
            "processCellCallback": {"function": "lineageCsvCell(params)"},
            # One header row, the column names, as before the table's groups.
            "skipColumnGroupHeaders": True,
        },
        style={"height": None},
    )


def _columns_menu() -> html.Details:
    """The Columns menu: All, None and a tick per column of the tab."""
    actions = html.Div(
        className="di-lineage-columns-actions",
        children=[
            html.Button(_("All"), id="lineage-columns-all", className="di-link-button"),
            html.Button(_("None"), id="lineage-columns-none", className="di-link-button"),
        ],
    )
    return html.Details(
        className="di-lineage-columns",
        children=[
            html.Summary(id="lineage-columns-summary", children=_("Columns")),
            html.Div(
                className="di-lineage-columns-body",
                children=[
                    actions,
                    dcc.Checklist(
                        id="lineage-columns", options=[], value=[], className="di-lineage-checklist"
                    ),
                ],
            ),
        ],
    )


def _chart_toolbar() -> html.Div:
    return html.Div(
        className="di-toolbar di-lineage-toolbar",
        children=[
            _columns_menu(),
            html.Label(
                className="di-lineage-colour",
                children=[
                    _("Colour by"),
                    SelectInput(id="lineage-color", placeholder="—", style={"width": "200px"}),
                ],
            ),
            html.Span(
                _(
                    "[U] user-defined · [M] metric · a line at the foot "
                    "of an "
                    "axis, below its ticks: the job has no value there"
                ),
                className="di-muted",
            ),
        ],
    )


#: The table's buttons: (label, id, class, title).
_TABLE_ACTIONS = (
    (
        N_("Show selected"),
        "lineage-show-selected",
        "di-button secondary",
        N_("Keep only the ticked rows"),
    ),
    (
        N_("Hide selected"),
        "lineage-hide-selected",
        "di-button secondary",
        N_("Remove the ticked rows from chart and table"),
    ),
    (
        N_("Show all"),
        "lineage-show-all",
        "di-button",
        N_("Clear brushes, hidden rows and the selection filter"),
    ),
    (
        N_("Export CSV"),
        "lineage-export",
        "di-button secondary",
        N_("Download the table's rows (after filters) as CSV"),
    ),
    (
        N_("Save chart"),
        "lineage-save-chart",
        "di-button secondary",
        N_("Download the chart as it is drawn (SVG)"),
    ),
)


#: The scalar comparison (its URL's ``jobs``: the jobs compared), which "Compare selected" and
#: "Compare filtered" open.
COMPARE_PATH = "/compare"


def _compare_links() -> list[dcc.Link]:
    """Open the scalar comparison with the ticked rows' jobs, or with the rows the brushes and
    filters leave (their hrefs: :func:`compare_links`)."""
    return [
        dcc.Link(
            _("Compare selected"),
            id="lineage-compare-selected",
            href=COMPARE_PATH,
            className="di-button secondary di-disabled",
            title=_("Compare the curves of the ticked rows' jobs"),
        ),
        dcc.Link(
            _("Compare filtered"),
            id="lineage-compare-filtered",
            href=COMPARE_PATH,
            className="di-button secondary di-disabled",
            title=_("Compare the curves of the jobs in the table (after brushes and filters)"),
        ),
    ]


def _archive_actions(params: Mapping[str, str]) -> list[Any]:
    """Archive or restore the ticked rows' runs (:func:`archive_selected`), and the switch that
    keeps archived runs in the table and chart (the URL's ``archived``)."""
    return [
        html.Button(
            _("Archive selected"),
            id="lineage-archive",
            className="di-button secondary",
            title=_("Put the ticked runs away: they leave every job picker"),
        ),
        html.Button(
            _("Restore selected"),
            id="lineage-unarchive",
            className="di-button secondary",
            title=_("Bring the ticked archived runs back"),
        ),
        dcc.Checklist(
            id="lineage-show-archived",
            value=["archived"] if params.get("archived") == "1" else [],
            options=[{"label": " " + _("show archived runs"), "value": "archived"}],
            className="di-archived-switch",
        ),
    ]


def _table_actions(params: Mapping[str, str]) -> html.Div:
    return html.Div(
        className="di-toolbar di-lineage-actions",
        children=[
            *(
                html.Button(_(label), id=button_id, className=classes, title=_(title))
                for label, button_id, classes, title in _TABLE_ACTIONS
            ),
            *_archive_actions(params),
            *_compare_links(),
            html.Span(id="lineage-count", className="di-muted"),
            html.Span(id="lineage-status", className="di-muted", role="status"),
        ],
    )


def _main_panel(params: Mapping[str, str]) -> html.Section:
    return html.Section(
        className="di-panel di-lineage-main",
        children=[
            _chart_toolbar(),
            # Drawn in SVG by assets/lineage-chart.js from the lineage-chart-spec store
            # (figures.parallel_chart); a drag on an axis writes lineage-brush.
            html.Div(id="lineage-chart", className="di-lineage-chart"),
            _table_actions(params),
            lineage_grid(),
            html.P(
                _(
                    "Remarks (≤ 128 characters) and tags (1–10) are saved in the "
                    "workspace "
                    "and kept across restarts; double-click a cell to edit it."
                ),
                className="di-muted di-lineage-note",
            ),
        ],
    )


#: The page's stores: (id, initial data).
_STORES: tuple[tuple[str, Any], ...] = (
    ("lineage-axes", None),
    ("lineage-table", None),
    ("lineage-chart-spec", None),
    ("lineage-chart-drawn", None),
    ("lineage-brush", None),
    ("lineage-sort", None),
    ("lineage-signature", None),
    ("lineage-saved", 0),
    ("lineage-auto-colour", None),
    ("lineage-auto-overview", {}),
)


def layout(app: dash.Dash, service: LineageService, params: dict[str, str]) -> html.Div:
    """The page, drawn: the chart, the table, the controls and the overview come with it, as
    the callbacks would answer them for the URL (no round trip before the first screen)."""
    search = make_search(params)
    page = _frame(app, params)
    preset(page, _RENDER_OUTPUTS, render(service, _dashboard_path(app), search, *[None] * 4))
    if _state(search).tab == "model":
        preset(page, _OVERVIEW_OUTPUTS, overview(service, search, None, None))
    compare_path = app.get_relative_path(COMPARE_PATH)
    preset(page, _COMPARE_OUTPUTS, compare_links(service, compare_path, search, None, None, None))
    return page


def _dashboard_path(app: dash.Dash) -> str:
    return app.get_relative_path("/dashboard")


def _frame(app: dash.Dash, params: dict[str, str]) -> html.Div:
    return html.Div(
        className="di-lineage",
        children=[
            html.Div(
                className="di-page-head",
                children=[
                    html.H1(_("Lineage"), className="di-title"),
                    html.Span(
                        _("Compare trainings by hyper-parameters, metrics and datasets"),
                        className="di-subtitle",
                    ),
                    html.Div(className="di-spacer"),
                    _tabs(app),
                ],
            ),
            html.Div(id="lineage-problems", className="di-error-text", role="alert"),
            html.Div(className="di-lineage-body", children=[_overview(), _main_panel(params)]),
            *(dcc.Store(id=store_id, data=data) for store_id, data in _STORES),
        ],
    )


def _state(search: str | None) -> figures.PageState:
    return figures.parse_state(parse_search(search))[0]


def _changed(search: str | None, state: figures.PageState) -> Any:
    """The URL of ``state``; no update when it says what ``search`` says."""
    new_search = figures.state_search(state)
    return dash.no_update if same_search(new_search, search) else new_search


# -- callbacks (plain functions: register() only binds them) -------------------------------------


def _problems(
    service: LineageService,
    data: figures.TabData,
    state: figures.PageState,
    found: list[str],
    entries: Sequence[Any],
) -> str:
    """The URL's and the logs' problems, in one line."""
    problems = list(found)
    unknown = [c for c in (state.columns or ()) if data.column(c) is None]
    if unknown:
        problems.append(
            _("unknown column(s) ignored: {columns}").format(columns=", ".join(unknown))
        )
    if not entries:
        problems.append(
            _(
                "No training job with lineage yet: lineage comes from the "
                "*_lineage files SummaryCollector writes next to the summaries."
            )
            if service.provider.ready
            else _("Looking for training jobs…")
        )
    return "; ".join(problems)


def _count_text(data: figures.TabData, shown: int, visible: int) -> str:
    """ "3 of 5 jobs · 1 hidden"."""
    count = ngettext("{shown} of {count} job", "{shown} of {count} jobs", len(data.rows)).format(
        shown=shown, count=len(data.rows)
    )
    if visible < len(data.rows):
        count += " · " + _("{count} hidden").format(count=len(data.rows) - visible)
    return count


def _column_controls(data: figures.TabData, columns: list[figures.Column]) -> tuple[Any, ...]:
    """The Columns menu's options, ticks and summary, and the colour menu's options."""
    options = [{"label": c.label, "value": c.id, "title": c.hint or c.label} for c in data.columns]
    summary = (
        _("Columns ({shown} of {count})").format(shown=len(columns), count=len(data.columns)) + " ▾"
    )
    colour_options = [{"label": c.label, "value": c.id} for c in data.colour_columns]
    return options, [c.id for c in columns], summary, colour_options


def shown_entries(
    service: LineageService, state: figures.PageState
) -> tuple[list[lineage_data.LineageEntry], dict[str, list[str]]]:
    """The jobs' lineage the page shows (archived runs left out unless its switch shows them,
    :mod:`~dash_insight.core.run_marks`) and the runs' labels."""
    marks = service.provider.run_marks
    archived = marks.archived() if marks and not state.archived else set()
    entries = [e for e in service.lineages() if e.train_id not in archived]
    return entries, marks.labels() if marks else {}


def _dashboard_link(dashboard_path: str) -> Callable[[str], str]:
    """A job's dashboard address (the summary path's link)."""
    return functools.partial(_job_link, dashboard_path)


def _job_link(dashboard_path: str, job: str) -> str:
    return dashboard_path + make_search({"train_id": job})


def _column_defs(columns: list[figures.Column], state: figures.PageState, changed: bool) -> Any:
    """The grid's column definitions, sent only when the columns ``changed``: re-sending them
    would re-apply the URL's sort over a newer click in the grid (the grid owns its sort and
    reports it to the URL; a link's sort applies when the page is built). The grid gets them
    from lineage-table one task later (lineageGrid.table)."""
    return figures.grid_column_defs(columns, state.sort) if changed else None


def render(
    service: LineageService,
    dashboard_path: str,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    _saved: Any,
    previous: dict | None,
) -> tuple:
    """Chart, table and controls from the URL and the logs; nothing is sent when neither
    changed since the last answer (auto refresh)."""
    state, found = figures.parse_state(parse_search(search))
    entries, labels = shown_entries(service, state)
    added = service.remarks.all()
    previous = previous if isinstance(previous, dict) else {}
    signature = json.dumps(
        [search or "", [(e.train_id, e.update_time, id(e.row)) for e in entries], added, labels],
        default=str,
    )
    if signature == previous.get("signature"):
        raise PreventUpdate
    data = figures.tab_data(state.tab, entries)
    columns = figures.chosen_columns(data, state)
    colour = figures.colour_column(data, state)
    visible = figures.visible_rows(data, state)
    rows = figures.table_rows(data, state)
    in_table = {r["train_id"] for r in rows}
    spec, axes = figures.parallel_chart(
        visible,
        columns,
        colour,
        state.filters,
        data.labels,
        [r["train_id"] in in_table for r in visible],
    )
    is_model = state.tab == "model"
    defs_key = json.dumps([state.tab, [c.id for c in columns]])
    table = {
        "rows": figures.grid_row_data(
            rows, columns, added, _dashboard_link(dashboard_path), labels
        ),
        "defs": _column_defs(columns, state, defs_key != previous.get("defs")),
    }
    return (
        spec,
        [a.to_dict() for a in axes],
        table,
        *_column_controls(data, columns),
        colour.id if colour else None,
        _count_text(data, len(rows), len(visible)),
        _problems(service, data, state, found, entries),
        None if is_model else {"display": "none"},
        "active" if is_model else "",
        "" if is_model else "active",
        {"signature": signature, "defs": defs_key},
        colour.id if colour else None,
    )


def _empty_overview(note: str) -> tuple:
    return ([], None, [], None, note, dash.no_update, *([None] * 6))


def overview(service: LineageService, search: str | None, _ticks: Any, _clicks: Any) -> tuple:
    """The model tab's overview over the jobs in the table: the objective's distribution, each
    hyper-parameter's importance and a scatter of one against the objective (the charts'
    specs, figures.py)."""
    state = _state(search)
    if state.tab != "model":
        raise PreventUpdate
    entries = service.lineages()
    shown = {r["train_id"] for r in figures.table_rows(figures.model_tab(entries), state)}
    objects = [
        o for o in lineage_data.search_lineages(entries, {})["object"] if o["summary_dir"] in shown
    ]
    table = lineage_data.LineageTable.from_objects(objects)
    targets = table.target_names
    if not targets:
        return _empty_overview(_("No metric or loss in the jobs shown.") if entries else "")
    target = state.objective if state.objective in targets else targets[0]
    summary = next(
        t for t in lineage_data.optimizer_targets(objects)["targets"] if t["name"] == target
    )
    importance = figures.importance_rows(table, target)
    params = [p["name"] for p in importance]
    param = state.param if state.param in params else (params[0] if params else None)
    scatter = figures.scatter_chart([], [], [], "", "")
    if param:
        scatter = figures.scatter_chart(
            table.train_ids, table.values(param), table.values(target), param, target
        )
    message = figures.importance_message(importance, len(objects))
    charts = {
        "distribution": figures.distribution_chart(summary),
        "importance": figures.importance_chart(importance, message=message),
        "scatter": scatter,
    }
    return (
        [{"label": t, "value": t} for t in targets],
        target,
        [{"label": p, "value": p} for p in params],
        param,
        ngettext(
            "Over the {count} job in the table.",
            "Over the {count} jobs in the table.",
            len(objects),
        ).format(count=len(objects)),
        {"objective": target, "param": param},
        *(charts[name] for name in _OVERVIEW_CHARTS),
        *(height_style(charts[name]) for name in _OVERVIEW_CHARTS),
    )


def controls_to_url(
    service: LineageService,
    trigger: Any,
    columns: list[str] | None,
    colour: str | None,
    objective: str | None,
    param: str | None,
    auto_colour: str | None,
    auto: dict | None,
    search: str | None,
) -> Any:
    """Write a control's change (``trigger`` = its id) into the URL. The page sets the controls
    itself too (to the URL's values or its defaults); a value equal to what the page chose
    changes nothing, so defaults stay out of the URL."""
    state = _state(search)
    auto = auto if isinstance(auto, dict) else {}
    if trigger == "lineage-columns" and isinstance(columns, list):
        data = figures.tab_data(state.tab, service.lineages())
        current = [c.id for c in figures.chosen_columns(data, state)]
        if list(columns) != current:
            state = replace(state, columns=tuple(map(str, columns[: figures.MAX_STATE_ITEMS])))
    elif trigger == "lineage-color" and colour and colour != auto_colour:
        state = replace(state, color=colour)
    elif trigger == "lineage-objective" and objective and objective != auto.get("objective"):
        state = replace(state, objective=objective)
    elif trigger == "lineage-param" and param and param != auto.get("param"):
        state = replace(state, param=param)
    return _changed(search, state)


def all_or_no_columns(trigger: Any, _all: Any, _none: Any, options: list[dict] | None) -> list[str]:
    """Every column of the menu ticked (All) or none (None)."""
    if trigger == "lineage-columns-all":
        return [o["value"] for o in options or [] if isinstance(o, dict) and "value" in o]
    return []


def brush_to_url(brush: Any, axes: list[dict] | None, search: str | None) -> Any:
    """A brush dragged on an axis (or cleared by a click on it) becomes a URL filter; the
    table and the chart follow the URL."""
    event = figures.brush_from_event(brush)
    if event is None or not isinstance(axes, list) or not axes:
        raise PreventUpdate
    index, axis_id, fractions = event
    if index >= len(axes) or not isinstance(axes[index], dict) or axes[index].get("id") != axis_id:
        raise PreventUpdate  # the chart changed under the drag
    state = _state(search)
    filters = dict(state.filters)
    if fractions is None:
        filters.pop(axis_id, None)
    else:
        filters[axis_id] = figures.filter_from_fractions(
            figures.Axis.from_dict(axes[index]), fractions
        )
    return _changed(search, replace(state, filters=filters))


def sort_to_url(column_state: list[dict] | None, search: str | None) -> Any:
    """A click on a column's header becomes the URL's sort."""
    if column_state is None:
        raise PreventUpdate
    return _changed(
        search, replace(_state(search), sort=figures.sort_from_column_state(column_state))
    )


def selection_to_url(
    trigger: Any, _show: Any, _hide: Any, _all: Any, selected: list[dict] | None, search: str | None
) -> Any:
    """Show selected, hide selected or show all (``trigger`` = the button's id)."""
    state = _state(search)
    ids = [
        r["train_id"]
        for r in (selected if isinstance(selected, list) else [])[: figures.MAX_STATE_ITEMS]
        if isinstance(r, dict) and isinstance(r.get("train_id"), str)
    ]
    if trigger == "lineage-show-all":
        return _changed(search, replace(state, show=None, hide=(), filters={}))
    if not ids:
        raise PreventUpdate
    if trigger == "lineage-show-selected":
        return _changed(search, replace(state, show=tuple(ids), hide=()))
    if trigger == "lineage-hide-selected":
        hide = tuple(dict.fromkeys([*state.hide, *ids]))[: figures.MAX_STATE_ITEMS]
        return _changed(search, replace(state, hide=hide))
    raise PreventUpdate


def _compare_link(compare_path: str, jobs: Sequence[str]) -> tuple[str, str]:
    """The href of a compare link for ``jobs`` (the scalar comparison's ``jobs``), and its
    classes: disabled without a job."""
    if not jobs:
        return compare_path, "di-button secondary di-disabled"
    ids = list(dict.fromkeys(jobs))[: figures.MAX_STATE_ITEMS]
    return compare_path + make_search({"jobs": encode_tags(ids)}), "di-button secondary"


def compare_links(
    service: LineageService,
    compare_path: str,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    selected: list[dict] | None,
) -> tuple[str, str, str, str]:
    """The hrefs and classes of "Compare selected" (the ticked rows' jobs) and "Compare
    filtered" (the table's rows: what the brushes, filters and hidden rows leave)."""
    state = _state(search)
    rows = figures.table_rows(figures.tab_data(state.tab, service.lineages()), state)
    ticked = [
        r["train_id"]
        for r in (selected if isinstance(selected, list) else [])
        if isinstance(r, dict) and isinstance(r.get("train_id"), str)
    ]
    return (
        *_compare_link(compare_path, ticked),
        *_compare_link(compare_path, [r["train_id"] for r in rows]),
    )


def export(_clicks: Any) -> bool:
    """The grid's CSV download."""
    return True


def _edit_value(column: str, value: Any) -> Any:
    """A tag is an integer (-1 when it is not one); a remark a string."""
    if column == "tag":
        try:
            return int(value or 0)
        except (TypeError, ValueError):
            return -1
    return "" if value is None else value


def _save_change(service: LineageService, change: Any, listed: set[str]) -> str | None:
    """Save one edited cell; what the status line says about it (None: not an edit of ours)."""
    if not isinstance(change, dict):
        return None
    column = change.get("colId")
    data = change.get("data")
    train_id = data.get("train_id") if isinstance(data, dict) else None
    if column not in ("remark", "tag", "labels") or not isinstance(train_id, str) or not train_id:
        return None
    if column == "labels":
        return _save_labels(service, train_id, change.get("value", change.get("newValue")))
    if train_id not in listed:  # as the REST PUT: only jobs with lineage get a remark
        return _("{job}: no lineage of this train job; nothing saved.").format(job=train_id)
    # dash-ag-grid sends the new value as "value" (its docs say "newValue").
    value = _edit_value(column, change.get("value", change.get("newValue")))
    try:
        service.remarks.update(train_id, {column: value})
    except RemarkError as error:
        return f"{train_id}: {error}"
    saved = _("Saved the remark of {job}.") if column == "remark" else _("Saved the tag of {job}.")
    return saved.format(job=train_id)


def _save_labels(service: LineageService, train_id: str, value: Any) -> str:
    """Save a run's labels typed in its cell (comma-separated); what the status line says."""
    marks = service.provider.run_marks
    if marks is None or train_id not in [job.train_id for job in service.provider.list_jobs()]:
        return _("{job}: not a known train job; nothing saved.").format(job=train_id)
    try:
        marks.update(train_id, {"labels": parse_labels(value if isinstance(value, str) else "")})
    except RunMarkError as error:
        return f"{train_id}: {error}"
    return _("Saved the labels of {job}.").format(job=train_id)


def archive_selected(
    service: LineageService,
    trigger: Any,
    clicked: bool,
    _a: Any,
    _b: Any,
    selected: Any,
    saved: Any,
) -> tuple[Any, Any]:
    """Archive (or restore) the ticked rows' runs; the status line and the count of saves
    (which redraws the table)."""
    marks = service.provider.run_marks
    ids = [
        r["train_id"]
        for r in (selected if isinstance(selected, list) else [])[: figures.MAX_STATE_ITEMS]
        if isinstance(r, dict) and isinstance(r.get("train_id"), str)
    ]
    if not clicked or marks is None or not ids:
        raise PreventUpdate
    archive = trigger == "lineage-archive"
    known = set([job.train_id for job in service.provider.list_jobs()])
    done = [job for job in ids if job in known]
    for job in done:
        marks.update(job, {"archived": archive})
    text = (
        ngettext("Archived {count} run.", "Archived {count} runs.", len(done))
        if archive
        else ngettext("Restored {count} run.", "Restored {count} runs.", len(done))
    )
    count = saved if isinstance(saved, int) and not isinstance(saved, bool) else 0
    return text.format(count=len(done)), count + 1


def show_archived_to_url(value: Any, search: str | None) -> Any:
    """The "show archived runs" switch becomes the URL's ``archived``."""
    return _changed(search, replace(_state(search), archived=bool(value)))


def save_edit(service: LineageService, changes: list[dict] | None, saved: int | None) -> tuple:
    """Persist edited remarks and tags (the store PUT /lineagemgr/lineages uses); the status
    line and the count of saves (which redraws the table)."""
    edits = changes[: figures.MAX_STATE_ITEMS] if isinstance(changes, list) else []
    listed = {entry.train_id for entry in service.lineages()} if edits else set()
    messages = [m for m in (_save_change(service, c, listed) for c in edits) if m is not None]
    count = saved if isinstance(saved, int) and not isinstance(saved, bool) else 0
    return " ".join(messages), count + 1


# -- binding --------------------------------------------------------------------------------------

#: What :func:`render` answers, in its order.
_RENDER_OUTPUTS = (
    Output("lineage-chart-spec", "data"),
    Output("lineage-axes", "data"),
    Output("lineage-table", "data"),
    Output("lineage-columns", "options"),
    Output("lineage-columns", "value"),
    Output("lineage-columns-summary", "children"),
    Output("lineage-color", "options"),
    Output("lineage-color", "value"),
    Output("lineage-count", "children"),
    Output("lineage-problems", "children"),
    Output("lineage-overview", "style"),
    Output("lineage-tab-model", "className"),
    Output("lineage-tab-dataset", "className"),
    Output("lineage-signature", "data"),
    Output("lineage-auto-colour", "data"),
)
#: What :func:`overview` answers, in its order.
_OVERVIEW_OUTPUTS = (
    Output("lineage-objective", "options"),
    Output("lineage-objective", "value"),
    Output("lineage-param", "options"),
    Output("lineage-param", "value"),
    Output("lineage-overview-note", "children"),
    Output("lineage-auto-overview", "data"),
    *(Output(f"lineage-{name}", "spec") for name in _OVERVIEW_CHARTS),
    *(Output(f"lineage-{name}", "style") for name in _OVERVIEW_CHARTS),
)
#: What :func:`compare_links` answers, in its order.
_COMPARE_OUTPUTS = (
    Output("lineage-compare-selected", "href"),
    Output("lineage-compare-selected", "className"),
    Output("lineage-compare-filtered", "href"),
    Output("lineage-compare-filtered", "className"),
)


def register(app: dash.Dash, service: LineageService) -> None:
    _bind_drawing(app, service)
    _bind_url_writers(app, service)
    _bind_compare_links(app, service)
    _bind_archive(app, service)
    _register_clientside(app)


def _bind_drawing(app: dash.Dash, service: LineageService) -> None:
    """The callbacks that draw the page from the URL and the logs, and save edits."""
    dashboard_path = _dashboard_path(app)
    app.callback(
        *_RENDER_OUTPUTS,
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("lineage-saved", "data"),
        State("lineage-signature", "data"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(render, service, dashboard_path))
    app.callback(
        *_OVERVIEW_OUTPUTS,
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(overview, service))
    app.callback(
        Output("lineage-grid", "exportDataAsCsv"),
        Input("lineage-export", "n_clicks"),
        prevent_initial_call=True,
    )(export)
    app.callback(
        Output("lineage-status", "children"),
        Output("lineage-saved", "data"),
        Input("lineage-grid", "cellValueChanged"),
        State("lineage-saved", "data"),
        prevent_initial_call=True,
    )(functools.partial(save_edit, service))


def _bind_archive(app: dash.Dash, service: LineageService) -> None:
    """Archive and restore the ticked runs; the switch showing archived runs."""
    app.callback(
        Output("lineage-status", "children", allow_duplicate=True),
        Output("lineage-saved", "data", allow_duplicate=True),
        Input("lineage-archive", "n_clicks"),
        Input("lineage-unarchive", "n_clicks"),
        State("lineage-grid", "selectedRows"),
        State("lineage-saved", "data"),
        prevent_initial_call=True,
    )(triggered(functools.partial(archive_selected, service), clicked=True))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-show-archived", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(show_archived_to_url)


def _bind_compare_links(app: dash.Dash, service: LineageService) -> None:
    """The links to the scalar comparison of the ticked or the filtered jobs."""
    app.callback(
        *_COMPARE_OUTPUTS,
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("lineage-grid", "selectedRows"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(compare_links, service, app.get_relative_path(COMPARE_PATH)))


def _bind_url_writers(app: dash.Dash, service: LineageService) -> None:
    """The callbacks that write the user's choices into the URL."""
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-columns", "value"),
        Input("lineage-color", "value"),
        Input("lineage-objective", "value"),
        Input("lineage-param", "value"),
        State("lineage-auto-colour", "data"),
        State("lineage-auto-overview", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(controls_to_url, service)))
    app.callback(
        Output("lineage-columns", "value", allow_duplicate=True),
        Input("lineage-columns-all", "n_clicks"),
        Input("lineage-columns-none", "n_clicks"),
        State("lineage-columns", "options"),
        prevent_initial_call=True,
    )(triggered(all_or_no_columns))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-brush", "data"),
        State("lineage-axes", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(brush_to_url)
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-sort", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(sort_to_url)
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-show-selected", "n_clicks"),
        Input("lineage-hide-selected", "n_clicks"),
        Input("lineage-show-all", "n_clicks"),
        State("lineage-grid", "selectedRows"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(selection_to_url))


def _register_clientside(app: dash.Dash) -> None:
    app.clientside_callback(  # assets/lineage-grid.js: rows once the grid is set up
        ClientsideFunction(namespace="lineageGrid", function_name="table"),
        Output("lineage-grid", "rowData"),
        Output("lineage-grid", "columnDefs"),
        Input("lineage-table", "data"),
    )
    app.clientside_callback(  # the grid's column state when its sort changed
        ClientsideFunction(namespace="lineageGrid", function_name="sortChange"),
        Output("lineage-sort", "data"),
        Input("lineage-grid", "columnState"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(namespace="lineageChart", function_name="draw"),
        Output("lineage-chart-drawn", "data"),
        Input("lineage-chart-spec", "data"),
    )
    app.clientside_callback(
        ClientsideFunction(namespace="lineageChart", function_name="save"),
        Output("lineage-save-chart", "title"),
        Input("lineage-save-chart", "n_clicks"),
        prevent_initial_call=True,
    )
