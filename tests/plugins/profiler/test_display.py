"""Pure display helpers of the profiler pages (#38 item 7): one number format per unit,
operator names shortened at separators, the dashboard timeline's rows."""

from __future__ import annotations

from dash_insight.plugins.profiler import operator_page, page_shared


def test_one_number_format_per_unit() -> None:
    assert page_shared.format_measure(5076.1912, "us/time") == "5,076.19"
    assert page_shared.format_measure(0.771879, "us") == "0.77"
    assert page_shared.format_measure(32.874, "us") == "32.87"
    assert page_shared.format_measure(304571, "times") == "304,571"
    assert page_shared.format_measure(18.3, "%") == "18.30"
    assert page_shared.unit_of("op_total_time (us)") == "us"
    assert page_shared.unit_of("avg_time (us/time)") == "us/time"
    assert page_shared.unit_of("input shapes") is None


def test_table_cells_use_the_column_format() -> None:
    cell = operator_page._cell
    assert cell("op_total_time", 304571) == "304,571.00"
    assert cell("op_total_time", 0.771879) == "0.77"
    assert cell("op_avg_time", 5076.1912) == "5,076.19"
    assert cell("op_occurrences", 304571) == "304,571"
    assert cell("total_time_proportion", 18.3) == "18.30"
    assert cell("min", None) == "–"
    assert cell("op_name", "Conv2D-op0") == "Conv2D-op0"


def test_scopes_wrap_only_after_separators() -> None:
    from dash_insight.plugins.profiler.cards import separator_parts

    assert separator_parts("…/conv1-Conv2d/Grad_Conv2D") == ["…/", "conv1-Conv2d/", "Grad_Conv2D"]
    assert separator_parts("a/b/") == ["a/", "b/"]
    assert separator_parts("Conv2D") == ["Conv2D"]


def test_top_rows_keep_the_first_rows_and_their_bars() -> None:
    import numpy as np

    from dash_insight.plugins.profiler.query_timeline import Timeline, TimelineView, top_rows

    n = 5
    rows = np.arange(n)
    model = Timeline(
        "type", tuple("abcde"), tuple("abcde"), rows, rows * 1.0, rows + 0.5, rows,
        rows, tuple("abcde"), rows, np.ones(n),
    )  # fmt: skip
    view = TimelineView(
        rows * 1.0, rows + 0.5, rows, rows, rows, rows, np.ones(n), np.ones(n), np.ones(n), (0, 5)
    )
    shown, kept = top_rows(model, view, 3)
    assert shown.rows == ("a", "b", "c") and kept.row.tolist() == [0, 1, 2]
    assert kept.busy.tolist() == [1, 1, 1] and kept.window == (0, 5)
    assert top_rows(model, view, 8) == (model, view)
