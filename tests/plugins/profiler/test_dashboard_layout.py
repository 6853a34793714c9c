"""The performance dashboard's layout holds its cards and the device (#37 item 2: no callback
round trip before the first screen), called as plain functions; its charts' specs (pie, steps,
timeline preview); in the browser, its SVG charts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import numpy as np
import plotly.utils
import pytest

from dash_insight.core.service import DataService
from dash_insight.plugins.profiler import cards, dashboard_page, figures, page_shared
from dash_insight.plugins.profiler import query_timeline as timeline
from dash_insight.plugins.profiler.service import ProfilerService
from tests.browser import wait_idle
from tests.conftest import console_errors, loaded_service
from tests.pages import assert_cards_shown_at_once, count_chart_draws, hover_svg_mark


@pytest.fixture(scope="module")
def service(
    profiler_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProfilerService]:
    data: DataService = loaded_service(profiler_corpus, tmp_path_factory.mktemp("ws"))
    yield ProfilerService.from_data(data)
    data.close()


def _json(tree: object) -> str:
    return json.dumps(tree, cls=plotly.utils.PlotlyJSONEncoder)


def test_the_dashboard_is_drawn_with_its_layout(service: ProfilerService) -> None:
    app = dash.Dash(__name__)
    params = {"train_id": "./lenet_summary_prof"}
    page = _json(dashboard_page.layout(app, service, params))
    for card in ("prof-card-ranking", "prof-card-steps", "prof-card-timeline"):
        assert card in page
    assert "Device 0" in page  # the device box, filled without a callback
    # The callback draws the same cards when the URL or a refresh asks again.
    assert _json(dashboard_page.cards_or_message(app, service, params)) in page


def test_a_missing_job_says_so_in_the_layout(service: ProfilerService) -> None:
    app = dash.Dash(__name__)
    page = _json(dashboard_page.layout(app, service, {"train_id": "./nope"}))
    assert "prof-card-ranking" not in page
    assert page_shared.device_box(service, {"train_id": "./nope"}) is None


@pytest.mark.parametrize(
    ("share", "text"), [(0.476, "47.6%"), (0.0499, "4.99%"), (0.5, "50%"), (1.0, "100%")]
)
def test_pie_percent_is_plotlys(share: float, text: str) -> None:
    assert figures.pie_percent(share) == text


def test_the_pie_has_a_slice_per_item_with_its_hover(service: ProfilerService) -> None:
    profile = page_shared.load(service, {"train_id": "./lenet_summary_prof"}).profile
    items = figures.slices(profile.types, figures.MEASURE_TOTAL, top=5)
    pie = figures.type_pie(items, figures.MEASURE_TOTAL)
    assert [s[0] for s in pie["slices"]] == [item.value for item in items]
    assert pie["slices"][0][3][0] == items[0].label  # the hover's bold first line, plain
    assert all("<" not in line for s in pie["slices"] for line in s[3])


def test_step_chart_draws_each_steps_span_with_its_operators_over_it() -> None:
    chart = cards.step_chart(np.array([10.0, 4.0]), np.array([6.0, 4.0]))
    span, busy = chart["series"]
    assert chart["overlay"] and [p[:2] for p in span["points"]] == [[1, 10.0], [2, 4.0]]
    assert busy["points"][0][2] == ["step 1: operators 6.00 ms"]
    assert chart["x"]["range"] == [0.5, 2.5] and [t[0] for t in chart["x"]["ticks"]] == [1, 2]
    assert chart["y"]["range"] == [0, 10.5]


def test_timeline_chart_has_every_bar_of_the_window_in_its_row(service: ProfilerService) -> None:
    profile = page_shared.load(service, {"train_id": "./lenet_summary_prof"}).profile
    type_of = {d.full_name: d.op_type for d in profile.details}
    model = timeline.build_timeline(profile.launches, type_of, timeline.ROWS_TYPE)
    view = timeline.window_view(model, 0.0, float(profile.launches.end_us))
    shown, view = timeline.top_rows(model, view, 8)
    chart = timeline.timeline_chart(shown, view, profile.launches, height=252)
    assert chart["y"]["labels"] == timeline.row_labels(shown.rows)
    spans = [p for series in chart["series"] for p in series["points"]]
    assert len(spans) == len(view) and all(s[0] <= s[3] for s in spans)
    assert all(0 <= s[1] < len(shown.rows) for s in spans)
    low, high = chart["x"]["range"]
    assert (low, high) == (view.window[0] / 1000, view.window[1] / 1000)
    assert all(low - 1e-6 <= s[0] and s[3] <= high + 1e-6 for s in spans)
    # Each operator type's bars in its own colour, as the timeline page draws them.
    assert len({series["colour"] for series in chart["series"]}) == len(chart["series"])


@pytest.mark.browser
def test_the_dashboard_draws_its_charts_without_plotly(dash_duo: Any, profiler_app: Any) -> None:
    """Issue 37 item 2: the dashboard's three charts are SVG charts; the page loads no
    plotly.js (and so draws no warm-up chart of assets/plotly-setup.js)."""
    dash_duo.start_server(profiler_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/profiler?train_id=./lenet_summary_prof")
    dash_duo.wait_for_element("#prof-ranking-pie svg.di-svg", timeout=30)
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return window.Plotly === undefined")
    # The pie: the top 5 operator types and the rest, the shares written in its slices.
    slices, texts = dash_duo.driver.execute_script(
        "const pie = document.getElementById('prof-ranking-pie');"
        "return [pie.querySelectorAll('.di-svg-mark').length,"
        "        [...pie.querySelectorAll('.di-svg-pie-text')].map(t => t.textContent)];"
    )
    assert slices == 6 and texts[0] == "47.6%", texts
    # The steps' bars: each step's span and its operators' time over it.
    bars = "return document.querySelectorAll('#prof-steps .di-svg-mark').length"
    assert dash_duo.driver.execute_script(bars) == 2 * 16
    lines = hover_svg_mark(dash_duo, "prof-steps", 1, 0)
    assert len(lines) == 1 and lines[0].startswith("step 1: operators "), lines
    # The timeline's bars: one per launch of the typical step, in its operator type's row.
    lines = hover_svg_mark(dash_duo, "prof-timeline-preview", 0, 0)
    assert "start" in lines[-1] and "step 4" in lines[-1], lines
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_each_chart_is_drawn_once(dash_duo: Any, profiler_app: Any) -> None:
    """The charts' boxes are as tall as their charts before they are drawn: the page has its
    final height and scrollbar from the start, so the first chart is not drawn 5 px wider
    (before the scrollbar came) and drawn again (the pie was, 0.1-0.2 s after the others)."""
    count_chart_draws(dash_duo)
    # a window in which the cards overflow the page (as in bench/vs_mindinsight.py); the
    # browser is handed to the next test, so its size is given back
    size = dash_duo.driver.get_window_size()
    dash_duo.driver.set_window_size(1600, 1000)
    try:
        dash_duo.start_server(profiler_app)
        dash_duo.wait_for_page(dash_duo.server_url + "/profiler?train_id=./lenet_summary_prof")
        charts = ("prof-ranking-pie", "prof-steps", "prof-timeline-preview")
        for name in charts:
            dash_duo.wait_for_element(f"#{name} svg.di-svg", timeout=30)
        wait_idle(dash_duo)
        draws = dash_duo.driver.execute_script("return window.__draws;")
    finally:
        dash_duo.driver.set_window_size(size["width"], size["height"])
    assert draws == dict.fromkeys(charts, 1)
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_the_cards_are_shown_at_once(dash_duo: Any, profiler_app: Any) -> None:
    """The cards come with the layout: never hidden under the loading spinner (dcc.Loading
    shows one at first unless show_initially=False; taking it off re-rendered the cards and
    resized their charts after they were drawn, the page's last changes)."""
    url = "/profiler?train_id=./lenet_summary_prof"
    drawn = "#prof-timeline-preview svg.di-svg"
    assert_cards_shown_at_once(dash_duo, profiler_app, url, "prof-cards", drawn)
    assert console_errors(dash_duo) == []
