"""HTTP plumbing shared by every plugin's REST routes: MindInsight 2.3.1's answers and errors.

Scripts written against MindInsight keep working: same paths, query parameters, response shapes
and error format (spec §3; MindInsight's ``backend/datavisual/*_api.py``). Plugins list their
:class:`~dash_insight.web.plugin.Route` objects; :func:`api_blueprint` mounts them under
``/v1/mindinsight`` (MindInsight's API) and ``/v1/dash-insight`` (dash-insight's own), with
MindInsight's error format for every failure and unknown path, and the security headers of
:data:`SECURITY_HEADERS` on every answer. Handlers use :func:`json_response`, the parameter
checks (:func:`require`, :func:`to_int`, :func:`str_to_bool`, :func:`check_tag`) and
:func:`resolve_job`; they never touch files.

Deliberate differences from MindInsight 2.3.1 that hold for every endpoint:

* a ``train_id`` that is malformed or would resolve outside the summary base directory (``..``,
  absolute, through a symlink) is answered with ParamValueError (MindInsight: not found);
* a NUL byte in ``train_id`` or ``tag`` gives 50545011 on every endpoint (MindInsight: ``plugins``).
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import orjson
from flask import Blueprint, Response, after_this_request, request
from werkzeug.exceptions import HTTPException

from dash_insight.core.provider import (
    DataError,
    DataProvider,
    IndexEntryMissing,
    JobNotFound,
    JobSummary,
    TagNotFound,
    TensorTooLarge,
    ValueSteps,
    ValueUnreadable,
)
from dash_insight.core.store.discovery import discover_job, resolve_train_id, train_id_parts
from dash_insight.core.store.health import STORE_UNREACHABLE, failure_reason, one_line
from dash_insight.core.store.state import STATUS_LOADING, STATUS_PENDING
from dash_insight.core.vocabulary import stored_tag
from dash_insight.web import errors
from dash_insight.web.access_log import REQUEST_ID_HEADER, request_id
from dash_insight.web.errors import TAG_NOT_FOUND_DETAIL, ApiError
from dash_insight.web.plugin import DASH_INSIGHT_API, MINDINSIGHT_API, Route

log = logging.getLogger(__name__)

#: MindInsight's ``API_PREFIX``; the MindInsight routes live below it.
API_PREFIX = "/v1/mindinsight"
#: dash-insight's own API (scalar export).
EXPORT_PREFIX = "/v1/dash-insight"
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


def api_blueprint(routes: Iterable[Route]) -> Blueprint:
    """Every route as one blueprint (MindInsight's under ``/v1/mindinsight``, dash-insight's
    under ``/v1/dash-insight``), with MindInsight's error format and the security headers.
    Register it once per app; pass ``url_prefix`` to ``register_blueprint`` to mount it below a
    prefix (all routing is relative)."""
    routes = list(routes)
    root = Blueprint("dash_insight_rest", __name__)
    for api, prefix in ((MINDINSIGHT_API, API_PREFIX), (DASH_INSIGHT_API, EXPORT_PREFIX)):
        blueprint = Blueprint(api.replace("-", "_"), __name__, url_prefix=prefix)
        _add_routes(blueprint, [r for r in routes if r.api == api])
        root.register_blueprint(blueprint)
    root.after_request(_add_security_headers)
    root.register_error_handler(ApiError, _api_error_response)
    root.register_error_handler(DataError, _data_error_response)
    root.register_error_handler(HTTPException, _http_error_response)
    root.register_error_handler(Exception, _unexpected_error_response)
    return root


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


def json_response(payload: Any, status: int = 200) -> Response:
    """JSON with keys in insertion order (MindInsight turned Flask's key sorting off) and never a
    bare ``NaN``/``Infinity``."""
    try:
        body = json.dumps(payload, allow_nan=False, default=_json_default)
    except ValueError:
        body = json.dumps(_finite(payload), allow_nan=False, default=_json_default)
    return Response(body, status=status, mimetype="application/json")


#: Points per piece of a streamed answer: an answer of more points is sent as it is encoded.
STREAM_POINTS = 1 << 16


def point_objects(columns: Sequence[tuple[str, np.ndarray]]) -> bytes:
    """``{"k1":v1,"k2":v2,...},{...}``: one JSON object per position of equal-length arrays,
    keys in the order given, encoded by orjson straight from the arrays (no Python object per
    point): integers as integers, floats in the shortest form that reads back to the same
    float64 (as Python's ``repr``), NaN/±inf as ``null`` (MindInsight's ``if_nan_inf_to_none``).
    Pass float32 values as float64 to keep MindInsight's ``float(np.float32)`` digits."""
    count = len(columns[0][1]) if columns else 0
    if count == 0:
        return b""
    width = 2 * len(columns)
    parts: list[bytes] = [b""] * (width * count)
    for position, (key, array) in enumerate(columns):
        head = (b"},{" if position == 0 else b",") + orjson.dumps(key) + b":"
        parts[2 * position :: width] = [head] * count
        encoded = orjson.dumps(np.ascontiguousarray(array), option=orjson.OPT_SERIALIZE_NUMPY)
        parts[2 * position + 1 :: width] = encoded[1:-1].split(b",")
    parts[0] = parts[0][2:]  # no "}," before the first object
    parts.append(b"}")
    return b"".join(parts)


def point_object_pieces(
    columns: Sequence[tuple[str, np.ndarray]], piece: int = STREAM_POINTS
) -> Iterator[bytes]:
    """:func:`point_objects` in pieces of ``piece`` points joined by commas, for streaming."""
    count = len(columns[0][1]) if columns else 0
    for start in range(0, count, piece):
        sliced = [(key, array[start : start + piece]) for key, array in columns]
        yield (b"," if start else b"") + point_objects(sliced)


def json_bytes_response(pieces: Iterable[bytes], size_hint: int) -> Response:
    """An answer made of encoded JSON pieces: all encoded now when ``size_hint`` (points) is at
    most :data:`STREAM_POINTS`, else streamed piece by piece so that a million points are never
    held as one answer in memory. The pieces of a small answer are handed to the server as a
    list (werkzeug sends its ``Content-Length``), not joined: a kept 1.4 MB answer is not
    copied once more per request."""
    if size_hint <= STREAM_POINTS:
        return Response(list(pieces), mimetype="application/json")
    return Response(iter(pieces), mimetype="application/json")


def _add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def _api_error_response(error: ApiError) -> Response:
    return json_response(error.to_dict(), error.http_status)


def _data_error_response(error: DataError) -> Response:
    """Provider errors a handler did not translate itself."""
    if isinstance(error, JobNotFound):
        return _api_error_response(errors.train_job_not_exist(str(error)))
    if isinstance(error, TensorTooLarge):
        return _api_error_response(errors.tensor_too_large(str(error)))
    if isinstance(error, IndexEntryMissing):
        response = _api_error_response(errors.index_rebuilding(str(error)))
        response.headers["Retry-After"] = str(errors.REBUILD_RETRY_AFTER)
        return response
    if isinstance(error, ValueUnreadable):
        return _api_error_response(errors.value_unreadable(str(error)))
    return _api_error_response(errors.param_value_error(str(error)))


def _http_error_response(error: HTTPException) -> Response:
    if error.code == 404:
        return _api_error_response(errors.api_not_exist())
    if error.code == 405:
        return _api_error_response(errors.method_not_allowed())
    status = error.code or 500
    return _api_error_response(ApiError(errors.UNKNOWN_ERROR, f"{status} {error.name}.", status))


def unreachable_response(error: BaseException) -> Response:
    """503 with ``Retry-After`` for an answer that needs the index store while it cannot be
    reached (a Redis outage): not logged here, the provider logs once per change."""
    response = _api_error_response(
        errors.index_unreachable(
            f"the index cannot be reached ({one_line(error)}); try again in a few seconds"
        )
    )
    response.headers["Retry-After"] = str(errors.UNREACHABLE_RETRY_AFTER)
    return response


def _unexpected_error_response(error: Exception) -> Response:
    """MindInsight's ``handle_unknown_error``: log it, answer 500 ``System error.``; the answer
    (``request_id`` next to MindInsight's two keys, and the ``X-Request-Id`` header) and the log
    line carry the request id, so the traceback of what a user saw can be found. An index store
    that cannot be reached is 503 (:func:`unreachable_response`)."""
    if failure_reason(error) == STORE_UNREACHABLE:
        return unreachable_response(error)
    rid = request_id(request.environ)
    log.exception("REST API request %s failed (request id %s)", request.path, rid, exc_info=error)
    response = json_response(
        {**errors.unknown_error("System error.").to_dict(), "request_id": rid}, 500
    )
    response.headers[REQUEST_ID_HEADER] = rid
    return response


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


def _add_routes(blueprint: Blueprint, routes: Sequence[Route]) -> None:
    """``routes`` plus the catch-all views."""
    known: dict[str, Sequence[str]] = {}
    for route in routes:
        blueprint.add_url_rule(
            "/" + route.path,
            view_func=route.view,
            methods=list(route.methods),
            provide_automatic_options=False,
        )
        known[route.path] = route.methods
    catch_all = _catch_all(known)
    for rule, endpoint in (("/", "not_found_root"), ("/<path:path>", "not_found")):
        blueprint.add_url_rule(
            rule, endpoint, catch_all, methods=_OTHER_METHODS, provide_automatic_options=False
        )


# -- parameters (MindInsight's Validation / tools helpers) -----------------------------------


#: Largest JSON body a REST route reads (MindInsight's bodies are a search condition, a remark
#: or a list of train ids: kilobytes). A bigger one is refused before it is parsed.
MAX_JSON_BODY = 1 << 20
#: Deepest nesting of lists / objects accepted in a JSON body: MindInsight's conditions nest 3
#: levels; deeper ones would only exhaust the recursion limit of the parser or of the handlers.
MAX_JSON_DEPTH = 64


class JsonBodyError(ValueError):
    """A request body that is not JSON, too deeply nested or not text."""


# Unrolled ("[^"\\]*" runs, then escapes): `(?:[^"\\]|\\.)*` kept a backtracking frame per
# character, 1.7 GB for a 14 MB string in a callback body.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def _json_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` outside strings (no recursion, unlike the parser)."""
    depth = deepest = 0
    for match in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json_text(body: bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``body`` as JSON; JsonBodyError for invalid UTF-8 or JSON, or nesting deeper than
    ``max_depth`` (checked before parsing: Python's parser would raise RecursionError)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise JsonBodyError("the body is not UTF-8 text") from None
    if _json_depth(text) > max_depth:
        raise JsonBodyError(f"the body nests deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise JsonBodyError("the body is not JSON") from None


def request_body(max_bytes: int = MAX_JSON_BODY) -> bytes:
    """The raw request body; 413 in MindInsight's error format when it exceeds ``max_bytes``
    (read at most ``max_bytes + 1`` bytes, whatever ``Content-Length`` says)."""
    if request.content_length is not None and request.content_length > max_bytes:
        raise _body_too_large(max_bytes)
    body = request.stream.read(max_bytes + 1)
    if len(body) > max_bytes:
        raise _body_too_large(max_bytes)
    return body


def _body_too_large(max_bytes: int) -> ApiError:
    return ApiError(
        errors.PARAM_VALUE_ERROR,
        f"Invalid parameter value. The request body is larger than {max_bytes} bytes.",
        413,
    )


def json_body(max_bytes: int = MAX_JSON_BODY) -> Any:
    """The request body as JSON (None when empty); 413 when too large, JsonBodyError when not
    JSON or too deeply nested (each route words that error as MindInsight does)."""
    body = request_body(max_bytes)
    return parse_json_text(body) if body.strip() else None


def require(**params: Any) -> None:
    """``Validation.check_param_empty``: ParamMissError for the first empty parameter."""
    for name, value in params.items():
        if not value:
            raise errors.param_missing(name)


def required_args(*names: str) -> list[str]:
    """The query parameters ``names`` in order; ParamMissError for the first one missing or
    empty (``Validation.check_param_empty`` on ``request.args``)."""
    values = []
    for name in names:
        value = request.args.get(name)
        if not value:
            raise errors.param_missing(name)
        values.append(value)
    return values


def to_int(value: str, name: str) -> int:
    """``tools.to_int``: ParamTypeError unless ``int(value)`` works."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise errors.param_type_error(name, "Integer") from None


def optional_int(name: str, minimum: int | None = None) -> int | None:
    """The integer query parameter ``name``, None when absent or empty: ParamTypeError unless
    it is an integer, ParamValueError below ``minimum``."""
    text = request.args.get(name)
    if text is None or text == "":
        return None
    value = to_int(text, name)
    if minimum is not None and value < minimum:
        raise errors.param_value_error(f"{name} must be at least {minimum}, got {value}.")
    return value


def str_to_bool(value: str, name: str) -> bool:
    """``tools.str_to_bool``: ``true``/``false``, any case."""
    if value.lower() not in ("true", "false"):
        raise errors.param_value_error(f"The value of {name} must be 'false' or 'true'.")
    return value.lower() == "true"


def check_tag(tag: str) -> None:
    if "\x00" in tag:
        raise errors.null_byte("tag contains null byte.")


def local_time(timestamp: float) -> str:
    """MindInsight's ``strftime('%Y-%m-%d %H:%M:%S')`` of the local time."""
    try:
        return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return ""


def finite_or_none(value: float) -> float | None:
    """MindInsight's ``if_nan_inf_to_none``."""
    return value if math.isfinite(value) else None


def bucket_rows(buckets: np.ndarray) -> list[list[float | int]]:
    """``[[left, width, count], ...]`` with integer counts, as MindInsight's re-binned buckets."""
    return [[left, width, int(count)] for left, width, count in np.asarray(buckets).tolist()]


def resolve_job(provider: DataProvider, train_id: str) -> JobSummary:
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
        raise _malformed_train_id(error) from None
    raise errors.train_job_not_exist(
        f"Can not find the train job {train_id!r} in the summary base directory."
    )


def _malformed_train_id(error: ValueError) -> ApiError:
    return errors.param_value_error(
        f"{error}. A train_id is './' or './<directory>[/<directory>...]' relative to the "
        "summary base directory, without '.', '..', empty parts or symbolic links."
    )


def check_train_id(train_id: str) -> None:
    """The checks of :func:`resolve_job` that need no I/O (50545011 for a NUL byte,
    ParamValueError for a malformed id): for ids looked up in a listing, where an unknown one
    is skipped without touching the index or the file system."""
    if "\x00" in train_id:
        raise errors.null_byte("train job id contains null byte.")
    try:
        train_id_parts(train_id)
    except ValueError as error:
        raise _malformed_train_id(error) from None


def known_job(provider: DataProvider, train_id: str) -> JobSummary | None:
    """:func:`resolve_job`, but None for a job that does not exist (the endpoints that skip
    unknown ids); other errors (NUL byte, an id outside the base directory) are raised."""
    try:
        return resolve_job(provider, train_id)
    except ApiError as error:
        if error.code != errors.TRAIN_JOB_NOT_EXIST:
            raise
        return None


def stored_tag_or(tag: str, plugin: str, not_found: Callable[[str], ApiError]) -> str:
    """The stored tag of MindInsight's ``"<tag>/<plugin>"``; ``not_found`` error when the tag
    is not of that plugin (or holds a NUL byte: 50545011)."""
    check_tag(tag)
    raw = stored_tag(tag, plugin)
    if raw is None:
        raise not_found(TAG_NOT_FOUND_DETAIL)
    return raw


def value_steps_or(
    provider: DataProvider,
    train_id: str,
    plugin: str,
    tag: str,
    not_found: Callable[[str], ApiError],
) -> tuple[str, ValueSteps]:
    """(stored tag, steps) of MindInsight's tag of ``plugin``; ``not_found`` error if absent,
    unless the job is still being read (:func:`tag_may_be_pending`): then no step yet."""
    raw = stored_tag_or(tag, plugin, not_found)
    try:
        return raw, provider.value_steps(train_id, plugin, raw)
    except TagNotFound:
        if tag_may_be_pending(provider, train_id):
            return raw, ValueSteps.empty()
        raise not_found(TAG_NOT_FOUND_DETAIL) from None


def unread_on_disk(provider: DataProvider, job: JobSummary) -> bool:
    """True when the job's files on disk now hold other bytes than the index last saw: a live
    run wrote records since the loader's last round (one listing of the job's directory)."""
    found = discover_job(provider.base_dir, job.train_id)
    return found is not None and sum(f.size for f in found.files) != job.bytes_on_disk


#: The header naming the load status of a job whose answer may still be incomplete.
LOAD_STATUS_HEADER = "X-Dash-Insight-Load-Status"


def tag_may_be_pending(provider: DataProvider, train_id: str) -> bool:
    """True when the job has bytes on disk not read yet (a live run whose first steps of a tag
    are still on their way into the index): an unknown tag then answers empty with the
    job's status in :data:`LOAD_STATUS_HEADER`, not "tag not found" (MindInsight's answer
    shape is kept)."""
    job = known_job(provider, train_id)
    if job is None:
        return False
    status = job.status
    if status not in (STATUS_PENDING, STATUS_LOADING):
        if not unread_on_disk(provider, job):
            return False
        status = STATUS_LOADING  # written since the loader's last round, which reads it next

    @after_this_request
    def name_status(response: Response) -> Response:
        response.headers[LOAD_STATUS_HEADER] = status
        return response

    return True


#: The load status of an answer that leaves out series whose index entries are being read
#: again from the logs (:class:`~dash_insight.core.provider.IndexEntryMissing`).
STATUS_REBUILDING = "rebuilding"


def name_load_status(status: str) -> None:
    """Answer the current request with ``status`` in :data:`LOAD_STATUS_HEADER`."""

    @after_this_request
    def name_status(response: Response) -> Response:
        response.headers[LOAD_STATUS_HEADER] = status
        return response
