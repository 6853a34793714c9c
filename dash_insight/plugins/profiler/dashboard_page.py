"""Performance dashboard of one job (MindInsight's ``/profiling-cpu/performance-dashboard``),
opened by the summary list's "Profiling" link.

URL: ``/profiler?train_id=./job[&dir=./profiler][&device=0]``: ``dir`` defaults to the profiler
directory the job reports (``profiler_dir`` of ``train-jobs``), ``device`` to its first device.
"""

from __future__ import annotations

import functools
from typing import Any

import dash
from dash import Input, Output, State, dcc, html

from dash_insight.plugins.profiler import cards, page_shared
from dash_insight.plugins.profiler.query_timeline import ROWS_TYPE, build_timeline
from dash_insight.plugins.profiler.service import ProfilerService, ProfileUnavailable
from dash_insight.web.url_state import parse_search

PATH = page_shared.DASHBOARD_PATH


def layout(app: dash.Dash, service: ProfilerService, params: dict[str, str]) -> html.Div:
    """The head and the cards, drawn with the page (no callback round trip before them)."""
    return html.Div(
        [
            page_shared.head(app, service, params, PATH),
            dcc.Loading(
                html.Div(
                    cards_or_message(app, service, params), id="prof-cards", className="di-cards"
                ),
                type="dot",
                delay_show=400,
                # The cards come with the layout: shown at once, not hidden under a spinner
                # until a timer after the first render (its removal re-rendered the cards and
                # resized the drawn charts, the page's last changes).
                show_initially=False,
            ),
        ]
    )


def build_cards(app: dash.Dash, service: ProfilerService, params: dict[str, str]) -> list[Any]:
    """Every card of the dashboard, plus the problems panel when a file was not read whole."""
    loaded = page_shared.load(service, params)
    profile = loaded.profile

    def bars() -> Any:
        type_of = {d.full_name: d.op_type for d in profile.details}
        return service.derived(
            loaded.found,
            loaded.device,
            f"timeline-{ROWS_TYPE}",
            lambda p: build_timeline(p.launches, type_of, ROWS_TYPE),
        )

    built: list[Any] = [
        cards.ranking_card(app, params, profile),
        cards.step_card(app, params, profile),
        cards.timeline_card(app, params, profile, bars),
        cards.operators_card(app, params, profile),
        cards.profile_card(loaded),
    ]
    problems = page_shared.problems_panel(profile)
    if problems is not None:
        built.insert(0, html.Div(problems, style={"gridColumn": "1 / -1"}))
    return built


def cards_or_message(app: dash.Dash, service: ProfilerService, params: dict[str, str]) -> Any:
    """:func:`build_cards`, or the message saying why the URL's profile cannot be shown."""
    try:
        return build_cards(app, service, params)
    except ProfileUnavailable as error:
        return [html.Div(page_shared.unavailable(app, error), style={"gridColumn": "1 / -1"})]


def show(
    app: dash.Dash, service: ProfilerService, search: str | None, _clicks: Any, pathname: str | None
) -> Any:
    """The profiler dashboard's cards for the URL (kept on another page), or why there are
    none."""
    if not page_shared.is_page(app, pathname, PATH):
        return dash.no_update
    return cards_or_message(app, service, parse_search(search))


def register(app: dash.Dash, service: ProfilerService) -> None:
    page_shared.register(app, service)
    app.callback(
        Output("prof-cards", "children"),
        Input("url", "search"),
        Input("refresh-now", "n_clicks"),
        State("url", "pathname"),
        prevent_initial_call=True,  # the page's layout has them
    )(functools.partial(show, app, service))
