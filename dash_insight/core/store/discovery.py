"""Training jobs under a summary base directory.

A training job is any directory under the base directory (the base itself included, at any
depth up to ``max_depth``) that directly holds summary, lineage or graph (``.pb``) files, or a
profiler directory (MindInsight's ``profiler*`` with ``profiler_info_<d>.json``, or MindSpore
>= 2.5's ``*_ascend_ms/``: :mod:`dash_insight.core.format.profiler`); its ``train_id`` is its
path relative to the base, ``./`` for the base itself and ``./a/b`` below. Symlinks (to files or
directories) are never followed, so nothing outside the base is read.

MindInsight looked one level deep only, listed at most 999 jobs (the oldest, by a quirk) and
took a job's update time from its newest-named file; we list every job, newest first, with the
update time of the most recently modified file.

A base directory given as a URL (``s3://bucket/prefix``, :mod:`dash_insight.core.format.remote`)
is listed with the store's own recursive listing; its jobs' paths are URLs and their files carry
the object's version (ETag). Profiler directories are not looked for there.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mode
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from dash_insight.core.format.files import (
    FileKind,
    classify,
    file_timestamp,
    file_type_name,
    summary_sort_key,
)
from dash_insight.core.format.profiler import ProfilerDir, primary_profiler_dir, profiler_dir_of
from dash_insight.core.format.reasons import CANNOT_LIST_DIRECTORY, NOT_A_REGULAR_FILE
from dash_insight.core.format.remote import is_url, list_objects, url_join


@dataclass(frozen=True)
class FileInfo:
    """One summary, lineage or graph file of a job, as last seen on disk."""

    name: str
    kind: FileKind
    size: int
    mtime: float
    inode: int
    timestamp: int | None  # the summary.<seconds> creation time in the name
    #: A remote file's version (ETag...): a new one of the same size means "replaced"; "" for
    #: a local file (its inode says that).
    version: str = ""

    @property
    def identity(self) -> tuple[int, int | None]:
        """What says "same file": a replaced file (new inode or name timestamp) is re-read."""
        return (self.inode, self.timestamp)


@dataclass(frozen=True)
class JobInfo:
    """A training job directory and its files (summaries in merge order)."""

    train_id: str
    path: str
    files: tuple[FileInfo, ...]
    create_time: float
    update_time: float
    errors: tuple[str, ...] = field(default=())
    profilers: tuple[ProfilerDir, ...] = field(default=())
    #: False for a directory that could not be listed (``errors`` says why): whatever jobs it
    #: holds are unknown, not gone.
    listed: bool = True

    @property
    def profiler(self) -> ProfilerDir | None:
        """The profiler directory the job reports (MindInsight's ``profiler_dir``)."""
        return primary_profiler_dir(self.profilers)

    @property
    def profiler_dir(self) -> str | None:
        """``./profiler``: the reported profiler directory relative to the job, or None."""
        profiler = self.profiler
        return None if profiler is None else "./" + os.path.basename(profiler.path)

    @property
    def profiler_type(self) -> str:
        """``cpu``, ``gpu`` or ``ascend`` (MindInsight's rule); "" without profiler data."""
        profiler = self.profiler
        return "" if profiler is None else profiler.profiler_type

    @property
    def profiler_graph_mode(self) -> str:
        """MindInsight's ``graph_mode`` of a profiled job: ``dynamic`` when the profiler
        directory holds a ``dynamic_shape_info*`` file, else ``static``; "" without one."""
        profiler = self.profiler
        if profiler is None:
            return ""
        return "dynamic" if profiler.dynamic_shape else "static"


def train_id_of(base: str, directory: str) -> str:
    """``./`` for the base directory itself, ``./a/b`` for ``base/a/b``."""
    if is_url(base):
        relative = directory[len(base) :].strip("/") if directory.startswith(base) else ""
        return "./" + relative if relative else "./"
    relative = os.path.relpath(directory, base)
    return "./" if relative == "." else "./" + relative.replace(os.sep, "/")


def _job(
    base: str,
    directory: str,
    files: list[FileInfo],
    errors: list[str],
    profilers: list[ProfilerDir],
) -> JobInfo:
    # TensorBoard event files merge with MindSpore summaries by their name timestamps.
    order = {FileKind.SUMMARY: 0, FileKind.TENSORBOARD: 0, FileKind.LINEAGE: 1, FileKind.GRAPH: 2}
    files.sort(key=lambda f: (order[f.kind], summary_sort_key(f.name)))
    stamps = [f.timestamp for f in files if f.timestamp is not None]
    times = [f.mtime for f in files] + [p.update_time for p in profilers if p.update_time]
    return JobInfo(
        train_id=train_id_of(base, directory),
        path=directory,
        files=tuple(files),
        create_time=float(min(stamps)) if stamps else min(times, default=0.0),
        update_time=max(times, default=0.0),
        errors=tuple(errors),
        profilers=tuple(profilers),
    )


def discover_jobs(base: str, max_depth: int | None = None) -> list[JobInfo]:
    """Every job under ``base`` (depth 0 = the base itself), newest update first, then by
    train_id. Never raises. A file that vanishes or cannot be stat-ed while listing, or that is
    named like ours but is not a regular file (a FIFO would block whoever opens it), is named in
    its job's ``errors``; a directory holding only such entries is a job too, so that they are
    reported. A directory that cannot be listed (permissions) is returned as a job with
    ``listed=False`` and the reason in ``errors``; one that vanished while listing is skipped."""
    if is_url(base):
        return _discover_remote_jobs(base, max_depth)
    jobs = [job for job in _walk(os.path.abspath(base), max_depth) if job is not None]
    jobs.sort(key=lambda job: (-job.update_time, job.train_id))
    return jobs


def holds_no_job(base: str, max_depth: int | None = None, max_directories: int = 2000) -> bool:
    """True when the local directory ``base`` certainly holds no job (nothing
    :func:`discover_jobs` would list): every directory down to ``max_depth`` was looked at.
    False at the first job found, for a URL, and when there are more than ``max_directories``
    directories to look at (a start-up warning must not walk a whole home folder)."""
    if is_url(base):
        return False
    for looked_at, job in enumerate(_walk(os.path.abspath(base), max_depth), 1):
        if job is not None or looked_at > max_directories:
            return False
    return True


def _walk(base: str, max_depth: int | None) -> Iterator[JobInfo | None]:
    """One item per directory listed under the absolute ``base`` (depth first): its job, or
    None when it holds none (lazy, so that :func:`holds_no_job` can stop early)."""
    pending: list[tuple[str, int]] = [(base, 0)]
    while pending:
        directory, depth = pending.pop()
        files: list[FileInfo] = []
        errors: list[str] = []
        profilers: list[ProfilerDir] = []
        descend = max_depth is None or depth < max_depth
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    try:
                        if entry.is_symlink():
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            profiler = profiler_dir_of(entry)
                            if profiler is not None:
                                profilers.append(profiler)
                            if descend:
                                pending.append((entry.path, depth + 1))
                            continue
                        _list_file(entry, files, errors)
                    except OSError as error:  # vanished or unreadable entry
                        errors.append(f"{entry.name}: {error.strerror or error}")
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.ENOTDIR):  # not just gone meanwhile
                yield JobInfo(
                    train_id_of(base, directory),
                    directory,
                    (),
                    0.0,
                    0.0,
                    (CANNOT_LIST_DIRECTORY.format(error=error.strerror or error),),
                    listed=False,
                )
            else:
                yield None
            continue
        if files or profilers or errors:
            profilers.sort(key=lambda p: p.path)
            yield _job(base, directory, files, errors, profilers)
        else:
            yield None


def _list_file(entry: os.DirEntry[str], files: list[FileInfo], errors: list[str]) -> None:
    """Adds the file ``entry`` to ``files`` when it is one the loader reads, or why it cannot
    be read to ``errors`` (a FIFO or socket named like a summary); OSError when it vanished."""
    kind = classify(entry.name)
    if kind is None or kind is FileKind.EXPLAIN:
        return
    stat = entry.stat(follow_symlinks=False)
    if not stat_mode.S_ISREG(stat.st_mode):
        errors.append(NOT_A_REGULAR_FILE.format(name=entry.name, kind=file_type_name(stat.st_mode)))
        return
    files.append(
        FileInfo(
            entry.name,
            kind,
            stat.st_size,
            stat.st_mtime,
            stat.st_ino,
            file_timestamp(entry.name),
        )
    )


def discover_job(base: str, train_id: str) -> JobInfo | None:
    """The job ``train_id`` of ``base`` as it is on disk now (listed like
    :func:`discover_jobs` lists it), or None when its directory is gone, is no job any more,
    or is reached through a symlink (nothing outside the base is read)."""
    if is_url(base):  # one listing of the job's prefix, as discover_jobs lists it
        relative = train_id[2:] if train_id.startswith("./") else train_id
        if ".." in relative.split("/"):
            return None
        directory = url_join(base, relative)
        found = [
            job
            for job in _discover_remote_jobs(directory, max_depth=0)
            if job.train_id == "./" and job.listed
        ]
        return replace(found[0], train_id=train_id, path=directory) if found else None
    base = os.path.realpath(base)
    relative = train_id[2:] if train_id.startswith("./") else train_id
    directory = os.path.normpath(os.path.join(base, relative)) if relative else base
    if os.path.realpath(directory) != directory or not (
        directory == base or directory.startswith(base + os.sep)
    ):
        return None
    found = [job for job in discover_jobs(directory, max_depth=0) if job.train_id == "./"]
    if not found or not found[0].listed:
        return None
    return replace(found[0], train_id=train_id)


def _discover_remote_jobs(base: str, max_depth: int | None) -> list[JobInfo]:
    """:func:`discover_jobs` of a URL: one listing of the store, grouped by directory. A store
    that cannot be listed gives the base as one job with ``listed=False``, as a local
    directory that cannot be listed does."""
    by_directory: dict[str, list[FileInfo]] = {}
    try:
        for item in list_objects(base, max_depth):
            kind = classify(item.name)
            if kind is None or kind is FileKind.EXPLAIN:
                continue
            by_directory.setdefault(item.directory, []).append(
                FileInfo(
                    item.name,
                    kind,
                    item.size,
                    item.mtime,
                    0,
                    file_timestamp(item.name),
                    item.version,
                )
            )
    except FileNotFoundError:
        return []
    except Exception as error:  # credentials, network: keep what was read, say why
        reason = " ".join(str(error).split())[:300] or type(error).__name__
        return [
            JobInfo(
                "./",
                base,
                (),
                0.0,
                0.0,
                (CANNOT_LIST_DIRECTORY.format(error=reason),),
                listed=False,
            )
        ]
    jobs = [
        _job(base, url_join(base, directory), files, [], [])
        for directory, files in by_directory.items()
    ]
    jobs.sort(key=lambda job: (-job.update_time, job.train_id))
    return jobs


def train_id_parts(train_id: str) -> list[str]:
    """The directory names of ``train_id`` below the base directory (``[]`` for ``./``), read
    from the id alone (no I/O); ValueError when the id is malformed (NUL byte, not ``./...``,
    empty, ``.`` or ``..`` parts)."""
    if not isinstance(train_id, str) or "\x00" in train_id:
        raise ValueError("train_id must be a string without NUL bytes")
    if train_id in ("./", "."):
        relative = ""
    elif train_id.startswith("./"):
        relative = train_id[2:]
    else:
        raise ValueError(f"train_id {train_id!r} must start with './'")
    parts = relative.split("/") if relative else []
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"train_id {train_id!r} is not a normalised relative path")
    return parts


def resolve_train_id(base: str, train_id: str) -> str:
    """The directory of ``train_id`` inside ``base``; ValueError when the id is malformed
    (:func:`train_id_parts`) or would resolve outside the base directory (symlinks)."""
    parts = train_id_parts(train_id)
    if is_url(base):  # no links on a store; the parts checked above stay below the prefix
        return url_join(base, *parts)
    base_real = os.path.realpath(base)
    path = os.path.join(base_real, *parts)
    if os.path.realpath(path) != os.path.normpath(path):
        raise ValueError(f"train_id {train_id!r} goes through a symbolic link")
    if os.path.commonpath([base_real, path]) != base_real:
        raise ValueError(f"train_id {train_id!r} is outside the summary base directory")
    return path
