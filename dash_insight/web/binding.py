"""Binding plain callback functions to Dash.

A page's callbacks are module-level functions of ``(service, inputs...)`` that tests call
without a browser; ``register()`` only binds them (``functools.partial`` for the service). A
callback that must know which input fired it takes that id as its first parameter, and
:func:`triggered` hands it Dash's ``ctx.triggered_id``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from dash import Output, ctx, no_update
from dash.development.base_component import Component

from dash_insight.web.clicks import drawn_not_clicked


def triggered(
    function: Callable[..., Any], *, clicked: bool = False, single: bool = False
) -> Callable[..., Any]:
    """``function(trigger, *values)`` as a Dash callback of ``*values``: the trigger is the id
    of the input that changed (Dash's ``ctx.triggered_id``). With ``single``, the trigger is
    None when Dash fired the callback for several inputs at once: their components were just
    drawn, no user changed one. With ``clicked``, ``function(trigger, clicked, *values)``:
    whether that input holds a click (Dash fires a button's callback when it is drawn too,
    with no click: see :mod:`~dash_insight.web.clicks`). The callback's signature is the
    function's without those (what :mod:`~dash_insight.web.callback_types` checks bodies
    against)."""
    leading = 2 if clicked else 1

    def callback(*values: Any) -> Any:
        trigger = ctx.triggered_id
        if single and len(ctx.triggered) != 1:
            trigger = None
        if clicked:
            return function(trigger, not drawn_not_clicked(), *values)
        return function(trigger, *values)

    signature = inspect.signature(function)
    callback.__dict__["__signature__"] = signature.replace(
        parameters=list(signature.parameters.values())[leading:]
    )
    callback.__doc__ = function.__doc__
    return callback


def _id_key(component_id: Any) -> str:
    """A component id as a dictionary key (a pattern-matching id is a dict)."""
    return (
        json.dumps(component_id, sort_keys=True)
        if isinstance(component_id, dict)
        else str(component_id)
    )


def _components(tree: Component) -> Iterator[Component]:
    yield tree
    yield from (item for item in tree._traverse() if isinstance(item, Component))


def preset(tree: Component, outputs: Sequence[Output], values: Sequence[Any]) -> Component:
    """``tree`` with each output's property set to its value: what a callback answers at load,
    sent with the page's layout instead of a round trip later (bind the callback with
    ``prevent_initial_call=True``). A value of ``dash.no_update`` leaves the property as it
    is; an output whose component is not in ``tree`` is a programming error (KeyError)."""
    ids = ((getattr(component, "id", None), component) for component in _components(tree))
    by_id = {_id_key(found): component for found, component in ids if found is not None}
    for output, value in zip(outputs, values, strict=True):
        if value is not no_update:
            setattr(by_id[_id_key(output.component_id)], output.component_property, value)
    return tree
