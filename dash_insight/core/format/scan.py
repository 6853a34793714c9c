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

Runs. :meth:`EventScanner.scan_from` reads through :meth:`~.framing.RecordReader.read_runs`:
consecutive records of one size come as a :class:`~.framing.RecordRun` (checked together), and
the records of a run that equal a template's record on every byte but wall time, step and floats
are decoded together with numpy (a file of one scalar per step: 10M records in ~20 s, not
~400 s). Points go into numpy columns that grow by doubling, not per-record Python lists.

Mixed records. The values after a template's scalars (histograms, images...) are walked by hand
when laid out as MindSpore writes them (:func:`_walk_values`); histograms are then not parsed at
load (nothing of them is indexed), the rest goes through protobuf. Values of the size of those
walked in the record before are first compared with that walk's layout (:class:`_WalkLayout`:
the bytes the walk read, with numpy): a record holding the same bytes there has the same values.
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
from dash_insight.core.format.framing import Damage, Record, RecordReader, RecordRun
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


def _varint(buf: memoryview | bytes, pos: int) -> tuple[int, int]:
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


def _length(buf: bytes, pos: int) -> tuple[int, int]:
    """:func:`_varint`, inline for one or two bytes (most lengths in a ``Summary``)."""
    low = buf[pos]
    if low < 0x80:
        return low, pos + 1
    high = buf[pos + 1]
    if high < 0x80:
        return (low & 0x7F) | (high << 7), pos + 2
    return _varint(buf, pos)


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


#: Records gathered one at a time in Python lists before they are moved into the numpy
#: columns: a Python int / float and a small array per record cost ~200 bytes where the columns
#: cost 20 + 4 per value, so a 128 MB slice of one-tag records (~3 million of them) held
#: 1.66 GB of lists (8,192 records of lists are ~2 MB).
_PACK_ROWS = 8192
#: Rows of a :class:`~.framing.RecordRun` compared with a template at first; doubled while all
#: of them match.
_RUN_BLOCK_ROWS = 64


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    """``array`` with room for at least ``size`` rows (doubling: amortised O(1) a row)."""
    if len(array) >= size:
        return array
    grown = np.empty((max(size, 2 * len(array), 1024), *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def _trimmed(array: np.ndarray, size: int) -> np.ndarray:
    """The first ``size`` rows of ``array``, its spare rows given back (in place when numpy
    can, else copied when they are many)."""
    if len(array) == size:
        return array
    try:
        array.resize((size, *array.shape[1:]), refcheck=False)
        return array
    except ValueError:  # pragma: no cover - the array does not own its data
        return array[:size].copy() if len(array) > 2 * size else array[:size]


class _Columns:
    """Scalars of ``width`` tags per record, in numpy columns that grow by doubling: step and
    wall time per record, a (records, width) float32 matrix, and the records' numbers in the
    scan (ranges for runs, arrays for records added one at a time). Records added one at a time
    are gathered in lists first and moved into the columns every :data:`_PACK_ROWS`."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._reset()

    def _reset(self) -> None:
        width = self.width
        self.size = 0
        self.step = np.empty(0, dtype=np.int64)
        self.wall = np.empty(0, dtype=np.float64)
        self.value = np.empty((0, width), dtype=np.float32)
        self.numbers: list[np.ndarray | range] = []
        # Gathered one at a time: record number, step, wall time, the values (float32 bytes
        # of a template's record, or one Python float).
        self.record: list[int] = []
        self.steps: list[int] = []
        self.walls: list[float] = []
        self.rows: list[Any] = []

    def append(self, number: int, step: int, wall: float, row: Any) -> None:
        self.record.append(number)
        self.steps.append(step)
        self.walls.append(wall)
        self.rows.append(row)
        if len(self.record) >= _PACK_ROWS:
            self._pack()

    def extend(self, numbers: range, step: np.ndarray, wall: np.ndarray, value: np.ndarray) -> None:
        """Add records ``numbers`` (consecutive) at once; ``value`` is (records, width)."""
        self._pack()
        self._put(numbers, step, wall, value)

    def _put(
        self, numbers: np.ndarray | range, step: np.ndarray, wall: np.ndarray, value: np.ndarray
    ) -> None:
        size = self.size + len(step)
        self.step, self.wall, self.value = (
            _grown(self.step, size),
            _grown(self.wall, size),
            _grown(self.value, size),
        )
        self.step[self.size : size] = step
        self.wall[self.size : size] = wall
        self.value[self.size : size] = value
        last = self.numbers[-1] if self.numbers else None
        if isinstance(last, range) and isinstance(numbers, range) and last.stop == numbers.start:
            self.numbers[-1] = range(last.start, numbers.stop)
        else:
            self.numbers.append(numbers)
        self.size = size

    def _pack(self) -> None:
        """Move the records gathered in lists into the columns."""
        if not self.record:
            return
        if isinstance(self.rows[0], float):
            value = np.asarray(self.rows, dtype=np.float32).reshape(-1, self.width)
        else:  # concatenate, not vstack: vstack makes each row 2-D in a Python loop first
            value = np.concatenate(self.rows).view("<f4").reshape(-1, self.width)
        self._put(
            np.asarray(self.record, dtype=np.int64),
            np.asarray(self.steps, dtype=np.int64),
            np.asarray(self.walls, dtype=np.float64),
            value,
        )
        self.record, self.steps, self.walls, self.rows = [], [], [], []

    def take(self) -> tuple[list[np.ndarray | range], np.ndarray, np.ndarray, np.ndarray] | None:
        """(record numbers, step, wall, value matrix) of every record added, trimmed; empties
        the columns. None when there were none."""
        self._pack()
        if not self.size:
            return None
        taken = (
            self.numbers,
            _trimmed(self.step, self.size),
            _trimmed(self.wall, self.size),
            _trimmed(self.value, self.size),
        )
        self._reset()
        return taken


class _Template(_Columns):
    """Byte layout of a scalar-only Summary: everything but the float bytes must match."""

    def __init__(self, summary: np.ndarray, float_offsets: list[int], tags: list[str]):
        super().__init__(len(tags))
        positions = (np.asarray(float_offsets, dtype=np.intp)[:, None] + np.arange(4)).ravel()
        self.mask = np.full(len(summary), 0xFF, dtype=np.uint8)
        self.mask[positions] = 0
        self.skeleton = summary & self.mask
        self._skeleton_bytes = self.skeleton.tobytes()
        self._masked = np.empty_like(self.mask)  # scratch of matches()
        self.float_positions = positions
        self.tags = tags
        # Per (payload length, step varint length): what a whole data Event payload holding
        # this Summary must equal on every byte but the wall time, step and float bytes.
        self.payload_masks: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def matches(self, summary: np.ndarray) -> bool:
        """``summary`` (as long as the template) equals it on every byte but the floats."""
        np.bitwise_and(summary, self.mask, out=self._masked)
        return self._masked.tobytes() == self._skeleton_bytes

    def add(self, number: int, step: int, wall: float, summary: np.ndarray) -> None:
        self.append(number, step, wall, summary[self.float_positions])

    def payload_mask(
        self, payload: np.ndarray, start: int, step_bytes: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(mask, ``payload`` masked) for records laid out like ``payload``: a data Event whose
        step varint takes ``step_bytes`` and whose Summary, from ``start``, this template
        matched. A record equal to it on every byte but its wall time, step and floats (and
        whose step varint has the same length) has the same layout and matches too."""
        key = (len(payload), step_bytes)
        found = self.payload_masks.get(key)
        if found is None:
            mask = np.full(len(payload), 0xFF, dtype=np.uint8)
            mask[1:9] = 0  # wall time
            mask[10 : 10 + step_bytes] = 0
            mask[start + self.float_positions] = 0
            found = self.payload_masks[key] = (mask, payload & mask)
        return found

    def take_tags(self) -> list[tuple[str, tuple[Any, ...]]]:
        """Per tag (in value order) the gathered (record numbers, step, wall, value) columns;
        empties the template's columns."""
        taken = self.take()
        if taken is None:
            return []
        numbers, steps, walls, matrix = taken
        # One transposed copy: each tag's values are a contiguous row of it (a strided
        # column copied per tag cost twice as much).
        by_tag = np.ascontiguousarray(matrix.T)
        return [
            (tag, (numbers, steps, walls, by_tag[column])) for column, tag in enumerate(self.tags)
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


#: The plugin of each length-delimited ``Summary.Value`` oneof field, by its key byte (field
#: number << 3 | 2); plain strings, not the enum: compared per value in the scan's hot loop.
_VALUE_KEYS = {
    0x22: VALUE_FIELD_PLUGIN["image"],
    0x42: VALUE_FIELD_PLUGIN["tensor"],
    0x4A: VALUE_FIELD_PLUGIN["histogram"],
    0x52: VALUE_FIELD_PLUGIN["loss_landscape"],
}
_SCALAR = VALUE_FIELD_PLUGIN["scalar_value"]
_HISTOGRAM = VALUE_FIELD_PLUGIN["histogram"]
_SCALAR_KEY = 0x1D  # scalar_value: field 3, fixed32
_HISTOGRAM_KEY = 0x4A  # histogram: field 9, length-delimited
_FLOAT = struct.Struct("<f")

#: One ``Summary.Value`` walked by :func:`_walk_values`: tag, plugin, the float of a scalar
#: (else None), the value parsed when its metadata is needed (else None).
Walked = tuple[str, str, float | None, Any]


def _walk_values(summary: memoryview | bytes) -> list[Walked] | None:
    """The values of ``summary`` (a serialized ``Summary``) without parsing histograms, when
    every value is laid out as MindSpore writes it: ``0A <len> 0A <taglen> <tag>`` then exactly
    one field of the ``value`` oneof (a scalar's 4 bytes, or a message whose length ends the
    value). An image, tensor or loss landscape is parsed (its metadata is indexed); a histogram
    is not (nothing of it is indexed: it is parsed, and checked, when it is read, like every
    large value). None for any other layout (a tag that is not UTF-8, a value with unknown
    fields, no value or a repeated field, a parse error): the caller parses with protobuf."""
    summary = bytes(summary)  # one memcpy; indexing and slicing bytes beat a memoryview's
    walked: list[Walked] = []
    pos, end = 0, len(summary)
    try:
        while pos < end:
            if summary[pos] != 0x0A:
                return None
            value_len = summary[pos + 1]  # _length inline (a call costs what the rest does)
            if value_len < 0x80:
                value_start = pos + 2
            else:
                value_len, value_start = _length(summary, pos + 1)
            value_end = value_start + value_len
            if value_end > end or summary[value_start] != 0x0A:
                return None
            tag_len = summary[value_start + 1]
            if tag_len < 0x80:
                tag_start = value_start + 2
            else:
                tag_len, tag_start = _varint(summary, value_start + 1)
            tag_end = tag_start + tag_len
            if tag_end >= value_end:
                return None
            tag = summary[tag_start:tag_end].decode("utf-8")
            key = summary[tag_end]
            if key == _SCALAR_KEY:
                if tag_end + 5 != value_end:
                    return None
                walked.append((tag, _SCALAR, _FLOAT.unpack_from(summary, tag_end + 1)[0], None))
            elif key == _HISTOGRAM_KEY:  # _walk_message's histogram case, inline
                field_len, field_start = _length(summary, tag_end + 1)
                if field_start + field_len != value_end:
                    return None
                walked.append((tag, _HISTOGRAM, None, None))
            else:
                message = _walk_message(summary, tag, tag_end, value_start, value_end)
                if message is None:
                    return None
                walked.append(message)
            pos = value_end
    except (IndexError, UnicodeDecodeError, ProtoDecodeError, RuntimeError):
        return None
    return walked if pos == end else None


def _walk_message(
    summary: bytes, tag: str, tag_end: int, value_start: int, value_end: int
) -> Walked | None:
    """The value of ``summary[value_start:value_end]`` whose ``tag`` ends at ``tag_end``
    when it is one message field of the ``value`` oneof that ends the value (an image, tensor
    or loss landscape parsed for its metadata, a histogram not); None for anything else.
    Raises what :func:`_walk_values` catches."""
    plugin = _VALUE_KEYS.get(summary[tag_end])
    if plugin is None:
        return None
    field_len, field_start = _length(summary, tag_end + 1)
    if field_start + field_len != value_end:
        return None
    parsed = None
    if plugin != _HISTOGRAM:  # metadata to index: parse this value alone
        parsed = from_buffer(summary_pb2.Summary.Value, summary[value_start:value_end])
    return tag, plugin, None, parsed


#: Walk layouts (:class:`_WalkLayout`) remembered per file, and the most values one may hold
#: (its positions take ~8 bytes per header byte: at most ~1 MB each).
_MAX_WALK_LAYOUTS = 16
_MAX_WALK_LAYOUT_VALUES = 4096


class _WalkLayout:
    """Where :func:`_walk_values` read a ``size``-byte Summary: every value's header (its key
    and length, its tag's, the oneof field's key and, for a message, its length; the byte
    ``positions``) and what those bytes held (``expected``). The walk reads nothing else, so
    another Summary of that size holding the same bytes there walks the same way, to the same
    values but for the scalars' floats (``floats``: each scalar's place in the walk and the
    offset of its 4 bytes). Learnt from walks that parsed no value (a histogram or a scalar
    each): an image's, tensor's or landscape's metadata is parsed from its bytes."""

    def __init__(self, summary: bytes, walked: list[Walked]) -> None:
        ranges: list[np.ndarray] = []
        self.floats: list[tuple[int, int]] = []
        pos = 0
        for index in range(len(walked)):
            value_len, value_start = _length(summary, pos + 1)
            tag_len, tag_start = _varint(summary, value_start + 1)
            tag_end = tag_start + tag_len
            if summary[tag_end] == _SCALAR_KEY:
                header_end = tag_end + 1
                self.floats.append((index, header_end))
            else:
                header_end = _length(summary, tag_end + 1)[1]
            ranges.append(np.arange(pos, header_end))
            pos = value_start + value_len
        self.size = len(summary)
        self.positions = np.concatenate(ranges)
        self.expected = np.frombuffer(summary, np.uint8)[self.positions].tobytes()
        self.walked = walked

    def walk(self, summary: memoryview, array: np.ndarray) -> list[Walked] | None:
        """What :func:`_walk_values` gives for ``summary`` (``array``: its bytes as a numpy
        array) when it holds this layout's header bytes, else None."""
        if len(array) != self.size or array[self.positions].tobytes() != self.expected:
            return None
        if not self.floats:
            return self.walked
        walked = list(self.walked)
        for index, offset in self.floats:
            tag = walked[index][0]
            walked[index] = (tag, _SCALAR, _FLOAT.unpack_from(summary, offset)[0], None)
        return walked


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
        # Scalars not read by a template, per tag.
        self.scalars: dict[str, _Columns] = {}
        # Large values per (plugin, tag): (step, wall time, offset, length, index) and metadata.
        self.blobs: dict[
            tuple[str, str],
            tuple[list[tuple[int, float, int, int, int]], list[dict[str, Any] | None]],
        ] = {}
        # Records whose values after a template's scalars a walk layout read, per (layout, index
        # of its first value): (step, wall time, offset, length) once for all their large values.
        self.laid_out: dict[tuple[_WalkLayout, int], list[tuple[int, float, int, int]]] = {}

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
                    columns = self.scalars[value.tag] = _Columns(1)
                columns.append(number, step, wall, value.scalar_value)
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

    def add_walked(
        self,
        walked: list[Walked],
        number: int,
        record: Record,
        step: int,
        wall: float,
        first_index: int = 0,
    ) -> None:
        """Index the values :func:`_walk_values` found, as :meth:`add_values` would."""
        offset, length = record.offset, len(record.payload)
        scalars, blobs = self.scalars, self.blobs
        for index, (tag, plugin, scalar, parsed) in enumerate(walked, first_index):
            if scalar is not None:
                columns = scalars.get(tag)
                if columns is None:
                    columns = scalars[tag] = _Columns(1)
                columns.append(number, step, wall, scalar)
                continue
            refs = blobs.get((plugin, tag))
            if refs is None:
                refs = blobs[(plugin, tag)] = ([], [])
            refs[0].append((step, wall, offset, length, index))
            refs[1].append(None if parsed is None else _value_meta(plugin, parsed))

    def add_laid_out(
        self,
        layout: _WalkLayout,
        walked: list[Walked],
        number: int,
        record: Record,
        step: int,
        wall: float,
        first_index: int,
    ) -> None:
        """Index the values ``walked`` that ``layout`` read, as :meth:`add_walked` would: the
        record once for all its large values (:meth:`EventScanner._finish` expands them), its
        scalars one by one."""
        rows = self.laid_out.get((layout, first_index))
        if rows is None:
            rows = self.laid_out[(layout, first_index)] = []
            for tag, plugin, _, _ in walked:  # keys first seen here: kept in file order
                if plugin != _SCALAR:
                    self.blobs.setdefault((plugin, tag), ([], []))
        rows.append((step, wall, record.offset, len(record.payload)))
        for index, _ in layout.floats:
            tag, _, scalar, _ = walked[index]
            columns = self.scalars.get(tag)
            if columns is None:
                columns = self.scalars[tag] = _Columns(1)
            columns.append(number, step, wall, scalar)

    def finish_blobs(self) -> None:
        """Every large value's reference into :attr:`result`, per (plugin, tag) in file order
        (by record offset, then value index, where records read by a layout and others hold
        one tag)."""
        parts: dict[tuple[str, str], list[ScannedBlobs]] = {
            key: [ScannedBlobs.from_refs(refs, meta)] if refs else []
            for key, (refs, meta) in self.blobs.items()
        }
        for (layout, first_index), rows in self.laid_out.items():
            steps, walls, offsets, lengths = zip(*rows, strict=True)
            step, wall = np.asarray(steps, np.int64), np.asarray(walls, np.float64)
            offset, length = np.asarray(offsets, np.int64), np.asarray(lengths, np.int64)
            for index, (tag, plugin, _, _) in enumerate(layout.walked, first_index):
                if plugin != _SCALAR:
                    indexes = np.full(len(rows), index, dtype=np.int32)
                    blobs = ScannedBlobs(step, wall, offset, length, indexes, [None] * len(rows))
                    parts[(plugin, tag)].append(blobs)
        for key, pieces in parts.items():
            self.result.blobs[key] = pieces[0] if len(pieces) == 1 else _merged(pieces)


def _merged(pieces: list[ScannedBlobs]) -> ScannedBlobs:
    """The references of ``pieces`` (of one tag) together, in file order: by record offset,
    then value index."""
    offset = np.concatenate([p.offset for p in pieces])
    index = np.concatenate([p.index for p in pieces])
    order = np.lexsort((index, offset))
    meta = [m for p in pieces for m in p.meta]
    return ScannedBlobs(
        step=np.concatenate([p.step for p in pieces])[order],
        wall_time=np.concatenate([p.wall_time for p in pieces])[order],
        offset=offset[order],
        length=np.concatenate([p.length for p in pieces])[order],
        index=index[order],
        meta=[meta[i] for i in order.tolist()],
    )


class EventScanner:
    """Scans the records of one summary file; keep one per file so templates are reused."""

    def __init__(self) -> None:
        self._templates: dict[int, list[_Template]] = {}  # by Summary length
        self._recent: list[_Template] = []  # last matched first; tried on mixed records' prefix
        self._template_count = 0
        # The template that read (or learnt from) the whole Summary of the last record, and
        # where that Summary starts; None when the last record was anything else.
        self._matched: tuple[_Template, int] | None = None
        # Layouts of the values after a template's scalars, by size; the size of the values
        # walked last, -1 after a layout read them (a layout is learnt from the second of two
        # walks of one size in a row, so values of one size but two layouts in turn are
        # walked, not learnt each time).
        self._walk_layouts: dict[int, _WalkLayout] = {}
        self._walked_size = -1

    def scan_from(self, reader: RecordReader, max_bytes: int | None) -> ScanResult:
        """:meth:`scan` the records ``reader`` reads next (up to ``max_bytes``), runs of
        records of one size together (:meth:`~.framing.RecordReader.read_runs`)."""
        return self.scan(reader.read_runs(max_bytes))

    def scan(self, records: Iterable[Record | RecordRun]) -> ScanResult:
        """Index ``records`` (in file order; :class:`~.framing.RecordRun` s too, from
        :meth:`~.framing.RecordReader.read_runs`) into a :class:`ScanResult`."""
        batch = _Batch()
        number = 0
        for record in records:
            if isinstance(record, RecordRun):
                self._scan_run(batch, number, record)
                number += len(record)
            else:
                self._scan_record(batch, number, record)
                number += 1
        self._finish(batch)
        return batch.result

    def _scan_record(self, batch: _Batch, number: int, record: Record) -> None:
        batch.result.events += 1
        self._matched = None
        layout = _data_event_layout(record.payload)
        if layout is None or not self._scan_with_template(batch, number, record, layout):
            self._scan_with_protobuf(batch, number, record, layout)

    def _scan_run(self, batch: _Batch, number: int, run: RecordRun) -> None:
        """Scan a run of records of one size: a record at a time until one is read whole by a
        template, then the records after it that equal it but for wall time, step and floats
        all at once (in blocks that double while all of them match)."""
        payloads = run.payloads
        count = len(payloads)
        row = 0
        while row < count:
            self._scan_record(batch, number + row, run.record(row))
            row += 1
            if self._matched is None or row == count:
                continue
            template, start = self._matched
            _, step_end = _varint(memoryview(payloads[row - 1]), 10)
            step_bytes = step_end - 10
            if step_bytes >= 10:  # a negative step: left to the record-at-a-time path
                continue
            mask, expected = template.payload_mask(payloads[row - 1], start, step_bytes)
            block = _RUN_BLOCK_ROWS
            while row < count:
                part = payloads[row : row + block]
                same = ((part & mask) == expected).all(axis=1)
                if step_bytes > 1:
                    same &= (part[:, 10 : 9 + step_bytes] >= 0x80).all(axis=1)
                same &= part[:, 9 + step_bytes] < 0x80
                matching = len(part) if same.all() else int(np.argmin(same))
                if matching:
                    self._add_rows(
                        template,
                        range(number + row, number + row + matching),
                        part[:matching],
                        start,
                        step_bytes,
                    )
                    batch.result.events += matching
                    row += matching
                if matching < len(part):
                    break
                block *= 2

    @staticmethod
    def _add_rows(
        template: _Template, numbers: range, rows: np.ndarray, start: int, step_bytes: int
    ) -> None:
        """Add data Event payloads ``rows`` (laid out as :meth:`_Template.payload_mask` says)
        to ``template``: step varints and wall times decoded and floats read, with numpy."""
        step = np.zeros(len(rows), dtype=np.uint64)
        for k in range(step_bytes):
            step |= (rows[:, 10 + k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        wall = np.ascontiguousarray(rows[:, 1:9]).view("<f8").ravel()
        value = np.ascontiguousarray(rows[:, start + template.float_positions]).view("<f4")
        template.extend(numbers, step.view(np.int64), wall, value)

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
                self._matched = (template, start)
                return True
        for template in self._recent:
            prefix_len = len(template.skeleton)
            if (
                prefix_len < summary_len
                and summary[prefix_len] == 0x0A
                and template.matches(summary[:prefix_len])
            ):
                found = self._walk(payload[start + prefix_len :], summary[prefix_len:])
                first_index = len(template.tags)
                if found is not None:
                    walked, walk_layout = found
                    template.add(number, step, wall, summary)
                    if walk_layout is None:
                        batch.add_walked(walked, number, record, step, wall, first_index)
                    else:
                        batch.add_laid_out(
                            walk_layout, walked, number, record, step, wall, first_index
                        )
                else:
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

    def _walk(
        self, values: memoryview, array: np.ndarray
    ) -> tuple[list[Walked], _WalkLayout | None] | None:
        """:func:`_walk_values` of the serialized values ``values`` (``array``: the same bytes
        in numpy), through a :class:`_WalkLayout` of their size when one fits (a few numpy
        operations, not a Python loop over the values), else walked; learns the layout of the
        second of two walks of one size in a row. Gives the values and the layout that read
        them (None: walked); None when the values are not walkable."""
        size = len(values)
        layout = self._walk_layouts.get(size)
        if layout is not None:
            walked = layout.walk(values, array)
            if walked is not None:
                self._walked_size = -1
                return walked, layout
        walked = _walk_values(values)
        if (
            walked is not None
            and size == self._walked_size
            and len(self._walk_layouts) < _MAX_WALK_LAYOUTS
            and len(walked) <= _MAX_WALK_LAYOUT_VALUES
            and all(parsed is None for _, _, _, parsed in walked)
        ):
            self._walk_layouts[size] = _WalkLayout(bytes(values), walked)
        self._walked_size = size
        return None if walked is None else (walked, None)

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
        self._matched = (template, start)

    def _finish(self, batch: _Batch) -> None:
        result = batch.result
        # Per tag, parts of (record numbers, step, wall, value) from the protobuf path and from
        # each template; one record's values of a tag all come from one part, in order there.
        parts_of: dict[str, list[tuple[Any, ...]]] = {}
        for tag, columns in batch.scalars.items():
            taken = columns.take()
            if taken is not None:
                numbers, steps, walls, values = taken
                parts_of.setdefault(tag, []).append((numbers, steps, walls, values.ravel()))
        for candidates in self._templates.values():
            for template in candidates:
                for tag, part in template.take_tags():
                    parts_of.setdefault(tag, []).append(part)
        for tag, parts in parts_of.items():
            parts.sort(key=lambda part: int(part[0][0][0]))
            if len(parts) == 1:
                _, step_column, wall_column, value_column = parts[0]
            elif all(int(a[0][-1][-1]) < int(b[0][0][0]) for a, b in itertools.pairwise(parts)):
                # Each part's records follow the previous part's (the record that taught a
                # template, then the template's): joined as they are, no sort and no gather.
                step_column, wall_column, value_column = (
                    np.concatenate([p[i] for p in parts]) for i in (1, 2, 3)
                )
            else:
                order = np.argsort(
                    np.concatenate([_record_numbers(p[0]) for p in parts]), kind="stable"
                )
                step_column = np.concatenate([p[1] for p in parts])[order]
                wall_column = np.concatenate([p[2] for p in parts])[order]
                value_column = np.concatenate([p[3] for p in parts])[order]
            result.scalars[tag] = ScannedScalars(step_column, wall_column, value_column)
        batch.finish_blobs()


def _record_numbers(numbers: list[np.ndarray | range]) -> np.ndarray:
    """The record numbers of a part, as one int64 array."""
    return np.concatenate(
        [np.arange(n.start, n.stop, dtype=np.int64) if isinstance(n, range) else n for n in numbers]
    )
