"""The browser's theme as the server sees it (web/theme.py)."""

from __future__ import annotations

import flask
import pytest

from dash_insight.web.theme import DEFAULT_THEME, THEME_COOKIE, request_theme


@pytest.mark.parametrize(
    ("cookie", "theme"),
    [("dark", "dark"), ("light", "light"), ("purple", DEFAULT_THEME), (None, DEFAULT_THEME)],
)
def test_the_theme_of_the_cookie(cookie: str | None, theme: str) -> None:
    app = flask.Flask(__name__)
    headers = {"Cookie": f"{THEME_COOKIE}={cookie}"} if cookie else {}
    with app.test_request_context("/", headers=headers):
        assert request_theme() == theme
    assert request_theme() == DEFAULT_THEME  # outside a request
