"""What an unknown address shows."""

from __future__ import annotations

import dash
from dash import dcc, html


def layout(app: dash.Dash, path: str) -> html.Div:
    return html.Div(className="di-panel di-empty", children=[
        html.H2("Page not found", className="di-title"),
        html.P(f"There is no page at {path!r}."),
        dcc.Link("Back to the summary list", href=app.get_relative_path("/")),
    ])
