"""The profiler plugin's service: finds a job's profiler directory safely and keeps parsed
profiles in a bounded LRU keyed by file identity.

Profiler files are not indexed by the loader (they are small tables plus one launch list, read
in well under a second even for 200,000 launches); they are parsed on first use and kept while
their identity - (path, inode, size, modification time) of every file read - is unchanged, so a
re-written profile is parsed again and a stale one is never served.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from dash_insight.core.format.profiler import (
    FRAMEWORK_PREFIX,
    INFO_PREFIX,
    OP_DETAIL_PREFIX,
    OP_TYPE_PREFIX,
    TIMESTAMP_PREFIX,
    FrameworkTable,
    LaunchTable,
    Problem,
    ProfilerDir,
    parse_framework,
    parse_op_detail_csv,
    parse_op_type_csv,
    parse_profiler_info,
    parse_timestamps,
    parse_trace_view,
    read_profiler_dir,
    read_text,
)
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.store.discovery import resolve_train_id
from dash_insight.core.store.lru import ByteLRU
from dash_insight.plugins.profiler.query_profile import (
    OpTables,
    Profile,
    build_profile,
    build_tables,
    input_shapes,
    sorted_launches,
)

V = TypeVar("V")
T = TypeVar("T")

#: Parsed profiles kept per process (a 200,000-launch profile is ~10 MB).
CACHE_BYTES = 256 << 20


class _Sized:
    """A cache entry whose size is given, not measured: the LRU's generic measure walks every
    object of a profile (a second for 200,000 launches)."""

    def __init__(self, value: Any, nbytes: int) -> None:
        self.value = value
        self.nbytes = nbytes

    def __sizeof__(self) -> int:
        return self.nbytes


def _tables_bytes(tables: OpTables | Profile) -> int:
    return 600 * (len(tables.details) + len(tables.types))


def _profile_bytes(profile: Profile) -> int:
    launches = profile.launches
    arrays = [launches.op, launches.start_us, launches.duration_us, launches.step]
    return (
        sum(a.nbytes for a in arrays)
        + _tables_bytes(profile)
        + sum(len(name) + 60 for name in launches.names)
    )


#: Bytes a parsed table file is counted for, per character of its text: rows of Python floats
#: and strings take several times their text (an estimate: measuring walks every object).
PARSED_BYTES_PER_CHAR = 8


class LocateError(Exception):
    """Why a (train_id, profiler dir) pair cannot be read: ``kind`` is ``invalid`` (outside the
    base directory, ``..``, a symbolic link), ``no_job`` or ``no_dir``; ``path`` the absolute
    directory that is missing."""

    def __init__(self, kind: str, message: str, path: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.path = path


class ProfileUnavailable(DataError):
    """The page cannot show a profile (no profiler data, unknown job...); ``str()`` says why."""


@dataclass(frozen=True)
class Location:
    """A resolved profiler directory of a job."""

    train_id: str
    profile: str  # as given ("./profiler")
    path: str  # absolute, inside the base directory, no symbolic link on the way


def _identity(path: str | None) -> tuple[Any, ...]:
    if path is None:
        return (None,)
    try:
        stat = os.stat(path, follow_symlinks=False)
    except OSError:
        return (path, None)
    return (path, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _absent(value: V) -> tuple[V, list[Problem]]:
    """What a parser answers for a file that is absent or unreadable: ``value``, no problems."""
    return value, []


def _no_info() -> tuple[dict[str, Any], list[Problem]]:
    """An absent ``profiler_info`` file: no facts, no problems."""
    return {}, []


class ProfilerService:
    """Profiler data of the jobs under one summary base directory."""

    def __init__(self, provider: DataProvider, cache_bytes: int = CACHE_BYTES) -> None:
        self.provider = provider
        self.base_dir = provider.base_dir
        self._cache = ByteLRU(cache_bytes)
        # One build at a time: a page's callbacks ask for the same profile at once, and two
        # parallel parses of 200,000 launches would each take twice as long on a busy CPU.
        self._build_lock = threading.Lock()
        self.parses = 0  # files parsed (tests check the cache with it)

    @classmethod
    def from_data(cls, data: DataService) -> ProfilerService:
        return cls(data.provider)

    # -- locating --------------------------------------------------------------------------
    def locate(self, train_id: str, profile: str) -> Location:
        """``<base>/<train_id>/<profile>`` if it is inside the base directory without a symbolic
        link on the way; MindInsight's checks follow (the profiler directory's parent - the
        job - must exist, then the directory)."""
        relative = (
            train_id if train_id.startswith("./") or train_id in (".", "./") else "./" + train_id
        )
        parts = profile.replace("\\", "/").split("/")
        if "\x00" in profile or profile.startswith("/") or ".." in parts:
            raise LocateError("invalid", "Invalid profiler dir")
        try:
            job = resolve_train_id(self.base_dir, relative)
        except ValueError:
            raise LocateError("invalid", "Invalid profiler dir") from None
        path = os.path.normpath(os.path.join(job, *[p for p in parts if p not in ("", ".")]))
        base = os.path.realpath(self.base_dir)
        if os.path.commonpath([base, path]) != base or os.path.realpath(path) != path:
            raise LocateError("invalid", "Invalid profiler dir")
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            raise LocateError("no_job", "Train job is not exist.", parent)
        if not os.path.isdir(path):
            raise LocateError("no_dir", f"The dir <{path}> not found.", path)
        return Location(train_id, profile, path)

    def directory(self, location: Location) -> ProfilerDir:
        return read_profiler_dir(location.path)

    def job_location(self, train_id: str, profile: str | None = None) -> Location:
        """The page's profiler directory: ``profile`` if given, else the one the job reports;
        ProfileUnavailable (with a message for the user) when there is none."""
        try:
            job = self.provider.job(train_id)
        except DataError as error:
            raise ProfileUnavailable(str(error)) from None
        chosen = profile or job.profiler_dir
        if not chosen:
            raise ProfileUnavailable(
                _(
                    "{job} has no profiler data: profile a run with mindspore.Profiler"
                    "(output_path=<this job's directory>) and call analyse()."
                ).format(job=train_id)
            )
        try:
            return self.locate(train_id, chosen)
        except LocateError as error:
            raise ProfileUnavailable(f"{chosen}: {error}") from None

    # -- parsing ---------------------------------------------------------------------------
    def _parsed(self, kind: str, path: str, parse: Callable[[str, str], T], keep: bool) -> T:
        def build() -> T:
            self.parses += 1
            return parse(read_text(path), os.path.basename(path))

        def sized() -> _Sized:
            text = read_text(path)
            self.parses += 1
            return _Sized(
                parse(text, os.path.basename(path)), PARSED_BYTES_PER_CHAR * len(text) + 1024
            )

        if not keep:
            return build()
        return self._cache.get_or_compute((kind, *_identity(path)), sized).value

    def _read(
        self,
        kind: str,
        path: str | None,
        parse: Callable[[str, str], T],
        empty: T,
        problems: list[Problem],
        keep: bool = True,
    ) -> T:
        """Parse ``path`` (kept in the cache unless ``keep`` is false: the launch files are
        only read into a profile, which is kept); an unreadable file is a problem, not an
        exception."""
        if path is None:
            return empty
        try:
            return self._parsed(kind, path, parse, keep)
        except OSError as error:
            problems.append(
                Problem(os.path.basename(path), None, f"cannot read: {error.strerror or error}")
            )
            return empty

    def op_tables(
        self, found: ProfilerDir, device: str
    ) -> tuple[list[Any], list[Any], list[Problem]]:
        """(type stats, detail stats, problems) of ``device``: empty tables when its file is
        missing, as MindInsight answers."""
        problems: list[Problem] = []
        types = self._read(
            "types", found.file(device, OP_TYPE_PREFIX), parse_op_type_csv, None, problems
        )
        details = self._read(
            "details", found.file(device, OP_DETAIL_PREFIX), parse_op_detail_csv, None, problems
        )
        type_rows = types.rows if types else []
        detail_rows = details.rows if details else []
        problems += (types.problems if types else []) + (details.problems if details else [])
        return type_rows, detail_rows, problems

    def info(self, found: ProfilerDir, device: str) -> dict[str, Any]:
        """``profiler_info_<device>.json`` ({} when absent or unreadable)."""
        problems: list[Problem] = []
        info, _unused = self._read(
            "info", found.file(device, INFO_PREFIX), parse_profiler_info, _no_info(), problems
        )
        return info

    @staticmethod
    def _tables_key(found: ProfilerDir, device: str) -> tuple[Any, ...]:
        paths = [
            found.file(device, prefix) for prefix in (OP_TYPE_PREFIX, OP_DETAIL_PREFIX, INFO_PREFIX)
        ]
        return (found.path, device, *(_identity(p) for p in paths))

    @staticmethod
    def _profile_key(found: ProfilerDir, device: str) -> tuple[Any, ...]:
        paths = [
            found.file(device, prefix)
            for prefix in (
                OP_TYPE_PREFIX,
                OP_DETAIL_PREFIX,
                FRAMEWORK_PREFIX,
                TIMESTAMP_PREFIX,
                INFO_PREFIX,
            )
        ]
        return (found.path, device, *(_identity(p) for p in [*paths, found.trace_view]))

    def tables(self, found: ProfilerDir, device: str) -> OpTables:
        """The operator tables of ``device`` (cached while their files do not change): what
        needs no launch file is read without one (the launches of a large profile take most
        of its parse)."""
        key = ("tables", *self._tables_key(found, device))

        def build() -> _Sized:
            tables = self._build_tables(found, device)
            return _Sized(tables, _tables_bytes(tables))

        return self._cache.get_or_compute(key, build).value

    def profile(self, found: ProfilerDir, device: str) -> Profile:
        """Everything the pages show for ``device`` (cached while no file changes)."""
        key = ("profile", *self._profile_key(found, device))

        def build() -> _Sized:
            profile = self._build_profile(found, device)
            return _Sized(profile, _profile_bytes(profile))

        with self._build_lock:
            return self._cache.get_or_compute(key, build).value

    def derived(
        self, found: ProfilerDir, device: str, name: str, compute: Callable[[Profile], T]
    ) -> T:
        """``compute(profile)`` kept as long as the profile (e.g. a timeline's bars)."""
        profile = self.profile(found, device)
        key = ("derived", name, *self._profile_key(found, device))
        return self._cache.get_or_compute(key, lambda: compute(profile))

    def _build_tables(self, found: ProfilerDir, device: str) -> OpTables:
        types, details, problems = self.op_tables(found, device)
        info_path = found.file(device, INFO_PREFIX)
        info: dict[str, Any] = {}
        if info_path is not None:
            info, info_problems = self._read(
                "info", info_path, parse_profiler_info, _no_info(), problems
            )
            problems += info_problems
        return build_tables(found.path, device, types, details, info, problems)

    def _build_profile(self, found: ProfilerDir, device: str) -> Profile:
        tables = self.tables(found, device)
        problems: list[Problem] = []
        timestamps = found.file(device, TIMESTAMP_PREFIX)
        source = timestamps or found.trace_view
        if timestamps is not None:
            table, launch_problems = self._read(
                "timestamps",
                timestamps,
                parse_timestamps,
                _absent(LaunchTable.empty()),
                problems,
                keep=False,
            )
        elif found.trace_view is not None:
            table, launch_problems = self._read(
                "trace",
                found.trace_view,
                parse_trace_view,
                _absent(LaunchTable.empty()),
                problems,
                keep=False,
            )
        else:
            table, launch_problems = LaunchTable.empty(), []
        problems += launch_problems
        launches = sorted_launches(table, os.path.basename(source) if source else "")
        return build_profile(tables, launches, problems)

    def inputs(self, found: ProfilerDir, device: str) -> tuple[dict[str, str], list[Problem]]:
        """Input shapes per full operator name (from ``cpu_framework``, read on first use) and
        the problems reading it."""

        def compute(profile: Profile) -> tuple[dict[str, str], list[Problem]]:
            problems: list[Problem] = []
            framework, more = self._read(
                "framework",
                found.file(device, FRAMEWORK_PREFIX),
                parse_framework,
                _absent(FrameworkTable([], [], [], [])),
                problems,
                keep=False,
            )
            return input_shapes(framework, profile.launches), problems + more

        return self.derived(found, device, "inputs", compute)

    def clear(self) -> None:
        self._cache.clear()
