"""The real CLI: `dash-insight start` in the background, REST queries, `dash-insight stop`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "dash_insight.cli"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def _get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def test_start_query_stop(corpus: Path, tmp_path: Path) -> None:
    port, workspace = _free_port(), str(tmp_path / "ws")
    started = _run("start", "--port", str(port), "--workspace", workspace,
                   "--summary-base-dir", str(corpus), "--reload-interval", "0")
    assert started.returncode == 0, started.stderr
    assert f"http://127.0.0.1:{port}/" in started.stdout
    pid_file = tmp_path / "ws" / "pid" / f"server.{port}.pid"
    assert pid_file.exists() and (tmp_path / "ws" / "log" / f"server.{port}.log").exists()
    try:
        api = f"http://127.0.0.1:{port}/v1/mindinsight/datavisual"
        deadline = time.time() + 60
        while time.time() < deadline:
            jobs = _get_json(f"{api}/train-jobs?offset=0&limit=999")
            if jobs["total"] == 9 and jobs["load_status"] == "loaded":
                break  # every byte of every job read (a job of 3 files loads in 3 passes)
            time.sleep(0.3)
        assert jobs["total"] == 9
        scalars = _get_json(f"{api}/scalar/metadata?train_id=./multi_file&tag=loss/scalar")
        assert len(scalars["metadatas"]) == 300
        again = _run("start", "--port", str(port), "--workspace", workspace,
                     "--summary-base-dir", str(corpus))
        assert again.returncode == 1 and "already runs" in again.stderr
    finally:
        stopped = _run("stop", "--port", str(port), "--workspace", workspace)
    assert stopped.returncode == 0, stopped.stderr
    assert not pid_file.exists()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
    assert _run("stop", "--port", str(port), "--workspace", workspace).returncode == 1


def test_clear_errors(tmp_path: Path) -> None:
    missing = _run("start", "--summary-base-dir", str(tmp_path / "nope"), "--workspace",
                   str(tmp_path / "ws"))
    assert missing.returncode == 2
    assert "summary base directory not found" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1

    bad = _run("start", "--port", "abc")
    assert bad.returncode == 2 and "port must be an integer" in bad.stderr
    bad_interval = _run("start", "--reload-interval", "-1")
    assert bad_interval.returncode == 2 and "reload interval" in bad_interval.stderr
    bad_samples = _run("start", "--samples-per-plugin", "audio=3")
    assert bad_samples.returncode == 2 and "samples-per-plugin" in bad_samples.stderr

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run("start", "--port", str(port), "--workspace", str(tmp_path / "ws"),
                      "--summary-base-dir", str(tmp_path))
    assert result.returncode == 1 and f"port {port} is already in use" in result.stderr


def test_version_and_help() -> None:
    version = _run("--version")
    assert version.returncode == 0 and version.stdout.startswith("dash-insight ")
    for command in ([], ["start"], ["stop"], ["inspect"]):
        shown = _run(*command, "--help")
        assert shown.returncode == 0 and "usage:" in shown.stdout


def test_foreground_app_py_help() -> None:
    done = subprocess.run([sys.executable, "app.py", "--help"], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent, timeout=60,
                          env={**os.environ})
    assert done.returncode == 0 and "--summary-base-dir" in done.stdout
