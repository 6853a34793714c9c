"""Parameter distribution page: URL state, controls, cards on the corpus, and the page in the
browser."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import dash
import numpy as np
import plotly.graph_objects as go
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.histograms import page as histograms
from dash_insight.web import per_tag_page
from dash_insight.web.per_tag_page import CardContext
from tests.browser import until
from tests.conftest import console_errors, loaded_service
from tests.pages import (
    HIST_META,
    MARGINS_ADDED,
    TICK_LABELS,
    assert_cards_shown_at_once,
    click_option,
    find,
    first_paint_handed_over,
    first_paint_probe,
    run_js,
    text,
    url_params,
)


def test_histogram_page_state_and_search() -> None:
    state = histograms.STATE.parse(
        {"view": "sideways", "axis": "relative", "raw": "1", "page": "x"}
    )
    assert state == histograms.HistogramsUrl(axis="relative", raw=True)
    search = histograms.STATE.search(replace(state, train_id="./job"))
    assert parse_qs(search[1:]) == {"train_id": ["./job"], "axis": ["relative"], "raw": ["1"]}


def test_controls_follow_the_state() -> None:
    [row] = histograms.controls(histograms.STATE.parse({"view": "front", "raw": "1"}))
    assert find(row, "hist-view").value == "front" and find(row, "hist-raw").value == ["1"]
    assert find(row, "hist-axis-group").style == {"display": "none"}  # Top view only
    [row] = histograms.controls(histograms.HistogramsUrl())
    assert find(row, "hist-axis").value == "step" and find(row, "hist-axis-group").style == {}
    assert find(row, "hist-raw").value == []


def test_page_controls_go_to_the_url() -> None:
    """The page's controls through the skeleton: view, axis and raw buckets in the URL."""
    new = per_tag_page.controls_search(
        histograms.PAGE,
        "?train_id=./ops_all",
        "hist-axis",
        ["a"],
        ["a"],
        "",
        {"view": "top", "axis": "absolute", "raw": ["1"]},
    )
    assert parse_qs(new[1:]) == {"train_id": ["./ops_all"], "axis": ["absolute"], "raw": ["1"]}


def test_histogram_cards_report_non_finite_values(service: DataService) -> None:
    state = histograms.HistogramsUrl()
    card = histograms.histogram_card(service.provider, "./ops_all", "hist/with_nan_inf", state)
    assert "NaN 7, +Inf 3, -Inf 2" in text(card)
    assert "51 steps" in text(card)
    raw = histograms.histogram_card(
        service.provider,
        "./ops_all",
        "hist/normal_1d",
        histograms.STATE.parse({"raw": "1", "view": "front"}),
    )
    assert "raw buckets" in text(raw)
    assert per_tag_page.unknown_message(["nope"], "./ops_all", "histogram") is not None


def _lazy_graph(card: Any) -> tuple[dict[str, Any], Any]:
    """The graph a histogram card draws when on screen (its id, config, class) and its
    figure, from the card's lazy graph (:func:`~dash_insight.web.components.lazy_graph`)."""
    lazy = card.children[1].children
    store, slot = lazy.children
    assert slot.id == {"type": "lazy-graph-slot", "key": store.id["key"]}
    return store.data["graph"], go.Figure(json.loads(store.data["figure"]))


def test_page_card_uses_the_context(service: DataService) -> None:
    state = histograms.STATE.parse({"view": "front"})
    card = histograms.PAGE.card(
        CardContext(dash.Dash(__name__), service, "./ops_all", state, "dark"), "hist/normal_1d"
    )
    graph, figure = _lazy_graph(card)
    assert graph["id"] == {"type": "hist-graph", "tag": "hist/normal_1d"}
    assert figure.layout.meta == {"view": "front"}
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
        card = histograms.histogram_card(data.provider, "./long", "w", histograms.HistogramsUrl())
        assert "100 of 150 steps shown" in text(card)
        _, figure = _lazy_graph(card)
        assert len(figure.layout.shapes) == histograms.MAX_STEPS  # a band per step shown
        # The last step is kept: the axis spans steps 1..150 (round steps labelled).
        axis = figure.layout.yaxis
        assert list(axis.ticktext) == [str(step) for step in range(20, 141, 20)]
        assert axis.tickvals[-1] == pytest.approx(1 - (140 - 1) / (150 - 1))
    finally:
        data.close()


#: The hover label of point ``arguments[2]`` of trace ``arguments[1]`` (-1: the last) of the
#: chart of tag ``arguments[0]``, hovered by Plotly's own hover function.
HOVER = """
const card = Array.from(document.querySelectorAll('#hist-cards .di-vp-card'))
  .find(c => c.querySelector('.di-vp-tag').textContent === arguments[0]);
const plot = card.querySelector('.js-plotly-plot');
const curve = arguments[1] < 0 ? plot.data.length + arguments[1] : arguments[1];
Plotly.Fx.hover(plot, [{curveNumber: curve, pointNumber: arguments[2]}]);
const label = plot.querySelector('.hoverlayer .hovertext');
return label ? label.textContent : '';
"""


#: The Top view of a tag's chart: the y centres of its step labels (right), and its count
#: scale's labels and their right edge beside the plot's left edge.
TOP_AXES = """
const card = [...document.querySelectorAll('#hist-cards .di-vp-card')]
    .find(c => c.textContent.includes(arguments[0]));
const centre = el => { const r = el.getBoundingClientRect(); return r.top + r.height / 2; };
const steps = [...card.querySelectorAll('.ytick text')].map(centre);
const counts = [...card.querySelectorAll('.y2tick text')];
const plot = card.querySelector('.nsewdrag').getBoundingClientRect();
return [steps, {labels: counts.map(t => t.textContent),
                right: Math.max(...counts.map(t => t.getBoundingClientRect().right)),
                plot_left: plot.left}];
"""


def test_the_cards_are_shown_at_once(dash_duo: Any, corpus_app: Any) -> None:
    """The cards come with the layout: never hidden under the loading spinner (taking it off
    re-rendered the cards and resized their drawn charts, as on the profiler's dashboard)."""
    url = "/histograms?train_id=./ops_all"
    drawn = "#hist-cards .js-plotly-plot"
    assert_cards_shown_at_once(dash_duo, corpus_app, url, "hist-cards", drawn)
    assert console_errors(dash_duo) == []


def _tick_labels_out(dash_duo: Any) -> list[list[str]]:
    """Per drawn chart, its tick labels hidden or past its box (tests.pages.TICK_LABELS);
    every axis drawing them all ("allow")."""
    charts = run_js(dash_duo, TICK_LABELS, "#hist-cards")
    assert all(chart["overflow"] == ["allow", "allow"] and chart["labels"] for chart in charts)
    return [chart["out"] for chart in charts]


def test_histogram_page_views_axis_raw_and_full_screen(dash_duo, corpus_app) -> None:
    dash_duo.driver.set_window_size(1600, 1400)  # the three charts on screen: all drawn
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(
        dash_duo.server_url + "/histograms?train_id=./ops_all&tags=hist/normal_1d,hist/all_nan,"
        "hist/with_nan_inf,no/such_tag"
    )
    until(lambda: len(run_js(dash_duo, HIST_META)) == 3, 15)
    assert "no/such_tag" in dash_duo.find_element("#histogram-unknown-tags").text
    until(lambda: set(run_js(dash_duo, HIST_META)) == {'{"view":"top","axis":"step"}'}, 10)
    assert "NaN 7, +Inf 3, -Inf 2" in dash_duo.find_element("#hist-cards").text
    # The figures' margins hold the labels: Plotly's automargin added nothing (when it adds,
    # it draws the chart a second time).
    assert run_js(dash_duo, MARGINS_ADDED, "#hist-cards") == [[0, 0, 0, 0]] * 3
    # Every tick label drawn, inside its chart (the figures do not ask Plotly to hide those
    # past the graph, which measures each: web.components.figures.small_layout).
    assert _tick_labels_out(dash_duo) == [[]] * 3
    # The Top view: step labels on the right at even gaps, a count scale on the left of the
    # plot (from 0 at the front band's base line).
    steps, counts = run_js(dash_duo, TOP_AXES, "hist/normal_1d")
    gaps = [b - a for a, b in itertools.pairwise(steps)]
    assert len(steps) >= 3 and max(gaps) - min(gaps) <= 1.5, steps
    assert counts["labels"][0] == "0" and len(counts["labels"]) >= 2
    assert counts["right"] <= counts["plot_left"]
    # The hover label of a bucket: its centre, count, step, times and the step's NaN / Inf.
    label = run_js(dash_duo, HOVER, "hist/with_nan_inf", -1, 0)
    assert all(word in label for word in ("center", "count", "step", "relative", "NaN"))

    click_option(dash_duo, "#hist-view", "Front")
    until(lambda: set(run_js(dash_duo, HIST_META)) == {'{"view":"front"}'}, 10)
    assert run_js(dash_duo, MARGINS_ADDED, "#hist-cards") == [[0, 0, 0, 0]] * 3
    assert _tick_labels_out(dash_duo) == [[]] * 3
    label = run_js(dash_duo, HOVER, "hist/with_nan_inf", 0, 0)
    assert all(word in label for word in ("center", "count", "step", "relative", "NaN"))
    assert url_params(dash_duo)["view"] == "front"
    until(
        lambda: (
            run_js(dash_duo, "return document.querySelector('#hist-axis-group').style.display")
            == "none"
        ),
        10,
    )

    click_option(dash_duo, "#hist-view", "Top")
    click_option(dash_duo, "#hist-axis", "Relative time (s)")
    until(lambda: set(run_js(dash_duo, HIST_META)) == {'{"view":"top","axis":"relative"}'}, 10)
    assert url_params(dash_duo)["axis"] == "relative" and "view" not in url_params(dash_duo)

    dash_duo.find_element("#hist-raw input").click()
    dash_duo.wait_for_contains_text("#hist-cards", "raw buckets")
    assert url_params(dash_duo)["raw"] == "1"

    # Full screen per chart, in the browser.
    dash_duo.find_element("#hist-cards .di-vp-full").click()
    until(
        lambda: run_js(dash_duo, "return document.querySelectorAll('.di-full-screen').length") == 1,
        10,
    )
    # The label and the class are two outputs of one callback; wait for both to be drawn.
    until(
        lambda: (
            run_js(
                dash_duo, "return document.querySelector('.di-full-screen .di-vp-full').textContent"
            )
            == "✕ Exit full screen"
        ),
        10,
    )
    dash_duo.find_element(".di-full-screen .di-vp-full").click()
    until(
        lambda: run_js(dash_duo, "return document.querySelectorAll('.di-full-screen').length") == 0,
        10,
    )

    # The regex filter hides tags.
    search = dash_duo.find_element("#hist-tags-filter")
    search.send_keys("nan")
    until(lambda: len(run_js(dash_duo, HIST_META)) == 2, 10)
    assert url_params(dash_duo)["filter"] == "nan"
    assert console_errors(dash_duo) == []


#: Each histogram card: whether it is on screen and whether its chart is drawn.
CARDS = """
return Array.from(document.querySelectorAll('.di-vp-card')).map(card => {
    const rect = card.getBoundingClientRect();
    const plot = card.querySelector('.js-plotly-plot');
    return {onScreen: rect.bottom > 0 && rect.top < window.innerHeight,
            drawn: Boolean(plot && plot._fullLayout)};
});"""


def test_only_the_charts_on_screen_are_drawn(dash_duo, tmp_path: Path) -> None:
    """Issue 17 item 8: a page of 12 charts draws those on screen, the others when scrolled
    to; each chart is drawn once."""
    base = tmp_path / "logs"
    rng = np.random.default_rng(2)
    with SummaryWriter(base / "wide", host="t") as writer:
        for step in range(1, 31):
            for i in range(histograms.PAGE_SIZE):
                writer.add_histogram(f"layer{i:02d}", rng.standard_normal(300), step)
            writer.record(step)
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    try:
        dash_duo.driver.set_window_size(1000, 900)
        # Counts the charts plotted (Plotly.react: how dcc.Graph draws and redraws), from
        # when plotly.js sets window.Plotly (the page's first paint holds the scripts until
        # after it: not necessarily before the window's load event).
        dash_duo.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument",
            {
                "source": """
            window.__plots = 0;
            let plotly;
            Object.defineProperty(window, 'Plotly', {configurable: true, get: () => plotly,
              set(value) {
                plotly = value;
                const react = value.react;
                value.react = function () {
                  window.__plots += 1;
                  return react.apply(this, arguments);
                };
              }});"""
            },
        )
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./wide")
        until(lambda: len(run_js(dash_duo, CARDS)) == histograms.PAGE_SIZE)
        until(
            lambda: any(c["onScreen"] for c in run_js(dash_duo, CARDS)),
            msg="no card on screen: the window is too small for this test",
        )
        until(lambda: all(c["drawn"] for c in run_js(dash_duo, CARDS) if c["onScreen"]))
        cards = run_js(dash_duo, CARDS)
        assert not cards[-1]["onScreen"] and not cards[-1]["drawn"]
        drawn = sum(c["drawn"] for c in cards)
        assert 0 < drawn < histograms.PAGE_SIZE
        run_js(dash_duo, "window.scrollTo(0, document.body.scrollHeight);")
        until(lambda: run_js(dash_duo, CARDS)[-1]["drawn"])
        assert run_js(dash_duo, "return window.__plots;") == sum(
            c["drawn"] for c in run_js(dash_duo, CARDS)
        )  # none drawn twice
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()


#: The page's first paint, followed (tests/pages.py first_paint_probe).
PAINT_PROBE = first_paint_probe(
    ".di-vp-card", ".di-hist-preview path[fill]", ".di-vp-tag", ".di-lazy-slot .js-plotly-plot"
)


def test_the_first_screen_is_painted_before_dash_and_handed_over_drawn(
    dash_duo, tmp_path: Path
) -> None:
    """Issue 18 item 5 on the parameter distribution page: its answer paints the first row of
    charts (bands drawn by the server) before Dash starts; the copy lies over the page until
    the page's own charts on screen are drawn, so no frame shows an empty chart; the page's
    scripts never see the copy's elements."""
    base = tmp_path / "logs"
    rng = np.random.default_rng(3)
    with SummaryWriter(base / "six", host="t") as writer:
        for step in range(1, 21):
            for i in range(6):
                writer.add_histogram(f"layer{i:02d}", rng.standard_normal(300) * step, step)
            writer.record(step)
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    try:
        dash_duo.driver.set_window_size(1600, 1000)  # the first row on screen
        dash_duo.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": PAINT_PROBE}
        )
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./six")
        paint = first_paint_handed_over(dash_duo)
        assert paint["previewFrames"] >= 1
        assert paint["titles"] == ["layer00", "layer01", "layer02"]  # the first row
        removed = paint["removed"]
        assert removed["onScreen"][:3] == ["layer00", "layer01", "layer02"]
        assert removed["drawn"] == len(removed["onScreen"])
        # The page's scripts never saw the copy's elements (ids and classes are in a shadow
        # root): the page's own six cards only.
        assert len(run_js(dash_duo, CARDS)) == 6
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()
