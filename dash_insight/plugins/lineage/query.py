"""MindInsight's lineage queries over the jobs' lineage rows (``lineagemgr`` and ``optimizer``,
spec §3.8 and §4.6).

Rows: :func:`dash_insight.core.lineage_rows.lineage_row`.

Queries: :func:`search_lineages` is ``POST /lineagemgr/lineages`` (validation, filtering,
sorting, paging, ``dataset_mark``, ``customized``) and :func:`optimizer_targets` is
``POST /optimizer/targets/search`` (objective histograms and |Pearson r| importance). The data
lineage columns of the UI come from :func:`pipeline_stages` and :func:`align_stages`.
"""

from __future__ import annotations

import functools
import json
import math
import operator
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dash_insight.core.lazy_import import import_module
from dash_insight.core.lineage_rows import lineage_row
from dash_insight.core.provider import DataError, DataProvider

if TYPE_CHECKING:
    import pandas as pd

#: MindInsight's ``FIELD_MAPPING`` keys, in its order: the searchable and sortable fields.
FIELDS = (
    "summary_dir",
    "loss_function",
    "train_dataset_path",
    "train_dataset_count",
    "test_dataset_path",
    "test_dataset_count",
    "network",
    "optimizer",
    "learning_rate",
    "epoch",
    "batch_size",
    "device_num",
    "loss",
    "model_size",
    "dataset_mark",
)
#: Fields whose conditions take strings with ``eq``/``in``/``not_in`` only.
STRING_FIELDS = (
    "summary_dir",
    "loss_function",
    "train_dataset_path",
    "test_dataset_path",
    "network",
    "optimizer",
    "dataset_mark",
)
#: Fields whose conditions take non-negative 64-bit integers.
INT_FIELDS = (
    "train_dataset_count",
    "test_dataset_count",
    "epoch",
    "batch_size",
    "device_num",
    "model_size",
)
#: Fields whose conditions take numbers.
NUMBER_FIELDS = ("learning_rate", "loss")
LINEAGE_TYPES = ("dataset", "model")
OPERATORS = ("eq", "lt", "gt", "le", "ge", "in", "not_in")
_PAGING_KEYS = ("limit", "offset", "sorted_name", "sorted_type", "lineage_type")
METRIC_PREFIX, USER_DEFINED_PREFIX = "[M]", "[U]"
#: ``USER_DEFINED_INFO_LIMIT`` of the optimizer table (MindInsight keeps 101 by an off-by-one).
USER_DEFINED_LIMIT = 100
#: Columns the optimizer never treats as hyper-parameters (``LineageTable._NOT_TUNABLE_NAMES``).
NOT_TUNABLE = (
    "loss",
    "train_id",
    "device_num",
    "model_size",
    "test_dataset_count",
    "train_dataset_count",
)
#: ``optimizer.common.enums.ReasonCode``.
REASON_NOT_ALL_NUMBERS, REASON_SAMPLES_NOT_ENOUGH, REASON_CORRELATION_NAN = 1, 2, 3

# MindInsight's messages for invalid search conditions (``LineageErrorMsg``), by field.
_FIELD_MESSAGES = {
    "summary_dir": "The parameter summary_dir is invalid. It should be a dict and the value "
    "should be a string.",
    "loss_function": "The parameter loss_function is invalid. It should be a dict and the value "
    "should be a string.",
    "train_dataset_path": "The parameter train_dataset_path is invalid. It should be a dict and "
    "the value should be a string.",
    "train_dataset_count": "The parameter train_dataset_count is invalid. It should be a dict "
    "and the value should be a integer between 0 and pow(2, 63) -1.",
    "test_dataset_path": "The parameter test_dataset_path is invalid. It should be a dict and "
    "the value should be a string.",
    "test_dataset_count": "The parameter test_dataset_count is invalid. It should be a dict and "
    "the value should be a integer between 0 and pow(2, 63) -1.",
    "network": "The parameter network is invalid. It should be a dict and the value should be a "
    "string.",
    "optimizer": "The parameter optimizer is invalid. It should be a dict and the value should "
    "be a string.",
    "learning_rate": "The parameter learning_rate is invalid. It should be a dict and the value "
    "should be a float or a integer.",
    "epoch": "The parameter epoch is invalid. It should be a positive integer.",
    "batch_size": "The parameter batch_size is invalid. It should be a non-negative integer.",
    "device_num": "The parameter device_num is invalid. It should be a non-negative integer.",
    "limit": "Invalid input limit. 0 < limit <= 100",
    "offset": "Invalid input offset. 0 <= offset <= 100000",
    "loss": "The parameter loss is invalid. It should be a float.",
    "model_size": "The parameter model_size is invalid. It should be an integer between 0 and "
    "pow(2, 63) -1.",
    "sorted_name": "The parameter sorted_name is invalid. It should be a string.",
    "sorted_type": "The parameter sorted_type is invalid. It should be a string.",
    "dataset_mark": "The parameter dataset_mark is invalid. It should be a string.",
    "lineage_type": "The parameter lineage_type is invalid. It should be 'dataset' or 'model'.",
}
_MAX_INT64 = 2**63 - 1


class LineageConditionError(ValueError):
    """An invalid search condition; ``str()`` is MindInsight's inner message (the REST API
    answers it as ``50542218 Search_condition param error: <message>``)."""


# -- rows ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineageEntry:
    """One job's lineage row with what ordering needs (MindInsight's ``SuperLineageObj``)."""

    train_id: str
    update_time: float
    row: Mapping[str, Any]


class RowCache:
    """Lineage rows of one base directory's jobs, rebuilt only for jobs whose version changed
    (owned by :class:`~.service.LineageService`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: dict[str, tuple[int, dict[str, Any] | None]] = {}


def job_lineages(provider: DataProvider, cache: RowCache) -> list[LineageEntry]:
    """Every job's lineage row in :func:`lineage_order` (newest second first), as the provider sees
    the files now: a job's row is rebuilt when its version changes, so rows follow the logs
    live; jobs without lineage (or whose lineage files hold no lineage) are left out."""
    entries = []
    with cache.lock:
        seen = set()
        for job in provider.list_jobs():
            if not job.lineage_files:
                continue
            seen.add(job.train_id)
            cached = cache.rows.get(job.train_id)
            if cached is None or cached[0] != job.version:
                try:
                    row = lineage_row(job.train_id, provider.lineage_records(job.train_id))
                except DataError:  # the job vanished between the two calls
                    continue
                cached = cache.rows[job.train_id] = (job.version, row)
            if cached[1] is not None:
                entries.append(LineageEntry(job.train_id, job.update_time, cached[1]))
        for train_id in set(cache.rows) - seen:
            del cache.rows[train_id]
    entries.sort(key=lineage_order)
    return entries


def lineage_order(entry: LineageEntry) -> tuple[int, str]:
    """MindInsight's job order (``SummaryWatcher``): newest update first counted in *whole
    seconds*, then by path, so jobs finishing within the same second are ordered by path
    (``dataset_mark`` numbering follows this order)."""
    return (-math.floor(entry.update_time), entry.train_id)


# -- dataset marks ---------------------------------------------------------------------------


def dataset_marks(graphs: Sequence[Mapping[str, Any] | None]) -> list[str]:
    """MindInsight's ``Querier._add_dataset_mark``: equal dataset graphs share a mark; marks are
    strings from ``"2"`` (``"1"`` is reserved for a None graph, which never occurs: a job
    without a graph has ``{}``, and all such jobs share a mark of their own). The next mark is
    ``str(int(max(marks)) + 1)`` with a *string* max, so after ``"9"`` every new graph gets
    ``"10"`` (the 10th and later distinct graphs share it, each replacing the previous one)."""
    group: dict[str, Any] = {"1": None}
    marks = []
    for graph in graphs:
        graph = {} if graph is None else graph
        mark = next((key for key, known in group.items() if known == graph), None)
        if mark is None:
            mark = str(int(max(group)) + 1)
            group[mark] = graph
        marks.append(mark)
    return marks


def model_lineage(row: Mapping[str, Any], mark: str) -> dict[str, Any]:
    """The ``model_lineage`` object of MindInsight's answer, in its key order."""
    out = {
        field: row.get(field) for field in FIELDS if field not in ("summary_dir", "dataset_mark")
    }
    out["dataset_mark"] = mark
    out["metric"] = row.get("metric") or {}
    out["user_defined"] = row.get("user_defined") or {}
    return out


def value_by_key(row: Mapping[str, Any], mark: str, key: str) -> Any:
    """``LineageObj.get_value_by_key``: a field, ``metric/<k>`` or ``user_defined/<k>``."""
    if key.startswith(("metric/", "user_defined/")):
        section, sub_key = key.split("/", 1)
        values = row.get("metric" if section == "metric" else "user_defined")
        return values.get(sub_key) if values else None
    if key == "dataset_mark":
        return mark
    return row.get(key)


# -- search conditions -----------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number_condition_ok(condition: Mapping[str, Any]) -> str | None:
    """``check_param_value_type``: the problem with a numeric condition, or None."""
    for key, value in condition.items():
        if key == "in":
            if not isinstance(value, list | tuple):
                return "The value of `in` operation must be list or tuple."
        elif not _is_number(value):
            return "Wrong value type."
    return None


def _typed_condition_ok(condition: Mapping[str, Any], kind: type) -> str | None:
    """``check_dict_value_type`` for str or int fields: the problem, or None."""
    for key, value in condition.items():
        if key in ("in", "not_in"):
            if not isinstance(value, list | tuple):
                return "The value of `in` operation must be list or tuple."
            continue
        if not isinstance(value, kind):
            return "Wrong value type."
        if isinstance(value, int):
            if value < 0 or value > _MAX_INT64:
                return "Int value should <= pow(2, 63) - 1."
            if isinstance(value, bool):
                return "Wrong value type."
    return None


def _field_problem(field: str, condition: Any) -> str | None:
    """The schema's per-field validator (``SearchModelConditionParameter``)."""
    if field in NUMBER_FIELDS:
        return _number_condition_ok(condition)
    if field in STRING_FIELDS or field == "lineage_type":
        if not set(condition).issubset(("in", "eq", "not_in")):
            return "Its operation should be `eq`, `in` or `not_in`."
        problem = _typed_condition_ok(condition, str)
        if problem or field != "lineage_type":
            return problem
        received: list[Any] = []
        for value in condition.values():
            received.extend(value if isinstance(value, list | tuple) else [value])
        if not all(isinstance(v, str) and v in LINEAGE_TYPES for v in received):
            return f"Given lineage type should be one of {list(LINEAGE_TYPES)}."
        return None
    if field in INT_FIELDS:
        return _typed_condition_ok(condition, int)
    return None


def _schema_message(field: str, problem: str) -> str:
    """``validate_search_model_condition``: the field's message, or the problem itself
    (prefixed) when it is about an operation."""
    if "operation" in problem.lower():
        return f"The parameter {field} is invalid. {problem}"
    return _FIELD_MESSAGES[field]


#: Validators in the order MindInsight's schema reports them (its ``@validates`` methods).
_VALIDATOR_ORDER = (
    "loss",
    "learning_rate",
    "loss_function",
    "train_dataset_path",
    "train_dataset_count",
    "test_dataset_path",
    "test_dataset_count",
    "network",
    "optimizer",
    "epoch",
    "batch_size",
    "device_num",
    "model_size",
    "summary_dir",
    "dataset_mark",
    "lineage_type",
)


def validate_condition(condition: Any) -> None:
    """Check a search condition as MindInsight 2.3.1 does (``validate_condition``, then the
    schema's ``pre_load`` and field validators); LineageConditionError with its message (the
    first problem found, in MindInsight's order)."""
    if not isinstance(condition, dict):
        raise LineageConditionError("TypeError. Invalid search_condition type, it should be dict.")
    for key in ("limit", "offset"):
        if key in condition and (
            isinstance(condition[key], bool) or not isinstance(condition[key], int)
        ):
            raise LineageConditionError(f"TypeError. The {key} must be int.")
    _check_sorting(condition)
    for attr, sub in condition.items():  # the schema's pre_load
        if attr not in _PAGING_KEYS:
            _check_attribute(attr, sub)
    _check_fields(condition)


def _check_sorting(condition: dict[str, Any]) -> None:
    """``sorted_name``: a field, ``tag``, ``metric/<k>`` or ``user_defined/<k>``;
    ``sorted_type``: with a ``sorted_name``, ascending or descending."""
    if "sorted_name" in condition:
        name = condition["sorted_name"]
        valid = isinstance(name, str) and (
            name in FIELDS
            or name == "tag"
            or (name.startswith("metric/") and len(name) > len("metric/"))
            or (name.startswith("user_defined/") and len(name) > len("user_defined/"))
        )
        if not valid:
            raise LineageConditionError(
                f"ValueError. The sorted_name must be in {list(FIELDS)} or start with "
                "`metric/` or `user_defined/`."
            )
    if "sorted_type" in condition:
        if "sorted_name" not in condition:
            raise LineageConditionError(
                "ValueError. The sorted_name must exist when sorted_type exists."
            )
        if condition["sorted_type"] not in ("ascending", "descending", None):
            raise LineageConditionError(
                "ValueError. The sorted_type must be ascending or descending."
            )


def _check_attribute(attr: str, sub: Any) -> None:
    """One filter of a condition as the schema's ``pre_load`` checks it: a known attribute, a
    dict of known operators; a metric's values numbers."""
    if attr not in FIELDS and not attr.startswith(("metric/", "user_defined/")):
        raise LineageConditionError("ValueError. The search attribute not supported.")
    if not isinstance(sub, dict):
        raise LineageConditionError(
            f"TypeError. The search_condition element {attr} should be dict."
        )
    if not set(sub).issubset(OPERATORS):
        raise LineageConditionError(
            "ValueError. The compare condition should be in "
            "('eq', 'lt', 'gt', 'le', 'ge', 'in', 'not_in')."
        )
    if attr.startswith("metric/"):
        if len(attr) == len("metric/"):
            raise LineageConditionError("ValueError. The search attribute not supported.")
        if _number_condition_ok(sub):
            raise LineageConditionError(
                f"The parameter {attr} is invalid. It should be a dict and the value should "
                "be a float or a integer"
            )


def _check_fields(condition: dict[str, Any]) -> None:
    """Field deserialisation, in the schema's field order: paging ranges, lineage_type's type,
    then each field's validator."""
    if "limit" in condition and not 0 < condition["limit"] <= 100:
        raise LineageConditionError(_FIELD_MESSAGES["limit"])
    if "offset" in condition and not 0 <= condition["offset"] <= 100000:
        raise LineageConditionError(_FIELD_MESSAGES["offset"])
    if "lineage_type" in condition and not isinstance(condition["lineage_type"], dict):
        raise LineageConditionError(_FIELD_MESSAGES["lineage_type"])
    for field in _VALIDATOR_ORDER:
        if field in condition:
            problem = _field_problem(field, condition[field])
            if problem:
                raise LineageConditionError(_schema_message(field, problem))


def is_match(operation: str, expected: Any, actual: Any) -> bool:
    """``ExpressionType.is_match``: Python's ``operator`` semantics; None never satisfies an
    ordering; a comparison that raises TypeError does not match."""
    if actual is None and operation in ("lt", "gt", "le", "ge"):
        return False
    try:
        if operation == "in":
            return bool(operator.contains(expected, actual))
        if operation == "not_in":
            return not operator.contains(expected, actual)
        return bool(getattr(operator, operation)(actual, expected))
    except TypeError:
        return False


def _cmp(first: Any, second: Any) -> int:
    """The querier's sort comparison: None lowest; uncomparable values by type name."""
    if first is None and second is None:
        return 0
    if first is None:
        return -1
    if second is None:
        return 1
    try:
        return (first > second) - (first < second)
    except TypeError:
        names = type(first).__name__, type(second).__name__
        return (names[0] > names[1]) - (names[0] < names[1])


def _customized(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``Querier._organize_customized``: metric and user-defined keys of the page's rows with
    the Python type name of their values (``int``+``float`` -> ``float``, else ``mixed``)."""
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        for section in ("metric", "user_defined"):
            values = row.get(section)
            if not values or not isinstance(values, dict):
                continue
            for key, value in values.items():
                label = f"{section}/{key}"
                item = found.setdefault(
                    label, {"label": label, "required": section == "metric", "type": set()}
                )
                item["type"].add(type(value).__name__)
    for item in found.values():
        types = item["type"]
        if len(types) == 1:
            item["type"] = next(iter(types))
        elif types.issubset({"int", "float"}):
            item["type"] = "float"
        else:
            item["type"] = "mixed"
    return found


def lineage_types(condition: Mapping[str, Any]) -> list[Any]:
    """``Querier._get_lineage_types``: both when absent or empty, else ``in`` or ``[eq]``."""
    param = condition.get("lineage_type")
    if not param:
        return list(LINEAGE_TYPES)
    if param.get("in") is not None:
        return list(param["in"])
    return [param.get("eq")]


def search_lineages(
    entries: Sequence[LineageEntry],
    condition: Mapping[str, Any] | None,
    added_info: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """``POST /lineagemgr/lineages``: ``{"customized", "object", "count"}`` as MindInsight.

    ``entries`` in :func:`job_lineages` order (marks are given in that order, before any
    filtering); ``added_info`` maps train_id -> ``{"tag", "remark"}``. Filters use every key of
    ``condition`` that is a field, ``metric/<k>`` or ``user_defined/<k>``; then a stable sort by
    ``sorted_name`` (``tag`` sorts by the added tag); then ``[offset*limit, (offset+1)*limit)``
    when either is given (defaults 0 and 10); ``count`` is the number before paging.
    LineageConditionError for an invalid condition.
    """
    condition = {} if condition is None else condition
    validate_condition(condition)
    added_info = added_info or {}
    marks = dataset_marks([e.row.get("dataset_graph") for e in entries])
    results = _filtered(list(zip(entries, marks, strict=True)), condition)
    if "sorted_name" in condition:
        _sort(results, condition, added_info)
    page = results
    if "offset" in condition or "limit" in condition:
        offset, limit = condition.get("offset", 0), condition.get("limit", 10)
        page = results[offset * limit : (offset + 1) * limit]
    types = lineage_types(condition)
    return {
        "customized": _customized(entry.row for entry, _ in page),
        "object": [_lineage_object(entry, mark, types, added_info) for entry, mark in page],
        "count": len(results),
    }


_Marked = tuple[LineageEntry, str]


def _filtered(items: list[_Marked], condition: Mapping[str, Any]) -> list[_Marked]:
    """The (entry, dataset mark) pairs matching every filter of ``condition`` (its keys but
    the paging and sorting ones), in order."""
    filters = [(key, sub) for key, sub in condition.items() if key not in _PAGING_KEYS]

    def keep(item: _Marked) -> bool:
        entry, mark = item
        for key, sub in filters:
            actual = value_by_key(entry.row, mark, key)
            if not all(is_match(op, expected, actual) for op, expected in sub.items()):
                return False
        return True

    return [item for item in items if keep(item)]


def _sort(
    results: list[_Marked],
    condition: Mapping[str, Any],
    added_info: Mapping[str, Mapping[str, Any]],
) -> None:
    """Sort ``results`` in place, stably, by ``condition["sorted_name"]`` (``tag``: the added
    tag) in its ``sorted_type`` order, as MindInsight compares values (:func:`_cmp`)."""
    name = condition["sorted_name"]
    if name == "tag":

        def key_of(item: _Marked) -> Any:
            return (added_info.get(item[0].train_id) or {}).get("tag")
    else:

        def key_of(item: _Marked) -> Any:
            return value_by_key(item[0].row, item[1], name)

    def compare(a: _Marked, b: _Marked) -> int:
        return _cmp(key_of(a), key_of(b))

    results.sort(
        key=functools.cmp_to_key(compare), reverse=condition.get("sorted_type") == "descending"
    )


def _lineage_object(
    entry: LineageEntry,
    mark: str,
    types: Collection[Any],
    added_info: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """One job of the answer's ``object`` list: its model lineage and / or dataset graph (as
    ``types`` asks), and its added tag and remark."""
    obj: dict[str, Any] = {}
    if "model" in types:
        obj["summary_dir"] = entry.train_id
        obj["model_lineage"] = model_lineage(entry.row, mark)
    if "dataset" in types:
        obj["summary_dir"] = entry.train_id
        obj["dataset_graph"] = entry.row.get("dataset_graph") or {}
    obj["added_info"] = dict(added_info.get(entry.train_id) or {})
    return obj


# -- optimizer (model-lineage overview) ------------------------------------------------------


def _parse_value(value: Any) -> Any:
    """``model._parse_value``: the strings "nan"/"inf" (any case) become NaN."""
    if isinstance(value, str) and value.lower() in ("nan", "inf"):
        return np.nan
    return value


def flattened_lineage(objects: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """``get_flattened_lineage``: one column per field, ``[M]<metric>``, ``[U]<key>`` (the first
    101 user-defined keys, MindInsight's off-by-one), None where a row lacks it."""
    table: dict[str, list[Any]] = {"train_id": []}
    user_count = 0
    for index, obj in enumerate(objects):
        table["train_id"].append(obj.get("summary_dir"))
        lineage = obj.get("model_lineage", {})
        for key, value in _flatten(lineage):
            if key.startswith(USER_DEFINED_PREFIX) and key not in table:
                if user_count > USER_DEFINED_LIMIT:
                    continue
                user_count += 1
            if key not in table:
                table[key] = [None] * index
            table[key].append(_parse_value(value))
        for values in table.values():
            if len(values) == index:
                values.append(None)
    return table


def _flatten(lineage: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    for key, value in lineage.items():
        if key == "metric":
            for sub, item in (value or {}).items():
                yield f"{METRIC_PREFIX}{sub}", item
        elif key == "user_defined":
            for sub, item in (value or {}).items():
                yield f"{USER_DEFINED_PREFIX}{sub}", item
        else:
            yield key, value


def _is_simple_number(dtype: Any) -> bool:
    """``is_simple_numpy_number``: integer or floating numpy dtypes (not bool, not strings)."""
    return isinstance(dtype, np.dtype) and (
        np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.floating)
    )


@dataclass
class LineageTable:
    """MindInsight's ``LineageTable``: the numeric columns of the flattened lineage."""

    frame: pd.DataFrame
    train_ids: list[Any]
    dropped: list[dict[str, Any]]

    @classmethod
    def from_objects(cls, objects: Sequence[Mapping[str, Any]]) -> LineageTable:
        # pandas is imported on first use: a server starts without it (issue #18 item 4).
        pandas = import_module("pandas")
        frame = pandas.DataFrame(flattened_lineage(objects))
        train_ids = frame["train_id"].tolist()
        drop = [name for name, column in frame.items() if not _is_simple_number(column.dtype)]
        dropped = [
            {"name": name, "unselected": True, "reason_code": REASON_NOT_ALL_NUMBERS}
            for name in drop
            if str(name).startswith(USER_DEFINED_PREFIX)
        ]
        return cls(frame.drop(columns=drop), train_ids, dropped)

    @property
    def target_names(self) -> list[str]:
        """``[M]`` columns, then ``loss``."""
        names = [n for n in self.frame.columns if n.startswith(METRIC_PREFIX)]
        return names + (["loss"] if "loss" in self.frame.columns else [])

    @property
    def hyper_param_names(self) -> list[str]:
        """Numeric columns that are neither metrics nor in :data:`NOT_TUNABLE`."""
        return [
            n
            for n in self.frame.columns
            if not n.startswith(METRIC_PREFIX) and n not in NOT_TUNABLE
        ]

    def values(self, name: str) -> list[Any]:
        """``get_column_values``: NaN -> None, ints stay ints."""
        return [
            None if isinstance(v, float) and math.isnan(v) else v for v in self.frame[name].tolist()
        ]


def importance(frame: pd.DataFrame, param: str, target: str) -> tuple[float, int | None]:
    """``calc_hyper_param_importance``: |Pearson r| over the rows where both are known, and the
    reason code when it cannot be computed (importance 0): 2 for <= 2 rows, 3 for NaN r."""
    pairs = frame[[param, target]].dropna()
    if len(pairs) <= 2:
        return 0, REASON_SAMPLES_NOT_ENOUGH
    # MindInsight's ``pairs[target].corr(pairs[param])`` ran pandas < 3, whose Pearson r is
    # ``np.corrcoef``; pandas 3 rescales first and rounds differently (1.0 where MindInsight
    # had 0.9999999999999999, which reorders tied hyper-parameters).
    with np.errstate(divide="ignore", invalid="ignore"):
        correlation = np.corrcoef(
            pairs[target].to_numpy(np.float64), pairs[param].to_numpy(np.float64)
        )[0, 1]
    if np.isnan(correlation):
        return 0, REASON_CORRELATION_NAN
    return abs(float(correlation)), None


def spearman_importance(frame: pd.DataFrame, param: str, target: str) -> float | None:
    """|Spearman rho| (Pearson r of average ranks) over the rows where both are known; None
    when it cannot be computed (<= 2 rows or a constant column). Not in MindInsight: shown
    beside its Pearson importance because it also catches monotonic, non-linear effects."""
    pairs = frame[[param, target]].dropna()
    if len(pairs) <= 2:
        return None
    correlation = pairs[target].rank().corr(pairs[param].rank())
    return None if np.isnan(correlation) else abs(float(correlation))


def histogram_buckets(values: Any, bins: int = 5) -> list[list[float]]:
    """``optimizer.utils.calc_histogram``: ``[[left, width, count]]`` of ``np.histogram`` over
    the finite values' range (widened by 0.5 each side when it is a single value)."""
    array = np.asarray(values)
    if array.dtype == object:
        array = array.astype(float)
    finite = array[np.isfinite(array)] if array.size else array
    if finite.size:
        low, high = finite.min(), finite.max()
    else:
        low = high = 0
    if low >= high:
        low, high = low - 0.5, high + 0.5
    with np.errstate(invalid="ignore"):
        counts, edges = np.histogram(array, bins=bins, range=(low, high))
    return [
        [float(edges[i]), float(edges[i + 1] - edges[i]), float(count)]
        for i, count in enumerate(counts)
    ]


def optimizer_targets(objects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``POST /optimizer/targets/search`` from the ``object`` list of a lineage search: per
    target (``[M]`` metrics and ``loss``, sorted by name) its 5-bucket histogram, values and the
    hyper-parameters sorted by (-importance, user-defined last, name); plus the metadata."""
    table = LineageTable.from_objects(objects)
    targets: list[dict[str, Any]] = []
    for target in table.target_names:
        params = []
        for name in table.hyper_param_names:
            value, reason = importance(table.frame, name, target)
            info: dict[str, Any] = {"name": name, "importance": value}
            if reason is not None:
                info["reason_code"] = reason
            params.append(info)
        params.sort(key=lambda p: (-p["importance"], p["name"].startswith("["), p["name"]))
        targets.append(
            {
                "name": target,
                "buckets": histogram_buckets(table.frame[target]),
                "hyper_parameters": params,
                "data": table.values(target),
            }
        )
    targets.sort(key=lambda t: t["name"])
    return {
        "metadata": {
            "train_ids": table.train_ids,
            "possible_hyper_parameters": [
                {"name": n, "data": table.values(n)} for n in table.hyper_param_names
            ],
            "unrecognized_params": table.dropped,
        },
        "targets": targets,
    }


# -- data lineage ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """One step of a dataset pipeline, source first: ``name`` is the op type (a map stage is
    ``Map[TypeCast]``), ``params`` the node's parameters without its children."""

    op_type: str
    name: str
    params: dict[str, Any]
    branched: bool = False  # the node had more than one child (only the first is followed)


def pipeline_stages(graph: Mapping[str, Any] | None) -> list[Stage]:
    """The pipeline as a list from the source to the last op, following the first child as
    MindInsight's data-lineage page does (``getSingleRunData``)."""
    chain: list[Stage] = []
    node = graph
    while node:
        children = node.get("children") or []
        params = {k: v for k, v in node.items() if k != "children"}
        op_type = str(node.get("op_type", "?"))
        name = op_type
        operations = node.get("operations")
        if operations:
            names = [
                str(op.get("tensor_op_name", "?")) for op in operations if isinstance(op, dict)
            ]
            name = f"{op_type}[{', '.join(names)}]"
        chain.append(Stage(op_type, name, params, branched=len(children) > 1))
        node = children[0] if children else None
    chain.reverse()
    return chain


def align_stages(pipelines: Sequence[Sequence[Stage]]) -> tuple[list[str], list[list[str]]]:
    """Columns for several pipelines: an ordered union of their op types (MindInsight's
    ``formateOriginData``: each pipeline's ops are matched in order to the first column of the
    same type after the previous match, otherwise a new column is inserted there). Column ids
    are the op type for source datasets (``*Dataset``) and ``<op type> <n>`` otherwise.
    Returns (column ids, the column id of each stage of each pipeline)."""
    columns: list[tuple[str, str]] = []  # (op type, id)
    counts: dict[str, int] = {}
    assigned: list[list[str]] = []

    def new_id(op_type: str) -> str:
        counts[op_type] = counts.get(op_type, 0) + 1
        if op_type.endswith("Dataset"):
            return op_type if counts[op_type] == 1 else f"{op_type} {counts[op_type]}"
        return f"{op_type} {counts[op_type]}"

    for stages in pipelines:
        ids = []
        start = 0
        for stage in stages:
            found = next(
                (i for i in range(start, len(columns)) if columns[i][0] == stage.op_type), None
            )
            if found is None:
                column_id = new_id(stage.op_type)
                columns.insert(start, (stage.op_type, column_id))
                found = start
            ids.append(columns[found][1])
            start = found + 1
        assigned.append(ids)
    return [column_id for _, column_id in columns], assigned


def stage_text(params: Mapping[str, Any]) -> str:
    """A stage's parameters as compact JSON (keys sorted), as the data-lineage table shows."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
