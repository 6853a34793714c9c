"""A new user's first ``./scripts/demo.sh``: from a fresh clone with empty package caches to the
demo page answering, and what the install leaves on disk (issue #35: page answering in <= 90 s,
``.venv`` <= 500 MB on a quiet 2-core machine).

Clones the repository (``git clone`` of the committed ``HEAD``: what a user gets) into a
temporary folder, points uv's and pip's caches at empty folders, runs ``./scripts/demo.sh`` on a
free port and polls ``/`` until it answers 200. It prints the time at which each ``setup:`` line
of the script appeared (installing uv, the app's packages, starting the server), the time to
the page, the size of ``.venv`` and, after stopping the server, the time of a second start (the
environment installed, nothing to download).

    python3 bench/first_run.py [--repo PATH] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from machine import free_port, machine, recorded  # bench/, beside this script

ROOT = Path(__file__).resolve().parent.parent
PAGE_TARGET_S = 90.0
VENV_TARGET_MB = 500.0


def tree_megabytes(folder: Path) -> float:
    """Sum of the sizes of the regular files under ``folder`` (symbolic links not followed), in
    MB of 10**6 bytes: what ``du --apparent-size`` counts."""
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total / 1e6


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def start_demo(
    clone: Path, env: dict[str, str], port: int, log: list[tuple[float, str]]
) -> tuple[subprocess.Popen[str], float]:
    """Runs ``scripts/demo.sh``; returns the process and the seconds until ``/`` answered.
    Each line the script prints is kept in ``log`` with the second it appeared."""
    start = time.monotonic()
    process = subprocess.Popen(
        ["./scripts/demo.sh", "--port", str(port), "--workspace", str(clone / ".workspace")],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            log.append((time.monotonic() - start, line.rstrip()))

    threading.Thread(target=pump, daemon=True).start()
    url = f"http://127.0.0.1:{port}/"
    while not answers(url):
        if process.poll() is not None:
            raise SystemExit(
                f"demo.sh exited {process.returncode}:\n" + "\n".join(line for _, line in log[-20:])
            )
        time.sleep(0.2)
    return process, time.monotonic() - start


def stop(process: subprocess.Popen[str]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(60)


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=str(ROOT), help="the repository to clone (its HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and its caches")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="first-run-"))
    clone = scratch / "dash-insight"
    subprocess.run(["git", "clone", "--quiet", args.repo, str(clone)], check=True)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DASH_INSIGHT_", "UV"))},
        "UV_CACHE_DIR": str(scratch / "uv-cache"),  # empty: every package is downloaded
        "PIP_NO_CACHE_DIR": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    print(f"first run of ./scripts/demo.sh in a fresh clone of {args.repo}; {machine()}")
    try:
        log: list[tuple[float, str]] = []
        process, first = start_demo(clone, env, free_port(), log)
        stop(process)
        for second, line in log:
            if line.startswith(("setup:", "dash-insight")):
                print(f"  {second:6.1f} s  {line[:110]}")
        venv = tree_megabytes(clone / ".venv")
        again, second = start_demo(clone, env, free_port(), [])
        stop(again)
        print(
            f"page answering, first run:  {first:6.1f} s  (target <= {PAGE_TARGET_S:.0f} s) "
            f"{verdict(first, PAGE_TARGET_S)}"
        )
        print(
            f".venv on disk:              {venv:6.0f} MB (target <= {VENV_TARGET_MB:.0f} MB) "
            f"{verdict(venv, VENV_TARGET_MB)}"
        )
        print(f"page answering, second run: {second:6.1f} s  (installed: nothing to download)")
        print(f"after: {machine()}")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            print(f"kept {scratch}")
    return 0


if __name__ == "__main__":
    raise SystemExit(recorded(main, __file__))
