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


def triggered(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function(trigger, *values)`` as a Dash callback of ``*values``: the trigger is the id
    of the input that changed (Dash's ``ctx.triggered_id``). The callback's signature is the
    function's without ``trigger`` (what :mod:`~dash_insight.web.callback_types` checks bodies
    against)."""

    def callback(*values: Any) -> Any:
        return function(ctx.triggered_id, *values)

    signature = inspect.signature(function)
    callback.__dict__["__signature__"] = signature.replace(
        parameters=list(signature.parameters.values())[1:]
    )
    callback.__doc__ = function.__doc__
    return callback
