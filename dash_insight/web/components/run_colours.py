"""One colour per run (training job), the same on every page that tells runs apart by colour:
the comparison charts, the loss landscape comparison, and the user's own choice over both.

* :func:`run_colour` is the rule: the user's colour for the run if one was picked, else the
  palette colour of the run's position among all jobs sorted by ``train_id``. The position in
  the full sorted list (not among the jobs a chart happens to show) keeps a run's colour from
  chart to chart and page to page, and gives the first :data:`PALETTE` runs distinct colours
  (a hash of the name would give two of five runs the same colour about half of the time).
* The user's colours are a ``{train_id: "#rrggbb"}`` map kept in the browser (the shell's
  :data:`STORE_ID` store, localStorage), so they survive reloads and apply on every page.
* :func:`run_dot` is a swatch of a run's colour whose colour follows that map in the browser
  (:func:`register_run_dots`, once per app).
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import dash
from dash import ALL, ClientsideFunction, Input, Output, State, html

#: The runs' colours, in the order runs get them (also the swatches offered to pick from); the
#: only copy (the browser gets a chart's colours from the server). Chosen (issue 35) by a search
#: over sRGB, first colour kept, so that, checked by tests/web/components/test_run_colours.py:
#:
#: * any two of the 12 differ by CIEDE2000 >= 20, the first 4 by >= 37, the first 6 by >= 27
#:   (the first runs compared get the colours furthest apart);
#: * with protanopia, deuteranopia or tritanopia (Machado et al. 2009, severity 1) the first 2
#:   stay >= 35 apart, the first 4 >= 13.5, the first 8 >= 11.5 and all 12 >= 6.5 (twelve
#:   colours cannot all stay far apart for a dichromat within the lightness band below);
#: * every colour has a WCAG contrast >= 3:1 (non-text contrast) with the charts' background of
#:   both themes (``--panel``: #ffffff and #20232a), which leaves the band of L* ~46 to ~62;
#: * every colour is >= 20 (CIEDE2000) from the red drawn over a line past a threshold.
PALETTE = (
    "#00a5a7",  # teal
    "#986000",  # ochre brown
    "#2860f0",  # blue
    "#ff50a0",  # pink
    "#786870",  # warm grey
    "#70a028",  # leaf green
    "#a09070",  # khaki
    "#407850",  # dark green
    "#0098f8",  # sky blue
    "#f86800",  # orange
    "#9888c8",  # lavender
    "#a840b0",  # purple
)
#: The browser store holding the user's colours ({train_id: "#rrggbb"}), in the shell.
STORE_ID = "run-colours"

_HEX = re.compile(r"#[0-9a-fA-F]{6}")

#: A continuous colour scale for a number (a lineage value: the lineage chart's lines, the
#: comparison's runs coloured by a column), low to high, and the colour of a run without one.
VALUE_SCALE = (
    (0.0, "#3b4cc0"),
    (0.25, "#5d9cd3"),
    (0.5, "#44b5a7"),
    (0.75, "#e4b33a"),
    (1.0, "#d1495b"),
)
MISSING_COLOUR = "#a0a4ab"


def _hex_rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def colour_at(fraction: float, scale: Sequence[tuple[float, str]] = VALUE_SCALE) -> str:
    """The colour of ``fraction`` (clipped to 0..1) on a colour scale: linear interpolation in
    RGB between the two stops around it, as Plotly's colour scales (``#rrggbb``)."""
    fraction = min(max(fraction, 0.0), 1.0)
    for (left, left_colour), (right, right_colour) in itertools.pairwise(scale):
        if fraction <= right:
            share = 0.0 if right == left else (fraction - left) / (right - left)
            a, b = _hex_rgb(left_colour), _hex_rgb(right_colour)
            return "#" + "".join(
                f"{round(x + (y - x) * share):02x}" for x, y in zip(a, b, strict=True)
            )
    return scale[-1][1]


def valid_colour(value: Any) -> bool:
    """True for a ``#rrggbb`` colour (the only form stored or drawn)."""
    return isinstance(value, str) and _HEX.fullmatch(value) is not None


def run_colour(
    train_id: str, train_ids: Iterable[str], overrides: Mapping[str, Any] | None = None
) -> str:
    """The colour of run ``train_id``: ``overrides[train_id]`` when it is a valid ``#rrggbb``
    colour, else ``PALETTE[i % len(PALETTE)]`` where ``i`` is the run's position among
    ``train_ids`` sorted (every job, whatever a chart shows). A run missing from
    ``train_ids`` (deleted meanwhile) gets ``PALETTE[crc32(train_id) % len(PALETTE)]``."""
    chosen = (overrides or {}).get(train_id)
    if valid_colour(chosen):
        return str(chosen).lower()
    ordered = sorted(set(train_ids))
    try:
        position = ordered.index(train_id)
    except ValueError:
        position = zlib.crc32(train_id.encode())
    return PALETTE[position % len(PALETTE)]


def run_colours(
    shown: Iterable[str], train_ids: Iterable[str], overrides: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """:func:`run_colour` of each run in ``shown`` (one sort for all of them)."""
    ordered = sorted(set(train_ids))
    return {train_id: run_colour(train_id, ordered, overrides) for train_id in shown}


def set_colour(
    overrides: Mapping[str, Any] | None, train_id: str | None, colour: str | None
) -> dict[str, str]:
    """The user's colours after picking ``colour`` for ``train_id`` (None or an invalid
    colour: back to the default colour); entries that are not valid colours are dropped."""
    out = {
        k: str(v).lower()
        for k, v in (overrides or {}).items()
        if isinstance(k, str) and valid_colour(v)
    }
    if train_id:
        if valid_colour(colour):
            out[train_id] = str(colour).lower()
        else:
            out.pop(train_id, None)
    return out


def run_dot(train_id: str, colour: str, **attributes: Any) -> html.Span:
    """A round swatch in run ``train_id``'s colour (``colour`` = its default; the user's colour
    replaces it in the browser)."""
    return html.Span(
        id={"type": "run-dot", "run": train_id, "colour": colour},
        className="di-run-dot",
        style={"background": colour},
        **attributes,
    )


def register_run_dots(app: dash.Dash) -> None:
    """Every :func:`run_dot` on the page follows the user's colours (in the browser)."""
    app.clientside_callback(
        ClientsideFunction("runColours", "dotStyles"),  # assets/run-colours.js
        Output({"type": "run-dot", "run": ALL, "colour": ALL}, "style"),
        Input(STORE_ID, "data"),
        State({"type": "run-dot", "run": ALL, "colour": ALL}, "id"),
    )
