"""Charts of operator types (pure: stats in, figures out).

MindInsight sized its operator-type pie by *average time per launch* and showed echarts' share
of the sum of those averages (Conv2DBackpropInput "32.83 %" in LeNet, whose real share of the
time is 18.3 %): a type launched once and a type launched a thousand times weigh the same. Here
the default measure is the **total time** of each type, whose share is the share of the
operator time; the average time per launch is one switch away, labelled as what it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dash_insight.core.format.profiler import OpTypeStat
from dash_insight.core.i18n import format_number, lazy_gettext
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.profiler.query_timeline import PALETTE
from dash_insight.web.components.figures import GRID_COLOUR, TEXT_COLOUR
from dash_insight.web.components.svg_chart import hover_lines

MEASURE_TOTAL = "total"
MEASURE_AVERAGE = "avg"
MEASURES = (MEASURE_TOTAL, MEASURE_AVERAGE)
#: MindInsight's chart: the top 19 types and "Other" (20 slices or bars).
TOP_TYPES = 19
OTHER = "Other"

MEASURE_TITLES = {
    MEASURE_TOTAL: lazy_gettext("Total time per operator type (us) · share of all operator time"),
    MEASURE_AVERAGE: lazy_gettext("Average time per launch (us/time) · not a time share"),
}


@dataclass(frozen=True)
class Slice:
    """A slice or bar: ``value`` in us (total, or per launch); ``share`` of the chart's sum."""

    label: str
    value: float
    share: float
    launches: int
    types: int  # how many types it stands for ("Other": several)


def slices(
    stats: Sequence[OpTypeStat], measure: str = MEASURE_TOTAL, top: int = TOP_TYPES
) -> list[Slice]:
    """Types by ``measure`` (largest first): all of them when at most ``top + 1``, else the
    ``top`` largest and "Other". "Other" is the rest's total time, or for the average measure
    the rest's average per launch (its total over its launches; MindInsight's "Other" summed
    the averages)."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}")

    def value(stat: OpTypeStat) -> float:
        return stat.total_ms * 1000 if measure == MEASURE_TOTAL else stat.avg_ms * 1000

    ranked = sorted(stats, key=lambda s: (-value(s), s.op_type))
    shown = ranked if len(ranked) <= top + 1 else ranked[:top]
    rest = ranked[len(shown) :]
    pairs = [(s.op_type, value(s), s.occurrences, 1) for s in shown]
    if rest:
        total = sum(s.total_ms for s in rest) * 1000
        launches = sum(s.occurrences for s in rest)
        rest_value = total if measure == MEASURE_TOTAL else total / max(launches, 1)
        pairs.append((OTHER, rest_value, launches, len(rest)))
    whole = sum(v for _, v, _, _ in pairs) or 1.0
    return [Slice(label, v, v / whole, launches, types) for label, v, launches, types in pairs]


def _unit(measure: str) -> str:
    return "us" if measure == MEASURE_TOTAL else _("us/time")


def shown_label(item: Slice) -> str:
    """A slice's label as shown: the operator type, or "Other" in the current language."""
    return _("Other") if item.label == OTHER and item.types > 1 else item.label


def _hover(item: Slice, measure: str) -> str:
    share = f"{item.share:.2%}"
    what = (
        _("{share} of the operator time").format(share=share)
        if measure == MEASURE_TOTAL
        else _("{share} of the summed averages (not a time share)").format(share=share)
    )
    kinds = " " + _("({count} types)").format(count=item.types) if item.types > 1 else ""
    return (
        f"<b>{shown_label(item)}</b>{kinds}<br>{format_number(item.value, 2)} "
        f"{_unit(measure)}<br>{what}<br>"
        + _("{count} launches").format(count=format_number(item.launches))
    )


def pie_percent(share: float) -> str:
    """A slice's share as Plotly writes it inside a pie: 3 significant digits, trailing
    zeros dropped (0.476 -> 47.6%, 0.0499 -> 4.99%, 0.5 -> 50%)."""
    return f"{share * 100:.3g}%"


def type_pie(items: Sequence[Slice], measure: str, height: int = 190) -> dict[str, Any]:
    """The SVG chart (web.components.svg_chart) of ``items`` as a pie: clockwise from the
    top in their order, each slice's share inside it, its hover as :func:`type_figure`'s."""
    return {
        "kind": "pie",
        "height": height,
        "margin": {"l": 8, "r": 8, "t": 10, "b": 8},
        "message": None,
        "slices": [
            [item.value, colour, pie_percent(item.share), hover_lines(_hover(item, measure))]
            for item, colour in zip(items, colours(len(items)), strict=True)
        ],
    }


def colours(count: int) -> list[str]:
    """The colour of each of ``count`` slices or bars, in order."""
    return [PALETTE[i % len(PALETTE)] for i in range(count)]


def legend_text(item: Slice) -> str:
    """A legend entry: the type (or "Other") and its value, as MindInsight's legend."""
    return f"{shown_label(item)}  {format_number(item.value, 2)}"


def type_figure(
    items: Sequence[Slice], measure: str, kind: str = "pie", height: int = 340, legend: bool = True
) -> dict[str, Any]:
    """A pie (slices, legend: type, value, share) or a bar chart (types on x, rotated -30°
    like MindInsight's) of ``items``. ``legend=False`` leaves the pie's legend to the page
    (the operator page draws it in HTML beside the chart: Plotly measures the text of every
    SVG legend entry, 40 % of drawing the pie).

    A plain figure dict, not ``go.Figure``: no validation and no default template to send
    and apply (a third of the operator page's answer and of its first draw)."""
    colours_ = colours(len(items))
    hover = [_hover(item, measure) for item in items]
    layout: dict[str, Any] = {
        "height": height,
        "margin": {"l": 8, "r": 8, "t": 10, "b": 8},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"color": TEXT_COLOUR, "size": 11},
    }
    if kind == "bar":
        trace: dict[str, Any] = {
            "type": "bar",
            "x": [shown_label(item) for item in items],
            "y": [item.value for item in items],
            "marker": {"color": colours_},
            "hovertext": hover,
            "hoverinfo": "text",
        }
        layout.update(
            showlegend=False,
            bargap=0.35,
            xaxis={"tickangle": -30, "automargin": True},
            yaxis={"title": {"text": _unit(measure)}, "gridcolor": GRID_COLOUR, "automargin": True},
        )
        return {"data": [trace], "layout": layout}
    labels = [
        f"{shown_label(item)[:18]}{'…' if len(shown_label(item)) > 18 else ''}  "
        f"{format_number(item.value, 2)}"
        for item in items
    ]
    trace = {
        "type": "pie",
        "labels": labels,
        "values": [item.value for item in items],
        "marker": {"colors": colours_},
        "hovertext": hover,
        "hoverinfo": "text",
        "textinfo": "percent",
        "sort": False,
        "direction": "clockwise",
        "textposition": "inside",
        "insidetextorientation": "horizontal",
    }
    layout.update(
        showlegend=legend,
        legend={"font": {"size": 11}, "itemclick": False, "itemdoubleclick": False},
    )
    return {"data": [trace], "layout": layout}
