"""Pinned charts of the scalars page and the comparison (issue 40 item 6).

A chart's pin button (``{"type": "chart-pin", "chart": <chart id>}``, its ``value`` the name
pinned: the chart's tag) adds the tag to the page's pins or takes it out. The pins are kept in
the browser (a ``dcc.Store`` in local storage), one store per page and summary base directory:
its id names both (``{"type": "chart-pins", "page": <page>, "base": <digest of the base
directory>}``), so two servers over different folders never share their pins. A page's grid
draws the pinned tags first, in the order pinned, then the others in their own order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html, no_update

from dash_insight.core.i18n import gettext as _
from dash_insight.web.binding import triggered

#: The most pins a page keeps (the oldest go first past it) and the longest name pinned.
MAX_PINS = 200
MAX_PIN_CHARS = 1000
PINS_TYPE = "chart-pins"
PIN_TYPE = "chart-pin"
PIN_LOOKS_TYPE = "chart-pin-looks"
PIN_CLASS = "di-chip di-pin"
PINNED_CLASS = "di-chip di-pin di-pinned"


def base_key(base_dir: str) -> str:
    """A short digest of a summary base directory (the pins' store id names it)."""
    return hashlib.sha1(base_dir.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def pins_id(page: str, base_dir: str) -> dict[str, str]:
    """The id of the pins store of ``page`` over ``base_dir``."""
    return {"type": PINS_TYPE, "page": page, "base": base_key(base_dir)}


def pins_store(page: str, base_dir: str) -> dcc.Store:
    """The page's pins, kept in the browser's local storage (a list of tags, first pinned
    first)."""
    return dcc.Store(id=pins_id(page, base_dir), storage_type="local", data=[])


def pin_looks_store(page: str) -> dcc.Store:
    """A count raised by the browser (``scalarCharts.pinLooksDue``) when the pin buttons'
    looks disagree with the page's pins: the server then writes them (:func:`pin_looks`)."""
    return dcc.Store(id={"type": PIN_LOOKS_TYPE, "page": page}, data=0)


def pin_button(chart_id: str, name: str) -> html.Button:
    """The pin button of the chart ``chart_id``, pinning ``name``; at the card's bottom right,
    beside its title (the tool row above the chart holds Plotly's own toolbar on hover, which
    would cover it on a narrow card)."""
    return html.Button(
        pin_label(False),
        id={"type": PIN_TYPE, "chart": chart_id},
        value=name,
        className=PIN_CLASS,
        title=pin_title(False),
    )


def checked_pins(stored: Any) -> list[str]:
    """The pins of a store's data: its strings, once each, at most :data:`MAX_PINS` (anything
    else the browser holds is dropped)."""
    if not isinstance(stored, list):
        return []
    names = [name for name in stored if isinstance(name, str) and len(name) <= MAX_PIN_CHARS]
    return list(dict.fromkeys(names))[-MAX_PINS:]


def page_pins(stores: Any) -> list[str]:
    """The pins of a page from its pattern-matched stores' data (``ALL``: a list of one)."""
    if isinstance(stores, list) and stores:
        return checked_pins(stores[0])
    return []


def pinned_first(names: Sequence[str], pins: Sequence[str]) -> list[str]:
    """``names`` with those pinned first, in the order pinned, then the others in their
    order."""
    present = set(names)
    first = [name for name in dict.fromkeys(pins) if name in present]
    chosen = set(first)
    return first + [name for name in names if name not in chosen]


def toggled(pins: Sequence[str], name: str) -> list[str]:
    """``pins`` with ``name`` taken out, or added last when it was not pinned."""
    if name in pins:
        return [pin for pin in pins if pin != name]
    return [*pins, name][-MAX_PINS:]


def pin_clicked(
    trigger: Any,
    clicked: bool,
    _clicks: list[Any],
    values: list[Any],
    ids: list[Any],
    stores: list[Any],
) -> Any:
    """A chart's pin button (``trigger``, its id) was clicked: its page's pins with its tag
    toggled (``stores``: the page's pins stores, one; a button drawn, not clicked: no update)."""
    unchanged = [no_update] * len(stores if isinstance(stores, list) else [])
    if not clicked or not isinstance(trigger, dict) or not unchanged:
        return unchanged
    names = {
        str(i.get("chart")): value
        for i, value in zip(ids, values, strict=False)
        if isinstance(i, dict)
    }
    name = names.get(str(trigger.get("chart")))
    if not isinstance(name, str) or len(name) > MAX_PIN_CHARS:
        return unchanged
    return [toggled(page_pins(stores), name), *unchanged[1:]]


def pin_looks(
    _due: Any, stores: list[Any], _ids: list[Any], values: list[Any]
) -> tuple[list, list, list]:
    """Each pin button's label, class and tooltip: pinned (highlighted, "Unpin") or not."""
    pins = set(page_pins(stores))
    on = [value in pins for value in values]
    return (
        [pin_label(pinned) for pinned in on],
        [PINNED_CLASS if pinned else PIN_CLASS for pinned in on],
        [pin_title(pinned) for pinned in on],
    )


def pin_label(pinned: bool) -> str:
    """The label of a chart's pin button."""
    return _("pinned") if pinned else _("pin")


def pin_title(pinned: bool) -> str:
    """The tooltip of a chart's pin button."""
    if pinned:
        return _("Unpin this chart (pinned charts come first)")
    return _("Pin this chart to the top of the page")


def register_pin_callbacks(app: Any) -> None:
    """The pin buttons of every chart grid of the app (bound once, by
    :func:`~.page_charts.register_chart_callbacks`)."""
    pins = {"type": PINS_TYPE, "page": ALL, "base": ALL}
    pin = {"type": PIN_TYPE, "chart": ALL}
    app.callback(
        Output(pins, "data"),
        Input(pin, "n_clicks"),
        State(pin, "value"),
        State(pin, "id"),
        State(pins, "data"),
        prevent_initial_call=True,
    )(triggered(pin_clicked, clicked=True))
    # The browser says when the buttons' looks are wrong (a pin added or restored, buttons
    # drawn with pins stored): at load, with nothing pinned, the layout's buttons are right and
    # the server is not asked (issue 37 item 2).
    looks = {"type": PIN_LOOKS_TYPE, "page": ALL}
    app.clientside_callback(
        ClientsideFunction("scalarCharts", "pinLooksDue"),
        Output(looks, "data"),
        Input(pins, "data"),
        Input(pin, "id"),
        State(pin, "value"),
        State(pin, "className"),
        State(looks, "data"),
    )
    app.callback(
        Output(pin, "children"),
        Output(pin, "className"),
        Output(pin, "title"),
        Input(looks, "data"),
        State(pins, "data"),
        State(pin, "id"),
        State(pin, "value"),
        prevent_initial_call=True,
    )(pin_looks)
