"""The loader's state as users see it: loading, caught up, or stalled with its reason.

A loader that stops is never silent: a failed round is classified (the disk holding the
workspace full, a permission refused, the index store unreachable, anything else), logged once
per change, and shown by the REST API (``/v1/dash-insight/loader``) and a banner in the pages
until a round succeeds again.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

LOADING = "loading"
CAUGHT_UP = "caught_up"
STALLED = "stalled"

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
    """``state``: :data:`LOADING`, :data:`CAUGHT_UP` or :data:`STALLED` (then ``failure``
    says why)."""

    state: str
    failure: LoaderFailure | None = None

    def to_dict(self) -> dict[str, object]:
        failure = self.failure
        return {
            "state": self.state,
            "reason": failure.reason if failure else None,
            "detail": failure.detail if failure else None,
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
