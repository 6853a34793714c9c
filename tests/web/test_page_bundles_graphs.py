"""Every page that draws Plotly charts links a plotly.js build (``Page.bundles``,
dash_insight/web/page_bundles.py) that has its trace types: without one dcc's graph loads the
plotly package's whole plotly.js (1.44 MB) by itself, and nothing on the page looks wrong (the
lineage page did so for a session). Each build's header lists its trace types; a page's WebGL
types are known here when a figure of its layout holds one or its callbacks' own modules name
one. Figures a callback builds with a helper of another module
are not (the loss landscape's surface, the timeline's scattergl): the helpers name those types
for other pages too (the dashboard's timeline card draws SVG with the timeline's helper), and
only running the callbacks would tell.

No browser: each registered page's layout is built for the corpus's jobs and walked for
``dcc.Graph`` and lazy graphs (web/components/lazy_graph.py) and their figures' trace types;
its callbacks are registered on an app of their own, and the modules of its server callbacks
(with the modules of its plugin they import) and the ``assets/`` scripts of its clientside ones
are read for what builds or draws a graph and for the WebGL trace types.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dash
import pytest
from dash import dcc
from dash.development.base_component import Component

from dash_insight.default import DEFAULT_PLUGINS
from dash_insight.web import binding
from dash_insight.web.application import Features
from dash_insight.web.components.lazy_graph import FIGURE
from dash_insight.web.page_bundles import GL3D, PLOTLY, SCRIPTS, WEBGL
from dash_insight.web.plugin import Page
from tests.conftest import CORPUS, PROFILER_CORPUS, loaded_app
from tests.web.test_plotly_bundle import CARTESIAN, bundle_header

ASSETS = Path(__file__).resolve().parents[2] / "assets"
LANDSCAPE_CORPUS = CORPUS.parent / "corpus-landscape"
#: The jobs each layout is built for (None: no ``train_id``): scalars, histograms and lineage
#: (``lenet_sc``), images and tensors (``ops_all``), a loss landscape, a profiler run.
JOBS = (None, "./lenet_sc", "./ops_all", "./lenet_step", "./lenet_summary_prof")
#: Python that builds a graph: a ``dcc.Graph`` or a lazy graph (or its figure's store).
PYTHON_GRAPH = re.compile(r"\bdcc\.Graph\(|\blazy_graph\(|\blazy_figure\(")
#: A script that builds a dcc graph or draws with plotly.js itself.
SCRIPT_GRAPH = re.compile(r"""type:\s*["']Graph["']|\bPlotly\.[a-zA-Z]+\(""")


def webgl_traces() -> frozenset[str]:
    """The trace types only the WebGL build has (scattergl, scatter3d, surface)."""
    every = set(bundle_header()["traces"].split())
    return frozenset(every - set(bundle_header(CARTESIAN)["traces"].split()))


def named_webgl_traces(source: str) -> set[str]:
    """The WebGL trace types Python ``source`` names: ``go.Surface(`` or ``"surface"``."""
    names = "|".join(sorted(webgl_traces()))
    pattern = rf"""\bgo\.({names})\(|["']({names})["']"""
    found = re.finditer(pattern, source, flags=re.IGNORECASE)
    return {(match[1] or match[2]).lower() for match in found}


def components(node: Any) -> Iterator[Component]:
    """Every component of a layout: ``node``'s and those in any of its properties."""
    if isinstance(node, list | tuple):
        for item in node:
            yield from components(item)
    elif isinstance(node, Component):
        yield node
        for name in node._prop_names:
            value = getattr(node, name, None)
            if isinstance(value, Component | list | tuple):
                yield from components(value)


def _trace_types(figure: Any) -> set[str]:
    if isinstance(figure, str):
        figure = json.loads(figure)
    elif hasattr(figure, "to_plotly_json"):
        figure = figure.to_plotly_json()
    traces = (figure or {}).get("data") or []
    return {trace.get("type", "scatter") for trace in traces}


def _is_lazy_figure(component_id: Any) -> bool:
    return isinstance(component_id, dict) and component_id.get("type") == FIGURE


def layout_graphs(tree: Any) -> list[set[str]]:
    """The trace types of each graph of a layout: its ``dcc.Graph`` components and the figure
    stores of its lazy graphs."""
    graphs = []
    for component in components(tree):
        if isinstance(component, dcc.Graph):
            graphs.append(_trace_types(getattr(component, "figure", None)))
        elif isinstance(component, dcc.Store) and _is_lazy_figure(component.id):
            graphs.append(_trace_types((getattr(component, "data", None) or {}).get("figure")))
    return graphs


def callback_functions(function: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """The module-level functions a registered callback runs: through ``functools.partial``
    (the service) and :func:`dash_insight.web.binding.triggered`."""
    function = inspect.unwrap(function)
    if isinstance(function, functools.partial):
        yield from callback_functions(function.func)
    elif function.__module__ == binding.__name__:
        for cell in function.__closure__ or ():
            if callable(cell.cell_contents):
                yield from callback_functions(cell.cell_contents)
    else:
        yield function


def plugin_modules(name: str, seen: set[str] | None = None) -> set[str]:
    """Module ``name`` and, for a plugin's module, the modules of the same plugin it imports
    (helpers that build its figures); a shared module alone."""
    seen = set() if seen is None else seen
    seen.add(name)
    parts = name.split(".")
    if parts[:2] != ["dash_insight", "plugins"] or len(parts) < 4:
        return seen
    package = ".".join(parts[:3]) + "."
    tree = ast.parse(Path(inspect.getfile(sys.modules[name])).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        else:
            continue
        for module in imported:
            if module.startswith(package) and module in sys.modules and module not in seen:
                plugin_modules(module, seen)
    return seen


def script_of(namespace: str) -> str:
    """The text of the ``assets/`` script that defines a clientside namespace."""
    definition = re.compile(rf"\b{namespace}\s*[:=]\s*\{{")
    for script in sorted(ASSETS.glob("*.js")):
        if not script.name.endswith(".min.js"):
            text = script.read_text(encoding="utf-8")
            if definition.search(text):
                return text
    raise AssertionError(f"no script of assets/ defines the namespace {namespace}")


@dataclass(frozen=True)
class CallbackSources:
    """What a page's callbacks run: the sources of its server callbacks' modules (``own``),
    those with the modules of their plugin they import (``reached``, :func:`plugin_modules`),
    and the ``assets/`` scripts of its clientside callbacks."""

    own: list[str]
    reached: list[str]
    scripts: list[str]


def callback_sources(page: Page[Any], service: Any) -> CallbackSources:
    """The sources of a page's callbacks, registered on an app of their own."""
    app = dash.Dash(__name__)
    page.register(app, service)
    own: set[str] = set()
    for spec in app.callback_map.values():
        if "callback" in spec:  # a server callback
            own |= {function.__module__ for function in callback_functions(spec["callback"])}
    reached = set().union(*(plugin_modules(name) for name in own))
    namespaces = {
        spec["clientside_function"]["namespace"]
        for spec in app._callback_list
        if spec.get("clientside_function")
    }
    return CallbackSources(
        [inspect.getsource(sys.modules[name]) for name in sorted(own)],
        [inspect.getsource(sys.modules[name]) for name in sorted(reached)],
        [script_of(name) for name in sorted(namespaces)],
    )


def plotly_needs(graphs: Iterable[set[str]], sources: CallbackSources) -> frozenset[str]:
    """The trace types a page needs from plotly.js: ``scatter`` (every build's core) when it
    draws a graph (in its layout, in the modules its callbacks run or in its clientside
    scripts), plus the WebGL trace types a graph of its layout holds or its callbacks' own
    modules name (a helper module they import may name one for another page)."""
    graphs = list(graphs)
    webgl = set().union(*graphs) & webgl_traces() if graphs else set()
    webgl |= {name for source in sources.own for name in named_webgl_traces(source)}
    draws = bool(graphs) or any(PYTHON_GRAPH.search(source) for source in sources.reached)
    draws = draws or any(SCRIPT_GRAPH.search(script) for script in sources.scripts)
    return frozenset(webgl | {"scatter"}) if webgl or draws else frozenset()


def missing(bundles: frozenset[str], needs: frozenset[str]) -> set[str]:
    """The trace types of ``needs`` no plotly.js build of ``bundles`` has."""
    has: set[str] = set()
    for bundle in bundles & {PLOTLY, WEBGL, GL3D}:
        build = ASSETS / Path(SCRIPTS[bundle][0]).name  # the build's file, as the page links it
        has |= set(bundle_header(build)["traces"].split())
    return set(needs) - has


Pages = tuple[dash.Dash, list[tuple[Page[Any], Any]]]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pages]:
    """An app over the corpus jobs of :data:`JOBS`, and each page of the default plugins
    with its service."""
    base = tmp_path_factory.mktemp("bundles") / "logs"
    for source in (
        CORPUS / "lenet_sc",
        CORPUS / "ops_all",
        LANDSCAPE_CORPUS / "lenet_step",
        PROFILER_CORPUS / "lenet_summary_prof",
    ):
        if not source.is_dir():
            pytest.skip(f"corpus job not found at {source}")
        shutil.copytree(source, base / source.name)
    with loaded_app(base, tmp_path_factory.mktemp("ws")) as app:
        yield app, Features.build(app.data_service, DEFAULT_PLUGINS).pages()


def test_every_page_drawing_plotly_charts_links_a_plotly_bundle(pages: Pages) -> None:
    app, registered = pages
    lacking = {}
    drawing = set()
    for page, service in registered:
        if page.bundles is None:  # every bundle
            continue
        graphs = [
            graph
            for job in JOBS
            for graph in layout_graphs(
                page.layout(app, service, {} if job is None else {"train_id": job})
            )
        ]
        needs = plotly_needs(graphs, callback_sources(page, service))
        if needs:
            drawing.add(page.path)
        # a page naming plotly.js for some URLs (Page.query_bundles) has dcc's graph load the
        # cartesian build on demand at its others (assets/page-bundles.js)
        linked = page.bundles | ({PLOTLY} if page.query_bundles is not None else set())
        if missing(linked, needs):
            lacking[page.path] = sorted(missing(linked, needs))
    # the walk finds the charts of a layout, of callbacks and of clientside scripts
    assert {"/tensors", "/scalars", "/loss-landscape"} <= drawing
    assert not {"/images", "/lineage"} & drawing  # the lineage overview's charts are SVG
    assert lacking == {}, "add these bundles to the pages' Page(bundles=...)"


def _sources(own: str = "", reached: str = "", script: str = "") -> CallbackSources:
    return CallbackSources([own], [own, reached], [script])


def test_the_needs_of_graphs_modules_and_scripts() -> None:
    assert plotly_needs([], _sources()) == frozenset()
    assert plotly_needs([{"scatter"}], _sources()) == {"scatter"}
    assert plotly_needs([{"surface", "contour"}], _sources()) == {"scatter", "surface"}
    assert plotly_needs([], _sources("body = dcc.Graph(figure=figure)")) == {"scatter"}
    assert plotly_needs([], _sources(reached="return lazy_graph(key, ...)")) == {"scatter"}
    gl = 'def bars(trace_type: str = "scattergl")'
    assert plotly_needs([], _sources(gl)) == {"scatter", "scattergl"}
    assert plotly_needs([], _sources(reached=gl)) == frozenset()
    assert plotly_needs([], _sources(script='return {type: "Graph", props};')) == {"scatter"}
    assert plotly_needs([], _sources(script="window.Plotly.react(div, data);")) == {"scatter"}
    assert plotly_needs([], _sources("html.Img(src=url)", script="const Graph = 1;")) == set()
    assert missing(frozenset({WEBGL}), frozenset({"scatter"})) == set()
    assert missing(frozenset({PLOTLY}), frozenset({"scatter", "scattergl"})) == {"scattergl"}
    assert missing(frozenset({GL3D}), frozenset({"scatter", "surface"})) == set()
    assert missing(frozenset({GL3D}), frozenset({"scattergl"})) == {"scattergl"}
    assert missing(frozenset(), frozenset({"scatter"})) == {"scatter"}
