"""A histogram chart drawn on the server, as HTML and SVG: what the parameter distribution page
shows of its first charts before its scripts have run (:mod:`dash_insight.web.first_paint`).

It draws what :func:`~.histogram_views.top_figure` and :func:`~.histogram_views.front_figure`
draw with Plotly in the page's 300 px graph (``.di-vp-graph``), from the same geometry
(:func:`~.histogram_views.top_view`, :func:`~.histogram_views.front_view`: base lines, band
outlines, step colours, band fills, step labels, x range, margins):

* Top: one filled band per step, the earliest at the back, each band's outline in its step
  colour and filled with :func:`~.histogram_views.band_fill`, the step labels on the right;
* Front: one line per step, the count axis (from 0, grid lines, title) on the right;
* both: x ticks where Plotly puts its own (a nice step, :mod:`dash_insight.core.axis_scale`,
  for the tick count Plotly aims at on a card of a 1600 px window), written as the figure's
  ``tickformat`` (three significant digits) writes them.

The bands and lines are one SVG stretched over the plot area (``viewBox`` 0..1000 both ways,
``preserveAspectRatio="none"``, strokes not scaled); the tick labels are HTML placed in per
cent of it, so the drawing fits the card's width, which the server does not know.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

from dash_insight.core.axis_scale import AxisRange, nice_step
from dash_insight.core.i18n import gettext as _
from dash_insight.web.components.figures import GRID_COLOUR, TEXT_COLOUR
from dash_insight.web.components.histogram_views import (
    FRONT_LINE_WIDTH,
    HistogramSeries,
    band_fill,
    front_line,
    front_view,
    top_view,
)

#: The graph's height (``.di-vp-graph`` in values-pages.css) and its width in a card of a
#: 1600 px window (three cards a row): Plotly chooses its tick count from the plot's length.
GRAPH_HEIGHT_PX = 300
GRAPH_WIDTH_PX = 472
#: Plotly's auto ticks: the axis length per tick (80 px on x, 40 on y), 4 to 9 ticks, plus one.
X_PX_PER_TICK, Y_PX_PER_TICK = 80, 40
#: The SVG's user units across and down the plot area.
UNITS = 1000
#: Plotly's default font (the figures set its size, 11 px, and colour).
FONT = '"Open Sans", verdana, arial, sans-serif'
#: Plotly pads an automatic range by 5 % of the axis length (the count axis' top).
PAD = 0.05
MINUS = "\u2212"


def plotly_step(span: float, length_px: float, px_per_tick: float) -> float:
    """The tick step Plotly's ``autoTicks`` chooses for a linear axis over ``span`` that is
    ``length_px`` long: about ``min(max(length / px_per_tick, 4), 9) + 1`` ticks, the step
    rounded up to a nice one (:func:`~dash_insight.core.axis_scale.nice_step`); Plotly's nice
    steps are 1, 2 and 5 x 10^k, so a step of 2.5 x 10^k becomes 5 x 10^k."""
    ticks = min(max(length_px / px_per_tick, 4.0), 9.0) + 1
    step = nice_step(span / ticks)
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    return step * 2 if math.isclose(mantissa, 2.5) else step


def inside_ticks(axis: AxisRange) -> list[float]:
    """The multiples of ``axis.step`` from ``axis.low`` to ``axis.high`` (Plotly's ticks
    start at 0: ``tick0``), without float noise."""
    first = math.ceil(axis.low / axis.step - 1e-9)
    last = math.floor(axis.high / axis.step + 1e-9)
    digits = max(0, 3 - math.floor(math.log10(axis.step)))
    return [round(i * axis.step, digits) + 0.0 for i in range(first, last + 1)]


def g3_text(value: float) -> str:
    """``value`` as d3's ``.3~g`` writes it (the x axes' ``tickformat``): three significant
    digits without trailing zeros, exponent notation (``1.5e+7``) below 1e-6 and from 1e3 ...
    as ``toPrecision(3)``, and Plotly's minus sign."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    exponent = int(f"{value:.2e}".split("e")[1])  # after rounding to three digits
    if -7 < exponent < 3:
        text = f"{value:.{max(0, 2 - exponent)}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    else:
        mantissa, power = f"{value:.2e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        text = f"{mantissa}e{power[0]}{int(power[1:])}"
    return text.replace("-", MINUS)


def count_text(value: float, axis: AxisRange) -> str:
    """A count tick as Plotly writes it without a ``tickformat``: the step's decimals; with
    k / M / G (SI, a multiple of three below the top's exponent) once the axis reaches
    10,000 (``minexponent`` 3)."""
    top = max(abs(axis.low), abs(axis.high))
    exponent = math.floor(math.log10(top) + 0.01) if top > 0 else 0
    shift = 3 * round((exponent - 1) / 3) if exponent > 3 else 0
    suffix = {0: "", 3: "k", 6: "M", 9: "G", 12: "T"}.get(shift, f"e{shift}")
    step = axis.step / 10**shift
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    text = f"{value / 10**shift:.{decimals}f}"
    return "0" if float(text) == 0 else text.replace("-", MINUS) + suffix


def _place(values: np.ndarray, low: float, high: float, flip: bool) -> np.ndarray:
    """Values in SVG units across ``low..high`` (0..UNITS; down the plot for ``flip``)."""
    units = (values - low) / (high - low) * UNITS
    return UNITS - units if flip else units


def _path(x: np.ndarray, y: np.ndarray, x_range: Sequence[float], y_range: Sequence[float]) -> str:
    """SVG path data through the points, in whole units (a unit is under half a pixel of a
    card's plot)."""
    px = np.rint(_place(x, x_range[0], x_range[1], False)).astype(np.int64)
    py = np.rint(_place(y, y_range[0], y_range[1], True)).astype(np.int64)
    return "M" + "L".join(f"{a} {b}" for a, b in zip(px.tolist(), py.tolist(), strict=True))


def _x_extent(series: HistogramSeries, x_range: list[float] | None) -> tuple[float, float]:
    """The x axis: the figure's range, or (no width to draw: Plotly's autorange) one around
    the buckets' edges."""
    if x_range is not None:
        return x_range[0], x_range[1]
    edges = [float(v) for b in series.buckets if len(b) for v in (b[0, 0], b[-1, 0] + b[-1, 1])]
    middle = edges[0] if edges else 0.0
    return middle - 1, middle + 1


def _x_labels(
    low: float, high: float, plot_px: float, zeroline: bool
) -> tuple[list[str], list[str]]:
    """The x tick labels (HTML) and, with ``zeroline``, the zero line (SVG) of an x axis."""
    step = plotly_step(high - low, plot_px, X_PX_PER_TICK)
    labels, lines = [], []
    for tick in inside_ticks(AxisRange(low, high, step)):
        at = float(_place(np.array([tick]), low, high, False)[0])
        labels.append(
            f'<span style="position:absolute;top:calc(100% + 3px);'
            f'left:{at / 10:.2f}%;transform:translateX(-50%)">{g3_text(tick)}</span>'
        )
        if zeroline and tick == 0:
            lines.append(
                f'<path d="M{at:.0f} 0V{UNITS}" stroke="{GRID_COLOUR}" '
                'vector-effect="non-scaling-stroke"/>'
            )
    return labels, lines


def _right_label(at_units: float, text: str) -> str:
    return (
        f'<span style="position:absolute;left:calc(100% + 3px);top:{at_units / 10:.2f}%;'
        f'transform:translateY(-50%);white-space:nowrap">{html.escape(text)}</span>'
    )


def _left_label(at_units: float, text: str) -> str:
    return (
        f'<span style="position:absolute;right:calc(100% + 5px);top:{at_units / 10:.2f}%;'
        f'transform:translateY(-50%);white-space:nowrap">{html.escape(text)}</span>'
    )


def _chart(margin: dict[str, int], svg: list[str], labels: list[str]) -> str:
    return (
        f'<div class="di-hist-preview" style="position:relative;height:100%;'
        f"min-height:{GRAPH_HEIGHT_PX}px;font:11px {html.escape(FONT)};"
        f'color:{TEXT_COLOUR};line-height:1">'
        f'<div style="position:absolute;left:{margin["l"]}px;right:{margin["r"]}px;'
        f'top:{margin["t"]}px;bottom:{margin["b"]}px">'
        f'<svg width="100%" height="100%" viewBox="0 0 {UNITS} {UNITS}" '
        'preserveAspectRatio="none" style="position:absolute;inset:0;overflow:visible">'
        f"{''.join(svg)}</svg>{''.join(labels)}</div></div>"
    )


def _no_data() -> str:
    """What an empty figure shows: "no data" in the middle, no axes."""
    return (
        f'<div class="di-hist-preview" style="position:relative;height:100%;'
        f"min-height:{GRAPH_HEIGHT_PX}px;display:flex;align-items:center;"
        f'justify-content:center;font:11px {html.escape(FONT)};color:{TEXT_COLOUR}">'
        f"{html.escape(_('no data'))}</div>"
    )


def top_html(series: HistogramSeries, axis: str = "step", theme: str | None = None) -> str:
    """The Top view of ``series`` (:func:`~.histogram_views.top_figure`): a filled band per
    step, the earliest first (behind), each an open path (the fill closes it along its base
    line, as Plotly's ``fill: toself``; the outline does not run along it), step labels on the
    right, the count scale on the left, x ticks below."""
    if not len(series):
        return _no_data()
    view = top_view(series, axis)
    low, high = _x_extent(series, view.x_range)
    y_low, y_high = view.y_range
    svg = []
    for i, buckets in enumerate(series.buckets):
        if not len(buckets):
            continue
        x, y = view.band(i, buckets)
        svg.append(
            f'<path d="{_path(x, y, (low, high), view.y_range)}" '
            f'fill="{band_fill(view.colours[i], theme)}" stroke="{view.colours[i]}" '
            'stroke-width="1" stroke-linejoin="round" '
            'vector-effect="non-scaling-stroke"/>'
        )
    labels, _lines = _x_labels(
        low, high, GRAPH_WIDTH_PX - view.margin["l"] - view.margin["r"], zeroline=False
    )
    for value, text in zip(view.tick_values, view.tick_text, strict=True):
        labels.append(_right_label(float(_place(np.array([value]), y_low, y_high, True)[0]), text))
    for value, text in zip(view.count_values, view.count_text, strict=True):
        labels.append(_left_label(float(_place(np.array([value]), y_low, y_high, True)[0]), text))
    return _chart(view.margin, svg, labels)


def front_html(series: HistogramSeries) -> str:
    """The Front view of ``series`` (:func:`~.histogram_views.front_figure`): a line per step,
    later ones over earlier ones; the count axis on the right from 0 to the largest count
    padded as Plotly pads it, its grid lines and zero line, its title; x ticks below and
    the x zero line."""
    if not len(series):
        return _no_data()
    view = front_view(series)
    low, high = _x_extent(series, view.x_range)
    top = view.peak / (1 - PAD) if view.peak > 0 else 1.0
    plot_height = GRAPH_HEIGHT_PX - view.margin["t"] - view.margin["b"]
    counts = AxisRange(0.0, top, plotly_step(top, plot_height, Y_PX_PER_TICK))
    svg: list[str] = []
    labels: list[str] = []
    for tick in inside_ticks(counts):
        at = float(_place(np.array([tick]), 0.0, top, True)[0])
        svg.append(
            f'<path d="M0 {at:.0f}H{UNITS}" stroke="{GRID_COLOUR}" '
            'vector-effect="non-scaling-stroke"/>'
        )
        labels.append(_right_label(at, count_text(tick, counts)))
    x_labels, zero = _x_labels(
        low, high, GRAPH_WIDTH_PX - view.margin["l"] - view.margin["r"], zeroline=True
    )
    svg.extend(zero)
    labels.extend(x_labels)
    for i, buckets in enumerate(series.buckets):
        if not len(buckets):
            continue
        x, y = front_line(buckets)
        svg.append(
            f'<path d="{_path(x, y, (low, high), (0.0, top))}" fill="none" '
            f'stroke="{view.colours[i]}" stroke-width="{FRONT_LINE_WIDTH}" '
            'stroke-linejoin="round" vector-effect="non-scaling-stroke"/>'
        )
    title_at = view.margin["r"] - 21  # its centre where Plotly puts it
    labels.append(
        f'<span style="position:absolute;left:calc(100% + {title_at}px);top:50%;'
        "transform:translate(-50%,-50%) rotate(-90deg);font-size:13px;"
        f'white-space:nowrap">{html.escape(_("count"))}</span>'
    )
    return _chart(view.margin, svg, labels)


def preview_html(
    series: HistogramSeries, view: str = "top", axis: str = "step", theme: str | None = None
) -> str:
    """:func:`front_html` for ``view == "front"``, else :func:`top_html` on ``axis``, as
    :func:`~.histogram_views.histogram_figure` chooses its figure."""
    if view == "front":
        return front_html(series)
    return top_html(series, axis, theme)
