"""The scalars plugin's REST routes: MindInsight's ``scalar/metadata`` and ``scalars``
(``ScalarsProcessor``), and dash-insight's ``export/scalars`` download.

Deliberate difference from MindInsight 2.3.1: every step is served (no 1,000-point reservoir)
unless the server was started with ``--samples-per-plugin``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import Any

from flask import Response, request

from dash_insight.core.provider import DataProvider, JobNotFound, TagNotFound
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import Plugin, stored_tag
from dash_insight.web import errors
from dash_insight.web.errors import TAG_NOT_FOUND_DETAIL
from dash_insight.web.http import (
    check_tag,
    finite_or_none,
    json_response,
    known_job,
    require,
    required_args,
    resolve_job,
    stored_tag_or,
)
from dash_insight.web.plugin import DASH_INSIGHT_API, Route


def routes(service: DataService) -> list[Route]:
    views = _ScalarViews(service.provider)
    return [
        Route("datavisual/scalar/metadata", views.scalar_metadata),
        Route("datavisual/scalars", views.scalars),
        Route("export/scalars", views.export_scalars, api=DASH_INSIGHT_API),
    ]


class _ScalarViews:
    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider

    def _points(self, train_id: str, raw_tag: str) -> list[dict[str, Any]]:
        series = self.provider.read_scalars(train_id, raw_tag)
        return [{"wall_time": wall_time, "step": step, "value": finite_or_none(value)}
                for wall_time, step, value in zip(series.wall_time.tolist(), series.step.tolist(),
                                                  series.value.tolist(), strict=True)]

    def scalar_metadata(self) -> Response:
        """``GET /datavisual/scalar/metadata?train_id=&tag=`` -> ``{"metadatas": [{wall_time,
        step, value}]}``, sorted by step, NaN/±Inf as null (``scalar_metadata``)."""
        train_id, tag = required_args("train_id", "tag")
        resolve_job(self.provider, train_id)
        raw = stored_tag_or(tag, Plugin.SCALAR, errors.scalar_not_exist)
        try:
            points = self._points(train_id, raw)
        except TagNotFound:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL) from None
        return json_response({"metadatas": points})

    def scalars(self) -> Response:
        """``GET /datavisual/scalars?train_id=..&train_id=..&tag=..&tag=..`` -> ``{"scalars":
        [{train_id, tag, values}]}`` for every (job, tag) pair that exists, jobs first; unknown
        jobs and missing tags are skipped (``ScalarsProcessor.get_scalars``)."""
        tags = request.args.getlist("tag")
        for tag in tags:
            check_tag(tag)
        result = []
        for train_id in request.args.getlist("train_id"):
            job = known_job(self.provider, train_id)
            if job is None:
                continue
            known = set(job.tags.get(Plugin.SCALAR, []))
            for tag in tags:
                raw = stored_tag(tag, Plugin.SCALAR)
                if raw is None or raw not in known:
                    continue
                try:
                    values = self._points(train_id, raw)
                except (TagNotFound, JobNotFound):
                    continue
                result.append({"train_id": train_id, "tag": tag, "values": values})
        return json_response({"scalars": result})

    def export_scalars(self) -> Response:
        """``GET /v1/dash-insight/export/scalars?train_id=..[&train_id=..]&tag=..[&tag=..]
        [&format=csv|json]``: every point of every (job, tag) pair that exists, as an attachment.

        Tags are dash-insight's (``loss/auto``) or MindInsight's (``loss/auto/scalar``); the
        answer names them as asked. CSV (default): header ``train_id,tag,step,wall_time,value``,
        one row per point, jobs then tags then steps, NaN/±Inf as ``nan``/``inf``/``-inf``, a job or
        tag starting like a formula (``=``, ``+``, ``-``, ``@``) prefixed with ``'``. JSON:
        ``[{"train_id", "tag", "values": [{"step", "wall_time", "value"}]}]`` with NaN/±Inf as
        null. Unknown job -> TrainJobNotExist; a tag no requested job has -> ScalarNotExist;
        a pair that does not exist is left out.
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
        found: list[tuple[str, str, Any]] = []
        seen_tags: set[str] = set()
        for train_id in train_ids:
            known = set(resolve_job(self.provider, train_id).tags.get(Plugin.SCALAR, []))
            for tag in tags:
                raw = tag if tag in known else stored_tag(tag, Plugin.SCALAR)
                if raw is None or raw not in known:
                    continue
                found.append((train_id, tag, self.provider.read_scalars(train_id, raw)))
                seen_tags.add(tag)
        missing = [tag for tag in tags if tag not in seen_tags]
        if missing:
            raise errors.scalar_not_exist(
                f"none of the requested train jobs has the scalar tag(s) {missing}.")
        filename = _export_filename(train_ids, tags, fmt)
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        if fmt == "json":
            payload = [{"train_id": train_id, "tag": tag, "values": [
                {"step": step, "wall_time": wall_time, "value": finite_or_none(value)}
                for step, wall_time, value in zip(series.step.tolist(),
                                                  series.wall_time.tolist(),
                                                  series.value.tolist(), strict=True)]}
                for train_id, tag, series in found]
            response = json_response(payload)
            response.headers.update(headers)
            return response
        return Response(_csv_rows(found), mimetype="text/csv", headers=headers)


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


def _csv_float(value: float) -> str:
    return repr(float(value))  # nan, inf, -inf for the non-finite ones


#: A spreadsheet evaluates a cell starting with one of these as a formula (``=HYPERLINK(...)``).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: str) -> str:
    """``text`` for a CSV text cell that a spreadsheet shows as text, never runs: a leading
    ``'`` before a formula start (OWASP's CSV injection advice). Numbers are not text cells."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def _csv_rows(found: list[tuple[str, str, Any]]) -> Iterator[str]:
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
