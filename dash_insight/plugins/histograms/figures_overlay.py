"""One histogram tag of several runs in one chart, at one step (the comparison's histograms tab).

Neither MindInsight (one job per parameter-distribution page) nor TensorBoard (one run per
histogram chart) overlays runs; both trackers ask for it. Each run shows its histogram at the
last step it has at or below the chosen one (:func:`~dash_insight.web.components.compare_runs
.step_at_or_below`), and all of them are re-binned onto one shared grid (MindInsight's
:func:`~dash_insight.core.histogram_bins.unify`, as it does for the steps of one tag) so that
their bars line up and their counts compare bucket by bucket.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dash_insight.core import histogram_bins
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.vocabulary import PluginName
from dash_insight.web.components.compare_runs import step_at_or_below
from dash_insight.web.components.figures import small_layout
from dash_insight.web.components.histogram_views import band_fill
from dash_insight.web.components.run_colours import run_colour


@dataclass(frozen=True)
class RunHistogram:
    """One run's histogram at the slider's step: ``step`` shown (None: the run has nothing at
    or before it; ``first`` its first step), ``buckets`` (n, 3) left/width/count on the shared
    grid, or ``problem`` when it could not be read."""

    train_id: str
    step: int | None
    first: int | None
    buckets: np.ndarray | None = None
    problem: str | None = None


def run_steps(provider: DataProvider, train_id: str, tag: str) -> list[int]:
    """The steps of ``tag`` in a run, ascending ([] when it cannot be read)."""
    try:
        return sorted(
            int(s) for s in provider.value_steps(train_id, PluginName.HISTOGRAM, tag).step
        )
    except DataError:
        return []


def histograms_at(
    provider: DataProvider,
    runs: Sequence[str],
    tag: str,
    wanted: int,
    steps_of: Mapping[str, Sequence[int]],
) -> list[RunHistogram]:
    """Each run's histogram of ``tag`` at its step at or below ``wanted`` (``steps_of``: each
    run's steps, ascending), re-binned together onto one grid."""
    out: list[RunHistogram | None] = []
    values: list[Any] = []
    for train_id in runs:
        steps = list(steps_of.get(train_id, ()))
        step = step_at_or_below(steps, wanted)
        first = steps[0] if steps else None
        if step is None:
            out.append(RunHistogram(train_id, None, first))
            continue
        try:
            values.append(provider.read_value(train_id, PluginName.HISTOGRAM, tag, step))
        except DataError as error:
            out.append(RunHistogram(train_id, step, first, problem=str(error)))
            continue
        out.append(None)  # filled below, once the shared grid is known
    grids = iter(histogram_bins.unify(values) if values else [])
    result = []
    for train_id, entry in zip(runs, out, strict=True):
        if entry is None:
            steps = list(steps_of[train_id])
            entry = RunHistogram(
                train_id, step_at_or_below(steps, wanted), steps[0], buckets=next(grids)
            )
        result.append(entry)
    return result


def outline(buckets: np.ndarray) -> tuple[list[float], list[float]]:
    """The outline of a histogram's bars as one line: up from 0 at the first left edge, across
    each bucket at its count, down to 0 at the last right edge (``x`` = edges twice each,
    ``y`` = 0, c0, c0, c1, c1, ..., c(n-1), 0)."""
    lefts, widths, counts = (np.asarray(buckets[:, i], dtype=np.float64) for i in range(3))
    edges = np.append(lefts, lefts[-1] + widths[-1]) if len(lefts) else np.array([])
    xs = np.repeat(edges, 2).tolist()
    ys = [0.0, *np.repeat(counts, 2).tolist(), 0.0] if len(counts) else []
    return xs, ys


def overlay_figure(
    tag: str, entries: Sequence[RunHistogram], colours: Mapping[str, str], height: int = 380
) -> go.Figure:
    """One outline per run with a histogram (:func:`outline`), in its run colour with a light
    fill, named ``<run> · step <n>`` in its hover; ``meta`` = {run, step}. No Plotly legend:
    the tab's notes below the chart name each run once, with its colour and step (#38 item 9)."""
    traces = []
    for entry in entries:
        if entry.buckets is None:
            continue
        xs, ys = outline(entry.buckets)
        # A run without a colour in ``colours``: the rule's for a run it does not place.
        colour = colours.get(entry.train_id) or run_colour(entry.train_id, ())
        name = _("{run} · step {step}").format(run=entry.train_id, step=entry.step)
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                name=name,
                line={"color": colour, "width": 2},
                fill="tozeroy",
                fillcolor=band_fill(colour, None, 0.12),
                meta={"run": entry.train_id, "step": entry.step},
                hovertemplate=f"{name}<br>%{{x:.4g}}: %{{y:.6g}}<extra></extra>",
            )
        )
    figure = go.Figure(data=traces, layout=small_layout(height))
    figure.update_layout(
        showlegend=False,
        hovermode="closest",
        uirevision=tag,
    )
    figure.update_xaxes(title={"text": tag})
    figure.update_yaxes(title={"text": _("count")}, rangemode="tozero")
    return figure
