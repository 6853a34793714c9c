"""Bulk export of a summary base directory: ``dash-insight export`` / ``parse_summary``.

MindInsight's ``parse_summary`` wrote the scalars of one summary file to ``scalar.csv`` and its
images to ``image/<tag>_<step>.png``. This exports every job under the base directory, every
tag and every step, with the values the REST API answers (the same merge of a job's files:
:func:`~dash_insight.core.store.series.merge_indices`, no sampling), into ``OUT/<job path>/``:

* ``scalars.csv`` / ``scalars.json`` / ``scalars.parquet``: one table per job, columns ``step``,
  ``wall_time``, ``tag``, ``value``; tags by name (as the REST API lists them), steps ascending. CSV
  writes floats in Python's shortest round-trip form (``nan``, ``inf``, ``-inf`` as such); JSON
  is a list of row objects with NaN/±Inf as null (as the REST API answers); Parquet (needs
  pyarrow) keeps ``value`` as the float32 that was written;
* ``images/<tag>_<step>.png``: the encoded image as written (another extension if it is not a
  PNG);
* ``histograms/<tag>.npz``: arrays ``step``, ``wall_time``, ``count``, ``min``, ``max``, ``sum``,
  ``nan_count``, ``pos_inf_count``, ``neg_inf_count`` (one entry per step), ``buckets`` (rows of
  left edge, width, count of every step) and ``bucket_offsets`` (step ``i``'s rows are
  ``buckets[bucket_offsets[i]:bucket_offsets[i + 1]]``);
* ``tensors/<tag>.npz``: ``step``, ``wall_time`` and, per step, ``tensor_<step>`` (the tensor in
  its own dtype and shape).

In file names a tag is percent-encoded (``input/image`` -> ``input%2Fimage``). Files are read
directly (no index, no workspace): each summary file is framed, checked and scanned once, then
the records of the surviving images, histograms and tensors are read again and decoded one at a
time, so memory holds the scalar columns of one job and a single large value. Damaged records
are skipped and reported as ``dash-insight inspect`` reports them.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO
from urllib.parse import quote

import numpy as np

from dash_insight.core.csv_cells import csv_cells, csv_text
from dash_insight.core.format.events import (
    DecodeError,
    HistogramValue,
    ImageValue,
    TensorValue,
    decode_value,
    parse_event,
)
from dash_insight.core.format.files import EVENT_KINDS, FileKind
from dash_insight.core.format.framing import CHUNK_BYTES, RecordReader, read_record_at
from dash_insight.core.format.inspect import STATUS_OK, framed_file_entry
from dash_insight.core.format.scan import EventScanner, ScannedBlobs, ScannedScalars
from dash_insight.core.format.tensorboard import TensorBoardScanner, decode_tb_value
from dash_insight.core.store.discovery import FileInfo, JobInfo, discover_jobs
from dash_insight.core.store.series import ScalarSeries, merge_indices, merge_points
from dash_insight.core.vocabulary import PluginName

PLUGINS = (
    PluginName.SCALAR.value,
    PluginName.IMAGE.value,
    PluginName.HISTOGRAM.value,
    PluginName.TENSOR.value,
)
FORMATS = ("csv", "json", "parquet")
PARQUET_HINT = "pip install 'dash-insight[parquet]' (or: pip install pyarrow)"
_PARQUET_GROUP_ROWS = 1 << 20

Progress = Callable[[int], None]


class ExportError(Exception):
    """The export cannot run; ``str()`` is a one-line message for the user."""


def parse_plugins(text: str) -> tuple[str, ...]:
    """``scalar,image`` -> ``("scalar", "image")``; ExportError naming a wrong one."""
    chosen = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    wrong = [p for p in chosen if p not in PLUGINS]
    if wrong or not chosen:
        raise ExportError(
            f"--plugins takes a comma-separated list of {', '.join(PLUGINS)}, not {text!r}"
        )
    return chosen


def require_parquet() -> Any:
    """pyarrow.parquet, or ExportError saying how to install it."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet as parquet
    except ImportError:
        raise ExportError(
            f"--format parquet needs pyarrow, which is not installed: {PARQUET_HINT}"
        ) from None
    return parquet


def tag_file_name(tag: str) -> str:
    """A tag as one file name: percent-encoded outside ``A-Za-z0-9_.-~`` (reversible)."""
    name = quote(tag, safe="")
    return {"": "%00", ".": "%2E", "..": "%2E%2E"}.get(name, name)


@dataclass
class ExportReport:
    """What an export did."""

    jobs: list[str] = field(default_factory=list)  # train ids with something exported
    jobs_seen: int = 0
    bytes_read: int = 0  # bytes of summary files scanned
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("scalar points", "images", "histograms", "tensors"), 0
        )
    )
    files: list[dict[str, Any]] = field(default_factory=list)  # inspect entries not ``ok``
    written: list[str] = field(default_factory=list)  # output files

    @property
    def damaged(self) -> bool:
        return any(entry["status"] in ("damaged", "unreadable") for entry in self.files)


def summary_bytes(jobs: Iterable[JobInfo]) -> int:
    """Bytes of the summary files of ``jobs``: what the progress bar counts."""
    return sum(f.size for job in jobs for f in job.files if f.kind in EVENT_KINDS)


def find_jobs(base_dir: str, max_depth: int | None = None) -> list[JobInfo]:
    """The jobs under ``base_dir`` that hold summary (or TensorBoard event) files, by train
    id."""
    if not os.path.isdir(base_dir):
        raise ExportError(f"summary directory not found: {base_dir}")
    jobs = [
        job
        for job in discover_jobs(base_dir, max_depth)
        if any(f.kind in EVENT_KINDS for f in job.files)
    ]
    return sorted(jobs, key=lambda job: job.train_id)


def export_summaries(
    base_dir: str,
    out_dir: str,
    *,
    plugins: Sequence[str] = PLUGINS,
    fmt: str = "csv",
    max_depth: int | None = None,
    jobs: Sequence[JobInfo] | None = None,
    progress: Progress | None = None,
) -> ExportReport:
    """Export every job of ``base_dir`` (or ``jobs``, from :func:`find_jobs`) into ``out_dir``
    as the module docstring describes; ``progress(n)`` is called with every ``n`` bytes of
    summary files read."""
    if fmt not in FORMATS:
        raise ExportError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    wrong = [p for p in plugins if p not in PLUGINS]
    if wrong:
        raise ExportError(f"cannot export {wrong}: the plugins are {', '.join(PLUGINS)}")
    parquet = require_parquet() if fmt == "parquet" and PluginName.SCALAR in plugins else None
    base_dir = os.path.abspath(base_dir)
    jobs = find_jobs(base_dir, max_depth) if jobs is None else jobs
    report = ExportReport(jobs_seen=len(jobs))
    for job in jobs:
        target = (
            os.path.join(out_dir, *job.train_id[2:].split("/")) if job.train_id != "./" else out_dir
        )
        exporter = _JobExport(job, target, plugins, fmt, parquet, report, progress)
        exporter.run()
    return report


@dataclass
class _FileRead:
    """One summary file of a job as read: its rank in merge order and report entry."""

    info: FileInfo
    path: str
    rank: int
    entry: dict[str, Any]


#: Where a value to export is: file number, record offset, index in the record, position in
#: its tag's series, plugin, tag, meta (how a TensorBoard value decodes).
_ValueRef = tuple[int, int, int, int, str, str, dict[str, Any] | None]


class _JobExport:
    """Pass 1 reads every summary file of the job once (scalar columns, value references);
    pass 2 merges each tag like the provider and writes it."""

    def __init__(
        self,
        job: JobInfo,
        target: str,
        plugins: Sequence[str],
        fmt: str,
        parquet: Any,
        report: ExportReport,
        progress: Progress | None,
    ) -> None:
        self.job = job
        self.target = target
        self.plugins = set(plugins)
        self.fmt = fmt
        self.parquet = parquet
        self.report = report
        self.progress = progress
        self.scalars: dict[str, list[tuple[int, ScannedScalars]]] = {}
        self.blobs: dict[tuple[str, str], list[tuple[int, int, ScannedBlobs]]] = {}
        self.files: list[_FileRead] = []

    def run(self) -> None:
        summaries = [f for f in self.job.files if f.kind in EVENT_KINDS]
        stamps = sorted({info.timestamp or 0 for info in summaries})
        for info in summaries:  # already in merge order: timestamp, then name
            self._read(info, stamps.index(info.timestamp or 0))
        wrote = False
        if self.scalars:
            self._write_scalars()
            self.scalars = {}  # free the columns before the values are written
            wrote = True
        if self.blobs:
            self._write_values()
            wrote = True
        if wrote:
            self.report.jobs.append(self.job.train_id)
        self.report.files.extend(f.entry for f in self.files if f.entry["status"] != STATUS_OK)

    # -- pass 1 --
    def _read(self, info: FileInfo, rank: int) -> None:
        path = os.path.join(self.job.path, info.name)
        reader = RecordReader(path)
        scanner = TensorBoardScanner() if info.kind is FileKind.TENSORBOARD else EventScanner()
        records, errors, tail = 0, [], None
        number = len(self.files)
        while True:
            result = scanner.scan_from(reader, CHUNK_BYTES)
            if PluginName.SCALAR in self.plugins:
                for tag, scalars in result.scalars.items():
                    self.scalars.setdefault(tag, []).append((rank, scalars))
            for key, blobs in result.blobs.items():
                if key[0] in self.plugins:
                    self.blobs.setdefault(key, []).append((rank, number, blobs))
            errors.extend(result.errors)
            errors.extend(reader.result.damage)
            records += reader.result.records
            tail = reader.result.tail
            consumed = reader.result.bytes_consumed
            self.report.bytes_read += consumed
            if self.progress is not None and consumed:
                self.progress(consumed)
            if consumed == 0:
                break
        try:
            size = os.path.getsize(path)
        except OSError:
            size = reader.offset
        entry = framed_file_entry(path, info.kind, size, records, errors, tail, reader.lost_at)
        self.files.append(_FileRead(info, path, rank, entry))

    def _damage(self, number: int, offset: int, reason: str) -> None:
        entry = self.files[number].entry
        entry["errors"].append({"offset": offset, "reason": reason})
        entry["errors"].sort(key=lambda e: e["offset"])
        entry["status"] = "damaged"

    # -- scalars --
    def _merged_scalars(self) -> list[tuple[str, ScalarSeries]]:
        out = []
        for tag, parts in sorted(self.scalars.items()):
            series = merge_points(
                np.concatenate([c.step for _, c in parts]),
                np.concatenate([c.wall_time for _, c in parts]),
                np.concatenate([c.value for _, c in parts]),
                np.concatenate([np.full(len(c), rank, np.int64) for rank, c in parts]),
            )
            out.append((tag, series))
        return out

    def _write_scalars(self) -> None:
        os.makedirs(self.target, exist_ok=True)
        merged = self._merged_scalars()
        path = os.path.join(self.target, f"scalars.{self.fmt}")
        if self.fmt == "csv":
            write_scalars_csv(path, merged)
        elif self.fmt == "json":
            write_scalars_json(path, merged)
        else:
            write_scalars_parquet(self.parquet, path, merged)
        self.report.counts["scalar points"] += sum(len(series) for _, series in merged)
        self.report.written.append(path)

    # -- images, histograms, tensors --
    def _write_values(self) -> None:
        """Merge every tag's references, then read the surviving records in file order, each
        once, and hand each value to its tag's writer."""
        wanted, writers = self._merged_references()
        try:
            record: tuple[int, int] | None = None
            event: Any = None
            for number, offset, index, position, plugin, tag, meta in wanted:
                writer = writers[(plugin, tag)]
                tensorboard = self.files[number].info.kind is FileKind.TENSORBOARD
                if record != (number, offset):
                    record, event = (number, offset), None
                    try:
                        payload = read_record_at(self.files[number].path, offset)
                        event = payload if tensorboard else parse_event(payload)
                    except (OSError, ValueError) as error:
                        self._damage(number, offset, f"cannot read the record again: {error}")
                if event is None:
                    writer.skip(position)
                    continue
                try:
                    value = (
                        decode_tb_value(event, index, meta)
                        if tensorboard
                        else decode_value(event.summary.value[index])
                    )
                except (DecodeError, IndexError) as error:
                    self._damage(number, offset, f"{plugin} {tag!r}: {error}")
                    writer.skip(position)
                    continue
                writer.add(position, value.value)
        finally:
            for writer in writers.values():
                writer.close()

    def _merged_references(
        self,
    ) -> tuple[list[_ValueRef], dict[tuple[str, str], _ValueWriter]]:
        """Every tag's surviving values, in file order, and each tag's writer."""
        wanted: list[_ValueRef] = []
        writers: dict[tuple[str, str], _ValueWriter] = {}
        for (plugin, tag), parts in self.blobs.items():
            step = np.concatenate([c.step for _, _, c in parts])
            rank = np.concatenate([np.full(len(c), r, np.int64) for r, _, c in parts])
            chosen = merge_indices(step, rank)
            number = np.concatenate([np.full(len(c), n, np.int64) for _, n, c in parts])[chosen]
            offset = np.concatenate([c.offset for _, _, c in parts])[chosen]
            index = np.concatenate([c.index for _, _, c in parts])[chosen]
            wall = np.concatenate([c.wall_time for _, _, c in parts])[chosen]
            metas = [m for _, _, c in parts for m in c.meta]
            writers[(plugin, tag)] = _ValueWriter.create(
                plugin, tag, self.target, step[chosen], wall, self.report
            )
            wanted.extend(
                zip(
                    number.tolist(),
                    offset.tolist(),
                    index.tolist(),
                    range(len(chosen)),
                    [plugin] * len(chosen),
                    [tag] * len(chosen),
                    [metas[i] for i in chosen.tolist()],
                    strict=True,
                )
            )
        wanted.sort(key=lambda item: item[:4])
        return wanted, writers


class _ValueWriter:
    """Writes one tag's values (images, histogram or tensor npz) as they are decoded."""

    def __init__(
        self, tag: str, target: str, step: np.ndarray, wall: np.ndarray, report: ExportReport
    ) -> None:
        self.tag = tag
        self.target = target
        self.step = step
        self.wall = wall
        self.report = report
        self.kept = np.ones(len(step), dtype=bool)

    @staticmethod
    def create(
        plugin: str, tag: str, target: str, step: np.ndarray, wall: np.ndarray, report: ExportReport
    ) -> _ValueWriter:
        kinds: dict[str, type[_ValueWriter]] = {
            PluginName.IMAGE.value: _ImageWriter,
            PluginName.HISTOGRAM.value: _HistogramWriter,
            PluginName.TENSOR.value: _TensorWriter,
        }
        if plugin not in kinds:  # loss landscapes are not exported
            return _ValueWriter(tag, target, step, wall, report)
        return kinds[plugin](tag, target, step, wall, report)

    def skip(self, position: int) -> None:
        self.kept[position] = False

    def add(self, position: int, value: Any) -> None:
        """The decoded value at ``position`` (in step order)."""

    def close(self) -> None:
        """Finish the output."""


class _ImageWriter(_ValueWriter):
    def add(self, position: int, value: ImageValue) -> None:
        folder = os.path.join(self.target, "images")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(
            folder,
            f"{tag_file_name(self.tag)}_{int(self.step[position])}{image_extension(value.encoded)}",
        )
        with open(path, "wb") as handle:
            handle.write(value.encoded)
        self.report.counts["images"] += 1
        self.report.written.append(path)


def image_extension(data: bytes) -> str:
    """``.png`` (what MindSpore writes), ``.jpg``, ``.gif``, ``.bmp`` or ``.bin``."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ".png"
    if data.startswith(b"\xff\xd8\xff"):
        return ".jpg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return ".gif"
    return ".bmp" if data.startswith(b"BM") else ".bin"


class NpzWriter:
    """An ``.npz`` written one array at a time (``np.load`` reads it like ``np.savez``'s), so
    a tag's tensors never sit in memory together."""

    def __init__(self, path: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.path = path
        self._zip = zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True)

    def add(self, name: str, array: np.ndarray) -> None:
        handle: IO[bytes]
        with self._zip.open(f"{name}.npy", "w", force_zip64=True) as handle:
            np.lib.format.write_array(handle, np.asanyarray(array), allow_pickle=False)

    def add_raw(
        self, name: str, source: BinaryIO, dtype: np.dtype[Any], shape: tuple[int, ...]
    ) -> None:
        """An array whose C-order bytes are in ``source`` (from its start), copied in blocks."""
        handle: IO[bytes]
        with self._zip.open(f"{name}.npy", "w", force_zip64=True) as handle:
            np.lib.format.write_array_header_2_0(
                handle,
                {
                    "descr": np.lib.format.dtype_to_descr(dtype),
                    "fortran_order": False,
                    "shape": shape,
                },
            )
            source.seek(0)
            shutil.copyfileobj(source, handle, 1 << 20)

    def close(self) -> None:
        self._zip.close()


class _NpzTagWriter(_ValueWriter):
    folder = ""
    counter = ""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.npz: NpzWriter | None = None

    def _open(self) -> NpzWriter:
        if self.npz is None:
            self.npz = NpzWriter(
                os.path.join(self.target, self.folder, f"{tag_file_name(self.tag)}.npz")
            )
        return self.npz

    def columns(self) -> dict[str, np.ndarray]:
        return {}

    def close(self) -> None:
        if self.npz is None:
            return
        self.npz.add("step", self.step[self.kept])
        self.npz.add("wall_time", self.wall[self.kept])
        for name, column in self.columns().items():
            self.npz.add(name, column)
        self.npz.close()
        self.report.written.append(self.npz.path)


class _HistogramWriter(_NpzTagWriter):
    """All steps' buckets in one array (a few KB per step; one zip entry per step would cost
    more than the data): step ``i`` is ``buckets[bucket_offsets[i]:bucket_offsets[i + 1]]``.
    The rows wait in a temporary file, not in memory: every histogram tag of a job is open at
    once."""

    folder = "histograms"
    _FIELDS = ("count", "min", "max", "sum", "nan_count", "pos_inf_count", "neg_inf_count")
    _BUCKET = np.dtype("<f8")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.values: dict[str, list[float]] = {name: [] for name in self._FIELDS}
        self.sizes: list[int] = []
        self.rows: BinaryIO | None = None

    def add(self, position: int, value: HistogramValue) -> None:
        npz = self._open()
        if self.rows is None:
            # closed in close(), when the npz is finished
            self.rows = tempfile.TemporaryFile(dir=os.path.dirname(npz.path))  # noqa: SIM115
        self.rows.write(np.ascontiguousarray(value.buckets, self._BUCKET).tobytes())
        self.sizes.append(len(value.buckets))
        for name in self._FIELDS:
            self.values[name].append(getattr(value, name))
        self.report.counts["histograms"] += 1

    def columns(self) -> dict[str, np.ndarray]:
        counts = ("count", "nan_count", "pos_inf_count", "neg_inf_count")
        columns = {
            name: np.asarray(self.values[name], np.int64 if name in counts else np.float64)
            for name in self._FIELDS
        }
        columns["bucket_offsets"] = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        return columns

    def close(self) -> None:
        if self.npz is not None and self.rows is not None:
            self.npz.add_raw("buckets", self.rows, self._BUCKET, (sum(self.sizes), 3))
        if self.rows is not None:
            self.rows.close()
        super().close()


class _TensorWriter(_NpzTagWriter):
    folder = "tensors"

    def add(self, position: int, value: TensorValue) -> None:
        array = value.array
        if array.dtype == object:  # TensorBoard text: fixed-width unicode, no pickles
            array = array.astype(str)
        self._open().add(f"tensor_{int(self.step[position])}", array)
        self.report.counts["tensors"] += 1


# -- scalar tables -------------------------------------------------------------------------------


def write_scalars_csv(path: str, merged: Sequence[tuple[str, ScalarSeries]]) -> None:
    """``step,wall_time,tag,value`` rows, tag by tag; floats as ``repr`` gives them (shortest
    round trip: the REST API's numbers; ``nan``/``inf``/``-inf`` for the non-finite); a tag
    starting like a formula prefixed with ``'`` (:func:`csv_text`, as the REST download)."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("step,wall_time,tag,value\n")
        walls: dict[float, str] = {}  # the tags of a record share its wall time: repr once
        for tag, series in merged:
            name = csv_cells([csv_text(tag)])
            for wall in np.unique(series.wall_time).tolist():
                if wall not in walls:
                    walls[wall] = repr(wall)
            handle.writelines(
                f"{step},{walls[wall]},{name},{value!r}\n"
                for step, wall, value in zip(
                    series.step.tolist(),
                    series.wall_time.tolist(),
                    series.value.astype(np.float64).tolist(),
                    strict=True,
                )
            )


def write_scalars_json(path: str, merged: Sequence[tuple[str, ScalarSeries]]) -> None:
    """A list of ``{"step", "wall_time", "tag", "value"}`` objects; NaN/±Inf as null."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("[")
        first = True
        for tag, series in merged:
            name = json.dumps(tag)
            for step, wall, value in zip(
                series.step.tolist(),
                series.wall_time.tolist(),
                series.value.astype(np.float64).tolist(),
                strict=True,
            ):
                number = repr(value) if math.isfinite(value) else "null"
                handle.write(
                    f'{"" if first else ","}\n{{"step": {step}, "wall_time": '
                    f'{wall!r}, "tag": {name}, "value": {number}}}'
                )
                first = False
        handle.write("\n]\n")


def write_scalars_parquet(
    parquet: Any, path: str, merged: Sequence[tuple[str, ScalarSeries]]
) -> None:
    """One Parquet table: step int64, wall_time float64, tag (dictionary-encoded string),
    value float32 as written; written in row groups of about a million rows (whole tags), so
    the table is never in memory whole while groups stay large enough to encode well."""
    import pyarrow as pa

    schema = pa.schema(
        [
            ("step", pa.int64()),
            ("wall_time", pa.float64()),
            ("tag", pa.dictionary(pa.int32(), pa.string())),
            ("value", pa.float32()),
        ]
    )

    def group(part: Sequence[tuple[str, ScalarSeries]]) -> Any:
        codes = np.repeat(np.arange(len(part), dtype=np.int32), [len(s) for _, s in part])
        return pa.table(
            {
                "step": pa.array(np.concatenate([s.step for _, s in part]), pa.int64()),
                "wall_time": pa.array(np.concatenate([s.wall_time for _, s in part]), pa.float64()),
                "tag": pa.DictionaryArray.from_arrays(
                    pa.array(codes), pa.array([t for t, _ in part], pa.string())
                ),
                "value": pa.array(np.concatenate([s.value for _, s in part]).astype(np.float32)),
            },
            schema=schema,
        )

    with parquet.ParquetWriter(path, schema) as writer:
        pending: list[tuple[str, ScalarSeries]] = []
        for item in merged:
            pending.append(item)
            if sum(len(s) for _, s in pending) >= _PARQUET_GROUP_ROWS:
                writer.write_table(group(pending))
                pending = []
        if pending or not merged:
            writer.write_table(group(pending) if pending else schema.empty_table())
