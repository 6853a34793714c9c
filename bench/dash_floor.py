"""A bare Dash page, Dash's floor for ``bench/vs_mindinsight.py``: the installed dash, one
``html.Div`` holding a ``html.Span``, no callbacks, no assets, the scripts of Dash that every
dash-insight page loads (eager loading, then :func:`dash_insight.web.page_bundles.select` with
no bundle: no polyfill, no dash_table, dcc's dropdown and slider chunks), served by waitress and
compressed as dash-insight's pages are (:mod:`dash_insight.web.compression`), on ``--port``
until stopped. ``/browser-floor`` is the browser's own floor beside it: a static HTML page of
one ``<span>`` (``bench/static_floor.html``), what any page costs in the same measurement.

Its own process, because Dash puts the bundles of every component package its process has
imported on every page: a bare page in dash-insight's process would also load dash-cytoscape's
and dash-ag-grid's scripts, which a Dash page of dcc and html alone does not.

    python bench/dash_floor.py --port 8051
"""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import Any

import flask
import waitress
from dash import Dash, html

from dash_insight.web import compression, page_bundles

HERE = os.path.dirname(os.path.abspath(__file__))
#: The path of the static page (``bench/static_floor.html``).
BROWSER_FLOOR = "/browser-floor"


class FloorDash(Dash):
    """Dash, its page's scripts those a dash-insight page of no optional bundle loads."""

    def interpolate_index(self, **kwargs: Any) -> str:
        kwargs["scripts"] = page_bundles.select(kwargs["scripts"], frozenset())
        return str(super().interpolate_index(**kwargs))


def bare_app() -> Dash:
    """The Dash app of the floor page (its assets folder an empty directory) and the static
    page (:data:`BROWSER_FLOOR`)."""
    app = FloorDash(
        __name__,
        assets_folder=os.path.join(tempfile.gettempdir(), "dash-floor-assets"),
        eager_loading=True,
    )
    app.layout = html.Div(html.Span("floor"))
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
