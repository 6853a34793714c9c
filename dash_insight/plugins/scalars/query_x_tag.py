"""Any scalar as the x axis: each point of a line placed at the value another tag of its job
(``epoch``, ``tokens_seen``) has at the same step (TensorBoard and MindInsight offer only the
step and the time; users ask for this on both trackers)."""

from __future__ import annotations

import numpy as np

from dash_insight.core.store.series import ScalarSeries


def values_at_steps(steps: np.ndarray, x_step: np.ndarray, x_value: np.ndarray) -> np.ndarray:
    """The x tag's value at each of ``steps`` (``x_step`` sorted and unique, as a stored series
    is): ``x_value[j]`` where ``x_step[j] == steps[i]``, NaN where the x tag has no such step
    or a value that is not finite (such a point cannot be placed and is dropped)."""
    steps = np.asarray(steps)
    x_step = np.asarray(x_step)
    x_value = np.asarray(x_value, dtype=np.float64)
    out = np.full(len(steps), np.nan)
    if not len(x_step) or not len(steps):
        return out
    where = np.minimum(np.searchsorted(x_step, steps), len(x_step) - 1)
    found = x_step[where] == steps
    out[found] = x_value[where[found]]
    out[~np.isfinite(out)] = np.nan
    return out


def unplaced(steps: np.ndarray, x_step: np.ndarray, x_value: np.ndarray) -> int:
    """How many of ``steps`` have no finite x value (:func:`values_at_steps`): the points a
    chart on this x axis leaves out, and its note counts."""
    return int(np.isnan(values_at_steps(steps, x_step, x_value)).sum())


def x_of(steps: np.ndarray, x_series: ScalarSeries | None) -> np.ndarray:
    """:func:`values_at_steps` of a job's x tag (``x_series``; None: the job lacks the tag,
    so no point can be placed: all NaN)."""
    if x_series is None:
        return np.full(len(steps), np.nan)
    return values_at_steps(steps, x_series.step, x_series.value)
