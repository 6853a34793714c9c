"""Level of detail of a step range (core/store/lod.py): per-column extremes, ends, non-finite
values, raw points once the range is small enough, and the pyramid for wide ranges."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dash_insight.core.store.lod import (
    BLOCKS_PER_COLUMN,
    MIN_LEVEL,
    ExtremaPyramid,
    column_count,
    needs_pyramid,
    range_bounds,
    window,
    window_indices,
)
from dash_insight.core.store.series import ScalarSeries


def _series(step: np.ndarray, value: np.ndarray) -> ScalarSeries:
    step = np.asarray(step, np.int64)
    return ScalarSeries(step, step.astype(np.float64) + 1e9, np.asarray(value, np.float32))


def _reference(
    step: list[int], value: list[float], start: int | None, end: int | None, max_points: int
) -> list[int]:
    """The module's rule written as a plain loop."""
    inside = [
        i for i, s in enumerate(step) if (start is None or s >= start) and (end is None or s <= end)
    ]
    if start is not None and end is not None and start > end:
        inside = []
    if len(inside) <= max_points:
        return inside
    first = step[inside[0]] if start is None else start
    last = step[inside[-1]] if end is None else end
    columns = column_count(max_points)
    kept = {inside[0], inside[-1]}
    best: dict[int, tuple[int, int]] = {}
    for i in inside:
        if not math.isfinite(value[i]):
            kept.add(i)
            continue
        c = min(
            columns - 1,
            max(0, math.floor((step[i] - first) * (columns / max(1.0, last - first + 1.0)))),
        )
        lo, hi = best.get(c, (i, i))
        best[c] = (i if value[i] < value[lo] else lo, i if value[i] > value[hi] else hi)
    for lo, hi in best.values():
        kept.update((lo, hi))
    return sorted(kept)


finite_or_not = st.one_of(
    st.floats(-1e3, 1e3, width=32), st.sampled_from([math.nan, math.inf, -math.inf])
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 400), finite_or_not), max_size=120),
    st.one_of(st.none(), st.integers(-10, 410)),
    st.one_of(st.none(), st.integers(-10, 410)),
    st.integers(4, 40),
)
def test_window_matches_the_rule(
    points: list[tuple[int, float]], start: int | None, end: int | None, max_points: int
) -> None:
    by_step = dict(points)  # one point per step, as after merging
    step = sorted(by_step)
    value = [float(np.float32(by_step[s])) for s in step]
    got = window_indices(
        np.array(step, np.int64), np.array(value, np.float32), start, end, max_points
    )
    assert got.tolist() == _reference(step, value, start, end, max_points)


def test_zooming_in_ends_on_the_exact_raw_values() -> None:
    rng = np.random.default_rng(7)
    step = np.arange(0, 2_000_000, 2)  # 1M points, every other step
    value = rng.normal(size=len(step)).astype(np.float32)
    value[365_701] = 1e6  # a spike at step 731,402
    series = _series(step, value)
    pyramid = ExtremaPyramid.build(series.value)
    start, end = 0, 2_000_000
    for _ in range(6):
        view = window(series, start, end, 800, pyramid)
        assert 731_402 in view.series.step.tolist()  # the spike is drawn at every zoom
        lo, hi = range_bounds(step, start, end)
        assert view.points_in_range == hi - lo == int(((step >= start) & (step <= end)).sum())
        middle, half = 731_402, (end - start) // 20
        start, end = middle - half, middle + half
    view = window(series, 731_300, 731_500, 800, pyramid)
    assert view.raw and view.points_in_range == 101
    chosen = (step >= 731_300) & (step <= 731_500)
    np.testing.assert_array_equal(view.series.step, step[chosen])
    np.testing.assert_array_equal(view.series.value, value[chosen])  # float32 as stored
    np.testing.assert_array_equal(view.series.wall_time, series.wall_time[chosen])


def test_non_finite_values_are_always_kept() -> None:
    step = np.arange(300_000)
    value = np.sin(step / 1000).astype(np.float32)
    odd = [5, 77_777, 150_001, 150_002, 299_998]
    value[odd] = [np.nan, np.inf, -np.inf, np.nan, np.nan]
    series = _series(step, value)
    pyramid = ExtremaPyramid.build(series.value)
    for levels in (None, pyramid):
        drawn = window(series, None, None, 20, levels).series
        assert set(odd) <= set(drawn.step.tolist())
        assert len(drawn) <= 20 + len(odd)
        finite = drawn.value[np.isfinite(drawn.value)]
        assert finite.min() == value[np.isfinite(value)].min()
        assert finite.max() == value[np.isfinite(value)].max()
        inside = window(series, 100_000, 200_000, 20, levels).series.step.tolist()
        assert {150_001, 150_002} <= set(inside) and 77_777 not in inside


def test_edge_ranges() -> None:
    series = _series(np.array([10, 20, 30]), np.array([1.0, 2.0, 3.0]))
    empty = window(series, 21, 29, 100)
    assert len(empty.series) == 0 and empty.points_in_range == 0 and empty.raw
    assert len(window(series, 40, 50, 100).series) == 0
    backwards = window(series, 30, 10, 100)  # start after end: nothing
    assert len(backwards.series) == 0 and backwards.points_in_range == 0
    assert window_indices(series.step, series.value, 30, 10, 4).tolist() == []
    one = window(series, 20, 20, 4)
    assert one.series.step.tolist() == [20] and one.series.value.tolist() == [2.0] and one.raw
    single = _series(np.array([5]), np.array([np.nan]))
    assert window(single, None, None, 4).series.step.tolist() == [5]
    nothing = window(_series(np.zeros(0), np.zeros(0)), None, None, 4)
    assert len(nothing.series) == 0 and nothing.points_in_range == 0
    assert window(series, None, None, None).series is not series  # a view, never the cache
    assert window(series, 15, None, None).series.step.tolist() == [20, 30]


def test_budget_is_kept_for_finite_series() -> None:
    rng = np.random.default_rng(3)
    step = np.cumsum(rng.integers(1, 5, size=200_000))
    series = _series(step, rng.normal(size=len(step)))
    pyramid = ExtremaPyramid.build(series.value)
    for max_points in (4, 5, 100, 1001):
        for levels in (None, pyramid):
            view = window(series, int(step[1000]), int(step[-1000]), max_points, levels)
            assert 2 < len(view.series) <= max_points and not view.raw
            assert view.points_in_range == len(step) - 1999


def test_pyramid_draws_the_same_envelope_as_a_scan() -> None:
    """A wide range from the pyramid: every column's extremes, except next to a column edge
    (within one block), are those of the exact scan."""
    rng = np.random.default_rng(11)
    n = 1 << 21
    step = np.arange(n) * 3
    value = np.cumsum(rng.normal(size=n)).astype(np.float32)
    series = _series(step, value)
    pyramid = ExtremaPyramid.build(series.value)
    max_points = 502
    assert needs_pyramid(n, max_points)
    exact = window(series, None, None, max_points).series
    fast = window(series, None, None, max_points, pyramid).series
    assert len(fast) <= max_points
    assert fast.value.max() == value.max() and fast.value.min() == value.min()
    columns = column_count(max_points)
    column_of = (exact.step * columns) // (int(step[-1]) + 1)
    fast_column = (fast.step * columns) // (int(step[-1]) + 1)
    agree = sum(
        exact.value[column_of == c].max() == fast.value[fast_column == c].max()
        for c in range(columns)
    )
    assert agree >= 0.9 * columns  # only edge-straddling blocks may differ
    # The level chosen keeps >= BLOCKS_PER_COLUMN blocks in each column.
    per_column = n // columns
    assert per_column >= BLOCKS_PER_COLUMN << MIN_LEVEL


def test_pyramid_levels_hold_block_extremes() -> None:
    rng = np.random.default_rng(5)
    value = rng.normal(size=1000).astype(np.float32)
    value[40:56] = np.nan  # a block of 16 without a finite value names its first point
    pyramid = ExtremaPyramid.build(value)
    for i, (minima, maxima) in enumerate(zip(pyramid.minima, pyramid.maxima, strict=True)):
        size = 1 << (MIN_LEVEL + i)
        assert len(minima) == len(value) // size
        for block, (low, high) in enumerate(zip(minima, maxima, strict=True)):
            part = value[block * size : (block + 1) * size]
            if np.isfinite(part).any():
                assert value[low] == np.nanmin(part) and value[high] == np.nanmax(part)
            else:
                assert low == high == block * size
    assert pyramid.nonfinite.tolist() == list(range(40, 56))
