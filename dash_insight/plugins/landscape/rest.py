"""The landscape plugin's REST routes: MindInsight 2.3.1's ``landscape/intervals`` and
``landscape/landscapes`` (``train_visual_api.py``, ``LandscapeProcessor``), answered as it did
(``../shared/oracle/landscape/``) apart from the interval ids (see :mod:`.query`).

Errors, as MindInsight gives them:

* ``intervals``: no ``train_id`` -> 400 50540003; a job it does not know (also one not starting
  with ``./``) -> 400 50545005 "... Can not find the train job in data manager.";
* ``landscapes``: no ``train_id`` -> ``{"landscapes": []}``; one entry per ``train_id`` in request
  order (duplicates repeated); a ``train_id`` not starting with ``./`` -> entry
  ``{"error_code": "50540002", "train_id"}``; no such landscape (unknown ``type``, no final
  landscape, unknown or missing ``interval_id``) -> entry ``{"error_code": "50545017",
  "train_id"}``; an unknown job anywhere in the request -> the whole request 400 50545005.

Deliberate differences: a record that cannot be read or whose arrays do not fit together gives
an entry 50545017 with an ``error_msg`` saying why (MindInsight failed the request with a system
error); MindInsight's per-entry 50545005 (job known but not loaded into its cache) cannot happen
here: every job is served from the index.
"""

from __future__ import annotations

from typing import Any

from flask import Response, request

from dash_insight.core.provider import DataError, JobNotFound
from dash_insight.plugins.landscape.query import (
    DEFAULT_INTERVAL_ID,
    TYPE_INTERVAL,
    LandscapeError,
    list_intervals,
)
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web import errors
from dash_insight.web.http import json_response, require
from dash_insight.web.plugin import Route

#: MindInsight's detail for a job its data manager does not know.
NOT_IN_DATA_MANAGER = "Can not find the train job in data manager."


def routes(service: LandscapeService) -> list[Route]:
    views = _LandscapeViews(service)
    return [
        Route("datavisual/landscape/intervals", views.intervals),
        Route("datavisual/landscape/landscapes", views.landscapes),
    ]


def entry_error(code: int, train_id: str, message: str | None = None) -> dict[str, Any]:
    """A per-entry error of the ``landscapes`` answer (HTTP 200)."""
    entry: dict[str, Any] = {"error_code": f"{code:08X}", "train_id": train_id}
    if message:
        entry["error_msg"] = message
    return entry


class _LandscapeViews:
    def __init__(self, service: LandscapeService) -> None:
        self.service = service
        self.provider = service.provider

    def _known(self, train_id: str) -> None:
        """50545011 for a NUL byte; 50545005 (MindInsight's wording) for an unknown job."""
        if "\x00" in train_id:
            raise errors.null_byte("train job id contains null byte.")
        try:
            self.provider.job(train_id)
        except JobNotFound:
            raise errors.train_job_not_exist(NOT_IN_DATA_MANAGER) from None

    def intervals(self) -> Response:
        """``GET /datavisual/landscape/intervals?train_id=`` -> ``{"intervals": [{"id",
        "value": [first, last]}]}``, sorted by first."""
        train_id = request.args.get("train_id", "")
        require(train_id=train_id)
        self._known(train_id)
        refs = self.service.landscapes(train_id).refs
        return json_response({"intervals": list_intervals(refs)})

    def landscapes(self) -> Response:
        """``GET /datavisual/landscape/landscapes?train_id=A[&train_id=B]&type=interval|final
        [&interval_id=]`` -> ``{"landscapes": [one entry per train_id]}``."""
        train_ids = request.args.getlist("train_id")
        kind = request.args.get("type") or TYPE_INTERVAL
        wanted = request.args.get("interval_id") or DEFAULT_INTERVAL_ID
        for train_id in train_ids:
            if train_id.startswith("./"):
                self._known(train_id)
        answer = []
        for train_id in train_ids:
            if not train_id.startswith("./"):
                answer.append(entry_error(errors.PARAM_VALUE_ERROR, train_id))
                continue
            answer.append(self._entry(train_id, kind, wanted))
        return json_response({"landscapes": answer})

    def _entry(self, train_id: str, kind: str, wanted: str) -> dict[str, Any]:
        try:
            ref = self.service.find(train_id, kind, wanted)
            if ref is None:
                return entry_error(errors.LANDSCAPE_NOT_EXIST, train_id)
            return self.service.entry(train_id, ref)
        except (DataError, LandscapeError) as error:
            return entry_error(errors.LANDSCAPE_NOT_EXIST, train_id, str(error))
