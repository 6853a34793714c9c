"""The graphs plugin: computational graph and data graph pages, their cards and endpoints."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.graphs import cards, data_graph_page, page, rest
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.plugins.graphs.service_layouts import LayoutStore
from dash_insight.web.page_bundles import CYTOSCAPE
from dash_insight.web.plugin import Card, Page, Plugin


def _service(data: DataService) -> GraphService:
    return GraphService(data.provider, layouts=LayoutStore(data.workspace))


PLUGIN: Plugin[GraphService] = Plugin(
    name="graphs",
    service=_service,
    routes=rest.routes,
    # Both pages draw with Cytoscape alone: with every bundle, the computational graph's
    # first screen parsed and ran plotly.js (2.4 MB) and AG Grid (1.3 MB) it never uses.
    pages=(
        Page(page.PATH, page.layout, page.register, bundles=frozenset({CYTOSCAPE})),
        Page(
            data_graph_page.PATH,
            data_graph_page.layout,
            data_graph_page.register,
            bundles=frozenset({CYTOSCAPE}),
        ),
    ),
    cards=(
        Card("card-graph", lazy_gettext("Computational Graph"), page.PATH, cards.graph_card),
        Card("card-dataset", lazy_gettext("Data Graph"), data_graph_page.PATH, cards.dataset_card),
    ),
)
