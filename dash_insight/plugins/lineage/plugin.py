"""The lineage plugin: model and data lineage page, MindInsight's lineage and optimizer
endpoints, remarks in the workspace."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.plugins.lineage import page, rest
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.web.page_bundles import GRID
from dash_insight.web.plugin import NavLink, Page, Plugin

PLUGIN: Plugin[LineageService] = Plugin(
    name="lineage",
    service=LineageService.from_data,
    routes=rest.routes,
    # No plotly.js: the overview's charts are SVG (SVG charts, assets/svg-chart.js).
    pages=(Page(page.PATH, page.layout, page.register, bundles=frozenset({GRID})),),
    nav=(NavLink(lazy_gettext("Lineage"), page.PATH, rank=10),),
)
