"""A slider that is the browser's own ``<input type="range">`` (``assets/range-input.js``).

dcc's ``Slider`` is a lazily loaded chunk (Radix's slider with its own number box, 50 kB)
drawn one render after the page's first, and each one measured its width: the images page's
eight of them were a fifth of its main-thread work (issue 37 item 2). A step or level slider
needs none of that: the browser's range input moves with the pointer and the arrow keys, is
announced as a slider, and costs one element. Its props are dcc's ``Slider``'s that these
pages use, with the same meaning: ``value`` is set on release (``updatemode="mouseup"``) or
while dragging (``"drag"``); ``drag_value`` follows the thumb in either mode. It has no
marks or tooltip (the pages show the value beside it).
"""

from __future__ import annotations

from typing import Any, Literal

from dash.development.base_component import Component

#: What the page's scripts find the component under: ``window[NAMESPACE][TYPE]``.
NAMESPACE = "dash_insight"
TYPE = "RangeInput"
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


class RangeInput(Component):
    """``<input type="range">`` with Dash's props (see the module's docstring)."""

    # Dash's own components declare these so (instance variables of Component).
    _children_props: list[str] = []  # noqa: RUF012
    _base_nodes = ["children"]  # noqa: RUF012
    _namespace = NAMESPACE
    _type = TYPE

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
        self._prop_names = list(PROPS)
        self._valid_wildcard_attributes: list[str] = []
        self.available_properties = list(PROPS)
        self.available_wildcard_properties: list[str] = []
        props: dict[str, Any] = {
            "min": min,
            "max": max,
            "step": step,
            "value": min if value is None else value,
            "disabled": disabled,
            "updatemode": updatemode,
            "className": className,
        }
        if id is not None:
            props["id"] = id
        if title is not None:
            props["title"] = title
        super().__init__(**props)
