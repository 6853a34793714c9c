"""Concurrency: 32 clients on mixed REST endpoints for 30 s while a writer appends to a job.

A real server process (``python -m dash_insight.server``, waitress, 8 threads) serves a base
directory generated here with dash-insight's own ``SummaryWriter`` (in a temporary folder): four
finished jobs of scalars, images, histograms and tensors, and one live job that a writer thread
keeps appending to (every value kind, one step every ``--write-every`` seconds, flushed). The
server reloads every second, so requests run while the loader indexes new records.

``--clients`` threads (default 32), each with its own keep-alive connection, send requests drawn
in turn from a mix of the endpoints the pages use (summary list, plugins, scalars one and many,
histograms, tensors with statistics and a data slice, image list and image, lineage search,
scalar export) against the finished jobs and the live one, for ``--seconds`` (default 30).
Printed: requests, throughput, p50 / p99 / max latency overall and per endpoint, errors (any
answer other than 200, or a failed connection), and the server's resident memory after a warm-up
(``--warmup`` seconds, caches filled), at the end and at its peak: growth = end / after warm-up
- 1. Targets: 0 errors, RSS growth < 20 %. The machine's core count and load average are printed
beside the figures: the clients run on the same (shared) machine as the server.

    python bench/load_concurrency.py [--clients 32] [--seconds 30] [--warmup 5]
                                     [--write-every 0.2] [--keep]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import psutil
from machine import free_port, machine, recorded  # bench/, beside this script

from dash_insight import SummaryWriter

FINISHED_JOBS = 4
STEPS = 100
TARGET_ERRORS = 0
TARGET_RSS_GROWTH = 0.20
START_TIMEOUT = 120.0


def record_step(writer: SummaryWriter, step: int, rng: np.random.Generator) -> None:
    """One step of every value kind the pages show."""
    writer.add_scalar("loss", float(np.exp(-step / 50) + rng.normal(0, 0.01)), step)
    writer.add_scalar("accuracy", float(1 - np.exp(-step / 30)), step)
    writer.add_histogram("fc.weight", rng.normal(0, 1, 2000).astype(np.float32), step)
    writer.add_tensor("conv.weight", rng.normal(0, 1, (16, 32)).astype(np.float32), step)
    if step % 5 == 0:
        writer.add_image("input", rng.random((2, 3, 32, 32)).astype(np.float32), step)
    writer.record(step)


def generate(base: str) -> None:
    rng = np.random.default_rng(7)
    for number in range(FINISHED_JOBS):
        with SummaryWriter(os.path.join(base, f"run{number}"), host="bench") as writer:
            writer.add_train_lineage(
                learning_rate=0.01 * (number + 1), batch_size=32, epoch=10, loss=0.1 * (number + 1)
            )
            for step in range(1, STEPS + 1):
                record_step(writer, step, rng)


class Writer(threading.Thread):
    """Appends one step of everything to ``base/live`` every ``every`` seconds until stopped."""

    def __init__(self, base: str, every: float) -> None:
        super().__init__(name="bench-writer", daemon=True)
        self.path = os.path.join(base, "live")
        self.every = every
        self.steps = 0
        self.stop_now = threading.Event()
        self._writer = SummaryWriter(self.path, host="bench")
        self._rng = np.random.default_rng(11)
        for _ in range(5):  # something to serve before the clients start
            self.write_one()

    def write_one(self) -> None:
        self.steps += 1
        record_step(self._writer, self.steps, self._rng)
        self._writer.flush()

    def run(self) -> None:
        while not self.stop_now.wait(self.every):
            self.write_one()
        self._writer.close()


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, seconds: float, error: str | None) -> None:
        with self.lock:
            self.latencies[name].append(seconds)
            if error is not None:
                self.errors[name].append(error)


Request = tuple[str, str, str, bytes | None]  # (name, method, path, body)
API = "/v1/mindinsight/datavisual"


def request_mix() -> list[Request]:
    """One of each request the pages send, on finished jobs and on the live one."""
    mix: list[Request] = []
    lineage = json.dumps({"sorted_name": "summary_dir", "limit": 10, "offset": 0}).encode()
    mix.append(("train-jobs", "GET", f"{API}/train-jobs?offset=0&limit=999", None))
    mix.append(("lineage", "POST", "/v1/mindinsight/lineagemgr/lineages", lineage))
    for train_id in ("./run0", "./run1", "./live"):
        job = f"train_id={train_id}"
        mix += [
            ("plugins", "GET", f"{API}/plugins?{job}&manual_update=true", None),
            ("scalar", "GET", f"{API}/scalar/metadata?{job}&tag=loss/scalar", None),
            ("scalars", "GET", f"{API}/scalars?{job}&tag=loss/scalar&tag=accuracy/scalar", None),
            ("histograms", "GET", f"{API}/histograms?{job}&tag=fc.weight/histogram", None),
            (
                "tensor-stats",
                "GET",
                f"{API}/tensors?{job}&tag=conv.weight/tensor&detail=stats",
                None,
            ),
            (
                "tensor-data",
                "GET",
                f"{API}/tensors?{job}&tag=conv.weight/tensor&detail=data&step=-1&dims=[:,:]",
                None,
            ),
            ("image-list", "GET", f"{API}/image/metadata?{job}&tag=input/image", None),
            ("image", "GET", f"{API}/image/single-image?{job}&tag=input/image&step=-1", None),
            (
                "export",
                "GET",
                f"/v1/dash-insight/export/scalars?{job}&tag=loss/scalar&format=csv",
                None,
            ),
        ]
    return mix


def client(port: int, mix: list[Request], offset: int, deadline: float, stats: Stats) -> None:
    """Send the mix in turn (starting at ``offset``) until ``deadline``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    position = offset
    while time.monotonic() < deadline:
        name, method, path, body = mix[position % len(mix)]
        position += 1
        headers = {"Content-Type": "application/json"} if body is not None else {}
        started = time.perf_counter()
        error = None
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            if response.status != 200:
                error = f"{response.status} {payload[:200]!r}"
        except (OSError, http.client.HTTPException) as failure:
            error = f"{type(failure).__name__}: {failure}"
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        stats.add(name, time.perf_counter() - started, error)
    connection.close()


def start_server(base: str, workspace: str) -> tuple[subprocess.Popen[bytes], int, str]:
    port = free_port()
    log = os.path.join(workspace, "server.log")
    os.makedirs(workspace, exist_ok=True)
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dash_insight.server",
                "--port",
                str(port),
                "--summary-base-dir",
                base,
                "--workspace",
                os.path.join(workspace, "ws"),
                "--reload-interval",
                "1",
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            with open(log) as handle:
                raise SystemExit(f"the server exited: {handle.read()}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", f"{API}/train-jobs?limit=999")
            if b'"load_status": "loaded"' in connection.getresponse().read():
                return process, port, log
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the server did not load within {START_TIMEOUT:.0f} s")


def sample_rss(
    process: psutil.Process, stop: threading.Event, record: Callable[[float, int], None]
) -> None:
    while not stop.is_set():
        try:
            record(time.monotonic(), int(process.memory_info().rss))
        except psutil.Error:
            return
        stop.wait(0.25)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def report(
    stats: Stats, seconds: float, rss: list[tuple[float, int]], warm_at: float, writer: Writer
) -> bool:
    every = [s for values in stats.latencies.values() for s in values]
    errors = sum(len(e) for e in stats.errors.values())
    print(f"\n{'endpoint':<14}{'requests':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
    for name in sorted(stats.latencies):
        values = stats.latencies[name]
        print(
            f"{name:<14}{len(values):>9}{percentile(values, 50) * 1e3:>9.1f}"
            f"{percentile(values, 99) * 1e3:>9.1f}{max(values) * 1e3:>9.1f}"
            f"{len(stats.errors[name]):>8}"
        )
    print(f"\nrequests: {len(every):,} in {seconds:.1f} s = {len(every) / seconds:.1f} req/s")
    print(
        f"latency: p50 {percentile(every, 50) * 1e3:.1f} ms, p99 "
        f"{percentile(every, 99) * 1e3:.1f} ms, max {max(every) * 1e3:.1f} ms"
    )
    print(f"errors: {errors} (target {TARGET_ERRORS})")
    for name, messages in stats.errors.items():
        for message in messages[:3]:
            print(f"  {name}: {message}")
    warm = [value for when, value in rss if when >= warm_at]
    baseline, end, peak = warm[0], warm[-1], max(value for _, value in rss)
    growth = end / baseline - 1
    print(
        f"server RSS: {baseline / 2**20:.0f} MB after warm-up, {end / 2**20:.0f} MB at the end, "
        f"peak {peak / 2**20:.0f} MB: growth {growth * 100:+.1f} % "
        f"(target < {TARGET_RSS_GROWTH * 100:.0f} %)"
    )
    print(f"writer: {writer.steps} steps appended to ./live during the run")
    return errors <= TARGET_ERRORS and growth < TARGET_RSS_GROWTH


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--warmup", type=float, default=5.0, help="seconds of load before the RSS baseline is taken"
    )
    parser.add_argument(
        "--write-every",
        type=float,
        default=0.2,
        help="seconds between the steps the writer appends",
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated folder")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="dash-insight-concurrency-")
    base = os.path.join(scratch, "logs")
    print(f"machine: {machine()}")
    print(f"generating {FINISHED_JOBS} jobs x {STEPS} steps in {base}", flush=True)
    generate(base)
    writer = Writer(base, args.write_every)
    process, port, log = start_server(base, scratch)
    server = psutil.Process(process.pid)
    rss: list[tuple[float, int]] = []
    stop_sampling = threading.Event()
    sampler = threading.Thread(
        target=sample_rss,
        daemon=True,
        args=(server, stop_sampling, lambda t, v: rss.append((t, v))),
    )
    ok = False
    try:
        sampler.start()
        writer.start()
        stats = Stats()
        mix = request_mix()
        print(
            f"{args.clients} clients x {len(mix)} kinds of request for {args.seconds:g} s, "
            f"server pid {process.pid} on port {port}",
            flush=True,
        )
        started = time.monotonic()
        deadline = started + args.seconds
        clients = [
            threading.Thread(target=client, args=(port, mix, n * 7, deadline, stats))
            for n in range(args.clients)
        ]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        elapsed = time.monotonic() - started
        writer.stop_now.set()
        writer.join()
        stop_sampling.set()
        sampler.join()
        ok = report(stats, elapsed, rss, started + args.warmup, writer)
    finally:
        writer.stop_now.set()
        stop_sampling.set()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
        print(f"machine after: {machine()}")
        if args.keep:
            print(f"kept {scratch} (server log {log})")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print("OK" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
