"""Histogram re-binning for display (spec §4.2): golden vectors, edge cases, corpus, oracle."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dash_insight.core.format.events import HistogramValue, decode_event
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.histogram_bins import (
    MAX_DISPLAY_BINS,
    MAX_ORIGINAL_BUCKETS,
    OriginalHistogram,
    bucket_count,
    display_bins,
    display_grid,
    drop_oversized,
    exceeds_bucket_limit,
    finite_or_zero,
    rebin,
    unify,
    visual_range,
)

ORACLE_NAME = "mindinsight-2.3.1-corpus.json.gz"


def hist(buckets: list[tuple[float, float, float]], low: float, high: float) -> OriginalHistogram:
    return OriginalHistogram(np.array(buckets, dtype=np.float64).reshape(-1, 3), low, high)


def histogram_value(
    buckets: list[tuple[float, float, float]], low: float, high: float, nan: int = 0
) -> HistogramValue:
    array = np.array(buckets, dtype=np.float64).reshape(-1, 3)
    count = int(array[:, 2].sum()) + nan
    return HistogramValue(array, nan, 0, 0, high, low, 0.0, count)


def assert_buckets(actual: np.ndarray, expected: list[tuple[float, float, float]]) -> None:
    expected_array = np.array(expected, dtype=np.float64)
    assert actual.shape == expected_array.shape
    np.testing.assert_allclose(actual[:, :2], expected_array[:, :2], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(actual[:, 2], expected_array[:, 2])


# --- display_bins ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_count", "bins"),
    [
        (-1, 1),
        (0, 1),
        (1, 2),
        (5, 2),
        (6, 3),
        (10, 3),
        (11, 3),
        (20, 3),
        (21, 4),
        (100, 11),
        (101, 12),
        (270, 28),
        (271, 29),
        (280, 29),
        (281, 30),
        (10**9, 30),
    ],
)
def test_display_bins(max_count: int, bins: int) -> None:
    assert display_bins(max_count) == bins


def test_display_bins_never_exceeds_30() -> None:
    assert max(display_bins(n) for n in range(5000)) == MAX_DISPLAY_BINS == 30


# --- golden vectors (MindInsight test_histogram_container.py) -----------------------------------


def test_golden_one_bucket_three_bins_ceil_inflates() -> None:
    out = rebin(np.array([(0, 1, 1)]), 0, 1, 3)
    assert_buckets(out, [(0, 1 / 3, 1), (1 / 3, 1 / 3, 1), (2 / 3, 1 / 3, 1)])


def test_golden_two_buckets_four_bins() -> None:
    out = rebin(np.array([(0, 1, 1), (1, 1, 2)]), -1, 3, 4)
    assert_buckets(out, [(-1, 1, 0), (0, 1, 1), (1, 1, 2), (2, 1, 0)])


def test_golden_two_buckets_five_bins() -> None:
    out = rebin(np.array([(0, 1, 1), (1, 1, 10)]), -1, 3, 5)
    np.testing.assert_array_equal(out[:, 2], [0, 1, 5, 6, 0])
    np.testing.assert_allclose(out[:, 1], 0.8)
    np.testing.assert_allclose(out[:, 0], [-1, -0.2, 0.6, 1.4, 2.2])


def test_golden_zero_width_bucket() -> None:
    out = rebin(np.array([(0, 1, 1), (1, 0, 2)]), 0, 2, 3)
    np.testing.assert_array_equal(out[:, 2], [1, 3, 0])


# --- rebin edge cases ----------------------------------------------------------------------------


def test_rebin_equal_range_widens_by_half() -> None:
    out = rebin(np.array([(2.5, 1, 4)]), 3, 3, 1)
    assert_buckets(out, [(2.5, 1, 4)])


@pytest.mark.parametrize("buckets", [np.zeros((0, 3)), np.array([(0, 1, 0), (1, 1, 0)])])
def test_rebin_empty_step_gives_zero_buckets(buckets: np.ndarray) -> None:
    out = rebin(buckets, -1, 1, 4)
    assert_buckets(out, [(-1, 0.5, 0), (-0.5, 0.5, 0), (0, 0.5, 0), (0.5, 0.5, 0)])


def test_rebin_accepts_unsorted_buckets() -> None:
    ordered = np.array([(0, 1, 3), (1, 1, 5), (2, 1, 7)], dtype=np.float64)
    np.testing.assert_array_equal(rebin(ordered[::-1], 0, 3, 4), rebin(ordered, 0, 3, 4))


def test_rebin_zero_width_on_display_edge_counted_once() -> None:
    # MindInsight's sweep loses a zero-width bucket lying exactly on an edge; we keep it once.
    out = rebin(np.array([(0, 1, 1), (1, 0, 5), (1, 1, 1)]), 0, 2, 2)
    np.testing.assert_array_equal(out[:, 2], [1, 6])
    assert out[:, 2].sum() == 7


def test_rebin_zero_width_at_max_goes_to_last_bucket() -> None:
    out = rebin(np.array([(0, 1, 2), (1, 0, 3)]), 0, 1, 2)
    np.testing.assert_array_equal(out[:, 2], [1, 4])


def test_rebin_zero_width_outside_range_dropped() -> None:
    out = rebin(np.array([(-5, 0, 9), (0, 1, 2)]), 0, 1, 2)
    np.testing.assert_array_equal(out[:, 2], [1, 1])


def test_rebin_only_zero_width_buckets() -> None:
    out = rebin(np.array([(0.5, 0, 3)]), 0.5, 0.5, 2)
    assert_buckets(out, [(0, 0.5, 0), (0.5, 0.5, 3)])


def test_rebin_huge_range_stays_finite() -> None:
    out = rebin(np.array([(-1e308, 1e308, 1), (0, 1e308, 1)]), -1e308, 1e308, 30)
    assert np.isfinite(out).all()
    assert out[:, 2].sum() >= 2
    np.testing.assert_allclose(out[:, 1], 1e308 / 15)  # 2e308 / 30 without overflowing


def test_rebin_float32_extremes() -> None:
    top = float(np.finfo(np.float32).max)
    out = rebin(np.array([(-top, top, 10), (0, top, 10)]), -top, top, 4)
    np.testing.assert_array_equal(out[:, 2], [5, 5, 5, 5])


@pytest.mark.parametrize(
    ("vmin", "vmax", "bins", "message"),
    [
        (0, 1, 0, "bins"),
        (1, 0, 3, "reversed"),
        (0, float("inf"), 3, "finite"),
        (float("nan"), 1, 3, "finite"),
    ],
)
def test_display_grid_rejects_bad_range(vmin: float, vmax: float, bins: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        display_grid(vmin, vmax, bins)


@settings(max_examples=200, deadline=None)
@given(
    edges=st.lists(st.integers(-(10**6), 10**6), min_size=2, max_size=40, unique=True),
    counts=st.lists(st.integers(0, 10**6), min_size=39, max_size=39),
    bins=st.integers(1, 30),
)
def test_rebin_bounds_total_when_buckets_inside_range(
    edges: list[int], counts: list[int], bins: int
) -> None:
    edges = sorted(e / 8 for e in edges)
    left = np.array(edges[:-1])
    width = np.diff(edges)
    count = np.array(counts[: len(left)], dtype=np.float64)
    out = rebin(np.column_stack([left, width, count]), edges[0], edges[-1], bins)
    total = count.sum()
    assert (out[:, 2] >= 0).all()
    assert total <= out[:, 2].sum() <= total + bins
    np.testing.assert_allclose(out[:, 1], (edges[-1] - edges[0]) / bins)


# --- visual range and unify ----------------------------------------------------------------------


def test_finite_or_zero() -> None:
    assert finite_or_zero(1.5) == 1.5
    assert finite_or_zero(float("nan")) == 0.0
    assert finite_or_zero(float("-inf")) == 0.0


def test_bucket_count_sums_counts() -> None:
    assert bucket_count(np.array([(0, 1, 2), (1, 1, 3)])) == 5
    assert bucket_count(np.zeros((0, 3))) == 0


def test_visual_range_skips_empty_steps_and_masks_invalid() -> None:
    steps = [
        hist([(0, 1, 4)], 0, 1),
        hist([], -100, 100),  # empty: its range is ignored
        hist([(-2, 1, 1), (-1, 1, 1)], -2, float("inf")),  # max read as 0
    ]
    assert visual_range(steps) == (-2.0, 1.0, 4)


def test_visual_range_no_steps_or_all_empty() -> None:
    assert visual_range([]) == (0.0, 0.0, 0)
    assert visual_range([hist([], 5, 6), hist([], 1, 2)]) == (0.0, 0.0, 0)


def test_unify_empty_list() -> None:
    assert unify([]) == []


def test_unify_all_empty_steps_gives_one_zero_bucket() -> None:
    out = unify([histogram_value([], 0, 0, nan=20), histogram_value([], 0, 0, nan=3)])
    for step in out:
        assert_buckets(step, [(-0.5, 1, 0)])


def test_unify_shares_one_grid_and_zero_fills_empty_steps() -> None:
    steps = [
        histogram_value([(0, 0.5, 3), (0.5, 0.5, 7)], 0, 1),
        histogram_value([(-1, 1, 2), (0, 1, 2), (1, 1, 2)], -1, 2),
        histogram_value([], 0, 0, nan=4),
    ]
    out = unify(steps)
    assert len(out) == 3
    assert all(step.shape == (display_bins(10), 3) for step in out)
    for step in out[1:]:
        np.testing.assert_array_equal(step[:, :2], out[0][:, :2])
    assert out[0][0, 0] == -1 and np.isclose(out[0][-1, 0] + out[0][-1, 1], 2)
    np.testing.assert_array_equal(out[2][:, 2], 0)


def test_unify_single_value() -> None:
    # MindSpore writes one value v as [v - 0.5, v) and [v, v + 0.5] with min = max = v.
    out = unify([histogram_value([(2.5, 0.5, 0), (3, 0.5, 1)], 3, 3)])
    assert_buckets(out[0], [(2.5, 0.5, 0), (3, 0.5, 1)])


def test_bucket_limit_rule() -> None:
    ninety = hist([(i, 1, 1) for i in range(90)], 0, 90)
    ninety_one = hist([(i, 1, 1) for i in range(91)], 0, 91)
    assert MAX_ORIGINAL_BUCKETS == 90
    assert not exceeds_bucket_limit(ninety)
    assert exceeds_bucket_limit(ninety_one)
    assert drop_oversized([ninety, ninety_one, ninety]) == [ninety, ninety]
    # Kept anyway, it re-bins like any other step.
    assert unify([ninety_one])[0][:, 2].sum() >= 91


# --- corpus --------------------------------------------------------------------------------------


def read_values(paths: list[Path], plugin: str) -> dict[str, list[tuple[float, int, object]]]:
    """tag -> [(wall_time, step, value)] of one plugin, in file order."""
    out: dict[str, list[tuple[float, int, object]]] = defaultdict(list)
    for path in paths:
        for record in RecordReader(path).read():
            event = decode_event(record.payload)
            for value in event.values:
                if value.plugin == plugin:
                    out[value.tag].append((event.wall_time, event.step, value.value))
    return out


@pytest.fixture(scope="module")
def ops_all_histograms(corpus: Path) -> dict[str, list[tuple[float, int, object]]]:
    return read_values(sorted((corpus / "ops_all").glob("*_MS")), "histogram")


def test_corpus_with_nan_inf_and_all_nan(ops_all_histograms: dict) -> None:
    with_nan = [value for _, _, value in ops_all_histograms["hist/with_nan_inf"]]
    all_nan = [value for _, _, value in ops_all_histograms["hist/all_nan"]]
    assert len(with_nan) == len(all_nan) == 51
    out = unify(with_nan)
    assert all(np.isfinite(step).all() for step in out)
    assert len({step[:, :2].tobytes() for step in out}) == 1
    for step, value in zip(out, with_nan, strict=True):
        assert step[:, 2].sum() >= bucket_count(value.buckets) > 0
    for step in unify(all_nan):
        assert_buckets(step, [(-0.5, 1, 0)])


def test_corpus_every_histogram_tag_unifies(ops_all_histograms: dict) -> None:
    for tag, entries in ops_all_histograms.items():
        out = unify([value for _, _, value in entries])
        assert all(step.shape[0] <= MAX_DISPLAY_BINS for step in out), tag
        assert all((step[:, 2] >= 0).all() and np.isfinite(step).all() for step in out), tag


# --- MindInsight 2.3.1 oracle: identical buckets for every histogram of the corpus ---------------


def test_matches_mindinsight_oracle_exactly(corpus: Path) -> None:
    oracle_path = corpus.parent / "oracle" / ORACLE_NAME
    if not oracle_path.is_file():
        pytest.skip(f"oracle not found at {oracle_path}")
    with gzip.open(oracle_path) as handle:
        oracle = json.load(handle)
    compared = 0
    for job, answers in oracle["jobs"].items():
        values = read_values(sorted((corpus / job).glob("*_MS")), "histogram")
        for tag, answer in answers.get("histograms", {}).items():
            pool = values[tag.removesuffix("/histogram")]
            steps = answer["histograms"]
            # MindInsight served a sample of the steps; unify exactly those.
            chosen = [
                next(
                    v
                    for wall, step, v in pool
                    if step == s["step"] and abs(wall - s["wall_time"]) < 1e-6
                )
                for s in steps
            ]
            for served, ours in zip(steps, unify(chosen), strict=True):
                expected = np.array(served["buckets"], dtype=np.float64).reshape(-1, 3)
                np.testing.assert_array_equal(ours, expected, err_msg=f"{job} {tag}")
                compared += 1
    assert compared > 1000
