"""Refuse request bodies larger than :data:`MAX_REQUEST_BYTES` with 413, before anything reads
them.

Nothing dash-insight serves takes a large body: the REST API's are a search condition, a remark or
a list of train ids (kilobytes, and the routes read at most ``http.MAX_JSON_BODY``), Dash's
callback requests carry the inputs and states of one callback. Dash reads a callback body whole
and decodes it as text, so a 300 MB body cost 600 MB of memory before it was refused as invalid.
A body whose ``Content-Length`` is over the limit is now answered 413 without being read (in
MindInsight's error format on the REST API), and a body without a length (chunked) is read at
most up to the limit.
"""

from __future__ import annotations

import contextlib
import logging

import flask

from dash_insight.web import errors
from dash_insight.web.http import API_PREFIX, EXPORT_PREFIX, SECURITY_HEADERS, json_response

log = logging.getLogger(__name__)

#: The largest request body read. Dash's largest callback bodies (a page's figures passed as
#: state) are a few MB.
MAX_REQUEST_BYTES = 32 << 20


def body_too_large_message(length: int, max_bytes: int) -> str:
    return (
        f"The request body of {length:,} bytes is larger than the {max_bytes:,} bytes "
        "dash-insight reads."
    )


def install(server: flask.Flask, prefix: str, max_bytes: int = MAX_REQUEST_BYTES) -> None:
    """Check the body size of every request below ``prefix``. Install it before any
    ``before_request`` hook that reads the body."""
    rest = tuple(prefix.rstrip("/") + api for api in (API_PREFIX, EXPORT_PREFIX))

    @server.before_request
    def refuse_large_body() -> flask.Response | None:
        request = flask.request
        if not request.path.startswith(prefix):
            return None
        # Flask >= 3.1: a chunked body (no Content-Length) raises 413 once it passes the limit
        # while it is read. Older Flask cannot set it per request; the length check below holds.
        with contextlib.suppress(AttributeError):
            request.max_content_length = max_bytes
        length = request.content_length
        if length is None or length <= max_bytes:
            return None
        message = body_too_large_message(length, max_bytes)
        log.warning(
            "refused a request body of %d bytes for %s from %s",
            length,
            request.path,
            request.remote_addr,
        )
        if request.path.startswith(rest):
            response = json_response(
                errors.ApiError(
                    errors.PARAM_VALUE_ERROR, f"Invalid parameter value. {message}", 413
                ).to_dict(),
                413,
            )
            response.headers.update(SECURITY_HEADERS)
        else:
            response = flask.Response(
                flask.json.dumps({"message": message}), status=413, mimetype="application/json"
            )
        return response
