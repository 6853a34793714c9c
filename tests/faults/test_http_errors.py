"""Item 12: hostile request bodies answer 4xx, never 500 (Flask test clients over files written
by dash-insight's writer)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

API = "/v1/mindinsight"
LINEAGES = f"{API}/lineagemgr/lineages"
TARGETS = f"{API}/optimizer/targets/search"
CACHES = f"{API}/datavisual/train-job-caches"
UPDATE = "/_dash-update-component"
SAVE_REMARK = "..lineage-status.children...lineage-saved.data.."


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("logs")
    (base / "lin").mkdir()
    with SummaryWriter(str(base / "lin")) as writer:
        writer.add_scalar("loss", 0.5, 1)
        writer.add_tensor("weights", np.arange(6, dtype=np.float32).reshape(2, 3), 1)
        writer.add_tensor("weights", np.arange(6, dtype=np.float32).reshape(2, 3), 2)
        writer.record(1)
        writer.add_train_lineage(
            optimizer="Momentum", learning_rate=0.1, loss=0.5, batch_size=32, epoch=1
        )
        writer.add_eval_lineage(metric={"accuracy": 0.9})
    application = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert application.data_service.loader.wait_rounds(1)
    yield application
    application.data_service.close()


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("depth", [100, 5_000, 200_000])
@pytest.mark.parametrize(
    "method,path",
    [
        ("POST", LINEAGES),
        ("PUT", LINEAGES + "?train_id=./lin"),
        ("POST", TARGETS),
        ("POST", CACHES),
    ],
)
def test_deeply_nested_json_is_a_client_error(app: Any, method: str, path: str, depth: int) -> None:
    for body in (
        _nested(depth),
        b'{"train_ids": ' + _nested(depth) + b"}",
        b'{"remark": ' + _nested(depth) + b"}",
    ):
        answer = app.server.test_client().open(
            path, method=method, data=body, content_type="application/json"
        )
        assert 400 <= answer.status_code < 500, (answer.status_code, answer.get_data()[:200])
        assert answer.is_json and "error_code" in answer.get_json()


def test_a_lone_surrogate_remark_is_refused(app: Any) -> None:
    client = app.server.test_client()
    answer = client.put(
        LINEAGES + "?train_id=./lin", data='{"remark": "\\ud800"}', content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.get_json()["error_code"] == "50542081"
    assert client.post(LINEAGES, data=b"{}").status_code == 200  # still readable


def test_an_oversized_train_job_caches_body_is_refused_fast(app: Any) -> None:
    ids = [f"./job{i}" for i in range(1_000_000)]
    body = json.dumps({"train_ids": ids}).encode()
    assert len(body) > 10_000_000
    # CPU time of this process, not wall time: the machine may be busy with other work.
    started = time.process_time()
    answer = app.server.test_client().post(CACHES, data=body, content_type="application/json")
    assert answer.status_code == 413
    assert answer.get_json()["error_code"] == "50540002"
    # Within the size limit, more ids than MAX_CACHE_IDS are refused before any is resolved.
    body = json.dumps({"train_ids": ["./lin"] * 60_000 + ids[:20_000]}).encode()
    answer = app.server.test_client().post(CACHES, data=body, content_type="application/json")
    assert answer.status_code == 400 and "at most 1,000" in answer.get_json()["error_msg"]
    assert time.process_time() - started < 30


def _remark_body(train_id: str, remark: str) -> dict[str, Any]:
    change = {"colId": "remark", "data": {"train_id": train_id}, "value": remark}
    return {
        "output": SAVE_REMARK,
        "outputs": [
            {"id": "lineage-status", "property": "children"},
            {"id": "lineage-saved", "property": "data"},
        ],
        "inputs": [{"id": "lineage-grid", "property": "cellValueChanged", "value": [change]}],
        "changedPropIds": ["lineage-grid.cellValueChanged"],
        "state": [{"id": "lineage-saved", "property": "data", "value": 0}],
    }


def test_the_remark_callback_saves_only_listed_jobs(app: Any) -> None:
    client = app.server.test_client()
    for i in range(3):
        answer = client.post(UPDATE, json=_remark_body(f"./not-a-job-{i}", "x" * 100))
        assert answer.status_code == 200
        assert "nothing saved" in answer.get_data(as_text=True)
    assert client.post(UPDATE, json=_remark_body("./lin", "good")).status_code == 200
    remarks = app.server.test_client().post(LINEAGES, data=b"{}").get_json()
    assert [(o["summary_dir"], o["added_info"].get("remark")) for o in remarks["object"]] == [
        ("./lin", "good")
    ]
    store = app.data_service  # the file holds only the listed job
    assert store is not None
    assert "not-a-job" not in "".join(
        p.read_text() for p in Path(app.data_service.workspace).rglob("added_info.json")
    )


def _malformed_bodies(seed: int, count: int) -> Iterator[bytes]:
    """Hand-made and randomly damaged variants of a real callback body."""
    yield from (
        b"",
        b"null",
        b"[]",
        b"{}",
        b'"x"',
        b"{",
        b"\xff\xfe",
        _nested(100_000),
        b'{"output": 1}',
        b'{"output": "nope.children"}',
        json.dumps({"output": SAVE_REMARK}).encode(),
        json.dumps({**_remark_body("./lin", "r"), "inputs": "x"}).encode(),
        json.dumps({**_remark_body("./lin", "r"), "inputs": [1]}).encode(),
        json.dumps({**_remark_body("./lin", "r"), "state": [{}]}).encode(),
        json.dumps({**_remark_body("./lin", "r"), "outputs": {"id": "x"}}).encode(),
        json.dumps({**_remark_body("./lin", "r"), "changedPropIds": [3]}).encode(),
    )
    rng = random.Random(seed)
    junk: list[Any] = [None, 0, -1, 1e308, "", "x", [], {}, [[]], {"id": None}, True, "\ud800"]
    for _ in range(count):
        body: Any = _remark_body("./lin", "r")
        for _ in range(rng.randint(1, 3)):
            key = rng.choice(["output", "outputs", "inputs", "state", "changedPropIds"])
            value = body.get(key)
            if isinstance(value, list) and value and rng.random() < 0.6:
                entry = rng.choice(value)
                if isinstance(entry, dict):
                    entry[rng.choice(["id", "property", "value"])] = rng.choice(junk)
                    continue
            body[key] = rng.choice(junk)
        yield json.dumps(body).encode("utf-8", "surrogatepass")


def test_malformed_callback_bodies_are_client_errors(app: Any) -> None:
    client = app.server.test_client()
    statuses = []
    for body in _malformed_bodies(seed=14, count=600):
        answer = client.post(UPDATE, data=body, content_type="application/json")
        assert answer.status_code < 500, (body[:300], answer.get_data()[:300])
        statuses.append(answer.status_code)
    assert statuses.count(400) > 300  # most are refused before Dash dispatches them


def test_a_vanished_file_is_not_named_by_its_path(app: Any, tmp_path: Path) -> None:
    base = tmp_path / "logs"
    (base / "job").mkdir(parents=True)
    with SummaryWriter(str(base / "job")) as writer:
        for step in (1, 2):
            writer.add_tensor("weights", np.ones((2, 2), np.float32), step)
            writer.record(step)
    vanishing = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    try:
        assert vanishing.data_service.loader.wait_rounds(1)
        for path in (base / "job").iterdir():
            path.unlink()
        answer = vanishing.server.test_client().get(
            f"{API}/datavisual/tensors?train_id=./job&tag=weights/tensor&detail=data&step=2"
            "&dims=[:,:]"
        )
        text = answer.get_data(as_text=True)
        assert "No such file" in text, text
        assert str(tmp_path) not in text
    finally:
        vanishing.data_service.close()
