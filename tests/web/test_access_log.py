"""The access log (<workspace>/log/access.<port>.log) and request ids on 500 answers."""

from __future__ import annotations

import collections
import logging
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import flask
import pytest
from dash.testing.wait import until

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.access_log import (
    SharedRotatingFileHandler,
    access_line,
    access_log_path,
    clf_time,
)

#: host ident user [time] "request" status size seconds request-id
LINE = re.compile(
    r"^(\S+) - (\S+) \[(\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\] "
    r'"((?:[^"\\]|\\.)*)" (\d{3}) (\d+|-) (\d+\.\d{6}) ([A-Za-z0-9._-]+)$'
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _app(corpus: Path, tmp_path: Path, port: int = 8123, **settings):
    app = create_app(
        Settings(
            str(corpus), workspace=str(tmp_path / "ws"), reload_interval=0, port=port, **settings
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    return app


def _get(client, url: str, **kwargs):
    """A request whose answer is read and closed, as a WSGI server does (the access log line
    is written when the answer is closed)."""
    return client.get(url, buffered=True, **kwargs)


def _entries(path: Path) -> list[re.Match[str]]:
    lines = path.read_text().splitlines() if path.exists() else []
    matches = [LINE.match(line) for line in lines]
    assert all(matches), [line for line, m in zip(lines, matches, strict=True) if not m]
    return matches  # type: ignore[return-value]


def test_every_request_is_a_common_log_format_line(corpus: Path, tmp_path: Path) -> None:
    app = _app(corpus, tmp_path)
    try:
        client = app.server.test_client()
        jobs = _get(client, "/v1/mindinsight/datavisual/train-jobs?offset=0&limit=2")
        image = _get(
            client,
            "/v1/mindinsight/datavisual/image/single-image"
            "?train_id=./lenet_sc&tag=input_data/auto/image&step=-1",
            headers={"X-Request-Id": "proxy-id.42"},
        )
        missing = _get(client, "/v1/mindinsight/datavisual/nope")
        forged = _get(
            client,
            '/v1/mindinsight/datavisual/plugins?x="a" 200 1',
            headers={"X-Request-Id": 'bad id "x"'},
        )
        log_file = tmp_path / "ws" / "log" / "access.8123.log"
        entries = _entries(log_file)
    finally:
        app.data_service.close()
        app.access_log.close()
    assert [m[4] for m in entries] == [
        "GET /v1/mindinsight/datavisual/train-jobs?offset=0&limit=2 HTTP/1.1",
        "GET /v1/mindinsight/datavisual/image/single-image?train_id=./lenet_sc"
        "&tag=input_data/auto/image&step=-1 HTTP/1.1",
        "GET /v1/mindinsight/datavisual/nope HTTP/1.1",
        'GET /v1/mindinsight/datavisual/plugins?x=\\"a\\" 200 1 HTTP/1.1',  # quotes escaped
    ]
    assert [m[5] for m in entries] == ["200", "200", "404", "400"]
    assert [int(m[6]) for m in entries[:3]] == [len(jobs.data), len(image.data), len(missing.data)]
    assert all(m[1] == "127.0.0.1" and m[2] == "-" for m in entries)
    # The request id is the one the answer carries; a proxy's well-formed id is kept.
    answers = (jobs, image, missing, forged)
    assert [m[8] for m in entries] == [a.headers["X-Request-Id"] for a in answers]
    assert entries[1][8] == "proxy-id.42"
    assert re.fullmatch(r"[0-9a-f]{16}", entries[3][8])  # the malformed one was replaced
    assert len({m[8] for m in entries}) == 4


def test_request_line_cannot_forge_a_line() -> None:
    environ = {
        "REQUEST_METHOD": "GET",
        "REQUEST_URI": '/a" 200 5 "\n127.0.0.1 - - x',
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.1.2.3",
        "dash_insight.request_id": "r1",
    }
    line = access_line(environ, "200", 0, 0.0, 0.25)
    assert "\n" not in line and line.count('"') - line.count('\\"') == 2
    match = LINE.match(line)
    assert match and match[6] == "-" and match[7] == "0.250000" and match[8] == "r1"


def test_clf_time_is_english_whatever_the_locale() -> None:
    assert re.fullmatch(r"\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}", clf_time(0))


def test_the_log_rotates_at_its_size_limit(corpus: Path, tmp_path: Path) -> None:
    limit = 4096
    app = _app(corpus, tmp_path, port=8124, access_log_max_bytes=limit)
    requests = 120  # about 110 bytes a line: 13 KB, three rotations
    try:
        client = app.server.test_client()
        for n in range(requests):
            url = f"/v1/mindinsight/datavisual/train-jobs?limit={n + 1}"
            assert _get(client, url).status_code == 200
    finally:
        app.data_service.close()
        app.access_log.close()
    folder = tmp_path / "ws" / "log"
    files = sorted(folder.glob("access.8124.log*"))
    names = {f.name for f in files}
    assert {"access.8124.log", "access.8124.log.1", "access.8124.log.2"} <= names
    logs = [f for f in files if not f.name.endswith(".lock")]
    assert all(f.stat().st_size <= limit for f in logs)
    kept = [m for f in logs for m in _entries(f)]
    assert sorted(int(m[4].split("limit=")[1].split()[0]) for m in kept) == list(
        range(1, requests + 1)
    )


WRITER = """
import logging, sys
from dash_insight.web.access_log import SharedRotatingFileHandler
handler = SharedRotatingFileHandler(sys.argv[1], int(sys.argv[2]), backups=1000)
for n in range(int(sys.argv[4])):
    handler.handle(logging.makeLogRecord({"msg": f"{sys.argv[3]} {n:05d} " + "x" * 80}))
handler.close()
"""


def test_processes_share_one_rotated_log(tmp_path: Path) -> None:
    """Like gunicorn workers: no line lost or written to a rotated file, no file over the
    limit."""
    path = tmp_path / "access.9000.log"
    lines, limit = 400, 3000
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(limit), name, str(lines)])
        for name in ("a", "b", "c")
    ]
    assert [w.wait(120) for w in writers] == [0, 0, 0]
    files = [f for f in tmp_path.glob("access.9000.log*") if not f.name.endswith(".lock")]
    assert len(files) > 10 and all(f.stat().st_size <= limit for f in files)
    written = collections.Counter(
        line.split()[0] for f in files for line in f.read_text().splitlines()
    )
    assert written == {"a": lines, "b": lines, "c": lines}
    handler = SharedRotatingFileHandler(str(path), 0)
    handler.close()


def test_a_500_answer_and_its_log_line_carry_the_request_id(
    corpus: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = _app(corpus, tmp_path, port=8125)

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    app.data_service.provider.list_jobs = broken
    app.server.add_url_rule("/broken-page", "broken_page", broken)
    try:
        client = app.server.test_client()
        with caplog.at_level(logging.ERROR):
            api = _get(client, "/v1/mindinsight/datavisual/train-jobs")
            page = _get(client, "/broken-page")
        entries = _entries(Path(access_log_path(str(tmp_path / "ws"), 8125)))
    finally:
        app.data_service.close()
        app.access_log.close()
    assert api.status_code == 500
    body = api.get_json()
    assert body["error_code"] == "50540000" and body["error_msg"] == "System error."
    assert body["request_id"] == api.headers["X-Request-Id"]
    assert page.status_code == 500 and page.headers["X-Request-Id"] in page.text
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(failures) == 2
    for record, answer in zip(failures, (api, page), strict=True):
        assert f"(request id {answer.headers['X-Request-Id']})" in record.getMessage()
        assert record.exc_info and "disk on fire" in str(record.exc_info[1])
    assert [(m[5], m[8]) for m in entries] == [
        ("500", api.headers["X-Request-Id"]),
        ("500", page.headers["X-Request-Id"]),
    ]


def test_an_embedded_app_logs_only_its_own_requests(corpus: Path, tmp_path: Path) -> None:
    server = flask.Flask("host")
    server.add_url_rule("/health", "health", lambda: "ok")
    app = create_app(
        Settings(
            summary_base_dir=str(corpus),
            url_base_pathname="/insight/",
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        ),
        server=server,
    )
    try:
        client = server.test_client()
        assert _get(client, "/health").data == b"ok"
        assert _get(client, "/insight/_dash-layout").status_code == 200
        assert "X-Request-Id" not in _get(client, "/health").headers
        entries = _entries(Path(access_log_path(str(tmp_path / "ws"), 8080)))
    finally:
        app.data_service.close()
        app.access_log.close()
    assert [m[4] for m in entries] == ["GET /insight/_dash-layout HTTP/1.1"]


class _Requests(logging.Handler):
    """What werkzeug's development server (dash_duo's) says it answered."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = re.search(r'"(.*)" (\d{3}) ', ANSI.sub("", record.getMessage()))
        if found:
            self.seen.append((found[1], found[2]))


def test_a_browser_session_is_logged_request_by_request(
    dash_duo, corpus: Path, tmp_path: Path
) -> None:
    port = 8571
    app = _app(corpus, tmp_path, port=port)
    served = _Requests()
    werkzeug = logging.getLogger("werkzeug")
    level = werkzeug.level
    werkzeug.setLevel(logging.INFO)
    werkzeug.addHandler(served)
    log_file = Path(access_log_path(str(tmp_path / "ws"), port))
    try:
        dash_duo.start_server(app, port=port)
        dash_duo.wait_for_contains_text("#job-total", "Total 9")
        dash_duo.find_element('a[href="/dashboard?train_id=.%2Flenet_sc"]').click()
        dash_duo.wait_for_element("#preview-image")
        dash_duo.wait_for_page(f"{dash_duo.server.url}/scalars?train_id=.%2Flenet_sc")
        dash_duo.wait_for_element(".js-plotly-plot, .scalar-chart, #scalar-charts")

        def logged() -> list[tuple[str, str]]:
            return [(unquote(m[4]), m[5]) for m in _entries(log_file)]

        # werkzeug prints paths decoded (uri_to_iri); the access log keeps them as sent.
        until(
            lambda: (
                len(served.seen) > 20
                and collections.Counter(logged())
                == collections.Counter((unquote(line), status) for line, status in served.seen)
            ),
            30,
        )
    finally:
        werkzeug.removeHandler(served)
        werkzeug.setLevel(level)
        app.data_service.close()
    kinds = {line.split()[1].split("?")[0] for line, _ in logged()}
    assert {"/", "/_dash-layout", "/_dash-dependencies", "/_dash-update-component"} <= kinds
    assert any(path.startswith("/assets/") for path in kinds)
    assert any(path.startswith("/v1/mindinsight/datavisual/image/single-image") for path in kinds)
