"""Free TCP ports for the servers tests start (several pytest workers run at once: no fixed
port, not even dash_duo's default)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on now (the OS's choice of an ephemeral port)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
