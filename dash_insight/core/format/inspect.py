"""``dash-insight inspect``: what is in a summary file or a job directory, and what is damaged.

The report is a plain dict (the ``--json`` form)::

    {"files": [{"path", "kind", "records", "status", "errors": [{"offset", "reason"}]}],
     "tags": {"<plugin>": {"<tag>": {"values", "steps", "first_step", "last_step"}}}}

``status`` is ``ok``, ``empty``, ``truncated`` (an incomplete record at the end: the file is
still being written or was cut), ``damaged`` (records dropped or undecodable) or ``unreadable``.

Profiler data (a job's ``profiler*/`` or ``*_ascend_ms/`` directory, a profiler directory
itself, or one profiler file) adds ``"profiler": [{"path", "layout", "profiler_type",
"devices", "files": [{"path", "kind", "rows", "launches", "status", "errors": [{"line",
"reason"}]}]}]`` (``rows``: op types, operators or launch lines read; ``launches``: launch
times), with the same statuses.
Plugins are ``scalar``, ``image``, ``histogram``, ``tensor``, ``loss_landscape``, ``graph`` and
``lineage``; tags are as written in the file (without MindInsight's ``/<plugin>`` suffix); a
graph's tag is its file name, a lineage record's tag its kind. A ``loss_landscape`` tag also
has ``landscape``: ``{"grid": [x values, y values], "interval": [first, last] ([] for the final
landscape), "points", "decomposition", "unit"}`` of its last value.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dash_insight.core.format.events import DecodeError, decode_lineage_event
from dash_insight.core.format.events import decode_model_proto as _decode_model_proto
from dash_insight.core.format.files import FileKind, classify, summary_sort_key
from dash_insight.core.format.framing import CHUNK_BYTES, Damage, RecordReader, Tail
from dash_insight.core.format.profiler import (
    FRAMEWORK_PREFIX,
    INFO_PREFIX,
    OP_DETAIL_PREFIX,
    OP_TYPE_PREFIX,
    TIMESTAMP_PREFIX,
    TRACE_VIEW,
    Problem,
    ProfilerDir,
    parse_framework,
    parse_op_detail_csv,
    parse_op_type_csv,
    parse_profiler_info,
    parse_timestamps,
    parse_trace_view,
    profiler_dirs,
    read_profiler_dir,
    read_text,
)
from dash_insight.core.format.scan import EventScanner
from dash_insight.core.format.tensorboard import (
    LINEAGE_TENSORBOARD_HPARAMS,
    TensorBoardScan,
    TensorBoardScanner,
)
from dash_insight.core.vocabulary import PluginName

STATUS_OK = "ok"
STATUS_EMPTY = "empty"
STATUS_TRUNCATED = "truncated"
STATUS_DAMAGED = "damaged"
STATUS_UNREADABLE = "unreadable"
#: The report's key for lineage records: not a stored :class:`PluginName` (the index keeps lineage
#: records per job, not tags).
LINEAGE = "lineage"


@dataclass
class _TagStats:
    values: int = 0
    steps: list[np.ndarray] = field(default_factory=list)
    landscape: dict[str, Any] | None = None  # the last loss landscape's facts

    def add(self, steps: np.ndarray, meta: list[dict[str, Any] | None] | None = None) -> None:
        self.values += len(steps)
        self.steps.append(np.asarray(steps, dtype=np.int64))
        if meta and meta[-1] is not None and "grid" in meta[-1]:
            self.landscape = dict(meta[-1])

    def summary(self) -> dict[str, Any]:
        steps = np.unique(np.concatenate(self.steps)) if self.steps else np.zeros(0, np.int64)
        out: dict[str, Any] = {
            "values": self.values,
            "steps": len(steps),
            "first_step": int(steps[0]) if len(steps) else None,
            "last_step": int(steps[-1]) if len(steps) else None,
        }
        if self.landscape is not None:
            out["landscape"] = self.landscape
        return out


def landscape_text(facts: dict[str, Any]) -> str:
    """``12x12 PCA, step 2..16 (8 points)`` / ``12x12 Random, final``: a landscape tag's grid
    (x by y values), decomposition and interval as ``dash-insight inspect`` prints them."""
    grid = "x".join(str(n) for n in facts.get("grid", []))
    kind = facts.get("decomposition") or "?"
    interval = facts.get("interval") or []
    if not interval:
        return f"{grid} {kind}, final"
    return (
        f"{grid} {kind}, {facts.get('unit') or 'step'} {interval[0]}..{interval[-1]} "
        f"({facts.get('points', len(interval))} points)"
    )


def _file_entry(
    path: str, kind: FileKind, records: int, errors: list[Damage], status: str
) -> dict[str, Any]:
    return {
        "path": path,
        "kind": kind.value,
        "records": records,
        "status": status,
        "errors": [{"offset": d.offset, "reason": d.reason} for d in errors],
    }


def _read_framed(
    path: str, kind: FileKind, tags: dict[str, dict[str, _TagStats]]
) -> dict[str, Any]:
    """Read every record of a framed file, feeding per-tag statistics."""
    size = os.path.getsize(path)
    if size == 0:
        return _file_entry(
            path, kind, 0, [Damage(0, "empty file: no record written yet")], STATUS_EMPTY
        )
    reader = RecordReader(path)
    scanner = TensorBoardScanner() if kind is FileKind.TENSORBOARD else EventScanner()
    records = 0
    errors: list[Damage] = []
    tail = None
    while True:
        if kind is FileKind.LINEAGE:
            for record in reader.read(CHUNK_BYTES):
                try:
                    lineage = decode_lineage_event(record.payload)
                except DecodeError as error:
                    errors.append(Damage(record.offset, str(error)))
                    continue
                _stats(tags, LINEAGE, lineage.kind).add(np.zeros(1, np.int64))
        else:
            result = scanner.scan_from(reader, CHUNK_BYTES)
            errors.extend(result.errors)
            for tag, columns in result.scalars.items():
                _stats(tags, PluginName.SCALAR.value, tag).add(columns.step)
            for (plugin, tag), blobs in result.blobs.items():
                _stats(tags, plugin, tag).add(blobs.step, blobs.meta)
            if isinstance(result, TensorBoardScan) and result.hparams:
                _stats(tags, LINEAGE, LINEAGE_TENSORBOARD_HPARAMS).add(
                    np.zeros(len(result.hparams), np.int64)
                )
            if result.graphs:
                _stats(tags, PluginName.GRAPH.value, os.path.basename(path)).add(
                    np.array([g.step for g in result.graphs], dtype=np.int64)
                )
        records += reader.result.records
        errors.extend(reader.result.damage)
        tail = reader.result.tail
        if reader.result.bytes_consumed == 0:
            break
    return framed_file_entry(path, kind, size, records, errors, tail, reader.lost_at)


def framed_file_entry(
    path: str,
    kind: FileKind,
    size: int,
    records: int,
    errors: list[Damage],
    tail: Tail | None,
    lost_at: int | None,
) -> dict[str, Any]:
    """The report entry of a framed file read to its end by a :class:`RecordReader`: its
    damage (``errors``), an incomplete last record (``tail``) and framing lost up to the end
    (``lost_at``) turned into a status and reasons (also used by ``dash-insight export``)."""
    errors = list(errors)
    if lost_at is not None:
        if records == 0 and lost_at == 0:
            what = (
                "a TensorBoard event"
                if kind is FileKind.TENSORBOARD
                else f"a MindSpore {kind.value}"
            )
            errors = [Damage(0, f"not {what} file: no valid record in its {size} bytes")]
        else:
            errors.append(
                Damage(
                    lost_at,
                    f"no valid record from here to the end of the "
                    f"file ({size - lost_at} bytes lost)",
                )
            )
    status = STATUS_DAMAGED if errors else STATUS_OK
    if tail is not None:
        need = f"{tail.need} bytes" if tail.need is not None else "a 12-byte header"
        errors.append(
            Damage(
                tail.offset,
                f"incomplete record at the end of the file ({tail.have} "
                f"bytes of {need}): still being written, or truncated",
            )
        )
        if status == STATUS_OK:
            status = STATUS_TRUNCATED
    errors.sort(key=lambda d: d.offset)
    return _file_entry(path, kind, records, errors, status)


def _stats(tags: dict[str, dict[str, _TagStats]], plugin: str, tag: str) -> _TagStats:
    return tags.setdefault(plugin, {}).setdefault(tag, _TagStats())


def _read_graph_file(path: str, tags: dict[str, dict[str, _TagStats]]) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return _file_entry(
            path, FileKind.GRAPH, 0, [Damage(0, f"cannot read: {error}")], STATUS_UNREADABLE
        )
    if not data:
        return _file_entry(path, FileKind.GRAPH, 0, [Damage(0, "empty file")], STATUS_EMPTY)
    try:
        _decode_model_proto(data)
    except DecodeError as error:
        return _file_entry(path, FileKind.GRAPH, 0, [Damage(0, str(error))], STATUS_DAMAGED)
    _stats(tags, PluginName.GRAPH.value, os.path.basename(path)).add(np.zeros(1, np.int64))
    return _file_entry(path, FileKind.GRAPH, 1, [], STATUS_OK)


def _job_files(directory: str) -> list[tuple[str, FileKind]]:
    """Files of a job directory (not recursive), in merge order: summaries by timestamp, then
    lineage files, then graph files."""
    found: list[tuple[str, FileKind]] = []
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_symlink() or not entry.is_file():
                continue
            kind = classify(entry.name)
            if kind is not None and kind is not FileKind.EXPLAIN:
                found.append((entry.path, kind))
    order = {FileKind.SUMMARY: 0, FileKind.TENSORBOARD: 0, FileKind.LINEAGE: 1, FileKind.GRAPH: 2}
    found.sort(key=lambda item: (order[item[1]], summary_sort_key(os.path.basename(item[0]))))
    return found


#: What a profiler file's rows are, by file-name prefix.
_PROFILER_KINDS = {
    OP_TYPE_PREFIX: "op types",
    OP_DETAIL_PREFIX: "operators",
    FRAMEWORK_PREFIX: "launches (input shapes)",
    TIMESTAMP_PREFIX: "operators",
    INFO_PREFIX: "keys",
    "trace_view": "operators",
}


def _profiler_status(rows: int, problems: list[Problem], text: str) -> str:
    if not text.strip():
        return STATUS_EMPTY
    if not problems:
        return STATUS_OK
    last = len(text.splitlines())
    if rows and all(p.line == last and "truncated" in p.reason for p in problems):
        return STATUS_TRUNCATED
    return STATUS_DAMAGED


def _profiler_file(path: str, prefix: str) -> dict[str, Any]:
    """Parse one profiler file completely and say what it holds."""
    entry: dict[str, Any] = {"path": path, "kind": prefix, "rows": 0, "launches": None}
    try:
        text = read_text(path)
    except OSError as error:
        return {
            **entry,
            "status": STATUS_UNREADABLE,
            "errors": [{"line": None, "reason": f"cannot read: {error}"}],
        }
    name = os.path.basename(path)
    problems: list[Problem]
    if prefix == OP_TYPE_PREFIX:
        parsed = parse_op_type_csv(text, name)
        rows, problems = len(parsed.rows), parsed.problems
    elif prefix == OP_DETAIL_PREFIX:
        parsed = parse_op_detail_csv(text, name)
        rows, problems = len(parsed.rows), parsed.problems
    elif prefix == FRAMEWORK_PREFIX:
        framework, problems = parse_framework(text, name)
        rows = len(framework)
    elif prefix == INFO_PREFIX:
        info, problems = parse_profiler_info(text, name)
        rows = len(info)
    else:
        parse = parse_trace_view if prefix == "trace_view" else parse_timestamps
        table, problems = parse(text, name)
        rows, entry["launches"] = len(table.names), len(table)
    entry["rows"] = rows
    return {
        **entry,
        "status": _profiler_status(rows, problems, text),
        "errors": [{"line": p.line, "reason": p.reason} for p in problems],
    }


def inspect_profiler_dir(found: ProfilerDir) -> dict[str, Any]:
    """Every file of a profiler directory, parsed, with what it holds."""
    files = []
    for _device, by_prefix in sorted(found.files.items()):
        for prefix in (
            INFO_PREFIX,
            OP_TYPE_PREFIX,
            OP_DETAIL_PREFIX,
            FRAMEWORK_PREFIX,
            TIMESTAMP_PREFIX,
        ):
            if prefix in by_prefix:
                files.append(_profiler_file(by_prefix[prefix], prefix))
    if found.trace_view:
        files.append(_profiler_file(found.trace_view, "trace_view"))
    return {
        "path": found.path,
        "layout": found.layout,
        "profiler_type": found.profiler_type,
        "devices": list(found.devices),
        "files": files,
    }


def _profiler_file_prefix(name: str) -> str | None:
    if name == TRACE_VIEW:
        return "trace_view"
    for prefix in _PROFILER_KINDS:
        if name.startswith(prefix + "_"):
            return prefix
    return None


def inspect_path(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Report on one file (classified by name; an unrecognised name is read as a summary file)
    or on every summary, lineage and graph file directly inside a directory, and on the profiler
    data of the directory (its profiler sub-directories, or itself)."""
    path = os.fspath(path)
    profiler: list[dict[str, Any]] = []
    if os.path.isdir(path):
        files: Iterable[tuple[str, FileKind]] = _job_files(path)
        found = profiler_dirs(path)
        itself = read_profiler_dir(path)
        if not found and itself.files:
            found = [itself]
        profiler = [inspect_profiler_dir(f) for f in found]
    elif os.path.exists(path) and _profiler_file_prefix(os.path.basename(path)):
        entry = _profiler_file(path, _profiler_file_prefix(os.path.basename(path)) or "")
        return {
            "files": [],
            "tags": {},
            "profiler": [
                {
                    "path": os.path.dirname(path),
                    "layout": None,
                    "profiler_type": None,
                    "devices": [],
                    "files": [entry],
                }
            ],
        }
    elif os.path.exists(path):
        kind = classify(os.path.basename(path))
        files = [(path, kind if kind not in (None, FileKind.EXPLAIN) else FileKind.SUMMARY)]
    else:
        raise FileNotFoundError(f"no such file or directory: {path}")
    tags: dict[str, dict[str, _TagStats]] = {}
    reports = []
    for file_path, kind in files:
        try:
            if kind is FileKind.GRAPH:
                reports.append(_read_graph_file(file_path, tags))
            else:
                reports.append(_read_framed(file_path, kind, tags))
        except OSError as error:
            reports.append(
                _file_entry(
                    file_path, kind, 0, [Damage(0, f"cannot read: {error}")], STATUS_UNREADABLE
                )
            )
    report: dict[str, Any] = {
        "files": reports,
        "tags": {
            plugin: {tag: stats.summary() for tag, stats in sorted(by_tag.items())}
            for plugin, by_tag in sorted(tags.items())
        },
    }
    if profiler:
        report["profiler"] = profiler
    return report


def _format_profiler(entry: dict[str, Any]) -> list[str]:
    layout = {"mindinsight": "MindInsight layout", "mindspore": "MindSpore >= 2.5 layout"}.get(
        entry["layout"] or "", "profiler file"
    )
    devices = ", ".join(entry["devices"]) or "-"
    kind = f", {entry['profiler_type']}" if entry["profiler_type"] else ""
    lines = [f"{entry['path']}", f"  profiler data ({layout}{kind}), device(s) {devices}"]
    for item in entry["files"]:
        what = f"{item['rows']} {_PROFILER_KINDS.get(item['kind'], 'rows')}"
        if item["launches"] is not None:
            what += f", {item['launches']} launches"
        lines.append(f"  {os.path.basename(item['path'])}: {what}, {item['status']}")
        for error in item["errors"][:20]:
            where = f"line {error['line']}: " if error["line"] is not None else ""
            lines.append(f"    ! {where}{error['reason']}")
        if len(item["errors"]) > 20:
            lines.append(f"    ! ... {len(item['errors']) - 20} more")
    return lines


def format_file_entry(entry: dict[str, Any]) -> list[str]:
    """A file's lines of the report: path, kind, records, status and each damage."""
    lines = [
        f"{entry['path']}",
        f"  {entry['kind']}, {entry['records']} records, {entry['status']}",
    ]
    lines.extend(f"  ! offset {error['offset']}: {error['reason']}" for error in entry["errors"])
    return lines


def format_report(report: dict[str, Any]) -> str:
    """Human-readable form of :func:`inspect_path`'s report."""
    lines: list[str] = []
    for entry in report["files"]:
        lines.extend(format_file_entry(entry))
    if not report["files"] and not report.get("profiler"):
        lines.append("no summary, lineage or graph file here")
    for entry in report.get("profiler", []):
        lines.extend(_format_profiler(entry))
    for plugin, by_tag in report["tags"].items():
        lines.append(f"{plugin}: {len(by_tag)} tag(s)")
        width = max(len(tag) for tag in by_tag)
        for tag, stats in by_tag.items():
            line = (
                f"  {tag:<{width}}  {stats['values']:>7} values  {stats['steps']:>7} steps  "
                f"{stats['first_step']}..{stats['last_step']}"
            )
            if "landscape" in stats:
                line += f"  {landscape_text(stats['landscape'])}"
            lines.append(line)
    return "\n".join(lines)
