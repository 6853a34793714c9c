"""The performance dashboard's layout holds its cards and the device (#37 item 2: no callback
round trip before the first screen), called as plain functions; in the browser, no warm-up
chart after the page's own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import plotly.utils
import pytest

from dash_insight.core.service import DataService
from dash_insight.plugins.profiler import dashboard_page, page_shared
from dash_insight.plugins.profiler.service import ProfilerService
from tests.browser import wait_idle
from tests.conftest import console_errors, loaded_service
from tests.pages import assert_cards_shown_at_once, count_chart_draws


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


#: Holds the page's idle callbacks until ``__releaseIdle()`` (so that the warm-up of
#: assets/plotly-setup.js comes after the page's own charts, as on a busy machine), and counts
#: the off-screen warm-up charts appended once the page has a chart of its own.
_WARM_PROBE = """
window.__warmAfterChart = 0;
const held = [];
const run = callback => callback({didTimeout: false, timeRemaining: () => 50});
window.requestIdleCallback = callback => held.push(callback);
window.__releaseIdle = () => {
  window.requestIdleCallback = callback => setTimeout(() => run(callback), 0);
  held.splice(0).forEach(run);
};
new MutationObserver(records => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.tagName === "DIV" && node.getAttribute("aria-hidden") === "true" &&
          node.style.left === "-10000px" && document.querySelector("#page .js-plotly-plot")) {
        window.__warmAfterChart += 1;
      }
    }
  }
}).observe(document, {childList: true, subtree: true});
"""

#: Releases the idle callbacks and answers after five more idle periods.
_IDLE_ROUNDS = """
const done = arguments[arguments.length - 1];
window.__releaseIdle();
let rounds = 0;
const tick = () => (++rounds >= 5 ? done(window.__warmAfterChart) : requestIdleCallback(tick));
requestIdleCallback(tick);
"""


@pytest.mark.browser
def test_no_warm_up_chart_once_the_dashboard_drew_its_own(dash_duo: Any, profiler_app: Any) -> None:
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _WARM_PROBE}
    )
    dash_duo.start_server(profiler_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/profiler?train_id=./lenet_summary_prof")
    dash_duo.wait_for_element("#prof-ranking-pie .main-svg", timeout=30)
    dash_duo.driver.set_script_timeout(30)
    assert dash_duo.driver.execute_async_script(_IDLE_ROUNDS) == 0
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_each_chart_is_drawn_once(dash_duo: Any, profiler_app: Any) -> None:
    """The charts' boxes are as tall as their figures before Plotly draws: the page has its
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
        for chart in charts:
            dash_duo.wait_for_element(f"#{chart} .main-svg", timeout=30)
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
    drawn = "#prof-timeline-preview .main-svg"
    assert_cards_shown_at_once(dash_duo, profiler_app, url, "prof-cards", drawn)
    assert console_errors(dash_duo) == []
