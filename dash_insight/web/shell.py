"""The frame of every page: top bar, URL routing, auto refresh, theme, the user's run
colours."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import dash
import flask
from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.i18n import format_number
from dash_insight.core.i18n import gettext as _
from dash_insight.core.store.health import (
    DISK_FULL,
    PERMISSION,
    REBUILDING,
    STALLED,
    STORE_UNREACHABLE,
    LoaderFailure,
    LoaderHealth,
)
from dash_insight.web import i18n, named_views, not_found
from dash_insight.web.components import run_colours
from dash_insight.web.plugin import NavLink, Page
from dash_insight.web.refresh_setting import (
    MAX_REFRESH_SECONDS,
    MIN_REFRESH_SECONDS,
    RefreshSetting,
    request_refresh,
)
from dash_insight.web.theme import request_theme
from dash_insight.web.url_state import parse_search

#: The ``window.dash_clientside`` namespace of ``assets/shell.js`` (theme, active menu entry).
CLIENTSIDE_NAMESPACE = "shell"


def nav_link_active(target: str, pathname: str | None) -> bool:
    """Whether the menu link to ``target`` (a pathname) is the page at ``pathname``'s: the
    home link (``target`` ending in "/") on the home page only, any other on its path and
    below it (as ``markActiveNav`` in ``assets/shell.js``)."""
    if pathname is None:
        return False
    if target.endswith("/"):
        return pathname == target
    return pathname.startswith(target)


def top_bar(app: dash.Dash, nav: Sequence[NavLink], pathname: str | None = None) -> html.Header:
    """The bar over every page: the brand (a link home), the plugins' ``nav`` links (the one
    of the page at ``pathname`` with the class "active", so that no callback changes the menu
    once the page is drawn), and the tools (auto refresh, refresh, theme, saved views,
    language)."""
    return html.Header(
        className="di-topbar",
        children=[
            dcc.Link(
                html.Span(["dash", html.Span("·"), "insight"]),
                href=app.get_relative_path("/"),
                className="di-brand",
            ),
            html.Nav(
                className="di-nav",
                id="nav",
                children=[
                    dcc.Link(
                        str(link.label),
                        href=app.get_relative_path(link.path),
                        id=f"nav-{link.path.strip('/') or 'home'}",
                        className=(
                            "active"
                            if nav_link_active(app.get_relative_path(link.path), pathname)
                            else None
                        ),
                    )
                    for link in nav
                ],
            ),
            html.Div(className="di-spacer"),
            html.Div(
                className="di-tools",
                children=[
                    *_refresh_tools(request_refresh()),
                    html.Button(
                        "◐ " + _("Theme"),
                        id="theme-toggle",
                        className="di-icon-button",
                        title=_("Switch between light and dark theme"),
                    ),
                    *_menus(),
                ],
            ),
        ],
    )


def _refresh_tools(setting: RefreshSetting) -> list[Any]:
    """Auto refresh (on or off, and its interval, as the browser last set them: its cookie)
    and "Refresh"."""
    return [
        dcc.Checklist(
            id="auto-refresh",
            options=[{"label": " " + _("Auto refresh"), "value": "on"}],
            value=["on"] if setting.on else [],
            inputClassName="di-checkbox",
            className="di-inline",
        ),
        html.Label(
            [
                _("every"),
                dcc.Input(
                    id="refresh-seconds",
                    type="number",
                    value=setting.seconds,
                    min=MIN_REFRESH_SECONDS,
                    max=MAX_REFRESH_SECONDS,
                    step=1,
                    debounce=True,
                ),
                _("s"),
            ],
            title=_("Auto refresh interval: {low} to {high} seconds").format(
                low=MIN_REFRESH_SECONDS, high=MAX_REFRESH_SECONDS
            ),
        ),
        html.Button(
            "⟳ " + _("Refresh"),
            id="refresh-now",
            className="di-icon-button",
            title=_("Reload the data now"),
        ),
    ]


def _menus() -> list[Any]:
    """The top bar's last tools: the saved views' menu and the language switch."""
    return [named_views.views_menu(), i18n.language_switch()]


#: What the pages know of the loader (``DataService.loader_health``).
HealthSource = Callable[[], LoaderHealth]


def stalled_text(failure: LoaderFailure) -> str:
    """The banner's sentence for why loading stopped, in the request's language."""
    if failure.reason == DISK_FULL:
        why = _("the disk holding the workspace is full")
    elif failure.reason == PERMISSION:
        why = _("permission was refused")
    elif failure.reason == STORE_UNREACHABLE:
        why = _("the index store cannot be reached")
    else:
        why = _("a loading round failed")
    return _(
        "Loading has stopped: {why}. What you see may be out of date; it is tried again "
        "every round."
    ).format(why=why)


def loader_banner(health: LoaderHealth) -> list[Any]:
    """The banner's children: empty unless loading has stalled (then why and the error) or
    the index is being rebuilt (then how far)."""
    if health.state == REBUILDING and health.progress is not None:
        read, total = health.progress
        return [
            html.Span(
                _(
                    "The index was emptied (its store restarted without its data) and is being "
                    "rebuilt: {read} of {total} jobs read again. Jobs not read yet show what is "
                    "read so far."
                ).format(read=format_number(read), total=format_number(total))
            )
        ]
    if health.state != STALLED or health.failure is None:
        return []
    return [
        html.Span(stalled_text(health.failure)),
        html.Code(health.failure.detail, className="di-loader-detail"),
    ]


def refresh_banner(
    health: HealthSource, _n_intervals: Any = None, _clicks: Any = None, _path: Any = None
) -> tuple[list[Any], bool]:
    """The banner at every auto refresh, click of Refresh and move to another page:
    (children, hidden)."""
    children = loader_banner(health())
    return children, not children


def shell_layout(
    app: dash.Dash, nav: Sequence[NavLink], router: PageRouter, health: HealthSource
) -> Callable[[], html.Div]:
    """The frame, with the page of the URL being opened already inside it.

    A function Dash calls on each page load, so the frame is built in the request's language.
    The browser asks for the layout from the page it opens, so the request's ``Referer`` names
    that page: rendering it here saves the routing callback's round trip on every full page
    load. Without a usable ``Referer`` the page arrives through :func:`register_shell`'s
    ``route`` callback as for in-app navigation.

    The ``url`` location starts with that page's pathname and search too: left empty, it sets
    them when it mounts, and that change fires every callback listening to the URL (even those
    with ``prevent_initial_call``), one round trip each before the page's first chart."""

    def layout() -> html.Div:
        referred = router.referred_url()
        page, route = router.render(*referred) if referred else (None, None)
        location = location_props(flask.request.referrer if referred else None, referred)
        refresh = request_refresh()
        return html.Div(
            [
                dcc.Location(id="url", refresh=False, **location),
                dcc.Store(id="route", data=route),
                # The browser's theme as its cookie says (web/theme.py): a store in memory,
                # whose data changes only when the theme button switches it.
                dcc.Store(id="theme", data=request_theme()),
                dcc.Store(id=run_colours.STORE_ID, storage_type="local", data={}),
                dcc.Interval(
                    id="refresh-interval",
                    interval=refresh.seconds * 1000,
                    disabled=not refresh.on,
                ),
                top_bar(app, nav, referred[0] if referred else None),
                _banner_element(health),
                i18n.client_texts_element(),
                html.Main(page, id="page", className="di-page"),
            ]
        )

    return layout


def _banner_element(health: HealthSource) -> html.Div:
    children = loader_banner(health())
    return html.Div(
        children,
        id="loader-banner",
        role="status",
        className="di-loader-banner",
        hidden=not children,
    )


class PageRouter:
    """The page a URL names (``pages``: each with its plugin's service)."""

    def __init__(self, app: dash.Dash, pages: Sequence[tuple[Page[Any], Any]]) -> None:
        self.app = app
        self.by_path = {page.path: (page, service) for page, service in pages}

    def locate(self, pathname: str | None, search: str | None) -> tuple[str, dict[str, str]]:
        """The page path (below the app's prefix) and the parameters of a URL."""
        path = self.app.strip_relative_path(pathname or "/") or ""
        return "/" + path.strip("/"), parse_search(search)

    @staticmethod
    def _route(page_path: str, params: dict[str, str]) -> dict[str, Any]:
        return {"path": page_path, "train_id": params.get("train_id")}

    def route(self, pathname: str | None, search: str | None) -> dict[str, Any]:
        """What decides whether a URL change rebuilds the page: its path and train_id."""
        return self._route(*self.locate(pathname, search))

    def render(self, pathname: str | None, search: str | None) -> tuple[Any, dict[str, Any]]:
        """The page of a URL and its route."""
        page_path, params = self.locate(pathname, search)
        route = self._route(page_path, params)
        found = self.by_path.get(page_path)
        if found is None:
            return not_found.layout(self.app, page_path), route
        page, service = found
        return page.layout(self.app, service, params), route

    def follow(self, pathname: str | None, search: str | None, current: Any) -> tuple[Any, Any]:
        """The page of the URL and its route; nothing when the route is the one on screen
        (``current``: controls that write other URL parameters keep their state)."""
        if current and current == self.route(pathname, search):
            return dash.no_update, dash.no_update
        return self.render(pathname, search)

    def first_paint(self, pathname: str | None, search: str | None) -> Any | None:
        """The first screen of a URL's page (its ``first_paint``), or None when it has none."""
        page_path, params = self.locate(pathname, search)
        page, service = self.by_path.get(page_path, (None, None))
        draw = page.first_paint if page is not None else None
        return None if draw is None else draw(self.app, service, params)

    def referred_page(self) -> str | None:
        """The page path of the request's same-origin ``Referer`` (:meth:`referred_url`)."""
        referred = self.referred_url()
        return None if referred is None else self.locate(*referred)[0]

    def referred_url(self) -> tuple[str, str] | None:
        """The pathname and search (``"?..."`` or ``""``, as ``window.location`` has them) of
        the request's same-origin ``Referer``: the page whose layout is asked for; None
        without one."""
        if not flask.has_request_context():
            return None
        prefix = self.app.config.requests_pathname_prefix
        return app_referrer(flask.request.referrer, flask.request.host, prefix)


def app_referrer(referrer: str | None, host: str, prefix: str) -> tuple[str, str] | None:
    """The pathname and search (``"?..."`` or ``""``) of a ``Referer`` that is a page of the
    app at ``host`` below ``prefix`` (the path the browser sees); None for another site's
    page, one not of the app, or no ``Referer``."""
    if not referrer:
        return None
    url = urlsplit(referrer)
    ours = url.path.startswith(prefix) or url.path == prefix.rstrip("/")
    if url.netloc != host or not ours:
        return None
    return url.path, "?" + url.query if url.query else ""


def location_props(referrer: str | None, referred: tuple[str, str] | None) -> dict[str, str]:
    """The ``url`` location's first props for the page of a same-origin ``Referer`` (its
    ``referred`` pathname and search): those, and the whole address (``href``) unless the
    ``Referer`` may be one a browser cut to the bare origin (``scheme://host/``, see
    :func:`follow_window_address`). A location whose props agree with the window's sets none
    when it mounts: ``followWindowAddress`` is not called at the load of every page."""
    if referred is None or referrer is None:
        return {}
    location = {"pathname": referred[0], "search": referred[1]}
    if referred != ("/", ""):
        location["href"] = referrer
    return location


def follow_window_address(app: dash.Dash) -> None:
    """A layout built for another address than the window's is followed by the page of the
    window's address (``assets/shell.js``, ``followWindowAddress``): the layout of a full load
    is the page of its request's ``Referer`` (:func:`shell_layout`), and browsers cut a
    ``Referer`` over 4,096 characters (a graph with a few hundred open scopes) to the origin,
    the home page's address."""
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "followWindowAddress"),
        Output("url", "pathname", allow_duplicate=True),
        Output("url", "search", allow_duplicate=True),
        Input("url", "href"),
        State("url", "pathname"),
        State("url", "search"),
        prevent_initial_call=True,
    )


def _register_settings(app: dash.Dash) -> None:
    """The top bar's auto refresh and theme button, in the browser (``assets/shell.js``), which
    keeps them in cookies the server builds every page with: not called at load."""
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "autoRefresh"),
        Output("refresh-interval", "disabled"),
        Output("refresh-interval", "interval"),
        Input("auto-refresh", "value"),
        Input("refresh-seconds", "value"),
        State("refresh-seconds", "min"),
        State("refresh-seconds", "max"),
        State("refresh-interval", "interval"),
        # Not at load: the layout's timer is the one of the browser's cookie.
        prevent_initial_call=True,
    )

    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "applyTheme"),
        Output("theme", "data"),
        Input("theme-toggle", "n_clicks"),
        # Not at load: the server wrote the cookie's theme on <html> and in the store.
        prevent_initial_call=True,
    )


def register_shell(app: dash.Dash, router: PageRouter, health: HealthSource) -> None:
    """Routing: the URL decides the page (``router``); a page is rebuilt only when its path or
    train_id changes, so controls that write other URL parameters keep their state and
    focus. The loader banner follows the auto refresh, the Refresh button and the moves to
    another page (with auto refresh off, it would otherwise stay as the first page drew it)."""

    app.callback(
        Output("loader-banner", "children"),
        Output("loader-banner", "hidden"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("url", "pathname"),
        prevent_initial_call=True,
    )(functools.partial(refresh_banner, health))
    # One callback (not a route store feeding a render callback): a page costs one round trip.
    # Not called on load: the layout holds the page of the ``Referer`` (or, without one, the
    # location's first pathname fires this callback when it mounts).
    app.callback(
        Output("page", "children"),
        Output("route", "data"),
        Input("url", "pathname"),
        Input("url", "search"),
        State("route", "data"),
        prevent_initial_call=True,
    )(router.follow)

    follow_window_address(app)
    _register_settings(app)
    run_colours.register_run_dots(app)
    i18n.register(app)
    # Not at load: the layout marks the page's link (top_bar). A layout built without the
    # page's address gets it when the location mounts, a change that calls this anyway. (A
    # call at load marked the menu "loading" and back, the page's last changes.)
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "markActiveNav"),
        Output("nav", "title"),
        Input("url", "pathname"),
        State("nav", "id"),
        prevent_initial_call=True,
    )
