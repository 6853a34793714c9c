"""Parameter distributions: every step of a histogram tag, re-binned as MindInsight does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dash_insight.core import histogram_bins
from dash_insight.core.format.events import HistogramValue
from dash_insight.core.provider import DataProvider
from dash_insight.core.vocabulary import Plugin


@dataclass(frozen=True)
class HistogramStep:
    step: int
    wall_time: float
    buckets: np.ndarray  # (n, 3): left, width, count
    value: HistogramValue


def histograms(
    provider: DataProvider,
    train_id: str,
    tag: str,
    *,
    rebin: bool = True,
    max_steps: int | None = None,
) -> list[HistogramStep]:
    """Histogram of every step (or ``max_steps`` evenly spread, last kept); ``rebin`` puts
    every step on MindInsight's shared grid (<= 30 bins, spec §4.2), else the buckets as
    written."""
    steps = provider.value_steps(train_id, Plugin.HISTOGRAM, tag)
    positions = histogram_bins.spread(len(steps), max_steps)
    values = [
        provider.read_value(train_id, Plugin.HISTOGRAM, tag, int(steps.step[p])) for p in positions
    ]
    buckets = histogram_bins.unify(values) if rebin else [v.buckets for v in values]
    return [
        HistogramStep(int(steps.step[p]), float(steps.wall_time[p]), b, v)
        for p, b, v in zip(positions, buckets, values, strict=True)
    ]
