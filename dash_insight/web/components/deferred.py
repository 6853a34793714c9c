"""Components mounted after the charts on the first screen are drawn.

A heavy control that is not a chart (the virtualised grid of a tag or job picker) mounted with
the page's layout costs the first chart a few hundred milliseconds of the browser's main thread
(issue 17 item 8). :func:`deferred` ships it inside its holder as JSON; ``assets/deferred.js``
mounts it (``dash_clientside.set_props``) once every chart card on screen is drawn, or after
:data:`LONGEST_WAIT_MS`, or at once on a page without charts. Callbacks of the mounted component
work as for any component a callback adds.
"""

from __future__ import annotations

import json
from typing import Any

from dash import html
from dash.development.base_component import Component
from plotly.utils import PlotlyJSONEncoder

#: The longest time a deferred component waits for the charts (``assets/deferred.js``).
LONGEST_WAIT_MS = 2500
CLASS_NAME = "di-deferred"


def deferred(component: Component, holder_id: str, **holder: Any) -> html.Div:
    """A ``html.Div`` (``id=holder_id``, ``holder`` props such as ``className`` and ``style``)
    that gets ``component`` as its child once the page's first screen of charts is drawn.

    The holder's ``deferred_child`` attribute keeps ``component`` for Python readers (tests)."""
    class_name = " ".join(filter(None, [CLASS_NAME, holder.pop("className", "")]))
    props: dict[str, Any] = {**holder, "data-component": json.dumps(component,
                                                                     cls=PlotlyJSONEncoder),
                             "data-wait-ms": str(LONGEST_WAIT_MS)}
    div = html.Div(id=holder_id, className=class_name, **props)
    setattr(div, "deferred_child", component)  # noqa: B010 (not a Dash prop: never sent)
    return div
