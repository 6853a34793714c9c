"""Parameter distribution, images and tensors pages: pure helpers, page building on the corpus,
and browser tests (dash_duo, headless Chromium)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import dash
import numpy as np
import pytest
from dash import html
from dash.testing.wait import until
from selenium.webdriver.common.keys import Keys

from dash_insight import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.histograms import page as histograms
from dash_insight.plugins.images import page as images
from dash_insight.plugins.tensors import page as tensors
from dash_insight.plugins.tensors.algorithms import parse_dims
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web.application import PLUGINS
from dash_insight.web.components import tag_select as ts
from tests.conftest import console_errors

# --- tag selection -------------------------------------------------------------------------------


def test_tag_encoding_round_trips() -> None:
    tags = ["conv1.weight/auto", "a,b", "back\\slash", "x=y"]
    assert ts.decode_tags(ts.encode_tags(tags)) == tags
    assert ts.decode_tags(ts.encode_tags([])) == []
    assert ts.decode_tags(None) is None
    mapping = {"tensor/a": "[0,:,2:5]", "odd,=tag": "12"}
    assert ts.decode_map(ts.encode_map(mapping)) == mapping
    assert ts.decode_map("broken,=x,ok=1") == {"ok": "1"}
    assert ts.decode_map(None) == {}


def test_filter_and_visible_tags() -> None:
    tags = ["conv1.weight", "conv2.weight", "fc1.bias"]
    assert ts.filter_tags(tags, "^CONV") == (["conv1.weight", "conv2.weight"], None)
    matching, error = ts.filter_tags(tags, "([")
    assert matching == tags and error and error.startswith("invalid regular expression")
    assert ts.visible_tags(tags, None, "bias") == ["fc1.bias"]
    assert ts.visible_tags(tags, ["fc1.bias", "conv1.weight"], "") == ["conv1.weight",
                                                                        "fc1.bias"]
    assert ts.visible_tags(tags, [], "") == []


def test_selection_from_params_reports_unknown_tags() -> None:
    tags = ["a", "b"]
    assert ts.selection_from_params({}, tags) == (None, [])
    assert ts.selection_from_params({"tags": "b,zz"}, tags) == (["b"], ["zz"])
    assert ts.tags_to_params(tags, ["a", "b"], "") == {"tags": None, "filter": None}
    assert ts.tags_to_params(tags, ["b"], "x") == {"tags": "b", "filter": "x"}
    assert ts.tags_to_params(tags, [], "") == {"tags": ",", "filter": None}


def test_sync_selection_all_box_respects_the_filter() -> None:
    tags = ["conv1", "conv2", "fc1"]
    chosen, all_value, count, error = ts.sync_selection("all", tags, ["fc1"], ["all"], "conv")
    assert chosen == tags and all_value == ["all"] and error is None
    assert count == "2 of 3 shown"
    chosen, all_value, _, _ = ts.sync_selection("all", tags, tags, [], "conv")
    assert chosen == ["fc1"] and all_value == []  # hidden tags stay as they were
    chosen, all_value, count, _ = ts.sync_selection(None, tags, tags, [], "")
    assert all_value == ["all"] and count == "3 tags"


def test_short_label_and_paging() -> None:
    assert ts.short_label("short") == "short"
    label = ts.short_label("a" * 30 + "/middle/" + "z" * 30, 20)
    assert len(label) == 20 and label.startswith("a") and label.endswith("z") and "…" in label
    assert ts.page_of(list(range(25)), 3, 12) == ([24], 3, 3)
    assert ts.page_of(list(range(5)), 9, 12) == ([0, 1, 2, 3, 4], 1, 1)
    assert ts.page_of([], 1, 12) == ([], 1, 1)


# --- page helpers --------------------------------------------------------------------------------


def test_histogram_page_state_and_search() -> None:
    state = histograms.page_state({"view": "sideways", "axis": "relative", "raw": "1",
                                   "page": "x"})
    assert state == {"view": "top", "axis": "relative", "raw": True, "page": 1, "filter": ""}
    search = histograms.state_search("./job", {"tags": None, "filter": None}, state)
    assert parse_qs(search[1:]) == {"train_id": ["./job"], "axis": ["relative"], "raw": ["1"]}


def test_image_helpers() -> None:
    assert images.image_filter(50, 50) == "brightness(1) contrast(1)"
    assert images.image_filter(75, 0) == "brightness(1.5) contrast(0)"
    assert images.step_position([1, 50, 100], "50") == 1
    assert images.step_position([1, 50, 100], "51") == 2
    assert images.step_position([1, 50, 100], "x") == 2
    assert images.step_position([1, 50, 100], None) == 2
    assert images.page_state({"b": "300", "c": "-1"})["b"] == 100


def test_dims_helpers() -> None:
    assert tensors.dims_items("[0, :, 2:5]", 3) == ["0", ":", "2:5"]
    assert tensors.dims_items("[0]", 3) == ["0", ":", ":"]
    assert tensors.dims_items("[]", 0) == []
    assert tensors.dims_from_items(["0", " :", None]) == "[0,:,]"
    assert tensors.start_dims((1000, 1000)) == "[0:100,:]"
    assert tensors.start_dims((2, 3, 4, 5)) == "[0,0,:,:]"
    assert tensors.start_dims((10_000_000,)) == "[0:1000]"
    assert tensors.selected_count((1000, 1000), "[:,:]") == 1_000_000
    assert tensors.selected_count((2, 3, 4, 5), "[1,-1,1:3,::2]") == 6
    assert tensors.axis_indices(slice(2, 10, 3), 20) == [2, 5, 8]
    assert tensors.axis_indices(-1, 5) == [4]


def test_json_values_keep_types_and_mark_non_finite() -> None:
    assert tensors.json_values(np.array([True, False])) == [True, False]
    assert tensors.json_values(np.array([[1, -2]], np.int32)) == [1, -2]
    assert tensors.json_values(np.array([0.1, np.nan, np.inf, -np.inf], np.float32)) == [
        0.1, "NAN", "INF", "-INF"]
    assert tensors.json_values(np.array([0.1], np.float64)) == [0.1]
    assert tensors.value_kind(np.dtype(bool)) == "b"
    assert tensors.value_kind(np.dtype(np.uint8)) == "i"
    assert tensors.colour_scale(np.array([-3.0, 2.0, np.nan])) == 3.0
    assert tensors.colour_scale(np.array([True])) == 0.0


def test_table_data_shapes_and_headers() -> None:
    array = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    index = parse_dims("[1,:,1:3]", array.shape)
    rows, columns = tensors.table_data(array[index], index, array.shape)
    assert [r["row"] for r in rows] == [0, 1, 2]
    assert [c["headerName"] for c in columns[1:]] == ["1", "2"]
    assert rows[2] == {"row": 2, "c0": 21, "c1": 22}
    index = parse_dims("[0,1,:]", array.shape)
    rows, columns = tensors.table_data(array[index], index, array.shape)
    assert len(rows) == 4 and columns[1]["headerName"] == "value" and rows[3]["c0"] == 7
    index = parse_dims("[0,1,2]", array.shape)
    rows, _ = tensors.table_data(array[index], index, array.shape)
    assert rows == [{"row": -1, "c0": 6}]


def test_statistics_items_and_limit_message() -> None:
    stats = {"max": 3.0, "min": -1.0, "avg": 0.5, "count": 10, "nan_count": 1,
             "pos_inf_count": 0, "neg_inf_count": 2, "neg_zero_count": 3, "zero_count": 1,
             "pos_zero_count": 3, "is_bool": False}
    items = dict(tensors.statistics_items(stats, "f"))
    assert items["NaN"] == "1" and items["-Inf"] == "2" and items["negative"] == "3"
    assert "NaN" not in dict(tensors.statistics_items(stats, "i"))
    message = tensors.too_large_message("[:,:]", 1_000_000)
    assert message.startswith("The requested data exceeds the upper limit 100,000")
    assert "1,000,000" in message


def test_tensor_page_state_round_trips_card_state() -> None:
    params = {"view": "histogram", "hview": "front", "fmt": "sci", "dec": "12",
              "steps": "tensor/a=100", "dims": ts.encode_map({"tensor/a": "[0,:]"})}
    state = tensors.page_state(params)
    assert state["dec"] == 10 and state["fmt"] == "sci" and state["view"] == "histogram"
    assert state["dims"] == {"tensor/a": "[0,:]"}
    search = tensors.state_search("./ops_all", {"tags": None, "filter": None}, state)
    assert tensors.page_state({k: v[0] for k, v in parse_qs(search[1:]).items()}) == state


# --- pages on the corpus -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def service(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    data = DataService(Settings(str(corpus), workspace=str(tmp_path_factory.mktemp("ws")),
                       reload_interval=0))
    data.start()
    assert data.loader.wait_rounds(1)
    yield data
    data.close()


def _raw_text(component: Any) -> str:
    if component is None or isinstance(component, bool):
        return ""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(_raw_text(c) for c in component)
    return _raw_text(getattr(component, "children", None))


def _text(component: Any) -> str:
    """All text inside a Dash component tree, runs of spaces collapsed."""
    return " ".join(_raw_text(component).split())


def test_layouts_explain_missing_jobs_and_data(service: DataService) -> None:
    app = dash.Dash(__name__)
    for page in (histograms, images, tensors):
        assert "no training job" in _text(page.layout(app, service, {"train_id": "./nope"}))
    assert "no tensor yet" in _text(tensors.layout(app, service, {"train_id": "./lenet_sc"}))
    empty = tensors.layout(app, service, {"train_id": "./multi_file"})
    assert "TensorSummary" in _text(empty)


def test_histogram_cards_report_non_finite_values(service: DataService) -> None:
    state = histograms.page_state({})
    card = histograms.histogram_card(service.provider, "./ops_all", "hist/with_nan_inf", state)
    assert "NaN 7, +Inf 3, -Inf 2" in _text(card)
    assert "51 steps" in _text(card)
    raw = histograms.histogram_card(service.provider, "./ops_all", "hist/normal_1d",
                                    histograms.page_state({"raw": "1", "view": "front"}))
    assert "raw buckets" in _text(raw)
    assert histograms.unknown_message(["nope"], "./ops_all", "histogram") is not None


def test_many_histogram_steps_are_thinned_and_counted(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    rng = np.random.default_rng(1)
    with SummaryWriter(base / "long", host="t") as writer:
        for step in range(1, 151):
            writer.add_histogram("w", rng.standard_normal(200), step)
    data = DataService(Settings(str(base), workspace=str(tmp_path / "ws"), reload_interval=0))
    data.start()
    try:
        assert data.loader.wait_rounds(1)
        card = histograms.histogram_card(data.provider, "./long", "w", histograms.page_state({}))
        assert "100 of 150 steps shown" in _text(card)
        graph = card.children[1].children
        assert len(graph.figure.data) == 2 * histograms.MAX_STEPS
        assert list(graph.figure.layout.yaxis.ticktext)[-1] == "150"  # the last step is kept
    finally:
        data.close()


def test_tensor_table_view_on_the_corpus(service: DataService) -> None:
    provider = TensorQueries(service.provider)
    grid, stats, error = tensors.table_view(provider, "./ops_all", "tensor/big_1m_f32", 100,
                                            "[:,:]", "value", 5)
    assert error is None and "exceeds the upper limit 100,000" in _text(grid)
    assert "count 1,000,000" in _text(stats)
    grid, _, error = tensors.table_view(provider, "./ops_all", "tensor/big_1m_f32", 100,
                                        tensors.start_dims((1000, 1000)), "value", 5)
    table = grid.children
    assert error is None and len(table.rowData) == 100 and len(table.columnDefs) == 1001
    _, _, error = tensors.table_view(provider, "./ops_all", "tensor/rank2_f32", 500,
                                     "[0,:,:]", "value", 5)
    assert error and "2 dimension(s)" in error
    grid, stats, _ = tensors.table_view(provider, "./ops_all", "tensor/bool_mask", 500,
                                        "[:,:]", "value", 5)
    assert grid.children.dashGridOptions["context"]["kind"] == "b"
    assert {type(v) for row in grid.children.rowData for k, v in row.items() if k != "row"} \
        == {bool}
    assert "true" in _text(stats) and "false" in _text(stats)
    grid, _, _ = tensors.table_view(provider, "./ops_all", "tensor/rank4_i32", 500,
                                    "[0,0,:,:]", "value", 5)
    assert grid.children.dashGridOptions["context"]["kind"] == "i"
    assert isinstance(grid.children.rowData[0]["c1"], int)


def test_large_tensors_open_quickly(tmp_path: Path) -> None:
    """10,000,000 values open (table, statistics, histogram) in well under the UI's patience;
    one value more shows the provider's TensorTooLarge message."""
    base = tmp_path / "logs"
    rng = np.random.default_rng(0)
    with SummaryWriter(base / "big", host="t") as writer:
        writer.add_tensor("ten_million", rng.standard_normal(10_000_000, dtype=np.float32)
                          .reshape(1000, 10_000), step=1)
        writer.add_tensor("too_big", np.zeros((1000, 10_001), np.float32), step=1)
    data = DataService(Settings(str(base), workspace=str(tmp_path / "ws"), reload_interval=0))
    data.start()
    try:
        assert data.loader.wait_rounds(1)
        provider = TensorQueries(data.provider)
        started = time.perf_counter()
        card = tensors.table_card(provider, "./big", "ten_million", tensors.page_state({}))
        applied = card.children[1].children[1].data
        assert applied == "[0:100,0:1000]"
        grid, stats, error = tensors.table_view(provider, "./big", "ten_million", 1, applied,
                                                "value", 5)
        assert error is None and len(grid.children.rowData) == 100
        assert "count 10,000,000" in _text(stats)
        table_seconds = time.perf_counter() - started
        started = time.perf_counter()
        chart = tensors.histogram_card(provider, "./big", "ten_million",
                                       tensors.page_state({"view": "histogram"}), "light")
        assert "1 step" in _text(chart)
        histogram_seconds = time.perf_counter() - started
        print(f"10M tensor: table {table_seconds:.2f} s, histogram {histogram_seconds:.2f} s")
        assert table_seconds < 5 and histogram_seconds < 5
        grid, _, _ = tensors.table_view(provider, "./big", "too_big", 1, "[0:10,0:10]",
                                        "value", 5)
        assert "10,001,000 values" in _text(grid)
        chart = tensors.histogram_card(provider, "./big", "too_big",
                                       tensors.page_state({}), None)
        assert "10,001,000 values" in _text(chart)
    finally:
        data.close()


# --- browser -------------------------------------------------------------------------------------


def _params(dash_duo) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(dash_duo.driver.current_url).query).items()}


def _js(dash_duo, script: str) -> Any:
    return dash_duo.driver.execute_script(script)


def _click_option(dash_duo, container: str, label: str) -> None:
    """Click the option of a Dash 4 RadioItems / Checklist by its text."""
    dash_duo.driver.execute_script(
        "const [sel, text] = arguments; const option = Array.from(document.querySelectorAll("
        "sel + ' .dash-options-list-option')).find(o => o.textContent.trim() === text);"
        "option.click();", container, label)


def _press(dash_duo, thumb_selector: str, key: str, times: int = 1) -> None:
    thumb = dash_duo.find_element(thumb_selector)
    for _ in range(times):
        thumb.send_keys(key)


HIST_META = ("return Array.from(document.querySelectorAll('.di-vp-graph .js-plotly-plot'))"
             ".map(g => g.layout && g.layout.meta ? JSON.stringify(g.layout.meta) : '')")


browser = pytest.mark.browser


@browser
def test_histogram_page_views_axis_raw_and_full_screen(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url
                           + "/histograms?train_id=./ops_all&tags=hist/normal_1d,hist/all_nan,"
                             "hist/with_nan_inf,no/such_tag")
    until(lambda: len(_js(dash_duo, HIST_META)) == 3, 15)
    assert "no/such_tag" in dash_duo.find_element("#histogram-unknown-tags").text
    until(lambda: set(_js(dash_duo, HIST_META)) == {'{"view":"top","axis":"step"}'}, 10)
    assert "NaN 7, +Inf 3, -Inf 2" in dash_duo.find_element("#hist-cards").text

    _click_option(dash_duo, "#hist-view", "Front")
    until(lambda: set(_js(dash_duo, HIST_META)) == {'{"view":"front"}'}, 10)
    assert _params(dash_duo)["view"] == "front"
    until(lambda: _js(dash_duo, "return document.querySelector('#hist-axis-group')"
                                ".style.display") == "none", 10)

    _click_option(dash_duo, "#hist-view", "Top")
    _click_option(dash_duo, "#hist-axis", "Relative time (s)")
    until(lambda: set(_js(dash_duo, HIST_META)) == {'{"view":"top","axis":"relative"}'}, 10)
    assert _params(dash_duo)["axis"] == "relative" and "view" not in _params(dash_duo)

    dash_duo.find_element("#hist-raw input").click()
    dash_duo.wait_for_contains_text("#hist-cards", "raw buckets")
    assert _params(dash_duo)["raw"] == "1"

    # Full screen per chart, in the browser.
    dash_duo.find_element("#hist-cards .di-vp-full").click()
    until(lambda: _js(dash_duo, "return document.querySelectorAll('.di-full-screen').length")
          == 1, 10)
    dash_duo.find_element(".di-full-screen .di-vp-full").click()
    until(lambda: _js(dash_duo, "return document.querySelectorAll('.di-full-screen').length")
          == 0, 10)

    # The regex filter hides tags.
    search = dash_duo.find_element("#hist-filter")
    search.send_keys("nan")
    until(lambda: len(_js(dash_duo, HIST_META)) == 2, 10)
    assert _params(dash_duo)["filter"] == "nan"
    assert console_errors(dash_duo) == []


IMG = ("return Array.from(document.querySelectorAll('.di-vi-img')).map(i => [i.src, "
       "getComputedStyle(i).filter])")


@browser
def test_images_step_slider_brightness_and_reset(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/images?train_id=./ops_all&c=60")
    until(lambda: len(_js(dash_duo, IMG)) == 6, 15)
    first = '.di-vi-card:first-child'
    dash_duo.wait_for_text_to_equal(f"{first} .di-vi-meta span", "Step: 500")
    assert _js(dash_duo, IMG)[0][1] == "brightness(1) contrast(1.2)"
    until(lambda: _js(dash_duo, "return document.querySelector('.di-vi-img').naturalWidth")
          == 256, 10)

    # Step slider: every recorded step, the image loaded for the chosen one only.
    _press(dash_duo, f"{first} .di-vi-slider [role=slider]", Keys.ARROW_LEFT, 2)
    dash_duo.wait_for_text_to_equal(f"{first} .di-vi-meta span", "Step: 400")
    assert _js(dash_duo, IMG)[0][0].endswith("step=400")
    until(lambda: "steps" in _params(dash_duo), 10)
    assert _params(dash_duo)["steps"] == "images/rgb_8x32x32=400"

    assert console_errors(dash_duo) == []
    # Brightness and contrast work in the browser alone: take the network away first.
    dash_duo.driver.set_network_conditions(offline=True, latency=0, download_throughput=0,
                                           upload_throughput=0)
    try:
        assert dash_duo.driver.execute_async_script(
            "const done = arguments[0]; fetch('/_dash-layout', {cache: 'no-store'})"
            ".then(() => done('online'), () => done('offline'));") == "offline"
        _press(dash_duo, "#img-brightness [role=slider]", Keys.ARROW_RIGHT, 5)
        until(lambda: {f for _, f in _js(dash_duo, IMG)} == {"brightness(1.1) contrast(1.2)"},
              10)
        assert dash_duo.find_element("#img-brightness-reset").is_enabled()
        dash_duo.find_element("#img-contrast-reset").click()
        until(lambda: {f for _, f in _js(dash_duo, IMG)} == {"brightness(1.1) contrast(1)"}, 10)
        assert not dash_duo.find_element("#img-contrast-reset").is_enabled()
        dash_duo.find_element("#img-brightness-reset").click()
        until(lambda: {f for _, f in _js(dash_duo, IMG)} == {"brightness(1) contrast(1)"}, 10)
        until(lambda: "b" not in _params(dash_duo) and "c" not in _params(dash_duo), 10)
    finally:
        dash_duo.driver.delete_network_conditions()

    # Actual size in a modal.
    dash_duo.find_element(f"{first} .di-vi-frame").click()
    dash_duo.wait_for_contains_text("#img-modal-caption", "step 400 · 256×32 px")
    dash_duo.find_element("#img-modal").click()
    until(lambda: _js(dash_duo, "return document.querySelector('#img-modal').style.display")
          == "none", 10)

    # A reload keeps the chosen step (URL state).
    dash_duo.driver.refresh()
    dash_duo.wait_for_text_to_equal(f"{first} .di-vi-meta span", "Step: 400")


def _card(tag: str) -> str:
    return f'[id*="tensor-card"][id*="{tag}"]'


def _cells(dash_duo, tag: str) -> list[str]:
    return _js(dash_duo, f"return Array.from(document.querySelectorAll('{_card(tag)} "
                         ".ag-center-cols-container .ag-cell')).map(c => c.textContent)")


def _rows(dash_duo, tag: str) -> int:
    return _js(dash_duo, f"return document.querySelectorAll('{_card(tag)} "
                         ".ag-center-cols-container .ag-row').length")


@browser
def test_tensor_table_slice_step_limit_types_and_histogram(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    tags = "tensor/rank2_f32,tensor/bool_mask,tensor/rank4_i32,tensor/big_1m_f32"
    dash_duo.wait_for_page(f"{dash_duo.server_url}/tensors?train_id=./ops_all&tags={tags}")
    for tag in tags.split(","):
        until(lambda tag=tag: _cells(dash_duo, tag), 20)
    # Bool and integer tensors keep their types.
    assert set(_cells(dash_duo, "tensor/bool_mask")) <= {"true", "false"}
    assert "500" in _cells(dash_duo, "tensor/rank4_i32")
    assert all("." not in c for c in _cells(dash_duo, "tensor/rank4_i32"))
    assert all(len(c.split(".")[-1]) == 5 for c in _cells(dash_duo, "tensor/rank2_f32"))
    assert "Shape: [2, 3, 4, 5]" in dash_duo.find_element(_card("tensor/rank4_i32")).text
    assert "DT_INT32" in dash_duo.find_element(_card("tensor/rank4_i32")).text
    assert "count 600" in dash_duo.find_element(_card("tensor/rank2_f32")).text

    # A slice: rows 0:5 of the 20x30 tensor.
    card = _card("tensor/rank2_f32")
    box = dash_duo.find_element(f'{card} input[id*="\\"axis\\":0"]')
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("0:5", Keys.ENTER)
    until(lambda: _rows(dash_duo, "tensor/rank2_f32") == 5, 10)
    until(lambda: "dims" in _params(dash_duo), 10)
    assert _params(dash_duo)["dims"] == "tensor/rank2_f32=[0:5\\,:]"

    # The step slider.
    before = dash_duo.find_element(f"{card} .di-vt-meta").text
    assert "Step: 500" in before
    _press(dash_duo, f"{card} .di-vi-slider [role=slider]", Keys.ARROW_LEFT)
    until(lambda: "Step: 500" not in dash_duo.find_element(f"{card} .di-vt-meta").text, 10)
    until(lambda: "steps" in _params(dash_duo), 10)
    until(lambda: _rows(dash_duo, "tensor/rank2_f32") == 5, 10)  # the slice is kept

    # Scientific notation with 2 decimals, in the browser.
    _click_option(dash_duo, "#tensor-fmt", "Scientific notation")
    until(lambda: all("e" in c for c in _cells(dash_duo, "tensor/rank2_f32")), 10)
    assert _params(dash_duo)["fmt"] == "sci"

    # Too many values: the limit message.
    big = _card("tensor/big_1m_f32")
    box = dash_duo.find_element(f'{big} input[id*="\\"axis\\":0"]')
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(":")
    dash_duo.find_element(f'{big} button[id*="tensor-apply"]').click()
    dash_duo.wait_for_contains_text(big, "The requested data exceeds the upper limit 100,000")
    # A bad dims string: a clear message, the table stays.
    box = dash_duo.find_element(f'{card} input[id*="\\"axis\\":1"]')
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("x", Keys.ENTER)
    dash_duo.wait_for_contains_text(f'{card} [id*="tensor-dims-error"]', "is not an integer")
    until(lambda: _rows(dash_duo, "tensor/rank2_f32") == 5, 10)
    dash_duo.find_element(f'{card} button[id*="tensor-reset"]').click()
    until(lambda: _rows(dash_duo, "tensor/rank2_f32") == 20, 10)
    assert dash_duo.find_element(f'{card} [id*="tensor-dims-error"]').text == ""
    assert dash_duo.find_element(f'{card} input[id*="\\"axis\\":1"]').get_attribute(
        "value") == ":"

    # Histogram view with the Top / Front views.
    _click_option(dash_duo, "#tensor-view-mode", "Histogram")
    until(lambda: len(_js(dash_duo, HIST_META)) == 4, 15)
    _click_option(dash_duo, "#tensor-hview", "Front")
    until(lambda: set(_js(dash_duo, HIST_META)) == {'{"view":"front"}'}, 15)
    assert _params(dash_duo)["view"] == "histogram" and _params(dash_duo)["hview"] == "front"
    assert console_errors(dash_duo) == []


@browser
def test_empty_states_and_unknown_job(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/tensors?train_id=./lenet_sc")
    dash_duo.wait_for_contains_text("#tensor-empty", "no tensor yet")
    dash_duo.wait_for_page(dash_duo.server_url + "/images?train_id=./nope")
    dash_duo.wait_for_contains_text("#page", "no training job")
    dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./ops_all&tags=zzz")
    dash_duo.wait_for_contains_text("#histogram-unknown-tags", "zzz")
    dash_duo.wait_for_contains_text("#hist-cards", "No tag selected")

    # Tag selection: All off, All on, one tag off.
    dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./lenet_sc")
    until(lambda: len(_js(dash_duo, HIST_META)) == 8, 15)
    dash_duo.find_element("#hist-all input").click()
    dash_duo.wait_for_contains_text("#hist-cards", "No tag selected")
    assert _params(dash_duo)["tags"] == ","
    dash_duo.find_element("#hist-all input").click()
    until(lambda: len(_js(dash_duo, HIST_META)) == 8, 15)
    assert "tags" not in _params(dash_duo)
    _click_option(dash_duo, "#hist-tags", "fc1.bias/auto")
    until(lambda: len(_js(dash_duo, HIST_META)) == 7, 15)
    assert "fc1.bias/auto" not in _params(dash_duo)["tags"].split(",")
    assert not dash_duo.find_element("#hist-all input").is_selected()
    assert console_errors(dash_duo) == []


def test_page_modules_are_registered() -> None:
    assert {"/histograms", "/images", "/tensors"} <= {
        page.path for plugin in PLUGINS for page in plugin.pages}
    assert isinstance(tensors.EMPTY[0], str) and isinstance(images.EMPTY[1], html.Code)
