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
from dash_insight.web.page_bundles import (
    ALL,
    DROPDOWN,
    GL3D,
    GRID,
    PLOTLY,
    SLIDER,
    WEBGL,
    PageBundles,
)
from tests.browser import until, wait_idle
from tests.conftest import console_errors, loaded_app

SCRIPTS = "\n".join(
    f'<script src="{src}"></script>'
    for src in (
        "/_dash-component-suites/dash/deps/polyfill@7.v4_4_1m1.12.1.min.js",
        "/_dash-component-suites/dash/deps/react@18.v4_4_1m1.3.1.min.js",
        "/_dash-component-suites/dash_cytoscape/dash_cytoscape.v1_0_2m1.min.js",
        "/_dash-component-suites/dash_ag_grid/dash_ag_grid.v35_3_0m1.min.js",
        "/_dash-component-suites/dash_ag_grid/async-community.v35_3_0m1.js",
        "/_dash-component-suites/dash_ag_grid/async-enterprise.v35_3_0m1.js",
        "/assets/pickers.js?m=1",
        "/assets/plotly-cartesian.min.js?m=1",
        "/assets/plotly-dash-insight.min.js?m=1",
        "/assets/plotly-gl3d.min.js?m=1",
        "/assets/plotly-setup.js?m=1",
        "/_dash-component-suites/dash/dcc/async-datepicker.v4_4_1m1.js",
        "/_dash-component-suites/dash/dcc/async-dropdown.v4_4_1m1.js",
        "/_dash-component-suites/dash/dcc/async-graph.v4_4_1m1.js",
        "/_dash-component-suites/dash/dcc/async-mathjax.v4_4_1m1.js",
        "/_dash-component-suites/dash/dcc/async-slider.v4_4_1m1.js",
        "/_dash-component-suites/dash/dcc/dash_core_components.v4_4_1m1.js",
        "/_dash-component-suites/dash/dash_table/bundle.v7_4_1m1.js",
        "/_dash-component-suites/plotly/package_data/plotly.v7_1_0m1.min.js",
    )
)
#: What every page loads, whatever its bundles.
EVERY_PAGE = [
    "react@18.v4_4_1m1.3.1.min.js",
    "pickers.js",
    "plotly-setup.js",
    "dash_core_components.v4_4_1m1.js",
]


def _sources(scripts: str) -> list[str]:
    return [line.split('"')[1].rsplit("/", 1)[-1].split("?")[0] for line in scripts.split("\n")]


def test_a_page_gets_the_bundles_it_names_and_at_most_one_plotly() -> None:
    assert _sources(page_bundles.select(SCRIPTS, frozenset())) == EVERY_PAGE
    assert _sources(page_bundles.select(SCRIPTS, frozenset({PLOTLY}))) == [
        *EVERY_PAGE[:2],
        "plotly-cartesian.min.js",
        EVERY_PAGE[2],
        "async-graph.v4_4_1m1.js",
        EVERY_PAGE[3],
    ]
    assert _sources(page_bundles.select(SCRIPTS, frozenset({GRID, WEBGL}))) == [
        EVERY_PAGE[0],
        "dash_ag_grid.v35_3_0m1.min.js",
        "async-community.v35_3_0m1.js",
        EVERY_PAGE[1],
        "plotly-dash-insight.min.js",
        EVERY_PAGE[2],
        "async-graph.v4_4_1m1.js",
        EVERY_PAGE[3],
    ]
    assert _sources(page_bundles.select(SCRIPTS, frozenset({GL3D}))) == [
        *EVERY_PAGE[:2],
        "plotly-gl3d.min.js",
        EVERY_PAGE[2],
        "async-graph.v4_4_1m1.js",
        EVERY_PAGE[3],
    ]
    # dcc's slider and dropdown chunks only for a page that names them (its other sliders and
    # menus are the browser's range inputs and selects)
    assert _sources(page_bundles.select(SCRIPTS, frozenset({SLIDER, DROPDOWN}))) == [
        *EVERY_PAGE[:3],
        "async-dropdown.v4_4_1m1.js",
        "async-slider.v4_4_1m1.js",
        EVERY_PAGE[3],
    ]
    every = _sources(page_bundles.select(SCRIPTS, ALL))
    assert "dash_cytoscape.v1_0_2m1.min.js" in every and "plotly-dash-insight.min.js" in every
    assert "plotly-cartesian.min.js" not in every and "plotly-gl3d.min.js" not in every
    assert {"async-slider.v4_4_1m1.js", "async-dropdown.v4_4_1m1.js"} <= set(every)


def test_no_page_loads_the_polyfill_dash_table_plotlys_default_or_unused_chunks() -> None:
    every = _sources(page_bundles.select(SCRIPTS, ALL))
    for left_out in (
        "polyfill@7.v4_4_1m1.12.1.min.js",
        "bundle.v7_4_1m1.js",
        "plotly.v7_1_0m1.min.js",
        "async-enterprise.v35_3_0m1.js",
        "async-datepicker.v4_4_1m1.js",
        "async-mathjax.v4_4_1m1.js",
    ):
        assert left_out not in every


def test_an_unknown_or_undeclared_page_gets_every_bundle() -> None:
    bundles = PageBundles(
        {"/scalars": frozenset({GRID}), "/graph": None, "/landscape": frozenset({WEBGL})},
        lambda pathname: "/" + pathname.strip("/").removeprefix("app/"),
        lambda path: "/app" + path,
    )
    assert bundles.of("/app/scalars") == {GRID}
    assert bundles.of("/app/graph") == bundles.of("/app/nowhere") == ALL
    spec = json.loads(bundles.html_attribute({GRID}))
    assert spec == {
        "all": sorted(ALL),
        "loaded": [GRID],
        "pages": {"/app/scalars": [GRID], "/app/landscape": [WEBGL]},
    }
    # plotly.js with the WebGL traces draws what the cartesian and the gl3d builds do
    assert json.loads(bundles.html_attribute({WEBGL}))["loaded"] == [GL3D, PLOTLY, WEBGL]
    assert json.loads(bundles.html_attribute({GL3D}))["loaded"] == [GL3D]
    # the cartesian build's URL, for a chart drawn later in a document without it
    assert json.loads(bundles.html_attribute({GRID}, "/c.js?m=1"))["plotly"] == "/c.js?m=1"
    # the pages the document can draw, as pathnames
    drawable = bundles.html_attribute({GRID}, None, ["/scalars", "/graph", "/"])
    assert json.loads(drawable)["drawable"] == ["/app", "/app/graph", "/app/scalars"]


def test_a_page_gets_more_bundles_for_the_query_that_asks_for_them() -> None:
    def histograms(query: Any) -> frozenset[str]:
        return frozenset({PLOTLY}) if query.get("view") == "histogram" else frozenset()

    bundles = PageBundles(
        {"/tensors": frozenset({GRID}), "/images": frozenset({GRID})},
        lambda pathname: pathname,
        lambda path: path,
        {"/tensors": histograms},
    )
    assert bundles.of("/tensors") == bundles.of("/tensors", {"view": "table"}) == {GRID}
    assert bundles.of("/tensors", {"view": "histogram"}) == {GRID, PLOTLY}
    assert bundles.of("/images", {"view": "histogram"}) == {GRID}
    # the page's data-page-bundles names what its every URL needs
    assert json.loads(bundles.html_attribute({GRID}))["pages"]["/tensors"] == [GRID]


def test_a_bundle_loaded_later_is_named_by_its_scripts() -> None:
    """AG Grid's scripts, for a document that draws its first grid later (the tensors page):
    its library and the chunk a page of it loads, not the enterprise chunk no page loads."""
    assert page_bundles.bundle_sources(SCRIPTS, GRID) == [
        "/_dash-component-suites/dash_ag_grid/dash_ag_grid.v35_3_0m1.min.js",
        "/_dash-component-suites/dash_ag_grid/async-community.v35_3_0m1.js",
    ]
    bundles = PageBundles({"/tensors": frozenset()}, lambda p: p, lambda p: p)
    later = {GRID: ["/grid.js"]}
    assert json.loads(bundles.html_attribute(set(), None, None, later))["later"] == later
    assert json.loads(bundles.html_attribute({GRID}, None, None, later))["later"] == {}


def test_the_cartesian_builds_url_is_read_from_the_scripts() -> None:
    assert page_bundles.script_source(SCRIPTS, page_bundles.CARTESIAN_SCRIPT) == (
        "/assets/plotly-cartesian.min.js?m=1"
    )
    assert page_bundles.script_source(SCRIPTS, "/nowhere.js") is None


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
def test_a_chart_page_loads_no_cytoscape_webgl_or_grid_and_other_pages_get_them(
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
    # Nor AG Grid: its tag picker is a checklist.
    assert not any(name.startswith("dash_ag_grid") for name in names)
    assert dash_duo.driver.execute_script("return window.dash_cytoscape === undefined")
    # Another job on the same page: the same document.
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    _move(dash_duo, "/scalars?train_id=./multi_file")
    until(lambda: "multi_file" in dash_duo.find_element("#page").text, 30)
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return window.__sameDocument === true")
    # Another page, though of the same bundles: a new document, with that page's callbacks
    # only (dash_insight/web/page_callbacks.py).
    _move(dash_duo, "/histograms?train_id=./lenet_sc")
    until(lambda: dash_duo.driver.execute_script("return window.__sameDocument === undefined"), 30)
    dash_duo.wait_for_element("#hist-cards .js-plotly-plot", timeout=30)
    # The lineage page's table needs AG Grid: a new document, which has it.
    dash_duo.find_element("#nav-lineage").click()
    until(
        lambda: dash_duo.driver.execute_script(
            "return window.__sameDocument === undefined && window.dash_ag_grid !== undefined"
        ),
        30,
    )
    dash_duo.wait_for_element("#lineage-grid .ag-row", timeout=30)
    dash_duo.driver.execute_script("window.__sameDocument = true;")
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
def test_the_profiler_dashboard_loads_no_grid_nor_plotly_and_the_timeline_gets_webgl(
    dash_duo: Any, profiler_app: Any
) -> None:
    dash_duo.start_server(profiler_app)
    job = "./lenet_summary_prof"
    dash_duo.wait_for_page(dash_duo.server_url + f"/profiler?train_id={job}")
    dash_duo.wait_for_element("#prof-timeline-preview svg.di-svg", timeout=30)
    names = _script_names(dash_duo)
    assert not any(name.startswith("plotly") for name in names), names  # SVG charts
    assert not any(name.startswith(("dash_ag_grid", "dash_cytoscape")) for name in names)
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    dash_duo.find_element("#prof-card-timeline-link").click()
    until(lambda: dash_duo.driver.execute_script("return window.__sameDocument === undefined"), 30)
    until(lambda: "plotly-dash-insight.min.js" in _script_names(dash_duo), 30)
    assert dash_duo.driver.execute_script("return window.Plotly !== undefined")
    assert console_errors(dash_duo) == []


#: Every resource the page asked for so far (the document's own requests: scripts, preloads,
#: the renderer's fetches), by URL path.
RESOURCES = "return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname);"


@pytest.mark.browser
def test_a_page_without_plotly_charts_loads_no_plotly_js(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/images?train_id=./lenet_sc")
    until(
        lambda: dash_duo.driver.execute_script(
            "return Array.from(document.querySelectorAll('#img-cards img'))"
            ".some(img => img.complete && img.naturalWidth > 0);"
        ),
        30,
    )
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return window.Plotly === undefined")
    requested = dash_duo.driver.execute_script(RESOURCES)
    assert not [path for path in requested if "plotly" in path and "setup" not in path]
    assert not [path for path in requested if "/async-graph" in path]
    # The scalars page draws with plotly.js: a new document, which has it.
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    _move(dash_duo, "/scalars?train_id=./lenet_sc")
    until(
        lambda: dash_duo.driver.execute_script(
            "return window.__sameDocument === undefined && window.Plotly !== undefined"
        ),
        30,
    )
    dash_duo.wait_for_element("#scalar-grid .js-plotly-plot .main-svg", timeout=30)
    assert "plotly-cartesian.min.js" in _script_names(dash_duo)
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_the_tensor_tables_load_no_plotly_js_and_the_histograms_load_the_cartesian_build(
    dash_duo: Any, corpus_app: Any
) -> None:
    """The tensors page's table view (its default) draws no Plotly chart: its answer links no
    plotly.js. Its histogram view, chosen in the same document, is drawn with the cartesian
    build the pages link (dcc's graph loads it then, not the plotly package's full build), its
    resize set up as on a page that linked it; a URL of the histogram view links it."""
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/tensors?train_id=./ops_all")
    dash_duo.wait_for_element(".di-vt-slot .di-vt-table", timeout=30)
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return window.Plotly === undefined")
    assert not [
        name for name in _script_names(dash_duo) if "plotly" in name and "setup" not in name
    ]
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    dash_duo.driver.execute_script(
        "Array.from(document.querySelectorAll('#tensor-view-mode label'))"
        ".find(label => label.querySelector('input[value=histogram]')).click();"
    )
    dash_duo.wait_for_element(".di-vp-card .js-plotly-plot .main-svg", timeout=30)
    assert dash_duo.driver.execute_script("return window.__sameDocument === true")
    plotly = [name for name in _script_names(dash_duo) if "plotly" in name]
    assert plotly == ["plotly-cartesian.min.js"], plotly
    assert dash_duo.driver.execute_script(
        "return window.Plotly.Plots.resize.toString().includes('already has its box')"
    )
    assert console_errors(dash_duo) == []
    dash_duo.wait_for_page(dash_duo.server_url + "/tensors?train_id=./ops_all&view=histogram")
    dash_duo.wait_for_element(".di-vp-card .js-plotly-plot .main-svg", timeout=30)
    assert "plotly-cartesian.min.js" in _script_names(dash_duo)


@pytest.mark.browser
def test_the_tensor_tables_load_ag_grid_with_their_first_grid(
    dash_duo: Any, corpus_app: Any
) -> None:
    """The tensors page's small slices are plain tables: its answer links no AG Grid. A slice
    too large for one is a grid, whose library the same document loads then."""
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/tensors?train_id=./ops_all")
    dash_duo.wait_for_element(".di-vt-slot .di-vt-plain", timeout=30)
    wait_idle(dash_duo)
    assert not [name for name in _script_names(dash_duo) if name.startswith("dash_ag_grid")]
    assert dash_duo.driver.execute_script("return window.dash_ag_grid === undefined")
    dash_duo.driver.execute_script("window.__sameDocument = true;")
    _move(dash_duo, "/tensors?train_id=./ops_all&tags=tensor/big_1m_f32")
    dash_duo.wait_for_element(".di-vt-slot .ag-root-wrapper .ag-cell", timeout=30)
    assert dash_duo.driver.execute_script("return window.__sameDocument === true")
    grid = [name for name in _script_names(dash_duo) if name.startswith(("dash_ag", "async-co"))]
    assert [name.split(".")[0] for name in grid] == ["dash_ag_grid", "async-community"], grid
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_the_renderers_requests_are_preloaded_and_its_chunks_come_with_the_page(
    dash_duo: Any, profiler_app: Any
) -> None:
    """The layout and the dependencies are asked for once, by the page's preloads (Dash's
    renderer takes their answers), and the dcc chunks the page draws (graph, dropdown) are
    scripts of the page, not requests after React mounted them; Dash's Babel polyfill is not
    loaded and its regeneratorRuntime still defined."""
    dash_duo.start_server(profiler_app)
    page = "/profiler/operator?train_id=./lenet_summary_prof"  # a grid and a Plotly chart
    dash_duo.wait_for_page(dash_duo.server_url + page)
    dash_duo.wait_for_element("#prof-op-chart .main-svg", timeout=30)
    wait_idle(dash_duo)
    requested = dash_duo.driver.execute_script(RESOURCES)
    assert requested.count("/_dash-layout") == 1, requested
    assert requested.count("/_dash-dependencies") == 1, requested
    chunks = [path for path in requested if "/dcc/async-" in path]
    assert chunks and all(".v" in path.rsplit("/", 1)[-1] for path in chunks), chunks
    assert not [path for path in requested if "polyfill" in path or "dash_table" in path]
    assert dash_duo.driver.execute_script("return typeof window.regeneratorRuntime.wrap")
    assert console_errors(dash_duo) == []
