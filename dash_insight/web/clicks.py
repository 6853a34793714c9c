"""Was a Dash callback fired by a click, or by its button being drawn?

Dash fires a callback with an ``n_clicks`` input when the button is drawn (a page opened, rows
or a list drawn anew), with ``n_clicks`` empty (None); only a click gives it a count. A callback
that answers clicks must tell the two apart, or a redraw acts as a click (a window closed, every
tag ticked, a run's colour reset).
"""

from __future__ import annotations

from typing import Any

from dash import ctx


def drawn_not_clicked() -> bool:
    """True when the input that fired the running callback holds no click (None or 0)."""
    return not ctx.triggered or not ctx.triggered[0]["value"]


def picker_button_drawn(trigger: Any = None, clicked: bool | None = None) -> bool:
    """True when a picker's "All" or "None" button (id ``<list>-all`` / ``<list>-none``) fired
    a callback by being drawn: a "controls -> URL" callback then changes nothing. ``trigger``
    and ``clicked`` as :func:`~dash_insight.web.binding.triggered` hands them to a plain
    callback; by default, those of the running callback."""
    if clicked is None:
        trigger, clicked = ctx.triggered_id, not drawn_not_clicked()
    return not clicked and str(trigger).endswith(("-all", "-none"))
