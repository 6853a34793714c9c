"""The key of a page's answer, so that an auto refresh which would draw the same again sends
nothing.

A callback fired by the refresh interval every few seconds used to answer its whole content
anew: the browser redrew unchanged charts (contours, overlays, image columns) on every tick,
and on a loaded machine it spent nearly all its time on that (issue 17 item 12: a page that
never became idle). A page keeps the key of what it shows in a store and compares.

A page whose answer is cheap to build but not tied to one version of the data (the summary
list shows the loader's progress too) keys the answer itself: :func:`content_key`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from plotly.utils import PlotlyJSONEncoder

from dash_insight.core.provider import DataProvider


def answer_key(provider: DataProvider, *inputs: Any) -> str:
    """A short digest of what an answer is drawn from: ``inputs`` (the URL's query, the user's
    run colours, ...) and the data of every job (:meth:`DataProvider.data_version`). Equal keys:
    the same answer."""
    return content_key(provider.data_version(), *inputs)


def content_key(*outputs: Any) -> str:
    """A short digest of a callback's answer itself (Dash components, text): equal keys, the
    same answer. For answers cheap to build whose inputs :func:`answer_key` does not cover."""
    text = json.dumps(outputs, sort_keys=True, cls=PlotlyJSONEncoder)
    return hashlib.sha1(text.encode()).hexdigest()[:16]
