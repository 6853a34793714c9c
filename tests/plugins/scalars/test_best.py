"""The best value of a scalar series (issue 17 item 10): the direction guessed from the tag and
the best point of the raw series."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dash_insight.core.i18n import use_locale
from dash_insight.plugins.scalars.page_charts import best_points
from dash_insight.plugins.scalars.query_best import BestPoint, best_direction, best_point, best_text


@pytest.mark.parametrize(
    ("tag", "direction"),
    [
        ("loss", "min"),
        ("loss/auto", "min"),
        ("train/Loss", "min"),
        ("val_error", "min"),
        ("lr", "min"),
        ("learning_rate", "min"),
        ("Accuracy", "max"),
        ("eval/top1_acc", "max"),
        ("precision", "max"),
        ("val/Recall", "max"),
        ("f1_score", "max"),
        ("AUC", "max"),
        ("acc_loss", "min"),  # a loss of something: lower is better
        ("grad_norm", "min"),
        ("tag_001", "min"),
    ],
)
def test_direction_guessed_from_the_tag(tag: str, direction: str) -> None:
    assert best_direction(tag) == direction


def test_best_point_of_the_raw_series() -> None:
    step = np.array([10, 20, 30, 40, 50])
    value = np.array([3.0, np.nan, 1.0, -np.inf, 1.0], dtype=np.float32)
    # NaN and -inf never count; a tie is the earliest step.
    assert best_point(step, value, "min") == BestPoint(2, 30, 1.0)
    assert best_point(step, value, "max") == BestPoint(0, 10, 3.0)
    assert best_point(step, np.array([np.nan] * 5), "min") is None
    assert best_point(step[:0], np.array([]), "max") is None
    # float32 0.1 read as float64 stays the stored value.
    one = best_point(np.array([7]), np.array([0.1], dtype=np.float32), "min")
    assert one is not None and one.value == float(np.float32(0.1))


def test_best_points_label_of_the_plan() -> None:
    step = np.array([100, 5300, 9000])
    wall = np.array([1.0, 2.0, 3.0])
    value = np.array([0.5, 0.12344, 0.9], dtype=np.float32)
    with use_locale("en"):
        best = best_points(step, wall, value)
    assert best["min"]["label"] == "best 0.1234 @ step 5,300"
    assert (best["min"]["step"], best["min"]["wall"]) == (5300, 2.0)
    assert best["max"]["label"] == "best 0.9 @ step 9,000"
    assert math.isclose(best["max"]["value"], 0.9, rel_tol=1e-6)
    assert best_points(step, wall, np.full(3, np.nan)) == {"min": None, "max": None}
    assert best_text(BestPoint(0, 1, 123456.0)) == "1.235e+05"
