"""A parsed CPU profile of one device and what the pages derive from it (pure functions).

* steps: MindSpore writes no step marks on CPU; :func:`assign_steps` recovers them from the
  launch order (every operator launches once per step in graph mode);
* launch-time distribution per operator (min / median / p95 / max);
* input shapes per operator, from ``cpu_framework`` (one line per launch, in launch order);
  read only when shown (it is the largest file).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dash_insight.core.format.profiler import (
    FrameworkTable,
    LaunchTable,
    OpDetailStat,
    OpTypeStat,
    Problem,
)
from dash_insight.plugins.profiler.query import detail_row, type_row


@dataclass(frozen=True)
class Distribution:
    """Launch times (us) of each operator, aligned with :attr:`Profile.details`; NaN where an
    operator has no recorded launch."""

    minimum: np.ndarray
    median: np.ndarray
    p95: np.ndarray
    maximum: np.ndarray


@dataclass(frozen=True)
class Launches:
    """Every launch sorted by start: ``op`` indexes ``names``; times in us since the first
    launch (``origin_ns`` since the epoch); ``step`` 1-based."""

    names: tuple[str, ...]
    op: np.ndarray
    start_us: np.ndarray
    duration_us: np.ndarray
    step: np.ndarray
    step_starts_us: np.ndarray  # start of every step (the first launch of the step marker op)
    origin_ns: int
    source: str  # the file they were read from

    def __len__(self) -> int:
        return len(self.op)

    @property
    def steps(self) -> int:
        return len(self.step_starts_us)

    @property
    def end_us(self) -> float:
        return float((self.start_us + self.duration_us).max()) if len(self.op) else 0.0


@dataclass(frozen=True)
class OpTables:
    """MindInsight's two operator tables of one device and its ``profiler_info``: all that the
    operator page's type view and chart show, read without the launch files (the type view of a
    200,000-launch profile opens without parsing its launches)."""

    path: str
    device: str
    types: tuple[OpTypeStat, ...]
    details: tuple[OpDetailStat, ...]
    info: dict[str, Any]
    problems: tuple[Problem, ...]
    type_rows: list[list[Any]] = field(default_factory=list)  # MindInsight's formatted rows
    detail_rows: list[list[Any]] = field(default_factory=list)

    @property
    def total_ms(self) -> float:
        return sum(stat.total_ms for stat in self.types)


@dataclass(frozen=True)
class Profile:
    """One device of one profiler directory: MindInsight's tables, launches and problems."""

    path: str
    device: str
    types: tuple[OpTypeStat, ...]
    details: tuple[OpDetailStat, ...]
    launches: Launches
    info: dict[str, Any]
    problems: tuple[Problem, ...]
    type_rows: list[list[Any]] = field(default_factory=list)  # MindInsight's formatted rows
    detail_rows: list[list[Any]] = field(default_factory=list)
    distribution: Distribution | None = None

    @property
    def total_ms(self) -> float:
        return sum(stat.total_ms for stat in self.types)


#: How many of the first operators of a run are tried as the step marker.
MARKER_CANDIDATES = 12


def assign_steps(op: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(1-based step of every launch, start of every step) for launches sorted by ``start``.

    The number of steps N is the most common number of launches of an operator (the smallest
    on a tie: an operator launched twice per step has 2N). A step marker is an operator
    launched exactly N times whose launches start the steps: every launch belongs to the last
    step started at or before it (launches before the first mark belong to step 1). Of the
    first :data:`MARKER_CANDIDATES` such operators in launch order, the one that puts the most
    N-times operators at exactly one launch per step wins (the earliest on a tie). It is not
    simply the first operator: MindSpore's ``AssignAdd`` of the global step opens step 1 but
    closes the later ones (it runs just before the next step's forward pass)."""
    if not len(op):
        return np.zeros(0, np.int32), np.zeros(0, np.float64)
    counts = np.bincount(op)
    values, frequency = np.unique(counts[counts > 0], return_counts=True)
    steps = int(values[frequency == frequency.max()].min())
    first = np.full(len(counts), np.inf)
    np.minimum.at(first, op, start)
    regular = np.flatnonzero(counts == steps)
    candidates = regular[np.argsort(first[regular], kind="stable")][:MARKER_CANDIDATES]
    is_regular = np.zeros(len(counts), bool)
    is_regular[regular] = True
    in_regular = is_regular[op]
    # regular operators renumbered 0..R-1: (operator, step) pairs fit one bincount
    dense = np.cumsum(is_regular) - 1
    regular_op, regular_start = dense[op[in_regular]], start[in_regular]
    best, best_score = candidates[0], -1
    for marker in candidates:
        marks = start[op == marker]
        step = np.clip(np.searchsorted(marks, regular_start, side="right"), 1, steps) - 1
        pairs = np.bincount(regular_op * steps + step, minlength=len(regular) * steps)
        score = int(np.count_nonzero(pairs))
        if score > best_score:
            best, best_score = marker, score
    marks = start[op == best].astype(np.float64)
    step = np.searchsorted(marks, start, side="right")
    return np.clip(step, 1, steps).astype(np.int32), marks


def sorted_launches(table: LaunchTable, source: str) -> Launches:
    """``table`` sorted by start (stable), times relative to the first launch, steps assigned."""
    order = np.argsort(table.start_ns, kind="stable")
    start_ns = table.start_ns[order]
    origin = int(start_ns[0]) if len(start_ns) else 0
    start_us = (start_ns - origin).astype(np.float64) / 1000.0
    op = table.op[order]
    step, step_starts = assign_steps(op, start_us)
    return Launches(
        table.names, op, start_us, table.duration_us[order], step, step_starts, origin, source
    )


def distribution(launches: Launches, details: tuple[OpDetailStat, ...]) -> Distribution:
    """Min, median, 95th percentile (linear interpolation, as numpy's default) and max of every
    operator's launch times, in the order of ``details`` (matched by full name)."""
    count = len(launches.names)
    result = np.full((4, len(details)), np.nan)
    if not len(launches):
        return Distribution(*result)
    order = np.lexsort((launches.duration_us, launches.op))
    durations = launches.duration_us[order]
    per_op = np.bincount(launches.op, minlength=count)
    first = np.concatenate([[0], np.cumsum(per_op)[:-1]])

    def quantile(q: float) -> np.ndarray:
        position = first + q * np.maximum(per_op - 1, 0)
        low = np.floor(position).astype(np.int64)
        high = np.minimum(low + 1, first + np.maximum(per_op - 1, 0))
        low = np.minimum(low, len(durations) - 1)
        high = np.minimum(high, len(durations) - 1)
        weight = position - np.floor(position)
        return durations[low] * (1 - weight) + durations[high] * weight

    stats = np.vstack([quantile(0.0), quantile(0.5), quantile(0.95), quantile(1.0)])
    stats[:, per_op == 0] = np.nan
    index = {name: i for i, name in enumerate(launches.names)}
    for column, detail in enumerate(details):
        i = index.get(detail.full_name)
        if i is not None:
            result[:, column] = stats[:, i]
    return Distribution(*result)


def input_shapes(framework: FrameworkTable, launches: Launches) -> dict[str, str]:
    """Input shapes per full operator name. ``cpu_framework`` has one line per launch in launch
    order but only the short op name: line i is the i-th launch by start time when the names
    agree (they do in MindSpore's output); otherwise a short name is matched only when one full
    name ends with it. Several shapes of one operator are shown as the most common one and how
    many others there are."""
    short = [name.rsplit("/", 1)[-1] for name in launches.names]
    ops = launches.op.tolist()
    aligned = len(framework) == len(launches) and all(
        a == short[op] for a, op in zip(framework.op_names, ops, strict=True)
    )
    if aligned:
        counted = Counter(zip(ops, framework.inputs, strict=True))
    else:
        owners = Counter(short)
        unique = {s: op for op, s in enumerate(short) if owners[s] == 1}
        counted = Counter(
            (unique[name], inputs)
            for name, inputs in zip(framework.op_names, framework.inputs, strict=True)
            if name in unique
        )
    shapes: dict[int, Counter[str]] = {}
    for (op, inputs), count in counted.items():
        shapes.setdefault(op, Counter())[inputs] = count
    out = {}
    for op, counter in shapes.items():
        common, _ = counter.most_common(1)[0]
        others = len(counter) - 1
        out[launches.names[op]] = common + (
            f" (+{others} other shape{'s' if others > 1 else ''})" if others else ""
        )
    return out


def build_tables(
    path: str,
    device: str,
    types: list[OpTypeStat],
    details: list[OpDetailStat],
    info: dict[str, Any],
    problems: list[Problem],
) -> OpTables:
    """Assemble :class:`OpTables` with MindInsight's formatted rows."""
    return OpTables(
        path=path,
        device=device,
        types=tuple(types),
        details=tuple(details),
        info=info,
        problems=tuple(problems),
        type_rows=[type_row(stat) for stat in types],
        detail_rows=[detail_row(stat) for stat in details],
    )


def build_profile(tables: OpTables, launches: Launches, launch_problems: list[Problem]) -> Profile:
    """Assemble a :class:`Profile` from ``tables`` and the launches, with the launch-time
    distribution; the tables' problems first, then those of the launch file."""
    return Profile(
        path=tables.path,
        device=tables.device,
        types=tables.types,
        details=tables.details,
        launches=launches,
        info=tables.info,
        problems=(*tables.problems, *launch_problems),
        type_rows=tables.type_rows,
        detail_rows=tables.detail_rows,
        distribution=distribution(launches, tables.details),
    )
