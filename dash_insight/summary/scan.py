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

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .events import VALUE_FIELD_PLUGIN, DecodeError, data_type_name, parse_event
from .framing import Damage, Record

_WALL_TIME = struct.Struct("<d")
_MAX_TEMPLATES = 64  # distinct scalar-only layouts remembered per file
_MAX_TEMPLATE_TAGS = 100_000


@dataclass
class ScalarColumns:
    """Every point of one scalar tag in file order."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    value: np.ndarray  # float32, exactly as stored

    def __len__(self) -> int:
        return len(self.step)


@dataclass
class BlobColumns:
    """Where each value of one large-value tag lives: ``offset``/``length`` locate the record,
    ``index`` the value inside its Summary; ``meta`` holds small per-value facts (image size,
    tensor dims and dtype, histogram counts)."""

    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    offset: np.ndarray  # int64
    length: np.ndarray  # int64
    index: np.ndarray  # int32
    meta: list[dict[str, Any]]

    def __len__(self) -> int:
        return len(self.step)


@dataclass(frozen=True)
class GraphRef:
    offset: int
    length: int
    wall_time: float
    step: int


@dataclass
class ScanResult:
    """What :meth:`EventScanner.scan` found in a run of records."""

    scalars: dict[str, ScalarColumns] = field(default_factory=dict)
    blobs: dict[tuple[str, str], BlobColumns] = field(default_factory=dict)  # (plugin, tag)
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


class _Template:
    """Byte layout of a scalar-only Summary: everything but the float bytes must match."""

    __slots__ = ("skeleton", "mask", "float_positions", "tags", "record", "step", "wall", "rows")

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

    def matches(self, summary: np.ndarray) -> bool:
        return bool(np.array_equal(summary & self.mask, self.skeleton))


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


class _BlobBuilder:
    __slots__ = ("step", "wall", "offset", "length", "index", "meta")

    def __init__(self) -> None:
        self.step: list[int] = []
        self.wall: list[float] = []
        self.offset: list[int] = []
        self.length: list[int] = []
        self.index: list[int] = []
        self.meta: list[dict[str, Any]] = []


def _value_meta(kind: str, value: Any) -> dict[str, Any]:
    if kind == "image":
        image = value.image
        return {"height": image.height, "width": image.width}
    if kind == "tensor":
        tensor = value.tensor
        return {"dims": list(tensor.dims), "data_type": data_type_name(tensor.data_type)}
    if kind == "histogram":
        histogram = value.histogram
        return {
            "count": histogram.count,
            "buckets": len(histogram.buckets),
            "nan_count": histogram.nan_count,
            "pos_inf_count": histogram.pos_inf_count,
            "neg_inf_count": histogram.neg_inf_count,
        }
    return {}


class EventScanner:
    """Scans the records of one summary file; keep one per file so templates are reused."""

    def __init__(self) -> None:
        self._templates: dict[int, list[_Template]] = {}
        self._template_count = 0

    def scan(self, records: Iterable[Record]) -> ScanResult:
        """Index ``records`` (in file order) into a :class:`ScanResult`."""
        result = ScanResult()
        # Slow-path scalar points per tag: (record number, step, wall time, value).
        slow: dict[str, tuple[list[int], list[int], list[float], list[float]]] = {}
        blobs: dict[tuple[str, str], _BlobBuilder] = {}
        templates = self._templates
        for number, record in enumerate(records):
            result.events += 1
            payload = record.payload
            size = len(payload)
            layout: tuple[int, int, int, float] | None = None  # (step, start, length, wall)
            try:
                if size > 11 and payload[0] == 0x09 and payload[9] == 0x10:
                    step, pos = _varint(payload, 10)
                    if payload[pos] == 0x2A:
                        summary_len, start = _varint(payload, pos + 1)
                        if start + summary_len == size:
                            wall = _WALL_TIME.unpack_from(payload, 1)[0]
                            layout = (_signed64(step), start, summary_len, wall)
            except IndexError:
                layout = None
            if layout is not None and layout[2] in templates:
                step, start, summary_len, wall = layout
                summary = np.frombuffer(payload, np.uint8, summary_len, start)
                for template in templates[summary_len]:
                    if template.matches(summary):
                        template.record.append(number)
                        template.step.append(step)
                        template.wall.append(wall)
                        template.rows.append(summary[template.float_positions])
                        break
                else:
                    template = None
                if template is not None:
                    continue
            self._scan_slow(record, number, layout, result, slow, blobs)
        self._finish(result, slow, blobs)
        return result

    def _scan_slow(
        self,
        record: Record,
        number: int,
        layout: tuple[int, int, int, float] | None,
        result: ScanResult,
        slow: dict[str, tuple[list[int], list[int], list[float], list[float]]],
        blobs: dict[tuple[str, str], _BlobBuilder],
    ) -> None:
        payload = record.payload
        try:
            event = parse_event(payload)
        except DecodeError as error:
            result.errors.append(Damage(record.offset, str(error)))
            return
        kind = event.WhichOneof("what")
        if kind == "version":
            result.versions.append(event.version)
            return
        if kind == "graph_def":
            result.graphs.append(GraphRef(record.offset, len(payload), event.wall_time, event.step))
            return
        if kind != "summary":
            return  # explain records are not part of a training job
        step, wall = event.step, event.wall_time
        all_scalar = True
        for index, value in enumerate(event.summary.value):
            which = value.WhichOneof("value")
            if which == "scalar_value":
                columns = slow.get(value.tag)
                if columns is None:
                    columns = slow[value.tag] = ([], [], [], [])
                columns[0].append(number)
                columns[1].append(step)
                columns[2].append(wall)
                columns[3].append(value.scalar_value)
                continue
            all_scalar = False
            if which is None:
                result.errors.append(Damage(record.offset, f"value {value.tag!r} holds no data"))
                continue
            plugin = VALUE_FIELD_PLUGIN[which]
            builder = blobs.get((plugin, value.tag))
            if builder is None:
                builder = blobs[(plugin, value.tag)] = _BlobBuilder()
            builder.step.append(step)
            builder.wall.append(wall)
            builder.offset.append(record.offset)
            builder.length.append(len(payload))
            builder.index.append(index)
            builder.meta.append(_value_meta(which, value))
        if all_scalar and layout is not None and self._template_count < _MAX_TEMPLATES:
            self._learn(payload, layout, [v.tag for v in event.summary.value])

    def _learn(self, payload: memoryview, layout: tuple[int, int, int, float],
               tags: list[str]) -> None:
        _, start, summary_len, _ = layout
        found = _scalar_layout(payload[start:start + summary_len])
        if found is None or found[1] != tags or len(tags) > _MAX_TEMPLATE_TAGS:
            return
        summary = np.frombuffer(payload, np.uint8, summary_len, start).copy()
        self._templates.setdefault(summary_len, []).append(_Template(summary, found[0], tags))
        self._template_count += 1

    def _finish(
        self,
        result: ScanResult,
        slow: dict[str, tuple[list[int], list[int], list[float], list[float]]],
        blobs: dict[tuple[str, str], _BlobBuilder],
    ) -> None:
        # Per tag, chunks of (record number, step, wall, value) from the slow path and from each
        # template; a record's values all come from one chunk source, in their order there.
        chunks: dict[str, list[tuple[np.ndarray, ...]]] = {}
        for tag, (numbers, steps, walls, values) in slow.items():
            chunks.setdefault(tag, []).append((
                np.asarray(numbers, dtype=np.int64),
                np.asarray(steps, dtype=np.int64),
                np.asarray(walls, dtype=np.float64),
                np.asarray(values, dtype=np.float32),
            ))
        for candidates in self._templates.values():
            for template in candidates:
                if not template.record:
                    continue
                numbers = np.asarray(template.record, dtype=np.int64)
                steps = np.asarray(template.step, dtype=np.int64)
                walls = np.asarray(template.wall, dtype=np.float64)
                matrix = np.vstack(template.rows).view("<f4")  # (records, tags)
                for column, tag in enumerate(template.tags):
                    chunks.setdefault(tag, []).append(
                        (numbers, steps, walls, np.ascontiguousarray(matrix[:, column]))
                    )
                template.record, template.step, template.wall, template.rows = [], [], [], []
        for tag, parts in chunks.items():
            if len(parts) == 1:
                _, steps, walls, values = parts[0]
            else:
                numbers = np.concatenate([p[0] for p in parts])
                order = np.argsort(numbers, kind="stable")
                steps = np.concatenate([p[1] for p in parts])[order]
                walls = np.concatenate([p[2] for p in parts])[order]
                values = np.concatenate([p[3] for p in parts])[order]
            result.scalars[tag] = ScalarColumns(steps, walls, values)
        for key, builder in blobs.items():
            result.blobs[key] = BlobColumns(
                step=np.asarray(builder.step, dtype=np.int64),
                wall_time=np.asarray(builder.wall, dtype=np.float64),
                offset=np.asarray(builder.offset, dtype=np.int64),
                length=np.asarray(builder.length, dtype=np.int64),
                index=np.asarray(builder.index, dtype=np.int32),
                meta=builder.meta,
            )
