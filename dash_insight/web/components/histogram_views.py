"""Histogram charts of the parameter distribution and tensor pages: Top and Front views.

MindInsight 2.3.1 (``histogram.vue``, ``tensor.vue``; dashboard guide "参数分布图可视化"):

* **Top** (default, "俯视"): an offset ridgeline, one filled band per step, the earliest step at
  the back (top) and later steps lower and in front; the vertical axis is the step, the relative
  time (seconds since the first step shown) or the absolute time, so bands are spaced by that
  quantity; step labels on the right.
* **Front** ("正视"): every step's histogram overlaid as a line, count axis on the right.
* Both: x = bucket centre ``left + width / 2``, height = ``floor(count)``; later steps darker;
  the hover tells the centre value, count, step, relative and absolute time.

Buckets come from :meth:`DataProvider.histograms` (re-binned onto one grid, or as written) or
:meth:`DataProvider.tensor_histograms`. Pure: data in, figure out.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dash_insight.core.i18n import format_wall_time, lazy_gettext, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.web.components.figures import small_layout, step_colours

#: A figure as Dash sends it: ``{"data": [trace dicts], "layout": {...}}`` (see :func:`_figure`).
Figure = dict[str, Any]

VIEWS = ("top", "front")
AXES = ("step", "relative", "absolute")
AXIS_TITLES = {
    "step": lazy_gettext("Step"),
    "relative": lazy_gettext("Relative time (s)"),
    "absolute": lazy_gettext("Absolute time"),
}
#: Height of the tallest band in the Top view, as a share of the offset span (0..1).
RIDGE_HEIGHT = 0.45
#: Most step labels on the Top view's right axis.
MAX_TICKS = 10
#: Most labels on the Top view's count scale (left, beside the front band).
MAX_COUNT_TICKS = 4
#: The card background of each theme (``--panel`` in dash-insight.css): Top-view bands are
#: filled with an opaque tint of it so a later band hides the ones behind, as in MindInsight.
PANEL_COLOURS = {"light": "#ffffff", "dark": "#20232a"}
#: The x axis' tick labels (d3 format: three significant digits, no trailing zeros).
X_TICK_FORMAT = ".3~g"
#: The width of a Front-view line (a Top-view band's outline is 1 px).
FRONT_LINE_WIDTH = 1.2


@dataclass(frozen=True)
class HistogramSeries:
    """The steps of one tag ready to draw, sorted by step.

    ``buckets[i]`` is an ``(n, 3)`` array ``(left, width, count)`` of step ``steps[i]``;
    ``nan`` / ``pos_inf`` / ``neg_inf`` are per-step counts of values left out of the buckets
    (None when unknown); ``total_steps`` = how many steps the tag has (more than drawn when
    ``max_steps`` thinned them)."""

    steps: tuple[int, ...]
    wall_times: tuple[float, ...]
    buckets: tuple[np.ndarray, ...]
    nan: tuple[int, ...] | None = None
    pos_inf: tuple[int, ...] | None = None
    neg_inf: tuple[int, ...] | None = None
    total_steps: int | None = None

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def non_finite(self) -> dict[str, int]:
        """Largest per-step NaN / +Inf / -Inf counts (0 when unknown)."""
        return {
            name: max(values, default=0) if values else 0
            for name, values in (("NaN", self.nan), ("+Inf", self.pos_inf), ("-Inf", self.neg_inf))
        }


def series_from_histograms(items: Sequence[Any], total_steps: int | None = None) -> HistogramSeries:
    """From :class:`~dash_insight.core.provider.HistogramStep` items (``.step``, ``.wall_time``,
    ``.buckets``, ``.value`` with ``nan_count`` / ``pos_inf_count`` / ``neg_inf_count``)."""
    values = [getattr(item, "value", None) for item in items]
    counted = [v for v in values if v is not None]
    known = bool(values) and len(counted) == len(values)
    return HistogramSeries(
        steps=tuple(int(item.step) for item in items),
        wall_times=tuple(float(item.wall_time) for item in items),
        buckets=tuple(np.asarray(item.buckets, dtype=np.float64).reshape(-1, 3) for item in items),
        nan=tuple(int(v.nan_count) for v in counted) if known else None,
        pos_inf=tuple(int(v.pos_inf_count) for v in counted) if known else None,
        neg_inf=tuple(int(v.neg_inf_count) for v in counted) if known else None,
        total_steps=total_steps if total_steps is not None else len(items),
    )


def series_from_tensor_histograms(
    items: Sequence[tuple[int, float, np.ndarray]], total_steps: int | None = None
) -> HistogramSeries:
    """From :meth:`DataProvider.tensor_histograms` ``(step, wall_time, buckets)`` tuples."""
    return HistogramSeries(
        steps=tuple(int(s) for s, _, _ in items),
        wall_times=tuple(float(w) for _, w, _ in items),
        buckets=tuple(np.asarray(b, dtype=np.float64).reshape(-1, 3) for _, _, b in items),
        total_steps=total_steps if total_steps is not None else len(items),
    )


def axis_values(series: HistogramSeries, axis: str) -> np.ndarray:
    """The vertical-axis quantity per step: step, seconds since the first step, or wall time."""
    if axis == "relative":
        walls = np.asarray(series.wall_times, dtype=np.float64)
        return walls - walls[0] if len(walls) else walls
    if axis == "absolute":
        return np.asarray(series.wall_times, dtype=np.float64)
    return np.asarray(series.steps, dtype=np.float64)


def axis_label(value: float, axis: str) -> str:
    """Tick text for a vertical-axis value (step number, ``12.5s``, or ``HH:MM:SS``)."""
    if axis == "relative":
        return f"{value:.4g}s"
    if axis == "absolute":
        return time.strftime("%H:%M:%S", time.localtime(value))
    return str(round(value))


def offsets(values: np.ndarray) -> np.ndarray:
    """Base line of each band in the Top view: 1 for the first value (back, top) down to 0 for
    the last (front, bottom), spaced in proportion to ``values`` (evenly when they are all
    equal, e.g. several steps written in the same second)."""
    count = len(values)
    if count == 0:
        return np.zeros(0)
    span = float(values[-1] - values[0]) if count > 1 else 0.0
    if count == 1:
        return np.zeros(1)
    if span <= 0 or not np.isfinite(span):
        return np.linspace(1.0, 0.0, count)
    return 1.0 - (values - values[0]) / span


def _tick_positions(count: int, limit: int = MAX_TICKS) -> list[int]:
    """Indices of the steps labelled on the axis: at most ``limit``, first and last kept."""
    if count <= limit:
        return list(range(count))
    return sorted(set(np.linspace(0, count - 1, limit).round().astype(int).tolist()))


def nice_ticks(start: float, end: float, limit: int, integer: bool = False) -> list[float]:
    """Evenly spaced round values in ``[start, end]``, at most ``limit`` of them: the
    multiples of d3's ``tickIncrement`` (10^k times 1, 2 or 5: the raw spacing
    ``(end - start) / limit`` rounded up to 2 from 1.41, to 5 from 3.16, to 10 from 7.07, as
    TensorBoard's axes choose theirs), taken one size larger while there are more than
    ``limit``, and at least 1 apart when ``integer`` (steps). Empty when the span is empty
    or not finite."""
    span = end - start
    if not (span > 0 and np.isfinite(span)) or limit < 1:
        return []
    raw = span / limit
    power = 10.0 ** np.floor(np.log10(raw))
    error = raw / power
    sizes = [s * power for s in (1, 2, 5, 10, 20, 50)]
    size = next(
        s
        for s, bound in zip(sizes, (2**0.5, 10**0.5, 50**0.5, np.inf), strict=False)
        if error < bound
    )
    for increment in sizes[sizes.index(size) :]:
        increment = max(1.0, increment) if integer else increment
        first = np.ceil(start / increment - 1e-9)
        last = np.floor(end / increment + 1e-9)
        if last - first + 1 <= limit:
            break
    return [float(round(k * increment, 12)) + 0.0 for k in np.arange(first, last + 1)]  # no -0


def count_tick_text(value: float) -> str:
    """A count scale label as Plotly's SI format writes it: ``400``, ``1.5k``, ``2M``."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def _step_ticks(values: np.ndarray, bases: np.ndarray, axis: str) -> tuple[list[float], list[str]]:
    """The right axis of the Top view: base lines and texts of round values of ``axis``
    (:func:`nice_ticks`: evenly spaced, as the bands are spaced in proportion to their
    values), or of the steps themselves when the values have no span (one step, or bands
    evenly spread because every step has the same wall time)."""
    span = float(values[-1] - values[0]) if len(values) > 1 else 0.0
    ticks = nice_ticks(float(values[0]), float(values[-1]), MAX_TICKS, axis == "step")
    if span > 0 and len(ticks) >= 2:
        return (
            [1.0 - (t - float(values[0])) / span for t in ticks],
            [axis_label(t, axis) for t in ticks],
        )
    indices = _tick_positions(len(values))
    return [float(bases[i]) for i in indices], [axis_label(float(values[i]), axis) for i in indices]


def _centres(buckets: np.ndarray) -> np.ndarray:
    return buckets[:, 0] + buckets[:, 1] / 2


#: customdata rows and texts of one step's buckets (:func:`_hover_data`).
HoverValues = tuple[np.ndarray, list[str]]


def _hover_data(series: HistogramSeries, index: int, buckets: np.ndarray) -> HoverValues:
    """The hover values of one step's buckets: numeric ``customdata`` rows (count, step,
    relative seconds) and a ``text`` per bucket (absolute time, NaN / Inf counts). Numbers and
    a list of strings, not one array of objects: Dash's JSON encoder converted such an array
    item by item, 95% of the time it took to send a parameter distribution page's figures."""
    rows = np.empty((len(buckets), 3), dtype=np.float64)
    rows[:, 0] = np.floor(buckets[:, 2])
    rows[:, 1] = series.steps[index]
    rows[:, 2] = round(series.wall_times[index] - series.wall_times[0], 3)
    text = format_wall_time(series.wall_times[index]) + _non_finite_text(series, index)
    return rows, [text] * len(buckets)


def _non_finite_text(series: HistogramSeries, index: int) -> str:
    if series.nan is None:
        return ""
    parts = [
        f"{name} {values[index]}"
        for name, values in (
            ("NaN", series.nan),
            ("+Inf", series.pos_inf),
            ("-Inf", series.neg_inf),
        )
        if values and values[index]
    ]
    return "<br>" + " · ".join(parts) if parts else ""


def hover_template() -> str:
    """The hover text of a histogram point (rows of :func:`_hover_data`), in the current
    language."""
    return (
        _("center")
        + " %{x:.6~g}<br>"
        + _("count")
        + " %{customdata[0]}<br>"
        + _("step")
        + " %{customdata[1]}<br>"
        + _("relative")
        + " %{customdata[2]}s"
        + "<br>%{text}<extra></extra>"
    )


#: Pixels per character of an 11 px tick label, rounded up (Plotly's default font).
LABEL_CHAR_PX = 7


def label_margin(right_labels: int, right_title: bool = False) -> dict[str, int]:
    """Margins that hold the tick labels (``right_labels`` characters at most on the right
    axis, an axis title beside them or not) so that Plotly's ``automargin`` has nothing to add:
    when it has, Plotly draws the whole chart a second time with the new margins, which doubled
    the time a chart of 40 bands took to draw (issue 17 item 8). The left margin takes the
    overhang of the first x label, the bottom one line of x labels, the top (with a titled
    count axis: Front) half its top label; ``automargin`` stays on
    for labels longer than these estimates (the right margin also takes the overhang of the last
    x label)."""
    return {
        "l": 20,
        "r": 14 + LABEL_CHAR_PX * right_labels + (24 if right_title else 0),
        "t": 18 if right_title else 8,
        "b": 28,
    }


def _x_range(series: HistogramSeries) -> list[float] | None:
    edges = [(float(b[0, 0]), float(b[-1, 0] + b[-1, 1])) for b in series.buckets if len(b)]
    if not edges:
        return None
    low, high = min(e[0] for e in edges), max(e[1] for e in edges)
    return [low, high] if high > low else None


def _rgb(colour: str) -> tuple[int, int, int]:
    """``"rgb(1, 2, 3)"`` or ``"#010203"`` -> (1, 2, 3)."""
    if colour.startswith("#"):
        return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    red, green, blue = (int(float(v)) for v in colour[colour.index("(") + 1 : -1].split(",")[:3])
    return red, green, blue


def band_fill(colour: str, theme: str | None, share: float = 0.28) -> str:
    """Fill of a Top-view band: ``share`` of the step colour over the theme's card background
    (opaque, so bands in front hide those behind); a translucent tint when no theme is given."""
    red, green, blue = _rgb(colour)
    background = PANEL_COLOURS.get(theme or "")
    if background is None:
        return f"rgba({red}, {green}, {blue}, {share})"
    base = _rgb(background)
    mixed = [
        round(c * share + b * (1 - share)) for c, b in zip((red, green, blue), base, strict=True)
    ]
    return f"rgb({mixed[0]}, {mixed[1]}, {mixed[2]})"


def _empty_figure(layout: go.Layout, message: str) -> Figure:
    figure = go.Figure(layout=layout)
    figure.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure.to_plotly_json()


def _merged(base: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``updates`` as Plotly's ``update_layout`` does: nested dicts merged,
    other values replaced."""
    out = dict(base)
    for key, value in updates.items():
        old = out.get(key)
        out[key] = (
            _merged(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return out


def _figure(traces: list[dict[str, Any]], layout: go.Layout, **updates: Any) -> Figure:
    """A figure of trace dicts built by this module, its layout updated by ``updates``: a plain
    dict, which Dash sends as it is (numpy arrays included). A ``go.Figure``, even unvalidated,
    took 60% of the time to answer a parameter distribution page (built, then deep-copied and
    converted array by array to be sent: 0.2 s a chart of 50 steps on this machine).
    ``tests/test_histogram_views.py`` checks that the same figures pass validation
    (``go.Figure(figure)``)."""
    return {
        "data": traces,
        "layout": {"template": _default_template(), **_merged(layout.to_plotly_json(), updates)},
    }


@functools.cache
def _default_template() -> dict[str, Any]:
    """plotly's default template, which a ``go.Figure`` carries: the charts look as before."""
    return go.Figure().to_plotly_json()["layout"]["template"]


def _hover_trace(
    steps: list[tuple[np.ndarray, np.ndarray, HoverValues, str]], template: str
) -> dict[str, Any]:
    """One invisible trace (``mode: none``, nothing drawn) that tells the bucket under the
    pointer for every band of the Top view: ``steps`` = (centres, heights, hover values of
    :func:`_hover_data`, step colour) per band. A marker trace per band drew an invisible SVG
    point per bucket, 1,200 elements a chart of 40 steps, and took most of the time a chart
    took to draw (issue 17 item 8); the hover label keeps the colour of its band."""
    return {
        "type": "scatter",
        "mode": "none",
        "hoveron": "points",
        "showlegend": False,
        "x": np.concatenate([centres for centres, _, _, _ in steps]),
        "y": np.concatenate([heights for _, heights, _, _ in steps]),
        "customdata": np.concatenate([rows for _, _, (rows, _), _ in steps]),
        "text": [line for _, _, (_, texts), _ in steps for line in texts],
        "hoverlabel": {
            "bgcolor": [colour for centres, _, _, colour in steps for _ in range(len(centres))]
        },
        "hovertemplate": template,
        "name": "",
    }


@dataclass(frozen=True)
class TopView:
    """Where the Top view puts a (non-empty) series, shared by :func:`top_figure` and the
    server's drawing of it (:mod:`.histogram_preview`): the vertical-axis quantity and base line
    (:func:`offsets`) of each step, the count-to-height ``scale``, the step colours, the
    labelled steps' base lines and texts on the right axis, the x range (None: Plotly's own),
    the y range and the margins."""

    values: np.ndarray
    bases: np.ndarray
    scale: float
    colours: list[str]
    tick_values: list[float]
    tick_text: list[str]
    count_values: list[float]
    count_text: list[str]
    x_range: list[float] | None
    y_range: list[float]
    margin: dict[str, int]

    def band(self, index: int, buckets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The outline of step ``index``'s band: from its base line at the left edge, over
        the bucket centres at ``base + floor(count) * scale``, down to the base line at the
        right edge (``buckets`` non-empty)."""
        base = self.bases[index]
        left, right = float(buckets[0, 0]), float(buckets[-1, 0] + buckets[-1, 1])
        return (
            np.concatenate([[left], _centres(buckets), [right]]),
            np.concatenate([[base], base + np.floor(buckets[:, 2]) * self.scale, [base]]),
        )


def top_view(series: HistogramSeries, axis: str = "step") -> TopView:
    """The Top view's geometry of ``series`` (at least one step) on ``axis`` (see
    :class:`TopView`; an unknown axis is "step")."""
    axis = axis if axis in AXES else "step"
    values = axis_values(series, axis)
    bases = offsets(values)
    peak = max((float(np.floor(b[:, 2]).max()) for b in series.buckets if len(b)), default=0.0)
    ridge = RIDGE_HEIGHT if len(series) > 1 else 1.0
    scale = ridge / (peak or 1.0)
    tick_values, tick_text = _step_ticks(values, bases, axis)
    counts = nice_ticks(0.0, peak, MAX_COUNT_TICKS, integer=True)
    count_text = [count_tick_text(c) for c in counts]
    margin = label_margin(max(len(t) for t in tick_text))
    if count_text:
        margin["l"] = max(margin["l"], 14 + LABEL_CHAR_PX * max(len(t) for t in count_text))
    return TopView(
        values=values,
        bases=bases,
        scale=scale,
        colours=step_colours(len(series)),
        tick_values=tick_values,
        tick_text=tick_text,
        count_values=[float(bases[-1]) + c * scale for c in counts],
        count_text=count_text,
        x_range=_x_range(series),
        y_range=[-0.04, 1.0 + ridge * 1.05],
        margin=margin,
    )


def top_figure(
    series: HistogramSeries,
    axis: str = "step",
    height: int | None = 320,
    hover: bool = True,
    theme: str | None = None,
) -> Figure:
    """Top view: one band per step (a path shape: :func:`band_shape`), earlier steps behind
    and above, later in front and lower; band spacing follows ``axis`` ("step", "relative",
    "absolute"); the tallest bucket of the tag rises :data:`RIDGE_HEIGHT` of the span above its
    base line. ``theme`` ("light" / "dark") makes the fills opaque on that theme's card colour
    (see :func:`band_fill`)."""
    layout = small_layout(height=height)
    if not len(series):
        return _empty_figure(layout, _("no data"))
    axis = axis if axis in AXES else "step"
    template = hover_template()
    view = top_view(series, axis)
    colours = view.colours
    bands: list[dict[str, Any]] = []
    hovers: list[tuple[np.ndarray, np.ndarray, HoverValues, str]] = []
    for i, buckets in enumerate(series.buckets):
        if not len(buckets):
            continue
        x, y = view.band(i, buckets)
        bands.append(band_shape(x, y, colours[i], band_fill(colours[i], theme)))
        if hover:
            hovers.append((x[1:-1], y[1:-1], _hover_data(series, i, buckets), colours[i]))
    # Plotly draws the count scale's axis only with a trace on it: an empty one.
    scale = {"type": "scatter", "x": [], "y": [], "yaxis": "y2", "showlegend": False}
    return _figure(
        [
            *([scale] if view.count_text else []),
            *([_hover_trace(hovers, template)] if hovers else []),
        ],
        layout,
        hovermode="closest",
        margin=view.margin,
        shapes=bands,
        **_top_axes(view),
        meta={"view": "top", "axis": axis},
    )


def _top_axes(view: TopView) -> dict[str, Any]:
    """The top view's axes: x over the buckets, the steps' labels on the right-hand y axis,
    the count scale on the left-hand one (y2), both over the same range."""
    return {
        "xaxis": {
            "range": view.x_range,
            "showgrid": False,
            "zeroline": False,
            "tickformat": X_TICK_FORMAT,
        },
        "yaxis": {
            "tickvals": view.tick_values,
            "ticktext": view.tick_text,
            "side": "right",
            "showgrid": False,
            "zeroline": False,
            "range": view.y_range,
        },
        "yaxis2": {
            "overlaying": "y",
            "side": "left",
            "tickvals": view.count_values,
            "ticktext": view.count_text,
            "ticks": "outside",
            "ticklen": 3,
            "showgrid": False,
            "zeroline": False,
            "range": view.y_range,
        },
    }


def band_shape(x: np.ndarray, y: np.ndarray, colour: str, fill: str) -> dict[str, Any]:
    """A Top-view band as a layout shape: its outline as an open SVG path (filled as if
    closed, its stroke not along the base line, as a ``fill: toself`` trace drew it).
    Shapes, not a trace per band: Plotly drew a chart of 50 bands in half the time."""
    points = " L".join(f"{a:.7g},{b:.7g}" for a, b in zip(x.tolist(), y.tolist(), strict=True))
    return {
        "type": "path",
        "path": "M" + points,
        "xref": "x",
        "yref": "y",
        "fillcolor": fill,
        "line": {"color": colour, "width": 1},
    }


@dataclass(frozen=True)
class FrontView:
    """Where the Front view puts a (non-empty) series, shared by :func:`front_figure` and the
    server's drawing of it: the step colours, the largest count (the count axis goes from 0 to
    it, Plotly's ``rangemode: tozero``), the x range (None: Plotly's own) and the margins."""

    colours: list[str]
    peak: float
    x_range: list[float] | None
    margin: dict[str, int]


def front_line(buckets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A step's line in the Front view: the bucket centres and ``floor(count)``."""
    return _centres(buckets), np.floor(buckets[:, 2])


def front_view(series: HistogramSeries) -> FrontView:
    """The Front view's geometry of ``series`` (at least one step), see :class:`FrontView`."""
    peak = max((float(np.floor(b[:, 2]).max()) for b in series.buckets if len(b)), default=0.0)
    return FrontView(
        colours=step_colours(len(series)),
        peak=peak,
        x_range=_x_range(series),
        margin=label_margin(count_label_chars(peak), right_title=True),
    )


def front_figure(series: HistogramSeries, height: int | None = 320) -> Figure:
    """Front view: every step's histogram as a line over the bucket centres, later steps drawn
    last and darker; the count axis on the right."""
    layout = small_layout(height=height)
    if not len(series):
        return _empty_figure(layout, _("no data"))
    view = front_view(series)
    template = hover_template()
    traces = []
    for i, buckets in enumerate(series.buckets):
        if not len(buckets):
            continue
        x, y = front_line(buckets)
        rows, texts = _hover_data(series, i, buckets)
        traces.append(
            {
                "type": "scatter",
                "x": x,
                "y": y,
                "mode": "lines",
                "line": {"color": view.colours[i], "width": FRONT_LINE_WIDTH},
                "customdata": rows,
                "text": texts,
                "hovertemplate": template,
                "name": f"step {series.steps[i]}",
                "showlegend": False,
            }
        )
    return _figure(
        traces,
        layout,
        hovermode="closest",
        margin=view.margin,
        xaxis={"range": view.x_range, "showgrid": False, "tickformat": X_TICK_FORMAT},
        yaxis={"side": "right", "rangemode": "tozero", "title": {"text": _("count")}},
        meta={"view": "front"},
    )


def count_label_chars(peak: float) -> int:
    """The longest tick label of a count axis from 0 to ``peak``: Plotly writes at most three
    digits and an SI suffix ("150k", "1.5M"), a decimal under 10 ("0.5")."""
    return min(4, max(3, len(str(int(peak)))))


def histogram_figure(
    series: HistogramSeries,
    view: str = "top",
    axis: str = "step",
    height: int | None = 320,
    theme: str | None = None,
) -> Figure:
    """``front_figure`` for ``view == "front"``, else ``top_figure`` on ``axis``."""
    if view == "front":
        return front_figure(series, height)
    return top_figure(series, axis, height, theme=theme)


def shown_text(series: HistogramSeries) -> str:
    """``"51 steps"`` or ``"100 of 500 steps shown"`` when thinned by ``max_steps``."""
    total = series.total_steps if series.total_steps is not None else len(series)
    if total > len(series):
        return _("{shown} of {total} steps shown (evenly spread, last kept)").format(
            shown=len(series), total=total
        )
    return ngettext("{count} step", "{count} steps", total).format(count=total)


# --- full screen ---------------------------------------------------------------------------------


def register_full_screen(app: Any, card_type: str, button_type: str) -> None:
    """Clicking ``{"type": button_type, "tag": t}`` toggles full screen on the card
    ``{"type": card_type, "tag": t}`` (the CSS class ``di-full-screen``, in the browser:
    ``perTagPage.fullScreen`` in ``assets/per-tag-pages.js``). Plotly graphs inside should be
    ``responsive`` with no fixed height so they fill the screen."""
    from dash import MATCH, ClientsideFunction, Input, Output, State

    app.clientside_callback(
        ClientsideFunction(namespace="perTagPage", function_name="fullScreen"),
        Output({"type": card_type, "tag": MATCH}, "className"),
        Output({"type": button_type, "tag": MATCH}, "children"),
        Input({"type": button_type, "tag": MATCH}, "n_clicks"),
        State({"type": card_type, "tag": MATCH}, "className"),
        prevent_initial_call=True,
    )
