"""Histogram Comparison: one histogram tag of several runs overlaid at one step (a tab of the
comparison dashboard).

URL: ``/compare/histograms?jobs=[...]&job_filter=re&hidden=[...]&tag=conv1.weight&step=40``:
the job selection and hidden runs of the scalar comparison
(:mod:`~dash_insight.web.components.compare_runs`), the tag (any tag a run drawn has; the
list searches) and the step (a slider over every step any of them has; each run shows its last
step at or below it and says which). Runs without the tag are named below the chart; hidden
runs are not drawn. See :mod:`~dash_insight.plugins.histograms.overlay`.
"""

from __future__ import annotations

from typing import Any

import dash
from dash import Input, Output, State, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.provider import DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import Plugin
from dash_insight.plugins.histograms.overlay import histograms_at, overlay_figure, run_steps
from dash_insight.web.components.compare_runs import (
    STATE,
    chosen_step,
    chosen_tag,
    register_run_picker,
    run_picker,
    run_selection,
    step_note,
    union_names,
    union_steps,
    with_state,
)
from dash_insight.web.components.compare_tabs import tab_strip
from dash_insight.web.components.figures import GRAPH_CONFIG
from dash_insight.web.components.run_colours import STORE_ID, run_colours, run_dot
from dash_insight.web.url_state import parse_search, same_search

PATH = "/compare/histograms"
TITLE = lazy_gettext("Histogram Comparison")


def histogram_jobs(provider: DataProvider) -> tuple[list[str], dict[str, list[str]]]:
    """Jobs with histograms (newest first) and their histogram tags."""
    jobs = [job for job in provider.list_jobs() if job.tags.get(Plugin.HISTOGRAM)]
    return [job.train_id for job in jobs], {job.train_id: job.tags[Plugin.HISTOGRAM]
                                            for job in jobs}


def slider_props(steps: list[int], step: int | None) -> dict[str, Any]:
    """The step slider over ``steps`` (positions 0..n-1) at ``step``, its ends marked."""
    if not steps:
        return {"max": 0, "value": 0, "marks": None, "disabled": True}
    last = len(steps) - 1
    return {"max": max(1, last), "value": steps.index(step) if step in steps else last,
            "marks": {0: str(steps[0]), last: str(steps[-1])}, "disabled": last < 1}


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    jobs, _tags = histogram_jobs(service.provider)
    runs = run_selection(params, jobs)
    return html.Div([
        tab_strip(app, PATH),
        html.Div(className="di-page-head", children=[
            html.H1(str(TITLE), className="di-title"),
            html.Span(_("one histogram tag of several training jobs at one step"),
                      className="di-subtitle"),
        ]),
        html.Div(className="di-panel", children=[
            run_picker("hcmp-jobs", runs),
            html.Div(className="di-toolbar", children=[
                html.Span(_("Tag"), className="di-control-label"),
                dcc.Dropdown(id="hcmp-tag", clearable=False, className="di-compose",
                             placeholder=_("search a histogram tag")),
                html.Span(_("Step"), className="di-control-label"),
                html.Div(dcc.Slider(id="hcmp-step", min=0, max=1, step=1, value=0,
                                    updatemode="mouseup"), className="di-slider di-cmp-step"),
                html.Span(id="hcmp-step-label", className="di-muted"),
            ]),
        ]),
        dcc.Store(id="hcmp-steps"),
        html.Section(className="di-panel", children=[
            dcc.Graph(id="hcmp-graph", config=GRAPH_CONFIG, figure={}),
            html.Ul(id="hcmp-notes", className="di-cmp-notes"),
            html.Div(id="hcmp-missing", className="di-muted"),
        ]),
    ])


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_run_picker(app, "hcmp-jobs", lambda: histogram_jobs(provider)[0])

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("hcmp-tag", "value"), Input("hcmp-step", "value"),
        State("hcmp-steps", "data"), State("url", "search"), prevent_initial_call=True,
    )
    def controls_to_url(tag: str | None, position: int | None, steps: dict | None,
                        search: str | None) -> Any:
        """The tag and step chosen; the defaults (first tag, last step) are left out."""
        if not steps or tag is None:
            return dash.no_update
        params = parse_search(search)
        state = STATE.parse(params)
        union = steps.get("steps") or []
        new_tag = tag if tag != (steps.get("tags") or [None])[0] else ""
        if tag != steps.get("tag"):
            step = state["step"]  # another tag: the same step, if it has it
        else:
            index = min(max(int(position or 0), 0), len(union) - 1) if union else -1
            step = union[index] if union and index < len(union) - 1 else -1
        new = with_state(params, {**state, "tag": new_tag, "step": step})
        return dash.no_update if same_search(new, search) else new

    @app.callback(
        Output("hcmp-tag", "options"), Output("hcmp-tag", "value"),
        Output("hcmp-step", "max"), Output("hcmp-step", "value"), Output("hcmp-step", "marks"),
        Output("hcmp-step", "disabled"), Output("hcmp-step-label", "children"),
        Output("hcmp-steps", "data"), Output("hcmp-graph", "figure"),
        Output("hcmp-notes", "children"), Output("hcmp-missing", "children"),
        Input("url", "search"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"), Input(STORE_ID, "data"),
    )
    def body(search: str | None, _ticks: Any, _clicks: Any, overrides: Any) -> tuple:
        jobs, tags_of = histogram_jobs(provider)
        params = parse_search(search)
        runs = run_selection(params, jobs)
        state = STATE.parse(params)
        tags = union_names(tags_of.get(j, []) for j in runs.shown)
        tag = chosen_tag(state["tag"], tags)
        having = [j for j in runs.shown if tag in tags_of.get(j, [])]
        missing = [j for j in runs.shown if j not in having]
        steps_of = {j: run_steps(provider, j, tag) for j in having} if tag else {}
        union = union_steps(steps_of.values())
        step = chosen_step(state["step"], union)
        slider = slider_props(union, step)
        store = {"tag": tag, "tags": tags, "steps": union}
        if tag is None or step is None:
            message = _("No histogram in the jobs drawn: choose jobs above.")
            return ([], None, slider["max"], slider["value"], slider["marks"],
                    slider["disabled"], "", store, {}, [html.Li(message)], "")
        colours = run_colours(runs.shown, [job.train_id for job in provider.list_jobs()],
                              overrides if isinstance(overrides, dict) else None)
        entries = histograms_at(provider, having, tag, step, steps_of)
        notes = [html.Li(className="di-cmp-note", id={"type": "hcmp-note", "run": e.train_id},
                         children=[run_dot(e.train_id, colours[e.train_id]),
                                   html.B(e.train_id), " ",
                                   e.problem or step_note(step, e.step, e.first)])
                 for e in entries]
        absent = _("No {tag} in: {runs}").format(tag=tag, runs=", ".join(missing)) \
            if missing else ""
        return (tags, tag, slider["max"], slider["value"], slider["marks"], slider["disabled"],
                _("step {step}").format(step=step), store,
                overlay_figure(tag, entries, colours), notes, absent)
