"""The persistent index: a diskcache under the workspace, shared by every process.

One loader (thread or process) writes; any number of web workers read. Entries:

* ``job|<train_id>`` -> :class:`~.state.JobState` (offsets, tags, damage, graphs, lineage);
* ``jobs`` -> the job list of the last discovery (train_id, create and update time);
* ``versions`` -> {train_id: version}, published by the loader after each change;
* ``chunk|<train_id>|<plugin>|<tag>|<file>|<n>`` -> columns of one tag read from one file:
  :class:`ScalarColumns` for scalars, :class:`BlobColumns` for values read lazily (images,
  histograms, tensors, loss landscapes);
* ``generation`` -> a counter the loader bumps after each change, so readers know when to
  reload what they cached.

(Keys are strings joined by a unit separator: diskcache stores strings as they are, while
tuple keys are pickled and optimised on every access.)

Chunks are per file so that a replaced, truncated or deleted file is dropped without touching
the other files of its job. While a file is first read, every slice adds one chunk per tag
without any merging (each point is written once). Afterwards a live job appends one small chunk
per tag per reload, and chunks are merged LSM-style (the newest two while the newest is at least
half the size of the one before), so a tag keeps few chunks and every point is rewritten
O(log n) times. Chunks live inside SQLite (diskcache writes values above
``disk_min_file_size`` as separate files, which costs a mkdir/open/rmdir per chunk).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from typing import Any, NamedTuple, TypeVar

import diskcache
import numpy as np

from dash_insight.core.store.state import FileState, JobState

#: Bump when the layout of index entries changes: an index of another format is rebuilt.
#: 3: chunks are ScalarColumns / BlobColumns, graphs and lineage GraphRecord / LineageRecord.
INDEX_FORMAT = 3
_SEP = "\x1f"  # ASCII unit separator: never in a path, a tag or a plugin name
#: Values up to this size stay inside SQLite (diskcache's default is 32 KB).
_IN_DATABASE_BYTES = 64 << 20


def _key(*parts: object) -> str:
    return _SEP.join(str(part) for part in parts)


class ScalarColumns(NamedTuple):
    """Points of one scalar tag read from one file, in file order (one chunk, or several
    concatenated)."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    value: np.ndarray  # float32, exactly as stored


class BlobColumns(NamedTuple):
    """Where the values of one image / histogram / tensor / loss-landscape tag are in one file:
    ``offset`` and ``length`` locate each record, ``value_index`` the value inside its Summary
    (not ``index``, which would hide ``tuple.index``); ``meta`` holds small facts per value
    (image size, tensor dims and dtype; None otherwise)."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    offset: np.ndarray  # int64
    length: np.ndarray  # int64
    value_index: np.ndarray  # int32
    meta: list[dict[str, Any] | None]


#: The columns of one chunk. NamedTuples: pickled as a class reference plus a plain tuple.
Columns = ScalarColumns | BlobColumns
ColumnsT = TypeVar("ColumnsT", ScalarColumns, BlobColumns)


def index_directory(workspace: str, base_dir: str) -> str:
    """Where the index of ``base_dir`` lives under ``workspace`` (one per base directory)."""
    digest = hashlib.sha256(os.path.realpath(base_dir).encode()).hexdigest()[:16]
    return os.path.join(workspace, "index", digest)


def _concat(parts: list[ColumnsT]) -> ColumnsT:
    """Concatenate chunks of one layout column by column (arrays with numpy, metadata lists
    joined)."""
    if len(parts) == 1:
        return parts[0]
    out: list[Any] = []
    for column in zip(*parts, strict=True):
        if isinstance(column[0], np.ndarray):
            out.append(np.concatenate(column))
        else:
            out.append([item for part in column for item in part])
    return type(parts[0])._make(out)


class IndexStore:
    """Typed access to the diskcache index of one summary base directory."""

    def __init__(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        # No eviction: diskcache's default drops entries past 1 GB, which would lose data.
        self._cache = diskcache.Cache(directory, eviction_policy="none", size_limit=2**62,
                                      cull_limit=0, statistics=False,
                                      disk_min_file_size=_IN_DATABASE_BYTES)
        if self._cache.get("format") != INDEX_FORMAT:
            self._cache.clear()
            self._cache.set("format", INDEX_FORMAT)
        self._versions: dict[str, int] | None = None  # the loader's copy, published on demand

    def close(self) -> None:
        self._cache.close()

    # -- coordination --
    def generation(self) -> int:
        return int(self._cache.get("generation", 0))

    def bump_generation(self) -> int:
        self.publish_versions()
        return int(self._cache.incr("generation", default=0))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Group writes (much faster than one SQLite commit per write)."""
        with self._cache.transact():
            yield

    @contextlib.contextmanager
    def loader_lock(self, blocking: bool = False) -> Iterator[bool]:
        """Yields True when this process holds the right to write (one loader per index).

        An OS file lock: released when the holder exits, however it exits, so another worker
        can take over."""
        path = os.path.join(self.directory, "loader.lock")
        with open(path, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # -- jobs --
    def job_list(self) -> list[tuple[str, float, float]]:
        """(train_id, create_time, update_time) of every discovered job, newest first."""
        return list(self._cache.get("jobs", []))

    def set_job_list(self, jobs: list[tuple[str, float, float]]) -> None:
        self._cache.set("jobs", jobs)

    def has_job_list(self) -> bool:
        """False until the first discovery of the base directory has finished."""
        return "jobs" in self._cache

    def load_job(self, train_id: str) -> JobState | None:
        """The stored state, or None (also when it cannot be unpickled: it is then rebuilt)."""
        try:
            return self._cache.get(_key("job", train_id))
        except Exception:  # an entry written by another version of the code
            self._cache.delete(_key("job", train_id))
            return None

    def save_job(self, state: JobState) -> None:
        """Store a job's state; readers see its new version after :meth:`publish_versions`
        (called by :meth:`bump_generation`)."""
        self._cache.set(_key("job", state.train_id), state)
        self._loader_versions()[state.train_id] = state.version

    def _loader_versions(self) -> dict[str, int]:
        if self._versions is None:
            self._versions = self.job_versions()
        return self._versions

    def publish_versions(self) -> None:
        """Write the job versions the loader holds (one write, however many jobs changed)."""
        if self._versions is not None:
            self._cache.set("versions", self._versions)

    def job_versions(self) -> dict[str, int]:
        """{train_id: version} of every stored job: readers reload only the jobs that changed."""
        return dict(self._cache.get("versions", {}))

    def delete_job(self, state: JobState) -> None:
        for file_state in state.files.values():
            self.drop_file(state, file_state)
        self._cache.delete(_key("job", state.train_id))
        self._loader_versions().pop(state.train_id, None)

    # -- chunks --
    def append_chunk(self, state: JobState, file_state: FileState, plugin: str, tag: str,
                     columns: Columns, merge: bool = True) -> None:
        """Store one more chunk of ``tag`` read from ``file_state``; with ``merge``, merge the
        newest chunks LSM-style (the loader passes False while a file is first read)."""
        sizes = file_state.chunks.setdefault((plugin, tag), [])
        name = file_state.name
        self._cache.set(_key("chunk", state.train_id, plugin, tag, name, len(sizes)), columns)
        sizes.append(len(columns.step))
        while merge and len(sizes) >= 2 and sizes[-1] * 2 >= sizes[-2]:
            first, second = len(sizes) - 2, len(sizes) - 1
            merged = _concat([self._chunk(state.train_id, plugin, tag, name, first),
                              self._chunk(state.train_id, plugin, tag, name, second)])
            self._cache.set(_key("chunk", state.train_id, plugin, tag, name, first), merged)
            self._cache.delete(_key("chunk", state.train_id, plugin, tag, name, second))
            sizes[first:] = [sizes[first] + sizes[second]]

    def _chunk(self, train_id: str, plugin: str, tag: str, name: str, n: int) -> Any:
        columns = self._cache.get(_key("chunk", train_id, plugin, tag, name, n))
        if columns is None:
            raise KeyError(f"index entry missing: {train_id} {plugin} {tag} {name} #{n}")
        return columns

    def read_columns(self, state: JobState, plugin: str, tag: str,
                     layout: type[ColumnsT]) -> list[tuple[FileState, ColumnsT]]:
        """The columns of ``tag`` per file, files in rank order, each file's chunks concatenated
        in arrival order. ``layout`` is what the caller expects (:class:`ScalarColumns` for
        scalars, :class:`BlobColumns` otherwise); another one is a TypeError."""
        out = []
        files = sorted(state.files.values(), key=lambda f: (f.rank, f.name))
        for file_state in files:
            sizes = file_state.chunks.get((plugin, tag))
            if not sizes:
                continue
            parts = [self._chunk(state.train_id, plugin, tag, file_state.name, n)
                     for n in range(len(sizes))]
            for part in parts:
                if not isinstance(part, layout):
                    raise TypeError(f"{plugin} {tag!r} of {state.train_id} is stored as "
                                    f"{type(part).__name__}, not {layout.__name__}")
            out.append((file_state, _concat(parts)))
        return out

    def drop_file(self, state: JobState, file_state: FileState) -> None:
        """Delete every chunk read from one file."""
        for (plugin, tag), sizes in file_state.chunks.items():
            for n in range(len(sizes)):
                self._cache.delete(_key("chunk", state.train_id, plugin, tag, file_state.name, n))
        file_state.chunks = {}
