"""The loss landscape plugin ("training optimization process" / Loss Function Multidimensional
Analysis): its endpoints, analysis page, comparison tab and dashboard card."""

from __future__ import annotations

from dash_insight.plugins.landscape import cards, compare_page, page, rest
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web.page_bundles import GL3D, SLIDER, WEBGL
from dash_insight.web.plugin import Card, NavLink, Page, Plugin

PLUGIN: Plugin[LandscapeService] = Plugin(
    name="landscape",
    service=LandscapeService.from_data,
    routes=rest.routes,
    pages=(
        # the analysis page draws no grid (its comparison tab's job picker is one), and only
        # contours and the 3D scene; its settings have sliders with marks
        Page(page.PATH, page.layout, page.register, bundles=frozenset({GL3D, SLIDER})),
        Page(
            compare_page.PATH,
            compare_page.layout,
            compare_page.register,
            bundles=frozenset({WEBGL}),
        ),
    ),
    cards=(Card("card-landscape", page.TITLE, page.PATH, cards.landscape_card),),
    compare_tabs=(NavLink(compare_page.TITLE, compare_page.PATH, rank=20),),
)
