"""A job's lineage row from its lineage records (MindInsight's LineageParser/LineageObj rules),
float32 fields printed as MessageToDict does, and the "Parameter Details" dialog."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dash_insight.core import lineage_rows
from dash_insight.core.lineage_rows import float32_json
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.state import LineageRecord


def test_parameter_details_dialog(corpus_provider: DataProvider) -> None:
    row = lineage_rows.lineage_row("./lenet_sc", corpus_provider.lineage_records("./lenet_sc"))
    details = dict(lineage_rows.parameter_details(row))
    assert details["Learning Rate"] == "0.05"
    assert details["Test Set Path"] == "None"
    assert details["Devices"] == "1"
    assert lineage_rows.parameter_details(None) == []


# -- row rules on synthetic records ----------------------------------------------------------


def rec(file: str, kind: str, data: dict[str, Any]) -> LineageRecord:
    return LineageRecord(
        file=f"events.out.events.summary.{file}.0.h_lineage",
        offset=0,
        wall_time=1.0,
        kind=kind,
        data=data,
    )


TRAIN = {
    "hyper_parameters": {
        "optimizer": "Momentum",
        "learning_rate": 0.05000000074505806,
        "epoch": 3,
        "batch_size": 32,
        "device_num": 1,
    },
    "algorithm": {"network": "LeNet5", "loss": 1.202963948249817},
    "train_dataset": {"train_dataset_size": 512},
    "model": {"size": 10},
}
EVAL = {"metric": {"acc": 0.5}, "valid_dataset": {"valid_dataset_size": 64}}


def test_last_record_of_a_file_wins_and_user_defined_merges() -> None:
    second = {**TRAIN, "hyper_parameters": {**TRAIN["hyper_parameters"], "epoch": 9}}
    row = lineage_rows.lineage_row(
        "./j",
        [
            rec("1", "user_defined_info", {"a": 1, "b": "x"}),
            rec("1", "train_lineage", TRAIN),
            rec("1", "train_lineage", second),
            rec("1", "user_defined_info", {"b": "y", "c": 2.5}),
        ],
    )
    assert row is not None
    assert row["epoch"] == 9 and row["learning_rate"] == 0.05 and row["loss"] == 1.202964
    assert row["user_defined"] == {"a": 1, "b": "y", "c": 2.5}
    assert row["dataset_graph"] is None and row["metric"] == {}


def test_a_new_training_resets_and_a_later_evaluation_updates() -> None:
    records = [
        rec("1", "train_lineage", TRAIN),
        rec("1", "user_defined_info", {"old": 1}),
        rec("2", "evaluation_lineage", EVAL),
        rec("2", "user_defined_info", {"e": 1}),
        rec("3", "evaluation_lineage", {"metric": {"acc": 0.7}}),
    ]
    row = lineage_rows.lineage_row("./j", records)
    assert row is not None
    assert row["metric"] == {"acc": 0.7}
    assert row["test_dataset_count"] == 64  # kept: the later evaluation has no valid_dataset
    assert row["user_defined"] == {"old": 1, "e": 1}
    # A dataset graph in a later file starts a new training: the old one is forgotten.
    reset = lineage_rows.lineage_row(
        "./j", [*records, rec("4", "dataset_graph", {"op_type": "Batch", "children": []})]
    )
    assert reset is not None
    assert reset["network"] is None and reset["metric"] == {} and reset["user_defined"] == {}
    assert reset["dataset_graph"] == {"op_type": "Batch", "children": []}


def test_files_with_only_user_defined_info_are_ignored() -> None:
    """MindInsight's LineageObj refuses a file without train/eval/dataset graph."""
    assert lineage_rows.lineage_row("./j", [rec("1", "user_defined_info", {"a": 1})]) is None
    row = lineage_rows.lineage_row(
        "./j", [rec("1", "train_lineage", TRAIN), rec("2", "user_defined_info", {"late": 1})]
    )
    assert row is not None and row["user_defined"] == {}
    assert lineage_rows.lineage_row("./j", []) is None


def test_files_apply_in_timestamp_order_not_name_order() -> None:
    late = {**TRAIN, "algorithm": {"network": "Late"}}
    row = lineage_rows.lineage_row(
        "./j", [rec("20", "train_lineage", late), rec("3", "train_lineage", TRAIN)]
    )
    assert row is not None and row["network"] == "Late"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0010000000474974513, 0.001),
        (0.009999999776482582, 0.01),
        (1.1201494932174683, 1.1201495),
        (float(np.float32(1 / 3)), 0.33333334),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (None, None),
        (3, 3),
    ],
)
def test_float32_json(value: Any, expected: Any) -> None:
    assert float32_json(value) == expected
