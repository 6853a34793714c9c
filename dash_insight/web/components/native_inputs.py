"""Sliders and menus that are the browser's own ``<input type="range">`` and ``<select>``
(``assets/native-inputs.js`` draws them).

dcc's ``Slider`` and ``Dropdown`` are lazily loaded chunks (Radix's slider with its own number
box; a popover with a search box and a virtualised list) drawn one render after the page's
first: the images page's eight sliders were a fifth of its main-thread work (issue 37 item 2),
and each dropdown's late render moved what was below it. A step slider or a menu of a few
choices needs none of that: the browser's controls move with the pointer and the keys, are
announced as a slider or a list box, and cost one element. Their props are dcc's that the
pages use, with the same meaning; what they lack (a slider's marks and tooltip, a menu's search
box or many values) is why the few dcc ones left are dcc's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from dash.development.base_component import Component

#: What the page's scripts find the components under: ``window[NAMESPACE][<type>]``.
NAMESPACE = "dash_insight"


class OwnComponent(Component):
    """A component of :data:`NAMESPACE` whose props are the names of ``props`` given to
    :meth:`_start` (the generated components of Dash libraries set the same attributes)."""

    # Dash's own components declare these so (instance variables of Component).
    _children_props: list[str] = []  # noqa: RUF012
    _base_nodes = ["children"]  # noqa: RUF012
    _namespace = NAMESPACE

    def _start(self, names: Sequence[str], props: dict[str, Any]) -> None:
        self._prop_names = list(names)
        self._valid_wildcard_attributes: list[str] = []
        self.available_properties = list(names)
        self.available_wildcard_properties: list[str] = []
        super().__init__(**{name: value for name, value in props.items() if value is not None})


class RangeInput(OwnComponent):
    """``<input type="range">``: ``value`` is set on release (``updatemode="mouseup"``) or
    while dragging (``"drag"``); ``drag_value`` follows the thumb in either mode (dcc's
    ``Slider``'s meaning). No marks, no tooltip: the pages show the value beside it."""

    _type = "RangeInput"
    PROPS = (
        "id",
        "min",
        "max",
        "step",
        "value",
        "drag_value",
        "disabled",
        "updatemode",
        "className",
        "title",
    )

    def __init__(
        self,
        id: str | dict[str, Any] | None = None,
        min: float = 0,
        max: float = 1,
        step: float = 1,
        value: float | None = None,
        disabled: bool = False,
        updatemode: Literal["mouseup", "drag"] = "mouseup",
        className: str = "di-range",
        title: str | None = None,
    ) -> None:
        self._start(
            self.PROPS,
            {
                "id": id,
                "min": min,
                "max": max,
                "step": step,
                "value": min if value is None else value,
                "disabled": disabled,
                "updatemode": updatemode,
                "className": className,
                "title": title,
            },
        )


#: A menu's options as dcc's ``Dropdown`` takes them: values, or ``{"label", "value"}``.
Options = Sequence[Any]


class SelectInput(OwnComponent):
    """``<select>`` over ``options`` (dcc's ``Dropdown``'s form: values, or dicts of ``label``
    and ``value``; values keep their type, a number stays a number). ``value`` None (or not
    an option) shows ``placeholder``; with ``clearable`` the menu's first entry sets it to
    None. One value only, no search: for a menu of a few choices."""

    _type = "SelectInput"
    PROPS = (
        "id",
        "options",
        "value",
        "placeholder",
        "clearable",
        "disabled",
        "className",
        "style",
        "title",
    )

    def __init__(
        self,
        id: str | dict[str, Any] | None = None,
        options: Options = (),
        value: Any = None,
        placeholder: str | None = None,
        clearable: bool = False,
        disabled: bool = False,
        className: str = "",
        style: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> None:
        self._start(
            self.PROPS,
            {
                "id": id,
                "options": list(options),
                "value": value,
                "placeholder": placeholder,
                "clearable": clearable,
                "disabled": disabled,
                "className": " ".join(filter(None, ("di-select", className))),
                "style": style,
                "title": title,
            },
        )


def option_pairs(options: Options) -> list[tuple[str, Any]]:
    """``options`` as (label, value) pairs, as ``assets/native-inputs.js`` reads them."""
    pairs = []
    for option in options:
        if isinstance(option, dict):
            pairs.append((str(option.get("label", option.get("value"))), option.get("value")))
        else:
            pairs.append((str(option), option))
    return pairs
