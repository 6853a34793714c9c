"""Issue #41 item 5, credentials: a wrong Redis password is one line and an exit (web process
and worker), an unreachable Redis a few bounded tries and then one line, and object-storage
keys revoked while running show in ``/readyz`` and in the loader health the pages' banner
shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dash_insight.core.format.writer import SummaryWriter
from tests.ports import free_port

pytestmark = pytest.mark.fleet
redis_index = pytest.importorskip("dash_insight.core.store.redis_index")
PYTHON = os.path.abspath(sys.executable)
REPO = str(Path(__file__).resolve().parents[2])


@pytest.mark.parametrize(
    "command",
    [
        [PYTHON, "-m", "dash_insight.server", "--port", "{port}"],
        [PYTHON, "-m", "dash_insight.cli", "worker", "--pool", "solo"],
    ],
    ids=["web", "worker"],
)
def test_a_wrong_password_is_one_line_and_an_exit(
    command: list[str], redis_password_url: str, tmp_path: Path
) -> None:
    with SummaryWriter(tmp_path / "base" / "j") as writer:
        writer.add_scalar("loss", 1.0, 1)
    wrong = redis_password_url.replace(":s3cret-of-the-test@", ":not-the-password@")
    argv = [part.replace("{port}", str(free_port())) for part in command]
    argv += ["--summary-base-dir", str(tmp_path / "base"), "--workspace", str(tmp_path / "ws")]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DASH_INSIGHT_INDEX": wrong, "PYTHONPATH": REPO},
    )
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "refused the" in lines[0] and "not-the-password" not in lines[0]
    assert ":***@" in lines[0]


def test_an_unreachable_redis_is_a_few_tries_then_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from dash_insight.core.store.index_api import IndexUnavailable

    monkeypatch.setattr(redis_index, "OPEN_PAUSE_SECONDS", 0.01)
    with pytest.raises(IndexUnavailable) as raised:
        redis_index.RedisIndexStore(f"redis://127.0.0.1:{free_port()}/0", str(tmp_path))
    message = str(raised.value)
    assert "\n" not in message and f"after {redis_index.OPEN_ATTEMPTS} tries" in message
    retries = [r for r in caplog.records if "cannot be reached" in r.getMessage()]
    assert len(retries) == redis_index.OPEN_ATTEMPTS - 1


def test_revoked_store_keys_show_in_readyz_and_the_banner(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The logs on object storage (fsspec's memory filesystem here); the keys are revoked
    while the web process runs: its listing is refused (as S3's AccessDenied)."""
    fsspec = pytest.importorskip("fsspec")
    from dash_insight.core import operations
    from dash_insight.core.settings import Settings
    from dash_insight.default import create_app

    memory, base = fsspec.filesystem("memory"), f"memory://revoked-{os.getpid()}/logs"
    with SummaryWriter(tmp_path / "j") as writer:
        writer.add_scalar("loss", 1.0, 1)
    for path in (tmp_path / "j").iterdir():
        memory.put(str(path), f"{base}/j/{path.name}")
    settings = Settings(summary_base_dir=base, index=redis_url, workspace=str(tmp_path / "ws"))
    app = create_app(settings)
    try:
        client = app.server.test_client()
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.get_json()["checks"]["store"]["ok"]

        def refused(*args: object, **kwargs: object) -> None:
            raise PermissionError("AccessDenied: the access key was revoked")

        monkeypatch.setattr(type(memory), "ls", refused)
        monkeypatch.setattr(operations, "STORE_CHECK_SECONDS", 0.0)
        ready = client.get("/readyz")
        assert ready.status_code == 503
        store = ready.get_json()["checks"]["store"]
        assert not store["ok"] and "AccessDenied" in store["detail"]
        health = client.get("/v1/dash-insight/loader").get_json()
        assert health["state"] == "stalled" and health["reason"] == "permission"
        assert "AccessDenied" in health["detail"]
    finally:
        app.data_service.close()
        monkeypatch.undo()
        memory.rm(f"memory://revoked-{os.getpid()}", recursive=True)
