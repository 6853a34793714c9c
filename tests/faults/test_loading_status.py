"""Issue #42 item 10: a loader that stops is never silent. Its state (loading, caught up,
stalled with why) is in ``/v1/dash-insight/loader`` and in a banner on every page; a failing
round is logged once per change of reason. Item 9: a tag of a job with bytes not read yet (mid
round, or written since the last round) answers empty with the load status, not "unknown"."""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dash_insight import SummaryWriter
from dash_insight.core.format import framing
from dash_insight.core.settings import Settings
from dash_insight.core.store import health
from dash_insight.core.store.health import LoaderFailure, LoaderHealth, failure_reason
from dash_insight.default import create_app
from dash_insight.web import http, shell
from tests.browser import until, wait_idle
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
    app = create_app(
        Settings(
            summary_base_dir=str(tmp_path / "logs"),
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        )
    )
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
    children, hidden = shell.refresh_banner(lambda: LoaderHealth(health.STALLED, failure), 3)
    assert not hidden
    assert "the disk holding the workspace is full" in text(children)
    assert "[Errno 28] No space left" in text(children)
    for state in (health.LOADING, health.CAUGHT_UP):
        assert shell.refresh_banner(lambda s=state: LoaderHealth(s), 4) == ([], True)


def test_the_stalled_banner_is_shown_in_the_page(
    dash_duo: Any, app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loader = app.data_service.loader
    write_job(tmp_path / "logs", "job2", steps=3)
    monkeypatch.setattr(loader.store, "save_job", _disk_full)
    loader._run()
    dash_duo.start_server(app)
    # job2 was not saved: one job, and "/" lands on its dashboard (issue 38 item 10).
    dash_duo.wait_for_element("#dashboard-cards")
    until(lambda: dash_duo.find_element("#loader-banner").is_displayed(), 10)
    banner = dash_duo.find_element("#loader-banner").text
    assert "Loading has stopped" in banner and "disk holding the workspace is full" in banner


METADATA = "/v1/mindinsight/datavisual/scalar/metadata?train_id=./job&tag=acc/scalar"


def _append_acc(job: Path, step: int = 6) -> None:
    """A live run writes a tag the index has not seen: a later file of ``job``."""
    with SummaryWriter(str(job), timestamp=2_000_000_000) as writer:
        writer.add_scalar("acc", 0.5, step)


def test_a_tag_written_since_the_last_round_is_empty_not_unknown(app: Any, tmp_path: Path) -> None:
    """Item 9: the tag's first step is on disk but the loader's next round has not run yet:
    empty with the job's load status, then its point once the round has read it."""
    client = app.server.test_client()
    assert client.get(METADATA).status_code == 400  # no such tag anywhere: still unknown
    _append_acc(tmp_path / "logs" / "job")
    answer = client.get(METADATA)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.get_json() == {"metadatas": []}
    assert answer.headers[http.LOAD_STATUS_HEADER] == "loading"
    app.data_service.loader.load_round()
    answer = client.get(METADATA)
    assert [m["step"] for m in answer.get_json()["metadatas"]] == [6]
    assert http.LOAD_STATUS_HEADER not in answer.headers


def test_a_tag_asked_for_while_the_loader_is_mid_round_is_empty(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 9: asked while the round has listed the new bytes but not read them yet."""
    loader = app.data_service.loader
    client = app.server.test_client()
    answers: list[Any] = []
    read_slices = loader._read_slices

    def asking_first(*args: Any, **kwargs: Any) -> Any:
        answers.append(client.get(METADATA))
        return read_slices(*args, **kwargs)

    monkeypatch.setattr(loader, "_read_slices", asking_first)
    _append_acc(tmp_path / "logs" / "job")
    loader.load_round()
    assert answers and answers[0].status_code == 200, answers[0].get_data(as_text=True)
    assert answers[0].get_json() == {"metadatas": []}
    assert answers[0].headers[http.LOAD_STATUS_HEADER] == "loading"


def test_a_file_the_loader_may_not_read_stalls_it_with_the_reason(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 10: permission denied reading a summary file: the loader goes on with the other
    files, and the API says loading of that file stopped, why, and which file; a ``chmod``
    (here: the refusal lifted) clears it at the next round."""
    client = app.server.test_client()
    job2 = write_job(tmp_path / "logs", "job2", steps=3)
    real_open = framing.open_regular

    def refusing(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(str(job2)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(framing, "open_regular", refusing)
    app.data_service.loader._run()
    stalled = client.get(LOADER).get_json()
    assert stalled["state"] == "stalled" and stalled["reason"] == "permission", stalled
    assert "./job2/" in stalled["detail"] and "Permission denied" in stalled["detail"]
    children, hidden = shell.refresh_banner(app.data_service.loader_health, 1)
    assert not hidden and "permission was refused" in text(children)
    monkeypatch.undo()
    app.data_service.loader._run()
    assert client.get(LOADER).get_json()["state"] == "caught_up"


def test_the_loader_state_while_a_round_has_bytes_left_is_loading(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 10: new bytes listed by a round but not read yet: ``loading``, no banner; caught
    up once read."""
    loader = app.data_service.loader
    client = app.server.test_client()
    seen: list[tuple[Any, Any]] = []
    read_slices = loader._read_slices

    def asking_first(*args: Any, **kwargs: Any) -> Any:
        seen.append(
            (client.get(LOADER).get_json(), shell.refresh_banner(app.data_service.loader_health, 1))
        )
        return read_slices(*args, **kwargs)

    monkeypatch.setattr(loader, "_read_slices", asking_first)
    _append_acc(tmp_path / "logs" / "job")
    loader._run()
    state, banner = seen[0]
    assert state["state"] == "loading" and state["reason"] is None
    assert banner == ([], True)
    assert client.get(LOADER).get_json()["state"] == "caught_up"


def test_the_banner_follows_refresh_and_navigation_without_auto_refresh(
    dash_duo: Any, app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Build item 4: with auto refresh off, the top bar's Refresh and moving to another page
    bring the banner up to date (it followed only the auto refresh)."""
    loader = app.data_service.loader
    dash_duo.start_server(app)
    try:
        # One job: "/" lands on its training dashboard (issue 38 item 10).
        dash_duo.wait_for_element("#dashboard-cards")
        dash_duo.find_element("#auto-refresh input").click()
        until(lambda: not dash_duo.find_element("#auto-refresh input").is_selected())
        wait_idle(dash_duo)
        write_job(tmp_path / "logs", "job2", steps=3)
        monkeypatch.setattr(loader.store, "save_job", _disk_full)
        loader._run()
        dash_duo.find_element("#refresh-now").click()
        until(lambda: dash_duo.find_element("#loader-banner").is_displayed())
        assert "disk holding the workspace is full" in dash_duo.find_element("#loader-banner").text
        monkeypatch.undo()
        loader._run()
        dash_duo.find_element("#nav-lineage").click()
        until(lambda: not dash_duo.find_element("#loader-banner").is_displayed())
    finally:  # the choice is kept in the browser's cookie: leave auto refresh on for others
        dash_duo.driver.delete_cookie("di_refresh")


def test_a_full_disk_while_a_file_is_read_stalls_the_loader_and_loses_nothing(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 10: ENOSPC writing a file's chunks into the workspace index is the workspace's
    failure, not the file's: the round stops and says disk full (it recorded the file as
    damaged, read to its end and caught up, and never read its steps again), and once there
    is room the next round reads every step."""
    loader, provider = app.data_service.loader, app.data_service.provider
    client = app.server.test_client()
    write_job(tmp_path / "logs", "job2", steps=3)
    monkeypatch.setattr(loader.store, "append_chunk", _disk_full)
    monkeypatch.setattr(loader.store, "append_prepared", _disk_full)
    loader._run()
    stalled = client.get(LOADER).get_json()
    assert stalled["state"] == "stalled" and stalled["reason"] == "disk_full", stalled
    monkeypatch.undo()
    loader._run()
    assert client.get(LOADER).get_json()["state"] == "caught_up"
    job = provider.job("./job2")
    assert job.is_intact, job.reasons
    assert provider.read_scalars("./job2", "loss").step.tolist() == [1, 2, 3]


def test_every_worker_process_says_the_loader_stalled(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 10: several web workers share one index and only the one holding the loader lock
    reads; when its rounds fail on a full disk, the others say so too (they said caught up or
    loading: most requests reached a process whose own loader had nothing to report)."""
    other = create_app(
        Settings(
            summary_base_dir=str(tmp_path / "logs"),
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        )
    )
    try:
        assert other.data_service.loader.wait_rounds(1)
        client = other.server.test_client()
        loader = app.data_service.loader
        write_job(tmp_path / "logs", "job2", steps=3)
        monkeypatch.setattr(loader.store, "save_job", _disk_full)
        loader._run()  # the process holding the lock fails its round
        assert other.data_service.loader.failure is None  # this one's loader did not fail
        stalled = client.get(LOADER).get_json()
        assert stalled["state"] == "stalled" and stalled["reason"] == "disk_full", stalled
        assert "No space left on device" in stalled["detail"]
        children, hidden = shell.refresh_banner(other.data_service.loader_health, 1)
        assert not hidden and "disk holding the workspace is full" in text(children)
        monkeypatch.undo()
        loader._run()
        assert client.get(LOADER).get_json()["state"] == "caught_up"
    finally:
        other.data_service.close()


@pytest.mark.parametrize(
    ("error", "halts"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), True),
        (OSError(errno.EROFS, "Read-only file system"), True),
        (sqlite3.OperationalError("database or disk is full"), True),
        (ConnectionResetError("reset"), True),
        (PermissionError(errno.EACCES, "Permission denied"), False),
        (ValueError("a reader bug"), False),
    ],
)
def test_what_halts_a_round_instead_of_damaging_a_file(error: BaseException, halts: bool) -> None:
    assert health.halts_the_round(error) is halts


def test_a_failure_record_left_by_a_process_that_is_gone_is_ignored(tmp_path: Path) -> None:
    shared = health.SharedFailure(str(tmp_path / "record"))
    shared.reserve()
    assert (tmp_path / "record").stat().st_size == health.RECORD_BYTES and shared.read() is None
    failure = LoaderFailure(health.DISK_FULL, "OSError: [Errno 28] No space left", 1.5)
    shared.publish(failure)
    assert shared.read() == failure
    (tmp_path / "record").write_bytes(health.record_bytes(failure, 2**22 + 7))  # no such pid
    assert shared.read() is None
    shared.publish(None)
    assert shared.read() is None and health.parse_record(b"{not json") is None
