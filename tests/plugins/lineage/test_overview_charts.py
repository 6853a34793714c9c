"""The lineage overview's chart specs (figures.py), drawn as SVG charts."""

from __future__ import annotations

import math

import pytest

from dash_insight.core.i18n import use_locale
from dash_insight.plugins.lineage import figures


def test_distribution_chart_has_a_bar_per_bucket() -> None:
    target = {"buckets": [[0.1, 0.2, 2], [0.3, 0.2, 0], [0.5, 0.2, 1]]}
    chart = figures.distribution_chart(target)
    assert chart["x"]["labels"] == ["0.1~0.3", "0.3~0.5", "0.5~0.7"]
    (series,) = chart["series"]
    assert series["mark"] == "bar"
    assert [p[:2] for p in series["points"]] == [[0, 2], [1, 0], [2, 1]]
    assert series["points"][0][2] == ["0.1~0.3: 2 jobs"]
    assert series["points"][2][2] == ["0.5~0.7: 1 job"]
    assert chart["y"]["range"][1] == pytest.approx(2.1)
    with use_locale("zh_CN"):
        chart = figures.distribution_chart(target)
    assert chart["series"][0]["points"][0][2] == ["0.1~0.3：2 个作业"]


def test_importance_chart_bars_most_important_on_top() -> None:
    rows = [
        {"name": "learning_rate", "pearson": 0.8, "reason": None, "spearman": 0.7},
        {"name": "a_very_long_hyper_parameter_name", "pearson": 0.0, "reason": 2, "spearman": None},
    ]
    chart = figures.importance_chart(rows)
    assert chart["height"] == 46 * 2 + 60 and chart["legend"]
    assert chart["y"]["labels"] == ["learning_rate", "a_very_long_hyper…"]
    pearson, spearman = chart["series"]
    assert [p[:2] for p in pearson["points"]] == [[0.8, 0], [0.0, 1]]
    assert [p[:2] for p in spearman["points"]] == [[0.7, 0], [0.0, 1]]
    # The hover has the whole name and why a bar is 0.
    assert pearson["points"][1][2] == [
        "a_very_long_hyper_parameter_name",
        "|Pearson r|: 0.0000 (≤ 2 jobs with both values)",
    ]
    # The labels' margin fits the longest label drawn (18 characters).
    assert chart["margin"]["l"] == 14 + 6 * 18
    assert figures.importance_chart(rows * 3)["height"] == 46 * 6 + 60


def test_scatter_chart_draws_the_jobs_with_both_values() -> None:
    chart = figures.scatter_chart(
        ["a", "b", "c", "d", "e"],
        [16, 64, None, True, 32],
        [0.5, 0.9, 0.7, 0.1, float("nan")],
        "batch_size",
        "[M]Accuracy",
    )
    (series,) = chart["series"]
    assert series["mark"] == "dot"
    assert [p[:2] for p in series["points"]] == [[16.0, 0.5], [64.0, 0.9]]
    assert series["points"][1][2] == ["b", "batch_size: 64", "[M]Accuracy: 0.9"]
    low, high = chart["x"]["range"]
    assert low < 16 and high > 64 and math.isclose(high - 64, 16 - low)
    assert chart["x"]["title"] == "batch_size" and chart["y"]["title"] == "[M]Accuracy"
    empty = figures.scatter_chart([], [], [], "", "")
    assert empty["series"][0]["points"] == [] and empty["x"]["title"] is None
