"""Smoothing and outliers as TensorBoard users expect (issue 40 item 5): EMA, a centred moving
average or none; "ignore outliers" for the y range; the hover lists runs sorted by value."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars import page as scalars
from dash_insight.plugins.scalars.page_charts import smoother_to_url
from dash_insight.plugins.scalars.query_smoothing import moving_average, outlier_range
from dash_insight.web.url_state import parse_search
from tests.browser import until
from tests.conftest import console_errors, loaded_app
from tests.pages import run_js
from tests.plugins.scalars.test_page import _open, _wait_charts


def _by_hand(values: np.ndarray, window: int) -> np.ndarray:
    """The centred moving average written out point by point."""
    out = values.copy()
    for i, v in enumerate(values):
        if not np.isfinite(v):
            continue
        around = values[max(0, i - (window - 1) // 2) : i + window // 2 + 1]
        out[i] = np.mean(around[np.isfinite(around)])
    return out


@pytest.mark.parametrize("window", [2, 3, 4, 9, 50])
def test_moving_average_is_centred_and_skips_non_finite(window: int) -> None:
    values = np.random.default_rng(3).standard_normal(40)
    values[[0, 7, 8, 30]] = [np.nan, np.inf, np.nan, -np.inf]
    np.testing.assert_allclose(moving_average(values, window), _by_hand(values, window))
    # a constant series stays; a window below 2 or a single point changes nothing
    np.testing.assert_array_equal(moving_average(np.full(5, 2.5), 3), np.full(5, 2.5))
    np.testing.assert_array_equal(moving_average(values, 1), values)
    np.testing.assert_array_equal(moving_average(np.array([4.0]), 5), [4.0])


def test_outlier_range_is_numpys_quantiles() -> None:
    values = np.concatenate([np.linspace(0, 1, 2000), [1e6, -1e6, np.nan]])
    low, high = outlier_range(values)
    finite = values[np.isfinite(values)]
    assert (low, high) == tuple(np.quantile(finite, [0.001, 0.999]))
    assert -1 < low < 0.01 and 0.99 < high < 2  # the two spikes are outside
    assert outlier_range(np.array([np.nan])) is None


def test_smoother_controls_write_the_url_on_both_pages() -> None:
    search = smoother_to_url(["ma"], [15], [["on"]], "?train_id=.%2Fa&smoothing=0.5")
    assert parse_search(search) == {
        "train_id": "./a",
        "smoothing": "0.5",
        "smoother": "ma",
        "window": "15",
        "outliers": "1",
    }
    back = smoother_to_url(["ema"], [9], [[]], search)
    assert parse_search(back) == {"train_id": "./a", "smoothing": "0.5"}
    assert smoother_to_url(["ema"], [9], [[]], back) is compare.dash.no_update
    assert parse_search(smoother_to_url(["none"], [100000], [[]], ""))["window"] == "999"
    for state in (scalars.STATE, compare.STATE):
        parsed = state.parse_search(search)
        assert (parsed.smoother, parsed.window, parsed.outliers) == ("ma", 15, True)
        assert state.parse_search("?smoother=median&window=x").smoother == "ema"


#: The chart of ``arguments[0]``: its smoothed lines' y, its y axis range as drawn, and its
#: hover mode.
CHART = """
const card = Array.from(document.querySelectorAll('.di-chart-card')).find(c =>
    c.querySelector('.di-chart-title').textContent === arguments[0]);
const plot = card && card.querySelector('.js-plotly-plot');
if (!plot || !plot.data || !plot._fullLayout) return null;
return {lines: plot.data.filter(t => (t.meta || {}).role === 'smoothed').map(t => t.y),
        raw: plot.data.filter(t => (t.meta || {}).role === 'raw').map(t => t.y),
        range: plot._fullLayout.yaxis.range, hovermode: plot.layout.hovermode,
        hoversort: plot.layout.hoversort};
"""


def test_moving_average_and_ignore_outliers_in_the_browser(dash_duo, tmp_path: Path) -> None:
    """Four runs, one with a spike 1000 times its values: the moving average draws the Python
    twin's line; "ignore outliers" keeps the spike out of the y range (the 99.9 % quantile of
    the ~1,300 values drawn lies below the spike: with fewer than 1,001 values it would be
    interpolated towards it, as TensorBoard's is); both in the URL; the comparison's hover
    lists the runs by value."""
    from dash_insight import SummaryWriter

    rng = np.random.default_rng(5)
    for name in ("calm", "calm2", "calm3", "spiky"):
        values = (np.linspace(1, 0.2, 400) + rng.random(400) * 0.1).astype(np.float32)
        if name == "spiky":
            values[200] = 1000.0
        with SummaryWriter(tmp_path / "logs" / name, host="test") as writer:
            for step, value in enumerate(values.tolist(), start=1):
                writer.add_value("scalar", "loss", value)
                writer.record(step)
    dash_duo.driver.set_window_size(1280, 900)
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        _open(dash_duo, app, "/compare?jobs=.%2Fcalm,.%2Fcalm2,.%2Fcalm3,.%2Fspiky")
        _wait_charts(dash_duo, 1, timeout=30)
        first = until(lambda: run_js(dash_duo, CHART, "loss"), 30)
        assert first["range"][1] >= 1000  # the spike sets the range
        assert (first["hovermode"], first["hoversort"]) == ("x unified", "value descending")
        dash_duo.find_element('.di-smoother input[value="ma"]').click()
        until(lambda: "smoother=ma" in dash_duo.driver.current_url, 20)

        def smoothed() -> list | None:
            chart = run_js(dash_duo, CHART, "loss")
            lines = chart and chart["lines"]
            return lines if lines and lines[0] != first["lines"][0] else None

        lines = until(smoothed, 30)
        # the default window of 9 points over the points drawn (a pixel column's extremes)
        drawn = np.array(run_js(dash_duo, CHART, "loss")["raw"][0], np.float64)
        np.testing.assert_allclose(lines[0], moving_average(drawn, 9), rtol=1e-12)
        dash_duo.find_element(".di-outliers input").click()
        until(lambda: "outliers=1" in dash_duo.driver.current_url, 20)
        until(lambda: (run_js(dash_duo, CHART, "loss") or {"range": [0, 1e9]})["range"][1] < 10, 30)
        dash_duo.driver.save_screenshot("/tmp/smoothers.png")
        # a reload keeps both
        dash_duo.driver.refresh()
        _wait_charts(dash_duo, 1, timeout=30)
        until(lambda: (run_js(dash_duo, CHART, "loss") or {"range": [0, 1e9]})["range"][1] < 10, 30)
        assert dash_duo.find_element('.di-smoother input[value="ma"]').is_selected()
        assert console_errors(dash_duo) == []
