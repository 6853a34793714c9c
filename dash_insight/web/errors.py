"""MindInsight 2.3.1's REST error format and codes.

Every failed request answers ``{"error_code": "<8 hex digits>", "error_msg": "..."}`` with HTTP
400 (404 for an unknown route, 405 for a wrong method, 500 for an unexpected failure), as
MindInsight's ``MindInsightException`` handlers do. Codes are
``0x50540000 | (module << 12) | value`` with module 0 (general) or 5 (datavisual), printed as
8 upper-case hex digits (``utils/exceptions.py``, ``utils/constant.py``). The messages follow
MindInsight's templates (``datavisual/common/exceptions.py``): a fixed prefix such as
``"Scalar value is not exist."`` plus ``" Detail: ..."``; whitespace runs are collapsed to one
space as ``MindInsightException.__init__`` does.
"""

from __future__ import annotations

from typing import Any

_GENERAL = 0x50540000
_DATAVISUAL = 0x50545000

# General errors (module 0).
UNKNOWN_ERROR = _GENERAL | 0x00
PARAM_TYPE_ERROR = _GENERAL | 0x01
PARAM_VALUE_ERROR = _GENERAL | 0x02
PARAM_MISSING_ERROR = _GENERAL | 0x03
# Datavisual errors (module 5).
RESTFUL_API_NOT_EXIST = _DATAVISUAL | 0x01
REQUEST_METHOD_NOT_ALLOWED = _DATAVISUAL | 0x02
TRAIN_JOB_NOT_EXIST = _DATAVISUAL | 0x05
PLUGIN_NOT_AVAILABLE = _DATAVISUAL | 0x0B
IMAGE_NOT_EXIST = _DATAVISUAL | 0x0D
SCALAR_NOT_EXIST = _DATAVISUAL | 0x0E
HISTOGRAM_NOT_EXIST = _DATAVISUAL | 0x0F
QUERY_STRING_CONTAINS_NULL_BYTE = _DATAVISUAL | 0x11
TENSOR_NOT_EXIST = _DATAVISUAL | 0x12
MAX_RESPONSE_DATA_EXCEEDED = _DATAVISUAL | 0x13
STEP_TENSOR_DATA_NOT_IN_CACHE = _DATAVISUAL | 0x14
TENSOR_TOO_LARGE = _DATAVISUAL | 0x16
LANDSCAPE_NOT_EXIST = _DATAVISUAL | 0x17

#: MindInsight's detail when a tag is unknown (``DataManager.list_tensors``).
TAG_NOT_FOUND_DETAIL = "Can not find any data in this train job by given tag."


class ApiError(Exception):
    """An error answered in MindInsight's format; ``str()`` is the ``error_msg``."""

    def __init__(self, code: int, message: str, http_status: int = 400) -> None:
        message = " ".join(message.split())
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status

    @property
    def error_code(self) -> str:
        """The code as MindInsight prints it: 8 upper-case hex digits, e.g. ``5054500E``."""
        return f"{self.code:08X}"

    def to_dict(self) -> dict[str, Any]:
        return {"error_code": self.error_code, "error_msg": self.message}


def _with_detail(prefix: str, detail: str | None) -> str:
    return prefix if detail is None else f"{prefix} Detail: {detail}"


# -- general ---------------------------------------------------------------------------------


def unknown_error(detail: str) -> ApiError:
    """``UnknownError`` (50540000, HTTP 500)."""
    return ApiError(UNKNOWN_ERROR, detail, 500)


def param_type_error(name: str, expected: str) -> ApiError:
    """``ParamTypeError``: ``Invalid parameter type. 'step' expect Integer type.``"""
    return ApiError(PARAM_TYPE_ERROR, f"Invalid parameter type. '{name}' expect {expected} type.")


def param_value_error(detail: str) -> ApiError:
    """``ParamValueError``: ``Invalid parameter value. <detail>``."""
    return ApiError(PARAM_VALUE_ERROR, f"Invalid parameter value. {detail}")


def param_missing(name: str) -> ApiError:
    """``ParamMissError``: ``Param missing. 'train_id' is required.``"""
    return ApiError(PARAM_MISSING_ERROR, f"Param missing. '{name}' is required.")


# -- datavisual ------------------------------------------------------------------------------


def api_not_exist() -> ApiError:
    """``RestfulApiNotExist`` (HTTP 404)."""
    return ApiError(RESTFUL_API_NOT_EXIST, "404 Not Found.", 404)


def method_not_allowed() -> ApiError:
    """``RequestMethodNotAllowed`` (HTTP 405)."""
    return ApiError(REQUEST_METHOD_NOT_ALLOWED, "405 Method Not Allowed.", 405)


def train_job_not_exist(detail: str | None = None) -> ApiError:
    return ApiError(TRAIN_JOB_NOT_EXIST, _with_detail("Train job is not exist.", detail))


def plugin_not_available(detail: str) -> ApiError:
    return ApiError(PLUGIN_NOT_AVAILABLE, _with_detail("Plugin is not available.", detail))


def image_not_exist(detail: str) -> ApiError:
    return ApiError(IMAGE_NOT_EXIST, _with_detail("Image is not exist.", detail))


def scalar_not_exist(detail: str) -> ApiError:
    return ApiError(SCALAR_NOT_EXIST, _with_detail("Scalar value is not exist.", detail))


def histogram_not_exist(detail: str) -> ApiError:
    return ApiError(HISTOGRAM_NOT_EXIST, _with_detail("Histogram value is not exist.", detail))


def tensor_not_exist(detail: str) -> ApiError:
    return ApiError(TENSOR_NOT_EXIST, _with_detail("Tensor value is not exist.", detail))


def null_byte(detail: str) -> ApiError:
    return ApiError(
        QUERY_STRING_CONTAINS_NULL_BYTE,
        _with_detail("Query string contains null byte error.", detail),
    )


def response_too_large(size: int, limit: int) -> ApiError:
    """``ResponseDataExceedMaxValueError``, worded exactly as MindInsight words it."""
    return ApiError(
        MAX_RESPONSE_DATA_EXCEEDED,
        _with_detail(
            "Response data exceed max value.",
            f"the size of response data: {size} exceed max value: {limit}.",
        ),
    )


def step_not_in_cache(step: int) -> ApiError:
    """``StepTensorDataNotInCacheError``, worded exactly as MindInsight words it."""
    return ApiError(
        STEP_TENSOR_DATA_NOT_IN_CACHE,
        _with_detail("Tensor data not in cache.", f"this step: {step} data may has been dropped."),
    )


def tensor_too_large(detail: str) -> ApiError:
    return ApiError(TENSOR_TOO_LARGE, _with_detail("Tensor is too large to show on UI.", detail))


def node_not_in_graph(name: str) -> ApiError:
    """``NodeNotInGraphError`` (50545009)."""
    return ApiError(
        _DATAVISUAL | 0x09,
        f"Can not find node in graph by the given node name. Detail: node name: {name}.",
    )


def graph_not_exist(detail: str | None = None) -> ApiError:
    """``GraphNotExistError`` (5054500C): ``Graph is not exist.``"""
    return ApiError(
        _DATAVISUAL | 0x0C, "Graph is not exist." + (f" Detail: {detail}" if detail else "")
    )


def value_unreadable(reason: str) -> ApiError:
    """A step whose value cannot be read now (damaged record, its file gone or cut since it
    was indexed): MindInsight's ``StepTensorDataNotInCache`` (50545014, the code of a step
    whose data it does not hold), saying why, instead of a 500 for a file's content. The
    tag's other steps are unaffected."""
    return ApiError(STEP_TENSOR_DATA_NOT_IN_CACHE, f"Step data cannot be read. Detail: {reason}.")


#: Seconds a client waits before asking again for a job being read again from its logs.
REBUILD_RETRY_AFTER = 2


#: Seconds a client is told to wait (``Retry-After``) while the index store cannot be reached.
UNREACHABLE_RETRY_AFTER = 5


def index_unreachable(detail: str) -> ApiError:
    """The index store (Redis) cannot be reached and this process does not hold the answer:
    HTTP 503 (with ``Retry-After``), temporary, not a server fault."""
    return ApiError(UNKNOWN_ERROR, detail, 503)


def index_rebuilding(detail: str) -> ApiError:
    """Part of a job's index is missing and the loader is reading it again: HTTP 503 (with
    ``Retry-After``), temporary, not a server fault."""
    return ApiError(UNKNOWN_ERROR, detail, 503)
