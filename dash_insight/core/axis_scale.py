"""Nice axis ranges and ticks for line charts (pure functions, numbers in and out).

Plotly's autorange draws a constant series (a learning rate of 0.05) on a -0.5..1 axis, and a
right-hand axis gets ticks where the left axis' grid lines fall (2.371, 2.055, 1.74...).
MindInsight draws its charts with ECharts, whose value axes are "niced": the range is widened to
multiples of a step of 1, 2, 2.5 or 5 x 10^k and every tick is such a multiple. These functions
compute the same for Plotly; ``assets/scalar-charts.js`` has JavaScript twins of
:func:`nice_step`, :func:`nice_range` and :func:`aligned_ranges` (tested equal).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The mantissas of a nice step (x 10^k), as ECharts' ``nice`` uses.
NICE_MANTISSAS = (1.0, 2.0, 2.5, 5.0, 10.0)
#: Intervals between ticks a chart aims at (ECharts' default ``splitNumber``).
TICK_INTERVALS = 5
#: Interval counts tried when two axes share their grid lines.
SHARED_INTERVALS = (4, 5, 6)


@dataclass(frozen=True)
class AxisRange:
    """An axis from ``low`` to ``high`` with a tick every ``step`` (``low`` and ``high`` are
    multiples of ``step``)."""

    low: float
    high: float
    step: float

    @property
    def intervals(self) -> int:
        return round((self.high - self.low) / self.step)

    def ticks(self) -> list[float]:
        """``low``, ``low + step``, ... ``high``, rounded to the step's precision."""
        return [_clean(self.low + i * self.step, self.step) for i in range(self.intervals + 1)]


def _clean(value: float, step: float) -> float:
    """``value`` without float noise (0.30000000000000004 -> 0.3), to 3 digits below the step."""
    digits = max(0, 3 - math.floor(math.log10(step)))
    return round(value, digits) + 0.0  # + 0.0 turns -0.0 into 0.0


def nice_step(raw: float) -> float:
    """The smallest step m x 10^k >= ``raw`` with m in 1, 2, 2.5, 5 (``raw`` > 0)."""
    if not math.isfinite(raw) or raw <= 0:
        raise ValueError(f"a step must be a positive number, not {raw!r}")
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for mantissa in NICE_MANTISSAS:
        step = mantissa * magnitude
        if step >= raw * (1 - 1e-12):
            return _clean(step, step)
    return 10 * magnitude  # pragma: no cover - 10 x magnitude is always >= raw


def constant_span(value: float) -> tuple[float, float]:
    """The span drawn around a constant series: +-10 % of the value (+-1 around 0), so 0.05
    sits in the middle of 0.045..0.055 instead of Plotly's -0.5..1 (ECharts also centres it)."""
    pad = abs(value) * 0.1 or 1.0
    return value - pad, value + pad


def _fit(low: float, high: float, step: float) -> AxisRange:
    first = math.floor(low / step + 1e-9) * step
    last = math.ceil(high / step - 1e-9) * step
    return AxisRange(_clean(first, step), _clean(last, step), step)


def nice_range(low: float, high: float, intervals: int = TICK_INTERVALS) -> AxisRange:
    """The axis of data from ``low`` to ``high``: a nice step for about ``intervals`` ticks
    (:func:`nice_step` of span / intervals), the range widened to multiples of it. A constant
    series (``low == high``) first gets :func:`constant_span`. Non-finite bounds raise."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"an axis range must be finite, not {low!r}..{high!r}")
    low, high = min(low, high), max(low, high)
    if high == low:
        low, high = constant_span(low)
    axis = _fit(low, high, nice_step((high - low) / max(1, intervals)))
    # The widening can leave more intervals than asked for: the next step up then fits.
    while axis.intervals > intervals + 1:
        axis = _fit(low, high, nice_step(axis.step * 1.000001))
    return axis


def _exact(low: float, high: float, intervals: int) -> AxisRange:
    """The axis with exactly ``intervals`` nice steps that holds ``low..high`` and wastes the
    least room (the start a multiple of the step)."""
    step = nice_step((high - low) / intervals)
    while True:
        first = math.floor(low / step + 1e-9) * step
        if first + intervals * step >= high - 1e-9 * step:
            # Centre the data: move the start down while the end still holds the data.
            spare = int((first + intervals * step - high) / step + 1e-9)
            first -= (spare // 2) * step
            return AxisRange(_clean(first, step), _clean(first + intervals * step, step), step)
        step = nice_step(step * 1.000001)


def aligned_ranges(
    left: tuple[float, float],
    right: tuple[float, float],
    choices: tuple[int, ...] = SHARED_INTERVALS,
) -> tuple[AxisRange, AxisRange]:
    """Axes for a chart with a left and a right y axis whose ticks fall on the same grid lines:
    both get the same number of nice intervals (each its own step), the count among
    ``choices`` that leaves the least empty room on the two axes together. Each side is
    ``(low, high)`` of its data; a constant side gets :func:`constant_span`."""
    spans = []
    for low, high in (left, right):
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ValueError(f"an axis range must be finite, not {low!r}..{high!r}")
        low, high = min(low, high), max(low, high)
        spans.append(constant_span(low) if high == low else (low, high))
    best: tuple[float, AxisRange, AxisRange] | None = None
    for intervals in choices:
        axes = [_exact(low, high, intervals) for low, high in spans]
        waste = sum(
            1 - (high - low) / (axis.high - axis.low)
            for (low, high), axis in zip(spans, axes, strict=True)
        )
        if best is None or waste < best[0] - 1e-9:
            best = (waste, axes[0], axes[1])
    assert best is not None, "choices must not be empty"
    return best[1], best[2]


#: Lines share a y axis while each spans at least 1 / this of the axis (issue #38 item 5).
SHARED_AXIS_RATIO = 10.0


def axis_groups(
    ranges: Sequence[tuple[float, float] | None], ratio: float = SHARED_AXIS_RATIO
) -> list[int]:
    """Which y axis each line of a composed chart goes on, so that no line is drawn flat.

    The rule: a line's range is ``(low, high)`` of its finite values (a constant line: the
    :func:`constant_span` its axis would show around it); a group's range is the union of
    its lines' ranges. Lines are taken in order; each joins the first group in which every
    line, itself included, still spans at least ``1 / ratio`` of the group's range, and else
    starts a new group. So a learning rate of 0..0.1 does not join a loss of 0..2.5 (it would
    span 4 % of their axis), and an accuracy of 0.1..1 does. A line without a finite value
    (None) joins group 0.

    Returns each line's group: 0 for the first (the left axis), 1, 2, ... in order of first
    appearance (the chart draws group 1 on a right-hand axis, the others on axes of their
    own)."""
    spans: list[tuple[float, float] | None] = []
    for bounds in ranges:
        if bounds is None or not all(math.isfinite(v) for v in bounds):
            spans.append(None)
            continue
        low, high = min(bounds), max(bounds)
        spans.append(constant_span(low) if high == low else (low, high))
    members: list[list[tuple[float, float]]] = []
    out: list[int] = []
    for span in spans:
        if span is None:
            out.append(0)
            continue
        for number, group in enumerate(members):
            candidate = [*group, span]
            low = min(s[0] for s in candidate)
            high = max(s[1] for s in candidate)
            if all((s[1] - s[0]) * ratio >= high - low for s in candidate):
                group.append(span)
                out.append(number)
                break
        else:
            members.append([span])
            out.append(len(members) - 1)
    return out


#: Plotly's SI prefixes of a tick exponent (``exponent // 3 + 5``): 10^-15 .. 10^12.
SI_PREFIXES = ("f", "p", "n", "\u03bc", "m", "", "k", "M", "G", "T")
MINUS = "\u2212"


def _js_round(value: float) -> int:
    """JavaScript's ``Math.round``: halves up."""
    return math.floor(value + 0.5)


def _log10(value: float) -> float:
    """``Math.log(value) / Math.LN10`` as Plotly computes it (not ``math.log10``: they differ
    in the last bit at some powers of ten)."""
    return math.log(value) / math.log(10)


def tick_exponent(widest: float) -> int:
    """Plotly's ``_tickexponent`` (``autoTickRound``, exponent format "B") of an axis whose
    range reaches ``widest`` (the larger of its ends' magnitudes): 0 from 10^-3 to below 10^4;
    beyond, the multiple of 3 nearest below (an SI prefix), or the exponent itself past
    10^14 or below 10^-15 (a power of ten)."""
    if not widest > 0 or not math.isfinite(widest):
        return 0
    range_exp = math.floor(_log10(widest) + 0.01)
    if abs(range_exp) <= 3:
        return 0
    if range_exp > 14 or range_exp < -15:
        return range_exp
    return 3 * _js_round((range_exp - 1) / 3)


def separate_thousands(text: str) -> str:
    """Plotly's ``numSeparate`` with separators ``.,``: commas in the integer part when it has
    more than 4 digits or the number has decimals (``1000.05`` -> ``1,000.05``, ``1000`` as
    it is)."""
    whole, dot, decimals = text.partition(".")
    if dot or len(whole) > 4:
        digits = whole
        groups: list[str] = []
        while len(digits) > 3:
            digits, last = digits[:-3], digits[-3:]
            groups.insert(0, last)
        whole = ",".join([digits, *groups]) if digits else ",".join(groups)
    return whole + dot + decimals


def tick_label(value: float, step: float, widest: float) -> str:
    """A linear axis' tick label as Plotly writes it (``numFormat``, exponent format "B"): the
    value rounded to 2 digits past the step's largest, trailing zeros dropped, a real minus
    sign; scaled by :func:`tick_exponent` of the axis' ``widest`` end with an SI prefix (k, M,
    B for 10^9, G is never used; m, μ, n, ...) or as ``×10<sup>n</sup>`` beyond them;
    :func:`separate_thousands`. ``step`` > 0."""
    round_to = 2 - math.floor(_log10(step) + 0.01)
    exponent = tick_exponent(widest)
    negative, magnitude = value < 0, abs(value)
    if magnitude < 10.0**-round_to / 2:
        return "0"
    if exponent:
        magnitude *= 10.0**-exponent
        round_to += exponent
    if round_to == 0:
        text = str(_js_round(magnitude))
    elif round_to < 0:
        unit = 10.0**-round_to
        text = str(_js_round(magnitude / unit) * int(unit))
    else:
        text = f"{magnitude:.{min(20, round_to)}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    text = separate_thousands(text)
    if exponent > 14 or exponent < -15:
        text += f"\u00d710<sup>{MINUS + str(-exponent) if exponent < 0 else exponent}</sup>"
    elif exponent == 9:
        text += "B"
    elif exponent:
        text += SI_PREFIXES[exponent // 3 + 5]
    return MINUS + text if negative else text
