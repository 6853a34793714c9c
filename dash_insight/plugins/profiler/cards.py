"""Cards of the performance dashboard (MindInsight's ``/profiling-cpu/performance-dashboard``),
for what a CPU profile holds: operator time ranking, step times, a timeline preview, the
slowest operators and what was profiled. Each builder takes the parsed profile and returns a
card (MindInsight showed "Not supported temporarily" for step trace and timeline on CPU)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import dash
import numpy as np
from dash import dcc, html

from dash_insight.core.i18n import format_number, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.profiler import figures, page_shared, query_timeline
from dash_insight.plugins.profiler.query_profile import Launches, Profile
from dash_insight.web.components.svg_chart import SvgChart, height_style, number_axis

RANKED_TYPES = 5
#: Rows (operator types with the most time) of the dashboard's timeline preview: each row
#: keeps room for a legible label.
TIMELINE_ROWS = 8


def card(
    card_id: str, title: str, body: Any, link: tuple[str, str] | None = None, foot: Any = None
) -> html.Section:
    """A dashboard card; ``link`` = (label, href) in its head."""
    head: list[Any] = [html.Span(title)]
    if link is not None:
        head.append(dcc.Link(link[0], href=link[1], id=f"{card_id}-link"))
    return html.Section(
        className="di-panel di-card",
        id=card_id,
        children=[
            html.Div(head, className="di-card-head"),
            html.Div(body, className="di-card-body"),
            html.Div(foot, className="di-card-foot") if foot else None,
        ],
    )


def _chart(spec: dict[str, Any], chart_id: str) -> SvgChart:
    """A card's chart (SVG: the dashboard loads no plotly.js), its box as tall as the chart
    before it is drawn: the page has its final height (and its scrollbar) from the start."""
    return SvgChart(id=chart_id, spec=spec, style=height_style(spec))


def ranking_card(app: dash.Dash, params: dict[str, str], profile: Profile) -> html.Section:
    """Top operator types by total time: a pie (top 5 + Other) and per type its launches and
    time per launch, with a bar of its time share."""
    if not profile.types:
        return card(
            "prof-card-ranking",
            _("Operator Time Consumption Ranking"),
            html.Div(_("No cpu_op_type_info file for this device."), className="di-empty"),
        )
    items = figures.slices(profile.types, figures.MEASURE_TOTAL, top=RANKED_TYPES)
    ranked = sorted(profile.types, key=lambda s: (-s.total_ms, s.op_type))[:RANKED_TYPES]
    total = profile.total_ms or 1.0
    rows = []
    for rank, stat in enumerate(ranked, start=1):
        share = stat.total_ms / total
        rows.append(
            html.Tr(
                [
                    html.Td(rank, className="di-prof-rank"),
                    html.Td(stat.op_type),
                    html.Td(
                        _("{count} times").format(
                            count=page_shared.format_measure(stat.occurrences, "times")
                        )
                    ),
                    html.Td(
                        _("{value} us/time").format(
                            value=page_shared.format_measure(stat.avg_ms * 1000, "us/time")
                        )
                    ),
                    html.Td(
                        html.Div(
                            html.Div(style={"width": f"{100 * share:.1f}%"}),
                            className="di-progress",
                            title=_("{share} of operator time").format(share=f"{share:.2%}"),
                        ),
                        title=f"{share:.2%}",
                    ),
                    html.Td(f"{share:.1%}"),
                ]
            )
        )
    body = [
        _chart(figures.type_pie(items, figures.MEASURE_TOTAL, height=190), "prof-ranking-pie"),
        html.Table(html.Tbody(rows), className="di-prof-ranking"),
    ]
    return card(
        "prof-card-ranking",
        _("Operator Time Consumption Ranking"),
        body,
        (_("Details") + " ›", page_shared.href(app, page_shared.OPERATOR_PATH, params)),
        _("by total time · {types} operator types · {total} ms in all").format(
            types=len(profile.types), total=format_number(profile.total_ms, 1)
        ),
    )


def step_times(launches: Launches) -> tuple[np.ndarray, np.ndarray]:
    """(span, busy) per step in ms: from the step's start to the next one's (the last: to its
    last launch's end), and the summed launch durations of the step."""
    if not launches.steps:
        return np.zeros(0), np.zeros(0)
    ends = np.append(launches.step_starts_us[1:], launches.end_us)
    starts = launches.step_starts_us.copy()
    starts[0] = 0.0
    busy = np.bincount(launches.step - 1, weights=launches.duration_us, minlength=launches.steps)
    return (ends - starts) / 1000, busy / 1000


def step_chart(span: np.ndarray, busy: np.ndarray, height: int = 220) -> dict[str, Any]:
    """The SVG chart of each step's span (grey) with its operator time over it (the
    difference: host gaps, data, Python), steps on x, ms on y."""
    step, operators = _("step"), _("operators")
    series = [
        {
            "name": name,
            "colour": colour,
            "mark": "bar",
            "points": [
                [k, float(v), [text.format(step=k, ms=f"{v:.2f}")]]
                for k, v in enumerate(values.tolist(), start=1)
            ],
        }
        for name, colour, values, text in (
            (step, "#9aa7b8", span, step + " {step}: {ms} ms"),
            (operators, "#00a5a7", busy, step + " {step}: " + operators + " {ms} ms"),
        )
    ]
    top = max(float(span.max()), float(busy.max()), 0.0) if len(span) else 0.0
    return {
        "height": height,
        "margin": {"l": 48, "r": 8, "t": 32, "b": 40},
        "message": None,
        "legend": True,
        "overlay": True,
        "barWidth": 0.8,
        "x": number_axis(0.5, len(span) + 0.5, step, integers=True),
        "y": number_axis(0, (top or 1) * 1.05, "ms"),
        "series": series,
    }


def step_card(app: dash.Dash, params: dict[str, str], profile: Profile) -> html.Section:
    """Per step: its span and the operator time inside it (the rest: host gaps, data, Python)."""
    launches = profile.launches
    span, busy = step_times(launches)
    if not len(span):
        return card(
            "prof-card-steps",
            _("Step Time"),
            html.Div(
                _("No launch times (cpu_op_execute_timestamp / trace_view.json)."),
                className="di-empty",
            ),
        )
    chart = step_chart(span, busy)
    typical = float(np.median(span[1:])) if len(span) > 1 else float(span[0])
    foot = _(
        "{steps} steps · median {median} ms · step 1 {first} ms (includes compilation)"
    ).format(steps=len(span), median=format_number(typical, 2), first=format_number(span[0], 2))
    return card(
        "prof-card-steps",
        _("Step Time"),
        _chart(chart, "prof-steps"),
        (_("Timeline") + " ›", page_shared.href(app, page_shared.TIMELINE_PATH, params)),
        foot,
    )


def timeline_card(
    app: dash.Dash,
    params: dict[str, str],
    profile: Profile,
    bars: Callable[[], query_timeline.Timeline],
) -> html.Section:
    """The operator launches of a typical step (the median-length one after the first)."""
    launches = profile.launches
    span, _unused = step_times(launches)
    if not len(span):
        return card(
            "prof-card-timeline",
            _("Timeline"),
            html.Div(_("No launch times to draw."), className="di-empty"),
        )
    later = np.argsort(span[1:])[len(span[1:]) // 2] + 2 if len(span) > 1 else 1
    step = int(later)
    model = bars()
    ends = np.append(launches.step_starts_us[1:], launches.end_us)
    low = 0.0 if step == 1 else float(launches.step_starts_us[step - 1])
    view = query_timeline.window_view(model, low, float(ends[step - 1]), max_bars=1500)
    shown, view = query_timeline.top_rows(model, view, TIMELINE_ROWS)
    chart = query_timeline.timeline_chart(shown, view, launches, height=60 + 24 * len(shown.rows))
    return card(
        "prof-card-timeline",
        _("Timeline"),
        _chart(chart, "prof-timeline-preview"),
        (_("Open") + " ›", page_shared.href(app, page_shared.TIMELINE_PATH, params, step=step)),
        [
            html.Div(
                _("the {shown} operator types with the most time, and {more} more").format(
                    shown=len(shown.rows), more=len(model.rows) - len(shown.rows)
                ),
                id="prof-timeline-more",
            )
            if len(model.rows) > len(shown.rows)
            else None,
            _("step {step} of {steps} · {launches} launches in the run · from {source}").format(
                step=step,
                steps=launches.steps,
                launches=format_number(len(launches)),
                source=launches.source,
            ),
        ],
    )


def short_scope(full_name: str, parts: int = 2) -> str:
    """The last ``parts`` scopes of an operator (``…/conv1-Conv2d/Grad_Conv2D``)."""
    scopes = full_name.split("/")[:-1]
    shown = "/".join(scopes[-parts:])
    return shown if len(scopes) <= parts else "…/" + shown


def separator_parts(text: str) -> list[str]:
    """``text`` cut after each ``/`` (each part keeps its separator): the places a long
    scope may wrap, never inside a name."""
    parts = text.split("/")
    return [part + "/" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def wrapping_scope(text: str) -> list[Any]:
    """``text`` as unbreakable parts with a line-break opportunity after each ``/``."""
    children: list[Any] = []
    for part in separator_parts(text):
        if children:
            children.append(html.Wbr())
        children.append(html.Span(part, className="di-nowrap"))
    return children


def operators_card(app: dash.Dash, params: dict[str, str], profile: Profile) -> html.Section:
    """The five operators with the most total time, with their scope and time per launch."""
    details = sorted(profile.details, key=lambda d: (-d.total_ms, d.full_name))[:5]
    if not details:
        return card(
            "prof-card-operators",
            _("Slowest Operators"),
            html.Div(_("No cpu_op_detail_info file for this device."), className="di-empty"),
        )
    total = profile.total_ms or 1.0
    rows = [
        html.Tr(
            [
                html.Td(
                    html.Div(d.op_name, className="di-prof-op-name", title=d.full_name),
                ),
                html.Td(
                    wrapping_scope(short_scope(d.full_name)),
                    className="di-prof-scope",
                    title=d.full_name,
                ),
                html.Td(
                    _("{value} us/time").format(
                        value=page_shared.format_measure(d.avg_ms * 1000, "us/time")
                    )
                ),
                html.Td(f"{d.total_ms / total:.1%}"),
            ]
        )
        for d in details
    ]
    return card(
        "prof-card-operators",
        _("Slowest Operators"),
        html.Table(html.Tbody(rows), className="di-prof-ranking"),
        (
            _("All operators") + " ›",
            page_shared.href(app, page_shared.OPERATOR_PATH, params, view="all"),
        ),
        _("by total time · {count} operators").format(count=len(profile.details)),
    )


def profile_card(loaded: page_shared.Loaded) -> html.Section:
    """What was profiled and where it was read from."""
    profile, found = loaded.profile, loaded.found
    info = profile.info
    facts = [
        (_("directory"), os.path.basename(found.path)),
        (
            _("layout"),
            "MindInsight (profiler_info)"
            if found.layout == "mindinsight"
            else "MindSpore >= 2.5 (FRAMEWORK/, ASCEND_PROFILER_OUTPUT/)",
        ),
        (_("devices"), ", ".join(found.devices)),
        ("MindSpore", info.get("ms_version", "–")),
        (_("mode"), info.get("context_mode", "–")),
        (
            _("profiled"),
            f"{info['profiling_start_time']} – {info['profiling_stop_time']}"
            if info.get("profiling_start_time") and info.get("profiling_stop_time")
            else "–",
        ),
        (_("operator types / operators"), f"{len(profile.types)} / {len(profile.details)}"),
        (
            _("launches"),
            _("{count} in {steps} steps ({source})").format(
                count=format_number(len(profile.launches)),
                steps=profile.launches.steps,
                source=profile.launches.source or _("no launch file"),
            ),
        ),
        (_("files"), str(len(found.all_files))),
    ]
    body = html.Table(
        className="di-prof-facts",
        children=html.Tbody([html.Tr([html.Th(name), html.Td(value)]) for name, value in facts]),
    )
    foot = (
        "⚠ "
        + ngettext(
            "{count} problem reading the files",
            "{count} problems reading the files",
            len(profile.problems),
        ).format(count=len(profile.problems))
        if profile.problems
        else _("every file read completely")
    )
    return card("prof-card-profile", _("Profile"), body, None, foot)
