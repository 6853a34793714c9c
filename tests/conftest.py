"""Shared fixtures: the real MindSpore corpus beside the repository (``../shared/corpus``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas  # noqa: F401  (see below)
import pytest

from dash_insight.core.provider import DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.browser import PatientDashComposite

# pandas is imported here, whole, before any test: an app's warm-up imports it in a background
# thread (dash_insight.web.warm_up), and a test building a plotly figure meanwhile would find it
# half imported (plotly looks it up in sys.modules); a server builds figures only in the
# requests that wait for the warm-up.

#: Fixtures of the REST tests, shared by tests/web/test_rest.py and tests/plugins/*/test_rest.py
#: (a plugin, not a plain import, so that its fixtures are found and its asserts rewritten).
pytest_plugins = ["tests.rest_fixtures", "tests.redis_server"]

REPO = Path(__file__).resolve().parent.parent
# dash_duo drives Debian's Chromium (selenium 4.2 cannot download a browser); chromedriver
# comes from the same package and is found on PATH.
if Path("/usr/bin/chromium").exists():
    os.environ.setdefault("DASH_TEST_CHROMEPATH", "/usr/bin/chromium")
CORPUS = Path(os.environ.get("DASH_INSIGHT_CORPUS", REPO.parent / "shared" / "corpus"))
ORACLE_PATH = CORPUS.parent / "oracle" / "mindinsight-2.3.1-corpus.json.gz"
TOOLS = CORPUS.parent / "tools"
#: Two real MindSpore 2.10 CPU-profiled jobs, and MindInsight 2.3.1's profiler answers for them.
PROFILER_CORPUS = CORPUS.parent / "corpus-profiler"
PROFILER_ORACLE = CORPUS.parent / "oracle" / "profiler"


def _settings_in_environ() -> dict[str, str]:
    return {
        name: value
        for name, value in os.environ.items()
        if name.startswith(("DASH_INSIGHT_", "MINDINSIGHT_"))
    }


@pytest.fixture(autouse=True)
def no_settings_leak_into_the_environment() -> Iterator[None]:
    """A test that leaves ``DASH_INSIGHT_*`` in ``os.environ`` (``runtime.announce`` exports
    its settings) changes every later test of its worker: a notebook kernel started later took
    a leaked port (CI). Restored, and the test fails naming what leaked."""
    before = _settings_in_environ()
    yield
    after = _settings_in_environ()
    if after != before:
        for name in after.keys() - before.keys():
            del os.environ[name]
        os.environ.update(before)
        leaked = sorted(
            name for name in after.keys() | before.keys() if after.get(name) != before.get(name)
        )
        pytest.fail(f"the test changed os.environ: {', '.join(leaked)}")


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The corpus base directory (CI always has it; a bare clone skips corpus tests)."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def profiler_corpus() -> Path:
    """``../shared/corpus-profiler`` (skips when absent)."""
    if not PROFILER_CORPUS.is_dir():
        pytest.skip(f"profiler corpus not found at {PROFILER_CORPUS}")
    return PROFILER_CORPUS


def corpus_files(pattern: str) -> list[Path]:
    """Corpus files matching a glob pattern (for parametrisation at collection time)."""
    return sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []


@contextmanager
def loaded_app(base: str | os.PathLike[str], workspace: str | os.PathLike[str]) -> Iterator[Any]:
    """The app over ``base``, its first loader round done (no reloads); closed on exit."""
    app = create_app(
        Settings(
            summary_base_dir=os.fspath(base), workspace=os.fspath(workspace), reload_interval=0
        )
    )
    try:
        assert app.data_service.loader.wait_rounds(1)
        yield app
    finally:
        app.data_service.close()


@pytest.fixture
def corpus_app(corpus: Path, tmp_path: Path):
    """The app over the corpus, loaded once (no reloads), for browser tests."""
    with loaded_app(corpus, tmp_path / "ws") as app:
        yield app


def loaded_service(
    base: str | os.PathLike[str], workspace: str | os.PathLike[str], **settings: Any
) -> DataService:
    """A data service over ``base`` with every file read once (no loader thread)."""
    service = DataService(
        Settings(os.fspath(base), workspace=os.fspath(workspace), reload_interval=0, **settings)
    )
    service.loader.load_round()
    return service


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace of :func:`service` (one per test module)."""
    return tmp_path_factory.mktemp("ws")


@pytest.fixture(scope="module")
def service(corpus: Path, workspace: Path) -> Iterator[DataService]:
    """A data service over the corpus, every file read once (one per test module)."""
    data = loaded_service(corpus, workspace)
    yield data
    data.close()


@pytest.fixture(scope="module")
def corpus_provider(service: DataService) -> DataProvider:
    """The provider of :func:`service`."""
    return service.provider


@pytest.fixture
def dash_duo(
    request: pytest.FixtureRequest, dash_thread_server: Any, tmpdir: Any
) -> Iterator[PatientDashComposite]:
    """dash.testing's ``dash_duo``, patient on a loaded machine and waiting for callbacks
    before it navigates away (:mod:`tests.browser`)."""
    config = request.config
    with PatientDashComposite(
        dash_thread_server,
        browser=config.getoption("webdriver"),
        remote=config.getoption("remote"),
        remote_url=config.getoption("remote_url"),
        headless=config.getoption("headless"),
        options=config.hook.pytest_setup_options(),
        download_path=tmpdir.mkdir("download").strpath,
        percy_assets_root=config.getoption("percy_assets"),
        percy_finalize=config.getoption("nopercyfinalize"),
        pause=config.getoption("pause"),
    ) as composite:
        yield composite


def console_errors(dash_duo) -> list[dict]:
    """SEVERE messages of the browser console since the last call."""
    return [entry for entry in dash_duo.get_logs() or [] if entry.get("level") == "SEVERE"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that drives the browser is marked ``browser`` (``-m "not browser"``)."""
    for item in items:
        if "dash_duo" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def dump_rest(app: Any, dump: Path, dump_timeout: float = 180) -> Path:
    """Serve ``app`` (a Flask app) on a real server and dump its REST answers into ``dump`` with
    ``../shared/tools/mi_dump.py``."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class QuietHandler(WSGIRequestHandler):
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            """No access log for the hundreds of requests of a dump."""

    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        subprocess.run(
            [
                sys.executable,
                str(TOOLS / "mi_dump.py"),
                f"http://127.0.0.1:{server.server_port}",
                str(dump),
                "--wait",
                "60",
                "--stable",
                "0.05",
                "--timeout",
                "30",
            ],
            check=True,
            capture_output=True,
            timeout=dump_timeout,
        )
    finally:
        server.shutdown()
        thread.join(10)
    return dump


def dump_and_compare(
    app: Any, tmp_path: Path, sections: str, dump_timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """Dump ``app``'s REST answers (:func:`dump_rest`) and compare the dump with MindInsight's
    oracle by ``compare_dumps.py`` for ``sections`` (comma-separated); returns the comparison's
    finished process."""
    dump = dump_rest(app, tmp_path / "ours.json", dump_timeout)
    return subprocess.run(
        [sys.executable, str(TOOLS / "compare_dumps.py"), str(ORACLE_PATH), str(dump), sections],
        capture_output=True,
        text=True,
        timeout=120,
    )
