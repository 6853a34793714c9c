"""Issue #41 item 4, degraded not down: a web process of a fleet while its Redis is stopped for
20 s answers from what it holds (``load_status`` "index_unreachable", the loader health
stalled with the store unreachable) or 503 with ``Retry-After`` for what it never held; never
500, and its log says so once when Redis goes and once when it is back, without tracebacks.
Redis runs with append-only persistence (the recipe's): after the restart every answer is
complete at once."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from dash.testing.wait import until

from dash_insight.core.format.writer import SummaryWriter
from tests.ports import free_port

pytestmark = [pytest.mark.fleet, pytest.mark.slow]
redis_index = pytest.importorskip("dash_insight.core.store.redis_index")

CLI = [sys.executable, "-m", "dash_insight.cli"]
OUTAGE_SECONDS = 20.0


class PersistentRedis:
    """A redis-server with append-only persistence in ``directory`` that can be stopped and
    started again on the same port."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server", path="/usr/bin:/usr/sbin:/usr/local/bin")
        if binary is None:
            pytest.skip("redis-server not installed")
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        client = redis.Redis.from_url(self.url)
        until(lambda: _pings(client), timeout=30, msg="redis-server did not start")
        client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(30)


def _pings(client: object) -> bool:
    try:
        return bool(client.ping())  # type: ignore[attr-defined]
    except Exception:
        return False


def _get(port: int, path: str) -> tuple[int, dict[str, object], dict[str, str]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}"), dict(error.headers)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[PersistentRedis]:
    (tmp_path / "redis").mkdir()
    server = PersistentRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_redis_outage_is_degraded_service_not_500(
    redis_server: PersistentRedis, tmp_path: Path
) -> None:
    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.settings import Settings

    base = tmp_path / "base"
    for name in ("a", "b"):
        with SummaryWriter(base / name) as writer:
            for step in range(50):
                writer.add_scalar("loss", step / 10, step)
                writer.add_scalar("lr", 0.1, step)
    settings = Settings(summary_base_dir=str(base), index=redis_server.url)
    store = redis_index.RedisIndexStore(redis_server.url, settings.base_dir)
    fleet = FleetLoading(settings, store)
    for train_id in fleet.discover() or ():
        fleet.load(train_id)
    store.close()

    port, workspace = free_port(), tmp_path / "web"
    options = ["--index", redis_server.url, "--summary-base-dir", str(base)]
    options += ["--workspace", str(workspace), "--reload-interval", "1", "--port", str(port)]
    done = subprocess.run([*CLI, "start", *options], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    log = workspace / "log" / f"server.{port}.log"
    jobs = "/v1/mindinsight/datavisual/train-jobs"
    try:
        status, answer, _ = _get(port, jobs)
        assert status == 200 and answer["total"] == 2 and answer["load_status"] == "loaded"
        tags = {job["train_id"]: job["plugins"]["scalar"] for job in answer["train_jobs"]}  # type: ignore[attr-defined]
        scalars = "/v1/mindinsight/datavisual/scalars?train_id={}&tag={}"
        held = scalars.format("./a", next(tag for tag in tags["./a"] if "loss" in tag))
        never_held = scalars.format("./b", next(tag for tag in tags["./b"] if "lr" in tag))
        status, answer, _ = _get(port, held)
        assert status == 200 and len(answer["scalars"][0]["values"]) == 50  # type: ignore[index]

        redis_server.stop()
        statuses: dict[str, list[int]] = {jobs: [], held: [], never_held: []}
        deadline = time.monotonic() + OUTAGE_SECONDS
        while time.monotonic() < deadline:
            for path, seen in statuses.items():
                status, answer, headers = _get(port, path)
                seen.append(status)
                if path == jobs:
                    assert answer["total"] == 2 and answer["load_status"] == "index_unreachable"
                elif status == 503:
                    assert int(headers["Retry-After"]) > 0, headers
            _, health, _ = _get(port, "/v1/dash-insight/loader")
            assert health["state"] == "stalled" and health["reason"] == "store_unreachable"
            time.sleep(0.2)
        assert set(statuses[jobs]) == {200} and set(statuses[held]) == {200}, statuses
        assert set(statuses[never_held]) == {503}, statuses
        redis_server.start()  # with its append-only file: every answer complete at once
        until(lambda: _get(port, never_held)[0] == 200, timeout=30)
        assert len(_get(port, never_held)[1]["scalars"][0]["values"]) == 50  # type: ignore[index]
        status, answer, _ = _get(port, jobs)
        assert status == 200 and answer["load_status"] == "loaded" and answer["total"] == 2
    finally:
        subprocess.run(
            [*CLI, "stop", "--port", str(port), "--workspace", str(workspace)],
            capture_output=True,
            timeout=60,
        )
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
    assert text.count("the index cannot be reached") == 1, text[-3000:]
    assert text.count("the index can be reached again") == 1, text[-3000:]
