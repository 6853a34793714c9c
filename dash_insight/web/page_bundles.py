"""Each page loads only the scripts it draws with (issue 37 item 2).

Dash writes every component library and every script of ``assets/`` into every page: a page
of line charts parsed and ran the graph pages' Cytoscape (0.5 MB), the tables' AG Grid
(1.3 MB) and plotly.js's WebGL traces (regl and the 3D scene, half of its 2.4 MB) before it
drew anything. A :class:`~dash_insight.web.plugin.Page` names the optional bundles it uses
(``Page.bundles``); its answer leaves the others out. plotly.js is loaded only by a page that
names :data:`PLOTLY` (the cartesian build, ``assets/plotly-cartesian.min.js``),
:data:`WEBGL` (the build with the WebGL traces) or :data:`GL3D` (the loss landscape page's
build: contours and the 3D scene, 1.8 MB, without the bar, pie and scattergl traces). One
build at most: the full build draws what either other one does. A page that names none
(``None``), the training dashboard and a path no page has get every bundle.

What every page leaves out or gets besides (:func:`select`; the app is built with Dash's
``eager_loading``, so Dash writes the lazily loaded chunks of its component libraries too):

- Dash's Babel polyfill (core-js for browsers of 2015; 100 kB whose evaluation was the first
  page's longest script, 0.1-0.2 s at load 10): the scripts it served for today's browsers
  need only its ``regeneratorRuntime``, which ``assets/regenerator-runtime-*.js`` defines;
- dash_table's bundle (no page draws a DataTable) and the plotly package's full plotly.js
  (Dash's default for ``dcc.Graph``; the pages load one of the builds above before any graph);
- the chunks of dcc components no first screen draws (date pickers, markdown, upload...) and
  AG Grid's enterprise chunk: loaded by their library on demand, as Dash does without eager
  loading;
- the chunks a first screen does draw (dcc's graph with plotly.js, its slider and dropdown on
  the pages that name :data:`SLIDER` and :data:`DROPDOWN`; AG Grid's community grid with AG
  Grid) come as scripts of the page, fetched with the others, instead of being asked for once
  React mounts the component (a round trip before it drew). Most sliders and menus are the
  browser's range input and select (:mod:`dash_insight.web.components.native_inputs`): only
  a slider with marks (the loss landscape's settings, the comparisons' step) or a menu with a
  search box or many values (the scalars' tags, the comparisons' tag) is dcc's.

Pages change without a new document (``dcc.Link``): ``assets/page-bundles.js`` reads the
bundles each page needs and those the document has from the ``<html>`` element's
``data-page-bundles`` (:func:`html_attribute`), and loads a page that needs one the document
lacks as a new document instead.

A page that draws AG Grid only for some data (the tensors page: a slice too large for a
plain table) does not name :data:`GRID`: ``data-page-bundles`` lists the grid's scripts
(``later``) and ``assets/page-bundles.js`` loads them when the first grid is about to be
mounted (``window.dashInsightBundles.load``; 1.3 MB whose evaluation was a seventh of the
tensors page's main-thread work, for tables that were all plain).

A page whose first screen draws Plotly charts only for some URLs (the tensors page: its
histogram view; the table view is the default) names :data:`PLOTLY` in ``Page.query_bundles``
for those URLs, not in ``Page.bundles``: its other answers leave plotly.js out (1.3 MB whose
evaluation was a tenth of the tensors page's main-thread work). A chart drawn later in such a
document (the view switched to histograms) has dcc's graph load plotly.js on demand, as it does
when ``window.Plotly`` is missing: ``data-page-bundles`` names the cartesian build's URL as the
pages link it (``plotly``), and ``assets/page-bundles.js`` points dcc's graph to it instead of
the plotly package's full build (``window._dashPlotlyJSURL``, which Dash's renderer sets).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

#: Cytoscape (``dash_cytoscape``): the computational and data graphs.
CYTOSCAPE = "cytoscape"
#: AG Grid (``dash_ag_grid``): the name pickers and the tables.
GRID = "grid"
#: plotly.js without its WebGL traces (``assets/plotly-cartesian.min.js``).
PLOTLY = "plotly"
#: plotly.js with its WebGL traces (scattergl, scatter3d, surface) instead of the cartesian build.
WEBGL = "webgl"
#: plotly.js with contours and the 3D scene only (``assets/plotly-gl3d.min.js``).
GL3D = "gl3d"
#: dcc's slider (``dcc.Slider``: marks and a tooltip; a plain slider is a ``RangeInput``).
SLIDER = "slider"
#: dcc's dropdown (``dcc.Dropdown``: a search box, many values; a menu of a few choices is a
#: ``SelectInput``).
DROPDOWN = "dropdown"
#: Every optional bundle.
ALL: frozenset[str] = frozenset({CYTOSCAPE, GRID, PLOTLY, WEBGL, GL3D, SLIDER, DROPDOWN})

_SUITES = "/_dash-component-suites/"
#: The cartesian plotly.js, which dcc's graph loads for a chart drawn in a document without one.
CARTESIAN_SCRIPT = "/assets/plotly-cartesian.min.js"
#: The loss landscape's plotly.js (:data:`GL3D`).
GL3D_SCRIPT = "/assets/plotly-gl3d.min.js"
#: The scripts of each optional bundle: a part of their URL's path (dcc's graph chunk draws
#: with either plotly.js build, so it names both).
SCRIPTS: Mapping[str, tuple[str, ...]] = {
    CYTOSCAPE: (f"{_SUITES}dash_cytoscape/",),
    GRID: (f"{_SUITES}dash_ag_grid/",),
    PLOTLY: (CARTESIAN_SCRIPT, f"{_SUITES}dash/dcc/async-graph."),
    WEBGL: ("/assets/plotly-dash-insight.min.js", f"{_SUITES}dash/dcc/async-graph."),
    GL3D: (GL3D_SCRIPT, f"{_SUITES}dash/dcc/async-graph."),
    SLIDER: (f"{_SUITES}dash/dcc/async-slider.",),
    DROPDOWN: (f"{_SUITES}dash/dcc/async-dropdown.",),
}
#: The smaller plotly.js builds, left out when the full build (:data:`WEBGL`) is loaded.
PART_SCRIPTS = (CARTESIAN_SCRIPT, GL3D_SCRIPT)
#: Scripts no page loads (parts of their URL's path): see the module's docstring.
NEVER: tuple[str, ...] = (
    f"{_SUITES}dash/deps/polyfill@",
    f"{_SUITES}dash/dash_table/",
    f"{_SUITES}plotly/",
    f"{_SUITES}dash_ag_grid/async-enterprise.",
)
#: dcc's lazily loaded chunks (``async-<name>.js``): a page gets one as a script when a bundle
#: it names has it (:data:`SCRIPTS`: the graph with plotly.js, the slider with :data:`SLIDER`,
#: the dropdown with :data:`DROPDOWN`). Any other is left to dcc to load on demand.
DCC_CHUNK = re.compile(re.escape(f"{_SUITES}dash/dcc/async-"))

#: The address of a script of Dash's ``{%scripts%}`` part (one element a line).
_SOURCE = re.compile(r'\ssrc="([^"]*)"')


def wanted(source: str, bundles: frozenset[str]) -> bool:
    """Whether a page of ``bundles`` loads the script at ``source`` (a URL)."""
    path = source.split("?", 1)[0]
    if any(part in path for part in NEVER):
        return False
    if path.endswith(PART_SCRIPTS) and WEBGL in bundles:
        return False
    owners = [name for name, parts in SCRIPTS.items() if any(part in path for part in parts)]
    if not owners:
        return DCC_CHUNK.search(path) is None
    return any(name in bundles for name in owners)


def select(scripts: str, bundles: frozenset[str]) -> str:
    """Dash's ``{%scripts%}`` part (one element a line) without the scripts a page of
    ``bundles`` does not load (:func:`wanted`)."""
    kept = []
    for line in scripts.split("\n"):
        source = _SOURCE.search(line)
        if source is None or wanted(source.group(1), bundles):
            kept.append(line)
    return "\n".join(kept)


def bundle_sources(scripts: str, name: str) -> list[str]:
    """The addresses (as the page links them) of the scripts of Dash's ``{%scripts%}`` part
    that bundle ``name`` adds to a page, in their order: those a page of ``name`` alone loads
    and a page of no bundle does not."""
    sources = []
    for line in scripts.split("\n"):
        source = _SOURCE.search(line)
        if source is None:
            continue
        url = source.group(1)
        if wanted(url, frozenset({name})) and not wanted(url, frozenset()):
            sources.append(html.unescape(url))
    return sources


def script_source(scripts: str, part: str) -> str | None:
    """The address of the first script of Dash's ``{%scripts%}`` part whose URL's path holds
    ``part`` (as the page links it, with its query), None when none does."""
    for line in scripts.split("\n"):
        source = _SOURCE.search(line)
        if source is not None and part in source.group(1).split("?", 1)[0]:
            return html.unescape(source.group(1))
    return None


#: The bundles a page's first screen needs for some of its URLs: the query's arguments
#: (first values) -> bundles besides the page's own.
QueryBundles = Callable[[Mapping[str, str]], frozenset[str]]


@dataclass(frozen=True)
class PageBundles:
    """The optional bundles of each page: ``by_path`` maps a page's path (below the app's
    prefix) to its bundles, None for every bundle; ``locate(pathname)`` gives the path of a
    URL's pathname; ``relative(path)`` the pathname of a page's path; ``by_query``: a page's
    bundles for the query of its URL besides those (``Page.query_bundles``)."""

    by_path: Mapping[str, frozenset[str] | None]
    locate: Callable[[str], str]
    relative: Callable[[str], str]
    by_query: Mapping[str, QueryBundles] = field(default_factory=dict)

    def of(self, pathname: str, query: Mapping[str, str] | None = None) -> frozenset[str]:
        """The bundles the page at ``pathname`` needs (every one for an unknown path), with
        those its ``by_query`` gives for the URL's ``query``."""
        path = self.locate(pathname)
        bundles = self.by_path.get(path)
        if bundles is None:
            return ALL
        more = self.by_query.get(path)
        return bundles | more(query or {}) if more is not None else bundles

    def _pathname(self, path: str) -> str:
        """The pathname of the page at ``path`` as ``assets/page-bundles.js`` compares them
        (no trailing slash, "/" for the root)."""
        return self.relative(path).rstrip("/") or "/"

    def html_attribute(
        self,
        loaded: Iterable[str],
        plotly: str | None = None,
        drawable: Iterable[str] | None = None,
        later: Mapping[str, list[str]] | None = None,
    ) -> str:
        """``data-page-bundles``: the bundles of every page that does not need them all, by
        pathname, and those of this document (``loaded``, :data:`PLOTLY` and :data:`GL3D`
        counted with :data:`WEBGL`: the full plotly.js draws what the others do), as JSON; with
        ``plotly``, the URL of the cartesian plotly.js as the pages link it, for a chart drawn
        in a document without it (see the module's docstring); with ``drawable``, the paths of
        the only pages this document can draw (those whose callbacks it has,
        :mod:`dash_insight.web.page_callbacks`), as pathnames; with ``later``, the scripts
        (:func:`bundle_sources`) of the bundles it may load when it first draws with them
        (those it lacks)."""
        has = set(loaded)
        if WEBGL in has:
            has.update((PLOTLY, GL3D))
        pages = {
            self._pathname(path): sorted(bundles)
            for path, bundles in self.by_path.items()
            if bundles is not None and bundles != ALL
        }
        spec: dict[str, object] = {"all": sorted(ALL), "loaded": sorted(has), "pages": pages}
        if plotly is not None:
            spec["plotly"] = plotly
        if drawable is not None:
            spec["drawable"] = sorted(self._pathname(path) for path in drawable)
        if later:
            spec["later"] = {name: list(urls) for name, urls in later.items() if name not in has}
        return json.dumps(spec, separators=(",", ":"))
