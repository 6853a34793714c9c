"""MindSpore's CPU profiler output: where it is, and what every file holds (pure parsing).

Two layouts are recognised in a job directory (spec ``profiler.md`` §0-2):

* **MindInsight's**: a direct child named ``profiler*`` holding ``profiler_info_<device>.json``
  (what MindInsight 2.3.1 requires; MindSpore <= 2.4 wrote it) and the CPU files;
* **MindSpore >= 2.5's**: ``<host>_<pid>_<YYYYmmddHHMMSSmmm>_ascend_ms/`` with the CPU files in
  ``FRAMEWORK/`` and the Chrome trace in ``ASCEND_PROFILER_OUTPUT/trace_view.json``; no
  ``profiler_info`` (MindInsight 2.3.1 cannot see it).

The files (``<d>`` = device id; times in ms unless said otherwise):

* ``cpu_op_type_info_<d>.csv``: ``op_type, type_occurrences, execution_frequency(per-step),
  total_compute_time, avg_time(ms), percent`` (percent is a fraction 0..1);
* ``cpu_op_detail_info_<d>.csv``: ``op_side, op_type, op_name, full_op_name, op_occurrences,
  op_total_time(ms), op_avg_time(ms), total_proportion, subgraph[, pid]``;
* ``cpu_framework_<d>.txt``: ``<op_type>;<op_name>;<graph_id>;input_1:[..];...;`` one line per
  launch, in launch order;
* ``cpu_op_execute_timestamp_<d>.txt``: ``<full_op_name>;HostCpuOps;<start_ns>,<dur_ms>,<tid>
  ...`` one line per operator, launches separated by spaces;
* ``trace_view.json``: Chrome trace events; the ``X`` events of process "CPU OP" are the
  launches (``ts``/``dur`` in microseconds, often as strings);
* ``profiler_info_<d>.json``: ``context_mode``, ``ms_version``, profiling times...

Every parser takes text and returns what it could read plus :class:`Problem` entries for what it
could not (a malformed or truncated line never hides the readable ones). Nothing here follows a
symbolic link: directory entries that are links are ignored and files are opened with
``O_NOFOLLOW``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dash_insight.core.format.files import open_regular

OP_TYPE_PREFIX = "cpu_op_type_info"
OP_DETAIL_PREFIX = "cpu_op_detail_info"
FRAMEWORK_PREFIX = "cpu_framework"
TIMESTAMP_PREFIX = "cpu_op_execute_timestamp"
INFO_PREFIX = "profiler_info"
TRACE_VIEW = "trace_view.json"
FRAMEWORK_DIR = "FRAMEWORK"
OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"

LAYOUT_MINDINSIGHT = "mindinsight"  # profiler*/ with profiler_info_<d>.json
LAYOUT_MINDSPORE = "mindspore"  # <host>_<pid>_<ts>_ascend_ms/{FRAMEWORK,ASCEND_PROFILER_OUTPUT}

#: MindInsight: a profiler directory's name matches ``^profiler`` (summary_watcher.py:40).
MINDINSIGHT_DIR_RE = re.compile(r"^profiler")
#: MindSpore >= 2.5: ``<host>_<pid>_<YYYYmmddHHMMSSmmm>_ascend_ms`` (the host may hold ``_``).
MINDSPORE_DIR_RE = re.compile(r"^(?P<host>.+)_(?P<pid>\d+)_(?P<stamp>\d{17})_ascend_ms$")
_DEVICE_FILE_RE = re.compile(
    r"^(?P<prefix>cpu_op_type_info|cpu_op_detail_info|cpu_framework|cpu_op_execute_timestamp"
    r"|profiler_info)_(?P<device>\d+)\.(?:csv|txt|json)$"
)
_GPU_FILE_RE = re.compile(r"^gpu_op_(?:detail|type)_info_\d+\.csv$")
_DYNAMIC_SHAPE_RE = re.compile(r"^dynamic_shape_info")

OP_TYPE_HEADER = (
    "op_type",
    "type_occurrences",
    "execution_frequency(per-step)",
    "total_compute_time",
    "avg_time(ms)",
    "percent",
)
OP_DETAIL_HEADER = (
    "op_side",
    "op_type",
    "op_name",
    "full_op_name",
    "op_occurrences",
    "op_total_time(ms)",
    "op_avg_time(ms)",
    "total_proportion",
    "subgraph",
    "pid",
)

#: A file larger than this is not read (a profile of millions of launches is ~100 MB).
MAX_FILE_BYTES = 1 << 30


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Something in a file that could not be read; ``line`` is 1-based (None: the whole file)."""

    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file} line {self.line}"
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class OpTypeStat:
    """One row of ``cpu_op_type_info``: times in ms, ``fraction`` of the grand total (0..1)."""

    op_type: str
    occurrences: int
    frequency: int
    total_ms: float
    avg_ms: float
    fraction: float


@dataclass(frozen=True)
class OpDetailStat:
    """One row of ``cpu_op_detail_info``: times in ms, ``proportion`` a fraction (0..1)."""

    side: str
    op_type: str
    op_name: str
    full_name: str
    occurrences: int
    total_ms: float
    avg_ms: float
    proportion: float
    subgraph: str
    pid: str = ""


@dataclass(frozen=True)
class FrameworkTable:
    """``cpu_framework`` lines as columns, one entry per launch in file (= launch) order;
    ``inputs`` joins a launch's input shapes with ``"; "`` (``input_1:[32, 1, 32, 32]; ...``).
    """

    op_types: list[str]
    op_names: list[str]
    graph_ids: list[str]
    inputs: list[str]

    def __len__(self) -> int:
        return len(self.op_names)


@dataclass(frozen=True)
class LaunchTable:
    """Operator launches: ``op`` indexes ``names`` (full operator names); ``start_ns`` since the
    epoch, ``duration_us`` in microseconds; in file order (not sorted)."""

    names: tuple[str, ...]
    op: np.ndarray  # int32
    start_ns: np.ndarray  # int64
    duration_us: np.ndarray  # float64

    def __len__(self) -> int:
        return len(self.op)

    @classmethod
    def empty(cls) -> LaunchTable:
        return cls((), np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.float64))


@dataclass
class Parsed:
    """What a parser read (``rows``) and what it could not (``problems``)."""

    rows: list[Any] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


# -- CSV files -------------------------------------------------------------------------------


def _csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, cells) of every non-blank line after the header."""
    for number, line in enumerate(text.splitlines(), start=1):
        if number == 1 or not line.strip():
            continue
        yield number, next(csv.reader([line]))


def _header_problem(text: str, expected: tuple[str, ...], name: str) -> list[Problem]:
    first = text.splitlines()[0] if text else ""
    cells = next(csv.reader([first]), []) if first else []
    if not text.strip():
        return [Problem(name, None, "empty file")]
    if tuple(cells[: len(expected) - 1]) != expected[: len(expected) - 1]:
        return [
            Problem(
                name,
                1,
                f"unexpected header {first[:120]!r} (skipped as MindInsight "
                "does); columns are read by position",
            )
        ]
    return []


def _unterminated(text: str, name: str, found: list[Problem]) -> list[Problem]:
    """MindSpore ends every line: a last line without its end was cut (its last number may be
    incomplete although it reads as one); it is kept, and reported unless it already was."""
    last = len(text.splitlines())
    if not text or text.endswith("\n") or any(p.line == last for p in found):
        return []
    return [
        Problem(
            name,
            last,
            "no end of line: the file was truncated here, this row's last value may be cut",
        )
    ]


def _truncation_hint(number: int, text: str) -> str:
    last = len(text.splitlines())
    return " (truncated file?)" if number == last and not text.endswith("\n") else ""


def parse_op_type_csv(text: str, name: str = "cpu_op_type_info.csv") -> Parsed:
    """Rows of ``cpu_op_type_info_<d>.csv`` as :class:`OpTypeStat` (file order). The header line
    is skipped, as MindInsight's ``CpuOpTypeAnalyser`` does; a row with too few cells or a cell
    that is not a number is reported and left out."""
    parsed = Parsed(problems=_header_problem(text, OP_TYPE_HEADER, name))
    for number, cells in _csv_rows(text):
        if len(cells) < 6:
            parsed.problems.append(
                Problem(name, number, f"{len(cells)} of 6 columns{_truncation_hint(number, text)}")
            )
            continue
        try:
            parsed.rows.append(
                OpTypeStat(
                    cells[0],
                    int(cells[1]),
                    int(cells[2]),
                    float(cells[3]),
                    float(cells[4]),
                    float(cells[5]),
                )
            )
        except ValueError as error:
            parsed.problems.append(
                Problem(name, number, f"not a number: {error}{_truncation_hint(number, text)}")
            )
    parsed.problems += _unterminated(text, name, parsed.problems)
    return parsed


def parse_op_detail_csv(text: str, name: str = "cpu_op_detail_info.csv") -> Parsed:
    """Rows of ``cpu_op_detail_info_<d>.csv`` as :class:`OpDetailStat` (file order); the 10th
    column (``pid``, MindSpore 2.x) is optional, as MindInsight reads only the first 9."""
    parsed = Parsed(problems=_header_problem(text, OP_DETAIL_HEADER, name))
    for number, cells in _csv_rows(text):
        if len(cells) < 9:
            parsed.problems.append(
                Problem(name, number, f"{len(cells)} of 9 columns{_truncation_hint(number, text)}")
            )
            continue
        try:
            parsed.rows.append(
                OpDetailStat(
                    cells[0],
                    cells[1],
                    cells[2],
                    cells[3],
                    int(cells[4]),
                    float(cells[5]),
                    float(cells[6]),
                    float(cells[7]),
                    cells[8],
                    cells[9] if len(cells) > 9 else "",
                )
            )
        except ValueError as error:
            parsed.problems.append(
                Problem(name, number, f"not a number: {error}{_truncation_hint(number, text)}")
            )
    parsed.problems += _unterminated(text, name, parsed.problems)
    return parsed


# -- text files ------------------------------------------------------------------------------


def parse_framework(
    text: str, name: str = "cpu_framework.txt"
) -> tuple[FrameworkTable, list[Problem]]:
    """Launches of ``cpu_framework_<d>.txt`` (``<op_type>;<op_name>;<graph_id>;input_1:[..];
    ...;``) as columns; a line without operator type, name and graph id is reported."""
    table = FrameworkTable([], [], [], [])
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split(";", 3)
        if len(parts) < 3 or not parts[0] or not parts[1]:
            if line.strip():
                hint = _truncation_hint(number, text)
                problems.append(
                    Problem(name, number, f"expected '<op_type>;<op_name>;<graph_id>;...'{hint}")
                )
            continue
        table.op_types.append(parts[0])
        table.op_names.append(parts[1])
        table.graph_ids.append(parts[2])
        table.inputs.append(parts[3].rstrip(";").replace(";", "; ") if len(parts) > 3 else "")
    return table, problems + _unterminated(text, name, problems)


def _launch_triples(
    text: str, number: int, name: str, problems: list[Problem]
) -> tuple[np.ndarray, np.ndarray]:
    """(start_ns, duration_us) of the ``start_ns,dur_ms,tid`` launches of one line; malformed
    launches are reported and skipped."""
    flat = text.replace(",", " ").split()
    if len(flat) % 3 == 0 and text.count(",") == len(flat) * 2 // 3:
        try:
            return (
                np.array(flat[0::3], dtype=np.int64),
                np.array(flat[1::3], dtype=np.float64) * 1000.0,
            )
        except (ValueError, OverflowError):
            pass  # salvage launch by launch below
    starts: list[int] = []
    durations: list[float] = []
    for position, token in enumerate(text.split(), start=1):
        cells = token.split(",")
        try:
            if len(cells) != 3:
                raise ValueError(f"{len(cells)} of 3 fields")
            start_ns, duration_ms = int(cells[0]), float(cells[1])
        except (ValueError, OverflowError) as error:
            problems.append(Problem(name, number, f"launch {position} {token!r}: {error}"))
            continue
        starts.append(start_ns)
        durations.append(duration_ms * 1000.0)
    return np.array(starts, dtype=np.int64), np.array(durations, dtype=np.float64)


def parse_timestamps(
    text: str, name: str = "cpu_op_execute_timestamp.txt"
) -> tuple[LaunchTable, list[Problem]]:
    """Launches of ``cpu_op_execute_timestamp_<d>.txt``: per line ``<full_op_name>;<kind>;``
    then space-separated ``<start_ns>,<duration_ms>,<tid>``; durations converted to us."""
    problems: list[Problem] = []
    names: list[str] = []
    index: dict[str, int] = {}
    ops: list[np.ndarray] = []
    starts: list[np.ndarray] = []
    durations: list[np.ndarray] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split(";", 2)
        if len(parts) < 3 or not parts[0]:
            problems.append(
                Problem(
                    name,
                    number,
                    f"expected '<full_op_name>;<kind>;<launches>'{_truncation_hint(number, text)}",
                )
            )
            continue
        start, duration = _launch_triples(parts[2], number, name, problems)
        if not len(start):
            continue
        op = index.setdefault(parts[0], len(names))
        if op == len(names):
            names.append(parts[0])
        ops.append(np.full(len(start), op, np.int32))
        starts.append(start)
        durations.append(duration)
    problems += _unterminated(text, name, problems)
    if not ops:
        return LaunchTable.empty(), problems
    return LaunchTable(
        tuple(names), np.concatenate(ops), np.concatenate(starts), np.concatenate(durations)
    ), problems


def _microseconds_to_ns(value: Any) -> int:
    """A trace ``ts`` (us, string ``"1795399200513580.265"`` or number) as integer ns, exactly
    for strings (a float64 holds only ~0.25 us at this magnitude)."""
    if isinstance(value, str):
        whole, _, fraction = value.strip().partition(".")
        if whole.isdigit() and (not fraction or fraction.isdigit()):
            return int(whole) * 1000 + (int((fraction + "00")[:3]) if fraction else 0)
        return round(float(value) * 1000)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a time: {value!r}")
    return round(value * 1000)


def _json_events(text: str, name: str, problems: list[Problem]) -> list[Any]:
    """The event list of a Chrome trace (a list, or ``{"traceEvents": [...]}``); a truncated
    list yields every complete event before the cut, and says where it stopped."""
    try:
        data = json.loads(text)
    except ValueError as error:
        events = _salvage_events(text)
        problems.append(
            Problem(
                name,
                None,
                f"invalid JSON ({error}); read the {len(events)} complete event(s) before it",
            )
        )
        return events
    if isinstance(data, dict):
        data = data.get("traceEvents")
    if not isinstance(data, list):
        problems.append(Problem(name, None, "not a Chrome trace (expected a list of events)"))
        return []
    return data


def _salvage_events(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    start = text.find("[")
    if start < 0:
        return []
    position = start + 1
    events: list[dict[str, Any]] = []
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        try:
            event, position = decoder.raw_decode(text, position)
        except ValueError:
            return events
        events.append(event)


def parse_trace_view(text: str, name: str = TRACE_VIEW) -> tuple[LaunchTable, list[Problem]]:
    """Operator launches of a MindSpore ``trace_view.json``: the complete (``ph: "X"``) events of
    the process named "CPU OP" (any process when there is no such name), ``name`` = full
    operator name, ``ts``/``dur`` in us. Other processes (e.g. "Scope Layer") are skipped."""
    problems: list[Problem] = []
    events = _json_events(text, name, problems)
    cpu_pids, skipped_pids = _cpu_op_pids(events)
    names: list[str] = []
    index: dict[str, int] = {}
    ops: list[int] = []
    starts: list[int] = []
    durations: list[float] = []
    bad = 0
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        pid = event.get("pid")
        if (cpu_pids and pid not in cpu_pids) or (not cpu_pids and pid in skipped_pids):
            continue
        try:
            op_name = event["name"]
            if not isinstance(op_name, str):
                raise ValueError("name is not a string")
            start = _microseconds_to_ns(event["ts"])
            duration = _microseconds_to_ns(event.get("dur", 0)) / 1000.0
        except (KeyError, ValueError, TypeError):
            bad += 1
            continue
        op = index.setdefault(op_name, len(names))
        if op == len(names):
            names.append(op_name)
        ops.append(op)
        starts.append(start)
        durations.append(duration)
    if bad:
        problems.append(
            Problem(name, None, f"{bad} operator event(s) without a name, ts or dur were skipped")
        )
    return LaunchTable(
        tuple(names),
        np.array(ops, np.int32),
        np.array(starts, np.int64),
        np.array(durations, np.float64),
    ), problems


def _cpu_op_pids(events: list[Any]) -> tuple[set[Any], set[Any]]:
    """The pids of the processes named "CPU OP" by metadata events, and of the others."""
    named = [
        (event.get("pid"), event["args"].get("name"))
        for event in events
        if isinstance(event, dict)
        and event.get("ph") == "M"
        and event.get("name") == "process_name"
        and isinstance(event.get("args"), dict)
    ]
    cpu = {pid for pid, process in named if process == "CPU OP"}
    return cpu, {pid for pid, process in named if process != "CPU OP"}


def parse_profiler_info(
    text: str, name: str = "profiler_info.json"
) -> tuple[dict[str, Any], list[Problem]]:
    """``profiler_info_<d>.json`` as a dict ({} with a problem when it is not a JSON object)."""
    try:
        data = json.loads(text)
    except ValueError as error:
        return {}, [Problem(name, None, f"invalid JSON: {error}")]
    if not isinstance(data, dict):
        return {}, [Problem(name, None, "expected a JSON object")]
    return data, []


# -- directories -----------------------------------------------------------------------------


def read_text(path: str, limit: int = MAX_FILE_BYTES) -> str:
    """A file's text (UTF-8, undecodable bytes replaced), opened without following a symbolic
    link; OSError when it cannot be read, is not a regular file (a FIFO would block the request
    for good) or is larger than ``limit`` bytes."""
    with open_regular(path, follow_symlinks=False) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{os.path.basename(path)} is larger than {limit} bytes: not read")
    return data.decode("utf-8", errors="replace")


def _entries(directory: str) -> dict[str, os.DirEntry[str]]:
    """Entries of ``directory`` that are not symbolic links ({} when it cannot be listed)."""
    try:
        with os.scandir(directory) as entries:
            return {entry.name: entry for entry in entries if not entry.is_symlink()}
    except OSError:
        return {}


@dataclass(frozen=True)
class ProfilerDir:
    """A directory of profiler data and where its files are.

    ``data_dir`` holds the ``cpu_*`` files (the directory itself, or its ``FRAMEWORK/``);
    ``devices`` are the device ids with a ``profiler_info`` file (MindInsight's device list) or,
    without any, those with a CPU data file; ``files`` maps a device to its file paths by prefix.
    """

    path: str
    layout: str
    data_dir: str
    trace_view: str | None
    devices: tuple[str, ...]
    files: dict[str, dict[str, str]]
    profiler_type: str  # "cpu", "gpu" or "ascend", as MindInsight's util.py decides
    dynamic_shape: bool  # a dynamic_shape_info* file: MindInsight's graph_mode "dynamic"
    update_time: float  # newest modification time of its files

    def file(self, device: str, prefix: str) -> str | None:
        return self.files.get(device, {}).get(prefix)

    @property
    def all_files(self) -> list[str]:
        paths = [p for by_prefix in self.files.values() for p in by_prefix.values()]
        return sorted(paths) + ([self.trace_view] if self.trace_view else [])


def _device_sort_key(device: str) -> tuple[int, str]:
    return (int(device), device) if device.isdigit() else (1 << 62, device)


def read_profiler_dir(path: str, layout: str | None = None) -> ProfilerDir:
    """What profiler data ``path`` holds (in either layout; the CPU files are looked for in the
    directory, then in its ``FRAMEWORK/``). Never fails: an unreadable directory holds nothing.
    """
    entries = _entries(path)
    data_dir = path
    data_entries = entries
    framework = entries.get(FRAMEWORK_DIR)
    has_cpu_here = any(_DEVICE_FILE_RE.match(n) and not n.startswith(INFO_PREFIX) for n in entries)
    if not has_cpu_here and framework is not None and framework.is_dir(follow_symlinks=False):
        data_dir = framework.path
        data_entries = _entries(data_dir)
    trace_view = None
    output = entries.get(OUTPUT_DIR)
    if output is not None and output.is_dir(follow_symlinks=False):
        trace = _entries(output.path).get(TRACE_VIEW)
        if trace is not None and trace.is_file(follow_symlinks=False):
            trace_view = trace.path
    if layout is None:
        layout = LAYOUT_MINDSPORE if data_dir != path or trace_view else LAYOUT_MINDINSIGHT
    files: dict[str, dict[str, str]] = {}
    times: list[float] = []
    for source in (entries, data_entries) if data_dir != path else (entries,):
        for entry_name, entry in source.items():
            match = _DEVICE_FILE_RE.match(entry_name)
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            files.setdefault(match["device"], {})[match["prefix"]] = entry.path
            with contextlib.suppress(OSError):  # vanished meanwhile: no time to report
                times.append(entry.stat(follow_symlinks=False).st_mtime)
    if trace_view is not None:
        with contextlib.suppress(OSError):
            times.append(os.stat(trace_view, follow_symlinks=False).st_mtime)
    with_info = sorted((d for d, by in files.items() if INFO_PREFIX in by), key=_device_sort_key)
    with_data = sorted(
        (d for d, by in files.items() if set(by) - {INFO_PREFIX}), key=_device_sort_key
    )
    names = set(entries) | set(data_entries)
    if any(n.startswith((OP_TYPE_PREFIX, OP_DETAIL_PREFIX)) for n in names):
        profiler_type = "cpu"
    elif any(_GPU_FILE_RE.match(n) for n in names):
        profiler_type = "gpu"
    else:
        profiler_type = "ascend"
    return ProfilerDir(
        path=path,
        layout=layout,
        data_dir=data_dir,
        trace_view=trace_view,
        devices=tuple(with_info or with_data),
        files=files,
        profiler_type=profiler_type,
        dynamic_shape=any(_DYNAMIC_SHAPE_RE.match(n) for n in names),
        update_time=max(times) if times else 0.0,
    )


def profiler_dir_of(entry: os.DirEntry[str]) -> ProfilerDir | None:
    """The profiler data of a job directory's child ``entry``, or None when it is not a profiler
    directory: MindInsight's ``profiler*`` with a ``profiler_info_<d>.json`` (its rule), or
    MindSpore's ``*_ascend_ms`` with CPU files in ``FRAMEWORK/`` or a ``trace_view.json``."""
    if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
        return None
    if MINDINSIGHT_DIR_RE.match(entry.name):
        found = read_profiler_dir(entry.path, LAYOUT_MINDINSIGHT)
        if any(INFO_PREFIX in by_prefix for by_prefix in found.files.values()):
            return found
        return None
    if MINDSPORE_DIR_RE.match(entry.name):
        found = read_profiler_dir(entry.path, LAYOUT_MINDSPORE)
        if (found.data_dir != found.path and found.files) or found.trace_view:
            return found
    return None


def profiler_dirs(directory: str) -> list[ProfilerDir]:
    """Every profiler directory directly inside ``directory``, by name."""
    found = []
    for _, entry in sorted(_entries(directory).items()):
        profiler = profiler_dir_of(entry)
        if profiler is not None:
            found.append(profiler)
    return found


def primary_profiler_dir(found: Iterable[ProfilerDir]) -> ProfilerDir | None:
    """The one a job reports as its ``profiler_dir``: MindInsight's layout first (the greatest
    name, as MindInsight's ``validate_path`` picks among ``profiler*``), else the newest
    MindSpore output (the greatest time stamp in its name)."""
    found = list(found)
    classic = sorted(
        (p for p in found if p.layout == LAYOUT_MINDINSIGHT), key=lambda p: os.path.basename(p.path)
    )
    if classic:
        return classic[-1]

    def stamp(profiler: ProfilerDir) -> tuple[str, str]:
        match = MINDSPORE_DIR_RE.match(os.path.basename(profiler.path))
        return (match["stamp"] if match else "", os.path.basename(profiler.path))

    native = sorted(found, key=stamp)
    return native[-1] if native else None
