"""The plugin contract: what one feature folder (``dash_insight/plugins/<name>/``) gives the app.

A plugin is one :class:`Plugin` object, exported as ``PLUGIN`` by its package. It names the
service it builds from the :class:`~dash_insight.core.service.DataService` (its caches and
stores: nothing process-wide), its REST routes, its pages, its training-dashboard cards, its
top-bar links, its tabs of the comparison page and anything else it installs on the app's server.
:mod:`dash_insight.default` lists the plugins and is the only module that imports them all;
plugins never import each other, and ``dash_insight.web`` imports none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import dash
from flask import Response

from dash_insight.core.i18n import LazyString
from dash_insight.core.provider import JobSummary
from dash_insight.core.service import DataService

S = TypeVar("S")

#: ``Route.api`` values: MindInsight's API (``/v1/mindinsight``) or dash-insight's own.
MINDINSIGHT_API = "mindinsight"
DASH_INSIGHT_API = "dash-insight"


@dataclass(frozen=True)
class Route:
    """One REST endpoint: ``path`` below the API prefix, a view reading ``flask.request``."""

    path: str
    view: Callable[[], Response]
    methods: tuple[str, ...] = ("GET",)
    api: str = MINDINSIGHT_API


@dataclass(frozen=True)
class Page(Generic[S]):
    """A page at ``path`` below the app's prefix: ``layout(app, service, url parameters)``
    builds it, ``register(app, service)`` adds its callbacks once, ``first_paint`` (optional)
    draws its first screen for the page's own answer."""

    path: str
    layout: Callable[[dash.Dash, S, dict[str, str]], Any]
    register: Callable[[dash.Dash, S], None]
    #: The page's first screen as a tree to send as static HTML before Dash starts
    #: (:mod:`dash_insight.web.first_paint`), same arguments as ``layout``; None: none.
    first_paint: Callable[[dash.Dash, S, dict[str, str]], Any] | None = None
    #: The optional script bundles the page draws with (:mod:`dash_insight.web.page_bundles`:
    #: ``CYTOSCAPE``, ``GRID``, ``PLOTLY``, ``WEBGL``, ``GL3D``); its answer loads no other (no
    #: plotly.js without ``PLOTLY``, ``WEBGL`` or ``GL3D``). None: every bundle.
    bundles: frozenset[str] | None = None
    #: The bundles its first screen needs besides ``bundles`` for the arguments of its URL's
    #: query (first values): a view drawn with plotly.js that is not the page's default.
    query_bundles: Callable[[Mapping[str, str]], frozenset[str]] | None = None


@dataclass(frozen=True)
class CardRequest:
    """What a dashboard card is drawn for: the job, and how often the user asked the card
    for its next tag ("Switch tag")."""

    app: dash.Dash
    job: JobSummary
    turn: int = 0


@dataclass(frozen=True)
class Card(Generic[S]):
    """A training-dashboard card. ``build`` returns (body, footer); a None footer means the job
    has no such data (the body then says how to record it, and the card has no "Open" link)."""

    card_id: str
    #: A :func:`~dash_insight.core.i18n.lazy_gettext` string (shown in the request's language).
    title: str | LazyString
    page: str
    build: Callable[[CardRequest, S], tuple[Any, Any]]


@dataclass(frozen=True)
class NavLink:
    """A top-bar link; links are shown by ``rank``."""

    #: A :func:`~dash_insight.core.i18n.lazy_gettext` string (shown in the request's language).
    label: str | LazyString
    path: str
    rank: int


@dataclass(frozen=True)
class Install(Generic[S]):
    """Something a plugin installs on the app (a request hook, ...): ``install(app, service)``,
    run after the application's installation steps named in ``after``
    (:data:`dash_insight.web.application.STEPS`, e.g. ``"host-check"``)."""

    name: str
    install: Callable[[dash.Dash, S], None]
    after: tuple[str, ...] = ()


def _no_routes(_service: Any) -> Sequence[Route]:
    return ()


@dataclass(frozen=True)
class Plugin(Generic[S]):
    """One feature. ``service(data)`` is built once per app; every route, page and card of the
    plugin gets it."""

    name: str
    service: Callable[[DataService], S]
    routes: Callable[[S], Sequence[Route]] = _no_routes
    pages: Sequence[Page[S]] = ()
    cards: Sequence[Card[S]] = ()
    nav: Sequence[NavLink] = field(default_factory=tuple)
    #: Tabs of the comparison page (one page per tab, e.g. scalars, loss landscapes), by rank.
    compare_tabs: Sequence[NavLink] = field(default_factory=tuple)
    #: What the plugin installs on the app besides its routes and pages, in dependency order.
    installs: Sequence[Install[S]] = ()


def data_service(data: DataService) -> DataService:
    """The service of a plugin that needs nothing beyond the data service itself."""
    return data
