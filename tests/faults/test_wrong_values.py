"""Items 14-16: values that differed from MindInsight 2.3.1's answers, in files written by
dash-insight's own ``SummaryWriter``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

TENSORS = "/v1/mindinsight/datavisual/tensors"
INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _serve(base: Path, workspace: Path) -> Any:
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1)
    return app


@pytest.fixture(scope="module")
def extremes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One job with a tensor per integer dtype holding its minimum, its maximum, 0 and 1."""
    base = tmp_path_factory.mktemp("logs")
    (base / "ints").mkdir()
    with SummaryWriter(str(base / "ints")) as writer:
        for dtype in INTEGER_DTYPES:
            info = np.iinfo(dtype)
            writer.add_tensor(
                np.dtype(dtype).name, np.array([[info.min, info.max], [0, 1]], dtype=dtype), 1
            )
        writer.record(1)
    app = _serve(base, tmp_path_factory.mktemp("ws"))
    yield app.server.test_client()
    app.data_service.close()


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_extremes_are_shown_as_mindinsight_shows_them(extremes: Any, dtype: Any) -> None:
    """MindSpore stores every element as float32; MindInsight shows those floats
    (``np.array(float_data)``): int32's maximum is 2147483648.0, never a wrapped value."""
    info = np.iinfo(dtype)
    name = np.dtype(dtype).name
    shown = [float(np.float32(v)) for v in (info.min, info.max, 0, 1)]
    query = f"{TENSORS}?train_id=./ints&tag={name}/tensor"
    data = extremes.get(query + "&detail=data&step=1&dims=[:,:]").get_json()
    value = data["tensors"][0]["values"][0]["value"]
    assert value["data_type"] == f"DT_{name.upper()}"
    assert [float(v) for row in value["data"] for v in row] == shown
    statistics = value["statistics"]
    assert (statistics["min"], statistics["max"]) == (min(shown), max(shown))
    assert statistics["avg"] == pytest.approx(np.mean(np.array(shown, np.float64)), rel=1e-6)
    histogram = extremes.get(query + "&detail=histogram").get_json()
    buckets = histogram["tensors"][0]["values"][0]["value"]["histogram_buckets"]
    assert buckets[0][0] == min(shown)
    assert buckets[-1][0] + buckets[-1][1] == pytest.approx(max(shown))
    assert sum(bucket[2] for bucket in buckets) == 4


def test_an_empty_slice_is_an_empty_list(tmp_path: Path) -> None:
    """MindInsight answers a ``(3, 0)`` tensor sliced ``[:, :]`` with ``[]``."""
    (tmp_path / "logs" / "job").mkdir(parents=True)
    with SummaryWriter(str(tmp_path / "logs" / "job")) as writer:
        writer.add_tensor("empty", np.zeros((3, 0), np.float32), 1)
        writer.add_tensor("full", np.ones((3, 1), np.float32), 1)
        writer.record(1)
    app = _serve(tmp_path / "logs", tmp_path / "ws")
    try:
        client = app.server.test_client()
        answer = client.get(
            f"{TENSORS}?train_id=./job&tag=empty/tensor&detail=data&step=1&dims=[:,:]"
        ).get_json()
        value = answer["tensors"][0]["values"][0]["value"]
        assert value["dims"] == [3, 0] and value["data"] == []
        full = client.get(
            f"{TENSORS}?train_id=./job&tag=full/tensor&detail=data&step=1&dims=[:,:]"
        ).get_json()
        assert full["tensors"][0]["values"][0]["value"]["data"] == [[1.0], [1.0], [1.0]]
    finally:
        app.data_service.close()


def test_importance_is_mindinsight_pearson_r(tmp_path: Path) -> None:
    """``optimizer/targets/search``: MindInsight's importance is ``np.corrcoef`` (its pandas'
    ``Series.corr``), 0.9999999999999999 for these rows where pandas 3 says 1.0, and the
    hyper-parameters are ordered by it."""
    rates = [0.01, 0.05, 0.001, 0.2]
    for number, rate in enumerate(rates):
        job = tmp_path / "logs" / f"job{number}"
        job.mkdir(parents=True)
        with SummaryWriter(str(job)) as writer:
            writer.add_scalar("loss", 1.0, 1)
            writer.record(1)
            writer.add_train_lineage(
                learning_rate=rate,
                epoch=int(rate * 1000),
                batch_size=int(rate * 1000) * 2,
                loss=1.0,
            )
            writer.add_eval_lineage(metric={"accuracy": rate * 7})
        for path in job.iterdir():  # job0 newest: MindInsight's rows are newest first
            os.utime(path, (1_800_000_000 - 100 * number,) * 2)
    app = _serve(tmp_path / "logs", tmp_path / "ws")
    try:
        answer = (
            app.server.test_client()
            .post("/v1/mindinsight/optimizer/targets/search", data=b"{}")
            .get_json()
        )
    finally:
        app.data_service.close()
    target = next(t for t in answer["targets"] if t["name"] == "[M]accuracy")
    columns = {p["name"]: p["data"] for p in answer["metadata"]["possible_hyper_parameters"]}
    expected = {
        name: abs(float(np.corrcoef(target["data"], columns[name])[0, 1])) for name in columns
    }
    shown = {p["name"]: p["importance"] for p in target["hyper_parameters"]}
    assert answer["metadata"]["train_ids"] == [f"./job{n}" for n in range(4)]
    assert shown == expected
    assert expected["learning_rate"] == 0.9999999999999999
    order = sorted(expected, key=lambda n: (-expected[n], n.startswith("["), n))
    assert [p["name"] for p in target["hyper_parameters"]] == order


def test_dataset_marks_follow_mindinsight_order_within_a_second(tmp_path: Path) -> None:
    """Jobs finishing within the same second are ordered by path (MindInsight sorts by
    whole-second update time, then path), so ``dataset_mark`` numbers them in path order;
    different seconds still put the newest first."""
    second = 1_800_000_000
    # (job, fraction of the shared second or another second, its dataset's batch size)
    jobs = [
        ("a", second + 0.1, 8),
        ("b", second + 0.5, 16),
        ("c", second + 0.9, 32),
        ("d", second - 5.0, 64),
    ]
    for name, mtime, batch in jobs:
        job = tmp_path / "logs" / name
        job.mkdir(parents=True)
        with SummaryWriter(str(job)) as writer:
            writer.add_scalar("loss", 1.0, 1)
            writer.record(1)
            writer.add_train_lineage(learning_rate=0.1, loss=1.0)
            writer.add_dataset_graph(
                {"op_type": "BatchDataset", "batch_size": batch, "children": []}
            )
        for path in job.iterdir():
            os.utime(path, (mtime, mtime))
    app = _serve(tmp_path / "logs", tmp_path / "ws")
    try:
        answer = (
            app.server.test_client()
            .post("/v1/mindinsight/lineagemgr/lineages", data=b"{}")
            .get_json()
        )
    finally:
        app.data_service.close()
    shown = [(o["summary_dir"], o["model_lineage"]["dataset_mark"]) for o in answer["object"]]
    assert shown == [("./a", "2"), ("./b", "3"), ("./c", "4"), ("./d", "5")]
