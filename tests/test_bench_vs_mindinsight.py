"""The pure helpers of ``bench/vs_mindinsight.py`` (the benchmark itself installs and runs
MindInsight, which CI does not)."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.bench_modules import load_bench_module


@pytest.fixture(scope="module")
def vs() -> ModuleType:
    return load_bench_module("vs_mindinsight")


def test_median_skips_timed_out_loads(vs: ModuleType) -> None:
    assert vs.median([3.0, None, 1.0, 2.0]) == 2.0
    assert vs.median([None, None]) is None


def test_ratio_and_verdict_against_0_7(vs: ModuleType) -> None:
    assert vs.ratio(0.7, 1.0) == pytest.approx(0.7)
    assert vs.ratio(1.0, 0.0) is None and vs.ratio(None, 1.0) is None
    assert vs.verdict(0.7, 0.5) == "OK"
    assert vs.verdict(0.71, 0.5) == "MISSED"
    assert vs.verdict(0.5, None) == "MISSED"  # a page that timed out is not met


def test_formatting(vs: ModuleType) -> None:
    assert vs.fmt(1.234, " s") == "1.23 s"
    assert vs.fmt(None, " s") == "-"
    assert vs.fmt_ratio(0.4249) == "0.42x"
    assert vs.fmt_bytes(1_234_567) == "1.2 MB"
    assert vs.fmt_bytes(512) == "512 B"


def test_every_page_has_both_routes(vs: ModuleType) -> None:
    names = [page.name for page in vs.PAGES]
    assert len(set(names)) == len(names) == 9
    for page in vs.PAGES:
        assert page.base in ("main", "compare")
        assert page.mindinsight.startswith("/") and page.ours.startswith("/")
