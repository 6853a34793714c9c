"""What the index remembers about each job and file (pickled into the diskcache index).

Large data (scalar columns, value references) lives in separate index entries, per
(job, tag, file) chunk, so one file's data can be dropped without touching the others; these
states only say where reading stopped and what is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dash_insight.core.format.framing import Damage
from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext
from dash_insight.core.store.chunks import ChunkRef

STATUS_PENDING = "pending"  # discovered, nothing read yet
STATUS_LOADING = "loading"  # some bytes not read yet
STATUS_LOADED = "loaded"  # every byte on disk has been read

#: An incomplete record untouched for this long is reported (MindInsight: 600 s).
STALE_TAIL_SECONDS = 600.0

#: Where a graph was read from (:attr:`GraphRecord.kind`).
GRAPH_IN_SUMMARY = "summary"  # a ``graph_def`` Event of a summary file
GRAPH_PB = "pb"  # a bare ``ModelProto`` file


@dataclass(frozen=True)
class GraphRecord:
    """Where one graph is: decoded again, from its record, when shown."""

    file: str  # the file name (the graph's tag)
    kind: str  # GRAPH_IN_SUMMARY or GRAPH_PB
    offset: int  # the record's offset (0 for a .pb file)
    length: int  # payload length (the file size for a .pb file)
    wall_time: float
    step: int


@dataclass(frozen=True)
class LineageRecord:
    """One decoded ``LineageEvent`` of a ``_lineage`` file (lineage files are small: kept whole)."""

    file: str
    offset: int
    wall_time: float
    kind: str  # train_lineage, evaluation_lineage, dataset_graph or user_defined_info
    data: dict[str, Any]  # the message as a dict (see events.decode_lineage_event)


@dataclass
class FileState:
    """Reading state of one file of a job."""

    name: str
    kind: str  # FileKind value
    identity: tuple[int, int | None]  # (inode, name timestamp): a change means "re-read"
    rank: int = 0  # position in timestamp order; equal timestamps share a rank
    offset: int = 0  # resume point (bytes read)
    lost_at: int | None = None  # framing lost here, resynchronising
    size: int = 0  # size on disk when last seen
    mtime: float = 0.0
    records: int = 0
    damage: list[Damage] = field(default_factory=list)
    # Since when the incomplete last record (or the emptiness of an empty file) is unchanged:
    # the file's mtime, as nothing was written since.
    tail_since: float | None = None
    read_size: int = -1  # size on disk at the last read; another size means "read again"
    caught_up: bool = False  # the last read reached the end (not stopped by its byte budget)
    # Why the file could not be opened or read at the last try (permissions, I/O error, not a
    # regular file); tried again every round, so a ``chmod`` is enough. A plain default (a class
    # attribute), so states pickled before this field existed read as None.
    unreadable: str | None = None
    # (plugin, tag) -> each stored chunk (serial, entries, step bounds), in arrival order
    # (see IndexStore.append_chunk)
    chunks: dict[tuple[str, str], list[ChunkRef]] = field(default_factory=dict)
    # A remote file's version (ETag...) as last listed, and the digest of its bytes before
    # ``offset`` (see core/format/remote.py): what says an object store's file was replaced.
    # Plain defaults, so states pickled before these fields read as "" and None.
    version: str = ""
    prefix_digest: bytes | None = None

    @property
    def needs_reading(self) -> bool:
        return not self.caught_up or self.size != self.read_size


@dataclass
class JobState:
    """Everything the index knows about a job, except the large per-tag data."""

    train_id: str
    create_time: float = 0.0
    update_time: float = 0.0
    files: dict[str, FileState] = field(default_factory=dict)
    # plugin -> tag -> {file name: number of values}; tags keep first-seen order
    tags: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    graphs: list[GraphRecord] = field(default_factory=list)
    lineage: list[LineageRecord] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)  # files that disappeared from disk
    version: int = 0  # bumped on every change of the job's data
    loaded_once: bool = False  # every byte on disk was read at least once
    # Its profiler directory ("./profiler"), as discovery reports it; read on demand by the
    # profiler plugin, so a job holding only profiler data has nothing to load.
    profiler_dir: str | None = None
    profiler_type: str = ""  # "cpu", "gpu", "ascend"; "" without profiler data
    profiler_graph_mode: str = ""  # MindInsight's graph_mode: "static" / "dynamic" / ""
    # What the last listing of the job's directory could not use: entries that are not regular
    # files, entries that could not be stat-ed, the directory itself when it cannot be listed.
    # A tuple default (a class attribute): states pickled before this field read as ().
    problems: tuple[str, ...] = ()

    @property
    def bytes_read(self) -> int:
        return sum(f.offset for f in self.files.values())

    @property
    def bytes_on_disk(self) -> int:
        return sum(f.size for f in self.files.values())

    @property
    def status(self) -> str:
        if not self.files:  # nothing to read: profiler data, or only what could not be used
            return STATUS_LOADED if self.profiler_dir or self.problems else STATUS_PENDING
        if any(f.needs_reading for f in self.files.values()):
            return STATUS_LOADING if self.bytes_read else STATUS_PENDING
        return STATUS_LOADED

    def integrity_reasons(self, now: float) -> list[str]:
        """Why the job is not intact: damaged records, stale incomplete records or empty files,
        unreadable files, lost files, what its directory listing could not use. In the
        language of the current request (called when a page or answer is built)."""
        reasons = [localize_reason(problem) for problem in self.problems]
        for state in self.files.values():
            if state.unreadable is not None:
                reasons.append(
                    gettext("{file}: {reason}; tried again at every reload").format(
                        file=state.name, reason=localize_reason(state.unreadable)
                    )
                )
            for damage in state.damage:
                reasons.append(f"{state.name} @ {damage.offset}: {localize_reason(damage.reason)}")
            if state.tail_since is not None and now - state.tail_since >= STALE_TAIL_SECONDS:
                age = int(now - state.tail_since)
                if state.size == 0:
                    reasons.append(
                        gettext("{file}: empty file, unchanged for {seconds} s").format(
                            file=state.name, seconds=age
                        )
                    )
                else:
                    reasons.append(
                        gettext(
                            "{file} @ {offset}: incomplete last record, "
                            "unchanged for {seconds} s (truncated?)"
                        ).format(file=state.name, offset=state.offset, seconds=age)
                    )
        reasons.extend(
            gettext("{file}: file vanished; its data was dropped").format(file=name)
            for name in self.vanished
        )
        return reasons

    def integrity_hints(self, now: float) -> list[str]:
        """What may be damage but cannot be told yet: a last record that is incomplete and was
        written to less than :data:`STALE_TAIL_SECONDS` ago (a writer in the middle of a record,
        or a file cut short). Shown at once as a hint; after that time unchanged it becomes a
        reason of :meth:`integrity_reasons` (MindInsight waited 600 s and said nothing)."""
        hints = []
        for state in self.files.values():
            if (
                state.tail_since is not None
                and state.size > 0
                and now - state.tail_since < STALE_TAIL_SECONDS
            ):
                hints.append(
                    gettext(
                        "{file} @ {offset}: the last record is incomplete (still "
                        "being written, or the file was cut short); reported as "
                        "damage if unchanged for {seconds} s"
                    ).format(file=state.name, offset=state.offset, seconds=int(STALE_TAIL_SECONDS))
                )
        return hints
