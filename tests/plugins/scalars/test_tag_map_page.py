"""Tags across runs in the browser (issue 40 item 3): a tensorboardX run's ``train/loss`` and a
MindSpore job's ``loss/auto`` share one chart once the suggested mapping is added; the mapping
is kept in the URL and the browser (a URL without one gets it back)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import tensorboardX

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.url_state import encode_tags
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import callbacks_sent
from tests.plugins.scalars.test_page import _wait_charts

JOBS = quote(encode_tags(["./ms", "./tb"]))
NAMES = {"./ms · loss/auto", "./tb · train/loss"}


def test_a_tag_map_puts_a_tensorboard_run_and_a_mindspore_job_in_one_chart(
    dash_duo, tmp_path: Path
) -> None:
    base = tmp_path / "base"
    with SummaryWriter(str(base / "ms"), timestamp=1700000000) as writer:
        for step in range(1, 6):
            writer.add_scalar("loss/auto", 1.0 / step, step)
    with tensorboardX.SummaryWriter(str(base / "tb")) as tb_writer:
        for step in range(1, 6):
            tb_writer.add_scalar("train/loss", 2.0 / step, step)
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    try:
        assert app.data_service.loader.wait_rounds(1)
        dash_duo.driver.set_window_size(1280, 900)
        dash_duo.start_server(app)
        dash_duo.driver.add_cookie({"name": "di_language", "value": "zh_CN"})
        dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?jobs={JOBS}")
        assert set(_wait_charts(dash_duo, 2)) == {"loss/auto", "train/loss"}
        # Nothing was asked of the server at the load: the layout holds the page, and the
        # browser kept no mapping yet (the restoring callback made a round trip for nothing).
        wait_idle(dash_duo)
        assert callbacks_sent(dash_duo) == 0
        note = "#compare-tag-map-note"
        suggested = "建议"
        until(lambda: suggested in dash_duo.find_element(note).text, 20)
        assert "train/loss, loss/auto → loss" in dash_duo.find_element(note).text
        button = dash_duo.find_element("#compare-tag-map-suggest")
        assert button.text == "添加建议"
        button.click()
        until(lambda: "tag_map=" in dash_duo.driver.current_url, 20)
        until(lambda: len(dash_duo.find_elements(".di-chart-card")) == 1, 30)
        figures = _wait_charts(dash_duo, 1)
        assert list(figures) == ["loss"]
        # Each run's line (raw and smoothed) names its original tag, which the hover shows.
        assert {t["name"] for t in figures["loss"]["data"]} == NAMES
        text = dash_duo.find_element("#compare-tag-map-text").get_attribute("value")
        assert "train/loss → loss" in text and "loss/auto → loss" in text
        dash_duo.driver.execute_script(
            "document.getElementById('compare-tag-map-note').scrollIntoView();"
        )
        # The browser keeps it: the page opened without a mapping gets it back.
        dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?jobs={JOBS}")
        until(lambda: "tag_map=" in dash_duo.driver.current_url, 20)
        assert {t["name"] for t in _wait_charts(dash_duo, 1)["loss"]["data"]} == NAMES
        # Clear: back to a chart per tag, and not restored any more.
        dash_duo.find_element("#compare-tag-map-clear").click()
        until(lambda: "tag_map=" not in dash_duo.driver.current_url, 20)
        assert set(_wait_charts(dash_duo, 2)) == {"loss/auto", "train/loss"}
        dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?jobs={JOBS}")
        assert set(_wait_charts(dash_duo, 2)) == {"loss/auto", "train/loss"}
        assert "tag_map=" not in dash_duo.driver.current_url
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()
