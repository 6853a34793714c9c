"""Components mounted when they come on screen.

A card below the first screen, mounted with the page's layout, costs the first screen React's
and Dash's work for every component in it, and the charts its slots then draw (issue 37 item 2:
the scalars page drew its second row of charts, just below a 1600x1000 window, before it was
quiet). A holder ships its component as JSON (``data-component``); ``assets/deferred.js``
mounts it (``dash_clientside.set_props``) when it comes on the screen, a row of cards per
animation frame (React mounting a grid of 24 cards in one task was the scalars page's longest
freeze: issue 17 item 8). Callbacks of the mounted component work as for any component a
callback adds. Until the mount a callback may rewrite the holder's ``data-component``: it is
read when applied, and the holder drops it at the mount.

The holders are the cards of :func:`deferred_children` below the first row: the card's frame
is in the page at once (its place, its id, its title), its toolbar and graph slot arrive when
it is on the screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dash import html
from plotly.utils import PlotlyJSONEncoder

CLASS_NAME = "di-deferred"


def deferred_children(
    card: html.Div,
    min_height: str,
    batch: int,
    keep: Callable[[Any], bool] | None = None,
) -> html.Div:
    """``card`` (a ``html.Div`` with an id) without its children, which ``assets/deferred.js``
    gives it when it comes on the screen, ``batch`` such cards per animation frame, the highest
    on the page first (a card the first screen does not show costs it nothing). Until then it
    keeps ``min_height`` (CSS) of space, so that the page's height and the cards' places do not
    jump when they fill, and the children for which ``keep`` says True (light ones, such as a
    title: what the card is about is on the page).

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
        "data-batch": str(batch),
    }
    style = {**own_style, "minHeight": min_height}
    div = html.Div(kept, className=class_name, style=style, **props, **attributes)
    later = [child for child in listed if not any(child is k for k in kept)]
    setattr(div, "deferred_child", later)  # noqa: B010 (not a Dash prop: never sent)
    return div
