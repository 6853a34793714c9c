"""The loader's state as users see it: loading, caught up, or stalled with its reason.

A loader that stops is never silent: a failed round is classified (the disk holding the
workspace full, a permission refused, the index store unreachable, anything else), logged once
per change, and shown by the REST API (``/v1/dash-insight/loader``) and a banner in the pages
until a round succeeds again.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from dash_insight.core.private_files import PRIVATE_FILE

LOADING = "loading"
CAUGHT_UP = "caught_up"
STALLED = "stalled"
#: The index was emptied (a Redis restarted without persistence, flushed, or a rebuilt local
#: index) after this process had read it: the jobs are being read again.
REBUILDING = "rebuilding"

DISK_FULL = "disk_full"
PERMISSION = "permission"
STORE_UNREACHABLE = "store_unreachable"
FAILED = "error"


@dataclass(frozen=True)
class LoaderFailure:
    """Why the last loading round failed: ``reason`` (one of the names above), ``detail``
    (the error in one line), ``since`` (when rounds started failing, epoch seconds)."""

    reason: str
    detail: str
    since: float | None  # None: not known (a file found unreadable, by any process)


@dataclass(frozen=True)
class LoaderHealth:
    """``state``: :data:`LOADING`, :data:`CAUGHT_UP`, :data:`STALLED` (then ``failure``
    says why) or :data:`REBUILDING` (then ``progress`` = (jobs read again, jobs listed))."""

    state: str
    failure: LoaderFailure | None = None
    progress: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, object]:
        failure = self.failure
        detail = failure.detail if failure else None
        if self.progress is not None:
            detail = "{} of {} jobs read again".format(*self.progress)
        return {
            "state": self.state,
            "reason": failure.reason if failure else None,
            "detail": detail,
            "since": failure.since if failure else None,
        }


def failure_reason(error: BaseException) -> str:
    """The reason a round failed with ``error``: ENOSPC / EDQUOT and SQLite's "database or disk
    is full" are :data:`DISK_FULL`; EACCES / EPERM / EROFS (and SQLite's "readonly database")
    :data:`PERMISSION`; connection failures (Redis, object storage) :data:`STORE_UNREACHABLE`;
    anything else :data:`FAILED`."""
    text = str(error).lower()
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return DISK_FULL
    if isinstance(error, sqlite3.Error) and "full" in text:
        return DISK_FULL
    if isinstance(error, PermissionError) or (
        isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
    ):
        return PERMISSION
    if isinstance(error, sqlite3.Error) and "readonly" in text:
        return PERMISSION
    named = type(error).__name__.lower()  # redis.ConnectionError, botocore's EndpointConnection...
    if isinstance(error, ConnectionError | TimeoutError) or "connection" in named:
        return STORE_UNREACHABLE
    return FAILED


def halts_the_round(error: BaseException) -> bool:
    """True when ``error`` is the index's or the workspace's, not the file being read: the disk
    full (or remounted read-only), the store unreachable, SQLite failing to write. The round
    then stops and is tried again; recorded as damage of the file, it would lose what the
    file holds (it is not read again until it changes) while the loader says caught up."""
    if isinstance(error, sqlite3.Error):
        return True
    if isinstance(error, OSError) and error.errno == errno.EROFS:
        return True
    return failure_reason(error) in (DISK_FULL, STORE_UNREACHABLE)


def one_line(error: BaseException) -> str:
    """``error`` as ``Type: message`` on one line (at most 300 characters)."""
    text = " ".join(f"{type(error).__name__}: {error}".split())
    return text if len(text) <= 300 else text[:299] + "…"


#: What :class:`OSError`'s text says for a permission refused (EACCES, EPERM).
_REFUSED = ("permission denied", "operation not permitted")


def unreadable_failure(files: Sequence[str]) -> LoaderFailure | None:
    """Why loading of some files stopped (``files``: ``"./job/<file>: <reason>"`` of each file
    the loader cannot open or read, tried again every round), None when there is none:
    :data:`PERMISSION` when the first file's reason is a refused permission, else
    :data:`FAILED`; the detail names the first file and how many more there are."""
    if not files:
        return None
    first = files[0]
    reason = PERMISSION if any(word in first.lower() for word in _REFUSED) else FAILED
    more = f" (and {len(files) - 1} more files)" if len(files) > 1 else ""
    return LoaderFailure(reason, first + more, None)


#: The size of the shared failure record: written in place over the bytes reserved when the
#: file was made, so a full disk still takes it.
RECORD_BYTES = 4096


def record_bytes(failure: LoaderFailure | None, pid: int) -> bytes:
    """The record of ``failure`` published by process ``pid``: JSON padded with spaces to
    :data:`RECORD_BYTES` (all spaces for None)."""
    if failure is None:
        return b" " * RECORD_BYTES
    item = {"pid": pid, "reason": failure.reason, "detail": failure.detail, "since": failure.since}
    text = json.dumps(item).encode()
    return text.ljust(RECORD_BYTES) if len(text) <= RECORD_BYTES else b" " * RECORD_BYTES


def parse_record(data: bytes) -> tuple[int, LoaderFailure] | None:
    """(pid, failure) of a record, None when it holds none (or is not one)."""
    try:
        item = json.loads(data.strip() or b"null")
        if not isinstance(item, dict):
            return None
        since = item["since"]
        failure = LoaderFailure(
            str(item["reason"]), str(item["detail"]), None if since is None else float(since)
        )
        return int(item["pid"]), failure
    except (ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (on this machine, as the workspace's index)."""
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's: alive
        return True
    except OSError:
        return False
    return True


class SharedFailure:
    """Why the loader of an index stopped, for every process serving it: only the process
    holding the loader lock reads the logs, and it publishes its failure in a small file beside
    the index (written in place: :meth:`reserve` makes it full size while there is room); the
    other processes read it. A record left by a process that is gone is ignored; the next
    round that succeeds clears it."""

    def __init__(self, path: str) -> None:
        self.path = path

    def _write(self, data: bytes, only_if_set: bool) -> None:
        """Write ``data`` over the record unless it holds that already (or, ``only_if_set``,
        unless it holds a full-size record)."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        try:
            held = os.pread(fd, RECORD_BYTES, 0)
            if held != data and not (only_if_set and len(held) == RECORD_BYTES):
                os.pwrite(fd, data, 0)
        finally:
            os.close(fd)

    def reserve(self) -> None:
        """Make the file full size (empty), unless it is already: when the service starts."""
        with contextlib.suppress(OSError):  # a courtesy to the other processes
            self._write(record_bytes(None, 0), only_if_set=True)

    def publish(self, failure: LoaderFailure | None) -> None:
        """Publish ``failure`` (None: clear it); nothing is written while it stays the same."""
        with contextlib.suppress(OSError):  # this process's own answers still say why
            self._write(record_bytes(failure, os.getpid()), only_if_set=False)

    def read(self) -> LoaderFailure | None:
        """The failure published by a running process, None if there is none."""
        try:
            with open(self.path, "rb") as handle:
                record = parse_record(handle.read(RECORD_BYTES))
        except OSError:
            return None
        if record is None or not _alive(record[0]):
            return None
        return record[1]
