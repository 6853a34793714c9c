"""The histograms plugin's REST route: MindInsight's ``histograms`` (``HistogramProcessor``).

Deliberate difference from MindInsight 2.3.1: every step is served (no 50-step reservoir) unless
the server was started with ``--samples-per-plugin``.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from dash_insight.core.provider import DataProvider, TagNotFound
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.histograms.query import HistogramSteps, read_histograms
from dash_insight.web import errors
from dash_insight.web.errors import TAG_NOT_FOUND_DETAIL
from dash_insight.web.http import (
    bucket_rows,
    json_response,
    required_args,
    resolve_job,
    stored_tag_or,
    tag_may_be_pending,
)
from dash_insight.web.plugin import Route


def routes(service: DataService) -> list[Route]:
    return [Route("datavisual/histograms", _HistogramViews(service.provider).histograms)]


class _HistogramViews:
    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider

    def histograms(self) -> Response:
        """``GET /datavisual/histograms?train_id=&tag=`` -> ``{"train_id", "tag", "histograms":
        [{wall_time, step, buckets: [[left, width, count]]}]}``, every step re-binned onto the
        tag's shared grid (``HistogramProcessor.get_histograms``, spec §4.2). Steps whose value
        cannot be read now (their file cut since it was indexed) are left out and named in
        ``"unreadable": [{step, wall_time, error}]``, a key only such an answer has."""
        train_id, tag = required_args("train_id", "tag")
        resolve_job(self.provider, train_id)
        raw = stored_tag_or(tag, PluginName.HISTOGRAM, errors.histogram_not_exist)
        try:
            found = read_histograms(self.provider, train_id, raw, rebin=True)
        except TagNotFound:
            if not tag_may_be_pending(self.provider, train_id):
                raise errors.histogram_not_exist(TAG_NOT_FOUND_DETAIL) from None
            found = HistogramSteps([], [])
        answer: dict[str, Any] = {
            "train_id": train_id,
            "tag": tag,
            "histograms": [
                {"wall_time": h.wall_time, "step": h.step, "buckets": bucket_rows(h.buckets)}
                for h in found.rows
            ],
        }
        if found.unreadable:
            answer["unreadable"] = [
                {"step": u.step, "wall_time": u.wall_time, "error": u.message}
                for u in found.unreadable
            ]
        return json_response(answer)
