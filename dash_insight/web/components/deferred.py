"""Components mounted after the charts on the first screen are drawn.

A heavy control mounted with the page's layout costs the first chart a few hundred
milliseconds of the browser's main thread (issue 17 item 8: the name pickers' AG Grid, since
replaced by a light checklist drawn with the layout). A holder ships its component as JSON
(``data-component``); ``assets/deferred.js`` mounts it (``dash_clientside.set_props``) once
every chart card on screen is drawn, or after :data:`LONGEST_WAIT_MS`, or at once on a page
without charts. Callbacks of the mounted component work as for any component a callback adds.
Until the mount a callback may rewrite the holder's ``data-component``: it is read when
applied, and the holder drops it at the mount.

The holders are the chart cards of :func:`deferred_children`, below the first screen: the
card's frame is in the page at once (its place, its id), its toolbar, graph slot and title
arrive a few cards per main-thread task, at once when the card is on screen, else when the
charts on screen are drawn. React mounting a grid of 24 cards in one task was the longest
freeze of the scalars page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dash import html
from plotly.utils import PlotlyJSONEncoder

#: The longest time a deferred component waits for the charts (``assets/deferred.js``).
LONGEST_WAIT_MS = 2500
CLASS_NAME = "di-deferred"


def deferred_children(
    card: html.Div,
    min_height: str,
    batch: int,
    keep: Callable[[Any], bool] | None = None,
    on_screen_only: bool = False,
) -> html.Div:
    """``card`` (a ``html.Div`` with an id) without its children, which ``assets/deferred.js``
    gives it at once when it is on (or next to) the screen, else once the charts on screen are
    drawn (or after :data:`LONGEST_WAIT_MS`), ``batch`` such cards per main-thread task, the
    highest on the page first; with ``on_screen_only``, only when it comes on (or next to) the
    screen (a card the first screen does not show costs it nothing). Until then it keeps
    ``min_height`` (CSS) of space, so that the
    page's height and the cards' places do not jump when they fill, and the children for which
    ``keep`` says True (light ones, such as a title: what the card is about is on the page).

    The holder's ``deferred_child`` attribute keeps the children for Python readers (tests)."""
    props = card.to_plotly_json()["props"]
    children = props.pop("children", None)
    listed = children if isinstance(children, list | tuple) else [children]
    kept = [child for child in listed if keep is not None and keep(child)]
    class_name = " ".join(filter(None, [CLASS_NAME, props.pop("className", "")]))
    own_style = props.pop("style", None) or {}
    attributes: dict[str, Any] = {
        "data-component": json.dumps(children, cls=PlotlyJSONEncoder),
        "data-style": json.dumps(own_style),  # the card's own style, back when it fills
        "data-wait-ms": str(LONGEST_WAIT_MS),
        "data-on-screen": "only" if on_screen_only else "now",
        "data-batch": str(batch),
    }
    style = {**own_style, "minHeight": min_height}
    div = html.Div(kept, className=class_name, style=style, **props, **attributes)
    later = [child for child in listed if not any(child is k for k in kept)]
    setattr(div, "deferred_child", later)  # noqa: B010 (not a Dash prop: never sent)
    return div
