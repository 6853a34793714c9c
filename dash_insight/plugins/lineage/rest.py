"""MindInsight's lineage routes (``backend/lineagemgr/lineage_api.py``,
``backend/optimizer/optimizer_api.py``), below ``/v1/mindinsight``:

* ``POST lineagemgr/lineages`` with a search condition (raw JSON body, empty = ``{}``):
  ``{"customized", "object", "count"}`` (spec §3.8; :func:`~dash_insight.plugins.lineage.query.
  search_lineages`);
* ``PUT lineagemgr/lineages?train_id=./job`` with ``{"tag": 0..10, "remark": "<=128 chars"}``:
  ``{"status": "success"}``;
* ``POST optimizer/targets/search`` with the same condition: objective histograms and
  hyper-parameter importance (:func:`~dash_insight.plugins.lineage.query.optimizer_targets`).

Errors as MindInsight: an unparsable body is ParamValueError ``50540002 Json data parse
failed.``; an invalid condition ``50542218 Search_condition param error: ...``; an invalid tag
or remark ``50542081 ValueError. ...``; an unknown job ``50545005``.

dash-insight's own, below ``/v1/dash-insight`` (issue 40 item 4; the runs' marks,
:mod:`dash_insight.core.run_marks`, persisted beside the remarks):

* ``GET lineage/run-marks``: ``{"runs": {train_id: {"archived": bool, "labels": [str]}}}``, the
  runs archived or labelled;
* ``PUT lineage/run-marks?train_id=./job`` with ``{"archived"?: bool, "labels"?: [str]}`` (at
  most 8 labels of 1 to 32 characters, no comma or control character): the run's marks after
  the change. A missing ``train_id`` is ``50540003``, an unknown job ``50545005``, a body that
  is not such an object ``50540002`` with what is wrong.

Deliberate differences: tags and remarks are persisted in the workspace
(:mod:`.remarks`) instead of living in memory until a restart; a boolean tag is refused;
``train_id`` may name a job at any depth (``./a/b``), as everywhere in dash-insight;
a missing ``train_id`` on PUT is ``50540003`` (MindInsight failed with an internal error).
"""

from __future__ import annotations

from typing import Any

from flask import Response, request

from dash_insight.core.run_marks import RunMarkError, validate_marks
from dash_insight.plugins.lineage import query as lineage_data
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.plugins.lineage.service_remarks import RemarkError, validate_added_info
from dash_insight.web import errors
from dash_insight.web.errors import ApiError
from dash_insight.web.http import JsonBodyError, json_body, json_response, require, resolve_job
from dash_insight.web.plugin import DASH_INSIGHT_API, Route

_LINEAGE = 0x50542000
#: ``LineageErrors`` (module 2): search condition, query failure, parameter type / value.
LINEAGE_SEARCH_CONDITION_PARAM_ERROR = _LINEAGE | 0x218
LINEAGE_SUMMARY_DATA_ERROR = _LINEAGE | 0x215
LINEAGE_PARAM_TYPE_ERROR = _LINEAGE | 0x080
LINEAGE_PARAM_VALUE_ERROR = _LINEAGE | 0x081


def search_condition_error(detail: str) -> ApiError:
    """``LineageSearchConditionParamError``."""
    return ApiError(LINEAGE_SEARCH_CONDITION_PARAM_ERROR, f"Search_condition param error: {detail}")


def lineage_value_error(detail: str) -> ApiError:
    """``LineageParamValueError``: ``ValueError. <detail>``."""
    return ApiError(LINEAGE_PARAM_VALUE_ERROR, f"ValueError. {detail}")


def _condition() -> Any:
    """The raw JSON body (MindInsight reads the stream: no content type needed); a body too
    deeply nested to parse is unparsable too (MindInsight: 500), one over 1 MiB 413."""
    try:
        body = json_body()
    except JsonBodyError:
        raise errors.param_value_error("Json data parse failed.") from None
    return {} if body is None else body


def _search(service: LineageService, condition: Any) -> dict[str, Any]:
    try:
        return lineage_data.search_lineages(service.lineages(), condition, service.remarks.all())
    except lineage_data.LineageConditionError as error:
        raise search_condition_error(str(error)) from None


def _update(service: LineageService) -> Response:
    train_id = request.args.get("train_id")
    require(train_id=train_id)
    assert train_id is not None
    if not train_id.startswith("./"):
        raise errors.param_value_error("Summary dir should be relative path starting with './'.")
    try:
        added_info = json_body() if request.is_json else None
    except JsonBodyError:
        added_info = None
    if not isinstance(added_info, dict):
        raise errors.param_value_error("The request body should be a dict.")
    try:
        accepted = validate_added_info(added_info)
    except RemarkError as error:
        raise lineage_value_error(str(error)) from None
    resolve_job(service.provider, train_id)
    if not any(e.train_id == train_id for e in service.lineages()):
        raise errors.param_value_error(
            f"Cannot update the lineage for train job {train_id}, because it does not exist."
        )
    service.remarks.update(train_id, accepted)
    return json_response({"status": "success"})


def _marks_of(entry: dict[str, Any]) -> dict[str, Any]:
    return {"archived": entry.get("archived") is True, "labels": list(entry.get("labels") or [])}


def _run_marks(service: LineageService) -> Response:
    """``GET`` / ``PUT lineage/run-marks`` (module docstring)."""
    marks = service.provider.run_marks
    if marks is None:
        raise errors.param_value_error("This server keeps no run marks (no workspace).")
    if request.method == "GET":
        return json_response({"runs": {job: _marks_of(e) for job, e in marks.all().items()}})
    train_id = request.args.get("train_id")
    require(train_id=train_id)
    assert train_id is not None
    try:
        body = json_body()
    except JsonBodyError:
        raise errors.param_value_error("Json data parse failed.") from None
    try:
        change = validate_marks(body)
    except RunMarkError as error:
        raise errors.param_value_error(str(error)) from None
    job = resolve_job(service.provider, train_id)
    entry = marks.update(job.train_id, change)
    return json_response({"train_id": job.train_id, **_marks_of(entry)})


def routes(service: LineageService) -> list[Route]:
    """The lineage and optimizer routes (see the module docstring)."""

    def lineagemgr_lineages() -> Response:
        if request.method == "PUT":
            return _update(service)
        return json_response(_search(service, _condition()))

    def optimizer_targets_search() -> Response:
        result = _search(service, _condition())
        return json_response(lineage_data.optimizer_targets(result["object"]))

    def lineage_run_marks() -> Response:
        return _run_marks(service)

    return [
        Route("lineagemgr/lineages", lineagemgr_lineages, ("POST", "PUT")),
        Route("optimizer/targets/search", optimizer_targets_search, ("POST",)),
        Route("lineage/run-marks", lineage_run_marks, ("GET", "PUT"), api=DASH_INSIGHT_API),
    ]
