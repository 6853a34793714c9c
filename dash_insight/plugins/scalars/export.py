"""Scalar points as CSV and JSON files: the REST download (``export/scalars``) and the
comparison page's download share these, so a file from either reads the same.

CSV: header ``train_id,tag,step,wall_time,value``, one row per point, series after series, NaN
and ±inf as ``nan`` / ``inf`` / ``-inf``, a job or tag starting like a formula prefixed with
``'``. JSON: ``[{"train_id", "tag", "values": [{"step", "wall_time", "value"}]}]``, NaN and ±inf
as null (MindInsight's ``scalars`` entries with the point keys in that order).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import orjson

from dash_insight.core.csv_cells import csv_cells, csv_text
from dash_insight.core.store.series import ScalarSeries
from dash_insight.web.http import point_object_pieces

#: One series of a download: (train_id, tag as named, its points).
Found = tuple[str, str, ScalarSeries]


#: The first line of every CSV download.
CSV_HEADER = "train_id,tag,step,wall_time,value\n"


def csv_series(train_id: str, tag: str, series: ScalarSeries) -> str:
    """The CSV rows of one series (no header): ``train_id,tag`` as :mod:`csv` writes them
    (:func:`~dash_insight.core.csv_cells.csv_cells`, after :func:`csv_text`), then the step, the
    wall time and the value as Python's ``repr`` writes them (the value as the float64 of the
    stored float32; ``nan``, ``inf``, ``-inf``). The job and tag cells are written once and the
    numbers formatted row by row, which is what :class:`csv.writer` writes for these cells."""
    prefix = csv_cells([csv_text(train_id), csv_text(tag), ""])  # "<job>,<tag>,"
    return "".join(
        [
            f"{prefix}{step},{wall_time!r},{value!r}\n"
            for step, wall_time, value in zip(
                series.step.tolist(), series.wall_time.tolist(), series.value.tolist(), strict=True
            )
        ]
    )


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
