"""MindInsight 2.3.1's operator search (``POST /profile/ops/search``): validation, row
conversion, number formatting, filter, sort and paging, as pure functions over row lists.

Spec ``profiler.md`` §4.2; MindInsight's ``profiler/common/validator/validate.py``
(``validate_condition``), ``analyser/cpu_analyser.py`` (row conversion) and
``analyser/base_analyser.py`` (``query``: filter -> size -> sort -> page).

Deliberate differences, where MindInsight answered 500 "System error." because it crashed:

* a filter on a column other than ``op_type``/``op_name`` (not validated by MindInsight) whose
  value is not a dict, whose ``partial_match_str_in`` is not a list of strings, or whose
  ``in``/``not_in`` is neither a list nor a string, is refused with 50546186 like the validated
  keys;
* ``partial_match_str_in`` on a number column matches the number's text (MindInsight called
  ``.lower()`` on the number).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dash_insight.core.format.profiler import OpDetailStat, OpTypeStat
from dash_insight.web.errors import PARAM_TYPE_ERROR, ApiError

_PROFILER = 0x50546000
PROFILER_PARAM_TYPE_ERROR = _PROFILER | 0x082
PROFILER_DIR_NOT_FOUND = _PROFILER | 0x083
PROFILER_FILE_NOT_FOUND = _PROFILER | 0x084
DEVICE_ID_ERROR = _PROFILER | 0x182
OP_TYPE_ERROR = _PROFILER | 0x183
GROUP_CONDITION_ERROR = _PROFILER | 0x184
SORT_CONDITION_ERROR = _PROFILER | 0x185
FILTER_CONDITION_ERROR = _PROFILER | 0x186

CPU_OP_TYPE = "cpu_op_type"
CPU_OP_INFO = "cpu_op_info"
#: ``validate.py`` columns of the CPU tables (what a sort may name, and the answer's col_name).
CPU_TYPE_COLUMNS: tuple[str, ...] = (
    "op_type",
    "type_occurrences",
    "execution_frequency",
    "total_compute_time",
    "avg_time",
    "total_time_proportion",
)
CPU_DETAIL_COLUMNS: tuple[str, ...] = (
    "op_side",
    "op_type",
    "op_name",
    "full_op_name",
    "op_occurrences",
    "op_total_time",
    "op_avg_time",
    "total_time_proportion",
    "subgraph",
)
#: Every ``op_type`` MindInsight accepts, in the order its error message lists them.
KNOWN_OP_TYPES: tuple[str, ...] = (
    "aicpu_type",
    "aicpu_detail",
    "aicore_type",
    "aicore_detail",
    "gpu_op_type",
    "gpu_op_info",
    "gpu_cuda_activity",
    CPU_OP_TYPE,
    CPU_OP_INFO,
    "gpu_op_type_info",
    "gpu_cuda_type_info",
)
#: Columns MindInsight answers for the Ascend/GPU tables of a CPU-only directory (an empty
#: table: dash-insight reads CPU profiles only). From MindInsight's answers (gpu_op_type,
#: aicore_type) and its analysers (aicpu_*); the others are answered with no column.
OTHER_COLUMNS: dict[str, tuple[str, ...]] = {
    "gpu_op_type": ("op_type", "total_time", "execution_frequency", "total_percent", "avg_time"),
    "aicore_type": (
        "kernel_type",
        "total_time",
        "execution_frequency",
        "total_percent",
        "avg_time",
    ),
    "aicpu_type": ("kernel_type", "total_time", "execution_frequency", "percent"),
    "aicpu_detail": (
        "kernel_name",
        "kernel_type",
        "avg_execution_time",
        "dispatch_time",
        "execution_frequency",
    ),
}
FILTER_OPERATORS: tuple[str, ...] = (
    "in",
    "not_in",
    "partial_match_str_in",
    "display_op_type",
    "step",
)
MAX_LIMIT = 100
MAX_OFFSET = 1_000_000


def columns_of(op_type: str) -> tuple[str, ...]:
    """The columns of a search's table (sort names are checked against them)."""
    if op_type == CPU_OP_TYPE:
        return CPU_TYPE_COLUMNS
    if op_type == CPU_OP_INFO:
        return CPU_DETAIL_COLUMNS
    return OTHER_COLUMNS.get(op_type, ())


# -- numbers and rows ------------------------------------------------------------------------


def format_number(value: float) -> float:
    """MindInsight's ``_format_float_data``: rounded to 6 decimals below 1, else to 3
    (``244477.0``, ``12223.9``, ``0.142966``, ``18.275``)."""
    return round(value, 6) if value < 1 else round(value, 3)


def type_row(stat: OpTypeStat) -> list[Any]:
    """A ``cpu_op_type`` answer row (``CpuOpTypeAnalyser``): times in us, the share in percent:
    ``[op_type, occurrences, frequency, fmt(total_ms*1000), fmt(avg_ms*1000),
    fmt(fraction*100)]``."""
    return [
        stat.op_type,
        stat.occurrences,
        stat.frequency,
        format_number(stat.total_ms * 1000),
        format_number(stat.avg_ms * 1000),
        format_number(stat.fraction * 100),
    ]


def detail_row(stat: OpDetailStat) -> list[Any]:
    """A ``cpu_op_info`` answer row (``CpuOpInfoAnalyser``): times in us; the proportion stays a
    fraction (MindInsight does not multiply it by 100, although the UI heads it "(%)")."""
    return [
        stat.side,
        stat.op_type,
        stat.op_name,
        stat.full_name,
        stat.occurrences,
        format_number(stat.total_ms * 1000),
        format_number(stat.avg_ms * 1000),
        format_number(stat.proportion),
        stat.subgraph,
    ]


# -- validation ------------------------------------------------------------------------------


def _error(code: int, prefix: str, detail: str) -> ApiError:
    return ApiError(code, f"The {prefix} in search_condition error, {detail}")


def validate_condition(condition: Any) -> None:
    """MindInsight's ``validate_condition``: the first problem as its ApiError (400)."""
    if not isinstance(condition, dict):
        raise ApiError(
            PROFILER_PARAM_TYPE_ERROR,
            "Param type error. Invalid search_condition type, it should be dict.",
        )
    if "device_id" in condition and not isinstance(condition["device_id"], str):
        raise _error(DEVICE_ID_ERROR, "device_id", "Invalid device_id type, it should be str.")
    op_type = condition.get("op_type")
    if op_type not in KNOWN_OP_TYPES:
        names = ", ".join(f"'{name}'" for name in KNOWN_OP_TYPES).replace(", ", ",", 1)
        raise _error(OP_TYPE_ERROR, "op_type", f"The op_type must in [{names}]")
    if "group_condition" in condition:
        _validate_group(condition["group_condition"])
    if "sort_condition" in condition:
        _validate_sort(condition["sort_condition"], columns_of(op_type))
    if "filter_condition" in condition:
        _validate_filter(condition["filter_condition"])


def _validate_group(group: Any) -> None:
    def fail(detail: str) -> ApiError:
        return _error(GROUP_CONDITION_ERROR, "group_condition", detail)

    if not isinstance(group, dict):
        raise fail("The group condition must be dict.")
    if "limit" in group:
        limit = group["limit"]
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise fail("The limit must be int.")
        if not 1 <= limit <= MAX_LIMIT:
            raise fail(f"The limit must in [1, {MAX_LIMIT}].")
    if "offset" in group:
        offset = group["offset"]
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise fail("The offset must be int.")
        if offset < 0:
            raise fail("The offset must ge 0.")
        if offset > MAX_OFFSET:
            raise fail(f"The offset must le {MAX_OFFSET}.")


def _validate_sort(sort: Any, columns: Sequence[str]) -> None:
    def fail(detail: str) -> ApiError:
        return _error(SORT_CONDITION_ERROR, "sort_condition", detail)

    if not isinstance(sort, dict):
        raise fail("The sort condition must be dict.")
    if "name" in sort:
        name = sort["name"]
        if not isinstance(name, str):
            raise fail("Wrong sorted name type.")
        if name not in columns:
            raise fail(f"The sorted_name must be in {list(columns)}")
    if "type" in sort and sort["type"] and sort["type"] not in ("ascending", "descending"):
        raise fail("The sorted type must be ascending or descending.")


def _validate_operators(value: Any) -> None:
    def fail(detail: str) -> ApiError:
        return _error(FILTER_CONDITION_ERROR, "filter_condition", detail)

    if not isinstance(value, dict):
        raise fail("The filter condition value must be dict.")
    for key, items in value.items():
        if not isinstance(items, list):
            raise fail("The filter value must be list")
        if key not in FILTER_OPERATORS:
            raise fail(f"The filter key must in {list(FILTER_OPERATORS)}.")
        if not all(isinstance(item, str) for item in items):
            raise fail("The item in filter value must be str.")


def _check_unvalidated(value: Any) -> None:
    """What MindInsight crashed on for a column it does not validate: a value that is not a
    dict, a ``partial_match_str_in`` that is not a list of strings (other operators behave as
    in MindInsight: an unknown one matches nothing)."""

    def fail(detail: str) -> ApiError:
        return _error(FILTER_CONDITION_ERROR, "filter_condition", detail)

    if not isinstance(value, dict):
        raise fail("The filter condition value must be dict.")
    needles = value.get("partial_match_str_in", [])
    if not isinstance(needles, list) or not all(isinstance(item, str) for item in needles):
        raise fail("The item in filter value must be str.")
    for operator in ("in", "not_in"):
        if operator in value and not isinstance(value[operator], list | str):
            raise fail("The filter value must be list")


def _validate_filter(condition: Any) -> None:
    if not isinstance(condition, dict):
        raise _error(
            FILTER_CONDITION_ERROR, "filter_condition", "The filter condition must be dict."
        )
    for key in ("op_type", "op_name"):
        if key in condition:
            _validate_operators(condition[key])


def device_number(device_id: str) -> int:
    """``to_int(device_id, 'device_id')``: ParamTypeError unless it is an integer."""
    try:
        return int(device_id)
    except ValueError:
        raise ApiError(
            PARAM_TYPE_ERROR, "Invalid parameter type. 'device_id' expect Integer type."
        ) from None


# -- filter, sort, page ----------------------------------------------------------------------


def _matches(operator: str, wanted: list[Any], actual: Any) -> bool:
    """``_is_match_condition``: ``in``/``not_in`` exact membership, ``partial_match_str_in`` any
    case-insensitive substring; any other operator never matches."""
    if operator == "in":
        return actual in wanted
    if operator == "not_in":
        return actual not in wanted
    if operator == "partial_match_str_in":
        text = actual.lower() if isinstance(actual, str) else str(actual).lower()
        return any(needle.lower() in text for needle in wanted)
    return False


def filter_rows(
    rows: Sequence[list[Any]], columns: Sequence[str], condition: Mapping[str, Any]
) -> list[list[Any]]:
    """Rows passing every operator of every condition whose key is a column; keys that are not
    columns are ignored (so the UI's drill-down key ``kernel_type`` filters nothing on CPU)."""
    checks: list[tuple[int, str, Any]] = []
    for key, operators in condition.items():
        if key not in columns:
            continue
        if key not in ("op_type", "op_name"):  # not validated by validate_condition
            _check_unvalidated(operators)
        index = columns.index(key)
        checks.extend((index, operator, wanted) for operator, wanted in operators.items())
    if not checks:
        return list(rows)
    return [
        row
        for row in rows
        if all(_matches(operator, wanted, row[index]) for index, operator, wanted in checks)
    ]


def sort_rows(
    rows: list[list[Any]], columns: Sequence[str], condition: Mapping[str, Any]
) -> list[list[Any]]:
    """By one column: ``type`` descending when absent, ascending when null or ``ascending``;
    stable in both directions (ties keep file order); strings compare case-sensitively."""
    name = condition.get("name")
    if not name:
        return rows
    index = columns.index(name)
    descending = condition.get("type", "descending") == "descending"
    return sorted(rows, key=lambda row: row[index], reverse=descending)


def page_rows(rows: list[list[Any]], condition: Mapping[str, Any]) -> list[list[Any]]:
    """``rows[limit*offset : limit*(offset+1)]``: ``offset`` is a page index (default 0), limit
    defaults to 10; neither given = every row."""
    limit, offset = condition.get("limit"), condition.get("offset")
    if limit is None and offset is None:
        return rows
    limit = 10 if limit is None else limit
    offset = 0 if offset is None else offset
    return rows[limit * offset : limit * (offset + 1)]


def search(
    rows: Sequence[list[Any]], columns: Sequence[str], condition: Mapping[str, Any]
) -> dict[str, Any]:
    """``BaseAnalyser.query``: filter, count (``size``, before paging), sort, page."""
    found = filter_rows(rows, columns, condition.get("filter_condition") or {})
    size = len(found)
    if condition.get("sort_condition"):
        found = sort_rows(found, columns, condition["sort_condition"])
    if condition.get("group_condition"):
        found = page_rows(found, condition["group_condition"])
    return {"col_name": list(columns), "object": found, "size": size}
