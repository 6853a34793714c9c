"""Each page loads only the script bundles it draws with (dash_insight/web/page_bundles.py,
assets/page-bundles.js; issue 37 item 2): unit tests of the selection, and in the browser a
page of line charts without Cytoscape, AG Grid's absence where no grid is drawn, plotly.js's
cartesian build, and a move to a page that needs more opened as a new document."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dash_insight.web import page_bundles
from dash_insight.web.page_bundles import ALL, GRID, WEBGL, PageBundles
from tests.browser import until
from tests.conftest import console_errors, loaded_app

SCRIPTS = "\n".join(
    f'<script src="{src}"></script>'
    for src in (
        "/_dash-component-suites/dash/deps/react@18.v4_4_1m1.3.1.min.js",
        "/_dash-component-suites/dash_cytoscape/dash_cytoscape.v1_0_2m1.min.js",
        "/_dash-component-suites/dash_ag_grid/dash_ag_grid.v35_3_0m1.min.js",
        "/assets/pickers.js?m=1",
        "/assets/plotly-cartesian.min.js?m=1",
        "/assets/plotly-dash-insight.min.js?m=1",
        "/assets/plotly-setup.js?m=1",
    )
)


def _sources(scripts: str) -> list[str]:
    return [line.split('"')[1].rsplit("/", 1)[-1].split("?")[0] for line in scripts.split("\n")]


def test_a_page_gets_the_bundles_it_names_and_one_plotly() -> None:
    assert _sources(page_bundles.select(SCRIPTS, frozenset())) == [
        "react@18.v4_4_1m1.3.1.min.js",
        "pickers.js",
        "plotly-cartesian.min.js",
        "plotly-setup.js",
    ]
    assert _sources(page_bundles.select(SCRIPTS, frozenset({GRID, WEBGL}))) == [
        "react@18.v4_4_1m1.3.1.min.js",
        "dash_ag_grid.v35_3_0m1.min.js",
        "pickers.js",
        "plotly-dash-insight.min.js",
        "plotly-setup.js",
    ]
    every = _sources(page_bundles.select(SCRIPTS, ALL))
    assert "dash_cytoscape.v1_0_2m1.min.js" in every and "plotly-cartesian.min.js" not in every


def test_an_unknown_or_undeclared_page_gets_every_bundle() -> None:
    bundles = PageBundles(
        {"/scalars": frozenset({GRID}), "/graph": None},
        lambda pathname: "/" + pathname.strip("/").removeprefix("app/"),
        lambda path: "/app" + path,
    )
    assert bundles.of("/app/scalars") == {GRID}
    assert bundles.of("/app/graph") == bundles.of("/app/nowhere") == ALL
    spec = json.loads(bundles.html_attribute({GRID}))
    assert spec == {"all": sorted(ALL), "loaded": [GRID], "pages": {"/app/scalars": [GRID]}}


def _script_names(dash_duo: Any) -> list[str]:
    return dash_duo.driver.execute_script(
        "return Array.from(document.scripts).map(s => s.src.split('?')[0].split('/').pop())"
        ".filter(Boolean);"
    )


def _move(dash_duo: Any, path: str) -> None:
    """What a dcc.Link click does."""
    dash_duo.driver.execute_script(
        "window.history.pushState({}, '', arguments[0]);"
        "window.dispatchEvent(new CustomEvent('_dashprivate_pushstate'));",
        path,
    )


@pytest.mark.browser
def test_a_chart_page_loads_neither_cytoscape_nor_webgl_and_a_graph_page_gets_them(
    dash_duo: Any, corpus_app: Any
) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./lenet_sc")
    until(
        lambda: dash_duo.driver.execute_script(
            "return document.querySelectorAll('#scalar-grid .js-plotly-plot .main-svg').length"
        ),
        30,
    )
    names = _script_names(dash_duo)
    assert "plotly-cartesian.min.js" in names and "plotly-dash-insight.min.js" not in names
    assert not any(name.startswith("dash_cytoscape") for name in names)
    assert any(name.startswith("dash_ag_grid") for name in names)
    assert dash_duo.driver.execute_script("return window.dash_cytoscape === undefined")
    # A page of the same bundles: the same document.
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    dash_duo.find_element("#nav-lineage").click()
    dash_duo.wait_for_element("#lineage-overview", timeout=30)
    assert dash_duo.driver.execute_script("return window.__sameDocument === true")
    # The graph needs Cytoscape: a new document, which has it, draws the graph.
    _move(dash_duo, "/graph?train_id=./lenet_sc")
    until(
        lambda: dash_duo.driver.execute_script(
            "return window.__sameDocument === undefined && window.dash_cytoscape !== undefined"
        ),
        30,
    )
    dash_duo.wait_for_element("#graph-cy canvas", timeout=30)
    assert any(name.startswith("dash_cytoscape") for name in _script_names(dash_duo))
    assert console_errors(dash_duo) == []


@pytest.fixture
def profiler_app(profiler_corpus: Path, tmp_path: Path) -> Iterator[Any]:
    with loaded_app(profiler_corpus, tmp_path / "ws") as app:
        yield app


@pytest.mark.browser
def test_the_profiler_dashboard_loads_no_grid_and_the_timeline_gets_webgl(
    dash_duo: Any, profiler_app: Any
) -> None:
    dash_duo.start_server(profiler_app)
    job = "./lenet_summary_prof"
    dash_duo.wait_for_page(dash_duo.server_url + f"/profiler?train_id={job}")
    dash_duo.wait_for_element("#prof-timeline-preview .main-svg", timeout=30)
    names = _script_names(dash_duo)
    assert "plotly-cartesian.min.js" in names
    assert not any(name.startswith(("dash_ag_grid", "dash_cytoscape")) for name in names)
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    dash_duo.find_element("#prof-card-timeline-link").click()
    until(lambda: dash_duo.driver.execute_script("return window.__sameDocument === undefined"), 30)
    until(lambda: "plotly-dash-insight.min.js" in _script_names(dash_duo), 30)
    assert dash_duo.driver.execute_script("return window.Plotly !== undefined")
    assert console_errors(dash_duo) == []
