"""What an operator's probes ask a process (web-free): is it ready, and its figures.

:func:`readiness` checks the three things a process needs to answer: the index reachable (one
cheap read), the summary store readable (a listing of the base directory, at most every
:data:`STORE_CHECK_SECONDS`, so revoked object-storage keys show within seconds) and, in a
fleet, how long ago the workers last published a discovery (stale after
:func:`stale_after` seconds: the beat is gone or every worker is down). The web layer answers
them as ``/readyz``; :func:`job_figures` gives ``/metrics`` its per-job gauges.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from dash_insight.core.format.remote import filesystem, is_url
from dash_insight.core.store.health import one_line

#: The store listing is checked at most this often (seconds).
STORE_CHECK_SECONDS = 10.0


@dataclass(frozen=True)
class Check:
    """One readiness check: ``ok``, and what was found (a one-line error when not ok)."""

    ok: bool
    detail: str
    age_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "detail": self.detail}
        if self.age_seconds is not None:
            out["age_seconds"] = round(self.age_seconds, 3)
        return out


def stale_after(reload_interval: float) -> float:
    """Seconds after which the last discovery is stale: several beat intervals (or 60 s)."""
    return max(5 * (reload_interval or 3.0), 60.0)


class StoreProbe:
    """Lists the base directory (a local directory or an object-storage prefix), at most once
    per :data:`STORE_CHECK_SECONDS`; the last result in between."""

    def __init__(self, base_dir: str) -> None:
        self.base_dir = base_dir
        self._lock = threading.Lock()
        self._checked = float("-inf")
        self._result = Check(True, "not checked yet")

    def check(self, now: float | None = None) -> Check:
        now = time.monotonic() if now is None else now
        with self._lock:
            if now - self._checked < STORE_CHECK_SECONDS:
                return self._result
            self._checked = now
            self._result = self._list()
            return self._result

    def _list(self) -> Check:
        try:
            if is_url(self.base_dir):
                fs, path = filesystem(self.base_dir)
                fs.invalidate_cache(path)  # a listing, not fsspec's cached one
                entries = len(fs.ls(path, detail=False))
            else:
                entries = len(os.listdir(self.base_dir))
        except Exception as error:  # revoked keys, a dropped mount, permissions
            return Check(False, one_line(error))
        return Check(True, f"{entries} entries listed")


def index_check(store: Any) -> Check:
    """The index answers a read (its generation)."""
    try:
        generation = store.generation()
    except Exception as error:
        return Check(False, one_line(error))
    return Check(True, f"generation {generation}")


def discovery_check(store: Any, reload_interval: float, now: float | None = None) -> Check:
    """How long ago the fleet's workers last published a discovery (a Redis index); always ok
    for an index loaded in this machine's processes."""
    last = getattr(store, "last_discovery", None)
    if last is None:
        return Check(True, "loaded by this machine's processes")
    try:
        at = last()
    except Exception as error:
        return Check(False, one_line(error))
    if at is None:
        return Check(False, "no worker has published a discovery yet")
    age = max(0.0, (time.time() if now is None else now) - at)
    limit = stale_after(reload_interval)
    if age > limit:
        return Check(False, f"stale: no discovery for {age:.0f} s (limit {limit:.0f} s)", age)
    return Check(True, "recent", age)
