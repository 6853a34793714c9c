"""Groups of runs and their aggregates (dash_insight/plugins/scalars/query_groups.py), checked
against numpy computed by hand on the aligned values."""

from __future__ import annotations

import numpy as np
import pytest

from dash_insight.core.lineage_rows import row_columns
from dash_insight.core.store.series import ScalarSeries
from dash_insight.plugins.scalars.query_groups import (
    Group,
    GroupBy,
    aggregate,
    assign_groups,
    drawn_points,
    group_of,
    parse_group_by,
)


def series(steps: list[int], values: list[float], start: float = 100.0) -> ScalarSeries:
    step = np.array(steps, np.int64)
    return ScalarSeries(step, start + step.astype(np.float64), np.array(values, np.float32))


# Three runs logged at the same steps.
A = series([1, 2, 3], [1.0, 2.0, 3.0])
B = series([1, 2, 3], [3.0, 6.0, 3.5])
C = series([1, 2, 3], [2.0, 10.0, 0.5])
MATRIX = np.array([[1.0, 2.0, 3.0], [3.0, 6.0, 3.5], [2.0, 10.0, 0.5]], np.float32).astype(float)


def test_mean_and_std_of_aligned_runs() -> None:
    found = aggregate([A, B, C], "mean", "std")
    mean = MATRIX.mean(axis=0)
    std = MATRIX.std(axis=0)
    assert found.step.tolist() == [1, 2, 3]
    np.testing.assert_allclose(found.centre, mean)
    np.testing.assert_allclose(found.low, mean - std)
    np.testing.assert_allclose(found.high, mean + std)
    assert found.count.tolist() == [3, 3, 3]
    assert found.band_points == 3


def test_median_and_minmax() -> None:
    found = aggregate([A, B, C], "median", "minmax")
    np.testing.assert_allclose(found.centre, np.median(MATRIX, axis=0))
    np.testing.assert_allclose(found.low, MATRIX.min(axis=0))
    np.testing.assert_allclose(found.high, MATRIX.max(axis=0))


def test_median_of_an_even_count_is_the_middle_pair_mean() -> None:
    found = aggregate([A, B], "median", "std")
    np.testing.assert_allclose(found.centre, np.median(MATRIX[:2], axis=0))
    # ±std goes around the median too
    np.testing.assert_allclose(found.high - found.centre, MATRIX[:2].std(axis=0))


def test_uneven_runs_are_aligned_on_steps_without_invented_points() -> None:
    short = series([2, 4], [5.0, 7.0], start=0.0)  # logs every 2 steps, stops early
    long = series([1, 2, 3, 4, 5, 6], [1.0, 3.0, 1.0, 9.0, 2.0, 4.0], start=50.0)
    found = aggregate([short, long], "mean", "std")
    assert found.step.tolist() == [1, 2, 3, 4, 5, 6]  # the union, nothing interpolated
    assert found.count.tolist() == [1, 2, 1, 2, 1, 1]
    np.testing.assert_allclose(found.centre, [1.0, 4.0, 1.0, 8.0, 2.0, 4.0])
    # the band only where two runs have a value
    both = found.count >= 2
    np.testing.assert_allclose(found.low[both], [4.0 - 1.0, 8.0 - 1.0])
    np.testing.assert_allclose(found.high[both], [4.0 + 1.0, 8.0 + 1.0])
    assert np.isnan(found.low[~both]).all() and np.isnan(found.high[~both]).all()
    assert found.band_points == 2
    # times: the mean of the runs' wall times at the step, and of their times since their start
    np.testing.assert_allclose(found.wall[1], np.mean([2.0, 52.0]))
    np.testing.assert_allclose(found.relative[1], np.mean([0.0, 1.0]))
    np.testing.assert_allclose(found.relative[0], 0.0)


def test_non_finite_values_are_left_out() -> None:
    bad = series([1, 2], [np.nan, np.inf])
    found = aggregate([A, bad], "mean", "minmax")
    assert found.count.tolist() == [1, 1, 1]
    np.testing.assert_allclose(found.centre, [1.0, 2.0, 3.0])
    assert np.isnan(found.low).all()


def test_single_run_and_empty_groups() -> None:
    one = aggregate([A], "mean", "std")
    np.testing.assert_allclose(one.centre, [1.0, 2.0, 3.0])
    assert one.band_points == 0 and np.isnan(one.high).all()
    for runs in ([], [series([], [])]):
        empty = aggregate(runs, "median", "minmax")
        assert len(empty) == 0 and empty.count.dtype == np.int64


def test_bad_choices_are_refused() -> None:
    with pytest.raises(ValueError):
        aggregate([A], "mode", "std")
    with pytest.raises(ValueError):
        aggregate([A], "mean", "iqr")


def test_drawn_points_are_the_aggregates_own() -> None:
    runs = [series(list(range(1000)), list(np.sin(np.arange(1000) + k))) for k in range(3)]
    found = aggregate(runs)
    drawn, in_range = drawn_points(found, None, None, 100)
    assert in_range == 1000 and 0 < len(drawn) <= 102
    positions = np.searchsorted(found.step, drawn.step)
    np.testing.assert_array_equal(drawn.centre, found.centre[positions])
    np.testing.assert_array_equal(drawn.high, found.high[positions])
    window, in_window = drawn_points(found, 10, 19, 100)
    assert window.step.tolist() == list(range(10, 20)) and in_window == 10


def test_parse_group_by() -> None:
    assert parse_group_by("") is None and parse_group_by(None) is None
    assert parse_group_by("re:") is None
    assert parse_group_by("learning_rate") == GroupBy(column="learning_rate")
    assert parse_group_by("re:seed(\\d+)") == GroupBy(pattern="seed(\\d+)")
    assert GroupBy(pattern="x(y)").text == "re:x(y)"
    with pytest.raises(ValueError):
        parse_group_by("re:(unclosed")
    with pytest.raises(ValueError):
        parse_group_by("x" * 201)


def test_groups_by_column() -> None:
    columns = {
        "a": row_columns({"batch_size": 32, "user_defined": {"seed": 1}}),
        "b": row_columns({"batch_size": 64}),
        "c": row_columns({"batch_size": 32, "metric": {"acc": 0.5}}),
        # "d" has no lineage
    }
    assert assign_groups(["a", "b", "c", "d"], GroupBy(column="batch_size"), columns) == [
        Group("32", ("a", "c")),
        Group("64", ("b",)),
        Group(None, ("d",)),
    ]
    by_seed = assign_groups(["a", "b"], GroupBy(column="user_defined/seed"), columns)
    assert by_seed == [Group("1", ("a",)), Group(None, ("b",))]
    assert group_of("c", GroupBy(column="metric/acc"), columns["c"]) == "0.5"
    assert assign_groups([], GroupBy(column="batch_size"), columns) == []


def test_groups_by_regex_first_capture_group() -> None:
    runs = ["lr0.1_seed1", "lr0.1_seed2", "lr0.01_seed1", "baseline"]
    assert assign_groups(runs, GroupBy(pattern=r"lr([\d.]+)_"), {}) == [
        Group("0.1", ("lr0.1_seed1", "lr0.1_seed2")),
        Group("0.01", ("lr0.01_seed1",)),
        Group(None, ("baseline",)),
    ]
    # without a capture group the whole match is the group
    assert group_of("lr0.1_seed1", GroupBy(pattern=r"seed\d"), None) == "seed1"
    # an optional group that did not take part: no group
    assert group_of("baseline", GroupBy(pattern=r"base(x)?"), None) is None


def test_on_an_x_tag_each_run_places_its_own_points() -> None:
    """Issue 40 item 1 on the chosen x axis: a run's point counts where its run has an x value
    at its step; the group's x is the mean of the counted runs' x values there, exactly their
    value when they agree."""
    first = series([1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0])
    second = series([1, 2, 3, 4], [3.0, 4.0, 5.0, 8.0])
    third = series([2, 4], [6.0, 0.5])
    x = [
        np.array([0.1, 0.2, np.nan, 0.4]),  # no x at step 3: its 3.0 is left out
        np.array([0.1, 0.3, np.nan, 0.4]),  # differs from the first at step 2
        np.array([np.nan, np.nan]),  # no x at all: the run counts nowhere
    ]
    found = aggregate([first, second, third], "mean", "minmax", x)
    assert found.step.tolist() == [1, 2, 4]  # step 3: no run could place its point
    assert found.count.tolist() == [2, 2, 2]
    np.testing.assert_allclose(found.centre, [np.mean([1, 3]), np.mean([2, 4]), np.mean([4, 8])])
    np.testing.assert_allclose(found.low, [1.0, 2.0, 4.0])
    np.testing.assert_allclose(found.high, [3.0, 4.0, 8.0])
    assert found.x is not None and found.x_spread is not None
    assert found.x.tolist() == [0.1, np.mean([0.2, 0.3]), 0.4]  # 0.1 and 0.4 exactly
    np.testing.assert_allclose(found.x_spread, [0.0, 0.1, 0.0], atol=1e-15)
    assert found.unplaced == 2 + 2  # step 3 of the first two runs, both points of the third
    assert found.x_differs() == 1 and found.x_differs(3, 4) == 0
    # three runs agreeing on a value a plain mean would miss (0.1 + 0.1 + 0.1 != 0.3)
    same = aggregate([A, B, C], x=[np.array([0.1, 0.7, 1.3])] * 3)
    assert same.x is not None and same.x.tolist() == [0.1, 0.7, 1.3]
    np.testing.assert_allclose(same.centre, MATRIX.mean(axis=0))
    # drawn points keep their x; off an x tag there is none
    drawn, _in_range = drawn_points(found, 2, 4, None)
    assert drawn.x is not None and drawn.x.tolist() == found.x[1:].tolist()
    assert aggregate([A]).x is None and aggregate([A]).x_differs() == 0
    empty = aggregate([third], x=[x[2]])
    assert len(empty) == 0 and empty.unplaced == 2 and empty.x is not None
    with pytest.raises(ValueError):
        aggregate([A, B], x=[np.zeros(3)])
