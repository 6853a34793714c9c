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
import plotly.graph_objects as go
from dash import dcc, html

from dash_insight.plugins.profiler import charts, components, timeline
from dash_insight.plugins.profiler.model import Launches, Profile
from dash_insight.web.components.figures import GRID_COLOUR, small_layout

RANKED_TYPES = 5


def card(card_id: str, title: str, body: Any, link: tuple[str, str] | None = None,
         foot: Any = None) -> html.Section:
    """A dashboard card; ``link`` = (label, href) in its head."""
    head: list[Any] = [html.Span(title)]
    if link is not None:
        head.append(dcc.Link(link[0], href=link[1], id=f"{card_id}-link"))
    return html.Section(className="di-panel di-card", id=card_id, children=[
        html.Div(head, className="di-card-head"),
        html.Div(body, className="di-card-body"),
        html.Div(foot, className="di-card-foot") if foot else None,
    ])


def ranking_card(app: dash.Dash, params: dict[str, str], profile: Profile) -> html.Section:
    """Top operator types by total time: a pie (top 5 + Other) and per type its launches and
    time per launch, with a bar of its time share."""
    if not profile.types:
        return card("prof-card-ranking", "Operator Time Consumption Ranking",
                    html.Div("No cpu_op_type_info file for this device.", className="di-empty"))
    items = charts.slices(profile.types, charts.MEASURE_TOTAL, top=RANKED_TYPES)
    ranked = sorted(profile.types, key=lambda s: (-s.total_ms, s.op_type))[:RANKED_TYPES]
    total = profile.total_ms or 1.0
    rows = []
    for rank, stat in enumerate(ranked, start=1):
        share = stat.total_ms / total
        rows.append(html.Tr([
            html.Td(rank, className="di-prof-rank"), html.Td(stat.op_type),
            html.Td(f"{stat.occurrences:,} times"),
            html.Td(f"{stat.avg_ms * 1000:,.2f} us/time"),
            html.Td(html.Div(html.Div(style={"width": f"{100 * share:.1f}%"}),
                             className="di-progress", title=f"{share:.2%} of operator time"),
                    title=f"{share:.2%}"),
            html.Td(f"{share:.1%}"),
        ]))
    figure = charts.type_figure(items, charts.MEASURE_TOTAL, "pie", height=190, legend=False)
    body = [dcc.Graph(figure=figure, config={"displayModeBar": False}, id="prof-ranking-pie"),
            html.Table(html.Tbody(rows), className="di-prof-ranking")]
    return card("prof-card-ranking", "Operator Time Consumption Ranking", body,
                ("Details ›", components.href(app, components.OPERATOR_PATH, params)),
                f"by total time · {len(profile.types)} operator types · "
                f"{profile.total_ms:,.1f} ms in all")


def step_times(launches: Launches) -> tuple[np.ndarray, np.ndarray]:
    """(span, busy) per step in ms: from the step's start to the next one's (the last: to its
    last launch's end), and the summed launch durations of the step."""
    if not launches.steps:
        return np.zeros(0), np.zeros(0)
    ends = np.append(launches.step_starts_us[1:], launches.end_us)
    starts = launches.step_starts_us.copy()
    starts[0] = 0.0
    busy = np.bincount(launches.step - 1, weights=launches.duration_us,
                       minlength=launches.steps)
    return (ends - starts) / 1000, busy / 1000


def step_card(app: dash.Dash, params: dict[str, str], profile: Profile) -> html.Section:
    """Per step: its span and the operator time inside it (the rest: host gaps, data, Python)."""
    launches = profile.launches
    span, busy = step_times(launches)
    if not len(span):
        return card("prof-card-steps", "Step Time",
                    html.Div("No launch times (cpu_op_execute_timestamp / trace_view.json).",
                             className="di-empty"))
    steps = list(range(1, len(span) + 1))
    figure = go.Figure([
        go.Bar(x=steps, y=span.tolist(), name="step", marker={"color": "#9aa7b8"},
               hovertemplate="step %{x}: %{y:.2f} ms<extra></extra>"),
        go.Bar(x=steps, y=busy.tolist(), name="operators", marker={"color": "#00a5a7"},
               hovertemplate="step %{x}: operators %{y:.2f} ms<extra></extra>"),
    ], layout=small_layout(height=220, barmode="overlay"))
    figure.update_layout(showlegend=True, legend={"orientation": "h", "y": 1.12})
    figure.update_yaxes(title_text="ms", gridcolor=GRID_COLOUR)
    figure.update_xaxes(title_text="step")
    typical = float(np.median(span[1:])) if len(span) > 1 else float(span[0])
    foot = (f"{len(span)} steps · median {typical:,.2f} ms · step 1 {span[0]:,.2f} ms"
            " (includes compilation)")
    return card("prof-card-steps", "Step Time",
                dcc.Graph(figure=figure, config={"displayModeBar": False}, id="prof-steps"),
                ("Timeline ›", components.href(app, components.TIMELINE_PATH, params)), foot)


def timeline_card(app: dash.Dash, params: dict[str, str], profile: Profile,
                  bars: Callable[[], timeline.Timeline]) -> html.Section:
    """The operator launches of a typical step (the median-length one after the first)."""
    launches = profile.launches
    span, _ = step_times(launches)
    if not len(span):
        return card("prof-card-timeline", "Timeline",
                    html.Div("No launch times to draw.", className="di-empty"))
    later = np.argsort(span[1:])[len(span[1:]) // 2] + 2 if len(span) > 1 else 1
    step = int(later)
    model = bars()
    ends = np.append(launches.step_starts_us[1:], launches.end_us)
    low = 0.0 if step == 1 else float(launches.step_starts_us[step - 1])
    view = timeline.window_view(model, low, float(ends[step - 1]), max_bars=1500)
    figure = timeline.timeline_figure(model, view, launches, height=230)
    figure["layout"].update(showlegend=False, dragmode=False)
    figure["layout"]["xaxis"]["fixedrange"] = True
    return card("prof-card-timeline", "Timeline",
                dcc.Graph(figure=figure, config={"displayModeBar": False},
                          id="prof-timeline-preview"),
                ("Open ›", components.href(app, components.TIMELINE_PATH, params, step=step)),
                f"step {step} of {launches.steps} · {len(launches):,} launches in the run · "
                f"from {launches.source}")


def short_scope(full_name: str, parts: int = 2) -> str:
    """The last ``parts`` scopes of an operator (``…/conv1-Conv2d/Grad_Conv2D``)."""
    scopes = full_name.split("/")[:-1]
    shown = "/".join(scopes[-parts:])
    return shown if len(scopes) <= parts else "…/" + shown


def operators_card(app: dash.Dash, params: dict[str, str], profile: Profile) -> html.Section:
    """The five operators with the most total time, with their scope and time per launch."""
    details = sorted(profile.details, key=lambda d: (-d.total_ms, d.full_name))[:5]
    if not details:
        return card("prof-card-operators", "Slowest Operators",
                    html.Div("No cpu_op_detail_info file for this device.",
                             className="di-empty"))
    total = profile.total_ms or 1.0
    rows = [html.Tr([html.Td(d.op_name, title=d.full_name),
                     html.Td(short_scope(d.full_name), className="di-prof-scope",
                             title=d.full_name),
                     html.Td(f"{d.avg_ms * 1000:,.1f} us/time"),
                     html.Td(f"{d.total_ms / total:.1%}")]) for d in details]
    return card("prof-card-operators", "Slowest Operators",
                html.Table(html.Tbody(rows), className="di-prof-ranking"),
                ("All operators ›", components.href(app, components.OPERATOR_PATH, params,
                                                    view="all")),
                f"by total time · {len(profile.details)} operators")


def profile_card(loaded: components.Loaded) -> html.Section:
    """What was profiled and where it was read from."""
    profile, found = loaded.profile, loaded.found
    info = profile.info
    facts = [
        ("directory", os.path.basename(found.path)),
        ("layout", "MindInsight (profiler_info)" if found.layout == "mindinsight"
         else "MindSpore >= 2.5 (FRAMEWORK/, ASCEND_PROFILER_OUTPUT/)"),
        ("devices", ", ".join(found.devices)),
        ("MindSpore", info.get("ms_version", "–")),
        ("mode", info.get("context_mode", "–")),
        ("profiled", f"{info['profiling_start_time']} – {info['profiling_stop_time']}"
         if info.get("profiling_start_time") and info.get("profiling_stop_time") else "–"),
        ("operator types / operators", f"{len(profile.types)} / {len(profile.details)}"),
        ("launches", f"{len(profile.launches):,} in {profile.launches.steps} steps"
                     f" ({profile.launches.source or 'no launch file'})"),
        ("files", str(len(found.all_files))),
    ]
    body = html.Table(className="di-prof-facts", children=html.Tbody(
        [html.Tr([html.Th(name), html.Td(value)]) for name, value in facts]))
    foot = (f"⚠ {len(profile.problems)} problem(s) reading the files" if profile.problems
            else "every file read completely")
    return card("prof-card-profile", "Profile", body, None, foot)
