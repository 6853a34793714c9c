"""Scalar chart grid shared by the scalars page and the comparison dashboard.

The page's callback answers with the chart cards and their plan (``chart_plan``: which series
each chart draws, no points), which is quick whatever the number of points. The browser
(``assets/scalar-charts.js``) then fetches the points of each chart when the chart comes on
screen (an IntersectionObserver), at the chart's pixel width (``GET
/v1/dash-insight/chart/scalar?max_points=<width>``: min / max per pixel column, every NaN /
inf), and draws it as soon as its own answer arrives; charts below the screen are fetched and
drawn when scrolled to. It draws and redraws (smoothing, axis, log scale, thresholds, zoom
history, full screen) without the server, so dragging the smoothing slider never waits for it.
A box zoom or pan on the step axis asks for the visible step range at the chart's pixel width
(``start_step``, ``end_step``), so zooming in ends on the exact raw points; reset goes back to
the whole series. Charts are SVG (``scatter``): a grid of dozens of WebGL charts would exhaust the
browser's WebGL contexts (about 8 per page).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from dash import ClientsideFunction, Input, Output, State, dcc, html, no_update
from dash.dependencies import ALL, MATCH
from dash.development.base_component import Component

from dash_insight.core.axis_scale import axis_groups
from dash_insight.core.i18n import format_number, lazy_gettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.store.chunks import Extreme
from dash_insight.plugins.scalars.page_pins import (
    pin_button,
    pin_looks_store,
    pins_store,
    register_pin_callbacks,
)
from dash_insight.plugins.scalars.query_best import (
    BestPoint,
    Direction,
    best_direction,
    best_point,
    best_text,
)
from dash_insight.plugins.scalars.query_marks import group_markers, series_markers
from dash_insight.plugins.scalars.query_x_tag import values_at_steps
from dash_insight.web.components.native_inputs import RangeInput, SelectInput
from dash_insight.web.components.run_colours import PALETTE, STORE_ID
from dash_insight.web.url_state import (
    Choice,
    Field,
    Flag,
    Float,
    Int,
    Tags,
    Text,
    decode_tags,
    encode_tags,
    make_search,
    parse_search,
    same_search,
)


def chart_ids(page: str) -> dict[str, dict[str, str]]:
    """Ids of the shared chart components of one page. They are pattern ids keyed by page, so
    the renderer reads whichever page is shown (``ALL``) and one page's callbacks never fire on
    another page that has the same kind of component."""
    return {
        name: {"type": f"chart-{name}", "page": page}
        for name in (
            "data",
            "thresholds",
            "axis",
            "smoothing",
            "smoothing-box",
            "xtag",
            "smoother",
            "window",
            "outliers",
            "epoch-steps",
        )
    }


AXES = (
    ("step", lazy_gettext("Step")),
    ("relative", lazy_gettext("Relative time (s)")),
    ("absolute", lazy_gettext("Absolute time")),
)
#: The URL parameters of the chart controls (:func:`controls`), the same on both chart pages.
AXIS = Choice("axis", "step", tuple(value for value, _ in AXES))
SMOOTHING = Float("smoothing", 0.0, 0.0, 0.99)
#: The smoother: TensorBoard's debiased EMA (weight ``smoothing``), a centred moving average
#: over ``window`` points, or none (:mod:`~dash_insight.plugins.scalars.query_smoothing`); and
#: "ignore outliers": the y range from the 0.1-99.9 % quantiles of the values drawn.
SMOOTHER = Choice("smoother", "ema", ("ema", "ma", "none"))
WINDOW = Int("window", 9, 2, 999)
OUTLIERS = Flag("outliers")
#: The steps of an epoch the user gives for the epoch markers (:mod:`.marks`); 0 = as each
#: job's lineage records them.
EPOCH_STEPS = Int("epoch_steps", 0, 0, 10**9)
#: A scalar tag whose values are the x axis (``epoch``, ``tokens_seen``); "" = ``axis``; at
#: most 1,024 characters.
X_TAG = Text("x_tag", max_chars=1024)
#: The charts (ids) whose best-value button was flipped (min <-> max), and those with a log x
#: axis: kept in the URL so that a reload or a shared link shows the same.
BEST_FLIP = Tags("best_flip")
LOG_X = Tags("log_x")


@dataclass(frozen=True)
class SeriesSpec:
    """One line of a chart: ``name`` in the legend and hover. ``colour`` = its run's colour
    (:func:`~dash_insight.web.components.run_colours.run_colour`; the user's pick replaces it
    in the browser); None = the palette colour of its position in the chart (the tags of one
    job: the plan's ``place_colour``)."""

    train_id: str
    tag: str
    name: str
    right_axis: bool = False
    colour: str | None = None
    #: A group's line and band (:mod:`~dash_insight.plugins.scalars.query_groups`): its runs (then
    #: ``train_id`` is the first of them) and its ``centre`` and ``band``; ``thin``: a run of a
    #: group drawn under it, as a thin line in the group's colour.
    members: tuple[str, ...] = ()
    centre: str = "mean"
    band: str = "std"
    thin: bool = False


@dataclass(frozen=True)
class ChartSpec:
    """One chart: its id (stable across refreshes, used for zoom and thresholds); ``legend``:
    always show the legend (runs compared), else only with two lines or more; ``grouped_axes``:
    its lines go on y axes by their ranges (:func:`~dash_insight.core.axis_scale.axis_groups`:
    the tags of a composition), else each on the axis its spec says."""

    chart_id: str
    title: str
    series: tuple[SeriesSpec, ...]
    legend: bool = False
    grouped_axes: bool = False


def chart_plan(
    provider: DataProvider, charts: Sequence[ChartSpec], x_tag: str = "", epoch_steps: int = 0
) -> dict[str, Any]:
    """What the browser needs to ask for and draw ``charts``, without their points: each
    chart's series (job, tag, name, axis, colour, and ``place_colour``: the colour of a series
    without a run colour, :data:`~dash_insight.web.components.run_colours.PALETTE` by its place
    among the chart's series, so that the browser holds no copy of the palette) with the number
    of points and the last step they have now, and a ``stamp`` that changes when any of that
    changes (new data: the chart asks for its points again). The browser fetches a chart's
    points when the chart comes on screen, at its pixel width (``export/scalars``' sibling
    ``chart/scalar``); a missing job or tag becomes a message on its chart instead of an error.
    ``x_tag``: the tag whose values are the x axis (each chart's ``x_tag``; the best points then
    say where they sit on it, ``x``). A group's line: :func:`_group_plan`."""
    out = []
    for chart in charts:
        series: list[dict[str, Any]] = []
        problems = []
        for spec in chart.series:
            if spec.members:
                series.append(_group_plan(provider, spec, len(series), epoch_steps))
                continue
            try:
                series.append(_series_plan(provider, spec, x_tag, len(series), epoch_steps))
            except DataError as error:
                problems.append(str(error))
        if chart.grouped_axes:
            _group_axes(series)
        entry = {
            "id": chart.chart_id,
            "title": chart.title,
            "series": series,
            "problems": problems,
            "legend": chart.legend,
            "x_tag": x_tag,
        }
        entry["stamp"] = _stamp(entry)
        out.append(entry)
    return {"charts": out, "stamp": _stamp(out)}


def _series_plan(
    provider: DataProvider, spec: SeriesSpec, x_tag: str, place: int, epoch_steps: int = 0
) -> dict[str, Any]:
    """A run's line in a chart's plan (``place``: among the chart's series drawn;
    ``epoch_steps``: the steps of an epoch the user gave, 0: the lineage's); DataError when its
    job or tag cannot be read."""
    # From the chunk bounds of an ordered tag: a tag of millions of steps is not read to say
    # how many points it has.
    total, last = provider.scalar_extent(spec.train_id, spec.tag)
    best = best_of_extremes(*provider.scalar_extremes(spec.train_id, spec.tag))
    if x_tag:
        _place_best(provider, spec.train_id, x_tag, best)
    markers = series_markers(provider, spec.train_id, spec.tag, epoch_steps)
    return {
        **({"thin": True} if spec.thin else {}),
        **({"markers": markers} if markers else {}),
        "name": spec.name,
        "train_id": spec.train_id,
        "tag": spec.tag,
        "right": spec.right_axis,
        "colour": spec.colour,
        # The place among the series drawn (those with a problem are not).
        "place_colour": PALETTE[place % len(PALETTE)],
        "total": total,
        "last": last,
        "best": best,
        "direction": best_direction(spec.tag),
    }


def _group_plan(
    provider: DataProvider, spec: SeriesSpec, place: int, epoch_steps: int = 0
) -> dict[str, Any]:
    """A group's line in a chart's plan: its runs, centre and band; its points, the number of
    its runs' points and their last step (no best point: a group's line is no run's); its
    runs' epoch boundaries and restarts (:func:`~.query_marks.group_markers`)."""
    extents = []
    for train_id in spec.members:
        try:
            extents.append(provider.scalar_extent(train_id, spec.tag))
        except DataError:
            continue
    lasts = [last for _total, last in extents if last is not None]
    markers = group_markers(provider, spec.members, spec.tag, epoch_steps)
    return {
        **({"markers": markers} if markers else {}),
        "name": spec.name,
        "train_id": spec.train_id,
        "tag": spec.tag,
        "members": list(spec.members),
        "centre": spec.centre,
        "band": spec.band,
        "right": spec.right_axis,
        "colour": spec.colour,
        "place_colour": PALETTE[place % len(PALETTE)],
        "total": sum(total for total, _last in extents),
        "last": max(lasts) if lasts else None,
        "best": {"min": None, "max": None},
        "direction": best_direction(spec.tag),
    }


def _group_axes(series: list[dict[str, Any]]) -> None:
    """Each planned series' y axis by its range (from its lowest and highest point, ``best``):
    ``axis`` 0 = the left axis, 1 = the right one (``right``), 2 and up = an axis of its own
    that the browser does not show (the line spans the plot; its hover gives its values)."""
    ranges = [
        None
        if s["best"]["min"] is None or s["best"]["max"] is None
        else (s["best"]["min"]["value"], s["best"]["max"]["value"])
        for s in series
    ]
    for spec, group in zip(series, axis_groups(ranges), strict=True):
        spec["axis"] = group
        spec["right"] = group == 1


def best_points(step: np.ndarray, wall: np.ndarray, value: np.ndarray) -> dict[str, Any]:
    """The lowest and highest point of a raw series for its chart's marker, each as
    ``{"step", "wall", "value", "label"}`` (the label: "best 0.1234 @ step 5,300", in the reader's
    language), or None for a series without a finite value (:func:`~.query_best.best_point`)."""
    out: dict[str, Any] = {}
    directions: tuple[Direction, ...] = ("min", "max")
    for direction in directions:
        point = best_point(step, value, direction)
        out[direction] = (
            None
            if point is None
            else _best_marker(point.step, float(wall[point.position]), point.value)
        )
    return out


def best_of_extremes(lowest: Extreme | None, highest: Extreme | None) -> dict[str, Any]:
    """:func:`best_points` from a tag's lowest and highest point as the provider gives them
    (:meth:`~.DataProvider.scalar_extremes`: the same points, without reading the series)."""
    return {
        direction: None if point is None else _best_marker(point.step, point.wall_time, point.value)
        for direction, point in (("min", lowest), ("max", highest))
    }


def _best_marker(step: int, wall: float, value: float) -> dict[str, Any]:
    """One best point as the chart's marker draws it, with its label."""
    return {
        "step": step,
        "wall": wall,
        "value": value,
        "label": _("best {value} @ step {step}").format(
            value=best_text(BestPoint(0, step, value)), step=format_number(step)
        ),
    }


def _place_best(provider: DataProvider, train_id: str, x_tag: str, best: dict[str, Any]) -> None:
    """Add to each best point its place on the ``x_tag`` axis (``x``; None when the job has
    no finite value of that tag at the point's step)."""
    for point in best.values():
        if point is None:
            continue
        try:  # the x tag's points at that one step: one chunk of an ordered tag
            x_series = provider.read_scalar_window(
                train_id, x_tag, point["step"], point["step"]
            ).series
        except DataError:
            x_series = None
        x = (
            np.nan
            if x_series is None
            else values_at_steps(np.array([point["step"]]), x_series.step, x_series.value)[0]
        )
        point["x"] = None if np.isnan(x) else float(x)


def _stamp(value: Any) -> str:
    """A short digest of a JSON-ready value: tells the browser whether it changed."""
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ChartUrl:
    """The chart settings both scalar pages keep in their URL (:data:`CHART_FIELDS`): the x
    axis, smoothing and smoother, the tag as x axis, the charts whose best point or x axis is
    flipped to the other direction or to log, "ignore outliers", the steps of an epoch."""

    axis: str = AXIS.default
    smoothing: float = SMOOTHING.default
    x_tag: str = ""
    best_flip: list[str] | None = None
    log_x: list[str] | None = None
    smoother: str = SMOOTHER.default
    window: int = WINDOW.default
    outliers: bool = False
    epoch_steps: int = EPOCH_STEPS.default


#: Each attribute of :class:`ChartUrl` and the field reading it from the URL (a page's
#: :class:`~dash_insight.web.url_state.TypedUrlState` takes them with its own).
CHART_FIELDS: dict[str, Field] = {
    "axis": AXIS,
    "smoothing": SMOOTHING,
    "x_tag": X_TAG,
    "best_flip": BEST_FLIP,
    "log_x": LOG_X,
    "smoother": SMOOTHER,
    "window": WINDOW,
    "outliers": OUTLIERS,
    "epoch_steps": EPOCH_STEPS,
}


def controls(page: str, state: ChartUrl, tags: Sequence[str] = ()) -> html.Div:
    """Horizontal axis radio, the tag whose values can be the x axis instead (one of
    ``tags``), smoothing slider + number box (0-0.99, step 0.01), and the smoother's controls
    (:func:`smoother_controls`); set from the page's URL ``state`` (:data:`AXIS`,
    :data:`SMOOTHING`, :data:`X_TAG`, ...)."""
    ids = chart_ids(page)
    axis, smoothing, x_tag = state.axis, state.smoothing, state.x_tag
    return html.Div(
        className="di-toolbar di-scalar-controls",
        children=[
            html.Span(_("Horizontal axis"), className="di-muted"),
            dcc.RadioItems(
                id=ids["axis"],
                value=axis,
                inline=True,
                className="di-axis",
                options=[{"label": str(label), "value": value} for value, label in AXES],
            ),
            html.Div(
                dcc.Dropdown(
                    id=ids["xtag"],
                    options=list(tags),
                    value=x_tag or None,
                    className="di-compose di-xtag",
                    placeholder=_("or the values of a tag"),
                ),
                title=_(
                    "Each point is placed at this tag's value at the same step "
                    "(epoch, tokens seen); steps it lacks are not drawn"
                ),
            ),
            html.Span(_("Smoothing"), className="di-muted"),
            html.Div(
                RangeInput(id=ids["smoothing"], min=0, max=0.99, step=0.01, value=smoothing),
                className="di-slider",
            ),
            dcc.Input(
                id=ids["smoothing-box"],
                type="number",
                min=0,
                max=0.99,
                step=0.01,
                value=smoothing,
                debounce=True,
                className="di-number di-smoothing-box",
            ),
            *smoother_controls(ids, state),
        ],
    )


def smoother_controls(ids: Mapping[str, Any], state: ChartUrl) -> list[Any]:
    """The smoother (EMA, moving average, none), the moving average's window, and "ignore
    outliers" (:data:`SMOOTHER`, :data:`WINDOW`, :data:`OUTLIERS`; ``state``: the URL's)."""
    return [
        dcc.RadioItems(
            id=ids["smoother"],
            value=state.smoother,
            inline=True,
            className="di-smoother",
            options=[
                {"label": _("EMA"), "value": "ema"},
                {"label": _("moving average"), "value": "ma"},
                {"label": _("none"), "value": "none"},
            ],
        ),
        html.Div(
            className="di-window-box",
            children=[
                html.Span(_("window"), className="di-muted"),
                dcc.Input(
                    id=ids["window"],
                    type="number",
                    min=WINDOW.low,
                    max=WINDOW.high,
                    step=1,
                    value=state.window,
                    debounce=True,
                    className="di-number di-window",
                ),
            ],
            title=_("Points in the centred moving average's window"),
        ),
        dcc.Checklist(
            id=ids["outliers"],
            value=["on"] if state.outliers else [],
            options=[{"label": " " + _("ignore outliers"), "value": "on"}],
            className="di-outliers",
        ),
        epoch_control(ids, state),
    ]


def epoch_control(ids: Mapping[str, Any], state: ChartUrl) -> html.Div:
    """The steps of an epoch for the epoch markers (:data:`EPOCH_STEPS`; empty: each job's
    lineage says)."""
    return html.Div(
        className="di-window-box",
        children=[
            html.Span(_("steps per epoch"), className="di-muted"),
            dcc.Input(
                id=ids["epoch-steps"],
                type="number",
                min=0,
                max=EPOCH_STEPS.high,
                step=1,
                value=state.epoch_steps or None,
                debounce=True,
                placeholder=_("lineage"),
                className="di-number di-epoch-steps",
            ),
        ],
        title=_(
            "Epoch boundaries are marked every this many steps; empty: as each job's lineage "
            "records them"
        ),
    )


def chart_card(
    chart: ChartSpec,
    with_thresholds: bool,
    threshold: dict[str, Any] | None = None,
    flipped: bool = False,
    log_x: bool = False,
    preview: Any = None,
    pin: str | None = None,
) -> html.Div:
    """A card: toolbar (best value, log x, log, back, reset, full screen), the graph slot,
    threshold row (``threshold``: its current threshold, as stored), title. ``flipped`` /
    ``log_x``: the URL's :data:`BEST_FLIP` / :data:`LOG_X` name the chart (its button starts
    at one click). ``preview``: what the graph slot holds until the browser draws the chart
    (the page's first paint: a chart drawn on the server). ``pin``: the name its pin button
    (beside the title) pins (:mod:`.page_pins`; None: no pin button)."""
    key = chart.chart_id
    best = best_direction(chart.series[0].tag) if chart.series else "min"
    children: list[Any] = [
        html.Div(className="di-chart-tools", children=chart_tools(key, best, flipped, log_x)),
        # The browser puts the dcc.Graph here, created once with its figure (mounting empty
        # graphs first and plotting them again would double the drawing work).
        html.Div(preview, id={"type": "graph-slot", "chart": key}, className="di-graph-slot"),
        dcc.Store(id={"type": "chart-zoom", "chart": key}, data=[]),
        *_card_foot(key, chart.title, threshold if with_thresholds else False, pin),
    ]
    return html.Div(
        className="di-panel di-chart-card",
        id={"type": "chart-card", "chart": key},
        children=children,
    )


def chart_tools(key: str, best: Direction, flipped: bool, log_x: bool) -> list[html.Button]:
    """A card's toolbar: best value (``best``: the direction guessed from the tag, shown
    flipped when ``flipped``), log x, log y, back, reset, full screen."""
    shown: Direction = ("min" if best == "max" else "max") if flipped else best
    return [
        # Its label follows the clicks in the browser (scalarCharts.bestLabel); ``value`` is the
        # direction guessed from the tag, an odd number of clicks flips it.
        html.Button(
            best_label(shown),
            id={"type": "chart-best", "chart": key},
            value=best,
            className="di-chip",
            n_clicks=1 if flipped else 0,
            title=_("The best value of each line is marked: its lowest or highest (click to flip)"),
        ),
        html.Button(
            _("log x"),
            id={"type": "chart-xlog", "chart": key},
            className="di-chip",
            n_clicks=1 if log_x else 0,
            title=_("Logarithmic x axis (steps or times at or below 0 are not drawn)"),
        ),
        html.Button(
            _("log"),
            id={"type": "chart-log", "chart": key},
            className="di-chip",
            title=_("Logarithmic y axis (non-positive values become gaps)"),
        ),
        *(
            html.Button(label, id={"type": kind, "chart": key}, className="di-chip", title=title)
            for kind, label, title in (
                ("chart-back", "↶", _("Back one zoom step")),
                ("chart-reset", "⟲", _("Reset the zoom")),
                ("chart-full", "⤢", _("Full screen (again to leave)")),
            )
        ),
    ]


def _card_foot(key: str, title: str, threshold: Any, pin: str | None) -> list[Any]:
    """Under a card's chart: its threshold row (``threshold`` False: none), its title, and its
    pin button (``pin`` None: none)."""
    foot: list[Any] = [] if threshold is False else [threshold_row(key, title, threshold)]
    foot.append(html.Div(title, className="di-chart-title", title=title))
    return foot if pin is None else [*foot, pin_button(key, pin)]


def best_label(direction: str) -> str:
    """The label of a chart's best-value button: which extreme it marks (the browser's
    ``bestLabel`` writes the same after a click)."""
    return _("best: max") if direction == "max" else _("best: min")


def threshold_row(key: str, title: str, threshold: dict[str, Any] | None) -> html.Div:
    """ "Current threshold" text with delete (shown only when a threshold is set), and the
    button that opens the page's one threshold form (:func:`threshold_form`) for this chart
    (``title``: the form's heading). A form per chart (two dropdowns, two inputs, radios, a
    checklist) made a 20-chart page mount ~140 more components before its first chart could be
    drawn."""
    return html.Div(
        className="di-threshold",
        children=[
            html.Span(
                threshold_text(threshold),
                id={"type": "th-current", "chart": key},
                className="di-muted",
            ),
            html.Button(
                "×",
                id={"type": "th-delete", "chart": key},
                className="di-link-button",
                title=_("Delete the threshold"),
                style=delete_style(threshold),
            ),
            html.Button(
                "▸ " + _("Set threshold"),
                id={"type": "th-open", "chart": key},
                value=title,
                className="di-link-button di-th-open",
            ),
        ],
    )


def _threshold_condition(n: int) -> list[Any]:
    """Condition ``n`` (1 or 2) of the threshold form: its comparison and its value."""
    return [
        # The browser's menu of two choices (dcc's Dropdown mounted a searchable popover
        # for each, hidden form or not).
        SelectInput(
            id=f"th-op-{n}",
            clearable=n == 2,
            options=[
                {"label": _("greater than"), "value": ">"},
                {"label": _("less than"), "value": "<"},
            ],
            value=">" if n == 1 else None,
            placeholder=None if n == 1 else "—",  # the second condition: none
            className="di-th-op",
        ),
        dcc.Input(id=f"th-value-{n}", type="number", className="di-number", placeholder=_("value")),
    ]


def threshold_form() -> html.Div:
    """The page's threshold form, shown for the chart whose "Set threshold" was clicked (its
    id in the ``th-target`` store, its title on top): up to two conditions (greater / less
    than a value) combined by and / or, optionally applied to every selected tag."""
    return html.Div(
        id="th-form",
        className="di-panel di-th-form",
        hidden=True,
        children=[
            html.Div(id="th-form-title", className="di-th-title"),
            html.Div(
                [
                    *_threshold_condition(1),
                    dcc.RadioItems(
                        id="th-combine",
                        value="and",
                        inline=True,
                        options=[
                            {"label": _("and"), "value": "and"},
                            {"label": _("or"), "value": "or"},
                        ],
                    ),
                    *_threshold_condition(2),
                ],
                className="di-th-conditions",
            ),
            dcc.Checklist(
                id="th-all",
                options=[{"label": " " + _("apply to all selected tags"), "value": "all"}],
                value=[],
            ),
            html.Div(
                className="di-toolbar",
                children=[
                    html.Button(_("Apply"), id="th-apply", className="di-button"),
                    html.Button(_("Cancel"), id="th-cancel", className="di-button secondary"),
                ],
            ),
            dcc.Store(id="th-target"),
            dcc.Store(id="th-delete-request"),
        ],
    )


def delete_style(threshold: dict[str, Any] | None) -> dict[str, str] | None:
    """The style of a chart's threshold delete button: hidden while no threshold is set."""
    return None if threshold and threshold.get("conditions") else {"display": "none"}


def threshold_text(threshold: dict[str, Any] | None) -> str:
    """``Current threshold: > 1 and < 3`` (or ``-``)."""
    if not threshold or not threshold.get("conditions"):
        return _("Current threshold: {threshold}").format(threshold="-")
    parts = [f"{op} {value:g}" for op, value in threshold["conditions"]]
    combine = _("or") if threshold.get("combine") == "or" else _("and")
    return _("Current threshold: {threshold}").format(threshold=f" {combine} ".join(parts))


def chart_stores(
    page: str, plan: dict[str, Any] | None = None, base_dir: str | None = None
) -> list[Component]:
    """The stores a chart page includes: the plan (:func:`chart_plan`; ``plan``: the first
    one, when the layout has it), the thresholds remembered in the browser ({chart id:
    threshold}), and with ``base_dir`` (the summary base directory) the pinned charts
    (:func:`~.page_pins.pins_store`) and the count that asks for the pin buttons' looks
    (:func:`~.page_pins.pin_looks_store`)."""
    ids = chart_ids(page)
    stores: list[Component] = [
        dcc.Store(id=ids["data"], data=plan),
        dcc.Store(id=ids["thresholds"], storage_type="local", data={}),
    ]
    if base_dir is not None:
        stores += [pins_store(page, base_dir), pin_looks_store(page)]
    if plan is not None:
        try:
            # Also in the HTML: the browser fetches the first screen's points as soon as their
            # slots appear, not after the first render callback (scalarCharts planOf).
            text = json.dumps(plan, allow_nan=False)
        except ValueError:  # never expected (the plan's numbers are finite): render's plan
            return stores
        attributes: dict[str, Any] = {"data-plan": text}
        stores.append(html.Div(hidden=True, className="di-first-plan", **attributes))
    return stores


def chart_flags_search(
    best_clicks: Sequence[Any],
    xlog_clicks: Sequence[Any],
    best_ids: Sequence[dict],
    xlog_ids: Sequence[dict],
    search: str | None,
) -> Any:
    """The URL after a chart's best-value or log x button was clicked (``no_update``: the
    same): :data:`BEST_FLIP` and :data:`LOG_X` list the charts of the page whose button has
    an odd number of clicks, and keep the charts of other pages of the grid as they were;
    every other parameter is kept. A flag is kept on either chart page."""
    params: dict[str, Any] = parse_search(search)
    for field, ids, clicks in ((BEST_FLIP, best_ids, best_clicks), (LOG_X, xlog_ids, xlog_clicks)):
        on_page = {str(i["chart"]): (c or 0) % 2 == 1 for i, c in zip(ids, clicks, strict=True)}
        listed = decode_tags(params.get(field.name)) or []
        kept = [c for c in listed if c not in on_page] + [c for c, on in on_page.items() if on]
        params[field.name] = encode_tags(kept) if kept else None
    new = make_search(params)
    return no_update if same_search(new, search) else new


def _all(name: str) -> dict[str, Any]:
    return {"type": f"chart-{name}", "page": ALL}


def smoother_to_url(
    smoothers: list, windows: list, outliers: list, search: str | None, epochs: list | None = None
) -> Any:
    """The smoother, its window, "ignore outliers" and the steps of an epoch kept in the URL
    (:data:`SMOOTHER`, :data:`WINDOW`, :data:`OUTLIERS`, :data:`EPOCH_STEPS`), on either chart
    page (its one control of each: ``ALL``); every other parameter kept."""
    if not smoothers:
        return no_update
    params: dict[str, Any] = parse_search(search)
    fields = [(SMOOTHER, smoothers), (WINDOW, windows), (OUTLIERS, outliers)]
    for field, values in [*fields, (EPOCH_STEPS, epochs or [])]:
        params[field.name] = field.text(field.from_control(values[0] if values else None))
    new = make_search(params)
    return no_update if same_search(new, search) else new


def _bind_url_writers(app: Any) -> None:
    """The chart controls that the URL keeps: best value, log x, smoother, outliers; and the
    pins, which the browser keeps (:mod:`.page_pins`)."""
    register_pin_callbacks(app)
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input({"type": "chart-best", "chart": ALL}, "n_clicks"),
        Input({"type": "chart-xlog", "chart": ALL}, "n_clicks"),
        State({"type": "chart-best", "chart": ALL}, "id"),
        State({"type": "chart-xlog", "chart": ALL}, "id"),
        State("url", "search"),
        prevent_initial_call=True,
    )(chart_flags_search)
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(_all("smoother"), "value"),
        Input(_all("window"), "value"),
        Input(_all("outliers"), "value"),
        State("url", "search"),
        Input(_all("epoch-steps"), "value"),
        prevent_initial_call=True,
    )(smoother_to_url)


def register_chart_callbacks(app: Any) -> None:
    """Browser-side rendering of every chart grid of the app (registered once per app)."""
    if getattr(app, "_dash_insight_charts", False):
        return
    app._dash_insight_charts = True
    _bind_render(app)
    _bind_url_writers(app)
    _bind_card_tools(app)


def _bind_render(app: Any) -> None:
    """Every chart drawn in the browser (``scalarCharts.render``) from the plan and whatever
    changes how it looks."""
    app.clientside_callback(
        ClientsideFunction(namespace="scalarCharts", function_name="render"),
        # Always no_update: graphs are put in their slots by scalarCharts draw, one per task;
        # but Dash calls a callback only when one of its outputs is on the page, and before
        # the first graph the slots are.
        Output({"type": "graph-slot", "chart": ALL}, "children"),
        Output({"type": "scalar-graph", "chart": ALL}, "figure"),
        Input(_all("data"), "data"),
        Input(_all("smoothing"), "drag_value"),
        Input(_all("smoothing"), "value"),
        Input(_all("smoothing-box"), "value"),  # typed values draw at once, not via the slider
        Input(_all("axis"), "value"),
        Input({"type": "chart-log", "chart": ALL}, "n_clicks"),
        Input({"type": "graph-slot", "chart": ALL}, "id"),
        Input({"type": "scalar-graph", "chart": ALL}, "id"),
        Input(_all("thresholds"), "data"),
        Input("theme", "data"),  # colours follow the light / dark theme
        Input(STORE_ID, "data"),  # and the runs' colours the user picked
        Input({"type": "chart-best", "chart": ALL}, "n_clicks"),  # min / max flipped
        Input({"type": "chart-xlog", "chart": ALL}, "n_clicks"),
        Input(_all("smoother"), "value"),  # EMA, moving average or none
        Input(_all("window"), "value"),
        Input(_all("outliers"), "value"),  # the y range without outliers
    )


def _bind_card_tools(app: Any) -> None:
    """The cards' buttons that act in the browser only (best value's label, zoom, full
    screen) and the smoothing slider kept in step with its number box."""
    app.clientside_callback(
        ClientsideFunction(namespace="scalarCharts", function_name="bestLabel"),
        Output({"type": "chart-best", "chart": MATCH}, "children"),
        Input({"type": "chart-best", "chart": MATCH}, "n_clicks"),
        State({"type": "chart-best", "chart": MATCH}, "value"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(namespace="scalarCharts", function_name="zoom"),
        Output({"type": "chart-zoom", "chart": MATCH}, "data"),
        Input({"type": "scalar-graph", "chart": MATCH}, "relayoutData"),
        Input({"type": "chart-back", "chart": MATCH}, "n_clicks"),
        Input({"type": "chart-reset", "chart": MATCH}, "n_clicks"),
        State({"type": "chart-zoom", "chart": MATCH}, "data"),
        State({"type": "scalar-graph", "chart": MATCH}, "id"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(namespace="scalarCharts", function_name="fullScreen"),
        Output({"type": "chart-card", "chart": MATCH}, "className"),
        Input({"type": "chart-full", "chart": MATCH}, "n_clicks"),
        State({"type": "chart-card", "chart": MATCH}, "className"),
        prevent_initial_call=True,
    )
    # Slider and number box stay in step; the box accepts typed values.
    app.clientside_callback(
        ClientsideFunction(namespace="scalarCharts", function_name="syncSmoothing"),
        Output({"type": "chart-smoothing", "page": MATCH}, "value"),
        Output({"type": "chart-smoothing-box", "page": MATCH}, "value"),
        Input({"type": "chart-smoothing", "page": MATCH}, "value"),
        Input({"type": "chart-smoothing-box", "page": MATCH}, "value"),
        prevent_initial_call=True,
    )
