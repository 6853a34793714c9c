"""File classification and naming, as MindSpore writes and MindInsight recognises them.

MindSpore 2.10 ``SummaryRecord`` names its files
``{prefix}.out.events.summary.{unix seconds}.{device id}.{host}{suffix}`` with suffix ``_MS``
for summaries and ``_lineage`` for lineage. MindInsight's reader side
(``summary_watcher.py``, ``ms_data_loader.py``) matches ``summary\\.(\\d+)`` anywhere in the name:

* ends with ``_lineage`` -> lineage file;
* ends with ``_explain`` -> explain file (not part of a training job; ignored here);
* otherwise -> summary (event) file, whatever the suffix;
* no such match: a TensorBoard event file (``events.out.tfevents.<unix seconds>.<host>...``,
  any name holding ``tfevents`` as TensorBoard's ``IsTensorFlowEventsFile`` says) -> TensorBoard
  file, read by :mod:`.tensorboard`;
* ``*.pb`` except ``memory_usage_<n>.pb`` -> graph file; anything else ignored.
"""

from __future__ import annotations

import enum
import os
import re
import stat
from typing import BinaryIO

from dash_insight.core.format.remote import (
    RECORD_BLOCK_BYTES,
    RemoteFile,
    is_url,
    object_size,
)

SUMMARY_RE = re.compile(r"summary\.(\d+)")
TFEVENTS_RE = re.compile(r"tfevents\.(\d+)")
_MEMORY_USAGE_PB = re.compile(r"^memory_usage_\d+\.pb$")
LINEAGE_SUFFIX = "_lineage"
EXPLAIN_SUFFIX = "_explain"
#: The names :func:`classify` recognises, as the glob patterns a message shows them with (the
#: expressions above are the rule; tests check that each pattern's names are classified).
NAME_PATTERNS = ("*.summary.*", "*.summary.*" + LINEAGE_SUFFIX, "events.out.tfevents.*", "*.pb")


class FileKind(enum.Enum):
    SUMMARY = "summary"
    LINEAGE = "lineage"
    GRAPH = "graph"
    EXPLAIN = "explain"
    TENSORBOARD = "tensorboard"


#: Kinds holding summary events (merged by file-name timestamp, one scanner per file).
EVENT_KINDS = (FileKind.SUMMARY, FileKind.TENSORBOARD)


def is_tensorboard_name(name: str) -> bool:
    """True for a TensorBoard event file name (TensorBoard: ``"tfevents" in basename``)."""
    return "tfevents" in name


def classify(name: str) -> FileKind | None:
    """Kind of the file called ``name`` (a base name), or None when it is not ours."""
    match = SUMMARY_RE.search(name)
    if match is not None:
        # MindInsight drops names whose timestamp does not fit a datetime; keep the same rule.
        if file_timestamp(name) is None:
            return None
        if name.endswith(LINEAGE_SUFFIX):
            return FileKind.LINEAGE
        if name.endswith(EXPLAIN_SUFFIX):
            return FileKind.EXPLAIN
        return FileKind.SUMMARY
    if is_tensorboard_name(name):
        return FileKind.TENSORBOARD
    if name.endswith(".pb") and not _MEMORY_USAGE_PB.match(name):
        return FileKind.GRAPH
    return None


_MAX_TIMESTAMP = 253402300799  # 9999-12-31T23:59:59Z, the largest a datetime can show


def file_timestamp(name: str) -> int | None:
    """The ``summary.<seconds>`` (or TensorBoard's ``tfevents.<seconds>``) creation time in a
    file name (None when absent or absurd)."""
    match = SUMMARY_RE.search(name) or TFEVENTS_RE.search(name)
    if match is None:
        return None
    value = int(match.group(1))
    return value if value <= _MAX_TIMESTAMP else None


def summary_sort_key(name: str) -> tuple[int, str]:
    """Order in which a job's files are merged: by file-name timestamp, then by name.

    MindInsight breaks timestamp ties by name *descending*; that order is arbitrary (both files
    come from the same second) and we use ascending names, which matches what ``ls`` shows.
    """
    return (file_timestamp(name) or 0, name)


def summary_file_name(
    timestamp: int, device_id: int, host: str, prefix: str = "events", suffix: str = "_MS"
) -> str:
    """The name MindSpore's ``SummaryRecord`` gives a file it creates."""
    return f"{prefix}.out.events.summary.{timestamp}.{device_id}.{host}{suffix}"


def file_type_name(mode: int) -> str:
    """What a non-regular file is, in words (``st_mode`` of its ``stat``)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


class NotARegularFile(OSError):
    """A FIFO, socket, device or directory where a summary file was expected."""


def open_regular(
    path: str, follow_symlinks: bool = True, block_size: int = RECORD_BLOCK_BYTES
) -> BinaryIO:
    """``open(path, "rb")``, but only for a regular file (else :class:`NotARegularFile`);
    without ``follow_symlinks`` a symbolic link is refused too (``O_NOFOLLOW``).

    ``O_NONBLOCK``: opening a FIFO for reading otherwise waits for a writer, forever, holding
    whatever the caller holds (the loader's lock and its index transaction); reading a device
    like ``/dev/zero`` would never end. The type is checked on the opened descriptor, so a
    file swapped for a FIFO after it was listed is caught too. ``O_NONBLOCK`` changes nothing
    for reads of a regular file.

    A URL (``s3://...``, see :mod:`.remote`) opens a :class:`~.remote.RemoteFile` for ranged
    reads of ``block_size`` bytes (object stores hold regular files and no links only).
    """
    if is_url(path):
        return RemoteFile(path, block_size)  # type: ignore[return-value]
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(path, flags if follow_symlinks else flags | os.O_NOFOLLOW)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(f"{file_type_name(mode)}, not a regular file: skipped")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def handle_stat(handle: BinaryIO) -> os.stat_result:
    """``os.fstat`` of an open file; a remote file's :attr:`~.remote.RemoteFile.stat`."""
    if isinstance(handle, RemoteFile):
        return handle.stat
    return os.fstat(handle.fileno())


def file_size(path: str) -> int:
    """``os.path.getsize``, for a URL too."""
    if is_url(path):
        return object_size(path)
    return os.path.getsize(path)
