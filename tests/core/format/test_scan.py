"""EventScanner: per-tag scalar columns and blob references equal a plain protobuf decode."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format import scan as scan_module
from dash_insight.core.format.events import decode_event, decode_value_at
from dash_insight.core.format.framing import Record, RecordReader, frame_record, read_record_at
from dash_insight.core.format.protos import summary_pb2
from dash_insight.core.format.scan import EventScanner, ScanResult
from tests.conftest import corpus_files

SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 3.4e38, 1e-45]


def _event(step: int, values: list[summary_pb2.Summary.Value], wall: float) -> bytes:
    event = summary_pb2.Event(wall_time=wall, step=step)
    event.summary.value.extend(values)
    return event.SerializeToString()


def _scalar(tag: str, value: float) -> summary_pb2.Summary.Value:
    return summary_pb2.Summary.Value(tag=tag, scalar_value=value)


def _histogram(tag: str, rng: random.Random) -> summary_pb2.Summary.Value:
    value = summary_pb2.Summary.Value(tag=tag)
    for i in range(rng.randint(0, 5)):
        value.histogram.buckets.add(left=i, width=1.0, count=rng.randint(0, 9))
    value.histogram.count = 10
    return value


def _random_file(path: Path, seed: int, records: int = 300) -> list[bytes]:
    """A file mixing the layouts a real writer produces, plus awkward ones."""
    rng = random.Random(seed)
    layouts = [
        [f"tag/{i}" for i in range(rng.randint(1, 30))],
        ["loss", "accuracy", "学习率", "x" * 200],
        ["a", "b", "a"],  # a tag twice in one record
    ]
    payloads = [summary_pb2.Event(wall_time=1.0, version="MindSpore.Event:1").SerializeToString()]
    for n in range(records):
        step = rng.choice([n, n, n, n - 3, -5, 2**40 + n])
        wall = 1.7e9 + n * 0.5
        kind = rng.random()
        tags = rng.choice(layouts)
        values = [
            _scalar(t, rng.choice(SPECIAL) if rng.random() < 0.1 else rng.uniform(-9, 9))
            for t in tags
        ]
        if kind < 0.15:  # scalars then histograms: a template matches the prefix
            values += [_histogram(f"h{i}", rng) for i in range(rng.randint(1, 3))]
        elif kind < 0.25:  # histograms first: no prefix match
            values = [_histogram("h0", rng), *values]
        elif kind < 0.3:  # a lookalike: same lengths, other tag bytes
            values = [_scalar(t.upper() if t.isascii() else t, 1.0) for t in tags]
        elif kind < 0.33:  # an event with no summary values
            values = []
        payloads.append(_event(step, values, wall))
        if kind > 0.98:
            payloads.append(summary_pb2.Event(wall_time=wall).SerializeToString())
    path.write_bytes(b"".join(frame_record(p) for p in payloads))
    return payloads


def _reference(payloads: list[bytes]) -> tuple[dict[str, list], dict[tuple[str, str], list]]:
    scalars: dict[str, list] = {}
    blobs: dict[tuple[str, str], list] = {}
    for payload in payloads:
        event = decode_event(payload)
        for index, value in enumerate(event.values):
            if value.plugin == "scalar":
                scalars.setdefault(value.tag, []).append((event.step, event.wall_time, value.value))
            else:
                blobs.setdefault((value.plugin, value.tag), []).append((event.step, index))
    return scalars, blobs


def _scan_all(path: Path, batch_bytes: int | None) -> list[ScanResult]:
    reader = RecordReader(path)
    scanner = EventScanner()
    results = []
    while True:
        results.append(scanner.scan(reader.read(batch_bytes)))
        if reader.result.bytes_consumed == 0 or batch_bytes is None:
            return results


def _same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b)
    )


def _assert_equals_reference(path: Path, payloads: list[bytes], results: list[ScanResult]) -> None:
    """``results`` (the scans of ``path``, whose records are ``payloads``) hold every scalar
    point (bit-exact) and every large value (step, index; decoded from its record: its plugin
    and tag) a plain protobuf decode finds, in file order, and nothing else."""
    expected_scalars, expected_blobs = _reference(payloads)
    got: dict[str, list] = {}
    for result in results:
        for tag, columns in result.scalars.items():
            got.setdefault(tag, []).extend(
                zip(
                    columns.step.tolist(),
                    columns.wall_time.tolist(),
                    columns.value.tolist(),
                    strict=True,
                )
            )
    assert got.keys() == expected_scalars.keys()
    for tag, points in expected_scalars.items():
        assert len(got[tag]) == len(points), tag
        for (step, wall, value), (gstep, gwall, gvalue) in zip(points, got[tag], strict=True):
            assert (gstep, gwall) == (step, wall)
            assert _same_float(gvalue, float(np.float32(value))), (tag, value, gvalue)

    got_blobs: dict[tuple[str, str], list] = {}
    for result in results:
        for key, columns in result.blobs.items():
            got_blobs.setdefault(key, []).extend(
                zip(columns.step.tolist(), columns.index.tolist(), strict=True)
            )
            for offset, index in zip(columns.offset.tolist(), columns.index.tolist(), strict=True):
                value = decode_value_at(read_record_at(path, offset), index)
                assert (value.plugin, value.tag) == key
    assert got_blobs == expected_blobs
    assert sum(r.events for r in results) == len(payloads)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("batch_bytes", [None, 2000])
def test_scan_equals_protobuf_decode(tmp_path: Path, seed: int, batch_bytes: int | None) -> None:
    path = tmp_path / "events.summary.1_MS"
    payloads = _random_file(path, seed)
    results = _scan_all(path, batch_bytes)
    _assert_equals_reference(path, payloads, results)
    assert [v for r in results for v in r.versions] == ["MindSpore.Event:1"]


def _sized_image(tag: str, size: int) -> summary_pb2.Summary.Value:
    """An image value whose serialized bytes are ``size`` long (its encoded bytes padded)."""
    value = summary_pb2.Summary.Value(tag=tag)
    value.image.height, value.image.width, value.image.colorspace = 2, 3, 3
    value.image.encoded_image = b""
    value.image.encoded_image = b"p" * (size - value.ByteSize())
    while value.ByteSize() > size:  # the padding's length took another varint byte
        value.image.encoded_image = value.image.encoded_image[:-1]
    return value


def _walk_layout_file(path: Path, seed: int) -> list[bytes]:
    """Records of two scalars (a template), then a histogram, a scalar and a histogram of
    fixed sizes (a walk layout is learnt), and lookalikes of the same Summary size that differ
    from it only in the bytes a walk reads: the histograms' tags swapped, the scalar's tag
    changed, the histograms' lengths moved by a bucket (other length bytes), a histogram
    replaced by an image of its size (other key: parsed for its metadata), a scalar and a
    histogram in the other order."""
    rng = random.Random(seed)

    def histogram(tag: str, buckets: int) -> summary_pb2.Summary.Value:
        value = summary_pb2.Summary.Value(tag=tag)
        for i in range(buckets):
            value.histogram.buckets.add(left=i, width=1.0, count=5)
        return value

    def scalar(tag: str) -> summary_pb2.Summary.Value:
        return _scalar(tag, rng.choice(SPECIAL) if rng.random() < 0.2 else rng.uniform(-9, 9))

    usual = [histogram("h0", 3), scalar("s1"), histogram("h1", 3)]
    lookalikes = [
        [histogram("h1", 3), scalar("s1"), histogram("h0", 3)],
        [histogram("h0", 3), scalar("s2"), histogram("h1", 3)],
        [histogram("h0", 4), scalar("s1"), histogram("h1", 2)],
        [_sized_image("h0", usual[0].ByteSize()), scalar("s1"), histogram("h1", 3)],
        [scalar("s1"), histogram("h0", 3), histogram("h1", 3)],
    ]
    payloads = [summary_pb2.Event(wall_time=1.0, version="MindSpore.Event:1").SerializeToString()]
    for step in range(400):
        if rng.random() < 0.25:
            suffix = rng.choice(lookalikes)
        else:
            suffix = [histogram("h0", 3), scalar("s1"), histogram("h1", 3)]
        prefix = [scalar("loss"), scalar("lr")]
        payloads.append(_event(step, [*prefix, *suffix], 1.7e9 + step))
        if step % 3 == 0:
            payloads.append(_event(step, [scalar("loss"), scalar("lr")], 1.7e9 + step))
    assert len({len(p) for p in payloads[1:]}) <= 4  # lookalikes: one Summary size
    path.write_bytes(b"".join(frame_record(p) for p in payloads))
    return payloads


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("batch_bytes", [None, 3000])
def test_walk_layouts_equal_protobuf_decode(
    tmp_path: Path, seed: int, batch_bytes: int | None
) -> None:
    """The values after a template's scalars read through a learnt walk layout (a record that
    holds the same bytes where the walk reads) or walked (one that does not): the same points
    and references as protobuf's, bit-exact, in file order."""
    path = tmp_path / "events.summary.1_MS"
    payloads = _walk_layout_file(path, seed)
    reader, scanner = RecordReader(path), EventScanner()
    results = []
    while True:
        results.append(scanner.scan_from(reader, batch_bytes))
        if reader.result.bytes_consumed == 0 or batch_bytes is None:
            break
    _assert_equals_reference(path, payloads, results)
    assert len(scanner._walk_layouts) == 1
    images = [r.blobs[("image", "h0")].meta for r in results if ("image", "h0") in r.blobs]
    assert [m for ms in images for m in ms] and all(
        m == {"height": 2, "width": 3} for ms in images for m in ms
    )


def test_template_fast_path_is_used_and_exact(tmp_path: Path) -> None:
    """A long run of same-layout records goes through one template; values stay bit-exact."""
    path = tmp_path / "events.summary.1_MS"
    tags = [f"metric_{i}" for i in range(50)]
    rng = np.random.default_rng(0)
    table = rng.standard_normal((400, 50)).astype(np.float32)
    table[5, 3] = np.nan
    payloads = [
        _event(step, [_scalar(t, float(v)) for t, v in zip(tags, row, strict=True)], 1e9 + step)
        for step, row in enumerate(table)
    ]
    path.write_bytes(b"".join(frame_record(p) for p in payloads))
    scanner = EventScanner()
    result = scanner.scan(RecordReader(path).read())
    assert scanner._template_count == 1
    for column, tag in enumerate(tags):
        np.testing.assert_array_equal(result.scalars[tag].value, table[:, column])
        np.testing.assert_array_equal(result.scalars[tag].step, np.arange(400))


def test_undecodable_record_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "events.summary.1_MS"
    good = _event(1, [_scalar("loss", 1.0)], 1.0)
    path.write_bytes(frame_record(good) + frame_record(b"\xff\xff\xff") + frame_record(good))
    result = EventScanner().scan(RecordReader(path).read())
    assert len(result.errors) == 1 and "not a summary Event" in result.errors[0].reason
    assert result.scalars["loss"].value.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("path", corpus_files("**/*_MS"), ids=lambda p: p.parent.name)
def test_corpus_scan_equals_protobuf_decode(path: Path) -> None:
    payloads = [bytes(r.payload) for r in RecordReader(path).read()]
    expected_scalars, expected_blobs = _reference(payloads)
    result = EventScanner().scan(RecordReader(path).read())
    assert not result.errors
    assert {t: len(c) for t, c in result.scalars.items()} == {
        t: len(p) for t, p in expected_scalars.items()
    }
    for tag, points in expected_scalars.items():
        values = np.array([p[2] for p in points], dtype=np.float32)
        np.testing.assert_array_equal(result.scalars[tag].value, values)
    assert {k: len(c) for k, c in result.blobs.items()} == {
        k: len(p) for k, p in expected_blobs.items()
    }


def test_a_long_run_of_one_tag_records_is_held_packed(tmp_path: Path) -> None:
    """A template packs its records into numpy blocks every _PACK_ROWS records, so that at no
    point does it hold more than that many records in Python lists (~400 bytes per record: a
    128 MB slice of one-tag records held 1.66 GB; 224 MB packed); every value still comes
    back bit-exact and in order (a histogram every 1,000 steps mixed in)."""
    path = tmp_path / "events.summary.1_MS"
    records = 20_000
    values = np.random.default_rng(1).standard_normal(records).astype(np.float32)
    rng = random.Random(2)
    with path.open("wb") as handle:
        for step, value in enumerate(values.tolist()):
            extra = [_histogram("w", rng)] if step % 1000 == 999 else []
            handle.write(frame_record(_event(step, [_scalar("loss", value), *extra], 1e9 + step)))
    scanner = EventScanner()
    listed: list[int] = []

    def watched(records: Iterator[Record]) -> Iterator[Record]:
        for record in records:
            listed.append(sum(len(t.record) for ts in scanner._templates.values() for t in ts))
            yield record

    result = scanner.scan(watched(RecordReader(path).read()))
    assert records > 2 * scan_module._PACK_ROWS
    assert max(listed) <= scan_module._PACK_ROWS
    np.testing.assert_array_equal(result.scalars["loss"].value, values)
    np.testing.assert_array_equal(result.scalars["loss"].step, np.arange(records))
    assert len(result.blobs[("histogram", "w")]) == records // 1000
