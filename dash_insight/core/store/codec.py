"""The bytes index entries are stored as: a format that cannot execute anything.

The project's rule: nothing a store (Redis, the index files) hands back is executed. Pickle
breaks it (unpickling a crafted value calls any function it names: one SET into a shared Redis
ran a shell command in every process of a fleet, issue #41), so every entry of both index
stores is written and read by this module instead:

* ``DIX`` + version byte + ``A``: **columns** (:class:`~.index.ScalarColumns`,
  :class:`~.index.BlobColumns`, :class:`~.chunks.SummaryPoints`): a 4-byte length, a JSON
  header (the layout's name; per array its dtype, length and encoding; a blob chunk's
  ``meta`` list), then the arrays' bytes compressed with zlib. Lossless encodings that make
  them compress: integer columns (steps, offsets) as their first value and differences, float64
  wall times as the XOR of each value's bits with the previous one, and every array
  byte-shuffled (byte 0 of every value, then byte 1, ...). Arrays are read with
  ``np.frombuffer`` of a dtype from an allow-list of plain numeric types.
* ``DIX`` + version byte + ``J``: **everything else** (job states, the job list, versions):
  JSON of a tagged tree. JSON objects are dicts with string keys; every JSON array is tagged
  by its first element: ``["l", ...]`` a list, ``["t", ...]`` a tuple, ``["s", ...]`` a set,
  ``["m", [k, v], ...]`` a dict with other keys, ``["b", "<base64>"]`` bytes, ``["c", name,
  {fields}]`` one of the state classes of :data:`_CLASSES` (built by their constructor from
  the fields: a dataclass or NamedTuple constructor only assigns).

:func:`decode` raises :class:`UndecodableEntry` for anything else (a pickle, another version,
damaged bytes): the stores treat such an entry as missing, and the job is read again from its
logs.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import struct
import zlib
from typing import Any

import numpy as np

from dash_insight.core.format.framing import Damage
from dash_insight.core.store.chunks import ChunkRef, Extreme, SummaryPoints
from dash_insight.core.store.state import FileState, GraphRecord, JobState, LineageRecord

#: The version written after the magic; bump when the layout changes (an entry of another
#: version is undecodable, so it is rebuilt).
CODEC_VERSION = 1
_MAGIC = b"DIX" + bytes([CODEC_VERSION])
_ARRAYS, _JSON = b"A", b"J"
_HEADER = struct.Struct("<I")
#: zlib's level: 1 is several times faster than the default 6 and compresses these columns
#: nearly as well (bench/fleet.py measures the bytes per value).
_LEVEL = 1
#: The dtypes an array may have: plain numbers (never ``object``, which would hold pickles).
_DTYPES = frozenset(
    np.dtype(name).str
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    )
)


class UndecodableEntry(ValueError):
    """The bytes are not an entry of this codec (a pickle, another version, damage)."""


def _column_classes() -> dict[str, type]:
    from dash_insight.core.store.index import BlobColumns, ScalarColumns

    return {cls.__name__: cls for cls in (ScalarColumns, BlobColumns, SummaryPoints)}


#: The classes a JSON entry may hold, by name.
_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (JobState, FileState, Damage, GraphRecord, LineageRecord, ChunkRef, Extreme)
}


def encode(value: Any) -> bytes:
    """The stored bytes of ``value``: columns as arrays, anything else as tagged JSON."""
    if isinstance(value, tuple) and type(value).__name__ in _column_classes():
        return _encode_columns(value)
    text = json.dumps(_tree(value), separators=(",", ":"), ensure_ascii=False)
    return _MAGIC + _JSON + text.encode()


def decode(raw: bytes | bytearray | memoryview) -> Any:
    """What :func:`encode` stored; :class:`UndecodableEntry` for any other bytes."""
    data = bytes(raw)
    if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 1:
        raise UndecodableEntry("not an entry of this index format")
    kind, body = data[len(_MAGIC) : len(_MAGIC) + 1], data[len(_MAGIC) + 1 :]
    try:
        if kind == _JSON:
            return _value(json.loads(body.decode()))
        if kind == _ARRAYS:
            return _decode_columns(body)
    except UndecodableEntry:
        raise
    except (ValueError, TypeError, KeyError, IndexError, zlib.error, struct.error) as error:
        raise UndecodableEntry(f"damaged entry: {error!r}") from None
    raise UndecodableEntry(f"unknown entry kind {kind!r}")


# -- JSON --
def _tree(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if dataclasses.is_dataclass(value) and type(value).__name__ in _CLASSES:
        fields = {f.name: _tree(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return ["c", type(value).__name__, fields]
    if isinstance(value, tuple) and type(value).__name__ in _CLASSES:
        named: Any = value  # a NamedTuple of _CLASSES
        return ["c", type(value).__name__, {k: _tree(v) for k, v in named._asdict().items()}]
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: _tree(item) for key, item in value.items()}
        return ["m", *([_tree(key), _tree(item)] for key, item in value.items())]
    if isinstance(value, list):
        return ["l", *(_tree(item) for item in value)]
    if isinstance(value, tuple):
        return ["t", *(_tree(item) for item in value)]
    if isinstance(value, set | frozenset):
        return ["s", *(_tree(item) for item in sorted(value, key=repr))]
    if isinstance(value, bytes | bytearray):
        return ["b", base64.b64encode(value).decode()]
    raise TypeError(f"the index cannot store a {type(value).__name__}")


def _value(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {key: _value(item) for key, item in tree.items()}
    if not isinstance(tree, list):
        return tree
    tag, items = tree[0], tree[1:]
    if tag == "l":
        return [_value(item) for item in items]
    if tag == "t":
        return tuple(_value(item) for item in items)
    if tag == "s":
        return {_value(item) for item in items}
    if tag == "m":
        return {_value(key): _value(item) for key, item in items}
    if tag == "b":
        return base64.b64decode(items[0], validate=True)
    if tag == "c":
        name, fields = items
        cls = _CLASSES[name]  # KeyError: not a class this index stores
        if not isinstance(fields, dict):
            raise TypeError("fields are not an object")
        return cls(**{key: _value(item) for key, item in fields.items()})
    raise UndecodableEntry(f"unknown tag {tag!r}")


# -- columns --
def _encode_columns(columns: Any) -> bytes:
    arrays, buffers = [], []
    meta = None
    for name, column in columns._asdict().items():
        if not isinstance(column, np.ndarray):
            meta = _tree(column)
            continue
        column = np.ascontiguousarray(column)
        if column.ndim != 1 or column.dtype.str not in _DTYPES:
            raise TypeError(f"{name}: the index stores 1-D numeric columns, not {column.dtype}")
        encoding, data = _transform(column)
        arrays.append({"name": name, "dtype": column.dtype.str, "n": len(column), "enc": encoding})
        buffers.append(data)
    header = json.dumps(
        {"type": type(columns).__name__, "arrays": arrays, "meta": meta}, separators=(",", ":")
    ).encode()
    body = zlib.compress(b"".join(buffers), _LEVEL)
    return _MAGIC + _ARRAYS + _HEADER.pack(len(header)) + header + body


def _transform(column: np.ndarray) -> tuple[str, bytes]:
    """A lossless encoding of ``column`` that zlib compresses well, and its bytes."""
    kind, size = column.dtype.kind, column.dtype.itemsize
    if kind in "iu" and len(column) > 1:
        wide = column.astype(np.int64 if kind == "i" else np.uint64, copy=False)
        out = np.empty_like(wide)
        out[0] = wide[0]
        np.subtract(wide[1:], wide[:-1], out=out[1:])  # wraps: undone exactly by cumsum
        return "delta", _shuffle(out.astype(column.dtype, copy=False))
    if kind == "f" and size == 8 and len(column) > 1:
        bits = column.view(np.uint64)
        out = bits.copy()
        out[1:] ^= bits[:-1]
        return "xor", _shuffle(out)
    return "raw", _shuffle(column)


def _shuffle(column: np.ndarray) -> bytes:
    size = column.dtype.itemsize
    return column.view(np.uint8).reshape(-1, size).T.tobytes() if size > 1 else column.tobytes()


def _decode_columns(body: bytes) -> Any:
    (length,) = _HEADER.unpack_from(body)
    header = json.loads(body[_HEADER.size : _HEADER.size + length])
    cls: Any = _column_classes()[header["type"]]
    expected = sum(np.dtype(spec["dtype"]).itemsize * int(spec["n"]) for spec in header["arrays"])
    # The output's size is known: one allocation instead of zlib's doubling buffer.
    data = zlib.decompress(body[_HEADER.size + length :], bufsize=max(1, expected))
    fields: dict[str, Any] = {}
    position = 0
    for spec in header["arrays"]:
        dtype, n, encoding = np.dtype(spec["dtype"]), int(spec["n"]), spec["enc"]
        if dtype.str not in _DTYPES or n < 0:
            raise UndecodableEntry(f"column {spec['name']!r} of dtype {dtype}")
        size = dtype.itemsize * n
        planes = np.frombuffer(data, np.uint8, size, position)
        position += size
        raw = planes.reshape(dtype.itemsize, n).T.copy() if dtype.itemsize > 1 else planes.copy()
        column = raw.view(dtype).reshape(n)
        if encoding == "delta":
            wide = np.int64 if dtype.kind == "i" else np.uint64
            column = np.cumsum(column.astype(wide), dtype=wide).astype(dtype)
        elif encoding == "xor":
            column = np.bitwise_xor.accumulate(column.view(np.uint64)).view(dtype)
        elif encoding != "raw":
            raise UndecodableEntry(f"unknown encoding {encoding!r}")
        fields[spec["name"]] = column
    if position != len(data):
        raise UndecodableEntry("column bytes do not match the header")
    for name in cls._fields:
        if name not in fields:
            fields[name] = _value(header["meta"])
    return cls(**fields)
