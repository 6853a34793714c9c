"""The pure helpers of ``bench/vs_mindinsight.py`` (the benchmark itself installs and runs
MindInsight, which CI does not)."""

from __future__ import annotations

import json
import re
import urllib.request
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


def test_medians_of_each_figure(vs: ModuleType) -> None:
    runs = [
        {"visual_complete_s": 1.0, "browser_tree_cpu_s": 2.0, "js_heap_mb": 10.0, "bytes": 5},
        {"visual_complete_s": None, "browser_tree_cpu_s": 4.0, "js_heap_mb": 20.0, "bytes": 7},
        {"visual_complete_s": 3.0, "browser_tree_cpu_s": 3.0, "js_heap_mb": 30.0, "bytes": 6},
    ]
    assert vs.medians(runs) == {
        "visual_complete_s": 2.0,
        "browser_tree_cpu_s": 3.0,
        "js_heap_mb": 20.0,
        "bytes": 6,
    }


def test_targets_are_0_7_of_mindinsight_and_compared_with_the_floor(vs: ModuleType) -> None:
    mi = {"visual_complete_s": 1.0, "browser_tree_cpu_s": 2.0, "js_heap_mb": 9.0, "bytes": 9}
    goals = vs.targets(mi)
    assert goals == pytest.approx((0.7, 1.4))
    assert vs.targets({**mi, "visual_complete_s": None})[0] is None
    floor = {"visual_complete_s": 0.4, "browser_tree_cpu_s": 0.9, "js_heap_mb": 5.0, "bytes": 1}
    assert vs.below_floor(goals, floor) == []
    assert vs.below_floor(goals, {**floor, "visual_complete_s": 0.8}) == ["time"]
    assert vs.below_floor(goals, {**floor, "browser_tree_cpu_s": 1.5}) == ["CPU"]
    assert vs.below_floor((None, None), floor) == []  # MindInsight's page timed out
    assert vs.below_floor(goals, {**floor, "visual_complete_s": None}) == []


def _run(drawn: float, cpu: float) -> dict:
    return {"visual_complete_s": drawn, "browser_tree_cpu_s": cpu, "js_heap_mb": 9.0, "bytes": 1e6}


def test_rows_give_the_targets_and_mark_those_below_the_floor(vs: ModuleType) -> None:
    runs = {"mi": [_run(0.5, 1.2)], "ours": [_run(0.5, 1.0)]}
    floor = vs.medians([_run(0.4, 0.9)])
    row = vs.summarize("images", runs, floor)
    assert "0.35/0.84 s" in row  # 0.7 x 0.5 s and 0.7 x 1.2 s
    assert row.endswith("MISSED (time and CPU target below its floor, bare Dash page)")
    row = vs.summarize("images", runs, vs.medians([_run(0.3, 0.9)]))
    assert row.endswith("MISSED (CPU target below its floor, bare Dash page)")
    row = vs.summarize("graph", runs, floor, "floor: Dash + Cytoscape")
    assert row.endswith("MISSED (time and CPU target below its floor, Dash + Cytoscape)")
    fast = {"mi": [_run(2.0, 3.0)], "ours": [_run(1.0, 2.0)]}
    assert vs.summarize("scalars", fast, floor).endswith("OK")
    floor_row = vs.floor_row(floor)
    assert floor_row.startswith("floor: bare Dash page") and "0.40 s" in floor_row
    static = vs.floor_row(vs.medians([_run(0.05, 0.7)]), vs.BROWSER_FLOOR)
    assert static.startswith("floor: static HTML page") and "0.05 s" in static


def test_each_page_is_held_to_the_floor_of_its_library(
    vs: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    floors = {page.name: page.floor for page in vs.PAGES}
    assert floors["loss landscape"] == "floor: Dash + 3D plotly.js"
    assert floors["computational graph"] == "floor: Dash + Cytoscape"
    assert floors["scalars"] == floors["scalar comparison"] == "floor: Dash + plotly.js"
    assert floors["images"] == floors["profiler"] == vs.FLOOR  # <img> and SVG: no library
    rows = {vs.FLOOR, *vs.LIBRARY_FLOOR_ROWS.values()}
    assert set(floors.values()) <= rows
    graph = [page for page in vs.PAGES if page.name == "computational graph"]
    assert vs.floor_paths(graph) == {
        vs.BROWSER_FLOOR: "/browser-floor",
        vs.FLOOR: "/",
        "floor: Dash + Cytoscape": "/cytoscape/",
    }
    assert set(vs.floor_paths(list(vs.PAGES))) == {vs.BROWSER_FLOOR, *rows}
    # a row of every floor, each page's against its own
    runs = {row: [_run(0.5, 1.0)] for row in vs.floor_paths(list(vs.PAGES))}
    runs["floor: Dash + Cytoscape"] = [_run(0.6, 1.5)]
    results = {"computational graph": {"mi": [_run(1.0, 2.0)], "ours": [_run(0.7, 1.6)]}}
    vs.print_table(graph, results, runs)
    table = capsys.readouterr().out
    assert "floor: Dash + Cytoscape" in table
    assert table.rstrip().endswith("MISSED (CPU target below its floor, Dash + Cytoscape)")


def test_the_floor_page_is_bare(vs: ModuleType) -> None:
    """Dash's floor page loads the Dash scripts every dash-insight page loads (not its
    component packages, not the polyfill or dash_table, dcc's eager chunks) and has no
    callbacks; the static page beside it is one span."""
    port, stop = vs.serve_floor()
    try:
        root = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(root + "/", timeout=10) as answer:
            page = answer.read().decode()
        scripts = re.findall(r'<script src="([^"]+)"', page)
        assert any("dash_renderer" in src for src in scripts)
        assert any("dash_core_components" in src for src in scripts)
        # none of dcc's chunks: a page that draws a graph, a dcc slider or dropdown adds them
        assert not [src for src in scripts if "async-" in src]
        unwanted = ("cytoscape", "ag_grid", "polyfill", "dash_table")
        assert not [src for src in scripts if any(name in src for name in unwanted)]
        with urllib.request.urlopen(root + "/_dash-dependencies", timeout=10) as answer:
            assert json.loads(answer.read()) == []
        with urllib.request.urlopen(root + "/browser-floor", timeout=10) as answer:
            static = answer.read().decode()
        assert "<span>floor</span>" in static and "<script" not in static
        # the library floors: the bare page's scripts, their library's, and its chart
        library = {
            "/plotly/": ("assets/plotly-cartesian.min.js", "Graph"),
            "/gl3d/": ("assets/plotly-gl3d.min.js", "Graph"),
            "/cytoscape/": ("dash_cytoscape/", "Cytoscape"),
        }
        assert set(library) == set(vs.LIBRARY_FLOOR_ROWS)
        for path, (script, chart) in library.items():
            with urllib.request.urlopen(root + path, timeout=10) as answer:
                page = answer.read().decode()
            sources = re.findall(r'<script src="([^"]+)"', page)
            assert [src for src in sources if script in src], path
            assert len([src for src in sources if "/assets/plotly-" in src]) <= 1, path
            others = ("ag_grid", "polyfill", "dash_table", "dash_cytoscape/")
            assert not [
                src for src in sources if script not in src and any(n in src for n in others)
            ], path
            with urllib.request.urlopen(f"{root}{path}_dash-layout", timeout=10) as answer:
                assert json.loads(answer.read())["props"]["children"]["type"] == chart
    finally:
        stop()
