"""Scalar series algorithms: merging a job's files, downsampling for display.

A tag's points arrive file by file (files in file-name timestamp order) and, within a file, in
record order. :func:`merge_points` applies MindInsight's rule (``EventsData.add_tensor_event``,
the same as TensorBoard's purge of orphaned data): when a point arrives, every earlier point
with the same step is replaced, and every earlier point with a *larger* step that came from an
*older* file is purged (training restarted from a checkpoint in a new file). Points with larger
steps from the same file are kept (late records).

:func:`downsample` is for display only: the stored series always keeps every point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScalarSeries:
    """A merged scalar series, sorted by step, one point per step."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    value: np.ndarray  # float32 as stored (float64 after downsampling is not needed)

    def __len__(self) -> int:
        return len(self.step)


EMPTY_SERIES = ScalarSeries(np.zeros(0, np.int64), np.zeros(0, np.float64), np.zeros(0, np.float32))


def merge_indices(step: np.ndarray, file_rank: np.ndarray) -> np.ndarray:
    """Indices of the points that survive MindInsight's merge rule, sorted by step.

    Points are given in arrival order. A point ``p`` survives iff no later point ``q`` has
    ``q.step == p.step``, and no later point from a newer file (``rank(q) > rank(p)``) has
    ``q.step < p.step``. Since files arrive in rank order, the second condition is
    ``p.step <= min(step of points in files ranked after p's)``. ``file_rank`` is the file's
    position in timestamp order; files with equal timestamps share a rank (MindInsight compares
    the timestamp strings, so they act as one file).
    """
    n = len(step)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    step = np.asarray(step, dtype=np.int64)
    rank = np.asarray(file_rank, dtype=np.int64)
    keep = np.ones(n, dtype=bool)
    ranks = np.unique(rank)
    if len(ranks) > 1:
        # Minimum step of every later file, per rank: a suffix minimum over ranks.
        per_rank_min = np.array([step[rank == r].min() for r in ranks])
        later_min = np.append(
            np.minimum.accumulate(per_rank_min[::-1])[::-1][1:], np.iinfo(np.int64).max
        )
        keep = step <= later_min[np.searchsorted(ranks, rank)]
    index = np.flatnonzero(keep)
    # Last occurrence of each step among the survivors; np.unique sorts by step.
    _, first_in_reversed = np.unique(step[index][::-1], return_index=True)
    return index[::-1][first_in_reversed]


def merge_points(
    step: np.ndarray, wall_time: np.ndarray, value: np.ndarray, file_rank: np.ndarray
) -> ScalarSeries:
    """A tag's points (in arrival order) merged into one series by :func:`merge_indices`."""
    if len(step) == 0:
        return EMPTY_SERIES
    chosen = merge_indices(step, file_rank)
    return ScalarSeries(
        np.asarray(step, np.int64)[chosen],
        np.asarray(wall_time, np.float64)[chosen],
        np.asarray(value)[chosen],
    )


def downsample_indices(value: np.ndarray, max_points: int) -> np.ndarray:
    """Indices of at most ``max_points`` points that draw like the whole series.

    The series is cut into ``(max_points - 2) // 2`` equal buckets by position; each bucket
    keeps its minimum and maximum (in order), and the first and last points are always kept.
    Non-finite values (NaN, ±inf) are always kept too, beyond the budget if need be, so a
    chart never hides a divergence. Returns sorted indices; the whole range when the series
    is short enough.
    """
    n = len(value)
    if n <= max_points or max_points < 4:
        return np.arange(n) if n <= max_points else np.unique([0, n - 1])
    values = np.asarray(value, dtype=np.float64)
    finite = np.isfinite(values)
    buckets = (max_points - 2) // 2
    # Buckets over positions 1 .. n-2 (the first and last points are kept anyway); n > 2*buckets
    # + 2, so the integer edges are strictly increasing.
    edges = np.linspace(1, n - 1, buckets + 1).astype(np.int64)
    inner = slice(1, n - 1)
    sizes = np.diff(edges)
    bucket_of = np.repeat(np.arange(buckets), sizes)
    picked = [np.array([0, n - 1]), np.flatnonzero(~finite)]
    # Non-finite values are masked out of the extremes; they are kept above regardless.
    for filled, reduce in (
        (np.where(finite, values, np.inf)[inner], np.minimum),
        (np.where(finite, values, -np.inf)[inner], np.maximum),
    ):
        extreme = reduce.reduceat(filled, edges[:-1] - 1)
        hits = np.flatnonzero(filled == extreme[bucket_of])
        _, first = np.unique(bucket_of[hits], return_index=True)
        picked.append(hits[first] + 1)
    return np.unique(np.concatenate(picked))


def downsample(series: ScalarSeries, max_points: int) -> ScalarSeries:
    """The series reduced by :func:`downsample_indices` (unchanged when short enough)."""
    if len(series) <= max_points:
        return series
    index = downsample_indices(series.value, max_points)
    return ScalarSeries(series.step[index], series.wall_time[index], series.value[index])
