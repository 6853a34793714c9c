"""The access log and request ids.

MindInsight's workspace held gunicorn's access log; dash-insight writes
``<workspace>/log/access.<port>.log`` itself, whatever WSGI server runs it (waitress for
``dash-insight start`` and ``app.py``, gunicorn, werkzeug in tests): :class:`AccessLog` wraps the
Flask app's ``wsgi_app`` and writes one line per request when its answer has been sent::

    127.0.0.1 - - [07/Nov/2026:10:15:32 +0100] "GET /_dash-layout HTTP/1.1" 200 91 0.0042 5f0c2a9e

that is the common log format (client, identity, user, time, request line, status, bytes sent or
``-``) followed by the request time in seconds and the request id. The file is rotated at
``access_log_max_bytes`` (``access.<port>.log.1`` ... ``.5``); several processes (gunicorn
workers) share it safely (:class:`SharedRotatingFileHandler`).

Every request gets an id (a proxy's ``X-Request-Id`` is kept when it looks like one), sent back
in the ``X-Request-Id`` header; a 500 answer carries it in its body and the error log line of
the failure names it, so an operator goes from what a user saw to the traceback.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator
from logging.handlers import RotatingFileHandler
from types import TracebackType
from typing import Any
from urllib.parse import quote

import flask
from werkzeug.exceptions import InternalServerError

from dash_insight.core.private_files import create_private_file, make_private_dirs
from dash_insight.core.settings import Settings

REQUEST_ID_KEY = "dash_insight.request_id"  # where the WSGI environ keeps the id
REQUEST_ID_HEADER = "X-Request-Id"
ACCESS_LOG_BACKUPS = 5
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

log = logging.getLogger(__name__)

StartResponse = Callable[..., Callable[[bytes], Any]]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
ExcInfo = tuple[type[BaseException], BaseException, TracebackType]


def access_log_path(workspace: str, port: int) -> str:
    return os.path.join(workspace, "log", f"access.{port}.log")


def request_id(environ: dict[str, Any]) -> str:
    """The id of the request of ``environ``, made on first use (or taken from a proxy's
    ``X-Request-Id`` header when it is 1-64 letters, digits, ``._-``)."""
    found = environ.get(REQUEST_ID_KEY)
    if found is None:
        incoming = environ.get("HTTP_X_REQUEST_ID", "")
        found = incoming if _SAFE_ID.match(incoming) else secrets.token_hex(8)
        environ[REQUEST_ID_KEY] = found
    return str(found)


def clf_time(timestamp: float) -> str:
    """``07/Nov/2026:10:15:32 +0100`` (local time; month names in English whatever the
    locale, as the common log format has them)."""
    local = time.localtime(timestamp)
    offset = local.tm_gmtoff or 0
    sign = "-" if offset < 0 else "+"
    offset = abs(offset) // 60
    return (
        f"{local.tm_mday:02d}/{_MONTHS[local.tm_mon - 1]}/{local.tm_year}:"
        f"{local.tm_hour:02d}:{local.tm_min:02d}:{local.tm_sec:02d} "
        f"{sign}{offset // 60:02d}{offset % 60:02d}"
    )


def _escape(text: str) -> str:
    """Quotes, backslashes and control characters escaped: a request cannot forge a line."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return "".join(out)


def request_line(environ: dict[str, Any]) -> str:
    """``GET /path?query HTTP/1.1`` as the client sent it (``REQUEST_URI``/``RAW_URI`` when the
    server keeps it, else rebuilt from the decoded path)."""
    target = environ.get("REQUEST_URI") or environ.get("RAW_URI")
    if not target:
        target = quote(
            environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""), safe="/;=,~!$&'()*+:@-._"
        )
        if environ.get("QUERY_STRING"):
            target += "?" + environ["QUERY_STRING"]
    return _escape(
        f"{environ.get('REQUEST_METHOD', '-')} {target} {environ.get('SERVER_PROTOCOL', '-')}"
    )


def access_line(
    environ: dict[str, Any], status: str, size: int, received: float, seconds: float
) -> str:
    """One line of the access log (see the module docstring)."""
    client = environ.get("REMOTE_ADDR") or "-"
    user = _escape(environ.get("REMOTE_USER") or "-")
    return (
        f'{client} - {user} [{clf_time(received)}] "{request_line(environ)}" {status} '
        f"{size or '-'} {seconds:.6f} {request_id(environ)}"
    )


class SharedRotatingFileHandler(RotatingFileHandler):
    """A size-rotated log file that several processes append to (gunicorn workers).

    Each record is written under an exclusive ``flock`` of ``<file>.lock`` (opened per record:
    a lock inherited through ``fork`` would be shared, not exclusive). A process whose file was
    rotated by another one re-opens the new file first, so no line goes to a rotated file and
    the file is rotated once at its limit, not once per process.
    """

    def __init__(self, filename: str, max_bytes: int, backups: int = ACCESS_LOG_BACKUPS) -> None:
        make_private_dirs(os.path.dirname(os.path.abspath(filename)))
        super().__init__(filename, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
        self.lock_path = self.baseFilename + ".lock"
        create_private_file(self.lock_path)

    def _open(self) -> Any:
        """The log file, created 0600: its lines name the jobs and tags users looked at (see
        :mod:`dash_insight.core.private_files`)."""
        create_private_file(self.baseFilename)
        return super()._open()

    def _follow_rotation(self) -> None:
        try:
            current = os.stat(self.baseFilename).st_ino
        except FileNotFoundError:
            current = None
        if self.stream is not None and current == os.fstat(self.stream.fileno()).st_ino:
            return
        if self.stream is not None:
            self.stream.close()
        self.stream = self._open()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            with open(self.lock_path, "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self._follow_rotation()
                super().emit(record)
        except Exception:
            self.handleError(record)


class _LoggedBody:
    """The answer's iterable; counts the bytes sent and logs the request when closed."""

    def __init__(
        self, body: Iterable[bytes], done: Callable[[], None], count: Callable[[int], None]
    ) -> None:
        self._body = body
        self._done = done
        self._count = count

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            self._count(len(chunk))
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._done()


class AccessLog:
    """WSGI middleware: a request id for every request under ``prefix``, and its line in the
    access log once the answer is sent (see the module docstring)."""

    def __init__(self, app: WSGIApp, path: str, max_bytes: int, prefix: str = "/") -> None:
        self.app = app
        self.path = path
        self.prefix = prefix
        self.handler = SharedRotatingFileHandler(path, max_bytes)

    def close(self) -> None:
        self.handler.close()

    def write(self, line: str) -> None:
        self.handler.handle(
            logging.makeLogRecord({"msg": line, "levelno": logging.INFO, "levelname": "INFO"})
        )

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
        if not (path + "/").startswith(self.prefix):
            return self.app(environ, start_response)
        rid = request_id(environ)
        received, started = time.time(), time.perf_counter()
        state: dict[str, Any] = {"status": "500", "size": 0, "logged": False}

        def count(size: int) -> None:
            state["size"] += size

        def done() -> None:
            if not state["logged"]:
                state["logged"] = True
                self.write(
                    access_line(
                        environ,
                        state["status"],
                        state["size"],
                        received,
                        time.perf_counter() - started,
                    )
                )

        def start(
            status: str, headers: list[tuple[str, str]], exc_info: ExcInfo | None = None
        ) -> Callable[[bytes], Any]:
            state["status"] = status.split(" ", 1)[0]
            if not any(name.lower() == "x-request-id" for name, _ in headers):
                headers = [*headers, (REQUEST_ID_HEADER, rid)]
            write = start_response(status, headers, exc_info)

            def counted_write(data: bytes) -> Any:
                count(len(data))
                return write(data)

            return counted_write

        try:
            body = self.app(environ, start)
        except BaseException:
            done()
            raise
        return _LoggedBody(body, done, count)


class Server(flask.Flask):
    """The Flask app of a stand-alone dash-insight: the log line of an unhandled exception (a
    Dash callback that failed) names the request id that its 500 answer returns."""

    def log_exception(self, exc_info: Any) -> None:
        request = flask.request
        self.logger.error(
            "Exception on %s [%s] (request id %s)",
            request.path,
            request.method,
            request_id(request.environ),
            exc_info=exc_info,
        )


def _internal_error(error: InternalServerError) -> flask.Response:
    rid = request_id(flask.request.environ)
    response = flask.Response(
        f"Internal Server Error (request id {rid}): the server log has the details.\n",
        status=500,
        mimetype="text/plain",
    )
    response.headers[REQUEST_ID_HEADER] = rid
    return response


def install(server: flask.Flask, settings: Settings) -> AccessLog:
    """Wrap ``server`` with the access log of ``settings`` (``<workspace>/log/access.<port>
    .log``, rotated at ``access_log_max_bytes``) for requests below ``url_base_pathname``; a
    :class:`Server` also answers its 500s with the request id."""
    middleware = AccessLog(
        server.wsgi_app,
        access_log_path(settings.workspace, settings.port),
        settings.access_log_max_bytes,
        settings.url_base_pathname,
    )
    server.wsgi_app = middleware  # type: ignore[method-assign]
    if isinstance(server, Server):
        server.register_error_handler(InternalServerError, _internal_error)
    return middleware
