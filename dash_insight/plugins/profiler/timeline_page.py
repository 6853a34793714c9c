"""Timeline page: every operator launch on a zoomable time axis (MindInsight: "Not supported"
for CPU).

URL: ``/profiler/timeline?train_id=./job[&dir=][&device=]&rows=scope|type&step=N``. Zooming
(drag on the chart, or the mode bar) asks the server for the launches of the new window, so a
narrow window shows every launch even when the whole run has 200,000 (wide windows merge
neighbouring launches per row: see :mod:`.timeline`). Hovering a bar gives the operator, its
type, start, duration and step.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import dash
import numpy as np
from dash import Input, Output, State, dcc, html

from dash_insight.core.i18n import format_number
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.profiler import page_shared
from dash_insight.plugins.profiler.query_profile import Launches, Profile
from dash_insight.plugins.profiler.query_timeline import (
    ROW_MODES,
    ROWS_SCOPE,
    Timeline,
    build_timeline,
    timeline_figure,
    window_view,
)
from dash_insight.plugins.profiler.service import ProfilerService, ProfileUnavailable
from dash_insight.web.binding import triggered
from dash_insight.web.components.figures import graph_config
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.url_state import Choice, Int, TypedUrlState, make_search, parse_search

PATH = page_shared.TIMELINE_PATH


def step_window(launches: Launches, step: int | None) -> tuple[float, float]:
    """[start, end] (us) of ``step`` (1-based; None = the whole run): from its first launch to
    the next step's start (the last step: to its last launch's end)."""
    if not len(launches):
        return 0.0, 1.0
    end = launches.end_us
    if step is None or not 1 <= step <= launches.steps:
        return 0.0, end
    starts = launches.step_starts_us
    low = float(starts[step - 1]) if step > 1 else 0.0
    if step < launches.steps:
        return low, float(starts[step])
    in_step = launches.step == step
    return low, float((launches.start_us[in_step] + launches.duration_us[in_step]).max())


def relayout_window(relayout: dict[str, Any] | None) -> tuple[float, float] | str | None:
    """The x window (us) a Plotly relayout asks for, ``"reset"`` for an autorange, None when
    it says nothing about x."""
    if not relayout:
        return None
    if relayout.get("xaxis.autorange"):
        return "reset"
    if "xaxis.range[0]" in relayout and "xaxis.range[1]" in relayout:
        low, high = relayout["xaxis.range[0]"], relayout["xaxis.range[1]"]
    elif isinstance(relayout.get("xaxis.range"), list) and len(relayout["xaxis.range"]) == 2:
        low, high = relayout["xaxis.range"]
    else:
        return None
    try:
        low, high = float(low) * 1000, float(high) * 1000
    except (TypeError, ValueError):
        return None
    return (min(low, high), max(low, high))


def chart_style(rows: int) -> dict[str, str]:
    """The timeline chart's box: the height left in the window below the page head and the
    toolbar (no empty half page under a short chart), at least room for every row."""
    return {"height": "calc(100vh - 230px)", "minHeight": f"{max(300, 90 + 34 * rows)}px"}


@dataclass(frozen=True)
class TimelineUrl:
    """The timeline's own URL state (beside :data:`page_shared.SHARED_STATE`): the rows (by
    scope or by operator type) and the step shown (0: every step)."""

    rows: str = ROWS_SCOPE
    step: int = 0


STATE: TypedUrlState[TimelineUrl] = TypedUrlState(
    TimelineUrl, rows=Choice("rows", ROWS_SCOPE, ROW_MODES), step=Int("step", 0, 0, 2**63 - 1)
)


def _params(params: dict[str, str]) -> tuple[str, int | None]:
    state = STATE.parse(params)
    return state.rows, state.step or None


def layout(app: dash.Dash, service: ProfilerService, params: dict[str, str]) -> html.Div:
    rows, step = _params(params)
    return html.Div(
        [
            page_shared.head(app, service, params, PATH),
            html.Div(id="prof-timeline-problems"),
            html.Div(
                className="di-panel di-prof-section",
                children=[
                    html.Div(
                        className="di-toolbar",
                        children=[
                            _step_box(step),
                            dcc.RadioItems(
                                id="prof-rows",
                                value=rows,
                                inline=True,
                                className="di-inline-options",
                                options=[
                                    {"label": _("rows by scope depth"), "value": ROWS_SCOPE},
                                    {"label": _("rows by operator type"), "value": "type"},
                                ],
                            ),
                            html.Button(
                                _("Reset zoom"), id="prof-reset", className="di-button secondary"
                            ),
                            html.Div(className="di-spacer"),
                            html.Span(id="prof-timeline-info", className="di-muted"),
                        ],
                    ),
                    dcc.Graph(
                        id="prof-timeline",
                        config=graph_config(scrollZoom=True),
                        style=chart_style(0),
                    ),
                    # The zoomed window and the URL search it was asked for (a new step forgets it).
                    dcc.Store(id="prof-timeline-window"),
                ],
            ),
        ]
    )


def _step_box(step: int | None) -> html.Label:
    """The step dropdown. Its options (with each step's length) come with the chart; the URL's
    step must be one of them from the start, or the dropdown would drop it."""
    options = [{"label": _("All steps"), "value": 0}]
    if step:
        options.append({"label": _("Step {step}").format(step=step), "value": step})
    return html.Label(
        [
            _("Step") + " ",
            SelectInput(id="prof-step", value=step or 0, style={"width": "230px"}, options=options),
        ],
        className="di-inline",
    )


def _timeline(
    service: ProfilerService, params: dict[str, str], rows: str
) -> tuple[Timeline, Launches, Any]:
    loaded = page_shared.load(service, params)
    profile = loaded.profile

    def build(profile: Profile) -> Timeline:
        type_of = {d.full_name: d.op_type for d in profile.details}
        return build_timeline(profile.launches, type_of, rows)

    timeline = service.derived(loaded.found, loaded.device, f"timeline-{rows}", build)
    return timeline, profile.launches, page_shared.problems_panel(profile)


def controls_to_url(trigger: Any, step: int | None, rows: str | None, search: str | None) -> Any:
    """The URL the step and row mode write (``no_update``: the same state, or controls just
    drawn: ``trigger`` None)."""
    if trigger is None:
        return dash.no_update
    params = parse_search(search)
    chosen = STATE.from_controls(STATE.parse(params), {"step": step, "rows": rows})
    written = {**params, **STATE.params(chosen)}
    new_search = make_search(written)
    return dash.no_update if parse_search(new_search) == parse_search(search) else new_search


def zoom(trigger: Any, relayout: dict | None, _reset: Any, search: str | None) -> Any:
    """The time window zoomed to (with the URL it belongs to): Reset forgets it; Plotly's
    own relayouts that are no zoom (its first "autosize") change nothing."""
    if trigger == "prof-reset":
        return {"search": search, "window": None}
    asked = relayout_window(relayout if isinstance(relayout, dict) else None)
    if asked is None:
        return dash.no_update
    return {"search": search, "window": None if asked == "reset" else list(asked)}


def render(
    app: dash.Dash,
    service: ProfilerService,
    search: str | None,
    zoomed: dict | None,
    _refresh: Any,
    pathname: str | None,
) -> tuple[Any, ...]:
    """The timeline of the URL's step and row mode in its zoomed window, the window's text,
    the step choices, the problems and the chart's height; nothing on another page."""
    if not page_shared.is_page(app, pathname, PATH):
        return (dash.no_update,) * 5
    params = parse_search(search)
    rows, step = _params(params)
    try:
        timeline, launches, problems = _timeline(service, params, rows)
    except ProfileUnavailable as error:
        return (
            {"data": [], "layout": {"height": 60}},
            "",
            [{"label": _("All steps"), "value": 0}],
            page_shared.unavailable(app, error),
            chart_style(0),
        )
    window = step_window(launches, step)
    # The zoom belongs to the view it was made on (another step or row mode forgets it),
    # however the URL happens to be spelled.
    if (
        zoomed
        and zoomed.get("window")
        and parse_search(zoomed.get("search")) == parse_search(search)
    ):
        window = (float(zoomed["window"][0]), float(zoomed["window"][1]))
    view = window_view(timeline, *window)
    figure = timeline_figure(timeline, view, launches, launches.step_starts_us)
    del figure["layout"]["height"]  # the chart fills its box (chart_style)
    types = len(timeline.colours) - (1 if timeline.mode == ROWS_SCOPE else 0)
    shown = int(view.count[view.colour < types].sum())
    info = (
        f"{format_number(window[0] / 1000, 3)} – {format_number(window[1] / 1000, 3)} ms"
        + " · "
        + _("{launches} launches in {bars} bars").format(
            launches=format_number(shown), bars=format_number(len(view))
        )
        + (
            " "
            + _("({count} merged: zoom in for each launch)").format(
                count=format_number(view.merged)
            )
            if view.merged
            else ""
        )
    )
    return figure, info, _step_options(launches), problems, chart_style(len(timeline.rows))


def register(app: dash.Dash, service: ProfilerService) -> None:
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("prof-step", "value"),
        Input("prof-rows", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(controls_to_url, single=True))
    app.callback(
        Output("prof-timeline-window", "data"),
        Input("prof-timeline", "relayoutData"),
        Input("prof-reset", "n_clicks"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(zoom))
    app.callback(
        Output("prof-timeline", "figure"),
        Output("prof-timeline-info", "children"),
        Output("prof-step", "options"),
        Output("prof-timeline-problems", "children"),
        Output("prof-timeline", "style"),
        Input("url", "search"),
        Input("prof-timeline-window", "data"),
        Input("refresh-now", "n_clicks"),
        State("url", "pathname"),
    )(functools.partial(render, app, service))


def _step_options(launches: Launches) -> list[dict[str, Any]]:
    options: list[dict[str, Any]] = [
        {"label": _("All steps ({count})").format(count=launches.steps), "value": 0}
    ]
    if not launches.steps:
        return options
    bounds = np.append(launches.step_starts_us, launches.end_us)
    bounds[0] = 0.0
    for step in range(1, launches.steps + 1):
        span = (bounds[step] - bounds[step - 1]) / 1000
        options.append(
            {
                "label": _("Step {step}").format(step=step) + f" ({format_number(span, 1)} ms)",
                "value": step,
            }
        )
    return options
