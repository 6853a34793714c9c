"""Each page loads only the script bundles it draws with (issue 37 item 2).

Dash writes every component library and every script of ``assets/`` into every page: a page
of line charts parsed and ran the graph pages' Cytoscape (0.5 MB), the tables' AG Grid
(1.3 MB) and plotly.js's WebGL traces (regl and the 3D scene, half of its 2.4 MB) before it
drew anything. A :class:`~dash_insight.web.plugin.Page` names the optional bundles it uses
(``Page.bundles``); its answer leaves the others out, and plotly.js is the cartesian build
(``assets/plotly-cartesian.min.js``) unless the page names :data:`WEBGL`. A page that names
none (``None``), the training dashboard and a path no page has get every bundle.

Pages change without a new document (``dcc.Link``): ``assets/page-bundles.js`` reads the
bundles each page needs and those the document has from the ``<html>`` element's
``data-page-bundles`` (:func:`html_attribute`), and loads a page that needs one the document
lacks as a new document instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

#: Cytoscape (``dash_cytoscape``): the computational and data graphs.
CYTOSCAPE = "cytoscape"
#: AG Grid (``dash_ag_grid``): the name pickers and the tables.
GRID = "grid"
#: plotly.js with its WebGL traces (scattergl, scatter3d, surface) instead of the cartesian build.
WEBGL = "webgl"
#: Every optional bundle.
ALL: frozenset[str] = frozenset({CYTOSCAPE, GRID, WEBGL})

#: The scripts of each optional bundle: a part of their URL's path.
SCRIPTS: Mapping[str, str] = {
    CYTOSCAPE: "/_dash-component-suites/dash_cytoscape/",
    GRID: "/_dash-component-suites/dash_ag_grid/",
    WEBGL: "/assets/plotly-dash-insight.min.js",
}
#: plotly.js without its WebGL traces: loaded when :data:`WEBGL` is not.
CARTESIAN_SCRIPT = "/assets/plotly-cartesian.min.js"

#: The address of a script of Dash's ``{%scripts%}`` part (one element a line).
_SOURCE = re.compile(r'\ssrc="([^"]*)"')


def _wanted(source: str, bundles: frozenset[str]) -> bool:
    path = source.split("?", 1)[0]
    if path.endswith(CARTESIAN_SCRIPT):
        return WEBGL not in bundles
    return all(name in bundles or part not in path for name, part in SCRIPTS.items())


def select(scripts: str, bundles: frozenset[str]) -> str:
    """Dash's ``{%scripts%}`` part (one element a line) without the scripts of the optional
    bundles not in ``bundles`` (and without the cartesian plotly.js when :data:`WEBGL` is)."""
    kept = []
    for line in scripts.split("\n"):
        source = _SOURCE.search(line)
        if source is None or _wanted(source.group(1), bundles):
            kept.append(line)
    return "\n".join(kept)


@dataclass(frozen=True)
class PageBundles:
    """The optional bundles of each page: ``by_path`` maps a page's path (below the app's
    prefix) to its bundles, None for every bundle; ``locate(pathname)`` gives the path of a
    URL's pathname; ``relative(path)`` the pathname of a page's path."""

    by_path: Mapping[str, frozenset[str] | None]
    locate: Callable[[str], str]
    relative: Callable[[str], str]

    def of(self, pathname: str) -> frozenset[str]:
        """The bundles the page at ``pathname`` needs (every one for an unknown path)."""
        bundles = self.by_path.get(self.locate(pathname))
        return ALL if bundles is None else bundles

    def html_attribute(self, loaded: Iterable[str]) -> str:
        """``data-page-bundles``: the bundles of every page that does not need them all, by
        pathname, and those of this document (``loaded``), as JSON."""
        pages = {
            self.relative(path).rstrip("/") or "/": sorted(bundles)
            for path, bundles in self.by_path.items()
            if bundles is not None and bundles != ALL
        }
        every = sorted(ALL)
        return json.dumps(
            {"all": every, "loaded": sorted(loaded), "pages": pages}, separators=(",", ":")
        )
