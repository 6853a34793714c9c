"""The landscape endpoints against MindInsight 2.3.1's answers for ``lenet_step``
(``../shared/oracle/landscape/``): our server is dumped with MindInsight's own dump script
(``../shared/tools/mi_landscape_dump.py``) and every answer must equal the oracle's, interval ids
aside (MindInsight's changed at every start; ours are deterministic): answers are matched by
interval value, and the ``interval_id`` request parameters by the interval they name."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.landscape.query import interval_id
from tests.conftest import CORPUS, TOOLS

LANDSCAPE_CORPUS = CORPUS.parent / "corpus-landscape"
ORACLE = CORPUS.parent / "oracle" / "landscape"
API = "/v1/mindinsight/datavisual/landscape"
#: Fields that differ between any two servers (times of the machine that loaded the files).
VOLATILE = {"create_time", "update_time"}


def _same(a: Any, b: Any, path: str, out: list[str]) -> None:
    """Equal JSON, floats to 1e-9 relative, key order and JSON types included."""
    if isinstance(a, float) or isinstance(b, float):
        if not (type(a) is type(b) and (a == b or math.isclose(a, b, rel_tol=1e-9))):
            out.append(f"{path}: {a!r} != {b!r}")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        keys_a = [k for k in a if k not in VOLATILE]
        keys_b = [k for k in b if k not in VOLATILE]
        if keys_a != keys_b:
            out.append(f"{path}: keys {keys_a} != {keys_b}")
            return
        for key in keys_a:
            _same(a[key], b[key], f"{path}.{key}", out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} != {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]", out)
        return
    if a != b or type(a) is not type(b):
        out.append(f"{path}: {str(a)[:80]!r} != {str(b)[:80]!r}")


def _ids_to_values(answers: dict[str, Any]) -> dict[str, list[int]]:
    record = answers.get("intervals", {})
    return {i["id"]: i["value"] for i in record.get("json", {}).get("intervals", [])}


def _normalise(record: dict[str, Any], ids: dict[str, list[int]]) -> dict[str, Any]:
    """A dump record with every interval id replaced by the interval it names."""
    record = json.loads(json.dumps(record))
    params = record.get("params", {})
    if "interval_id" in params:
        params["interval_id"] = ids.get(params["interval_id"], params["interval_id"])
    for item in record.get("json", {}).get("intervals", []) if "json" in record else []:
        assert ids.get(item["id"]) == item["value"]
        item["id"] = item["value"]
    return record


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(oracle dir, our dump dir): our server over a copy of the corpus named as MindInsight's
    base was, dumped by the same script."""
    if not (LANDSCAPE_CORPUS.is_dir() and ORACLE.is_dir()):
        pytest.skip("landscape corpus or oracle not found")
    from werkzeug.serving import make_server

    base = tmp_path_factory.mktemp("mi") / "land_base"
    shutil.copytree(LANDSCAPE_CORPUS, base)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    server = make_server("127.0.0.1", 0, app.server, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    out = tmp_path_factory.mktemp("ours")
    try:
        subprocess.run(
            [
                sys.executable,
                str(TOOLS / "mi_landscape_dump.py"),
                "--url",
                f"http://127.0.0.1:{server.server_port}",
                "--out",
                str(out),
                "--scrub",
                str(base),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    finally:
        server.shutdown()
        thread.join(10)
        app.data_service.close()
    return ORACLE, out


def _answers(directory: Path, name: str) -> dict[str, Any]:
    return json.loads((directory / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["lenet_step.json", "_multi.json", "_train_jobs.json"])
def test_answers_equal_mindinsights(dumps: tuple[Path, Path], name: str) -> None:
    oracle_dir, ours_dir = dumps
    theirs, ours = _answers(oracle_dir, name), _answers(ours_dir, name)
    if name == "_train_jobs.json":
        _check(theirs, ours, "train-jobs", {}, {})
        return
    job_theirs = _answers(oracle_dir, "lenet_step.json")["answers"]
    job_ours = _answers(ours_dir, "lenet_step.json")["answers"]
    ids_theirs, ids_ours = _ids_to_values(job_theirs), _ids_to_values(job_ours)
    assert sorted(theirs["answers"]) == sorted(ours["answers"])
    for key in theirs["answers"]:
        _check(theirs["answers"][key], ours["answers"][key], key, ids_theirs, ids_ours)


def _check(
    theirs: dict[str, Any],
    ours: dict[str, Any],
    key: str,
    ids_theirs: dict[str, list[int]],
    ids_ours: dict[str, list[int]],
) -> None:
    theirs, ours = _normalise(theirs, ids_theirs), _normalise(ours, ids_ours)
    out: list[str] = []
    _same(theirs, ours, key, out)
    assert not out, "\n".join(out[:10])


def test_interval_ids_are_deterministic(dumps: tuple[Path, Path]) -> None:
    """Our ids are the documented hash of the interval entries, the same in every process."""
    _, ours_dir = dumps
    answers = _answers(ours_dir, "lenet_step.json")["answers"]
    listed = answers["intervals"]["json"]["intervals"]
    assert [i["id"] for i in listed] == [
        interval_id(range(2, 17, 2)),
        interval_id(range(18, 33, 2)),
    ]
    code = (
        "from dash_insight.plugins.landscape.query import interval_id; "
        "print(interval_id([2, 4, 6, 8, 10, 12, 14, 16]))"
    )
    for seed in ("1", "2"):
        printed = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(Path(__file__).parents[3])},
        )
        assert printed.stdout.strip() == listed[0]["id"]


@pytest.fixture(scope="module")
def epoch_client(tmp_path_factory: pytest.TempPathFactory):
    """A job written with our SummaryWriter: unit epoch, overlapping intervals [1, 2, 3] and
    [3, 4, 5], no final landscape, no lineage; and a job without landscapes."""
    base = tmp_path_factory.mktemp("epoch")
    write_epoch_job(base / "lenet_epoch")
    with SummaryWriter(base / "plain") as writer:
        writer.add_scalar("loss", 1.0, step=1)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app.server.test_client()
    app.data_service.close()


def write_epoch_job(directory: Path, size: int = 10) -> None:
    """MindSpore's "another job" of the spec: unit epoch, 4 steps per epoch, 10 x 10 grids."""
    x = np.linspace(-0.5, 0.5, size, dtype=np.float32)
    y = np.linspace(-0.2, 0.3, size, dtype=np.float32)
    with SummaryWriter(directory) as writer:
        for step in range(1, 21):
            writer.add_scalar("loss/auto", 2.3 - step * 0.01, step=step)
        for first in (1, 3):
            z = (2.0 + first + np.add.outer(y**2, x**2)).astype(np.float64)
            path = (
                np.array([-0.4, -0.2, 0.0], np.float32),
                np.array([0.1, 0.05, 0.0], np.float32),
                np.array([2.2, 2.1, 2.0], np.float64) + first,
            )
            writer.add_landscape(
                f"landscape_[{first}, {first + 2}]",
                x,
                y,
                z,
                intervals=[first, first + 1, first + 2],
                path=path,
                convergence_point=(np.array([0], np.int64), np.array([0], np.int64), z[0, 0]),
                unit="epoch",
                step_per_epoch=4,
            )


def test_epoch_job_with_overlapping_intervals(epoch_client) -> None:
    listed = epoch_client.get(f"{API}/intervals?train_id=./lenet_epoch").json["intervals"]
    assert [i["value"] for i in listed] == [[1, 3], [3, 5]]
    second = epoch_client.get(
        f"{API}/landscapes",
        query_string={
            "train_id": "./lenet_epoch",
            "type": "interval",
            "interval_id": listed[1]["id"],
        },
    ).json
    [entry] = second["landscapes"]
    assert entry["path"]["intervals"] == [3, 4, 5]
    assert entry["metadata"] == {
        "decomposition": "PCA",
        "unit": "epoch",
        "step_per_epoch": 4,
        "network": None,
        "learning_rate": None,
        "optimizer": None,
        "metric": {},
    }
    assert entry["convergence_point"][:2] == [0.0, 0.0]
    assert len(entry["points"]["z"]) == 10 and len(entry["points"]["z"][0]) == 10
    final = epoch_client.get(f"{API}/landscapes?train_id=./lenet_epoch&type=final").json
    assert final == {"landscapes": [{"error_code": "50545017", "train_id": "./lenet_epoch"}]}


def test_job_without_landscapes_and_errors(epoch_client) -> None:
    assert epoch_client.get(f"{API}/intervals?train_id=./plain").json == {"intervals": []}
    for kind in ("interval", "final"):
        answer = epoch_client.get(f"{API}/landscapes?train_id=./plain&type={kind}").json
        assert answer == {"landscapes": [{"error_code": "50545017", "train_id": "./plain"}]}
    both = epoch_client.get(f"{API}/landscapes?train_id=./plain&train_id=lenet_epoch").json
    assert [e["error_code"] for e in both["landscapes"]] == ["50545017", "50540002"]
    bad = epoch_client.get(f"{API}/intervals", query_string={"train_id": "./a\x00b"})
    assert bad.status_code == 400 and bad.json["error_code"] == "50545011"
    escape = epoch_client.get(f"{API}/landscapes?train_id=./../x")
    assert escape.status_code == 400 and escape.json["error_code"] == "50545005"
