"""Index summary records without materialising large values.

:class:`EventScanner` turns the records of one ``_MS`` file into

* per-tag scalar columns (step, wall time, float32 value: every point, in file order),
* per-tag references to large values (image, histogram, tensor, loss landscape) as
  (step, wall time, record offset, payload length, value index) plus small metadata, so that a
  value is decoded later, on demand, from its record (:func:`framing.read_record_at`),
* graph records, version strings and decode errors (with record offsets).

Fast path. MindSpore writes a data Event as ``09 <wall_time f64> 10 <step varint> 2A <len>
<Summary>`` and, for scalars, each ``Summary.Value`` as ``0A <len> 0A <taglen> <tag> 1D <f32>``.
Consecutive records of a training run usually carry the same tags in the same order, so their
Summary bytes are identical except for the 4 bytes of each float. The first such record is parsed
with protobuf (upb) and remembered as a *template* (its bytes with the floats masked out). A
later record whose Summary has the template's length and equals it on every unmasked byte has,
byte for byte, the same structure, so its floats are read straight from the template's offsets
with numpy. Anything else takes the protobuf path. The result is identical either way; the fast
path just skips building 200 Python objects per record.
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError as ProtoDecodeError

from dash_insight.core.format.events import (
    VALUE_FIELD_PLUGIN,
    DecodeError,
    data_type_name,
    from_buffer,
    parse_event,
)
from dash_insight.core.format.framing import Damage, Record
from dash_insight.core.format.protos import summary_pb2
from dash_insight.core.format.reasons import VALUE_HOLDS_NO_DATA
from dash_insight.core.vocabulary import PluginName

_WALL_TIME = struct.Struct("<d")
_MAX_TEMPLATES = 64  # distinct scalar-only layouts remembered per file
_MAX_TEMPLATE_TAGS = 100_000
_RECENT_TEMPLATES = 2  # templates tried as the prefix of records mixing scalars and others


@dataclass
class ScannedScalars:
    """Every point of one scalar tag in file order (the index stores them as
    :class:`~dash_insight.core.store.index.ScalarColumns`)."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    value: np.ndarray  # float32, exactly as stored

    def __len__(self) -> int:
        return len(self.step)


@dataclass
class ScannedBlobs:
    """Where each value of one large-value tag lives: ``offset``/``length`` locate the record,
    ``index`` the value inside its Summary; ``meta`` holds small per-value facts (image size,
    tensor dims and dtype, a loss landscape's grid and interval; None for histograms). Stored
    as :class:`~dash_insight.core.store.index.BlobColumns`."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    offset: np.ndarray  # int64
    length: np.ndarray  # int64
    index: np.ndarray  # int32
    meta: list[dict[str, Any] | None]

    def __len__(self) -> int:
        return len(self.step)

    @classmethod
    def from_refs(
        cls, refs: list[tuple[int, float, int, int, int]], meta: list[dict[str, Any] | None]
    ) -> ScannedBlobs:
        """The columns of ``refs``, one (step, wall time, offset, length, index) per value."""
        steps, walls, offsets, lengths, indexes = zip(*refs, strict=True)
        return cls(
            step=np.asarray(steps, dtype=np.int64),
            wall_time=np.asarray(walls, dtype=np.float64),
            offset=np.asarray(offsets, dtype=np.int64),
            length=np.asarray(lengths, dtype=np.int64),
            index=np.asarray(indexes, dtype=np.int32),
            meta=meta,
        )


@dataclass(frozen=True)
class GraphRef:
    offset: int
    length: int
    wall_time: float
    step: int


@dataclass
class ScanResult:
    """What :meth:`EventScanner.scan` found in a run of records."""

    scalars: dict[str, ScannedScalars] = field(default_factory=dict)
    blobs: dict[tuple[str, str], ScannedBlobs] = field(default_factory=dict)  # (plugin, tag)
    graphs: list[GraphRef] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    errors: list[Damage] = field(default_factory=list)
    events: int = 0


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    """Decode a protobuf varint at ``pos``; returns (value, position after it)."""
    result = 0
    shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise IndexError("varint too long")


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


#: Records a template gathers in Python lists before packing them into numpy blocks: a Python
#: int / float and a small array per record cost ~200 bytes where the packed columns cost
#: 20 + 4 per value, so a 128 MB slice of one-tag records (~3 million of them) held 1.66 GB
#: of lists (8,192 records of lists are ~2 MB).
_PACK_ROWS = 8192


class _Template:
    """Byte layout of a scalar-only Summary: everything but the float bytes must match."""

    __slots__ = (
        "blocks",
        "float_positions",
        "mask",
        "record",
        "rows",
        "skeleton",
        "step",
        "tags",
        "wall",
    )

    def __init__(self, summary: np.ndarray, float_offsets: list[int], tags: list[str]):
        positions = (np.asarray(float_offsets, dtype=np.intp)[:, None] + np.arange(4)).ravel()
        self.mask = np.full(len(summary), 0xFF, dtype=np.uint8)
        self.mask[positions] = 0
        self.skeleton = summary & self.mask
        self.float_positions = positions
        self.tags = tags
        self.record: list[int] = []
        self.step: list[int] = []
        self.wall: list[float] = []
        self.rows: list[np.ndarray] = []
        # Packed (record number, step, wall, float bytes of each record) of earlier records.
        self.blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def matches(self, summary: np.ndarray) -> bool:
        return bool(np.array_equal(summary & self.mask, self.skeleton))

    def add(self, number: int, step: int, wall: float, summary: np.ndarray) -> None:
        self.record.append(number)
        self.step.append(step)
        self.wall.append(wall)
        self.rows.append(summary[self.float_positions])
        if len(self.record) >= _PACK_ROWS:
            self._pack()

    def _pack(self) -> None:
        """Move the records gathered in lists into one numpy block."""
        if self.record:
            self.blocks.append(
                (
                    np.asarray(self.record, dtype=np.int64),
                    np.asarray(self.step, dtype=np.int64),
                    np.asarray(self.wall, dtype=np.float64),
                    np.vstack(self.rows),
                )
            )
            self.record, self.step, self.wall, self.rows = [], [], [], []

    def take(self) -> list[tuple[str, tuple[np.ndarray, ...]]]:
        """Per tag (in value order) the gathered (record number, step, wall, value) columns;
        empties the template's buffers."""
        self._pack()
        if not self.blocks:
            return []
        blocks, self.blocks = self.blocks, []
        numbers, steps, walls = (np.concatenate([block[i] for block in blocks]) for i in range(3))
        matrix = np.concatenate([block[3] for block in blocks]).view("<f4")  # (records, tags)
        del blocks
        return [
            (tag, (numbers, steps, walls, np.ascontiguousarray(matrix[:, column])))
            for column, tag in enumerate(self.tags)
        ]


def _data_event_layout(payload: memoryview) -> tuple[int, int, int, float] | None:
    """(step, Summary start, Summary length, wall time) when ``payload`` is laid out as MindSpore
    writes a data Event (wall_time, step, then the Summary up to the end), else None."""
    size = len(payload)
    try:
        if size > 11 and payload[0] == 0x09 and payload[9] == 0x10:
            step, pos = _varint(payload, 10)
            if payload[pos] == 0x2A:
                summary_len, start = _varint(payload, pos + 1)
                if start + summary_len == size and summary_len:
                    wall = _WALL_TIME.unpack_from(payload, 1)[0]
                    return _signed64(step), start, summary_len, wall
    except IndexError:
        pass
    return None


def _scalar_layout(summary: memoryview) -> tuple[list[int], list[str]] | None:
    """Float offsets and tags when ``summary`` is exactly a list of ``{tag, scalar_value}``
    values in MindSpore's field order; None for any other layout."""
    offsets: list[int] = []
    tags: list[str] = []
    pos, end = 0, len(summary)
    try:
        while pos < end:
            if summary[pos] != 0x0A:
                return None
            value_len, value_start = _varint(summary, pos + 1)
            value_end = value_start + value_len
            if summary[value_start] != 0x0A:
                return None
            tag_len, tag_start = _varint(summary, value_start + 1)
            tag_end = tag_start + tag_len
            if tag_end + 5 != value_end or summary[tag_end] != 0x1D:
                return None
            tags.append(bytes(summary[tag_start:tag_end]).decode("utf-8"))
            offsets.append(tag_end + 1)
            pos = value_end
    except (IndexError, UnicodeDecodeError):
        return None
    return (offsets, tags) if pos == end and offsets else None


def _axis_length(point: Any, axis: str) -> int:
    """Number of values of a landscape axis (its dims' product; 0 when absent)."""
    if not point.HasField(axis):
        return 0
    return math.prod(int(d) for d in getattr(point, axis).dims)


def _value_meta(plugin: str, value: Any) -> dict[str, Any] | None:
    """Small facts worth knowing without decoding the value; histograms need none."""
    if plugin == PluginName.IMAGE:
        image = value.image
        return {"height": image.height, "width": image.width}
    if plugin == PluginName.TENSOR:
        tensor = value.tensor
        return {"dims": list(tensor.dims), "data_type": data_type_name(tensor.data_type)}
    if plugin == PluginName.LOSS_LANDSCAPE:
        landscape = value.loss_landscape
        intervals = list(landscape.loss_path.intervals)
        grid = landscape.landscape
        return {
            "grid": [_axis_length(grid, "x"), _axis_length(grid, "y")],
            "interval": [intervals[0], intervals[-1]] if intervals else [],
            "points": len(intervals),
            "decomposition": landscape.metadata.decomposition,
            "unit": landscape.metadata.unit,
        }
    return None


class _Batch:
    """Points and references gathered by one :meth:`EventScanner.scan` call."""

    def __init__(self) -> None:
        self.result = ScanResult()
        # Scalars not read by a template, per tag: (record number, step, wall time, value).
        self.scalars: dict[str, tuple[list[int], list[int], list[float], list[float]]] = {}
        # Large values per (plugin, tag): (step, wall time, offset, length, index) and metadata.
        self.blobs: dict[
            tuple[str, str],
            tuple[list[tuple[int, float, int, int, int]], list[dict[str, Any] | None]],
        ] = {}

    def add_values(
        self, values: Any, number: int, record: Record, step: int, wall: float, first_index: int = 0
    ) -> bool:
        """Index protobuf ``Summary.Value``s; True when all of them were scalars."""
        all_scalar = True
        for index, value in enumerate(values, first_index):
            which = value.WhichOneof("value")
            if which == "scalar_value":
                columns = self.scalars.get(value.tag)
                if columns is None:
                    columns = self.scalars[value.tag] = ([], [], [], [])
                columns[0].append(number)
                columns[1].append(step)
                columns[2].append(wall)
                columns[3].append(value.scalar_value)
                continue
            all_scalar = False
            if which is None:
                self.result.errors.append(
                    Damage(record.offset, VALUE_HOLDS_NO_DATA.format(tag=repr(value.tag)))
                )
                continue
            key = (VALUE_FIELD_PLUGIN[which], value.tag)
            refs = self.blobs.get(key)
            if refs is None:
                refs = self.blobs[key] = ([], [])
            refs[0].append((step, wall, record.offset, len(record.payload), index))
            refs[1].append(_value_meta(key[0], value))
        return all_scalar


class EventScanner:
    """Scans the records of one summary file; keep one per file so templates are reused."""

    def __init__(self) -> None:
        self._templates: dict[int, list[_Template]] = {}  # by Summary length
        self._recent: list[_Template] = []  # last matched first; tried on mixed records' prefix
        self._template_count = 0

    def scan(self, records: Iterable[Record]) -> ScanResult:
        """Index ``records`` (in file order) into a :class:`ScanResult`."""
        batch = _Batch()
        for number, record in enumerate(records):
            batch.result.events += 1
            layout = _data_event_layout(record.payload)
            if layout is None or not self._scan_with_template(batch, number, record, layout):
                self._scan_with_protobuf(batch, number, record, layout)
        self._finish(batch)
        return batch.result

    def _scan_with_template(
        self, batch: _Batch, number: int, record: Record, layout: tuple[int, int, int, float]
    ) -> bool:
        """Read the scalars of a data Event through a template: the whole Summary, or a prefix
        of it followed by other values (parsed with protobuf). False if no template fits."""
        step, start, summary_len, wall = layout
        payload = record.payload
        summary = np.frombuffer(payload, np.uint8, summary_len, start)
        for template in self._templates.get(summary_len, ()):
            if template.matches(summary):
                template.add(number, step, wall, summary)
                return True
        for template in self._recent:
            prefix_len = len(template.skeleton)
            if (
                prefix_len < summary_len
                and summary[prefix_len] == 0x0A
                and template.matches(summary[:prefix_len])
            ):
                try:
                    rest = from_buffer(summary_pb2.Summary, payload[start + prefix_len :])
                except (ProtoDecodeError, RuntimeError):
                    return False
                template.add(number, step, wall, summary)
                batch.add_values(rest.value, number, record, step, wall, len(template.tags))
                if self._recent[0] is not template:
                    self._recent.remove(template)
                    self._recent.insert(0, template)
                return True
        return False

    def _scan_with_protobuf(
        self, batch: _Batch, number: int, record: Record, layout: tuple[int, int, int, float] | None
    ) -> None:
        payload = record.payload
        result = batch.result
        try:
            event = parse_event(payload)
        except DecodeError as error:
            result.errors.append(Damage(record.offset, str(error)))
            return
        kind = event.WhichOneof("what")
        if kind == "version":
            result.versions.append(event.version)
        elif kind == "graph_def":
            result.graphs.append(GraphRef(record.offset, len(payload), event.wall_time, event.step))
        elif kind == "summary":
            values = event.summary.value
            all_scalar = batch.add_values(values, number, record, event.step, event.wall_time)
            if all_scalar and layout is not None and self._template_count < _MAX_TEMPLATES:
                self._learn(payload, layout, [v.tag for v in values])
        # explain records are not part of a training job: nothing to index

    def _learn(
        self, payload: memoryview, layout: tuple[int, int, int, float], tags: list[str]
    ) -> None:
        _, start, summary_len, _ = layout
        found = _scalar_layout(payload[start : start + summary_len])
        if found is None or found[1] != tags or len(tags) > _MAX_TEMPLATE_TAGS:
            return
        summary = np.frombuffer(payload, np.uint8, summary_len, start).copy()
        template = _Template(summary, found[0], tags)
        self._templates.setdefault(summary_len, []).append(template)
        self._recent = [template, *self._recent[: _RECENT_TEMPLATES - 1]]
        self._template_count += 1

    def _finish(self, batch: _Batch) -> None:
        result = batch.result
        # Per tag, chunks of (record number, step, wall, value) from the protobuf path and from
        # each template; one record's values of a tag all come from one chunk, in order there.
        chunks: dict[str, list[tuple[np.ndarray, ...]]] = {}
        for tag, (numbers, steps, walls, values) in batch.scalars.items():
            chunks.setdefault(tag, []).append(
                (
                    np.asarray(numbers, dtype=np.int64),
                    np.asarray(steps, dtype=np.int64),
                    np.asarray(walls, dtype=np.float64),
                    np.asarray(values, dtype=np.float32),
                )
            )
        for candidates in self._templates.values():
            for template in candidates:
                for tag, chunk in template.take():
                    chunks.setdefault(tag, []).append(chunk)
        for tag, parts in chunks.items():
            parts.sort(key=lambda part: int(part[0][0]))
            if len(parts) == 1:
                _, step_column, wall_column, value_column = parts[0]
            elif all(int(a[0][-1]) < int(b[0][0]) for a, b in itertools.pairwise(parts)):
                # Each part's records follow the previous part's (the record that taught a
                # template, then the template's): joined as they are, no sort and no gather.
                step_column, wall_column, value_column = (
                    np.concatenate([p[i] for p in parts]) for i in (1, 2, 3)
                )
            else:
                order = np.argsort(np.concatenate([p[0] for p in parts]), kind="stable")
                step_column = np.concatenate([p[1] for p in parts])[order]
                wall_column = np.concatenate([p[2] for p in parts])[order]
                value_column = np.concatenate([p[3] for p in parts])[order]
            result.scalars[tag] = ScannedScalars(step_column, wall_column, value_column)
        for key, (refs, meta) in batch.blobs.items():
            result.blobs[key] = ScannedBlobs.from_refs(refs, meta)
