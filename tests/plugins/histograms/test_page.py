"""Parameter distribution page: URL state, controls, cards on the corpus, and the page in the
browser."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import dash
import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.plugins.histograms import page as histograms
from dash_insight.web import per_tag_page
from dash_insight.web.per_tag_page import CardContext
from tests.browser import until
from tests.conftest import console_errors, loaded_service
from tests.pages import HIST_META, click_option, find, run_js, text, url_params


@pytest.fixture(scope="module")
def service(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    data = loaded_service(corpus, tmp_path_factory.mktemp("ws"))
    yield data
    data.close()


def test_histogram_page_state_and_search() -> None:
    state = histograms.STATE.parse({"view": "sideways", "axis": "relative", "raw": "1",
                                    "page": "x"})
    assert state == {"train_id": "", "tags": None, "view": "top", "axis": "relative",
                     "raw": True, "page": 1, "filter": ""}
    search = histograms.STATE.search({**state, "train_id": "./job"})
    assert parse_qs(search[1:]) == {"train_id": ["./job"], "axis": ["relative"], "raw": ["1"]}


def test_controls_follow_the_state() -> None:
    [row] = histograms.controls(histograms.STATE.parse({"view": "front", "raw": "1"}))
    assert find(row, "hist-view").value == "front" and find(row, "hist-raw").value == ["1"]
    assert find(row, "hist-axis-group").style == {"display": "none"}  # Top view only
    [row] = histograms.controls(histograms.STATE.defaults())
    assert find(row, "hist-axis").value == "step" and find(row, "hist-axis-group").style == {}
    assert find(row, "hist-raw").value == []


def test_page_controls_go_to_the_url() -> None:
    """The page's controls through the skeleton: view, axis and raw buckets in the URL."""
    new = per_tag_page.controls_search(
        histograms.PAGE, "?train_id=./ops_all", "hist-axis", ["a"], ["a"], "",
        {"view": "top", "axis": "absolute", "raw": ["1"]})
    assert parse_qs(new[1:]) == {"train_id": ["./ops_all"], "axis": ["absolute"], "raw": ["1"]}


def test_histogram_cards_report_non_finite_values(service: DataService) -> None:
    state = histograms.STATE.defaults()
    card = histograms.histogram_card(service.provider, "./ops_all", "hist/with_nan_inf", state)
    assert "NaN 7, +Inf 3, -Inf 2" in text(card)
    assert "51 steps" in text(card)
    raw = histograms.histogram_card(service.provider, "./ops_all", "hist/normal_1d",
                                    histograms.STATE.parse({"raw": "1", "view": "front"}))
    assert "raw buckets" in text(raw)
    assert per_tag_page.unknown_message(["nope"], "./ops_all", "histogram") is not None


def test_page_card_uses_the_context(service: DataService) -> None:
    state = histograms.STATE.parse({"view": "front"})
    card = histograms.PAGE.card(CardContext(dash.Dash(__name__), service, "./ops_all", state,
                                            "dark"), "hist/normal_1d")
    graph = card.children[1].children
    assert graph.id == {"type": "hist-graph", "tag": "hist/normal_1d"}
    assert graph.figure.layout.meta == {"view": "front"}
    missing = histograms.histogram_card(service.provider, "./ops_all", "no/such", state)
    assert text(missing.children[1]) == "no histogram tag 'no/such' in ./ops_all"


def test_many_histogram_steps_are_thinned_and_counted(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    rng = np.random.default_rng(1)
    with SummaryWriter(base / "long", host="t") as writer:
        for step in range(1, 151):
            writer.add_histogram("w", rng.standard_normal(200), step)
    data = loaded_service(base, tmp_path / "ws")
    try:
        card = histograms.histogram_card(data.provider, "./long", "w",
                                         histograms.STATE.defaults())
        assert "100 of 150 steps shown" in text(card)
        graph = card.children[1].children
        assert len(graph.figure.data) == 2 * histograms.MAX_STEPS
        assert list(graph.figure.layout.yaxis.ticktext)[-1] == "150"  # the last step is kept
    finally:
        data.close()


def test_histogram_page_views_axis_raw_and_full_screen(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url
                           + "/histograms?train_id=./ops_all&tags=hist/normal_1d,hist/all_nan,"
                             "hist/with_nan_inf,no/such_tag")
    until(lambda: len(run_js(dash_duo, HIST_META)) == 3, 15)
    assert "no/such_tag" in dash_duo.find_element("#histogram-unknown-tags").text
    until(lambda: set(run_js(dash_duo, HIST_META)) == {'{"view":"top","axis":"step"}'}, 10)
    assert "NaN 7, +Inf 3, -Inf 2" in dash_duo.find_element("#hist-cards").text

    click_option(dash_duo, "#hist-view", "Front")
    until(lambda: set(run_js(dash_duo, HIST_META)) == {'{"view":"front"}'}, 10)
    assert url_params(dash_duo)["view"] == "front"
    until(lambda: run_js(dash_duo, "return document.querySelector('#hist-axis-group')"
                                   ".style.display") == "none", 10)

    click_option(dash_duo, "#hist-view", "Top")
    click_option(dash_duo, "#hist-axis", "Relative time (s)")
    until(lambda: set(run_js(dash_duo, HIST_META)) == {'{"view":"top","axis":"relative"}'}, 10)
    assert url_params(dash_duo)["axis"] == "relative" and "view" not in url_params(dash_duo)

    dash_duo.find_element("#hist-raw input").click()
    dash_duo.wait_for_contains_text("#hist-cards", "raw buckets")
    assert url_params(dash_duo)["raw"] == "1"

    # Full screen per chart, in the browser.
    dash_duo.find_element("#hist-cards .di-vp-full").click()
    until(lambda: run_js(dash_duo, "return document.querySelectorAll('.di-full-screen').length")
          == 1, 10)
    assert dash_duo.find_element(".di-full-screen .di-vp-full").text == "✕ Exit full screen"
    dash_duo.find_element(".di-full-screen .di-vp-full").click()
    until(lambda: run_js(dash_duo, "return document.querySelectorAll('.di-full-screen').length")
          == 0, 10)

    # The regex filter hides tags.
    search = dash_duo.find_element("#hist-tags-filter")
    search.send_keys("nan")
    until(lambda: len(run_js(dash_duo, HIST_META)) == 2, 10)
    assert url_params(dash_duo)["filter"] == "nan"
    assert console_errors(dash_duo) == []
