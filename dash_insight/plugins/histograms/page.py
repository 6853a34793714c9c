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

from typing import Any

import dash
from dash import Input, Output, State, ctx, dcc, html

from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import Plugin
from dash_insight.plugins.histograms.query import histograms
from dash_insight.web.components.histogram_views import (
    AXES,
    VIEWS,
    histogram_figure,
    register_full_screen,
    series_from_histograms,
    shown_text,
)
from dash_insight.web.components.tag_select import (
    page_after,
    pager,
    register_tag_select,
    selection_from_params,
    tag_select,
    tags_on_page,
    tags_to_params,
    user_change,
)
from dash_insight.web.components.value_pages import GRAPH_CONFIG, head, plugin_tags, unknown_message
from dash_insight.web.url_state import int_param, make_search, parse_search

PATH = "/histograms"
PREFIX = "hist"
#: Steps drawn per chart at most (evenly spread over the tag's steps, the last one kept).
MAX_STEPS = 100
#: Charts per page.
PAGE_SIZE = 12
EMPTY = ["This job has no parameter distribution (histogram) yet. SummaryCollector records the "
         "first five weights by default (", html.Code("collect_specified_data="
                                                      "{'histogram_regular': '^conv1.*'}"),
         " chooses others); in the network use ", html.Code("ops.HistogramSummary"),
         ", or ", html.Code("SummaryRecord.add_value('histogram', name, tensor)"), "."]


def page_state(params: dict[str, str]) -> dict[str, Any]:
    """View settings from the URL, unknown values replaced by the defaults."""
    view = params.get("view", "top")
    axis = params.get("axis", "step")
    return {
        "view": view if view in VIEWS else "top",
        "axis": axis if axis in AXES else "step",
        "raw": params.get("raw") == "1",
        "page": int_param(params, "page", 1, 1, 10**6),
        "filter": params.get("filter", ""),
    }


def state_search(train_id: str, tag_params: dict[str, str | None], state: dict[str, Any]
                 ) -> str:
    """The URL query of a page state (defaults left out)."""
    return make_search({
        "train_id": train_id, **tag_params,
        "view": None if state["view"] == "top" else state["view"],
        "axis": None if state["axis"] == "step" else state["axis"],
        "raw": "1" if state["raw"] else None,
        "page": None if state["page"] == 1 else state["page"],
    })


def _radio(component_id: str, options: list[tuple[str, str]], value: str) -> dcc.RadioItems:
    return dcc.RadioItems(id=component_id, value=value, inline=True,
                          className="di-segmented",
                          options=[{"label": label, "value": v} for v, label in options])


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    train_id = params.get("train_id", "")
    title = head(app, "Parameter Distribution", train_id)
    tags, message = plugin_tags(app, service.provider, train_id, Plugin.HISTOGRAM, title, EMPTY,
                                "hist-empty")
    if message is not None:
        return message
    state = page_state(params)
    selected, _ = selection_from_params(params, tags)
    return html.Div([
        title,
        html.Div(className="di-panel di-vp-controls", children=[
            tag_select(PREFIX, tags, selected, state["filter"]),
            html.Div(className="di-vp-row", children=[
                html.Span("Angle of view", className="di-control-label"),
                _radio("hist-view", [("front", "Front"), ("top", "Top")], state["view"]),
                html.Span(id="hist-axis-group", className="di-vp-group", children=[
                    html.Span("Vertical axis", className="di-control-label"),
                    _radio("hist-axis", [("step", "Step"), ("relative", "Relative time (s)"),
                                         ("absolute", "Absolute time")], state["axis"]),
                ], style={"display": "none"} if state["view"] == "front" else {}),
                dcc.Checklist(id="hist-raw", value=["1"] if state["raw"] else [],
                              options=[{"label": " Raw buckets (as written, not re-binned)",
                                        "value": "1"}], className="di-vp-check"),
            ]),
        ]),
        dcc.Store(id="hist-shown"),
        html.Div(id="hist-notice"),
        dcc.Loading(html.Div(id="hist-cards", className="di-vp-grid"), type="dot",
                    delay_show=400),
        pager(PREFIX, 0, 1, 1),
    ])


def histogram_card(provider: DataProvider, train_id: str, tag: str, state: dict[str, Any],
                   theme: str | None = None) -> html.Section:
    """One chart: the tag's histograms in the chosen view, a footer with the step count and
    the non-finite values the buckets leave out."""
    foot: list[Any] = []
    try:
        total = len(provider.value_steps(train_id, Plugin.HISTOGRAM, tag))
        steps = histograms(provider, train_id, tag, rebin=not state["raw"], max_steps=MAX_STEPS)
        series = series_from_histograms(steps, total)
        body: Any = dcc.Graph(
            figure=histogram_figure(series, state["view"], state["axis"], height=None,
                                    theme=theme),
            config=GRAPH_CONFIG, className="di-vp-graph", responsive=True,
            id={"type": "hist-graph", "tag": tag})
        foot.append(shown_text(series))
        non_finite = {k: v for k, v in series.non_finite.items() if v}
        if non_finite:
            foot.append(html.Span(
                " · not in the buckets: " + ", ".join(f"{k} {v}" for k, v in
                                                      non_finite.items()) + " (most in a step)",
                className="di-warning"))
        if state["raw"]:
            foot.append(" · raw buckets")
    except DataError as error:
        body = html.Div(str(error), className="di-empty di-error-text")
    return html.Section(className="di-panel di-card di-vp-card",
                        id={"type": "hist-card", "tag": tag}, children=[
        html.Div(className="di-card-head", children=[
            html.Span(tag, title=tag, className="di-vp-tag"),
            html.Button("Full screen", id={"type": "hist-full", "tag": tag}, title="Full screen",
                        className="di-link-button di-vp-full"),
        ]),
        html.Div(body, className="di-card-body"),
        html.Div(foot, className="di-card-foot"),
    ])


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_tag_select(app, PREFIX)
    register_full_screen(app, "hist-card", "hist-full")

    app.clientside_callback(
        "function(view) { return view === 'front' ? {display: 'none'} : {}; }",
        Output("hist-axis-group", "style"), Input("hist-view", "value"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(f"{PREFIX}-tags", "value"), Input(f"{PREFIX}-filter", "value"),
        Input("hist-view", "value"), Input("hist-axis", "value"), Input("hist-raw", "value"),
        Input(f"{PREFIX}-prev", "n_clicks"), Input(f"{PREFIX}-next", "n_clicks"),
        State(f"{PREFIX}-tag-list", "data"), State("url", "search"),
        prevent_initial_call=True,
    )
    def controls_to_url(selected: list[str] | None, pattern: str | None, view: str | None,
                        axis: str | None, raw: list[str] | None, _prev: int | None,
                        _next: int | None, tags: list[str] | None, search: str | None) -> Any:
        if not user_change():
            return dash.no_update
        params = parse_search(search)
        state = page_state(params)
        trigger = ctx.triggered_id
        state["page"], paged = page_after(trigger, PREFIX, state["page"])
        if not paged:
            state.update(view=view or "top", axis=axis or "step", raw=bool(raw))
        new = state_search(params.get("train_id", ""),
                           tags_to_params(tags or [], selected, pattern or ""), state)
        return dash.no_update if new == (search or "") else new

    @app.callback(
        Output("hist-cards", "children"), Output("hist-notice", "children"),
        Output(f"{PREFIX}-total", "children"), Output(f"{PREFIX}-page", "children"),
        Output(f"{PREFIX}-prev", "disabled"), Output(f"{PREFIX}-next", "disabled"),
        Output("hist-shown", "data"),
        Input("url", "search"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"), Input("theme", "data"), State("hist-shown", "data"),
    )
    def cards(search: str | None, _ticks: int | None, _clicks: int | None, theme: str | None,
              shown: list | None) -> Any:
        params = parse_search(search)
        train_id = params.get("train_id", "")
        try:
            job = provider.job(train_id)
        except DataError as error:
            return (html.Div(str(error), className="di-empty"), None, "", "", True, True,
                    None)
        tags = job.tags["histogram"]
        state = page_state(params)
        on_page, page, pages, unknown, total = tags_on_page(params, tags, state["filter"],
                                                            state["page"], PAGE_SIZE)
        key = [train_id, job.version, on_page, state["view"], state["axis"], state["raw"],
               unknown, theme]
        if shown == key:
            return (dash.no_update,) * 7
        built: Any = [histogram_card(provider, train_id, tag, state, theme) for tag in on_page]
        if not built:
            built = html.Div("No tag selected: tick tags above, or clear the filter."
                             if tags else "No histogram yet.", className="di-empty")
        return (built, unknown_message(unknown, train_id, "histogram"), total,
                f"{page} / {pages}", page <= 1, page >= pages, key)
