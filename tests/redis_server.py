"""A real ``redis-server`` for the fleet tests (Debian package ``redis-server``; scripts/test.sh
installs it): started once per session on a free port with its files in a temp dir. Tests that
use it are marked ``fleet`` and skip, saying why, when the binary is not installed."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

from tests.ports import free_port


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """``redis://127.0.0.1:<port>/0`` of a redis-server this fixture started (and stops)."""
    with _redis_server() as url:
        yield url


#: The password of :func:`redis_password_url`'s server.
REDIS_PASSWORD = "s3cret-of-the-test"


@pytest.fixture(scope="session")
def redis_password_url() -> Iterator[str]:
    """``redis://:<REDIS_PASSWORD>@127.0.0.1:<port>/0`` of a redis-server that requires that
    password (``--requirepass``)."""
    with _redis_server("--requirepass", REDIS_PASSWORD) as url:
        yield url.replace("redis://", f"redis://:{REDIS_PASSWORD}@", 1)


@contextlib.contextmanager
def _redis_server(*options: str) -> Iterator[str]:
    """A redis-server on a free port with ``options``, its files in a temp dir: yields its URL
    (without a password) once it answers; skips the test when redis-server is not installed."""
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
            *options,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"redis://127.0.0.1:{port}/0"
    password = options[options.index("--requirepass") + 1] if "--requirepass" in options else None
    client = redis.Redis.from_url(url, password=password)
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
