"""The auto refresh of the request's browser (on or off, and every how many seconds), for the
layout: the top bar's box and seconds and the ``refresh-interval`` timer are built as the
browser last set them, so no callback sets the timer at each page load.

``assets/shell.js`` ``autoRefresh`` writes the :data:`REFRESH_COOKIE` cookie (``on:10``,
``off:30``) whenever the box or the seconds change; a missing or unreadable cookie is
MindInsight's default.
"""

from __future__ import annotations

from typing import NamedTuple

import flask

REFRESH_COOKIE = "di_refresh"
#: MindInsight's auto-refresh default and bounds (ui store.js): 10 s, 3..300 s.
DEFAULT_REFRESH_SECONDS = 10
MIN_REFRESH_SECONDS, MAX_REFRESH_SECONDS = 3, 300


class RefreshSetting(NamedTuple):
    on: bool = True
    seconds: int = DEFAULT_REFRESH_SECONDS


def parse_refresh(text: str | None) -> RefreshSetting:
    """``on:10`` / ``off:30`` as a setting, the seconds clamped to MindInsight's bounds (as the
    browser clamps what is typed); anything else is the default."""
    state, _, seconds = (text or "").partition(":")
    if state not in ("on", "off") or not seconds.isdigit() or len(seconds) > 6:
        return RefreshSetting()
    return RefreshSetting(
        state == "on", max(MIN_REFRESH_SECONDS, min(MAX_REFRESH_SECONDS, int(seconds)))
    )


def request_refresh() -> RefreshSetting:
    """The setting of the request's cookie; the default outside a request."""
    if not flask.has_request_context():
        return RefreshSetting()
    return parse_refresh(flask.request.cookies.get(REFRESH_COOKIE))
