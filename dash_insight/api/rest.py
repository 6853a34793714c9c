"""MindInsight 2.3.1's REST API (``/v1/mindinsight/...``): a Flask blueprint over the provider.

Scripts written against MindInsight keep working: same paths, query parameters, response shapes
and error format (spec §3; MindInsight's ``backend/datavisual/*_api.py`` and
``datavisual/processors/*``). Handlers only parse and validate parameters and reshape what the
:class:`~dash_insight.data.provider.DataProvider` returns; they never touch files.

Mounting::

    from dash_insight.api import register_rest_api
    register_rest_api(flask_app, provider)  # /v1/mindinsight/..., /v1/dash-insight/...
    register_rest_api(dash_app.server, provider, url_prefix="/insight")  # below a prefix

or ``flask_app.register_blueprint(rest_blueprint(provider, summary_base_dir_name="logs"))``. The
blueprint returned by :func:`rest_blueprint` nests two blueprints: the MindInsight API under
``/v1/mindinsight`` and dash-insight's own export API under ``/v1/dash-insight``, both relative to
wherever it is registered. Every response (errors, images and unknown routes under the two
prefixes included) carries the security headers of :data:`SECURITY_HEADERS`.

Endpoints (GET unless noted): ``datavisual/train-jobs``, POST ``datavisual/train-job-caches``,
``datavisual/plugins``, ``datavisual/single-job``, ``datavisual/scalar/metadata``,
``datavisual/scalars``, ``datavisual/image/metadata``, ``datavisual/image/single-image``,
``datavisual/histograms``, ``datavisual/tensors``; dash-insight: ``export/scalars``.

Deliberate differences from MindInsight 2.3.1:

* every step is served (no 1000/10/50/20 reservoir) unless the provider was built with
  ``samples_per_plugin``; every tag is listed (no 300-tags-per-job or 6-tensor-tags cap); every job
  is listed, at any depth (``./nested/grp/job_a``), with no 999-job cap and no 15-job detail cache,
  so every listed job is queryable and ``cache_status`` is ``CACHED`` once the loader has read all
  its bytes (``CACHING`` before); ``load_status`` is ``loaded`` when every job is;
* ``create_time`` is the job's oldest file-name timestamp and ``update_time`` its newest file
  modification time (MindInsight: both from the newest-named file);
* a ``train_id`` that is malformed or would resolve outside the summary base directory (``..``,
  absolute, through a symlink) is answered with ParamValueError (MindInsight: not found);
  a NUL byte in ``train_id`` or ``tag`` gives 50545011 on every endpoint (MindInsight: ``plugins``);
* ``/tensors?detail=data`` validates ``dims`` against the tensor (index ranges, step 0) with
  messages that say how to fix them; ``step=-1`` means the last step there too; errors are
  checked in the order step, tensor size, dims (MindInsight: dims syntax first).
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import logging
import math
import os
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from types import ModuleType
from typing import Any

import numpy as np
from flask import Blueprint, Flask, Response, request
from werkzeug.exceptions import HTTPException

from ..data import tensors as tensor_algorithms
from ..data.discovery import resolve_train_id
from ..data.provider import (
    DataError,
    DataProvider,
    JobNotFound,
    JobSummary,
    StepNotFound,
    TagNotFound,
    TensorTooLarge,
    ValueSteps,
    ValueUnreadable,
)
from . import errors
from .errors import TAG_NOT_FOUND_DETAIL, ApiError

log = logging.getLogger(__name__)

#: MindInsight's ``API_PREFIX``; the MindInsight routes live below it.
API_PREFIX = "/v1/mindinsight"
#: dash-insight's own API (scalar export).
EXPORT_PREFIX = "/v1/dash-insight"
#: MindInsight's ``PluginNameEnum``, in its order (the order of ``plugins`` in every answer).
PLUGIN_NAMES = ("image", "scalar", "graph", "optimized_graph", "histogram", "tensor",
                "loss_landscape")
#: ``limit`` of ``/train-jobs`` (``SummaryWatcher.MAX_SUMMARY_DIR_COUNT``).
MAX_TRAIN_JOBS_LIMIT = 999
#: Graph tags MindInsight moves to the front of the ``graph`` / ``optimized_graph`` lists.
_TOP_GRAPH_TAGS = {"graph": "ms_output_optimize.pb",
                   "optimized_graph": "ms_output_optimize.pb (optimized)"}
_OPTIMIZED_SUFFIX = " (optimized)"
_TENSOR_DETAILS = ("stats", "histogram", "data")
#: Sent with every response of the two blueprints. The CSP fits JSON and images: nothing may load,
#: except an image document showing itself; only same-origin pages may frame the answers.
SECURITY_HEADERS = {
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; img-src 'self' data:; "
                               "frame-ancestors 'self'; base-uri 'none'; form-action 'none'",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
_OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


# -- public ----------------------------------------------------------------------------------


def rest_blueprint(provider: DataProvider, *, summary_base_dir_name: str) -> Blueprint:
    """The REST API as one blueprint (MindInsight's under ``/v1/mindinsight``, the export under
    ``/v1/dash-insight``), with MindInsight's error format and the security headers.

    ``summary_base_dir_name`` is the ``name`` of ``/train-jobs`` (MindInsight: the base name of
    the real path of ``--summary-base-dir``). Register it once per app; pass ``url_prefix`` to
    ``register_blueprint`` to mount it below a prefix (all routing is relative).
    """
    root = Blueprint("dash_insight_rest", __name__)
    mindinsight = Blueprint("mindinsight", __name__, url_prefix=API_PREFIX)
    export = Blueprint("export", __name__, url_prefix=EXPORT_PREFIX)
    routes = _MindInsightViews(provider, summary_base_dir_name).routes()
    for module in route_modules():
        routes += module.routes(provider)
    _add_routes(mindinsight, routes)
    _ExportViews(provider).register(export)
    root.register_blueprint(mindinsight)
    root.register_blueprint(export)
    root.after_request(_add_security_headers)
    root.register_error_handler(ApiError, _api_error_response)
    root.register_error_handler(DataError, _data_error_response)
    root.register_error_handler(HTTPException, _http_error_response)
    root.register_error_handler(Exception, _unexpected_error_response)
    return root


def register_rest_api(server: Flask, provider: DataProvider, *,
                      summary_base_dir_name: str | None = None, url_prefix: str = "") -> Blueprint:
    """Register :func:`rest_blueprint` on ``server`` (e.g. ``dash_app.server``) below
    ``url_prefix`` ("" = at the root) and return it. ``summary_base_dir_name`` defaults to the
    base name of ``provider.base_dir``."""
    if summary_base_dir_name is None:
        summary_base_dir_name = os.path.basename(os.path.normpath(provider.base_dir))
    blueprint = rest_blueprint(provider, summary_base_dir_name=summary_base_dir_name)
    server.register_blueprint(blueprint, url_prefix=url_prefix.rstrip("/") or None)
    return blueprint


def route_modules() -> list[ModuleType]:
    """Modules of this package that add MindInsight routes: each defines
    ``routes(provider) -> [(path below /v1/mindinsight, view, methods)]`` (graphs, lineage...);
    they may use :func:`json_response`, :func:`require`, :func:`to_int` and :func:`resolve_job`.
    """
    package = sys.modules[__package__]
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name in ("rest", "errors"):
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        if callable(getattr(module, "routes", None)):
            found.append(module)
    return found


# -- responses and errors --------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (a last-resort guard)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _json_response(payload: Any, status: int = 200) -> Response:
    """JSON with keys in insertion order (MindInsight turned Flask's key sorting off) and never a
    bare ``NaN``/``Infinity``."""
    try:
        body = json.dumps(payload, allow_nan=False, default=_json_default)
    except ValueError:
        body = json.dumps(_finite(payload), allow_nan=False, default=_json_default)
    return Response(body, status=status, mimetype="application/json")


def _add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def _api_error_response(error: ApiError) -> Response:
    return _json_response(error.to_dict(), error.http_status)


def _data_error_response(error: DataError) -> Response:
    """Provider errors a handler did not translate itself."""
    if isinstance(error, JobNotFound):
        return _api_error_response(errors.train_job_not_exist(str(error)))
    if isinstance(error, TensorTooLarge):
        return _api_error_response(errors.tensor_too_large(str(error)))
    if isinstance(error, ValueUnreadable):
        return _api_error_response(errors.unknown_error(str(error)))
    return _api_error_response(errors.param_value_error(str(error)))


def _http_error_response(error: HTTPException) -> Response:
    if error.code == 404:
        return _api_error_response(errors.api_not_exist())
    if error.code == 405:
        return _api_error_response(errors.method_not_allowed())
    status = error.code or 500
    return _api_error_response(ApiError(errors.UNKNOWN_ERROR, f"{status} {error.name}.", status))


def _unexpected_error_response(error: Exception) -> Response:
    """MindInsight's ``handle_unknown_error``: log it, answer 500 ``System error.``"""
    log.exception("REST API request %s failed", request.path, exc_info=error)
    return _api_error_response(errors.unknown_error("System error."))


def _allow(methods: Iterable[str]) -> str:
    allowed = set(methods) | {"OPTIONS"}
    if "GET" in allowed:
        allowed.add("HEAD")
    return ", ".join(sorted(allowed))


def _catch_all(known: Mapping[str, Iterable[str]]) -> Callable[..., Response]:
    """A view for every other path or method under a prefix, in MindInsight's error format:
    405 when the path is one of ``known`` (only the method is wrong), else 404; ``OPTIONS`` on a
    known path answers its real ``Allow`` (Flask's automatic one would list this view's methods).
    """

    def view(path: str = "") -> Response:
        methods = known.get(path)
        if methods is None:
            raise errors.api_not_exist()
        if request.method == "OPTIONS":
            response = Response(status=200)
        else:
            response = _api_error_response(errors.method_not_allowed())
        response.headers["Allow"] = _allow(methods)
        return response

    return view


def _add_routes(blueprint: Blueprint, routes: Iterable[tuple[str, Callable[[], Response],
                                                             list[str]]]) -> None:
    """``routes`` (path relative to the prefix, view, methods) plus the catch-all views."""
    known = {}
    for path, view, methods in routes:
        blueprint.add_url_rule("/" + path, view_func=view, methods=methods,
                               provide_automatic_options=False)
        known[path] = methods
    catch_all = _catch_all(known)
    for rule, endpoint in (("/", "not_found_root"), ("/<path:path>", "not_found")):
        blueprint.add_url_rule(rule, endpoint, catch_all, methods=_OTHER_METHODS,
                               provide_automatic_options=False)


# -- parameters (MindInsight's Validation / tools helpers) -----------------------------------


def _require(**params: Any) -> None:
    """``Validation.check_param_empty``: ParamMissError for the first empty parameter."""
    for name, value in params.items():
        if not value:
            raise errors.param_missing(name)


def _to_int(value: str, name: str) -> int:
    """``tools.to_int``: ParamTypeError unless ``int(value)`` works."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise errors.param_type_error(name, "Integer") from None


def _str_to_bool(value: str, name: str) -> bool:
    """``tools.str_to_bool``: ``true``/``false``, any case."""
    if value.lower() not in ("true", "false"):
        raise errors.param_value_error(f"The value of {name} must be 'false' or 'true'.")
    return value.lower() == "true"


def _check_tag(tag: str) -> None:
    if "\x00" in tag:
        raise errors.null_byte("tag contains null byte.")


def _raw_tag(tag: str, plugin: str) -> str | None:
    """dash-insight's tag for MindInsight's ``"<tag>/<plugin>"`` (None if not of that plugin)."""
    suffix = "/" + plugin
    return tag[: -len(suffix)] if tag.endswith(suffix) else None


def _local_time(timestamp: float) -> str:
    """MindInsight's ``strftime('%Y-%m-%d %H:%M:%S')`` of the local time."""
    try:
        return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return ""


def _cache_status(job: JobSummary) -> str:
    """``CACHED`` once every byte on disk has been read (and from then on, also while the job
    grows), ``CACHING`` before."""
    return "CACHED" if job.loaded_once or job.status == "loaded" else "CACHING"


def _sniff_image_type(data: bytes) -> str:
    """MindInsight's ``get_img_mimetype`` (``imghdr``: png, jpeg, gif, bmp)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[6:10] in (b"JFIF", b"Exif") or data.startswith(b"\xff\xd8\xff\xdb"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data.startswith(b"BM"):
        return "image/bmp"
    return "application/octet-stream"


def _finite_or_none(value: float) -> float | None:
    """MindInsight's ``if_nan_inf_to_none``."""
    return value if math.isfinite(value) else None


def _buckets(buckets: np.ndarray) -> list[list[float | int]]:
    """``[[left, width, count], ...]`` with integer counts, as MindInsight's re-binned buckets."""
    return [[left, width, int(count)] for left, width, count in np.asarray(buckets).tolist()]


def _statistics(stats: Mapping[str, Any], overall: Mapping[str, Any]) -> dict[str, Any]:
    """``TensorUtils.get_statistics_dict(stats, overall_stats)``: the keys and types MindInsight
    sends (its tensors were always float, so never the bool variant)."""
    return {
        "max": float(stats["max"]),
        "min": float(stats["min"]),
        "avg": float(stats["avg"]),
        "count": int(stats["count"]),
        "nan_count": int(stats["nan_count"]),
        "neg_inf_count": int(stats["neg_inf_count"]),
        "pos_inf_count": int(stats["pos_inf_count"]),
        "overall_max": float(overall["max"]),
        "overall_min": float(overall["min"]),
        "overall_avg": float(overall["avg"]),
        "overall_count": int(overall["count"]),
        "overall_nan_count": int(overall["nan_count"]),
        "overall_neg_inf_count": int(overall["neg_inf_count"]),
        "overall_pos_inf_count": int(overall["pos_inf_count"]),
        "overall_zero_count": float(overall["zero_count"]),
        "overall_neg_zero_count": float(overall["neg_zero_count"]),
        "overall_pos_zero_count": float(overall["pos_zero_count"]),
    }


def _selected_size(dims: str, shape: tuple[int, ...]) -> int:
    """How many values ``dims`` selects from a tensor of ``shape`` (no data touched)."""
    index = tensor_algorithms.parse_dims(dims, shape)
    return int(np.broadcast_to(np.empty((), np.int8), shape)[index].size)


def _resolve_job(provider: DataProvider, train_id: str) -> JobSummary:
    """The job, or: 50545011 for a NUL byte, ParamValueError for an id that is malformed or points
    outside the base directory (checked by the data layer's ``resolve_train_id``),
    TrainJobNotExist for an unknown one."""
    if "\x00" in train_id:
        raise errors.null_byte("train job id contains null byte.")
    try:
        return provider.job(train_id)
    except JobNotFound:
        pass
    try:
        resolve_train_id(provider.base_dir, train_id)
    except ValueError as error:
        raise errors.param_value_error(
            f"{error}. A train_id is './' or './<directory>[/<directory>...]' relative to the "
            "summary base directory, without '.', '..', empty parts or symbolic links."
        ) from None
    raise errors.train_job_not_exist(
        f"Can not find the train job {train_id!r} in the summary base directory.")


# -- the MindInsight API ---------------------------------------------------------------------


class _MindInsightViews:
    """The ``/v1/mindinsight/datavisual/...`` handlers."""

    def __init__(self, provider: DataProvider, base_name: str) -> None:
        self.provider = provider
        self.base_name = base_name

    def routes(self) -> list[tuple[str, Callable[[], Response], list[str]]]:
        return [
            ("datavisual/train-jobs", self.train_jobs, ["GET"]),
            ("datavisual/train-job-caches", self.train_job_caches, ["POST"]),
            ("datavisual/plugins", self.plugins, ["GET"]),
            ("datavisual/single-job", self.single_job, ["GET"]),
            ("datavisual/scalar/metadata", self.scalar_metadata, ["GET"]),
            ("datavisual/scalars", self.scalars, ["GET"]),
            ("datavisual/image/metadata", self.image_metadata, ["GET"]),
            ("datavisual/image/single-image", self.single_image, ["GET"]),
            ("datavisual/histograms", self.histograms, ["GET"]),
            ("datavisual/tensors", self.tensors, ["GET"]),
        ]

    # -- helpers --
    def _job(self, train_id: str) -> JobSummary:
        return _resolve_job(self.provider, train_id)

    def _plugins(self, job: JobSummary) -> dict[str, list[str]]:
        """``{plugin: sorted MindInsight tags}`` for the 7 plugins (``get_plugins``): graph tags
        are file names (``provider.graph_tags``), optimized ones ``"<file> (optimized)"``,
        ``ms_output_optimize.pb`` first."""
        try:
            graphs = self.provider.graph_tags(job.train_id)
        except JobNotFound:  # listed, but its state vanished meanwhile
            graphs = job.tags.get("graph", [])
        plugins = {}
        for plugin in PLUGIN_NAMES:
            if plugin == "graph":
                tags = list(graphs)
            elif plugin == "optimized_graph":
                tags = [tag + _OPTIMIZED_SUFFIX for tag in graphs]
            else:
                tags = [f"{tag}/{plugin}" for tag in job.tags.get(plugin, [])]
            tags.sort()
            top = _TOP_GRAPH_TAGS.get(plugin)
            if top in tags:
                tags.remove(top)
                tags.insert(0, top)
            plugins[plugin] = tags
        return plugins

    def _job_item(self, job: JobSummary) -> dict[str, Any]:
        """One ``train_jobs`` entry (``TrainTaskManager._get_train_job_item``, same key order)."""
        return {
            "train_id": job.train_id,
            "relative_path": job.train_id,
            "create_time": _local_time(job.create_time),
            "update_time": _local_time(job.update_time),
            "profiler_dir": None,
            "cache_status": _cache_status(job),
            "profiler_type": "",
            "summary_files": job.summary_files,
            "graph_files": job.graph_files,
            "lineage_files": job.lineage_files,
            "dump_dir": None,
            "is_integrity": job.is_intact,
            "plugins": self._plugins(job),
        }

    @staticmethod
    def _raw(tag: str, plugin: str, not_found: Callable[[str], ApiError]) -> str:
        """dash-insight's tag for a MindInsight tag of ``plugin``; ``not_found`` error when the
        tag is not of that plugin."""
        _check_tag(tag)
        raw = _raw_tag(tag, plugin)
        if raw is None:
            raise not_found(TAG_NOT_FOUND_DETAIL)
        return raw

    def _value_steps(self, train_id: str, plugin: str, tag: str,
                     not_found: Callable[[str], ApiError]) -> tuple[str, ValueSteps]:
        """(raw tag, steps) of a MindInsight tag of ``plugin``; ``not_found`` error if absent."""
        raw = self._raw(tag, plugin, not_found)
        try:
            return raw, self.provider.value_steps(train_id, plugin, raw)
        except TagNotFound:
            raise not_found(TAG_NOT_FOUND_DETAIL) from None

    # -- train jobs --
    def train_jobs(self) -> Response:
        """``GET /datavisual/train-jobs?offset=&limit=&train_id=``: page ``offset`` (a page
        index, default 0) of ``limit`` (1..999, default 10) jobs, newest update first; with
        ``train_id`` only that job (``total`` 0 and no entry if unknown). MindInsight's
        ``query_train_jobs``."""
        offset = _to_int(request.args.get("offset", "0"), "offset")
        if offset < 0:
            raise errors.param_value_error("'offset' should be greater than or equal to 0.")
        limit = _to_int(request.args.get("limit", "10"), "limit")
        if not 1 <= limit <= MAX_TRAIN_JOBS_LIMIT:
            raise errors.param_value_error(f"'limit' should in [1, {MAX_TRAIN_JOBS_LIMIT}].")
        jobs = self.provider.list_jobs()
        load_status = "loaded" if self.provider.ready and all(
            job.loaded_once or job.status == "loaded" for job in jobs) else "loading"
        train_id = request.args.get("train_id")
        if train_id is not None:
            try:
                selected = [self._job(train_id)]
            except ApiError as error:
                if error.code != errors.TRAIN_JOB_NOT_EXIST:
                    raise
                selected = []
            total = len(selected)
        else:
            total = len(jobs)
            selected = jobs[offset * limit:(offset + 1) * limit]
        return _json_response({
            "name": self.base_name,
            "total": total,
            "load_status": load_status,
            "train_jobs": [self._job_item(job) for job in selected],
        })

    def train_job_caches(self) -> Response:
        """``POST /datavisual/train-job-caches {"train_ids": [...]}`` -> each known job's
        ``cache_status`` (unknown ids skipped). Every job is always readable here, so this only
        reports; MindInsight's ``cache_train_jobs``."""
        data = request.get_json(silent=True)
        train_ids = data.get("train_ids") if isinstance(data, dict) else None
        if train_ids is None:
            raise errors.param_missing("train_ids")
        if not isinstance(train_ids, list):
            raise errors.param_type_error("train_ids", str(list))
        result = []
        for train_id in train_ids:
            if not isinstance(train_id, str):
                raise errors.param_type_error("train_id", str(str))
            try:
                job = self._job(train_id)
            except ApiError as error:
                if error.code != errors.TRAIN_JOB_NOT_EXIST:
                    raise
                continue
            result.append({"train_id": train_id, "cache_status": _cache_status(job)})
        return _json_response({"cache_result": result})

    def plugins(self) -> Response:
        """``GET /datavisual/plugins?train_id=&manual_update=`` -> ``{"plugins": {plugin:
        [sorted tags]}}`` (``TrainTaskManager.get_plugins``; ``manual_update`` is validated, and
        has nothing to do: the loader keeps every job current)."""
        _str_to_bool(request.args.get("manual_update", "false"), "manual_update")
        train_id = request.args.get("train_id")
        _require(train_id=train_id)
        return _json_response({"plugins": self._plugins(self._job(train_id))})

    def single_job(self) -> Response:
        """``GET /datavisual/single-job?train_id=&plugin_name=`` -> ``{"train_jobs": [{"id",
        "name", "tags"}]}`` (``TrainTaskManager.get_single_train_task``)."""
        plugin_name = request.args.get("plugin_name")
        train_id = request.args.get("train_id")
        _require(plugin_name=plugin_name, train_id=train_id)
        if plugin_name not in PLUGIN_NAMES:
            raise errors.plugin_not_available(
                f"'plugin_name' only can be one of {list(PLUGIN_NAMES)}")
        job = self._job(train_id)
        tags = self._plugins(job)[plugin_name]
        return _json_response({"train_jobs": [{"id": train_id, "name": train_id, "tags": tags}]})

    # -- scalars --
    def _points(self, train_id: str, raw_tag: str) -> list[dict[str, Any]]:
        series = self.provider.read_scalars(train_id, raw_tag)
        return [{"wall_time": wall_time, "step": step, "value": _finite_or_none(value)}
                for wall_time, step, value in zip(series.wall_time.tolist(), series.step.tolist(),
                                                  series.value.tolist(), strict=True)]

    def scalar_metadata(self) -> Response:
        """``GET /datavisual/scalar/metadata?train_id=&tag=`` -> ``{"metadatas": [{wall_time,
        step, value}]}``, sorted by step, NaN/±Inf as null (``scalar_metadata``)."""
        train_id, tag = request.args.get("train_id"), request.args.get("tag")
        _require(train_id=train_id, tag=tag)
        self._job(train_id)
        raw = self._raw(tag, "scalar", errors.scalar_not_exist)
        try:
            points = self._points(train_id, raw)
        except TagNotFound:
            raise errors.scalar_not_exist(TAG_NOT_FOUND_DETAIL) from None
        return _json_response({"metadatas": points})

    def scalars(self) -> Response:
        """``GET /datavisual/scalars?train_id=..&train_id=..&tag=..&tag=..`` -> ``{"scalars":
        [{train_id, tag, values}]}`` for every (job, tag) pair that exists, jobs first; unknown
        jobs and missing tags are skipped (``ScalarsProcessor.get_scalars``)."""
        tags = request.args.getlist("tag")
        for tag in tags:
            _check_tag(tag)
        result = []
        for train_id in request.args.getlist("train_id"):
            try:
                job = self._job(train_id)
            except ApiError as error:
                if error.code != errors.TRAIN_JOB_NOT_EXIST:
                    raise
                continue
            known = set(job.tags.get("scalar", []))
            for tag in tags:
                raw = _raw_tag(tag, "scalar")
                if raw is None or raw not in known:
                    continue
                try:
                    values = self._points(train_id, raw)
                except (TagNotFound, JobNotFound):
                    continue
                result.append({"train_id": train_id, "tag": tag, "values": values})
        return _json_response({"scalars": result})

    # -- images --
    def image_metadata(self) -> Response:
        """``GET /datavisual/image/metadata?train_id=&tag=`` -> ``{"metadatas": [{wall_time,
        step, width, height}]}`` (``ImageProcessor.get_metadata_list``; size = the canvas)."""
        train_id, tag = request.args.get("train_id"), request.args.get("tag")
        _require(train_id=train_id, tag=tag)
        self._job(train_id)
        raw, steps = self._value_steps(train_id, "image", tag, errors.image_not_exist)
        result = []
        for position, (step, wall_time) in enumerate(
                zip(steps.step.tolist(), steps.wall_time.tolist(), strict=True)):
            meta = steps.meta[position] if position < len(steps.meta) else None
            if meta is None:
                image = self.provider.image(train_id, raw, step)
                meta = {"width": image.width, "height": image.height}
            result.append({"wall_time": wall_time, "step": step,
                           "width": int(meta["width"]), "height": int(meta["height"])})
        return _json_response({"metadatas": result})

    def single_image(self) -> Response:
        """``GET /datavisual/image/single-image?train_id=&tag=&step=`` -> the encoded image as
        written (PNG from MindSpore) with its sniffed content type; ``step=-1`` = the last
        (``ImageProcessor.get_single_image``)."""
        train_id, tag = request.args.get("train_id"), request.args.get("tag")
        step_text = request.args.get("step")
        _require(train_id=train_id, tag=tag, step=step_text)
        step = _to_int(step_text, "step")
        self._job(train_id)
        raw, _ = self._value_steps(train_id, "image", tag, errors.image_not_exist)
        try:
            image = self.provider.image(train_id, raw, step)
        except StepNotFound:
            raise errors.image_not_exist(
                "Can not find the step with given train job id and tag.") from None
        return Response(image.encoded, mimetype=_sniff_image_type(image.encoded))

    # -- histograms --
    def histograms(self) -> Response:
        """``GET /datavisual/histograms?train_id=&tag=`` -> ``{"train_id", "tag", "histograms":
        [{wall_time, step, buckets: [[left, width, count]]}]}``, every step re-binned onto the
        tag's shared grid (``HistogramProcessor.get_histograms``, spec §4.2)."""
        train_id, tag = request.args.get("train_id"), request.args.get("tag")
        _require(train_id=train_id, tag=tag)
        self._job(train_id)
        raw = self._raw(tag, "histogram", errors.histogram_not_exist)
        try:
            steps = self.provider.histograms(train_id, raw, rebin=True)
        except TagNotFound:
            raise errors.histogram_not_exist(TAG_NOT_FOUND_DETAIL) from None
        return _json_response({
            "train_id": train_id,
            "tag": tag,
            "histograms": [{"wall_time": h.wall_time, "step": h.step,
                            "buckets": _buckets(h.buckets)} for h in steps],
        })

    # -- tensors --
    def tensors(self) -> Response:
        """``GET /datavisual/tensors?train_id=..&tag=..[&detail=stats|histogram|data&step=&dims=]``
        -> ``{"tensors": [{train_id, tag, values}]}`` for every job x tag
        (``TensorProcessor.get_tensors``): no detail = dims and data type per step; ``stats``
        adds statistics (null for a tensor too large to load); ``histogram`` adds buckets unified
        across steps; ``data`` = one step's ``dims`` slice (<= 100,000 values, NaN/±Inf as
        strings) with the slice's statistics and the whole tensor's ``overall_*``."""
        train_ids = request.args.getlist("train_id")
        tags = request.args.getlist("tag")
        _require(train_id=train_ids, tag=tags)
        detail = request.args.get("detail")
        if detail is not None and detail not in _TENSOR_DETAILS:
            raise errors.param_value_error(f"Can not support this value: {detail} of detail.")
        result = []
        for train_id in train_ids:
            self._job(train_id)
            for tag in tags:
                raw, steps = self._value_steps(train_id, "tensor", tag, errors.tensor_not_exist)
                if detail == "data":
                    values = self._tensor_data(train_id, raw, steps)
                elif detail == "histogram":
                    values = self._tensor_histograms(train_id, raw, steps)
                else:
                    values = self._tensor_summaries(train_id, raw, steps, detail == "stats")
                result.append({"train_id": train_id, "tag": tag, "values": values})
        return _json_response({"tensors": result})

    def _tensor_value(self, train_id: str, raw: str, steps: ValueSteps,
                      position: int) -> dict[str, Any]:
        """``{"dims", "data_type"}`` of one step, from the index (the tensor is not decoded)."""
        meta = steps.meta[position] if position < len(steps.meta) else None
        if meta is None:
            tensor = self.provider.tensor(train_id, raw, int(steps.step[position]))
            meta = {"dims": list(tensor.dims), "data_type": tensor.data_type}
        return {"dims": [int(d) for d in meta["dims"]], "data_type": meta["data_type"]}

    def _tensor_summaries(self, train_id: str, raw: str, steps: ValueSteps,
                          with_stats: bool) -> list[dict[str, Any]]:
        values = []
        for position, (step, wall_time) in enumerate(
                zip(steps.step.tolist(), steps.wall_time.tolist(), strict=True)):
            value = self._tensor_value(train_id, raw, steps, position)
            if with_stats:
                try:
                    stats = self.provider.tensor_statistics(train_id, raw, step)
                    value["statistics"] = _statistics(stats, stats)
                except TensorTooLarge:
                    value["statistics"] = None
            values.append({"wall_time": wall_time, "step": step, "value": value})
        return values

    def _tensor_histograms(self, train_id: str, raw: str,
                           steps: ValueSteps) -> list[dict[str, Any]]:
        try:
            histograms = self.provider.tensor_histograms(train_id, raw)
        except TensorTooLarge as error:
            raise errors.tensor_too_large(str(error)) from None
        positions = {step: position for position, step in enumerate(steps.step.tolist())}
        values = []
        for step, wall_time, buckets in histograms:
            value = self._tensor_value(train_id, raw, steps, positions[step])
            stats = self.provider.tensor_statistics(train_id, raw, step)
            value["histogram_buckets"] = _buckets(buckets)
            value["statistics"] = _statistics(stats, stats)
            values.append({"wall_time": wall_time, "step": step, "value": value})
        return values

    def _tensor_data(self, train_id: str, raw: str, steps: ValueSteps) -> list[dict[str, Any]]:
        step_text, dims = request.args.get("step"), request.args.get("dims")
        _require(step=step_text, dims=dims)
        step = _to_int(step_text, "step")
        try:
            position = steps.position(step)
            step = int(steps.step[position])
            sliced = self.provider.tensor_slice(train_id, raw, step, dims)
        except StepNotFound:
            raise errors.step_not_in_cache(step) from None
        except TensorTooLarge as error:
            raise errors.tensor_too_large(str(error)) from None
        except tensor_algorithms.ResponseTooLargeError:
            value = self._tensor_value(train_id, raw, steps, position)
            size = _selected_size(dims, tuple(value["dims"]))
            raise errors.response_too_large(size, tensor_algorithms.MAX_RESPONSE_VALUES) from None
        except tensor_algorithms.DimsError as error:
            raise errors.param_value_error(str(error)) from None
        value = self._tensor_value(train_id, raw, steps, position)
        overall = self.provider.tensor_statistics(train_id, raw, step)
        # MindInsight's tensors were float32 arrays: every value is sent as a float.
        value["data"] = tensor_algorithms.encode_for_json(sliced.astype(np.float64, copy=False))
        value["statistics"] = _statistics(tensor_algorithms.statistics(sliced), overall)
        return [{"wall_time": float(steps.wall_time[position]), "step": step, "value": value}]


# -- dash-insight's export API ---------------------------------------------------------------


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


class _ExportViews:
    """``/v1/dash-insight/export/...``: downloads of whole series."""

    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider

    def register(self, blueprint: Blueprint) -> None:
        _add_routes(blueprint, [("export/scalars", self.export_scalars, ["GET"])])

    def export_scalars(self) -> Response:
        """``GET /v1/dash-insight/export/scalars?train_id=..[&train_id=..]&tag=..[&tag=..]
        [&format=csv|json]``: every point of every (job, tag) pair that exists, as an attachment.

        Tags are dash-insight's (``loss/auto``) or MindInsight's (``loss/auto/scalar``); the
        answer names them as asked. CSV (default): header ``train_id,tag,step,wall_time,value``,
        one row per point, jobs then tags then steps, NaN/±Inf as ``nan``/``inf``/``-inf``. JSON:
        ``[{"train_id", "tag", "values": [{"step", "wall_time", "value"}]}]`` with NaN/±Inf as
        null. Unknown job -> TrainJobNotExist; a tag no requested job has -> ScalarNotExist;
        a pair that does not exist is left out.
        """
        train_ids = request.args.getlist("train_id")
        tags = request.args.getlist("tag")
        _require(train_id=train_ids, tag=tags)
        fmt = request.args.get("format", "csv").lower()
        if fmt not in ("csv", "json"):
            raise errors.param_value_error(
                f"format must be 'csv' or 'json', got {request.args.get('format')!r}.")
        for tag in tags:
            _check_tag(tag)
        found: list[tuple[str, str, Any]] = []
        seen_tags: set[str] = set()
        for train_id in train_ids:
            known = set(_resolve_job(self.provider, train_id).tags.get("scalar", []))
            for tag in tags:
                raw = tag if tag in known else _raw_tag(tag, "scalar")
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
                {"step": step, "wall_time": wall_time, "value": _finite_or_none(value)}
                for step, wall_time, value in zip(series.step.tolist(),
                                                  series.wall_time.tolist(),
                                                  series.value.tolist(), strict=True)]}
                for train_id, tag, series in found]
            response = _json_response(payload)
            response.headers.update(headers)
            return response
        return Response(_csv_rows(found), mimetype="text/csv", headers=headers)


def _csv_rows(found: list[tuple[str, str, Any]]) -> Iterator[str]:
    """The CSV text, one chunk per series (streamed: nothing can fail any more)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["train_id", "tag", "step", "wall_time", "value"])
    yield buffer.getvalue()
    for train_id, tag, series in found:
        buffer.seek(0)
        buffer.truncate()
        writer.writerows(
            (train_id, tag, step, repr(wall_time), _csv_float(value))
            for step, wall_time, value in zip(series.step.tolist(), series.wall_time.tolist(),
                                              series.value.tolist(), strict=True))
        yield buffer.getvalue()


# -- for route modules (see route_modules) ----------------------------------------------------

json_response = _json_response
require = _require
to_int = _to_int
resolve_job = _resolve_job
