"""Tests of the TFRecord framing: CRCs, incremental reading, truncation, damage, resync."""

from __future__ import annotations

import os
import random
import struct
import time
from pathlib import Path
from typing import Any

import google_crc32c
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dash_insight.core.format import framing
from dash_insight.core.format.framing import (
    FOOTER_BYTES,
    FRAME_OVERHEAD,
    HEADER_BYTES,
    Damage,
    ReadResult,
    Record,
    RecordReader,
    Tail,
    frame_record,
    masked_crc32c,
    read_record_at,
)

# Varied sizes, including an empty payload (a valid record) and payloads straddling the header
# size, in an order that puts small records between large ones.
SIZES = [5, 0, 300, 12, 1, 77, 256, 33]
_RNG = random.Random(20240611)
PAYLOADS = [bytes(_RNG.getrandbits(8) for _ in range(n)) for n in SIZES]

HYPOTHESIS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def build(payloads: list[bytes]) -> tuple[bytes, list[tuple[int, bytes]]]:
    """The framed file of ``payloads`` and the (offset, payload) of each of its records."""
    data = bytearray()
    records = []
    for payload in payloads:
        records.append((len(data), payload))
        data += frame_record(payload)
    return bytes(data), records


DATA, RECORDS = build(PAYLOADS)


def spans(records: list[tuple[int, bytes]]) -> list[tuple[int, int]]:
    """[start, end) byte span of each record, header and footer included."""
    return [(offset, offset + len(payload) + FRAME_OVERHEAD) for offset, payload in records]


def complete_before(cut: int) -> list[tuple[int, bytes]]:
    """The records of DATA that lie completely before byte ``cut``."""
    return [r for r in RECORDS if r[0] + len(r[1]) + FRAME_OVERHEAD <= cut]


def read_all(reader: RecordReader, max_bytes: int | None = None) -> list[tuple[int, bytes]]:
    """Run one :meth:`RecordReader.read` call and return (offset, payload) of what it yielded."""
    out = []
    for record in reader.read(max_bytes):
        assert isinstance(record, Record)
        assert isinstance(record.payload, memoryview)
        assert record.frame_bytes == len(record.payload) + FRAME_OVERHEAD
        out.append((record.offset, bytes(record.payload)))
    assert reader.result.records == len(out)
    return out


def read_file(path: Path, **kwargs: int | None) -> tuple[list[tuple[int, bytes]], RecordReader]:
    reader = RecordReader(path)
    return read_all(reader, **kwargs), reader


@pytest.fixture(
    params=[None, 13, 64, 1000], ids=["chunk-default", "chunk-13", "chunk-64", "chunk-1000"]
)
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run a test with the default and with tiny read chunks (chunk boundaries everywhere)."""
    if request.param is not None:
        monkeypatch.setattr(framing, "CHUNK_BYTES", request.param)
    return framing.CHUNK_BYTES


# --------------------------------------------------------------------------- 1. basics


def test_crc32c_check_value() -> None:
    assert google_crc32c.value(b"123456789") == 0xE3069283
    crc = 0xE3069283
    expected = ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
    assert masked_crc32c(b"123456789") == expected


def test_masked_crc32c_of_empty_input() -> None:
    crc = google_crc32c.value(b"")
    expected = ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
    assert masked_crc32c(b"") == expected
    assert masked_crc32c(memoryview(b"")) == expected


@pytest.mark.parametrize("payload", [b"", b"1", b"123456789", bytes(range(256)) * 3])
def test_masked_crc32c_accepts_all_advertised_buffer_types(payload: bytes) -> None:
    expected = masked_crc32c(payload)
    assert masked_crc32c(bytearray(payload)) == expected
    assert masked_crc32c(memoryview(payload)) == expected
    assert masked_crc32c(memoryview(bytearray(payload))) == expected
    # A memoryview slice in the middle of a larger buffer (what the reader passes).
    big = b"xx" + payload + b"yy"
    assert masked_crc32c(memoryview(big)[2 : 2 + len(payload)]) == expected


@pytest.mark.parametrize("payload", PAYLOADS)
def test_frame_record_layout(payload: bytes) -> None:
    frame = frame_record(payload)
    assert len(frame) == len(payload) + FRAME_OVERHEAD
    length, length_crc = struct.unpack_from("<QI", frame)
    assert length == len(payload)
    assert length_crc == masked_crc32c(frame[:8])
    assert frame[HEADER_BYTES : HEADER_BYTES + len(payload)] == payload
    (payload_crc,) = struct.unpack_from("<I", frame, HEADER_BYTES + len(payload))
    assert payload_crc == masked_crc32c(payload)
    assert len(frame) - HEADER_BYTES - len(payload) == FOOTER_BYTES


def test_round_trip(tmp_path: Path, chunk: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA)
    records, reader = read_file(path)
    assert records == RECORDS
    assert reader.result == ReadResult(records=len(RECORDS), bytes_consumed=len(DATA))
    assert reader.offset == len(DATA)
    assert reader.lost_at is None
    # Nothing new: a second call yields nothing and consumes nothing.
    assert read_all(reader) == []
    assert reader.result == ReadResult()
    assert reader.offset == len(DATA)


def test_round_trip_large_payload(tmp_path: Path, chunk: int) -> None:
    payloads = [b"a" * 5000, bytes(range(256)) * 40, b""]
    data, expected = build(payloads)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert read_file(path)[0] == expected


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"")
    records, reader = read_file(path)
    assert records == []
    assert reader.result == ReadResult()
    assert reader.result.tail is None
    assert reader.result.damage == []
    assert reader.offset == 0
    assert reader.lost_at is None


@pytest.mark.parametrize("size", range(1, HEADER_BYTES))
def test_file_smaller_than_a_header(tmp_path: Path, size: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA[:size])
    records, reader = read_file(path)
    assert records == []
    assert reader.result.damage == []
    assert reader.result.tail == Tail(0, size, None)
    assert reader.offset == 0
    assert reader.result.bytes_consumed == 0
    assert reader.lost_at is None


def test_missing_file_does_not_raise(tmp_path: Path) -> None:
    records, reader = read_file(tmp_path / "missing")
    assert records == []
    assert len(reader.result.damage) == 1
    assert reader.result.damage[0].offset == 0
    assert reader.offset == 0


def test_directory_does_not_raise(tmp_path: Path) -> None:
    records, reader = read_file(tmp_path)
    assert records == []
    assert len(reader.result.damage) == 1


@pytest.mark.parametrize("max_bytes", [1, 2, 11, 12, 13, 17, 40, 100, 317, 1000])
def test_max_bytes_bounds_each_call(tmp_path: Path, chunk: int, max_bytes: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA)
    frames = dict(spans(RECORDS))
    reader = RecordReader(path)
    seen: list[tuple[int, bytes]] = []
    for _ in range(len(RECORDS) + 2):
        start = reader.offset
        got = read_all(reader, max_bytes)
        if start < len(DATA):
            assert got, "a call returns at least one record when one is available"
        else:
            assert got == []
            assert reader.result.bytes_consumed == 0
        assert reader.result.bytes_consumed == reader.offset - start
        assert reader.result.damage == []
        assert reader.result.tail is None
        # Bounded: the call stops at the first record boundary at or past max_bytes.
        if got:
            assert got[0][0] == start
            consumed_before_last = got[-1][0] - start
            assert consumed_before_last < max_bytes
            assert reader.offset == frames[got[-1][0]]
            assert reader.offset - start >= max_bytes or reader.offset == len(DATA)
        seen.extend(got)
    assert seen == RECORDS
    assert reader.offset == len(DATA)


def test_max_bytes_none_reads_everything(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA * 3)
    records, reader = read_file(path, max_bytes=None)
    assert [p for _, p in records] == PAYLOADS * 3
    assert reader.offset == 3 * len(DATA)


@pytest.mark.parametrize("max_bytes", [1, 12, 50])
def test_max_bytes_returns_a_record_after_a_damaged_one(tmp_path: Path, max_bytes: int) -> None:
    """A damaged first record does not use up the call's budget without returning a record."""
    data = bytearray(DATA)
    data[HEADER_BYTES] ^= 0xFF  # payload of record 0 (5 bytes)
    path = tmp_path / "f"
    path.write_bytes(bytes(data))
    reader = RecordReader(path)
    got = read_all(reader, max_bytes)
    assert got[:1] == RECORDS[1:2]
    assert [d.offset for d in reader.result.damage] == [0]
    seen = list(got)
    while reader.offset < len(data):
        more = read_all(reader, max_bytes)
        assert more
        seen.extend(more)
    assert seen == RECORDS[1:]


# --------------------------------------------------------------------------- 2. incremental


def _grow(
    path: Path, data: bytes, cuts: list[int], resume: bool, max_bytes: int | None = None
) -> tuple[list[tuple[int, bytes]], RecordReader]:
    """Append ``data`` to ``path`` in pieces ending at ``cuts`` (then the end), reading after
    every append: with the same reader, or (``resume``) with a fresh reader built from the
    previous one's offset and lost_at. Returns all yielded records and the last reader."""
    path.write_bytes(b"")
    reader = RecordReader(path)
    seen: list[tuple[int, bytes]] = []
    damage: list[Damage] = []
    written = 0
    for cut in [*sorted(set(cuts)), len(data)]:
        with path.open("ab") as handle:
            handle.write(data[written:cut])
        written = cut
        if resume:
            reader = RecordReader(path, offset=reader.offset, lost_at=reader.lost_at)
        while True:
            got = read_all(reader, max_bytes)
            seen.extend(got)
            damage.extend(reader.result.damage)
            if reader.result.bytes_consumed == 0:
                break
    assert damage == []
    return seen, reader


@pytest.mark.parametrize("resume", [False, True], ids=["same-reader", "fresh-reader"])
def test_grow_one_byte_at_a_time(tmp_path: Path, chunk: int, resume: bool) -> None:
    seen, reader = _grow(tmp_path / "f", DATA, list(range(len(DATA))), resume)
    assert seen == RECORDS
    assert reader.offset == len(DATA)
    assert reader.result.tail is None


@pytest.mark.parametrize("split", range(1, len(DATA)))
def test_grow_in_two_pieces_at_every_split_point(tmp_path: Path, split: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA[:split])
    reader = RecordReader(path)
    first = read_all(reader)
    assert reader.result.damage == []
    boundaries = [end for _, end in spans(RECORDS)]
    assert first == complete_before(split)
    assert (reader.result.tail is None) == (split in boundaries)
    with path.open("ab") as handle:
        handle.write(DATA[split:])
    fresh = RecordReader(path, offset=reader.offset, lost_at=reader.lost_at)
    second = read_all(fresh)
    assert fresh.result.damage == []
    assert first + second == RECORDS


@pytest.mark.parametrize("resume", [False, True], ids=["same-reader", "fresh-reader"])
@pytest.mark.parametrize("max_bytes", [None, 1, 30])
@given(cuts=st.lists(st.integers(0, len(DATA)), max_size=30))
@HYPOTHESIS
def test_grow_at_random_split_points(
    tmp_path: Path, cuts: list[int], resume: bool, max_bytes: int | None
) -> None:
    seen, reader = _grow(tmp_path / "f", DATA, cuts, resume, max_bytes)
    assert seen == RECORDS
    assert reader.offset == len(DATA)


@pytest.mark.parametrize("resume", [False, True], ids=["same-reader", "fresh-reader"])
@pytest.mark.parametrize("garbage_size", [1, 5, 11, 12, 13, 100])
def test_grow_after_garbage_prefix(
    tmp_path: Path, chunk: int, resume: bool, garbage_size: int
) -> None:
    """Framing lost at the start of a growing file: the scan goes on as the file grows."""
    rng = random.Random(garbage_size)
    garbage = bytes(rng.getrandbits(8) for _ in range(garbage_size))
    data = garbage + DATA
    path = tmp_path / "f"
    path.write_bytes(b"")
    reader = RecordReader(path)
    seen: list[tuple[int, bytes]] = []
    damage: list[Damage] = []
    for size in range(1, len(data) + 1):
        with path.open("ab") as handle:
            handle.write(data[size - 1 : size])
        if resume:
            reader = RecordReader(path, offset=reader.offset, lost_at=reader.lost_at)
        seen.extend(read_all(reader))
        damage.extend(reader.result.damage)
    assert seen == [(offset + garbage_size, payload) for offset, payload in RECORDS]
    assert reader.lost_at is None
    assert reader.offset == len(data)
    assert [d.offset for d in damage] == [0]


# --------------------------------------------------------------------------- 3. truncation


@pytest.mark.parametrize("cut", range(len(DATA) + 1))
def test_truncated_at_every_offset(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA[:cut])
    records, reader = read_file(path)
    complete = complete_before(cut)
    assert records == complete
    assert reader.result.damage == []
    assert reader.lost_at is None
    cut_inside = [(start, end) for start, end in spans(RECORDS) if start < cut < end]
    if cut_inside:
        ((start, end),) = cut_inside
        have = cut - start
        need = None if have < HEADER_BYTES else end - start
        assert reader.result.tail == Tail(start, have, need)
        assert reader.offset == start
    else:
        assert reader.result.tail is None
        assert reader.offset == cut
    assert reader.result.bytes_consumed == reader.offset


def test_truncated_at_every_offset_with_small_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(framing, "CHUNK_BYTES", 7)
    path = tmp_path / "f"
    for cut in range(len(DATA) + 1):
        path.write_bytes(DATA[:cut])
        records, reader = read_file(path)
        assert records == complete_before(cut)
        assert reader.result.damage == []
        inside = any(start < cut < end for start, end in spans(RECORDS))
        assert (reader.result.tail is not None) == inside


# --------------------------------------------------------------------------- 4. corruption


def _check_damaged(
    path: Path, original: list[tuple[int, bytes]], touched: set[int] | None = None
) -> tuple[list[tuple[int, bytes]], RecordReader]:
    """Read a damaged file: every yielded record is an original one, and every original record
    not listed in ``touched`` (record indexes) is yielded. Reads to the end with max_bytes=None."""
    records, reader = read_file(path)
    assert set(records) <= set(original), "a record was yielded with content not written"
    assert records == sorted(records)
    for index, record in enumerate(original):
        if touched is None or index not in touched:
            assert record in records, f"intact record {index} at {record[0]} lost"
    return records, reader


def _touched(positions: list[int], records: list[tuple[int, bytes]]) -> set[int]:
    return {
        i
        for i, (start, end) in enumerate(spans(records))
        if any(start <= p < end for p in positions)
    }


@pytest.mark.parametrize("mask", [0xFF, 0x01, 0x80])
def test_every_byte_flipped(tmp_path: Path, mask: int) -> None:
    path = tmp_path / "f"
    for position in range(len(DATA)):
        data = bytearray(DATA)
        data[position] ^= mask
        path.write_bytes(bytes(data))
        touched = _touched([position], RECORDS)
        records, reader = _check_damaged(path, RECORDS, touched)
        assert len(touched) == 1
        assert len(records) == len(RECORDS) - 1, position
        assert reader.result.damage, f"no damage reported for a flip at {position}"
        (index,) = touched
        assert [d.offset for d in reader.result.damage] == [RECORDS[index][0]]
        assert reader.result.tail is None


def test_every_byte_flipped_with_small_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(framing, "CHUNK_BYTES", 16)
    path = tmp_path / "f"
    for position in range(len(DATA)):
        data = bytearray(DATA)
        data[position] ^= 0xFF
        path.write_bytes(bytes(data))
        records, reader = _check_damaged(path, RECORDS, _touched([position], RECORDS))
        assert len(records) == len(RECORDS) - 1
        assert reader.result.damage


def test_flip_in_every_byte_then_resume_after_each_record(tmp_path: Path) -> None:
    """Damage found across calls (max_bytes=1: one record per call) still loses nothing."""
    path = tmp_path / "f"
    for position in range(0, len(DATA), 3):
        data = bytearray(DATA)
        data[position] ^= 0x5A
        path.write_bytes(bytes(data))
        reader = RecordReader(path)
        seen: list[tuple[int, bytes]] = []
        damage: list[Damage] = []
        while True:
            reader = RecordReader(path, offset=reader.offset, lost_at=reader.lost_at)
            seen.extend(read_all(reader, 1))
            damage.extend(reader.result.damage)
            if reader.result.bytes_consumed == 0:
                break
        touched = _touched([position], RECORDS)
        assert seen == [r for i, r in enumerate(RECORDS) if i not in touched]
        assert damage


@given(data=st.data())
@HYPOTHESIS
def test_random_corruption_inside_one_region(tmp_path: Path, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(DATA) - 1), label="start")
    length = data.draw(st.integers(1, min(64, len(DATA) - start)), label="length")
    new = data.draw(st.binary(min_size=length, max_size=length), label="bytes")
    corrupted = DATA[:start] + new + DATA[start + length :]
    path = tmp_path / "f"
    path.write_bytes(corrupted)
    changed = [start + i for i in range(length) if new[i] != DATA[start + i]]
    touched = _touched(changed, RECORDS)
    records, reader = _check_damaged(path, RECORDS, touched)
    if changed:
        assert reader.result.damage
        assert reader.result.damage[0].offset == RECORDS[min(touched)][0]
    else:
        assert records == RECORDS
        assert reader.result.damage == []


@given(data=st.data())
@HYPOTHESIS
def test_random_corruption_at_several_places(tmp_path: Path, data: st.DataObject) -> None:
    positions = data.draw(
        st.lists(st.integers(0, len(DATA) - 1), min_size=1, max_size=6), label="positions"
    )
    corrupted = bytearray(DATA)
    for position in positions:
        corrupted[position] ^= data.draw(st.integers(1, 255), label="mask")
    path = tmp_path / "f"
    path.write_bytes(bytes(corrupted))
    changed = [p for p in range(len(DATA)) if corrupted[p] != DATA[p]]
    _, reader = _check_damaged(path, RECORDS, _touched(changed, RECORDS))
    assert bool(reader.result.damage) == bool(changed)


@given(
    where=st.integers(0, len(RECORDS)),
    garbage=st.binary(min_size=1, max_size=200),
    max_bytes=st.sampled_from([None, 1, 100]),
)
@HYPOTHESIS
def test_random_garbage_inserted_between_records(
    tmp_path: Path, where: int, garbage: bytes, max_bytes: int | None
) -> None:
    at = spans(RECORDS)[where][0] if where < len(RECORDS) else len(DATA)
    corrupted = DATA[:at] + garbage + DATA[at:]
    expected = [(o if o < at else o + len(garbage), p) for o, p in RECORDS]
    path = tmp_path / "f"
    path.write_bytes(corrupted)
    reader = RecordReader(path)
    seen: list[tuple[int, bytes]] = []
    damage: list[Damage] = []
    while True:
        seen.extend(read_all(reader, max_bytes))
        damage.extend(reader.result.damage)
        if reader.result.bytes_consumed == 0:
            break
    assert seen == expected
    if len(garbage) >= HEADER_BYTES or where < len(RECORDS):
        assert damage
        assert damage[0].offset == at
    else:  # a short garbage tail looks like a header still being written
        assert damage == []
        assert reader.result.tail == Tail(at, len(garbage), None)


@given(
    garbage=st.lists(
        st.binary(min_size=1, max_size=40), min_size=len(RECORDS) + 1, max_size=len(RECORDS) + 1
    ),
)
@HYPOTHESIS
def test_random_garbage_everywhere(tmp_path: Path, garbage: list[bytes]) -> None:
    """Garbage before, between and after every record: every record is still found."""
    data = bytearray()
    expected = []
    for junk, payload in zip(garbage, [*PAYLOADS, None], strict=True):
        data += junk
        if payload is not None:
            expected.append((len(data), payload))
            data += frame_record(payload)
    path = tmp_path / "f"
    path.write_bytes(bytes(data))
    records, reader = read_file(path)
    assert records == expected
    assert reader.result.damage


# --------------------------------------------------------------------------- 5. garbage files


def test_random_garbage_file(tmp_path: Path, chunk: int) -> None:
    rng = random.Random(7)
    garbage = rng.randbytes(256 << 10)
    path = tmp_path / "f"
    path.write_bytes(garbage)
    records, reader = read_file(path)
    assert records == []
    assert reader.lost_at == 0
    assert reader.result.damage
    assert reader.result.damage[0].offset == 0
    # The scan is kept near the end so a growing file would be scanned further.
    assert len(garbage) - HEADER_BYTES < reader.offset <= len(garbage)
    # Nothing more to find: a second call consumes nothing and reports nothing new.
    assert read_all(reader) == []
    assert reader.result.bytes_consumed == 0
    assert reader.result.damage == []
    assert reader.lost_at == 0


@pytest.mark.parametrize("fill", [0x00, 0xFF])
def test_filled_file_yields_nothing(tmp_path: Path, fill: int) -> None:
    """4 MB of one byte: no record, nothing lost (its speed: ``bench/hard_inputs.py``)."""
    path = tmp_path / "f"
    path.write_bytes(bytes([fill]) * (4 << 20))
    records, reader = read_file(path)
    assert records == []
    assert reader.lost_at == 0


def test_random_garbage_file_yields_nothing(tmp_path: Path) -> None:
    """4 MB of random bytes: no record (its speed: ``bench/hard_inputs.py``)."""
    path = tmp_path / "f"
    path.write_bytes(random.Random(3).randbytes(4 << 20))
    records, reader = read_file(path)
    assert records == []
    assert reader.lost_at == 0


@pytest.mark.parametrize("kind", ["random", "zeros", "ones"])
def test_garbage_followed_by_valid_records(tmp_path: Path, chunk: int, kind: str) -> None:
    size = 50_000
    garbage = {
        "random": random.Random(11).randbytes(size),
        "zeros": bytes(size),
        "ones": b"\xff" * size,
    }[kind]
    path = tmp_path / "f"
    path.write_bytes(garbage + DATA + garbage + DATA)
    records, reader = read_file(path)
    second = size + len(DATA) + size
    assert records == [(o + size, p) for o, p in RECORDS] + [(o + second, p) for o, p in RECORDS]
    assert [d.offset for d in reader.result.damage] == [0, size + len(DATA)]
    assert reader.lost_at is None
    assert reader.offset == len(garbage + DATA + garbage + DATA)


def test_zero_filled_gap_of_several_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A preallocated zero region of several chunks (crash before flush) then valid records."""
    monkeypatch.setattr(framing, "CHUNK_BYTES", 1 << 16)
    path = tmp_path / "f"
    gap = 5 * framing.CHUNK_BYTES + 5
    path.write_bytes(DATA + bytes(gap) + DATA)
    records, reader = read_file(path)
    assert records == RECORDS + [(o + len(DATA) + gap, p) for o, p in RECORDS]
    assert [d.offset for d in reader.result.damage] == [len(DATA)]


# --------------------------------------------------------------------------- 6. oversized


def test_oversized_record_is_reported_once_and_skipped(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(framing, "MAX_PAYLOAD_BYTES", 100)
    big = bytes(range(200))
    data, expected = build([b"first", big, b"after", b"x" * 100])
    path = tmp_path / "f"
    path.write_bytes(data)
    records, reader = read_file(path)
    assert records == [expected[0], expected[2], expected[3]]
    assert len(reader.result.damage) == 1
    assert reader.result.damage[0].offset == expected[1][0]
    assert reader.result.tail is None
    assert reader.offset == len(data)
    assert reader.lost_at is None


def test_oversized_record_growing(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the oversized record is incomplete it is a tail, not damage; once it is complete it
    is reported exactly once however the file grows."""
    monkeypatch.setattr(framing, "MAX_PAYLOAD_BYTES", 100)
    data, expected = build([b"first", bytes(200), b"after"])
    big_offset, big_end = spans(expected)[1]
    path = tmp_path / "f"
    path.write_bytes(b"")
    reader = RecordReader(path)
    seen: list[tuple[int, bytes]] = []
    damage: list[Damage] = []
    for size in range(1, len(data) + 1):
        with path.open("ab") as handle:
            handle.write(data[size - 1 : size])
        seen.extend(read_all(reader))
        damage.extend(reader.result.damage)
        if big_offset + HEADER_BYTES <= size < big_end:
            assert reader.result.tail == Tail(big_offset, size - big_offset, big_end - big_offset)
            assert reader.offset == big_offset
    assert seen == [expected[0], expected[2]]
    assert [d.offset for d in damage] == [big_offset]


def test_oversized_last_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "MAX_PAYLOAD_BYTES", 100)
    data, expected = build([b"first", bytes(200)])
    path = tmp_path / "f"
    path.write_bytes(data)
    records, reader = read_file(path)
    assert records == expected[:1]
    assert [d.offset for d in reader.result.damage] == [expected[1][0]]
    assert reader.result.tail is None
    assert reader.offset == len(data)


def test_huge_length_with_valid_crc_is_a_tail(tmp_path: Path) -> None:
    """A header claiming more than MAX_PAYLOAD_BYTES, with the record not on disk: kept as a tail
    (not yet damage); the record before it is read."""
    length = struct.pack("<Q", framing.MAX_PAYLOAD_BYTES + 1)
    header = length + struct.pack("<I", masked_crc32c(length))
    path = tmp_path / "f"
    path.write_bytes(DATA + header + b"abc")
    records, reader = read_file(path)
    assert records == RECORDS
    assert reader.result.damage == []
    assert reader.result.tail == Tail(
        len(DATA), HEADER_BYTES + 3, framing.MAX_PAYLOAD_BYTES + 1 + FRAME_OVERHEAD
    )
    assert reader.offset == len(DATA)


@pytest.mark.parametrize("limit", [100, 300, 1 << 16, 1 << 24])
def test_resync_up_to_the_payload_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """After lost framing the scan finds records of every accepted length, up to exactly
    MAX_PAYLOAD_BYTES, whatever its value."""
    monkeypatch.setattr(framing, "MAX_PAYLOAD_BYTES", limit)
    data, expected = build([b"a" * 50, b"c" * limit, b"d" * (limit - 1), b"", b"b" * 60])
    path = tmp_path / "f"
    for damaged in range(len(expected) - 1):
        # Corrupt the length of one record: the scan must find the next one, whatever its size.
        corrupted = bytearray(data)
        corrupted[expected[damaged][0]] ^= 0xFF
        path.write_bytes(bytes(corrupted))
        records, reader = read_file(path)
        assert records == expected[:damaged] + expected[damaged + 1 :]
        assert [d.offset for d in reader.result.damage] == [expected[damaged][0]]


def test_resync_finds_empty_payload_record(tmp_path: Path) -> None:
    """An intact zero-length record right after lost framing is found by the scan."""
    data, expected = build([b"x" * 20, b"", b"y"])
    corrupted = bytearray(data)
    corrupted[3] ^= 0x10  # length of record 0
    path = tmp_path / "f"
    path.write_bytes(bytes(corrupted))
    records, reader = read_file(path)
    assert records == expected[1:]
    assert [d.offset for d in reader.result.damage] == [0]


# --------------------------------------------------------------------------- 7. read_record_at


def test_read_record_at_valid(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA)
    for offset, payload in RECORDS:
        got = read_record_at(path, offset)
        assert isinstance(got, bytes)
        assert got == payload
    assert read_record_at(str(path), RECORDS[2][0]) == PAYLOADS[2]


def test_read_record_at_wrong_offset(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA)
    starts = {offset for offset, _ in RECORDS}
    for offset in range(len(DATA) + 20):
        if offset in starts:
            continue
        with pytest.raises(ValueError):
            read_record_at(path, offset)


def test_read_record_at_truncated(tmp_path: Path) -> None:
    path = tmp_path / "f"
    offset, end = spans(RECORDS)[2]
    for cut in range(offset, end):
        path.write_bytes(DATA[:cut])
        with pytest.raises(ValueError):
            read_record_at(path, offset)


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_read_record_at_corrupted(tmp_path: Path, index: int) -> None:
    path = tmp_path / "f"
    start, end = spans(RECORDS)[index]
    for position in range(start, end):
        data = bytearray(DATA)
        data[position] ^= 0x01
        path.write_bytes(bytes(data))
        with pytest.raises(ValueError):
            read_record_at(path, start)
        # The neighbours are unaffected.
        for other, (offset, payload) in enumerate(RECORDS):
            if other != index:
                assert read_record_at(path, offset) == payload


def test_read_record_at_oversized(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "MAX_PAYLOAD_BYTES", 100)
    data, expected = build([bytes(101), bytes(100)])
    path = tmp_path / "f"
    path.write_bytes(data)
    with pytest.raises(ValueError):
        read_record_at(path, expected[0][0])
    assert read_record_at(path, expected[1][0]) == bytes(100)


# --------------------------------------------------------------------------- 8. past the end


def _header(length: int) -> bytes:
    """A record header with a valid length CRC."""
    packed = struct.pack("<Q", length)
    return packed + struct.pack("<I", masked_crc32c(packed))


@pytest.mark.parametrize("length", [10_000, 1 << 31], ids=["plausible", "over-limit"])
def test_length_past_the_end_with_records_after_it_is_damage(
    tmp_path: Path, chunk: int, length: int
) -> None:
    """A header whose (CRC-valid) length runs past the end of the file, followed by complete
    intact records: no writer leaves that, so it is damage now and the records after it are
    read."""
    head, after = RECORDS[:3], RECORDS[3:]
    cut = spans(RECORDS)[2][1]
    bogus = _header(length) + b"partial"
    path = tmp_path / "f"
    path.write_bytes(DATA[:cut] + bogus + DATA[cut:])
    records, reader = read_file(path)
    assert records == head + [(offset + len(bogus), payload) for offset, payload in after]
    [damage] = reader.result.damage
    assert damage.offset == cut and "runs past the end of the file" in damage.reason
    assert reader.result.tail is None and reader.offset == len(DATA) + len(bogus)


def test_length_past_the_end_alone_is_a_tail(tmp_path: Path, chunk: int) -> None:
    """Without a complete record after it, it may be a record still being written."""
    path = tmp_path / "f"
    assert spans(RECORDS)[0][1] == 21
    path.write_bytes(DATA + _header(10_000) + DATA[:20])  # no complete record after the header
    records, reader = read_file(path)
    assert records == RECORDS and reader.result.damage == []
    assert reader.result.tail == Tail(len(DATA), 32, 10_016)
    assert reader.offset == len(DATA)


def test_fifo_is_an_error_not_a_wait(tmp_path: Path) -> None:
    path = tmp_path / "x.summary.1_MS"
    os.mkfifo(path)
    started = time.monotonic()
    records, reader = read_file(path)
    assert time.monotonic() - started < 5 and records == []
    assert reader.result.error is not None and "a FIFO" in reader.result.error.reason
    with pytest.raises(OSError, match="a FIFO"):
        read_record_at(path, 0)


def test_replaced_file_is_not_read_at_the_old_offset(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(DATA)
    first = RecordReader(path, inode=path.stat().st_ino)
    assert read_all(first, max_bytes=100) == RECORDS[:3]
    replacement = tmp_path / "g"
    replacement.write_bytes(DATA)
    os.replace(replacement, path)
    again = RecordReader(path, first.offset, inode=first.inode)
    assert read_all(again) == [] and again.result.replaced and again.result.damage == []
    assert again.stat is not None and again.stat.st_ino == path.stat().st_ino
    path.write_bytes(DATA[:10])  # same inode, shorter than the offset: truncated
    shorter = RecordReader(path, first.offset, inode=path.stat().st_ino)
    assert read_all(shorter) == [] and shorter.result.replaced


def test_a_reader_starting_with_framing_lost_finds_a_record_past_megabytes_of_garbage(
    tmp_path: Path,
) -> None:
    """A load worker's piece starts mid-file with framing lost: the first record is found
    however far it is (the search goes window by window), and its offset is reported."""
    garbage = bytes(random.Random(3).getrandbits(8) for _ in range(1000)) * 3_000  # 3 MB
    path = tmp_path / "f"
    path.write_bytes(garbage + DATA)
    reader = RecordReader(path, offset=5, lost_at=5)
    records = [(r.offset, bytes(r.payload)) for r in reader.read()]
    assert records == [(offset + len(garbage), payload) for offset, payload in RECORDS]
    assert reader.result.first_offset == len(garbage) and reader.result.damage == []


def test_a_bounded_read_reads_little_past_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load worker's 16 MB piece used to read a second 16 MB chunk for its last record."""
    payloads = [bytes([n % 251]) * 1000 for n in range(3000)]  # 3 MB of records of 1,016 bytes
    data, records = build(payloads)
    path = tmp_path / "f"
    path.write_bytes(data)
    read_sizes: list[int] = []
    real_open = framing.open_regular

    def counting_open(*args: Any, **kwargs: Any) -> Any:
        handle = real_open(*args, **kwargs)
        read = handle.read

        def counted(size: int = -1) -> bytes:
            chunk = read(size)
            read_sizes.append(len(chunk))
            return chunk

        handle.read = counted
        return handle

    monkeypatch.setattr(framing, "open_regular", counting_open)
    reader = RecordReader(path)
    got = list(reader.read(100_000))
    assert len(got) == -(-100_000 // 1016) and reader.offset == records[len(got)][0]
    assert sum(read_sizes) < 100_000 + 2 * framing.MIN_READ_BYTES
