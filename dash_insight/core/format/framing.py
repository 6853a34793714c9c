"""TFRecord framing of MindSpore summary and lineage files, with both masked CRC32C checks.

Every record on disk is::

    uint64 LE  payload length
    uint32 LE  masked CRC32C of those 8 length bytes
    bytes      payload (a serialized protobuf message)
    uint32 LE  masked CRC32C of the payload

``masked_crc(x) = ((crc >> 15) | (crc << 17)) + 0xA282EAD8 (mod 2**32)``, ``crc = CRC-32C(x)``
(TensorFlow's ``tfrecord`` masking, which MindSpore's C++ ``EventWriter`` uses).

Reading is incremental: :class:`RecordReader` remembers the offset of the first byte it has not
consumed, so a file that is still being written is continued on the next call. An incomplete
record at the end of the file is *not* damage (the writer may not have finished it); it is left
for the next call and described in :attr:`ReadResult.tail`. Damage never raises:

* payload CRC mismatch: that one record is dropped, reported with its offset, reading goes on;
* length CRC mismatch (framing lost): reported, then the reader scans forward for the next offset
  whose 12 header bytes carry a valid length CRC (and whose payload CRC matches when the payload
  is already on disk) and resumes there; if no such offset exists yet, the scan position is kept
  so a growing file is scanned further later;
* a length above the reader's limit (:data:`MAX_PAYLOAD_BYTES` unless told otherwise, the server's
  ``--max-record-bytes``) with a valid length CRC: reported, and skipped by seeking past it, so
  a header claiming 1 GiB costs nothing to read (the limit bounds the memory reading takes);
* a length that runs past the end of the file while a complete, intact record starts after the
  header: not a tail still being written (a writer only appends, so a prefix of a good file never
  holds a complete record after an incomplete one): reported, reading resumes at that record.

A file that is not a regular one (a FIFO, a device) or cannot be opened or read is no damage of
its data: :attr:`ReadResult.error` says why, so a caller can try again later. A reader given the
file's ``inode`` reads nothing when the path now names another file, or one shorter than the
resume offset (:attr:`ReadResult.replaced`): its offset belongs to the old file.

MindInsight never checked either CRC; TensorBoard checks the length CRC always and the payload
CRC only when parsing fails. We check both: with a C CRC32C (~12 GB/s here) it costs nothing.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import BinaryIO, cast

import google_crc32c
import numpy as np

from dash_insight.core.format.files import file_size, handle_stat, open_regular
from dash_insight.core.format.reasons import (
    CANNOT_READ_FILE,
    HEADER_CRC,
    OVERSIZED,
    PAYLOAD_CRC,
    RUNS_PAST_END,
)
from dash_insight.core.format.remote import (
    SCAN_BLOCK_BYTES,
    RangeCache,
    RemoteFile,
    is_url,
    prefix_digest,
    read_range,
)

if google_crc32c.implementation != "c":  # pragma: no cover - depends on the wheel installed
    import warnings

    warnings.warn(
        "google-crc32c runs its pure-Python fallback: reading summary files will be slow",
        RuntimeWarning,
        stacklevel=1,
    )

HEADER_BYTES = 12
FOOTER_BYTES = 4
FRAME_OVERHEAD = HEADER_BYTES + FOOTER_BYTES
#: Larger payloads are reported and skipped without being read: the default of a reader's limit
#: and of the server's ``--max-record-bytes``. A record is held in memory whole while it is
#: checked and decoded (two to four times its size at the peak), so this bounds what one record
#: can cost. MindInsight skipped payloads above 500,000,000 bytes. MindSpore writes every value
#: of a step into one record, and a tensor of MindInsight's 10,000,000-value limit alone takes
#: ~40 MB: 128 MiB leaves room for two or three of them in one step.
MAX_PAYLOAD_BYTES = 128 << 20
#: Bytes read from disk at a time (MindInsight used 24 MiB).
CHUNK_BYTES = 16 << 20
#: The smallest read once a call's ``max_bytes`` is nearly consumed (the rest of its last
#: record).
MIN_READ_BYTES = 64 << 10
#: Candidate positions :func:`_find_header` filters at a time.
FIND_WINDOW_BYTES = 1 << 20

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """Masked CRC-32C of ``data``: ``((crc >> 15) | (crc << 17)) + 0xA282EAD8`` mod 2**32."""
    # google_crc32c refuses memoryviews and bytearrays but takes numpy arrays; this view copies
    # nothing.
    crc = google_crc32c.value(
        data if isinstance(data, bytes) else np.frombuffer(data, dtype=np.uint8)
    )
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def frame_record(payload: bytes) -> bytes:
    """Frame ``payload`` as one TFRecord: length, length CRC, payload, payload CRC."""
    length = struct.pack("<Q", len(payload))
    return b"".join(
        (
            length,
            _FOOTER.pack(masked_crc32c(length)),
            payload,
            _FOOTER.pack(masked_crc32c(payload)),
        )
    )


#: The 4 CRC bytes that follow the 8 zero length bytes of an empty record.
_EMPTY_LENGTH_CRC = _FOOTER.pack(masked_crc32c(bytes(8)))


@lru_cache(maxsize=1024)
def _length_crc(length: int) -> int:
    """The masked CRC-32C of the 8 bytes of ``length`` (uint64 LE): what a header holding that
    length must carry. Cached: most files hold records of few lengths."""
    return masked_crc32c(struct.pack("<Q", length))


def _intact_header(length: int) -> bytes:
    """The 12 header bytes of an intact record of ``length`` payload bytes."""
    return _HEADER.pack(length, _length_crc(length))


#: Rows whose CRCs :func:`masked_crc32c_rows` computes at a time (bounds its scratch arrays).
_CRC_BLOCK_ROWS = 1 << 16


@lru_cache(maxsize=4096)
def _crc_column_table(size: int, column: int) -> np.ndarray:
    """What byte ``b`` at ``column`` of a ``size``-byte message adds to its CRC-32C (XOR):
    ``crc(m) = crc(0...0) ^ table[0][m[0]] ^ table[1][m[1]] ^ ...`` (a CRC is affine over
    GF(2)). Built from the 8 one-bit messages: 256 uint32."""
    zero = google_crc32c.value(bytes(size))
    message = bytearray(size)
    bits = []
    for bit in range(8):
        message[column] = 1 << bit
        bits.append(google_crc32c.value(bytes(message)) ^ zero)
    table = np.zeros(256, dtype=np.uint32)
    byte = np.arange(256)
    for bit, value in enumerate(bits):
        table[(byte >> bit) & 1 == 1] ^= np.uint32(value)
    return table


def masked_crc32c_rows(rows: np.ndarray) -> np.ndarray:
    """:func:`masked_crc32c` of each row of ``rows`` (uint8, one message per row, all of one
    length), vectorised: the first row's CRC, then per column where some row differs from it,
    the difference looked up in that column's table (:func:`_crc_column_table`). Records of a
    run differ in a few bytes (step, wall time, floats), so this costs a few lookups per row."""
    count, size = rows.shape
    out = np.empty(count, dtype=np.uint32)
    if count == 0:
        return out
    first = np.ascontiguousarray(rows[0])
    base = np.uint32(google_crc32c.value(first))
    for start in range(0, count, _CRC_BLOCK_ROWS):
        block = rows[start : start + _CRC_BLOCK_ROWS]
        columns = np.flatnonzero((block != first).any(axis=0)).tolist()
        if len(columns) > len(block) // 8 + 8:  # few records, many bytes changing: one by one
            out[start : start + len(block)] = [google_crc32c.value(row) for row in block]
            continue
        crc = np.full(len(block), base, dtype=np.uint32)
        for column in columns:
            table = _crc_column_table(size, column)
            crc ^= table[block[:, column]] ^ table[first[column]]
        out[start : start + len(block)] = crc
    rotated = (out >> np.uint32(15)) | (out << np.uint32(17))
    return rotated + np.uint32(_MASK_DELTA)  # uint32 arithmetic: mod 2**32


@dataclass(frozen=True)
class Record:
    """One intact record: ``offset`` of its header in the file and its ``payload`` bytes."""

    offset: int
    payload: memoryview

    @property
    def frame_bytes(self) -> int:
        """Bytes the record takes on disk, header and footer included."""
        return len(self.payload) + FRAME_OVERHEAD


@dataclass(frozen=True)
class RecordRun:
    """Consecutive intact records of one frame size (:meth:`RecordReader.read_runs`): ``rows``
    is a (records, frame bytes) uint8 view of their frames, header and footer included, the
    first starting at file ``offset``; ``payloads`` their payloads (one per row)."""

    offset: int
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def payloads(self) -> np.ndarray:
        return self.rows[:, HEADER_BYTES:-FOOTER_BYTES]

    def record(self, row: int) -> Record:
        """Row ``row`` as a :class:`Record`."""
        frame = self.rows.shape[1]
        return Record(self.offset + row * frame, memoryview(self.payloads[row]))


#: Records checked at first in a run (doubled while all of them are intact).
MIN_RUN_RECORDS = 32
#: A run is tried once this many records in a row had one header (one size).
RUN_AFTER_RECORDS = 8


@dataclass(frozen=True)
class Damage:
    """A damaged place in a file: the ``offset`` where it starts and a human ``reason``."""

    offset: int
    reason: str


@dataclass(frozen=True)
class Tail:
    """An incomplete record at the end of the file: ``have`` of ``need`` bytes are on disk."""

    offset: int
    have: int
    need: int | None  # None while even the 12 header bytes are incomplete


@dataclass
class ReadResult:
    """What one :meth:`RecordReader.read` call found after the records it yielded."""

    records: int = 0
    bytes_consumed: int = 0
    #: The file offset of the first record yielded (None: none was); where a reader that
    #: started with framing lost found it again, not part of what the call found.
    first_offset: int | None = field(default=None, compare=False)
    damage: list[Damage] = field(default_factory=list)
    tail: Tail | None = None
    #: The file could not be opened or read (also one of :attr:`damage`, for callers that only
    #: report); reading stopped after the records yielded.
    error: Damage | None = None
    #: The path names another file than the reader's ``inode``, or a file shorter than the
    #: resume offset: nothing was read.
    replaced: bool = False


def _find_header(
    buf: memoryview, start: int, end: int, max_payload: int, complete: bool = False
) -> int:
    """First ``p`` in ``[start, end - 12]`` whose 8 length bytes match their masked CRC, else -1;
    with ``complete``, only a record whose payload and payload CRC are inside ``buf[:end]``.

    Candidates are pre-filtered with numpy on a plausible length (length <= ``max_payload``, so
    the upper length bytes are zero; a zero length only when the CRC bytes of an empty record
    follow), which keeps the scan of large garbage or zero-filled regions fast. When the whole
    payload is inside ``buf`` its CRC must match too: a random window passes the length CRC
    with probability 2**-32, and this rules those out. The buffer is searched in windows of
    :data:`FIND_WINDOW_BYTES` (the filter's masks cost ~5 bytes per byte searched, and a
    header is usually found near ``start``: a load worker starting a piece mid-file).
    """
    limit = end - HEADER_BYTES
    for first in range(start, limit + 1, FIND_WINDOW_BYTES):
        found = _find_header_in(
            buf, first, min(limit, first + FIND_WINDOW_BYTES - 1), end, max_payload, complete
        )
        if found >= 0:
            return found
    return -1


def _find_header_in(
    buf: memoryview, start: int, last: int, end: int, max_payload: int, complete: bool
) -> int:
    """:func:`_find_header` for the candidates ``start .. last`` (``last + 12 <= end``)."""
    n = last - start + 1
    window = np.frombuffer(buf, dtype=np.uint8, count=n + HEADER_BYTES - 1, offset=start)
    top = (max_payload.bit_length() - 1) // 8  # most significant byte of the limit
    plausible = window[top : n + top] <= (max_payload >> (8 * top))
    for k in range(top + 1, 8):
        plausible &= window[k : n + k] == 0
    nonzero = window[0:n] != 0
    for k in range(1, top + 1):
        nonzero |= window[k : n + k] != 0
    empty = window[8 : n + 8] == _EMPTY_LENGTH_CRC[0]
    for k in range(1, 4):
        empty &= window[8 + k : n + 8 + k] == _EMPTY_LENGTH_CRC[k]
    plausible &= nonzero | empty
    for rel in np.flatnonzero(plausible).tolist():
        p = start + rel
        length, length_crc = _HEADER.unpack_from(buf, p)
        if length > max_payload or masked_crc32c(buf[p : p + 8]) != length_crc:
            continue
        body_end = p + HEADER_BYTES + length
        if complete and body_end + FOOTER_BYTES > end:
            continue
        if body_end + FOOTER_BYTES <= end:
            (payload_crc,) = _FOOTER.unpack_from(buf, body_end)
            if masked_crc32c(buf[p + HEADER_BYTES : body_end]) != payload_crc:
                continue
        return p
    return -1


class RecordReader:
    """Incremental reader of one framed file.

    ``offset`` is where the next :meth:`read` starts; persist it to resume after a restart.
    ``lost_at`` is the offset where framing was lost while the reader is still looking for the
    next valid header, else None (part of the resume state too). ``inode``: the file the offset
    belongs to (None: whatever the path names). :attr:`stat` is the opened file's ``fstat``.
    ``max_payload``: longer records are reported and skipped unread (default
    :data:`MAX_PAYLOAD_BYTES`).

    A remote file (a URL, :mod:`.remote`) has no inode: ``prefix_digest``, the
    :func:`~.remote.prefix_digest` of the bytes before ``offset`` kept from the last read, says
    whether it is still the file the offset belongs to (else :attr:`ReadResult.replaced`);
    afterwards :attr:`prefix_digest` is that of the new offset (None for a local file).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        offset: int = 0,
        lost_at: int | None = None,
        inode: int | None = None,
        max_payload: int | None = None,
        prefix_digest: bytes | None = None,
    ):
        self.path = os.fspath(path)
        self.offset = offset
        self.lost_at = lost_at
        self.inode = inode
        self.max_payload = MAX_PAYLOAD_BYTES if max_payload is None else max_payload
        self.stat: os.stat_result | None = None
        self.prefix_digest = prefix_digest
        self.result = ReadResult()

    def read(self, max_bytes: int | None = None) -> Iterator[Record]:
        """Yield the intact records from :attr:`offset` on; afterwards :attr:`result` describes
        the call (damage found, incomplete tail) and :attr:`offset` is the resume point.

        ``max_bytes`` bounds the bytes consumed in this call (at least one record is returned
        when one is available), so a loader can interleave many files fairly.
        """
        return cast(Iterator[Record], self._read(max_bytes, runs=False))

    def read_runs(self, max_bytes: int | None = None) -> Iterator[Record | RecordRun]:
        """:meth:`read`, but consecutive intact records of one frame size come as one
        :class:`RecordRun` (checked together with numpy: identical headers, each payload CRC by
        :func:`masked_crc32c_rows`), as many as are buffered, once :data:`RUN_AFTER_RECORDS`
        records in a row had one size; the same records, damage and resume point as
        :meth:`read`."""
        return self._read(max_bytes, runs=True)

    def _read(self, max_bytes: int | None, runs: bool) -> Iterator[Record | RecordRun]:
        self.result = ReadResult()
        try:
            with open_regular(self.path, block_size=SCAN_BLOCK_BYTES) as handle:
                self.stat = handle_stat(handle)
                if self.inode is not None and (
                    self.stat.st_ino != self.inode or self.stat.st_size < self.offset
                ):
                    self.result.replaced = True
                    return
                if isinstance(handle, RemoteFile):
                    yield from self._read_remote(handle, max_bytes, runs)
                else:
                    yield from self._read_open(handle, max_bytes, runs)
        except OSError as error:
            self.result.error = Damage(
                self.offset, CANNOT_READ_FILE.format(error=error.strerror or error)
            )
            self.result.damage.append(self.result.error)

    def _read_remote(
        self, handle: RemoteFile, max_bytes: int | None, runs: bool
    ) -> Iterator[Record | RecordRun]:
        """:meth:`_read_open` on a remote file, checking and then renewing
        :attr:`prefix_digest` (two small ranged reads each)."""
        start = self.offset
        if (
            start > 0
            and self.prefix_digest is not None
            and prefix_digest(handle, start) != self.prefix_digest
        ):
            self.result.replaced = True
            return
        yield from self._read_open(handle, max_bytes, runs)  # type: ignore[arg-type]
        if self.offset != start or self.prefix_digest is None:
            self.prefix_digest = prefix_digest(handle, self.offset) if self.offset else None

    def _read_open(
        self, handle: BinaryIO, max_bytes: int | None, runs: bool
    ) -> Iterator[Record | RecordRun]:
        result = self.result
        window = _Window(handle, self.offset, max_bytes)
        # ``bound``: the window offset (base + pos) where the call has consumed ``max_bytes``.
        bound = None if max_bytes is None else window.start + max_bytes
        # With ``runs``: the payload length of the last intact record once
        # :data:`RUN_AFTER_RECORDS` records in a row had it (intact records of one length have
        # one header); a run is tried from there (a file whose record sizes keep changing never
        # tries one).
        run_length: int | None = None
        last_length, streak = -1, 0
        while bound is None or not result.records or window.base + window.pos < bound:
            if self.lost_at is not None and not self._resync(window):
                break
            if run_length is not None:
                run = self._take_run(window, _intact_header(run_length))
                if run is not None:
                    yield run
                run_length, streak = None, 0
                continue
            record = self._next_record(window)
            if record is None:
                break
            if record is _DAMAGED:
                continue
            if runs:
                length = len(record.payload)
                streak = streak + 1 if length == last_length else 1
                last_length = length
                run_length = length if streak >= RUN_AFTER_RECORDS else None
            # Advance before yielding: a caller that stops early resumes after this record.
            self.offset = window.base + window.pos
            yield record
        self.offset = window.offset
        result.bytes_consumed = window.consumed

    def _resync(self, window: _Window) -> bool:
        """After framing was lost: scan what is buffered for the next valid header, refilling
        until one is found (True, reading goes on from it) or the file ends (False; a later
        call goes on from the last 11 bytes: the file may be growing)."""
        if not window.fill(HEADER_BYTES):
            return False
        while True:
            found = _find_header(window.buf, window.pos, len(window.buf), self.max_payload)
            if found >= 0:
                window.pos = found
                self.lost_at = None
                return True
            window.pos = max(window.pos, len(window.buf) - HEADER_BYTES + 1)
            if not window.fill(HEADER_BYTES):
                return False

    def _take_run(self, window: _Window, header: bytes) -> RecordRun | None:
        """The intact records from the window's position on that have ``header``
        (:func:`_run_rows`) as one :class:`RecordRun`; None when the next one has not."""
        rows = _run_rows(window.buf, window.pos, header, window.consumed, window.max_bytes)
        if not len(rows):
            return None
        result = self.result
        result.records += len(rows)
        if result.first_offset is None:  # pragma: no cover - a run follows records
            result.first_offset = window.offset
        window.pos += rows.size
        self.offset = window.offset
        return RecordRun(self.offset - rows.size, rows)

    def _next_record(self, window: _Window) -> Record | None:
        """The record at the window's position, checked, the window moved past it; None
        where reading stops (the end of what is written: :attr:`ReadResult.tail` says what
        is left), :data:`_DAMAGED` for a damaged frame (recorded in :attr:`result`, the
        window moved to where reading goes on)."""
        # Once per record: the window's attributes are read into locals, and the fill calls
        # are made only when the buffer runs short (a method call costs what the rest does).
        result, buf, pos = self.result, window.buf, window.pos
        record_offset = window.base + pos
        if len(buf) - pos < HEADER_BYTES:
            if not window.fill(HEADER_BYTES):
                have = len(window.buf) - window.pos
                if have:
                    result.tail = Tail(record_offset, have, None)
                return None
            buf, pos = window.buf, window.pos
        length, length_crc = _HEADER.unpack_from(buf, pos)
        if _length_crc(length) != length_crc:
            result.damage.append(Damage(record_offset, HEADER_CRC))
            self.lost_at = record_offset
            window.pos += 1
            return _DAMAGED
        frame = FRAME_OVERHEAD + length
        if length > self.max_payload:
            return self._past_end(window, length)
        if len(buf) - pos < frame:
            if not window.fill(frame):
                return self._past_end(window, length)
            buf, pos = window.buf, window.pos
        start = pos + HEADER_BYTES
        end = start + length
        (payload_crc,) = _FOOTER.unpack_from(buf, end)
        window.pos = end + FOOTER_BYTES
        # google_crc32c takes the window's numpy array, not its memoryview: a slice of it is
        # a view, where np.frombuffer of a memoryview slice costs twice the CRC of 4 KB.
        crc = google_crc32c.value(window.array[start:end])
        if ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32 != payload_crc:
            result.damage.append(Damage(record_offset, PAYLOAD_CRC))
            return _DAMAGED
        result.records += 1
        if result.first_offset is None:
            result.first_offset = record_offset
        return Record(record_offset, buf[start:end])

    def _past_end(self, window: _Window, length: int) -> Record | None:
        """A frame of ``length`` payload bytes at the window's position that is longer than
        :attr:`max_payload` or not all written: skipped unread when the file holds it
        (:data:`_DAMAGED`); else, when a complete record follows it, damage up to that one
        (:data:`_DAMAGED`), or a tail that may still be being written (None)."""
        result, record_offset = self.result, window.offset
        frame = FRAME_OVERHEAD + length
        if length > self.max_payload:
            size = handle_stat(window.handle).st_size
            if size >= record_offset + frame:  # a header claiming 1 GiB costs nothing
                result.damage.append(Damage(record_offset, oversized(length, self.max_payload)))
                window.skip_to(record_offset + frame)
                return _DAMAGED
            # What is on disk after the header, as far as a record could reach.
            window.fill(min(size - record_offset, FRAME_OVERHEAD + self.max_payload))
        else:
            size = window.base + len(window.buf)
        buf = window.buf
        later = _find_header(buf, window.pos + 1, len(buf), self.max_payload, complete=True)
        if later < 0:  # may be a record still being written
            result.tail = Tail(record_offset, size - record_offset, frame)
            return None
        damage = RUNS_PAST_END.format(length=length, size=size, later=window.base + later)
        result.damage.append(Damage(record_offset, damage))
        window.pos = later
        return _DAMAGED


#: What :meth:`RecordReader._next_record` gives for a damaged frame (reading goes on).
_DAMAGED = Record(-1, memoryview(b""))


class _Window:
    """The part of an open file read and not consumed yet: ``buf`` holds the file's bytes
    from offset ``base`` on (``array``: the same bytes as a numpy array), ``pos`` is the next
    unread byte in it; :meth:`fill` reads more.
    ``max_bytes``: what the call may consume from ``start`` on (None: no bound)."""

    def __init__(self, handle: BinaryIO, start: int, max_bytes: int | None) -> None:
        self.handle, self.start, self.max_bytes = handle, start, max_bytes
        self.skip_to(start)

    @property
    def offset(self) -> int:
        """The file offset of the next unread byte."""
        return self.base + self.pos

    @property
    def consumed(self) -> int:
        return self.base + self.pos - self.start

    def skip_to(self, offset: int) -> None:
        """Drop what is buffered and go on reading at ``offset``."""
        self.handle.seek(offset)
        self.buf, self.base, self.pos, self.eof = memoryview(b""), offset, 0, False
        self.array = np.frombuffer(self.buf, np.uint8)

    def fill(self, need: int) -> bool:
        """Make ``need`` bytes available from ``pos``; False at end of file."""
        buf, pos = self.buf, self.pos
        if len(buf) - pos >= need:
            return True
        if self.eof:
            return False
        kept = len(buf) - pos
        block = CHUNK_BYTES
        if self.max_bytes is not None:  # no more than the call may consume (a load worker's
            # 16 MB piece read 32 MB and held both): what is left, then small reads
            left = self.max_bytes - self.consumed
            block = min(CHUNK_BYTES, max(left + HEADER_BYTES, MIN_READ_BYTES))
        want = max(need - kept, block)
        handle = self.handle
        readinto = getattr(handle, "readinto", None)
        if readinto is None:  # a remote file
            more = handle.read(want)
            got, view = len(more), memoryview(bytes(buf[pos:]) + more)
        else:  # read after the bytes kept: the file is copied once, not twice
            # (no larger than what the file holds now: a small file, a small buffer)
            on_disk = os.fstat(handle.fileno()).st_size - handle.tell()
            want = min(want, max(need - kept, on_disk, 0))
            data = np.empty(kept + want, dtype=np.uint8)
            data[:kept] = np.frombuffer(buf, np.uint8, kept, pos)
            view = data.data
            got = readinto(view[kept:])
        if got < want:
            self.eof = True
        self.base += pos
        self.buf = view[: kept + got].toreadonly()
        self.array = np.frombuffer(self.buf, np.uint8)  # the same bytes, for google_crc32c
        self.pos = 0
        return len(self.buf) >= need


def _run_rows(
    buf: memoryview, pos: int, header: bytes, consumed: int, max_bytes: int | None
) -> np.ndarray:
    """The frames (a (records, frame bytes) view of ``buf``) of the intact records from ``pos``
    on that have the 12 ``header`` bytes of the record before them (so the same checked
    length) and a matching payload CRC, as many as are buffered and ``max_bytes`` lets the call
    consume (``consumed`` so far); checked in blocks that double while every record passes."""
    (length,) = struct.unpack_from("<Q", header)
    frame = FRAME_OVERHEAD + length
    count = (len(buf) - pos) // frame
    if max_bytes is not None:
        count = min(count, -(-(max_bytes - consumed) // frame))
    rows = np.frombuffer(buf, np.uint8, count * frame, pos).reshape(count, frame)
    expected = np.frombuffer(header, np.uint8)
    good, block = 0, MIN_RUN_RECORDS
    while good < count:
        part = rows[good : good + block]
        intact = (part[:, :HEADER_BYTES] == expected).all(axis=1)
        if not intact.all():  # the CRCs of the records before the first other header only
            part = part[: int(np.argmin(intact))]
            intact = intact[: len(part)]
        footer = np.ascontiguousarray(part[:, HEADER_BYTES + length :]).view("<u4").ravel()
        intact &= masked_crc32c_rows(part[:, HEADER_BYTES : HEADER_BYTES + length]) == footer
        if not intact.all():
            return rows[: good + int(np.argmin(intact))]
        good += len(part)
        if len(part) < min(block, count - good + len(part)):  # stopped at another header
            return rows[:good]
        block *= 2
    return rows


def oversized(length: int, max_payload: int) -> str:
    """The damage reason of a record longer than the limit."""
    return OVERSIZED.format(length=length, limit=max_payload)


def check_graph_file_size(path: str | os.PathLike[str], max_payload: int | None = None) -> int:
    """The size of a bare ``.pb`` graph file (read whole, like one record); ValueError when it
    is larger than ``max_payload`` (default :data:`MAX_PAYLOAD_BYTES`)."""
    limit = MAX_PAYLOAD_BYTES if max_payload is None else max_payload
    size = file_size(os.fspath(path))
    if size > limit:
        raise ValueError(
            f"graph file of {size:,} bytes is larger than the {limit:,}-byte limit "
            "(--max-record-bytes); not read"
        )
    return size


def record_length_at(
    path: str | os.PathLike[str],
    offset: int,
    max_payload: int | None = None,
    ranges: RangeCache | None = None,
) -> int:
    """The payload length in the header at ``offset``, checked (12 bytes read): ValueError when
    the header is not intact or the record is longer than ``max_payload``."""
    if is_url(os.fspath(path)):  # ``ranges``: recently read blocks of remote files
        url = os.fspath(path)
        if ranges is not None:
            try:
                return _checked_length(
                    ranges.read(url, offset, offset + HEADER_BYTES), path, offset, max_payload
                )
            except ValueError:  # a block read before the file changed: read it afresh
                ranges.forget(url)
        header = read_range(url, offset, offset + HEADER_BYTES)
        return _checked_length(header, path, offset, max_payload)
    with open_regular(os.fspath(path)) as handle:
        handle.seek(offset)
        return _checked_length(handle.read(HEADER_BYTES), path, offset, max_payload)


def _checked_length(
    header: bytes, path: str | os.PathLike[str], offset: int, max_payload: int | None
) -> int:
    limit = MAX_PAYLOAD_BYTES if max_payload is None else max_payload
    if len(header) < HEADER_BYTES:
        raise ValueError(f"no record at offset {offset} of {path}")
    length, length_crc = _HEADER.unpack(header)
    if masked_crc32c(header[:8]) != length_crc:
        raise ValueError(f"no valid record header at offset {offset} of {path}")
    if length > limit:
        raise ValueError(f"at offset {offset} of {path}: {oversized(length, limit)}")
    return int(length)


def _remote_record(
    url: str, offset: int, max_payload: int | None, ranges: RangeCache | None
) -> bytes:
    """:func:`read_record_at` of a URL: the header, then payload and footer, by ranged reads
    (through ``ranges`` when given), checked."""
    read = read_range if ranges is None else ranges.read
    length = record_length_at(url, offset, max_payload, ranges)
    body = read(url, offset + HEADER_BYTES, offset + HEADER_BYTES + length + FOOTER_BYTES)
    payload, footer = body[:length], body[length:]
    if len(payload) < length or len(footer) < FOOTER_BYTES:
        raise ValueError(f"record at offset {offset} of {url} is incomplete")
    if masked_crc32c(payload) != _FOOTER.unpack(footer)[0]:
        raise ValueError(f"record at offset {offset} of {url} fails its payload CRC")
    return payload


def read_record_at(
    path: str | os.PathLike[str],
    offset: int,
    max_payload: int | None = None,
    ranges: RangeCache | None = None,
) -> bytes:
    """Read and verify the single record whose header is at ``offset`` (lazy blob access).

    Raises ``ValueError`` when the bytes there are not an intact record (the file changed) or
    the record is longer than ``max_payload`` (default :data:`MAX_PAYLOAD_BYTES`), ``OSError``
    when the path cannot be read or is not a regular file.
    """
    if is_url(os.fspath(path)):
        if ranges is not None:
            try:
                return _remote_record(os.fspath(path), offset, max_payload, ranges)
            except ValueError:  # a block read before the file changed: read it afresh
                ranges.forget(os.fspath(path))
        return _remote_record(os.fspath(path), offset, max_payload, None)
    else:
        with open_regular(os.fspath(path)) as handle:
            handle.seek(offset)
            length = _checked_length(handle.read(HEADER_BYTES), path, offset, max_payload)
            payload = handle.read(length)  # read apart from the footer: slicing would copy it
            footer = handle.read(FOOTER_BYTES)
    if len(payload) < length or len(footer) < FOOTER_BYTES:
        raise ValueError(f"record at offset {offset} of {path} is incomplete")
    if masked_crc32c(payload) != _FOOTER.unpack(footer)[0]:
        raise ValueError(f"record at offset {offset} of {path} fails its payload CRC")
    return payload
