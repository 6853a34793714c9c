"""What every benchmark shares: the machine line printed beside its figures, a free port and
the median time of a repeated action.

Machines are shared and noisy, so each figure is printed next to the core count and the load
average it was measured at.
"""

from __future__ import annotations

import os
import socket
import statistics
import time
from collections.abc import Callable


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
