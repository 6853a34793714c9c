"""Histogram charts drawn on the server for the first paint
(dash_insight.web.components.histogram_preview): the Plotly figure's geometry, ticks and
colours, as HTML + SVG."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import pytest

from dash_insight.core.axis_scale import AxisRange
from dash_insight.web.components import histogram_preview as hp
from dash_insight.web.components import histogram_views as hv
from dash_insight.web.components.figures import GRID_COLOUR

UNITS = hp.UNITS


def _series(
    counts: list[list[float]],
    left: float = -1.0,
    width: float = 0.5,
    steps: list[int] | None = None,
) -> hv.HistogramSeries:
    """Steps on one grid of ``width``-wide buckets from ``left``."""
    buckets = tuple(
        np.column_stack(
            [left + width * np.arange(len(row)), np.full(len(row), width), np.asarray(row, float)]
        )
        for row in counts
    )
    return hv.HistogramSeries(
        steps=tuple(steps or range(1, len(counts) + 1)),
        wall_times=tuple(100.0 + i for i in range(len(counts))),
        buckets=buckets,
    )


def _paths(markup: str) -> list[dict[str, str]]:
    """Every SVG path's attributes."""
    return [
        dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        for tag in re.findall(r"<path ([^>]*)/>", markup)
    ]


def _labels(markup: str) -> list[str]:
    return re.findall(r"<span[^>]*>([^<]*)</span>", markup)


def _points(d: str) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for x, y in re.findall(r"[ML](-?\d+) (-?\d+)", d)]


def test_plotly_chooses_steps_of_1_2_and_5() -> None:
    """What Plotly drew on the page (1600 x 1000 window): a Top view over -8.4..7.3 on a
    424 px axis has ticks every 5 (nice_step alone says 2.5); a Front count axis 0..402 on
    254 px every 100."""
    assert hp.plotly_step(7.323 + 8.371, 424, hp.X_PX_PER_TICK) == 5
    assert hp.plotly_step(402.1, 254, hp.Y_PX_PER_TICK) == 100
    assert hp.plotly_step(0.3, 424, hp.X_PX_PER_TICK) == 0.05
    assert hp.plotly_step(90, 2000, hp.X_PX_PER_TICK) == 10  # at most 9 + 1 ticks


def test_x_ticks_are_written_as_tickformat_3g() -> None:
    assert [hp.g3_text(v) for v in (0.0, -5.0, 0.002, 0.1234, 12.345, 20.0, -60.0)] == [
        "0",
        "\u22125",
        "0.002",
        "0.123",
        "12.3",
        "20",
        "\u221260",
    ]
    assert hp.g3_text(1500.0) == "1.5e+3" and hp.g3_text(999.5) == "1e+3"
    assert hp.g3_text(1e-7) == "1e\u22127" and hp.g3_text(1e-5) == "0.00001"


def test_count_ticks_are_written_as_plotly_writes_them() -> None:
    assert [hp.count_text(v, AxisRange(0, 402, 100)) for v in (0, 100, 400)] == ["0", "100", "400"]
    assert hp.count_text(0.5, AxisRange(0, 3, 0.5)) == "0.5"
    assert hp.count_text(1500, AxisRange(0, 1900, 500)) == "1500"  # under 10,000: plain
    assert [hp.count_text(v, AxisRange(0, 12600, 2000)) for v in (0, 2000, 12000)] == [
        "0",
        "2k",
        "12k",
    ]
    assert hp.count_text(1.5e6, AxisRange(0, 2.1e6, 5e5)) == "1.5M"
    assert hp.inside_ticks(AxisRange(-8.37, 7.32, 5)) == [-5.0, 0.0, 5.0]


def test_top_view_draws_the_figures_bands_in_their_colours() -> None:
    """One path per band, the earliest first (behind), through the figure's own points
    (top_figure's band shapes) placed on its ranges; filled with band_fill over the theme's card,
    outlined in the step colour; the step labels on the right, the count scale on the left, x
    ticks below."""
    series = _series([[1, 4, 2], [2, 8, 1], [0, 3, 3]], steps=[10, 20, 40])
    figure = go.Figure(hv.top_figure(series, hover=False, theme="light"))
    markup = hp.top_html(series, theme="light")
    paths = _paths(markup)
    assert len(paths) == len(figure.layout.shapes) == 3
    x_range, y_range = list(figure.layout.xaxis.range), list(figure.layout.yaxis.range)
    for path, band in zip(paths, figure.layout.shapes, strict=True):
        assert path["fill"] == band.fillcolor and path["stroke"] == band.line.color
        points = [point.split(",") for point in band.path.lstrip("M").split(" L")]
        expected = [
            (
                round((float(x) - x_range[0]) / (x_range[1] - x_range[0]) * UNITS),
                round(UNITS - (float(y) - y_range[0]) / (y_range[1] - y_range[0]) * UNITS),
            )
            for x, y in points
        ]
        assert _points(path["d"]) == expected
        assert "Z" not in path["d"]  # the outline does not run along the base line
    # The earliest band's base line at the top (offset 1), the last one's at the bottom (0).
    assert _points(paths[0]["d"])[0] == (0, round(UNITS * (1 - 1.04 / (y_range[1] + 0.04))))
    assert _points(paths[-1]["d"])[-1] == (UNITS, round(UNITS * (1 - 0.04 / (y_range[1] + 0.04))))
    labels = _labels(markup)
    steps, counts = list(figure.layout.yaxis.ticktext), list(figure.layout.yaxis2.ticktext)
    assert steps == ["10", "15", "20", "25", "30", "35", "40"] and counts == ["0", "5"]
    # x from -1 to 0.5 on a 424 px axis: ticks every 0.5 (Plotly: 6.3 ticks, 1, 2, 5 x 10^k)
    assert labels == ["\u22121", "\u22120.5", "0", "0.5", *steps, *counts]
    margin = figure.layout.margin
    assert f"left:{margin.l}px;right:{margin.r}px;top:{margin.t}px;bottom:{margin.b}px" in markup
    assert 'preserveAspectRatio="none"' in markup
    assert markup.count('vector-effect="non-scaling-stroke"') == 3


def test_top_view_follows_the_vertical_axis() -> None:
    series = _series([[1, 2], [2, 1], [1, 1]])
    relative = hp.top_html(series, "relative")
    assert "0s" in _labels(relative) and "2s" in _labels(relative)


def test_the_dark_theme_fills_bands_on_the_dark_card() -> None:
    series = _series([[1, 2], [2, 1]])
    colours = hv.step_colours(2)
    dark = [p["fill"] for p in _paths(hp.preview_html(series, "top", "step", "dark"))]
    light = [p["fill"] for p in _paths(hp.preview_html(series, "top", "step", "light"))]
    assert dark == [hv.band_fill(c, "dark") for c in colours]
    assert light == [hv.band_fill(c, "light") for c in colours] and dark != light


def test_front_view_draws_a_line_per_step_and_the_count_axis_on_the_right() -> None:
    series = _series([[10, 40, 20], [20, 80, 10]])
    figure = go.Figure(hv.front_figure(series))
    markup = hp.preview_html(series, "front")
    lines = [p for p in _paths(markup) if p.get("fill") == "none"]
    assert [p["stroke"] for p in lines] == [t.line.color for t in figure.data]
    assert all(p["stroke-width"] == str(hv.FRONT_LINE_WIDTH) for p in lines)
    # Counts 0..80 padded as Plotly pads (80 / 0.95) on a 254 px axis: a tick every 20.
    top = 80 / 0.95
    assert _points(lines[1]["d"])[1] == (500, round(UNITS - 80 / top * UNITS))
    labels = _labels(markup)
    assert [t for t in labels if t.isdigit()][:5] == ["0", "20", "40", "60", "80"]
    assert "count" in labels
    grid = [p["d"] for p in _paths(markup) if p.get("stroke") == GRID_COLOUR]
    assert grid[:2] == [f"M0 {UNITS}H{UNITS}", f"M0 {round(UNITS - 20 / top * UNITS)}H{UNITS}"]
    # The x zero line: 0 lies inside -1..0.5.
    assert any(p["d"] == f"M{round(1 / 1.5 * UNITS)} 0V{UNITS}" for p in _paths(markup))
    assert f"right:{figure.layout.margin.r}px" in markup


@pytest.mark.parametrize("view", ["top", "front"])
def test_an_empty_series_says_no_data(view: str) -> None:
    empty = hv.HistogramSeries(steps=(), wall_times=(), buckets=())
    markup = hp.preview_html(empty, view)
    assert "no data" in markup and "<svg" not in markup


def test_steps_without_buckets_are_left_out() -> None:
    series = hv.HistogramSeries(
        steps=(1, 2), wall_times=(0.0, 1.0), buckets=(np.zeros((0, 3)), np.array([[0.0, 1.0, 3.0]]))
    )
    assert len(_paths(hp.top_html(series))) == 1
    assert len([p for p in _paths(hp.front_html(series)) if p.get("fill") == "none"]) == 1
