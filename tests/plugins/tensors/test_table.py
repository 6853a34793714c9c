"""The tensor table's data (dash_insight.plugins.tensors.query_table): dims boxes, values for the
browser, AG Grid rows and columns, a small slice's plain table, statistics and the limit message."""

from __future__ import annotations

import numpy as np

from dash_insight.plugins.tensors import query_table
from dash_insight.plugins.tensors.query_tensor import parse_dims


def test_dims_helpers() -> None:
    assert query_table.dims_items("[0, :, 2:5]", 3) == ["0", ":", "2:5"]
    assert query_table.dims_items("[0]", 3) == ["0", ":", ":"]
    assert query_table.dims_items("[]", 0) == []
    assert query_table.dims_from_items(["0", " :", None]) == "[0,:,]"
    assert query_table.start_dims((1000, 1000)) == "[0:100,:]"
    assert query_table.start_dims((2, 3, 4, 5)) == "[0,0,:,:]"
    assert query_table.start_dims((10_000_000,)) == "[0:1000]"
    assert query_table.selected_count((1000, 1000), "[:,:]") == 1_000_000
    assert query_table.selected_count((2, 3, 4, 5), "[1,-1,1:3,::2]") == 6
    assert query_table.axis_indices(slice(2, 10, 3), 20) == [2, 5, 8]
    assert query_table.axis_indices(-1, 5) == [4]


def test_json_values_keep_types_and_mark_non_finite() -> None:
    assert query_table.json_values(np.array([True, False])) == [True, False]
    assert query_table.json_values(np.array([[1, -2]], np.int32)) == [1, -2]
    assert query_table.json_values(np.array([0.1, np.nan, np.inf, -np.inf], np.float32)) == [
        0.1,
        "NAN",
        "INF",
        "-INF",
    ]
    assert query_table.json_values(np.array([0.1], np.float64)) == [0.1]
    # float16 exactly, as MindInsight: 5 decimals then show 1.00488, not 1.00500.
    assert query_table.json_values(np.array([1.0048828, np.nan], np.float16)) == [
        1.0048828125,
        "NAN",
    ]
    assert query_table.value_kind(np.dtype(bool)) == "b"
    assert query_table.value_kind(np.dtype(np.uint8)) == "i"
    assert query_table.colour_scale(np.array([-3.0, 2.0, np.nan])) == 3.0
    assert query_table.colour_scale(np.array([True])) == 0.0


def test_table_data_shapes_and_headers() -> None:
    array = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    index = parse_dims("[1,:,1:3]", array.shape)
    rows, columns = query_table.table_data(array[index], index, array.shape)
    assert [r["row"] for r in rows] == [0, 1, 2]
    assert [c["headerName"] for c in columns[1:]] == ["1", "2"]
    assert rows[2] == {"row": 2, "c0": 21, "c1": 22}
    index = parse_dims("[0,1,:]", array.shape)
    rows, columns = query_table.table_data(array[index], index, array.shape)
    assert len(rows) == 4 and columns[1]["headerName"] == "value" and rows[3]["c0"] == 7
    index = parse_dims("[0,1,2]", array.shape)
    rows, _ = query_table.table_data(array[index], index, array.shape)
    assert rows == [{"row": -1, "c0": 6}]


def test_plain_table_of_a_small_slice() -> None:
    """A small slice as the plain table draws it: row indices, column headers, the values row
    after row as the grid gets them, the grid's context and the text of an empty slice."""
    array = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5
    index = parse_dims("[1,:,1:3]", array.shape)
    context = query_table.grid_context("f", "value", 5, 18.0)
    plain = query_table.plain_table(array[index], (index, array.shape), context, "none")
    assert plain == {
        "rows": [0, 1, 2],
        "columns": ["1", "2"],
        "values": [8.0, 9.0, 12.0, 13.0, 16.0, 17.0],
        "context": context,
        "empty": "none",
    }
    index = parse_dims("[0,1,:]", array.shape)
    plain = query_table.plain_table(array[index], (index, array.shape), context, "none")
    assert plain["columns"] == ["value"] and plain["rows"] == [0, 1, 2, 3]
    index = parse_dims("[0,1,2]", array.shape)
    plain = query_table.plain_table(array[index], (index, array.shape), context, "none")
    assert (plain["rows"], plain["columns"], plain["values"]) == ([-1], ["value"], [1.0])
    index = parse_dims("[0,0:0,:]", array.shape)
    plain = query_table.plain_table(array[index], (index, array.shape), context, "none")
    assert plain["rows"] == [] and plain["values"] == [] and len(plain["columns"]) == 4


def test_statistics_items_and_limit_message() -> None:
    stats = {
        "max": 3.0,
        "min": -1.0,
        "avg": 0.5,
        "count": 10,
        "nan_count": 1,
        "pos_inf_count": 0,
        "neg_inf_count": 2,
        "neg_zero_count": 3,
        "zero_count": 1,
        "pos_zero_count": 3,
        "is_bool": False,
    }
    items = dict(query_table.statistics_items(stats, "f"))
    assert items["NaN"] == "1" and items["-Inf"] == "2" and items["negative"] == "3"
    assert "NaN" not in dict(query_table.statistics_items(stats, "i"))
    # One thousands style for counts and values (29750 was shown beside the count 59,500), and
    # the table's decimals for every value (3.45726 was shown beside -3.4382).
    big = {**stats, "max": 29750.0, "min": -3.4382, "avg": 0.012380138, "count": 59500}
    items = dict(query_table.statistics_items(big, "f"))
    assert (items["max"], items["min"], items["mean"], items["count"]) == (
        "29,750.00000",
        "-3.43820",
        "0.01238",
        "59,500",
    )
    sci = dict(query_table.statistics_items(big, "f", "sci", 2))
    assert (sci["max"], sci["min"], sci["mean"]) == ("2.98e+4", "-3.44e+0", "1.24e-2")
    integers = dict(
        query_table.statistics_items({**big, "max": 12345678, "min": -3, "avg": 2.5}, "i")
    )
    assert (integers["max"], integers["min"], integers["mean"]) == ("12,345,678", "-3", "2.50000")
    assert query_table.format_statistic(float("nan")) == "nan"
    assert query_table.format_statistic(float("-inf"), "f", "sci") == "-inf"
    message = query_table.too_large_message("[:,:]", 1_000_000)
    assert message.startswith("The requested data exceeds the upper limit 100,000")
    assert "1,000,000" in message
