"""Hostile records for the fault tests: tensors with absurd dims, and huge image records written
as sparse files (a 1 GiB record takes a few KB of disk)."""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Sequence
from pathlib import Path

import google_crc32c

from dash_insight.core.format.framing import frame_record, masked_crc32c
from dash_insight.core.format.protos import anf_ir_pb2, summary_pb2

_ZEROS = bytes(16 << 20)
_FLOAT32 = anf_ir_pb2.DataType.Value("DT_FLOAT32")


def append_records(path: Path, payloads: Sequence[bytes]) -> None:
    with open(path, "ab") as handle:
        for payload in payloads:
            handle.write(frame_record(payload))


def scalar_event(tag: str, step: int, value: float) -> bytes:
    event = summary_pb2.Event(wall_time=time.time(), step=step)
    event.summary.value.add(tag=tag, scalar_value=value)
    return event.SerializeToString()


def tensor_event(tag: str, step: int, dims: Sequence[int], values: Sequence[float] = ()) -> bytes:
    """An Event holding one tensor value whose header claims ``dims`` (whatever ``values``
    holds)."""
    event = summary_pb2.Event(wall_time=time.time(), step=step)
    value = event.summary.value.add(tag=tag)
    value.tensor.dims.extend(dims)
    value.tensor.data_type = _FLOAT32
    value.tensor.float_data.extend(values)
    return event.SerializeToString()


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        if not number:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


def _field(number: int, length: int) -> bytes:
    """The key and length of a length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(length)


def _image_event_prefix(tag: bytes, step: int, image_bytes: int) -> bytes:
    """The bytes of ``Event{wall_time, step, summary{value{tag, image{1, 1, 3, encoded_image}}}}``
    up to the ``image_bytes`` bytes of ``encoded_image``."""
    image_head = b"\x08\x01\x10\x01\x18\x03" + _field(4, image_bytes)
    value_head = _field(1, len(tag)) + tag + _field(4, len(image_head) + image_bytes)
    value_len = len(value_head) + len(image_head) + image_bytes
    summary_head = _field(1, value_len)
    event_head = (
        b"\x09"
        + struct.pack("<d", time.time())
        + b"\x10"
        + _varint(step)
        + _field(5, len(summary_head) + value_len)
    )
    return event_head + summary_head + value_head + image_head


def _masked(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def append_sparse_image(path: Path, payload_bytes: int, tag: str = "big", step: int = 1) -> None:
    """Append one framed image record of exactly ``payload_bytes`` bytes whose encoded image is
    all zeros, as a hole: the file grows by ``payload_bytes`` but takes only its own blocks of
    header and CRC on disk. Both CRCs are valid, so only its size is wrong with it."""
    for image_bytes in range(payload_bytes - 20, payload_bytes - 80, -1):
        prefix = _image_event_prefix(tag.encode(), step, image_bytes)
        if len(prefix) + image_bytes == payload_bytes:
            break
    else:  # pragma: no cover - some length always fits
        raise ValueError(f"no image record of {payload_bytes} bytes")
    crc = google_crc32c.Checksum(prefix)
    left = image_bytes
    while left:
        chunk = min(left, len(_ZEROS))
        crc.update(_ZEROS[:chunk])
        left -= chunk
    length = struct.pack("<Q", payload_bytes)
    with open(path, "r+b" if path.exists() else "wb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.write(length + struct.pack("<I", masked_crc32c(length)) + prefix)
        handle.seek(image_bytes, os.SEEK_CUR)
        handle.write(struct.pack("<I", _masked(int.from_bytes(crc.digest(), "big"))))
