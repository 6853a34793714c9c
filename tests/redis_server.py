"""A real ``redis-server`` for the fleet tests (Debian package ``redis-server``; scripts/test.sh
installs it): started once per session on a free port with its files in a temp dir. Tests that
use it are marked ``fleet`` and skip, saying why, when the binary is not installed."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

from tests.ports import free_port


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """``redis://127.0.0.1:<port>/0`` of a redis-server this fixture started (and stops)."""
    binary = shutil.which("redis-server", path="/usr/bin:/usr/sbin:/usr/local/bin") or shutil.which(
        "redis-server"
    )
    if binary is None:
        pytest.skip(
            "redis-server not installed (apt-get install redis-server; scripts/test.sh does it)"
        )
    redis = pytest.importorskip(
        "redis", reason="the redis package is not installed (pip install 'dash-insight[fleet]')"
    )
    directory = tempfile.mkdtemp(prefix="dash-insight-redis-")
    port = free_port()
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            directory,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        from dash.testing.wait import until

        until(lambda: _pings(client), timeout=30, poll=0.05)
        yield url
    finally:
        client.close()
        process.terminate()
        process.wait(10)
        shutil.rmtree(directory, ignore_errors=True)


def _pings(client: object) -> bool:
    try:
        return bool(client.ping())  # type: ignore[attr-defined]
    except Exception:
        return False
