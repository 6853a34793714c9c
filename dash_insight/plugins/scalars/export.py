"""Scalar points as CSV and JSON files: the REST download (``export/scalars``) and the
comparison page's download share these, so a file from either reads the same.

CSV: header ``train_id,tag,step,wall_time,value``, one row per point, series after series, NaN
and ±inf as ``nan`` / ``inf`` / ``-inf``, a job or tag starting like a formula prefixed with
``'``. JSON: ``[{"train_id", "tag", "values": [{"step", "wall_time", "value"}]}]``, NaN and ±inf
as null (MindInsight's ``scalars`` entries with the point keys in that order).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence

import numpy as np
import orjson

from dash_insight.core.store.series import ScalarSeries
from dash_insight.web.http import point_object_pieces

#: A spreadsheet evaluates a cell starting with one of these as a formula (``=HYPERLINK(...)``).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

#: One series of a download: (train_id, tag as named, its points).
Found = tuple[str, str, ScalarSeries]


def _csv_float(value: float) -> str:
    return repr(float(value))  # nan, inf, -inf for the non-finite ones


def csv_text(text: str) -> str:
    """``text`` for a CSV text cell that a spreadsheet shows as text, never runs: a leading
    ``'`` before a formula start (OWASP's CSV injection advice). Numbers are not text cells."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def csv_rows(found: Sequence[Found]) -> Iterator[str]:
    """The CSV text, one chunk per series (streamed: nothing can fail any more)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["train_id", "tag", "step", "wall_time", "value"])
    yield buffer.getvalue()
    for train_id, tag, series in found:
        buffer.seek(0)
        buffer.truncate()
        train_id, tag = csv_text(train_id), csv_text(tag)
        writer.writerows(
            (train_id, tag, step, repr(wall_time), _csv_float(value))
            for step, wall_time, value in zip(series.step.tolist(), series.wall_time.tolist(),
                                              series.value.tolist(), strict=True))
        yield buffer.getvalue()


def json_pieces(found: Sequence[Found], in_range: Sequence[int] | None = None
                ) -> Iterator[bytes]:
    """The JSON document in pieces; ``in_range`` (one count per series) adds each entry's
    ``"points_in_range"`` (the REST download of a step range)."""
    yield b"["
    for i, (train_id, tag, series) in enumerate(found):
        yield (b"," if i else b"") + b'{"train_id":%b,"tag":%b,"values":[' % (
            orjson.dumps(train_id), orjson.dumps(tag))
        yield from point_object_pieces([("step", series.step), ("wall_time", series.wall_time),
                                        ("value", series.value.astype(np.float64))])
        yield b"]"
        if in_range is not None:
            yield b',"points_in_range":%d' % in_range[i]
        yield b"}"
    yield b"]"
