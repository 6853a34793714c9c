"""Issue #42's findings, one test each: int64 overflow of step bounds, a workspace that refuses
the pid record, formula cells in ``dash-insight export``, private remark files, one oversized
tensor step."""

from __future__ import annotations

import csv
import dataclasses
import logging
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.export import export_summaries
from dash_insight.core.runtime import announce, record_path, retire
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.jobs import rest as jobs_rest
from dash_insight.plugins.lineage.service_remarks import RemarkStore
from dash_insight.plugins.tensors import query_tensor
from dash_insight.web import http
from tests.conftest import CORPUS

HUGE = [str(2**63), str(-(2**63) - 1), str(2**70), str(-(2**70))]
SCALARS = "/v1/mindinsight/datavisual/scalars"
METADATA = "/v1/mindinsight/datavisual/scalar/metadata"
CHART = "/v1/dash-insight/chart/scalar"
EXPORT = "/v1/dash-insight/export/scalars"
PLUGINS = "/v1/mindinsight/datavisual/plugins"
TAG = "loss/auto/scalar"  # a scalar tag of lenet_sc


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("hard") / "logs"
    shutil.copytree(CORPUS / "lenet_sc", base / "lenet_sc")
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


@pytest.mark.parametrize("route", [SCALARS, METADATA, CHART, EXPORT])
@pytest.mark.parametrize("name", ["start_step", "end_step", "max_points"])
@pytest.mark.parametrize("value", HUGE)
def test_step_bounds_beyond_int64_answer_like_int64(
    client: Any, route: str, name: str, value: str
) -> None:
    """A bound beyond int64 (with or without ``max_points``) selects what the nearest int64
    selects: every point or none, never a 500 (numpy's OverflowError)."""
    query = {"train_id": "./lenet_sc", "tag": TAG, name: value}
    if name != "max_points":
        query["max_points"] = "10"
    answer = client.get(route, query_string=query)
    if name == "max_points" and value.startswith("-"):  # below MIN_POINTS
        assert answer.status_code == 400 and "max_points" in answer.get_json()["error_msg"]
    else:
        assert answer.status_code == 200, answer.get_data(as_text=True)[:300]


def test_a_start_before_every_int64_step_covers_every_step(client: Any) -> None:
    """``start_step=-2**70`` covers the whole series, as ``-2**63`` does (its pixel columns
    span the asked window, so which points are drawn may differ from an open bound)."""
    query = {"train_id": "./lenet_sc", "tag": TAG, "max_points": "10"}
    (whole,) = client.get(SCALARS, query_string=query).get_json()["scalars"]
    for start in (str(-(2**70)), str(-(2**63))):
        (early,) = client.get(SCALARS, query_string={**query, "start_step": start}).get_json()[
            "scalars"
        ]
        assert early["points_in_range"] == whole["points_in_range"] > 0
        assert early["values"][0] == whole["values"][0]
        assert early["values"][-1] == whole["values"][-1]


def test_a_pid_entry_that_is_a_file_is_one_line_not_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "pid").write_text("not a folder")
    settings = Settings(str(tmp_path), workspace=str(workspace), port=8765, reload_interval=0)
    monkeypatch.setattr(os, "environ", dict(os.environ))  # announce exports its settings
    with caplog.at_level(logging.WARNING, "dash_insight.core.runtime"):
        record = announce(settings, "test")
    retire(record, str(workspace))
    assert record.pid == os.getpid()
    (line,) = [r.getMessage() for r in caplog.records]
    assert "cannot record this server" in line and "pid" in line
    assert "Traceback" not in caplog.text


def test_a_read_only_workspace_is_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests run as root, which writes anywhere: the refusal is simulated at ``open``."""
    workspace = tmp_path / "ws"
    settings = Settings(str(tmp_path), workspace=str(workspace), port=8765, reload_interval=0)
    real_open = open

    def read_only(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(str(workspace)) and "w" in (args[0] if args else "r"):
            raise OSError(30, "Read-only file system", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", read_only)
    monkeypatch.setattr(os, "environ", dict(os.environ))
    with caplog.at_level(logging.WARNING, "dash_insight.core.runtime"):
        record = announce(settings, "test")
    monkeypatch.undo()
    assert not os.path.exists(record_path(str(workspace), record.pid))
    (line,) = [r.getMessage() for r in caplog.records]
    assert "Read-only file system" in line


def test_cli_export_neutralises_formula_tags(tmp_path: Path) -> None:
    """``dash-insight export`` writes tags as the REST download does: a leading ``'`` before
    ``=``, ``+``, ``-``, ``@``; values (negative numbers too) stay numbers."""
    job = tmp_path / "logs" / "job"
    job.mkdir(parents=True)
    tags = ["=HYPERLINK(1)", "+1", "-cmd", "@SUM(A1)", "loss"]
    with SummaryWriter(str(job)) as writer:
        for step in (1, 2):
            for tag in tags:
                writer.add_scalar(tag, -0.5 * step, step)
            writer.record(step)
    export_summaries(str(tmp_path / "logs"), str(tmp_path / "out"), plugins=("scalar",))
    (table,) = (tmp_path / "out").rglob("scalars.csv")
    with open(table, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    written = {row["tag"] for row in rows}
    assert {"'=HYPERLINK(1)", "'+1", "'-cmd", "'@SUM(A1)", "loss"} <= written
    assert all(not tag.startswith(("=", "+", "-", "@")) for tag in written)
    assert {float(row["value"]) for row in rows} == {-0.5, -1.0}


def test_remark_files_are_private(tmp_path: Path) -> None:
    store = RemarkStore(str(tmp_path / "ws" / "remarks" / "added_info.json"))
    store.update("./job", {"remark": "seed 1"})
    folder = tmp_path / "ws" / "remarks"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ("added_info.json", "added_info.json.lock"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name
    assert store.get("./job")["remark"] == "seed 1"


def test_one_oversized_tensor_step_leaves_the_others_histograms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``detail=histogram`` serves every step it can and names the step over the size limit
    (lowered here to 10 values: step 2 holds 20), instead of a 400 for the whole tag."""
    job = tmp_path / "logs" / "job"
    job.mkdir(parents=True)
    with SummaryWriter(str(job)) as writer:
        for step, shape in ((1, (2, 3)), (2, (4, 5)), (3, (2, 3))):
            writer.add_tensor("w", np.arange(np.prod(shape), dtype=np.float32).reshape(shape), step)
            writer.record(step)
    monkeypatch.setattr(query_tensor, "MAX_TENSOR_VALUES", 10)
    app = create_app(
        Settings(
            summary_base_dir=str(tmp_path / "logs"),
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        )
    )
    try:
        assert app.data_service.loader.wait_rounds(1)
        client = app.server.test_client()
        query = {"train_id": "./job", "manual_update": "false"}
        (tag,) = client.get(PLUGINS, query_string=query).get_json()["plugins"]["tensor"]
        answer = client.get(
            "/v1/mindinsight/datavisual/tensors",
            query_string={"train_id": "./job", "tag": tag, "detail": "histogram"},
        )
    finally:
        app.data_service.close()
    assert answer.status_code == 200, answer.get_data(as_text=True)
    values = answer.get_json()["tensors"][0]["values"]
    assert [entry["step"] for entry in values] == [1, 2, 3]
    first, large, last = (entry["value"] for entry in values)
    assert first["histogram_buckets"] and last["histogram_buckets"]
    assert large["histogram_buckets"] == [] and large["statistics"] is None
    assert "20 values" in large["error"] and "step 2" in large["error"]


@pytest.fixture
def live_job(tmp_path: Path) -> Iterator[tuple[Any, Any, Path]]:
    """An app (no background loader: rounds run by the test) on a job of scalars, a
    histogram and an image; (app, test client, job folder)."""
    job = tmp_path / "logs" / "job"
    job.mkdir(parents=True)
    rng = np.random.default_rng(0)
    with SummaryWriter(str(job)) as writer:
        for step in (1, 2, 3):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.add_histogram("h", rng.normal(size=50).astype(np.float32), step)
            writer.add_image("im", rng.random((1, 3, 8, 8)).astype(np.float32), step)
            writer.record(step)
    app = create_app(
        Settings(
            summary_base_dir=str(tmp_path / "logs"),
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app, app.server.test_client(), job
    app.data_service.close()


JOB_URLS = [
    "/v1/mindinsight/datavisual/train-jobs",
    "/v1/mindinsight/datavisual/plugins?train_id=./job&manual_update=false",
    "/v1/mindinsight/datavisual/scalar/metadata?train_id=./job&tag=loss/scalar",
    "/v1/mindinsight/datavisual/histograms?train_id=./job&tag=h/histogram",
    "/v1/mindinsight/datavisual/image/metadata?train_id=./job&tag=im/image",
    "/v1/mindinsight/datavisual/image/single-image?train_id=./job&tag=im/image&step=1",
]


@pytest.mark.parametrize(
    ("entry", "damage"),
    [
        ("versions", "garbage"),
        ("versions", None),
        ("versions", [1, 2]),
        ("versions", {"./job": "x"}),
        ("generation", "junk"),
        ("generation", None),
    ],
)
def test_damaged_coordination_entries_keep_serving_then_are_rewritten(
    live_job: tuple[Any, Any, Path],
    entry: str,
    damage: object,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Junk in ``versions`` or ``generation``: every answer as before (the states held), one
    warning, and the loader's next round rewrites the entry."""
    app, client, _ = live_job
    before = [client.get(url).get_data() for url in JOB_URLS]
    index = app.data_service.provider.store
    with caplog.at_level(logging.WARNING):
        index._cache.set(entry, damage)
        if entry == "versions":
            index._cache.incr("generation", default=0)
        for _ in range(3):
            assert [client.get(url).get_data() for url in JOB_URLS] == before
        app.data_service.loader.load_round()
    warnings = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert any("rewriting it" in w for w in warnings), warnings
    assert sum("showing the jobs as last read" in w for w in warnings) == 1, warnings
    assert index.job_versions() == {"./job": index.load_job("./job").version}
    assert isinstance(index.generation(), int)
    assert [client.get(url).get_data() for url in JOB_URLS] == before


def test_a_file_gone_after_indexing_is_a_clear_400(live_job: tuple[Any, Any, Path]) -> None:
    """The image's file removed (or cut to nothing) after it was indexed: the step that
    needs it answers 400 naming the file, not 500; what the index holds is still served."""
    _, client, job = live_job
    for file in job.iterdir():
        file.unlink()
    answer = client.get(JOB_URLS[-1])
    assert answer.status_code == 400, answer.get_data(as_text=True)
    assert "No such file" in answer.get_json()["error_msg"]
    assert client.get(JOB_URLS[2]).status_code == 200


def test_train_job_caches_bounds_the_ids_it_resolves(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60,000 ids (under the 1 MiB body cap) answer 400 before any is resolved; up to the cap
    an id not in the listing is dropped by a set lookup, never resolved."""
    resolved: list[str] = []
    real = jobs_rest.known_job

    def counting(provider: Any, train_id: str) -> Any:
        resolved.append(train_id)
        return real(provider, train_id)

    monkeypatch.setattr(jobs_rest, "known_job", counting)
    url = "/v1/mindinsight/datavisual/train-job-caches"
    many = [f"./j{i}" for i in range(60_000)]
    answer = client.post(url, json={"train_ids": many})
    assert answer.status_code == 400 and "at most 1,000" in answer.get_json()["error_msg"]
    assert resolved == []
    some = ["./lenet_sc", *many[: jobs_rest.MAX_CACHE_IDS - 1]]
    answer = client.post(url, json={"train_ids": some})
    assert answer.get_json() == {
        "cache_result": [{"train_id": "./lenet_sc", "cache_status": "CACHED"}]
    }
    assert resolved == []


@pytest.mark.parametrize(
    ("url", "empty"),
    [
        ("/v1/mindinsight/datavisual/scalar/metadata?tag=acc/scalar", {"metadatas": []}),
        ("/v1/mindinsight/datavisual/histograms?tag=g/histogram", None),
        ("/v1/mindinsight/datavisual/image/metadata?tag=x/image", {"metadatas": []}),
        ("/v1/mindinsight/datavisual/tensors?tag=t/tensor", None),
    ],
)
def test_a_tag_of_a_job_still_being_read_is_empty_not_unknown(
    live_job: tuple[Any, Any, Path], monkeypatch: pytest.MonkeyPatch, url: str, empty: Any
) -> None:
    """A live run: a tag whose first step is in bytes not indexed yet answers empty (the job's
    status in a header), as "tag not found" only once every byte on disk has been read."""
    _, client, _ = live_job
    url += "&train_id=./job"
    answer = client.get(url)
    assert answer.status_code == 400 and "50545" in answer.get_json()["error_code"]
    real = http.known_job

    def loading(provider: Any, train_id: str) -> Any:
        job = real(provider, train_id)
        return None if job is None else dataclasses.replace(job, status="loading")

    monkeypatch.setattr(http, "known_job", loading)
    answer = client.get(url)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.headers[http.LOAD_STATUS_HEADER] == "loading"
    body = answer.get_json()
    if empty is not None:
        assert body == empty
    elif "histograms" in body:
        assert body["histograms"] == []
    else:
        assert body["tensors"][0]["values"] == []
