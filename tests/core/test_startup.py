"""Start-up checks: an unusable workspace, a Redis index that refuses or cannot be reached, an
empty base directory; each one line saying what to do, and never a password."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dash_insight.core.settings import Settings
from dash_insight.core.startup import (
    empty_base_warning,
    environment_problem,
    index_problem,
    masked_url,
    workspace_problem,
)
from tests.ports import free_port
from tests.redis_server import REDIS_PASSWORD


def test_a_missing_workspace_is_created_private(tmp_path: Path) -> None:
    workspace = tmp_path / "a" / "ws"
    assert workspace_problem(str(workspace)) is None
    assert stat.S_IMODE(workspace.stat().st_mode) == 0o700
    assert workspace_problem(str(workspace)) is None  # and an existing one is fine


def test_a_workspace_that_is_a_file_or_below_one(tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("")
    assert workspace_problem(str(a_file)) == (
        f"the workspace {a_file} is not a folder; choose another one with --workspace"
    )
    assert workspace_problem(str(a_file / "ws")) == (
        f"cannot use the workspace {a_file / 'ws'}: {a_file} is not a folder; "
        "choose another one with --workspace"
    )
    broken = tmp_path / "broken"
    broken.symlink_to(tmp_path / "gone")
    assert workspace_problem(str(broken / "ws")) == (
        f"cannot use the workspace {broken / 'ws'}: {broken} is not a folder; "
        "choose another one with --workspace"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_workspace_that_cannot_be_created_or_written(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert workspace_problem(str(locked / "ws")) == (
            f"cannot create the workspace {locked / 'ws'} (Permission denied); "
            "choose another one with --workspace"
        )
        assert workspace_problem(str(locked)) == (
            f"the workspace {locked} is not writable; choose another one with --workspace"
        )
    finally:
        locked.chmod(0o700)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_workspace_no_one_may_create(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # mkdir in /proc fails even for root (FileNotFoundError: the traceback).
    assert workspace_problem("/proc/dash-insight-ws") == (
        "cannot create the workspace /proc/dash-insight-ws (No such file or directory); "
        "choose another one with --workspace"
    )
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # what root never sees
    assert workspace_problem(str(tmp_path)) == (
        f"the workspace {tmp_path} is not writable; choose another one with --workspace"
    )


def test_passwords_are_masked() -> None:
    assert masked_url("redis://:secret@host:6379/0") == "redis://:***@host:6379/0"
    assert masked_url("rediss://user:secret@host:6380/1") == "rediss://user:***@host:6380/1"
    assert masked_url("redis://host:6379/0?password=secret&db=2") == (
        "redis://host:6379/0?password=***&db=2"
    )
    assert masked_url("unix://:secret@/run/redis.sock?db=0") == "unix://:***@/run/redis.sock?db=0"
    assert masked_url("redis://host:6379/0") == "redis://host:6379/0"


def test_the_diskcache_index_needs_no_check() -> None:
    assert index_problem("") is None


def test_an_unreachable_redis_is_one_line() -> None:
    pytest.importorskip("redis")
    port = free_port()  # nothing listens there
    problem = index_problem(f"redis://:secret@127.0.0.1:{port}/0")
    assert problem == (
        f"cannot reach the Redis index at redis://:***@127.0.0.1:{port}/0 (Error 111 connecting "
        f"to 127.0.0.1:{port}. Connection refused); start Redis there or correct --index or "
        "DASH_INSIGHT_INDEX"
    )
    assert index_problem("redis://127.0.0.1:port/0") == (
        "the index redis://127.0.0.1:port/0 is not a valid Redis URL (Port could not be cast to "
        "integer value as 'port'); correct --index or DASH_INSIGHT_INDEX"
    )


@pytest.mark.fleet
def test_a_wrong_or_missing_redis_password_is_one_line(redis_password_url: str) -> None:
    assert index_problem(redis_password_url) is None
    wrong = redis_password_url.replace(REDIS_PASSWORD, "not-the-password")
    address = wrong.split("@", 1)[1]
    assert index_problem(wrong) == (
        f"the Redis index at redis://:***@{address} refused the password "
        "(AuthenticationError); check the password in --index or DASH_INSIGHT_INDEX"
    )
    assert index_problem(f"redis://{address}") == (
        f"the Redis index at redis://{address} needs a password; give it in --index or "
        "DASH_INSIGHT_INDEX as redis://:PASSWORD@host:port/db"
    )
    other_db = redis_password_url.rsplit("/", 1)[0] + "/99999"
    assert index_problem(other_db) == (
        f"the Redis index at {masked_url(other_db)} answered an error (DB index is out of "
        "range); correct --index or DASH_INSIGHT_INDEX"
    )


def test_the_workspace_is_checked_before_the_index(tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("")
    settings = Settings(str(tmp_path), workspace=str(a_file), index="redis://127.0.0.1:1/0")
    assert environment_problem(settings) == (
        f"the workspace {a_file} is not a folder; choose another one with --workspace"
    )
    assert environment_problem(Settings(str(tmp_path), workspace=str(tmp_path / "ws"))) is None


def test_an_empty_base_directory_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "notes.txt").write_text("")
    assert empty_base_warning(str(tmp_path), None) == (
        f"warning: no summary files under {tmp_path} yet (looked for *.summary.*, "
        "*.summary.*_lineage, events.out.tfevents.*, *.pb); write them with MindSpore's "
        "SummaryCollector, or with dash_insight.SummaryWriter without MindSpore"
    )
    (tmp_path / "runs" / "events.out.tfevents.1700000000.host").write_bytes(b"")
    assert empty_base_warning(str(tmp_path), None) is None
    assert empty_base_warning("s3://bucket/prefix", None) is None
