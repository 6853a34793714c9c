"""The loss landscape plugin ("training optimization process" / Loss Function Multidimensional
Analysis): its endpoints, analysis page, comparison tab and dashboard card."""

from __future__ import annotations

from dash_insight.plugins.landscape import rest
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web.plugin import Plugin

PLUGIN: Plugin[LandscapeService] = Plugin(
    name="landscape",
    service=LandscapeService.from_data,
    routes=rest.routes,
)
