"""Plotly figures of loss landscapes (pure: grids in, figures out).

Three views of one grid, as MindInsight's "Isoline Map", "Topographic Map" and "3D Map":
contour lines, filled contours and a surface, each with the training path drawn on it (on the
surface at the path's own loss values), its start and end marked, and a "Play the path"
animation of a marker walking the path (plotly frames). Hover shows x, y and the loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.lazy_import import import_module
from dash_insight.plugins.landscape.query import Grid, LossPath
from dash_insight.web.url_state import Choice, Flag, Float, Int, TypedUrlState

VIEW_CONTOUR = "contour"
VIEW_FILLED = "filled"
VIEW_3D = "3d"
#: View -> MindInsight's tab name; the default is MindInsight's (3D Map).
VIEWS = {
    VIEW_CONTOUR: lazy_gettext("Isoline Map"),
    VIEW_FILLED: lazy_gettext("Topographic Map"),
    VIEW_3D: lazy_gettext("3D Map"),
}
DEFAULT_VIEW = VIEW_3D
#: MindInsight offers Jet, Viridis and RdBu; every plotly named scale is offered after them.
FIRST_SCALES = ("jet", "viridis", "rdbu")
SCALE_LABELS = {"jet": "Jet", "viridis": "Viridis", "rdbu": "RdBu"}
COLOUR_SCALES: tuple[str, ...] = FIRST_SCALES + tuple(
    s for s in plotly.colors.named_colorscales() if s not in FIRST_SCALES
)
#: Path colours offered (MindInsight: a colour picker, default black).
PATH_COLOURS = {
    "#000000": lazy_gettext("Black"),
    "#ffffff": lazy_gettext("White"),
    "#ff0000": lazy_gettext("Red"),
    "#ff8c00": lazy_gettext("Orange"),
    "#ff00ff": lazy_gettext("Magenta"),
    "#00bcd4": lazy_gettext("Cyan"),
    "#32cd32": lazy_gettext("Lime"),
    "#1e50ff": lazy_gettext("Blue"),
}
MARKER_COLOUR = "#ff8c00"  # MindInsight's orange checkpoint dots
CONVERGENCE_COLOUR = "#000000"
TEXT_COLOUR = "#8a9099"
#: The 3D scene's grid without walls: Plotly's walls are an opaque light grey in either theme
#: (WebGL draws them without their alpha), the grid lines in the text grey read on both.
SCENE_AXIS = {
    "showbackground": False,
    "gridcolor": "rgba(138,144,153,0.45)",
    "zerolinecolor": "rgba(138,144,153,0.7)",
}
#: "Play the path" is a button one presses: the page's accent, white text (Plotly's default
#: grey on grey looked disabled).
PLAY_BUTTON = {"bgcolor": "#00a5a7", "bordercolor": "#00a5a7", "font": {"color": "#ffffff"}}
DEFAULT_CAMERA = {"eye": {"x": 1.5, "y": -1.5, "z": 1.0}}
MAX_LEVELS = 30


@dataclass(frozen=True)
class Style:
    """Display settings (MindInsight's defaults: Jet, 10 contour levels, black path of width 5,
    surface opacity 0.7)."""

    colour_scale: str = "jet"
    levels: int = 10
    path_colour: str = "#000000"
    path_width: int = 5
    opacity: float = 0.7
    log_colour: bool = False


DEFAULT_STYLE = Style()


#: The display settings in the URL: each attribute of :class:`Style` and its parameter
#: (anything unknown or out of range: the default; 2-30 levels, width 1-5, opacity 0.1-1).
STYLE: TypedUrlState[Style] = TypedUrlState(
    Style,
    colour_scale=Choice("scale", DEFAULT_STYLE.colour_scale, tuple(COLOUR_SCALES), fold_case=True),
    levels=Int("levels", DEFAULT_STYLE.levels, 2, MAX_LEVELS),
    path_colour=Choice(
        "path_colour", DEFAULT_STYLE.path_colour, tuple(PATH_COLOURS), fold_case=True
    ),
    path_width=Int("path_width", DEFAULT_STYLE.path_width, 1, 5),
    opacity=Float("opacity", DEFAULT_STYLE.opacity, 0.1, 1.0),
    log_colour=Flag("log"),
)


def style_from(params: dict[str, str]) -> Style:
    """The display settings named in the URL (:data:`STYLE`)."""
    return STYLE.parse(params)


def style_params(style: Style) -> dict[str, str | None]:
    """URL parameters of ``style``: only what differs from the defaults."""
    return STYLE.params(style)


def colour_values(z: np.ndarray, log: bool) -> tuple[np.ndarray, str]:
    """The values the colour follows and the colour bar's title: the loss, or with ``log``
    ``log10(loss - min + 1e-12 * span)`` when some loss is not positive, else ``log10(loss)``
    (finer colours where the loss is low)."""
    if not log:
        return z, _("loss value")
    finite = z[np.isfinite(z)]
    if finite.size and finite.min() > 0:
        return np.log10(z), "log10(loss)"
    low = finite.min() if finite.size else 0.0
    span = (finite.max() - low) if finite.size else 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log10(z - low + 1e-12 * (span or 1.0)), "log10(loss - min)"


def contour_levels(values: np.ndarray, levels: int) -> dict[str, float] | None:
    """``levels`` evenly spaced contour values strictly inside the range (MindInsight: 10)."""
    finite = values[np.isfinite(values)]
    if not finite.size or finite.max() <= finite.min():
        return None
    size = (float(finite.max()) - float(finite.min())) / (levels + 1)
    return {
        "start": float(finite.min()) + size,
        "end": float(finite.max()) - size * 0.999,
        "size": size,
    }


def _path_traces(path: LossPath, view: str, style: Style) -> list[Any]:
    """The path (line + checkpoint dots), its Start and End, and the animated marker (last)."""
    hover = (
        _("step/epoch")
        + " %{text}<br>x %{x:.6g}<br>y %{y:.6g}<br>"
        + _("loss value")
        + " %{customdata:.6g}<extra>"
        + _("path")
        + "</extra>"
    )
    text = ([str(v) for v in path.intervals], [_("Start"), _("End")])
    if view == VIEW_3D:
        return _path_traces_3d(path, style, hover, text)
    return _path_traces_2d(path, style, hover, text)


def _path_traces_3d(
    path: LossPath, style: Style, hover: str, text: tuple[list[str], list[str]]
) -> list[Any]:
    """:func:`_path_traces` in the 3D scene."""
    steps, start_end = text
    ends = [0, len(path.x) - 1]
    return [
        go.Scatter3d(
            x=path.x,
            y=path.y,
            z=path.z,
            mode="lines+markers",
            name="path",
            text=steps,
            customdata=path.z,
            hovertemplate=hover,
            line={"color": style.path_colour, "width": style.path_width * 2},
            marker={"size": 4, "color": style.path_colour},
        ),
        go.Scatter3d(
            x=path.x[ends],
            y=path.y[ends],
            z=path.z[ends],
            mode="markers+text",
            name="start / end",
            text=start_end,
            textposition="top center",
            hoverinfo="skip",
            marker={"size": 7, "symbol": ["square", "diamond"], "color": style.path_colour},
        ),
        go.Scatter3d(
            x=path.x[:1],
            y=path.y[:1],
            z=path.z[:1],
            mode="markers",
            name="position",
            hoverinfo="skip",
            marker={"size": 9, "color": MARKER_COLOUR, "line": {"width": 1}},
        ),
    ]


def _path_traces_2d(
    path: LossPath, style: Style, hover: str, text: tuple[list[str], list[str]]
) -> list[Any]:
    """:func:`_path_traces` on a contour map."""
    steps, start_end = text
    ends = [0, len(path.x) - 1]
    return [
        go.Scatter(
            x=path.x,
            y=path.y,
            mode="lines+markers",
            name="path",
            text=steps,
            customdata=path.z,
            hovertemplate=hover,
            line={"color": style.path_colour, "width": style.path_width},
            marker={"size": 9, "color": MARKER_COLOUR},
        ),
        go.Scatter(
            x=path.x[ends],
            y=path.y[ends],
            mode="markers+text",
            name="start / end",
            text=start_end,
            textposition="top center",
            hoverinfo="skip",
            marker={
                "size": 14,
                "symbol": ["square", "triangle-up"],
                "color": MARKER_COLOUR,
                "line": {"width": 1, "color": "#333"},
            },
        ),
        go.Scatter(
            x=path.x[:1],
            y=path.y[:1],
            mode="markers",
            name="position",
            hoverinfo="skip",
            marker={
                "size": 16,
                "color": "rgba(255, 140, 0, 0.6)",
                "line": {"width": 2, "color": style.path_colour},
            },
        ),
    ]


def _animation(figure: go.Figure, path: LossPath, view: str) -> None:
    """Frames moving the last trace (the marker) along the path, and the play button."""
    marker = len(figure.data) - 1
    frames = []
    for k in range(len(path.x)):
        point: dict[str, Any] = {"x": path.x[k : k + 1], "y": path.y[k : k + 1]}
        if view == VIEW_3D:
            point["z"] = path.z[k : k + 1]
        frames.append(
            go.Frame(
                name=str(k),
                traces=[marker],
                data=[(go.Scatter3d if view == VIEW_3D else go.Scatter)(**point)],
            )
        )
    figure.frames = frames
    figure.update_layout(
        updatemenus=[
            {
                "type": "buttons",
                "showactive": False,
                "x": 0.0,
                "y": 0.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "pad": {"l": 4, "b": 4},
                **PLAY_BUTTON,
                "buttons": [
                    {
                        "label": "▶ " + _("Play the path"),
                        "method": "animate",
                        "args": [
                            None,
                            {
                                "frame": {"duration": 350, "redraw": view == VIEW_3D},
                                "transition": {"duration": 0},
                                "fromcurrent": False,
                                "mode": "immediate",
                            },
                        ],
                    }
                ],
            }
        ]
    )


def _convergence_trace(
    point: Sequence[float], view: str, run: str | None = None, colour: str | None = None
) -> Any:
    """The convergence point: black, or on the overlay in ``run``'s colour with a dark rim,
    named by the run in the legend (one entry per run; it hides the run's surface too)."""
    name = _("Model Convergence Point")
    common: dict[str, Any] = {
        "mode": "markers",
        "name": name,
        "hovertemplate": name + "<br>x %{x:.6g}<br>y %{y:.6g}<extra></extra>",
    }
    fill = CONVERGENCE_COLOUR
    if run is not None:
        fill = colour or CONVERGENCE_COLOUR
        common.update(
            name=run,
            legendgroup=run,
            showlegend=True,
            hovertemplate=name + f"<br>x %{{x:.6g}}<br>y %{{y:.6g}}<extra>{run}</extra>",
        )
    if view == VIEW_3D:
        return go.Scatter3d(
            x=[point[0]],
            y=[point[1]],
            z=[point[2]],
            marker={"size": 6, "color": fill, "line": {"width": 1, "color": CONVERGENCE_COLOUR}},
            **common,
        )
    return go.Scatter(
        x=[point[0]],
        y=[point[1]],
        marker={"size": 11, "color": fill, "line": {"width": 1.5, "color": CONVERGENCE_COLOUR}},
        **common,
    )


def run_shades(colour: str) -> list[list[Any]]:
    """A surface's colour scale in one run's colour (``#rrggbb``): darker at the lowest loss,
    the run's colour halfway, paler at the highest, so that two surfaces in one scene are told
    apart by their colours and each still shows where its loss is low."""
    red, green, blue = plotly.colors.hex_to_rgb(colour)

    def towards(target: int, share: float) -> str:
        mixed = (round(c + (target - c) * share) for c in (red, green, blue))
        return "rgb({}, {}, {})".format(*mixed)

    return [[0.0, towards(0, 0.45)], [0.5, colour], [1.0, towards(255, 0.7)]]


def surface_trace(
    cells: Grid,
    style: Style,
    *,
    show_scale: bool = True,
    colour_range: tuple[float, float] | None = None,
    name: str | None = None,
    colour_axis: str | None = None,
) -> go.Surface:
    """The loss surface; ``name`` (a run's, on the overlay) ends its hover; without one the
    trace is "loss value" in the page's language and the hover has no name box (it said
    "loss value" twice)."""
    label, name = name or "", name or _("loss value")
    values, title = colour_values(cells.z, style.log_colour)
    extra: dict[str, Any] = {}
    if colour_axis:
        extra["coloraxis"] = colour_axis
    else:
        extra.update(
            colorscale=style.colour_scale,
            showscale=show_scale,
            colorbar={"title": {"text": title}, "len": 0.6},
        )
        if colour_range is not None:
            extra.update(cmin=colour_range[0], cmax=colour_range[1])
    return go.Surface(
        x=cells.x,
        y=cells.y,
        z=cells.z,
        surfacecolor=values,
        name=name,
        opacity=style.opacity,
        hovertemplate="x %{x:.6g}<br>y %{y:.6g}<br>"
        + _("loss value")
        + f" %{{z:.6g}}<extra>{label}</extra>",
        **extra,
    )


def contour_trace(
    cells: Grid,
    view: str,
    style: Style,
    *,
    colour_range: tuple[float, float] | None = None,
    name: str | None = None,
    colour_axis: str | None = None,
    show_scale: bool = True,
) -> go.Contour:
    """Contour lines (``contour``) or filled bands (``filled``) of the loss; the levels split
    ``colour_range`` (default: this grid's range) evenly."""
    label, name = name or "", name or _("loss value")
    values, title = colour_values(cells.z, style.log_colour)
    span = np.asarray(colour_range) if colour_range is not None else values
    contours: dict[str, Any] = {"coloring": "lines" if view == VIEW_CONTOUR else "fill"}
    levels = contour_levels(np.asarray(span, dtype=np.float64), style.levels)
    if levels:
        contours.update(levels)
    extra: dict[str, Any] = {}
    if style.log_colour:  # hover shows the loss, not its logarithm
        extra["text"] = np.vectorize(lambda v: f"{v:.6g}")(cells.z)
        hover = "x %{x:.6g}<br>y %{y:.6g}<br>" + _("loss value") + " %{text}"
    else:
        hover = "x %{x:.6g}<br>y %{y:.6g}<br>" + _("loss value") + " %{z:.6g}"
    if colour_axis:
        extra["coloraxis"] = colour_axis
    else:
        extra.update(
            colorscale=style.colour_scale, showscale=show_scale, colorbar={"title": {"text": title}}
        )
        if colour_range is not None:
            extra.update(zmin=colour_range[0], zmax=colour_range[1])
    return go.Contour(
        x=cells.x,
        y=cells.y,
        z=values,
        contours=contours,
        autocontour=not levels,
        line={"width": 2 if view == VIEW_CONTOUR else 0.5},
        name=name,
        hovertemplate=hover + f"<extra>{label}</extra>",
        **extra,
    )


def _layout(figure: go.Figure, view: str, height: int, small: bool) -> None:
    margin = {"l": 0, "r": 0, "t": 0, "b": 0} if small else {"l": 10, "r": 10, "t": 10, "b": 10}
    figure.update_layout(
        height=height,
        margin=margin,
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT_COLOUR, "size": 10 if small else 12},
        showlegend=False,
        uirevision="landscape",
        hoverlabel={"namelength": -1},
    )
    if view == VIEW_3D:
        axis = {"showticklabels": not small, **SCENE_AXIS}

        def title(text: str) -> dict[str, Any]:
            return {"title": {"text": "" if small else text}}

        figure.update_layout(
            scene={
                "xaxis": {**title("x"), **axis},
                "yaxis": {**title("y"), **axis},
                "zaxis": {**title(_("loss value")), **axis},
                "camera": DEFAULT_CAMERA,
                "aspectmode": "cube",
            }
        )
    else:
        # no zero lines: Plotly's are white, a glaring cross on the dark theme
        figure.update_xaxes(
            title_text=None if small else "x",
            showgrid=False,
            zeroline=False,
            showticklabels=not small,
        )
        figure.update_yaxes(
            title_text=None if small else "y",
            showgrid=False,
            zeroline=False,
            showticklabels=not small,
        )


def landscape_figure(
    cells: Grid,
    path: LossPath | None,
    view: str,
    style: Style,
    *,
    convergence: Sequence[float] | None = None,
    height: int = 600,
    small: bool = False,
    animate: bool = True,
) -> go.Figure:
    """One landscape in one of the three views, with its path (interval landscapes) or its
    convergence point (the comparison page); ``animate`` adds the "Play the path" frames."""
    if view not in VIEWS:
        view = DEFAULT_VIEW
    main = (
        surface_trace(cells, style, show_scale=not small)
        if view == VIEW_3D
        else contour_trace(cells, view, style, show_scale=not small)
    )
    figure = go.Figure(data=[main])
    if convergence is not None and len(convergence) == 3:
        figure.add_trace(_convergence_trace(convergence, view))
    if path is not None and len(path.x):
        for trace in _path_traces(path, view, style):
            figure.add_trace(trace)
        if animate and len(path.x) > 1:
            _animation(figure, path, view)
    _layout(figure, view, height, small)
    return figure


def overlay_figure(
    grids: Sequence[tuple[str, Grid, Sequence[float]]],
    view: str,
    style: Style,
    colours: Mapping[str, str] | None = None,
    height: int = 620,
) -> go.Figure:
    """Two (or more) landscapes over one shared loss range: surfaces in one 3D scene, each in
    its run's colour (:func:`run_shades`: one colour scale for both made them one blur), or
    contour maps side by side in the chosen colour scale, each titled in its run's colour.
    Each convergence point is in its run's colour and names the run in the legend, once."""
    colours = colours or {}
    ranges = [colour_values(cells.z, style.log_colour)[0] for _, cells, _ in grids]
    finite = np.concatenate([r[np.isfinite(r)].ravel() for r in ranges]) if ranges else np.empty(0)
    shared = (float(np.min(finite)), float(np.max(finite))) if len(finite) else None
    if view == VIEW_3D:
        return _overlay_3d(grids, style, colours, shared, height)
    return _overlay_contours(grids, view, style, colours, shared, height)


#: The overlay's legend: one entry per run's convergence point, in a row.
_OVERLAY_LEGEND = {"orientation": "h", "x": 0, "y": 1, "yanchor": "bottom", "font": {"size": 13}}


def _overlay_3d(
    grids: Sequence[tuple[str, Grid, Sequence[float]]],
    style: Style,
    colours: Mapping[str, str],
    shared: tuple[float, float] | None,
    height: int,
) -> go.Figure:
    """:func:`overlay_figure`'s surfaces in one 3D scene."""
    figure = go.Figure()
    for name, cells, point in grids:
        colour = colours.get(name, CONVERGENCE_COLOUR)
        surface = surface_trace(
            cells,
            replace(style, opacity=min(style.opacity, 0.85)),
            show_scale=False,
            colour_range=shared,
            name=name,
        )
        surface.update(colorscale=run_shades(colour), legendgroup=name)
        figure.add_trace(surface)
        figure.add_trace(_convergence_trace(point, VIEW_3D, name, colour))
    _layout(figure, VIEW_3D, height, small=False)
    figure.update_layout(showlegend=True, legend=_OVERLAY_LEGEND, margin={"t": 40})
    return figure


def _overlay_contours(
    grids: Sequence[tuple[str, Grid, Sequence[float]]],
    view: str,
    style: Style,
    colours: Mapping[str, str],
    shared: tuple[float, float] | None,
    height: int,
) -> go.Figure:
    """:func:`overlay_figure`'s contour maps side by side, one colour axis."""
    # imported when drawn: it costs start-up time
    make_subplots = import_module("plotly.subplots").make_subplots
    figure = make_subplots(
        rows=1,
        cols=max(1, len(grids)),
        subplot_titles=[name for name, _, _ in grids],
        horizontal_spacing=0.06,
    )
    for annotation, (name, _cells, _point) in zip(figure.layout.annotations, grids, strict=False):
        annotation.font = {"color": colours.get(name, TEXT_COLOUR), "size": 14}
    title = colour_values(grids[0][1].z, style.log_colour)[1] if grids else _("loss value")
    for k, (name, cells, point) in enumerate(grids):
        figure.add_trace(
            contour_trace(
                cells, view, style, colour_range=shared, name=name, colour_axis="coloraxis"
            ),
            row=1,
            col=k + 1,
        )
        figure.add_trace(_convergence_trace(point, view, name, colours.get(name)), row=1, col=k + 1)
    axis: dict[str, Any] = {
        "colorscale": style.colour_scale,
        "colorbar": {"title": {"text": title}},
    }
    if shared is not None:
        axis.update(cmin=shared[0], cmax=shared[1])
    figure.update_layout(coloraxis=axis)
    _layout(figure, view, height, small=False)
    figure.update_layout(
        showlegend=True,
        legend={**_OVERLAY_LEGEND, "y": -0.06, "yanchor": "top"},
        margin={"t": 36, "b": 40},
    )
    return figure


def step_figure(
    steps: Sequence[float],
    losses: Sequence[float],
    shaded: tuple[int, int] | None,
    height: int = 240,
) -> go.Figure:
    """MindInsight's "Step Selection" chart: the loss curve with the chosen interval shaded."""
    figure = go.Figure(
        go.Scatter(
            x=list(steps),
            y=list(losses),
            mode="lines",
            name="loss",
            line={"color": "#4a6fd1", "width": 1.5},
            hovertemplate=_("step") + " %{x}<br>" + _("loss value") + " %{y:.6g}<extra></extra>",
        )
    )
    if shaded is not None:
        figure.add_vrect(
            x0=shaded[0],
            x1=shaded[1],
            fillcolor="rgba(255, 99, 99, 0.3)",
            line_width=0,
            annotation_text=_("Selected Range"),
            annotation_position="top left",
        )
    figure.update_layout(
        height=height,
        margin={"l": 8, "r": 8, "t": 24, "b": 8},
        showlegend=False,
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={"color": TEXT_COLOUR, "size": 11},
        xaxis={"title": {"text": _("training step")}, "gridcolor": "rgba(138,144,153,0.25)"},
        yaxis={"title": {"text": _("loss value")}, "gridcolor": "rgba(138,144,153,0.25)"},
    )
    return figure
