"""The shell's routing callback as a plain function (no browser): a page is rebuilt only
when its path or train_id changes."""

from __future__ import annotations

from typing import Any

import dash
from dash import html

from dash_insight.web import shell
from dash_insight.web.plugin import Page
from tests.pages import text


def _layout(_app: dash.Dash, service: str, params: dict[str, str]) -> html.Div:
    return html.Div(f"{service} of {params.get('train_id')}")


def _router() -> shell.PageRouter:
    page: Page[Any] = Page("/scalars", _layout, lambda _app, _service: None)
    return shell.PageRouter(dash.Dash(__name__), [(page, "scalars")])


def test_follow_rebuilds_only_for_another_path_or_job() -> None:
    router = _router()
    children, route = router.follow("/scalars", "?train_id=./a", None)
    assert text(children) == "scalars of ./a" and route == {"path": "/scalars", "train_id": "./a"}
    # Another parameter of the same page: the page on screen stays (its controls keep focus).
    assert router.follow("/scalars", "?train_id=./a&smooth=0.5", route) == (
        dash.no_update,
        dash.no_update,
    )
    children, route = router.follow("/scalars", "?train_id=./b", route)
    assert text(children) == "scalars of ./b"
    children, route = router.follow("/nowhere/../x", "", route)
    assert route["path"] == "/nowhere/../x" and "scalars" not in text(children)
    assert router.follow(None, None, "junk")[1] == {"path": "/", "train_id": None}
