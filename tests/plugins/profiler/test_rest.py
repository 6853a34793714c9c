"""``/profile/devices`` and ``/profile/ops/search`` against MindInsight 2.3.1's own answers
(``../shared/oracle/profiler/``, dumped with ``../shared/tools/mi_profiler_dump.py``), for both
jobs of ``../shared/corpus-profiler``: status and JSON equal, errors included (their absolute
paths scrubbed to ``/data/summaries`` as the dump script does). The same requests against
MindSpore's own ``*_ascend_ms`` layout (which MindInsight cannot read) give the same tables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dash_insight.core.format.profiler_writer import synthetic_ops, write_cpu_profile
from dash_insight.core.service import DataService
from dash_insight.default import register_rest_api
from tests.conftest import PROFILER_ORACLE, TOOLS, loaded_service

JOBS = ("lenet_prof", "lenet_summary_prof")
SEARCH = "/v1/mindinsight/profile/ops/search"
DEVICES = "/v1/mindinsight/profile/devices"
SCRUBBED = "/data/summaries"


def _oracle(job: str) -> dict[str, Any]:
    path = PROFILER_ORACLE / f"{job}.json"
    return json.loads(path.read_text()) if path.is_file() else {"answers": {}}


def _requests(job: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (name, answer)
        for name, answer in _oracle(job)["answers"].items()
        if answer.get("path", "").endswith(("/profile/devices", "/profile/ops/search"))
    ]


@pytest.fixture(scope="module")
def service(profiler_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> DataService:
    service = loaded_service(profiler_corpus, tmp_path_factory.mktemp("ws"))
    yield service
    service.close()


@pytest.fixture(scope="module")
def client(service: DataService) -> FlaskClient:
    app = Flask(__name__)
    register_rest_api(app, service)
    return app.test_client()


def ask(client: FlaskClient, answer: dict[str, Any], base: str, **params: str) -> tuple[int, Any]:
    """Replay a dumped request; (status, JSON with the base directory scrubbed)."""
    options: dict[str, Any] = {
        "method": answer["method"],
        "query_string": {**answer["params"], **params},
    }
    if "raw_body" in answer:
        options["data"] = answer["raw_body"]
    elif "body" in answer:
        options["data"] = json.dumps(answer["body"])
    response = client.open(answer["path"], **options)
    return response.status_code, json.loads(
        response.get_data(as_text=True)
        .replace(os.path.realpath(base), SCRUBBED)
        .replace(base, SCRUBBED)
    )


@pytest.mark.parametrize("job", JOBS)
def test_every_answer_equals_mindinsight(
    client: FlaskClient, profiler_corpus: Path, job: str
) -> None:
    requests = _requests(job)
    if not requests:
        pytest.skip("profiler oracle not found")
    assert len(requests) == 131  # everything the dump asked of these two endpoints
    names = {name for name, _ in requests}
    assert {"devices", "detail.drilldown_op_type.Conv2D", "error.path_traversal"} <= names
    for name, answer in requests:
        status, body = ask(client, answer, str(profiler_corpus))
        # type and key order, ints vs floats, the error messages: all equal.
        assert (status, json.dumps(body)) == (answer["status"], json.dumps(answer["json"])), name


@pytest.mark.parametrize("job", JOBS)
def test_drill_down_by_type(client: FlaskClient, profiler_corpus: Path, job: str) -> None:
    """MindInsight's UI filtered the drill-down on ``kernel_type`` (not a CPU column: every
    operator); filtering ``op_type`` lists the clicked type's operators only."""
    answers = dict(_requests(job))
    if not answers:
        pytest.skip("profiler oracle not found")
    for name, answer in answers.items():
        if not name.startswith("detail.drilldown_op_type."):
            continue
        op_type = name.rsplit(".", 1)[1]
        _, body = ask(client, answer, str(profiler_corpus))
        assert body["object"] and {row[1] for row in body["object"]} == {op_type}
        buggy = answers[f"detail.drilldown_ui.{op_type}"]["json"]
        assert buggy["size"] == 43  # the whole job, whatever was clicked


@pytest.mark.parametrize("job", JOBS)
def test_mindspore_layout_answers_the_same_tables(
    client: FlaskClient, profiler_corpus: Path, job: str
) -> None:
    native = next((profiler_corpus / job).glob("*_ascend_ms")).name
    checked = 0
    for name, answer in _requests(job):
        if name.startswith("error.") or name == "devices":
            continue
        status, body = ask(client, answer, str(profiler_corpus), profile=native)
        assert (status, body) == (answer["status"], answer["json"]), name
        checked += 1
    assert checked > 80
    status, body = ask(
        client,
        {"method": "GET", "path": DEVICES, "params": {"train_id": f"./{job}"}},
        str(profiler_corpus),
        profile=f"./{native}",
    )
    assert (status, body) == (200, {"device_list": ["0"], "profiler_mode": "graph"})


def test_paths_stay_inside_the_base_directory(tmp_path: Path) -> None:
    base = tmp_path / "base"
    write_cpu_profile(str(base / "job"), synthetic_ops(4), 2)
    outside = tmp_path / "outside"
    write_cpu_profile(str(outside), synthetic_ops(4), 2)
    (base / "job" / "profiler_link").symlink_to(outside / "profiler", target_is_directory=True)
    (base / "linked_job").symlink_to(outside, target_is_directory=True)
    service = loaded_service(base, tmp_path / "ws")
    app = Flask(__name__)
    register_rest_api(app, service)
    client = app.test_client()
    body = json.dumps({"op_type": "cpu_op_type"})

    def search(train_id: str, profile: str) -> tuple[int, Any]:
        response = client.post(
            SEARCH, query_string={"train_id": train_id, "profile": profile}, data=body
        )
        return response.status_code, response.get_json()

    status, answer = search("./job", "./profiler")
    assert status == 200 and answer["size"] == 4
    assert search("job", "profiler")[1] == answer  # MindInsight accepts ids without "./"
    invalid = (
        400,
        {"error_code": "50540002", "error_msg": "Invalid parameter value. Invalid profiler dir"},
    )
    for train_id, profile in [
        ("./job", "profiler_link"),
        ("./linked_job", "profiler"),
        ("./job", str(outside / "profiler")),
        ("./job", "../../x"),
        ("./job/..", "job/profiler"),
        ("./job", "pro\x00filer"),
    ]:
        assert search(train_id, profile) == invalid, (train_id, profile)
    status, answer = search("./nope", "profiler")
    assert (status, answer["error_code"]) == (400, "50545005")
    assert answer["error_msg"].endswith(os.path.join(os.path.realpath(base), "nope"))
    status, answer = search("./job", "profiler_x")
    assert (status, answer["error_code"]) == (400, "50546083")
    service.close()


def test_filters_mindinsight_crashed_on(client: FlaskClient) -> None:
    params = {"train_id": "./lenet_prof", "profile": "profiler"}

    def search(condition: dict[str, Any]) -> tuple[int, Any]:
        response = client.post(
            SEARCH, query_string=params, data=json.dumps({"op_type": "cpu_op_info", **condition})
        )
        return response.status_code, response.get_json()

    status, body = search({"filter_condition": {"subgraph": "Default"}})
    assert (status, body["error_code"]) == (400, "50546186")
    status, body = search({"filter_condition": {"subgraph": {"partial_match_str_in": [1]}}})
    assert (status, body["error_code"]) == (400, "50546186")
    status, body = search(
        {"filter_condition": {"op_occurrences": {"partial_match_str_in": ["20"]}}}
    )
    assert status == 200 and body["size"] == 43
    status, body = search({"filter_condition": {"op_occurrences": {"in": [20]}}})
    assert status == 200 and body["size"] == 43
    status, body = search({"op_type": "gpu_op_info"})
    assert status == 200 and body == {"col_name": [], "object": [], "size": 0}


def test_dump_script_over_http(service: DataService, profiler_corpus: Path, tmp_path: Path) -> None:
    """``mi_profiler_dump.py`` against a real server gives MindInsight's files back."""
    if not (TOOLS / "mi_profiler_dump.py").is_file() or not _requests("lenet_prof"):
        pytest.skip("dump script or oracle not found")
    from werkzeug.serving import make_server

    app = Flask(__name__)
    register_rest_api(app, service)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        subprocess.run(
            [
                sys.executable,
                str(TOOLS / "mi_profiler_dump.py"),
                "--url",
                f"http://127.0.0.1:{server.server_port}",
                "--out",
                str(tmp_path),
                "--scrub",
                os.path.realpath(profiler_corpus),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    finally:
        server.shutdown()
        thread.join(10)
    for job in JOBS:
        ours = json.loads((tmp_path / f"{job}.json").read_text())["answers"]
        for name, answer in _requests(job):
            mine = ours[name]
            assert (mine["status"], mine.get("json")) == (answer["status"], answer["json"]), name


def test_train_jobs_report_profiler_dirs(client: FlaskClient) -> None:
    """``train-jobs`` as MindInsight lists these jobs (times and cache status aside: the
    corpus copy has its own file times, and a job is CACHED once read)."""
    oracle = PROFILER_ORACLE / "_train_jobs.json"
    if not oracle.is_file():
        pytest.skip("profiler oracle not found")
    expected = json.loads(oracle.read_text())["json"]["train_jobs"]
    ours = client.get(
        "/v1/mindinsight/datavisual/train-jobs", query_string={"offset": 0, "limit": 999}
    ).get_json()["train_jobs"]
    volatile = {"create_time", "update_time", "cache_status"}
    for theirs, mine in zip(
        sorted(expected, key=lambda j: j["train_id"]),
        sorted(ours, key=lambda j: j["train_id"]),
        strict=True,
    ):
        assert list(mine) == list(theirs)  # key order, graph_mode last
        assert {k: v for k, v in mine.items() if k not in volatile} == {
            k: v for k, v in theirs.items() if k not in volatile
        }
