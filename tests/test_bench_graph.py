"""The pure parts of ``bench/graph.py``'s page section (``bench/graph_page.py``,
``bench/graph_pan.py``): the benchmark itself serves MindInsight and drives Chromium, which CI
does not."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench_modules import load_bench_module


@pytest.fixture(scope="module")
def page() -> ModuleType:
    return load_bench_module("graph_page")


def test_a_pan_with_a_task_over_100_ms_is_missed(page: ModuleType) -> None:
    result = sys.modules["graph_pan"].PanResult
    assert result(1.0, 500.0, [51, 100]).verdict == "OK"
    assert result(1.0, 500.0, []).verdict == "OK"
    assert result(1.0, 20.0, [60, 101]).verdict == "MISSED"


def test_mindinsight_not_installed_is_said(
    page: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(page, "MI_VENV", str(tmp_path / "none"))
    assert page.mindinsight_bin() is None
    with page.mindinsight(str(tmp_path), str(tmp_path / "ws")) as relay:
        assert relay is None
    monkeypatch.setattr(page, "measure_pan", lambda *args: pytest.fail("no pan below 5,000"))
    monkeypatch.setattr(page, "serve_ours", lambda logs, ws: (1, lambda: None))
    monkeypatch.setattr(page, "pagetime", lambda *args: {"visual_complete_s": 1.5})
    assert page.page_times([100], 25, 1)
    out = capsys.readouterr().out
    assert "MindInsight 2.3.1 is not installed" in out
    assert "100 operators, top level" in out and "1.50 s" in out and "cores" in out
