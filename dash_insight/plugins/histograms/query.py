"""Parameter distributions: every step of a histogram tag, re-binned as MindInsight does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dash_insight.core import histogram_bins
from dash_insight.core.format.events import HistogramValue
from dash_insight.core.provider import (
    DataProvider,
    IndexEntryMissing,
    LeftOutStep,
    ValueUnreadable,
)
from dash_insight.core.vocabulary import PluginName


@dataclass(frozen=True)
class HistogramStep:
    step: int
    wall_time: float
    buckets: np.ndarray  # (n, 3): left, width, count
    value: HistogramValue


@dataclass(frozen=True)
class HistogramSteps:
    """What :func:`read_histograms` found: the readable steps and those it left out."""

    rows: list[HistogramStep]
    unreadable: list[LeftOutStep]


def histograms(
    provider: DataProvider,
    train_id: str,
    tag: str,
    *,
    rebin: bool = True,
    max_steps: int | None = None,
) -> list[HistogramStep]:
    """The readable steps of :func:`read_histograms`."""
    return read_histograms(provider, train_id, tag, rebin=rebin, max_steps=max_steps).rows


def read_histograms(
    provider: DataProvider,
    train_id: str,
    tag: str,
    *,
    rebin: bool = True,
    max_steps: int | None = None,
) -> HistogramSteps:
    """Histogram of every step (or ``max_steps`` evenly spread, last kept); ``rebin`` puts
    every step on MindInsight's shared grid (<= 30 bins, spec §4.2), else the buckets as
    written. A step whose value cannot be read is left out and named in ``unreadable``; when
    no step can be read, the first step's ValueUnreadable is raised (and IndexEntryMissing
    always: the whole tag is being read again)."""
    steps = provider.value_steps(train_id, PluginName.HISTOGRAM, tag)
    readable: list[tuple[int, HistogramValue]] = []
    unreadable: list[LeftOutStep] = []
    first_error: ValueUnreadable | None = None
    for p in histogram_bins.spread(len(steps), max_steps):
        step = int(steps.step[p])
        try:
            readable.append((p, provider.read_value(train_id, PluginName.HISTOGRAM, tag, step)))
        except IndexEntryMissing:
            raise
        except ValueUnreadable as error:
            first_error = first_error or error
            unreadable.append(LeftOutStep(step, float(steps.wall_time[p]), str(error)))
    if first_error is not None and not readable:
        raise first_error
    values = [value for _, value in readable]
    buckets = histogram_bins.unify(values) if rebin else [v.buckets for v in values]
    rows = [
        HistogramStep(int(steps.step[p]), float(steps.wall_time[p]), b, v)
        for (p, v), b in zip(readable, buckets, strict=True)
    ]
    return HistogramSteps(rows, unreadable)
