"""Runs of records of one size (issue #37 items 3, 4): ``masked_crc32c_rows``,
``RecordReader.read_runs`` and ``EventScanner.scan_from`` give exactly what the record-at-a-time
path (``masked_crc32c``, ``RecordReader.read``, ``EventScanner.scan``) gives, on clean, corpus,
damaged and truncated files."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format import framing
from dash_insight.core.format.framing import (
    Record,
    RecordReader,
    RecordRun,
    frame_record,
    masked_crc32c,
    masked_crc32c_rows,
)
from dash_insight.core.format.protos import summary_pb2
from dash_insight.core.format.scan import EventScanner, ScanResult
from tests.conftest import corpus_files
from tests.core.format.test_scan import _random_file


@pytest.mark.parametrize("size", [0, 1, 4, 7, 31, 64, 300])
@pytest.mark.parametrize("changing", [0, 1, 3, None])
def test_masked_crc32c_rows_equals_masked_crc32c(size: int, changing: int | None) -> None:
    """Rows that differ from the first in ``changing`` columns (None: everywhere)."""
    rng = np.random.default_rng(size * 10 + (changing or 99))
    rows = np.repeat(rng.integers(0, 256, size, dtype=np.uint8)[None, :], 300, axis=0)
    columns = np.arange(size) if changing is None else rng.permutation(size)[:changing]
    for column in columns.tolist():
        rows[:, column] = rng.integers(0, 256, len(rows), dtype=np.uint8)
    expected = [masked_crc32c(bytes(row)) for row in rows]
    assert masked_crc32c_rows(rows).tolist() == expected
    assert masked_crc32c_rows(rows[:0]).tolist() == []


def test_masked_crc32c_rows_in_several_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "_CRC_BLOCK_ROWS", 7)
    rows = np.random.default_rng(3).integers(0, 256, (50, 20), dtype=np.uint8)
    assert masked_crc32c_rows(rows).tolist() == [masked_crc32c(bytes(r)) for r in rows]


def _event(step: int, wall: float, values: list[tuple[str, float]]) -> bytes:
    event = summary_pb2.Event(step=step, wall_time=wall)
    for tag, value in values:
        event.summary.value.add(tag=tag, scalar_value=value)
    return event.SerializeToString()


def _run_file(path: Path, seed: int) -> bytes:
    """Long runs of one-size records (one tag, then two tags), steps whose varint grows a byte
    (127 -> 128, 16,383 -> 16,384) or is negative (10 bytes), special floats, a histogram now
    and then, a lookalike tag of the same length and an empty record."""
    rng = random.Random(seed)
    payloads = [summary_pb2.Event(wall_time=1.0, version="MindSpore.Event:1").SerializeToString()]
    steps = [*range(0, 300), *range(16_300, 16_500), *range(-40, -1), *range(2**40, 2**40 + 80)]
    for n, step in enumerate(steps):
        value = rng.choice([float("nan"), float("inf"), -0.0, 1e-45, rng.uniform(-9, 9)])
        if n % 97 == 50:
            payloads.append(_event(step, 1.7e9 + n, [("LOSS", value)]))
        elif n % 131 == 70:
            event = summary_pb2.Event(step=step, wall_time=1.7e9 + n)
            event.summary.value.add(tag="loss", scalar_value=value)
            event.summary.value.add(tag="w").histogram.count = 3
            payloads.append(event.SerializeToString())
        elif n % 151 == 80:
            payloads.append(b"")
        elif n > 450:
            payloads.append(_event(step, 1.7e9 + n, [("loss", value), ("lr", value / 3)]))
        else:
            payloads.append(_event(step, 1.7e9 + n * 0.25, [("loss", value)]))
    data = b"".join(frame_record(p) for p in payloads)
    path.write_bytes(data)
    return data


def _read_both(path: Path, max_bytes: int | None) -> None:
    """read() and read_runs() call after call: the same records, results and resume points;
    read_runs() does yield runs."""
    plain, runs = RecordReader(path), RecordReader(path)
    while True:
        expected = [(r.offset, bytes(r.payload)) for r in plain.read(max_bytes)]
        got = []
        for item in runs.read_runs(max_bytes):
            if isinstance(item, RecordRun):
                assert len(item) >= 1
                got += [(r.offset, bytes(r.payload)) for r in map(item.record, range(len(item)))]
            else:
                assert isinstance(item, Record)
                got.append((item.offset, bytes(item.payload)))
        assert got == expected
        assert runs.result == plain.result
        assert (runs.offset, runs.lost_at) == (plain.offset, plain.lost_at)
        assert runs.result.first_offset == plain.result.first_offset
        if plain.result.bytes_consumed == 0 or max_bytes is None:
            return


@pytest.mark.parametrize("max_bytes", [None, 1, 700, 5000])
@pytest.mark.parametrize("chunk", [None, 64, 1000])
def test_read_runs_equals_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, max_bytes: int | None, chunk: int | None
) -> None:
    if chunk is not None:
        monkeypatch.setattr(framing, "CHUNK_BYTES", chunk)
    path = tmp_path / "events.summary.1_MS"
    _run_file(path, 0)
    _read_both(path, max_bytes)
    runs = [item for item in RecordReader(path).read_runs() if isinstance(item, RecordRun)]
    if chunk is None:
        assert sum(map(len, runs)) > 300


def test_read_runs_equals_read_on_damaged_and_truncated_files(tmp_path: Path) -> None:
    """A byte changed (header, payload or footer of records inside a run) or the file cut,
    at many places: the same records, damage (offsets and reasons), tail and resume point."""
    path = tmp_path / "events.summary.1_MS"
    data = _run_file(path, 1)
    rng = random.Random(5)
    for position in sorted(rng.sample(range(len(data)), 150)):
        damaged = bytearray(data)
        damaged[position] ^= rng.choice([0x01, 0x80, 0xFF])
        path.write_bytes(bytes(damaged))
        _read_both(path, None)
        _read_both(path, 3000)
    for cut in sorted(rng.sample(range(len(data)), 60)):
        path.write_bytes(data[:cut])
        _read_both(path, None)


def _scan(path: Path, max_bytes: int | None, runs: bool) -> ScanResult:
    """Every record of ``path`` scanned call after call by one scanner, the results merged."""
    reader, scanner = RecordReader(path), EventScanner()
    merged = ScanResult()
    parts: dict[str, list] = {}
    while True:
        result = (
            scanner.scan_from(reader, max_bytes) if runs else scanner.scan(reader.read(max_bytes))
        )
        for tag, columns in result.scalars.items():
            parts.setdefault(tag, []).append(columns)
        for key, blobs in result.blobs.items():
            merged.blobs.setdefault(key, blobs)  # compared by count and first offsets below
        merged.graphs += result.graphs
        merged.versions += result.versions
        merged.errors += result.errors
        merged.events += result.events
        if reader.result.bytes_consumed == 0 or max_bytes is None:
            break
    for tag, pieces in parts.items():
        merged.scalars[tag] = type(pieces[0])(
            *(
                np.concatenate([getattr(p, c) for p in pieces])
                for c in ("step", "wall_time", "value")
            )
        )
    return merged


def _assert_same_scan(a: ScanResult, b: ScanResult) -> None:
    assert a.scalars.keys() == b.scalars.keys()
    for tag in a.scalars:
        for column in ("step", "wall_time", "value"):
            left, right = getattr(a.scalars[tag], column), getattr(b.scalars[tag], column)
            assert left.dtype == right.dtype, (tag, column)
            assert left.tobytes() == right.tobytes(), (tag, column)  # bit for bit: NaN, -0.0
    assert {k: (v.step.tolist(), v.offset.tolist()) for k, v in a.blobs.items()} == {
        k: (v.step.tolist(), v.offset.tolist()) for k, v in b.blobs.items()
    }
    assert (a.graphs, a.versions, a.errors, a.events) == (b.graphs, b.versions, b.errors, b.events)


@pytest.mark.parametrize("max_bytes", [None, 4000])
@pytest.mark.parametrize("seed", range(3))
def test_scan_from_equals_scan(tmp_path: Path, seed: int, max_bytes: int | None) -> None:
    path = tmp_path / "events.summary.1_MS"
    _run_file(path, seed)
    expected = _scan(path, max_bytes, runs=False)
    _assert_same_scan(_scan(path, max_bytes, runs=True), expected)
    assert len(expected.scalars["loss"]) > 550


@pytest.mark.parametrize("seed", range(3))
def test_scan_from_equals_scan_on_mixed_layouts(tmp_path: Path, seed: int) -> None:
    """The record layouts of test_scan's random files (few runs: sizes vary)."""
    path = tmp_path / "events.summary.1_MS"
    _random_file(path, seed, records=600)
    _assert_same_scan(_scan(path, None, runs=True), _scan(path, None, runs=False))


def test_scan_from_equals_scan_on_damaged_and_truncated_files(tmp_path: Path) -> None:
    path = tmp_path / "events.summary.1_MS"
    data = _run_file(path, 2)
    rng = random.Random(6)
    for position in sorted(rng.sample(range(len(data)), 60)):
        damaged = bytearray(data)
        damaged[position] ^= 0xFF
        path.write_bytes(bytes(damaged))
        _assert_same_scan(_scan(path, None, runs=True), _scan(path, None, runs=False))
    for cut in sorted(rng.sample(range(len(data)), 20)):
        path.write_bytes(data[:cut])
        _assert_same_scan(_scan(path, 5000, runs=True), _scan(path, 5000, runs=False))


@pytest.mark.parametrize("path", corpus_files("**/*_MS"), ids=lambda p: p.parent.name)
def test_corpus_scan_from_equals_scan(path: Path) -> None:
    _assert_same_scan(_scan(path, None, runs=True), _scan(path, None, runs=False))
    _assert_same_scan(_scan(path, 1 << 20, runs=True), _scan(path, 1 << 20, runs=False))


def _protobuf_values(summary: bytes) -> list[tuple[str, str, float | None]]:
    from dash_insight.core.format.events import VALUE_FIELD_PLUGIN

    values = summary_pb2.Summary.FromString(summary).value
    return [
        (
            v.tag,
            VALUE_FIELD_PLUGIN[v.WhichOneof("value")],
            v.scalar_value if v.WhichOneof("value") == "scalar_value" else None,
        )
        for v in values
    ]


def _walked(summary: bytes) -> list[tuple[str, str, float | None]] | None:
    from dash_insight.core.format.scan import _walk_values

    walked = _walk_values(memoryview(summary))
    return None if walked is None else [(tag, plugin, value) for tag, plugin, value, _ in walked]


def _same(a: list[tuple[str, str, float | None]], b: list[tuple[str, str, float | None]]) -> bool:
    return [(t, p, None if v is None else np.float32(v).tobytes()) for t, p, v in a] == [
        (t, p, None if v is None else np.float32(v).tobytes()) for t, p, v in b
    ]


def _summaries(path: Path) -> list[bytes]:
    out = []
    for record in RecordReader(path).read():
        event = summary_pb2.Event.FromString(bytes(record.payload))
        if event.WhichOneof("what") == "summary":
            out.append(event.summary.SerializeToString())
    return out


@pytest.mark.parametrize("path", corpus_files("**/*_MS"), ids=lambda p: p.parent.name)
def test_walk_values_equals_protobuf_on_the_corpus(path: Path) -> None:
    """Every Summary of the corpus: the walker reads it (MindSpore's layout) and finds the same
    tags, kinds and floats as protobuf."""
    from dash_insight.core.format.scan import _value_meta, _walk_values

    for summary in _summaries(path):
        walked = _walked(summary)
        assert walked is not None
        assert _same(walked, _protobuf_values(summary))
        values = summary_pb2.Summary.FromString(summary).value
        for (_, plugin, _, parsed), value in zip(
            _walk_values(memoryview(summary)) or [], values, strict=True
        ):
            assert (parsed is None) == (plugin in ("scalar", "histogram"))
            if parsed is not None:
                assert _value_meta(plugin, parsed) == _value_meta(plugin, value)


def test_walk_values_on_damaged_and_truncated_summaries() -> None:
    """Bytes changed or cut: where protobuf parses, the walker finds the same values or gives
    up (None: protobuf is used); where protobuf fails, the walker gives up too unless a
    histogram holds the damage (a histogram is parsed, and checked, when it is read)."""
    rng = random.Random(7)
    event = summary_pb2.Event()
    for i in range(3):
        event.summary.value.add(tag=f"loss/{i}", scalar_value=rng.uniform(-1, 1))
    histogram = event.summary.value.add(tag="w").histogram
    for i in range(5):
        histogram.buckets.add(left=i, width=1.0, count=i)
    event.summary.value.add(tag="t").tensor.dims.extend([2, 3])
    image = event.summary.value.add(tag="i").image
    image.height, image.width, image.colorspace, image.encoded_image = 4, 5, 3, b"png"
    summary = event.summary.SerializeToString()
    assert _same(_walked(summary) or [], _protobuf_values(summary))
    histogram_bytes = event.summary.value[3].SerializeToString()
    hist_start = summary.index(histogram_bytes)
    hist_span = range(hist_start, hist_start + len(histogram_bytes))
    cases = [summary[:cut] for cut in range(len(summary))]
    for _ in range(400):
        damaged = bytearray(summary)
        position = rng.randrange(len(summary))
        damaged[position] = rng.randrange(256)
        cases.append(bytes(damaged))
    for case in cases:
        walked = _walked(case)
        try:
            expected = _protobuf_values(case)
        except Exception:
            expected = None
        if walked is None:
            continue
        if expected is not None:
            assert _same(walked, expected), case
        else:
            changed = [i for i in range(min(len(case), len(summary))) if case[i] != summary[i]]
            assert changed and all(i in hist_span for i in changed), case


@pytest.mark.parametrize("kind", ["histogram", "image", "tensor"])
def test_walk_values_gives_up_when_more_follows_a_message_in_its_value(kind: str) -> None:
    """A value whose message field does not end it (a scalar_value field follows: protobuf
    keeps the last field of the oneof, a scalar): the walker gives up (protobuf is used) or
    finds what protobuf finds, never the message."""
    import struct

    value = summary_pb2.Summary.Value(tag="w")
    if kind == "histogram":
        value.histogram.count = 3
    elif kind == "image":
        value.image.height, value.image.width, value.image.colorspace = 1, 1, 3
        value.image.encoded_image = b"png"
    else:
        value.tensor.dims.extend([2])
    inner = value.SerializeToString() + b"\x1d" + struct.pack("<f", 1.5)
    loss = summary_pb2.Summary.Value(tag="loss", scalar_value=2.0).SerializeToString()
    summary = b"\x0a" + bytes([len(loss)]) + loss + b"\x0a" + bytes([len(inner)]) + inner
    expected = _protobuf_values(summary)
    assert expected[1] == ("w", "scalar", 1.5)
    walked = _walked(summary)
    assert walked is None or _same(walked, expected)
