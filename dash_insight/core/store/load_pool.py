"""Reading summary files on several cores: worker processes that frame and scan slices.

The loader's slowest step is turning the bytes of a summary file into columns (framing, CRC,
protobuf, :class:`~dash_insight.core.format.scan.EventScanner`); it needs nothing but the file.
:func:`read_slice` does that step for one slice of one file, as a pure function of a
:class:`SliceTask`, and :class:`LoadPool` runs it in worker processes. For a file read for the
first time (its chunks are never merged) the worker also does everything else the index needs
but the writes (:func:`prepare_scan`: chunks cut, step bounds, extremes, min/max summaries,
pickles). The loader stays the only writer of the index: it sends tasks, takes the results back
in the order it sent them and inserts the ready bytes inside its transactions, one bulk insert
per slice (so one worker or many give the same index). Measured on 4 jobs of 543 MB with 2
workers, before: the writer spent 6.4 s of 34 s summarising chunks, 2 s pickling them and
11.5 s in SQLite (a SELECT and an INSERT per entry through ``diskcache.Cache.set``).

The workers are plain ``python -m dash_insight.core.store.load_worker`` processes talking
pickle over their stdin and stdout, not a ``multiprocessing`` pool: that one runs the parent's
``__main__`` again in every worker (the whole web app, for ``python -m dash_insight.server``).
A worker imports only the file format modules. Each worker has one task at a time, so a worker
that dies (killed, out of memory, a crash in a C extension) is known to have died on its task:
that task's result is a :class:`WorkerCrashed`, the worker is replaced and every other task
goes on. The workers are started on first use and stopped by :meth:`LoadPool.close` (the loader
closes its pool at the end of each round that used it: a running server holds no idle worker).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import importlib
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import IO, Any

from dash_insight.core.format.framing import ReadResult, RecordReader
from dash_insight.core.format.remote import is_url
from dash_insight.core.format.scan import EventScanner, ScanResult
from dash_insight.core.format.tensorboard import TensorBoardScanner
from dash_insight.core.store.index import (
    BlobColumns,
    PreparedChunk,
    ScalarColumns,
    prepare_chunks,
)
from dash_insight.core.vocabulary import PluginName

log = logging.getLogger(__name__)

#: The function a worker runs on each task, as ``module:function``.
READ_SLICE = "dash_insight.core.store.load_pool:read_slice"
WORKER_MODULE = "dash_insight.core.store.load_worker"
#: Seconds a closed worker gets to exit before it is killed.
STOP_SECONDS = 5.0
#: The buffer asked for the pipe of a worker's answers (Linux's default maximum).
PIPE_BYTES = 1 << 20


@dataclass
class SliceTask:
    """One slice of one summary file: where to resume (the file state's ``offset``,
    ``lost_at`` and inode), how much to read, and the file's scanner (None: a new one), whose
    state (templates, a TensorBoard tag's plugin) carries over from one slice to the next."""

    path: str
    tensorboard: bool
    offset: int
    lost_at: int | None
    inode: int | None
    max_payload: int
    slice_bytes: int
    scanner: EventScanner | TensorBoardScanner | None = None
    #: A remote file's digest of the bytes before ``offset`` (see RecordReader).
    prefix_digest: bytes | None = None
    #: The file is read for the first time (its chunks are stored as read, never merged): the
    #: slice's columns come back as chunks ready to store (:func:`prepare_scan`).
    prepare: bool = False


#: The chunks of one slice, per tag in the order the scan found them: (plugin, tag, chunks).
PreparedTags = list[tuple[str, str, list[PreparedChunk]]]


@dataclass
class SliceResult:
    """What reading a :class:`SliceTask` found: the scanned columns, the reader's account of the
    slice (damage, tail, error, replaced), where to resume, the file's ``fstat`` and the scanner
    to use for the next slice."""

    scan: ScanResult
    read: ReadResult
    offset: int
    lost_at: int | None
    stat: os.stat_result | None
    scanner: EventScanner | TensorBoardScanner
    prefix_digest: bytes | None = None
    #: With ``SliceTask.prepare``: the slice's chunks ready to store (``scan`` then holds no
    #: scalars nor blobs).
    prepared: PreparedTags | None = None
    #: The task's ``slice_bytes``: a slice that consumed less reached the end of the file.
    slice_bytes: int = 0


def prepare_scan(scan: ScanResult) -> PreparedTags:
    """The scalar and large-value columns of ``scan`` as chunks ready to store
    (:func:`~.index.prepare_chunks`: cut, bounded, summarised and pickled), taken out of
    ``scan`` tag by tag so that a tag's columns and its pickles are held together only once."""
    prepared: PreparedTags = []
    for tag in list(scan.scalars):
        scalars = scan.scalars.pop(tag)
        prepared.append(
            (
                PluginName.SCALAR.value,
                tag,
                prepare_chunks(
                    ScalarColumns(
                        step=scalars.step, wall_time=scalars.wall_time, value=scalars.value
                    )
                ),
            )
        )
    for key in list(scan.blobs):
        blobs = scan.blobs.pop(key)
        prepared.append(
            (
                key[0],
                key[1],
                prepare_chunks(
                    BlobColumns(
                        step=blobs.step,
                        wall_time=blobs.wall_time,
                        offset=blobs.offset,
                        length=blobs.length,
                        value_index=blobs.index,
                        meta=blobs.meta,
                    )
                ),
            )
        )
    return prepared


def following_slices(task: SliceTask, size: int, piece_bytes: int) -> list[SliceTask]:
    """``task``'s slice cut into consecutive pieces of ``piece_bytes``, so that workers read one
    file's slice at once, each holding a piece's memory. Piece ``k`` starts at ``task.offset +
    k * piece_bytes`` with framing lost there (``lost_at``), so its reader begins at the first
    place whose length and payload CRCs match (:class:`~dash_insight.core.format.framing.
    RecordReader`), with a scanner of its own (an :class:`EventScanner`'s state is only its
    templates, a speed-up). A reader stops at the first record boundary at or after its start
    plus its ``slice_bytes``, and the next piece starts looking there: in an intact file piece
    ``k`` begins exactly where piece ``k - 1`` ended, which the loader checks before it keeps
    it (:attr:`~dash_insight.core.format.framing.ReadResult.first_offset`). Only for a local
    MindSpore summary file read for the first time from a record boundary: a TensorBoard
    scanner carries a tag's plugin from slice to slice, and a remote file's slices need the
    digest of the bytes before them. Pieces starting at or past ``size`` are not made."""
    piece_bytes = max(1, piece_bytes)
    if (
        piece_bytes >= task.slice_bytes
        or not task.prepare
        or task.tensorboard
        or task.lost_at is not None
        or task.prefix_digest is not None
        or is_url(task.path)
    ):
        return [task]
    starts = range(task.offset, min(size, task.offset + task.slice_bytes), piece_bytes)
    if len(starts) < 2:
        return [task]
    return [replace(task, slice_bytes=piece_bytes)] + [
        replace(task, offset=start, lost_at=start, scanner=None, slice_bytes=piece_bytes)
        for start in starts[1:]
    ]


class WorkerCrashed(RuntimeError):
    """The worker process reading a task ended without answering (killed, out of memory, a
    crash in native code)."""


def read_slice(task: SliceTask) -> SliceResult:
    """Frame, check and scan up to ``task.slice_bytes`` of ``task.path`` from ``task.offset``
    (and, for a file read for the first time, turn the columns into chunks ready to store):
    what :class:`~dash_insight.core.store.loader.Loader` does with one slice of a file, without
    the index. Runs in a worker process or in the loader's own."""
    reader = RecordReader(
        task.path,
        task.offset,
        task.lost_at,
        inode=task.inode,
        max_payload=task.max_payload,
        prefix_digest=task.prefix_digest,
    )
    scanner = task.scanner
    if scanner is None:
        scanner = TensorBoardScanner() if task.tensorboard else EventScanner()
    scan = scanner.scan_from(reader, task.slice_bytes)
    prepared = prepare_scan(scan) if task.prepare else None
    return SliceResult(
        scan=scan,
        read=reader.result,
        offset=reader.offset,
        lost_at=reader.lost_at,
        stat=reader.stat,
        scanner=scanner,
        prefix_digest=reader.prefix_digest,
        prepared=prepared,
        slice_bytes=task.slice_bytes,
    )


def resolve(target: str) -> Callable[[Any], Any]:
    """The function named ``module:function``."""
    module, _, name = target.partition(":")
    function: Callable[[Any], Any] = getattr(importlib.import_module(module), name)
    return function


class _Worker:
    """One worker process with one task at a time."""

    def __init__(self, target: str) -> None:
        # The worker finds modules where this process finds them (a checkout, a test folder).
        path = os.pathsep.join(p for p in sys.path if p)
        env = {**os.environ, "PYTHONPATH": path}
        # A session of its own: with Linux's autogroup scheduling (on by default) every process
        # of one session shares one session's CPU share, so on a busy machine workers in the
        # server's session only divided its share (2 workers were 0.78x of one at load 10 on 2
        # cores). The worker still ends with its loader: EOF on its stdin, or a broken pipe.
        self.process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE, target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._to: IO[bytes] = self.process.stdin
        self._from: IO[bytes] = self.process.stdout
        _widen_pipe(self._from)

    def run(self, task: Any) -> Any:
        """The worker's answer to ``task``: its result, or the exception it raised (returned,
        not raised). :class:`WorkerCrashed` when the process ended without answering."""
        try:
            pickle.dump(task, self._to, protocol=pickle.HIGHEST_PROTOCOL)
            self._to.flush()
            ok, answer = pickle.load(self._from)
        except (EOFError, OSError, pickle.UnpicklingError) as error:
            code = self._reap()
            raise WorkerCrashed(
                f"the load worker stopped while reading this file (exit code {code})"
            ) from error
        return answer if ok else _as_exception(answer)

    def _reap(self) -> int | None:
        with contextlib.suppress(OSError):
            self._to.close()
        try:
            return self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def close(self) -> None:
        """Ask the worker to end (EOF on its stdin); killed if it does not."""
        self._reap()
        with contextlib.suppress(OSError):
            self._from.close()


def _widen_pipe(pipe: IO[bytes]) -> None:
    """Give the pipe of a worker's answers a buffer of :data:`PIPE_BYTES` (Linux's
    ``F_SETPIPE_SZ``; 64 KB by default): a slice's answer is tens of MB, and every time the
    buffer is full the worker waits until the loader's thread is scheduled to empty it, which
    on a busy machine is a scheduling delay per 64 KB. Nothing happens where it is not
    supported or allowed (``/proc/sys/fs/pipe-max-size``)."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), set_size, PIPE_BYTES)


def _as_exception(answer: Any) -> BaseException:
    return answer if isinstance(answer, BaseException) else RuntimeError(str(answer))


class LoadPool:
    """``workers`` worker processes running ``target`` (default :func:`read_slice`)."""

    def __init__(self, workers: int, target: str = READ_SLICE) -> None:
        if workers < 1:
            raise ValueError(f"a load pool needs at least one worker, not {workers}")
        self.workers = workers
        self.target = target
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._threads: ThreadPoolExecutor | None = None
        self.crashes = 0

    def _borrow(self) -> _Worker:
        with self._lock:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                worker = _Worker(self.target)
                self._all.append(worker)
                return worker

    def _run(self, task: Any) -> Any:
        worker = self._borrow()
        try:
            answer = worker.run(task)
        except WorkerCrashed as crashed:
            with self._lock:
                self._all.remove(worker)
                self.crashes += 1
            log.warning("%s", crashed)
            return crashed
        self._idle.put(worker)
        return answer

    def ordered(self, tasks: Iterable[Any]) -> Iterator[Any]:
        """The answer to each task, in the order of ``tasks`` (a result, or the exception its
        worker raised or :class:`WorkerCrashed`). At most ``workers + 1`` answers wait in this
        process at any time, so the memory held is bounded however many tasks there are."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(
                self.workers, thread_name_prefix="dash-insight-load-pool"
            )
        window: collections.deque[Future[Any]] = collections.deque()
        pending = iter(tasks)
        try:
            for task in pending:
                window.append(self._threads.submit(self._run, task))
                if len(window) > self.workers:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            for future in window:
                future.cancel()

    def close(self) -> None:
        """Stop every worker (idempotent; a later :meth:`ordered` starts new ones)."""
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None
        with self._lock:
            workers, self._all = self._all, []
            self._idle = queue.SimpleQueue()
        for worker in workers:
            worker.close()

    def __enter__(self) -> LoadPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
