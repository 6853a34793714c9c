"""The theme of the request's browser, for pages whose server-built content follows it.

The theme lives in the browser's :data:`THEME_COOKIE` cookie, which ``assets/shell.js``
``applyTheme`` writes when the top bar's button switches it. Every page is built in it: the
``<html data-theme>`` of the page, the ``theme`` store of the layout (in memory; its data
changes only when the button switches the theme, which redraws what follows it) and what a
page builds with its layout (the parameter distribution's figures, filled on the theme's card
colour), so no callback applies the theme at load. The cookie is the host's: servers on
other ports of the same host share it.
"""

from __future__ import annotations

import flask

THEME_COOKIE = "di_theme"
THEMES = ("light", "dark")
#: A browser that never stored a theme shows this one (the ``theme`` store's default).
DEFAULT_THEME = "light"


def request_theme() -> str:
    """The theme of the request's cookie; :data:`DEFAULT_THEME` outside a request or without
    a valid cookie (a wrong guess only costs the page one callback that redraws its cards)."""
    if not flask.has_request_context():
        return DEFAULT_THEME
    theme = flask.request.cookies.get(THEME_COOKIE, "")
    return theme if theme in THEMES else DEFAULT_THEME
