"""A bare Dash page, Dash's floor for ``bench/vs_mindinsight.py``: the installed dash, one
``html.Div`` holding a ``html.Span``, no callbacks, no assets, the scripts of Dash that every
dash-insight page loads (eager loading, then :func:`dash_insight.web.page_bundles.select` with
no bundle: no polyfill, no dash_table, dcc's dropdown and slider chunks), served by waitress and
compressed as dash-insight's pages are (:mod:`dash_insight.web.compression`), on ``--port``
until stopped. ``/browser-floor`` is the browser's own floor beside it: a static HTML page of
one ``<span>`` (``bench/static_floor.html``), what any page costs in the same measurement.

Below ``/<library>/`` (:data:`LIBRARY_FLOORS`), the same bare page draws the smallest chart of
the library a page draws with, and loads what a dash-insight page of that library loads (its
bundle's scripts, :mod:`dash_insight.web.page_bundles`, and the files of ``assets/`` they need):
``/plotly/`` a line of two points in the cartesian plotly.js, ``/gl3d/`` a 2 x 2 surface in the
loss landscape's plotly.js (3D scene), ``/cytoscape/`` two nodes and an edge in Cytoscape. What
such a page costs is what any page drawing with that library costs at least, whatever it draws.

Its own process, because Dash puts the bundles of every component package its process has
imported on every page: a bare page in dash-insight's process would also load dash-cytoscape's
and dash-ag-grid's scripts, which a Dash page of dcc and html alone does not.

    python bench/dash_floor.py --port 8051
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dash_cytoscape
import flask
import waitress
from dash import Dash, dcc, html
from dash.development.base_component import Component

from dash_insight.web import compression, page_bundles

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.join(os.path.dirname(HERE), "assets")
#: The path of the static page (``bench/static_floor.html``).
BROWSER_FLOOR = "/browser-floor"
#: What dcc's graph chunk needs besides plotly.js (Dash's polyfill is left out, page_bundles).
REGENERATOR = "regenerator-runtime-0.14.1.js"


class FloorDash(Dash):
    """Dash, its page's scripts those a dash-insight page of ``bundles`` loads."""

    def __init__(self, *args: Any, bundles: frozenset[str] = frozenset(), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bundles = bundles

    def interpolate_index(self, **kwargs: Any) -> str:
        kwargs["scripts"] = page_bundles.select(kwargs["scripts"], self.bundles)
        return str(super().interpolate_index(**kwargs))


def _graph(figure: dict[str, Any], height: int) -> Component:
    return dcc.Graph(figure=figure, style={"height": f"{height}px", "width": "600px"})


@dataclass(frozen=True)
class LibraryFloor:
    """A bare page drawing ``chart()`` with the scripts of ``bundle`` and ``assets``."""

    bundle: str
    assets: tuple[str, ...]
    chart: Callable[[], Component]


#: The library floors by the path segment they are served below.
LIBRARY_FLOORS: dict[str, LibraryFloor] = {
    "plotly": LibraryFloor(
        page_bundles.PLOTLY,
        ("plotly-cartesian.min.js", REGENERATOR),
        lambda: _graph({"data": [{"type": "scatter", "x": [0, 1], "y": [0, 1]}]}, 260),
    ),
    "gl3d": LibraryFloor(
        page_bundles.GL3D,
        ("plotly-gl3d.min.js", REGENERATOR),
        lambda: _graph({"data": [{"type": "surface", "z": [[0, 1], [1, 0]]}]}, 500),
    ),
    "cytoscape": LibraryFloor(
        page_bundles.CYTOSCAPE,
        (),
        lambda: dash_cytoscape.Cytoscape(
            elements=[
                {"data": {"id": "a", "label": "a"}, "position": {"x": 0, "y": 0}},
                {"data": {"id": "b", "label": "b"}, "position": {"x": 100, "y": 80}},
                {"data": {"source": "a", "target": "b"}},
            ],
            layout={"name": "preset"},
            style={"width": "600px", "height": "400px"},
        ),
    ),
}


def only(names: tuple[str, ...]) -> str:
    """Dash's ``assets_ignore`` that ignores every file of ``assets/`` but ``names`` (every
    file when there are none)."""
    return f"^(?!({'|'.join(re.escape(name) for name in names)})$)" if names else "^"


def library_app(server: flask.Flask, name: str, floor: LibraryFloor) -> Dash:
    """The floor of ``floor`` below ``/<name>/`` of ``server``."""
    app = FloorDash(
        __name__,
        server=server,
        url_base_pathname=f"/{name}/",
        assets_folder=ASSETS,
        assets_ignore=only(floor.assets),
        eager_loading=True,
        bundles=frozenset({floor.bundle}),
    )
    app.layout = html.Div(floor.chart())
    return app


def bare_app() -> Dash:
    """The Dash app of the floor page (its assets folder an empty directory), the library
    floors (:data:`LIBRARY_FLOORS`) and the static page (:data:`BROWSER_FLOOR`)."""
    app = FloorDash(
        __name__,
        assets_folder=os.path.join(tempfile.gettempdir(), "dash-floor-assets"),
        eager_loading=True,
    )
    app.layout = html.Div(html.Span("floor"))
    for name, floor in LIBRARY_FLOORS.items():
        library_app(app.server, name, floor)
    app.server.add_url_rule(
        BROWSER_FLOOR,
        "browser_floor",
        lambda: flask.send_file(os.path.join(HERE, "static_floor.html")),
    )
    compression.install(app.server, "/")
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    waitress.serve(bare_app().server, host="127.0.0.1", port=args.port, threads=8)


if __name__ == "__main__":
    main()
