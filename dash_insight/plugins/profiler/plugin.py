"""The profiler plugin: performance dashboard, operator page and timeline of a job's profiler
data (opened from the summary list's "Profiling" link), and MindInsight's profiler endpoints."""

from __future__ import annotations

from dash_insight.plugins.profiler import dashboard_page, operator_page, rest, timeline_page
from dash_insight.plugins.profiler.service import ProfilerService
from dash_insight.web.page_bundles import GRID, PLOTLY, WEBGL
from dash_insight.web.plugin import Page, Plugin

PLUGIN: Plugin[ProfilerService] = Plugin(
    name="profiler",
    service=ProfilerService.from_data,
    routes=rest.routes,
    pages=(
        Page(
            dashboard_page.PATH,
            dashboard_page.layout,
            dashboard_page.register,
            bundles=frozenset(),  # its charts are SVG (web.components.svg_chart)
        ),
        Page(
            operator_page.PATH,
            operator_page.layout,
            operator_page.register,
            bundles=frozenset({GRID, PLOTLY}),
        ),
        Page(
            timeline_page.PATH,
            timeline_page.layout,
            timeline_page.register,
            bundles=frozenset({GRID, WEBGL}),
        ),
    ),
)
