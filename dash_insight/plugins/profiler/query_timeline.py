"""The timeline of a profile: operator launches on a time axis (pure functions).

MindInsight 2.3.1 shows "Not supported" for a CPU timeline; MindSpore >= 2.5 writes one
(``trace_view.json``, for MindStudio Insight). Rows are either

* ``scope``: one row per scope depth (consecutive launches sharing the scope prefix of that
  depth merged into one bar, as MindSpore's "Scope Layer" does), then one row of every launch;
* ``type``: one row per operator type (by total time, largest first).

A view of a time window keeps at most a few thousand bars: when a row has more launches in the
window than fit its budget, neighbouring launches are merged into one bar per bucket of
``window / budget`` (the bar spans them; its hover says how many and how busy), so 200,000
launches stay drawable and zooming in (a narrower window) shows every launch again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.profiler.query_profile import Launches
from dash_insight.web.components.figures import GRID_COLOUR, TEXT_COLOUR
from dash_insight.web.components.svg_chart import (
    category_axis,
    hover_lines,
    label_room,
    number_axis,
)

ROWS_SCOPE = "scope"
ROWS_TYPE = "type"
ROW_MODES = (ROWS_SCOPE, ROWS_TYPE)
#: Bars drawn per view at most (each is 3 points of a WebGL line and one hover point).
MAX_BARS = 2000
PALETTE = (
    "#5b8ff9",
    "#5ad8a6",
    "#f6bd16",
    "#e86452",
    "#6dc8ec",
    "#945fb9",
    "#ff9845",
    "#1e9493",
    "#ff99c3",
    "#5d7092",
    "#269a99",
    "#b07ccf",
    "#c2a13c",
    "#3f8f5f",
    "#d9534f",
    "#4a90d9",
    "#8fa3b8",
    "#a8c256",
    "#e0785a",
    "#7ea6e0",
)
SCOPE_COLOUR = "#9aa7b8"


@dataclass(frozen=True)
class Timeline:
    """Every bar of a profile in one row mode: ``row`` indexes ``rows`` (top first), ``colour``
    indexes ``colours``' legend names, ``item`` indexes ``items`` (a full operator name or a
    scope path); ``launch`` is the launch index of an operator bar, -1 for a scope bar."""

    mode: str
    rows: tuple[str, ...]
    colours: tuple[str, ...]
    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    colour: np.ndarray
    item: np.ndarray
    items: tuple[str, ...]
    launch: np.ndarray
    count: np.ndarray  # launches a bar stands for (a scope bar: its launches)


def op_types(names: tuple[str, ...], type_of: dict[str, str]) -> list[str]:
    """The type of every operator: from the detail table, else the name before ``-op``."""
    out = []
    for name in names:
        short = name.rsplit("/", 1)[-1]
        out.append(type_of.get(name) or short.split("-op")[0])
    return out


def _type_order(launches: Launches, types: list[str]) -> list[str]:
    totals: dict[str, float] = {}
    per_op = np.bincount(launches.op, weights=launches.duration_us, minlength=len(types))
    for op_type, total in zip(types, per_op.tolist(), strict=True):
        totals[op_type] = totals.get(op_type, 0.0) + total
    return sorted(totals, key=lambda t: (-totals[t], t))


def scope_bars(launches: Launches) -> tuple[list[np.ndarray], list[str]]:
    """Per scope depth: (depth, start, end, item, count) arrays of merged scope bars, and the
    scope paths ``item`` indexes."""
    parts = [name.split("/")[:-1] for name in launches.names]
    depth = max((len(p) for p in parts), default=0)
    paths: list[str] = []
    index: dict[str, int] = {}
    end = launches.start_us + launches.duration_us
    columns: list[list[np.ndarray]] = [[], [], [], [], []]
    for level in range(depth):
        key = np.full(len(parts), -1, np.int64)
        for op, scopes in enumerate(parts):
            if len(scopes) > level:
                path = "/".join(scopes[: level + 1])
                key[op] = index.setdefault(path, len(paths))
                if key[op] == len(paths):
                    paths.append(path)
        per_launch = key[launches.op]
        change = np.r_[True, per_launch[1:] != per_launch[:-1]]
        first = np.flatnonzero(change)
        keep = per_launch[first] >= 0
        if not keep.any():
            continue
        run_end = np.maximum.reduceat(end, first)
        run_count = np.diff(np.r_[first, len(per_launch)])
        columns[0].append(np.full(int(keep.sum()), level))
        columns[1].append(launches.start_us[first][keep])
        columns[2].append(run_end[keep])
        columns[3].append(per_launch[first][keep])
        columns[4].append(run_count[keep])
    return [np.concatenate(c) if c else np.zeros(0) for c in columns], paths


def build_timeline(launches: Launches, type_of: dict[str, str], mode: str) -> Timeline:
    """Every bar of ``launches`` in row ``mode`` (``scope`` or ``type``)."""
    if mode not in ROW_MODES:
        raise ValueError(f"rows must be one of {ROW_MODES}")
    types = op_types(launches.names, type_of)
    order = _type_order(launches, types)
    type_index = {t: i for i, t in enumerate(order)}
    colour_of_op = np.array([type_index[t] for t in types], np.int64)
    n = len(launches)
    end = launches.start_us + launches.duration_us
    op_colour = colour_of_op[launches.op] if n else np.zeros(0, np.int64)
    if mode == ROWS_TYPE:
        return Timeline(
            mode,
            tuple(order),
            tuple(order),
            op_colour.copy(),
            launches.start_us,
            end,
            op_colour,
            launches.op.astype(np.int64),
            launches.names,
            np.arange(n),
            np.ones(n, np.int64),
        )
    (depth, s_start, s_end, s_item, s_count), paths = scope_bars(launches)
    levels = int(depth.max()) + 1 if len(depth) else 0
    rows = (*(f"Scope {level}" for level in range(levels)), "Operators")
    scope_colour = np.full(len(depth), len(order), np.int64)  # one extra colour: scopes
    items = launches.names + tuple(paths)
    return Timeline(
        mode,
        rows,
        (*order, "scope"),
        np.concatenate([depth.astype(np.int64), np.full(n, levels, np.int64)]),
        np.concatenate([s_start, launches.start_us]),
        np.concatenate([s_end, end]),
        np.concatenate([scope_colour, op_colour]),
        np.concatenate(
            [s_item.astype(np.int64) + len(launches.names), launches.op.astype(np.int64)]
        ),
        items,
        np.concatenate([np.full(len(depth), -1, np.int64), np.arange(n)]),
        np.concatenate([s_count.astype(np.int64), np.ones(n, np.int64)]),
    )


@dataclass(frozen=True)
class TimelineView:
    """The bars of a window, merged where needed: ``merged`` bars stand for several."""

    start: np.ndarray
    end: np.ndarray
    row: np.ndarray
    colour: np.ndarray
    item: np.ndarray
    launch: np.ndarray
    count: np.ndarray  # launches it stands for
    busy: np.ndarray  # summed bar durations (us)
    bars: np.ndarray  # bars of the timeline it stands for (> 1: merged)
    window: tuple[float, float]

    @property
    def merged(self) -> int:
        """Bars standing for several (zoom in to see each)."""
        return int((self.bars > 1).sum())

    def __len__(self) -> int:
        return len(self.start)


def window_view(
    timeline: Timeline, low: float, high: float, max_bars: int = MAX_BARS
) -> TimelineView:
    """Bars overlapping [low, high] (us); a row holding more than its share of ``max_bars``
    has its bars merged per bucket of ``(high - low) / share``: the merged bar spans its bars,
    takes the colour and item of the longest one and counts them all."""
    high = max(high, low + 1e-3)
    inside = np.flatnonzero((timeline.end >= low) & (timeline.start < high))
    rows = timeline.row[inside]
    share = max(50, max_bars // max(1, len(timeline.rows)))
    per_row = np.bincount(rows, minlength=len(timeline.rows))
    crowded = per_row[rows] > share
    keep = inside[~crowded]
    parts: list[tuple[np.ndarray, ...]] = [
        (
            timeline.start[keep],
            timeline.end[keep],
            timeline.row[keep],
            timeline.colour[keep],
            timeline.item[keep],
            timeline.launch[keep],
            timeline.count[keep],
            timeline.end[keep] - timeline.start[keep],
            np.ones(len(keep), np.int64),
        )
    ]
    merge = inside[crowded]
    if len(merge):
        parts.append(_merged_bars(timeline, merge, low, (high - low) / share))
    start, end, rows, colour, item, launch, count, busy, bars = (
        np.concatenate(column) for column in zip(*parts, strict=True)
    )
    return TimelineView(
        start, end, rows, colour, item, launch, count, busy, bars, window=(low, high)
    )


def _merged_bars(
    timeline: Timeline, merge: np.ndarray, low: float, width: float
) -> tuple[np.ndarray, ...]:
    """The bars ``merge`` (indices into ``timeline``) merged per row and bucket of ``width``
    us from ``low``, as :func:`window_view`'s columns: each merged bar spans its bars, takes
    the colour and item of the longest and counts them all (launch -1 when it stands for
    several)."""
    bucket = np.floor((np.maximum(timeline.start[merge], low) - low) / width).astype(np.int64)
    order = np.lexsort((bucket, timeline.row[merge]))
    merge, bucket = merge[order], bucket[order]
    row = timeline.row[merge]
    change = np.r_[True, (row[1:] != row[:-1]) | (bucket[1:] != bucket[:-1])]
    first = np.flatnonzero(change)
    duration = timeline.end[merge] - timeline.start[merge]
    group = np.cumsum(change) - 1
    # the longest bar of each group gives colour and item
    longest = np.lexsort((-duration, group))
    leader = merge[longest[np.r_[True, group[longest][1:] != group[longest][:-1]]]]
    bars = np.diff(np.r_[first, len(merge)])
    return (
        np.minimum.reduceat(timeline.start[merge], first),
        np.maximum.reduceat(timeline.end[merge], first),
        row[first],
        timeline.colour[leader],
        timeline.item[leader],
        np.where(bars > 1, -1, timeline.launch[leader]),
        np.add.reduceat(timeline.count[merge], first),
        np.add.reduceat(duration, first),
        bars,
    )


def top_rows(timeline: Timeline, view: TimelineView, count: int) -> tuple[Timeline, TimelineView]:
    """The first ``count`` rows of ``timeline`` (in type mode: the types with the most time)
    and the bars of ``view`` on them; the other rows' bars are left out."""
    if len(timeline.rows) <= count:
        return timeline, view
    keep = view.row < count
    shown = replace(timeline, rows=timeline.rows[:count])
    fields = ("start", "end", "row", "colour", "item", "launch", "count", "busy", "bars")
    return shown, replace(view, **{name: getattr(view, name)[keep] for name in fields})


def row_labels(rows: tuple[str, ...]) -> list[str]:
    """The rows' names in the current language (the timeline, cached by the service, keeps
    the English ``Scope N`` / ``Operators`` of scope mode; operator types stay as they are)."""
    out = []
    for row in rows:
        if row.startswith("Scope ") and row[len("Scope ") :].isdigit():
            out.append(_("Scope {level}").format(level=row[len("Scope ") :]))
        elif row == "Operators":
            out.append(_("Operators"))
        else:
            out.append(row)
    return out


def _hover(
    timeline: Timeline, view: TimelineView, launches: Launches, types: tuple[str, ...]
) -> list[str]:
    texts = []
    # Looked up once per figure, not per bar (thousands of bars).
    words = {
        "start": _("start"),
        "step": _("step"),
        "launches": _("{count} launch(es)"),
        "scopes": _("{count} scopes"),
        "zoom": _("(zoom in to see each)"),
        "busy": _("busy {busy} ms of {total} ms"),
        "longest": _("longest:"),
    }
    for i in range(len(view)):
        item = timeline.items[int(view.item[i])]
        duration = view.end[i] - view.start[i]
        count = int(view.count[i])
        launch = int(view.launch[i])
        if launch >= 0 and view.bars[i] == 1:
            texts.append(
                f"<b>{item.rsplit('/', 1)[-1]}</b> ({types[int(view.colour[i])]})<br>"
                f"{item}<br>" + words["start"] + f" {view.start[i] / 1000:.3f} ms · "
                f"{duration:.3f} us · " + words["step"] + f" {int(launches.step[launch])}"
            )
        elif int(view.colour[i]) >= len(types) and view.bars[i] == 1:  # a scope bar
            texts.append(
                f"<b>{item}</b><br>"
                + words["start"]
                + f" {view.start[i] / 1000:.3f} ms · {duration / 1000:.3f} ms · "
                + words["launches"].format(count=count)
            )
        elif int(view.colour[i]) >= len(types):  # several scope bars
            texts.append(
                "<b>"
                + words["scopes"].format(count=int(view.bars[i]))
                + "</b> "
                + words["zoom"]
                + f"<br>{duration / 1000:.3f} ms · "
                + words["launches"].format(count=count)
                + "<br>"
                + words["longest"]
                + f" {item}"
            )
        else:
            texts.append(
                "<b>"
                + words["launches"].format(count=count)
                + "</b> "
                + words["zoom"]
                + "<br>"
                + words["busy"].format(
                    busy=f"{view.busy[i] / 1000:.3f}", total=f"{duration / 1000:.3f}"
                )
                + "<br>"
                + words["longest"]
                + f" {item}"
            )
    return texts


def _segments(
    start_ms: np.ndarray, end_ms: np.ndarray, row: np.ndarray
) -> tuple[list[float | None], list[float | None]]:
    """x and y of line segments separated by gaps (None), for one WebGL trace."""
    x = np.column_stack([start_ms, end_ms, np.full(len(start_ms), np.nan)]).reshape(-1)
    y = np.column_stack([row, row, np.full(len(row), np.nan)]).reshape(-1)
    return (
        [None if v != v else v for v in np.round(x, 4).tolist()],
        [None if v != v else v for v in y.tolist()],
    )


def timeline_chart(
    timeline: Timeline, view: TimelineView, launches: Launches, height: int
) -> dict[str, Any]:
    """The SVG chart (web.components.svg_chart) of a window of the timeline, as the
    dashboard's card draws it: one row per timeline row (top first), each bar a span from its
    start to its end in ms since the first launch (at least 1 px), coloured as
    :func:`timeline_figure` colours it, with its hover; the window is the x range."""
    types = tuple(timeline.colours[:-1]) if timeline.mode == ROWS_SCOPE else timeline.colours
    hover = _hover(timeline, view, launches, types)
    series = []
    for colour in np.unique(view.colour).tolist():
        indices = np.flatnonzero(view.colour == colour).tolist()
        name, hex_colour = _bar_style(colour, types)
        series.append(
            {
                "name": name,
                "colour": hex_colour,
                "mark": "span",
                "points": [
                    [
                        round(float(view.start[i]) / 1000, 4),
                        int(view.row[i]),
                        hover_lines(hover[i]),
                        round(float(view.end[i]) / 1000, 4),
                    ]
                    for i in indices
                ],
            }
        )
    labels = row_labels(timeline.rows)
    return {
        "height": height,
        "margin": {"l": label_room([label[:24] for label in labels]), "r": 8, "t": 8, "b": 40},
        "message": None,
        "legend": False,
        "x": number_axis(
            view.window[0] / 1000, view.window[1] / 1000, _("time since the first launch (ms)")
        ),
        "y": category_axis(labels),
        "series": series,
    }


def _step_lines(step_starts: np.ndarray, view: TimelineView) -> list[dict[str, Any]]:
    """The starts of the steps in the window (us; the first 200) as dotted vertical lines."""
    visible = step_starts[(step_starts >= view.window[0]) & (step_starts <= view.window[1])]
    return [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": s / 1000,
            "x1": s / 1000,
            "y0": 0,
            "y1": 1,
            "line": {"color": GRID_COLOUR, "dash": "dot", "width": 1},
        }
        for s in visible[:200].tolist()
    ]


def _bar_style(colour: int, types: tuple[str, ...]) -> tuple[str, str]:
    """The legend name and the colour of a timeline's bars of colour index ``colour``: an
    operator type's (the palette's, in turn), or a scope's (grey) past the types."""
    if colour >= len(types):
        return _("scope"), SCOPE_COLOUR
    return types[colour], PALETTE[colour % len(PALETTE)]


def _bar_traces(
    view: TimelineView, ends: np.ndarray, types: tuple[str, ...], rows: int, trace_type: str
) -> list[dict[str, Any]]:
    """One trace of thick line segments per colour of ``view``'s bars."""
    traces: list[dict[str, Any]] = []
    for colour in np.unique(view.colour).tolist():
        mask = view.colour == colour
        x, y = _segments(view.start[mask] / 1000, ends[mask] / 1000, view.row[mask])
        name, hex_colour = _bar_style(colour, types)
        traces.append(
            {
                "type": trace_type,
                "mode": "lines",
                "x": x,
                "y": y,
                "hoverinfo": "skip",
                "name": name,
                "connectgaps": False,
                "line": {
                    "width": 12 if rows < 12 else max(4, 240 // rows),
                    "color": hex_colour,
                    # SVG: keep every bar, however short (simplifying drops them)
                    **({"simplify": False} if trace_type == "scatter" else {}),
                },
            }
        )
    return traces


def _timeline_layout(
    timeline: Timeline, view: TimelineView, types: int, height: int | None, shapes: list[Any]
) -> dict[str, Any]:
    """The timeline's layout: the window as the x range, one y row per timeline row, the
    legend above the plot when there are at most 30 ``types``."""
    rows = len(timeline.rows)
    layout = {
        "height": height or max(260, 60 + 34 * rows),
        "margin": {"l": 8, "r": 8, "t": 8, "b": 40},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"color": TEXT_COLOUR, "size": 11},
        "hovermode": "closest",
        "dragmode": "zoom",
        "uirevision": "timeline",
        "shapes": shapes,
        # Above the plot (Plotly grows the top margin to fit it): under the x axis it was
        # drawn over the axis title.
        "legend": {
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
            "font": {"size": 10},
        },
        "showlegend": types <= 30,
        "xaxis": {
            "title": {"text": _("time since the first launch (ms)")},
            "range": [view.window[0] / 1000, view.window[1] / 1000],
            "gridcolor": GRID_COLOUR,
            "zeroline": False,
        },
        "yaxis": {
            "tickvals": list(range(rows)),
            "ticktext": row_labels(timeline.rows),
            "range": [rows - 0.5, -0.5],
            "fixedrange": True,
            "gridcolor": GRID_COLOUR,
            "automargin": True,
        },
    }
    return layout


def timeline_figure(
    timeline: Timeline,
    view: TimelineView,
    launches: Launches,
    step_starts: np.ndarray | None = None,
    height: int | None = None,
    trace_type: str = "scattergl",
) -> dict[str, Any]:
    """Bars as thick line segments (one trace per colour; WebGL unless ``trace_type`` is
    ``"scatter"``), hover points at their middles, x in ms since the first launch, the window
    as the x range; ``step_starts`` (us) drawn as dotted lines. A plain figure dict: Plotly's
    figure objects validate every value, which costs seconds for thousands of bars."""
    types = tuple(timeline.colours[:-1]) if timeline.mode == ROWS_SCOPE else timeline.colours
    rows = len(timeline.rows)
    width = view.window[1] - view.window[0]
    ends = np.maximum(view.end, view.start + width / 1500)  # a bar is at least ~1 px wide
    traces = _bar_traces(view, ends, types, rows, trace_type)
    traces.append(
        {
            "type": trace_type,
            "mode": "markers",
            "name": "launches",
            "showlegend": False,
            "x": np.round((view.start + ends) / 2000, 4).tolist(),
            "y": view.row.tolist(),
            "marker": {"size": 10, "opacity": 0},
            "hoverinfo": "text",
            "hovertext": _hover(timeline, view, launches, types),
        }
    )
    shapes = [] if step_starts is None else _step_lines(step_starts, view)
    layout = _timeline_layout(timeline, view, len(types), height, shapes)
    return {"data": traces, "layout": layout}
