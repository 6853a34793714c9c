"""Comparison dashboard: scalars of several jobs, one chart per tag, one colour per job.

URL: ``/compare?jobs=[...]&job_filter=re&tags=[...]&filter=re&axis=step&smoothing=0.6&page=1``.
Any job can be compared (MindInsight: only the 15 cached ones, 5 at a time); past
:data:`WARN_JOBS` selected jobs the page warns that charts get crowded. Without ``jobs`` the
5 most recently updated jobs are selected (as MindInsight preselects 5).
"""

from __future__ import annotations

from typing import Any

import dash
from dash import Input, Output, State, ctx, html

from dash_insight.core.provider import DataProvider
from dash_insight.core.service import DataService
from dash_insight.plugins.scalars.charts import (
    AXIS,
    SMOOTHING,
    ChartSpec,
    SeriesSpec,
    chart_card,
    chart_ids,
    chart_payload,
    chart_stores,
    controls,
    register_chart_callbacks,
)
from dash_insight.web.components.compare_tabs import tab_strip
from dash_insight.web.components.tag_select import (
    button_action,
    button_select,
    filter_tags,
    page_of,
    pager,
    pick,
    tag_option,
)
from dash_insight.web.url_state import MAX_PAGE, Int, Tags, Text, UrlState, parse_search

IDS = chart_ids("compare")  # this page's axis, smoothing, data and thresholds components
PATH = "/compare"
CHARTS_PER_PAGE = 12
DEFAULT_JOBS = 5
WARN_JOBS = 20
#: ``jobs`` absent = the :data:`DEFAULT_JOBS` newest; ``tags`` absent = all of theirs.
STATE = UrlState(Tags("jobs"), Text("job_filter"), Tags("tags"), Text("filter"), AXIS, SMOOTHING,
                 Int("page", 1, 1, MAX_PAGE))


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


def page_state(params: dict[str, str], jobs: list[str],
               tags_of: dict[str, list[str]]) -> dict[str, Any]:
    """:data:`STATE` of the URL with ``jobs`` and ``tags`` resolved (the selected jobs in
    ``jobs`` order, the selected tags among ``all_tags``, the union of theirs) and whether the
    URL named them (``explicit_jobs``, ``explicit_tags``)."""
    state = STATE.parse(params)
    chosen, chosen_tags = state["jobs"], state["tags"]
    selected_jobs = jobs[:DEFAULT_JOBS] if chosen is None else [j for j in jobs if j in chosen]
    all_tags = union_tags(selected_jobs, tags_of)
    tags = all_tags if chosen_tags is None else [t for t in all_tags if t in chosen_tags]
    return {**state, "jobs": selected_jobs, "all_tags": all_tags, "tags": tags,
            "explicit_jobs": chosen is not None, "explicit_tags": chosen_tags is not None}


def controls_search(state: dict[str, Any], jobs: list[str], tags_of: dict[str, list[str]],
                    trigger: Any, checked_jobs: list[str] | None, job_pattern: str | None,
                    checked_tags: list[str] | None, tag_pattern: str | None, axis: str | None,
                    smoothing: float | None) -> str:
    """The URL after the control ``trigger`` changed (the other arguments are the controls'
    values). Names hidden by a filter keep their selection; ``jobs`` is written once the user
    changed the default selection, ``tags`` when not every tag of the selected jobs."""
    visible_jobs, _ = filter_tags(jobs, job_pattern or "")
    selected_jobs = pick(jobs, state["jobs"], checked_jobs, visible_jobs,
                         button_action(trigger, "compare-jobs"))
    all_tags = union_tags(selected_jobs, tags_of)
    visible_tags, _ = filter_tags(all_tags, tag_pattern or "")
    tags = [t for t in all_tags if t in state["tags"] or not state["explicit_tags"]]
    tags = pick(all_tags, tags, checked_tags, visible_tags, button_action(trigger, "compare-tags"))
    page = state["page"]
    if trigger == "compare-prev":
        page = max(1, page - 1)
    elif trigger == "compare-next":
        page += 1
    explicit = selected_jobs != jobs[:DEFAULT_JOBS] or state["explicit_jobs"]
    return STATE.search({
        "jobs": selected_jobs if explicit else None, "job_filter": job_pattern or "",
        "tags": None if tags == all_tags else tags, "filter": tag_pattern or "",
        "axis": AXIS.from_control(axis), "smoothing": SMOOTHING.from_control(smoothing),
        "page": page,
    })


def chart_specs(state: dict[str, Any], tags_of: dict[str, list[str]]
                ) -> tuple[list[ChartSpec], int]:
    on_page, _, pages = page_of(state["tags"], state["page"], CHARTS_PER_PAGE)
    charts = []
    for tag in on_page:
        series = tuple(SeriesSpec(job, tag, job) for job in state["jobs"]
                       if tag in tags_of.get(job, []))
        charts.append(ChartSpec(f"compare|{tag}", tag, series))
    return charts, pages


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    jobs, tags_of = scalar_jobs(service.provider)
    state = page_state(params, jobs, tags_of)
    return html.Div([
        tab_strip(app, PATH),
        html.Div(className="di-page-head", children=[
            html.H1("Scalar Comparison", className="di-title"),
            html.Span("scalars of several training jobs in one chart per tag",
                      className="di-subtitle"),
        ]),
        html.Div(className="di-panel", children=[
            *button_select("compare-jobs", "Jobs", "compare-job-filter", state["job_filter"],
                           noun="jobs", extra=[html.Span(id="compare-warning",
                                                         className="di-warning")]),
            *button_select("compare-tags", "Tags", "compare-tag-filter", state["filter"]),
            controls("compare", state["axis"], state["smoothing"]),
        ]),
        *chart_stores("compare"),
        html.Div(id="compare-grid", className="di-chart-grid"),
        pager("compare"),
    ])


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider

    def current(search: str | None) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
        jobs, tags_of = scalar_jobs(provider)
        return page_state(parse_search(search), jobs, tags_of), jobs, tags_of

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("compare-jobs", "value"), Input("compare-jobs-all", "n_clicks"),
        Input("compare-jobs-none", "n_clicks"), Input("compare-job-filter", "value"),
        Input("compare-tags", "value"), Input("compare-tags-all", "n_clicks"),
        Input("compare-tags-none", "n_clicks"), Input("compare-tag-filter", "value"),
        Input(IDS["axis"], "value"), Input(IDS["smoothing"], "value"),
        Input("compare-prev", "n_clicks"), Input("compare-next", "n_clicks"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def controls_to_url(checked_jobs: list[str] | None, _a: Any, _b: Any, job_pattern: str | None,
                        checked_tags: list[str] | None, _c: Any, _d: Any,
                        tag_pattern: str | None, axis: str, smoothing: float | None, _prev: Any,
                        _next: Any, search: str | None) -> Any:
        trigger = ctx.triggered_id
        if not ctx.triggered[0]["value"] and str(trigger).endswith(("-all", "-none")):
            return dash.no_update
        state, jobs, tags_of = current(search)
        new = controls_search(state, jobs, tags_of, trigger, checked_jobs, job_pattern,
                              checked_tags, tag_pattern, axis, smoothing)
        return dash.no_update if new == (search or "") else new

    @app.callback(
        Output("compare-jobs", "options"), Output("compare-jobs", "value"),
        Output("compare-tags", "options"), Output("compare-tags", "value"),
        Output("compare-warning", "children"),
        Input("url", "search"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
    )
    def selections(search: str | None, _ticks: Any, _clicks: Any) -> tuple:
        state, jobs, _ = current(search)
        visible_jobs, job_error = filter_tags(jobs, state["job_filter"])
        visible_tags, tag_error = filter_tags(state["all_tags"], state["filter"])
        warning = job_error or tag_error or ""
        if not warning and len(state["jobs"]) > WARN_JOBS:
            warning = (f"⚠ {len(state['jobs'])} jobs selected: charts with more than "
                       f"{WARN_JOBS} lines are hard to read")
        if not jobs:
            warning = "No job with scalar data yet."
        return ([tag_option(j) for j in visible_jobs],
                [j for j in state["jobs"] if j in visible_jobs],
                [tag_option(t) for t in visible_tags],
                [t for t in state["tags"] if t in visible_tags], warning)

    @app.callback(
        Output("compare-grid", "children"), Output("compare-total", "children"),
        Output("compare-page", "children"), Output(IDS["data"], "data"),
        Input("url", "search"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        State({"type": "graph-slot", "chart": dash.ALL}, "id"),
    )
    def grid(search: str | None, _ticks: Any, _clicks: Any, shown: list[dict]) -> tuple:
        state, _, tags_of = current(search)
        charts, pages = chart_specs(state, tags_of)
        total = (f"{len(state['tags'])} of {len(state['all_tags'])} tags, "
                 f"{len(state['jobs'])} jobs")
        page = f"{min(state['page'], pages)} / {pages}"
        payload = chart_payload(provider, charts)
        if [c.chart_id for c in charts] == [s["chart"] for s in shown]:
            return dash.no_update, total, page, payload
        if not charts:
            return (html.Div("Select jobs and tags above.", className="di-panel di-empty"),
                    total, page, payload)
        return [chart_card(chart, with_thresholds=False) for chart in charts], total, page, payload

    register_chart_callbacks(app)
