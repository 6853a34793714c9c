"""Opt-in reservoir sampling: MindInsight's exact samples, newest always kept."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dash_insight.core.store.sampling import (
    MINDINSIGHT_SAMPLES,
    Reservoir,
    format_samples_per_plugin,
    parse_samples_per_plugin,
    sample_indices,
)


class _MindInsightReservoir:
    """Transcription of MindInsight 2.3.1 reservoir.py + EventsData purge (spec §2.7)."""

    def __init__(self, size: int) -> None:
        self.size, self.samples, self.counter = size, [], 0
        self.rng = random.Random(0)

    def add(self, step: int, rank: int, item: int) -> None:
        if self.samples and step <= self.samples[-1][0]:
            before = len(self.samples)
            self.samples = [
                x for x in self.samples if x[0] < step or (x[0] > step and x[1] >= rank)
            ]
            self.counter = round(self.counter * len(self.samples) / before)
        sample = (step, rank, item)
        if len(self.samples) < self.size or self.size == 0:
            self._insert(sample)
        else:
            r = self.rng.randint(0, self.counter)
            if r < self.size:
                self.samples.pop(r)
            else:
                self.samples = self.samples[:-1]
            self._insert(sample)
        self.counter += 1

    def _insert(self, sample: tuple[int, int, int]) -> None:
        if not self.samples or sample[0] > self.samples[-1][0]:
            self.samples.append(sample)
        else:
            index = next(i for i, x in enumerate(self.samples) if x[0] > sample[0])
            self.samples.insert(index, sample)


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 12),
    points=st.lists(st.tuples(st.integers(0, 80), st.integers(0, 2)), max_size=150),
)
def test_same_samples_as_mindinsight(size: int, points: list[tuple[int, int]]) -> None:
    points = sorted(points, key=lambda p: p[1])
    ours = Reservoir(size)
    theirs = _MindInsightReservoir(size)
    for index, (step, rank) in enumerate(points):
        ours.add(step, index, rank)
        theirs.add(step, rank, index)
    assert ours.items() == [x[2] for x in theirs.samples]


def test_bounded_sorted_deterministic_and_keeps_newest() -> None:
    steps = list(range(5000))
    kept = sample_indices(steps, [0] * 5000, 1000)
    assert len(kept) == 1000 and kept[-1] == 4999
    assert list(kept) == sorted(kept)
    assert list(kept) == list(sample_indices(steps, [0] * 5000, 1000))


def test_parse_samples_per_plugin() -> None:
    assert parse_samples_per_plugin("scalar=1000, image=10,histogram=all") == {
        "scalar": 1000,
        "image": 10,
        "histogram": 0,
    }
    assert parse_samples_per_plugin("mindinsight") == MINDINSIGHT_SAMPLES
    assert format_samples_per_plugin({"scalar": 5, "image": 0}) == "scalar=5,image=all"
    for bad in ("scalar", "audio=3", "scalar=0", "scalar=-1", "scalar=x"):
        with pytest.raises(ValueError, match="samples-per-plugin"):
            parse_samples_per_plugin(bad)
