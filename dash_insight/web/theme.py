"""The theme of the request's browser, for pages whose server-built content follows it.

The theme lives in the browser (the ``theme`` store, kept in localStorage, switched by the top
bar); ``assets/shell.js`` ``applyTheme`` also writes it to the :data:`THEME_COOKIE` cookie, so a
page built with its layout (the parameter distribution's figures, filled on the theme's card
colour) is built in the right theme without waiting for a callback.
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
