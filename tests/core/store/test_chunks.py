"""Chunk bounds, their binary search, and the persisted chunk summaries (:mod:`.store.chunks`)."""

from __future__ import annotations

import numpy as np
import pytest

from dash_insight.core.store.chunks import (
    SUMMARY_LEVELS,
    ChunkRef,
    Extreme,
    chunk_extremes,
    chunk_ref,
    is_ordered,
    ordered_extremes,
    overlapping,
    summarise,
    summary_level,
    summary_positions,
)


def test_chunk_ref_records_bounds_and_whether_steps_ascend() -> None:
    assert chunk_ref(7, np.array([3, 4, 9])) == ChunkRef(7, 3, 3, 9, True)
    assert chunk_ref(1, np.array([3, 3, 4])) == ChunkRef(1, 3, 3, 4, False)  # a repeat
    assert chunk_ref(1, np.array([5, 2, 8])) == ChunkRef(1, 3, 2, 8, False)  # a step back
    assert chunk_ref(2, np.zeros(0, np.int64)) == ChunkRef(2, 0, 0, -1, True)


def _ref(first: int, last: int, ascending: bool = True, entries: int = 1) -> ChunkRef:
    return ChunkRef(0, entries, first, last, ascending)


def test_a_tag_is_ordered_only_when_every_step_follows_the_previous_one() -> None:
    assert is_ordered([_ref(0, 9), _ref(10, 19), _ref(25, 30)])
    assert is_ordered([_ref(0, 9), _ref(0, -1, entries=0), _ref(10, 19)])  # empty: ignored
    assert not is_ordered([_ref(0, 9), _ref(9, 19)])  # step 9 twice: the later one wins
    assert not is_ordered([_ref(10, 19), _ref(0, 9)])  # a restart: purges the older points
    assert not is_ordered([_ref(0, 9), _ref(5, 30)])  # overlapping bounds
    assert not is_ordered([_ref(0, 9, ascending=False)])
    assert is_ordered([])


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (None, None, (0, 3)),
        (12, 15, (1, 2)),  # inside one chunk
        (5, 25, (0, 3)),  # across every chunk, cutting the first and the last
        (10, 19, (1, 2)),  # exactly one chunk
        (-50, -1, (0, 0)),  # before all data
        (40, 90, (3, 3)),  # after all data
        (20, 24, (2, 2)),  # in a gap between two chunks
        (None, 12, (0, 2)),
        (15, None, (1, 3)),
        (9, 10, (0, 2)),  # the last step of one chunk and the first of the next
    ],
)
def test_overlapping_finds_the_chunks_of_a_window(
    start: int | None, end: int | None, expected: tuple[int, int]
) -> None:
    first = np.array([0, 10, 25])
    last = np.array([9, 19, 30])
    assert overlapping(first, last, start, end) == expected


def test_a_summary_keeps_block_extremes_ends_and_every_nonfinite_value() -> None:
    value = np.array([5, 1, 9, 3, 2, 8, 7, 7, 4, 6], np.float32)  # blocks of 4 at level 2
    kept = summary_positions(value, 2)
    # block 0 (0-3): min 1 @1, max 9 @2; block 1 (4-7): min 2 @4, max 8 @5;
    # block 2 (8-9, partial): min 4 @8, max 6 @9; the ends 0 and 9
    assert kept.tolist() == [0, 1, 2, 4, 5, 8, 9]
    assert summary_positions(np.array([3, 3, 1, 5, 2, 2, 2, 2], np.float32), 2).tolist() == [
        0,
        2,
        3,
        4,
        7,
    ]  # ties: the first; the last point is kept as an end
    with_nonfinite = value.copy()
    with_nonfinite[[3, 6]] = [np.nan, np.inf]
    kept = summary_positions(with_nonfinite, 2)
    assert {3, 6} <= set(kept.tolist())
    # the infinity is no maximum: block 1's largest finite value is still 8 @5
    assert 5 in kept.tolist()
    assert summary_positions(np.full(8, np.nan, np.float32), 2).tolist() == list(range(8))
    assert summary_positions(np.zeros(0, np.float32), 2).tolist() == []


@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 4099])
def test_a_summary_is_the_rule_block_by_block(n: int) -> None:
    """:func:`summary_positions` (argmin / argmax per block) against the rule written as a loop
    over the blocks, on values with ties, NaN and ±inf."""
    rng = np.random.default_rng(n)
    value = rng.integers(0, 5, n).astype(np.float32)
    value[rng.random(n) < 0.05] = np.nan
    value[rng.random(n) < 0.02] = np.inf
    value[rng.random(n) < 0.02] = -np.inf
    for level in (0, 2, 4):
        size = 1 << level
        expected = {0, n - 1} | set(np.flatnonzero(~np.isfinite(value)).tolist())
        for start in range(0, n, size):
            block = value[start : start + size].astype(np.float64)
            finite = np.flatnonzero(np.isfinite(block))
            if not len(finite):
                expected.add(start)
                continue
            expected.add(start + int(finite[np.argmin(block[finite])]))
            expected.add(start + int(finite[np.argmax(block[finite])]))
        assert summary_positions(value, level).tolist() == sorted(expected)


def test_summarise_keeps_the_stored_values_and_is_small() -> None:
    step = np.arange(100_000, dtype=np.int64) * 3
    value = np.sin(step / 1000).astype(np.float32)
    for level in SUMMARY_LEVELS:
        summary = summarise(step, step * 0.5, value, level)
        assert summary.value.dtype == np.float32
        assert len(summary.step) <= 2 * len(step) // (1 << level) + 4
        positions = np.searchsorted(step, summary.step)
        assert np.array_equal(value[positions], summary.value)
        assert np.array_equal(summary.wall_time, summary.step * 0.5)
        # every block's extremes are there
        blocks = len(step) // (1 << level)
        whole = value[: blocks << level].reshape(blocks, 1 << level)
        assert set(whole.max(axis=1).tolist()) <= set(summary.value.tolist())
        assert set(whole.min(axis=1).tolist()) <= set(summary.value.tolist())


def test_summary_level_keeps_sixteen_blocks_per_pixel_column() -> None:
    columns = 499
    assert summary_level(10_000_000, columns, 16) == 10  # 1,252 points per block: 1,024
    assert summary_level(3_000_000, columns, 16) == 8  # 375 per block: 256
    assert summary_level(1_000_000, columns, 16) == 6  # 125 per block: 64
    assert summary_level(400_000, columns, 16) == 4  # 50 per block: 16 (a mid-size tag)
    assert summary_level(100_000, columns, 16) is None  # 12 per block: read raw
    assert summary_level(16 * 16 * columns, columns, 16) == 4
    assert summary_level(16 * 16 * columns - 1, columns, 16) is None
    # at most 4 x 16 blocks, ~128 summary points, per column whatever the window
    for points in (16 * 16 * columns, 10**6, 5 * 10**6, 10**7 - 1):
        level = summary_level(points, columns, 16)
        assert level is not None and points >> level <= 64 * columns


def test_chunk_extremes_are_the_first_lowest_and_highest_finite_points() -> None:
    step = np.array([1, 2, 3, 4, 5, 6])
    wall = step * 10.0
    value = np.array([np.nan, 2.0, -np.inf, 0.5, 2.0, 0.5], np.float32)
    assert chunk_extremes(step, wall, value) == (Extreme(4, 40.0, 0.5), Extreme(2, 20.0, 2.0))
    assert chunk_extremes(step[:1], wall[:1], value[:1]) == (None, None)


def test_ordered_extremes_take_the_earliest_chunk_on_a_tie() -> None:
    def ref(lowest: Extreme | None, highest: Extreme | None) -> ChunkRef:
        return ChunkRef(0, 1, 0, 0, True, lowest, highest)

    refs = [
        ref(None, None),
        ref(Extreme(5, 0.0, 1.0), Extreme(6, 0.0, 3.0)),
        ref(Extreme(9, 0.0, 1.0), Extreme(8, 0.0, 4.0)),
        ref(Extreme(12, 0.0, 0.5), Extreme(11, 0.0, 4.0)),
    ]
    assert ordered_extremes(refs) == (Extreme(12, 0.0, 0.5), Extreme(8, 0.0, 4.0))
    assert ordered_extremes(refs[:3]) == (Extreme(5, 0.0, 1.0), Extreme(8, 0.0, 4.0))
    assert ordered_extremes(refs[:1]) == (None, None)
