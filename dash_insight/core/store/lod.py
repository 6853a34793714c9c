"""Level of detail of a step range of a scalar series: what a chart of a given pixel width draws.

A chart showing steps ``[start_step, end_step]`` at ``max_points`` points asks for the points
in that range reduced per pixel column, so that zooming in ends on the exact raw points:

* the range holds at most ``max_points`` points: every one of them, exactly as stored;
* otherwise the visible window is cut into ``C = max(1, (max_points - 2) // 2)`` columns of
  equal step width; a point at step ``s`` falls in column
  ``floor((s - first) * C / (last - first + 1))`` where ``[first, last]`` is the window (the
  requested bounds, or the range's own first / last step where a bound is open). Each column
  keeps its smallest and its largest finite value; the first and last points of the range are
  kept; every NaN / ±inf is kept, beyond the budget if need be, so a chart never hides a
  divergence. This is :func:`.series.downsample_indices`'s rule, with columns of the visible
  window by step instead of equal runs of positions over the whole series.

A range of millions of points is not scanned per request: :class:`ExtremaPyramid` holds, for
blocks of ``2**L`` consecutive points (``L >= MIN_LEVEL``), the position of each block's minimum
and maximum, built once per series version. A wide range is answered from the level whose
blocks are at most ``1 / BLOCKS_PER_COLUMN`` of a column: the candidates are the extremes of the
whole blocks in the range plus the raw points of the partial blocks at its two ends, and the
column rule above runs on those candidates. Every point that is the extreme of its column is
the extreme of its block too, unless that block straddles a column edge; so the drawn envelope
is exact except within one block (``<= 1/16`` of a pixel column) of a column's edge, and the
range's global minimum and maximum are always drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dash_insight.core.store.series import ScalarSeries

#: The finest pyramid level: blocks of 16 points (finer ranges are scanned exactly).
MIN_LEVEL = 4
#: A pyramid level is used only when each column spans at least this many of its blocks.
BLOCKS_PER_COLUMN = 16


def column_count(max_points: int) -> int:
    """Pixel columns for a budget of ``max_points``: two extremes each, plus the two ends."""
    return max(1, (max_points - 2) // 2)


def range_bounds(step: np.ndarray, start_step: int | None, end_step: int | None) -> tuple[int, int]:
    """Positions ``[lo, hi)`` of the points with ``start_step <= step <= end_step`` in a sorted
    ``step`` array (``None``: open bound); an empty range when ``start_step > end_step``."""
    lo = 0 if start_step is None else int(np.searchsorted(step, start_step, "left"))
    hi = len(step) if end_step is None else int(np.searchsorted(step, end_step, "right"))
    if start_step is not None and end_step is not None and start_step > end_step:
        return lo, lo
    return lo, max(lo, hi)


def column_extremes(
    step: np.ndarray, value: np.ndarray, first: int, last: int, columns: int
) -> np.ndarray:
    """Positions of the smallest and largest finite value of each column of the window
    ``[first, last]`` cut into ``columns`` equal step widths (``step`` sorted, inside the window;
    a column of non-finite values only yields one of them, which is kept anyway)."""
    if len(step) == 0:
        return np.zeros(0, np.int64)
    width = max(1.0, float(last) - float(first) + 1.0)
    column = np.floor((step - first).astype(np.float64) * (columns / width)).astype(np.int64)
    np.clip(column, 0, columns - 1, out=column)
    starts = np.flatnonzero(np.concatenate(([True], column[1:] != column[:-1])))
    segment = np.cumsum(np.concatenate(([True], column[1:] != column[:-1]))) - 1
    values = np.asarray(value, np.float64)
    finite = np.isfinite(values)
    picked = []
    for filled, reduce in (
        (np.where(finite, values, np.inf), np.minimum),
        (np.where(finite, values, -np.inf), np.maximum),
    ):
        extreme = reduce.reduceat(filled, starts)
        hits = np.flatnonzero(filled == extreme[segment])
        _, first_hit = np.unique(segment[hits], return_index=True)
        picked.append(hits[first_hit])
    return np.concatenate(picked)


@dataclass(frozen=True)
class ExtremaPyramid:
    """Per level ``L = MIN_LEVEL + i``: the positions of the minimum (``minima[i]``) and maximum
    (``maxima[i]``) finite value of each whole block ``[j * 2**L, (j + 1) * 2**L)`` of a series;
    a block without a finite value names its first point. ``nonfinite``: the sorted positions of
    every NaN / ±inf."""

    minima: tuple[np.ndarray, ...]
    maxima: tuple[np.ndarray, ...]
    nonfinite: np.ndarray

    @staticmethod
    def build(value: np.ndarray) -> ExtremaPyramid:
        """Built in ``O(n)``: level ``MIN_LEVEL`` from the values, each next level from pairs
        of blocks of the one below."""
        values = np.asarray(value, np.float64)
        finite = np.isfinite(values)
        low = np.where(finite, values, np.inf)
        high = np.where(finite, values, -np.inf)
        size = 1 << MIN_LEVEL
        blocks = len(values) // size
        dtype = np.int32 if len(values) < 2**31 else np.int64
        base = np.arange(blocks, dtype=np.int64) * size
        minima = [(low[: blocks * size].reshape(blocks, size).argmin(axis=1) + base).astype(dtype)]
        maxima = [(high[: blocks * size].reshape(blocks, size).argmax(axis=1) + base).astype(dtype)]
        while len(minima[-1]) >= 2:
            pairs = len(minima[-1]) // 2
            for level, filled, better in ((minima, low, np.less), (maxima, high, np.greater)):
                left, right = level[-1][0 : 2 * pairs : 2], level[-1][1 : 2 * pairs : 2]
                level.append(np.where(better(filled[right], filled[left]), right, left))
        return ExtremaPyramid(tuple(minima), tuple(maxima), np.flatnonzero(~finite))


def needs_pyramid(points_in_range: int, max_points: int) -> bool:
    """Whether a range of ``points_in_range`` points at ``max_points`` is answered from the
    pyramid (each column would span at least ``BLOCKS_PER_COLUMN`` blocks of ``2**MIN_LEVEL``
    points) rather than by scanning it."""
    return points_in_range >= (BLOCKS_PER_COLUMN << MIN_LEVEL) * column_count(max_points)


def window_indices(
    step: np.ndarray,
    value: np.ndarray,
    start_step: int | None,
    end_step: int | None,
    max_points: int,
    pyramid: ExtremaPyramid | None = None,
) -> np.ndarray:
    """Sorted positions of the points drawn for steps ``[start_step, end_step]`` at
    ``max_points`` (module docstring); the pyramid, when given, answers wide ranges."""
    lo, hi = range_bounds(step, start_step, end_step)
    count = hi - lo
    if count <= max_points:
        return np.arange(lo, hi, dtype=np.int64)
    first = int(step[lo]) if start_step is None else start_step
    last = int(step[hi - 1]) if end_step is None else end_step
    columns = column_count(max_points)
    if pyramid is not None:
        candidates, nonfinite = _pyramid_candidates(pyramid, lo, hi, columns)
    else:
        candidates = np.arange(lo, hi, dtype=np.int64)
        nonfinite = lo + np.flatnonzero(~np.isfinite(value[lo:hi]))
    extremes = candidates[
        column_extremes(step[candidates], value[candidates], first, last, columns)
    ]
    return np.unique(np.concatenate(([lo, hi - 1], nonfinite, extremes)).astype(np.int64))


def _pyramid_candidates(
    pyramid: ExtremaPyramid, lo: int, hi: int, columns: int
) -> tuple[np.ndarray, np.ndarray]:
    """(candidate positions, non-finite positions) of ``[lo, hi)`` from the coarsest level whose
    blocks still put ``BLOCKS_PER_COLUMN`` in a column (the raw points where none fits)."""
    nonfinite = pyramid.nonfinite[
        np.searchsorted(pyramid.nonfinite, lo) : np.searchsorted(pyramid.nonfinite, hi)
    ].astype(np.int64)
    per_block = (hi - lo) // (BLOCKS_PER_COLUMN * columns)
    level = min(per_block.bit_length() - 1, MIN_LEVEL + len(pyramid.minima) - 1)
    if level < MIN_LEVEL:
        return np.arange(lo, hi, dtype=np.int64), nonfinite
    size = 1 << level
    first_block, end_block = -(-lo // size), hi // size
    minima, maxima = pyramid.minima[level - MIN_LEVEL], pyramid.maxima[level - MIN_LEVEL]
    candidates = np.concatenate(
        (
            np.arange(lo, min(hi, first_block * size), dtype=np.int64),
            minima[first_block:end_block].astype(np.int64),
            maxima[first_block:end_block].astype(np.int64),
            np.arange(max(lo, end_block * size), hi, dtype=np.int64),
        )
    )
    candidates.sort()
    return candidates, nonfinite


@dataclass(frozen=True)
class ScalarWindow:
    """What a chart draws of a step range: ``series`` (the points kept) out of
    ``points_in_range`` points of the stored series."""

    series: ScalarSeries
    points_in_range: int

    @property
    def raw(self) -> bool:
        """Every point of the range is drawn, exactly as stored."""
        return len(self.series) == self.points_in_range


def window(
    series: ScalarSeries,
    start_step: int | None,
    end_step: int | None,
    max_points: int | None,
    pyramid: ExtremaPyramid | None = None,
) -> ScalarWindow:
    """The points of ``series`` drawn for a step range (every point when ``max_points`` is
    None)."""
    lo, hi = range_bounds(series.step, start_step, end_step)
    if max_points is None or hi - lo <= max_points:
        chosen: slice | np.ndarray = slice(lo, hi)
    else:
        chosen = window_indices(
            series.step, series.value, start_step, end_step, max_points, pyramid
        )
    return ScalarWindow(
        ScalarSeries(series.step[chosen], series.wall_time[chosen], series.value[chosen]), hi - lo
    )
