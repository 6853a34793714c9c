"""Nice axis ranges and ticks (dash_insight.core.axis_scale)."""

from __future__ import annotations

import math

import pytest

from dash_insight.core.axis_scale import (
    AxisRange,
    aligned_ranges,
    axis_groups,
    constant_span,
    nice_range,
    nice_step,
)


def _is_nice(step: float) -> bool:
    mantissa = step / 10 ** math.floor(math.log10(step))
    return any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5, 10))


@pytest.mark.parametrize(
    ("raw", "step"),
    [(0.23, 0.25), (0.2, 0.2), (3, 5), (7, 10), (0.0011, 0.002), (1e6, 1e6), (1.9e-9, 2e-9)],
)
def test_nice_step_is_the_next_1_2_2p5_5(raw: float, step: float) -> None:
    assert math.isclose(nice_step(raw), step)


@pytest.mark.parametrize("raw", [0, -1, math.nan, math.inf])
def test_nice_step_refuses_what_is_not_a_positive_number(raw: float) -> None:
    with pytest.raises(ValueError):
        nice_step(raw)


def test_a_constant_series_is_centred_in_a_padded_range() -> None:
    axis = nice_range(0.05, 0.05)
    assert axis.low < 0.05 < axis.high
    assert axis.low > 0.03 and axis.high < 0.07  # not plotly's -0.5..1
    assert math.isclose((axis.low + axis.high) / 2, 0.05)
    assert axis.ticks() == [0.044, 0.046, 0.048, 0.05, 0.052, 0.054, 0.056]
    assert nice_range(0, 0) == AxisRange(-1.0, 1.0, 0.5)
    assert constant_span(-2.0) == (-2.2, -1.8)


@pytest.mark.parametrize(
    ("low", "high"),
    [(1.2, 2.35), (0, 1), (-3, 1e6), (1e-9, 3e-9), (-0.7, -0.2), (2.371, 2.372), (1e300, 1.5e300)],
)
def test_nice_range_holds_the_data_on_nice_ticks(low: float, high: float) -> None:
    axis = nice_range(low, high)
    assert axis.low <= low and axis.high >= high
    assert _is_nice(axis.step)
    assert 2 <= axis.intervals <= 6
    ticks = axis.ticks()
    assert ticks[0] == axis.low and ticks[-1] == axis.high
    assert all(math.isclose(t / axis.step, round(t / axis.step), abs_tol=1e-6) for t in ticks)


def test_nice_range_refuses_non_finite_bounds() -> None:
    with pytest.raises(ValueError):
        nice_range(0, math.inf)


def test_aligned_ranges_share_the_grid_lines_with_nice_ticks_on_both_sides() -> None:
    left, right = aligned_ranges((1.74, 2.371), (0.0, 0.1))
    assert left.intervals == right.intervals
    assert left.low <= 1.74 and left.high >= 2.371
    assert right.low <= 0.0 and right.high >= 0.1
    assert _is_nice(left.step) and _is_nice(right.step)
    assert left.ticks() == [1.6, 1.8, 2.0, 2.2, 2.4]
    assert right.ticks() == [0.0, 0.025, 0.05, 0.075, 0.1]


def test_aligned_ranges_with_a_constant_side() -> None:
    left, right = aligned_ranges((0.05, 0.05), (1.2, 2.3))
    assert left.intervals == right.intervals
    assert left.low < 0.05 < left.high and right.low <= 1.2 and right.high >= 2.3


def test_axis_groups_keep_lines_of_a_like_range_together() -> None:
    # loss 0.1..2.5 and accuracy 0.1..1 share the left axis; lr 0..0.1 spans 4 % of it: right.
    assert axis_groups([(0.1, 2.5), (0.0, 0.1), (0.1, 1.0)]) == [0, 1, 0]
    # A third scale (1e30): an axis of its own.
    assert axis_groups([(0.1, 2.5), (0.0, 0.1), (1e30, 2e30)]) == [0, 1, 2]


def test_axis_groups_measure_the_span_on_the_shared_axis() -> None:
    # Same span, far apart: together each would be a flat line at 0 and at 1000.
    assert axis_groups([(0.0, 1.0), (1000.0, 1001.0)]) == [0, 1]
    # Exactly a tenth of the shared axis still shares it; less does not.
    assert axis_groups([(0.0, 10.0), (0.0, 1.0)]) == [0, 0]
    assert axis_groups([(0.0, 10.0), (0.0, 0.99)]) == [0, 1]
    # The ratio is a parameter.
    assert axis_groups([(0.0, 10.0), (0.0, 0.99)], ratio=20) == [0, 0]


def test_axis_groups_of_constant_and_empty_lines() -> None:
    # A constant 0.05 is measured as its padded 0.045..0.055: not beside a loss of 1.2..2.3.
    assert axis_groups([(1.2, 2.3), (0.05, 0.05)]) == [0, 1]
    # Two like constants share an axis; a line without a finite value goes to the first.
    assert axis_groups([(0.05, 0.05), None, (0.05, 0.05)]) == [0, 0, 0]
    assert axis_groups([None, (1.0, 2.0), (1e6, 2e6)]) == [0, 0, 1]
    assert axis_groups([(float("nan"), 1.0), (0.0, 1.0)]) == [0, 0]
    assert axis_groups([]) == []
