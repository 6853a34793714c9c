"""The scalars card of the training dashboard: the first two tags, as MindInsight shows them."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from dash import dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, ngettext
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName, mindinsight_order
from dash_insight.web.components.figures import nice_y_axes, small_layout
from dash_insight.web.dashboard import no_data
from dash_insight.web.plugin import CardRequest

PREVIEW_POINTS = 300


def no_scalars() -> list[Any]:
    """The card of a job without scalars: how to record them."""
    return interpolate(
        _(
            "No scalar yet. SummaryCollector records {loss}; add your own with {add_value} or "
            "{writer}."
        ),
        loss=html.Code("loss"),
        add_value=html.Code("SummaryRecord.add_value('scalar', 'acc', value)"),
        writer=html.Code("dash_insight.SummaryWriter.add_scalar"),
    )


def scalar_card(request: CardRequest, service: DataService) -> tuple[Any, Any]:
    """The first two scalar tags, the second on a right-hand axis (as MindInsight)."""
    provider, train_id = service.provider, request.job.train_id
    tags = mindinsight_order(
        request.job.tags[PluginName.SCALAR], PluginName.SCALAR
    )  # as MindInsight
    if not tags:
        return no_data(no_scalars()), None
    figure = go.Figure(layout=small_layout(height=240))
    drawn = []
    for i, tag in enumerate(tags[:2]):
        # A window read: a tag of millions of steps is drawn from its chunk summaries.
        series = provider.read_scalar_window(train_id, tag, max_points=PREVIEW_POINTS).series
        values = np.where(np.isfinite(series.value), series.value, np.nan)
        drawn.append(values)
        figure.add_trace(
            go.Scatter(x=series.step, y=values, name=tag, mode="lines", yaxis="y2" if i else "y")
        )
    left, right = nice_y_axes(drawn[0], drawn[1] if len(drawn) > 1 else None)
    figure.update_layout(yaxis=left)
    if len(tags) > 1:
        # automargin: the right tick labels get the room they need instead of being cut.
        figure.update_layout(
            yaxis2={
                "overlaying": "y",
                "side": "right",
                "showgrid": False,
                "automargin": True,
                **right,
            }
        )
    figure.update_layout(showlegend=True, legend={"orientation": "h", "y": -0.2})
    return (
        dcc.Graph(
            figure=figure, config={"displayModeBar": False, "staticPlot": True}, id="preview-scalar"
        ),
        ngettext("{count} scalar tag", "{count} scalar tags", len(tags)).format(count=len(tags)),
    )
