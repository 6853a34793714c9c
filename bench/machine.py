"""What every benchmark shares: the machine line printed beside its figures, and a free port.

Machines are shared and noisy, so each figure is printed next to the core count and the load
average it was measured at.
"""

from __future__ import annotations

import os
import socket


def machine() -> str:
    """``"2 cores, load average 1.20 1.85 1.95 (1/5/15 min)"``."""
    one, five, fifteen = os.getloadavg()
    return (f"{os.cpu_count()} cores, load average {one:.2f} {five:.2f} {fifteen:.2f} "
            "(1/5/15 min)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
