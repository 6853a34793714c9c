"""What the scalar charts compute in the browser, in Python: TensorBoard's smoothing and the
threshold highlight. ``assets/scalar-charts.js`` draws with the same formulas; these are the
reference its tests compare against."""

from __future__ import annotations

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
