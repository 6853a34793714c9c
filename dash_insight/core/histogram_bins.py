"""Histogram re-binning for display: the buckets every step of a tag shares.

MindSpore writes each step's histogram with its own edges (up to 90 equal-width buckets over that
step's [min, max]). Drawn side by side, steps with thinner buckets would look as if they held
fewer values, so MindInsight 2.3.1 (``datavisual/data_transform/histogram.py``,
``reservoir.HistogramReservoir``, ``utils.calc_histogram_bins``) re-samples every step of a tag
onto one grid before serving ``/datavisual/histograms`` (spec §3.4, §4.2):

1. per step: ``count`` = Σ bucket counts (finite values only), ``min``/``max`` from the proto
   with NaN/±Inf read as 0;
2. over the steps with ``count > 0``: ``vmin = min(min)``, ``vmax = max(max)``,
   ``max_count = max(count)``;
3. ``bins = display_bins(max_count)`` (at most 30);
4. each step re-sampled onto ``bins`` equal buckets of [vmin, vmax] by overlap share, rounded up.

Buckets are ``(n, 3)`` float64 arrays of ``(left, width, count)``; counts of re-binned buckets are
whole numbers held as floats. Everything here is pure: no file reading, no Dash.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

#: MindInsight drops a histogram step with more original buckets than this at load
#: (``Histogram.MAX_ORIGINAL_BUCKETS_COUNT``). MindSpore never writes more than 90.
MAX_ORIGINAL_BUCKETS = 90
#: Largest number of display buckets (``calc_histogram_bins`` of MindInsight, not the writer's 90).
MAX_DISPLAY_BINS = 30


class HistogramLike(Protocol):
    """What re-binning needs of a step: original buckets and the proto's min/max.

    :class:`dash_insight.core.format.events.HistogramValue` and :class:`OriginalHistogram` fit."""

    @property
    def buckets(self) -> np.ndarray: ...

    @property
    def min(self) -> float: ...

    @property
    def max(self) -> float: ...


H = TypeVar("H", bound=HistogramLike)


@dataclass(frozen=True)
class OriginalHistogram:
    """A plain :class:`HistogramLike`: ``(n, 3)`` buckets plus min/max of the finite values
    (used for tensor histograms, whose min/max come from the tensor statistics)."""

    buckets: np.ndarray
    min: float
    max: float


def display_bins(max_count: int) -> int:
    """Number of display buckets for the largest per-step value count of a tag.

    ``0 -> 1; <=5 -> 2; <=10 -> 3; <=280 -> ceil(n / 10) + 1; else 30``: about ten values per
    bucket, at most 30. MindInsight's ``datavisual.utils.utils.calc_histogram_bins`` (the writer's
    rule in :func:`dash_insight.core.format.writer.calc_histogram_bins` differs:
    ``n // 10 + 1``, 90).
    """
    if max_count <= 0:
        return 1
    if max_count <= 5:
        return 2
    if max_count <= 10:
        return 3
    if max_count <= 280:
        return math.ceil(max_count / 10) + 1
    return MAX_DISPLAY_BINS


def finite_or_zero(value: float) -> float:
    """``value`` if finite, else 0.0: MindInsight's ``mask_invalid_number`` for a proto's min/max
    (a writer that saw only NaN/Inf stores them; the visual range must stay finite)."""
    value = float(value)
    return value if math.isfinite(value) else 0.0


def bucket_count(buckets: np.ndarray) -> int:
    """Σ of the bucket counts (column 2): the step's ``count`` as MindInsight defines it, i.e.
    the finite values only (the proto's own ``count`` also includes NaN/±Inf)."""
    array = np.asarray(buckets, dtype=np.float64).reshape(-1, 3)
    return int(array[:, 2].sum())


def exceeds_bucket_limit(histogram: HistogramLike, limit: int = MAX_ORIGINAL_BUCKETS) -> bool:
    """True when the step has more than ``limit`` original buckets: MindInsight drops such steps
    at load (``MAX_ORIGINAL_BUCKETS_COUNT = 90``). dash-insight may keep them; re-binning works
    for any number of buckets."""
    return len(np.asarray(histogram.buckets).reshape(-1, 3)) > limit


def drop_oversized(histograms: Sequence[H], limit: int = MAX_ORIGINAL_BUCKETS) -> list[H]:
    """The steps MindInsight would keep: those with at most ``limit`` original buckets."""
    return [h for h in histograms if not exceeds_bucket_limit(h, limit)]


def visual_range(histograms: Sequence[HistogramLike]) -> tuple[float, float, int]:
    """``(vmin, vmax, max_count)`` shared by all steps of a tag.

    Over the steps whose bucket counts sum to more than 0 (empty steps are ignored):
    ``vmin = min(finite_or_zero(min))``, ``vmax = max(finite_or_zero(max))``,
    ``max_count = max(Σ counts)``. No such step: ``(0.0, 0.0, 0)``. MindInsight's
    ``HistogramReservoir.samples`` / ``_VisualRange``.
    """
    vmin = vmax = 0.0
    max_count = 0
    seen = False
    for histogram in histograms:
        count = bucket_count(histogram.buckets)
        if count == 0:
            continue
        low, high = finite_or_zero(histogram.min), finite_or_zero(histogram.max)
        if not seen:
            vmin, vmax, seen = low, high, True
        else:
            vmin, vmax = min(vmin, low), max(vmax, high)
        max_count = max(max_count, count)
    return vmin, vmax, max_count


def display_grid(vmin: float, vmax: float, bins: int) -> tuple[np.ndarray, float]:
    """Left edges and common width of the display buckets.

    ``vmax == vmin`` -> widened to ``[vmin - 0.5, vmax + 0.5]``; ``width = (vmax - vmin) / bins``;
    ``left_i = vmin + width * i`` (MindInsight's ``_re_sample_buckets``, same float operations).
    When ``vmax - vmin`` overflows (ranges near ±1.8e308) the grid is computed at half scale,
    exactly, so edges stay finite (the width too unless a single bin spans the overflow).
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    if not (math.isfinite(vmin) and math.isfinite(vmax)):
        raise ValueError(f"visual range must be finite, got [{vmin}, {vmax}]")
    if vmax < vmin:
        raise ValueError(f"visual range is reversed: max {vmax} < min {vmin}")
    if vmax == vmin:
        vmax += 0.5
        vmin -= 0.5
    span = vmax - vmin
    if math.isfinite(span):
        width = span / bins
        return vmin + width * np.arange(bins), width
    half_width = (vmax / 2 - vmin / 2) / bins
    return (vmin / 2 + half_width * np.arange(bins)) * 2, half_width * 2


def _zero_width_matrix(
    lefts: np.ndarray, last_right: float, positions: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """Full counts of zero-width buckets placed in the display bucket holding their position:
    ``left_j <= x < left_{j+1}``, the last bucket closed on the right. Shape (bins, n)."""
    bins = len(lefts)
    target = np.searchsorted(lefts, positions, side="right") - 1
    inside = (target >= 0) & ((target < bins - 1) | (positions <= last_right))
    matrix = np.zeros((bins, len(positions)))
    columns = np.flatnonzero(inside)
    matrix[target[columns], columns] = counts[columns]
    return matrix


def rebin(buckets: np.ndarray, vmin: float, vmax: float, bins: int) -> np.ndarray:
    """Re-sample one step's original buckets onto ``bins`` equal buckets of [vmin, vmax].

    For display bucket ``[L, L + width)``: ``count = ceil(Σ_k overlap_k / width_k * count_k)``
    over the original buckets ``k`` (sorted by left, summed left to right in float64 exactly as
    MindInsight's ``Histogram._re_sample_buckets``, so the ``ceil`` rounds identically); a
    zero-width original bucket adds its whole count to the display bucket its position falls in.
    No counted value (Σ counts = 0): all-zero buckets. Returns ``(bins, 3)`` ``(left, width,
    count)``.

    Reproduces MindInsight's test vectors (``test_histogram_container.py``), e.g. one bucket
    ``(0, 1, 1)`` over [0, 1] in 3 bins -> counts ``(1, 1, 1)`` (``ceil`` inflates small shares).
    Differs only where MindInsight's single sweep is not count-preserving: a zero-width bucket
    exactly on a display edge (MindInsight loses it) or after a gap between buckets (MindInsight
    counts it in two display buckets); overlapping original buckets (which the sweep assumes
    away) each contribute by overlap. On the whole corpus the result is bit-identical.
    """
    lefts, width = display_grid(vmin, vmax, bins)
    rights = lefts + width
    original = np.asarray(buckets, dtype=np.float64).reshape(-1, 3)
    counts = np.zeros(bins)
    if len(original) and original[:, 2].sum() > 0:
        original = original[np.argsort(original[:, 0], kind="stable")]
        o_left, o_width, o_count = original[:, 0], original[:, 1], original[:, 2]
        o_right = o_left + o_width
        overlap = np.minimum(rights[:, None], o_right[None, :]) - np.maximum(
            lefts[:, None], o_left[None, :]
        )
        overlap = np.maximum(overlap, 0.0)
        positive = o_width > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            shares = np.where(positive, overlap / o_width * o_count, 0.0)
        if not positive.all():
            flat = ~positive
            shares[:, flat] = _zero_width_matrix(
                lefts, max(float(rights[-1]), vmax), o_left[flat], o_count[flat]
            )
        # cumsum adds strictly left to right (np.sum would pair terms and round differently).
        counts = np.ceil(np.cumsum(shares, axis=1)[:, -1])
    return np.column_stack([lefts, np.full(bins, width), counts])


def unify(histograms: Sequence[HistogramLike]) -> list[np.ndarray]:
    """Every step re-binned onto the tag's shared grid: what ``/datavisual/histograms`` returns.

    ``vmin, vmax, max_count = visual_range(histograms)``; ``bins = display_bins(max_count)``;
    ``[rebin(h.buckets, vmin, vmax, bins) for h in histograms]`` (an empty step gets all-zero
    buckets; all steps empty -> one bucket ``(-0.5, 1, 0)`` each). The caller decides whether to
    :func:`drop_oversized` first, as MindInsight does.
    """
    vmin, vmax, max_count = visual_range(histograms)
    bins = display_bins(max_count)
    return [rebin(h.buckets, vmin, vmax, bins) for h in histograms]


def spread(count: int, max_items: int | None) -> list[int]:
    """Up to ``max_items`` positions evenly spread over ``range(count)``, first and last kept
    (``round(linspace(0, count - 1, max_items))``, duplicates removed); every position when
    ``max_items`` is None or not below ``count``."""
    if not max_items or count <= max_items:
        return list(range(count))
    return sorted(set(np.linspace(0, count - 1, max_items).round().astype(int).tolist()))
