"""Fixtures of the fault suite: small summary folders written by dash-insight's own writer and a
real server process (``python -m dash_insight.server``) serving them."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format.writer import SummaryWriter
from tests.ports import free_port

START_TIMEOUT = 300.0  # a deadline, not a wait: loading 30 jobs takes long on a busy machine


def write_job(base: Path, name: str = "job", steps: int = 3) -> Path:
    """``base/name`` with a few scalar steps and a 2 x 3 float tensor per step."""
    job = base / name
    job.mkdir(parents=True, exist_ok=True)
    with SummaryWriter(str(job)) as writer:
        for step in range(1, steps + 1):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.add_tensor("weights", np.arange(6, dtype=np.float32).reshape(2, 3), step)
            writer.record(step)
    return job


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30,
    ) -> Answer:
        """One HTTP request to the server (raw: the Host header is whatever ``headers`` say)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return Answer(
                response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
            )
        finally:
            connection.close()


def start_server(base: Path, workspace: Path, *extra: str, loaded: bool = True) -> Server:
    """A server process over ``base``, returned once every job is loaded (``loaded=False``:
    once it answers)."""
    port = free_port()
    log = workspace.parent / f"server.{port}.log"
    workspace.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dash_insight.server",
                "--port",
                str(port),
                "--summary-base-dir",
                str(base),
                "--workspace",
                str(workspace),
                "--reload-interval",
                "0.5",
                *extra,
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = Server(process, port, log)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            answer = server.request(
                "GET", "/v1/mindinsight/datavisual/train-jobs?limit=999", timeout=5
            )
            if answer.status == 200 and (not loaded or b'"load_status": "loaded"' in answer.body):
                # A layout request waits for the pages' background import (pandas, ~50 MB;
                # dash_insight.web.warm_up), which would otherwise land in what a test measures.
                assert server.request("GET", "/_dash-layout", timeout=START_TIMEOUT).status == 200
                return server
        except OSError:
            pass
        time.sleep(0.1)
    stop_server(server)
    raise AssertionError(f"the server did not load within {START_TIMEOUT} s: {log.read_text()}")


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(30)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """``serve(base, *options)`` starts a server; every one started is stopped at the end."""
    started: list[Server] = []

    def start(base: Path, *extra: str, loaded: bool = True, workspace: str = "") -> Server:
        server = start_server(
            base, tmp_path / (workspace or f"ws{len(started)}"), *extra, loaded=loaded
        )
        started.append(server)
        return server

    yield start
    for server in started:
        stop_server(server)


@pytest.fixture
def summary_base(tmp_path: Path) -> Path:
    base = tmp_path / "logs"
    write_job(base)
    os.utime(base)
    return base
