"""The fleet end to end: a real redis-server, two Celery workers (``dash-insight worker``) and
two web processes (``dash-insight start --index redis://...``) on one base directory, while a
writer creates 20 jobs and appends to them for 30 s. At the end every web process serves every
step of every job exactly once; then one worker is killed (SIGKILL) in the middle of loading a
large file, and the other finishes it: again every step exactly once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psutil
import pytest
from dash.testing.wait import until

from dash_insight.core.format.writer import SummaryWriter
from tests.redis_server import free_port

pytestmark = [pytest.mark.fleet, pytest.mark.slow]
redis_index = pytest.importorskip("dash_insight.core.store.redis_index")
pytest.importorskip(
    "celery", reason="the celery package is not installed (pip install 'dash-insight[fleet]')"
)

JOBS = 20
TAGS = ("loss", "lr")
WRITE_SECONDS = 30.0
CLI = [sys.executable, "-m", "dash_insight.cli"]
Written = dict[tuple[str, str], list[tuple[int, float]]]  # (train_id, tag) -> (step, value)


def value_of(job: int, tag: str, step: int) -> float:
    """Exact in float32 (what summaries store) and different for every job, tag and step."""
    return float(np.float32(job * 1000 + step * 0.5 + (0.25 if tag == "lr" else 0.0)))


class Fleet:
    """The processes of one fleet; everything it started is stopped by :meth:`close`."""

    def __init__(self, redis_url: str, base: Path, root: Path) -> None:
        self.redis_url, self.base, self.root = redis_url, base, root
        self.workers: list[subprocess.Popen[bytes]] = []
        self.web_ports: list[tuple[int, Path]] = []

    def options(self, workspace: Path) -> list[str]:
        return [
            "--index",
            self.redis_url,
            "--summary-base-dir",
            str(self.base),
            "--workspace",
            str(workspace),
            "--reload-interval",
            "1",
        ]

    def start_worker(self, number: int) -> subprocess.Popen[bytes]:
        workspace = self.root / f"worker{number}"
        log = open(self.root / f"worker{number}.log", "ab")  # noqa: SIM115 (kept by Popen)
        process = subprocess.Popen(
            [
                *CLI,
                "worker",
                *self.options(workspace),
                "--pool",
                "solo",
                "--beat",
                "--lease-seconds",
                "5",
                "--task-seconds",
                "20",
                "--slice-bytes",
                "2M",
                "--loglevel",
                "INFO",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.workers.append(process)
        return process

    def start_web(self, number: int) -> int:
        port, workspace = free_port(), self.root / f"web{number}"
        done = subprocess.run(
            [*CLI, "start", *self.options(workspace), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr + done.stdout
        self.web_ports.append((port, workspace))
        return port

    def close(self) -> None:
        for port, workspace in self.web_ports:
            subprocess.run(
                [*CLI, "stop", "--port", str(port), "--workspace", str(workspace)],
                capture_output=True,
                timeout=60,
            )
        for process in self.workers:
            # Its own session: the worker and its embedded beat process.
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(10)
            # Whatever a failed test left behind.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def _session_processes(session: int) -> list[int]:
    """The live processes (not zombies) of the session ``session``."""
    found = []
    for process in psutil.process_iter(["pid", "status"]):
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if process.info["status"] != psutil.STATUS_ZOMBIE and os.getsid(process.pid) == session:
                found.append(process.pid)
    return found


@pytest.fixture
def fleet(redis_url: str, tmp_path: Path) -> Iterator[Fleet]:
    base = tmp_path / "base"
    base.mkdir()
    running = Fleet(redis_url, base, tmp_path)
    try:
        yield running
    finally:
        running.close()
        for log in sorted(tmp_path.glob("worker*.log")):  # shown when the test failed
            print(f"--- {log.name} (end)\n{log.read_text(errors='replace')[-3000:]}")


def get(port: int, path: str) -> dict:
    with urllib.request.urlopen(
        f"http://127.0.0.1:{port}/v1/mindinsight/{path}", timeout=30
    ) as response:
        return json.loads(response.read())


def served(port: int, train_ids: list[str]) -> Written:
    """Every (step, value) of every job and tag the web process on ``port`` serves."""
    jobs = get(port, "datavisual/train-jobs?offset=0&limit=100")["train_jobs"]
    assert {job["train_id"] for job in jobs} <= set(train_ids)
    out: Written = {}
    for job in jobs:
        for tag in job["plugins"]["scalar"]:
            answer = get(port, f"datavisual/scalars?train_id={job['train_id']}&tag={tag}")
            for entry in answer["scalars"]:
                out[(entry["train_id"], entry["tag"].rsplit("/", 1)[0])] = [
                    (point["step"], point["value"]) for point in entry["values"]
                ]
    return out


def complete(fleet: Fleet, written: Written) -> bool:
    """True once every web process serves at least as many points as were written of every
    job and tag (so that the comparison after it shows a doubled step, not a timeout)."""
    train_ids = sorted({train_id for train_id, _ in written})
    for port, _ in fleet.web_ports:
        answer = served(port, train_ids)
        if any(len(answer.get(key, ())) < len(points) for key, points in written.items()):
            return False
    return True


def assert_exactly_once(fleet: Fleet, written: Written, timeout: float) -> None:
    until(
        lambda: complete(fleet, written),
        timeout=timeout,
        poll=1.0,
        msg="the web processes did not serve every written step in time",
    )
    train_ids = sorted({train_id for train_id, _ in written})
    for port, _ in fleet.web_ports:
        assert served(port, train_ids) == written, f"port {port}"


def write_jobs(base: Path, seconds: float, written: Written, failures: list[BaseException]) -> None:
    """20 jobs, two scalar tags each, a step of every job about every 0.2 s for ``seconds``."""
    try:
        writers = [SummaryWriter(base / f"job{job:02d}") for job in range(JOBS)]
        deadline, step = time.monotonic() + seconds, 0
        while time.monotonic() < deadline:
            for job, writer in enumerate(writers):
                for tag in TAGS:
                    writer.add_scalar(tag, value_of(job, tag, step), step)
                writer.flush()
                for tag in TAGS:
                    written.setdefault((f"./job{job:02d}", tag), []).append(
                        (step, value_of(job, tag, step))
                    )
            step += 1
            time.sleep(0.2)
        for writer in writers:
            writer.close()
    except BaseException as error:  # reported by the test
        failures.append(error)


def lease_holder(store: object, train_id: str) -> int | None:
    """The pid of the worker holding ``train_id``'s lease (its token starts with the pid)."""
    token = store.client.get(store._k("lease", f"job|{train_id}"))  # type: ignore[attr-defined]
    return None if token is None else int(token.split(b":")[0])


def test_two_workers_and_two_web_processes_serve_every_step_exactly_once(
    fleet: Fleet, tmp_path: Path
) -> None:
    workers = [fleet.start_worker(1), fleet.start_worker(2)]
    for number in (1, 2):
        fleet.start_web(number)
    written: Written = {}
    failures: list[BaseException] = []
    writer = threading.Thread(
        target=write_jobs, args=(fleet.base, WRITE_SECONDS, written, failures)
    )
    writer.start()
    writer.join(WRITE_SECONDS + 60)
    assert not writer.is_alive() and not failures, failures
    assert len(written) == JOBS * len(TAGS)
    assert_exactly_once(fleet, written, timeout=120)

    # A large job (tensors of 4 MB and one scalar per step), read in 2 MB passes: kill the
    # worker loading it once a pass is committed and more is left to read.
    # Written outside the base directory and moved in whole, so that no worker catches up with
    # the writer: the file is complete (and far from read) when it is first seen.
    big, staging = "./big", tmp_path / "staging"
    with SummaryWriter(staging / "big") as big_writer:
        for step in range(40):
            big_writer.add_tensor("weights", np.full(1 << 20, step, np.float32), step)
            big_writer.add_scalar("loss", value_of(99, "loss", step), step)
    written[(big, "loss")] = [(step, value_of(99, "loss", step)) for step in range(40)]
    (staging / "big").rename(fleet.base / "big")
    store = redis_index.RedisIndexStore(fleet.redis_url, str(fleet.base))
    pids = {process.pid: process for process in workers}

    holders: list[int] = []

    def loading_mid_file() -> bool:
        """A worker holds the job and has committed part of the file, with at least four
        passes left (it cannot finish before it is killed)."""
        state = store.load_jobs([big]).get(big)
        holder = lease_holder(store, big)
        if (
            state is None
            or holder not in pids
            or not any(0 < f.offset < f.size - (8 << 20) for f in state.files.values())
        ):
            return False
        holders.append(holder)
        return True

    until(
        loading_mid_file,
        timeout=120,
        poll=0.005,
        msg="no worker was seen in the middle of the large file",
    )
    victim = pids[holders[-1]]
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    # Its embedded beat (its child, in its session) stops too: no orphaned beat (#41 item 3).
    until(lambda: not _session_processes(victim.pid), timeout=30, msg="the beat outlived it")
    state = store.load_jobs([big])[big]
    assert any(0 < f.offset < f.size for f in state.files.values()), "killed after the end"
    assert_exactly_once(fleet, written, timeout=180)
    survivor = next(p for p in workers if p is not victim)
    assert survivor.poll() is None
    store.close()
