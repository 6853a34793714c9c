"""The bundled demo (``dash-insight start --demo``, ``scripts/demo.sh``, the wheel's demo) shows
every page with data (issue #35): beside the summary jobs it holds a profiled job
(``lenet_summary_prof``, MindSpore 2.10's CPU profiler) and a loss-landscape job
(``lenet_step``), so a new user never meets "has no profiler data" or "This job has no loss
landscape". Checked in headless Chromium from the summary list, as a new user clicks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dash_insight.core.settings import DEMO_DIR, Settings
from dash_insight.default import create_app
from tests.browser import until
from tests.conftest import console_errors

PROFILED = "./lenet_summary_prof"
LANDSCAPE = "./lenet_step"
#: Every job of the demo, as train-jobs names them.
DEMO_JOBS = {
    "./lenet_sc",
    "./multi_file",
    "./nested/grp/job_a",
    "./ops_in_net",
    PROFILED,
    LANDSCAPE,
}


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    app = create_app(
        Settings(
            summary_base_dir=DEMO_DIR,
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def test_the_demo_holds_a_profiled_and_a_landscape_job() -> None:
    demo = Path(DEMO_DIR)
    assert (demo / PROFILED / "profiler" / "profiler_info_0.json").is_file()
    assert list((demo / PROFILED).glob("*_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json"))
    assert list((demo / LANDSCAPE).glob("*.summary.*_MS"))


def _trace_types(dash_duo: Any, selector: str) -> list[str]:
    return dash_duo.driver.execute_script(
        f"const gd = document.querySelector('{selector} .js-plotly-plot');"
        "return gd && gd.data ? gd.data.map(t => t.type) : [];"
    )


def test_demo_profiler_and_landscape_pages_draw(dash_duo: Any, demo_app: Any) -> None:
    dash_duo.start_server(demo_app)
    dash_duo.wait_for_contains_text("#job-total", f"Total {len(DEMO_JOBS)}")
    links = dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#job-table a')).map(a => a.href);"
    )
    profiler = [link for link in links if "/profiler?train_id=.%2Flenet_summary_prof" in link]
    assert profiler, links

    # The profiler's dashboard and its operator chart, from the summary list's link.
    dash_duo.driver.get(profiler[0])
    dash_duo.wait_for_contains_text("#prof-card-profile", "2.10.0", timeout=30)
    dash_duo.wait_for_contains_text("#prof-card-steps", "steps", timeout=30)
    dash_duo.find_element("#prof-card-ranking-link").click()
    until(lambda: _trace_types(dash_duo, "#prof-op-chart") == ["pie"], 30)
    assert "has no profiler data" not in dash_duo.find_element("body").text

    # The loss landscape: the dashboard's card, then the page's 3D surface.
    dash_duo.wait_for_page(f"{dash_duo.server_url}/dashboard?train_id={LANDSCAPE}")
    until(lambda: _trace_types(dash_duo, "#card-landscape")[:1] == ["surface"], 30)
    dash_duo.find_element("#card-landscape .di-card-head a").click()
    until(lambda: _trace_types(dash_duo, "#ls-graph")[:1] == ["surface"], 30)
    dash_duo.wait_for_contains_text("#ls-info", "Network: LeNet5", timeout=30)
    assert "no loss landscape" not in dash_duo.find_element("body").text
    assert console_errors(dash_duo) == []
