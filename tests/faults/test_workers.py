"""Items 1 and 2 under gunicorn: three workers (``dash_insight.wsgi``, the README's line) take
turns loading a base directory where a writer creates 20 jobs and appends to them for 30 s,
while a client reads every listed job; midway the worker that is loading is killed with
SIGKILL. No listed job may be unknown, no answer a 500, and at the end every step is served
exactly once."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from dash_insight.core.format.writer import SummaryWriter
from tests.faults.conftest import free_port

pytestmark = pytest.mark.slow

WORKERS = 3
JOBS = 20
WRITE_SECONDS = 30.0
KILL_AT_JOBS = 10  # the loading worker is killed once this many jobs exist (about 10 s in)
NOT_EXIST = "50545005"
BOOT_TIMEOUT = 120.0
JOBS_PATH = "/v1/mindinsight/datavisual/train-jobs?limit=999"


@dataclass
class Gunicorn:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def get(self, path: str, timeout: float = 30.0) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("GET", path, headers={"Host": "127.0.0.1"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    def workers(self) -> list[psutil.Process]:
        """The worker processes that have loaded the application (their title names it)."""
        ready = []
        for child in psutil.Process(self.process.pid).children():
            try:
                if "dash-insight: port" in " ".join(child.cmdline()):
                    ready.append(child)
            except psutil.Error:
                continue
        return ready


def _wait(condition: Callable[[], object], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def gunicorn(tmp_path: Path) -> Iterator[Gunicorn]:
    """``gunicorn -w 3 --threads 4 dash_insight.wsgi:application`` over ``tmp_path/logs``,
    returned once every worker has loaded the application."""
    base = tmp_path / "logs"
    base.mkdir()
    port = free_port()
    log = tmp_path / "gunicorn.log"
    environment = {
        **os.environ,
        "DASH_INSIGHT_SUMMARY_BASE_DIR": str(base),
        "DASH_INSIGHT_WORKSPACE": str(tmp_path / "ws"),
        "DASH_INSIGHT_RELOAD_INTERVAL": "0.5",
    }
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-w",
                str(WORKERS),
                "--threads",
                "4",
                "-b",
                f"127.0.0.1:{port}",
                "--graceful-timeout",
                "10",
                "dash_insight.wsgi:application",
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=environment,
        )
    server = Gunicorn(process, port, log)
    try:

        def booted() -> bool:
            assert process.poll() is None, log.read_text()
            return len(server.workers()) == WORKERS

        _wait(booted, f"{WORKERS} workers", BOOT_TIMEOUT)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _write(base: Path, steps: dict[str, int], stop: threading.Event) -> None:
    """Create JOBS jobs over the first 60 % of WRITE_SECONDS and append a step to every job
    every 50 ms until WRITE_SECONDS have passed."""
    writers: dict[str, SummaryWriter] = {}
    started = time.monotonic()
    try:
        while (elapsed := time.monotonic() - started) < WRITE_SECONDS and not stop.is_set():
            due = min(JOBS, 1 + int(elapsed / (0.6 * WRITE_SECONDS / JOBS)))
            while len(writers) < due:
                name = f"job{len(writers):02d}"
                writers[name] = SummaryWriter(str(base / name))
                steps[f"./{name}"] = 0
            for name, writer in writers.items():
                step = steps[f"./{name}"] + 1
                writer.add_scalar("loss", 1.0 / step, step)
                writer.record(step)
                writer.flush()
                steps[f"./{name}"] = step
            time.sleep(0.05)
    finally:
        for writer in writers.values():
            writer.close()


@dataclass
class Client:
    """Polls the job list and every listed job's loss; records what must never happen."""

    server: Gunicorn
    not_exist: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    answers: int = 0
    disconnects: int = 0

    def poll(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                status, body = self.server.get(JOBS_PATH)
                if status != 200:
                    self.errors.append(f"train-jobs: {status} {body}")
                    continue
                for job in body["train_jobs"]:
                    self.read(job["train_id"])
            except (OSError, http.client.HTTPException):
                self.disconnects += 1  # a request in flight on the killed worker

    def read(self, train_id: str) -> None:
        status, body = self.server.get(
            f"/v1/mindinsight/datavisual/scalar/metadata?train_id={train_id}&tag=loss/scalar"
        )
        self.answers += 1
        if body.get("error_code") == NOT_EXIST:
            self.not_exist.append(train_id)
        elif status >= 500:
            self.errors.append(f"{train_id}: {status} {body}")
        elif status == 200:
            steps = [point["step"] for point in body["metadatas"]]
            if steps != list(range(1, len(steps) + 1)):  # every step read so far, once
                self.errors.append(f"{train_id}: steps {steps[:5]}... ({len(steps)})")


def _loading_worker(server: Gunicorn, lock_path: Path) -> int | None:
    """The pid of the worker holding the loader lock now (from /proc/locks), or None."""
    try:
        inode = lock_path.stat().st_ino
    except FileNotFoundError:
        return None
    workers = {worker.pid for worker in server.workers()}
    with open("/proc/locks") as handle:
        for line in handle:
            fields = line.split()
            # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a blocked waiter has "->")
            if "FLOCK" in fields and "->" not in fields:
                pid, device_inode = int(fields[4]), fields[5]
                if device_inode.rsplit(":", 1)[-1] == str(inode) and pid in workers:
                    return pid
    return None


def test_three_workers_serve_every_listed_job_through_a_killed_loader(
    tmp_path: Path, gunicorn: Gunicorn
) -> None:
    base = tmp_path / "logs"
    steps: dict[str, int] = {}
    stop_writing, stop_reading = threading.Event(), threading.Event()
    writer = threading.Thread(target=_write, args=(base, steps, stop_writing))
    client = Client(gunicorn)
    reader = threading.Thread(target=client.poll, args=(stop_reading,))
    writer.start()
    reader.start()
    killed: int | None = None
    try:
        _wait(
            lambda: len(steps) >= KILL_AT_JOBS and client.answers, "jobs being read", WRITE_SECONDS
        )
        [lock_path] = (tmp_path / "ws" / "index").glob("*.loader.lock")

        def loader_found() -> bool:
            nonlocal killed
            killed = _loading_worker(gunicorn, lock_path)
            if killed is not None:
                os.kill(killed, signal.SIGKILL)  # mid-round: it holds the loader lock
            return killed is not None

        _wait(loader_found, "a worker holding the loader lock", 15.0)
        writer.join(WRITE_SECONDS * 3)
        assert not writer.is_alive()
        final = dict(steps)
        assert len(final) == JOBS

        def served_exactly() -> bool:
            for train_id, count in final.items():
                status, body = gunicorn.get(
                    f"/v1/mindinsight/datavisual/scalar/metadata?train_id={train_id}"
                    "&tag=loss/scalar"
                )
                if status != 200 or len(body["metadatas"]) != count:
                    return False
                assert [p["step"] for p in body["metadatas"]] == list(range(1, count + 1))
            return True

        _wait(served_exactly, "every step of every job", 60.0)
    finally:
        stop_writing.set()
        stop_reading.set()
        writer.join(30)
        reader.join(60)
    assert client.answers > JOBS, client.answers  # the client did read the jobs meanwhile
    assert client.not_exist == [], f"{len(client.not_exist)} of {client.answers} answers"
    assert client.errors == [], client.errors[:5]
    status, body = gunicorn.get(JOBS_PATH)
    assert status == 200 and body["total"] == JOBS
    log = gunicorn.log.read_text()
    assert f"(pid:{killed}) was sent SIGKILL" in log, log
    assert "Traceback" not in log, log
