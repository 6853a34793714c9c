"""Small charts drawn in plain SVG by the page's own script (``assets/svg-chart.js``), and the
specs they draw.

A page that draws a few small, fixed charts (bars, dots, a pie, a row of spans) and nothing
that needs Plotly's zoom had plotly.js loaded for them alone: 1.3 MB whose evaluation was a
quarter of the lineage page's main-thread work (issue 37 item 2). :class:`SvgChart` draws such
a chart in the render that mounts it, from a spec of plain values; a hover shows a mark's
lines. The spec's form is in ``assets/svg-chart.js``'s header; the helpers here build its
parts.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

from dash_insight.web.components import histogram_views
from dash_insight.web.components.native_inputs import OwnComponent

#: The class every chart's box has (``assets/dash-insight.css``).
CLASS_NAME = "di-svg-chart"
#: The most ticks of a count axis (whole numbers: a count of jobs, a step).
MOST_WHOLE_TICKS = 6


class SvgChart(OwnComponent):
    """A ``div`` holding the chart of ``spec`` (None: nothing), as wide as the div and as
    high as the spec says; ``style`` should give it that height, so that what is below it
    is in its place before it is drawn (the first paint draws the div)."""

    _type = "SvgChart"
    PROPS = ("id", "spec", "className", "style")

    def __init__(
        self,
        id: str | dict[str, Any] | None = None,
        spec: dict[str, Any] | None = None,
        className: str = "",
        style: dict[str, Any] | None = None,
    ) -> None:
        self._start(
            self.PROPS,
            {
                "id": id,
                "spec": spec,
                "className": " ".join(filter(None, (CLASS_NAME, className))),
                "style": style,
            },
        )


def number_text(value: float) -> str:
    """A value as ticks show it: 4 significant digits (0.0009765625 -> 0.0009766, 123456 ->
    1.235e+05)."""
    return f"{value:.4g}"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` ticks inside [low, high] at multiples of a step of 1, 2, 2.5 or 5 times a
    power of ten, the smallest such step >= (high - low) / (count - 1); ``[low]`` when the
    range is empty."""
    if high <= low:
        return [low]
    raw = (high - low) / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks or [low]


def category_axis(labels: Sequence[str], title: str | None = None, angle: int = 0) -> dict:
    """A category axis, its labels in their order (from the left, or from the top)."""
    return {"kind": "category", "labels": list(labels), "angle": angle, "title": title}


def number_axis(
    low: float, high: float, title: str | None = None, pad: float = 0.0, integers: bool = False
) -> dict[str, Any]:
    """A number axis over [low - pad * span, high + pad * span] (a single value: ± 1, or
    ± a tenth of it, as Plotly's autorange widens it), ticked at :func:`nice_ticks` (with
    ``integers``, counts: at most :data:`MOST_WHOLE_TICKS` whole numbers, the histograms'
    :func:`~dash_insight.web.components.histogram_views.nice_ticks`)."""
    if high <= low:
        half = abs(low) / 10 or 1.0
        low, high = low - half, high + half
    span = high - low
    low, high = low - pad * span, high + pad * span
    ticks = (
        histogram_views.nice_ticks(low, high, MOST_WHOLE_TICKS, integer=True)
        if integers
        else nice_ticks(low, high)
    )
    return {
        "kind": "number",
        "range": [low, high],
        "ticks": [[t, number_text(t)] for t in ticks],
        "title": title,
    }


def message_chart(lines: Sequence[str], height: int) -> dict[str, Any]:
    """A chart area that says ``lines`` (one under the other, in its middle) instead of
    drawing axes."""
    return {"height": height, "margin": {"l": 8, "r": 8, "t": 8, "b": 8}, "message": list(lines)}


def label_room(labels: Sequence[str]) -> int:
    """The px left of the plot that a category axis' ``labels`` need at the charts' 10 px
    font: about 6 px a character, and 14 px for the tick and a gap."""
    return 14 + 6 * max((len(label) for label in labels), default=0)


def height_style(spec: dict[str, Any] | None) -> dict[str, str] | None:
    """The style that gives a chart's box its spec's height before it is drawn."""
    return {"height": f"{spec['height']}px"} if spec else None


def hover_lines(text: str) -> list[str]:
    """A Plotly hover text (lines joined by ``<br>``, ``<b>`` and the like inside them) as
    the plain lines a chart's tooltip shows (its first line bold)."""
    return [html.unescape(re.sub(r"<[^>]*>", "", line)) for line in text.split("<br>")]
