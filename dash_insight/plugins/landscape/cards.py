"""The loss landscape card of the training dashboard: a small surface of the first interval with
its path (MindInsight's "Loss Function Multidimensional Analysis" card), the final landscape when
the job has no interval, or how to record one."""

from __future__ import annotations

from typing import Any

from dash import dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, ngettext
from dash_insight.plugins.landscape.figures import DEFAULT_STYLE, VIEW_3D, landscape_figure
from dash_insight.plugins.landscape.query import LandscapeError, grid, loss_path
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web.dashboard import no_data
from dash_insight.web.plugin import CardRequest


def no_landscape() -> list[Any]:
    """The card of a job without a loss landscape: how to record one."""
    return interpolate(
        _("No loss landscape. Collect one with {collect} and {landscape}, or {writer}."),
        collect=html.Code("collect_specified_data={'collect_landscape': {...}}"),
        landscape=html.Code("SummaryLandscape"),
        writer=html.Code("SummaryWriter.add_landscape(...)"),
    )


def landscape_card(request: CardRequest, service: LandscapeService) -> tuple[Any, Any]:
    """A static 3D surface of the first interval (in MindInsight's order) with its path."""
    train_id = request.job.train_id
    landscapes = service.landscapes(train_id)
    intervals = sorted(landscapes.intervals, key=lambda r: r.value[0])
    candidates = intervals or landscapes.finals
    if not candidates:
        return no_data(no_landscape()), None
    chosen = candidates[0]
    value = service.value(train_id, chosen)
    try:
        figure = landscape_figure(
            grid(value),
            loss_path(value),
            VIEW_3D,
            DEFAULT_STYLE,
            height=230,
            small=True,
            animate=False,
        )
    except LandscapeError as error:
        return html.Div(f"{chosen.tag}: {error}", className="di-empty di-error-text"), None
    body = dcc.Graph(
        id="landscape-card-graph",
        figure=figure,
        config={"staticPlot": True, "displayModeBar": False},
    )
    count = len({r.interval_id for r in landscapes.intervals})
    foot = (
        f"{chosen.label} · "
        + ngettext("{count} interval", "{count} intervals", count).format(count=count)
        + (" · " + _("final") if landscapes.finals else "")
    )
    return body, foot
