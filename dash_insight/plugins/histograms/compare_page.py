"""Histogram Comparison: one histogram tag of several runs overlaid at one step (a tab of the
comparison dashboard).

URL: ``/compare/histograms?jobs=[...]&job_filter=re&hidden=[...]&tag=conv1.weight&step=40``:
the job selection and hidden runs of the scalar comparison
(:mod:`~dash_insight.web.components.compare_runs`), the tag (any tag a run drawn has; the
list searches) and the step (a slider over every step any of them has; each run shows its last
step at or below it and says which). Runs without the tag are named below the chart; hidden
runs are not drawn. See :mod:`~dash_insight.plugins.histograms.figures_overlay`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import dash
from dash import Output, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.histograms.figures_overlay import histograms_at, overlay_figure, run_steps
from dash_insight.web.components.compare_runs import (
    STATE,
    jobs_with,
    missing_text,
    register_run_picker,
    register_tag_step,
    run_picker,
    run_selection,
    slider_props,
    step_note,
    tab_answer_key,
    tab_body_inputs,
    tag_step_controls,
    tag_view,
)
from dash_insight.web.components.compare_tabs import compare_head, label_texts
from dash_insight.web.components.figures import GRAPH_CONFIG
from dash_insight.web.components.run_colours import run_colours, run_dot
from dash_insight.web.url_state import parse_search

PATH = "/compare/histograms"
TITLE = lazy_gettext("Histogram Comparison")


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    jobs, _tags = jobs_with(service.provider, PluginName.HISTOGRAM, params)
    runs = run_selection(STATE.parse(params), jobs, label_texts(service.provider, jobs))
    return html.Div(
        [
            *compare_head(
                app,
                PATH,
                params,
                str(TITLE),
                _("one histogram tag of several training jobs at one step"),
            ),
            html.Div(
                className="di-panel",
                children=[
                    run_picker("hcmp-jobs", runs),
                    tag_step_controls("hcmp", _("search a histogram tag")),
                ],
            ),
            html.Section(
                className="di-panel",
                children=[
                    dcc.Graph(id="hcmp-graph", config=GRAPH_CONFIG, figure={}),
                    html.Ul(id="hcmp-notes", className="di-cmp-notes"),
                    html.Div(id="hcmp-missing", className="di-muted"),
                ],
            ),
        ]
    )


def _notes(entries: Sequence[Any], colours: Mapping[str, str], step: int) -> list[html.Li]:
    """One line per run drawn: its colour, name and the step it shows (or its problem)."""
    return [
        html.Li(
            className="di-cmp-note",
            id={"type": "hcmp-note", "run": e.train_id},
            children=[
                run_dot(e.train_id, colours[e.train_id]),
                html.B(e.train_id),
                " ",
                e.problem or step_note(step, e.step, e.first),
            ],
        )
        for e in entries
    ]


def body(
    service: DataService,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    overrides: Any,
    shown: str | None,
) -> tuple:
    """The tab for the URL: tag menu, step slider, the overlaid histograms of the runs drawn,
    a note per run and the runs that lack the tag."""
    provider = service.provider
    key = tab_answer_key(provider, search, overrides, shown)
    params = parse_search(search)
    jobs, tags_of = jobs_with(provider, PluginName.HISTOGRAM, params)
    view = tag_view(
        STATE.parse(params),
        jobs,
        tags_of,
        lambda run, tag: run_steps(provider, run, tag),
        texts=label_texts(provider, jobs),
    )
    tag, step = view.tag, view.step
    slider = slider_props(view.steps, step)
    controls = (slider["max"], slider["value"], slider["marks"], slider["disabled"])
    if tag is None or step is None:
        message = _("No histogram in the jobs drawn: choose jobs above.")
        return ([], None, *controls, "", view.store(), {}, [html.Li(message)], "", key)
    colours = run_colours(
        view.runs.shown,
        [job.train_id for job in provider.list_jobs()],
        overrides if isinstance(overrides, dict) else None,
    )
    entries = histograms_at(provider, view.having, tag, step, view.steps_of)
    return (
        view.tags,
        tag,
        *controls,
        _("step {step}").format(step=step),
        view.store(),
        overlay_figure(tag, entries, colours),
        _notes(entries, colours, step),
        missing_text(tag, view.missing),
        key,
    )


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_run_picker(
        app,
        "hcmp-jobs",
        lambda params: jobs_with(provider, PluginName.HISTOGRAM, params)[0],
        lambda jobs: label_texts(provider, jobs),
    )
    register_tag_step(app, "hcmp")
    app.callback(
        Output("hcmp-tag", "options"),
        Output("hcmp-tag", "value"),
        Output("hcmp-step", "max"),
        Output("hcmp-step", "value"),
        Output("hcmp-step", "marks"),
        Output("hcmp-step", "disabled"),
        Output("hcmp-step-label", "children"),
        Output("hcmp-steps", "data"),
        Output("hcmp-graph", "figure"),
        Output("hcmp-notes", "children"),
        Output("hcmp-missing", "children"),
        Output("hcmp-shown", "data"),
        *tab_body_inputs("hcmp"),
    )(functools.partial(body, service))
