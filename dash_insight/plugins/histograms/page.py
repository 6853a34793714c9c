"""Parameter distribution: the histograms of a job, one chart per tag, Top or Front view.

URL: ``/histograms?train_id=./job&tags=...&filter=...&view=top|front&axis=step|relative|absolute
&raw=1&page=N``. MindInsight 2.3.1's page (ui-reference 04a/04b): Tag Selection (All, regex
filter), "Angle of View" Front / Top (default Top), "Vertical axis" Step / Relative Time /
Absolute Time in the Top view, a chart per tag with a full-screen button, a pager. Buckets are
re-binned across the steps shown onto one grid of at most 30 bins, as MindInsight serves them;
``raw=1`` draws the buckets as written instead. Every step is kept (MindInsight: 50 sampled);
charts draw at most :data:`MAX_STEPS` of them, evenly spread, and say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dash
from dash import ClientsideFunction, Input, Output, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, lazy_gettext
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.histograms.query import histograms
from dash_insight.web import per_tag_page
from dash_insight.web.components.figures import GRAPH_CONFIG
from dash_insight.web.components.histogram_preview import preview_html
from dash_insight.web.components.histogram_views import (
    AXES,
    VIEWS,
    histogram_figure,
    register_full_screen,
    series_from_histograms,
    shown_text,
)
from dash_insight.web.components.lazy_graph import lazy_graph, register_lazy_graphs
from dash_insight.web.first_paint import Raw
from dash_insight.web.per_tag_page import CardContext, PerTagPage, PerTagUrl, always, segmented
from dash_insight.web.url_state import Choice, Flag

PATH = "/histograms"
PREFIX = "hist"
#: Steps drawn per chart at most (evenly spread over the tag's steps, the last one kept).
MAX_STEPS = 100
#: Charts per page.
PAGE_SIZE = 12
#: Cards drawn on the server for the page's first paint: its first row, the cards on the
#: first screen of a 1600 x 1000 window (three cards a row, the second row below the fold).
FIRST_CARDS = 3


def empty() -> list[Any]:
    """What a job without histograms shows: how to record them."""
    return interpolate(
        _(
            "This job has no parameter distribution (histogram) yet. SummaryCollector records "
            "the first five weights by default ({specified} chooses others); in the network use "
            "{summary}, or {add_value}."
        ),
        specified=html.Code("collect_specified_data={'histogram_regular': '^conv1.*'}"),
        summary=html.Code("ops.HistogramSummary"),
        add_value=html.Code("SummaryRecord.add_value('histogram', name, tensor)"),
    )


@dataclass(frozen=True)
class HistogramsUrl(PerTagUrl):
    """What the page's URL says (:data:`STATE`): the job, tags, filter and page of every
    per-tag page, the ``view`` (Top / Front), the ``axis`` of the Top view, ``raw`` buckets."""

    view: str = "top"
    axis: str = "step"
    raw: bool = False


#: The page's URL state: each attribute of :class:`HistogramsUrl` and its URL parameter.
STATE = per_tag_page.page_state(
    HistogramsUrl,
    view=Choice("view", "top", VIEWS),
    axis=Choice("axis", "step", AXES),
    raw=Flag("raw"),
)


def controls(state: HistogramsUrl) -> list[html.Div]:
    """Angle of view, vertical axis (Top view only), raw buckets."""
    return [
        html.Div(
            className="di-vp-row",
            children=[
                html.Span(_("Angle of view"), className="di-control-label"),
                segmented("hist-view", [("front", _("Front")), ("top", _("Top"))], state.view),
                html.Span(
                    id="hist-axis-group",
                    className="di-vp-group",
                    children=[
                        html.Span(_("Vertical axis"), className="di-control-label"),
                        segmented(
                            "hist-axis",
                            [
                                ("step", _("Step")),
                                ("relative", _("Relative time (s)")),
                                ("absolute", _("Absolute time")),
                            ],
                            state.axis,
                        ),
                    ],
                    style={"display": "none"} if state.view == "front" else {},
                ),
                dcc.Checklist(
                    id="hist-raw",
                    value=["1"] if state.raw else [],
                    options=[
                        {"label": " " + _("Raw buckets (as written, not re-binned)"), "value": "1"}
                    ],
                    className="di-vp-check",
                ),
            ],
        )
    ]


def histogram_card(
    provider: DataProvider,
    train_id: str,
    tag: str,
    state: HistogramsUrl,
    theme: str | None = None,
    first_paint: bool = False,
    preview: bool = False,
) -> html.Section:
    """One chart: the tag's histograms in the chosen view, a footer with the step count and
    the non-finite values the buckets leave out. ``first_paint``: for the page's first paint
    (static HTML, no figure built): with ``preview`` the chart drawn on the server
    (:mod:`~dash_insight.web.components.histogram_preview`), without it the card's frame
    only (below the first screen: nothing read)."""
    foot: list[Any] = []
    if first_paint and not preview:
        body: Any = lazy_graph(
            f"{PREFIX}|{tag}", {"type": "hist-graph", "tag": tag}, None, GRAPH_CONFIG, "di-vp-graph"
        )
        foot.append("\u00a0")  # the footer's line: the card keeps its height
        return _card_frame(tag, body, foot)
    try:
        total = len(provider.value_steps(train_id, PluginName.HISTOGRAM, tag))
        steps = histograms(provider, train_id, tag, rebin=not state.raw, max_steps=MAX_STEPS)
        series = series_from_histograms(steps, total)
        # Drawn when it comes on screen: a page of 12 charts of up to 200 traces each kept
        # the browser busy for seconds drawing charts below the screen.
        figure = (
            None
            if first_paint
            else histogram_figure(series, state.view, state.axis, height=None, theme=theme)
        )
        drawn = Raw(preview_html(series, state.view, state.axis, theme)) if preview else None
        body = lazy_graph(
            f"{PREFIX}|{tag}",
            {"type": "hist-graph", "tag": tag},
            figure,
            GRAPH_CONFIG,
            "di-vp-graph",
            drawn,
        )
        foot.append(shown_text(series))
        non_finite = {k: v for k, v in series.non_finite.items() if v}
        if non_finite:
            foot.append(
                html.Span(
                    " · "
                    + _("not in the buckets: {values} (most in a step)").format(
                        values=", ".join(f"{k} {v}" for k, v in non_finite.items())
                    ),
                    className="di-warning",
                )
            )
        if state.raw:
            foot.append(" · " + _("raw buckets"))
    except DataError as error:
        body = html.Div(localize_reason(str(error)), className="di-empty di-error-text")
    return _card_frame(tag, body, foot)


def _card_frame(tag: str, body: Any, foot: list[Any]) -> html.Section:
    """A card: the tag and its full-screen button, ``body``, ``foot``."""
    return html.Section(
        className="di-panel di-card di-vp-card",
        id={"type": "hist-card", "tag": tag},
        children=[
            html.Div(
                className="di-card-head",
                children=[
                    html.Span(tag, title=tag, className="di-vp-tag"),
                    html.Button(
                        _("Full screen"),
                        id={"type": "hist-full", "tag": tag},
                        title=_("Full screen"),
                        className="di-link-button di-vp-full",
                    ),
                ],
            ),
            html.Div(body, className="di-card-body"),
            html.Div(foot, className="di-card-foot"),
        ],
    )


def _card(context: CardContext[DataService, HistogramsUrl], tag: str) -> html.Section:
    return histogram_card(
        context.service.provider,
        context.train_id,
        tag,
        context.state,
        context.theme,
        context.first_paint,
        context.preview,
    )


PAGE: PerTagPage[DataService, HistogramsUrl] = PerTagPage(
    prefix=PREFIX,
    plugin=PluginName.HISTOGRAM,
    noun="histogram",
    title=lazy_gettext("Parameter Distribution"),
    kind=lazy_gettext("parameter distribution"),
    empty=empty,
    state=STATE,
    page_size=PAGE_SIZE,
    card=_card,
    controls=controls,
    control_fields=(("hist-view", "view"), ("hist-axis", "axis"), ("hist-raw", "raw")),
    card_fields=("view", "axis", "raw"),
    themed=always,
    loading=True,
)


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    return per_tag_page.layout(PAGE, app, service, params)


def first_paint(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    """The page's layout with the charts of its first row drawn on the server: what the
    browser paints before Dash starts (:mod:`dash_insight.web.first_paint`)."""
    return per_tag_page.layout(PAGE, app, service, params, previews=FIRST_CARDS)


def register(app: dash.Dash, service: DataService) -> None:
    per_tag_page.register(PAGE, app, service)
    register_full_screen(app, "hist-card", "hist-full")
    register_lazy_graphs(app)
    app.clientside_callback(
        ClientsideFunction(namespace="histogramsPage", function_name="axisGroupStyle"),
        Output("hist-axis-group", "style"),
        Input("hist-view", "value"),
        prevent_initial_call=True,
    )
