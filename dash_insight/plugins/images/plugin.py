"""The images plugin: the image page, its card and endpoints."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.images import cards, page, rest
from dash_insight.web.plugin import Card, Page, Plugin, data_service

PLUGIN: Plugin[DataService] = Plugin(
    name="images",
    service=data_service,
    routes=rest.routes,
    pages=(Page(page.PATH, page.layout, page.register),),
    cards=(Card("card-image", lazy_gettext("Images"), page.PATH, cards.image_card),),
)
