"""The index in Redis (``--index redis://host:6379/0``): the entries of the diskcache index
(:mod:`.index`), shared by the web processes and the Celery loading workers of any number of
machines (:mod:`dash_insight.core.fleet`).

Keys start with ``dash-insight:<digest of the base directory>:``, so one Redis holds the
indexes of several base directories. Values are written by :mod:`.codec`, never pickles (a
process must not execute what anyone able to write to Redis put there): columns as compressed
numpy buffers with a JSON header, everything else as tagged JSON. A value that does not decode
(planted, damaged, of another version) is treated as missing: its job is read again.

* ``job|<train_id>`` -> :class:`~.state.JobState`; ``chunk|...`` -> column chunks, named by a
  serial from ``chunk-serial`` (blocks reserved with INCRBY), never overwritten, and
  ``lod|...|<level>`` -> the summaries of an ascending scalar chunk (:mod:`.chunks`), written
  and retired with it;
* ``versions`` -> a Redis hash {train_id: version}: every save writes its own field (HSET), so
  two writers of different jobs never drop each other's entries — the whole-dict
  read-modify-write whose race the diskcache index guards with a transaction does not exist;
* ``jobs`` -> the job list (written by the one discovery holding the ``discovery`` lease);
* ``generation`` -> INCR in the same MULTI/EXEC as the change it announces;
* ``rebuild`` -> a Redis set of train_ids readers found damaged (SADD; the loader SREMs what
  it took, so a request arriving meanwhile is kept);
* ``epoch`` -> a random number set when the index is created: a flushed Redis is a new epoch
  and readers drop their caches, as for a rebuilt diskcache.

A :meth:`RedisIndexStore.transaction` buffers every write and applies them in one MULTI/EXEC:
readers see all of a change or none of it. The jobs it reads (:meth:`load_job`) and the job
list are WATCHed, and ``expect`` checks the published versions of named jobs: when another
writer committed any of them meanwhile, EXEC writes nothing and :class:`IndexConflict` is
raised, so a writer whose lease lapsed can never overwrite newer work (offsets included).
Retired chunks get a PEXPIRE of :data:`~.index.RETIRED_CHUNK_SECONDS` instead of being
deleted, as in diskcache.

Leases (:meth:`RedisIndexStore.lease`) are ``SET key token NX PX ttl`` keys, renewed and
released only by their holder (a Lua compare of the token).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import redis

from dash_insight.core.store.chunks import ChunkRef, SummaryPoints
from dash_insight.core.store.codec import UndecodableEntry, decode
from dash_insight.core.store.fingerprint import state_fingerprint
from dash_insight.core.store.health import one_line
from dash_insight.core.store.index import (
    _SEP,
    INDEX_FORMAT,
    RETIRED_CHUNK_SECONDS,
    Columns,
    ColumnsT,
    MissingChunk,
    PreparedChunk,
    _concat,
    canonical_location,
    check_layout,
    check_summary,
    chunk_entries,
    chunk_key_parts,
    dump_entry,
    merge_newest_chunks,
    split_columns,
)
from dash_insight.core.store.index_api import (
    DamagedEntry,
    IndexConflict,
    IndexUnavailable,
    redacted,
)
from dash_insight.core.store.state import FileState, JobState

log = logging.getLogger(__name__)

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""
_BUMP = """
local generation = redis.call('incr', KEYS[1])
for i = 1, #ARGV do
    redis.call('zadd', KEYS[2], generation, ARGV[i])
end
return generation
"""
#: The member of ``changes`` meaning "the jobs changed are not known: read every version".
EVERYTHING = "*"
Write = Callable[[Any], Any]  # one buffered command, applied to a pipeline
#: Seconds to connect to Redis, and to wait for an answer, unless the URL says otherwise.
CONNECT_TIMEOUT_SECONDS = 3.0
SOCKET_TIMEOUT_SECONDS = 30.0
#: Tries to open the index while Redis cannot be reached, the first pause (doubled each time,
#: at most 8 s): about 15 s in all, then one clear error.
OPEN_ATTEMPTS = 5
OPEN_PAUSE_SECONDS = 1.0
#: Chunk serials reserved at once by a writer.
SERIAL_BLOCK = 256


def _dump(value: Any) -> bytes:
    return dump_entry(value)


def key_prefix(base_dir: str) -> str:
    """``dash-insight:<16 hex digits>:``: the keys of one base directory, a digest of its
    :func:`~.index.canonical_location` (an object-storage URL as it is, a local path as its
    real path), so processes started in any working directory share them."""
    digest = hashlib.sha256(canonical_location(base_dir).encode()).hexdigest()[:16]
    return f"dash-insight:{digest}:"


class _Transaction:
    """The writes of one transaction, and what they wrote (read back by later reads)."""

    def __init__(self, pipe: Any) -> None:
        self.pipe = pipe
        self.writes: list[Write] = []
        self.values: dict[str, bytes | None] = {}  # None: deleted
        self.changed: set[str] = set()  # train_ids saved or deleted (see bump_generation)


class Lease:
    """A lease held in Redis: :meth:`renew` extends it (False when it was lost)."""

    def __init__(self, client: redis.Redis, key: str, token: str, ttl_ms: int) -> None:
        self._client, self.key, self.token, self.ttl_ms = client, key, token, ttl_ms

    def renew(self) -> bool:
        return bool(self._client.eval(_RENEW, 1, self.key, self.token, self.ttl_ms))

    def release(self) -> None:
        self._client.eval(_RELEASE, 1, self.key, self.token)


class RedisIndexStore:
    """Typed access to the Redis index of one summary base directory (see the module)."""

    #: What a call raises while Redis cannot be reached (the web layer answers 503).
    unreachable_errors: tuple[type[BaseException], ...] = (
        redis.ConnectionError,
        redis.TimeoutError,
    )

    def __init__(self, url: str, base_dir: str) -> None:
        self.url = url
        # Any: redis-py types every answer as bytes | str (decode_responses is chosen at run
        # time); this client answers bytes. Bounded timeouts (the URL's own win): a Redis
        # behind a dropped network must make a request answer 503 soon, not hang.
        self.client: Any = redis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
            socket_timeout=SOCKET_TIMEOUT_SECONDS,
        )
        self.prefix = key_prefix(base_dir)
        self._local = threading.local()
        self._epoch = 0
        self._serial_lock = threading.Lock()
        self._serial_next = self._serial_end = 0  # the reserved block [next, end)
        self._open_with_retries()
        log.info(
            "index in Redis %s, keys %s* (base directory %s)",
            redacted(url),
            self.prefix,
            canonical_location(base_dir),
        )

    def _open_with_retries(self) -> None:
        """:meth:`_open`, tried :data:`OPEN_ATTEMPTS` times with a growing pause while Redis
        cannot be reached; :class:`IndexUnavailable` with one line when it still cannot be, or
        at once when Redis refuses the credentials (retrying would not help)."""
        where = redacted(self.url)
        for attempt in range(1, OPEN_ATTEMPTS + 1):
            try:
                self._open()
                return
            except redis.AuthenticationError as error:
                raise IndexUnavailable(
                    f"the index {where} refused the credentials: {one_line(error)} (give the "
                    "password in DASH_INSIGHT_INDEX or a config file, see docs/fleet.md)"
                ) from None
            except redis.ResponseError as error:  # NOAUTH, WRONGPASS, NOPERM
                raise IndexUnavailable(
                    f"the index {where} refused this client: {one_line(error)}"
                ) from None
            except (redis.ConnectionError, redis.TimeoutError) as error:
                if attempt == OPEN_ATTEMPTS:
                    raise IndexUnavailable(
                        f"the index {where} cannot be reached after {OPEN_ATTEMPTS} tries: "
                        f"{one_line(error)}"
                    ) from None
                pause = min(OPEN_PAUSE_SECONDS * 2 ** (attempt - 1), 8.0)
                log.warning(
                    "the index %s cannot be reached (%s); try %d of %d in %.0f s",
                    where,
                    one_line(error),
                    attempt + 1,
                    OPEN_ATTEMPTS,
                    pause,
                )
                time.sleep(pause)

    def _k(self, *parts: object) -> str:
        return self.prefix + _SEP.join(str(part) for part in parts)

    def _open(self) -> None:
        """Clear an index of another format (or none) and give it a new epoch."""
        stored = self.client.get(self._k("format"))
        if stored is None or int(stored) != INDEX_FORMAT:
            if stored is not None:
                log.warning(
                    "the Redis index %s has format %s, not %d: clearing it",
                    self.prefix,
                    stored.decode(),
                    INDEX_FORMAT,
                )
                self._clear()
            with self.client.pipeline() as pipe:
                pipe.set(self._k("epoch"), secrets.randbits(62), nx=True)
                pipe.set(self._k("format"), INDEX_FORMAT)
                pipe.execute()
        self._epoch = int(self.client.get(self._k("epoch")) or 0)

    def _clear(self) -> None:
        for keys in _batches(self.client.scan_iter(match=self.prefix + "*", count=1000), 500):
            self.client.delete(*keys)

    @property
    def epoch(self) -> int:
        """The index's epoch as of the last :meth:`generation`."""
        return self._epoch

    def close(self) -> None:
        self.client.close()

    # -- transactions --
    @property
    def _tx(self) -> _Transaction | None:
        return getattr(self._local, "tx", None)

    def _write(self, write: Write, key: str | None = None, value: bytes | None = None) -> None:
        """Buffer ``write`` in the open transaction (recording what ``key`` now holds), or
        apply it now."""
        tx = self._tx
        if tx is None:
            write(self.client)
            return
        tx.writes.append(write)
        if key is not None:
            tx.values[key] = value

    def _get(self, key: str, watch: bool = False) -> bytes | None:
        tx = self._tx
        if tx is not None:
            if key in tx.values:
                return tx.values[key]
            if watch:
                tx.pipe.watch(key)
                return tx.pipe.get(key)
        return self.client.get(key)

    @contextlib.contextmanager
    def transaction(self, expect: Mapping[str, int | None] | None = None) -> Iterator[None]:
        """Buffer the writes and apply them in one MULTI/EXEC (see the module); nested calls
        join the outer transaction."""
        if self._tx is not None:
            yield
            return
        with self.client.pipeline(transaction=True) as pipe:
            tx = _Transaction(pipe)
            if expect:
                ids = list(expect)
                pipe.watch(*(self._k("job", train_id) for train_id in ids))
                published = pipe.hmget(self._k("versions"), ids)
                for train_id, version in zip(ids, published, strict=True):
                    found = None if version is None else int(version)
                    if found != expect[train_id]:
                        raise IndexConflict(
                            f"{train_id} is at version {found}, not "
                            f"{expect[train_id]}: another writer changed it"
                        )
            self._local.tx = tx
            try:
                yield
                pipe.multi()
                for write in tx.writes:
                    write(pipe)
                pipe.execute()
            except redis.WatchError as error:
                raise IndexConflict(f"another writer changed what this one read: {error}") from None
            finally:
                self._local.tx = None

    @contextlib.contextmanager
    def lease(self, name: str, ttl_seconds: float) -> Iterator[Lease | None]:
        """Yields a :class:`Lease` on ``name`` when nobody holds it (None otherwise), released
        on exit; it expires ``ttl_seconds`` after it was taken or last renewed, so a holder
        that died frees it."""
        # The token names the holder's process: `dash-insight status` and the tests can tell
        # which worker holds a job.
        key, token = self._k("lease", name), f"{os.getpid()}:{secrets.token_hex(8)}"
        ttl_ms = max(1, int(ttl_seconds * 1000))
        if not self.client.set(key, token, nx=True, px=ttl_ms):
            yield None
            return
        lease = Lease(self.client, key, token, ttl_ms)
        try:
            yield lease
        finally:
            with contextlib.suppress(redis.RedisError):
                lease.release()

    def try_mark(self, name: str, ttl_seconds: float) -> bool:
        """SET NX PX of a marker (e.g. "a load of this job is queued"); True when it was set."""
        return bool(self.client.set(self._k("mark", name), 1, nx=True, px=int(ttl_seconds * 1000)))

    def unmark(self, name: str) -> None:
        self.client.delete(self._k("mark", name))

    @contextlib.contextmanager
    def loader_lock(self, blocking: bool = False) -> Iterator[bool]:
        """The ``loader`` lease (60 s, not renewed): a single-process loader on a Redis index.
        Fleet workers take per-job leases instead."""
        del blocking  # a lease is never waited for: the next round tries again
        with self.lease("loader", 60.0) as lease:
            yield lease is not None

    def rebuild(self, error: BaseException) -> None:
        log.warning("the Redis index %s is damaged (%s): clearing it", self.prefix, error)
        self._clear()
        self._open()

    def expire_retired(self) -> int:
        """Redis expires retired chunks by itself."""
        return 0

    # -- coordination --
    def generation(self) -> int:
        generation, epoch = self.client.mget([self._k("generation"), self._k("epoch")])
        try:
            self._epoch = int(epoch or 0)
            return int(generation or 0)
        except ValueError:
            raise DamagedEntry("the index entry 'generation' is damaged") from None

    def bump_generation(self) -> int:
        """INCR ``generation`` with the transaction's other writes, and record in ``changes``
        (a sorted set: train_id -> the generation that last changed it) the jobs the
        transaction saved or deleted, so readers fetch those versions only
        (:meth:`changed_since`); ``*`` when they are not known. Returns the generation it will
        publish unless another writer commits first."""
        tx = self._tx
        keys = (self._k("generation"), self._k("changes"))

        def write(client: Any) -> None:  # applied at EXEC: every save of the transaction is in
            ids = sorted(tx.changed) if tx is not None and tx.changed else [EVERYTHING]
            client.eval(_BUMP, 2, *keys, *ids)

        self._write(write)
        return int(self.client.get(self._k("generation")) or 0) + 1

    def changed_since(self, generation: int) -> list[str] | None:
        """The train_ids changed after ``generation`` (one ZRANGEBYSCORE), None when that is
        not known (a change recorded as ``*``): read every version then."""
        found = [
            name.decode()
            for name in self.client.zrangebyscore(self._k("changes"), f"({generation}", "+inf")
        ]
        return None if EVERYTHING in found else found

    def versions_of(self, train_ids: list[str]) -> dict[str, int]:
        """The published versions of ``train_ids`` that exist (one HMGET)."""
        if not train_ids:
            return {}
        found = self.client.hmget(self._k("versions"), train_ids)
        try:
            return {
                train_id: int(version)
                for train_id, version in zip(train_ids, found, strict=True)
                if version is not None
            }
        except ValueError:
            raise DamagedEntry("the index entry 'versions' is damaged") from None

    def count_task(self, task: str, outcome: str) -> None:
        """Count one finished task of the fleet's workers (``task-counts``: a hash
        ``<task>|<outcome>`` -> count), shown by every process's ``/metrics``. Never raises:
        a count must not fail the task."""
        with contextlib.suppress(redis.RedisError):
            self.client.hincrby(self._k("task-counts"), f"{task}|{outcome}", 1)

    def task_counts(self) -> dict[tuple[str, str], int]:
        """{(task, outcome): count} of the fleet's workers since the index was created."""
        out = {}
        for field, count in self.client.hgetall(self._k("task-counts")).items():
            task, _, outcome = field.decode().partition("|")
            out[(task, outcome)] = int(count)
        return out

    def mark_discovered(self) -> None:
        """Record when the last discovery was published (``discovered-at``, epoch seconds):
        what ``/readyz`` shows as the last discovery's age."""
        self.client.set(self._k("discovered-at"), repr(time.time()))

    def last_discovery(self) -> float | None:
        """When the last discovery was published (epoch seconds), None when none was."""
        value = self.client.get(self._k("discovered-at"))
        try:
            return None if value is None else float(value)
        except ValueError:
            return None

    def publish_versions(self) -> None:
        """Nothing to do: :meth:`save_job` writes the job's version with its state."""

    # -- jobs --
    def job_list(self) -> list[tuple[str, float, float]]:
        raw = self._get(self._k("jobs"), watch=True)
        if raw is None:
            return []
        try:
            jobs = decode(raw)
            return [(str(name), float(created), float(updated)) for name, created, updated in jobs]
        except (UndecodableEntry, TypeError, ValueError):  # as missing: discovery rewrites it
            return []

    def set_job_list(self, jobs: list[tuple[str, float, float]]) -> None:
        key, value = self._k("jobs"), _dump(jobs)
        self._write(lambda client: client.set(key, value), key, value)

    def has_job_list(self) -> bool:
        return self._get(self._k("jobs")) is not None

    def load_job(self, train_id: str, repair: bool = True) -> JobState | None:
        key = self._k("job", train_id)
        raw = self._get(key, watch=True)
        if raw is None:
            return None
        try:
            state = decode(raw)
        except UndecodableEntry:
            if not repair:
                raise
            marks = self._k("fingerprints")

            def forget(client: Any) -> None:
                client.delete(key)
                client.hdel(marks, train_id)

            self._write(forget, key, None)
            return None
        if not isinstance(state, JobState):
            if not repair:
                raise TypeError(f"{train_id}: the index holds a {type(state).__name__}")
            return None
        return state

    def load_jobs(self, train_ids: list[str]) -> dict[str, JobState]:
        """The stored states of ``train_ids`` (one MGET; missing or unreadable ones left out),
        outside any transaction: for discovery's comparison with the disk."""
        keys = [self._k("job", train_id) for train_id in train_ids]
        out = {}
        for train_id, raw in zip(train_ids, self.client.mget(keys) if keys else [], strict=True):
            if raw is None:
                continue
            try:
                state = decode(raw)
            except UndecodableEntry:  # read again by its load task
                continue
            if isinstance(state, JobState):
                out[train_id] = state
        return out

    def save_job(self, state: JobState) -> None:
        key, value, version = self._k("job", state.train_id), _dump(state), state.version
        versions, train_id = self._k("versions"), state.train_id
        marks, mark = self._k("fingerprints"), state_fingerprint(state)
        if self._tx is not None:
            self._tx.changed.add(train_id)

        def write(client: Any) -> None:
            client.set(key, value)
            client.hset(versions, train_id, version)
            if mark is None:
                client.hdel(marks, train_id)
            else:
                client.hset(marks, train_id, mark)

        self._write(write, key, value)

    def fingerprints(self, train_ids: list[str]) -> dict[str, str]:
        """The change marks (:mod:`.fingerprint`) of ``train_ids`` that have one: one HMGET."""
        if not train_ids:
            return {}
        found = self.client.hmget(self._k("fingerprints"), train_ids)
        return {
            train_id: mark.decode()
            for train_id, mark in zip(train_ids, found, strict=True)
            if mark is not None
        }

    def job_versions(self) -> dict[str, int]:
        try:
            return {
                name.decode(): int(version)
                for name, version in self.client.hgetall(self._k("versions")).items()
            }
        except (ValueError, UnicodeDecodeError):
            raise DamagedEntry("the index entry 'versions' is damaged") from None

    def job_version(self, train_id: str) -> int | None:
        """One HGET: a load task must not read every job's version."""
        version = self.client.hget(self._k("versions"), train_id)
        return None if version is None else int(version)

    def delete_job(self, state: JobState) -> None:
        for file_state in state.files.values():
            self.drop_file(state, file_state)
        key, versions, train_id = (
            self._k("job", state.train_id),
            self._k("versions"),
            state.train_id,
        )

        marks = self._k("fingerprints")
        if self._tx is not None:
            self._tx.changed.add(train_id)

        def write(client: Any) -> None:
            client.delete(key)
            client.hdel(versions, train_id)
            client.hdel(marks, train_id)

        self._write(write, key, None)

    def request_rebuild(self, train_id: str) -> None:
        try:
            self.client.sadd(self._k("rebuild"), train_id)
        except redis.RedisError as error:
            log.warning("could not ask for %s to be indexed again: %s", train_id, error)

    def take_rebuild_requests(self) -> set[str]:
        key = self._k("rebuild")
        pending = {name.decode() for name in self.client.smembers(key)}
        if pending:
            self._write(lambda client: client.srem(key, *pending))
        return pending

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
        """As :meth:`.index.IndexStore.append_chunk`."""
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
                    self._k(*parts)
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
        """As :meth:`.index.IndexStore.append_prepared`: the encoded entries are SET as they
        are."""
        for plugin, tag, chunks in tags:
            refs = file_state.chunks.setdefault((plugin, tag), [])
            for chunk in chunks:
                ref = chunk.ref._replace(serial=self._next_serial())
                key = (state.train_id, plugin, tag, file_state.name, ref.serial)
                entries = [(self._k("chunk", *key), chunk.columns)]
                entries += [
                    (self._k("lod", *key, level), summary) for level, summary in chunk.summaries
                ]
                for name, value in entries:
                    self._write(functools.partial(_set, key=name, value=value), name, value)
                refs.append(ref)

    def _new_chunk(
        self, train_id: str, plugin: str, tag: str, name: str, columns: Columns
    ) -> ChunkRef:
        serial = self._next_serial()
        ref, summaries = chunk_entries(serial, columns)
        entries = {self._k("chunk", train_id, plugin, tag, name, serial): dump_entry(columns)}
        entries.update(
            {
                self._k("lod", train_id, plugin, tag, name, serial, level): _dump(summary)
                for level, summary in summaries.items()
            }
        )
        for key, value in entries.items():
            self._write(functools.partial(_set, key=key, value=value), key, value)
        return ref

    def _next_serial(self) -> int:
        """A chunk serial no other writer gets: taken from a block of
        :data:`SERIAL_BLOCK` reserved with one INCRBY (a round trip per chunk was a third of a
        small job's load). Serials only name chunks: unused ones are simply skipped."""
        with self._serial_lock:
            if self._serial_next >= self._serial_end:
                self._serial_end = (
                    int(self.client.incrby(self._k("chunk-serial"), SERIAL_BLOCK)) + 1
                )
                self._serial_next = self._serial_end - SERIAL_BLOCK
            serial = self._serial_next
            self._serial_next += 1
            return serial

    def _retire(self, keys: Iterable[str]) -> None:
        milliseconds = int(RETIRED_CHUNK_SECONDS * 1000)
        for key in keys:
            self._write(functools.partial(_pexpire, key=key, milliseconds=milliseconds))

    def _chunk(self, train_id: str, plugin: str, tag: str, name: str, serial: int) -> Any:
        return _decode_chunk(
            self._get(self._k("chunk", train_id, plugin, tag, name, serial)),
            f"{train_id} {plugin} {tag} {name} #{serial}",
        )

    def read_chunk(
        self, train_id: str, plugin: str, tag: str, name: str, serial: int, layout: type[ColumnsT]
    ) -> ColumnsT:
        """As :meth:`.index.IndexStore.read_chunk`."""
        return check_layout(
            self._chunk(train_id, plugin, tag, name, serial), layout, train_id, plugin, tag
        )

    def read_summary(
        self, train_id: str, plugin: str, tag: str, name: str, serial: int, level: int
    ) -> SummaryPoints:
        """As :meth:`.index.IndexStore.read_summary`."""
        what = f"{train_id} {plugin} {tag} {name} #{serial} summary {level}"
        return check_summary(
            _decode_chunk(
                self._get(self._k("lod", train_id, plugin, tag, name, serial, level)), what
            ),
            what,
        )

    def read_columns(
        self, state: JobState, plugin: str, tag: str, layout: type[ColumnsT]
    ) -> list[tuple[FileState, ColumnsT]]:
        """As :meth:`.index.IndexStore.read_columns`; every chunk in one MGET."""
        files = [
            f
            for f in sorted(state.files.values(), key=lambda f: (f.rank, f.name))
            if f.chunks.get((plugin, tag))
        ]
        keys = [
            self._k("chunk", state.train_id, plugin, tag, f.name, ref.serial)
            for f in files
            for ref in f.chunks[(plugin, tag)]
        ]
        tx = self._tx
        written = tx.values if tx is not None else {}  # what this transaction wrote wins
        fetched = self.client.mget(keys) if keys else []
        values = iter([written.get(key, value) for key, value in zip(keys, fetched, strict=True)])
        out = []
        for file_state in files:
            parts = []
            for ref in file_state.chunks[(plugin, tag)]:
                part = _decode_chunk(
                    next(values), f"{state.train_id} {plugin} {tag} {file_state.name} #{ref.serial}"
                )
                parts.append(check_layout(part, layout, state.train_id, plugin, tag))
            out.append((file_state, _concat(parts)))
        return out

    def drop_file(self, state: JobState, file_state: FileState) -> None:
        self._retire(
            self._k(*parts)
            for (plugin, tag), chunks in file_state.chunks.items()
            for ref in chunks
            for parts in chunk_key_parts(state.train_id, plugin, tag, file_state.name, ref)
        )
        file_state.chunks = {}


def _set(client: Any, key: str, value: bytes) -> None:
    client.set(key, value)


def _pexpire(client: Any, key: str, milliseconds: int) -> None:
    client.pexpire(key, milliseconds)


def _decode_chunk(raw: bytes | None, what: str) -> Any:
    if raw is None:
        raise MissingChunk(f"index entry missing: {what}")
    try:
        return decode(raw)
    except UndecodableEntry as error:
        raise MissingChunk(f"index entry unreadable: {what}: {error}") from error


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
