"""The tab strip of the comparison pages ("Scalar Comparison", "Loss Graph Comparison", ...).

Each plugin contributes its comparison page as a tab (``Plugin.compare_tabs``); the application
installs the tabs of all plugins on the app once, and every comparison page draws the same strip
with :func:`tab_strip`, its own tab marked active. Plugins never learn about each other.
"""

from __future__ import annotations

from collections.abc import Sequence

import dash
from dash import dcc, html

from dash_insight.web.plugin import NavLink

#: The app attribute holding the installed tabs (one app, one list: nothing process-wide).
ATTRIBUTE = "dash_insight_compare_tabs"


def install(app: dash.Dash, tabs: Sequence[NavLink]) -> None:
    """Remember the comparison tabs of ``app`` (sorted by rank by the caller)."""
    setattr(app, ATTRIBUTE, tuple(tabs))


def installed(app: dash.Dash) -> tuple[NavLink, ...]:
    return tuple(getattr(app, ATTRIBUTE, ()))


def tab_strip(app: dash.Dash, active_path: str) -> html.Nav | None:
    """Links to every comparison page, ``active_path``'s marked; None with fewer than two."""
    tabs = installed(app)
    if len(tabs) < 2:
        return None
    return html.Nav(className="di-compare-tabs", id="compare-tabs", children=[
        dcc.Link(str(tab.label), href=app.get_relative_path(tab.path),
                 id=f"compare-tab-{tab.path.strip('/').replace('/', '-')}",
                 className="di-compare-tab active" if tab.path == active_path
                 else "di-compare-tab")
        for tab in tabs
    ])
