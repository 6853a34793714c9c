"""A small JSON file of per-job entries in the workspace, shared by every process serving one
summary base directory with one workspace: the lineage remarks
(:mod:`dash_insight.plugins.lineage.service_remarks`) and the runs' archive state and labels
(:mod:`dash_insight.core.run_marks`).

The file holds ``{"version": 1, "jobs": {train_id: {...}}}``. Writes take an exclusive ``fcntl``
lock on a sibling ``.lock`` file, re-read the file, apply the change and replace the file
atomically (temporary file + ``os.replace``), so concurrent writers in several threads or
web-worker processes never lose each other's updates and readers never see half a file. Reads
need no lock; they are cached by the file's (inode, size, mtime). The folder is 0700, the file
and its lock 0600 (they name jobs).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dash_insight.core.private_files import (
    PRIVATE_DIRECTORY,
    create_private_file,
    make_private_dirs,
    restrict,
)

log = logging.getLogger(__name__)

_FORMAT = 1


class JobEntriesFile:
    """Entries of one summary base directory's jobs (``train_id -> dict``), in one JSON file
    (``what`` names it in the log)."""

    def __init__(self, path: str, what: str = "lineage remarks") -> None:
        self.path = os.path.abspath(path)
        self.what = what
        self._lock = threading.Lock()
        self._cache_key: tuple[int, int, int] | None = None
        self._cache: dict[str, dict[str, Any]] = {}
        self._narrow()

    def _narrow(self) -> None:
        """Make the folder 0700 and the file and its lock 0600 when an earlier version left
        them as the umask made them (0755, 0644): entries name jobs."""
        restrict(os.path.dirname(self.path), PRIVATE_DIRECTORY)
        for path in (self.path, self.path + ".lock"):
            restrict(path)

    # -- reading --
    def _file_key(self) -> tuple[int, int, int] | None:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                content = json.load(handle)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            # Unreadable or damaged: start afresh rather than fail, but keep the old file's
            # bytes beside it so the next write does not destroy the only copy.
            backup = f"{self.path}.damaged"
            if not os.path.exists(backup):
                with contextlib.suppress(OSError):
                    shutil.copy2(self.path, backup)
            log.warning(
                "%s file %s is unreadable (%s); a copy is kept in %s",
                self.what,
                self.path,
                error,
                backup,
            )
            return {}
        jobs = content.get("jobs") if isinstance(content, dict) else None
        if not isinstance(jobs, dict):
            return {}
        return {str(k): dict(v) for k, v in jobs.items() if isinstance(v, dict)}

    def all(self) -> dict[str, dict[str, Any]]:
        """train_id -> its entry (only the keys ever set), re-read when the file changed
        (another process may have written it)."""
        with self._lock:
            key = self._file_key()
            if key != self._cache_key or key is None:
                self._cache = self._read()
                self._cache_key = key
            return {k: dict(v) for k, v in self._cache.items()}

    def get(self, train_id: str) -> dict[str, Any]:
        return self.all().get(train_id, {})

    # -- writing --
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        # private like the rest of the workspace: entries name jobs (0700 folders, 0600 files)
        make_private_dirs(os.path.dirname(self.path))
        create_private_file(self.path + ".lock")
        self._narrow()
        with self._lock, open(self.path + ".lock", "a+") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)

    def _write(self, jobs: Mapping[str, Mapping[str, Any]]) -> None:
        directory = os.path.dirname(self.path)
        prefix = "." + os.path.basename(self.path).split(".")[0] + "."
        fd, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"version": _FORMAT, "jobs": jobs}, handle, ensure_ascii=False, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def change(
        self, train_id: str, edit: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, Any]:
        """The job's entry replaced by ``edit(entry)`` under the lock (an empty result removes
        it); returns the new entry."""
        with self._locked():
            jobs = self._read()
            entry = edit(dict(jobs.get(train_id, {})))
            if entry:
                jobs[train_id] = entry
            else:
                jobs.pop(train_id, None)
            self._write(jobs)
            self._cache_key = None  # re-read (cheaply) on the next query
            return dict(entry)
