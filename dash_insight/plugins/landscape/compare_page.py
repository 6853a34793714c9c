"""Loss Graph Comparison: the final landscape of several jobs (MindInsight's
``/compare-analysis/loss``, the tab beside "Scalar Comparison").

URL: ``/compare/landscape?jobs=[...]&job_filter=re&view=contour|filled|3d&mode=tile|overlay
&scale=jet&overlay=[...]`` (defaults left out). Every job with a loss landscape can be chosen
(all are, by default, as in MindInsight, up to :data:`DEFAULT_JOBS`) in the job picker
(:func:`~dash_insight.web.components.tag_select.picker`); the jobs drawn are the ticked ones
that match its filter.

Each job's name carries its run colour (a dot), the colour of its lines on the scalar comparison.

* Tile: one card per job with its final landscape, the convergence point marked, and below it
  Network, Optimizer, Learning Rate and the first evaluation metric (else ``loss`` = the
  convergence point's loss). A job without a final landscape says so, with ``--`` everywhere.
* Overlay: at most two jobs (MindInsight's limit) in one figure over one shared loss range:
  both surfaces in one 3D scene, each shaded in its run colour (the colour scale chosen applies
  to the tiles and the contour maps), or both contour maps side by side titled in their run
  colours; each convergence point in its run colour, the legend naming each run once.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import dash
from dash import Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import format_number, lazy_gettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError
from dash_insight.plugins.landscape.figures import (
    COLOUR_SCALES,
    DEFAULT_VIEW,
    SCALE_LABELS,
    VIEWS,
    Style,
    landscape_figure,
    overlay_figure,
)
from dash_insight.plugins.landscape.query import (
    NOT_EXIST_TEXT,
    TYPE_FINAL,
    Grid,
    LandscapeError,
    convergence_point,
    evaluation_metric,
    grid,
    lineage_metadata,
)
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web.binding import triggered
from dash_insight.web.clicks import picker_button_drawn
from dash_insight.web.components.compare_runs import tab_answer_key, tab_body_inputs
from dash_insight.web.components.compare_tabs import compare_head, label_texts, offered
from dash_insight.web.components.figures import graph_config
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.components.run_colours import run_colours, run_dot
from dash_insight.web.components.tag_select import (
    checked_names,
    echoed,
    filter_tags,
    pick,
    picker,
    picker_action,
    picker_inputs,
    register_picker,
    visible_tags,
)
from dash_insight.web.url_state import (
    Choice,
    Tags,
    Text,
    TypedUrlState,
    make_search,
    parse_search,
    same_search,
)

PATH = "/compare/landscape"
TITLE = lazy_gettext("Loss Graph Comparison")
MODES = {"tile": lazy_gettext("Tile"), "overlay": lazy_gettext("Overlay")}
DEFAULT_MODE = "tile"
DEFAULT_JOBS = 12
MAX_OVERLAY = 2
#: The height of a tile's chart box (px): the chart fills it, so the 3D scene, its ticks and
#: colour bar stay inside the card, and the training information below it (a responsive
#: ``dcc.Graph`` is 100% of its parent: a grid row's whole height, or nearly nothing).
TILE_HEIGHT = 340
#: Significant digits of a card's metric or loss (as the landscape's hover: ``.6g``).
METRIC_DIGITS = 6
GRAPH_CONFIG: dcc.Graph.Config = graph_config(
    toImageButtonOptions={"format": "png", "filename": "loss-comparison"}
)


@dataclass(frozen=True)
class JobFinal:
    """One job's card: its final landscape (None with the reason) and training information."""

    train_id: str
    cells: Grid | None
    point: list[float | int]
    metadata: dict[str, Any]
    problem: str | None = None


def current_state(
    service: LandscapeService, params: dict[str, str]
) -> tuple[list[str], CompareState]:
    """The jobs the URL ``params``' picker offers (:func:`landscape_jobs`) and the page's
    state (:func:`page_state`, its filter searching the runs' labels too)."""
    jobs = landscape_jobs(service, params)
    return jobs, page_state(params, jobs, label_texts(service.provider, jobs))


def landscape_jobs(service: LandscapeService, params: Mapping[str, str]) -> list[str]:
    """Jobs with a loss landscape, newest update first, that the URL ``params``' job picker
    offers (archived runs left out unless shown,
    :func:`~dash_insight.web.components.compare_tabs.offered`)."""
    jobs = [job.train_id for job in service.provider.list_jobs() if job.tags.get("loss_landscape")]
    return offered(service.provider, jobs, params)


@dataclass(frozen=True)
class CompareUrl:
    """The page's URL parameters: the ticked jobs (None, absent: the first
    :data:`DEFAULT_JOBS`), the job filter, view, mode, colour scale and the overlay's jobs
    (None: the first two with a final landscape)."""

    jobs: list[str] | None = None
    job_filter: str = ""
    view: str = DEFAULT_VIEW
    mode: str = DEFAULT_MODE
    scale: str = "jet"
    overlay: list[str] | None = None


#: :class:`CompareUrl` in the URL, each attribute under its own name.
STATE: TypedUrlState[CompareUrl] = TypedUrlState(
    CompareUrl,
    jobs=Tags("jobs"),
    job_filter=Text("job_filter"),
    view=Choice("view", DEFAULT_VIEW, tuple(VIEWS)),
    mode=Choice("mode", DEFAULT_MODE, tuple(MODES)),
    scale=Choice("scale", "jet", COLOUR_SCALES),
    overlay=Tags("overlay"),
)


@dataclass(frozen=True)
class CompareState:
    """What the page shows for its URL among the jobs offered: ``selected`` (the ticked
    jobs), ``jobs`` (those drawn: ticked and matching ``job_filter``, which searches
    ``job_texts`` for a run with labels), whether the URL named the jobs, view, mode, colour
    scale and the overlay's jobs (among those drawn; None: not chosen)."""

    selected: list[str]
    job_filter: str
    job_texts: dict[str, str]
    jobs: list[str]
    explicit_jobs: bool
    view: str
    mode: str
    scale: str
    overlay: list[str] | None


def page_state(
    params: dict[str, str], jobs: list[str], texts: Mapping[str, str] | None = None
) -> CompareState:
    """The :class:`CompareState` of the URL ``params`` (:data:`STATE`) among ``jobs``
    (``texts``: :func:`~dash_insight.web.components.compare_tabs.label_texts`)."""
    url = STATE.parse(params)
    chosen = url.jobs
    selected = jobs[:DEFAULT_JOBS] if chosen is None else [j for j in jobs if j in chosen]
    shown = visible_tags(jobs, selected, url.job_filter, texts)
    overlay = None if url.overlay is None else [j for j in url.overlay if j in shown]
    return CompareState(
        selected,
        url.job_filter,
        dict(texts or {}),
        shown,
        chosen is not None,
        url.view,
        url.mode,
        url.scale,
        overlay,
    )


def job_final(service: LandscapeService, train_id: str) -> JobFinal:
    """The final landscape of a job (MindInsight's ``type=final`` entry) and its lineage."""
    try:
        metadata = lineage_metadata(service.lineage(train_id))
        ref = service.find(train_id, TYPE_FINAL, None)
        if ref is None:
            return JobFinal(train_id, None, [0, 0, 0], metadata, str(NOT_EXIST_TEXT))
        value = service.value(train_id, ref)
        return JobFinal(train_id, grid(value), convergence_point(value), metadata)
    except (DataError, LandscapeError) as error:
        return JobFinal(
            train_id, None, [0, 0, 0], lineage_metadata(None), localize_reason(str(error))
        )


def overlay_choice(state: CompareState, finals: list[JobFinal]) -> list[str]:
    """The jobs drawn together: those named in the URL (at most two), else the first two with
    a final landscape."""
    usable = [f.train_id for f in finals if f.cells is not None]
    wanted = state.overlay if state.overlay is not None else usable
    return [j for j in wanted if j in usable][:MAX_OVERLAY]


def metric_text(value: Any) -> str:
    """A metric or loss as the card shows it: a number to :data:`METRIC_DIGITS` significant
    digits in the page's language (``2.2388088703155518`` -> ``2.23881``; the landscape's
    hover rounds as much), ``--`` when unknown, anything else as recorded."""
    if value is None or value == "":
        return "--"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return format_number(value, significant=METRIC_DIGITS)
    return str(value)


def _info(final: JobFinal) -> html.Div:
    def text(value: Any) -> str:
        return "--" if value in (None, "") or final.cells is None else str(value)

    meta = final.metadata
    name, metric = evaluation_metric(meta, final.point) if final.cells is not None else (None, None)
    return html.Div(
        className="di-lc-info",
        children=[
            html.Div(_("Training Information"), className="di-muted"),
            html.Div(
                className="di-lc-row",
                children=[
                    html.Span([_("Network: "), html.B(text(meta.get("network")))]),
                    html.Span([_("Optimizer: "), html.B(text(meta.get("optimizer")))]),
                    html.Span([_("Learning Rate: "), html.B(text(meta.get("learning_rate")))]),
                ],
            ),
            html.Div(_("Evaluation Metrics"), className="di-muted"),
            html.Div(
                _("{metric}: {value}").format(
                    metric=_("loss value") if name is None else name, value=metric_text(metric)
                ),
                className="di-lc-metric",
            ),
        ],
    )


def run_head(train_id: str, colour: str) -> html.Div:
    """A card's head: the job in its run colour (the same as on the scalar comparison)."""
    return html.Div([run_dot(train_id, colour), train_id], className="di-card-head")


def tile(final: JobFinal, index: int, view: str, style: Style, colour: str) -> html.Section:
    box = {"height": f"{TILE_HEIGHT}px"}
    if final.cells is None:
        body: Any = html.Div(
            final.problem or str(NOT_EXIST_TEXT), className="di-empty di-lc-none", style=box
        )
    else:
        body = html.Div(
            dcc.Graph(
                id={"type": "lc-tile-graph", "index": index},
                config=GRAPH_CONFIG,
                style={"height": "100%"},
                figure=landscape_figure(
                    final.cells,
                    None,
                    view,
                    style,
                    convergence=final.point,
                    height=TILE_HEIGHT,
                    animate=False,
                ),
            ),
            className="di-lc-plot",
            style=box,
        )
    return html.Section(
        className="di-panel di-lc-card",
        id=f"lc-card-{index}",
        children=[run_head(final.train_id, colour), body, _info(final)],
    )


def layout(app: dash.Dash, service: LandscapeService, params: dict[str, str]) -> html.Div:
    jobs, state = current_state(service, params)
    return html.Div(
        [
            *compare_head(
                app,
                PATH,
                params,
                str(TITLE),
                _("the final loss landscape of several training jobs"),
            ),
            html.Div(
                className="di-panel di-lc-controls",
                children=[
                    picker(
                        "lc-jobs",
                        _("Training Selection"),
                        jobs,
                        state.selected,
                        state.job_filter,
                        noun="job",
                        filter_texts=state.job_texts,
                    ),
                    _view_toolbar(state),
                    _overlay_row(),
                ],
            ),
            dcc.Store(id="lc-overlay-shown"),
            dcc.Store(id="lc-shown"),  # the answer_key of what lc-body shows
            html.Div(id="lc-body"),
        ]
    )


def _view_toolbar(state: CompareState) -> html.Div:
    """Visualization, comparison mode and colour scale, with the convergence point's legend."""
    return html.Div(
        className="di-toolbar",
        children=[
            html.Span(_("Visualization"), className="di-muted"),
            dcc.RadioItems(
                id="lc-view",
                value=state.view,
                inline=True,
                options=[{"label": f" {v}", "value": k} for k, v in VIEWS.items()],
            ),
            html.Span(_("Comparison mode"), className="di-muted"),
            dcc.RadioItems(
                id="lc-mode",
                value=state.mode,
                inline=True,
                options=[{"label": f" {v}", "value": k} for k, v in MODES.items()],
            ),
            html.Span(_("Colour"), className="di-muted"),
            SelectInput(
                id="lc-scale",
                value=state.scale,
                className="di-lc-scale",
                options=[
                    {"label": SCALE_LABELS.get(s, s.capitalize()), "value": s}
                    for s in COLOUR_SCALES
                ],
            ),
            html.Span(["●", " " + _("Model Convergence Point")], className="di-lc-legend"),
        ],
    )


def _overlay_row() -> html.Div:
    """The overlay's job boxes (filled with the chosen jobs) and their limit."""
    return html.Div(
        id="lc-overlay-row",
        className="di-toolbar",
        children=[
            html.Span(_("Overlay"), className="di-muted"),
            dcc.Checklist(id="lc-overlay", inline=True, options=[], value=[]),
            html.Span(
                _("A maximum of {count} graphs can be selected for comparison.").format(
                    count=MAX_OVERLAY
                ),
                className="di-muted",
                id="lc-overlay-hint",
            ),
        ],
    )


def picked(
    service: LandscapeService, search: str | None
) -> tuple[list[str], list[str], str, dict[str, str]]:
    """The job picker's names, ticked names, filter and what it searches for the URL
    ``search``."""
    params = parse_search(search)
    jobs, state = current_state(service, params)
    return jobs, state.selected, state.job_filter, state.job_texts


def controls_to_url(
    service: LandscapeService,
    trigger: Any,
    clicked: bool,
    rows: Any,
    _all: Any,
    _none: Any,
    pattern: str | None,
    view: str,
    mode: str,
    scale: str,
    overlay: list[str] | None,
    shown: list[str] | None,
    search: str | None,
) -> Any:
    """The URL the job picker, view, mode, colour scale and overlay ticks write
    (``no_update``: the same page, or the picker echoing the URL)."""
    if picker_button_drawn(trigger, clicked):
        return dash.no_update
    params = parse_search(search)
    jobs, state = current_state(service, params)
    checked = checked_names(rows)
    if echoed(trigger, "lc-jobs", checked, jobs, state.selected, state.job_filter):
        return dash.no_update
    matching, _unused = filter_tags(jobs, pattern or "", state.job_texts)
    selected = pick(jobs, state.selected, checked, matching, picker_action(trigger, "lc-jobs"))
    explicit = state.explicit_jobs or selected != jobs[:DEFAULT_JOBS]
    url = STATE.parse(params)
    overlay_jobs = url.overlay
    if trigger == "lc-overlay" and (overlay or []) != (shown or []):
        overlay_jobs = [j for j in selected if j in (overlay or [])][-MAX_OVERLAY:]
    chosen = STATE.from_controls(
        url,
        {
            "jobs": selected if explicit else None,
            "job_filter": pattern,
            "view": view,
            "mode": mode,
            "scale": scale,
            "overlay": overlay_jobs,
        },
    )
    new = make_search({**params, **STATE.params(chosen)})
    return dash.no_update if same_search(new, search) else new


def overlay_panel(
    chosen: list[JobFinal], state: CompareState, colours: dict[str, str]
) -> html.Section:
    """The overlay of the ``chosen`` jobs' final landscapes with each job's information."""
    figure = overlay_figure(
        [(f.train_id, f.cells, f.point) for f in chosen if f.cells is not None],
        state.view,
        Style(colour_scale=state.scale),
        colours,
    )
    return html.Section(
        className="di-panel",
        children=[
            dcc.Graph(id="lc-overlay-graph", figure=figure, config=GRAPH_CONFIG),
            html.Div(
                [
                    html.Div(
                        [run_head(f.train_id, colours[f.train_id]), _info(f)],
                        className="di-lc-run",
                    )
                    for f in chosen
                ],
                className="di-lc-grid",
            ),
        ],
    )


def body(
    service: LandscapeService,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    overrides: Any,
    shown: str | None,
) -> tuple[Any, ...]:
    """The tiles or the overlay of the chosen jobs, the overlay's choices and the key of
    what is shown; PreventUpdate on a refresh with nothing new (the same URL, data and run
    colours)."""
    key = tab_answer_key(service.provider, search, overrides, shown)
    params = parse_search(search)
    _jobs, state = current_state(service, params)
    style = Style(colour_scale=state.scale)
    finals = [job_final(service, train_id) for train_id in state.jobs]
    colours = run_colours(
        state.jobs,
        [job.train_id for job in service.provider.list_jobs()],
        overrides if isinstance(overrides, dict) else None,
    )
    overlay = overlay_choice(state, finals)
    options = [
        {"label": f" {f.train_id}", "value": f.train_id, "disabled": f.cells is None}
        for f in finals
    ]
    row_style = {} if state.mode == "overlay" else {"display": "none"}
    if not finals:
        content: Any = html.Div(
            _("Select training jobs with a loss landscape above."),
            className="di-panel di-empty",
        )
    elif state.mode == "tile":
        content = html.Div(
            [tile(f, k, state.view, style, colours[f.train_id]) for k, f in enumerate(finals)],
            className="di-lc-grid",
            id="lc-tiles",
        )
    elif not overlay:
        content = html.Div(
            _("Please select the graph to be compared above."),
            className="di-panel di-empty",
            id="lc-overlay-empty",
        )
    else:
        content = overlay_panel([f for f in finals if f.train_id in overlay], state, colours)
    return content, options, overlay, row_style, overlay, key


def register(app: dash.Dash, service: LandscapeService) -> None:
    register_picker(app, "lc-jobs", functools.partial(picked, service), noun="job")
    app.callback(
        Output("url", "search", allow_duplicate=True),
        *picker_inputs("lc-jobs"),
        Input("lc-view", "value"),
        Input("lc-mode", "value"),
        Input("lc-scale", "value"),
        Input("lc-overlay", "value"),
        State("lc-overlay-shown", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(controls_to_url, service), clicked=True))
    app.callback(
        Output("lc-body", "children"),
        Output("lc-overlay", "options"),
        Output("lc-overlay", "value"),
        Output("lc-overlay-row", "style"),
        Output("lc-overlay-shown", "data"),
        Output("lc-shown", "data"),
        *tab_body_inputs("lc"),
    )(functools.partial(body, service))
