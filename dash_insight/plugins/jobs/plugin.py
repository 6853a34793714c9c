"""The jobs plugin: the summary list (home page) and MindInsight's job endpoints."""

from __future__ import annotations

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.jobs import landing_page, page, rest
from dash_insight.web.page_bundles import GRID
from dash_insight.web.plugin import Install, NavLink, Page, Plugin, data_service

PLUGIN: Plugin[DataService] = Plugin(
    name="jobs",
    service=data_service,
    routes=rest.routes,
    pages=(Page(page.PATH, page.layout, page.register, bundles=frozenset({GRID})),),
    nav=(NavLink(lazy_gettext("Summary List"), page.PATH, rank=0),),
    # after the host check, so a refused host learns no job name
    installs=(
        Install(
            "jobs-landing",
            lambda app, data: landing_page.install(app, data.provider),
            after=("host-check",),
        ),
    ),
)
