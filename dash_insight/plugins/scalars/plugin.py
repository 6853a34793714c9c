"""The scalars plugin: the scalars page, the comparison dashboard, its card and endpoints."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.scalars import cards, compare_page, page, rest
from dash_insight.web.page_bundles import DROPDOWN, PLOTLY
from dash_insight.web.plugin import Card, NavLink, Page, Plugin, data_service

PLUGIN: Plugin[DataService] = Plugin(
    name="scalars",
    service=data_service,
    routes=rest.routes,
    pages=(
        Page(
            page.PATH,
            page.layout,
            page.register,
            page.first_paint,
            bundles=frozenset({PLOTLY, DROPDOWN}),  # the x axis' and the composed tags' menus
        ),
        Page(
            compare_page.PATH,
            compare_page.layout,
            compare_page.register,
            bundles=frozenset({PLOTLY, DROPDOWN}),
        ),
    ),
    cards=(Card("card-scalar", lazy_gettext("Scalars"), page.PATH, cards.scalar_card),),
    nav=(NavLink(lazy_gettext("Comparison"), compare_page.PATH, rank=20),),
    compare_tabs=(NavLink(lazy_gettext("Scalar Comparison"), compare_page.PATH, rank=10),),
)
