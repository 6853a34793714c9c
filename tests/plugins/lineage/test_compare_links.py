"""From lineage to curves (issue 40 item 2): "Compare selected" and "Compare filtered" open the
scalar comparison with exactly the ticked jobs, or the jobs the brushes and filters leave."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.lineage import page
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.web.url_state import decode_tags, parse_search
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import picker_rows
from tests.plugins.lineage import chart_driver as chart
from tests.plugins.lineage.test_page import LINEAGE_JOBS, _app, _wait_table

COMPARE = "/prefix/compare"


@pytest.fixture(scope="module")
def service(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    data = DataService(Settings(corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0))
    data.loader.load_round()
    yield LineageService.from_data(data)
    data.close()


def _jobs(href: str) -> list[str] | None:
    path, _sep, query = href.partition("?")
    assert path == COMPARE
    return decode_tags(parse_search("?" + query).get("jobs"))


def test_compare_links_name_the_ticked_and_the_filtered_jobs(service: LineageService) -> None:
    selected_href, selected_class, filtered_href, filtered_class = page.compare_links(
        service, COMPARE, "", None, None, []
    )
    assert (selected_href, "di-disabled" in selected_class) == (COMPARE, True)
    assert set(_jobs(filtered_href)) == LINEAGE_JOBS and "di-disabled" not in filtered_class
    brushed = "?filters=" + quote(json.dumps({"batch_size": [[30, 64]]}))
    ticked = [{"train_id": "./lenet_sc"}, {"train_id": "./ops_in_net"}, {"bad": 1}, "x"]
    selected_href, selected_class, filtered_href, _ = page.compare_links(
        service, COMPARE, brushed, None, None, ticked
    )
    assert _jobs(selected_href) == ["./lenet_sc", "./ops_in_net"]
    assert "di-disabled" not in selected_class
    assert set(_jobs(filtered_href)) == {
        "./lenet_sc",
        "./lenet_lr0.01_bs32",
        "./lenet_lr0.05_bs64",
        "./lenet_adam_lr0.001_bs32",
    }
    # hidden rows leave the filtered jobs too
    hidden = page.compare_links(service, COMPARE, "?hide=.%2Flenet_sc", None, None, None)
    assert "./lenet_sc" not in _jobs(hidden[2])


@pytest.mark.browser
def test_brush_then_compare_filtered_opens_those_jobs(
    dash_duo, corpus: Path, tmp_path: Path
) -> None:
    app = _app(corpus, tmp_path / "ws")
    try:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        _wait_table(dash_duo, LINEAGE_JOBS)
        dash_duo.wait_for_element("#lineage-chart .di-pc-axis")
        chart.drag_axis(dash_duo, "batch_size", (30 - 16) / 48, 1.1)  # 30..64
        brushed = {
            "./lenet_sc",
            "./lenet_lr0.01_bs32",
            "./lenet_lr0.05_bs64",
            "./lenet_adam_lr0.001_bs32",
        }
        _wait_table(dash_duo, brushed)
        link = "#lineage-compare-filtered"
        until(
            lambda: (
                set(_jobs_of(dash_duo.find_element(link).get_attribute("href")) or ()) == brushed
            ),
            20,
        )
        dash_duo.find_element(link).click()
        until(lambda: "/compare" in dash_duo.driver.current_url, 20)
        query = dash_duo.driver.current_url.partition("?")[2]
        assert set(decode_tags(parse_search("?" + query)["jobs"])) == brushed
        # the comparison ticks exactly those jobs and draws them
        until(
            lambda: set(picker_rows(dash_duo, "compare-jobs")["ticked"]) == brushed,
            30,
        )
        until(lambda: dash_duo.find_element("#compare-total").text.endswith("4 jobs"), 30)
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()


def _jobs_of(href: str | None) -> list[str] | None:
    if not href or "?" not in href:
        return None
    return decode_tags(parse_search("?" + href.partition("?")[2]).get("jobs"))
