"""MindInsight's operator search rules (``plugins/profiler/query.py``): number formatting, row
conversion, validation order and messages, filter, sort (stability, null type) and paging."""

from __future__ import annotations

from typing import Any

import pytest

from dash_insight.core.format.profiler import OpDetailStat, OpTypeStat
from dash_insight.plugins.profiler import query
from dash_insight.web.errors import ApiError

COLUMNS = ("name", "kind", "time")
ROWS = [["b", "X", 2.0], ["a", "Y", 1.0], ["c", "X", 2.0], ["D", "y", 3.0]]


def test_format_number() -> None:
    assert query.format_number(244477.0000001) == 244477.0
    assert query.format_number(12223.9123) == 12223.912
    assert query.format_number(0.14296599999999998) == 0.142966
    assert query.format_number(18.2752) == 18.275
    assert query.format_number(0.9999996) == 1.0  # below 1: six decimals, even if it rounds up
    assert query.format_number(1.0004) == 1.0


def test_row_conversion_units() -> None:
    stat = OpTypeStat("BiasAdd", 60, 3, 1.91252, 0.0318754, 0.00142966)
    assert query.type_row(stat) == ["BiasAdd", 60, 3, 1912.52, 31.875, 0.142966]
    detail = OpDetailStat(
        "Host",
        "Conv2D",
        "Conv2D-op0",
        "Default/c/Conv2D-op0",
        20,
        180.112,
        9.00561,
        0.134638,
        "Default",
        "6883",
    )
    # The proportion stays a fraction: MindInsight did not multiply it by 100.
    assert query.detail_row(detail) == [
        "Host",
        "Conv2D",
        "Conv2D-op0",
        "Default/c/Conv2D-op0",
        20,
        180112.0,
        9005.61,
        0.134638,
        "Default",
    ]


def _error(condition: Any) -> tuple[str, str]:
    with pytest.raises(ApiError) as caught:
        query.validate_condition(condition)
    return caught.value.error_code, caught.value.message


def test_validation_order_and_messages() -> None:
    assert _error([1])[0] == "50546082"
    # device_id is checked before op_type
    assert _error({"device_id": 0, "op_type": "nope"})[0] == "50546182"
    code, message = _error({})
    assert code == "50546183" and message.startswith(
        "The op_type in search_condition error, The op_type must in ['aicpu_type','aicpu_detail',"
        " 'aicore_type'"
    )
    assert (
        _error({"op_type": "cpu_op_type", "group_condition": {"limit": 0}, "sort_condition": 1})[0]
        == "50546184"
    )  # group before sort
    assert _error({"op_type": "cpu_op_type", "sort_condition": {"name": None}})[1].endswith(
        "Wrong sorted name type."
    )
    assert _error({"op_type": "cpu_op_info", "sort_condition": {"name": "avg_time"}})[1].endswith(
        "The sorted_name must be in ['op_side', 'op_type', 'op_name', 'full_op_name', "
        "'op_occurrences', 'op_total_time', 'op_avg_time', 'total_time_proportion', 'subgraph']"
    )
    assert _error({"op_type": "cpu_op_type", "filter_condition": {"op_name": []}})[1].endswith(
        "The filter condition value must be dict."
    )
    assert _error({"op_type": "cpu_op_type", "group_condition": {"offset": False}})[1].endswith(
        "The offset must be int."
    )
    # accepted: an empty sort type, filters on columns MindInsight does not validate
    query.validate_condition(
        {
            "op_type": "cpu_op_type",
            "sort_condition": {"type": ""},
            "filter_condition": {"kernel_type": {"in": ["Conv2D"]}, "op_type": {"step": ["1"]}},
        }
    )
    with pytest.raises(ApiError) as caught:
        query.device_number("abc")
    assert caught.value.error_code == "50540001"
    assert query.device_number("1") == 1


def test_filter_rules() -> None:
    def names(condition: dict[str, Any]) -> list[str]:
        return [row[0] for row in query.filter_rows(ROWS, COLUMNS, condition)]

    assert names({}) == ["b", "a", "c", "D"]
    assert names({"kind": {"in": ["X"]}}) == ["b", "c"]
    assert names({"kind": {"not_in": ["X"]}}) == ["a", "D"]
    assert names({"kind": {"partial_match_str_in": ["y"]}}) == ["a", "D"]  # case-insensitive
    assert names({"name": {"partial_match_str_in": ["a", "d"]}}) == ["a", "D"]  # any needle
    assert names({"kind": {"in": ["X"]}, "name": {"not_in": ["b"]}}) == ["c"]  # all keys
    assert names({"kind": {"in": ["X"], "not_in": ["X"]}}) == []  # all operators
    assert names({"kind": {"step": ["X"]}}) == []  # other operators never match
    assert names({"kernel_type": {"in": ["X"]}}) == ["b", "a", "c", "D"]  # not a column
    assert names({"time": {"partial_match_str_in": ["2."]}}) == ["b", "c"]


def test_sort_rules() -> None:
    def names(condition: dict[str, Any]) -> list[str]:
        return [row[0] for row in query.sort_rows(list(ROWS), COLUMNS, condition)]

    assert names({"name": "time"}) == ["D", "b", "c", "a"]  # descending by default, stable
    assert names({"name": "time", "type": "descending"}) == ["D", "b", "c", "a"]
    assert names({"name": "time", "type": "ascending"}) == ["a", "b", "c", "D"]
    assert names({"name": "time", "type": None}) == ["a", "b", "c", "D"]  # null: ascending
    assert names({"name": "name", "type": "ascending"}) == ["D", "a", "b", "c"]  # case matters
    assert names({"type": "ascending"}) == ["b", "a", "c", "D"]  # no name: file order


def test_page_rules() -> None:
    rows = [[i] for i in range(25)]
    assert query.page_rows(rows, {"limit": 10, "offset": 2}) == rows[20:]
    assert query.page_rows(rows, {"limit": 7}) == rows[:7]
    assert query.page_rows(rows, {"offset": 1}) == rows[10:20]
    assert query.page_rows(rows, {"other": 1}) == rows
    assert query.page_rows(rows, {"limit": 10, "offset": 100}) == []


def test_search_counts_before_paging() -> None:
    answer = query.search(
        ROWS,
        COLUMNS,
        {
            "filter_condition": {"kind": {"in": ["X", "Y"]}},
            "sort_condition": {"name": "name"},
            "group_condition": {"limit": 1, "offset": 1},
        },
    )
    assert answer == {"col_name": list(COLUMNS), "object": [["b", "X", 2.0]], "size": 3}
    # An empty sort or group condition does nothing (MindInsight: "if sort_condition:").
    answer = query.search(ROWS, COLUMNS, {"sort_condition": {}, "group_condition": {}})
    assert answer["object"] == ROWS
