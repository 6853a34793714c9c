"""Background loading: new bytes on disk -> the index.

Every ``reload_interval`` seconds (0 = once) the loader discovers the jobs, reconciles each
job's files with what the index knows, and reads only what is new:

* a new file is read from its start; a grown file from where reading stopped;
* a replaced file (other inode or name timestamp) or a truncated one (smaller than what was
  read) is re-read from the start; its old data is dropped, other files are not touched;
* a vanished file's data is dropped and the job says so in its integrity reasons;
* lineage files (small) are re-read whole when they change; ``.pb`` graphs are checked.

Reading goes round-robin over the jobs in slices of ``slice_bytes`` (128 MB: a 500 MB file
is indexed in four chunks per tag, each point written once), so a large job does not hide the
others while it loads, and progress (bytes read / bytes on disk) is published after every pass.
MindInsight read one record per job per round and re-listed every directory per record.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from dash_insight.core.format.events import DecodeError, decode_lineage_event, decode_model_proto
from dash_insight.core.format.files import FileKind
from dash_insight.core.format.framing import (
    MAX_PAYLOAD_BYTES,
    Damage,
    RecordReader,
    check_graph_file_size,
)
from dash_insight.core.format.scan import EventScanner, ScanResult
from dash_insight.core.store.discovery import FileInfo, JobInfo, discover_jobs
from dash_insight.core.store.index import BlobColumns, IndexStore, ScalarColumns
from dash_insight.core.store.state import (
    GRAPH_IN_SUMMARY,
    GRAPH_PB,
    STATUS_LOADED,
    FileState,
    GraphRecord,
    JobState,
    LineageRecord,
)
from dash_insight.core.vocabulary import Plugin

log = logging.getLogger(__name__)
#: Name of the background loading thread (the server looks for it when stopping).
LOADER_THREAD = "dash-insight-loader"


def _forget_file(store: IndexStore, state: JobState, file_state: FileState) -> None:
    """Drop everything read from one file: chunks, tag counts, graphs, lineage records."""
    store.drop_file(state, file_state)
    name = file_state.name
    for plugin in list(state.tags):
        by_tag = state.tags[plugin]
        for tag in list(by_tag):
            by_tag[tag].pop(name, None)
            if not by_tag[tag]:
                del by_tag[tag]
        if not by_tag:
            del state.tags[plugin]
    state.graphs = [g for g in state.graphs if g.file != name]
    state.lineage = [r for r in state.lineage if r.file != name]


def _count(state: JobState, plugin: str, tag: str, name: str, n: int) -> None:
    """Add ``n`` values of ``tag`` read from file ``name``; ``plugin`` must be a plain ``str``
    (``Plugin.X.value``): it is pickled into the index."""
    by_file = state.tags.setdefault(plugin, {}).setdefault(tag, {})
    by_file[name] = by_file.get(name, 0) + n


class Loader:
    """Keeps the index of one summary base directory up to date."""

    def __init__(
        self,
        base_dir: str,
        store: IndexStore,
        *,
        max_depth: int | None = None,
        reload_interval: float = 3.0,
        slice_bytes: int = 128 << 20,
        max_record_bytes: int = MAX_PAYLOAD_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.base_dir = os.path.abspath(base_dir)
        self.store = store
        self.max_depth = max_depth
        self.reload_interval = reload_interval
        self.slice_bytes = slice_bytes
        #: Longer records (and larger .pb graph files) are reported as damage and skipped
        #: unread: what reading one record may cost in memory is bounded by this.
        self.max_record_bytes = max_record_bytes
        self._clock = clock
        self._scanners: dict[tuple[str, str], EventScanner] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0
        self.round_done = threading.Condition()

    # -- thread --
    def start(self) -> None:
        """Load in a daemon thread: once, or every ``reload_interval`` seconds."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=LOADER_THREAD,
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wait_rounds(self, rounds: int, timeout: float = 60.0) -> bool:
        """Block until ``rounds`` rounds have completed since start (for tests and tools)."""
        with self.round_done:
            return self.round_done.wait_for(lambda: self.rounds >= rounds, timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with self.store.loader_lock() as owner:
                    if owner:  # another process may be the loader of this index
                        self.load_round()
            except Exception:  # the loop must survive anything a file can do to it
                log.exception("loading round failed")
            with self.round_done:
                self.rounds += 1
                self.round_done.notify_all()
            if self.reload_interval <= 0:
                return
            self._stop.wait(self.reload_interval)

    # -- one round --
    def load_round(self) -> bool:
        """Discover jobs and read everything new; True when the index changed."""
        jobs = discover_jobs(self.base_dir, self.max_depth)
        states: dict[str, JobState] = {}
        changed = False
        with self.store.transaction():
            previous = {train_id for train_id, _, _ in self.store.job_list()}
            self.store.set_job_list([(j.train_id, j.create_time, j.update_time) for j in jobs])
            current = {job.train_id for job in jobs}
            for train_id in previous - current:  # the folder holds no summary file any more
                state = self.store.load_job(train_id)
                if state is not None:
                    self.store.delete_job(state)
                    changed = True
                self._scanners = {k: v for k, v in self._scanners.items() if k[0] != train_id}
            for job in jobs:
                state = self.store.load_job(job.train_id) or JobState(job.train_id)
                reconciled = self._reconcile(job, state)
                if not state.loaded_once and state.files and state.status == STATUS_LOADED:
                    state.loaded_once = reconciled = True  # e.g. only empty files
                if reconciled:
                    self.store.save_job(state)
                    changed = True
                states[job.train_id] = state
        if changed:
            self.store.bump_generation()
        pending = [job for job in jobs if any(f.needs_reading for f in
                                              states[job.train_id].files.values())]
        while pending and not self._stop.is_set():
            # One pass: a slice of every job that has something to read, then publish.
            still = []
            with self.store.transaction():
                for job in pending:
                    state = states[job.train_id]
                    if self._read_slice_safely(job, state):
                        still.append(job)
                    state.version += 1
                    state.loaded_once = state.loaded_once or job not in still
                    self.store.save_job(state)
            self.store.bump_generation()
            changed = True
            pending = still
        return changed

    def _read_slice_safely(self, job: JobInfo, state: JobState) -> bool:
        """:meth:`_read_slice`, but an unexpected failure on one file is recorded as damage of
        that file (not retried until the file changes) instead of stopping every job."""
        try:
            return self._read_slice(job, state)
        except Exception as error:  # a reader bug or an OS surprise: keep the others going
            log.exception("indexing %s failed", job.train_id)
            for file_state in state.files.values():
                if file_state.needs_reading:
                    file_state.damage.append(Damage(file_state.offset,
                                                    f"could not index this file: {error!r}"))
                    file_state.caught_up, file_state.read_size = True, file_state.size
                    break
            return any(f.needs_reading for f in state.files.values())

    def _reconcile(self, job: JobInfo, state: JobState) -> bool:
        """Match the index's file states with the files on disk; True if anything changed."""
        changed = (state.create_time, state.update_time) != (job.create_time, job.update_time)
        state.create_time, state.update_time = job.create_time, job.update_time
        profiler = (job.profiler_dir, job.profiler_type, job.profiler_graph_mode)
        if profiler != (state.profiler_dir, state.profiler_type, state.profiler_graph_mode):
            state.profiler_dir, state.profiler_type, state.profiler_graph_mode = profiler
            changed = True
        on_disk = {f.name: f for f in job.files}
        for name in list(state.files):
            if name not in on_disk:
                _forget_file(self.store, state, state.files.pop(name))
                self._scanners.pop((state.train_id, name), None)
                state.vanished.append(name)
                changed = True
        for info in job.files:
            file_state = state.files.get(info.name)
            if file_state is not None and (file_state.identity != info.identity
                                           or info.size < file_state.offset):
                log.info("%s/%s was replaced or truncated: reading it again", state.train_id,
                         info.name)
                _forget_file(self.store, state, file_state)
                self._scanners.pop((state.train_id, info.name), None)
                file_state = None
            if file_state is None:
                file_state = FileState(info.name, info.kind.value, info.identity)
                state.files[info.name] = file_state
                if info.name in state.vanished:
                    state.vanished.remove(info.name)
                changed = True
            if (file_state.size, file_state.mtime) != (info.size, info.mtime):
                file_state.size, file_state.mtime = info.size, info.mtime
                changed = True
        changed |= self._rank(state, job.files)
        if changed:
            state.version += 1
        return changed

    @staticmethod
    def _rank(state: JobState, files: tuple[FileInfo, ...]) -> bool:
        """Rank summary files by name timestamp (equal timestamps share a rank)."""
        stamps = sorted({f.timestamp or 0 for f in files if f.kind is FileKind.SUMMARY})
        changed = False
        for info in files:
            rank = stamps.index(info.timestamp or 0) if info.kind is FileKind.SUMMARY else 0
            if state.files[info.name].rank != rank:
                state.files[info.name].rank = rank
                changed = True
        return changed

    def _read_slice(self, job: JobInfo, state: JobState) -> bool:
        """Read one slice of the first file that needs it; True while more is left to read."""
        waiting = [f for f in sorted(state.files.values(), key=lambda f: (f.rank, f.name))
                   if f.needs_reading]
        if not waiting:
            return False
        file_state = waiting[0]
        path = os.path.join(job.path, file_state.name)
        kind = FileKind(file_state.kind)
        if kind is FileKind.SUMMARY:
            self._read_summary(path, state, file_state)
        elif kind is FileKind.LINEAGE:
            self._read_lineage(path, state, file_state)
        else:
            self._read_graph_file(path, state, file_state)
        return any(f.needs_reading for f in state.files.values())

    def _read_summary(self, path: str, state: JobState, file_state: FileState) -> None:
        reader = RecordReader(path, file_state.offset, file_state.lost_at, self.max_record_bytes)
        scanner = self._scanners.setdefault((state.train_id, file_state.name), EventScanner())
        size_before = file_state.size
        # Appending to a file that was read to its end: merge chunks (live runs add small
        # ones). Reading a file for the first time: every point is written once, no merging.
        merge = file_state.caught_up
        result = scanner.scan(reader.read(self.slice_bytes))
        self._store_scan(state, file_state, result, merge)
        read = reader.result
        file_state.damage.extend(read.damage)
        file_state.records += read.records
        file_state.offset, file_state.lost_at = reader.offset, reader.lost_at
        file_state.read_size = size_before
        file_state.caught_up = read.bytes_consumed < self.slice_bytes
        if read.tail is None:
            file_state.tail_since = None
        elif file_state.tail_since is None or read.bytes_consumed:
            file_state.tail_since = self._clock()

    def _store_scan(self, state: JobState, file_state: FileState, result: ScanResult,
                    merge: bool) -> None:
        name = file_state.name
        for tag, scalars in result.scalars.items():
            columns = ScalarColumns(step=scalars.step, wall_time=scalars.wall_time,
                                    value=scalars.value)
            self.store.append_chunk(state, file_state, Plugin.SCALAR.value, tag, columns, merge)
            _count(state, Plugin.SCALAR.value, tag, name, len(scalars))
        for (plugin, tag), blobs in result.blobs.items():
            references = BlobColumns(step=blobs.step, wall_time=blobs.wall_time,
                                     offset=blobs.offset, length=blobs.length,
                                     value_index=blobs.index, meta=blobs.meta)
            self.store.append_chunk(state, file_state, plugin, tag, references, merge)
            _count(state, plugin, tag, name, len(blobs))
        for graph in result.graphs:
            state.graphs.append(GraphRecord(file=name, kind=GRAPH_IN_SUMMARY,
                                            offset=graph.offset, length=graph.length,
                                            wall_time=graph.wall_time, step=graph.step))
            _count(state, Plugin.GRAPH.value, name, name, 1)
        file_state.damage.extend(result.errors)

    def _read_lineage(self, path: str, state: JobState, file_state: FileState) -> None:
        """Lineage files are small: re-read whole whenever they change."""
        state.lineage = [r for r in state.lineage if r.file != file_state.name]
        file_state.damage = []
        reader = RecordReader(path, max_payload=self.max_record_bytes)
        size_before = file_state.size
        for record in reader.read():
            try:
                lineage = decode_lineage_event(record.payload)
            except DecodeError as error:
                file_state.damage.append(Damage(record.offset, str(error)))
                continue
            state.lineage.append(LineageRecord(file=file_state.name, offset=record.offset,
                                               wall_time=lineage.wall_time, kind=lineage.kind,
                                               data=lineage.data))
        file_state.damage.extend(reader.result.damage)
        file_state.records = reader.result.records
        file_state.offset, file_state.lost_at = reader.offset, reader.lost_at
        file_state.read_size, file_state.caught_up = size_before, True
        file_state.tail_since = self._clock() if reader.result.tail else None

    def _read_graph_file(self, path: str, state: JobState, file_state: FileState) -> None:
        """A bare ModelProto: checked now, decoded again when shown."""
        name = file_state.name
        state.graphs = [g for g in state.graphs if g.file != name]
        state.tags.get(Plugin.GRAPH.value, {}).pop(name, None)
        file_state.damage = []
        try:
            check_graph_file_size(path, self.max_record_bytes)
            with open(path, "rb") as handle:
                data = handle.read()
            decode_model_proto(data)
        except (OSError, ValueError) as error:  # DecodeError is a ValueError
            file_state.damage.append(Damage(0, str(error)))
        else:
            state.graphs.append(GraphRecord(file=name, kind=GRAPH_PB, offset=0,
                                            length=len(data), wall_time=file_state.mtime,
                                            step=0))
            _count(state, Plugin.GRAPH.value, name, name, 1)
        file_state.offset = file_state.read_size = file_state.size
        file_state.records, file_state.caught_up = 1, True
