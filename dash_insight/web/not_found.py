"""What an unknown address shows."""

from __future__ import annotations

import dash
from dash import dcc, html

from dash_insight.core.i18n import gettext as _


def layout(app: dash.Dash, path: str) -> html.Div:
    return html.Div(
        className="di-panel di-empty",
        children=[
            html.H2(_("Page not found"), className="di-title"),
            html.P(_("There is no page at {path!r}.").format(path=path)),
            dcc.Link(_("Back to the summary list"), href=app.get_relative_path("/")),
        ],
    )
