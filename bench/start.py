"""Process start to first answer: how long a user waits after ``dash-insight start``.

Spawns the server as a whole process (``python -m dash_insight.server``, what ``dash-insight
start`` runs in the background) on a base directory and, from the moment of the spawn, polls two
URLs in two threads until each answers 200: the REST job list
``/v1/mindinsight/datavisual/train-jobs`` and the summary-list page ``/``. Two cases:

* cold: an empty workspace (no index: the loader reads every job after the server is up);
* warm: the workspace of a completed load (the index present), a restart.

Each case is repeated ``--repeats`` times (a fresh workspace per cold run); the medians are
compared with the target of issue #18 (< 1.5 s for a warm restart). Beside the wall time, the
CPU seconds the server process had used when each answer arrived (``/proc/<pid>/stat``): on a
machine shared with other work the wall time grows with the load, the CPU time much less. The
base directory is the bundled demo unless ``--base`` names another. The package's modules are
byte-compiled first (``compileall``, as installing the wheel does): a checkout run with
``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module at every start.

    PYTHONPATH=. .venv/bin/python bench/start.py [--base DIR] [--repeats 5]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from machine import free_port, machine, recorded  # bench/, beside this script

import dash_insight
from dash_insight.core.settings import DEMO_DIR

JOBS_PATH = "v1/mindinsight/datavisual/train-jobs"
PAGE_PATH = ""  # the summary list
TARGET_WARM_S = 1.5
#: A server that has not answered after this long is reported as failed.
TIMEOUT_S = 60.0
POLL_S = 0.005


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (NaN where /proc is missing)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    # utime and stime are fields 14 and 15 of stat(5): 12 and 13 after the command name
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_answer(
    url: str, pid: int, started: float, deadline: float, out: dict[str, tuple[float, float]]
) -> None:
    """Poll ``url`` until it answers 200; store the seconds since ``started`` and the server's
    CPU seconds then in ``out[url]``."""
    while time.perf_counter() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                response.read()
                if response.status == 200:
                    out[url] = (time.perf_counter() - started, cpu_seconds(pid))
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(POLL_S)


Answer = tuple[float, float]  # (wall seconds since the spawn, server CPU seconds)


def run_once(base: str, workspace: str) -> tuple[Answer, Answer]:
    """Spawn a server on ``base`` with ``workspace``; when the job list and when the
    summary-list page first answered. The server is stopped afterwards (SIGTERM)."""
    port = free_port()
    root = f"http://127.0.0.1:{port}/"
    command = [
        sys.executable,
        "-m",
        "dash_insight.server",
        "--summary-base-dir",
        base,
        "--workspace",
        workspace,
        "--port",
        str(port),
    ]
    answers: dict[str, Answer] = {}
    started = time.perf_counter()
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = started + TIMEOUT_S
        pollers = [
            threading.Thread(
                target=first_answer, args=(root + path, server.pid, started, deadline, answers)
            )
            for path in (JOBS_PATH, PAGE_PATH)
        ]
        for poller in pollers:
            poller.start()
        for poller in pollers:
            poller.join()
    finally:
        server.send_signal(signal.SIGINT if os.name == "nt" else signal.SIGTERM)
        try:
            _, stderr = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            _, stderr = server.communicate()
    missing = [path or "/" for path in (JOBS_PATH, PAGE_PATH) if root + path not in answers]
    if missing:
        raise SystemExit(
            f"the server did not answer {missing} within {TIMEOUT_S:.0f} s:\n"
            f"{stderr.decode(errors='replace')[-2000:]}"
        )
    return answers[root + JOBS_PATH], answers[root + PAGE_PATH]


def load_index(base: str, workspace: str) -> None:
    """Complete the index of ``base`` in ``workspace`` (what a warm restart finds)."""
    from dash_insight.core.store.index import IndexStore, index_directory
    from dash_insight.core.store.loader import Loader

    store = IndexStore(index_directory(workspace, base))
    try:
        Loader(base, store, reload_interval=0).load_round()
    finally:
        store.close()


def summary(label: str, times: list[tuple[Answer, Answer]]) -> tuple[float, float]:
    """Print the medians of one case; returns the wall medians (job list, page)."""
    jobs = statistics.median(t[0][0] for t in times)
    page = statistics.median(t[1][0] for t in times)
    jobs_cpu = statistics.median(t[0][1] for t in times)
    page_cpu = statistics.median(t[1][1] for t in times)
    spread = ", ".join(f"{a[0]:.2f}/{b[0]:.2f}" for a, b in times)
    print(
        f"{label}: train-jobs {jobs:.2f} s (server CPU {jobs_cpu:.2f} s), page / {page:.2f} s "
        f"(server CPU {page_cpu:.2f} s); medians of {len(times)}, each run's wall "
        f"train-jobs/page: {spread}"
    )
    return jobs, page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--base", default=DEMO_DIR, help="summary base directory (default: the bundled demo)"
    )
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    base = os.path.realpath(args.base)
    print(f"machine: {machine()}")
    print(f"base directory: {base}; python: {sys.executable}")
    compileall.compile_dir(os.path.dirname(dash_insight.__file__), quiet=1)
    cold, warm = [], []
    with tempfile.TemporaryDirectory(prefix="dash-insight-start-") as scratch:
        for repeat in range(args.repeats):
            workspace = os.path.join(scratch, f"cold-{repeat}")
            cold.append(run_once(base, workspace))
            shutil.rmtree(workspace, ignore_errors=True)
        workspace = os.path.join(scratch, "warm")
        load_index(base, workspace)
        for _ in range(args.repeats):
            warm.append(run_once(base, workspace))
    print(f"machine: {machine()}")
    summary("cold (no index)", cold)
    jobs, page = summary("warm (index present)", warm)
    worst = max(jobs, page)
    ok = worst < TARGET_WARM_S
    print(
        f"warm restart, first answer of both: {worst:.2f} s   target < {TARGET_WARM_S} s   "
        f"{'OK' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
