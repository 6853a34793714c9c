"""A bare Dash page, Dash's floor for ``bench/vs_mindinsight.py``: the installed dash, one
``html.Div`` holding a ``html.Span``, no callbacks, no assets, served by waitress and compressed
as dash-insight's pages are (:mod:`dash_insight.web.compression`), on ``--port`` until stopped.

Its own process, because Dash puts the bundles of every component package its process has
imported on every page: a bare page in dash-insight's process would also load dash-cytoscape's
and dash-ag-grid's scripts, which a Dash page of dcc and html alone does not.

    python bench/dash_floor.py --port 8051
"""

from __future__ import annotations

import argparse
import os
import tempfile

import waitress
from dash import Dash, html

from dash_insight.web import compression


def bare_app() -> Dash:
    """The Dash app of the floor page (its assets folder an empty directory)."""
    app = Dash(__name__, assets_folder=os.path.join(tempfile.gettempdir(), "dash-floor-assets"))
    app.layout = html.Div(html.Span("floor"))
    compression.install(app.server, "/")
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    waitress.serve(bare_app().server, host="127.0.0.1", port=args.port, threads=8)


if __name__ == "__main__":
    main()
