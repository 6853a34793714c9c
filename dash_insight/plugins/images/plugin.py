"""The images plugin: the image page, its comparison tab, its card and endpoints."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.images import cards, compare_page, page, rest
from dash_insight.web.page_bundles import DROPDOWN, SLIDER
from dash_insight.web.plugin import Card, NavLink, Page, Plugin, data_service

PLUGIN: Plugin[DataService] = Plugin(
    name="images",
    service=data_service,
    routes=rest.routes,
    pages=(
        Page(page.PATH, page.layout, page.register, bundles=frozenset()),
        Page(
            compare_page.PATH,
            compare_page.layout,
            compare_page.register,
            bundles=frozenset({SLIDER, DROPDOWN}),  # the step's marks, the tag's search
        ),
    ),
    cards=(Card("card-image", lazy_gettext("Images"), page.PATH, cards.image_card),),
    compare_tabs=(NavLink(compare_page.TITLE, compare_page.PATH, rank=40),),
)
