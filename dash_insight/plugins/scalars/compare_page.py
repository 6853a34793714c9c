"""Comparison dashboard: scalars of several jobs, one chart per tag, one colour per job (the
same on every chart and page, see :mod:`~dash_insight.web.components.run_colours`; the user can
pick it).

URL: ``/compare?jobs=[...]&job_filter=re&tags=[...]&filter=re&axis=step&smoothing=0.6&page=1
&hidden=[...]&x_tag=epoch``. A hidden run (the eye in the job list) stays selected but leaves
every chart, the colour choices and the downloads of the page, until its eye is opened again.
"Download CSV / JSON" saves the raw points (not smoothed) of the charts the selection and the
filters show, on every page of the grid, without the hidden runs.

Any job can be compared (MindInsight: only the 15 cached ones, 5 at a time); past
:data:`WARN_JOBS` selected jobs the page warns that charts get crowded. Without ``jobs`` the
5 most recently updated jobs are selected (as MindInsight preselects 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dash
from dash import Input, Output, State, ctx, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.plugins.scalars.charts import (
    AXIS,
    BEST_FLIP,
    LOG_X,
    SMOOTHING,
    X_TAG,
    ChartSpec,
    SeriesSpec,
    chart_card,
    chart_ids,
    chart_plan,
    chart_stores,
    controls,
    register_chart_callbacks,
)
from dash_insight.plugins.scalars.export import Found, csv_rows, json_pieces
from dash_insight.web.clicks import drawn_not_clicked, picker_button_drawn
from dash_insight.web.components import compare_runs
from dash_insight.web.components.compare_tabs import compare_head
from dash_insight.web.components.run_colours import (
    PALETTE,
    STORE_ID,
    run_colours,
    run_dot,
    set_colour,
)
from dash_insight.web.components.tag_select import (
    checked_names,
    echoed,
    filter_tags,
    page_of,
    pager,
    pick,
    picker,
    picker_action,
    picker_inputs,
    register_picker,
    visible_tags,
)
from dash_insight.web.url_state import (
    MAX_PAGE,
    Int,
    Tags,
    Text,
    UrlState,
    parse_search,
    same_search,
)

IDS = chart_ids("compare")  # this page's axis, smoothing, data and thresholds components
PATH = "/compare"
CHARTS_PER_PAGE = 12
DEFAULT_JOBS = 5
WARN_JOBS = 20
#: ``jobs`` absent = the :data:`DEFAULT_JOBS` newest; ``tags`` absent = all of theirs;
#: ``hidden`` = the runs whose eye is closed (absent = none).
STATE = UrlState(
    Tags("jobs"),
    Text("job_filter"),
    Tags("tags"),
    Text("filter"),
    AXIS,
    SMOOTHING,
    Int("page", 1, 1, MAX_PAGE),
    Tags("hidden"),
    X_TAG,
    BEST_FLIP,
    LOG_X,
)


def scalar_jobs(provider: DataProvider) -> tuple[list[str], dict[str, list[str]]]:
    """Jobs with scalar data (newest first) and their scalar tags."""
    jobs = [job for job in provider.list_jobs() if job.tags.get("scalar")]
    return [job.train_id for job in jobs], {job.train_id: job.tags["scalar"] for job in jobs}


def union_tags(selected: list[str], tags_of: dict[str, list[str]]) -> list[str]:
    """The union of the selected jobs' tags, in first-seen order."""
    seen: dict[str, None] = {}
    for train_id in selected:
        for tag in tags_of.get(train_id, []):
            seen.setdefault(tag)
    return list(seen)


def page_state(
    params: dict[str, str], jobs: list[str], tags_of: dict[str, list[str]]
) -> dict[str, Any]:
    """:data:`STATE` of the URL with ``jobs`` and ``tags`` resolved (the selected jobs in
    ``jobs`` order, the selected tags among ``all_tags``, the union of theirs), whether the URL
    named them (``explicit_jobs``, ``explicit_tags``), and what is drawn: ``shown_jobs`` and
    ``shown_tags``, the selected ones that match their filter (the filters decide the charts
    and their lines, as TensorBoard's run and tag filters), less the ``hidden`` runs (known
    jobs whose eye is closed, in ``jobs`` order) and the tags only hidden runs have."""
    state = STATE.parse(params)
    chosen, chosen_tags = state["jobs"], state["tags"]
    selected_jobs = jobs[:DEFAULT_JOBS] if chosen is None else [j for j in jobs if j in chosen]
    all_tags = union_tags(selected_jobs, tags_of)
    tags = all_tags if chosen_tags is None else [t for t in all_tags if t in chosen_tags]
    closed = set(state["hidden"] or ())
    hidden = [j for j in jobs if j in closed]
    shown_jobs = [
        j for j in visible_tags(jobs, selected_jobs, state["job_filter"]) if j not in closed
    ]
    drawn_tags = set(union_tags(shown_jobs, tags_of))
    if state["x_tag"] not in all_tags:
        state["x_tag"] = ""  # no selected job has it: the step or time axis
    return {
        **state,
        "jobs": selected_jobs,
        "all_tags": all_tags,
        "tags": tags,
        "explicit_jobs": chosen is not None,
        "explicit_tags": chosen_tags is not None,
        "hidden": hidden,
        "shown_jobs": shown_jobs,
        "shown_tags": [t for t in visible_tags(all_tags, tags, state["filter"]) if t in drawn_tags],
    }


def eye_search(search: str | None, jobs: list[str], report: Any) -> str | None:
    """The URL after a click on a run's eye: the comparison pages' own
    (:func:`~dash_insight.web.components.compare_runs.eye_search`) over this page's
    :data:`STATE`."""
    return compare_runs.eye_search(search, jobs, report, STATE)


def controls_search(
    state: dict[str, Any],
    jobs: list[str],
    tags_of: dict[str, list[str]],
    trigger: Any,
    checked_jobs: list[str] | None,
    job_pattern: str | None,
    checked_tags: list[str] | None,
    tag_pattern: str | None,
    axis: str | None,
    smoothing: float | None,
    x_tag: str | None = None,
) -> str:
    """The URL after the control ``trigger`` changed (the other arguments are the controls'
    values). Names hidden by a filter keep their selection; ``jobs`` is written once the user
    changed the default selection, ``tags`` when not every tag of the selected jobs."""
    matching_jobs, _unused = filter_tags(jobs, job_pattern or "")
    selected_jobs = pick(
        jobs, state["jobs"], checked_jobs, matching_jobs, picker_action(trigger, "compare-jobs")
    )
    all_tags = union_tags(selected_jobs, tags_of)
    matching_tags, _unused = filter_tags(all_tags, tag_pattern or "")
    tags = [t for t in all_tags if t in state["tags"] or not state["explicit_tags"]]
    tags = pick(all_tags, tags, checked_tags, matching_tags, picker_action(trigger, "compare-tags"))
    page = state["page"]
    if trigger == "compare-prev":
        page = max(1, page - 1)
    elif trigger == "compare-next":
        page += 1
    elif (
        selected_jobs != state["jobs"]
        or tags != state["tags"]
        or (job_pattern or "") != state["job_filter"]
        or (tag_pattern or "") != state["filter"]
    ):
        page = 1  # what is drawn changed: back to its first page
    explicit = selected_jobs != jobs[:DEFAULT_JOBS] or state["explicit_jobs"]
    return STATE.search(
        {
            "jobs": selected_jobs if explicit else None,
            "job_filter": job_pattern or "",
            "tags": None if tags == all_tags else tags,
            "filter": tag_pattern or "",
            "axis": AXIS.from_control(axis),
            "smoothing": SMOOTHING.from_control(smoothing),
            "page": page,
            "hidden": state["hidden"] or None,
            "x_tag": x_tag if x_tag in all_tags else "",
            "best_flip": state["best_flip"],
            "log_x": state["log_x"],
        }
    )


def crowd_warning(jobs: int, shown: int) -> str:
    """The warning beside the job picker: no job at all, or too many lines per chart."""
    if not jobs:
        return _("No job with scalar data yet.")
    if shown > WARN_JOBS:
        return "⚠ " + _(
            "{shown} jobs drawn: charts with more than {most} lines are hard to read"
        ).format(shown=shown, most=WARN_JOBS)
    return ""


def chart_specs(
    state: dict[str, Any], tags_of: dict[str, list[str]], colours: Mapping[str, str] | None = None
) -> tuple[list[ChartSpec], int]:
    """The charts of the current page: one per tag shown, one line per shown job that has the
    tag, in the job's colour (``colours``: train_id -> colour, the same on every chart); the
    legend always names the jobs (also a chart of one job)."""
    on_page, _unused, pages = page_of(state["shown_tags"], state["page"], CHARTS_PER_PAGE)
    charts = []
    for tag in on_page:
        series = tuple(
            SeriesSpec(job, tag, job, colour=(colours or {}).get(job))
            for job in state["shown_jobs"]
            if tag in tags_of.get(job, [])
        )
        charts.append(ChartSpec(f"compare|{tag}", tag, series, legend=True))
    return charts, pages


def downloads(
    provider: DataProvider, state: dict[str, Any], tags_of: dict[str, list[str]]
) -> list[Found]:
    """What "Download" saves: for each tag the page shows (every page of the grid), the raw
    points of each drawn run that has it (hidden runs and runs the job filter hides left out),
    in chart order then run order; a series that cannot be read any more is left out."""
    found: list[Found] = []
    for tag in state["shown_tags"]:
        for job in state["shown_jobs"]:
            if tag not in tags_of.get(job, []):
                continue
            try:
                found.append((job, tag, provider.read_scalars(job, tag)))
            except DataError:
                continue
    return found


def download_file(found: list[Found], fmt: str) -> dict[str, Any]:
    """The ``dcc.Download`` data of the points ``found`` as ``csv`` or ``json``
    (:mod:`~dash_insight.plugins.scalars.export`, the REST download's format)."""
    if fmt == "json":
        return {
            "content": b"".join(json_pieces(found)).decode(),
            "filename": "scalars_comparison.json",
            "type": "application/json",
        }
    return {
        "content": "".join(csv_rows(found)),
        "filename": "scalars_comparison.csv",
        "type": "text/csv",
    }


def eye_colours(
    provider: DataProvider, jobs: list[str], overrides: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """The colour of each of ``jobs``: the colour of its lines (by its place among every job,
    not only scalar ones, so that a run has the same colour on the loss landscape comparison;
    ``overrides``: the user's colours), also that of its eye in the job list, which is thus
    the charts' legend, as TensorBoard's runs list."""
    return run_colours(jobs, [job.train_id for job in provider.list_jobs()], overrides)


def colour_row() -> html.Div:
    """Pick a run's colour: the run (one of those drawn), a palette swatch, or its default."""
    return html.Div(
        className="di-toolbar di-run-colours",
        children=[
            html.Span(_("Run colour"), className="di-control-label"),
            dcc.Dropdown(
                id="compare-colour-run",
                placeholder=_("run"),
                className="di-compose",
                clearable=False,
            ),
            *(
                html.Button(
                    id={"type": "run-swatch", "colour": colour},
                    className="di-swatch",
                    style={"background": colour},
                    title=_("Draw the run in {colour}").format(colour=colour),
                )
                for colour in PALETTE
            ),
            html.Button(
                _("Default"),
                id="compare-colour-reset",
                className="di-chip",
                title=_("Back to the run's own colour"),
            ),
        ],
    )


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    jobs, tags_of = scalar_jobs(service.provider)
    state = page_state(params, jobs, tags_of)
    return html.Div(
        [
            *compare_head(
                app,
                PATH,
                params,
                _("Scalar Comparison"),
                _("scalars of several training jobs in one chart per tag"),
                html.Button(
                    _("Download CSV"),
                    id="compare-download-csv",
                    className="di-button secondary",
                    title=_("The raw points of the charts shown, without hidden runs"),
                ),
                html.Button(
                    _("Download JSON"),
                    id="compare-download-json",
                    className="di-button secondary",
                    title=_("The raw points of the charts shown, without hidden runs"),
                ),
                dcc.Download(id="compare-download"),
            ),
            html.Div(
                className="di-compare-body",
                children=[
                    html.Aside(
                        className="di-panel di-compare-side",
                        id="compare-side",
                        children=[
                            picker(
                                "compare-jobs",
                                _("Job Selection"),
                                jobs,
                                state["jobs"],
                                state["job_filter"],
                                noun="job",
                                extra=[html.Span(id="compare-warning", className="di-warning")],
                                hidden=state["hidden"],
                                colours=eye_colours(service.provider, jobs),
                            ),
                            picker(
                                "compare-tags",
                                _("Tag Selection"),
                                state["all_tags"],
                                state["tags"],
                                state["filter"],
                            ),
                            colour_row(),
                        ],
                    ),
                    html.Div(
                        className="di-compare-main",
                        children=[
                            html.Div(
                                className="di-panel",
                                children=controls(
                                    "compare",
                                    state["axis"],
                                    state["smoothing"],
                                    state["all_tags"],
                                    state["x_tag"],
                                ),
                            ),
                            *chart_stores("compare"),
                            html.Div(id="compare-grid", className="di-chart-grid"),
                            pager("compare"),
                        ],
                    ),
                ],
            ),
        ]
    )


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider

    def current(search: str | None) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
        jobs, tags_of = scalar_jobs(provider)
        return page_state(parse_search(search), jobs, tags_of), jobs, tags_of

    def colours_of(shown: list[str]) -> dict[str, str]:
        """The shown jobs' default colours: by place among every job, not only scalar ones,
        so that a run has the same colour on the loss landscape comparison."""
        return eye_colours(provider, shown)

    def picked_jobs(search: str | None) -> tuple[list[str], list[str], str]:
        state, jobs, _unused = current(search)
        return jobs, state["jobs"], state["job_filter"]

    def picked_tags(search: str | None) -> tuple[list[str], list[str], str]:
        state, _jobs, _tags = current(search)
        return state["all_tags"], state["tags"], state["filter"]

    def hidden_jobs(search: str | None) -> list[str]:
        state, _jobs, _tags = current(search)
        return state["hidden"]

    def job_colours(_search: str | None, overrides: Any) -> dict[str, str]:
        jobs, _tags = scalar_jobs(provider)
        return eye_colours(provider, jobs, overrides if isinstance(overrides, Mapping) else None)

    register_picker(
        app,
        "compare-jobs",
        picked_jobs,
        noun="job",
        read_hidden=hidden_jobs,
        read_colours=job_colours,
    )
    register_picker(app, "compare-tags", picked_tags)

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        *picker_inputs("compare-jobs"),
        *picker_inputs("compare-tags"),
        Input(IDS["axis"], "value"),
        Input(IDS["smoothing"], "value"),
        Input("compare-prev", "n_clicks"),
        Input("compare-next", "n_clicks"),
        Input(IDS["xtag"], "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def controls_to_url(
        job_rows: Any,
        _a: Any,
        _b: Any,
        job_pattern: str | None,
        tag_rows: Any,
        _c: Any,
        _d: Any,
        tag_pattern: str | None,
        axis: str,
        smoothing: float | None,
        _prev: Any,
        _next: Any,
        x_tag: str | None,
        search: str | None,
    ) -> Any:
        trigger = ctx.triggered_id
        if picker_button_drawn():
            return dash.no_update
        state, jobs, tags_of = current(search)
        if echoed(
            trigger,
            "compare-jobs",
            checked_names(job_rows),
            jobs,
            state["jobs"],
            state["job_filter"],
        ) or echoed(
            trigger,
            "compare-tags",
            checked_names(tag_rows),
            state["all_tags"],
            state["tags"],
            state["filter"],
        ):
            return dash.no_update
        new = controls_search(
            state,
            jobs,
            tags_of,
            trigger,
            checked_names(job_rows),
            job_pattern,
            checked_names(tag_rows),
            tag_pattern,
            axis,
            smoothing,
            x_tag,
        )
        return dash.no_update if same_search(new, search) else new

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("compare-jobs", "cellRendererData"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def eye_clicked(report: Any, search: str | None) -> Any:
        """A run's eye closed or opened: the URL's ``hidden`` says so."""
        jobs, _tags = scalar_jobs(provider)
        new = eye_search(search, jobs, report)
        return dash.no_update if new is None or same_search(new, search) else new

    @app.callback(
        Output("compare-download", "data"),
        Input("compare-download-csv", "n_clicks"),
        Input("compare-download-json", "n_clicks"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def download(_csv: Any, _json: Any, search: str | None) -> Any:
        if drawn_not_clicked():
            return dash.no_update
        state, _jobs, tags_of = current(search)
        fmt = "json" if ctx.triggered_id == "compare-download-json" else "csv"
        return download_file(downloads(provider, state, tags_of), fmt)

    @app.callback(
        Output("compare-warning", "children"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
    )
    def warning(search: str | None, _ticks: Any, _clicks: Any) -> str:
        state, jobs, _unused = current(search)
        return crowd_warning(len(jobs), len(state["shown_jobs"]))

    @app.callback(
        Output("compare-grid", "children"),
        Output("compare-total", "children"),
        Output("compare-page", "children"),
        Output(IDS["data"], "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        State({"type": "graph-slot", "chart": dash.ALL}, "id"),
        State(IDS["data"], "data"),
    )
    def grid(
        search: str | None, _ticks: Any, _clicks: Any, shown: list[dict], drawn: dict | None
    ) -> tuple:
        state, _unused, tags_of = current(search)
        charts, pages = chart_specs(state, tags_of, colours_of(state["shown_jobs"]))
        total = _("{shown} of {count} tags, {jobs} jobs").format(
            shown=len(state["shown_tags"]),
            count=len(state["all_tags"]),
            jobs=len(state["shown_jobs"]),
        )
        if state["hidden"]:
            total += _(", {hidden} hidden").format(hidden=len(state["hidden"]))
        page = f"{min(state['page'], pages)} / {pages}"
        payload: Any = chart_plan(provider, charts, state["x_tag"])
        if drawn and drawn.get("stamp") == payload["stamp"]:
            payload = dash.no_update  # nothing new since the charts were planned
        if [c.chart_id for c in charts] == [s["chart"] for s in shown]:
            return dash.no_update, total, page, payload
        if not charts:
            return (
                html.Div(
                    _("Select jobs and tags in the selection panel."), className="di-panel di-empty"
                ),
                total,
                page,
                payload,
            )
        flipped, log_x = set(state["best_flip"] or ()), set(state["log_x"] or ())
        return (
            [
                chart_card(
                    chart,
                    with_thresholds=False,
                    flipped=chart.chart_id in flipped,
                    log_x=chart.chart_id in log_x,
                )
                for chart in charts
            ],
            total,
            page,
            payload,
        )

    @app.callback(
        Output("compare-colour-run", "options"),
        Output("compare-colour-run", "value"),
        Input("url", "search"),
        Input(STORE_ID, "data"),
        State("compare-colour-run", "value"),
    )
    def colour_choices(search: str | None, _overrides: Any, chosen: str | None) -> tuple:
        """The runs drawn, each with a swatch of its colour; the first chosen at first."""
        state, _jobs, _tags = current(search)
        drawn = state["shown_jobs"]
        options = [
            {
                "label": html.Span([run_dot(job, colour), job], className="di-run-option"),
                "value": job,
                "search": job,
            }
            for job, colour in colours_of(drawn).items()
        ]
        return options, chosen if chosen in drawn else (drawn[0] if drawn else None)

    @app.callback(
        Output(STORE_ID, "data"),
        Input({"type": "run-swatch", "colour": dash.ALL}, "n_clicks"),
        Input("compare-colour-reset", "n_clicks"),
        State("compare-colour-run", "value"),
        State(STORE_ID, "data"),
        prevent_initial_call=True,
    )
    def pick_colour(_swatches: list, _reset: Any, run: str | None, overrides: dict | None) -> Any:
        trigger = ctx.triggered_id
        if drawn_not_clicked() or not run:
            return dash.no_update
        colour = trigger.get("colour") if isinstance(trigger, dict) else None
        return set_colour(overrides, run, colour)

    register_chart_callbacks(app)
