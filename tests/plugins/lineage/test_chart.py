"""The pure builders of the lineage page's SVG parallel-coordinates chart (figures.parallel_chart
and its helpers; assets/lineage-chart.js draws what they build)."""

from __future__ import annotations

import pytest

from dash_insight.plugins.lineage import figures

NUMBER = figures.Column("x", "x", "number", "field")
CATEGORY = figures.Column("n", "network", "category", "field")
METRIC = figures.Column("metric/acc", "[M]acc", "number", "metric")


def _rows() -> list[dict]:
    return [
        {"train_id": "./a", "x": 1.0, "n": "b", "metric/acc": 0.5},
        {"train_id": "./b", "x": None, "n": None, "metric/acc": None},
        {"train_id": "./c", "x": 5, "n": "a", "metric/acc": 0.9},
    ]


def test_nice_ticks_steps_of_1_2_2_5_5() -> None:
    assert figures.nice_ticks(0, 1) == [0, 0.25, 0.5, 0.75, 1]
    assert figures.nice_ticks(16, 64) == [20, 40, 60]
    assert figures.nice_ticks(0.001, 0.1) == [0.025, 0.05, 0.075, 0.1]
    assert figures.nice_ticks(3, 3) == [3]
    assert figures.nice_ticks(-7, 7) == [-5, 0, 5]


def test_axis_span_and_fractions() -> None:
    axis = figures.axis_for(NUMBER, _rows())
    bottom, top = figures.axis_span(axis)
    assert bottom == axis.missing < axis.low == 1.0 and top == 5.0
    assert figures.to_fraction(axis, bottom) == 0.0 and figures.to_fraction(axis, 5.0) == 1.0
    assert figures.from_fraction(axis, figures.to_fraction(axis, 2.5)) == pytest.approx(2.5)
    assert figures.value_fraction(axis, None) == 0.0  # a missing value at the foot
    category = figures.axis_for(CATEGORY, _rows())
    assert category.categories == ("n/a", "a", "b")
    assert figures.axis_span(category) == (0.0, 2.0)
    assert figures.value_fraction(category, "b") == 1.0
    single = figures.axis_for(CATEGORY, [{"n": "only"}])
    assert (
        figures.axis_span(single) == (-1.0, 1.0) and figures.value_fraction(single, "only") == 0.5
    )


def test_axis_ticks_numbers_rounded_categories_shortened() -> None:
    axis = figures.Axis("x", "number", low=0.0, high=0.00123456)
    ticks = figures.axis_ticks(axis)
    assert [t[1] for t in ticks] == ["0", "0.0005", "0.001"]
    assert all(0 <= t[0] <= 1 for t in ticks)
    category = figures.axis_for(
        CATEGORY, [{"n": "SoftmaxCrossEntropyWithLogits"}, {"n": None}, {"n": "MSE"}]
    )
    ticks = figures.axis_ticks(category)  # no tick for "n/a"
    assert [t[1:] for t in ticks] == [
        ["MSE", "MSE"],
        ["SoftmaxCr…", "SoftmaxCrossEntropyWithLogits"],
    ]
    assert [t[0] for t in ticks] == [0.5, 1.0]


def test_brushes_and_filters_convert_both_ways() -> None:
    axis = figures.axis_for(NUMBER, _rows())
    fractions = figures.brush_fractions(axis, [[2.0, 4.0]])
    assert fractions is not None
    assert figures.filter_from_fractions(axis, fractions) == [
        [pytest.approx(2.0), pytest.approx(4.0)]
    ]
    assert figures.filter_from_fractions(axis, [[0.9, 0.4]])[0][0] < 5  # drag upwards or down
    # A brush reaching the "n/a" position keeps the jobs without a value: low None.
    assert figures.filter_from_fractions(axis, [[0.0, 0.5]])[0][0] is None
    assert figures.brush_fractions(axis, [[None, 3.0]])[0][0] == 0.0
    assert figures.brush_fractions(axis, [[2.0, 99.0]])[0][1] == 1.0  # clipped to the axis
    assert figures.brush_fractions(axis, None) is None and figures.brush_fractions(axis, []) is None
    category = figures.axis_for(CATEGORY, _rows())
    assert figures.brush_fractions(category, ["a"]) == [[0.25, 0.75]]
    assert figures.filter_from_fractions(category, [[0.25, 0.75]]) == ["a"]
    assert figures.filter_from_fractions(category, [[0.4, 1.0]]) == ["a", "b"]
    assert figures.filter_from_fractions(category, [[0.8, 0.9]]) == ["b"]  # nearest the middle
    assert figures.filter_from_fractions(category, [[0.1, 0.2]]) == ["n/a"]
    assert figures.brush_fractions(category, ["zzz"]) == [[0.0, 0.0]]  # keeps nothing


def test_brush_events_from_the_browser() -> None:
    assert figures.brush_from_event({"axis": 2, "id": "x", "ranges": [[0.1, 0.4]]}) == (
        2,
        "x",
        [[0.1, 0.4]],
    )
    assert figures.brush_from_event({"axis": 0, "id": "x", "ranges": None}) == (0, "x", None)
    assert figures.brush_from_event({"axis": 0, "id": "x", "ranges": []}) == (0, "x", None)
    for bad in (
        None,
        [],
        {"axis": "0", "id": "x"},
        {"axis": True, "id": "x"},
        {"axis": -1, "id": "x"},
        {"axis": 0, "id": 3},
        {"axis": 0, "id": "x", "ranges": [[0.1]]},
        {"axis": 0, "id": "x", "ranges": [["a", 1]]},
        {"axis": 0, "id": "x", "ranges": "0.1,0.2"},
    ):
        assert figures.brush_from_event(bad) is None, bad


def test_colour_scale_and_lines() -> None:
    assert figures.colour_at(0.0) == "#3b4cc0" and figures.colour_at(1.0) == "#d1495b"
    assert figures.colour_at(0.5) == "#44b5a7" and figures.colour_at(7) == "#d1495b"
    assert figures.colour_at(0.125) == "#4c74ca"  # halfway between #3b4cc0 and #5d9cd3
    colours, bar = figures.line_colours(_rows(), METRIC)
    assert colours == ["#3b4cc0", figures._MISSING_COLOUR, "#d1495b"]
    assert bar is not None and bar["title"] == "[M]acc" and bar["missing"]
    assert [t[1] for t in bar["ticks"]] == ["0.5", "0.6", "0.7", "0.8", "0.9"]
    assert bar["ticks"][0][0] == 0.0 and bar["ticks"][-1][0] == pytest.approx(1.0)
    colours, bar = figures.line_colours(_rows(), None)
    assert bar is None and set(colours) == {figures._SINGLE_COLOUR}
    same = [{"metric/acc": 0.7}, {"metric/acc": 0.7}]
    colours, bar = figures.line_colours(same, METRIC)
    assert len(set(colours)) == 1 and bar is not None and bar["missing"] is None


def test_value_text_is_whole() -> None:
    assert figures.value_text(0.7123456789) == "0.7123456789"
    assert figures.value_text(64) == "64" and figures.value_text("Adam") == "Adam"
    assert figures.value_text(None) == "no value"
    stage = '{"batch_size": 64, "drop_remainder": true}'
    assert figures.hover_value(stage, {stage: "batch_size=64"}) == "batch_size=64"
    assert figures.hover_value(stage, None) == stage and figures.hover_value(0.5, {}) == "0.5"


def test_parallel_chart_spec() -> None:
    rows = _rows()
    spec, axes = figures.parallel_chart(
        rows, [NUMBER, CATEGORY], METRIC, {"x": [[2.0, 6.0]]}, passing=[False, False, True]
    )
    assert [a.id for a in axes] == ["x", "n"] and spec["message"] is None
    assert [a["title"] for a in spec["axes"]] == [["x"], ["network"]]
    # The foot of x is its "n/a" position, 1 - 0.12 * (5 - 1) = 0.52.
    assert spec["axes"][0]["brushes"] == [[pytest.approx((2 - 0.52) / 4.48), 1.0]]
    assert spec["axes"][1]["brushes"] == []
    assert [line["id"] for line in spec["lines"]] == ["./a", "./b", "./c"]
    assert [line["selected"] for line in spec["lines"]] == [False, False, True]
    assert spec["lines"][1]["points"] == [0.0, 0.0]  # no values: at the feet
    assert spec["lines"][2]["points"] == [1.0, 0.5]
    assert spec["lines"][0]["hover"] == ["./a", "x: 1.0", "network: b"]
    assert spec["colourbar"]["fullTitle"] == "[M]acc" and "Drag" in spec["brushHint"]
    assert spec["margin"]["r"] > figures.chart_margins([NUMBER], False)["r"]
    long = figures.Column(
        "user_defined/a_very_long_name_of_a_value",
        "[U]a_very_long_name_of_a_value",
        "number",
        "user",
    )
    assert figures.chart_margins([long], True)["t"] > figures.chart_margins([NUMBER], True)["t"]
    spec, _ = figures.parallel_chart(rows, [long], None, {})
    assert spec["axes"][0]["title"] == ["[U]a_very_long_name_", "of_a_value"]  # whole
    assert spec["axes"][0]["fullTitle"] == long.label and spec["colourbar"] is None
    empty, _ = figures.parallel_chart([], [NUMBER], None, {})
    assert empty["message"] == "No job to draw" and not empty["lines"] and not empty["axes"]
    none, _ = figures.parallel_chart(rows, [], None, {})
    assert none["message"] == "No column chosen"
