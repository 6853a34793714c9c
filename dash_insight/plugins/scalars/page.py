"""Scalars page of a job: tag selection, a grid of charts, smoothing, axes, log scale, zoom,
thresholds, composition of two tags, CSV/JSON download.

URL: ``/scalars?train_id=./job&tags=[...]&filter=re&axis=step&smoothing=0.6&page=2
&compose=["a","b"]&x_tag=epoch``; ``tags`` absent = every tag (as MindInsight selects all by
default); ``x_tag``: a tag whose values are the x axis.
Thresholds are remembered in the browser (localStorage), per job and tag.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import dash
import numpy as np
from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.plugins.scalars.figures_preview import PreviewLine, preview_html
from dash_insight.plugins.scalars.page_charts import (
    AXIS,
    CHART_FIELDS,
    SMOOTHING,
    ChartSpec,
    ChartUrl,
    SeriesSpec,
    chart_card,
    chart_ids,
    chart_plan,
    chart_stores,
    controls,
    delete_style,
    register_chart_callbacks,
    threshold_form,
    threshold_text,
)
from dash_insight.plugins.scalars.page_pins import page_pins, pinned_first
from dash_insight.plugins.scalars.query_smoothing import Smoother
from dash_insight.web.binding import triggered
from dash_insight.web.clicks import picker_button_drawn
from dash_insight.web.components.deferred import deferred_children
from dash_insight.web.components.job_notice import job_error, job_notice
from dash_insight.web.components.page_head import job_page_head
from dash_insight.web.components.run_colours import PALETTE
from dash_insight.web.components.tag_select import (
    checked_names,
    echoed,
    filter_tags,
    page_of,
    pager,
    pick,
    picker,
    picker_action,
    picker_inputs,
    register_picker,
    visible_tags,
)
from dash_insight.web.first_paint import Raw
from dash_insight.web.limits import MAX_FILTER_CHARS
from dash_insight.web.theme import request_theme
from dash_insight.web.url_state import (
    MAX_PAGE,
    Int,
    Tags,
    Text,
    TypedUrlState,
    make_search,
    parse_search,
    same_search,
)

#: The page's pins store (:mod:`.page_pins`; one per base directory, the app's).
PINS = {"type": "chart-pins", "page": "scalars", "base": ALL}
IDS = chart_ids("scalars")  # this page's axis, smoothing, data and thresholds components
PATH = "/scalars"
CHARTS_PER_PAGE = 24
#: Cards whose children are in the page at once: the first row of the grid (three cards in a
#: 1600 px window, the only row on its first screen). The others fill a row of the grid per
#: animation frame when they come on the screen (deferred_children; issue 17 item 8: React
#: mounting the 24 cards in one task was the page's longest freeze).
FIRST_CARDS = 3
CARD_ROW = 3
#: Points of a chart drawn on the server for the first paint (about a card's plot width in a
#: 1600 px window; the browser asks for its chart's own width).
PREVIEW_POINTS = 400
#: The height of a card with its threshold row (dash-insight.css), kept by a card not yet filled
#: so that the cards below keep their places.
CARD_HEIGHT = "327px"
COMPOSE_PREFIX = "compose\x1f"  # chart ids: "<train_id>|<tag>", or this + the composed tags
#: The longest job id a URL may give (longer ones are cut).
MAX_TEXT_CHARS = 4096


@dataclass(frozen=True)
class ScalarsUrl(ChartUrl):
    """What the page's URL says (:data:`STATE`): ``tags`` None = every tag; ``compose`` = the
    tags drawn together (two or more); the chart settings of :class:`~.page_charts.ChartUrl`."""

    train_id: str = ""
    tags: list[str] | None = None
    filter: str = ""
    page: int = 1
    compose: list[str] | None = None


@dataclass(frozen=True)
class ScalarsState(ScalarsUrl):
    """Everything the page shows (:func:`page_state`): the URL's state, with ``compose`` None
    unless two or more different tags of the job and ``x_tag`` "" unless a tag of the job;
    ``selected`` (the ticked tags, unknown tags dropped) and ``shown`` (the tags drawn:
    selected and matching the filter, as TensorBoard's filter decides the charts)."""

    selected: list[str] = dataclasses.field(default_factory=list)
    shown: list[str] = dataclasses.field(default_factory=list)


#: The page's URL state: each attribute of :class:`ScalarsUrl` and its URL parameter; lists
#: hold at most MAX_URL_LIST_ITEMS names (:func:`~dash_insight.web.url_state.decode_tags`).
STATE: TypedUrlState[ScalarsUrl] = TypedUrlState(
    ScalarsUrl,
    train_id=Text("train_id", max_chars=MAX_TEXT_CHARS),
    tags=Tags("tags"),
    filter=Text("filter", max_chars=MAX_FILTER_CHARS),
    page=Int("page", 1, 1, MAX_PAGE),
    compose=Tags("compose"),
    **CHART_FIELDS,
)


def chart_id(train_id: str, tag: str) -> str:
    return f"{train_id}|{tag}"


def page_state(params: Mapping[str, str], all_tags: list[str]) -> ScalarsState:
    """Everything the page shows, from the URL (:class:`ScalarsState`)."""
    url = STATE.parse(params)
    known = set(all_tags)
    selected = all_tags if url.tags is None else [t for t in url.tags if t in known]
    values = {field.name: getattr(url, field.name) for field in dataclasses.fields(url)}
    values.update(
        compose=None if url.compose is None else composition(url.compose, all_tags),
        # a tag the job does not have: the step or time axis
        x_tag=url.x_tag if url.x_tag in all_tags else "",
    )
    return ScalarsState(
        **values, selected=selected, shown=visible_tags(all_tags, selected, url.filter)
    )


def composition(tags: list[str] | None, all_tags: list[str]) -> list[str] | None:
    """The tags to compose in one chart: every chosen tag of the job, once each, in the order
    chosen (MindInsight composes all the tags selected); None when fewer than two."""
    chosen = list(dict.fromkeys(t for t in tags or [] if t in all_tags))
    return chosen if len(chosen) >= 2 else None


def state_search(state: ScalarsState, all_tags: list[str]) -> str:
    """The URL query of a page state (every tag selected: no ``tags``)."""
    tags = None if state.selected == all_tags else state.selected
    return make_search(STATE.params(dataclasses.replace(state, tags=tags)))


def next_state(
    state: ScalarsState,
    tags: list[str],
    trigger: Any,
    checked: list[str] | None,
    pattern: str | None,
    axis: str | None,
    smoothing: float | None,
    compose: list[str] | None,
    x_tag: str | None = None,
) -> ScalarsState:
    """The page state after the control ``trigger`` changed (the other arguments are the
    controls' values; ``checked`` = the names ticked in the picker's list). Tags hidden by the
    filter keep their selection; a change of the tags or the filter goes back to page 1;
    "Compose" needs two or more different tags (``compose``, the composition control's)."""
    visible, _unused = filter_tags(tags, pattern or "")
    action = picker_action(trigger, "scalar-tags")
    if action is not None:
        selected = pick(tags, state.selected, checked, visible, action)
        if selected != state.selected:
            return dataclasses.replace(state, selected=selected, page=1)
    elif trigger == "scalar-tags-filter":
        if (pattern or "") != state.filter:
            return dataclasses.replace(state, filter=pattern or "", page=1)
    elif trigger == IDS["axis"]:
        return dataclasses.replace(state, axis=AXIS.from_control(axis))
    elif trigger == IDS["smoothing"]:
        return dataclasses.replace(state, smoothing=SMOOTHING.from_control(smoothing))
    elif trigger == IDS["xtag"]:
        return dataclasses.replace(state, x_tag=x_tag if x_tag in tags else "")
    elif trigger == "scalar-prev":
        return dataclasses.replace(state, page=max(1, state.page - 1))
    elif trigger == "scalar-next":
        return dataclasses.replace(state, page=state.page + 1)
    elif trigger == "compose-apply" and composition(compose, tags) is not None:
        return dataclasses.replace(state, compose=composition(compose, tags))
    elif trigger == "compose-remove":
        return dataclasses.replace(state, compose=None)
    return state


def threshold_of(
    ops: list[str | None], values: list[float | None], combine: str | None
) -> dict[str, Any] | None:
    """The threshold the form sets: its conditions (``ops[i]`` ">" or "<" with ``values[i]``)
    that have both an operator and a value, combined by ``combine`` ("and" when unset); None
    when no condition is complete (MindInsight's threshold dialog: one or two conditions)."""
    conditions = [
        [op, float(value)]
        for op, value in zip(ops, values, strict=True)
        if op in (">", "<") and value is not None
    ]
    if not conditions:
        return None
    return {"conditions": conditions, "combine": combine or "and"}


def chart_specs(train_id: str, state: ScalarsState) -> tuple[list[ChartSpec], int]:
    """Charts of the current page (the composed chart first) and the number of pages."""
    on_page, _unused, pages = page_of(state.shown, state.page, CHARTS_PER_PAGE)
    charts = [
        ChartSpec(chart_id(train_id, tag), tag, (SeriesSpec(train_id, tag, tag),))
        for tag in on_page
    ]
    if state.compose:
        composed = state.compose
        # Tags of like ranges share an axis; one of a range ten times apart gets the right
        # axis, a third range an axis of its own (charts.chart_plan, axis_scale.axis_groups).
        charts.insert(
            0,
            ChartSpec(
                COMPOSE_PREFIX + "\x1f".join([train_id, *composed]),
                "  +  ".join(composed),
                tuple(SeriesSpec(train_id, tag, tag) for tag in composed),
                grouped_axes=True,
            ),
        )
    return charts, pages


@dataclass(frozen=True)
class GridContent:
    """What the chart grid shows for a URL: the cards (or a message), the "N of M tags" and
    "page / pages" texts, the plan the browser draws from, and the ids of the charts."""

    cards: Any
    total: str
    page: str
    plan: dict[str, Any]
    chart_ids: list[str]


def grid_content(
    provider: DataProvider,
    train_id: str,
    state: ScalarsState,
    tags: list[str],
    thresholds: dict | None,
    previews: bool = False,
) -> GridContent:
    """The grid of the page's layout and of its callback (``thresholds``: the browser's,
    {chart id: threshold}; None when not known yet, as when the layout is built).
    ``previews``: the cards of the first row hold their chart drawn on the server (the page's
    first paint, :func:`first_paint`)."""
    charts, pages = chart_specs(train_id, state)
    total = ngettext("{shown} of {count} tag", "{shown} of {count} tags", len(tags)).format(
        shown=len(state.shown), count=len(tags)
    )
    page = f"{min(state.page, pages)} / {pages}"
    plan = chart_plan(provider, charts, state.x_tag, state.epoch_steps)
    ids = [chart.chart_id for chart in charts]
    if not charts:
        message = (
            _("No scalar in this job yet.")
            if not tags
            else _("No tag selected: pick tags above, or clear the filter.")
        )
        return GridContent(html.Div(message, className="di-panel di-empty"), total, page, plan, ids)
    flipped, log_x = set(state.best_flip or ()), set(state.log_x or ())
    plans = {entry["id"]: entry for entry in plan["charts"]}
    cards = [
        chart_card(
            chart,
            with_thresholds=not chart.chart_id.startswith(COMPOSE_PREFIX),
            threshold=(thresholds or {}).get(chart.chart_id),
            flipped=chart.chart_id in flipped,
            log_x=chart.chart_id in log_x,
            preview=chart_preview(provider, plans[chart.chart_id], state)
            if previews and i < FIRST_CARDS
            else None,
            pin=None if chart.chart_id.startswith(COMPOSE_PREFIX) else chart.title,
        )
        for i, chart in enumerate(charts)
    ]
    if previews:
        # A first paint shows a screen or two: the cards below would only cost the browser
        # style and layout work before Dash starts (the page's own cards follow them).
        cards = cards[: 2 * CARD_ROW]
    else:
        cards = [
            card
            if i < FIRST_CARDS
            else deferred_children(card, CARD_HEIGHT, CARD_ROW, keep=_is_title)
            for i, card in enumerate(cards)
        ]
    return GridContent(cards, total, page, plan, ids)


def _is_title(component: Any) -> bool:
    """A card's title: in the card at once, before its toolbar and chart (tests and the reader
    see which charts the page has)."""
    return getattr(component, "className", None) == "di-chart-title"


def export_links(
    relative_path: Callable[[str], str], train_id: str, state: ScalarsState
) -> tuple[str, str]:
    """The CSV and JSON export links of the tags drawn (``relative_path``: the app's
    ``get_relative_path``)."""
    export = relative_path("/v1/dash-insight/export/scalars")
    query = [("train_id", train_id)] + [("tag", t) for t in state.shown]

    def link(fmt: str) -> str:
        return f"{export}?{urlencode([*query, ('format', fmt)])}"

    return link("csv"), link("json")


def chart_preview(provider: DataProvider, plan: dict[str, Any], state: ScalarsState) -> Raw | None:
    """A chart of the page drawn on the server (:mod:`.preview`) from its ``plan`` entry
    (:func:`~.page_charts.chart_plan`), at :data:`PREVIEW_POINTS`; None for what it does not draw
    (a composition, an absolute time or tag's axis, a log x axis) or cannot read."""
    series = plan["series"]
    if (
        len(series) != 1
        or plan["problems"]
        or state.axis not in ("step", "relative")
        or state.x_tag
        or plan["id"] in set(state.log_x or ())
    ):
        return None
    spec = series[0]
    try:
        window = provider.read_scalar_window(
            spec["train_id"], spec["tag"], None, None, PREVIEW_POINTS
        )
    except DataError:
        return None
    points = window.series
    if not len(points):
        return None
    start = float(points.wall_time[0])
    relative = state.axis == "relative"
    x = points.wall_time - start if relative else points.step.astype(np.float64)
    direction = spec["direction"]
    if plan["id"] in set(state.best_flip or ()):
        direction = "min" if direction == "max" else "max"
    best = (spec["best"] or {}).get(direction)
    best_at = (
        None
        if best is None
        else ((best["wall"] - start if relative else best["step"]), best["value"])
    )
    note = ""
    smoother = Smoother(state.smoother, state.smoothing, state.window)
    if len(points) < spec["total"]:
        note = _("{shown} of {total} points drawn").format(shown=len(points), total=spec["total"])
        if smoother.changes:
            note += _(" (smoothed as drawn)")
    markup = preview_html(
        [PreviewLine(x, points.value.astype(np.float64), spec["colour"] or PALETTE[0], best_at)],
        smoother,
        _("relative time (s)") if relative else _("step"),
        note,
        dark=request_theme() == "dark",
        markers=[]
        if relative
        else [(m["step"], m["kind"], m["label"]) for m in spec.get("markers", [])],
        outliers=state.outliers,
    )
    return Raw(markup) if markup else None


def first_paint(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    """The page's layout with the charts of its first row drawn on the server: what the
    browser paints before Dash starts (:mod:`dash_insight.web.first_paint`)."""
    return layout(app, service, params, previews=True)


def layout(
    app: dash.Dash, service: DataService, params: dict[str, str], previews: bool = False
) -> html.Div:
    train_id = params.get("train_id", "")
    try:
        all_tags = service.provider.list_tags(train_id, "scalar")
    except DataError as error:
        return job_error(app, error)
    state = page_state(params, all_tags)
    content = grid_content(service.provider, train_id, state, all_tags, None, previews)
    return html.Div(
        [
            page_head(app, train_id, state),
            job_notice(service.provider.job(train_id), "scalar-job-notice"),
            html.Div(
                className="di-panel",
                children=[
                    picker(
                        "scalar-tags",
                        _("Tag Selection"),
                        all_tags,
                        state.selected,
                        state.filter,
                    ),
                    controls("scalars", state, all_tags),
                    compose_row(all_tags, state),
                ],
            ),
            *chart_stores("scalars", content.plan, service.summary_base_dir),
            threshold_form(),
            html.Div(content.cards, id="scalar-grid", className="di-chart-grid"),
            pager("scalar", texts=(content.total, content.page)),
        ]
    )


def page_head(app: dash.Dash, train_id: str, state: ScalarsState) -> html.Div:
    """The page's title, its job and the CSV and JSON downloads of the tags drawn."""
    csv_link, json_link = export_links(app.get_relative_path, train_id, state)
    return job_page_head(
        app,
        _("Scalars"),
        train_id,
        html.A(
            _("Download CSV"),
            id="scalar-download-csv",
            href=csv_link,
            className="di-button secondary",
        ),
        html.A(
            _("Download JSON"),
            id="scalar-download-json",
            href=json_link,
            className="di-button secondary",
        ),
    )


def compose_row(all_tags: list[str], state: ScalarsState) -> html.Div:
    """Compose tags into one chart: the tags, "Compose", and "Remove composition" while the
    URL composes some."""
    return html.Div(
        className="di-toolbar",
        children=[
            html.Span(_("Compose tags"), className="di-muted"),
            dcc.Dropdown(
                id="compose-tags",
                options=all_tags,
                multi=True,
                className="di-compose",
                value=state.compose or [],
                placeholder=_("two or more tags"),
            ),
            html.Button(_("Compose"), id="compose-apply", className="di-button"),
            html.Button(
                _("Remove composition"),
                id="compose-remove",
                className="di-button secondary",
                style={} if state.compose else {"display": "none"},
            ),
        ],
    )


def current_state(
    provider: DataProvider, search: str | None
) -> tuple[str, ScalarsState, list[str]]:
    """The job, :func:`page_state` and scalar tags of the URL ``search``."""
    params = parse_search(search)
    train_id = params.get("train_id", "")
    try:
        tags = provider.list_tags(train_id, "scalar")
    except DataError:
        tags = []
    return train_id, page_state(params, tags), tags


def grid(
    provider: DataProvider,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    shown: list[dict],
    drawn: dict | None,
    thresholds: dict | None,
    pins: Any = None,
) -> tuple:
    """Card frames and their plan in one answer, without points: the browser fetches each
    chart's points when it comes on screen and draws it as they arrive. ``pins``: the page's
    pins store (:mod:`.page_pins`): the pinned tags first."""
    train_id, state, tags = current_state(provider, search)
    state = dataclasses.replace(state, shown=pinned_first(state.shown, page_pins(pins)))
    content = grid_content(provider, train_id, state, tags, thresholds)
    payload: Any = content.plan
    if drawn and drawn.get("stamp") == payload["stamp"]:
        payload = dash.no_update  # nothing new (a refresh, or the same URL spelt again)
    if content.chart_ids == [s["chart"] for s in shown]:
        # same charts: keep them (and zoom)
        return dash.no_update, content.total, content.page, payload
    return content.cards, content.total, content.page, payload


def picked(provider: DataProvider, search: str | None) -> tuple[list[str], list[str], str]:
    """The tag picker's names, ticked names and filter (``register_picker``'s ``read``)."""
    _unused, state, tags = current_state(provider, search)
    return tags, state.selected, state.filter


def controls_to_url(
    provider: DataProvider,
    trigger: Any,
    clicked: bool,
    rows: Any,
    _all: Any,
    _none: Any,
    pattern: str | None,
    axis: str,
    smoothing: float | None,
    _prev: Any,
    _next: Any,
    _compose: Any,
    _remove: Any,
    x_tag: str | None,
    composed: list[str] | None,
    search: str | None,
) -> Any:
    """The URL after a control changed (``trigger``, None when several inputs fired at once);
    ``no_update`` when it says the same."""
    if trigger is None or picker_button_drawn(trigger, clicked):
        # Dash calls this once when the page's controls appear (the tag list filled from
        # the URL), with every input in ctx.triggered: triggered_id is then just the first,
        # the "All" button, which would replace a linked ``tags=`` by every tag. A click
        # changes one input; here nothing changed, the URL holds the state already.
        return dash.no_update
    _unused, state, tags = current_state(provider, search)
    checked = checked_names(rows)
    pattern = None if pattern is None else str(pattern)[:MAX_FILTER_CHARS]
    if echoed(trigger, "scalar-tags", checked, tags, state.selected, state.filter):
        return dash.no_update
    state = next_state(state, tags, trigger, checked, pattern, axis, smoothing, composed, x_tag)
    new = state_search(state, tags)
    return dash.no_update if same_search(new, search) else new


def downloads(
    provider: DataProvider,
    relative_path: Callable[[str], str],
    search: str | None,
    _ticks: Any,
    _clicks: Any,
) -> tuple:
    """The "Remove composition" button's style and the export links, which name the tags
    drawn."""
    train_id, state, _unused = current_state(provider, search)
    return (
        {} if state.compose else {"display": "none"},
        *export_links(relative_path, train_id, state),
    )


def thresholds(
    provider: DataProvider,
    trigger: Any,
    applied: Any,
    delete: dict | None,
    op1: str | None,
    value1: float | None,
    op2: str | None,
    value2: float | None,
    combine: str | None,
    to_all: list | None,
    target: str | None,
    stored: dict | None,
    search: str | None,
) -> Any:
    """Apply the form to its chart (or to every selected tag), or drop a chart's
    threshold; the browser keeps them ({chart id: threshold})."""
    stored = dict(stored or {})
    if trigger == "th-delete-request":
        if not delete:
            return dash.no_update
        stored.pop(delete["chart"], None)
        return stored
    threshold = threshold_of([op1, op2], [value1, value2], combine)
    if not applied or not target or threshold is None:
        return dash.no_update
    if "all" in (to_all or []):
        train_id, state, _unused = current_state(provider, search)
        targets = [chart_id(train_id, tag) for tag in state.shown]
    else:
        targets = [target]
    return {**stored, **dict.fromkeys(targets, threshold)}


def threshold_labels(stored: dict | None, ids: list[dict]) -> tuple[list[str], list[Any]]:
    """Each chart's threshold text and the style of its delete button."""
    chosen = [(stored or {}).get(i["chart"]) for i in ids]
    return [threshold_text(t) for t in chosen], [delete_style(t) for t in chosen]


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_picker(app, "scalar-tags", functools.partial(picked, provider))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        *picker_inputs("scalar-tags"),
        Input(IDS["axis"], "value"),
        Input(IDS["smoothing"], "value"),
        Input("scalar-prev", "n_clicks"),
        Input("scalar-next", "n_clicks"),
        Input("compose-apply", "n_clicks"),
        Input("compose-remove", "n_clicks"),
        Input(IDS["xtag"], "value"),
        State("compose-tags", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(controls_to_url, provider), clicked=True, single=True))
    app.callback(
        Output("compose-remove", "style"),
        Output("scalar-download-csv", "href"),
        Output("scalar-download-json", "href"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(downloads, provider, app.get_relative_path))
    app.callback(
        Output("scalar-grid", "children"),
        Output("scalar-total", "children"),
        Output("scalar-page", "children"),
        Output(IDS["data"], "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        # The cards, filled or not yet (deferred_children: their graph slots come later).
        State({"type": "chart-card", "chart": ALL}, "id"),
        State(IDS["data"], "data"),
        State(IDS["thresholds"], "data"),
        Input(PINS, "data"),  # the pinned tags come first
        # The page's layout holds the first grid and plan: no round trip before the charts.
        prevent_initial_call=True,
    )(functools.partial(grid, provider))
    _bind_thresholds(app, provider)
    register_chart_callbacks(app)


def _bind_thresholds(app: dash.Dash, provider: DataProvider) -> None:
    """The threshold form (opened and closed in the browser), the thresholds it sets and the
    charts' threshold texts."""
    app.clientside_callback(
        ClientsideFunction(namespace="scalarThresholds", function_name="form"),
        Output("th-target", "data"),
        Output("th-form", "hidden"),
        Output("th-form-title", "children"),
        Input({"type": "th-open", "chart": ALL}, "n_clicks"),
        Input("th-apply", "n_clicks"),
        Input("th-cancel", "n_clicks"),
        State({"type": "th-open", "chart": ALL}, "id"),
        State({"type": "th-open", "chart": ALL}, "value"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(namespace="scalarThresholds", function_name="remove"),
        Output("th-delete-request", "data"),
        Input({"type": "th-delete", "chart": ALL}, "n_clicks"),
        prevent_initial_call=True,
    )
    app.callback(
        Output(IDS["thresholds"], "data"),
        Input("th-apply", "n_clicks"),
        Input("th-delete-request", "data"),
        State("th-op-1", "value"),
        State("th-value-1", "value"),
        State("th-op-2", "value"),
        State("th-value-2", "value"),
        State("th-combine", "value"),
        State("th-all", "value"),
        State("th-target", "data"),
        State(IDS["thresholds"], "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(thresholds, provider)))
    app.callback(
        Output({"type": "th-current", "chart": ALL}, "children"),
        Output({"type": "th-delete", "chart": ALL}, "style"),
        Input(IDS["thresholds"], "data"),
        State({"type": "th-current", "chart": ALL}, "id"),
        prevent_initial_call=True,
    )(threshold_labels)
