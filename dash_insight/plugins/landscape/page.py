"""Loss Function Multidimensional Analysis (MindInsight's ``loss-analysis`` page) for one job.

URL: ``/loss-landscape?train_id=./job&interval=<first>-<last>|final&view=contour|filled|3d
&loss=<tag>&scale=jet&levels=10&path_colour=%23000000&path_width=5&opacity=0.7&log=1``
(defaults left out).

Left: the chosen landscape as contour lines, filled contours or a 3D surface (default: 3D, as
MindInsight) with the training path, Start and End, a hover with x, y and loss, "Play the path",
reset view, full screen and PNG download. Right: "Step Selection" (the job's loss curve with the
interval shaded, epochs converted to steps; the interval chooser ``2-16``; the loss tag chosen
from the job's scalar tags), "Display Settings" (colour scale, contour levels, path colour and
width, surface opacity, log-scaled colours; reset) and "Basic Training Information" from the
lineage.

Differences from MindInsight 2.3.1, on purpose: the chooser also offers the final landscape
(MindInsight showed it only on the comparison page), the loss tag can be chosen (MindInsight
plotted ``loss/auto/scalar`` or nothing) and a record that cannot be read is named on the page.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import dash
import plotly.graph_objects as go
from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, lazy_gettext
from dash_insight.core.provider import DataError
from dash_insight.plugins.landscape.figures import (
    COLOUR_SCALES,
    DEFAULT_STYLE,
    DEFAULT_VIEW,
    MAX_LEVELS,
    PATH_COLOURS,
    SCALE_LABELS,
    STYLE,
    VIEWS,
    Style,
    landscape_figure,
    step_figure,
    style_from,
    style_params,
)
from dash_insight.plugins.landscape.query import (
    NOT_EXIST_TEXT,
    TYPE_FINAL,
    LandscapeError,
    LandscapeRef,
    default_loss_tag,
    grid,
    lineage_metadata,
    loss_path,
    record_metadata,
    resolution,
    step_range,
)
from dash_insight.plugins.landscape.service import JobLandscapes, LandscapeService
from dash_insight.web.components.figures import graph_config
from dash_insight.web.components.job_notice import job_error
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.per_tag_page import head
from dash_insight.web.url_state import Choice as ChoiceField
from dash_insight.web.url_state import (
    Text,
    TypedUrlState,
    make_search,
    parse_search,
    same_search,
)

PATH = "/loss-landscape"
TITLE = lazy_gettext("Loss Function Multidimensional Analysis")
FINAL = TYPE_FINAL
HINT = lazy_gettext(
    "The chart on the right is the actual training loss curve; the large view is an "
    "approximation of the loss surface around the training path of the chosen interval, over "
    "two directions of the parameter space (PCA of the checkpoints of the interval, or random "
    "directions for the final landscape)."
)


def empty() -> list[Any]:
    """What a job without a loss landscape shows: how to record one."""
    return interpolate(
        _(
            "This job has no loss landscape. Record one with {collector} and {landscape}, or "
            "write one with {writer}."
        ),
        collector=html.Code(
            "SummaryCollector(collect_specified_data={'collect_landscape': {...}})"
        ),
        landscape=html.Code("SummaryLandscape(dir).gen_landscapes_with_multi_process(...)"),
        writer=html.Code("SummaryWriter.add_landscape(...)"),
    )


#: No Plotly image button: the page's own PNG button draws the 3D scene at the image's size
#: (``assets/landscape-pages.js``), Plotly's at the screen's.
GRAPH_CONFIG: dcc.Graph.Config = graph_config(
    modeBarButtonsToRemove=["lasso2d", "select2d", "toImage"]
)
STEP_POINTS = 2000
#: The URL parameters that change the big figure / the step chart.
FIGURE_PARAMS = (
    "interval",
    "view",
    "scale",
    "levels",
    "path_colour",
    "path_width",
    "opacity",
    "log",
)
STEP_PARAMS = ("interval", "loss")


@dataclass(frozen=True)
class Choice:
    """What the URL asks for, resolved against the job."""

    ref: LandscapeRef | None
    view: str
    style: Style
    loss_tag: str | None


def interval_keys(landscapes: JobLandscapes) -> dict[str, str]:
    """The URL's name of each interval (by its id): its steps as the chooser shows them
    (``2-16``); ``2-16~<id>`` for a second interval of the same first and last step."""
    keys: dict[str, str] = {}
    for ref in sorted(landscapes.intervals, key=lambda r: r.value[0]):
        if ref.interval_id not in keys:
            taken = ref.label in keys.values()
            keys[ref.interval_id] = f"{ref.label}~{ref.interval_id}" if taken else ref.label
    return keys


def chooser_options(landscapes: JobLandscapes) -> list[dict[str, str]]:
    """The "Range" options: every interval (``2-16``, its value the URL's name of it,
    :func:`interval_keys`) in MindInsight's order, then the final landscape."""
    options = [
        {"label": key.split("~")[0], "value": key} for key in interval_keys(landscapes).values()
    ]
    if landscapes.finals:
        options.append({"label": _("final"), "value": FINAL})
    return options


@dataclass(frozen=True)
class PageUrl:
    """The page's own URL parameters (the display settings are :func:`style_from`'s): the job,
    the view, the landscape (``interval``: its steps ``2-16``, ``final`` or an earlier id) and
    the loss tag of the steps chart."""

    train_id: str = ""
    view: str = DEFAULT_VIEW
    interval: str = ""
    loss: str = ""


#: :class:`PageUrl` in the URL, each attribute under its own name.
STATE: TypedUrlState[PageUrl] = TypedUrlState(
    PageUrl,
    train_id=Text("train_id"),
    view=ChoiceField("view", DEFAULT_VIEW, tuple(VIEWS)),
    interval=Text("interval"),
    loss=Text("loss"),
)


def chosen_ref(landscapes: JobLandscapes, wanted: str | None) -> LandscapeRef | None:
    """The landscape named by ``interval`` (its steps ``2-16``, ``final``, or an interval id as
    earlier versions wrote it); the first option when absent or unknown (MindInsight selects
    the first interval)."""
    keys = interval_keys(landscapes)
    by_key = {key: interval for interval, key in keys.items()}
    ids = [o["value"] for o in chooser_options(landscapes)]
    if wanted in keys:  # an id from an earlier link
        wanted = keys[wanted]
    key = wanted if wanted in ids else (ids[0] if ids else None)
    if key is None:
        return None
    if key == FINAL:
        return landscapes.finals[0]
    return next(r for r in landscapes.refs if not r.final and r.interval_id == by_key[key])


def resolve(service: LandscapeService, train_id: str, params: dict[str, str]) -> Choice:
    """The page state of ``params`` for ``train_id`` (raises the provider's DataError)."""
    landscapes = service.landscapes(train_id)
    tags = service.provider.job(train_id).tags.get("scalar", [])
    state = STATE.parse(params)
    loss = state.loss
    return Choice(
        ref=chosen_ref(landscapes, state.interval or None),
        view=state.view,
        style=style_from(params),
        loss_tag=loss if loss in tags else default_loss_tag(tags),
    )


@dataclass(frozen=True)
class Rendered:
    """Everything the page shows for one state; built by :func:`render` (the server's work)."""

    figure: go.Figure
    steps: go.Figure
    unit: str
    info: list[Any]
    notice: Any


def _empty_figure(message: str, height: int) -> go.Figure:
    figure = go.Figure()
    figure.update_layout(
        height=height,
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        xaxis={"visible": False},
        yaxis={"visible": False},
        annotations=[{"text": message, "showarrow": False, "font": {"color": "#8a9099"}}],
    )
    return figure


def unit_text(unit: str) -> str:
    """The landscape's unit (MindSpore writes ``step`` or ``epoch``) in the page's language;
    another unit as written."""
    return {"step": _("step"), "epoch": _("epoch")}.get(unit, unit)


def info_rows(metadata: dict[str, Any], cells_text: str) -> list[tuple[str, str]]:
    """MindInsight's "Basic Training Information" (label, text); ``--`` when unknown."""

    def text(value: Any) -> str:
        return "--" if value in (None, "") else str(value)

    per_epoch = metadata.get("step_per_epoch") or 0
    return [
        (_("Network"), text(metadata.get("network"))),
        (_("Optimizer"), text(metadata.get("optimizer"))),
        (_("Learning Rate"), text(metadata.get("learning_rate"))),
        (_("Dimension Reduction Mode"), text(metadata.get("decomposition"))),
        (_("Sampling Point resolution"), cells_text),
        (_("Unit"), text(unit_text(metadata.get("unit") or ""))),
        (_("Step/Epoch"), f"{per_epoch}/1" if per_epoch else "--"),
    ]


def render(service: LandscapeService, train_id: str, choice: Choice) -> Rendered:
    """The figures and texts of the page for ``choice`` (pure server work: bench/landscape.py
    times it)."""
    notices: list[Any] = []
    figure = _empty_figure(str(NOT_EXIST_TEXT), 600)
    shaded: tuple[int, int] | None = None
    unit = ""
    metadata: dict[str, Any] = lineage_metadata(service.lineage(train_id))
    cells_text = "--"
    if choice.ref is not None:
        try:
            value = service.value(train_id, choice.ref)
            cells = grid(value)
            path = loss_path(value)
            meta = record_metadata(value)
            metadata.update(meta)
            cells_text = resolution(cells)
            figure = landscape_figure(cells, path, choice.view, choice.style)
            unit = meta["unit"] or "step"
            if not choice.ref.final:
                shaded = step_range(choice.ref.value, meta["unit"], meta["step_per_epoch"])
        except (DataError, LandscapeError) as error:
            notices.append(f"{choice.ref.tag}: {error}")
            figure = _empty_figure(localize_reason(str(error)), 600)
    problems = service.landscapes(train_id).problems
    notices.extend(_("Left out: {problem}").format(problem=problem) for problem in problems)
    if choice.loss_tag is None:
        steps = _empty_figure(_("This job has no scalar tag."), 240)
    else:
        try:
            series = service.provider.read_scalars(train_id, choice.loss_tag, STEP_POINTS)
            steps = step_figure(series.step.tolist(), series.value.tolist(), shaded)
        except DataError as error:
            steps = _empty_figure(localize_reason(str(error)), 240)
    info = [
        html.Div(
            [html.Span(f"{label}: ", className="di-muted"), html.Span(text)],
            className="di-ls-info-row",
            id=f"ls-info-{k}",
        )
        for k, (label, text) in enumerate(info_rows(metadata, cells_text))
    ]
    notice = (
        html.Div([html.Div(n) for n in notices], className="di-notice di-warning")
        if notices
        else None
    )
    return Rendered(
        figure, steps, _("Unit: {unit}").format(unit=unit_text(unit)) if unit else "", info, notice
    )


def _setting(label: str, control: Any) -> html.Div:
    return html.Div(
        [html.Span(label, className="di-control-label"), control], className="di-ls-setting"
    )


def settings_controls(style: Style) -> list[Any]:
    return [
        _setting(
            _("Colour scale"),
            SelectInput(
                id="ls-scale",
                value=style.colour_scale,
                options=[
                    {"label": SCALE_LABELS.get(s, s.capitalize()), "value": s}
                    for s in COLOUR_SCALES
                ],
            ),
        ),
        _setting(
            _("Contour levels"),
            dcc.Slider(
                id="ls-levels",
                min=2,
                max=MAX_LEVELS,
                step=1,
                value=style.levels,
                marks={v: str(v) for v in (2, 10, 20, MAX_LEVELS)},
                tooltip={"placement": "bottom"},
            ),
        ),
        _setting(
            _("Path colour"),
            SelectInput(
                id="ls-path-colour",
                value=style.path_colour,
                options=[
                    {"label": str(name), "value": code} for code, name in PATH_COLOURS.items()
                ],
            ),
        ),
        _setting(
            _("Path width"),
            dcc.Slider(id="ls-path-width", min=1, max=5, step=1, value=style.path_width),
        ),
        _setting(
            _("Surface opacity"),
            dcc.Slider(
                id="ls-opacity",
                min=0.1,
                max=1,
                step=0.05,
                value=style.opacity,
                marks=None,
                tooltip={"placement": "bottom"},
            ),
        ),
        dcc.Checklist(
            id="ls-log",
            options=[{"label": " " + _("Log-scaled loss colours"), "value": "log"}],
            value=["log"] if style.log_colour else [],
            className="di-inline",
        ),
    ]


def layout(app: dash.Dash, service: LandscapeService, params: dict[str, str]) -> html.Div:
    """The page of the URL ``params``, drawn: its figures and texts come in the layout
    (:func:`render`), and :func:`show` answers only the URL's and the data's changes."""
    train_id = STATE.parse(params).train_id
    title = head(app, TITLE, train_id)
    title.children.insert(1, html.Span("i", title=str(HINT), className="di-ls-hint"))
    try:
        landscapes = service.landscapes(train_id)
        choice = resolve(service, train_id, params)
        job = service.provider.job(train_id)
    except DataError as error:
        return html.Div([title, job_error(app, error)])
    tags = job.tags.get("scalar", [])
    if not landscapes.refs:
        problems = [html.P(p, className="di-error-text") for p in landscapes.problems]
        return html.Div(
            [
                title,
                html.Div(
                    [html.P(empty()), *problems], className="di-panel di-empty", id="ls-empty"
                ),
            ]
        )
    options = chooser_options(landscapes)
    chosen = (
        FINAL
        if choice.ref is not None and choice.ref.final
        else (interval_keys(landscapes)[choice.ref.interval_id] if choice.ref is not None else None)
    )
    # The figures come with the layout: a callback asking for them at load cost a round trip,
    # and each chart was drawn twice (a placeholder, then itself).
    try:
        rendered = render(service, train_id, choice)
    except DataError as error:
        return html.Div([title, job_error(app, error)])
    return html.Div(
        id="ls-root",
        children=[
            title,
            dcc.Store(id="ls-shown", data=shown_keys(train_id, job.version, params)),
            html.Div(
                className="di-ls-layout",
                children=[
                    _main_section(choice.view, rendered),
                    html.Aside(
                        className="di-ls-side",
                        children=[
                            _steps_section(options, chosen, tags, choice.loss_tag, rendered),
                            _settings_section(choice.style),
                            _info_section(rendered.info),
                        ],
                    ),
                ],
            ),
        ],
    )


def box_style(figure: go.Figure) -> dict[str, str]:
    """A chart's box as tall as its figure before Plotly draws it: the page has its final
    height (and its scrollbar) from the start, so the landscape is not drawn at the width of
    a page without a scrollbar and drawn again (dcc.Graph's resize) once the side panel's
    chart made the page taller."""
    return {"height": f"{figure.layout.height}px"}


def _main_section(view: str, rendered: Rendered) -> html.Section:
    """The chosen view's tabs and buttons over the landscape figure and its notice."""
    return html.Section(
        className="di-panel di-ls-main",
        children=[
            html.Div(
                className="di-toolbar",
                children=[
                    dcc.RadioItems(
                        id="ls-view",
                        value=view,
                        inline=True,
                        className="di-ls-tabs",
                        options=[
                            {"label": str(label), "value": key} for key, label in VIEWS.items()
                        ],
                    ),
                    html.Div(className="di-spacer"),
                    html.Button(
                        _("Reset view"),
                        id="ls-reset-view",
                        className="di-button secondary",
                    ),
                    html.Button(
                        _("Full screen"),
                        id="ls-fullscreen",
                        className="di-button secondary",
                    ),
                    html.Button(
                        "PNG",
                        id="ls-download",
                        className="di-button secondary",
                        title=_("Download the view as a PNG image"),
                    ),
                ],
            ),
            html.Div(rendered.notice, id="ls-notice"),
            html.Div(
                id="ls-graph-box",
                className="di-ls-graph-box",
                children=[
                    dcc.Graph(
                        id="ls-graph",
                        config=GRAPH_CONFIG,
                        className="di-ls-graph",
                        figure=rendered.figure,
                        style=box_style(rendered.figure),
                    ),
                ],
            ),
        ],
    )


def _steps_section(
    options: list[dict[str, Any]],
    chosen: str | None,
    tags: list[str],
    loss_tag: str | None,
    rendered: Rendered,
) -> html.Section:
    """Step selection: the loss curve with the landscapes' steps, its unit, the range and the
    loss tag."""
    return html.Section(
        className="di-panel di-ls-section",
        children=[
            html.H3(_("Step Selection")),
            dcc.Graph(
                id="ls-steps",
                config={"displaylogo": False, "displayModeBar": False},
                figure=rendered.steps,
                style=box_style(rendered.steps),
            ),
            html.Div(rendered.unit, id="ls-unit", className="di-muted"),
            _setting(
                _("Range"),
                SelectInput(id="ls-interval", options=options, value=chosen),
            ),
            _setting(
                _("Loss tag"),
                SelectInput(
                    id="ls-loss-tag",
                    options=[{"label": t, "value": t} for t in tags],
                    value=loss_tag,
                    placeholder=_("no scalar tag"),
                ),
            ),
        ],
    )


def _settings_section(style: Style) -> html.Section:
    """The display settings with their reset button."""
    return html.Section(
        className="di-panel di-ls-section",
        children=[
            html.Div(
                className="di-ls-section-head",
                children=[
                    html.H3(_("Display Settings")),
                    html.Button(
                        _("Reset"),
                        id="ls-settings-reset",
                        className="di-button secondary",
                        title=_("Back to the default settings"),
                    ),
                ],
            ),
            *settings_controls(style),
        ],
    )


def _info_section(info: list[Any]) -> html.Section:
    """The basic training information (``info``: :attr:`Rendered.info`)."""
    return html.Section(
        className="di-panel di-ls-section",
        children=[
            html.H3(
                [
                    _("Basic Training Information") + " ",
                    html.Span(
                        "i",
                        className="di-ls-hint",
                        title=_(
                            "If part of the basic training information is "
                            "missing, check that the lineage is collected "
                            "(SummaryCollector collects it by default)."
                        ),
                    ),
                ]
            ),
            html.Div(info, id="ls-info"),
        ],
    )


def _key(train_id: str, version: int, params: dict[str, str], names: tuple[str, ...]) -> list:
    return [train_id, version, *[params.get(n) for n in names]]


def shown_keys(train_id: str, version: int, params: dict[str, str]) -> dict[str, list]:
    """What the page's figures were drawn from (``ls-shown``): the job, its data version and
    the URL parameters of the landscape (:data:`FIGURE_PARAMS`) and of the steps chart
    (:data:`STEP_PARAMS`)."""
    return {
        "figure": _key(train_id, version, params, FIGURE_PARAMS),
        "steps": _key(train_id, version, params, STEP_PARAMS),
    }


def controls_to_url(
    view: str | None,
    interval: str | None,
    loss: str | None,
    scale: str | None,
    levels: Any,
    colour: str | None,
    width: Any,
    opacity: Any,
    log: list[str] | None,
    search: str | None,
) -> Any:
    """The URL the view, range, loss tag and display settings write (``no_update``: the same
    page); settings at their defaults leave the URL."""
    params = parse_search(search)
    style = STYLE.from_controls(
        style_from(params),
        {
            "colour_scale": scale,
            "levels": levels,
            "path_colour": colour,
            "path_width": width,
            "opacity": opacity,
            "log_colour": log,
        },
    )
    chosen = STATE.from_controls(
        STATE.parse(params), {"view": view, "interval": interval, "loss": loss}
    )
    written: dict[str, Any] = {**params, **style_params(style)}
    written.update(STATE.params(chosen))
    new = make_search(written)
    return dash.no_update if same_search(new, search) else new


def reset_settings(clicks: int | None) -> tuple[Any, ...]:
    """Reset: the display settings' controls back to their defaults (a drawn button: none)."""
    if not clicks:
        return (dash.no_update,) * 6
    style = DEFAULT_STYLE
    return (
        style.colour_scale,
        style.levels,
        style.path_colour,
        style.path_width,
        style.opacity,
        [],
    )


def show(
    service: LandscapeService, search: str | None, _ticks: Any, _clicks: Any, shown: Any
) -> tuple[Any, ...]:
    """The landscape, the step chart, the unit, the training information and the notice of
    the URL's job; a figure whose inputs did not change since ``shown`` is not sent again,
    and a refresh with nothing new sends nothing."""
    params = parse_search(search)
    train_id = STATE.parse(params).train_id
    try:
        version = service.provider.job(train_id).version
        choice = resolve(service, train_id, params)
    except DataError:
        return (dash.no_update,) * 6
    keys = shown_keys(train_id, version, params)
    if shown == keys:
        return (dash.no_update,) * 6
    rendered = render(service, train_id, choice)
    same_figure = isinstance(shown, dict) and shown.get("figure") == keys["figure"]
    same_steps = isinstance(shown, dict) and shown.get("steps") == keys["steps"]
    return (
        dash.no_update if same_figure else rendered.figure,
        dash.no_update if same_steps else rendered.steps,
        rendered.unit,
        rendered.info,
        rendered.notice,
        keys,
    )


def register(app: dash.Dash, service: LandscapeService) -> None:
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("ls-view", "value"),
        Input("ls-interval", "value"),
        Input("ls-loss-tag", "value"),
        Input("ls-scale", "value"),
        Input("ls-levels", "value"),
        Input("ls-path-colour", "value"),
        Input("ls-path-width", "value"),
        Input("ls-opacity", "value"),
        Input("ls-log", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(controls_to_url)
    app.callback(
        Output("ls-scale", "value"),
        Output("ls-levels", "value"),
        Output("ls-path-colour", "value"),
        Output("ls-path-width", "value"),
        Output("ls-opacity", "value"),
        Output("ls-log", "value"),
        Input("ls-settings-reset", "n_clicks"),
        prevent_initial_call=True,
    )(reset_settings)
    app.callback(
        Output("ls-graph", "figure"),
        Output("ls-steps", "figure"),
        Output("ls-unit", "children"),
        Output("ls-info", "children"),
        Output("ls-notice", "children"),
        Output("ls-shown", "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        State("ls-shown", "data"),
        # not at load: the layout holds what it shows (layout's ``rendered``)
        prevent_initial_call=True,
    )(functools.partial(show, service))
    register_view_tools(app, "ls")


def register_view_tools(app: dash.Dash, prefix: str) -> None:
    """Browser-side reset view, full screen and PNG download of ``{prefix}-graph`` (buttons
    ``{prefix}-reset-view``, ``{prefix}-fullscreen``, ``{prefix}-download``)."""
    for button, function in (
        ("reset-view", "resetView"),
        ("fullscreen", "toggleFullScreen"),
        ("download", "downloadPng"),
    ):
        app.clientside_callback(
            ClientsideFunction(namespace="landscapePages", function_name=function),
            Output(f"{prefix}-{button}", "title"),
            Input(f"{prefix}-{button}", "n_clicks"),
            State(f"{prefix}-graph", "id"),
            prevent_initial_call=True,
        )
