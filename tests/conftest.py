"""Shared fixtures: the real MindSpore corpus beside the repository (``../shared/corpus``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dash_insight.app import create_app

REPO = Path(__file__).resolve().parent.parent
# dash_duo drives Debian's Chromium (selenium 4.2 cannot download a browser); chromedriver
# comes from the same package and is found on PATH.
if Path("/usr/bin/chromium").exists():
    os.environ.setdefault("DASH_TEST_CHROMEPATH", "/usr/bin/chromium")
CORPUS = Path(os.environ.get("DASH_INSIGHT_CORPUS", REPO.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The corpus base directory (CI always has it; a bare clone skips corpus tests)."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS


def corpus_files(pattern: str) -> list[Path]:
    """Corpus files matching a glob pattern (for parametrisation at collection time)."""
    return sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []


@pytest.fixture
def corpus_app(corpus: Path, tmp_path: Path):
    """The app over the corpus, loaded once (no reloads), for browser tests."""
    app = create_app(str(corpus), workspace=str(tmp_path / "ws"), reload_interval=0)
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def console_errors(dash_duo) -> list[dict]:
    """SEVERE messages of the browser console since the last call."""
    return [entry for entry in dash_duo.get_logs() or [] if entry.get("level") == "SEVERE"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that drives the browser is marked ``browser`` (``-m "not browser"``)."""
    for item in items:
        if "dash_duo" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
