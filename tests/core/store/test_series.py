"""Scalar merge (MindInsight's duplicate/restart rule) and display downsampling."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dash_insight.core.format.files import summary_sort_key
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.format.scan import EventScanner
from dash_insight.core.store.series import (
    ScalarSeries,
    downsample,
    downsample_indices,
    merge_points,
)


def _reference_merge(points: list[tuple[int, int]]) -> dict[int, int]:
    """MindInsight's EventsData.add_tensor_event loop: points are (step, file_rank); returns
    {step: index of the surviving point}."""
    kept: list[tuple[int, int, int]] = []  # (step, rank, index)
    for index, (step, rank) in enumerate(points):
        if kept and step <= max(s for s, _, _ in kept):
            kept = [k for k in kept if k[0] < step or (k[0] > step and k[1] >= rank)]
        kept.append((step, rank, index))
    return {s: i for s, _, i in kept}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), max_size=60))
def test_merge_matches_mindinsight_loop(points: list[tuple[int, int]]) -> None:
    points = sorted(points, key=lambda p: p[1])  # files arrive in timestamp order
    steps = np.array([p[0] for p in points], dtype=np.int64)
    ranks = np.array([p[1] for p in points], dtype=np.int64)
    series = merge_points(
        steps,
        np.arange(len(points), dtype=np.float64),
        np.arange(len(points), dtype=np.float32),
        ranks,
    )
    expected = _reference_merge(points)
    assert series.step.tolist() == sorted(expected)
    assert series.value.tolist() == [expected[s] for s in sorted(expected)]


def test_duplicate_step_keeps_the_last_value() -> None:
    series = merge_points(
        np.array([1, 2, 2, 3]), np.zeros(4), np.array([1, 2, 5, 3.0]), np.zeros(4, np.int64)
    )
    assert series.step.tolist() == [1, 2, 3] and series.value.tolist() == [1, 5, 3]


def test_late_records_of_the_same_file_are_kept() -> None:
    series = merge_points(
        np.array([1, 5, 3]), np.zeros(3), np.array([1, 5, 3.0]), np.zeros(3, np.int64)
    )
    assert series.step.tolist() == [1, 3, 5]


def test_corpus_multi_file_restart(corpus: Path) -> None:
    """multi_file: steps 1-120, 121-240 (resumed), 181-300 (restarted at 181): the third file
    replaces 181-240 of the second. Its `session` tag tells which file a point came from."""
    files = sorted((corpus / "multi_file").glob("*_MS"), key=lambda p: summary_sort_key(p.name))
    columns = {"step": [], "wall": [], "value": [], "rank": []}
    for rank, path in enumerate(files):
        result = EventScanner().scan(RecordReader(path).read())
        session = result.scalars["session"]
        columns["step"].append(session.step)
        columns["wall"].append(session.wall_time)
        columns["value"].append(session.value)
        columns["rank"].append(np.full(len(session), rank))
    series = merge_points(*(np.concatenate(columns[k]) for k in ("step", "wall", "value", "rank")))
    assert series.step.tolist() == list(range(1, 301))
    expected = [1] * 120 + [2] * 60 + [3] * 120
    assert series.value.tolist() == expected


def test_corpus_duplicate_collector_steps_appear_once(corpus: Path) -> None:
    [path] = (corpus / "lenet_sc").glob("*_MS")
    loss = EventScanner().scan(RecordReader(path).read()).scalars["loss/auto"]
    assert len(loss) == 51
    series = merge_points(loss.step, loss.wall_time, loss.value, np.zeros(len(loss), np.int64))
    assert series.step.tolist() == list(range(1, 49))


@pytest.mark.parametrize("n", [0, 1, 5, 999, 1000, 1001, 20000])
def test_downsample_keeps_ends_and_extremes(n: int) -> None:
    rng = np.random.default_rng(n)
    values = rng.standard_normal(n).astype(np.float32)
    index = downsample_indices(values, 1000)
    assert len(index) <= 1000
    assert np.all(np.diff(index) > 0)
    if n:
        assert index[0] == 0 and index[-1] == n - 1
        assert values[index].max() == values.max() and values[index].min() == values.min()
    if n <= 1000:
        assert len(index) == n


def test_downsample_keeps_every_bucket_extreme_and_nonfinite() -> None:
    values = np.sin(np.arange(20000) / 30.0)
    values[[5000, 6000, 7000]] = [np.nan, np.inf, -np.inf]
    index = downsample_indices(values, 400)
    assert {5000, 6000, 7000} <= set(index.tolist())
    assert len(index) <= 403
    buckets = np.linspace(1, 19999, 200).astype(int)
    for start, end in itertools.pairwise(buckets):
        segment = values[start:end]
        finite = segment[np.isfinite(segment)]
        kept = values[index[(index >= start) & (index < end)]]
        assert finite.max() in kept and finite.min() in kept


def test_downsample_series() -> None:
    series = ScalarSeries(np.arange(5000), np.arange(5000.0), np.arange(5000, dtype=np.float32))
    small = downsample(series, 100)
    assert len(small) <= 100 and small.step[0] == 0 and small.step[-1] == 4999
    assert downsample(series, 10000) is series
