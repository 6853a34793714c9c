"""What every benchmark shares: the machine line printed beside its figures, a free port, the
median time of a repeated action, and ``--record`` (:func:`recorded`).

Machines are shared and noisy, so each figure is printed next to the core count and the load
average it was measured at.

Every script's ``main`` runs through :func:`recorded`: with ``--record`` on its command line it
also writes what it printed to ``bench/results/<script>.md`` (with the command, the date, the
commit, the machine and the exit status in a JSON comment on the first line), from which
``scripts/gen_docs.py`` builds ``docs/reference/benchmarks.md``.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO


def machine() -> str:
    """``"2 cores, load average 1.20 1.85 1.95 (1/5/15 min)"``."""
    one, five, fifteen = os.getloadavg()
    return f"{os.cpu_count()} cores, load average {one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min)"


def timed(run: Callable[[], object], repeat: int, reset: Callable[[], None] | None = None) -> float:
    """Median wall time in seconds of ``run()`` over ``repeat`` runs; ``reset()`` (not timed)
    before each run, e.g. to empty a cache or to set up what the run reads."""
    times = []
    for _ in range(repeat):
        if reset is not None:
            reset()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: Where ``--record`` writes, one file per script (``scripts/gen_docs.py`` reads them).
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
RECORD_OPTION = "--record"


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal: TextIO) -> None:
        self.terminal, self.copy = terminal, io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.terminal.write(text)

    def flush(self) -> None:
        self.terminal.flush()


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", os.path.dirname(RESULTS), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def recorded(main: Callable[[], Any], script: str) -> Any:
    """``main()``; with ``--record`` among the arguments (taken out before ``main`` parses
    them) what it prints to ``sys.stdout`` is also written to ``bench/results/<name>.md``.
    ``script`` is the caller's ``__file__``. Output that child processes write to the terminal
    themselves is not in the file."""
    if RECORD_OPTION not in sys.argv[1:]:
        return main()
    sys.argv = [sys.argv[0], *(arg for arg in sys.argv[1:] if arg != RECORD_OPTION)]
    name = os.path.splitext(os.path.basename(script))[0]
    started = datetime.datetime.now(datetime.timezone.utc)
    before = machine()
    tee = _Tee(sys.stdout)
    status: Any = 1
    clock = time.monotonic()
    try:
        with contextlib.redirect_stdout(tee):
            status = main()
    except SystemExit as stop:
        status = stop.code
        raise
    finally:
        meta = {
            "script": f"bench/{name}.py",
            "arguments": sys.argv[1:],
            "started": started.isoformat(timespec="seconds"),
            "seconds": round(time.monotonic() - clock, 1),
            "commit": _commit(),
            "machine_before": before,
            "machine_after": machine(),
            "exit_status": 0 if status is None else status,
        }
        os.makedirs(RESULTS, exist_ok=True)
        path = os.path.join(RESULTS, f"{name}.md")
        with open(path, "w", encoding="utf-8") as out:
            out.write(f"<!-- {json.dumps(meta)} -->\n")
            out.write(f"# bench/{name}.py\n\n```text\n{tee.copy.getvalue().rstrip()}\n```\n")
        print(f"recorded {os.path.relpath(path)}", file=sys.stderr)
    return status
