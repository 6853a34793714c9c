"""A scalar chart drawn on the server for the scalars page's first paint
(dash_insight/plugins/scalars/figures_preview.py): ticks, lines with gaps, smoothing, best star."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dash_insight.core.axis_scale import AxisRange
from dash_insight.plugins.scalars.figures_preview import (
    HEIGHT_PX,
    UNITS,
    PreviewLine,
    line_path,
    preview_html,
    tick_text,
    x_axis,
    y_label_chars,
)
from dash_insight.plugins.scalars.query_smoothing import Smoother, smooth_ema


@pytest.mark.parametrize(
    ("value", "step", "top", "text"),
    [
        (0, 5000, 20000, "0"),
        (5000, 5000, 20000, "5k"),
        (20000, 5000, 20000, "20k"),
        (500000, 500000, 2500000, "0.5M"),
        (2.5e9, 5e8, 2.5e9, "2.5B"),  # Plotly's exponent format "B"
        (-0.5, 0.5, 1.5, "\u22120.5"),
        (1.0, 0.5, 1.5, "1"),
        (0.25, 0.25, 1, "0.25"),
        (0.0001, 0.0001, 0.0005, "100\u03bc"),  # SI below 10^-3 too
        (-0.0, 1, 1, "0"),
        (700, 100, 900, "700"),
    ],
)
def test_tick_labels_read_as_plotly_writes_them(
    value: float, step: float, top: float, text: str
) -> None:
    assert tick_text(value, step, top) == text


def test_the_x_axis_spans_the_data_exactly_with_nice_steps() -> None:
    axis = x_axis(1, 20000)
    assert (axis.low, axis.high, axis.step) == (1, 20000, 5000)
    assert x_axis(7, 7).high == 8  # one step: a span to draw it in


def test_a_line_lifts_its_pen_over_gaps_and_flips_y() -> None:
    x = np.array([0.0, 1, 2, 3, 4])
    y = np.array([0.0, 1, np.nan, np.inf, 0.5])
    path = line_path(x, y, AxisRange(0, 4, 1), AxisRange(0, 1, 0.5))
    assert path == f"M0.0 {UNITS:.1f}L250.0 0.0M1000.0 500.0"


def test_the_y_label_width_counts_the_widest_tick() -> None:
    assert y_label_chars(AxisRange(-0.5, 1.5, 0.5)) == 4  # "−0.5"
    # "20k": the browser's estimate (tickChars) gives labels from 10^4 four characters.
    assert y_label_chars(AxisRange(0, 20000, 5000)) == 4
    assert y_label_chars(AxisRange(0, 1e300, 2e299)) == 9  # a power of ten


def _numbers(path: str) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in re.findall(r"[ML](-?[\d.]+) (-?[\d.]+)", path)]


def test_a_chart_draws_grid_ticks_line_note_and_star() -> None:
    x = np.arange(1, 101, dtype=float)
    y = 1 / x
    chart = preview_html(
        [PreviewLine(x, y, "#00a5a7", best=(100.0, 0.01))],
        0.0,
        "step",
        note="100 of 5000 points drawn",
    )
    assert chart.startswith(
        f'<div class="di-chart-preview" style="position:relative;height:{HEIGHT_PX}px;'
    )
    lines = re.findall(
        r'<path d="([^"]+)" fill="none" stroke="#00a5a7" stroke-width="([\d.]+)"', chart
    )
    assert [width for _, width in lines] == ["1.8"]  # unsmoothed: one line
    points = _numbers(lines[0][0])
    assert len(points) == 100
    assert points[0][0] == 0.0 and points[-1][0] == UNITS  # the x axis spans the data
    assert all(0 <= py <= UNITS for _, py in points)  # inside the nice y range
    labels = re.findall(r">([^<>]+)</span>", chart)
    assert labels[:5] == ["0", "0.2", "0.4", "0.6", "0.8"]  # y: nice range 0..1
    assert "step" in labels and "100 of 5000 points drawn" in labels
    assert "\u2605" in labels  # the best point's star
    # The star at its point, moved in from the plot's edges (here the right one) so that it
    # covers no tick label (issue #38 item 4).
    star = re.search(
        r"left:clamp\(10px,([\d.]+)%,calc\(100% - 10px\)\);"
        r"top:clamp\(10px,([\d.]+)%,calc\(100% - 10px\)\);transform:translate\(-50%,-50%\);"
        r'font-size:14px;color:#00a5a7">\u2605',
        chart,
    )
    assert star and float(star.group(1)) == 100.0 and float(star.group(2)) == pytest.approx(99.0)


def test_a_smoothed_chart_draws_the_faded_raw_line_under_the_smoothed_one() -> None:
    rng = np.random.default_rng(0)
    x = np.arange(200, dtype=float)
    y = rng.random(200)
    chart = preview_html([PreviewLine(x, y, "#e8684a")], 0.9, "step")
    strokes = re.findall(
        r'<path d="([^"]+)" fill="none" stroke="#e8684a" '
        r'stroke-width="([\d.]+)" stroke-opacity="([\d.]+)"',
        chart,
    )
    assert [(w, o) for _, w, o in strokes] == [("1", "0.25"), ("1.8", "1")]
    drawn = _numbers(strokes[1][0])
    expected = smooth_ema(y, 0.9)
    low, high = 0.0, 1.0  # the nice range of values in [0, 1)
    assert [round(UNITS - (v - low) / (high - low) * UNITS, 1) for v in expected[:5]] == [
        py for _, py in drawn[:5]
    ]


def test_the_first_paint_follows_the_pages_smoother_and_outliers() -> None:
    """The server's chart draws what the browser's will: the moving average or no smoothing
    the URL asks for, and the y range without outliers ("ignore outliers")."""
    x = np.arange(200, dtype=float)
    y = np.sin(x / 10)
    y[100] = 1000.0  # one spike
    pattern = (
        r'<path d="([^"]+)" fill="none" stroke="#e8684a" '
        r'stroke-width="([\d.]+)" stroke-opacity="([\d.]+)"'
    )

    def strokes(chart: str) -> list[tuple[str, str, str]]:
        return re.findall(pattern, chart)

    plain = preview_html([PreviewLine(x, y, "#e8684a")], Smoother("none", 0.9), "step")
    assert [(w, o) for _, w, o in strokes(plain)] == [("1.8", "1")]  # no faded raw line
    averaged = preview_html([PreviewLine(x, y, "#e8684a")], Smoother("ma", 0.0, 5), "step")
    assert [(w, o) for _, w, o in strokes(averaged)] == [("1", "0.25"), ("1.8", "1")]
    assert len(_numbers(strokes(averaged)[1][0])) == 200
    long_x = np.arange(5000, dtype=float)  # one spike in 5,000: past the 99.9 % quantile
    long_y = np.where(long_x == 2500, 1000.0, np.sin(long_x / 10))
    wide = preview_html([PreviewLine(long_x, long_y, "#e8684a")], 0.0, "step")
    narrow = preview_html([PreviewLine(long_x, long_y, "#e8684a")], 0.0, "step", outliers=True)
    assert ">1000<" in wide and ">1000<" not in narrow and ">1<" in narrow


def test_nothing_is_drawn_without_a_finite_point() -> None:
    assert (
        preview_html(
            [PreviewLine(np.array([1.0, 2.0]), np.array([np.nan, np.inf]), "#000")], 0, "step"
        )
        == ""
    )
    assert preview_html([], 0, "step") == ""


def test_the_dark_theme_takes_the_dark_text_colour() -> None:
    line = [PreviewLine(np.array([1.0, 2.0]), np.array([1.0, 2.0]), "#000")]
    assert "color:#c9ced6" in preview_html(line, 0, "step", dark=True)
    assert "color:#5f6670" in preview_html(line, 0, "step")


def test_a_constant_series_sits_in_the_middle_of_its_axis() -> None:
    chart = preview_html([PreviewLine(np.arange(10.0), np.full(10, 0.05), "#000")], 0, "step")
    path = re.search(r'<path d="([^"]+)" fill="none"', chart)
    assert path is not None
    assert {py for _, py in _numbers(path.group(1))} == {500.0}
