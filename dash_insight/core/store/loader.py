"""Background loading: new bytes on disk -> the index.

Every ``reload_interval`` seconds (0 = once) the loader discovers the jobs, reconciles each
job's files with what the index knows, and reads only what is new:

* a new file is read from its start; a grown file from where reading stopped;
* a replaced file (other inode or name timestamp) or a truncated one (smaller than what was
  read) is re-read from the start; its old data is dropped, other files are not touched;
* a vanished file's data is dropped and the job says so in its integrity reasons;
* lineage files (small) are re-read whole when they change; ``.pb`` graphs are checked;
* TensorBoard event files are read like summaries (:mod:`..format.tensorboard`), their
  ``hparams`` values kept as lineage records;
* a file that cannot be opened or read (permissions, I/O error) keeps what was read from it and
  is tried again every round, so a ``chmod`` is enough; entries named like ours that are not
  regular files (a FIFO would block the loader) are skipped; both are logged once and listed
  in the job's integrity reasons;
* a directory that cannot be listed keeps the jobs known in it, with what was read from them
  and a reason; it is logged once.

A file replaced while it is first read (between two slices) is noticed by its inode when it is
opened again, and read from its start: the series never mixes the two files. An incomplete last
record, or an empty file, counts as unchanged since the file's mtime, so a file cut hours ago is
reported at once, not 600 s after the server started.

Reading goes round-robin over the jobs in slices of ``slice_bytes`` (128 MB: a 500 MB file
is indexed in four chunks per tag, each point written once), so a large job does not hide the
others while it loads, and progress (bytes read / bytes on disk) is published after every pass.
MindInsight read one record per job per round and re-listed every directory per record.

With ``load_workers`` > 1 a pass reads a slice of up to ``load_workers`` files of every job
that has something to read. When those summary files have at least ``pool_min_bytes`` left to
read (a cold load, not the few new records of a live run), their slices are framed, scanned and
(for a file read for the first time) turned into chunks ready to store by a
:class:`~.load_pool.LoadPool` of that many worker processes. When the pass has few files, the
slice of a file read for the first time is cut into pieces read at once, so one large file keeps
every core busy: each piece after the first finds its first record itself and is kept only if it
starts exactly where the piece before it ended (:func:`~.load_pool.following_slices`); else the
file is read on from there. This process stays the only writer: it takes the workers' results
back in the order of the pass and inserts them in the pass's transaction exactly as it inserts
its own reading, so the records and answers are the same with one worker or many. A slice whose
worker raised or died is recorded as damage of that file at the offset where the slice started
(what was read before stays, the other files go on); the file is read again when it changes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator

from dash_insight.core.format.events import DecodeError, decode_lineage_event, decode_model_proto
from dash_insight.core.format.files import EVENT_KINDS, FileKind, open_regular
from dash_insight.core.format.framing import (
    MAX_PAYLOAD_BYTES,
    Damage,
    RecordReader,
    check_graph_file_size,
)
from dash_insight.core.format.reasons import (
    CANNOT_INDEX_FILE,
    CANNOT_LIST_SHOWING_OLD,
    CANNOT_READ_FILE,
)
from dash_insight.core.format.remote import is_url
from dash_insight.core.format.scan import EventScanner, ScanResult
from dash_insight.core.format.tensorboard import (
    LINEAGE_TENSORBOARD_HPARAMS,
    TensorBoardScan,
    TensorBoardScanner,
)
from dash_insight.core.store.discovery import FileInfo, JobInfo, discover_jobs
from dash_insight.core.store.health import (
    FAILED,
    LoaderFailure,
    SharedFailure,
    failure_reason,
    halts_the_round,
    one_line,
)
from dash_insight.core.store.index import BlobColumns, ScalarColumns, is_damage
from dash_insight.core.store.index_api import DamagedEntry, IndexApi
from dash_insight.core.store.load_pool import (
    READ_SLICE,
    LoadPool,
    PreparedTags,
    SliceResult,
    SliceTask,
    following_slices,
    read_slice,
)
from dash_insight.core.store.state import (
    GRAPH_IN_SUMMARY,
    GRAPH_PB,
    STALE_TAIL_SECONDS,
    STATUS_LOADED,
    FileState,
    GraphRecord,
    JobState,
    LineageRecord,
)
from dash_insight.core.vocabulary import PluginName

log = logging.getLogger(__name__)
#: Name of the background loading thread (the server looks for it when stopping).
LOADER_THREAD = "dash-insight-loader"
#: A pass goes to worker processes only with this much left to read in its summary files:
#: starting the workers costs ~0.5 s of CPU each, about what 50 MB of reading costs.
POOL_MIN_BYTES = 64 << 20
#: Pieces per worker a pass gives the pool when it has few files to read (one large file):
#: at least two, so that workers read the next pieces while this process writes the ones read.
PIECES_PER_WORKER = 2
#: The largest piece: what a worker holds while it reads one is about 5x its bytes (columns,
#: chunks, pickles), and this process holds up to ``workers + 1`` answers; with 2 workers the
#: 20 tags x 10M steps job (20 scalars per record) peaked at 569 MB in all with 32 MB pieces.
MAX_PIECE_BYTES = 16 << 20


def _forget_file(store: IndexApi, state: JobState, file_state: FileState) -> None:
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


def _rewritten(file_state: FileState, info: FileInfo) -> bool:
    """A remote file written again without growing: a new version (ETag) of the same size. (A
    longer new version is an append when the bytes read so far are unchanged: the reader checks
    that, see RecordReader's ``prefix_digest``.)"""
    return bool(
        info.version
        and file_state.version
        and info.version != file_state.version
        and info.size == file_state.size
    )


def _count(state: JobState, plugin: str, tag: str, name: str, n: int) -> None:
    """Add ``n`` values of ``tag`` read from file ``name``; ``plugin`` must be a plain ``str``
    (``PluginName.X.value``): it is pickled into the index."""
    by_file = state.tags.setdefault(plugin, {}).setdefault(tag, {})
    by_file[name] = by_file.get(name, 0) + n


class Loader:
    """Keeps the index of one summary base directory up to date."""

    def __init__(
        self,
        base_dir: str,
        store: IndexApi,
        *,
        max_depth: int | None = None,
        reload_interval: float = 3.0,
        slice_bytes: int = 128 << 20,
        max_record_bytes: int = MAX_PAYLOAD_BYTES,
        clock: Callable[[], float] = time.time,
        load_workers: int = 1,
        pool_min_bytes: int = POOL_MIN_BYTES,
        pool_target: str = READ_SLICE,
        shared_failure: SharedFailure | None = None,
    ) -> None:
        self.base_dir = base_dir if is_url(base_dir) else os.path.abspath(base_dir)
        self.store = store
        self.max_depth = max_depth
        self.reload_interval = reload_interval
        self.slice_bytes = slice_bytes
        #: Longer records (and larger .pb graph files) are reported as damage and skipped
        #: unread: what reading one record may cost in memory is bounded by this.
        self.max_record_bytes = max_record_bytes
        self._clock = clock
        #: Files read at once per job and pass, and worker processes when a pass is worth them.
        self.load_workers = max(1, load_workers)
        self.pool_min_bytes = pool_min_bytes
        self._pool_target = pool_target
        #: Passes whose slices went to worker processes (for tests and benchmarks).
        self.pool_passes = 0
        #: Pieces read by workers and dropped: they did not start where their file's reading
        #: stood (damage at a border, a crash); for tests and benchmarks.
        self.pieces_dropped = 0
        self._scanners: dict[tuple[str, str], EventScanner | TensorBoardScanner] = {}
        # Directories that could not be listed, as last logged: train_id -> reason.
        self._unlisted: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0
        self.round_done = threading.Condition()
        #: Why rounds fail (None while they succeed): shown by the API and the pages.
        self.failure: LoaderFailure | None = None
        #: Where the other processes serving the index read :attr:`failure`.
        self.shared_failure = shared_failure

    # -- thread --
    def start(self) -> None:
        """Load in a daemon thread: once, or every ``reload_interval`` seconds."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=LOADER_THREAD, daemon=True)
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
                        self._load_round_or_rebuild()
                        self._round_succeeded()
            except Exception as error:  # the loop must survive anything a file can do to it
                self._round_failed(error)
            with self.round_done:
                self.rounds += 1
                self.round_done.notify_all()
            if self.reload_interval <= 0:
                return
            self._stop.wait(self.reload_interval)

    def _round_failed(self, error: Exception) -> None:
        """Record why the round failed; one log line when the reason changes (a traceback only
        for a failure nobody can name: a bug to report), none while it repeats."""
        reason, detail = failure_reason(error), one_line(error)
        if self.failure is not None and self.failure.reason == reason:
            self.failure = LoaderFailure(reason, detail, self.failure.since)
            self._publish_failure()
            return
        self.failure = LoaderFailure(reason, detail, time.time())
        self._publish_failure()
        if reason == FAILED:
            log.exception("loading stopped: the round failed (%s); trying again", detail)
        else:
            log.warning("loading stopped (%s): %s; trying again every round", reason, detail)

    def _round_succeeded(self) -> None:
        if self.failure is not None:
            log.warning("loading resumed after %s", self.failure.reason)
        self.failure = None
        self._publish_failure()

    def _publish_failure(self) -> None:
        """Tell the other processes serving the index what :attr:`failure` is now."""
        if self.shared_failure is not None:
            self.shared_failure.publish(self.failure)

    def _load_round_or_rebuild(self) -> None:
        """:meth:`load_round`; when SQLite finds the index damaged, replace it with an empty one
        (the next round reads every job again) instead of failing at every round."""
        try:
            self.load_round()
        except Exception as error:
            if not is_damage(error):
                raise
            self.store.rebuild(error)
            self._scanners.clear()

    # -- one round --
    def load_round(self) -> bool:
        """Discover jobs and read everything new; True when the index changed."""
        found = discover_jobs(self.base_dir, self.max_depth)
        jobs = [job for job in found if job.listed]
        states: dict[str, JobState] = {}
        # Each transaction publishes what it changed with a new generation (bump_generation
        # inside it): readers never see a listed job without its state.
        with self.store.transaction():
            changed = self.publish_listing(found)
            versions, damaged = self._coordination()
            for job in jobs:
                state, reconciled = self._reconciled_state(job, versions)
                if reconciled or damaged:  # a damaged `versions` is rewritten from every job
                    self.store.save_job(state)
                    changed = True
                states[job.train_id] = state
            if changed:
                self.store.bump_generation()
        pending = [
            job for job in jobs if any(f.needs_reading for f in states[job.train_id].files.values())
        ]
        pool = LoadPool(self.load_workers, self._pool_target) if self.load_workers > 1 else None
        try:
            while pending and not self._stop.is_set():
                # One pass: a slice of every job that has something to read, then publish.
                plan = [(job, self._files_to_read(states[job.train_id])) for job in pending]
                slices, counts = self._read_slices(plan, states, pool)
                still = []
                with self.store.transaction():
                    for job, files in plan:
                        state = states[job.train_id]
                        if self._read_files_safely(job, state, files, slices, counts):
                            still.append(job)
                        state.version += 1
                        state.loaded_once = state.loaded_once or job not in still
                        self.store.save_job(state)
                    self.store.bump_generation()
                changed = True
                pending = still
        finally:
            if pool is not None:
                pool.close()
        self.store.expire_retired()
        return changed

    def publish_listing(self, found: list[JobInfo]) -> bool:
        """Write the job list of a discovery (``found``: listed or not) and delete the jobs
        that are gone or that readers asked to be read again; True when a job state changed.
        Call inside a transaction."""
        jobs = [job for job in found if job.listed]
        known = self.store.job_list()
        kept, changed = self._keep_unlisted([job for job in found if not job.listed], known)
        listing = [(j.train_id, j.create_time, j.update_time) for j in jobs] + kept
        listing.sort(key=lambda item: (-item[2], item[0]))
        self.store.set_job_list(listing)
        previous = {train_id for train_id, _, _ in known}
        current = {train_id for train_id, _, _ in listing}
        damaged = self.store.take_rebuild_requests()
        # Gone (the folder holds no summary file any more), or to be read again.
        for train_id in (previous - current) | damaged:
            state = self.store.load_job(train_id)
            if state is not None:
                self.store.delete_job(state)
                changed = True
            if train_id in damaged:
                log.warning("the index of %s is damaged: reading it again", train_id)
            self._scanners = {k: v for k, v in self._scanners.items() if k[0] != train_id}
        return changed

    def _coordination(self) -> tuple[dict[str, int], bool]:
        """The stored job versions, and True when ``versions`` or ``generation`` was damaged
        (logged once per round; the round then saves every job and bumps the generation, which
        rewrites both)."""
        try:
            self.store.generation()
            return self.store.job_versions(), False
        except DamagedEntry as error:
            log.warning("%s: rewriting it from the jobs' states", error)
        try:
            return self.store.job_versions(), True
        except DamagedEntry:
            return {}, True

    def _reconciled_state(self, job: JobInfo, versions: dict[str, int]) -> tuple[JobState, bool]:
        """The job's stored state (a new one when none is), matched with its files on disk;
        True when it changed."""
        # A job read again continues its versions: readers cache values by version.
        state = self.store.load_job(job.train_id) or JobState(
            job.train_id, version=versions.get(job.train_id, 0) + 1
        )
        reconciled = self._reconcile(job, state)
        if not state.loaded_once and state.files and state.status == STATUS_LOADED:
            state.loaded_once = reconciled = True  # e.g. only empty files
        return state, reconciled

    def load_job(
        self,
        job: JobInfo,
        *,
        deadline: float | None = None,
        after_pass: Callable[[], object] | None = None,
    ) -> bool:
        """Bring one job up to date, as :meth:`load_round` does for every job, for a loader
        that shares the index with other writers (fleet workers, each holding the job's
        lease): reconcile its files, then read a slice of its next file per pass until it is
        caught up or ``deadline`` (``clock`` time) has passed; ``after_pass`` runs after each
        pass (renews the lease).

        Every transaction expects the job at the version this loader last saw, so a loader
        whose lease lapsed raises :class:`~.index_api.IndexConflict` and writes nothing;
        each pass commits the chunks read and the new offsets together, so a loader killed
        mid-pass loses the pass only and the next one reads it again from the committed
        offset: every record is indexed exactly once. True when nothing is left to read."""
        train_id = job.train_id
        expected = self.store.job_version(train_id)
        with self.store.transaction(expect={train_id: expected}):
            state, reconciled = self._reconciled_state(
                job, {} if expected is None else {train_id: expected}
            )
            if reconciled:
                self.store.save_job(state)
                self.store.bump_generation()
        if reconciled:
            expected = state.version
        while any(f.needs_reading for f in state.files.values()):
            if deadline is not None and self._clock() >= deadline:
                return False
            files = self._files_to_read(state)
            slices, counts = self._read_slices([(job, files)], {train_id: state}, None)
            with self.store.transaction(expect={train_id: expected}):
                more = self._read_files_safely(job, state, files, slices, counts)
                state.version += 1
                state.loaded_once = state.loaded_once or not more
                self.store.save_job(state)
                self.store.bump_generation()
            expected = state.version
            if after_pass is not None:
                after_pass()
        return True

    def _files_to_read(self, state: JobState) -> list[FileState]:
        """The files of a job read in this pass: the first ``load_workers`` that need it, in
        rank order (one with a single worker: files are read one after the other)."""
        waiting = [
            f
            for f in sorted(state.files.values(), key=lambda f: (f.rank, f.name))
            if f.needs_reading
        ]
        return waiting[: self.load_workers]

    def _slice_task(self, job: JobInfo, state: JobState, file_state: FileState) -> SliceTask:
        return SliceTask(
            path=os.path.join(job.path, file_state.name),
            tensorboard=file_state.kind == FileKind.TENSORBOARD.value,
            offset=file_state.offset,
            lost_at=file_state.lost_at,
            inode=file_state.identity[0],
            max_payload=self.max_record_bytes,
            slice_bytes=self.slice_bytes,
            scanner=self._scanners.get((state.train_id, file_state.name)),
            prefix_digest=file_state.prefix_digest,
            prepare=not file_state.caught_up,
        )

    def _read_slices(
        self,
        plan: list[tuple[JobInfo, list[FileState]]],
        states: dict[str, JobState],
        pool: LoadPool | None,
    ) -> tuple[Iterator[SliceResult | BaseException], dict[tuple[str, str], int]]:
        """The slices of the pass's summary files, in plan order, each read when the pass
        writes it: in this process, or (worth it, see :data:`POOL_MIN_BYTES`) by ``pool``;
        and how many pieces of each file (train_id, name) there are when more than one.

        With ``pool`` and fewer than :data:`PIECES_PER_WORKER` files per worker, the slice of
        a file read for the first time is cut into pieces (of at most :data:`MAX_PIECE_BYTES`,
        :func:`~.load_pool.following_slices`) so that one large file keeps every worker busy,
        and the workers read on while this process writes; a pass reads one slice's worth of
        each file, as before."""
        files = [
            (job, f)
            for job, job_files in plan
            for f in job_files
            if FileKind(f.kind) in EVENT_KINDS
        ]
        tasks = [self._slice_task(job, states[job.train_id], f) for job, f in files]
        left = sum(max(0, f.size - f.offset) for _, f in files)
        if pool is None or left < self.pool_min_bytes:
            return (self._read_here(task) for task in tasks), {}
        pieces = -(-PIECES_PER_WORKER * pool.workers // max(1, len(tasks)))
        piece_bytes = (
            min(MAX_PIECE_BYTES, self.slice_bytes // pieces) if pieces > 1 else self.slice_bytes
        )
        split = [
            following_slices(task, f.size, piece_bytes)
            for task, (_, f) in zip(tasks, files, strict=True)
        ]
        counts = {
            (job.train_id, f.name): len(group)
            for group, (job, f) in zip(split, files, strict=True)
            if len(group) > 1
        }
        if sum(map(len, split)) < 2:
            return (self._read_here(task) for task in tasks), {}
        self.pool_passes += 1
        return pool.ordered(task for group in split for task in group), counts

    @staticmethod
    def _read_here(task: SliceTask) -> SliceResult | BaseException:
        try:
            return read_slice(task)
        except Exception as error:  # recorded as damage of the file, as a worker's would be
            return error

    def _keep_unlisted(
        self, unlisted: list[JobInfo], known: list[tuple[str, float, float]]
    ) -> tuple[list[tuple[str, float, float]], bool]:
        """The known jobs in (or below) directories that could not be listed, and whether one
        of their states changed: they stay, with what was read from them and the reason as a
        problem. Every such directory is logged once (the jobs in one never listed are unknown:
        only the log can tell)."""
        reasons = {job.train_id: job.errors[0] for job in unlisted}
        for train_id, reason in reasons.items():
            if self._unlisted.get(train_id) != reason:
                log.warning(
                    "%s: %s; the jobs in it keep what was read from them before, "
                    "others cannot be shown",
                    train_id,
                    reason,
                )
        for train_id in set(self._unlisted) - set(reasons):
            log.info("%s can be listed again", train_id)
        self._unlisted = reasons
        kept = []
        changed = False
        for item in known:
            train_id = item[0]
            directory = next(
                (d for d in reasons if train_id == d or d == "./" or train_id.startswith(d + "/")),
                None,
            )
            if directory is None:
                continue
            kept.append(item)
            state = self.store.load_job(train_id)
            if state is not None:
                problem = (
                    CANNOT_LIST_SHOWING_OLD.format(directory=directory, error=reasons[directory]),
                )
                if state.problems != problem:
                    state.problems = problem
                    state.version += 1
                    self.store.save_job(state)
                    changed = True
        return kept, changed

    def _read_files_safely(
        self,
        job: JobInfo,
        state: JobState,
        files: list[FileState],
        slices: Iterator[SliceResult | BaseException],
        counts: dict[tuple[str, str], int],
    ) -> bool:
        """Read one slice of each of ``files`` (summary files: their next item of ``slices``,
        or their next ``counts[(train_id, name)]`` items, the pieces of the file's slice); an
        unexpected failure on one file is recorded as damage of that file (not retried until
        the file changes) instead of stopping every job; a failure of the index or the
        workspace (:func:`~.health.halts_the_round`) stops the round. True while more is left
        to read."""
        for file_state in files:
            summary = FileKind(file_state.kind) in EVENT_KINDS
            for piece in range(counts.get((state.train_id, file_state.name), 1)):
                outcome = next(slices) if summary else None
                if piece and not self._continues(state, file_state, outcome):
                    self.pieces_dropped += 1  # read on from the file's offset, later
                    continue
                try:
                    if isinstance(outcome, BaseException):
                        raise outcome
                    self._read_file(job, state, file_state, outcome)
                except Exception as error:  # a reader bug or an OS surprise: go on
                    if is_damage(error) or halts_the_round(error):
                        raise  # the index's fault, not the file's: see _load_round_or_rebuild
                    log.error(
                        "indexing %s/%s failed: %r",
                        job.train_id,
                        file_state.name,
                        error,
                        exc_info=error,
                    )
                    self._give_up_slice(state, file_state, error)
        return any(f.needs_reading for f in state.files.values())

    @staticmethod
    def _continues(
        state: JobState, file_state: FileState, outcome: SliceResult | BaseException | None
    ) -> bool:
        """Whether a piece after a slice's first (:func:`~.load_pool.following_slices`) starts
        where its file stands now: the piece before it was kept, did not end the reading (end of
        file, error, lost framing, file replaced) and ended at this piece's first record.
        Anything else (a damaged record at the border, a crash) drops it; the file is then read
        on from its offset, in a later pass, exactly as one worker reads it."""
        return (
            isinstance(outcome, SliceResult)
            and state.files.get(file_state.name) is file_state
            and not file_state.caught_up
            and file_state.lost_at is None
            and not outcome.read.replaced
            and outcome.read.error is None
            and outcome.read.first_offset == file_state.offset
        )

    def _give_up_slice(self, state: JobState, file_state: FileState, error: BaseException) -> None:
        """Record a slice that could not be read as damage where it starts; what was read
        before stays, and the file is read again when it changes."""
        file_state = state.files.get(file_state.name, file_state)  # a restart replaced it
        file_state.damage.append(
            Damage(file_state.offset, CANNOT_INDEX_FILE.format(error=repr(error)))
        )
        file_state.caught_up, file_state.read_size = True, file_state.size
        self._scanners.pop((state.train_id, file_state.name), None)

    def _reconcile(self, job: JobInfo, state: JobState) -> bool:
        """Match the index's file states with the files on disk; True if anything changed."""
        changed = (state.create_time, state.update_time) != (job.create_time, job.update_time)
        state.create_time, state.update_time = job.create_time, job.update_time
        profiler = (job.profiler_dir, job.profiler_type, job.profiler_graph_mode)
        if profiler != (state.profiler_dir, state.profiler_type, state.profiler_graph_mode):
            state.profiler_dir, state.profiler_type, state.profiler_graph_mode = profiler
            changed = True
        if state.problems != job.errors:
            for problem in sorted(set(job.errors) - set(state.problems)):
                log.warning("%s: %s", state.train_id, problem)
            state.problems = job.errors
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
            if file_state is not None and (
                file_state.identity != info.identity
                or info.size < file_state.offset
                or _rewritten(file_state, info)
            ):
                log.info(
                    "%s/%s was replaced or truncated: reading it again", state.train_id, info.name
                )
                _forget_file(self.store, state, file_state)
                self._scanners.pop((state.train_id, info.name), None)
                file_state = None
            if file_state is None:
                file_state = FileState(info.name, info.kind.value, info.identity)
                state.files[info.name] = file_state
                if info.name in state.vanished:
                    state.vanished.remove(info.name)
                changed = True
            file_state.version = info.version
            if (file_state.size, file_state.mtime) != (info.size, info.mtime):
                file_state.size, file_state.mtime = info.size, info.mtime
                changed = True
            if file_state.unreadable is not None:
                file_state.read_size = -1  # try again (once per round)
        changed |= self._rank(state, job.files)
        if changed:
            state.version += 1
        return changed

    @staticmethod
    def _rank(state: JobState, files: tuple[FileInfo, ...]) -> bool:
        """Rank summary files by name timestamp (equal timestamps share a rank)."""
        stamps = sorted({f.timestamp or 0 for f in files if f.kind in EVENT_KINDS})
        changed = False
        for info in files:
            rank = stamps.index(info.timestamp or 0) if info.kind in EVENT_KINDS else 0
            if state.files[info.name].rank != rank:
                state.files[info.name].rank = rank
                changed = True
        return changed

    def _read_file(
        self,
        job: JobInfo,
        state: JobState,
        file_state: FileState,
        summary_slice: SliceResult | None,
    ) -> None:
        """Read one slice of one file: a summary file's slice was read by :meth:`_read_slices`
        (here or in a worker) and is written now; lineage and graph files are read here."""
        path = os.path.join(job.path, file_state.name)
        kind = FileKind(file_state.kind)
        if kind in EVENT_KINDS:
            assert summary_slice is not None
            self._store_summary_slice(state, file_state, summary_slice)
        elif kind is FileKind.LINEAGE:
            self._read_lineage(path, state, file_state)
        else:
            self._read_graph_file(path, state, file_state)

    def _store_summary_slice(
        self, state: JobState, file_state: FileState, summary_slice: SliceResult
    ) -> None:
        """Write what one slice of a summary file held and move its file state on."""
        self._scanners[(state.train_id, file_state.name)] = summary_slice.scanner
        size_before = file_state.size
        # Appending to a file that was read to its end: merge chunks (live runs add small
        # ones). Reading a file for the first time: every point is written once, no merging.
        merge = file_state.caught_up
        result, read = summary_slice.scan, summary_slice.read
        if read.replaced and summary_slice.stat is not None:
            self._restart_file(state, file_state, summary_slice.stat)
            return
        if summary_slice.prepared is not None:  # asked for while the file was not caught up
            self._store_prepared(state, file_state, summary_slice.prepared)
        self._store_scan(state, file_state, result, merge)
        damage = [d for d in read.damage if d is not read.error]
        self._log_damage(state, file_state, damage + result.errors)
        file_state.damage.extend(damage)
        file_state.records += read.records
        file_state.offset, file_state.lost_at = summary_slice.offset, summary_slice.lost_at
        file_state.prefix_digest = summary_slice.prefix_digest
        file_state.read_size = size_before
        file_state.caught_up = (
            read.error is not None or read.bytes_consumed < summary_slice.slice_bytes
        )
        self._set_unreadable(state, file_state, read.error)
        self._set_tail_since(state, file_state, read.tail is not None)

    def _set_tail_since(self, state: JobState, file_state: FileState, tail: bool) -> None:
        """An incomplete last record, or an empty file, is unchanged since the file's mtime
        (nothing was written since); None otherwise. ``min`` with now: a clock skewed into the
        future does not make it older."""
        empty = file_state.size == 0 and file_state.records == 0
        if not tail and not (empty and file_state.unreadable is None):
            file_state.tail_since = None
            return
        now = self._clock()
        since = min(file_state.mtime, now)
        if since != file_state.tail_since and now - since >= STALE_TAIL_SECONDS:
            log.warning(
                "%s/%s: %s, unchanged for %d s",
                state.train_id,
                file_state.name,
                "empty file" if empty else f"incomplete last record at {file_state.offset}",
                now - since,
            )
        file_state.tail_since = since

    def _set_unreadable(self, state: JobState, file_state: FileState, error: Damage | None) -> None:
        """Remember (and log once) why a file cannot be read, or that it can be again."""
        reason = None if error is None else error.reason
        if reason == file_state.unreadable:
            return
        if reason is None:
            log.info("%s/%s can be read again", state.train_id, file_state.name)
        else:
            log.warning(
                "%s/%s: %s; trying again at every reload", state.train_id, file_state.name, reason
            )
        file_state.unreadable = reason

    def _restart_file(self, state: JobState, file_state: FileState, stat: os.stat_result) -> None:
        """The path names another file (or a shorter one) than the one being read: forget what
        was read and read the new one from its start (on the next pass)."""
        log.info(
            "%s/%s was replaced or truncated while being read: reading it again",
            state.train_id,
            file_state.name,
        )
        _forget_file(self.store, state, file_state)
        self._scanners.pop((state.train_id, file_state.name), None)
        fresh = FileState(
            file_state.name,
            file_state.kind,
            (stat.st_ino, file_state.identity[1]),
            rank=file_state.rank,
            size=stat.st_size,
            mtime=stat.st_mtime,
            version=file_state.version,
        )
        state.files[file_state.name] = fresh

    @staticmethod
    def _log_damage(state: JobState, file_state: FileState, damage: list[Damage]) -> None:
        """Log newly found damage (the first few places: a garbage file has many)."""
        for place in damage[:3]:
            log.warning(
                "%s/%s @ %d: %s", state.train_id, file_state.name, place.offset, place.reason
            )
        if len(damage) > 3:
            log.warning(
                "%s/%s: %d more damaged places", state.train_id, file_state.name, len(damage) - 3
            )

    def _store_prepared(
        self, state: JobState, file_state: FileState, prepared: PreparedTags
    ) -> None:
        """Insert the chunks a slice's reader prepared (a file read for the first time) and
        count their entries."""
        self.store.append_prepared(state, file_state, prepared)
        for plugin, tag, chunks in prepared:
            _count(state, plugin, tag, file_state.name, sum(c.ref.entries for c in chunks))

    def _store_scan(
        self, state: JobState, file_state: FileState, result: ScanResult, merge: bool
    ) -> None:
        name = file_state.name
        for tag, scalars in result.scalars.items():
            columns = ScalarColumns(
                step=scalars.step, wall_time=scalars.wall_time, value=scalars.value
            )
            self.store.append_chunk(state, file_state, PluginName.SCALAR.value, tag, columns, merge)
            _count(state, PluginName.SCALAR.value, tag, name, len(scalars))
        for (plugin, tag), blobs in result.blobs.items():
            references = BlobColumns(
                step=blobs.step,
                wall_time=blobs.wall_time,
                offset=blobs.offset,
                length=blobs.length,
                value_index=blobs.index,
                meta=blobs.meta,
            )
            self.store.append_chunk(state, file_state, plugin, tag, references, merge)
            _count(state, plugin, tag, name, len(blobs))
        for graph in result.graphs:
            state.graphs.append(
                GraphRecord(
                    file=name,
                    kind=GRAPH_IN_SUMMARY,
                    offset=graph.offset,
                    length=graph.length,
                    wall_time=graph.wall_time,
                    step=graph.step,
                )
            )
            _count(state, PluginName.GRAPH.value, name, name, 1)
        file_state.damage.extend(result.errors)
        if isinstance(result, TensorBoardScan):
            state.lineage.extend(
                LineageRecord(
                    file=name,
                    offset=h.offset,
                    wall_time=h.wall_time,
                    kind=LINEAGE_TENSORBOARD_HPARAMS,
                    data=h.data,
                )
                for h in result.hparams
            )

    def _read_lineage(self, path: str, state: JobState, file_state: FileState) -> None:
        """Lineage files are small: re-read whole whenever they change (what was read before
        stays while the file cannot be read)."""
        reader = RecordReader(path, max_payload=self.max_record_bytes)
        size_before = file_state.size
        records: list[LineageRecord] = []
        damage: list[Damage] = []
        for record in reader.read():
            try:
                lineage = decode_lineage_event(record.payload)
            except DecodeError as error:
                damage.append(Damage(record.offset, str(error)))
                continue
            records.append(
                LineageRecord(
                    file=file_state.name,
                    offset=record.offset,
                    wall_time=lineage.wall_time,
                    kind=lineage.kind,
                    data=lineage.data,
                )
            )
        file_state.read_size, file_state.caught_up = size_before, True
        self._set_unreadable(state, file_state, reader.result.error)
        if reader.result.error is not None:
            return
        state.lineage = [r for r in state.lineage if r.file != file_state.name] + records
        file_state.damage = damage + reader.result.damage
        self._log_damage(state, file_state, file_state.damage)
        file_state.records = reader.result.records
        file_state.offset, file_state.lost_at = reader.offset, reader.lost_at
        self._set_tail_since(state, file_state, reader.result.tail is not None)

    def _read_graph_file(self, path: str, state: JobState, file_state: FileState) -> None:
        """A bare ModelProto: checked now, decoded again when shown (what was read before stays
        while the file cannot be read)."""
        name = file_state.name
        file_state.read_size, file_state.caught_up = file_state.size, True
        data, problem = b"", None
        try:
            check_graph_file_size(path, self.max_record_bytes)
            with open_regular(path) as handle:
                data = handle.read()
        except ValueError as error:  # larger than --max-record-bytes: not read
            problem = str(error)
        except OSError as error:
            self._set_unreadable(
                state, file_state, Damage(0, CANNOT_READ_FILE.format(error=error.strerror or error))
            )
            return
        self._set_unreadable(state, file_state, None)
        state.graphs = [g for g in state.graphs if g.file != name]
        state.tags.get(PluginName.GRAPH.value, {}).pop(name, None)
        file_state.damage = []
        try:
            if problem is None:
                decode_model_proto(data)
        except DecodeError as error:
            problem = str(error)
        if problem is not None:
            file_state.damage.append(Damage(0, problem))
            self._log_damage(state, file_state, file_state.damage)
        else:
            state.graphs.append(
                GraphRecord(
                    file=name,
                    kind=GRAPH_PB,
                    offset=0,
                    length=len(data),
                    wall_time=file_state.mtime,
                    step=0,
                )
            )
            _count(state, PluginName.GRAPH.value, name, name, 1)
        file_state.offset = file_state.read_size = file_state.size
        file_state.records, file_state.caught_up = 1, True
