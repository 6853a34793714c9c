"""Scalar points as CSV and JSON files: the REST download (``export/scalars``) and the
comparison page's download share these, so a file from either reads the same.

CSV: header ``train_id,tag,step,wall_time,value``, one row per point, series after series, NaN
and ±inf as ``nan`` / ``inf`` / ``-inf``, a job or tag starting like a formula prefixed with
``'``. JSON: ``[{"train_id", "tag", "values": [{"step", "wall_time", "value"}]}]``, NaN and ±inf
as null (MindInsight's ``scalars`` entries with the point keys in that order).

With runs grouped (the comparison page's groups, :mod:`.groups`) the download also holds each
group's aggregate. CSV: header ``train_id,tag,step,wall_time,value,group,low,high,count``; a
run's rows name its group (``low,high,count`` empty), then a group's rows have no ``train_id``,
the centre as ``value``, the band (``nan`` where fewer than two runs have a value) and the
runs with a value at the step. JSON: ``{"runs": [the entries above], "groups": [{"group",
"tag", "runs", "values": [{"step", "wall_time", "value", "low", "high", "count"}]}]}``.

On an x tag (the page's ``x_tag``), the grouped download carries the x the charts draw: a last
CSV column ``x``, each point's ``"x"`` in JSON (and ``"x_tag"`` beside ``"runs"``): a run's
point its job's value of the tag at its step (empty / null where it has none), a group's point
the mean of its counted runs' values (:func:`~.query_groups.aggregate`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import orjson

from dash_insight.core.csv_cells import csv_cells, csv_text
from dash_insight.core.store.series import ScalarSeries
from dash_insight.plugins.scalars.query_groups import Aggregate
from dash_insight.web.http import point_object_pieces

#: One series of a download: (train_id, tag as named, its points).
Found = tuple[str, str, ScalarSeries]
#: One group's aggregate of a download: (group name, tag, aggregate, its runs).
GroupFound = tuple[str, str, Aggregate, tuple[str, ...]]
#: On an x tag: each series' x values, by (train_id, tag as named), one per point.
XValues = dict[tuple[str, str], np.ndarray]


#: The first line of every CSV download.
CSV_HEADER = "train_id,tag,step,wall_time,value\n"


def csv_series(
    train_id: str, tag: str, series: ScalarSeries, suffix: str = "", x: np.ndarray | None = None
) -> str:
    """The CSV rows of one series (no header): ``train_id,tag`` as :mod:`csv` writes them
    (:func:`~dash_insight.core.csv_cells.csv_cells`, after :func:`csv_text`), then the step, the
    wall time and the value as Python's ``repr`` writes them (the value as the float64 of the
    stored float32; ``nan``, ``inf``, ``-inf``). The job and tag cells are written once and the
    numbers formatted row by row, which is what :class:`csv.writer` writes for these cells.
    ``suffix``: what ends each row (the grouped download's cells after the value); ``x``: a
    last cell per row (:func:`x_cell`)."""
    prefix = csv_cells([csv_text(train_id), csv_text(tag), ""])  # "<job>,<tag>,"
    ends = [suffix + "\n"] * len(series) if x is None else [f"{suffix},{x_cell(v)}\n" for v in x]
    return "".join(
        [
            f"{prefix}{step},{wall_time!r},{value!r}{end}"
            for step, wall_time, value, end in zip(
                series.step.tolist(),
                series.wall_time.tolist(),
                series.value.tolist(),
                ends,
                strict=True,
            )
        ]
    )


def x_cell(value: float) -> str:
    """An x value as a CSV cell: as Python's ``repr`` writes it, empty where there is none."""
    return "" if np.isnan(value) else repr(float(value))


def csv_rows(found: Sequence[Found]) -> Iterator[str]:
    """The CSV text, one chunk per series (streamed: nothing can fail any more)."""
    yield CSV_HEADER
    for train_id, tag, series in found:
        yield csv_series(train_id, tag, series)


def json_columns(series: ScalarSeries) -> list[tuple[str, np.ndarray]]:
    """The point keys of a JSON download, in its order (step, wall_time, value)."""
    return [
        ("step", series.step),
        ("wall_time", series.wall_time),
        ("value", series.value.astype(np.float64)),
    ]


def json_entry(
    train_id: str, tag: str, points: Iterable[bytes], in_range: int | None = None
) -> Iterator[bytes]:
    """One entry of a JSON download around its encoded ``points`` (a JSON array in pieces);
    ``in_range`` adds ``"points_in_range"`` (the REST download of a step range)."""
    yield b'{"train_id":%b,"tag":%b,"values":' % (orjson.dumps(train_id), orjson.dumps(tag))
    yield from points
    if in_range is not None:
        yield b',"points_in_range":%d' % in_range
    yield b"}"


def json_points(series: ScalarSeries) -> Iterator[bytes]:
    """The points of one series as a JSON array of :func:`json_columns` objects, in pieces."""
    yield b"["
    yield from point_object_pieces(json_columns(series))
    yield b"]"


def json_pieces(found: Sequence[Found], in_range: Sequence[int] | None = None) -> Iterator[bytes]:
    """The JSON document in pieces; ``in_range`` (one count per series) adds each entry's
    ``"points_in_range"`` (the REST download of a step range)."""
    yield b"["
    for i, (train_id, tag, series) in enumerate(found):
        if i:
            yield b","
        yield from json_entry(
            train_id, tag, json_points(series), None if in_range is None else in_range[i]
        )
    yield b"]"


#: The first line of a grouped CSV download (``,x`` before the newline on an x tag).
GROUP_CSV_HEADER = "train_id,tag,step,wall_time,value,group,low,high,count\n"


def grouped_csv_rows(
    found: Sequence[Found], groups: Sequence[GroupFound], xs: XValues | None = None
) -> Iterator[str]:
    """The grouped CSV text (module docstring): the runs' rows, then the groups'; ``xs`` (on
    an x tag) adds the ``x`` column."""
    yield GROUP_CSV_HEADER if xs is None else GROUP_CSV_HEADER[:-1] + ",x\n"
    group_of = {job: name for name, _tag, _found, runs in groups for job in runs}
    for train_id, tag, series in found:
        suffix = "," + csv_cells([csv_text(group_of.get(train_id, "")), "", "", ""])
        yield csv_series(train_id, tag, series, suffix, None if xs is None else xs[train_id, tag])
    for name, tag, points, _runs in groups:
        prefix = csv_cells(["", csv_text(tag), ""])  # ",<tag>,"
        cell = "," + csv_cells([csv_text(name)]) + ","
        ends = (
            ["\n"] * len(points)
            if points.x is None
            else [f",{x_cell(v)}\n" for v in points.x.tolist()]
        )
        yield "".join(
            f"{prefix}{step},{wall!r},{centre!r}{cell}{low!r},{high!r},{count}{end}"
            for step, wall, centre, low, high, count, end in zip(
                points.step.tolist(),
                points.wall.tolist(),
                points.centre.tolist(),
                points.low.tolist(),
                points.high.tolist(),
                points.count.tolist(),
                ends,
                strict=True,
            )
        )


def grouped_json_pieces(
    found: Sequence[Found],
    groups: Sequence[GroupFound],
    xs: XValues | None = None,
    x_tag: str = "",
) -> Iterator[bytes]:
    """The grouped JSON document in pieces (module docstring); ``xs`` (on the x tag
    ``x_tag``) adds each point's ``"x"`` and the document's ``"x_tag"``."""
    yield b'{"runs":'
    if xs is None:
        yield from json_pieces(found)
    else:
        yield b"["
        for i, (train_id, tag, series) in enumerate(found):
            yield b"," if i else b""
            columns = [*json_columns(series), ("x", xs[train_id, tag])]
            yield from json_entry(train_id, tag, (b"[", *point_object_pieces(columns), b"]"))
        yield b'],"x_tag":' + orjson.dumps(x_tag)
    yield b',"groups":['
    for i, (name, tag, points, runs) in enumerate(groups):
        yield b"," if i else b""
        yield b'{"group":%b,"tag":%b,"runs":%b,"values":[' % (
            orjson.dumps(name),
            orjson.dumps(tag),
            orjson.dumps(list(runs)),
        )
        columns = [
            ("step", points.step),
            ("wall_time", points.wall),
            ("value", points.centre),
            ("low", points.low),
            ("high", points.high),
            ("count", points.count),
            *([] if points.x is None else [("x", points.x)]),
        ]
        yield from point_object_pieces(columns)
        yield b"]}"
    yield b"]}"
