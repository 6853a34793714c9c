"""Summary logs on object storage and other filesystems fsspec reaches (``s3://``, ``gs://``,
``hdfs://``, ``memory://``, ...).

A summary base directory given as a URL is read through `fsspec <https://filesystem-spec.
readthedocs.io>`_: the filesystem's own listing finds the files (one recursive listing per
round, not one request per directory), and files are read with ranged reads from where reading
stopped. Credentials come the usual way of each filesystem (for S3 the AWS chain: environment,
``~/.aws/credentials``, instance roles; fsspec's own ``FSSPEC_<PROTOCOL>_<OPTION>`` environment
variables and config files for options such as an endpoint), never from the command line.

Object stores have no inodes and no appends: an object is replaced whole, and a growing summary
file reaches the store as a longer copy (a new ETag). What says "same file, grown" is therefore
its content: the reader keeps a digest of the first and last :data:`DIGEST_BYTES` bytes before
the offset where it stopped (:func:`prefix_digest`), and an object whose bytes there differ, or
that is shorter than that offset, was replaced and is read again from its start. A new version
of the same size is a replacement too (nothing was appended).

There are no symbolic links on object stores; every key read is one the listing of the base
prefix returned (or a train_id below it, checked by
:func:`dash_insight.core.store.discovery.resolve_train_id`), so nothing outside the prefix is
read. ``file://`` URLs are served as plain local paths (the fast path, with its symlink rules).

fsspec is imported on first use only: a local base directory never imports it.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
import stat as stat_mode
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dash_insight.core.lazy_import import import_module

#: ``scheme://``: what makes a summary base directory a URL (a Windows drive ``C:\\`` is not).
URL_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*)://")
#: Bytes at each end of the part already read that identify a remote file (see module doc).
DIGEST_BYTES = 64
#: Read-ahead block of the loader's sequential reads (one ranged GET per block).
SCAN_BLOCK_BYTES = 8 << 20
#: Block of a single record's read (an image, a graph): one GET for most records.
RECORD_BLOCK_BYTES = 1 << 20
#: Protocols whose first path segment is a bucket (a URL without one cannot be served).
BUCKET_PROTOCOLS = frozenset(
    {"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss", "obs", "r2"}
)


class RemoteError(OSError):
    """A URL that cannot be served: unknown protocol, missing package, missing bucket."""


def is_url(path: str) -> bool:
    """True for ``scheme://...`` (served through fsspec), False for a local path."""
    return URL_RE.match(path) is not None


def protocol_of(url: str) -> str:
    match = URL_RE.match(url)
    return match.group(1).lower() if match else ""


def normalise_url(url: str) -> str:
    """``url`` without trailing slashes (``memory://`` keeps its root)."""
    stripped = url.rstrip("/")
    return stripped if not stripped.endswith(":/") and not stripped.endswith(":") else url


def local_path_of(url: str) -> str | None:
    """The local path of a ``file://`` URL (served as a plain path), else None."""
    if protocol_of(url) in ("file", "local"):
        return url[URL_RE.match(url).end() :] or "/"  # type: ignore[union-attr]
    return None


def filesystem(url: str) -> tuple[Any, str]:
    """(fsspec filesystem, path within it) of ``url``; :class:`RemoteError` with a one-line
    reason when the protocol is unknown or its package is not installed."""
    fsspec = import_module("fsspec")
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as error:  # e.g. s3fs for s3://
        raise RemoteError(
            f"{url}: the filesystem package for {protocol_of(url)}:// is not "
            f"installed ({_one_line(error)})"
        ) from None
    except ValueError as error:  # "Protocol not known"
        raise RemoteError(
            f"{url}: unknown protocol {protocol_of(url)!r} ({_one_line(error)})"
        ) from None
    except Exception as error:  # a filesystem that connects when made (hdfs://) and cannot
        raise RemoteError(f"{url}: cannot connect: {_one_line(error)}") from None
    return fs, path


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text[:300] or type(error).__name__


def check_base_url(url: str) -> None:
    """Raise :class:`RemoteError` (one line) unless ``url`` names a directory (a prefix holding
    objects, or a bucket) that can be listed."""
    protocol = protocol_of(url)
    fs, path = filesystem(url)
    root = path.strip("/")
    if protocol in BUCKET_PROTOCOLS and not root:
        raise RemoteError(f"{url}: the URL names no bucket ({protocol}://bucket/prefix)")
    try:
        fs.invalidate_cache()
        if fs.isfile(path):
            raise RemoteError(f"summary base directory is a file, not a directory: {url}")
        if not fs.isdir(path):
            raise RemoteError(f"summary base directory not found: {url}")
    except RemoteError:
        raise
    except Exception as error:  # credentials, network, a missing bucket: the store says why
        raise RemoteError(
            f"summary base directory cannot be listed: {url}: {_one_line(error)}"
        ) from None


@dataclass(frozen=True)
class RemoteObject:
    """One file found under a base URL: its directory relative to the base ("" for the base
    itself, "a/b" below), name, size, modification time and version (ETag, generation or the
    modification time: what changes when the object is written)."""

    directory: str
    name: str
    size: int
    mtime: float
    version: str


def _mtime(info: dict[str, Any]) -> float:
    for key in ("LastModified", "mtime", "updated", "last_modified", "modified", "created"):
        value = info.get(key)
        if isinstance(value, datetime.datetime):
            return value.timestamp()
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return 0.0


def _version(info: dict[str, Any], mtime: float) -> str:
    for key in ("ETag", "etag", "generation", "md5Hash", "VersionId"):
        value = info.get(key)
        if value:
            return str(value)
    return repr(mtime)


def list_objects(url: str, max_depth: int | None = None) -> Iterator[RemoteObject]:
    """Every file below ``url`` (directories at most ``max_depth`` levels below it), from one
    recursive listing of the store (fresh: fsspec's listing cache is dropped first). Keys
    outside the prefix, and keys with empty, ``.`` or ``..`` segments (which a train_id cannot
    name), are left out. Raises what the store raises (OSError for a missing prefix)."""
    fs, path = filesystem(url)
    root = path.rstrip("/")
    fs.invalidate_cache(root or None)
    prefix = root + "/"
    depth = None if max_depth is None else max_depth + 1  # files sit one below their job
    found = fs.find(root or "/", maxdepth=depth, withdirs=False, detail=True)
    for key, info in found.items():
        if info.get("type", "file") != "file" or not key.startswith(prefix):
            continue
        relative = key[len(prefix) :]
        directory, _, name = relative.rpartition("/")
        if not name or any(part in ("", ".", "..") for part in relative.split("/")):
            continue
        mtime = _mtime(info)
        yield RemoteObject(
            directory, name, int(info.get("size") or 0), mtime, _version(info, mtime)
        )


class RemoteFile:
    """A remote file opened for ranged reads, with :attr:`stat` as ``os.fstat`` gives it for a
    local one (inode 0: object stores have none)."""

    def __init__(self, url: str, block_size: int = SCAN_BLOCK_BYTES) -> None:
        fs, path = filesystem(url)
        self._fs, self._path = fs, path
        fs.invalidate_cache(path)  # the size must be the store's, not a cached listing's
        info = fs.info(path)
        if info.get("type", "file") != "file":
            raise IsADirectoryError(f"not a file: {url}")
        mtime = _mtime(info)
        self.version = _version(info, mtime)
        self.stat = os.stat_result(
            (
                stat_mode.S_IFREG | 0o444,
                0,
                0,
                1,
                0,
                0,
                int(info.get("size") or 0),
                mtime,
                mtime,
                mtime,
            )
        )
        self._handle = fs.open(path, "rb", block_size=block_size, cache_type="readahead")

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._handle.read(size)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        position: int = self._handle.seek(offset, whence)
        return position

    def tell(self) -> int:
        position: int = self._handle.tell()
        return position

    def read_range(self, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` in one ranged read, leaving the sequential read-ahead alone."""
        if end <= start:
            return b""
        data: bytes = self._fs.cat_file(self._path, start=start, end=end)
        return data

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> RemoteFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def prefix_digest(handle: RemoteFile, end: int) -> bytes:
    """What identifies the first ``end`` bytes of a remote file: a digest of its first and last
    :data:`DIGEST_BYTES` bytes before ``end`` (and of ``end``). The first record of a summary
    file is its version event with the writer's wall time, so two files written apart differ
    there; the last bytes are the CRC-checked end of the last record read."""
    head = handle.read_range(0, min(end, DIGEST_BYTES))
    tail = handle.read_range(max(0, end - DIGEST_BYTES), end)
    return hashlib.blake2b(b"%d|" % end + head + b"|" + tail, digest_size=16).digest()


def read_range(url: str, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of the file at ``url`` in one ranged read (no listing, no
    ``HEAD``): how a single record (an image, a graph) is read back."""
    if end <= start:
        return b""
    fs, path = filesystem(url)
    data: bytes = fs.cat_file(path, start=start, end=end)
    return data


class RangeCache:
    """Blocks of remote files read back recently, so that the many small records one answer
    reads (a histogram tag's every step, an image strip) cost one ranged read per block
    (``block_bytes``) instead of two per record. A block is trusted for ``ttl`` seconds only,
    and a block that ends short (the end of the file then) serves only the bytes it has: a
    record read from it that fails its checks is read again from the store (see
    :func:`dash_insight.core.format.framing.read_record_at`). Held by the service that reads
    (the data provider), at most ``max_bytes`` in memory."""

    def __init__(
        self,
        block_bytes: int = RECORD_BLOCK_BYTES,
        max_bytes: int = 64 << 20,
        ttl: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.block_bytes, self.max_bytes, self.ttl = block_bytes, max_bytes, ttl
        self._clock = clock
        self._blocks: OrderedDict[tuple[str, int], tuple[float, bytes]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def _block(self, url: str, number: int) -> bytes:
        key, now = (url, number), self._clock()
        with self._lock:
            found = self._blocks.get(key)
            if found is not None and now - found[0] < self.ttl:
                self._blocks.move_to_end(key)
                return found[1]
        data = read_range(url, number * self.block_bytes, (number + 1) * self.block_bytes)
        with self._lock:
            old = self._blocks.pop(key, None)
            self._bytes += len(data) - (len(old[1]) if old else 0)
            self._blocks[key] = (now, data)
            while self._bytes > self.max_bytes and self._blocks:
                self._bytes -= len(self._blocks.popitem(last=False)[1][1])
        return data

    def read(self, url: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of ``url`` (fewer at the end of a block that ends short)."""
        if end - start > self.max_bytes // 4:  # a large record: straight from the store
            return read_range(url, start, end)
        parts = []
        for number in range(start // self.block_bytes, (end - 1) // self.block_bytes + 1):
            block = self._block(url, number)
            base = number * self.block_bytes
            parts.append(block[max(0, start - base) : end - base])
            if len(block) < self.block_bytes:
                break
        return b"".join(parts)

    def forget(self, url: str) -> None:
        """Drop the blocks of ``url`` (its bytes did not check out)."""
        with self._lock:
            for key in [k for k in self._blocks if k[0] == url]:
                self._bytes -= len(self._blocks.pop(key)[1])


def object_size(url: str) -> int:
    """Size of the file at ``url``, fresh from the store."""
    fs, path = filesystem(url)
    fs.invalidate_cache(path)
    return int(fs.size(path))


def url_join(base: str, *parts: str) -> str:
    """``base/part/...`` for a URL (``os.path.join`` is for local paths only)."""
    head = base if base.endswith("/") else base + "/"
    return head + "/".join(part.strip("/") for part in parts if part)
