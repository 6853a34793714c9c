"""REST speed of the scalar endpoints: ``scalar/metadata``, ``scalars`` and the export, for a tag
of 20,000 and of 1,000,000 steps, at 1 and at 8 concurrent clients.

Writes (once; cached under ``bench/data/rest/``, git-ignored) two jobs with the house
``SummaryWriter``: ``./r20k`` (tag ``loss``, 20,000 steps) and ``./r1m`` (1,000,000 steps). Serves
them with ``python -m dash_insight.server`` (waitress, 8 threads, as ``dash-insight start``) in a
subprocess, warms each answer once (the merged series and the encoded answer are then kept;
that first request's server time is printed as ``first ms``), then for each request:

* **server time**: p50 / p99 of the request time the server's access log records (from the
  request received to the last byte of the answer handed to the socket);
* **bytes** of the answer;
* **requests/s** at 1 client (sequential requests) and at 8 clients (8 threads of this process,
  each with its own connection), measured as answers completed / wall seconds.

The machine's core count and load average are printed beside the figures: this machine is shared,
so a loaded one is slower. Targets (issue #18): 20,000 points < 15 ms server time.

    PYTHONPATH=. .venv/bin/python bench/rest.py [--requests N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import urlencode

import numpy as np
from machine import free_port, machine, recorded  # bench/, beside this script

from dash_insight import SummaryWriter

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PYTHON = sys.executable
TARGET_20K_MS = 15.0


def write_job(directory: str, steps: int, values: np.ndarray | None = None) -> None:
    """One job of one scalar tag ``loss`` (written to a scratch folder renamed at the end, so an
    interrupted run never looks complete)."""
    if os.path.isdir(directory):
        return
    scratch = directory + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    if values is None:
        values = (np.sin(np.arange(1, steps + 1) / 500) + 2).astype(np.float32)
    print(f"writing {steps:,} steps to {directory} (once) ...", flush=True)
    started = time.perf_counter()
    with SummaryWriter(scratch, host="bench") as writer:
        for step, value in zip(range(1, steps + 1), values.tolist(), strict=True):
            writer.add_value("scalar", "loss", value)
            writer.record(step)
    os.rename(scratch, directory)
    print(f"  written in {time.perf_counter() - started:.0f} s", flush=True)


class Server:
    """``python -m dash_insight.server`` on a base directory, with its access log read back.

    The loader keeps its default reload interval: with ``--reload-interval 0`` a server polled
    while it loads was seen to keep an empty job list (its one round gone, no loader thread
    left), and a job to vanish under 8 concurrent clients; see the report of issue #18."""

    def __init__(self, base: str, workspace: str, options: Sequence[str] = ()) -> None:
        self.port = free_port()
        self.log_path = os.path.join(workspace, "log", f"access.{self.port}.log")
        self.process = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "dash_insight.server",
                "--summary-base-dir",
                base,
                "--port",
                str(self.port),
                "--workspace",
                workspace,
                "--access-log-max-bytes",
                "0",
                *options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._lines = 0

    def get(
        self,
        path: str,
        params: dict[str, object] | None = None,
        connection: http.client.HTTPConnection | None = None,
    ) -> tuple[int, bytes]:
        """(status, body) of ``GET path?params`` (a new connection unless one is given)."""
        own = connection is None
        connection = connection or http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        try:
            target = path + ("?" + urlencode(params, doseq=True) if params else "")
            connection.request("GET", target)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            if own:
                connection.close()

    def wait_loaded(self, timeout: float = 3600) -> None:
        """Until the summary list says every job is loaded (``train-jobs``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the server stopped")
            try:
                status, body = self.get("/v1/mindinsight/datavisual/train-jobs")
                answer = json.loads(body) if status == 200 else {}
                jobs = answer.get("train_jobs", [])
                if (
                    answer.get("load_status") == "loaded"
                    and jobs
                    and all(job["cache_status"] == "CACHED" for job in jobs)
                ):
                    return
            except OSError:
                pass
            time.sleep(1)
        raise TimeoutError(f"not loaded after {timeout} s")

    def server_seconds(self) -> list[float]:
        """Request times of the access log lines written since the last call."""
        deadline = time.monotonic() + 5
        lines: list[str] = []
        while time.monotonic() < deadline:  # the line is written after the last byte
            with open(self.log_path) as handle:
                lines = handle.read().splitlines()
            if len(lines) > self._lines:
                break
            time.sleep(0.01)
        new, self._lines = lines[self._lines :], len(lines)
        return [float(line.rsplit(" ", 2)[1]) for line in new]

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextmanager
def serving(base: str) -> Iterator[Server]:
    workspace = tempfile.mkdtemp(prefix="bench-rest-")
    server = Server(base, workspace)
    try:
        yield server
    finally:
        server.close()
        shutil.rmtree(workspace, ignore_errors=True)


def run_clients(
    server: Server, path: str, params: dict[str, object], clients: int, requests: int
) -> tuple[float, list[float], int]:
    """(requests/s, server seconds of each request, bytes of an answer) of ``clients`` threads
    sending ``requests`` requests each over their own connection."""
    server.server_seconds()  # skip what came before
    sizes: list[int] = []
    failures: list[str] = []

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        try:
            for _ in range(requests):
                status, body = server.get(path, params, connection)
                if status != 200:
                    failures.append(f"{status} {body[:200]!r}")
                sizes.append(len(body))
        finally:
            connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    if failures:  # shown beside the figures, which then count only what the server did
        print(
            f"  {len(failures)} of {clients * requests} requests failed, first: {failures[0]}",
            flush=True,
        )
    seconds = server.server_seconds()
    return clients * requests / wall, seconds, max(sizes)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--requests",
        type=int,
        default=30,
        help="requests per client for 20k points (a tenth, at least 3, for 1M)",
    )
    args = parser.parse_args()
    base = os.path.join(DATA, "rest")
    write_job(os.path.join(base, "r20k"), 20_000)
    write_job(os.path.join(base, "r1m"), 1_000_000)
    mi = "/v1/mindinsight/datavisual"
    export = "/v1/dash-insight/export/scalars"
    cases = []
    for job, points in (("./r20k", "20k"), ("./r1m", "1M")):
        one = {"train_id": job, "tag": "loss/scalar"}
        cases += [
            (f"scalar/metadata {points}", f"{mi}/scalar/metadata", one),
            (f"scalars {points}", f"{mi}/scalars", one),
            (f"export csv {points}", export, {"train_id": job, "tag": "loss"}),
            (f"export json {points}", export, {"train_id": job, "tag": "loss", "format": "json"}),
        ]
    cases.append(
        (
            "scalar/metadata 1M, max_points=1000",
            f"{mi}/scalar/metadata",
            {"train_id": "./r1m", "tag": "loss/scalar", "max_points": 1000},
        )
    )
    cases.append(
        (
            "scalar/metadata 1M, a 20k range",
            f"{mi}/scalar/metadata",
            {"train_id": "./r1m", "tag": "loss/scalar", "start_step": 500_001, "end_step": 520_000},
        )
    )
    print(f"machine: {machine()}")
    with serving(base) as server:
        server.wait_loaded()
        print(
            f"{'request':38} {'bytes':>11} {'clients':>7} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'req/s':>7} {'first ms':>9}"
        )
        rows = {}
        for name, path, params in cases:
            server.server_seconds()  # skip what came before
            status, _ = server.get(path, params)  # warm: the series and its answer are kept
            assert status == 200, (name, status)
            first = max(server.server_seconds()) * 1e3
            many = "1M" in name and "max_points" not in name and "range" not in name
            requests = max(3, args.requests // 10) if many else args.requests
            for clients in (1, 8):
                rate, seconds, size = run_clients(server, path, params, clients, requests)
                p50, p99 = percentile(seconds, 0.5) * 1e3, percentile(seconds, 0.99) * 1e3
                rows[(name, clients)] = p50
                shown = f"{first:>9.1f}" if clients == 1 else ""
                print(
                    f"{name:38} {size:>11,} {clients:>7} {p50:>8.1f} {p99:>8.1f} "
                    f"{rate:>7.1f} {shown}",
                    flush=True,
                )
    p50 = rows[("scalar/metadata 20k", 1)]
    verdict = "met" if p50 < TARGET_20K_MS else "MISSED"
    print(
        f"scalar/metadata 20k points, 1 client: {p50:.1f} ms server time p50 "
        f"(target < {TARGET_20K_MS:.0f} ms: {verdict}); machine: {machine()}"
    )
    print(
        "server time: the access log's request time (received to last byte sent); one "
        "server process (waitress, 8 threads); clients are threads of this process"
    )


if __name__ == "__main__":
    recorded(main, __file__)
