"""Issue #42 (build, item 2): the pages' Content-Security-Policy lets no string become code.

``script-src`` holds ``'self'`` and the sha256 of each inline script the pages hold, never
``'unsafe-inline'`` or ``'unsafe-eval'``: plotly.js is its strict build (no ``new Function``,
``scripts/build_plotly_bundle.sh``), every clientside callback is a function in ``assets/``
(``ClientsideFunction``), the first paint's scripts live in ``assets/inline/`` and are allowed
by their hashes, as is Dash's renderer start (``app.csp_hashes()``). Every page is opened in
headless Chromium under that header, with a ``securitypolicyviolation`` listener installed
before any script of the page: none may be reported, and each page must draw.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from dash.testing import errors

from dash_insight.core.settings import DEMO_DIR, Settings
from dash_insight.default import create_app, page_paths
from dash_insight.notebook import NOTEBOOK_FRAME_ANCESTORS
from dash_insight.web.application import security_headers
from dash_insight.web.components import compare_tabs
from dash_insight.web.first_paint import csp_hash
from tests.browser import until, wait_idle
from tests.conftest import CORPUS, PROFILER_CORPUS

ROOT = Path(__file__).resolve().parents[2]
LANDSCAPE_CORPUS = CORPUS.parent / "corpus-landscape"
#: The jobs of the browser test's base directory (a comparison needs two runs).
JOBS = {
    CORPUS: ("lenet_sc", "lenet_lr0.01_bs32", "ops_in_net"),
    LANDSCAPE_CORPUS: ("lenet_step",),
    PROFILER_CORPUS: ("lenet_prof",),
}

#: Every page, with what shows it has drawn: a chart, a graph, an image or a grid's rows.
PAGES = [
    ("/", "#job-table tbody tr td a"),
    ("/dashboard?train_id=./lenet_sc", "#card-scalar .js-plotly-plot"),
    ("/scalars?train_id=./lenet_sc", "#scalar-grid .js-plotly-plot"),
    ("/histograms?train_id=./lenet_sc", "#hist-cards .js-plotly-plot"),
    ("/images?train_id=./lenet_sc", "#img-cards img"),
    ("/tensors?train_id=./ops_in_net", "#tensor-cards .di-vt-stats span"),
    ("/graph?train_id=./lenet_sc", "#graph-cy"),
    ("/data-graph?train_id=./lenet_sc", "#data-graph-cy"),
    ("/lineage", "#lineage-chart .di-pc-axis"),
    ("/lineage?tab=dataset", "#lineage-grid .ag-row"),
    ("/compare", "#compare-grid .js-plotly-plot"),
    ("/compare/histograms", "#hcmp-graph .js-plotly-plot"),
    ("/compare/images", "#icmp-columns img"),
    ("/compare/landscape", "#lc-tiles .js-plotly-plot"),
    ("/loss-landscape?train_id=./lenet_step", "#ls-graph .js-plotly-plot"),
    ("/profiler?train_id=./lenet_prof", "#prof-card-ranking svg.di-svg"),
    ("/profiler/operator?train_id=./lenet_prof", "#prof-op-chart .js-plotly-plot"),
    ("/profiler/timeline?train_id=./lenet_prof", "#prof-timeline .js-plotly-plot"),
]

#: Installed before any script of each page (``Page.addScriptToEvaluateOnNewDocument``): every
#: violation of the page's policy, in ``window.__cspViolations``.
PROBE = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(
  [e.effectiveDirective, e.blockedURI, e.sourceFile + ':' + e.lineNumber, e.sample].join(' ')));
"""

#: How many elements matching ``arguments[0]`` are drawn: a Plotly chart laid out, an image
#: loaded, a cytoscape graph with nodes; any other element by being there.
DRAWN = """
return Array.from(document.querySelectorAll(arguments[0])).filter(el => {
  if (el.classList.contains('js-plotly-plot')) return Boolean(el._fullLayout);
  if (el.tagName === 'IMG') return el.complete && el.naturalWidth > 0;
  if (el._cyreg) return Boolean(el._cyreg.cy && el._cyreg.cy.nodes().length);
  return true;
}).length;
"""

#: An inline script without a hash, added to the page: the policy must refuse it.
UNHASHED = """
const script = document.createElement('script');
script.textContent = 'window.__unhashedRan = true;';
document.body.appendChild(script);
"""


def directives(policy: str) -> dict[str, list[str]]:
    """A Content-Security-Policy as its directives and their sources."""
    parts = (part.split() for part in policy.split(";") if part.strip())
    return {name: sources for name, *sources in parts}


def inline_scripts(page: str) -> list[str]:
    """The text of every inline script of an HTML page that the browser runs (Dash's JSON
    config is data, its Internet Explorer alert a comment), those held in a ``<template>``
    included."""
    page = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    found = re.findall(r"<script((?:(?!src=)[^>])*)>(.*?)</script>", page, flags=re.S)
    return [text for attributes, text in found if "application/json" not in attributes]


@pytest.mark.parametrize("ancestors", [("'self'",), NOTEBOOK_FRAME_ANCESTORS])
def test_script_src_allows_neither_inline_scripts_nor_eval(ancestors: tuple[str, ...]) -> None:
    hashes = [csp_hash("a()"), csp_hash("b()")]
    policy = directives(security_headers(ancestors, hashes)["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'", *hashes]
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
    assert policy["default-src"] == ["'self'"] and policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == list(ancestors)  # the notebook still frames the pages
    # Inline styles only (plotly.js, cytoscape.js and AG Grid add <style> elements).
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    app = create_app(
        Settings(
            summary_base_dir=DEMO_DIR,
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


@pytest.mark.parametrize(
    "path", ["/", "/scalars?train_id=./lenet_sc", "/histograms?train_id=./lenet_sc"]
)
def test_every_inline_script_served_is_allowed_by_its_hash(demo_app: Any, path: str) -> None:
    answer = demo_app.server.test_client().get(path)
    page = answer.get_data(as_text=True)
    allowed = directives(answer.headers["Content-Security-Policy"])["script-src"]
    assert not [source for source in allowed if "unsafe" in source]
    scripts = inline_scripts(page)
    assert scripts  # Dash's renderer start at least
    if path != "/":  # the first paint: its loader, its styles and the held renderer start
        assert 'id="di-first-paint"' in page and len(scripts) >= 3
    assert [text[:60] for text in scripts if csp_hash(text) not in allowed] == []


def test_dash_inlines_only_its_renderer_start(demo_app: Any) -> None:
    """No clientside callback is JavaScript in a Python string (Dash would inline it): each is
    a ``ClientsideFunction`` of ``assets/``."""
    assert demo_app.csp_hashes() == [csp_hash(demo_app.renderer)]


def test_grid_functions_are_calls_not_function_literals() -> None:
    """dash-ag-grid evaluates ``{"function": "..."}`` without ``eval`` except a function
    literal in it, which it builds with ``Function``: the strings call functions of
    ``assets/dashAgGridFunctions-*.js`` instead."""
    pattern = re.compile(r"""["']function["']\s*:\s*f?(["'])(.*?)\1""")
    strings = [
        match.group(2)
        for source in (ROOT / "dash_insight").rglob("*.py")
        for match in pattern.finditer(source.read_text(encoding="utf-8"))
    ]
    assert len(strings) >= 5  # the scan finds them
    assert [s for s in strings if re.search(r"\bfunction\b|=>", s)] == []


def test_the_compare_tabs_script_carries_the_shared_parameters() -> None:
    script = (ROOT / "assets" / "compare-tabs.js").read_text(encoding="utf-8")
    shared = re.search(r"const SHARED = (\[.*?\]);", script)
    assert shared and json.loads(shared.group(1)) == list(compare_tabs.SHARED)


def test_the_browser_check_opens_every_page() -> None:
    assert set(page_paths()) <= {path.split("?")[0] for path, _ in PAGES}


@pytest.fixture(scope="module")
def all_pages_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One app over corpus jobs, a loss-landscape job and a profiled job."""
    base = tmp_path_factory.mktemp("csp") / "base"
    for corpus, jobs in JOBS.items():
        if not corpus.is_dir():
            pytest.skip(f"corpus not found at {corpus}")
        for job in jobs:
            shutil.copytree(corpus / job, base / job)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def _violations(dash_duo: Any) -> list[str]:
    """The page's violations so far: the listener's and the console's."""
    found = dash_duo.driver.execute_script("return window.__cspViolations || ['no probe'];")
    console = [
        entry["message"]
        for entry in dash_duo.driver.get_log("browser")
        if "Content Security Policy" in entry["message"]
    ]
    return list(found) + console


def _open_drawn(dash_duo: Any, path: str, drawn: str) -> list[str]:
    """Open ``path``, wait until it has drawn (``drawn``, see :data:`DRAWN`) and its callbacks
    are done; the violations it reported."""
    dash_duo.wait_for_page(dash_duo.server_url + path)
    try:
        until(lambda: dash_duo.driver.execute_script(DRAWN, drawn) > 0, 60)
    except errors.TestingTimeoutError as error:
        raise errors.TestingTimeoutError(
            f"{path} never drew {drawn}: {_violations(dash_duo)}"
        ) from error
    wait_idle(dash_duo)
    return _violations(dash_duo)


def test_every_page_draws_under_the_strict_policy_with_no_violation(
    dash_duo: Any, all_pages_app: Any
) -> None:
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    dash_duo.start_server(all_pages_app)
    found = {path: _open_drawn(dash_duo, path, drawn) for path, drawn in PAGES}
    assert {path: v for path, v in found.items() if v} == {}

    # The check sees what the policy refuses: an inline script without a hash.
    dash_duo.driver.execute_script(UNHASHED)
    until(lambda: _violations(dash_duo), 30)
    assert dash_duo.driver.execute_script("return window.__unhashedRan === undefined;")
