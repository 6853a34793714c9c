"""Plotly figure builders shared by pages (pure: data in, figure out)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

#: Neutral enough for the light and the dark theme (figures are drawn transparent).
TEXT_COLOUR = "#8a9099"
GRID_COLOUR = "rgba(138, 144, 153, 0.25)"


def small_layout(height: int = 240, **extra: Any) -> go.Layout:
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
    in front. ``steps`` have ``.step`` and ``.buckets`` ((n, 3): left, width, count)."""
    figure = go.Figure(layout=small_layout(height=height))
    if not steps:
        return figure
    peak = max((float(s.buckets[:, 2].max()) for s in steps if len(s.buckets)), default=1.0)
    gap = 1.0
    scale = 2.5 * gap / (peak or 1.0)
    colours = step_colours(len(steps))
    ticks = []
    for i, item in enumerate(steps):
        buckets = item.buckets
        if not len(buckets):
            continue
        centres = buckets[:, 0] + buckets[:, 1] / 2
        base = -i * gap
        x = np.concatenate([[centres[0]], centres, [centres[-1]]])
        y = np.concatenate([[base], base + buckets[:, 2] * scale, [base]])
        figure.add_trace(go.Scatter(
            x=x, y=y, mode="lines", fill="toself", line={"color": colours[i], "width": 1},
            fillcolor=colours[i].replace("rgb", "rgba").replace(")", ", 0.35)"),
            name=f"step {item.step}", hoverinfo="skip",
        ))
        ticks.append((base, str(item.step)))
    shown = ticks[:: max(1, len(ticks) // 6)]
    figure.update_layout(yaxis={"tickvals": [t[0] for t in shown],
                                "ticktext": [t[1] for t in shown], "side": "right",
                                "showgrid": False, "zeroline": False})
    return figure
