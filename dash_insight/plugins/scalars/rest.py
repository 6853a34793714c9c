"""The scalars plugin's REST routes: MindInsight's ``scalar/metadata`` and ``scalars``
(``ScalarsProcessor``), and dash-insight's ``export/scalars`` download.

Deliberate differences from MindInsight 2.3.1: every step is served (no 1,000-point reservoir)
unless the server was started with ``--samples-per-plugin``; the three endpoints take optional
``start_step``, ``end_step`` (inclusive) and ``max_points`` parameters, which select the points
of a step range reduced per pixel column (:mod:`dash_insight.core.store.lod`); with any of them
the answer also says how many points the range holds (``points_in_range``). Answers are encoded
by orjson straight from the arrays, and streamed beyond ``STREAM_POINTS`` points.

Each series' part of an answer is kept encoded (:class:`AnswerCache`) under the job's
:meth:`~dash_insight.core.provider.DataProvider.version_key`, its tag, the shape of the answer
and the range parameters: a chart or a script asking again for a series that has not grown
gets the bytes of the last answer (encoding 20,000 points is most of such a request's time).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import orjson
from flask import Response, request

from dash_insight.core.provider import DataProvider, IndexEntryMissing, JobNotFound, TagNotFound
from dash_insight.core.service import DataService
from dash_insight.core.store.lod import ScalarWindow
from dash_insight.core.store.lru import ByteLRU
from dash_insight.core.store.series import ScalarSeries
from dash_insight.core.vocabulary import PluginName, stored_tag
from dash_insight.plugins.scalars.query_groups import (
    BANDS,
    CENTRES,
    Aggregate,
    aggregate,
    drawn_points,
)
from dash_insight.plugins.scalars.query_x_tag import unplaced, values_at_steps, x_of
from dash_insight.plugins.scalars.rest_export import CSV_HEADER, csv_series, json_entry, json_points
from dash_insight.web import errors, http
from dash_insight.web.errors import TAG_NOT_FOUND_DETAIL
from dash_insight.web.http import (
    check_tag,
    json_bytes_response,
    known_job,
    optional_int,
    point_object_pieces,
    require,
    required_args,
    resolve_job,
    stored_tag_or,
    tag_may_be_pending,
)
from dash_insight.web.limits import MAX_URL_LIST_ITEMS
from dash_insight.web.plugin import DASH_INSIGHT_API, Route

log = logging.getLogger(__name__)


#: The share of ``--cache-bytes`` that keeps encoded answers (1/8: 32 MiB by default, some
#: twenty answers of 20,000 points).
ANSWER_CACHE_SHARE = 8


def routes(service: DataService) -> list[Route]:
    views = _ScalarViews(
        service.provider,
        AnswerCache(service.provider, service.settings.cache_bytes // ANSWER_CACHE_SHARE),
    )
    return [
        Route("datavisual/scalar/metadata", views.scalar_metadata),
        Route("datavisual/scalars", views.scalars),
        Route("export/scalars", views.export_scalars, api=DASH_INSIGHT_API),
        Route("chart/scalar", views.chart_scalar, api=DASH_INSIGHT_API),
        Route("chart/scalar_lines", views.chart_scalar_lines, api=DASH_INSIGHT_API),
        Route("chart/scalar_group", views.chart_scalar_group, api=DASH_INSIGHT_API),
    ]


#: The smallest ``max_points``: the two ends of the range and one column's two extremes.
MIN_POINTS = 4


@dataclass(frozen=True)
class StepRange:
    """The optional range parameters of a request (None: not given)."""

    start_step: int | None = None
    end_step: int | None = None
    max_points: int | None = None

    @property
    def given(self) -> bool:
        return (self.start_step, self.end_step, self.max_points) != (None, None, None)


def step_range() -> StepRange:
    """``start_step``, ``end_step`` and ``max_points`` of the request: ParamTypeError when one
    is not an integer, ParamValueError for ``max_points`` below :data:`MIN_POINTS` or
    ``start_step`` after ``end_step``."""
    start, end = optional_int("start_step"), optional_int("end_step")
    max_points = optional_int("max_points", MIN_POINTS)
    if start is not None and end is not None and start > end:
        raise errors.param_value_error(
            f"start_step ({start}) must not be greater than end_step ({end})."
        )
    return StepRange(step_bound(start), step_bound(end), step_bound(max_points))


#: Steps are stored as int64: a bound beyond them selects what the nearest int64 selects.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def step_bound(value: int | None) -> int | None:
    """``value`` clamped to int64 (None kept): ``start_step=-2**70`` means "from the first
    step", as ``-2**63`` does, instead of overflowing numpy's search."""
    return None if value is None else min(max(value, INT64_MIN), INT64_MAX)


def _metadata_columns(series: ScalarSeries) -> list[tuple[str, np.ndarray]]:
    """MindInsight's point keys and order; values as float64 of the stored float32 (its
    ``float(np.float32)``), NaN/±inf as null."""
    return [
        ("wall_time", series.wall_time),
        ("step", series.step),
        ("value", series.value.astype(np.float64)),
    ]


def metadata_points(series: ScalarSeries) -> Iterator[bytes]:
    """The points of ``scalar/metadata`` and ``scalars`` as a JSON array, in pieces."""
    yield b"["
    yield from point_object_pieces(_metadata_columns(series))
    yield b"]"


def csv_chunks(train_id: str, tag: str, series: ScalarSeries) -> Iterator[bytes]:
    """The CSV rows of a series in chunks of :data:`STREAM_POINTS` rows."""
    size = http.STREAM_POINTS
    for start in range(0, len(series), size):
        part = ScalarSeries(
            step=series.step[start : start + size],
            wall_time=series.wall_time[start : start + size],
            value=series.value[start : start + size],
        )
        yield csv_series(train_id, tag, part).encode()


#: The encodings of a series' points: shape -> (train_id, tag as named, series) -> pieces.
ENCODINGS: dict[str, Callable[[str, str, ScalarSeries], Iterator[bytes]]] = {
    "metadata": lambda _train_id, _tag, series: metadata_points(series),
    "json": lambda _train_id, _tag, series: json_points(series),
    "csv": csv_chunks,
}


@dataclass(frozen=True)
class Encoded:
    """A window's points encoded in one of :data:`ENCODINGS` (``points`` of the
    ``points_in_range`` of its step range)."""

    body: bytes
    points: int
    points_in_range: int


#: A window as an answer part: encoded (at most :data:`STREAM_POINTS` points), or as read.
Part = Encoded | ScalarWindow


def part_points(part: Part) -> int:
    return part.points if isinstance(part, Encoded) else len(part.series)


class AnswerCache:
    """The encoded points of recently answered windows, bounded by bytes (least recently used
    dropped first). A window is kept under (shape, job, tag as named, stored tag, range
    parameters, :meth:`~dash_insight.core.provider.DataProvider.version_key` of the job): when
    the job grows its version changes, so the next request encodes the grown series again and
    the old bytes age out. Windows of more than :data:`STREAM_POINTS` points are never kept:
    they are streamed as they are encoded. Concurrent requests for the same window encode it
    once (:class:`~dash_insight.core.store.lru.ByteLRU`)."""

    def __init__(self, provider: DataProvider, max_bytes: int) -> None:
        self.provider = provider
        self.lru = ByteLRU(max_bytes)

    def part(
        self,
        shape: str,
        train_id: str,
        tag: str,
        raw_tag: str,
        wanted: StepRange,
        read: Callable[[], ScalarWindow],
    ) -> Part:
        """The window ``read()`` returns, encoded in ``shape``, from the cache when the job has
        not changed since it was kept."""
        key = (shape, train_id, tag, raw_tag, wanted, self.provider.version_key(train_id))

        def encode() -> Part:
            found = read()
            if len(found.series) > http.STREAM_POINTS:
                return found
            return Encoded(
                b"".join(ENCODINGS[shape](train_id, tag, found.series)),
                len(found.series),
                found.points_in_range,
            )

        return self.lru.get_or_compute(key, encode, keep=lambda part: isinstance(part, Encoded))


def part_pieces(shape: str, train_id: str, tag: str, part: Part) -> Iterator[bytes]:
    """The encoded points of an answer part (kept, or encoded now piece by piece)."""
    if isinstance(part, Encoded):
        yield part.body
    else:
        yield from ENCODINGS[shape](train_id, tag, part.series)


def _window_pieces(train_id: str, tag: str, part: Part, wanted: StepRange) -> Iterator[bytes]:
    """``[points]`` and, with range parameters, ``,"points_in_range":M``."""
    yield from part_pieces("metadata", train_id, tag, part)
    if wanted.given:
        yield b',"points_in_range":%d' % part.points_in_range


def missing_suffix_hint(requested: Sequence[str], stored: set[str]) -> str | None:
    """A hint for MindInsight tags given without their ``/scalar`` suffix: the REST API names a
    scalar tag ``<stored tag>/scalar`` (``loss/scalar``), so ``tag=loss`` matches nothing and
    MindInsight answers an empty list. None when every requested tag has the suffix or no
    stored tag has the requested name."""
    bare = [
        tag for tag in requested if stored_tag(tag, PluginName.SCALAR) is None and tag in stored
    ]
    if not bare:
        return None
    return (
        "scalar tags carry a '/scalar' suffix in the REST API: "
        + ", ".join(f"tag={tag}/{PluginName.SCALAR}" for tag in bare)
        + " was probably meant"
    )


class _ScalarViews:
    def __init__(self, provider: DataProvider, answers: AnswerCache) -> None:
        self.provider = provider
        self.answers = answers

    def _window(self, train_id: str, raw_tag: str, wanted: StepRange) -> ScalarWindow:
        return self.provider.read_scalar_window(
            train_id, raw_tag, wanted.start_step, wanted.end_step, wanted.max_points
        )

    def _part(self, shape: str, train_id: str, tag: str, raw_tag: str, wanted: StepRange) -> Part:
        return self.answers.part(
            shape, train_id, tag, raw_tag, wanted, lambda: self._window(train_id, raw_tag, wanted)
        )

    def scalar_metadata(self) -> Response:
        """``GET /datavisual/scalar/metadata?train_id=&tag=[&start_step=&end_step=&max_points=]``
        -> ``{"metadatas": [{wall_time, step, value}]}``, sorted by step, NaN/±Inf as null
        (``scalar_metadata``); with range parameters, the points of the range (reduced to
        ``max_points``) and ``"points_in_range"``."""
        train_id, tag = required_args("train_id", "tag")
        wanted = step_range()
        job = resolve_job(self.provider, train_id)
        hint = missing_suffix_hint([tag], set(job.tags.get(PluginName.SCALAR, [])))
        if hint is not None:  # MindInsight's error stays the answer; the hint goes to the log
            log.info("scalar/metadata %s: %s", train_id, hint)
        raw = stored_tag_or(tag, PluginName.SCALAR, errors.scalar_not_exist)
        try:
            found = self._part("metadata", train_id, tag, raw, wanted)
        except TagNotFound:
            if not tag_may_be_pending(self.provider, train_id):
                raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL) from None
            return http.json_response({"metadatas": []})

        def pieces() -> Iterator[bytes]:
            yield b'{"metadatas":'
            yield from _window_pieces(train_id, tag, found, wanted)
            yield b"}"

        return json_bytes_response(pieces(), part_points(found))

    def scalars(self) -> Response:
        """``GET /datavisual/scalars?train_id=..&train_id=..&tag=..&tag=..`` -> ``{"scalars":
        [{train_id, tag, values}]}`` for every (job, tag) pair that exists, jobs first; unknown
        jobs and missing tags are skipped (``ScalarsProcessor.get_scalars``). Range parameters
        apply to every pair (each entry then has ``"points_in_range"``). A pair whose index
        entries are being read again from the logs is left out too, the answer saying
        ``rebuilding`` in ``X-Dash-Insight-Load-Status`` (503 when no pair is readable)."""
        tags = request.args.getlist("tag")
        for tag in tags:
            check_tag(tag)
        wanted = step_range()
        found, stored, rebuilding = self._pairs(tags, wanted)
        if rebuilding is not None:
            if not found:
                raise rebuilding  # 503 with Retry-After: nothing asked for is readable now
            http.name_load_status(http.STATUS_REBUILDING)

        def pieces() -> Iterator[bytes]:
            yield b'{"scalars":['
            for i, (train_id, tag, window) in enumerate(found):
                yield (b"," if i else b"") + b'{"train_id":%b,"tag":%b,"values":' % (
                    orjson.dumps(train_id),
                    orjson.dumps(tag),
                )
                yield from _window_pieces(train_id, tag, window, wanted)
                yield b"}"
            yield b"]"
            if hint is not None:  # only for tags MindInsight would not find: its shape stays
                yield b',"hint":' + orjson.dumps(hint)
            yield b"}"

        hint = missing_suffix_hint(tags, stored)
        if hint is not None:
            log.info("scalars: %s", hint)
        return json_bytes_response(pieces(), sum(part_points(w) for _, _, w in found))

    def _pairs(
        self, tags: Sequence[str], wanted: StepRange
    ) -> tuple[list[tuple[str, str, Part]], set[str], IndexEntryMissing | None]:
        """(job, tag, part) of every requested pair that exists, the tags the requested jobs
        store, and the error of the first pair whose index entries are being read again from
        the logs: such a pair is left out, the others are answered (one series' damage used to
        fail the whole answer)."""
        rebuilding: IndexEntryMissing | None = None
        found: list[tuple[str, str, Part]] = []
        stored: set[str] = set()
        for train_id in request.args.getlist("train_id"):
            job = known_job(self.provider, train_id)
            if job is None:
                continue
            known = set(job.tags.get(PluginName.SCALAR, []))
            stored |= known
            for tag in tags:
                raw = stored_tag(tag, PluginName.SCALAR)
                if raw is None or raw not in known:
                    continue
                try:
                    found.append(
                        (train_id, tag, self._part("metadata", train_id, tag, raw, wanted))
                    )
                except (TagNotFound, JobNotFound):
                    continue
                except IndexEntryMissing as error:
                    rebuilding = rebuilding or error
        return found, stored, rebuilding

    def chart_scalar(self) -> Response:
        """``GET /v1/dash-insight/chart/scalar?train_id=&tag=[&start_step=&end_step=]
        [&max_points=][&x_tag=]``: what one line of a chart draws, as columns
        (:func:`chart_columns`). The tag is dash-insight's (``loss``) or MindInsight's
        (``loss/scalar``); errors as ``scalar/metadata``'s. ``x_tag``: another scalar tag of the
        job to place the points by (:func:`x_columns`; a tag the job lacks places none)."""
        train_id, tag = required_args("train_id", "tag")
        line = self._line(train_id, tag, step_range(), request.args.get("x_tag") or None)
        return Response(line, mimetype="application/json")

    def chart_scalar_lines(self) -> Response:
        """``GET /v1/dash-insight/chart/scalar_lines?train_id=&tag=[&train_id=&tag=...]
        [&start_step=&end_step=][&max_points=][&x_tag=]``: what the lines of one chart draw,
        in one answer, ``{"lines": [...]}``: for the n-th ``train_id`` and n-th ``tag``,
        ``chart/scalar``'s answer, or its error (``{"error_code", "error_msg"}``) where that
        job or tag has none, so that one missing line leaves the others drawn (a comparison
        chart asked once for its jobs' lines instead of once per job). ``train_id`` and
        ``tag`` come in pairs, at most 10,000 (``web.limits.MAX_URL_LIST_ITEMS``)."""
        train_ids = request.args.getlist("train_id")[:MAX_URL_LIST_ITEMS]
        tags = request.args.getlist("tag")[:MAX_URL_LIST_ITEMS]
        require(train_id=train_ids, tag=tags)
        if len(train_ids) != len(tags):
            raise errors.param_value_error("train_id and tag must come in pairs.")
        wanted = step_range()
        x_tag = request.args.get("x_tag") or None
        lines = []
        for train_id, tag in zip(train_ids, tags, strict=True):
            try:
                lines.append(self._line(train_id, tag, wanted, x_tag))
            except errors.ApiError as error:
                lines.append(orjson.dumps(error.to_dict()))
        return Response(b'{"lines":[' + b",".join(lines) + b"]}", mimetype="application/json")

    def _line(self, train_id: str, tag: str, wanted: StepRange, x_tag: str | None) -> bytes:
        """``chart/scalar``'s answer for one job's tag (:func:`chart_columns`)."""
        known = set(resolve_job(self.provider, train_id).tags.get(PluginName.SCALAR, []))
        raw = tag if tag in known else stored_tag(tag, PluginName.SCALAR)
        if raw is None or raw not in known:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL)
        try:
            found = self._window(train_id, raw, wanted)
            x = None
            if x_tag is not None:
                raw_x = x_tag if x_tag in known else stored_tag(x_tag, PluginName.SCALAR)
                # Both tags within the window only (every point of it: the unplaced count).
                x_series = (
                    self.provider.read_scalar_window(
                        train_id, raw_x, wanted.start_step, wanted.end_step
                    ).series
                    if raw_x is not None and raw_x in known
                    else None
                )
                x = x_columns(
                    found,
                    self.provider.read_scalar_window(
                        train_id, raw, wanted.start_step, wanted.end_step
                    ).series,
                    wanted,
                    x_series,
                )
        except TagNotFound:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL) from None
        return chart_columns(found, x)

    def chart_scalar_group(self) -> Response:
        """``GET /v1/dash-insight/chart/scalar_group?train_id=..&train_id=..&tag=
        [&centre=mean|median][&band=std|minmax][&start_step=&end_step=][&max_points=][&x_tag=]``:
        what a group's line and band draw (:func:`group_columns`): the aggregate of the jobs'
        series of the tag (:func:`~.query_groups.aggregate`, aligned on steps, the band where two
        jobs or more have a value), reduced to the chart's width as a line is. ``x_tag``: another
        scalar tag of the jobs to place the points by, as ``chart/scalar`` places a line's: each
        job's point counts where its job has a value of that tag at its step, and the group's
        point sits at the mean of those values (a job without the tag places none). Unknown
        job -> TrainJobNotExist; jobs without the tag are left out (none has it:
        ScalarNotExist)."""
        train_ids = request.args.getlist("train_id")[:MAX_URL_LIST_ITEMS]
        (tag,) = required_args("tag")
        require(train_id=train_ids)
        centre = request.args.get("centre", "mean")
        band = request.args.get("band", "std")
        if centre not in CENTRES or band not in BANDS:
            raise errors.param_value_error(
                f"centre must be one of {list(CENTRES)} and band one of {list(BANDS)}."
            )
        x_tag = request.args.get("x_tag") or None
        wanted = step_range()
        runs: list[ScalarSeries] = []
        xs: list[np.ndarray] = []
        for train_id in dict.fromkeys(train_ids):
            known = set(resolve_job(self.provider, train_id).tags.get(PluginName.SCALAR, []))
            raw = tag if tag in known else stored_tag(tag, PluginName.SCALAR)
            if raw is not None and raw in known:
                try:
                    run = self.provider.read_scalars(train_id, raw)
                    if x_tag is not None:
                        xs.append(self._x_values(train_id, known, x_tag, run.step))
                    runs.append(run)
                except TagNotFound:
                    continue
        if not runs:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL)
        found = aggregate(runs, centre, band, xs if x_tag is not None else None)
        drawn, in_range = drawn_points(found, wanted.start_step, wanted.end_step, wanted.max_points)
        x_differs = found.x_differs(wanted.start_step, wanted.end_step)
        return Response(
            group_columns(drawn, in_range, len(runs), x_differs), mimetype="application/json"
        )

    def _x_values(
        self, train_id: str, known: set[str], x_tag: str, steps: np.ndarray
    ) -> np.ndarray:
        """The value the job's ``x_tag`` has at each of ``steps`` (NaN where it has none; all
        NaN when the job lacks the tag: :func:`~.query_x_tag.values_at_steps`)."""
        raw_x = x_tag if x_tag in known else stored_tag(x_tag, PluginName.SCALAR)
        if raw_x is None or raw_x not in known:
            return x_of(steps, None)
        return x_of(steps, self.provider.read_scalars(train_id, raw_x))

    def export_scalars(self) -> Response:
        """``GET /v1/dash-insight/export/scalars?train_id=..[&train_id=..]&tag=..[&tag=..]
        [&format=csv|json]``: every point of every (job, tag) pair that exists, as an attachment.

        Tags are dash-insight's (``loss/auto``) or MindInsight's (``loss/auto/scalar``); the
        answer names them as asked. CSV (default): header ``train_id,tag,step,wall_time,value``,
        one row per point, jobs then tags then steps, NaN/±Inf as ``nan``/``inf``/``-inf``, a job or
        tag starting like a formula (``=``, ``+``, ``-``, ``@``) prefixed with ``'``. JSON:
        ``[{"train_id", "tag", "values": [{"step", "wall_time", "value"}]}]`` with NaN/±Inf as
        null. Unknown job -> TrainJobNotExist; a tag no requested job has -> ScalarNotExist;
        a pair that does not exist is left out. ``start_step``, ``end_step`` and ``max_points``
        export what a chart of that range draws (JSON entries then say ``points_in_range``).
        """
        train_ids, tags, fmt = _export_args()
        wanted = step_range()
        found = self._export_parts(train_ids, tags, fmt, wanted)
        filename = _export_filename(train_ids, tags, fmt)
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        points = sum(part_points(part) for _, _, part in found)
        if fmt == "json":
            response = json_bytes_response(_json_export(found, wanted), points)
            response.headers.update(headers)
            return response
        rows = _csv_export(found)
        body = b"".join(rows) if points <= http.STREAM_POINTS else rows
        return Response(body, mimetype="text/csv", headers=headers)

    def _export_parts(
        self, train_ids: list[str], tags: list[str], fmt: str, wanted: StepRange
    ) -> list[Exported]:
        """The parts of an export: each (job, tag as asked) pair that exists, jobs then tags.
        Unknown job -> TrainJobNotExist; a tag no job has -> ScalarNotExist."""
        found: list[Exported] = []
        seen_tags: set[str] = set()
        for train_id in train_ids:
            known = set(resolve_job(self.provider, train_id).tags.get(PluginName.SCALAR, []))
            for tag in tags:
                raw = tag if tag in known else stored_tag(tag, PluginName.SCALAR)
                if raw is None or raw not in known:
                    continue
                found.append((train_id, tag, self._part(fmt, train_id, tag, raw, wanted)))
                seen_tags.add(tag)
        missing = [tag for tag in tags if tag not in seen_tags]
        if missing:
            raise errors.scalar_not_exist(
                f"none of the requested train jobs has the scalar tag(s) {missing}."
            )
        return found


#: One series of an export: its job, its tag as asked and its points.
Exported = tuple[str, str, Part]


def _export_args() -> tuple[list[str], list[str], str]:
    """The jobs, tags and format (``csv`` or ``json``) of an export request, checked."""
    train_ids = request.args.getlist("train_id")
    tags = request.args.getlist("tag")
    require(train_id=train_ids, tag=tags)
    fmt = request.args.get("format", "csv").lower()
    if fmt not in ("csv", "json"):
        raise errors.param_value_error(
            f"format must be 'csv' or 'json', got {request.args.get('format')!r}."
        )
    for tag in tags:
        check_tag(tag)
    return train_ids, tags, fmt


def _json_export(found: list[Exported], wanted: StepRange) -> Iterator[bytes]:
    """A JSON export in pieces: a list of entries (``points_in_range`` for a step range)."""
    yield b"["
    for i, (train_id, tag, part) in enumerate(found):
        if i:
            yield b","
        yield from json_entry(
            train_id,
            tag,
            part_pieces("json", train_id, tag, part),
            part.points_in_range if wanted.given else None,
        )
    yield b"]"


def _csv_export(found: list[Exported]) -> Iterator[bytes]:
    """A CSV export in pieces: the header, then each series' rows."""
    yield CSV_HEADER.encode()
    for train_id, tag, part in found:
        yield from part_pieces("csv", train_id, tag, part)


def x_columns(
    found: ScalarWindow, full: ScalarSeries, wanted: StepRange, x_series: ScalarSeries | None
) -> dict[str, object]:
    """``{"x": [...], "x_unplaced": n}`` of a window drawn against another tag: the x tag's
    value at each point's step (null where it has none: :func:`~.query_x_tag.values_at_steps`) and
    how many points of the whole range (``full`` within ``wanted``'s steps, not only those
    drawn) cannot be placed. ``x_series`` None (the job lacks the tag): none can."""
    steps = full.step
    if wanted.start_step is not None:
        steps = steps[steps >= wanted.start_step]
    if wanted.end_step is not None:
        steps = steps[steps <= wanted.end_step]
    if x_series is None:
        return {"x": [None] * len(found.series), "x_unplaced": len(steps)}
    x = values_at_steps(found.series.step, x_series.step, x_series.value)
    return {
        "x": [None if np.isnan(v) else v for v in x.tolist()],
        "x_unplaced": unplaced(steps, x_series.step, x_series.value),
    }


def chart_columns(found: ScalarWindow, x: dict[str, object] | None = None) -> bytes:
    """``{"step": [...], "wall": [...], "y": [...], "nonfinite": [[i, kind]], "shown": n,
    "total": m}``: the points of a window as columns (a third of the bytes of MindInsight's
    point objects), values as float64 of the stored float32 with NaN / ±inf as null in ``y``
    and listed in ``nonfinite`` by position and kind ("nan", "inf", "-inf") so that the chart
    marks them; ``total`` = the points of the range before the reduction. ``x``
    (:func:`x_columns`) is added when the chart is drawn against another tag."""
    series = found.series
    value = series.value.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(value))
    kinds = ["nan" if np.isnan(v) else ("inf" if v > 0 else "-inf") for v in value[bad]]
    return orjson.dumps(
        {
            "step": series.step,
            "wall": series.wall_time,
            "y": value,
            "nonfinite": [[int(i), kind] for i, kind in zip(bad.tolist(), kinds, strict=True)],
            "shown": len(series),
            "total": found.points_in_range,
            **(x or {}),
        },
        option=orjson.OPT_SERIALIZE_NUMPY,
    )


def group_columns(found: Aggregate, in_range: int, runs: int, x_differs: int = 0) -> bytes:
    """A group's points as :func:`chart_columns` gives a line's (``step``, ``wall``, ``y``: the
    centre, ``shown``, ``total``, ``nonfinite`` empty: non-finite values are left out of the
    aggregate), with ``relative`` (the runs' mean time since their start), ``low`` and
    ``high`` (the band, null where fewer than two runs have a value), ``count`` (runs with a
    value at the step) and ``runs`` (runs with the tag). On an x tag (``found.x``), as a line's
    (:func:`x_columns`): ``x`` (the mean x value of the runs counted at the step), ``x_spread``
    (their maximum less their minimum: 0 where they agree), ``x_unplaced`` (the runs' points
    left out for want of an x value) and ``x_differs`` (points of the range whose runs' x
    values differ: drawn at their mean)."""
    on_x = (
        {}
        if found.x is None
        else {
            "x": found.x,
            "x_spread": found.x_spread,
            "x_unplaced": found.unplaced,
            "x_differs": x_differs,
        }
    )
    return orjson.dumps(
        {
            "step": found.step,
            "wall": found.wall,
            "relative": found.relative,
            "y": found.centre,
            "low": found.low,
            "high": found.high,
            "count": found.count,
            "nonfinite": [],
            "shown": len(found),
            "total": in_range,
            "runs": runs,
            **on_x,
        },
        option=orjson.OPT_SERIALIZE_NUMPY,
    )


def _filename_part(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")
    return cleaned or "root"


def _export_filename(train_ids: list[str], tags: list[str], extension: str) -> str:
    """``scalars_<job>_<tag>.csv`` for one series, ``scalars_<job>.csv`` for one job,
    ``scalars.csv`` otherwise (ASCII letters, digits, ``._-`` only)."""
    parts = ["scalars"]
    if len(train_ids) == 1:
        parts.append(_filename_part(train_ids[0]))
        if len(tags) == 1:
            parts.append(_filename_part(tags[0]))
    return "_".join(parts) + "." + extension
