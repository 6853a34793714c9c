"""Binding plain callback functions to Dash.

A page's callbacks are module-level functions of ``(service, inputs...)`` that tests call
without a browser; ``register()`` only binds them (``functools.partial`` for the service). A
callback that must know which input fired it takes that id as its first parameter, and
:func:`triggered` hands it Dash's ``ctx.triggered_id``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from dash import ctx

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
