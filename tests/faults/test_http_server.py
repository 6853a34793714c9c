"""Item 13: CSV export, unknown methods, bad --host values and SIGTERM (real server processes
where the item is about the server)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.web.http import SECURITY_HEADERS
from tests.conftest import loaded_app
from tests.faults.conftest import Server, free_port

JOBS = "/v1/mindinsight/datavisual/train-jobs"
LOCAL = {"Host": "127.0.0.1"}


def test_csv_export_does_not_write_formulas(tmp_path: Path) -> None:
    tags = ['=HYPERLINK("http://attacker.example","x")', "+1+1", "-2+3", "@SUM(A1)", "loss"]
    (tmp_path / "logs" / "job").mkdir(parents=True)
    with SummaryWriter(str(tmp_path / "logs" / "job")) as writer:
        for tag in tags:
            writer.add_scalar(tag, -1.5, 1)
        writer.record(1)
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        query = "&".join(f"tag={tag}" for tag in tags).replace("+", "%2B")
        answer = app.server.test_client().get(
            f"/v1/dash-insight/export/scalars?train_id=./job&{query}"
        )
        assert answer.status_code == 200, answer.get_data()
        rows = list(csv.reader(io.StringIO(answer.get_data(as_text=True))))[1:]
        assert [row[1] for row in rows] == ["'" + tag for tag in tags[:4]] + ["loss"]
        assert all(row[4] == "-1.5" for row in rows)  # numbers stay numbers


def test_unknown_methods_get_the_rest_error_and_headers(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    (tmp_path / "logs" / "job").mkdir(parents=True)
    with SummaryWriter(str(tmp_path / "logs" / "job")) as writer:
        writer.add_scalar("loss", 1.0, 1)
        writer.record(1)
    server = serve(tmp_path / "logs")
    for method in ("TRACE", "PROPFIND"):
        answer = server.request(method, JOBS, headers=LOCAL)
        assert answer.status == 405
        assert json.loads(answer.body) == {
            "error_code": "50545002",
            "error_msg": "405 Method Not Allowed.",
        }
        assert answer.headers["allow"] == "GET, HEAD, OPTIONS"
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers[name.lower()] == value
        unknown = server.request(method, "/v1/mindinsight/nothing", headers=LOCAL)
        assert unknown.status == 404 and b"50545001" in unknown.body
        page = server.request(method, "/", headers=LOCAL)
        assert page.status == 405 and "content-security-policy" in page.headers


def _run_server(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dash_insight.server", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_bad_hosts_are_explained_in_one_line(tmp_path: Path) -> None:
    common = [
        "--summary-base-dir",
        str(tmp_path),
        "--workspace",
        str(tmp_path / "ws"),
        "--port",
        str(free_port()),
    ]
    empty = _run_server("--host", "", *common)
    assert empty.returncode == 2 and "Traceback" not in empty.stderr
    assert "host must be an address or host name" in empty.stderr
    unresolvable = _run_server("--host", "no-such-host.invalid", *common)
    assert unresolvable.returncode == 1 and "Traceback" not in unresolvable.stderr
    assert "cannot resolve host 'no-such-host.invalid'" in unresolvable.stderr
    assert "in use" not in unresolvable.stderr
    started = subprocess.run(
        [
            sys.executable,
            "-m",
            "dash_insight.cli",
            "start",
            "--host",
            "no-such-host.invalid",
            *common,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode == 1 and "cannot resolve host" in started.stderr
    assert "in use" not in started.stderr


#: Jobs of 20,000 steps the SIGTERM test's server is loading when the signal arrives.
JOBS_WHILE_LOADING = 300


def test_sigterm_ends_the_server_quickly_while_it_loads(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    """A server in the middle of a long loading round stops within a few seconds of SIGTERM,
    and the next one over the same workspace serves every step."""
    first = tmp_path / "logs" / "job00"
    first.mkdir(parents=True)
    steps = 20_000
    with SummaryWriter(str(first)) as writer:
        for step in range(1, steps + 1):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.record(step)
    # Enough jobs that the round outlasts the server's start (scanning got ~30x faster).
    for number in range(1, JOBS_WHILE_LOADING):
        shutil.copytree(first, tmp_path / "logs" / f"job{number:02d}")
    server = serve(tmp_path / "logs", loaded=False, workspace="ws")
    status = json.loads(server.request("GET", JOBS + "?limit=999", headers=LOCAL).body)
    assert status["load_status"] == "loading"  # SIGTERM arrives mid-round
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(30)
    assert time.monotonic() - started < 5, server.log.read_text()
    assert server.process.returncode == 0
    again = serve(tmp_path / "logs", workspace="ws")  # waits until every job is loaded
    for number in (0, JOBS_WHILE_LOADING - 1):
        answer = again.request(
            "GET",
            f"/v1/mindinsight/datavisual/scalar/metadata?train_id=./job{number:02d}"
            "&tag=loss/scalar",
            headers=LOCAL,
        )
        assert answer.status == 200, (answer.status, answer.body[:500])
        assert len(json.loads(answer.body)["metadatas"]) == steps


def test_the_documented_gunicorn_line_uses_threads() -> None:
    """A sync gunicorn worker is blocked by one slow request: the README and the WSGI module
    show threaded workers."""
    root = Path(__file__).resolve().parents[2]
    for path in (root / "README.md", root / "dash_insight" / "wsgi.py"):
        lines = [line for line in path.read_text().splitlines() if "gunicorn -w" in line]
        assert lines and all("--threads" in line for line in lines), path
