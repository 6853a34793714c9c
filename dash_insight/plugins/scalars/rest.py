"""The scalars plugin's REST routes: MindInsight's ``scalar/metadata`` and ``scalars``
(``ScalarsProcessor``), and dash-insight's ``export/scalars`` download.

Deliberate differences from MindInsight 2.3.1: every step is served (no 1,000-point reservoir)
unless the server was started with ``--samples-per-plugin``; the three endpoints take optional
``start_step``, ``end_step`` (inclusive) and ``max_points`` parameters, which select the points
of a step range reduced per pixel column (:mod:`dash_insight.core.store.lod`); with any of them
the answer also says how many points the range holds (``points_in_range``). Answers are encoded
by orjson straight from the arrays, and streamed beyond ``STREAM_POINTS`` points.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import orjson
from flask import Response, request

from dash_insight.core.provider import DataProvider, JobNotFound, TagNotFound
from dash_insight.core.service import DataService
from dash_insight.core.store.lod import ScalarWindow
from dash_insight.core.store.series import ScalarSeries
from dash_insight.core.vocabulary import Plugin, stored_tag
from dash_insight.plugins.scalars.export import csv_rows, json_pieces
from dash_insight.plugins.scalars.x_tag import unplaced, values_at_steps
from dash_insight.web import errors
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
)
from dash_insight.web.plugin import DASH_INSIGHT_API, Route

log = logging.getLogger(__name__)


def routes(service: DataService) -> list[Route]:
    views = _ScalarViews(service.provider)
    return [
        Route("datavisual/scalar/metadata", views.scalar_metadata),
        Route("datavisual/scalars", views.scalars),
        Route("export/scalars", views.export_scalars, api=DASH_INSIGHT_API),
        Route("chart/scalar", views.chart_scalar, api=DASH_INSIGHT_API),
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
            f"start_step ({start}) must not be greater than end_step ({end}).")
    return StepRange(start, end, max_points)


def _metadata_columns(series: ScalarSeries) -> list[tuple[str, np.ndarray]]:
    """MindInsight's point keys and order; values as float64 of the stored float32 (its
    ``float(np.float32)``), NaN/±inf as null."""
    return [("wall_time", series.wall_time), ("step", series.step),
            ("value", series.value.astype(np.float64))]


def _window_pieces(found: ScalarWindow, wanted: StepRange) -> Iterator[bytes]:
    """``[points]`` and, with range parameters, ``,"points_in_range":M``."""
    yield b"["
    yield from point_object_pieces(_metadata_columns(found.series))
    yield b"]"
    if wanted.given:
        yield b',"points_in_range":%d' % found.points_in_range


def missing_suffix_hint(requested: Sequence[str], stored: set[str]) -> str | None:
    """A hint for MindInsight tags given without their ``/scalar`` suffix: the REST API names a
    scalar tag ``<stored tag>/scalar`` (``loss/scalar``), so ``tag=loss`` matches nothing and
    MindInsight answers an empty list. None when every requested tag has the suffix or no
    stored tag has the requested name."""
    bare = [tag for tag in requested if stored_tag(tag, Plugin.SCALAR) is None and tag in stored]
    if not bare:
        return None
    return ("scalar tags carry a '/scalar' suffix in the REST API: "
            + ", ".join(f"tag={tag}/{Plugin.SCALAR}" for tag in bare) + " was probably meant")


class _ScalarViews:
    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider

    def _window(self, train_id: str, raw_tag: str, wanted: StepRange) -> ScalarWindow:
        return self.provider.read_scalar_window(train_id, raw_tag, wanted.start_step,
                                                wanted.end_step, wanted.max_points)

    def scalar_metadata(self) -> Response:
        """``GET /datavisual/scalar/metadata?train_id=&tag=[&start_step=&end_step=&max_points=]``
        -> ``{"metadatas": [{wall_time, step, value}]}``, sorted by step, NaN/±Inf as null
        (``scalar_metadata``); with range parameters, the points of the range (reduced to
        ``max_points``) and ``"points_in_range"``."""
        train_id, tag = required_args("train_id", "tag")
        wanted = step_range()
        job = resolve_job(self.provider, train_id)
        hint = missing_suffix_hint([tag], set(job.tags.get(Plugin.SCALAR, [])))
        if hint is not None:  # MindInsight's error stays the answer; the hint goes to the log
            log.info("scalar/metadata %s: %s", train_id, hint)
        raw = stored_tag_or(tag, Plugin.SCALAR, errors.scalar_not_exist)
        try:
            found = self._window(train_id, raw, wanted)
        except TagNotFound:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL) from None

        def pieces() -> Iterator[bytes]:
            yield b'{"metadatas":'
            yield from _window_pieces(found, wanted)
            yield b"}"

        return json_bytes_response(pieces(), len(found.series))

    def scalars(self) -> Response:
        """``GET /datavisual/scalars?train_id=..&train_id=..&tag=..&tag=..`` -> ``{"scalars":
        [{train_id, tag, values}]}`` for every (job, tag) pair that exists, jobs first; unknown
        jobs and missing tags are skipped (``ScalarsProcessor.get_scalars``). Range parameters
        apply to every pair (each entry then has ``"points_in_range"``)."""
        tags = request.args.getlist("tag")
        for tag in tags:
            check_tag(tag)
        wanted = step_range()
        found: list[tuple[str, str, ScalarWindow]] = []
        stored: set[str] = set()
        for train_id in request.args.getlist("train_id"):
            job = known_job(self.provider, train_id)
            if job is None:
                continue
            known = set(job.tags.get(Plugin.SCALAR, []))
            stored |= known
            for tag in tags:
                raw = stored_tag(tag, Plugin.SCALAR)
                if raw is None or raw not in known:
                    continue
                try:
                    found.append((train_id, tag, self._window(train_id, raw, wanted)))
                except (TagNotFound, JobNotFound):
                    continue

        def pieces() -> Iterator[bytes]:
            yield b'{"scalars":['
            for i, (train_id, tag, window) in enumerate(found):
                yield (b"," if i else b"") + b'{"train_id":%b,"tag":%b,"values":' % (
                    orjson.dumps(train_id), orjson.dumps(tag))
                yield from _window_pieces(window, wanted)
                yield b"}"
            yield b"]"
            if hint is not None:  # only for tags MindInsight would not find: its shape stays
                yield b',"hint":' + orjson.dumps(hint)
            yield b"}"

        hint = missing_suffix_hint(tags, stored)
        if hint is not None:
            log.info("scalars: %s", hint)
        return json_bytes_response(pieces(), sum(len(w.series) for _, _, w in found))

    def chart_scalar(self) -> Response:
        """``GET /v1/dash-insight/chart/scalar?train_id=&tag=[&start_step=&end_step=]
        [&max_points=][&x_tag=]``: what one line of a chart draws, as columns
        (:func:`chart_columns`). The tag is dash-insight's (``loss``) or MindInsight's
        (``loss/scalar``); errors as ``scalar/metadata``'s. ``x_tag``: another scalar tag of the
        job to place the points by (:func:`x_columns`; a tag the job lacks places none)."""
        train_id, tag = required_args("train_id", "tag")
        wanted = step_range()
        x_tag = request.args.get("x_tag") or None
        known = set(resolve_job(self.provider, train_id).tags.get(Plugin.SCALAR, []))
        raw = tag if tag in known else stored_tag(tag, Plugin.SCALAR)
        if raw is None or raw not in known:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL)
        try:
            found = self._window(train_id, raw, wanted)
            x = None
            if x_tag is not None:
                raw_x = x_tag if x_tag in known else stored_tag(x_tag, Plugin.SCALAR)
                # Both tags within the window only (every point of it: the unplaced count).
                x_series = (self.provider.read_scalar_window(
                    train_id, raw_x, wanted.start_step, wanted.end_step).series
                    if raw_x is not None and raw_x in known else None)
                x = x_columns(found, self.provider.read_scalar_window(
                    train_id, raw, wanted.start_step, wanted.end_step).series, wanted,
                    x_series)
        except TagNotFound:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL) from None
        return Response(chart_columns(found, x), mimetype="application/json")

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
        train_ids = request.args.getlist("train_id")
        tags = request.args.getlist("tag")
        require(train_id=train_ids, tag=tags)
        fmt = request.args.get("format", "csv").lower()
        if fmt not in ("csv", "json"):
            raise errors.param_value_error(
                f"format must be 'csv' or 'json', got {request.args.get('format')!r}.")
        for tag in tags:
            check_tag(tag)
        wanted = step_range()
        found: list[tuple[str, str, ScalarWindow]] = []
        seen_tags: set[str] = set()
        for train_id in train_ids:
            known = set(resolve_job(self.provider, train_id).tags.get(Plugin.SCALAR, []))
            for tag in tags:
                raw = tag if tag in known else stored_tag(tag, Plugin.SCALAR)
                if raw is None or raw not in known:
                    continue
                found.append((train_id, tag, self._window(train_id, raw, wanted)))
                seen_tags.add(tag)
        missing = [tag for tag in tags if tag not in seen_tags]
        if missing:
            raise errors.scalar_not_exist(
                f"none of the requested train jobs has the scalar tag(s) {missing}.")
        filename = _export_filename(train_ids, tags, fmt)
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        if fmt == "json":
            pieces = json_pieces([(train_id, tag, window.series)
                                  for train_id, tag, window in found],
                                 [window.points_in_range for _, _, window in found]
                                 if wanted.given else None)
            response = json_bytes_response(pieces, sum(len(w.series) for _, _, w in found))
            response.headers.update(headers)
            return response
        return Response(csv_rows([(train_id, tag, window.series)
                                   for train_id, tag, window in found]),
                        mimetype="text/csv", headers=headers)


def x_columns(found: ScalarWindow, full: ScalarSeries, wanted: StepRange,
              x_series: ScalarSeries | None) -> dict[str, object]:
    """``{"x": [...], "x_unplaced": n}`` of a window drawn against another tag: the x tag's
    value at each point's step (null where it has none: :func:`~.x_tag.values_at_steps`) and
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
    return {"x": [None if np.isnan(v) else v for v in x.tolist()],
            "x_unplaced": unplaced(steps, x_series.step, x_series.value)}


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
    return orjson.dumps({"step": series.step, "wall": series.wall_time, "y": value,
                         "nonfinite": [[int(i), kind] for i, kind in zip(bad.tolist(), kinds,
                                                                          strict=True)],
                         "shown": len(series), "total": found.points_in_range, **(x or {})},
                        option=orjson.OPT_SERIALIZE_NUMPY)


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
