"""The query API: the only way the UI, the REST API and the CLI read the logs.

In the spirit of TensorBoard's ``data/provider.py``: list jobs and tags, read series (every
point, downsampled only on request), read large values by key. Everything comes from the
index (:mod:`.index`), which the loader keeps up to date, possibly in another process; large
values (images, histograms, tensors, graphs) are decoded from their record on demand and kept
in a bounded LRU cache.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from dash_insight.core.format.events import (
    LINEAGE_DATASET_GRAPH,
    DecodeError,
    decode_model_proto,
    decode_value_at,
    parse_event,
)
from dash_insight.core.format.files import EVENT_KINDS, FileKind, classify, open_regular
from dash_insight.core.format.framing import (
    MAX_PAYLOAD_BYTES,
    check_graph_file_size,
    read_record_at,
    record_length_at,
)
from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.core.format.reasons import NO_TRAINING_JOB
from dash_insight.core.format.remote import RangeCache, is_url
from dash_insight.core.format.tensorboard import LINEAGE_TENSORBOARD_HPARAMS, decode_tb_value
from dash_insight.core.lineage_rows import tensorboard_lineage
from dash_insight.core.run_marks import RunMarks
from dash_insight.core.store.budget import ByteBudget
from dash_insight.core.store.chunks import (
    ChunkRef,
    Extreme,
    SummaryPoints,
    chunk_extremes,
    is_ordered,
    ordered_extremes,
    overlapping,
    summary_level,
)
from dash_insight.core.store.codec import UndecodableEntry
from dash_insight.core.store.discovery import resolve_train_id
from dash_insight.core.store.health import STORE_UNREACHABLE, failure_reason, one_line
from dash_insight.core.store.index import (
    BlobColumns,
    MissingChunk,
    ScalarColumns,
    tag_chunks,
)
from dash_insight.core.store.index_api import DamagedEntry, IndexApi
from dash_insight.core.store.lod import (
    BLOCKS_PER_COLUMN,
    ExtremaPyramid,
    ScalarWindow,
    column_count,
    needs_pyramid,
    range_bounds,
    window,
    window_indices,
)
from dash_insight.core.store.lru import ByteLRU
from dash_insight.core.store.sampling import sample_indices
from dash_insight.core.store.series import EMPTY_SERIES, ScalarSeries, downsample, merge_indices
from dash_insight.core.store.state import GRAPH_PB, JobState, LineageRecord
from dash_insight.core.vocabulary import STORED_PLUGINS, PluginName

log = logging.getLogger(__name__)
T = TypeVar("T")


class DataError(Exception):
    """A query that cannot be answered; ``str()`` is a message for the user."""


class JobNotFound(DataError, LookupError):
    pass


class TagNotFound(DataError, LookupError):
    pass


class StepNotFound(DataError, LookupError):
    pass


class ValueUnreadable(DataError):
    """The value's record cannot be read any more (file changed) or decoded."""


class IndexEntryMissing(ValueUnreadable):
    """The index lacks (or cannot read) data a job's current state names; the loader was
    asked to read the job again from its logs."""


@dataclass(frozen=True)
class LeftOutStep:
    """A step of a tag left out of an answer that serves the others: its value could not be
    read (:class:`ValueUnreadable`) or is too large to compute (:class:`TensorTooLarge`);
    ``message`` says which."""

    step: int
    wall_time: float
    message: str


class TensorTooLarge(DataError):
    pass


@dataclass(frozen=True)
class JobSummary:
    """What the summary list shows about one job."""

    train_id: str
    create_time: float
    update_time: float
    status: str
    bytes_read: int
    bytes_on_disk: int
    reasons: tuple[str, ...]
    tags: dict[str, list[str]]  # plugin -> tags in first-seen order
    summary_files: int
    lineage_files: int
    graph_files: int
    version: int
    loaded_once: bool = False  # every byte was read at least once (stays true while it grows)
    profiler_dir: str | None = None  # "./profiler" relative to the job (MindInsight's key)
    profiler_type: str = ""  # "cpu", "gpu", "ascend"; "" without profiler data
    profiler_graph_mode: str = ""  # "static" / "dynamic" when profiled (MindInsight's key)
    #: What may be damage but is too recent to tell (an incomplete last record): shown as a
    #: hint, not counted against :attr:`is_intact`.
    hints: tuple[str, ...] = ()
    #: Files that could not be opened or read at the last try (``"<file>: <reason>"``, the
    #: reason untranslated), tried again every round.
    unreadable: tuple[str, ...] = ()

    @property
    def is_intact(self) -> bool:
        return not self.reasons

    @property
    def progress(self) -> float:
        return 1.0 if not self.bytes_on_disk else min(1.0, self.bytes_read / self.bytes_on_disk)


@dataclass(frozen=True)
class ValueSteps:
    """Where a large-value tag's values are, one per step after merging, sorted by step."""

    step: np.ndarray
    wall_time: np.ndarray
    files: tuple[str, ...]  # file names; ``file`` indexes into them
    file: np.ndarray
    offset: np.ndarray
    index: np.ndarray
    meta: list[dict[str, Any] | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.step)

    @classmethod
    def empty(cls) -> ValueSteps:
        """No step (yet): a tag of a job whose new bytes are still being read."""
        none = np.zeros(0, np.int64)
        return cls(none, np.zeros(0, np.float64), (), none, none, none)

    def position(self, step: int) -> int:
        """Position of ``step`` (``-1`` = the last one); StepNotFound when absent."""
        if len(self.step) and step == -1:
            return len(self.step) - 1
        position = int(np.searchsorted(self.step, step))
        if position >= len(self.step) or self.step[position] != step:
            raise StepNotFound(f"no value at step {step}")
        return position


@dataclass(frozen=True)
class OrderedChunks:
    """The non-empty chunks of an ordered scalar tag (:func:`.chunks.is_ordered`) in step order:
    the file each was read from, its :class:`ChunkRef`, and the step bounds as arrays for the
    binary searches of :func:`.chunks.overlapping`."""

    files: tuple[str, ...]
    refs: tuple[ChunkRef, ...]
    first_steps: np.ndarray
    last_steps: np.ndarray

    @staticmethod
    def of(state: JobState, tag: str) -> OrderedChunks | None:
        """The chunks of ``tag`` in ``state``; None when the tag is not ordered (its points must
        be merged); :class:`TagNotFound` when it has none."""
        per_file = tag_chunks(state, PluginName.SCALAR.value, tag)
        if not per_file:
            raise TagNotFound(f"no scalar tag {tag!r} in {state.train_id}")
        pairs = [(f.name, ref) for f, refs in per_file for ref in refs]
        if not is_ordered([ref for _, ref in pairs]):
            return None
        pairs = [(name, ref) for name, ref in pairs if ref.entries]
        return OrderedChunks(
            tuple(name for name, _ in pairs),
            tuple(ref for _, ref in pairs),
            np.array([ref.first_step for _, ref in pairs], np.int64),
            np.array([ref.last_step for _, ref in pairs], np.int64),
        )


def _join(parts: list[ScalarSeries | SummaryPoints | ScalarColumns]) -> ScalarSeries:
    """Pieces of an ordered tag, in step order, as one series."""
    if not parts:
        return EMPTY_SERIES
    return ScalarSeries(
        np.concatenate([p.step for p in parts]),
        np.concatenate([p.wall_time for p in parts]),
        np.concatenate([p.value for p in parts]),
    )


class DataProvider:
    """Answers queries from the index of one summary base directory."""

    def __init__(
        self,
        base_dir: str,
        store: IndexApi,
        *,
        samples_per_plugin: Mapping[str, int] | None = None,
        cache_bytes: int = 256 << 20,
        max_record_bytes: int = MAX_PAYLOAD_BYTES,
        clock: Callable[[], float] = time.time,
        run_marks: RunMarks | None = None,
    ) -> None:
        self.base_dir = base_dir if is_url(base_dir) else os.path.abspath(base_dir)
        #: The runs the user archived or labelled (:mod:`~dash_insight.core.run_marks`, in the
        #: workspace); None: none (a provider without a workspace).
        self.run_marks = run_marks
        #: Recently read blocks of remote files (records of one answer share blocks).
        self._ranges = RangeCache() if is_url(base_dir) else None
        self.store = store
        self.samples_per_plugin = dict(samples_per_plugin or {})
        self.max_record_bytes = max_record_bytes
        self._clock = clock
        self._cache = ByteLRU(cache_bytes)
        # Records read and decoded at once by all requests together hold at most this many
        # bytes (each costs 2-4 times its size until decoded): one largest record at a time,
        # many small ones side by side.
        self._reading = ByteBudget(max_record_bytes)
        self._states: dict[str, JobState] = {}
        self._generation = -1
        self._damage: str | None = None  # the damaged coordination entry last warned of
        self._warned: dict[tuple[str, str], int] = {}  # (job, what) -> its version warned at
        self._epoch = store.epoch
        self._lock = threading.Lock()
        self._unreachable: str | None = None  # why the store could not be reached
        self._jobs: list[tuple[str, float, float]] = []  # the job list as last read
        self._ready = False
        #: The index was emptied after this process had read jobs from it (see :attr:`rebuilding`).
        self._rebuilding = False

    # -- jobs --
    def _refresh(self) -> None:
        """Reload the job states that changed since the last query (cheap when none did). A
        damaged ``versions`` or ``generation`` entry keeps the states held (one warning until
        the loader rewrites it); so does an index store that cannot be reached (a Redis outage:
        :attr:`unreachable`)."""
        try:
            self._reload_changed()
        except DamagedEntry as error:
            if self._damage != str(error):
                log.warning("%s; showing the jobs as last read until the loader rewrites it", error)
            self._damage = str(error)
        except Exception as error:
            if failure_reason(error) != STORE_UNREACHABLE:
                raise
            self._lost_store(error)
        else:
            self._damage = None
            self._reached_store()

    @property
    def rebuilding(self) -> bool:
        """True from when the index was found emptied after this process had read jobs from
        it (a new epoch) until :meth:`rebuilt` says every job is read again."""
        return self._rebuilding

    def rebuilt(self) -> None:
        """Every job is read again after the index was emptied (see :attr:`rebuilding`)."""
        self._rebuilding = False

    @property
    def unreachable(self) -> str | None:
        """Why the index store could not be reached at the last try (one line), None while it
        answers: the jobs are then shown as last read (degraded, not down)."""
        return self._unreachable

    def _lost_store(self, error: BaseException) -> None:
        """Record that the store cannot be reached: one log line when that starts."""
        detail = one_line(error)
        with self._lock:
            started, self._unreachable = self._unreachable is None, detail
        if started:
            log.warning(
                "the index cannot be reached (%s): answering from what this process holds "
                "until it can",
                detail,
            )

    def _reached_store(self) -> None:
        if self._unreachable is None:
            return
        with self._lock:
            ended, self._unreachable = self._unreachable is not None, None
        if ended:
            log.warning("the index can be reached again")

    def _reload_changed(self) -> None:
        generation = self.store.generation()
        if generation == self._generation and self.store.epoch == self._epoch:
            return
        with self._lock:
            if self.store.epoch != self._epoch:  # the index was rebuilt: versions start again
                # Emptied after this process had read jobs from it (a Redis restarted without
                # persistence): the loader reads them all again.
                self._rebuilding = self._rebuilding or bool(self._states)
                self._cache.clear()
                self._states = {}
                self._epoch = self.store.epoch
            changed_since = getattr(self.store, "changed_since", None)
            if changed_since is not None and self._generation >= 0:
                # Redis: the versions of the jobs changed since this process last looked
                # (HMGET), not the whole versions hash per generation.
                changed = changed_since(self._generation)
                if changed is not None:
                    self._reload_jobs(changed, generation)
                    return
            versions = self.store.job_versions()
            states = {}
            for train_id, version in versions.items():
                state = self._states.get(train_id)
                if state is None or state.version != version:
                    state = self._load_state(train_id, state)
                if state is not None:
                    states[train_id] = state
            self._states = states
            self._generation = generation

    def _reload_jobs(self, changed: list[str], generation: int) -> None:
        """Reload ``changed`` jobs only (dropping those that are gone); with the lock held."""
        versions = self.store.versions_of(changed)  # type: ignore[attr-defined]
        states = dict(self._states)
        for train_id in changed:
            version = versions.get(train_id)
            if version is None:
                states.pop(train_id, None)
                continue
            state = states.get(train_id)
            if state is None or state.version != version:
                state = self._load_state(train_id, state)
            if state is None:
                states.pop(train_id, None)
            else:
                states[train_id] = state
        self._states = states
        self._generation = generation

    def _load_state(self, train_id: str, known: JobState | None) -> JobState | None:
        """The job's stored state; when it cannot be read, the one this process ``known``
        (logged: the loader repairs the entry, readers never delete it)."""
        try:
            return self.store.load_job(train_id, repair=False)
        except Exception as error:  # any failure: keep what was shown
            if isinstance(error, UndecodableEntry):  # planted, damaged or of another version
                self.store.request_rebuild(train_id)
            log.warning(
                "cannot read the index entry of %s (%s: %s); showing its last state",
                train_id,
                type(error).__name__,
                error,
            )
            return known

    def _state(self, train_id: str) -> JobState:
        self._refresh()
        state = self._states.get(train_id)
        if state is None:
            raise JobNotFound(NO_TRAINING_JOB.format(train_id=train_id))
        return state

    def _with_chunks(self, train_id: str, compute: Callable[[JobState], T]) -> T:
        """``compute(state)`` for the job's state, which reads its chunks.

        A chunk may be missing because the loader merged it away after this process read the
        state and it has since expired (see :mod:`.index`): the state is then read again and
        ``compute`` retried once. A chunk still missing from the current state is damage: the
        loader is asked to read the job again and the caller gets :class:`IndexEntryMissing`.
        """
        state = self._state(train_id)
        try:
            return compute(state)
        except MissingChunk as error:
            missing = error
        current = self._load_state(train_id, None)
        if current is None:
            raise JobNotFound(NO_TRAINING_JOB.format(train_id=train_id))
        if current.version != state.version:
            with self._lock:
                if self._states.get(train_id) is state:
                    self._states[train_id] = current
            try:
                return compute(current)
            except MissingChunk as error:
                missing = error
        self._warn_once(
            train_id, "index", f"{missing.args[0]}; asking the loader to read {train_id} again"
        )
        self.store.request_rebuild(train_id)
        raise IndexEntryMissing(
            f"the index of {train_id} is damaged; it is being read again "
            f"from the logs, try again in a few seconds"
        ) from None

    def _warn_once(self, train_id: str, what: str, message: str) -> None:
        """Log ``message`` once per ``what`` (the index, a file) of the job's current state:
        damage every request meets until the loader reads the job again is one line."""
        state = self._states.get(train_id)
        version = -1 if state is None else state.version
        with self._lock:
            if self._warned.get((train_id, what)) == version:
                return
            self._warned[(train_id, what)] = version
        log.warning("%s", message)

    def _unreadable(self, train_id: str, name: str, message: str) -> ValueUnreadable:
        """:class:`ValueUnreadable` saying ``message``, logged once per file ``name``."""
        self._warn_once(train_id, name, f"{train_id}: {message} (said once for {name})")
        return ValueUnreadable(message)

    def _summary(self, state: JobState, create_time: float, update_time: float) -> JobSummary:
        kinds = [f.kind for f in state.files.values()]
        now = self._clock()
        return JobSummary(
            train_id=state.train_id,
            create_time=create_time,
            update_time=update_time,
            status=state.status,
            bytes_read=state.bytes_read,
            bytes_on_disk=state.bytes_on_disk,
            reasons=tuple(state.integrity_reasons(now)),
            hints=tuple(state.integrity_hints(now)),
            tags={plugin: list(state.tags.get(plugin, {})) for plugin in STORED_PLUGINS},
            summary_files=sum(kinds.count(kind.value) for kind in EVENT_KINDS),
            # A TensorBoard file holding hparams is the job's lineage too.
            lineage_files=kinds.count(FileKind.LINEAGE.value)
            + len({r.file for r in state.lineage if r.kind == LINEAGE_TENSORBOARD_HPARAMS}),
            graph_files=kinds.count(FileKind.GRAPH.value),
            version=state.version,
            loaded_once=state.loaded_once,
            profiler_dir=state.profiler_dir,
            profiler_type=state.profiler_type,
            profiler_graph_mode=state.profiler_graph_mode,
            unreadable=tuple(
                f"{f.name}: {f.unreadable}" for f in state.files.values() if f.unreadable
            ),
        )

    @property
    def ready(self) -> bool:
        """False until the loader has discovered the jobs once (the list would be empty)."""
        if self._unreachable is None:
            try:
                self._ready = self.store.has_job_list()
            except Exception as error:
                if failure_reason(error) != STORE_UNREACHABLE:
                    raise
                self._lost_store(error)
        return self._ready

    def _job_list(self) -> list[tuple[str, float, float]]:
        """The job list; the one last read while the store cannot be reached."""
        if self._unreachable is None:
            try:
                self._jobs = self.store.job_list()
            except Exception as error:
                if failure_reason(error) != STORE_UNREACHABLE:
                    raise
                self._lost_store(error)
        return self._jobs

    def list_jobs(self) -> list[JobSummary]:
        """Every discovered job, newest update first."""
        self._refresh()
        out = []
        for train_id, create_time, update_time in self._job_list():
            state = self._states.get(train_id) or JobState(train_id)
            out.append(self._summary(state, create_time, update_time))
        return out

    def job(self, train_id: str) -> JobSummary:
        state = self._state(train_id)
        return self._summary(state, state.create_time, state.update_time)

    def data_version(self) -> tuple[int, int]:
        """(index epoch, generation): the same pair means the same data of every job (the
        generation grows with every change the loader publishes). Taken before reading, as
        :meth:`version_key`."""
        self._refresh()
        return self._epoch, self._generation

    def version_key(self, train_id: str) -> tuple[int, int]:
        """(index epoch, job version): the same key means the same data of the job, so an answer
        derived from it can be kept under this key (the version grows with every change of the
        job; a rebuilt index starts the versions again under a new epoch). Take the key before
        reading what is kept under it: the data read is then at least as new as the key."""
        epoch = self._epoch
        return epoch, self._state(train_id).version

    def list_tags(self, train_id: str, plugin: str) -> list[str]:
        """Tags of one plugin, in the order they first appeared."""
        return list(self._state(train_id).tags.get(plugin, {}))

    def job_directory(self, train_id: str) -> str:
        self._state(train_id)
        return resolve_train_id(self.base_dir, train_id)

    # -- scalars --
    def _scalar_arrival(self, state: JobState, tag: str) -> tuple[np.ndarray, ...]:
        """(step, wall, value, file rank) of every point of ``tag`` in arrival order."""
        parts = self.store.read_columns(state, PluginName.SCALAR.value, tag, ScalarColumns)
        if not parts:
            raise TagNotFound(f"no scalar tag {tag!r} in {state.train_id}")
        return (
            np.concatenate([c.step for _, c in parts]),
            np.concatenate([c.wall_time for _, c in parts]),
            np.concatenate([c.value for _, c in parts]),
            np.concatenate([np.full(len(c.step), f.rank, np.int64) for f, c in parts]),
        )

    def _selection(self, plugin: str, step: np.ndarray, rank: np.ndarray) -> np.ndarray:
        size = self.samples_per_plugin.get(plugin)
        if size:  # opt-in MindInsight-style reservoir
            return sample_indices(step.tolist(), rank.tolist(), size)
        return merge_indices(step, rank)

    def read_scalars(self, train_id: str, tag: str, max_points: int | None = None) -> ScalarSeries:
        """Every point of a scalar tag (one per step, restarts merged), sorted by step;
        ``max_points`` downsamples for display, keeping ends, extremes and non-finite points."""
        series, _ = self._merged_scalars(train_id, tag)
        return downsample(series, max_points) if max_points else series

    def _merged_scalars(self, train_id: str, tag: str) -> tuple[ScalarSeries, int]:
        """(the merged series of a scalar tag, the job version it was built from), cached per
        version."""

        def compute(state: JobState) -> tuple[ScalarSeries, int]:
            def build() -> ScalarSeries:
                step, wall, value, rank = self._scalar_arrival(state, tag)
                chosen = self._selection(PluginName.SCALAR, step, rank)
                return ScalarSeries(step[chosen], wall[chosen], value[chosen])

            key = (PluginName.SCALAR.value, train_id, tag, state.version)
            return self._cache.get_or_compute(key, build), state.version

        return self._with_chunks(train_id, compute)

    def read_scalar_window(
        self,
        train_id: str,
        tag: str,
        start_step: int | None = None,
        end_step: int | None = None,
        max_points: int | None = None,
    ) -> ScalarWindow:
        """The points of a scalar tag with ``start_step <= step <= end_step`` (None: open),
        reduced to ``max_points`` per pixel column (:mod:`.store.lod`; every point when None or
        when the range holds no more).

        An ordered tag (every step after the previous one, the usual case) is read by range
        (:meth:`_ordered_window`): only the chunks overlapping the window, and for a wide window
        only the persisted summaries of the chunks it covers whole. Any other tag is merged whole
        once per job version (kept in the LRU) and reduced with its min/max pyramid (built once
        per version, when first needed)."""

        def ordered(state: JobState) -> ScalarWindow | None:
            chunks = self._ordered_chunks(state, tag)
            if chunks is None:
                return None
            return self._ordered_window(train_id, tag, chunks, start_step, end_step, max_points)

        found = self._with_chunks(train_id, ordered)
        if found is not None:
            return found
        series, version = self._merged_scalars(train_id, tag)
        pyramid = None
        if max_points is not None:
            lo, hi = range_bounds(series.step, start_step, end_step)
            if needs_pyramid(hi - lo, max_points):
                pyramid = self._cache.get_or_compute(
                    ("pyramid", train_id, tag, version), lambda: ExtremaPyramid.build(series.value)
                )
        return window(series, start_step, end_step, max_points, pyramid)

    def _ordered_chunks(self, state: JobState, tag: str) -> OrderedChunks | None:
        """The chunks of an ordered scalar tag of ``state`` (cached per job version); None when
        it must be merged whole: not ordered, or sampled (``--samples-per-plugin``)."""
        if self.samples_per_plugin.get(PluginName.SCALAR):
            return None
        return self._cache.get_or_compute(
            ("ordered", state.train_id, tag, state.version), lambda: OrderedChunks.of(state, tag)
        )

    def scalar_extent(self, train_id: str, tag: str) -> tuple[int, int | None]:
        """(number of points, last step or None when empty) of a scalar tag after merging: of
        an ordered tag from its chunk bounds alone (nothing read), of any other one from its
        merged series (as :meth:`read_scalars`)."""

        def ordered(state: JobState) -> tuple[int, int | None] | None:
            chunks = self._ordered_chunks(state, tag)
            if chunks is None:
                return None
            points = sum(ref.entries for ref in chunks.refs)
            return points, (int(chunks.last_steps[-1]) if points else None)

        found = self._with_chunks(train_id, ordered)
        if found is not None:
            return found
        series, _ = self._merged_scalars(train_id, tag)
        return len(series), (int(series.step[-1]) if len(series) else None)

    def scalar_file_ranges(self, train_id: str, tag: str) -> list[tuple[int, int]]:
        """Each summary file's first and last step of a scalar tag, in file order (files
        without its points left out), from the chunk bounds alone: what tells a restart
        (:func:`~dash_insight.core.markers.restarts`)."""
        out = []
        for _file, refs in tag_chunks(self._state(train_id), PluginName.SCALAR.value, tag):
            filled = [ref for ref in refs if ref.entries]
            if filled:
                out.append(
                    (min(ref.first_step for ref in filled), max(ref.last_step for ref in filled))
                )
        return out

    def scalar_extremes(self, train_id: str, tag: str) -> tuple[Extreme | None, Extreme | None]:
        """The lowest and highest finite point of a scalar tag after merging (the earliest step
        on a tie; None when no value is finite): of an ordered tag from its chunks' extremes
        (:func:`.chunks.ordered_extremes`, nothing read), of any other one from its merged
        series."""

        def ordered(state: JobState) -> tuple[Extreme | None, Extreme | None] | None:
            chunks = self._ordered_chunks(state, tag)
            return None if chunks is None else ordered_extremes(chunks.refs)

        found = self._with_chunks(train_id, ordered)
        if found is not None:
            return found
        series, _ = self._merged_scalars(train_id, tag)
        return chunk_extremes(series.step, series.wall_time, series.value)

    def _ordered_window(
        self,
        train_id: str,
        tag: str,
        chunks: OrderedChunks,
        start_step: int | None,
        end_step: int | None,
        max_points: int | None,
    ) -> ScalarWindow:
        """:meth:`read_scalar_window` of an ordered tag from the chunks overlapping the window
        (two binary searches over their bounds): the chunks at its two edges are read and cut
        to it; the chunks it covers whole are read when every point is drawn or the window is
        narrow, otherwise only their summaries at the level of :func:`.chunks.summary_level`
        (the same candidates as the in-memory pyramid: :mod:`.lod`)."""
        if start_step is not None and end_step is not None and start_step > end_step:
            return ScalarWindow(EMPTY_SERIES, 0)
        lo, hi = overlapping(chunks.first_steps, chunks.last_steps, start_step, end_step)
        if lo == hi:
            return ScalarWindow(EMPTY_SERIES, 0)
        inner_lo = lo + int(start_step is not None and chunks.first_steps[lo] < start_step)
        inner_hi = hi - int(end_step is not None and chunks.last_steps[hi - 1] > end_step)
        head = (
            self._cut_chunk(train_id, tag, chunks, lo, start_step, end_step)
            if inner_lo > lo
            else None
        )
        tail = (
            self._cut_chunk(train_id, tag, chunks, hi - 1, start_step, end_step)
            if inner_hi < hi and (hi - 1 != lo or head is None)
            else None
        )
        inner = range(inner_lo, max(inner_lo, inner_hi))
        edges = [piece for piece in (head, tail) if piece is not None]
        points = sum(chunks.refs[i].entries for i in inner) + sum(len(p) for p in edges)
        level = None
        if max_points is not None and points > max_points:
            level = summary_level(points, column_count(max_points), BLOCKS_PER_COLUMN)
        middle: list[ScalarSeries | SummaryPoints | ScalarColumns] = [
            self._chunk_columns(train_id, tag, chunks, i)
            if level is None
            else self._chunk_summary(train_id, tag, chunks, i, level)
            for i in inner
        ]
        series = _join(
            ([head] if head is not None else []) + middle + ([tail] if tail is not None else [])
        )
        if max_points is None or points <= max_points:
            return ScalarWindow(series, points)
        if level is None:  # a narrow window: its raw points, reduced exactly
            return window(series, start_step, end_step, max_points)
        chosen = window_indices(series.step, series.value, start_step, end_step, max_points)
        return ScalarWindow(
            ScalarSeries(series.step[chosen], series.wall_time[chosen], series.value[chosen]),
            points,
        )

    def _chunk_columns(
        self, train_id: str, tag: str, chunks: OrderedChunks, position: int
    ) -> ScalarColumns:
        """One chunk of an ordered tag, read from the index for each request: not kept in the
        LRU, so that the memory a window read takes is bounded by the window (its edge chunks
        hold at most :data:`.index.MAX_CHUNK_ENTRIES` points)."""
        return self.store.read_chunk(
            train_id,
            PluginName.SCALAR.value,
            tag,
            chunks.files[position],
            chunks.refs[position].serial,
            ScalarColumns,
        )

    def _chunk_summary(
        self, train_id: str, tag: str, chunks: OrderedChunks, position: int, level: int
    ) -> SummaryPoints:
        """One chunk's persisted summary at ``level`` (kept in the LRU under the chunk's serial,
        which never names another chunk: ~2 points per ``2**level``)."""
        name, serial = chunks.files[position], chunks.refs[position].serial
        return self._cache.get_or_compute(
            ("lod", train_id, tag, name, serial, level),
            lambda: self.store.read_summary(
                train_id, PluginName.SCALAR.value, tag, name, serial, level
            ),
        )

    def _cut_chunk(
        self,
        train_id: str,
        tag: str,
        chunks: OrderedChunks,
        position: int,
        start_step: int | None,
        end_step: int | None,
    ) -> ScalarSeries:
        """The points of one chunk within ``[start_step, end_step]``."""
        columns = self._chunk_columns(train_id, tag, chunks, position)
        lo, hi = range_bounds(columns.step, start_step, end_step)
        return ScalarSeries(columns.step[lo:hi], columns.wall_time[lo:hi], columns.value[lo:hi])

    def read_scalars_many(
        self, train_ids: Iterable[str], tags: Iterable[str], max_points: int | None = None
    ) -> dict[tuple[str, str], ScalarSeries]:
        """Series for every (job, tag) pair that exists; missing ones are left out."""
        tags = list(tags)
        out: dict[tuple[str, str], ScalarSeries] = {}
        for train_id in train_ids:
            try:
                known = self._state(train_id).tags.get(PluginName.SCALAR, {})
            except JobNotFound:
                continue
            for tag in tags:
                if tag in known:
                    out[(train_id, tag)] = self.read_scalars(train_id, tag, max_points)
        return out

    # -- large values --
    def value_steps(self, train_id: str, plugin: str, tag: str) -> ValueSteps:
        """Steps (after merging) of an image / histogram / tensor / loss landscape tag."""

        def compute(state: JobState) -> ValueSteps:
            return self._cache.get_or_compute(
                ("steps", train_id, plugin, tag, state.version),
                lambda: self._value_steps(state, plugin, tag),
            )

        return self._with_chunks(train_id, compute)

    def _value_steps(self, state: JobState, plugin: str, tag: str) -> ValueSteps:
        """Merged steps of one large-value tag of ``state`` (see :meth:`value_steps`)."""
        train_id = state.train_id
        parts = self.store.read_columns(state, plugin, tag, BlobColumns)
        if not parts:
            raise TagNotFound(f"no {plugin} tag {tag!r} in {train_id}")
        step = np.concatenate([c.step for _, c in parts])
        rank = np.concatenate([np.full(len(c.step), f.rank, np.int64) for f, c in parts])
        chosen = self._selection(plugin, step, rank)
        meta = [m for _, c in parts for m in c.meta]
        return ValueSteps(
            step=step[chosen],
            wall_time=np.concatenate([c.wall_time for _, c in parts])[chosen],
            files=tuple(f.name for f, _ in parts),
            file=np.concatenate(
                [np.full(len(c.step), i, np.int32) for i, (_, c) in enumerate(parts)]
            )[chosen],
            offset=np.concatenate([c.offset for _, c in parts])[chosen],
            index=np.concatenate([c.value_index for _, c in parts])[chosen],
            meta=[meta[i] for i in chosen.tolist()],
        )

    def value_size(self, train_id: str, plugin: str, tag: str, step: int) -> int:
        """Bytes of the record holding the value at ``step`` (its header is read, nothing
        decoded): what decoding it will cost, roughly, before it is decoded. ValueUnreadable
        when the record is gone or longer than ``max_record_bytes``."""
        steps = self.value_steps(train_id, plugin, tag)
        position = steps.position(step)
        name = steps.files[int(steps.file[position])]
        path = os.path.join(self.job_directory(train_id), name)
        try:
            return record_length_at(
                path, int(steps.offset[position]), self.max_record_bytes, self._ranges
            )
        except (OSError, ValueError) as error:
            raise self._unreadable(
                train_id,
                name,
                f"cannot read {plugin} {tag!r} at step {step}: {_reason(error, path, name)}",
            ) from None

    def read_value(self, train_id: str, plugin: str, tag: str, step: int) -> Any:
        """The decoded value (ImageValue, HistogramValue, TensorValue, ...) at ``step``."""
        steps = self.value_steps(train_id, plugin, tag)
        position = steps.position(step)
        name = steps.files[int(steps.file[position])]
        offset, index = int(steps.offset[position]), int(steps.index[position])
        meta = steps.meta[position] if steps.meta else None
        tensorboard = classify(name) is FileKind.TENSORBOARD

        def build() -> Any:
            # Resolved (symbolic links checked) on a miss only: a page's 400 cached histograms
            # spent most of their time in realpath.
            path = os.path.join(self.job_directory(train_id), name)
            try:
                length = record_length_at(path, offset, self.max_record_bytes, self._ranges)
                with self._reading.hold(length):
                    payload = read_record_at(path, offset, self.max_record_bytes, self._ranges)
                    value = (
                        decode_tb_value(payload, index, meta)
                        if tensorboard
                        else decode_value_at(payload, index)
                    )
            except (OSError, ValueError) as error:
                raise self._unreadable(
                    train_id,
                    name,
                    f"cannot read {plugin} {tag!r} at step {step}: {_reason(error, path, name)}",
                ) from None
            if value.tag != tag:
                raise self._unreadable(train_id, name, f"{name} changed since it was indexed")
            return value.value

        # An image tensor's samples share (record, value): the tag tells them apart.
        return self._cache.get_or_compute(("value", train_id, name, offset, index, tag), build)

    # -- graphs and lineage --
    def graph_tags(self, train_id: str) -> list[str]:
        """Graph tags are file names, as in MindInsight."""
        return list(self._state(train_id).tags.get(PluginName.GRAPH, {}))

    def read_graph(self, train_id: str, tag: str) -> anf_ir_pb2.GraphProto:
        """The graph of a summary file (its last graph record) or of a ``.pb`` file."""
        state = self._state(train_id)
        records = [g for g in state.graphs if g.file == tag]
        if not records:
            raise TagNotFound(f"no graph {tag!r} in {train_id}")
        record = records[-1]
        path = os.path.join(self.job_directory(train_id), tag)

        def build() -> anf_ir_pb2.GraphProto:
            try:
                if record.kind == GRAPH_PB:
                    size = check_graph_file_size(path, self.max_record_bytes)
                    with self._reading.hold(size), open_regular(path) as handle:
                        return decode_model_proto(handle.read())
                length = record_length_at(path, record.offset, self.max_record_bytes, self._ranges)
                with self._reading.hold(length):
                    return parse_event(
                        read_record_at(path, record.offset, self.max_record_bytes, self._ranges)
                    ).graph_def
            except (OSError, ValueError, DecodeError) as error:
                raise ValueUnreadable(
                    f"cannot read graph {tag!r}: {_reason(error, path, tag)}"
                ) from None

        return self._cache.get_or_compute(("graph", path, record.offset, state.version), build)

    def lineage_records(self, train_id: str) -> list[LineageRecord]:
        """The job's decoded lineage records, files in name order, each file's in file order;
        TensorBoard hparams as lineage records (:func:`.lineage_rows.tensorboard_lineage`, its
        metrics the last value of their scalar tag)."""
        state = self._state(train_id)
        records = sorted(state.lineage, key=lambda r: (r.file, r.offset))
        if any(r.kind == LINEAGE_TENSORBOARD_HPARAMS for r in records):
            records = tensorboard_lineage(records, lambda tag: self._last_scalar(train_id, tag))
        return records

    def _last_scalar(self, train_id: str, tag: str) -> float | None:
        """The value at the last step of a scalar tag (None without one)."""
        try:
            series = self.read_scalars(train_id, tag)
        except TagNotFound:
            return None
        return float(series.value[-1]) if len(series.value) else None

    def dataset_graph(self, train_id: str) -> dict[str, Any] | None:
        """The job's dataset pipeline (the last one recorded), or None."""
        graphs = [r for r in self.lineage_records(train_id) if r.kind == LINEAGE_DATASET_GRAPH]
        return graphs[-1].data if graphs else None


def _reason(error: Exception, path: str, file_name: str) -> str:
    """Why the file at ``path`` could not be read, naming it by its name in the job only: the
    errors' texts hold the absolute path, which an answer must not reveal."""
    if isinstance(error, OSError):
        return f"{file_name}: {error.strerror or type(error).__name__}"
    return str(error).replace(path, file_name)
