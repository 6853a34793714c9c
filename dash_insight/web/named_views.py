"""Named views in the top bar (issue 40 item 8): "Views" opens a menu that saves the page's URL
(its whole state) under a name, lists the saved views to open them (a full page load of the
saved URL), copies a view's link and deletes a view. The views are kept in the workspace
(:mod:`dash_insight.core.named_views`); ``/v1/dash-insight/views`` lists, saves and deletes them.
"""

from __future__ import annotations

import functools
import time
from dataclasses import asdict
from typing import Any

import dash
import flask
from dash import ALL, Input, Output, State, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.named_views import MAX_NAME_CHARS, MAX_VIEWS, NamedViews, ViewError
from dash_insight.web import errors
from dash_insight.web.binding import triggered
from dash_insight.web.http import JsonBodyError, json_body, json_response
from dash_insight.web.plugin import DASH_INSIGHT_API, Route

DELETE_TYPE = "views-delete"


def views_menu() -> html.Details:
    """The top bar's "Views" menu: a name and "Save view", a message, the saved views."""
    return html.Details(
        id="views-menu",
        className="di-views",
        children=[
            html.Summary(_("Views"), className="di-icon-button", title=_("Saved views")),
            html.Div(
                className="di-views-panel",
                children=[
                    html.Div(
                        className="di-views-save",
                        children=[
                            dcc.Input(
                                id="views-name",
                                type="text",
                                maxLength=MAX_NAME_CHARS,
                                placeholder=_("name of this view"),
                                className="di-views-name",
                            ),
                            html.Button(_("Save view"), id="views-save", className="di-button"),
                        ],
                    ),
                    html.Div(id="views-message", className="di-views-message", role="status"),
                    html.Div(id="views-list", className="di-views-list"),
                    dcc.Store(id="views-changed", data=0),
                ],
            ),
        ],
    )


def page_url(app: dash.Dash, pathname: Any, search: Any) -> str:
    """The URL of the page shown, below the app's prefix (``/scalars?train_id=...``)."""
    path = app.strip_relative_path(pathname if isinstance(pathname, str) else "/") or ""
    query = search if isinstance(search, str) and search.startswith("?") else ""
    return "/" + path.strip("/") + query


def app_href(app: dash.Dash, url: str) -> str:
    """A saved view's URL as a link of the app (its prefix added)."""
    path, mark, query = url.partition("?")
    return app.get_relative_path(path) + mark + query


def save_or_delete(
    views: NamedViews,
    app: dash.Dash,
    trigger: Any,
    clicked: bool,
    _saves: Any,
    _submits: Any,
    _deletes: list[Any],
    name: Any,
    pathname: Any,
    search: Any,
) -> tuple[Any, Any]:
    """A click of "Save view" (or Enter in the name): the page's URL saved under the name; a
    view's ×: that view deleted. The menu's message, and a stamp telling the list to read the
    views again."""
    if not clicked:
        return dash.no_update, dash.no_update
    try:
        if isinstance(trigger, dict) and trigger.get("type") == DELETE_TYPE:
            views.delete(trigger.get("name"))
            return _("View deleted."), time.time()
        view = views.save(name, page_url(app, pathname, search))
    except ViewError as error:
        return view_problem(error), dash.no_update
    return _("Saved as {name}.").format(name=view.name), time.time()


def view_problem(error: ViewError) -> str:
    """What the menu says when a view cannot be saved or deleted."""
    if error.missing:
        return _("That view was deleted already.")
    return _(
        "A view needs a name of 1 to {most} printable characters; at most {views} views are kept."
    ).format(most=MAX_NAME_CHARS, views=MAX_VIEWS)


def view_rows(views: NamedViews, app: dash.Dash, _clicks: Any, _changed: Any) -> list[Any]:
    """The saved views: each a link that opens it, "Copy link" and ×. Read when the menu is
    clicked (opened) and after a save or a delete, not with every page: nothing shows them
    before, and a callback at page load is a round trip of every page's start."""
    saved = views.saved()
    if not saved:
        return [html.Span(_("No saved view yet."), className="di-muted")]
    root = flask.request.host_url.rstrip("/") if flask.has_request_context() else ""
    return [
        html.Div(
            className="di-view-row",
            children=[
                html.A(view.name, href=app_href(app, view.url), className="di-view-link"),
                dcc.Clipboard(
                    content=root + app_href(app, view.url),
                    title=_("Copy link"),
                    className="di-view-copy",
                ),
                html.Button(
                    "×",
                    id={"type": DELETE_TYPE, "name": view.name},
                    className="di-link-button",
                    title=_("Delete this view"),
                ),
            ],
        )
        for view in saved
    ]


def register(app: dash.Dash, views: NamedViews) -> None:
    """The menu's callbacks (bound once per app)."""
    app.callback(
        Output("views-message", "children"),
        Output("views-changed", "data"),
        Input("views-save", "n_clicks"),
        Input("views-name", "n_submit"),
        Input({"type": DELETE_TYPE, "name": ALL}, "n_clicks"),
        State("views-name", "value"),
        State("url", "pathname"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(save_or_delete, views, app), clicked=True))
    app.callback(
        Output("views-list", "children"),
        Input("views-menu", "n_clicks"),
        Input("views-changed", "data"),
        prevent_initial_call=True,
    )(functools.partial(view_rows, views, app))


# -- REST ------------------------------------------------------------------------------------


def _bad(error: ViewError | JsonBodyError | str) -> errors.ApiError:
    if isinstance(error, ViewError) and error.missing:
        return errors.ApiError(errors.PARAM_VALUE_ERROR, str(error), 404)
    return errors.ApiError(errors.PARAM_VALUE_ERROR, str(error), 400)


def views_view(views: NamedViews) -> flask.Response:
    """``GET``: every saved view (``{"views": [{"name", "url", "saved"}]}``); ``POST`` a JSON
    ``{"name", "url"}``: save it (``url``: a path of the app with its query; a view of that
    name is replaced); ``DELETE ?name=``: delete it (404 when there is none). A bad name or
    URL, or more than the views kept: 400."""
    method = flask.request.method
    try:
        if method == "POST":
            body = json_body()
            if not isinstance(body, dict):
                raise _bad('send a JSON object {"name": ..., "url": ...}')
            return json_response({"view": asdict(views.save(body.get("name"), body.get("url")))})
        if method == "DELETE":
            views.delete(flask.request.args.get("name"))
            return json_response({"deleted": flask.request.args.get("name", "").strip()})
    except (ViewError, JsonBodyError) as error:
        raise _bad(error) from None
    return json_response({"views": [asdict(view) for view in views.saved()]})


def routes(views: NamedViews) -> list[Route]:
    """``/v1/dash-insight/views``."""

    def named_views() -> flask.Response:  # Flask names the route after its view
        return views_view(views)

    named_views.__doc__ = views_view.__doc__
    return [Route("views", named_views, ("GET", "POST", "DELETE"), api=DASH_INSIGHT_API)]
