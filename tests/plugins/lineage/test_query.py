"""The lineage service's rows of the corpus, the search grammar of ``POST /lineagemgr/lineages``,
the optimizer statistics, data-lineage stages and the remarks store (the row rules themselves:
tests/core/test_lineage_rows.py)."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.lineage import query as L
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.plugins.lineage.service_remarks import RemarkError, RemarkStore, remarks_path

# -- rows from the corpus --------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_service(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    service = DataService(
        Settings(corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0)
    )
    service.loader.load_round()
    yield service
    service.close()


@pytest.fixture(scope="module")
def corpus_rows(corpus_service: DataService) -> dict[str, dict[str, Any]]:
    return {e.train_id: dict(e.row) for e in LineageService.from_data(corpus_service).lineages()}


def test_corpus_jobs_with_lineage(corpus_rows: dict[str, dict[str, Any]]) -> None:
    assert set(corpus_rows) == {
        "./lenet_sc",
        "./lenet_lr0.01_bs32",
        "./lenet_lr0.05_bs64",
        "./lenet_lr0.1_bs16",
        "./lenet_adam_lr0.001_bs32",
        "./ops_in_net",
    }


def test_eval_lineage_without_metric(corpus_rows: dict[str, dict[str, Any]]) -> None:
    """lenet_adam_lr0.001_bs32: the stock Loss metric could not be JSON-encoded, so its
    evaluation lineage has no metric; the test set size still comes from it."""
    row = corpus_rows["./lenet_adam_lr0.001_bs32"]
    assert row["metric"] == {}
    assert row["test_dataset_count"] == 128
    assert row["learning_rate"] == 0.001  # float32 0.0010000000474974513, printed shortest
    assert row["optimizer"] == "Adam"
    assert row["loss"] == 0.47606102


def test_scheduled_learning_rates_have_no_value(corpus_rows: dict[str, dict[str, Any]]) -> None:
    """SummaryCollector records no learning rate for a schedule (cosine, piecewise)."""
    assert corpus_rows["./lenet_lr0.05_bs64"]["learning_rate"] is None
    assert corpus_rows["./lenet_lr0.1_bs16"]["learning_rate"] is None
    assert corpus_rows["./lenet_lr0.01_bs32"]["learning_rate"] == 0.01


def test_custom_lineage_data_of_several_types(corpus_rows: dict[str, dict[str, Any]]) -> None:
    sc = corpus_rows["./lenet_sc"]
    assert sc["user_defined"] == {
        "experiment": "lenet_sc",
        "dropout": 0.0,
        "seed": 1,
        "notes": "baseline, collect_freq=1",
    }
    assert isinstance(sc["user_defined"]["seed"], int)
    assert isinstance(sc["user_defined"]["dropout"], float)
    assert sc["model_size"] == 494183
    assert sc["metric"] == {"Accuracy": 0.6953125, "Loss": 1.2452679872512817}
    assert corpus_rows["./lenet_lr0.05_bs64"]["train_dataset_path"] == "/data/mnist"
    assert corpus_rows["./ops_in_net"]["test_dataset_count"] is None


def test_custom_data_written_by_the_writer(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path / "job") as writer:
        writer.add_custom_lineage({"flag": True, "n": 3, "x": 0.25, "s": "a,b"})
        writer.add_train_lineage(network="Net", epoch=1, learning_rate=0.1, model_size=7)
        writer.flush()
    service = DataService(Settings(tmp_path, workspace=tmp_path / "ws", reload_interval=0))
    try:
        service.loader.load_round()
        (entry,) = LineageService.from_data(service).lineages()
        assert entry.row["user_defined"] == {"flag": "True", "n": 3, "x": 0.25, "s": "a,b"}
        assert entry.row["learning_rate"] == 0.1 and entry.row["model_size"] == 7
    finally:
        service.close()


def test_rows_follow_the_files_live(tmp_path: Path) -> None:
    """A job's row is rebuilt when its files change (job version), others are reused."""
    logs = tmp_path / "logs"
    with SummaryWriter(logs / "a") as writer:
        writer.add_train_lineage(network="A", epoch=1)
        writer.flush()
    service = DataService(Settings(logs, workspace=tmp_path / "ws", reload_interval=0))
    try:
        service.loader.load_round()
        lineages = LineageService.from_data(service).lineages
        first = lineages()
        assert [e.row["network"] for e in first] == ["A"]
        assert lineages()[0].row is first[0].row  # cached
        with SummaryWriter(logs / "a") as writer:  # a later file of the same job
            writer.add_eval_lineage({"acc": 0.9}, valid_dataset_size=10)
            writer.flush()
        with SummaryWriter(logs / "b") as writer:
            writer.add_train_lineage(network="B", epoch=2)
            writer.flush()
        service.loader.load_round()
        rows = {e.train_id: e.row for e in lineages()}
        assert rows["./a"]["metric"] == {"acc": 0.9} and rows["./b"]["network"] == "B"
    finally:
        service.close()


# -- dataset marks ---------------------------------------------------------------------------


def test_dataset_marks_share_equal_graphs_and_collide_after_nine() -> None:
    graphs = [{"op_type": f"G{i}", "children": []} for i in range(11)]
    assert L.dataset_marks([graphs[0], graphs[1], graphs[0], None, {}]) == ["2", "3", "2", "4", "4"]
    marks = L.dataset_marks([*graphs, graphs[9]])
    assert marks[:8] == [str(i) for i in range(2, 10)]
    # String max: after "9" every new graph gets "10", each replacing the previous one.
    assert marks[8:] == ["10", "10", "10", "10"]


# -- search grammar --------------------------------------------------------------------------


def entry(train_id: str, update_time: float, **fields: Any) -> L.LineageEntry:
    row = {
        "summary_dir": train_id,
        **{f: None for f in L.FIELDS[1:-1]},
        "metric": {},
        "user_defined": {},
        "dataset_graph": None,
    }
    row.update(fields)
    return L.LineageEntry(train_id, update_time, row)


ENTRIES = [
    entry(
        "./a",
        3,
        network="LeNet5",
        learning_rate=0.01,
        epoch=2,
        metric={"acc": 0.5},
        user_defined={"v": 1},
        dataset_graph={"op_type": "A"},
    ),
    entry(
        "./b",
        2,
        network="ResNet",
        learning_rate=None,
        epoch=3,
        metric={"acc": 0.9},
        user_defined={"v": "x"},
        dataset_graph={"op_type": "B"},
    ),
    entry(
        "./c",
        1,
        network="LeNet5",
        learning_rate=0.1,
        epoch=1,
        metric={},
        user_defined={"v": 2.5},
        dataset_graph={"op_type": "A"},
    ),
]


def ids(result: dict[str, Any]) -> list[str]:
    return [o["summary_dir"] for o in result["object"]]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({}, ["./a", "./b", "./c"]),
        ({"network": {"eq": "LeNet5"}}, ["./a", "./c"]),
        ({"network": {"in": ["ResNet"]}}, ["./b"]),
        ({"network": {"not_in": ["ResNet"]}}, ["./a", "./c"]),
        ({"learning_rate": {"ge": 0.01, "lt": 0.1}}, ["./a"]),
        ({"learning_rate": {"le": 1}}, ["./a", "./c"]),  # None never satisfies an ordering
        ({"epoch": {"gt": 1}}, ["./a", "./b"]),
        ({"metric/acc": {"gt": 0.6}}, ["./b"]),
        ({"user_defined/v": {"eq": "x"}}, ["./b"]),
        ({"user_defined/v": {"gt": 1}}, ["./c"]),  # "x" > 1 raises TypeError: no match
        ({"summary_dir": {"in": ["./c", "./a"]}}, ["./a", "./c"]),
        ({"dataset_mark": {"eq": "2"}}, ["./a", "./c"]),
        ({"sorted_name": "metric/acc", "sorted_type": "descending"}, ["./b", "./a", "./c"]),
        ({"sorted_name": "metric/acc"}, ["./c", "./a", "./b"]),  # None lowest
        ({"sorted_name": "user_defined/v"}, ["./a", "./c", "./b"]),  # numbers < "x" by type name
        ({"sorted_name": "learning_rate", "sorted_type": None}, ["./b", "./a", "./c"]),
        ({"limit": 2}, ["./a", "./b"]),
        ({"limit": 2, "offset": 1}, ["./c"]),
        ({"offset": 0}, ["./a", "./b", "./c"]),  # limit defaults to 10 once paging is asked
    ],
)
def test_search_filters_sorts_and_pages(condition: dict[str, Any], expected: list[str]) -> None:
    result = L.search_lineages(ENTRIES, condition)
    assert ids(result) == expected


def test_search_count_customized_and_lineage_types() -> None:
    result = L.search_lineages(
        ENTRIES, {"limit": 1, "offset": 0}, {"./a": {"tag": 2, "remark": "r"}}
    )
    assert result["count"] == 3
    assert result["object"][0]["added_info"] == {"tag": 2, "remark": "r"}
    assert list(result["object"][0]) == [
        "summary_dir",
        "model_lineage",
        "dataset_graph",
        "added_info",
    ]
    assert result["customized"] == {
        "metric/acc": {"label": "metric/acc", "required": True, "type": "float"},
        "user_defined/v": {"label": "user_defined/v", "required": False, "type": "int"},
    }
    mixed = L.search_lineages(ENTRIES, {})["customized"]["user_defined/v"]["type"]
    assert mixed == "mixed"
    model = L.search_lineages(ENTRIES, {"lineage_type": {"in": ["model"]}})["object"][0]
    assert list(model) == ["summary_dir", "model_lineage", "added_info"]
    assert list(model["model_lineage"])[-3:] == ["dataset_mark", "metric", "user_defined"]
    dataset = L.search_lineages(ENTRIES, {"lineage_type": {"eq": "dataset"}})["object"][1]
    assert dataset == {"summary_dir": "./b", "dataset_graph": {"op_type": "B"}, "added_info": {}}


def test_search_sorts_by_tag() -> None:
    added = {"./c": {"tag": 5}, "./b": {"tag": 1}}
    result = L.search_lineages(ENTRIES, {"sorted_name": "tag", "sorted_type": "descending"}, added)
    assert ids(result) == ["./c", "./b", "./a"]


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ([], "TypeError. Invalid search_condition type, it should be dict."),
        ({"limit": "1"}, "TypeError. The limit must be int."),
        ({"offset": True}, "TypeError. The offset must be int."),
        ({"limit": 0}, "Invalid input limit. 0 < limit <= 100"),
        ({"limit": 101}, "Invalid input limit. 0 < limit <= 100"),
        ({"offset": 100001}, "Invalid input offset. 0 <= offset <= 100000"),
        ({"sorted_name": "nope"}, "ValueError. The sorted_name must be in ['summary_dir', "),
        ({"sorted_name": "metric/"}, "ValueError. The sorted_name must be in"),
        (
            {"sorted_type": "ascending"},
            "ValueError. The sorted_name must exist when sorted_type exists.",
        ),
        (
            {"sorted_name": "epoch", "sorted_type": "up"},
            "ValueError. The sorted_type must be ascending or descending.",
        ),
        ({"foo": {"eq": 1}}, "ValueError. The search attribute not supported."),
        ({"network": "LeNet5"}, "TypeError. The search_condition element network should be dict."),
        ({"epoch": {"between": 1}}, "ValueError. The compare condition should be in"),
        ({"metric/": {"eq": 1}}, "ValueError. The search attribute not supported."),
        (
            {"metric/acc": {"eq": "high"}},
            "The parameter metric/acc is invalid. It should be a dict and the value should be a "
            "float",
        ),
        ({"metric/acc": {"not_in": [1]}}, "The parameter metric/acc is invalid."),
        (
            {"network": {"gt": "A"}},
            "The parameter network is invalid. Its operation should be `eq`, `in` or `not_in`.",
        ),
        (
            {"network": {"in": "LeNet5"}},
            "The parameter network is invalid. The value of `in` operation must be list or tuple.",
        ),
        (
            {"network": {"eq": 5}},
            "The parameter network is invalid. It should be a dict and the "
            "value should be a string.",
        ),
        ({"epoch": {"eq": -1}}, "The parameter epoch is invalid. It should be a positive integer."),
        ({"batch_size": {"eq": True}}, "The parameter batch_size is invalid."),
        ({"model_size": {"lt": 2**63}}, "The parameter model_size is invalid."),
        ({"learning_rate": {"eq": "0.1"}}, "The parameter learning_rate is invalid."),
        ({"loss": {"in": 1}}, "The parameter loss is invalid. The value of `in` operation"),
        ({"lineage_type": "model"}, "The parameter lineage_type is invalid."),
        ({"lineage_type": {"in": ["model", "graph"]}}, "The parameter lineage_type is invalid."),
        ({"dataset_mark": {"eq": 2}}, "The parameter dataset_mark is invalid."),
    ],
)
def test_invalid_conditions(condition: Any, message: str) -> None:
    with pytest.raises(L.LineageConditionError) as error:
        L.search_lineages(ENTRIES, condition)
    assert str(error.value).startswith(message)


def test_valid_edge_conditions() -> None:
    for condition in (
        {"limit": 100, "offset": 100000},
        {"sorted_name": "tag"},
        {"user_defined/": {"eq": 1}},
        {"epoch": {"in": [1, "x"]}},
        {"train_dataset_count": {"eq": 2**63 - 1}},
        {"lineage_type": {"not_in": ["model"]}},
    ):
        L.validate_condition(condition)
    # lineage_type without "in"/"eq": MindInsight answers with added_info only.
    result = L.search_lineages(ENTRIES, {"lineage_type": {"not_in": ["model"]}})
    assert result["object"][0] == {"added_info": {}}


# -- optimizer -------------------------------------------------------------------------------


def test_importance_and_reasons() -> None:
    frame = pd.DataFrame(
        {
            "p": [1.0, 2.0, 3.0, 4.0],
            "t": [2.0, 4.0, 6.0, 9.0],
            "c": [1.0, 1.0, 1.0, 1.0],
            "few": [1.0, None, None, 2.0],
        }
    )
    value, reason = L.importance(frame, "p", "t")
    assert reason is None and value == pytest.approx(
        abs(np.corrcoef([1, 2, 3, 4], [2, 4, 6, 9])[0, 1])
    )
    assert L.importance(frame, "few", "t") == (0, L.REASON_SAMPLES_NOT_ENOUGH)
    assert L.importance(frame, "c", "t") == (0, L.REASON_CORRELATION_NAN)
    assert L.spearman_importance(frame, "p", "t") == pytest.approx(1.0)
    assert L.spearman_importance(frame, "c", "t") is None


def test_histogram_buckets() -> None:
    constant = L.histogram_buckets(pd.Series([1.0, 1.0]))  # widened by 0.5 each side
    assert [b[0] for b in constant] == pytest.approx([0.5, 0.7, 0.9, 1.1, 1.3])
    assert [b[1] for b in constant] == pytest.approx([0.2] * 5)
    assert [b[2] for b in constant] == [0.0, 0.0, 2.0, 0.0, 0.0]
    buckets = L.histogram_buckets(pd.Series([0.0, np.nan, 10.0, 5.0]))
    assert [b[2] for b in buckets] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert L.histogram_buckets(pd.Series([np.nan]))[0][0] == -0.5


def test_optimizer_table_drops_non_numeric_columns() -> None:
    objects = L.search_lineages(ENTRIES, {})["object"]
    result = L.optimizer_targets(objects)
    assert result["metadata"]["train_ids"] == ["./a", "./b", "./c"]
    assert result["metadata"]["unrecognized_params"] == [
        {"name": "[U]v", "unselected": True, "reason_code": 1}
    ]
    names = [p["name"] for p in result["metadata"]["possible_hyper_parameters"]]
    assert names == ["learning_rate", "epoch"]
    (target,) = result["targets"]
    assert target["name"] == "[M]acc" and target["data"] == [0.5, 0.9, None]


def test_user_defined_limit_keeps_101_keys() -> None:
    many = [entry("./m", 1, user_defined={f"k{i:03}": i for i in range(150)})]
    table = L.flattened_lineage(L.search_lineages(many, {})["object"])
    assert sum(1 for k in table if k.startswith("[U]")) == 101


# -- data lineage stages ---------------------------------------------------------------------


def test_pipeline_stages_and_alignment(corpus_rows: dict[str, dict[str, Any]]) -> None:
    stages = L.pipeline_stages(corpus_rows["./lenet_sc"]["dataset_graph"])
    assert [s.name for s in stages] == [
        "GeneratorDataset",
        "Map[TypeCast]",
        "Map[Resize, Rescale, Normalize, HwcToChw]",
        "Shuffle",
        "Batch",
    ]
    assert "children" not in stages[-1].params and stages[-1].params["batch_size"] == 32
    mnist = L.pipeline_stages(corpus_rows["./lenet_lr0.05_bs64"]["dataset_graph"])
    columns, assigned = L.align_stages([stages, mnist])
    assert columns == ["MnistDataset", "GeneratorDataset", "Map 1", "Map 2", "Shuffle 1", "Batch 1"]
    assert assigned[1][0] == "MnistDataset" and assigned[0][0] == "GeneratorDataset"
    assert L.pipeline_stages(None) == []
    assert json.loads(L.stage_text(stages[-1].params))["op_type"] == "Batch"


# -- remarks store ---------------------------------------------------------------------------


def test_remarks_store_merges_validates_and_persists(tmp_path: Path) -> None:
    path = str(tmp_path / "lineage" / "x" / "added_info.json")
    store = RemarkStore(path)
    assert store.all() == {}
    assert store.update("./a", {"tag": 3}) == {"tag": 3}
    assert store.update("./a", {"remark": "best"}) == {"tag": 3, "remark": "best"}
    assert RemarkStore(path).get("./a") == {"tag": 3, "remark": "best"}  # a new process
    for bad, message in (
        ({"tag": 11}, "The tag should in [0, 10]."),
        ({"tag": True}, "'tag' must be int."),
        ({"remark": "x" * 129}, "The length of remark should in [0, 128]."),
        ({"remark": 5}, "'remark' must be str."),
        ({"star": 1}, "Keys of added_info must be in ['tag', 'remark']."),
    ):
        with pytest.raises(RemarkError, match=message.replace("[", r"\[").replace("]", r"\]")):
            store.update("./a", bad)
    store.update("./a", {"remark": "x" * 128, "tag": 0})
    assert store.get("./a") == {"tag": 0, "remark": "x" * 128}
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.endswith(".tmp")]


def test_remarks_store_damaged_file_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "added_info.json"
    path.write_text("{not json")
    store = RemarkStore(str(path))
    assert store.all() == {}
    store.update("./a", {"tag": 1})
    assert json.loads(path.read_text())["jobs"] == {"./a": {"tag": 1}}


def test_remarks_store_concurrent_threads(tmp_path: Path) -> None:
    path = str(tmp_path / "added_info.json")

    def work(n: int) -> None:
        store = RemarkStore(path)  # separate objects: only the file lock serialises them
        for i in range(10):
            store.update(f"./job{n}", {"tag": i % 11, "remark": f"r{i}"})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert RemarkStore(path).all() == {f"./job{n}": {"tag": 9, "remark": "r9"} for n in range(6)}


def _process_writer(path: str, n: int) -> None:
    store = RemarkStore(path)
    for i in range(5):
        store.update(f"./p{n}", {"tag": i})


def test_remarks_store_concurrent_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "added_info.json")
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_process_writer, args=(path, n)) for n in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert RemarkStore(path).all() == {f"./p{n}": {"tag": 4} for n in range(3)}


def test_remarks_store_lives_in_the_workspace(corpus_service: DataService) -> None:
    path = LineageService.from_data(corpus_service).remarks.path
    assert path.startswith(os.path.join(corpus_service.workspace, "lineage") + os.sep)
    assert path == remarks_path(corpus_service.workspace, corpus_service.summary_base_dir)


def test_damaged_remarks_file_is_kept_aside(tmp_path: Path) -> None:
    from dash_insight.plugins.lineage.service_remarks import RemarkStore

    path = tmp_path / "added_info.json"
    path.write_text("{not json")
    store = RemarkStore(str(path))
    assert store.all() == {}
    store.update("./a", {"remark": "new"})
    assert store.get("./a") == {"remark": "new"}
    assert (tmp_path / "added_info.json.damaged").read_text() == "{not json"
