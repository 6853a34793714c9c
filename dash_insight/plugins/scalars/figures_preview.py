"""A scalar chart drawn on the server, as HTML and SVG: what the scalars page shows of its first
charts before its scripts have run (:mod:`dash_insight.web.first_paint`).

It draws what ``assets/scalar-charts.js`` ``chartFigure`` draws with Plotly in a 260 px graph,
at any width: the same margins (``labelMargin``), the y axis widened to nice multiples
(:func:`~dash_insight.core.axis_scale.nice_range`, as ``niceAxes``), the x axis over the data
exactly, the raw line (faded when smoothed) under the smoothed one (TensorBoard's debiased EMA
of the points drawn, :func:`~.query_smoothing.smooth_ema`), the best point's star (kept inside the
plot area, over no tick label) and the "N of M points drawn" note. The lines are one SVG
stretched to the plot area (``viewBox`` 0..1000 both ways, strokes not scaled); tick labels are
HTML placed in per cent of it, so the drawing fits the card's width, which the server does not
know.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from dash_insight.core.axis_scale import AxisRange, nice_range, nice_step, tick_label
from dash_insight.plugins.scalars.query_smoothing import Smoother, outlier_range

#: The graph's height and Plotly's margins in the browser's figure (``chartFigure`` /
#: ``labelMargin``: top 22, bottom 36, right 28, left from the widest y tick label).
HEIGHT_PX = 260
TOP_PX, BOTTOM_PX, RIGHT_PX = 22, 36, 28
#: The SVG's user units across and down the plot area.
UNITS = 1000
#: Ticks the x axis aims at (Plotly's automatic ticks on a ~400 px axis).
X_TICKS = 4
#: Pixels a best point's star keeps from the plot area's edges (``placeStars``' STAR_HALF).
STAR_INSET = 10
FONT = '"Open Sans", verdana, arial, sans-serif'
#: The browser figure's text and grid colours (``chartFigure``), light and dark.
TEXT_COLOUR = {False: "#5f6670", True: "#c9ced6"}
GRID_COLOUR = {False: "rgba(0,0,0,0.07)", True: "rgba(200,200,200,0.12)"}


@dataclass(frozen=True)
class PreviewLine:
    """One line: ``x`` (steps or seconds) and ``y`` (NaN / inf: a gap) of the points drawn,
    its colour, and its best point (``best``: (x, y), or None)."""

    x: np.ndarray
    y: np.ndarray
    colour: str
    best: tuple[float, float] | None = None


def tick_text(value: float, step: float, widest: float | None = None) -> str:
    """A tick label as Plotly writes it on an axis whose range reaches ``widest`` (default
    ``value``): :func:`~dash_insight.core.axis_scale.tick_label` (plain digits to 9999, an SI
    prefix from 10^4, a power of ten past them)."""
    return tick_label(value, step, abs(value) if widest is None else widest)


def widest_end(axis: AxisRange) -> float:
    """The larger magnitude of the axis' ends: what Plotly scales its tick labels by."""
    return max(abs(axis.low), abs(axis.high))


def x_axis(low: float, high: float, ticks: int = X_TICKS) -> AxisRange:
    """The x axis: the data's extent exactly (the browser pins it there), ticks at the nice
    multiples inside it."""
    if high <= low:
        high = low + 1
    return AxisRange(low, high, nice_step((high - low) / ticks))


def _inside_ticks(axis: AxisRange) -> list[float]:
    first = math.ceil(axis.low / axis.step - 1e-9)
    last = math.floor(axis.high / axis.step + 1e-9)
    # Rounded 12 digits below the step: 0.30000000000000004 is 0.3, a tick of 1e-300 stays.
    digits = 12 - math.floor(math.log10(axis.step))
    return [round(i * axis.step, digits) for i in range(first, last + 1)]


def _place(values: np.ndarray, axis: AxisRange, flip: bool) -> np.ndarray:
    """Values in SVG units across ``axis`` (0..UNITS; down the plot for ``flip``)."""
    units = (values - axis.low) / (axis.high - axis.low) * UNITS
    return UNITS - units if flip else units


def line_path(x: np.ndarray, y: np.ndarray, x_range: AxisRange, y_range: AxisRange) -> str:
    """SVG path data of a line: ``M`` at its start and after every gap (a non-finite y),
    ``L`` between, in 0.1 units."""
    px, py = _place(x, x_range, False), _place(y, y_range, True)
    parts: list[str] = []
    pen_down = False
    for xi, yi, ok in zip(px.tolist(), py.tolist(), np.isfinite(y).tolist(), strict=True):
        if not ok:
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{xi:.1f} {yi:.1f}")
        pen_down = True
    return "".join(parts)


def y_label_chars(axis: AxisRange) -> int:
    """The characters the y axis' widest tick label is given room for: the browser's
    ``tickChars`` (assets/scalar-charts.js), which estimates them before Plotly writes them;
    the same rule here, so that the first paint's margin is the browser's. The integer digits
    of the wider end with its minus sign (4 from 10^4: "10k"), the step's decimals, at most
    8; 9 for a power of ten (beyond 10^15, or a step below 10^-6), 10 with a minus sign."""
    widest = widest_end(axis)
    if widest >= 1e15 or axis.step < 1e-6:
        return 9 + (1 if axis.low < 0 else 0)
    step = format(Decimal(repr(float(f"{axis.step:.6g}"))), "f")  # JS String(): no exponent
    decimals = len(step.partition(".")[2].rstrip("0"))

    def whole(end: float) -> int:
        digits = 4 if widest >= 1e4 else len(str(math.floor(abs(end))))
        return digits + (1 if end < 0 else 0)

    return min(8, max(whole(axis.low), whole(axis.high)) + (decimals + 1 if decimals else 0))


def _y_axis(lines: Sequence[PreviewLine], outliers: bool) -> AxisRange | None:
    """The y axis of ``lines``: the nice range of their finite values (with ``outliers``,
    of their 0.1-99.9 % quantiles, as the browser's niceAxes); None without a finite value."""
    values = np.concatenate([line.y for line in lines]) if lines else np.empty(0)
    finite = values[np.isfinite(values)]
    if not len(finite):
        return None
    extent = outlier_range(finite) if outliers else None
    return nice_range(*(extent or (float(finite.min()), float(finite.max()))))


def preview_html(
    lines: Sequence[PreviewLine],
    smoother: Smoother | float,
    x_title: str,
    note: str = "",
    dark: bool = False,
    markers: Sequence[tuple[float, str, str]] = (),
    outliers: bool = False,
) -> str:
    """The chart as HTML: a ``div.di-chart-preview`` of :data:`HEIGHT_PX` holding the plot
    area (grid lines, ``markers`` and lines in one SVG), the tick labels, the x axis title,
    the best points' stars and ``note`` (top right); "" when no line has a finite point.
    ``smoother``: the page's (a number: an EMA weight); ``outliers``: the y range ignores
    them (:func:`~.query_smoothing.outlier_range`), as the browser's chart does."""
    if not isinstance(smoother, Smoother):
        smoother = Smoother(weight=float(smoother))
    y_range = _y_axis(lines, outliers)
    if y_range is None:
        return ""
    x_range = x_axis(
        min(float(line.x[0]) for line in lines if len(line.x)),
        max(float(line.x[-1]) for line in lines if len(line.x)),
    )
    text, grid = TEXT_COLOUR[dark], GRID_COLOUR[dark]
    left = 14 + math.ceil(6.5 * y_label_chars(y_range))
    svg = [
        f'<svg width="100%" height="100%" viewBox="0 0 {UNITS} {UNITS}" '
        'preserveAspectRatio="none" style="position:absolute;inset:0;overflow:visible">'
    ]
    labels: list[str] = []
    for axis, across in ((y_range, False), (x_range, True)):
        grid_lines, tick_labels = _axis_marks(axis, across, grid)
        svg += grid_lines
        labels += tick_labels
    svg += marker_paths(markers, x_range, dark)
    for line in lines:
        drawn = smoother.apply(line.y)
        if smoother.changes:
            svg.append(_stroke(line_path(line.x, line.y, x_range, y_range), line.colour, 1, 0.25))
        svg.append(_stroke(line_path(line.x, drawn, x_range, y_range), line.colour, 1.8, 1))
        if line.best is not None and all(math.isfinite(v) for v in line.best):
            bx = float(_place(np.array([line.best[0]]), x_range, False)[0])
            by = float(_place(np.array([line.best[1]]), y_range, True)[0])
            # Moved in from the plot's edges by STAR_INSET, as placeStars does in the browser:
            # a star on an axis covers no tick label.
            labels.append(
                f'<span style="position:absolute;left:{_inset(bx)};top:{_inset(by)};'
                "transform:translate(-50%,-50%);"
                f'font-size:14px;color:{line.colour}">\u2605</span>'
            )
    svg.append("</svg>")
    labels += _titles(x_title, note)
    return (
        f'<div class="di-chart-preview" style="position:relative;height:{HEIGHT_PX}px;'
        f'font:11px {html.escape(FONT)};color:{text}">'
        f'<div style="position:absolute;left:{left}px;right:{RIGHT_PX}px;top:{TOP_PX}px;'
        f'bottom:{BOTTOM_PX}px">{"".join(svg)}{"".join(labels)}</div></div>'
    )


def _titles(x_title: str, note: str) -> list[str]:
    """The x axis title under the plot, and ``note`` over its right end."""
    out = [
        '<span style="position:absolute;top:calc(100% + 19px);left:50%;'
        f'transform:translateX(-50%);font-size:10px">{html.escape(x_title)}</span>'
    ]
    if note:
        out.append(
            '<span style="position:absolute;right:0;bottom:calc(100% + 6px);'
            f'font-size:10px;white-space:nowrap">{html.escape(note)}</span>'
        )
    return out


#: The epoch boundaries' and restarts' colour and dash (light, dark), as the browser draws them
#: (``markerTraces`` in assets/scalar-charts.js).
MARKER_STYLE = {
    "restart": (("#c2410c", "#f59e0b"), "6 4"),
    "epoch": (("rgba(60,60,60,0.35)", "rgba(220,220,220,0.4)"), "2 3"),
}


def marker_paths(
    markers: Sequence[tuple[float, str, str]], x_range: AxisRange, dark: bool
) -> list[str]:
    """Thin dashed vertical lines at the markers (``(x, kind, label)``: an epoch boundary or a
    restart, :mod:`.marks`) inside the x axis, their label as the line's tooltip."""
    out = []
    for x, kind, label in markers:
        if kind not in MARKER_STYLE or not x_range.low <= x <= x_range.high:
            continue
        colours, dash = MARKER_STYLE[kind]
        at = float(_place(np.array([x]), x_range, False)[0])
        out.append(
            f'<path d="M{at:.1f} 0V{UNITS}" stroke="{colours[dark]}" stroke-width="1" '
            f'stroke-dasharray="{dash}" vector-effect="non-scaling-stroke" class="di-marker">'
            f"<title>{html.escape(label)}</title></path>"
        )
    return out


def _inset(units: float) -> str:
    """A star's place (0..UNITS across the plot area) as CSS, kept :data:`STAR_INSET` pixels
    inside the plot area's edges."""
    return f"clamp({STAR_INSET}px,{units / 10:.2f}%,calc(100% - {STAR_INSET}px))"


def _axis_marks(axis: AxisRange, across: bool, grid: str) -> tuple[list[str], list[str]]:
    """The grid lines (SVG) and tick labels (HTML) of an axis: ``across`` the x axis (lines
    up the plot, labels under it), else the y axis (lines across, labels on its left)."""
    ticks = _inside_ticks(axis)
    widest = widest_end(axis)
    lines, labels = [], []
    for tick in ticks:
        at = float(_place(np.array([tick]), axis, not across)[0])
        text = tick_text(tick, axis.step, widest)
        if across:
            lines.append(
                f'<path d="M{at:.1f} 0V{UNITS}" stroke="{grid}" '
                'vector-effect="non-scaling-stroke"/>'
            )
            labels.append(
                '<span style="position:absolute;top:calc(100% + 4px);'
                f'left:{at / 10:.2f}%;transform:translateX(-50%)">{text}</span>'
            )
        else:
            lines.append(
                f'<path d="M0 {at:.1f}H{UNITS}" stroke="{grid}" '
                'vector-effect="non-scaling-stroke"/>'
            )
            labels.append(
                '<span style="position:absolute;right:calc(100% + 6px);'
                f'top:{at / 10:.2f}%;transform:translateY(-50%)">{text}</span>'
            )
    return lines, labels


def _stroke(path: str, colour: str, width: float, opacity: float) -> str:
    return (
        f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{width}" '
        f'stroke-opacity="{opacity}" stroke-linejoin="round" '
        'vector-effect="non-scaling-stroke"/>'
    )
