"""Shared fixtures: the real MindSpore corpus beside the repository (``../shared/corpus``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
