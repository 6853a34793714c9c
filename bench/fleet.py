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

``--index`` measures the index instead (issue #41 item 6): the bytes Redis holds per scalar
value of ``bench/load.py``'s series job (target <= 6), and a discovery round with nothing
changed at 1,000 and 10,000 jobs written by ``SummaryWriter`` (target <= 3 s, the beat's
default interval), beside what reading every job's state (the discovery before change marks)
costs; MISSED beside a figure over its target.

    python bench/fleet.py --index [--series-tags 4 --series-steps 250000]
        [--discovery-jobs 1000,10000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from load import DATA_DIR, small_jobs, tree_bytes  # bench/, beside this script
from machine import free_port, machine, recorded, timed

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


# --- the index itself (--index): bytes per value, discovery at 1,000 and 10,000 jobs ----------

#: Issue #41 item 6's targets: bytes of Redis values per scalar value of the series job, and
#: one discovery round (nothing changed) within the beat's default interval at 10,000 jobs.
BYTES_PER_VALUE_TARGET = 6.0
DISCOVERY_TARGET_SECONDS = 3.0


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A fresh redis-server (no persistence) on a free port; yields its URL."""
    root = tempfile.mkdtemp(prefix="dash-insight-index-bench-")
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", root],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # listening: no retry warnings from the store
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
        shutil.rmtree(root, ignore_errors=True)


def value_bytes(store: RedisIndexStore) -> tuple[int, int]:
    """(bytes of every chunk value, bytes of every summary value) of the index."""
    totals = {"chunk": 0, "lod": 0}
    for key in store.client.scan_iter(match=store.prefix + "*", count=1000):
        kind = key.decode()[len(store.prefix) :].split("\x1f", 1)[0]
        if kind in totals:
            totals[kind] += int(store.client.strlen(key))
    return totals["chunk"], totals["lod"]


def bytes_per_value(tags: int, steps: int) -> bool:
    """Load ``bench/load.py``'s series job (``tags`` x ``steps``) into a Redis index and print
    the bytes Redis holds per scalar value; False when over the target."""
    from load import generate_series_job

    from dash_insight.core.store.loader import Loader

    base = generate_series_job(os.path.join(DATA_DIR, f"fleet_series_{tags}x{steps}"), tags, steps)
    with redis_server() as url:
        store = _connect(url, base)
        started = time.perf_counter()
        Loader(base, store, reload_interval=0).load_round()
        seconds = time.perf_counter() - started
        chunks, summaries = value_bytes(store)
        store.close()
    values = tags * steps
    per_value = (chunks + summaries) / values
    ok = per_value <= BYTES_PER_VALUE_TARGET
    print(
        f"series job {tags} tags x {steps:,} steps ({values:,} values, loaded in {seconds:.1f} s): "
        f"{per_value:.2f} bytes/value in Redis (chunks {chunks / values:.2f} + summaries "
        f"{summaries / values:.2f}; target <= {BYTES_PER_VALUE_TARGET:g})"
        f"{'' if ok else ' MISSED'}; {machine()}",
        flush=True,
    )
    return ok


def discovery_jobs(count: int) -> str:
    """``count`` small jobs written with ``SummaryWriter`` (5 scalars x 3 steps each), once."""
    from dash_insight.core.format.writer import SummaryWriter

    directory = os.path.join(DATA_DIR, f"fleet_discovery_{count}")
    if os.path.isdir(directory):
        return directory
    scratch = directory + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    for job in range(count):
        with SummaryWriter(
            os.path.join(scratch, f"group_{job // 1000:02d}", f"job_{job:05d}")
        ) as w:
            for step in range(3):
                for tag in range(5):
                    w.add_scalar(f"metric_{tag}", float(job + step + tag), step)
    os.rename(scratch, directory)
    return directory


def discovery_time(count: int, rounds: int = 5) -> bool:
    """Index ``count`` jobs in Redis, then time discovery rounds with nothing changed (the
    incremental comparison of change marks) and, for comparison, the whole-state read every
    round used to cost; False when a round is over the target at 10,000 jobs."""
    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.settings import Settings
    from dash_insight.core.store.loader import Loader

    base = discovery_jobs(count)
    with redis_server() as url:
        store = _connect(url, base)
        started = time.perf_counter()
        Loader(base, store, reload_interval=0).load_round()
        indexed = time.perf_counter() - started
        fleet = FleetLoading(Settings(summary_base_dir=base, index=url), store)
        assert fleet.discover() == []  # everything indexed: nothing to queue
        train_ids = [train_id for train_id, _, _ in store.job_list()]
        assert len(train_ids) == count, len(train_ids)
        discover = timed(fleet.discover, rounds)
        whole = timed(lambda: store.load_jobs(train_ids), rounds)
        used = int(store.client.info("memory")["used_memory"])
        store.close()
    ok = count < 10_000 or discover <= DISCOVERY_TARGET_SECONDS
    print(
        f"{count:,} jobs (indexed in {indexed:.1f} s, Redis {used / 1e6:.0f} MB): a discovery "
        f"round with nothing changed {discover * 1000:.0f} ms (listing + change marks; target "
        f"<= {DISCOVERY_TARGET_SECONDS:g} s at 10,000), reading every job's state as before "
        f"{whole * 1000:.0f} ms{'' if ok else ' MISSED'}; {machine()}",
        flush=True,
    )
    return ok


def index_bench(args: argparse.Namespace) -> int:
    ok = bytes_per_value(args.series_tags, args.series_steps)
    for count in (int(n) for n in args.discovery_jobs.split(",")):
        ok = discovery_time(count) and ok
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument(
        "--index",
        action="store_true",
        help="measure the index: bytes per value of the series job, discovery time per round",
    )
    parser.add_argument("--series-tags", type=int, default=4)
    parser.add_argument("--series-steps", type=int, default=250_000)
    parser.add_argument("--discovery-jobs", default="1000,10000")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("redis-server not found (apt-get install redis-server)", file=sys.stderr)
        return 2
    if args.index:
        return index_bench(args)
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
