"""The parameter-distribution card of the training dashboard."""

from __future__ import annotations

from typing import Any

from dash import dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, ngettext
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName, mindinsight_order
from dash_insight.plugins.histograms.query import histograms
from dash_insight.web.components.figures import histogram_ridge_figure
from dash_insight.web.dashboard import no_data
from dash_insight.web.plugin import CardRequest

PREVIEW_HISTOGRAM_STEPS = 20


def no_histograms() -> list[Any]:
    """The card of a job without histograms: how to record them."""
    return interpolate(
        _(
            "No parameter distribution yet. SummaryCollector records the first five weights by "
            "default ({specified}); or use {summary} / {add_value}."
        ),
        specified=html.Code("collect_specified_data={'histogram_regular': ...}"),
        summary=html.Code("HistogramSummary"),
        add_value=html.Code("add_value('histogram', ...)"),
    )


def histogram_card(request: CardRequest, service: DataService) -> tuple[Any, Any]:
    """The first histogram tag in the top (ridge) view."""
    provider, train_id = service.provider, request.job.train_id
    tags = mindinsight_order(
        request.job.tags[PluginName.HISTOGRAM], PluginName.HISTOGRAM
    )  # as MindInsight
    if not tags:
        return no_data(no_histograms()), None
    steps = histograms(provider, train_id, tags[0], max_steps=PREVIEW_HISTOGRAM_STEPS)
    figure = histogram_ridge_figure(steps, height=240)
    return (
        dcc.Graph(
            figure=figure,
            config={"displayModeBar": False, "staticPlot": True},
            id="preview-histogram",
        ),
        f"{tags[0]} · "
        + ngettext("{count} tag", "{count} tags", len(tags)).format(count=len(tags)),
    )
