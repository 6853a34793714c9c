"""The persistent index: a diskcache under the workspace, shared by every process.

One loader (thread or process) writes; any number of web workers read. Entries:

* ``job|<train_id>`` -> :class:`~.state.JobState` (offsets, tags, damage, graphs, lineage);
* ``jobs`` -> the job list of the last discovery (train_id, create and update time);
* ``versions`` -> {train_id: version}: the loader updates only the jobs it changed, read and
  written inside one transaction (several workers take turns as the loader: a whole copy
  written back would drop the jobs another one added);
* ``chunk|<train_id>|<plugin>|<tag>|<file>|<serial>`` -> columns of one tag read from one file:
  :class:`ScalarColumns` for scalars, :class:`BlobColumns` for values read lazily (images,
  histograms, tensors, loss landscapes); ``serial`` comes from the ``chunk-serial`` counter, so
  a chunk is never overwritten;
* ``lod|<train_id>|<plugin>|<tag>|<file>|<serial>|<level>`` -> the
  :class:`~.chunks.SummaryPoints` of a scalar chunk whose steps ascend, one per level of
  :data:`~.chunks.SUMMARY_LEVELS` (written, retired and expired with their chunk);
* ``generation`` -> a counter the loader bumps in the same transaction as each change, so
  readers know when to reload what they cached;
* ``rebuild`` -> train_ids a reader found damaged (a chunk its state names is missing or
  unreadable): the loader reads them again from the logs.

(Keys are strings joined by a unit separator: diskcache stores strings as they are, while
tuple keys are pickled and optimised on every access.)

Chunks are per file so that a replaced, truncated or deleted file is dropped without touching
the other files of its job. While a file is first read, every slice adds one chunk per tag
without any merging (each point is written once). Afterwards a live job appends one small chunk
per tag per reload, and chunks are merged LSM-style (the newest two while the newest is at least
half the size of the one before, up to :data:`MAX_CHUNK_ENTRIES`), so a tag keeps few chunks
and every point is rewritten O(log n) times. The state names each chunk by a
:class:`~.chunks.ChunkRef` (its step bounds), so a step-window read finds the chunks it needs by
binary search (:mod:`.chunks`). A reader may hold a job state of an earlier generation while it
reads that state's chunks, so chunks replaced by a merge or dropped with their file are not
deleted at once: they expire :data:`RETIRED_CHUNK_SECONDS` later (diskcache's expiry), and a
reader that still misses one reloads the job state and tries again (:class:`MissingChunk`).
Chunks live inside SQLite (diskcache writes values above ``disk_min_file_size`` as separate
files, which costs a mkdir/open/rmdir per chunk).

The index is a cache of the logs, rebuilt when damaged, with one line in the log each time:

* one that cannot be opened or fails SQLite's ``quick_check`` (a truncated or garbage
  ``cache.db``) when a process opens it is moved aside (``<directory>.damaged``) and started
  again empty;
* a chunk a job's current state names that is missing or unreadable (deleted rows, a damaged
  page) makes the reader ask for that job to be read again (``rebuild``);
* SQLite reporting damage to the loader makes it replace the whole index the same way; the
  other processes notice by the database file's inode and open the new one.

The loader lock and the lock that serialises opening are files beside the index directory, so
they outlive a rebuild. Its directories are 0700 and its files 0600: it holds the values of
summary files that MindSpore writes readable by their owner only.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

import diskcache
import numpy as np

from dash_insight.core.format.remote import is_url, local_path_of, normalise_url
from dash_insight.core.private_files import (
    PRIVATE_DIRECTORY,
    create_private_file,
    make_private_dirs,
    restrict,
)
from dash_insight.core.store.chunks import (
    SUMMARY_LEVELS,
    ChunkRef,
    SummaryPoints,
    chunk_extremes,
    chunk_ref,
    summaries,
)
from dash_insight.core.store.codec import UndecodableEntry, decode, encode
from dash_insight.core.store.index_api import (
    DamagedEntry,
    IndexConflict,
    stored_generation,
    stored_versions,
)
from dash_insight.core.store.state import FileState, JobState

log = logging.getLogger(__name__)

#: Bump when the layout of index entries changes: an index of another format is rebuilt.
#: 3: chunks are ScalarColumns / BlobColumns, graphs and lineage GraphRecord / LineageRecord.
#: 4: chunks are named by a serial (FileState.chunks holds (serial, entries) pairs).
#: 5: FileState.chunks holds ChunkRef (step bounds); scalar chunks have ``lod`` summaries.
#: 6: a scalar chunk's ChunkRef holds its lowest and highest point; summaries at 4 levels.
#: 7: integer columns that are arithmetic progressions are pickled as a call of
#:    chunks.arithmetic_progression (an index of format 6 would be read right, but a format-6
#:    reader could not unpickle the new chunks).
#: 8: no pickle: every entry is written by :mod:`.codec` (columns as compressed numpy buffers
#:    with a JSON header, states as tagged JSON); diskcache's pickle mode reads them with it.
INDEX_FORMAT = 8
#: How long a chunk replaced by a merge (or dropped with its file) stays readable for readers
#: that still hold the job state naming it; a reader that misses one reloads the state.
RETIRED_CHUNK_SECONDS = 60.0
_SEP = "\x1f"  # ASCII unit separator: never in a path, a tag or a plugin name
#: Values up to this size stay inside SQLite (diskcache's default is 32 KB).
_IN_DATABASE_BYTES = 64 << 20
#: SQLite's page cache of each connection, in pages of 4 KiB: 4 MB, not diskcache's 32 MB. Every
#: thread reading the index has its own connection (the web server's 8 threads, the loader), and
#: a step-window read streams chunk blobs through its cache: 8 threads reading 64 chunks of
#: 5 MB held 445 MB of RSS at 32 MB each, 75 MB at 4 MB (a re-read comes from the OS's file
#: cache instead, ~1 ms per chunk).
_SQLITE_CACHE_PAGES = 1 << 10
#: No memory map of the database (diskcache maps its first 64 MB in every connection: resident
#: pages of each map count in the process's RSS again).
_SQLITE_MMAP_BYTES = 0
#: SQLite's write-ahead log is cut back to this size whenever it starts over (``PRAGMA
#: journal_size_limit``; by default it keeps its largest size for good).
_WAL_LIMIT_BYTES = 64 << 20
#: A loader transaction that leaves the write-ahead log larger than this checkpoints it whole
#: and truncates it (:meth:`IndexStore._checkpoint`): readers polling the index all the time
#: keep SQLite's automatic (passive) checkpoints from ever starting the log over, and the first
#: read of a 20 x 10M-step job grew it to 5.5 GB beside a 9.7 GB database.
_WAL_CHECKPOINT_BYTES = 256 << 20
#: The most entries a chunk holds: a slice read at once is stored in chunks of at most this
#: many, and a live tag's chunks are merged only up to it. A step-window read reads whole the
#: (at most two) chunks at its edges, so this bounds what one request holds and reads: 2**16
#: scalar points are 1.3 MB of columns, where a 128 MB slice of a file of one tag would be ~4
#: million points. A tag of 10 million points keeps ~153 chunks (a 2**18 cap read 5 MB per edge
#: chunk: a zoom into a 10M-step tag took 170-490 ms at load 15, 10-80 ms with 2**16).
MAX_CHUNK_ENTRIES = 1 << 16


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


#: The columns of one chunk (stored by :mod:`.codec` as compressed numpy buffers).
Columns = ScalarColumns | BlobColumns
ColumnsT = TypeVar("ColumnsT", ScalarColumns, BlobColumns)


def canonical_location(base_dir: str) -> str:
    """The name every process gives ``base_dir``, wherever it was started: a URL without
    trailing slashes (``s3://b/p`` and ``s3://b/p/`` are one; never resolved against the
    working directory), a local path (or ``file://`` URL) as its real path."""
    if is_url(base_dir):
        local = local_path_of(base_dir)
        if local is None:
            return normalise_url(base_dir)
        base_dir = local
    return os.path.realpath(os.path.expanduser(base_dir))


def index_directory(workspace: str, base_dir: str) -> str:
    """Where the index of ``base_dir`` lives under ``workspace`` (one per base directory): a
    digest of its :func:`canonical_location`, so the name is stable and safe on any
    filesystem."""
    digest = hashlib.sha256(canonical_location(base_dir).encode()).hexdigest()[:16]
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


def merge_newest_chunks(
    chunks: list[ChunkRef],
    read: Callable[[int], Any],
    write: Callable[[Any], ChunkRef],
    retire: Callable[[tuple[ChunkRef, ChunkRef]], None],
) -> None:
    """LSM-style merging of a tag's chunks (in arrival order): while the newest chunk holds at
    least half as many entries as the one before and both together stay within
    :data:`MAX_CHUNK_ENTRIES`, both are read (by serial), concatenated, written as one new
    chunk and retired, so a file of n records ends in O(log n) chunks, none of them so large
    that a step-window read cutting it costs much (shared by both index stores)."""
    while (
        len(chunks) >= 2
        and chunks[-1].entries * 2 >= chunks[-2].entries
        and chunks[-1].entries + chunks[-2].entries <= MAX_CHUNK_ENTRIES
    ):
        first, second = chunks[-2:]
        merged = write(_concat([read(first.serial), read(second.serial)]))
        retire((first, second))
        chunks[-2:] = [merged]


def split_columns(columns: Columns) -> list[Columns]:
    """``columns`` cut into pieces of at most :data:`MAX_CHUNK_ENTRIES` entries (itself when it
    is not longer), each a view of it."""
    size = len(columns.step)
    if size <= MAX_CHUNK_ENTRIES:
        return [columns]
    return [
        type(columns)._make(column[start : start + MAX_CHUNK_ENTRIES] for column in columns)
        for start in range(0, size, MAX_CHUNK_ENTRIES)
    ]


def chunk_entries(serial: int, columns: Columns) -> tuple[ChunkRef, dict[int, SummaryPoints]]:
    """What storing ``columns`` as chunk ``serial`` writes besides the columns: its
    :class:`~.chunks.ChunkRef` and, for a non-empty scalar chunk whose steps ascend, its summary
    at each level of :data:`~.chunks.SUMMARY_LEVELS` (both index stores)."""
    ref = chunk_ref(serial, columns.step)
    if isinstance(columns, ScalarColumns):
        lowest, highest = chunk_extremes(columns.step, columns.wall_time, columns.value)
        ref = ref._replace(lowest=lowest, highest=highest)
    if isinstance(columns, ScalarColumns) and ref.ascending and ref.entries:
        return ref, summaries(columns.step, columns.wall_time, columns.value, SUMMARY_LEVELS)
    return ref, {}


def dump_entry(value: Any) -> bytes:
    """The bytes an index entry is stored as (both stores): :func:`.codec.encode`, never a
    pickle (nothing a store hands back is executed)."""
    return encode(value)


class _CodecDisk(diskcache.Disk):
    """diskcache's serialisation with :mod:`.codec` in place of pickle: strings, numbers and
    bytes are stored as diskcache stores them; any other value is encoded, stored under
    diskcache's pickle mode and decoded by :func:`.codec.decode` when read, so a row that holds
    a real pickle (written by an older version, or planted) is undecodable, never executed."""

    def store(self, value: Any, read: bool, key: Any = diskcache.core.UNKNOWN) -> Any:
        if read or type(value) in (str, int, float, bytes):
            return super().store(value, read, key=key)
        data = encode(value)
        if len(data) < self.min_file_size:
            return 0, diskcache.core.MODE_PICKLE, None, sqlite3.Binary(data)
        filename, full_path = self.filename(key, data)
        with open(full_path, "xb") as handle:
            handle.write(data)
        return len(data), diskcache.core.MODE_PICKLE, filename, None

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode != diskcache.core.MODE_PICKLE:
            return super().fetch(mode, filename, value, read)
        if value is None and filename is not None:
            with open(os.path.join(self._directory, filename), "rb") as handle:
                return decode(handle.read())
        return decode(value)


class PreparedChunk(NamedTuple):
    """One chunk ready to be stored: everything but its serial computed (by a load worker),
    its entries already encoded (:func:`dump_entry`), so that the single writer of the index
    only inserts bytes."""

    ref: ChunkRef  # serial 0: the writer gives it one
    columns: bytes  # dump_entry of the ScalarColumns / BlobColumns
    summaries: tuple[tuple[int, bytes], ...]  # (level, dump_entry of its SummaryPoints)


def prepare_chunks(columns: Columns) -> list[PreparedChunk]:
    """The chunks storing ``columns`` (cut by :func:`split_columns`), each with its
    :func:`chunk_entries` (step bounds, extremes, summaries) computed and encoded: what
    :meth:`IndexStore.append_chunk` computes in the writer, done where ``columns`` were read."""
    prepared = []
    for piece in split_columns(columns):
        ref, summary = chunk_entries(0, piece)
        prepared.append(
            PreparedChunk(
                ref,
                dump_entry(piece),
                tuple((level, dump_entry(points)) for level, points in summary.items()),
            )
        )
    return prepared


def chunk_key_parts(
    train_id: str, plugin: str, tag: str, name: str, ref: ChunkRef
) -> list[tuple[object, ...]]:
    """The parts of the index keys of one chunk: its columns and (for a chunk whose steps
    ascend) its summaries; retiring a key that was never written is a no-op."""
    parts: list[tuple[object, ...]] = [("chunk", train_id, plugin, tag, name, ref.serial)]
    if ref.ascending and ref.entries:
        parts += [
            ("lod", train_id, plugin, tag, name, ref.serial, level) for level in SUMMARY_LEVELS
        ]
    return parts


def check_layout(
    part: Any, layout: type[ColumnsT], train_id: str, plugin: str, tag: str
) -> ColumnsT:
    """``part`` when it is stored as ``layout``, a TypeError otherwise."""
    if not isinstance(part, layout):
        raise TypeError(
            f"{plugin} {tag!r} of {train_id} is stored as "
            f"{type(part).__name__}, not {layout.__name__}"
        )
    return part


def check_summary(summary: Any, what: str) -> SummaryPoints:
    """``summary`` when it is a :class:`~.chunks.SummaryPoints`; :class:`MissingChunk` (so the
    job is read again) when the entry has another layout."""
    if not isinstance(summary, SummaryPoints):
        raise MissingChunk(f"index entry of another layout: {what}")
    return summary


class MissingChunk(KeyError):
    """A chunk the job state names is not in the index (retired and expired since the state was
    read, deleted, or unreadable)."""


class IndexDamaged(Exception):
    """The index database cannot be used (SQLite says it is not a database or is malformed)."""


def is_damage(error: BaseException) -> bool:
    """True for SQLite's "file is not a database" / "database disk image is malformed" (and
    other ``DatabaseError`` that is not an ``OperationalError``): a locked or full database, or
    an I/O error, is not damage and must never make the index be deleted."""
    return isinstance(error, sqlite3.DatabaseError) and not isinstance(
        error, sqlite3.OperationalError
    )


class IndexStore:
    """Typed access to the diskcache index of one summary base directory.

    ``repair`` (the servers): check the index when opening it and build a damaged one again.
    Without it (``dash-insight status``, which must not delete the index of running servers) a
    damaged index raises :class:`IndexDamaged`.
    """

    def __init__(self, directory: str, *, repair: bool = True) -> None:
        self.directory = directory
        self._database = os.path.join(directory, "cache.db")
        self._versions: dict[str, int | None] = {}  # changed by this loader, not yet published
        self._reopening = threading.Lock()
        make_private_dirs(directory)
        with self._open_lock():
            try:
                self._cache = self._open(check=repair)
            except (sqlite3.DatabaseError, IndexDamaged) as error:
                if not repair or not (is_damage(error) or isinstance(error, IndexDamaged)):
                    raise IndexDamaged(f"the index {directory} is damaged: {error}") from error
                self._replace(error)
                self._cache = self._open(check=False)
            self._identity = _identity(self._database)

    @contextlib.contextmanager
    def _open_lock(self) -> Iterator[None]:
        """Opening, checking and replacing the index are serialised between processes (gunicorn
        workers start together): one rebuilds, the others open what it built."""
        with open(_private(self.directory + ".open.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _replace(self, error: BaseException) -> None:
        """Move the damaged index aside (``<directory>.damaged``, replacing an older one) and
        start an empty one; the loader reads every job again. Moved, not deleted: processes
        that still have it open go on until they notice (:meth:`_follow`), and its inode
        numbers stay taken, so the new database is told apart by its inode. Call with
        :meth:`_open_lock` held."""
        aside = self.directory + ".damaged"
        shutil.rmtree(aside, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            os.rename(self.directory, aside)
        make_private_dirs(self.directory)
        log.warning(
            "the index %s is damaged (%s): moved aside to %s, rebuilding it from the logs",
            self.directory,
            error,
            os.path.basename(aside),
        )

    def rebuild(self, error: BaseException) -> None:
        """Replace a damaged index found while it was in use (the loader, holding the loader
        lock); other processes follow at their next query."""
        with self._open_lock():
            if _identity(self._database) == self._identity:  # nobody replaced it yet
                self._replace(error)
            self._reopen()

    def _follow(self) -> None:
        """Open the index again if another process replaced it (:meth:`rebuild`): one ``stat``."""
        if _identity(self._database) != self._identity:
            with self._reopening, self._open_lock():
                if _identity(self._database) != self._identity:
                    self._reopen()

    def _reopen(self) -> None:
        # The old Cache is not closed: other threads may be reading through it; their
        # connections to the old file end with them.
        self._cache = self._open(check=False)
        self._identity = _identity(self._database)
        self._versions = {}

    @property
    def epoch(self) -> int:
        """Which database is open (its inode): readers drop what they cached when it changes."""
        return self._identity

    def _open(self, check: bool) -> diskcache.Cache:
        """Open the cache (files 0600), check it with ``PRAGMA quick_check`` when asked, and
        clear an index of another format."""
        restrict(self.directory, PRIVATE_DIRECTORY)
        restrict(os.path.dirname(self.directory), PRIVATE_DIRECTORY)
        create_private_file(os.path.join(self.directory, "cache.db"))
        for name in os.listdir(self.directory):  # written 0644 by an earlier version
            restrict(os.path.join(self.directory, name))
        if check:
            _quick_check(os.path.join(self.directory, "cache.db"))
        # No eviction: diskcache's default drops entries past 1 GB, which would lose data.
        cache = diskcache.Cache(
            self.directory,
            disk=_CodecDisk,
            eviction_policy="none",
            size_limit=2**62,
            cull_limit=0,
            statistics=False,
            disk_min_file_size=_IN_DATABASE_BYTES,
            sqlite_cache_size=_SQLITE_CACHE_PAGES,
            sqlite_mmap_size=_SQLITE_MMAP_BYTES,
            sqlite_journal_size_limit=_WAL_LIMIT_BYTES,
        )
        try:
            if cache.get("format") != INDEX_FORMAT:
                cache.clear()
                cache.set("format", INDEX_FORMAT)
        except BaseException:
            cache.close()
            raise
        return cache

    def close(self) -> None:
        self._cache.close()

    # -- coordination --
    def generation(self) -> int:
        """Bumped with every change; follows the index to its new database when another
        process rebuilt it."""
        self._follow()
        return stored_generation(self._cache.get("generation", 0))

    def bump_generation(self) -> int:
        """Publish the job versions this loader changed and tell readers to reload; inside the
        loader's :meth:`transaction`, so readers see the jobs, their states and the new
        generation together."""
        with self._cache.transact():
            self.publish_versions()
            try:
                stored_generation(self._cache.get("generation", 0))
            except DamagedEntry:  # rewritten with a value no reader holds
                self._cache.set("generation", time.time_ns())
            return int(self._cache.incr("generation", default=0))

    @contextlib.contextmanager
    def transaction(self, expect: Mapping[str, int | None] | None = None) -> Iterator[None]:
        """Group writes (much faster than one SQLite commit per write). When it fails, the
        versions it would have published are forgotten with the states SQLite rolled back.
        ``expect``: see :meth:`~.index_api.IndexApi.transaction` (one loader writes this index,
        so only a bug makes it raise here)."""
        try:
            with self._cache.transact():
                if expect:
                    _check_versions(self.job_versions(), expect)
                yield
        except BaseException:
            self._versions = {}
            raise
        self._checkpoint()

    def _checkpoint(self) -> None:
        """Checkpoint the write-ahead log and truncate it to nothing when it has grown past
        :data:`_WAL_CHECKPOINT_BYTES` (``PRAGMA wal_checkpoint(TRUNCATE)``: waits, within the
        connection's busy timeout, for the readers' current reads to end; new reads go on).
        A checkpoint that cannot finish (a reader still busy) is tried after the next
        transaction."""
        try:
            wal = os.path.getsize(os.path.join(self.directory, "cache.db-wal"))
        except OSError:
            return
        if wal <= _WAL_CHECKPOINT_BYTES:
            return
        try:
            busy, _, _ = self._cache._con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError as error:
            log.info("index: write-ahead log checkpoint put off: %s", error)
            return
        log.info(
            "index: write-ahead log of %d MB checkpointed%s",
            wal >> 20,
            " (a reader was busy: not truncated)" if busy else "",
        )

    @contextlib.contextmanager
    def loader_lock(self, blocking: bool = False) -> Iterator[bool]:
        """Yields True when this process holds the right to write (one loader per index).

        An OS file lock: released when the holder exits, however it exits, so another worker
        can take over."""
        # Beside the index directory, not in it: the lock outlives a rebuild of the index.
        path = _private(self.directory + ".loader.lock")
        with open(path, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                self._follow()
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def expire_retired(self) -> int:
        """Delete the retired chunks whose grace period is over (the loader, after a round)."""
        return int(self._cache.expire())

    # -- jobs --
    def job_list(self) -> list[tuple[str, float, float]]:
        """(train_id, create_time, update_time) of every discovered job, newest first."""
        try:
            return list(self._cache.get("jobs", []))
        except UndecodableEntry:  # as missing: the next discovery writes it again
            return []

    def set_job_list(self, jobs: list[tuple[str, float, float]]) -> None:
        self._cache.set("jobs", jobs)

    def has_job_list(self) -> bool:
        """False until the first discovery of the base directory has finished."""
        return "jobs" in self._cache

    def load_job(self, train_id: str, repair: bool = True) -> JobState | None:
        """The stored state, or None (also when it cannot be decoded or read: with
        ``repair`` — the loader — it is then deleted, to be rebuilt). Readers pass
        ``repair=False`` and get the error: a reader must never delete what the loader wrote
        (a job would vanish for every process until it is read again from its files)."""
        key = _key("job", train_id)
        try:
            return self._cache.get(key)
        except Exception as error:  # written by another version of the code, or damaged
            if isinstance(error, sqlite3.OperationalError) or not repair:
                raise  # locked or an I/O error: not the entry's fault; or not ours to repair
            with contextlib.suppress(sqlite3.DatabaseError):
                self._cache.delete(key)
            return None

    def save_job(self, state: JobState) -> None:
        """Store a job's state; readers see its new version after :meth:`publish_versions`
        (called by :meth:`bump_generation`)."""
        self._cache.set(_key("job", state.train_id), state)
        self._versions[state.train_id] = state.version

    def publish_versions(self) -> None:
        """Write the versions of the jobs this loader changed into ``versions``, read and
        written in one transaction: the entries of the other jobs stay as they are."""
        if not self._versions:
            return
        with self._cache.transact():
            try:
                versions = self.job_versions()
            except DamagedEntry:  # the loader saved every job of this round: they are all here
                versions = {}
            for train_id, version in self._versions.items():
                if version is None:
                    versions.pop(train_id, None)
                else:
                    versions[train_id] = version
            self._cache.set("versions", versions)
        self._versions = {}

    def job_versions(self) -> dict[str, int]:
        """{train_id: version} of every stored job: readers reload only the jobs that changed."""
        try:
            return stored_versions(self._cache.get("versions", {}))
        except UndecodableEntry:
            raise DamagedEntry("the index entry 'versions' is damaged") from None

    def job_version(self, train_id: str) -> int | None:
        return self.job_versions().get(train_id)

    def delete_job(self, state: JobState) -> None:
        for file_state in state.files.values():
            self.drop_file(state, file_state)
        self._cache.delete(_key("job", state.train_id))
        self._versions[state.train_id] = None

    def request_rebuild(self, train_id: str) -> None:
        """Ask the loader to read ``train_id`` again from its logs (a reader found a chunk its
        state names missing or unreadable). Never raises: the caller is answering a request."""
        try:
            with self._cache.transact():
                pending = set(self._cache.get("rebuild", ()))
                if train_id not in pending:
                    self._cache.set("rebuild", pending | {train_id})
        except (sqlite3.Error, diskcache.Timeout, UndecodableEntry) as error:
            log.warning("could not ask for %s to be indexed again: %s", train_id, error)

    def take_rebuild_requests(self) -> set[str]:
        """The train_ids readers asked to be indexed again, removed from the index (the
        loader, inside its transaction)."""
        try:
            pending = set(self._cache.get("rebuild", ()))
        except UndecodableEntry:
            pending = {"\0"}  # deleted below; names no job
        if pending:
            self._cache.delete("rebuild")
        return pending - {"\0"}

    # -- chunks --
    def append_chunk(
        self,
        state: JobState,
        file_state: FileState,
        plugin: str,
        tag: str,
        columns: Columns,
        merge: bool = True,
    ) -> None:
        """Store one more chunk of ``tag`` read from ``file_state`` (several when it holds more
        than :data:`MAX_CHUNK_ENTRIES`; with its summaries when it is a scalar chunk whose steps
        ascend); with ``merge``, merge the newest chunks LSM-style
        (the loader passes False while a file is first read) while the result stays within
        :data:`MAX_CHUNK_ENTRIES`. A merge writes a new chunk and retires the two it replaces.
        """
        chunks = file_state.chunks.setdefault((plugin, tag), [])
        name = file_state.name
        chunks.extend(
            self._new_chunk(state.train_id, plugin, tag, name, piece)
            for piece in split_columns(columns)
        )
        if merge:
            merge_newest_chunks(
                chunks,
                lambda serial: self._chunk(state.train_id, plugin, tag, name, serial),
                lambda merged: self._new_chunk(state.train_id, plugin, tag, name, merged),
                lambda replaced: self._retire(
                    _key(*parts)
                    for ref in replaced
                    for parts in chunk_key_parts(state.train_id, plugin, tag, name, ref)
                ),
            )

    def append_prepared(
        self,
        state: JobState,
        file_state: FileState,
        tags: Sequence[tuple[str, str, Sequence[PreparedChunk]]],
    ) -> None:
        """Store the chunks of a slice of a file read for the first time, prepared by
        :func:`prepare_chunks` (``tags``: plugin, tag and its chunks; no merging), as
        :meth:`append_chunk` with ``merge=False`` would: one serial block reserved and every
        entry inserted with one ``executemany`` of ready entries. Call inside
        :meth:`transaction`."""
        total = sum(len(chunks) for _, _, chunks in tags)
        if not total:
            return
        serial = int(self._cache.incr("chunk-serial", delta=total, default=0)) - total + 1
        rows: list[tuple[str, bytes]] = []
        for plugin, tag, chunks in tags:
            refs = file_state.chunks.setdefault((plugin, tag), [])
            for chunk in chunks:
                ref = chunk.ref._replace(serial=serial)
                serial += 1
                key = (state.train_id, plugin, tag, file_state.name, ref.serial)
                rows.append((_key("chunk", *key), chunk.columns))
                rows.extend(
                    (_key("lod", *key, level), summary) for level, summary in chunk.summaries
                )
                refs.append(ref)
        self._insert_entries(rows)

    def _insert_entries(self, rows: list[tuple[str, bytes]]) -> None:
        """Insert entries under new keys whose values are already encoded
        (:func:`dump_entry`), as ``diskcache.Cache.set`` stores an object inside the database
        through :class:`_CodecDisk` (its ``Cache`` table: ``raw`` 1 for a string key, ``mode``
        4 (``MODE_PICKLE``, read by :func:`.codec.decode`), ``size`` 0, no expiry), so ``get``
        reads them back as usual; diskcache's triggers keep its count. One ``executemany``
        instead of a SELECT and an INSERT per entry through ``set``. A value of
        :data:`_IN_DATABASE_BYTES` or more goes through ``set`` (diskcache writes it to a
        file)."""
        now = time.time()
        large = [(key, value) for key, value in rows if len(value) >= _IN_DATABASE_BYTES]
        with self._cache.transact():
            self._cache._con.executemany(
                "INSERT INTO Cache(key, raw, store_time, expire_time, access_time, access_count,"
                " tag, size, mode, filename, value) VALUES (?, 1, ?, NULL, ?, 0, NULL, 0, ?, NULL,"
                " ?)",
                (
                    (key, now, now, diskcache.core.MODE_PICKLE, value)
                    for key, value in rows
                    if len(value) < _IN_DATABASE_BYTES
                ),
            )
            for key, value in large:
                self._cache.set(key, decode(value))

    def _new_chunk(
        self, train_id: str, plugin: str, tag: str, name: str, columns: Columns
    ) -> ChunkRef:
        serial = int(self._cache.incr("chunk-serial", default=0))
        ref, summaries = chunk_entries(serial, columns)
        self._insert_entries(
            [(_key("chunk", train_id, plugin, tag, name, serial), dump_entry(columns))]
            + [
                (_key("lod", train_id, plugin, tag, name, serial, level), dump_entry(summary))
                for level, summary in summaries.items()
            ]
        )
        return ref

    def _retire(self, keys: Iterable[str]) -> None:
        """Let chunks expire after :data:`RETIRED_CHUNK_SECONDS` instead of deleting them now:
        a reader may hold a job state that names them."""
        for key in keys:
            try:
                self._cache.touch(key, expire=RETIRED_CHUNK_SECONDS)
            except sqlite3.DatabaseError as error:
                if not is_damage(error):
                    raise
                # A damaged row: deleted if SQLite can, otherwise left where nothing names it
                # (expiring it would fail again at every round).
                with contextlib.suppress(sqlite3.DatabaseError):
                    self._cache.delete(key)

    def _entry(self, key: str, what: str) -> Any:
        """The entry at ``key``; :class:`MissingChunk` (described by ``what``) when it is
        missing or unreadable."""
        try:
            entry = self._cache.get(key)
        except Exception as error:  # a damaged page, or an entry this code cannot decode
            if isinstance(error, sqlite3.OperationalError):
                raise
            raise MissingChunk(f"index entry unreadable: {what}: {error!r}") from error
        if entry is None:
            raise MissingChunk(f"index entry missing: {what}")
        return entry

    def _chunk(self, train_id: str, plugin: str, tag: str, name: str, serial: int) -> Any:
        return self._entry(
            _key("chunk", train_id, plugin, tag, name, serial),
            f"{train_id} {plugin} {tag} {name} #{serial}",
        )

    def read_chunk(
        self, train_id: str, plugin: str, tag: str, name: str, serial: int, layout: type[ColumnsT]
    ) -> ColumnsT:
        """One chunk of ``tag`` read from file ``name`` (:class:`MissingChunk` when the index
        lacks it; a TypeError when it is not stored as ``layout``)."""
        return check_layout(
            self._chunk(train_id, plugin, tag, name, serial), layout, train_id, plugin, tag
        )

    def read_summary(
        self, train_id: str, plugin: str, tag: str, name: str, serial: int, level: int
    ) -> SummaryPoints:
        """The level-``level`` summary of one ascending scalar chunk (:mod:`.chunks`);
        :class:`MissingChunk` when the index lacks it."""
        what = f"{train_id} {plugin} {tag} {name} #{serial} summary {level}"
        return check_summary(
            self._entry(_key("lod", train_id, plugin, tag, name, serial, level), what), what
        )

    def read_columns(
        self, state: JobState, plugin: str, tag: str, layout: type[ColumnsT]
    ) -> list[tuple[FileState, ColumnsT]]:
        """The columns of ``tag`` per file, files in rank order, each file's chunks concatenated
        in arrival order. ``layout`` is what the caller expects (:class:`ScalarColumns` for
        scalars, :class:`BlobColumns` otherwise); another one is a TypeError. A chunk the state
        names but the index lacks is a :class:`MissingChunk`."""
        out = []
        for file_state, chunks in tag_chunks(state, plugin, tag):
            parts = [
                self.read_chunk(state.train_id, plugin, tag, file_state.name, ref.serial, layout)
                for ref in chunks
            ]
            out.append((file_state, _concat(parts)))
        return out

    def drop_file(self, state: JobState, file_state: FileState) -> None:
        """Retire every chunk read from one file (and its summaries)."""
        self._retire(
            _key(*parts)
            for (plugin, tag), chunks in file_state.chunks.items()
            for ref in chunks
            for parts in chunk_key_parts(state.train_id, plugin, tag, file_state.name, ref)
        )
        file_state.chunks = {}


def tag_chunks(state: JobState, plugin: str, tag: str) -> list[tuple[FileState, list[ChunkRef]]]:
    """The chunks of ``tag`` per file in arrival order: files by (rank, name), as MindInsight
    reads them, each file's chunks in the order they were read."""
    out = []
    for file_state in sorted(state.files.values(), key=lambda f: (f.rank, f.name)):
        chunks = file_state.chunks.get((plugin, tag))
        if chunks:
            out.append((file_state, chunks))
    return out


def _check_versions(published: Mapping[str, int], expect: Mapping[str, int | None]) -> None:
    """:class:`IndexConflict` unless every job of ``expect`` has the expected published
    version (None: not stored)."""
    for train_id, version in expect.items():
        if published.get(train_id) != version:
            raise IndexConflict(
                f"{train_id} is at version {published.get(train_id)}, "
                f"not {version}: another writer changed it"
            )


def _quick_check(path: str) -> None:
    """SQLite's ``PRAGMA quick_check`` (every page and record well formed; not the slower check
    of every index against its table): :class:`IndexDamaged` or ``sqlite3.DatabaseError`` when
    the file is damaged. An empty file is a new database."""
    connection = sqlite3.connect(path, timeout=60)
    try:
        problems = [row[0] for row in connection.execute("PRAGMA quick_check").fetchall()]
    finally:
        connection.close()
    if problems != ["ok"]:
        raise IndexDamaged("; ".join(problems[:3]))


def _identity(path: str) -> int:
    """The inode of the database file (0 when it is missing)."""
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return 0


def _private(path: str) -> str:
    """``path``, created 0600 if missing (a lock file)."""
    create_private_file(path)
    return path
