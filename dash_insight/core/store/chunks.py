"""Chunk bounds and persisted chunk summaries: step-range reads of a scalar tag without reading
its whole column.

Every chunk of a tag (see :mod:`.index`) is described in its file's state by a :class:`ChunkRef`:
its serial, its number of entries, its smallest and largest step and whether its steps strictly
increase in file order. A tag is **ordered** when every chunk is ascending and each chunk, in
arrival order (files by rank then name, a file's chunks in order), starts after the previous one
ends. MindInsight's merge (:func:`.series.merge_indices`: a later point replaces an earlier one
of the same step, and purges earlier points of larger steps from older files) then keeps every
point, in arrival order: the merged series is the concatenation of the chunks, and a step
window ``[start_step, end_step]`` is found by two binary searches over the chunk bounds
(:func:`overlapping`), ``O(log c)`` for ``c`` chunks, plus the ``k`` points read. A tag that
is not ordered (repeated or out-of-order steps, a restart in a newer file, overlapping files)
is merged whole, as before.

For an ordered tag each scalar chunk also has one persisted :class:`ScalarColumns` summary per
level ``L`` of :data:`SUMMARY_LEVELS` (:func:`summarise`): the positions of the smallest and
largest finite value of each block of ``2**L`` consecutive points of the chunk, its first and last
point and every NaN / ±inf. That is the extrema pyramid of :mod:`.lod` cut at a few levels and
stored: a wide window reads the summaries of the chunks it covers whole and the raw points of
at most two chunks at its edges, and :func:`.lod.column_extremes` runs on those candidates.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Block sizes ``2**L`` of the persisted summaries, 16 to 1,024 points: with 16 blocks per pixel
#: column (:func:`summary_level`) a window of ``p`` points at ``c`` columns is read from blocks of
#: at least ``p / (64 c)`` points, so it reads at most ~128 summary points per column; below
#: 256 points per column (128k points at 1,000 px) the window is read raw. The finest level is
#: that of the in-memory pyramid (:data:`.lod.MIN_LEVEL`): a tag of a few hundred thousand
#: points is drawn from its summaries as it was from the pyramid. They add ~17 % to the points
#: stored.
SUMMARY_LEVELS = (4, 6, 8, 10)


class Extreme(NamedTuple):
    """One point of a scalar chunk kept in its :class:`ChunkRef`: its lowest or highest finite
    value (float64 of the stored float32) with its step and wall time."""

    step: int
    wall_time: float
    value: float


class ChunkRef(NamedTuple):
    """What a file's state says about one stored chunk of a tag."""

    serial: int
    entries: int
    first_step: int  # the smallest step in the chunk (0 when empty)
    last_step: int  # the largest step in the chunk (-1 when empty)
    ascending: bool  # steps strictly increase in file order (no repeat, no step back)
    # Of a scalar chunk: its first lowest and first highest finite point (None: no finite
    # value, or not a scalar chunk), so the best value of an ordered tag costs no read.
    lowest: Extreme | None = None
    highest: Extreme | None = None


def chunk_ref(serial: int, step: np.ndarray) -> ChunkRef:
    """The :class:`ChunkRef` of a chunk whose steps (in file order) are ``step``."""
    if len(step) == 0:
        return ChunkRef(serial, 0, 0, -1, True)
    return ChunkRef(
        serial, len(step), int(step.min()), int(step.max()), bool(np.all(step[1:] > step[:-1]))
    )


def chunk_extremes(
    step: np.ndarray, wall_time: np.ndarray, value: np.ndarray
) -> tuple[Extreme | None, Extreme | None]:
    """The first (in chunk order) lowest and first highest finite point of a scalar chunk;
    (None, None) when no value is finite (NaN and ±inf never count)."""
    values = np.asarray(value, np.float64)
    finite = np.isfinite(values)
    if not finite.any():
        return None, None
    low = int(np.argmin(np.where(finite, values, np.inf)))
    high = int(np.argmax(np.where(finite, values, -np.inf)))
    lowest, highest = (
        Extreme(int(step[i]), float(wall_time[i]), float(values[i])) for i in (low, high)
    )
    return lowest, highest


def ordered_extremes(
    refs: list[ChunkRef] | tuple[ChunkRef, ...],
) -> tuple[Extreme | None, Extreme | None]:
    """The lowest and highest finite point of an ordered tag from its chunks' extremes
    (in step order): O(chunks), nothing read. A tie goes to the earliest step, as
    ``np.argmin`` / ``np.argmax`` over the merged series (the chart's best-value marker)."""
    lowest: Extreme | None = None
    highest: Extreme | None = None
    for ref in refs:
        if ref.lowest is not None and (lowest is None or ref.lowest.value < lowest.value):
            lowest = ref.lowest
        if ref.highest is not None and (highest is None or ref.highest.value > highest.value):
            highest = ref.highest
    return lowest, highest


def is_ordered(refs: list[ChunkRef]) -> bool:
    """Whether the chunks (in arrival order) hold strictly increasing steps throughout: then
    MindInsight's merge keeps every point and the series is their concatenation."""
    last = None
    for ref in refs:
        if not ref.ascending:
            return False
        if ref.entries == 0:
            continue
        if last is not None and ref.first_step <= last:
            return False
        last = ref.last_step
    return True


def overlapping(
    first_steps: np.ndarray, last_steps: np.ndarray, start_step: int | None, end_step: int | None
) -> tuple[int, int]:
    """Positions ``[lo, hi)`` of the chunks of an ordered tag (sorted, disjoint step bounds) that
    hold steps in ``[start_step, end_step]`` (None: open): two binary searches."""
    lo = 0 if start_step is None else int(np.searchsorted(last_steps, start_step, "left"))
    hi = (
        len(first_steps)
        if end_step is None
        else int(np.searchsorted(first_steps, end_step, "right"))
    )
    return lo, max(lo, hi)


class _BlockExtremes:
    """What every level of a chunk's summaries is cut from, computed once per chunk: its values
    as float64 with NaN / ±inf replaced by +inf (for the minimum) and -inf (for the maximum),
    and the positions of its non-finite values."""

    __slots__ = ("high", "low", "n", "nonfinite")

    def __init__(self, value: np.ndarray) -> None:
        values = np.asarray(value, np.float64)
        finite = np.isfinite(values)
        self.n = len(values)
        self.low = np.where(finite, values, np.inf)
        self.high = np.where(finite, values, -np.inf)
        self.nonfinite = np.flatnonzero(~finite)

    def positions(self, level: int) -> np.ndarray:
        """:func:`summary_positions` at ``level``: the kept positions are marked in a boolean
        mask and read back in order, ``O(n)`` with no sort (``np.unique`` of the positions
        hashed and sorted them: a third of what summarising a chunk cost)."""
        n = self.n
        if n == 0:
            return np.zeros(0, np.int64)
        keep = np.zeros(n, np.bool_)
        keep[0] = keep[n - 1] = True
        keep[self.nonfinite] = True
        size = 1 << level
        whole = n // size
        if whole:
            base = np.arange(whole, dtype=np.int64) * size
            keep[self.low[: whole * size].reshape(whole, size).argmin(axis=1) + base] = True
            keep[self.high[: whole * size].reshape(whole, size).argmax(axis=1) + base] = True
        start = whole * size
        if start < n:  # the shorter last block
            keep[start + int(np.argmin(self.low[start:]))] = True
            keep[start + int(np.argmax(self.high[start:]))] = True
        return np.flatnonzero(keep).astype(np.int64)


def summary_positions(value: np.ndarray, level: int) -> np.ndarray:
    """Sorted positions kept by the level-``level`` summary of a chunk's values: per block of
    ``2**level`` consecutive points (the last one may be shorter) the first smallest and the
    first largest finite value (a block without one names its first point), the first and last
    points, every non-finite value. ``O(n)``: an argmin / argmax per block, the positions marked
    in a mask."""
    return _BlockExtremes(value).positions(level)


class SummaryPoints(NamedTuple):
    """The points a summary keeps of one chunk, in chunk order (a subset of its columns)."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    value: np.ndarray  # float32, exactly as stored


def summarise(
    step: np.ndarray, wall_time: np.ndarray, value: np.ndarray, level: int
) -> SummaryPoints:
    """The level-``level`` summary of an ascending chunk (:func:`summary_positions`)."""
    return summaries(step, wall_time, value, (level,))[level]


def summaries(
    step: np.ndarray,
    wall_time: np.ndarray,
    value: np.ndarray,
    levels: tuple[int, ...] = SUMMARY_LEVELS,
) -> dict[int, SummaryPoints]:
    """The summary of an ascending chunk at each of ``levels`` (:func:`summarise` of each, with
    the float64 copies and the non-finite positions computed once for all of them)."""
    extremes = _BlockExtremes(value)
    out = {}
    for level in levels:
        kept = extremes.positions(level)
        out[level] = SummaryPoints(
            np.asarray(step)[kept], np.asarray(wall_time)[kept], np.asarray(value)[kept]
        )
    return out


def summary_level(points_in_range: int, columns: int, blocks_per_column: int) -> int | None:
    """The coarsest level of :data:`SUMMARY_LEVELS` whose blocks still put
    ``blocks_per_column`` blocks in each of ``columns`` pixel columns of a window of
    ``points_in_range`` points (the accuracy rule of :mod:`.lod`); None when even the finest
    does not (the window is then read raw, a few hundred thousand points at most)."""
    per_block = points_in_range // (blocks_per_column * max(1, columns))
    fitting = [level for level in SUMMARY_LEVELS if (1 << level) <= per_block]
    return max(fitting) if fitting else None
