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

import json
from typing import Any

import dash
import dash_ag_grid as dag
from dash import ClientsideFunction, Input, Output, State, ctx, dcc, html
from dash.exceptions import PreventUpdate

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.plugins.lineage import query as lineage_data
from dash_insight.plugins.lineage import views
from dash_insight.plugins.lineage.remarks import RemarkError
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.web.components.grid_text import grid_locale_text
from dash_insight.web.components.lazy_graph import (
    lazy_figure,
    lazy_figure_id,
    lazy_graph,
    register_lazy_graphs,
)
from dash_insight.web.url_state import make_search, parse_search, same_search

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


#: The overview's charts are lazy graphs (web.components.lazy_graph): assets/graph-slots.js
#: draws them one per main-thread task, so the page answers between two of them.
_OVERVIEW_CONFIG = {"displayModeBar": False}


def _overview() -> html.Aside:
    return html.Aside(
        id="lineage-overview",
        className="di-panel di-lineage-overview",
        children=[
            html.H2(_("Optimization objective"), className="di-lineage-h"),
            dcc.Dropdown(id="lineage-objective", clearable=False, placeholder=_("No metric yet")),
            html.Div(id="lineage-overview-note", className="di-muted di-lineage-note"),
            html.H3(_("Objective distribution"), className="di-lineage-h3"),
            lazy_graph(
                "lineage-distribution",
                "lineage-distribution",
                None,
                _OVERVIEW_CONFIG,
                "di-lineage-distribution",
            ),
            html.H3(
                _("Parameter importance"),
                className="di-lineage-h3",
                title=_(
                    "|Pearson r| is MindInsight's importance (linear effects); |Spearman ρ| "
                    "also catches monotonic ones. Computed over the jobs in the table."
                ),
            ),
            lazy_graph(
                "lineage-importance",
                "lineage-importance",
                None,
                _OVERVIEW_CONFIG,
                "di-lineage-importance",
            ),
            html.H3(_("Parameter and objective"), className="di-lineage-h3"),
            dcc.Dropdown(
                id="lineage-param", clearable=False, placeholder=_("No numeric parameter")
            ),
            lazy_graph(
                "lineage-scatter", "lineage-scatter", None, _OVERVIEW_CONFIG, "di-lineage-scatter"
            ),
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


def layout(app: dash.Dash, service: LineageService, params: dict[str, str]) -> html.Div:
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
            html.Div(
                className="di-lineage-body",
                children=[
                    _overview(),
                    html.Section(
                        className="di-panel di-lineage-main",
                        children=[
                            html.Div(
                                className="di-toolbar di-lineage-toolbar",
                                children=[
                                    html.Details(
                                        className="di-lineage-columns",
                                        children=[
                                            html.Summary(
                                                id="lineage-columns-summary", children=_("Columns")
                                            ),
                                            html.Div(
                                                className="di-lineage-columns-body",
                                                children=[
                                                    html.Div(
                                                        className="di-lineage-columns-actions",
                                                        children=[
                                                            html.Button(
                                                                _("All"),
                                                                id="lineage-columns-all",
                                                                className="di-link-button",
                                                            ),
                                                            html.Button(
                                                                _("None"),
                                                                id="lineage-columns-none",
                                                                className="di-link-button",
                                                            ),
                                                        ],
                                                    ),
                                                    dcc.Checklist(
                                                        id="lineage-columns",
                                                        options=[],
                                                        value=[],
                                                        className="di-lineage-checklist",
                                                    ),
                                                ],
                                            ),
                                        ],
                                    ),
                                    html.Label(
                                        className="di-lineage-colour",
                                        children=[
                                            _("Colour by"),
                                            dcc.Dropdown(
                                                id="lineage-color",
                                                clearable=False,
                                                placeholder="—",
                                                style={"width": "200px"},
                                            ),
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
                            ),
                            # Drawn in SVG by assets/lineage-chart.js from the lineage-chart-spec
                            # store
                            # (views.parallel_chart); a drag on an axis writes lineage-brush.
                            html.Div(id="lineage-chart", className="di-lineage-chart"),
                            html.Div(
                                className="di-toolbar di-lineage-actions",
                                children=[
                                    html.Button(
                                        _("Show selected"),
                                        id="lineage-show-selected",
                                        className="di-button secondary",
                                        title=_("Keep only the ticked rows"),
                                    ),
                                    html.Button(
                                        _("Hide selected"),
                                        id="lineage-hide-selected",
                                        className="di-button secondary",
                                        title=_("Remove the ticked rows from chart and table"),
                                    ),
                                    html.Button(
                                        _("Show all"),
                                        id="lineage-show-all",
                                        className="di-button",
                                        title=_(
                                            "Clear brushes, hidden rows and the selection filter"
                                        ),
                                    ),
                                    html.Button(
                                        _("Export CSV"),
                                        id="lineage-export",
                                        className="di-button secondary",
                                        title=_("Download the table's rows (after filters) as CSV"),
                                    ),
                                    html.Button(
                                        _("Save chart"),
                                        id="lineage-save-chart",
                                        className="di-button secondary",
                                        title=_("Download the chart as it is drawn (SVG)"),
                                    ),
                                    html.Span(id="lineage-count", className="di-muted"),
                                    html.Span(
                                        id="lineage-status", className="di-muted", role="status"
                                    ),
                                ],
                            ),
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
                    ),
                ],
            ),
            dcc.Store(id="lineage-axes"),
            dcc.Store(id="lineage-table"),
            dcc.Store(id="lineage-chart-spec"),
            dcc.Store(id="lineage-chart-drawn"),
            dcc.Store(id="lineage-brush"),
            dcc.Store(id="lineage-signature"),
            dcc.Store(id="lineage-saved", data=0),
            dcc.Store(id="lineage-auto-colour"),
            dcc.Store(id="lineage-auto-overview", data={}),
        ],
    )


def _search_with(search: str | None, **changes: Any) -> str:
    state, _unused = views.parse_state(parse_search(search))
    for key, value in changes.items():
        setattr(state, key, value)
    return views.state_search(state)


def _changed(search: str | None, new_search: str) -> Any:
    return dash.no_update if same_search(new_search, search) else new_search


def register(app: dash.Dash, service: LineageService) -> None:
    provider = service.provider

    def dashboard_href(train_id: str) -> str:
        return app.get_relative_path("/dashboard") + make_search({"train_id": train_id})

    def chart(name: str, figure: Any) -> dict[str, Any] | None:
        """An overview chart's figure for its lazy graph, as high as the figure says."""
        height = figure.layout.height
        return lazy_figure(
            f"lineage-{name}",
            figure,
            _OVERVIEW_CONFIG,
            f"di-lineage-{name}",
            {"height": f"{height}px"} if height else None,
        )

    def tab_data(tab: str) -> views.TabData:
        return views.tab_data(tab, service.lineages())

    @app.callback(
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
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("lineage-saved", "data"),
        State("lineage-signature", "data"),
    )
    def render(
        search: str | None, _ticks: Any, _clicks: Any, _saved: Any, previous: dict | None
    ) -> tuple:
        """Chart, table and controls from the URL and the logs; nothing is sent when neither
        changed since the last answer (auto refresh)."""
        state, problems = views.parse_state(parse_search(search))
        entries = service.lineages()
        added = service.remarks.all()
        previous = previous if isinstance(previous, dict) else {}
        signature = json.dumps(
            [search or "", [(e.train_id, e.update_time, id(e.row)) for e in entries], added],
            default=str,
        )
        if signature == previous.get("signature"):
            raise PreventUpdate
        data = views.tab_data(state.tab, entries)
        columns = views.chosen_columns(data, state)
        colour = views.colour_column(data, state)
        visible = views.visible_rows(data, state)
        rows = views.table_rows(data, state)
        in_table = {r["train_id"] for r in rows}
        spec, axes = views.parallel_chart(
            visible,
            columns,
            colour,
            state.filters,
            data.labels,
            [r["train_id"] in in_table for r in visible],
        )
        unknown = [c for c in (state.columns or []) if data.column(c) is None]
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
                if provider.ready
                else _("Looking for training jobs…")
            )
        count = ngettext(
            "{shown} of {count} job", "{shown} of {count} jobs", len(data.rows)
        ).format(shown=len(rows), count=len(data.rows))
        if len(visible) < len(data.rows):
            count += " · " + _("{count} hidden").format(count=len(data.rows) - len(visible))
        options = [
            {"label": c.label, "value": c.id, "title": c.hint or c.label} for c in data.columns
        ]
        summary = (
            _("Columns ({shown} of {count})").format(shown=len(columns), count=len(data.columns))
            + " ▾"
        )
        colour_options = [{"label": c.label, "value": c.id} for c in data.colour_columns]
        is_model = state.tab == "model"
        # Column definitions are sent only when the columns change: re-sending them would
        # re-apply the URL's sort over a newer click in the grid (the grid owns its sort and
        # reports it to the URL; a link's sort applies when the page is built).
        defs_key = json.dumps([state.tab, [c.id for c in columns]])
        defs = (
            dash.no_update
            if defs_key == previous.get("defs")
            else views.grid_column_defs(columns, state.sort)
        )
        # The grid gets them from lineage-table one task later (lineageGrid.table).
        table = {
            "rows": views.grid_row_data(rows, columns, added, dashboard_href),
            "defs": None if defs is dash.no_update else defs,
        }
        return (
            spec,
            [a.to_dict() for a in axes],
            table,
            options,
            [c.id for c in columns],
            summary,
            colour_options,
            colour.id if colour else None,
            count,
            "; ".join(problems),
            None if is_model else {"display": "none"},
            "active" if is_model else "",
            "" if is_model else "active",
            {"signature": signature, "defs": defs_key},
            colour.id if colour else None,
        )

    @app.callback(
        Output("lineage-objective", "options"),
        Output("lineage-objective", "value"),
        Output(lazy_figure_id("lineage-distribution"), "data"),
        Output(lazy_figure_id("lineage-importance"), "data"),
        Output("lineage-param", "options"),
        Output("lineage-param", "value"),
        Output(lazy_figure_id("lineage-scatter"), "data"),
        Output("lineage-overview-note", "children"),
        Output("lineage-auto-overview", "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
    )
    def overview(search: str | None, _ticks: Any, _clicks: Any) -> tuple:
        state, _unused = views.parse_state(parse_search(search))
        if state.tab != "model":
            raise PreventUpdate
        entries = service.lineages()
        data = views.model_tab(entries)
        shown = {r["train_id"] for r in views.table_rows(data, state)}
        objects = [
            o
            for o in lineage_data.search_lineages(entries, {})["object"]
            if o["summary_dir"] in shown
        ]
        table = lineage_data.LineageTable.from_objects(objects)
        targets = table.target_names
        empty = views.scatter_figure([], [], [], "", "")
        if not targets:
            note = _("No metric or loss in the jobs shown.") if entries else ""
            return (
                [],
                None,
                chart("distribution", empty),
                chart("importance", empty),
                [],
                None,
                chart("scatter", empty),
                note,
                dash.no_update,
            )
        target = state.objective if state.objective in targets else targets[0]
        result = lineage_data.optimizer_targets(objects)
        summary = next(t for t in result["targets"] if t["name"] == target)
        importance = views.importance_rows(table, target)
        params = [p["name"] for p in importance]
        param = state.param if state.param in params else (params[0] if params else None)
        scatter = empty
        if param:
            scatter = views.scatter_figure(
                table.train_ids, table.values(param), table.values(target), param, target
            )
        note = ngettext(
            "Over the {count} job in the table.",
            "Over the {count} jobs in the table.",
            len(objects),
        ).format(count=len(objects))
        return (
            [{"label": t, "value": t} for t in targets],
            target,
            chart("distribution", views.distribution_figure(summary)),
            chart(
                "importance",
                views.importance_figure(
                    importance, message=views.importance_message(importance, len(objects))
                ),
            ),
            [{"label": p, "value": p} for p in params],
            param,
            chart("scatter", scatter),
            note,
            {"objective": target, "param": param},
        )

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-columns", "value"),
        Input("lineage-color", "value"),
        Input("lineage-objective", "value"),
        Input("lineage-param", "value"),
        State("lineage-auto-colour", "data"),
        State("lineage-auto-overview", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def controls_to_url(
        columns: list[str] | None,
        colour: str | None,
        objective: str | None,
        param: str | None,
        auto_colour: str | None,
        auto: dict | None,
        search: str | None,
    ) -> Any:
        """Write a control's change into the URL. The page sets the controls itself too (to
        the URL's values or its defaults); a value equal to what the page chose changes
        nothing, so defaults stay out of the URL."""
        state, _unused = views.parse_state(parse_search(search))
        auto = auto or {}
        trigger = ctx.triggered_id
        if trigger == "lineage-columns" and columns is not None:
            current = [c.id for c in views.chosen_columns(tab_data(state.tab), state)]
            if list(columns) != current:
                state.columns = list(columns)
        elif trigger == "lineage-color" and colour and colour != auto_colour:
            state.color = colour
        elif trigger == "lineage-objective" and objective and objective != auto.get("objective"):
            state.objective = objective
        elif trigger == "lineage-param" and param and param != auto.get("param"):
            state.param = param
        return _changed(search, views.state_search(state))

    @app.callback(
        Output("lineage-columns", "value", allow_duplicate=True),
        Input("lineage-columns-all", "n_clicks"),
        Input("lineage-columns-none", "n_clicks"),
        State("lineage-columns", "options"),
        prevent_initial_call=True,
    )
    def all_or_no_columns(_all: Any, _none: Any, options: list[dict] | None) -> list[str]:
        if ctx.triggered_id == "lineage-columns-all":
            return [o["value"] for o in options or []]
        return []

    register_lazy_graphs(app)
    app.clientside_callback(  # assets/lineage-grid.js: rows once the grid is set up
        ClientsideFunction(namespace="lineageGrid", function_name="table"),
        Output("lineage-grid", "rowData"),
        Output("lineage-grid", "columnDefs"),
        Input("lineage-table", "data"),
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

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-brush", "data"),
        State("lineage-axes", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def brush_to_url(brush: Any, axes: list[dict] | None, search: str | None) -> Any:
        """A brush dragged on an axis (or cleared by a click on it) becomes a URL filter; the
        table and the chart follow the URL."""
        event = views.brush_from_event(brush)
        if event is None or not axes:
            raise PreventUpdate
        index, axis_id, fractions = event
        if index >= len(axes) or axes[index].get("id") != axis_id:
            raise PreventUpdate  # the chart changed under the drag
        state, _unused = views.parse_state(parse_search(search))
        filters = dict(state.filters)
        if fractions is None:
            filters.pop(axis_id, None)
        else:
            filters[axis_id] = views.filter_from_fractions(
                views.Axis.from_dict(axes[index]), fractions
            )
        state.filters = filters
        return _changed(search, views.state_search(state))

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-grid", "columnState"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def sort_to_url(column_state: list[dict] | None, search: str | None) -> Any:
        if column_state is None:
            raise PreventUpdate
        return _changed(
            search, _search_with(search, sort=views.sort_from_column_state(column_state))
        )

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("lineage-show-selected", "n_clicks"),
        Input("lineage-hide-selected", "n_clicks"),
        Input("lineage-show-all", "n_clicks"),
        State("lineage-grid", "selectedRows"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def selection_to_url(
        _show: Any, _hide: Any, _all: Any, selected: list[dict] | None, search: str | None
    ) -> Any:
        state, _unused = views.parse_state(parse_search(search))
        ids = [r["train_id"] for r in selected or [] if "train_id" in r]
        trigger = ctx.triggered_id
        if trigger == "lineage-show-all":
            state.show, state.hide, state.filters = None, [], {}
        elif not ids:
            raise PreventUpdate
        elif trigger == "lineage-show-selected":
            state.show, state.hide = ids, []
        elif trigger == "lineage-hide-selected":
            state.hide = list(dict.fromkeys([*state.hide, *ids]))
        return _changed(search, views.state_search(state))

    @app.callback(
        Output("lineage-grid", "exportDataAsCsv"),
        Input("lineage-export", "n_clicks"),
        prevent_initial_call=True,
    )
    def export(_clicks: Any) -> bool:
        return True

    @app.callback(
        Output("lineage-status", "children"),
        Output("lineage-saved", "data"),
        Input("lineage-grid", "cellValueChanged"),
        State("lineage-saved", "data"),
        prevent_initial_call=True,
    )
    def save_edit(changes: list[dict] | None, saved: int | None) -> tuple[str, int]:
        """Persist an edited remark or tag (the store PUT /lineagemgr/lineages uses)."""
        messages = []
        store = service.remarks
        listed: set[str] | None = None
        for change in changes if isinstance(changes, list) else []:
            if not isinstance(change, dict):
                continue
            column = change.get("colId")
            data = change.get("data")
            train_id = data.get("train_id") if isinstance(data, dict) else None
            if column not in ("remark", "tag") or not isinstance(train_id, str) or not train_id:
                continue
            if listed is None:  # as the REST PUT: only jobs with lineage get a remark
                listed = {entry.train_id for entry in service.lineages()}
            if train_id not in listed:
                messages.append(
                    _("{job}: no lineage of this train job; nothing saved.").format(job=train_id)
                )
                continue
            # dash-ag-grid sends the new value as "value" (its docs say "newValue").
            value = change.get("value", change.get("newValue"))
            if column == "tag":
                try:
                    value = int(value or 0)
                except (TypeError, ValueError):
                    value = -1
            elif value is None:
                value = ""
            try:
                store.update(train_id, {column: value})
            except RemarkError as error:
                messages.append(f"{train_id}: {error}")
            else:
                messages.append(
                    (
                        _("Saved the remark of {job}.")
                        if column == "remark"
                        else _("Saved the tag of {job}.")
                    ).format(job=train_id)
                )
        count = saved if isinstance(saved, int) and not isinstance(saved, bool) else 0
        return " ".join(messages), count + 1
