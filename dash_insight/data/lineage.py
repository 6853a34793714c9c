"""Lineage rows: one flat record per job, built from its ``_lineage`` files as MindInsight does.

Rules (``lineagemgr``, spec §4.6): files are applied in file-name timestamp order; within a file
the last ``train_lineage``, ``evaluation_lineage`` and ``dataset_graph`` win and every
``user_defined_info`` is merged (later keys win); a file holding a ``train_lineage`` or a
``dataset_graph`` starts a new training, so everything from earlier files is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..summary.files import summary_sort_key

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

#: The "Parameter Details" dialog of MindInsight's summary list: label -> row field.
PARAMETER_DETAILS = (
    ("Loss Function", "loss_function"),
    ("Training Set Path", "train_dataset_path"),
    ("Training Samples", "train_dataset_count"),
    ("Test Set Path", "test_dataset_path"),
    ("Testing Samples", "test_dataset_count"),
    ("Network", "network"),
    ("Optimizer", "optimizer"),
    ("Learning Rate", "learning_rate"),
    ("epoch", "epoch"),
    ("batch_size", "batch_size"),
    ("Devices", "device_num"),
)


def _get(data: Mapping[str, Any] | None, path: tuple[str, str]) -> Any:
    section = (data or {}).get(path[0]) or {}
    return section.get(path[1])


def lineage_row(train_id: str, records: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The flat lineage row of a job from its decoded lineage records (``file``, ``kind``,
    ``data``, in file order), or None when it has no lineage. Absent fields are None."""
    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_file.setdefault(record["file"], []).append(record)
    if not by_file:
        return None
    train = evaluation = dataset_graph = None
    user_defined: dict[str, Any] = {}
    for name in sorted(by_file, key=summary_sort_key):
        kinds = {r["kind"] for r in by_file[name]}
        if kinds & {"train_lineage", "dataset_graph"}:  # a new training: start over
            train = evaluation = dataset_graph = None
            user_defined = {}
        for record in by_file[name]:
            if record["kind"] == "train_lineage":
                train = record["data"]
            elif record["kind"] == "evaluation_lineage":
                evaluation = record["data"]
            elif record["kind"] == "dataset_graph":
                dataset_graph = record["data"]
            elif record["kind"] == "user_defined_info":
                user_defined.update(record["data"])
    row: dict[str, Any] = {"summary_dir": train_id}
    row.update({field: _get(train, path) for field, path in _TRAIN_FIELDS.items()})
    row.update({field: _get(evaluation, path) for field, path in _EVAL_FIELDS.items()})
    metric = (evaluation or {}).get("metric")
    row["metric"] = metric if isinstance(metric, dict) else {}
    row["user_defined"] = user_defined
    row["dataset_graph"] = dataset_graph
    return row


def parameter_details(row: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(label, text) pairs of MindInsight's "Parameter Details" dialog; "None" when absent."""
    if row is None:
        return []
    return [(label, "None" if row.get(field) is None else str(row[field]))
            for label, field in PARAMETER_DETAILS]
