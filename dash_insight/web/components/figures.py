"""Plotly figure builders shared by pages (pure: data in, figure out)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from dash import dcc

from dash_insight.core.axis_scale import AxisRange, aligned_ranges, nice_range

#: Neutral enough for the light and the dark theme (figures are drawn transparent).
TEXT_COLOUR = "#8a9099"
GRID_COLOUR = "rgba(138, 144, 153, 0.25)"


def graph_config(**extra: Any) -> dcc.Graph.Config:
    """The ``dcc.Graph`` config of an interactive chart: Plotly's toolbar (modebar) only while
    the pointer is over the chart, never its logo. Where the toolbar sits (out of the way of
    our own buttons, notes, top ticks and peaks) is in ``assets/dash-insight.css``
    (``.modebar-container``); ``assets/scalar-charts.js`` gives its charts the same."""
    config: dict[str, Any] = {"displaylogo": False, "displayModeBar": "hover", "responsive": True}
    config.update(extra)
    return config  # type: ignore[return-value]


#: ``dcc.Graph`` config of the chart cards: no Plotly logo nor selection tools.
GRAPH_CONFIG: dcc.Graph.Config = graph_config(
    modeBarButtonsToRemove=["lasso2d", "select2d", "autoScale2d"]
)


def small_layout(height: int | None = 240, **extra: Any) -> go.Layout:
    """A compact transparent layout for cards and grids. Its tick labels are all drawn
    (``ticklabeloverflow`` "allow", as ``assets/scalar-charts.js``'s): ``automargin`` keeps
    them inside the graph, so Plotly's default ("hide past div") hid none, and it measured
    every label's box for that, a forced layout each."""
    axis = {
        "gridcolor": GRID_COLOUR,
        "zerolinecolor": GRID_COLOUR,
        "automargin": True,
        "ticklabeloverflow": "allow",
    }
    return go.Layout(
        height=height,
        margin={"l": 8, "r": 8, "t": 8, "b": 8},
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT_COLOUR, "size": 11},
        xaxis=axis,
        yaxis=axis,
        showlegend=False,
        **extra,
    )


def _finite_extent(values: Any) -> tuple[float, float] | None:
    array = np.asarray(values, dtype=np.float64).ravel()
    array = array[np.isfinite(array)]
    return (float(array.min()), float(array.max())) if array.size else None


def _pinned(axis: AxisRange) -> dict[str, Any]:
    return {
        "range": [axis.low, axis.high],
        "tickmode": "linear",
        "tick0": axis.low,
        "dtick": axis.step,
        "autorange": False,
    }


def nice_y_axes(left: Any, right: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Layout updates of a left and an optional right y axis for the values each draws (NaN
    and inf ignored): nice ranges and ticks (:mod:`dash_insight.core.axis_scale`); with both
    sides, the same number of intervals so the right ticks sit on the left grid lines. An
    axis without a finite value gets ``{}`` (Plotly's own range)."""
    left_extent = _finite_extent(left) if left is not None else None
    right_extent = _finite_extent(right) if right is not None else None
    if left_extent and right_extent:
        left_axis, right_axis = aligned_ranges(left_extent, right_extent)
        return _pinned(left_axis), _pinned(right_axis)
    return (
        {} if left_extent is None else _pinned(nice_range(*left_extent)),
        {} if right_extent is None else _pinned(nice_range(*right_extent)),
    )


def step_colours(count: int) -> list[str]:
    """From light to dark teal: later steps darker (MindInsight's convention)."""
    if count <= 1:
        return ["rgb(0, 120, 122)"]
    shades = np.linspace(0.25, 1.0, count)
    return [
        f"rgb({int(190 - 190 * s)}, {int(230 - 110 * s)}, {int(232 - 110 * s)})" for s in shades
    ]


def histogram_ridge_figure(steps: Sequence[Any], height: int = 320) -> dict[str, Any]:
    """Top (offset) view: one filled band per step, earliest at the top, later steps lower and
    in front. ``steps`` have ``.step`` and ``.buckets`` ((n, 3): left, width, count) and
    optionally ``.wall_time``. A static preview (no hover) of
    :func:`dash_insight.web.components.histogram_views.top_figure`."""
    from dash_insight.web.components.histogram_views import HistogramSeries, top_figure

    series = HistogramSeries(
        steps=tuple(int(s.step) for s in steps),
        wall_times=tuple(float(getattr(s, "wall_time", 0.0)) for s in steps),
        buckets=tuple(np.asarray(s.buckets, dtype=np.float64).reshape(-1, 3) for s in steps),
    )
    if not len(series):
        return go.Figure(layout=small_layout(height=height)).to_plotly_json()
    return top_figure(series, "step", height, hover=False)
