"""Issue #42 item 10: a loader that stops is never silent. Its state (loading, caught up,
stalled with why) is in ``/v1/dash-insight/loader`` and in a banner on every page; a failing
round is logged once per change of reason."""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dash_insight.core.store import health
from dash_insight.core.store.health import LoaderFailure, LoaderHealth, failure_reason
from dash_insight.web import shell
from dash_insight.web.application import create_app
from tests.browser import until
from tests.faults.conftest import write_job
from tests.pages import text

LOADER = "/v1/dash-insight/loader"


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), health.DISK_FULL),
        (sqlite3.OperationalError("database or disk is full"), health.DISK_FULL),
        (PermissionError(errno.EACCES, "Permission denied"), health.PERMISSION),
        (OSError(errno.EROFS, "Read-only file system"), health.PERMISSION),
        (sqlite3.OperationalError("attempt to write a readonly database"), health.PERMISSION),
        (ConnectionRefusedError("refused"), health.STORE_UNREACHABLE),
        (type("ConnectionError", (Exception,), {})("redis down"), health.STORE_UNREACHABLE),
        (ValueError("a bug"), health.FAILED),
    ],
)
def test_failure_reasons(error: BaseException, reason: str) -> None:
    assert failure_reason(error) == reason


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    write_job(tmp_path / "logs", "job", steps=5)
    app = create_app(str(tmp_path / "logs"), workspace=str(tmp_path / "ws"), reload_interval=0)
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def _disk_full(*_: Any, **__: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_stalls_the_loader_visibly_then_it_resumes(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    client = app.server.test_client()
    assert client.get(LOADER).get_json() == {
        "state": "caught_up",
        "reason": None,
        "detail": None,
        "since": None,
    }
    loader = app.data_service.loader
    write_job(tmp_path / "logs", "job2", steps=3)  # something to write into the index
    monkeypatch.setattr(loader.store, "save_job", _disk_full)
    with caplog.at_level(logging.WARNING, "dash_insight.core.store.loader"):
        for _ in range(3):
            loader._run()  # reload_interval 0: one round each, as the loader thread runs it
    stalled = client.get(LOADER).get_json()
    assert stalled["state"] == "stalled" and stalled["reason"] == "disk_full"
    assert "No space left on device" in stalled["detail"] and stalled["since"] > 0
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "loading stopped (disk_full)" in lines[0], lines
    assert "Traceback" not in caplog.text
    assert client.get("/v1/mindinsight/datavisual/train-jobs").status_code == 200  # still served
    monkeypatch.undo()
    with caplog.at_level(logging.WARNING, "dash_insight.core.store.loader"):
        loader._run()
    assert client.get(LOADER).get_json()["state"] == "caught_up"
    assert "loading resumed after disk_full" in caplog.records[-1].getMessage()


def test_the_banner_names_why_loading_stopped() -> None:
    failure = LoaderFailure(health.DISK_FULL, "OSError: [Errno 28] No space left", 1.0)
    children, hidden = shell.refresh_banner(3, lambda: LoaderHealth(health.STALLED, failure))
    assert not hidden
    assert "the disk holding the workspace is full" in text(children)
    assert "[Errno 28] No space left" in text(children)
    for state in (health.LOADING, health.CAUGHT_UP):
        assert shell.refresh_banner(4, lambda s=state: LoaderHealth(s)) == ([], True)


def test_the_stalled_banner_is_shown_in_the_page(
    dash_duo: Any, app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loader = app.data_service.loader
    write_job(tmp_path / "logs", "job2", steps=3)
    monkeypatch.setattr(loader.store, "save_job", _disk_full)
    loader._run()
    dash_duo.start_server(app)
    dash_duo.wait_for_element("#job-table")
    until(lambda: dash_duo.find_element("#loader-banner").is_displayed(), 10)
    banner = dash_duo.find_element("#loader-banner").text
    assert "Loading has stopped" in banner and "disk holding the workspace is full" in banner
