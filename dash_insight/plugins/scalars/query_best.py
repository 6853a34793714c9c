"""The best value of a scalar series: the lowest loss, the highest accuracy, with its step.

Neither TensorBoard nor MindInsight marks it (a frequent ask on both trackers); the charts mark
it on each line (``assets/scalar-charts.js``), computed here from the raw series, never from
the smoothed line or the points a chart draws (the server reduces those per pixel column).
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

import numpy as np

Direction = Literal["min", "max"]

#: Words of a tag whose best value is its highest (``eval/Accuracy``, ``top1_acc``, ``f1``).
_HIGHER_IS_BETTER = ("acc", "precision", "recall", "f1", "auc")
#: Words whose best value is the lowest; they win over the words above (``acc_loss``).
_LOWER_IS_BETTER = ("loss", "error", "err", "lr")


class BestPoint(NamedTuple):
    """The best point of a series: its position in the series, its step and its value
    (float64 of the stored float32)."""

    position: int
    step: int
    value: float


def _words(tag: str) -> list[str]:
    return [word for word in re.split(r"[^a-z0-9]+", tag.lower()) if word]


def best_direction(tag: str) -> Direction:
    """Whether the best value of ``tag`` is its ``"min"`` or its ``"max"``, guessed from the
    tag's words (split on anything but letters and digits, case-insensitive): a word that is or
    starts with ``loss``, ``error``, ``err`` or ``lr`` -> min (these win); else a word that is
    or starts with ``acc``, ``precision``, ``recall``, ``f1`` or ``auc`` -> max; anything else
    -> min (most scalars logged are losses). The user flips it per chart."""
    words = _words(tag)
    if any(word.startswith(_LOWER_IS_BETTER) for word in words):
        return "min"
    if any(word.startswith(_HIGHER_IS_BETTER) for word in words):
        return "max"
    return "min"


def best_point(step: np.ndarray, value: np.ndarray, direction: Direction) -> BestPoint | None:
    """The point of the lowest (``"min"``) or highest (``"max"``) finite value, the earliest
    step on a tie (NaN and ±inf never count); None when no value is finite."""
    values = np.asarray(value, dtype=np.float64)
    finite = np.isfinite(values)
    if not finite.any():
        return None
    candidates = np.where(finite, values, np.inf if direction == "min" else -np.inf)
    index = int(np.argmin(candidates) if direction == "min" else np.argmax(candidates))
    return BestPoint(index, int(np.asarray(step)[index]), float(values[index]))


def best_text(point: BestPoint) -> str:
    """The value of a best point as the charts show it: four significant digits."""
    return f"{point.value:.4g}"
