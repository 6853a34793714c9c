"""The profiler plugin's REST routes: MindInsight 2.3.1's ``GET /profile/devices`` and
``POST /profile/ops/search`` (``backend/profiler/profile_api.py``; spec ``profiler.md`` §4).

Both take ``profile`` (the profiler directory, relative to the job: ``./profiler``) and
``train_id`` as query parameters. Checks run in MindInsight's order: both present (else 50540002
"No profiler_dir or train_id."), the JSON body (ops/search), the search condition
(:func:`~.query.validate_condition`), ``device_id`` an integer, the directory (``..``, absolute
paths and - deliberately, MindInsight followed them - symbolic links give "Invalid profiler
dir"), the job (50545005 with the job's absolute path, as MindInsight words it) and the
directory (50546083). A device without a file answers an empty table with status 200.

Deliberate differences: the profiler directory may also be MindSpore >= 2.5's
``*_ascend_ms`` (its ``FRAMEWORK/`` files are read; MindInsight 2.3.1 cannot see it), where
``devices`` lists the devices of the CPU files (there is no ``profiler_info``); Ascend and GPU
tables are answered empty (dash-insight reads CPU profiles only).
"""

from __future__ import annotations

from typing import Any

from flask import Response, request

from dash_insight.core.format.profiler import INFO_PREFIX, ProfilerDir
from dash_insight.plugins.profiler import query
from dash_insight.plugins.profiler.service import LocateError, Location, ProfilerService
from dash_insight.web import errors
from dash_insight.web.errors import ApiError
from dash_insight.web.http import JsonBodyError, json_response, parse_json_text, request_body
from dash_insight.web.plugin import Route


def routes(service: ProfilerService) -> list[Route]:
    views = _ProfilerViews(service)
    return [
        Route("profile/devices", views.devices),
        Route("profile/ops/search", views.ops_search, ("POST",)),
    ]


def locate_or_error(service: ProfilerService, train_id: str, profile: str) -> Location:
    """The directory, or MindInsight's error for it."""
    try:
        return service.locate(train_id, profile)
    except LocateError as error:
        if error.kind == "no_job":
            raise errors.train_job_not_exist(error.path) from None
        if error.kind == "no_dir":
            raise ApiError(query.PROFILER_DIR_NOT_FOUND, str(error)) from None
        raise errors.param_value_error(str(error)) from None


def profiler_mode(service: ProfilerService, found: ProfilerDir) -> str:
    """``context_mode`` of the first device's ``profiler_info`` ("graph" without one)."""
    for device in found.devices:
        if found.file(device, INFO_PREFIX) is None:
            continue
        mode = service.info(found, device).get("context_mode")
        if isinstance(mode, str) and mode:
            return mode
    return "graph"


class _ProfilerViews:
    def __init__(self, service: ProfilerService) -> None:
        self.service = service

    def _location(self) -> Location:
        profile = request.args.get("profile")
        train_id = request.args.get("train_id")
        if not profile or not train_id:
            raise errors.param_value_error("No profiler_dir or train_id.")
        return Location(train_id, profile, "")

    def devices(self) -> Response:
        """``GET /profile/devices?profile=&train_id=`` -> ``{"device_list": ["0"],
        "profiler_mode": "graph"}``."""
        given = self._location()
        location = locate_or_error(self.service, given.train_id, given.profile)
        found = self.service.directory(location)
        return json_response(
            {
                "device_list": list(found.devices),
                "profiler_mode": profiler_mode(self.service, found),
            }
        )

    def ops_search(self) -> Response:
        """``POST /profile/ops/search?profile=&train_id=`` with a search condition: the
        ``cpu_op_type`` or ``cpu_op_info`` table filtered, sorted and paged."""
        given = self._location()
        body = request_body()
        try:
            # parse_json_text: a body nested thousands deep is refused before it is parsed
            # (json.loads raised RecursionError: a 500)
            condition: Any = parse_json_text(body) if body else {}
        except JsonBodyError:
            raise errors.param_value_error("Json data parse failed.") from None
        query.validate_condition(condition)
        device = condition.get("device_id", "0")
        query.device_number(device)
        location = locate_or_error(self.service, given.train_id, given.profile)
        op_type = condition["op_type"]
        columns = query.columns_of(op_type)
        if op_type not in (query.CPU_OP_TYPE, query.CPU_OP_INFO):
            return json_response(query.search([], columns, condition))
        found = self.service.directory(location)
        types, details, _ = self.service.op_tables(found, device)
        if op_type == query.CPU_OP_TYPE:
            rows = [query.type_row(stat) for stat in types]
        else:
            rows = [query.detail_row(stat) for stat in details]
        return json_response(query.search(rows, columns, condition))
