"""Plotly figure builders shared by pages (pure: data in, figure out)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from dash import dcc

#: Neutral enough for the light and the dark theme (figures are drawn transparent).
TEXT_COLOUR = "#8a9099"
GRID_COLOUR = "rgba(138, 144, 153, 0.25)"
#: ``dcc.Graph`` config of the chart cards: no Plotly logo nor selection tools.
GRAPH_CONFIG: dcc.Graph.Config = {
    "displaylogo": False, "responsive": True,
    "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"]}


def small_layout(height: int | None = 240, **extra: Any) -> go.Layout:
    """A compact transparent layout for cards and grids."""
    axis = {"gridcolor": GRID_COLOUR, "zerolinecolor": GRID_COLOUR, "automargin": True}
    return go.Layout(
        height=height, margin={"l": 8, "r": 8, "t": 8, "b": 8},
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT_COLOUR, "size": 11}, xaxis=axis, yaxis=axis, showlegend=False,
        **extra,
    )


def step_colours(count: int) -> list[str]:
    """From light to dark teal: later steps darker (MindInsight's convention)."""
    if count <= 1:
        return ["rgb(0, 120, 122)"]
    shades = np.linspace(0.25, 1.0, count)
    return [f"rgb({int(190 - 190 * s)}, {int(230 - 110 * s)}, {int(232 - 110 * s)})"
            for s in shades]


def histogram_ridge_figure(steps: Sequence[Any], height: int = 320) -> go.Figure:
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
        return go.Figure(layout=small_layout(height=height))
    return top_figure(series, "step", height, hover=False)
