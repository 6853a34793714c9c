"""Fleet loading: 1,000 jobs loaded by 1, 2 and 4 Celery workers into a Redis index, while two
web processes on that index answer ``train-jobs`` and ``scalars``.

The jobs are the first 1,000 of ``bench/load.py``'s 1,200-job layout (10 groups x 100 small
jobs: one summary file of 5 scalars x 10 steps and one lineage file each), hard-linked into
``bench/data/fleet_jobs_1000/``. For each worker count, with a fresh ``redis-server`` on a free
port (``--save ""``, no persistence):

1. two web processes (``python -m dash_insight.server --index redis://...``) are started and
   answer;
2. the workers are started (``dash-insight worker --pool solo``, one of them ``--beat``, every
   second a discovery) and the clock runs until every job's state in Redis says loaded;
3. meanwhile two client threads (one per web process) alternate ``train-jobs`` (page of 10) and
   ``scalars`` of a random job's ``metric_0``, measuring the whole request.

Prints jobs/s and MB/s (file bytes / seconds, from the workers' start, Celery's start-up
included) per worker count, and the p50 / p99 of both requests over the loading, with the load
average beside them: the machine is shared.

    python bench/fleet.py [--workers 1,2,4] [--jobs 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from load import DATA_DIR, small_jobs, tree_bytes  # bench/, beside this script
from machine import free_port, machine, recorded

from dash_insight.core.store.redis_index import RedisIndexStore
from dash_insight.core.store.state import STATUS_LOADED

CLI = [sys.executable, "-m", "dash_insight.cli"]


def fleet_jobs(count: int) -> str:
    """``count`` jobs of the 1,200-job layout, hard-linked into a base directory of their own."""
    directory = os.path.join(DATA_DIR, f"fleet_jobs_{count}")
    if os.path.isdir(directory):
        return directory
    source = small_jobs()
    jobs = sorted(str(path.parent) for path in Path(source).glob("group_*/job_*/*_MS"))
    scratch = directory + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    for job in jobs[:count]:
        target = os.path.join(scratch, os.path.relpath(job, source))
        os.makedirs(target)
        for name in os.listdir(job):
            os.link(os.path.join(job, name), os.path.join(target, name))
    os.rename(scratch, directory)
    return directory


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Clients:
    """One thread per web process: ``train-jobs`` and ``scalars`` in turn until stopped."""

    def __init__(self, ports: list[int], train_ids: list[str]) -> None:
        self.times: dict[str, list[float]] = {"train-jobs": [], "scalars": []}
        self.errors = 0
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(port, train_ids)) for port in ports
        ]

    def _run(self, port: int, train_ids: list[str]) -> None:
        rng = random.Random(port)
        paths = {
            "train-jobs": lambda: "datavisual/train-jobs?offset=0&limit=10",
            "scalars": lambda: (
                f"datavisual/scalars?train_id={rng.choice(train_ids)}&tag=metric_0/scalar"
            ),
        }
        while not self._stop.is_set():
            for name, path in paths.items():
                started = time.perf_counter()
                try:
                    with urllib.request.urlopen(
                        f"http://127.0.0.1:{port}/v1/mindinsight/{path()}", timeout=60
                    ) as answer:
                        answer.read()
                except OSError:  # refused, timed out or not 200
                    self.errors += 1
                self.times[name].append(time.perf_counter() - started)

    def __enter__(self) -> Clients:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(120)


def wait_answer(port: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/v1/mindinsight/datavisual/train-jobs", timeout=5
            ):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the web process on {port} did not answer")


def all_loaded(store: RedisIndexStore, train_ids: list[str]) -> bool:
    if len(store.job_versions()) < len(train_ids):
        return False
    states = store.load_jobs(train_ids)
    return len(states) == len(train_ids) and all(
        state.status == STATUS_LOADED for state in states.values()
    )


def run(base: str, workers: int, train_ids: list[str]) -> dict[str, float]:
    """One measurement with ``workers`` workers, everything started fresh."""
    root = tempfile.mkdtemp(prefix="dash-insight-fleet-bench-")
    redis_port = free_port()
    url = f"redis://127.0.0.1:{redis_port}/0"
    processes: list[subprocess.Popen[bytes]] = []
    redis = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(redis_port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            root,
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        store = _connect(url, base)
        common = ["--index", url, "--summary-base-dir", base, "--reload-interval", "1"]
        ports = [free_port() for _ in range(2)]
        for number, port in enumerate(ports):
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "dash_insight.server",
                        *common,
                        "--port",
                        str(port),
                        "--workspace",
                        os.path.join(root, f"web{number}"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        for port in ports:
            wait_answer(port)
        with Clients(ports, train_ids) as clients:
            started = time.perf_counter()
            for number in range(workers):
                processes.append(
                    subprocess.Popen(
                        [
                            *CLI,
                            "worker",
                            *common,
                            "--workspace",
                            os.path.join(root, f"w{number}"),
                            "--pool",
                            "solo",
                            "--loglevel",
                            "WARNING",
                            *(["--beat"] if number == 0 else []),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        start_new_session=True,
                    )
                )
            while not all_loaded(store, train_ids):
                time.sleep(0.25)
            seconds = time.perf_counter() - started
        store.close()
        return {
            "seconds": seconds,
            "load": os.getloadavg()[0],
            "errors": clients.errors,
            **{
                f"{name} p50": percentile(times, 0.5) * 1000
                for name, times in clients.times.items()
            },
            **{
                f"{name} p99": percentile(times, 0.99) * 1000
                for name, times in clients.times.items()
            },
            "requests": sum(len(times) for times in clients.times.values()),
        }
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
        redis.terminate()
        redis.wait(10)
        shutil.rmtree(root, ignore_errors=True)


def _connect(url: str, base: str) -> RedisIndexStore:
    deadline = time.monotonic() + 30
    while True:
        try:
            return RedisIndexStore(url, base)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--jobs", type=int, default=1000)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("redis-server not found (apt-get install redis-server)", file=sys.stderr)
        return 2
    base = fleet_jobs(args.jobs)
    train_ids = sorted(
        "./" + os.path.relpath(str(path), base) for path in Path(base).glob("group_*/job_*")
    )
    size = tree_bytes(base)
    print(f"{len(train_ids)} jobs, {size / 1e6:.1f} MB; {machine()}", flush=True)
    results = {}
    for workers in (int(n) for n in args.workers.split(",")):
        result = run(base, workers, train_ids)
        results[workers] = result
        print(
            f"{workers} worker(s): {len(train_ids) / result['seconds']:.1f} jobs/s, "
            f"{size / 1e6 / result['seconds']:.2f} MB/s ({result['seconds']:.1f} s); "
            f"train-jobs p50 {result['train-jobs p50']:.0f} ms p99 "
            f"{result['train-jobs p99']:.0f} ms, scalars p50 {result['scalars p50']:.0f} ms "
            f"p99 {result['scalars p99']:.0f} ms over {result['requests']} requests "
            f"({result['errors']} failed); load average "
            f"{result['load']:.2f}; {machine()}",
            flush=True,
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
