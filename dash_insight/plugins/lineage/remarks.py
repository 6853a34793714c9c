"""Lineage tags and remarks, persisted in the workspace (MindInsight kept them in memory only and
lost them on restart).

One small JSON file per summary base directory, ``<workspace>/lineage/<digest>/added_info.json``
(``<digest>`` as for the index: sha256 of the base directory's real path), holding
``{"version": 1, "jobs": {train_id: {"tag": int, "remark": str}}}``. Writes take an exclusive
``fcntl`` lock on a sibling ``.lock`` file, re-read the file, apply the change and replace the
file atomically (temporary file + ``os.replace``), so concurrent writers in several threads or
web-worker processes never lose each other's updates and readers never see half a file. Reads
need no lock; they are cached by the file's (inode, size, mtime).

Which file: :func:`remarks_path` of the settings' workspace and base directory, so every
process serving that base directory with that workspace uses the same file. The lineage
plugin's service owns one :class:`RemarkStore` (one in-process lock) per app.
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
from collections.abc import Iterator, Mapping
from typing import Any

from dash_insight.core.private_files import (
    PRIVATE_DIRECTORY,
    create_private_file,
    make_private_dirs,
    restrict,
)
from dash_insight.core.store.index import index_directory

log = logging.getLogger(__name__)

#: MindInsight's limits (``validate_added_info``): tag 0..10 (0 = none), remark <= 128 chars.
MAX_TAG = 10
MAX_REMARK_LENGTH = 128
FILE_NAME = "added_info.json"
_FORMAT = 1


class RemarkError(ValueError):
    """An invalid tag or remark; ``str()`` is MindInsight's message."""


def validate_added_info(added_info: Any) -> dict[str, Any]:
    """MindInsight's ``validate_added_info``: only ``tag`` (int 0..10) and ``remark`` (str of at
    most 128 characters). Unlike MindInsight a boolean tag is refused (it accepted ``true`` as
    1). Returns the accepted keys in the given order."""
    if not isinstance(added_info, dict):
        raise RemarkError("The request body should be a dict.")
    if not set(added_info).issubset(("tag", "remark")):
        raise RemarkError("Keys of added_info must be in ['tag', 'remark'].")
    for key, value in added_info.items():
        if key == "tag":
            if isinstance(value, bool) or not isinstance(value, int):
                raise RemarkError("'tag' must be int.")
            if not 0 <= value <= MAX_TAG:
                raise RemarkError(f"The tag should in [0, {MAX_TAG}].")
        else:
            if not isinstance(value, str):
                raise RemarkError("'remark' must be str.")
            if len(value) > MAX_REMARK_LENGTH:
                raise RemarkError(f"The length of remark should in [0, {MAX_REMARK_LENGTH}].")
            if not _is_unicode_text(value):
                raise RemarkError("'remark' must be Unicode text (it holds a lone surrogate).")
    return dict(added_info)


def _is_unicode_text(text: str) -> bool:
    """Whether ``text`` can be stored as UTF-8: JSON's ``"\\ud800"`` decodes to a lone surrogate,
    which MindInsight kept in memory but no file (or browser) can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class RemarkStore:
    """Tags and remarks of one summary base directory's jobs, in one JSON file."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self._lock = threading.Lock()
        self._cache_key: tuple[int, int, int] | None = None
        self._cache: dict[str, dict[str, Any]] = {}
        self._narrow()

    def _narrow(self) -> None:
        """Make the folder 0700 and the file and its lock 0600 when an earlier version left
        them as the umask made them (0755, 0644): remarks name jobs."""
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
                "lineage remarks file %s is unreadable (%s); a copy is kept in %s",
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
        """train_id -> ``{"tag", "remark"}`` (only the keys ever set), re-read when the file
        changed (another process may have written it)."""
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
        # private like the rest of the workspace: remarks name jobs (0700 folders, 0600 files)
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
        fd, temporary = tempfile.mkstemp(prefix=".added_info.", suffix=".tmp", dir=directory)
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

    def update(self, train_id: str, added_info: Mapping[str, Any]) -> dict[str, Any]:
        """Merge ``{"tag"?, "remark"?}`` (validated, RemarkError otherwise) into the job's entry
        as MindInsight's PUT does; returns the job's new entry."""
        accepted = validate_added_info(dict(added_info))
        with self._locked():
            jobs = self._read()
            entry = dict(jobs.get(train_id, {}))
            entry.update(accepted)
            jobs[train_id] = entry
            self._write(jobs)
            self._cache_key = None  # re-read (cheaply) on the next query
            return dict(entry)


def remarks_path(workspace: str, base_dir: str) -> str:
    """``<workspace>/lineage/<digest>/added_info.json`` (``<digest>`` as for the index)."""
    digest = os.path.basename(index_directory(workspace, base_dir))
    return os.path.join(workspace, "lineage", digest, FILE_NAME)
