"""What the scalar charts compute in the browser, in Python: TensorBoard's smoothing and the
threshold highlight. ``assets/scalar-charts.js`` draws with the same formulas; these are the
reference its tests compare against."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def smooth_ema(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's debiased exponential moving average, as MindInsight's scalar page draws it
    (``vz_line_chart2/line-chart.ts`` ``resmoothDataset``; MindInsight ``scalar.vue``)::

        last = 0; n = 0
        for each finite v:  last = last * w + (1 - w) * v;  n += 1;  s = last / (1 - w**n)

    Non-finite values pass through unchanged (and do not advance ``n``), a constant series is
    returned as is, and ``weight`` is clamped to [0, 1) (1 would freeze the line at 0).
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return values.copy()
    finite = np.isfinite(values)
    if np.all(values == values[0]):  # isAllSame (NaN != NaN, so a NaN breaks constancy)
        return values.copy()
    w = min(max(float(weight), 0.0), 0.999999)
    out = values.copy()
    last = 0.0
    for count, i in enumerate(np.flatnonzero(finite).tolist(), start=1):
        last = last * w + (1 - w) * values[i]
        out[i] = last / (1 - w**count) if w else last
    return out


THRESHOLD_OPERATORS = {">": np.greater, "<": np.less}


def threshold_mask(
    values: np.ndarray, conditions: list[tuple[str, float]], combine: str = "and"
) -> np.ndarray:
    """Which points a MindInsight-style threshold highlights: each condition is
    (``">"`` or ``"<"``, value); ``combine`` ``"and"`` needs all of them, ``"or"`` any.
    Non-finite points never match; no condition matches nothing."""
    values = np.asarray(values, dtype=np.float64)
    if not conditions:
        return np.zeros(len(values), dtype=bool)
    with np.errstate(invalid="ignore"):
        masks = [THRESHOLD_OPERATORS[op](values, limit) for op, limit in conditions]
    mask = np.logical_and.reduce(masks) if combine == "and" else np.logical_or.reduce(masks)
    return mask & np.isfinite(values)


def moving_average(values: np.ndarray, window: int) -> np.ndarray:
    """A centred moving average over ``window`` points (TensorBoard users' other smoother): each
    finite point becomes the mean of the finite values among the ``(window - 1) // 2`` points
    before it, itself and the ``window // 2`` after it (fewer at the ends). Non-finite values
    pass through unchanged and are not counted; ``window`` below 2 changes nothing."""
    values = np.asarray(values, dtype=np.float64)
    window = int(window)
    if window < 2 or len(values) < 2:
        return values.copy()
    finite = np.isfinite(values)
    sums = np.concatenate(([0.0], np.cumsum(np.where(finite, values, 0.0))))
    counts = np.concatenate(([0], np.cumsum(finite)))
    positions = np.arange(len(values))
    low = np.maximum(positions - (window - 1) // 2, 0)
    high = np.minimum(positions + window // 2 + 1, len(values))
    out = values.copy()
    taken = counts[high] - counts[low]
    out[finite] = ((sums[high] - sums[low]) / np.maximum(taken, 1))[finite]
    return out


@dataclass(frozen=True)
class Smoother:
    """The page's smoother: ``kind`` ``ema`` (TensorBoard's, by ``weight``), ``ma`` (a centred
    moving average over ``window`` points) or ``none``."""

    kind: str = "ema"
    weight: float = 0.0
    window: int = 9

    def apply(self, values: np.ndarray) -> np.ndarray:
        """The smoothed line (``smoothWith`` in assets/scalar-charts.js)."""
        if self.kind == "none":
            return np.asarray(values, dtype=np.float64).copy()
        if self.kind == "ma":
            return moving_average(values, self.window)
        return smooth_ema(values, self.weight)

    @property
    def changes(self) -> bool:
        """Whether it changes the line, so the raw one fades (``isSmoothed``)."""
        if self.kind == "none":
            return False
        return self.window >= 2 if self.kind == "ma" else self.weight > 0


def smooth_band(
    centre: np.ndarray, low: np.ndarray, high: np.ndarray, smoother: Smoother
) -> tuple[np.ndarray, np.ndarray]:
    """A group's band smoothed as its line is (``smoothBand`` in assets/scalar-charts.js): the
    distance of each edge from the centre (``centre - low``, ``high - centre``) is smoothed by
    ``smoother`` and taken from, and added to, the smoothed centre. The smoothers are linear,
    so where the band has a value at every point of the line this is each edge smoothed on its
    own; where it has fewer (steps with a single run, NaN edges) the line still never leaves
    its band. A point without an edge (or without a centre) stays without (NaN)."""
    centre = np.asarray(centre, dtype=np.float64)
    line = smoother.apply(centre)
    edges = []
    for edge, sign in ((low, 1.0), (high, -1.0)):
        edge = np.asarray(edge, dtype=np.float64)
        both = np.isfinite(centre) & np.isfinite(edge)
        with np.errstate(invalid="ignore", over="ignore"):
            distance = smoother.apply(np.where(both, sign * (centre - edge), np.nan))
            edges.append(np.where(np.isfinite(distance), line - sign * distance, np.nan))
    return edges[0], edges[1]


#: "Ignore outliers": the y range spans these quantiles of the values drawn (TensorBoard's).
OUTLIER_QUANTILES = (0.001, 0.999)


def outlier_range(values: np.ndarray) -> tuple[float, float] | None:
    """The y range that ignores outliers: the 0.1 % and 99.9 % quantiles of the finite
    ``values`` (linear interpolation, numpy's default); None without a finite value."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    if not len(finite):
        return None
    low, high = np.quantile(finite, OUTLIER_QUANTILES)
    return float(low), float(high)
