"""The profiler's browser tests share one app over ``../shared/corpus-profiler`` per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app


@pytest.fixture(scope="module")
def profiler_app(profiler_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = create_app(
        Settings(
            summary_base_dir=str(profiler_corpus),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()
