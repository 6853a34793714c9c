"""A job's lineage row: its ``_lineage`` records flattened as MindInsight does.

Rows (``lineagemgr/lineage_parser.py``, ``querier/query_model.py``): files are applied in
file-name timestamp order; within a file the last ``train_lineage``, ``evaluation_lineage`` and
``dataset_graph`` win and every ``user_defined_info`` is merged (later keys win); a file holding a
``train_lineage`` or a ``dataset_graph`` starts a new training, so everything from earlier files
is dropped; a file with none of the three (only user-defined info) is ignored, as MindInsight's
``LineageObj`` refuses it. ``float`` proto fields (learning rate, loss) read back as
``MessageToDict`` gives them: the shortest decimal that round-trips through float32 (``0.001``,
not ``0.0010000000474974513``).

TensorBoard ``hparams`` data (kept by the loader as ``tensorboard_hparams`` records) becomes the
same records first (:func:`tensorboard_lineage`).

Used by the lineage plugin (search, optimizer) and the summary list's "Parameter Details".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from dash_insight.core.format.events import (
    LINEAGE_DATASET_GRAPH,
    LINEAGE_EVAL,
    LINEAGE_TRAIN,
    LINEAGE_USER_DEFINED,
)
from dash_insight.core.format.files import summary_sort_key
from dash_insight.core.format.tensorboard import LINEAGE_TENSORBOARD_HPARAMS
from dash_insight.core.i18n import LazyString, lazy_gettext
from dash_insight.core.store.state import LineageRecord

#: Flat row fields (MindInsight's FIELD_MAPPING) and where they come from.
_TRAIN_FIELDS = {
    "loss_function": ("hyper_parameters", "loss_function"),
    "optimizer": ("hyper_parameters", "optimizer"),
    "learning_rate": ("hyper_parameters", "learning_rate"),
    "epoch": ("hyper_parameters", "epoch"),
    "batch_size": ("hyper_parameters", "batch_size"),
    "device_num": ("hyper_parameters", "device_num"),
    "train_dataset_path": ("train_dataset", "train_dataset_path"),
    "train_dataset_count": ("train_dataset", "train_dataset_size"),
    "network": ("algorithm", "network"),
    "loss": ("algorithm", "loss"),
    "model_size": ("model", "size"),
}
_EVAL_FIELDS = {
    "test_dataset_path": ("valid_dataset", "valid_dataset_path"),
    "test_dataset_count": ("valid_dataset", "valid_dataset_size"),
}
#: ``float`` (not ``double``) fields of TrainLineage: MessageToDict prints them shortest.
_FLOAT32_FIELDS = ("learning_rate", "loss")

#: The "Parameter Details" dialog of MindInsight's summary list: label -> row field.
PARAMETER_DETAILS: tuple[tuple[str | LazyString, str], ...] = (
    (lazy_gettext("Loss Function"), "loss_function"),
    (lazy_gettext("Training Set Path"), "train_dataset_path"),
    (lazy_gettext("Training Samples"), "train_dataset_count"),
    (lazy_gettext("Test Set Path"), "test_dataset_path"),
    (lazy_gettext("Testing Samples"), "test_dataset_count"),
    (lazy_gettext("Network"), "network"),
    (lazy_gettext("Optimizer"), "optimizer"),
    (lazy_gettext("Learning Rate"), "learning_rate"),
    ("epoch", "epoch"),
    ("batch_size", "batch_size"),
    (lazy_gettext("Devices"), "device_num"),
)


def float32_json(value: Any) -> Any:
    """A float32 proto value as protobuf's ``MessageToDict`` prints it (``ToShortestFloat``:
    the shortest ``%g`` with at least 6 digits that reads back as the same float32; NaN and
    infinities as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``)."""
    if not isinstance(value, float):
        return value
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    single = np.float32(value)
    precision = 6
    rounded = float(f"{value:.{precision}g}")
    while np.float32(rounded) != single and precision < 17:
        precision += 1
        rounded = float(f"{value:.{precision}g}")
    return rounded


def _get(data: Mapping[str, Any] | None, path: tuple[str, str]) -> Any:
    section = (data or {}).get(path[0]) or {}
    return section.get(path[1])


def lineage_row(train_id: str, records: Iterable[LineageRecord]) -> dict[str, Any] | None:
    """The flat lineage row of a job from its decoded lineage records (in file order within
    each file), or None when it has no lineage (no file with a train, evaluation or
    dataset-graph record). Absent fields are None; ``dataset_graph`` is None when absent.

    MindInsight's ``LineageParser``: a later evaluation in a file without a new training
    updates the evaluation's sections (``metric``, ``valid_dataset``) it holds; user-defined
    info is merged; a file with a train lineage or dataset graph starts over.
    """
    by_file: dict[str, list[LineageRecord]] = {}
    for record in records:
        by_file.setdefault(record.file, []).append(record)
    train: Mapping[str, Any] | None = None
    evaluation: dict[str, Any] | None = None
    dataset_graph = None
    user_defined: dict[str, Any] = {}
    found = False
    for name in sorted(by_file, key=summary_sort_key):
        latest: dict[str, Any] = {}
        file_user_defined: dict[str, Any] = {}
        for record in by_file[name]:
            if record.kind == LINEAGE_USER_DEFINED:
                file_user_defined.update(record.data)
            elif record.kind in (LINEAGE_TRAIN, LINEAGE_EVAL, LINEAGE_DATASET_GRAPH):
                latest[record.kind] = record.data
        if not latest:  # MindInsight: LineageEventNotExistException, the file is skipped
            continue
        found = True
        if LINEAGE_TRAIN in latest or LINEAGE_DATASET_GRAPH in latest:  # a new training
            train = evaluation = dataset_graph = None
            user_defined = {}
        user_defined.update(file_user_defined)
        if LINEAGE_TRAIN in latest:
            train = latest[LINEAGE_TRAIN]
        if LINEAGE_EVAL in latest:
            evaluation = {**(evaluation or {}), **latest[LINEAGE_EVAL]}
        if LINEAGE_DATASET_GRAPH in latest:
            dataset_graph = latest[LINEAGE_DATASET_GRAPH]
    if not found:
        return None
    row: dict[str, Any] = {"summary_dir": train_id}
    row.update({field: _get(train, path) for field, path in _TRAIN_FIELDS.items()})
    for field in _FLOAT32_FIELDS:
        row[field] = float32_json(row[field])
    row.update({field: _get(evaluation, path) for field, path in _EVAL_FIELDS.items()})
    metric = (evaluation or {}).get("metric")
    row["metric"] = metric if isinstance(metric, dict) else {}
    row["user_defined"] = user_defined
    row["dataset_graph"] = dataset_graph
    return row


#: Column ids of a row's metrics and user-defined values: ``metric/<key>``, ``user_defined/<key>``.
METRIC_PREFIX = "metric/"
USER_DEFINED_PREFIX = "user_defined/"


def row_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """A lineage row (:func:`lineage_row`) as columns, by id, values as stored: each flat field
    (``learning_rate``, ``batch_size``, ``train_dataset_path``, ...), then ``metric/<key>`` and
    ``user_defined/<key>``. The lineage table's model columns and the scalar comparison's
    groups are these ids."""
    columns = {field: row.get(field) for field in (*_TRAIN_FIELDS, *_EVAL_FIELDS)}
    columns.update({METRIC_PREFIX + k: v for k, v in (row.get("metric") or {}).items()})
    columns.update({USER_DEFINED_PREFIX + k: v for k, v in (row.get("user_defined") or {}).items()})
    return columns


def tensorboard_lineage(
    records: Iterable[LineageRecord], last_scalar: Callable[[str], float | None]
) -> list[LineageRecord]:
    """``records`` with each file's TensorBoard hparams records replaced by what a MindSpore
    lineage file of that training would hold: a ``user_defined_info`` with the session's
    hyper-parameters (a later session's value of a name wins) and an ``evaluation_lineage``
    whose ``metric`` maps every metric tag the experiment names (its group empty: a scalar tag
    of this job) to that tag's last value, ``last_scalar(tag)`` (TensorBoard's hparams plugin
    shows a metric's last value too); tags without a value are left out. The evaluation
    record is there even without metrics, so a job with hyper-parameters has a lineage row.
    Other records are kept as they are."""
    out: list[LineageRecord] = []
    by_file: dict[str, list[LineageRecord]] = {}
    for record in records:
        if record.kind == LINEAGE_TENSORBOARD_HPARAMS:
            by_file.setdefault(record.file, []).append(record)
        else:
            out.append(record)
    for name, hparams_records in by_file.items():
        hparams: dict[str, Any] = {}
        tags: list[str] = []
        for record in hparams_records:
            hparams.update(record.data.get("hparams", {}))
            tags.extend(t for t in record.data.get("metric_tags", []) if t not in tags)
        metric = {}
        for tag in tags:
            value = last_scalar(tag)
            if value is not None:
                metric[tag] = float32_json(value)
        first = hparams_records[0]
        out.append(
            LineageRecord(
                file=name,
                offset=first.offset,
                wall_time=first.wall_time,
                kind=LINEAGE_USER_DEFINED,
                data=hparams,
            )
        )
        out.append(
            LineageRecord(
                file=name,
                offset=first.offset,
                wall_time=first.wall_time,
                kind=LINEAGE_EVAL,
                data={"metric": metric},
            )
        )
    return out


def parameter_details(row: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(label, text) pairs of MindInsight's "Parameter Details" dialog; "None" when absent.
    Labels are in the current language."""
    if row is None:
        return []
    return [
        (str(label), "None" if row.get(field) is None else str(row[field]))
        for label, field in PARAMETER_DETAILS
    ]
