"""The profiler plugin: performance dashboard, operator page and timeline of a job's profiler
data, and MindInsight's profiler endpoints."""

from __future__ import annotations

from dash_insight.plugins.profiler import rest
from dash_insight.plugins.profiler.service import ProfilerService
from dash_insight.web.plugin import Plugin

PLUGIN: Plugin[ProfilerService] = Plugin(
    name="profiler",
    service=ProfilerService.from_data,
    routes=rest.routes,
)
