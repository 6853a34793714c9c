"""Issue #42 items 1, 2 and 6, what ``test_hardening`` left open: every integer query parameter of
the REST routes beyond int64, answers that keep what is readable while part of a job is not
(index rows deleted, a file cut after indexing), one log line per damage, and remark files made
private when an earlier version left them readable by others."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.lineage.service_remarks import RemarkStore
from dash_insight.web import http

TAGS = ("loss", "acc", "lr")
SCALARS = "/v1/mindinsight/datavisual/scalars"
METADATA = "/v1/mindinsight/datavisual/scalar/metadata"
HISTOGRAMS = "/v1/mindinsight/datavisual/histograms"
TENSORS = "/v1/mindinsight/datavisual/tensors"


@pytest.fixture
def job_app(tmp_path: Path) -> Iterator[tuple[Any, Any, Path]]:
    """An app (no background loader) on one job of three scalar tags, a histogram, an image and
    a tensor over 40 steps: (app, test client, job folder)."""
    job = tmp_path / "logs" / "job"
    job.mkdir(parents=True)
    rng = np.random.default_rng(0)
    with SummaryWriter(str(job)) as writer:
        for step in range(1, 41):
            for tag in TAGS:
                writer.add_scalar(tag, 1.0 / step, step)
            writer.add_histogram("h", rng.normal(size=50).astype(np.float32), step)
            writer.add_tensor("t", rng.random((3, 4)).astype(np.float32), step)
            if step % 10 == 0:
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


# -- item 1: every integer query parameter beyond int64 ------------------------------------------

HUGE = [str(2**63), str(-(2**63) - 1), str(2**70), str(-(2**70))]
INTEGER_PARAMETERS = [
    ("/v1/mindinsight/datavisual/train-jobs", {}, "offset"),
    ("/v1/mindinsight/datavisual/train-jobs", {}, "limit"),
    ("/v1/mindinsight/datavisual/graphs/nodes/names", {"tag": "x"}, "offset"),
    ("/v1/mindinsight/datavisual/graphs/nodes/names", {"tag": "x"}, "limit"),
    ("/v1/mindinsight/datavisual/image/single-image", {"tag": "im/image"}, "step"),
    (TENSORS, {"tag": "t/tensor", "detail": "data", "dims": "[:,:]"}, "step"),
    *(
        (route, {"tag": "loss/scalar", "max_points": "8"}, name)
        for route in (SCALARS, METADATA, "/v1/dash-insight/chart/scalar")
        for name in ("start_step", "end_step", "max_points")
    ),
    *(
        ("/v1/dash-insight/export/scalars", {"tag": "loss", "max_points": "8"}, name)
        for name in ("start_step", "end_step", "max_points")
    ),
]


@pytest.mark.parametrize(("route", "query", "name"), INTEGER_PARAMETERS)
def test_every_integer_parameter_beyond_int64_is_answered(
    job_app: tuple[Any, Any, Path], route: str, query: dict[str, str], name: str
) -> None:
    """Each integer query parameter of a REST route, beyond int64 either way and 5,000 digits
    long: an answer (200, or 400 in MindInsight's error format), never a 5xx."""
    _, client, _ = job_app
    for value in [*HUGE, "9" * 5000]:
        answer = client.get(route, query_string={"train_id": "./job", **query, name: value})
        assert answer.status_code in (200, 400), (name, value[:30], answer.status_code)
        if answer.status_code == 400:
            assert set(answer.get_json()) == {"error_code", "error_msg"}


# -- item 2: what is readable is served, and the damage is said once ---------------------------


def _delete_rows(app: Any, plugin: str, tag: str) -> int:
    """Delete the index rows (chunks and their min/max summaries) of one tag of ``./job``, as a
    damaged or hand-edited index would; the number deleted."""
    cache = app.data_service.provider.store._cache
    keys = [
        key
        for key in cache.iterkeys()
        if isinstance(key, str)
        and key.split("\x1f")[:4]
        in (["chunk", "./job", plugin, tag], ["lod", "./job", plugin, tag])
    ]
    for key in keys:
        cache.delete(key)
    return len(keys)


def test_the_readable_series_of_a_request_are_served_while_one_is_read_again(
    job_app: tuple[Any, Any, Path],
) -> None:
    """One of three series lost its index rows: ``scalars`` answers the other two (their points
    as before) and says in its load-status header that a series is being read again."""
    app, client, _ = job_app
    query = {"train_id": "./job", "tag": [f"{tag}/scalar" for tag in TAGS]}
    others = {**query, "tag": query["tag"][1:]}  # loss is not read (nor cached) before
    before = client.get(SCALARS, query_string=others).get_json()["scalars"]
    assert _delete_rows(app, "scalar", "loss")
    answer = client.get(SCALARS, query_string=query)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    assert answer.get_json()["scalars"] == before and len(before) == 2
    assert answer.headers[http.LOAD_STATUS_HEADER] == "rebuilding"
    alone = client.get(SCALARS, query_string={**query, "tag": "loss/scalar"})
    assert alone.status_code == 503 and alone.headers["Retry-After"]  # nothing readable asked


def test_a_missing_index_entry_is_logged_once(
    job_app: tuple[Any, Any, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """Requests meeting the same missing chunks before the loader reads the job again: one
    warning, not one per request."""
    app, client, _ = job_app
    assert _delete_rows(app, "scalar", "loss")
    with caplog.at_level(logging.WARNING, "dash_insight.core.provider"):
        for _ in range(4):
            answer = client.get(METADATA, query_string={"train_id": "./job", "tag": "loss/scalar"})
            assert answer.status_code == 503
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "./job" in lines[0], lines


def _cut_in_half(job: Path) -> None:
    for file in job.iterdir():
        data = file.read_bytes()
        file.write_bytes(data[: len(data) // 2])


def test_a_histogram_tag_whose_file_was_cut_serves_its_readable_steps(
    job_app: tuple[Any, Any, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """The job's file cut in half after it was indexed: the histogram tag answers the steps
    still in the file, names the others in ``unreadable``, and the log says so once."""
    _, client, job = job_app
    _cut_in_half(job)
    query = {"train_id": "./job", "tag": "h/histogram"}
    with caplog.at_level(logging.WARNING, "dash_insight.core.provider"):
        answer = client.get(HISTOGRAMS, query_string=query)
        again = client.get(HISTOGRAMS, query_string=query)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    body = answer.get_json()
    served = [entry["step"] for entry in body["histograms"]]
    missing = [entry["step"] for entry in body["unreadable"]]
    assert served and missing and sorted(served + missing) == list(range(1, 41))
    assert served == list(range(1, len(served) + 1))  # the first half of the file
    assert all(entry["buckets"] for entry in body["histograms"])
    assert "events.out" in body["unreadable"][0]["error"]
    assert again.get_json() == body
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "./job" in lines[0], lines


def test_a_histogram_tag_with_no_readable_step_is_a_clear_400(
    job_app: tuple[Any, Any, Path],
) -> None:
    _, client, job = job_app
    for file in job.iterdir():
        file.unlink()
    answer = client.get(HISTOGRAMS, query_string={"train_id": "./job", "tag": "h/histogram"})
    assert answer.status_code == 400 and "No such file" in answer.get_json()["error_msg"]


# -- item 6: remark files an earlier version left readable by others ---------------------------


def test_remark_files_of_an_earlier_version_are_made_private(tmp_path: Path) -> None:
    """A remarks folder 0755 with its file and lock 0644 (made with the umask's modes): 0700
    and 0600 once the store opens them, before any write."""
    folder = tmp_path / "ws" / "lineage" / "digest"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    path = folder / "added_info.json"
    path.write_text('{"version": 1, "jobs": {"./job": {"remark": "seed 1"}}}')
    lock = folder / "added_info.json.lock"
    lock.write_text("")
    for file in (path, lock):
        file.chmod(0o644)
    store = RemarkStore(str(path))
    assert store.get("./job")["remark"] == "seed 1"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for file in (path, lock):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file.name
    os.chmod(folder, 0o755)  # made readable again while the server runs
    store.update("./job", {"tag": 2})
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
