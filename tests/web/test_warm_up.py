"""The pages' background import (:mod:`dash_insight.web.warm_up`): page code never runs before
pandas is imported whole, and nothing else waits for it."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import flask
import pytest
from dash.testing.wait import until

from dash_insight.core.settings import DEMO_DIR, Settings
from dash_insight.default import create_app
from dash_insight.web import warm_up
from dash_insight.web.warm_up import WarmUp

DEMO_JOBS = "/v1/mindinsight/datavisual/train-jobs"


class BlockedImport:
    """An ``import_module`` stand-in that holds every import until :attr:`release` is set."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.imported: list[str] = []

    def __call__(self, name: str) -> Any:
        self.entered.set()
        self.release.wait(timeout=60)
        self.imported.append(name)
        return None


@pytest.fixture
def blocked(monkeypatch: pytest.MonkeyPatch) -> BlockedImport:
    stand_in = BlockedImport()
    monkeypatch.setattr(warm_up, "import_module", stand_in)
    return stand_in


def _app(tmp_path: Path) -> Any:
    return create_app(
        Settings(summary_base_dir=DEMO_DIR, workspace=tmp_path / "ws", reload_interval=0),
        start_loader=False,
        warm_up_pages=False,
    )


def test_page_code_waits_for_the_import_and_the_rest_does_not(
    tmp_path: Path, blocked: BlockedImport
) -> None:
    app = _app(tmp_path)
    seen: list[bool] = []

    @app.server.before_request
    def record() -> None:  # runs after the warm-up's hook: what page code would see
        if flask.request.path == "/_dash-layout":
            seen.append(app.warm_up.done)

    client = app.server.test_client()
    try:
        # The job list and the page's HTML answer while the import is held.
        assert client.get(DEMO_JOBS).status_code == 200
        assert client.get("/").status_code == 200
        assert not blocked.entered.is_set() and not app.warm_up.done
        answers: list[int] = []
        layout = threading.Thread(
            target=lambda: answers.append(app.server.test_client().get("/_dash-layout").status_code)
        )
        layout.start()
        until(blocked.entered.is_set, timeout=30)  # the layout request started the import
        assert not answers and not seen
        blocked.release.set()
        layout.join(timeout=60)
        assert answers == [200] and seen == [True] and blocked.imported == ["pandas"]
    finally:
        blocked.release.set()
        app.data_service.close()


def test_the_import_starts_once_the_first_request_is_answered(
    tmp_path: Path, blocked: BlockedImport
) -> None:
    app = create_app(
        Settings(summary_base_dir=DEMO_DIR, workspace=tmp_path / "ws", reload_interval=0),
        start_loader=False,
    )
    try:
        assert not blocked.entered.is_set()  # building the app imports nothing
        assert app.server.test_client().get(DEMO_JOBS).status_code == 200
        until(blocked.entered.is_set, timeout=30)
        blocked.release.set()
        app.warm_up.wait()
        assert blocked.imported == ["pandas"]
    finally:
        blocked.release.set()
        app.data_service.close()


def test_a_module_that_fails_to_import_is_logged_and_does_not_block(
    caplog: pytest.LogCaptureFixture,
) -> None:
    warm = WarmUp(("dash_insight_no_such_module",))
    with caplog.at_level(logging.WARNING, logger=warm_up.__name__):
        warm.wait()
    assert warm.done
    assert "could not import dash_insight_no_such_module" in caplog.text


def test_start_runs_once(blocked: BlockedImport) -> None:
    warm = WarmUp(("pandas", "numpy"))
    warm.start()
    warm.start()
    until(blocked.entered.is_set, timeout=30)
    blocked.release.set()
    warm.wait()
    assert blocked.imported == ["pandas", "numpy"]
