"""The histograms plugin: the parameter-distribution page, its comparison tab, its card and
endpoint."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.histograms import cards, compare_page, page, rest
from dash_insight.web.page_bundles import DROPDOWN, PLOTLY, SLIDER
from dash_insight.web.plugin import Card, NavLink, Page, Plugin, data_service

PLUGIN: Plugin[DataService] = Plugin(
    name="histograms",
    service=data_service,
    routes=rest.routes,
    pages=(
        Page(
            page.PATH,
            page.layout,
            page.register,
            page.first_paint,
            bundles=frozenset({PLOTLY}),
        ),
        Page(
            compare_page.PATH,
            compare_page.layout,
            compare_page.register,
            bundles=frozenset({PLOTLY, SLIDER, DROPDOWN}),  # the step's marks, the tag's search
        ),
    ),
    cards=(
        Card(
            "card-histogram",
            lazy_gettext("Parameter Distribution"),
            page.PATH,
            cards.histogram_card,
        ),
    ),
    compare_tabs=(NavLink(compare_page.TITLE, compare_page.PATH, rank=30),),
)
