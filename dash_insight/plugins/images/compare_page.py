"""Image Comparison: one image tag of several runs side by side at one step (a tab of the
comparison dashboard).

URL: ``/compare/images?jobs=[...]&job_filter=re&hidden=[...]&tag=input&step=40&b=50&c=50``:
the job selection and hidden runs of the scalar comparison
(:mod:`~dash_insight.web.components.compare_runs`), the tag (any tag a run drawn has; absent:
the one most of them have, a tie going to the first), the
step (a slider over every step any of them has; each run shows its last step at or below it
and says which) and the images page's brightness and contrast (``b``, ``c``). One column per
run, its name in its run colour on top; the browser loads each image by its key
(``/v1/mindinsight/datavisual/image/single-image?train_id&tag=<tag>/image&step``) as the images
page does, so only the steps shown are read. Runs without the tag are named below.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dash
from dash import ClientsideFunction, Input, Output, State, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.images.page import (
    BRIGHTNESS,
    CONTRAST,
    DEFAULT_LEVEL,
    image_filter,
)
from dash_insight.web.components.compare_runs import (
    STATE,
    jobs_with,
    missing_text,
    register_run_picker,
    register_tag_step,
    run_picker,
    run_selection,
    slider_props,
    step_at_or_below,
    step_note,
    tab_answer_key,
    tab_body_inputs,
    tag_step_controls,
    tag_view,
)
from dash_insight.web.components.compare_tabs import compare_head, label_texts
from dash_insight.web.components.native_inputs import RangeInput
from dash_insight.web.components.run_colours import run_colours, run_dot
from dash_insight.web.url_state import TypedUrlState, make_search, parse_search

PATH = "/compare/images"
TITLE = lazy_gettext("Image Comparison")


@dataclass(frozen=True)
class LevelsUrl:
    """The tab's own URL parameters (:data:`LEVELS`; the runs, tag and step are
    :class:`~dash_insight.web.components.compare_runs.RunsUrl`): the images page's brightness
    ``b`` and contrast ``c`` (0-100), applied in the browser."""

    b: int = DEFAULT_LEVEL
    c: int = DEFAULT_LEVEL


LEVELS: TypedUrlState[LevelsUrl] = TypedUrlState(LevelsUrl, b=BRIGHTNESS, c=CONTRAST)


def run_steps(provider: DataProvider, train_id: str, tag: str) -> list[int]:
    """The steps of image ``tag`` in a run, ascending ([] when it cannot be read)."""
    try:
        return sorted(int(s) for s in provider.value_steps(train_id, PluginName.IMAGE, tag).step)
    except DataError:
        return []


def image_source(relative_path: Callable[[str], str], train_id: str, tag: str, step: int) -> str:
    """The address of one image (the images page's, MindInsight's ``single-image``)."""
    return relative_path("/v1/mindinsight/datavisual/image/single-image") + make_search(
        {"train_id": train_id, "tag": f"{tag}/image", "step": step}
    )


def run_column(
    relative_path: Callable[[str], str],
    train_id: str,
    colour: str,
    tag: str,
    wanted: int,
    steps: list[int],
) -> html.Section:
    """One run's column: its name in its colour, its image at its step at or below
    ``wanted`` (or why there is none), and the step note."""
    step = step_at_or_below(steps, wanted)
    note = step_note(wanted, step, steps[0] if steps else None)
    if step is None:
        body: Any = html.Div(note, className="di-empty")
    else:
        body = html.Div(
            html.Img(
                src=image_source(relative_path, train_id, tag, step),
                alt=train_id,
                className="di-vi-img",
            ),
            className="di-vi-frame",
        )
    return html.Section(
        className="di-panel di-card di-icmp-col",
        id={"type": "icmp-col", "run": train_id},
        style={"borderTop": f"3px solid {colour}"},
        children=[
            html.Div([run_dot(train_id, colour), html.B(train_id)], className="di-card-head"),
            html.Div(body, className="di-card-body"),
            html.Div(note, className="di-card-foot di-icmp-note"),
        ],
    )


def _level(name: str, label: str, value: int) -> html.Div:
    return html.Div(
        className="di-vi-adjust",
        children=[
            html.Span(label, className="di-control-label"),
            RangeInput(id=f"icmp-{name}", min=0, max=100, value=value, updatemode="drag"),
            html.Button(
                _("Reset"),
                id=f"icmp-{name}-reset",
                className="di-button secondary",
                disabled=value == DEFAULT_LEVEL,
            ),
        ],
    )


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    jobs, _tags = jobs_with(service.provider, PluginName.IMAGE, params)
    runs = run_selection(STATE.parse(params), jobs, label_texts(service.provider, jobs))
    levels = LEVELS.parse(params)
    return html.Div(
        id="icmp-root",
        style={"--di-image-filter": image_filter(levels.b, levels.c)},
        children=[
            *compare_head(
                app,
                PATH,
                params,
                str(TITLE),
                _("one image tag of several training jobs side by side at one step"),
            ),
            html.Div(
                className="di-panel",
                children=[
                    run_picker("icmp-jobs", runs),
                    tag_step_controls("icmp", _("search an image tag")),
                    html.Div(
                        className="di-vp-row",
                        children=[
                            _level("brightness", _("Brightness"), levels.b),
                            _level("contrast", _("Contrast"), levels.c),
                        ],
                    ),
                ],
            ),
            html.Div(id="icmp-columns", className="di-icmp-grid"),
            html.Div(id="icmp-missing", className="di-muted"),
        ],
    )


def body(
    service: DataService,
    relative_path: Callable[[str], str],
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    overrides: Any,
    shown: str | None,
) -> tuple:
    """The tab for the URL: tag menu, step slider, one column per run drawn with its image at
    the step, and the runs that lack the tag."""
    provider = service.provider
    key = tab_answer_key(provider, search, overrides, shown)
    params = parse_search(search)
    jobs, tags_of = jobs_with(provider, PluginName.IMAGE, params)
    view = tag_view(
        STATE.parse(params),
        jobs,
        tags_of,
        lambda run, tag: run_steps(provider, run, tag),
        shared_default=True,  # the tag most runs have (#38 item 9)
        texts=label_texts(provider, jobs),
    )
    tag, step = view.tag, view.step
    slider = slider_props(view.steps, step)
    controls = (slider["max"], slider["value"], slider["marks"], slider["disabled"])
    if tag is None or step is None:
        empty = html.Div(
            _("No image in the jobs drawn: choose jobs above."), className="di-panel di-empty"
        )
        return ([], None, *controls, "", view.store(), empty, "", key)
    colours = run_colours(
        view.runs.shown,
        [job.train_id for job in provider.list_jobs()],
        overrides if isinstance(overrides, dict) else None,
    )
    columns = [
        run_column(relative_path, j, colours[j], tag, step, view.steps_of[j]) for j in view.having
    ]
    return (
        view.tags,
        tag,
        *controls,
        _("step {step}").format(step=step),
        view.store(),
        columns,
        missing_text(tag, view.missing),
        key,
    )


def _browser(name: str) -> ClientsideFunction:
    return ClientsideFunction(namespace="imagesPage", function_name=name)


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_run_picker(
        app,
        "icmp-jobs",
        lambda params: jobs_with(provider, PluginName.IMAGE, params)[0],
        lambda jobs: label_texts(provider, jobs),
    )
    # The images page's brightness / contrast, in the browser (b, c in the URL).
    app.clientside_callback(
        _browser("levels"),
        Output("icmp-root", "style"),
        Output("icmp-brightness-reset", "disabled"),
        Output("icmp-contrast-reset", "disabled"),
        Output("url", "search", allow_duplicate=True),
        Input("icmp-brightness", "value"),
        Input("icmp-contrast", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    for name in ("brightness", "contrast"):
        app.clientside_callback(
            _browser("reset"),
            Output(f"icmp-{name}", "value"),
            Input(f"icmp-{name}-reset", "n_clicks"),
            prevent_initial_call=True,
        )
    register_tag_step(app, "icmp")
    app.callback(
        Output("icmp-tag", "options"),
        Output("icmp-tag", "value"),
        Output("icmp-step", "max"),
        Output("icmp-step", "value"),
        Output("icmp-step", "marks"),
        Output("icmp-step", "disabled"),
        Output("icmp-step-label", "children"),
        Output("icmp-steps", "data"),
        Output("icmp-columns", "children"),
        Output("icmp-missing", "children"),
        Output("icmp-shown", "data"),
        *tab_body_inputs("icmp"),
    )(functools.partial(body, service, app.get_relative_path))
