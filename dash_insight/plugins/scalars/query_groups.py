"""Groups of runs on the scalar comparison: which runs form a group, and each group's line and
band. Pure (numpy, no web): the comparison page, its download and the ``chart/scalar_group``
route share it.

**Groups.** Runs are grouped by a lineage column (``learning_rate``, ``user_defined/seed``,
``metric/accuracy``: :func:`~dash_insight.core.lineage_rows.row_columns`) or by a regular
expression on the run's name, written ``re:<regex>`` (:func:`parse_group_by`): the first
capture group of its first match is the group (the whole match when it has no group). A run
without a value of the column, or whose name does not match, falls in the group ``None`` (the
page calls it "no group"). Groups come in the order of their first run.

**Aggregates** (:func:`aggregate`). The runs of a group are aligned on their steps without
inventing a point: the aggregate has a point at every step where at least one run has a finite
value, and each statistic uses only the runs that have a value at that step (``count``). The
centre is their mean or median; the band ±1 standard deviation (numpy's, ``ddof=0``) around the
centre, or their minimum and maximum; the band exists only where at least two runs have values
(NaN elsewhere, :data:`MIN_BAND_RUNS`). Each point's time is the mean of the runs' wall times
at that step (``wall``), and the mean of their times since their own first point
(``relative``). Non-finite values (NaN, ±inf) are left out of every statistic.

**On an x tag** (the page's "any scalar as the x axis": ``x_tag=epoch``), each run's points are
placed as its own line's are, at the value its x tag has at the point's step
(:func:`~.query_x_tag.values_at_steps`); a run's point without such a value cannot be placed: it
is left out of the aggregate, as its line leaves it out, and counted (``unplaced``). The groups
stay aligned on steps: a point's ``x`` is the mean of the x values of the runs counted at its
step (exactly their value when they agree, as runs of one schedule do), ``x_spread`` how far
apart they are (their maximum less their minimum; 0 where they agree).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dash_insight.core.store.lod import range_bounds, window_indices
from dash_insight.core.store.series import ScalarSeries
from dash_insight.core.user_regex import compile_user_regex

#: ``group_by=re:<regex>``: the prefix of a regular expression on run names.
REGEX_PREFIX = "re:"
#: The longest ``group_by`` accepted (a column id or a regular expression).
MAX_GROUP_BY = 200
CENTRES = ("mean", "median")
BANDS = ("std", "minmax")
#: Runs needed at a step for the band to be drawn there.
MIN_BAND_RUNS = 2


@dataclass(frozen=True)
class GroupBy:
    """How runs are grouped: by a lineage ``column`` id, or by ``pattern`` on run names."""

    column: str = ""
    pattern: str = ""

    @property
    def text(self) -> str:
        """The URL's ``group_by`` value."""
        return REGEX_PREFIX + self.pattern if self.pattern else self.column


def parse_group_by(text: str | None) -> GroupBy | None:
    """``group_by`` of the URL: ``re:<regex>`` or a column id; None when empty. Raises
    :class:`ValueError` for a text longer than :data:`MAX_GROUP_BY` or a regular expression
    that does not compile (the message says why)."""
    if not text:
        return None
    if len(text) > MAX_GROUP_BY:
        raise ValueError(f"longer than {MAX_GROUP_BY} characters")
    if text.startswith(REGEX_PREFIX):
        pattern = text[len(REGEX_PREFIX) :]
        if not pattern:
            return None
        try:
            compile_user_regex(pattern)
        except re.error as error:
            raise ValueError(str(error)) from None
        return GroupBy(pattern=pattern)
    return GroupBy(column=text)


def value_label(value: Any) -> str | None:
    """A lineage value as a group's name: None for no value (None, NaN, ±inf); numbers as
    ``%g``, booleans and text as they are, containers as JSON."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return f"{value:g}" if math.isfinite(value) else None
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def group_of(train_id: str, by: GroupBy, columns: Mapping[str, Any] | None) -> str | None:
    """The group of one run: its value of the column (``columns``: its lineage columns, None
    when it has no lineage), or the first capture group of the pattern's first match in its
    name (the whole match without a group; a group that did not take part: no group)."""
    if by.pattern:
        match = re.search(by.pattern, train_id)
        if match is None:
            return None
        return match.group(1) if match.re.groups else match.group(0)
    return value_label((columns or {}).get(by.column))


@dataclass(frozen=True)
class Group:
    """One group: its name (None: the runs without one) and its runs, in the order given."""

    name: str | None
    runs: tuple[str, ...]


def assign_groups(
    train_ids: Sequence[str], by: GroupBy, columns: Mapping[str, Mapping[str, Any]]
) -> list[Group]:
    """``train_ids`` in groups (``columns``: train_id -> its lineage columns), in the order of
    each group's first run; the runs without a group last."""
    runs: dict[str | None, list[str]] = {}
    for train_id in train_ids:
        runs.setdefault(group_of(train_id, by, columns.get(train_id)), []).append(train_id)
    named = [Group(name, tuple(members)) for name, members in runs.items() if name is not None]
    return named + ([Group(None, tuple(runs[None]))] if None in runs else [])


@dataclass(frozen=True)
class Aggregate:
    """A group's points, one per step where a run has a finite value (module docstring)."""

    step: np.ndarray  # int64, sorted
    wall: np.ndarray  # float64: the runs' mean wall time at the step
    relative: np.ndarray  # float64: the runs' mean time since their first point
    centre: np.ndarray  # float64
    low: np.ndarray  # float64, NaN where fewer than MIN_BAND_RUNS runs have a value
    high: np.ndarray
    count: np.ndarray  # int64: runs with a value at the step
    #: On an x tag (None on the step and time axes): the mean x value of the runs counted at
    #: the step, and their spread (maximum less minimum).
    x: np.ndarray | None = None
    x_spread: np.ndarray | None = None
    #: On an x tag: the runs' points with a finite value left out for want of an x value.
    unplaced: int = 0

    def __len__(self) -> int:
        return len(self.step)

    def take(self, positions: np.ndarray) -> Aggregate:
        """The points at ``positions``."""
        return dataclasses.replace(
            self,
            **{name: np.asarray(getattr(self, name))[positions] for name in _COLUMNS},
            x=None if self.x is None else self.x[positions],
            x_spread=None if self.x_spread is None else self.x_spread[positions],
        )

    @property
    def band_points(self) -> int:
        """Points where the band is drawn."""
        return int(np.count_nonzero(self.count >= MIN_BAND_RUNS))

    def x_differs(self, start_step: int | None = None, end_step: int | None = None) -> int:
        """Points of steps ``[start_step, end_step]`` whose runs' x values differ (0 off an x
        tag)."""
        if self.x_spread is None:
            return 0
        low, high = range_bounds(self.step, start_step, end_step)
        return int(np.count_nonzero(self.x_spread[low:high] > 0))


_COLUMNS = ("step", "wall", "relative", "centre", "low", "high", "count")


def _segments(step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts of the runs of equal steps of a sorted array, and each point's segment."""
    new = np.concatenate(([True], step[1:] != step[:-1])) if len(step) else np.zeros(0, bool)
    return np.flatnonzero(new), np.cumsum(new) - 1


@dataclass(frozen=True)
class _Aligned:
    """The counted points of all runs, by step then by value: step, value, wall, relative and
    x (None off an x tag), and the points left out for want of an x value."""

    step: np.ndarray
    value: np.ndarray
    wall: np.ndarray
    relative: np.ndarray
    x: np.ndarray | None
    unplaced: int


def _aligned(runs: Sequence[ScalarSeries], x: Sequence[np.ndarray] | None) -> _Aligned:
    """Every run's points with a finite value (and, given ``x``, a finite x value), in one
    array ordered by step, then by value within a step (the median's order)."""
    columns: list[list[np.ndarray]] = [[], [], [], [], []]
    unplaced = 0
    for index, run in enumerate(runs):
        run_value = np.asarray(run.value, np.float64)
        run_wall = np.asarray(run.wall_time, np.float64)
        keep = np.isfinite(run_value)
        run_x = np.zeros(len(run_value)) if x is None else np.asarray(x[index], np.float64)
        if x is not None:
            unplaced += int(np.count_nonzero(keep & ~np.isfinite(run_x)))
            keep &= np.isfinite(run_x)
        start = run_wall[0] if len(run_wall) else 0.0
        parts = (np.asarray(run.step, np.int64), run_value, run_wall, run_wall - start, run_x)
        for column, part in zip(columns, parts, strict=True):
            column.append(part[keep])
    step, value, wall, relative, run_xs = (
        np.concatenate(c) if c else np.zeros(0, np.int64 if i == 0 else np.float64)
        for i, c in enumerate(columns)
    )
    order = np.lexsort((value, step))
    return _Aligned(
        step[order],
        value[order],
        wall[order],
        relative[order],
        None if x is None else run_xs[order],
        unplaced,
    )


def aggregate(
    runs: Sequence[ScalarSeries],
    centre: str = "mean",
    band: str = "std",
    x: Sequence[np.ndarray] | None = None,
) -> Aggregate:
    """The centre (``mean`` or ``median``) and band (``std`` or ``minmax``) of ``runs`` at each
    step where one has a finite value (module docstring). ``x``: per run, the x tag's value at
    each of its points (NaN where it has none): the runs' points are then placed on that axis
    (module docstring, "On an x tag")."""
    if centre not in CENTRES or band not in BANDS:
        raise ValueError(f"centre must be one of {CENTRES}, band one of {BANDS}")
    if x is not None and len(x) != len(runs):
        raise ValueError("x needs one array per run")
    points = _aligned(runs, x)
    step, value = points.step, points.value
    if not len(step):
        none, empty = np.zeros(0, np.int64), np.zeros(0)
        no_x = None if x is None else empty
        return Aggregate(none, empty, empty, empty, empty, empty, none, no_x, no_x, points.unplaced)
    starts, segment = _segments(step)
    count = np.diff(np.append(starts, len(step)))
    mean = np.add.reduceat(value, starts) / count
    middle = (value[starts + (count - 1) // 2] + value[starts + count // 2]) / 2
    centre_values = mean if centre == "mean" else middle
    if band == "std":
        spread = np.sqrt(np.add.reduceat((value - mean[segment]) ** 2, starts) / count)
        low, high = centre_values - spread, centre_values + spread
    else:  # sorted by value within a step: its first and last
        low, high = value[starts], value[starts + count - 1]
    thin = count < MIN_BAND_RUNS
    x_mean, x_spread = (None, None) if points.x is None else _x_at_steps(points.x, starts, count)
    return Aggregate(
        step[starts],
        np.add.reduceat(points.wall, starts) / count,
        np.add.reduceat(points.relative, starts) / count,
        centre_values,
        np.where(thin, np.nan, low),
        np.where(thin, np.nan, high),
        count.astype(np.int64),
        x_mean,
        x_spread,
        points.unplaced,
    )


def _x_at_steps(
    x: np.ndarray, starts: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The mean and the spread (maximum less minimum) of the x values of each step's segment.
    The mean is taken as the minimum plus the mean distance from it, so that runs agreeing on
    their x give exactly that value (a plain sum of three 0.1 over 3 is 0.10000000000000002)."""
    segment = np.repeat(np.arange(len(starts)), count)
    lowest = np.minimum.reduceat(x, starts)
    highest = np.maximum.reduceat(x, starts)
    return lowest + np.add.reduceat(x - lowest[segment], starts) / count, highest - lowest


def drawn_points(
    found: Aggregate, start_step: int | None, end_step: int | None, max_points: int | None
) -> tuple[Aggregate, int]:
    """What a chart of ``max_points`` pixel columns draws of steps ``[start_step, end_step]``:
    the aggregate's own points (none invented), reduced as a line's are
    (:func:`~dash_insight.core.store.lod.window_indices` on the centre: each column's extremes,
    the ends), and how many points the range holds."""
    budget = max_points if max_points else max(1, len(found))
    positions = window_indices(found.step, found.centre, start_step, end_step, budget)
    low, high = range_bounds(found.step, start_step, end_step)
    return found.take(positions), high - low
