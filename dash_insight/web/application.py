"""Builds the dash-insight app from the plugins it is given (:func:`build_app`).

The plugins themselves are listed above this layer, in :mod:`dash_insight.default` (the
composition root, as TensorBoard's ``default.py``): nothing in ``web`` imports a plugin.
What the app's server gets (request hooks, middleware, blueprints) is a list of :class:`Step`
objects, each naming the steps it must come after; :func:`ordered` sorts them.
"""

from __future__ import annotations

import contextlib
import functools
import html
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import dash
import flask
from plotly.io.json import to_json_plotly
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.web import (
    access_log,
    asset_bundles,
    asset_cache,
    body_limit,
    compression,
    dash_requests,
    dashboard,
    errors,
    first_paint,
    host_check,
    named_views,
    operations,
    page_bundles,
    page_callbacks,
    shell,
    theme,
    warm_up,
)
from dash_insight.web import i18n as web_i18n
from dash_insight.web.components import compare_tabs, lazy_graph
from dash_insight.web.http import (
    API_PREFIX,
    EXPORT_PREFIX,
    api_blueprint,
    json_response,
    unreachable_response,
)
from dash_insight.web.http import SECURITY_HEADERS as REST_SECURITY_HEADERS
from dash_insight.web.plugin import Install, NavLink, Page, Plugin, Route

LOG = logging.getLogger(__name__)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def assets_folder(package_dir: str = _PACKAGE_DIR) -> str:
    """The stylesheets and chart scripts Dash serves under ``/assets/``.

    The repository keeps them in its top-level ``assets/`` folder; the wheel holds that folder as
    ``dash_insight/assets`` (``force-include`` in ``pyproject.toml``). The package's own folder
    wins, so an installed wheel never serves an unrelated ``site-packages/assets``; a checkout
    (or an editable install) has only the top-level one. When neither exists (a broken install)
    the packaged path is returned: the pages still work, unstyled, and the log says why.
    """
    packaged = os.path.join(package_dir, "assets")
    checkout = os.path.join(os.path.dirname(package_dir), "assets")
    for folder in (packaged, checkout):
        if os.path.isdir(folder):
            return folder
    LOG.warning(
        "no assets folder at %s or %s: pages are served without their stylesheets "
        "and chart scripts (reinstall dash-insight)",
        packaged,
        checkout,
    )
    return packaged


#: The folder of ``assets/`` holding third-party scripts loaded on demand (not injected).
VENDOR_FOLDER = "vendor"


def dash_assets() -> dict[str, Any]:
    """The ``dash.Dash`` keyword arguments for the product's assets: the folder
    (:func:`assets_folder`) without ``assets/inline/``, whose scripts the pages hold inline
    (:mod:`dash_insight.web.first_paint`) and which must never run as Dash's script tags, and
    without ``assets/vendor/``, third-party scripts a page loads when it needs them (ELK, the
    graph layout: ``assets/graph-layout.js``)."""
    return {
        "assets_folder": assets_folder(),
        "assets_path_ignore": [f"^{first_paint.INLINE_FOLDER}$", f"^{VENDOR_FOLDER}$"],
    }


#: Who may show the pages in a frame by default: pages of the same origin only.
SAME_ORIGIN = ("'self'",)


def security_headers(
    frame_ancestors: Sequence[str] = SAME_ORIGIN, script_sources: Sequence[str] = ()
) -> dict[str, str]:
    """The headers of every page answer. ``frame_ancestors``: the CSP sources allowed to frame
    the pages (a notebook's output cell frames them from the notebook server's origin);
    ``X-Frame-Options``, which can name no other origin, is sent only for same-origin framing.
    ``script_sources``: the hashes (``'sha256-...'``) of the inline scripts the pages hold
    (:func:`page_script_sources`); scripts run only from the app's origin or by such a hash,
    and none may turn a string into code (no ``'unsafe-inline'``, no ``'unsafe-eval'``:
    plotly.js is its strict build, clientside callbacks are functions in ``assets/``)."""
    scripts = " ".join(("'self'", *script_sources))
    headers = {
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Content-Security-Policy": (
            f"default-src 'self'; script-src {scripts}; "
            # Inline styles stay allowed: plotly.js, cytoscape.js and AG Grid add <style>
            # elements at run time and the first paint's static HTML carries style
            # attributes; a style runs no code.
            "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
            "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
            f"frame-ancestors {' '.join(frame_ancestors)}"
        ),
    }
    if tuple(frame_ancestors) == SAME_ORIGIN:
        headers = {"X-Frame-Options": "SAMEORIGIN", **headers}
    return headers


def page_script_sources(app: dash.Dash, first_paint_sources: Sequence[str]) -> list[str]:
    """The ``script-src`` hashes of every inline script ``app``'s pages hold: Dash's renderer
    start and any clientside callback given as a string (``app.csp_hashes()``, as Dash
    documents), and the first paint's scripts (``first_paint_sources``)."""
    return sorted({*app.csp_hashes(), *first_paint_sources})


SECURITY_HEADERS = security_headers()


@dataclass(frozen=True)
class Features:
    """The plugins of one app with the services built for them."""

    data: DataService
    services: tuple[tuple[Plugin[Any], Any], ...]

    @classmethod
    def build(cls, data: DataService, plugins: Iterable[Plugin[Any]]) -> Features:
        return cls(data, tuple((plugin, plugin.service(data)) for plugin in plugins))

    def routes(self) -> list[Route]:
        return [route for plugin, service in self.services for route in plugin.routes(service)]

    def pages(self) -> list[tuple[Page[Any], Any]]:
        pages = [(page, service) for plugin, service in self.services for page in plugin.pages]
        cards = [(card, service) for plugin, service in self.services for card in plugin.cards]
        pages.append((dashboard.page(self.data.provider, cards), None))
        return pages

    def nav(self) -> list[NavLink]:
        links = [link for plugin, _ in self.services for link in plugin.nav]
        return sorted(links, key=lambda link: link.rank)

    def compare_tabs(self) -> list[NavLink]:
        tabs = [tab for plugin, _ in self.services for tab in plugin.compare_tabs]
        return sorted(tabs, key=lambda tab: tab.rank)

    def installs(self) -> list[tuple[Install[Any], Any]]:
        return [(step, service) for plugin, service in self.services for step in plugin.installs]


def page_paths(plugins: Iterable[Plugin[Any]]) -> list[str]:
    """The path of every page (below the app's prefix): each plugin's pages and the training
    dashboard, as :meth:`Features.pages` registers them."""
    return [page.path for plugin in plugins for page in plugin.pages] + [dashboard.PATH]


class DashInsightApp(dash.Dash):
    """The Dash app :func:`build_app` returns, with what a caller of the app may need."""

    #: The data service (index, loader, provider) of the app's base directory.
    data_service: DataService
    #: The background import of what only the pages need (:mod:`dash_insight.web.warm_up`).
    warm_up: warm_up.WarmUp
    #: The access log every answer below the prefix is written to.
    access_log: access_log.AccessLog
    #: Requests and their latency per route, for ``/metrics`` (:mod:`dash_insight.web.operations`).
    request_metrics: operations.RequestMetrics
    #: Writes each page's index (:mod:`dash_insight.web.first_paint`); None: Dash's own.
    index_page: first_paint.IndexPage | None = None
    #: The script bundles each page loads (:mod:`dash_insight.web.page_bundles`); None: all.
    script_bundles: page_bundles.PageBundles | None = None
    #: The assets' files joined in content-named bundles (:mod:`dash_insight.web.asset_bundles`);
    #: None: each file linked as Dash links it.
    asset_bundles: asset_bundles.AssetBundles | None = None
    #: The callbacks of each page (:mod:`dash_insight.web.page_callbacks`); None: every
    #: callback in every page's document.
    page_callbacks: page_callbacks.PageCallbacks | None = None

    def dependencies(self) -> Any:
        """Dash's ``_dash-dependencies`` answer with the callbacks of the requesting page only
        (:attr:`page_callbacks`)."""
        if self.page_callbacks is None:
            return super().dependencies()
        return self.backend.make_response(
            to_json_plotly(self.page_callbacks.for_request(self._callback_list)),
            content_type="application/json",
        )

    def interpolate_index(
        self,
        metas: str = "",
        title: str = "",
        css: str = "",
        config: str = "",
        scripts: str = "",
        app_entry: str = "",
        favicon: str = "",
        renderer: str = "",
    ) -> str:
        """The page Dash answers a page URL with (overridden as Dash documents): written by
        :attr:`index_page`, its ``<html>`` carrying the request's language and theme; only the
        script bundles the page needs (:attr:`script_bundles`); the assets in their bundles
        (:attr:`asset_bundles`) unless Dash's hot reload is on (it reloads each file)."""
        extra: dict[str, str] = {}
        bundles = page_bundles.ALL
        if self.asset_bundles is not None and not self._dev_tools.get("hot_reload"):
            # Before the selection: each run of assets it rewrites is kept or left whole.
            scripts = self.asset_bundles.rewrite(scripts, "js")
            css = self.asset_bundles.rewrite(css, "css")
        if self.script_bundles is not None and flask.has_request_context():
            query = flask.request.args.to_dict(flat=True)
            pathname = first_paint.request_pathname(self)
            bundles = self.script_bundles.of(pathname, query)
            plotly = page_bundles.script_source(scripts, page_bundles.CARTESIAN_SCRIPT)
            # A document with one plugin's callbacks draws that plugin's pages only.
            drawable = (
                None
                if self.page_callbacks is None
                else self.page_callbacks.drawable(self.script_bundles.locate(pathname))
            )
            later = {page_bundles.GRID: page_bundles.bundle_sources(scripts, page_bundles.GRID)}
            extra["data-page-bundles"] = self.script_bundles.html_attribute(
                bundles, plotly, drawable, later
            )
        scripts = page_bundles.select(scripts, bundles)
        parts = {
            "metas": metas,
            "title": title,
            "css": css,
            "config": config,
            "scripts": scripts,
            "app_entry": app_entry,
            "favicon": favicon,
            "renderer": renderer,
        }
        if self.index_page is None:
            return str(super().interpolate_index(**parts))
        return self.index_page.render(parts, html_attributes(extra))


def html_attributes(extra: Mapping[str, str] | None = None) -> str:
    """The attributes of the ``<html>`` element of the page being answered: its language and,
    when not the default one, the theme of the browser's cookie (so a dark page is dark from
    its first paint); then ``extra``."""
    attributes = {"lang": web_i18n.html_lang()}
    if theme.request_theme() != theme.DEFAULT_THEME:
        attributes["data-theme"] = theme.request_theme()
    attributes.update(extra or {})
    return "".join(f' {name}="{html.escape(value)}"' for name, value in attributes.items())


@dataclass
class Build:
    """What the installation steps of one app share: the app, its settings, its plugins with
    their services, and what one step leaves for a later one."""

    app: DashInsightApp
    settings: Settings
    features: Features
    router: shell.PageRouter
    frame_ancestors: Sequence[str]
    warm_up_pages: bool
    #: The ``script-src`` hashes of the first paint's inline scripts (set by "first-paint").
    first_paint_sources: tuple[str, ...] = ()
    pages_warm_up: warm_up.WarmUp = field(default_factory=warm_up.WarmUp)

    @property
    def prefix(self) -> str:
        return self.settings.url_base_pathname


#: A step name that :attr:`Step.after` may give to come after every other step.
EVERY_OTHER_STEP = "*"


@dataclass(frozen=True)
class Step:
    """One thing installed on the app: ``install(build)`` runs after every step named in
    ``after`` (:data:`EVERY_OTHER_STEP`: after all of them)."""

    name: str
    install: Callable[[Build], None]
    after: tuple[str, ...] = ()


class StepOrderError(ValueError):
    """The steps' ``after`` names a step that does not exist, or the steps wait on each other."""


def ordered(steps: Sequence[Step]) -> list[Step]:
    """``steps`` sorted so that each comes after the steps it names (a topological sort);
    steps without such a constraint between them keep their given order."""
    names = [step.name for step in steps]
    if len(set(names)) != len(names):
        raise StepOrderError(f"two steps share a name: {names}")
    waits: dict[str, set[str]] = {}
    for step in steps:
        if EVERY_OTHER_STEP in step.after:
            waits[step.name] = set(names) - {step.name}
            continue
        unknown = set(step.after) - set(names)
        if unknown:
            raise StepOrderError(f"step {step.name!r} comes after unknown {sorted(unknown)}")
        waits[step.name] = set(step.after)
    done: list[Step] = []
    left = list(steps)
    while left:
        ready = next((s for s in left if waits[s.name] <= {d.name for d in done}), None)
        if ready is None:
            raise StepOrderError(f"steps wait on each other: {[s.name for s in left]}")
        done.append(ready)
        left.remove(ready)
    return done


def _install_pages(build: Build) -> None:
    app, features = build.app, build.features
    compare_tabs.install(app, features.compare_tabs())
    shell.register_shell(app, build.router, build.features.data.loader_health)
    named_views.register(app, build.features.data.named_views)
    # Drawn by pages of several plugins: registered with the frame's callbacks, which every
    # page's document gets (page_callbacks), not with the first page that draws one.
    lazy_graph.register_lazy_graphs(app)
    plugin_of = {page.path: plugin.name for plugin, _ in features.services for page in plugin.pages}
    groups: dict[str, list[tuple[str, Callable[[], None]]]] = {}
    for path, (page, service) in build.router.by_path.items():
        register = functools.partial(page.register, app, service)
        groups.setdefault(plugin_of.get(path, path), []).append((path, register))
    owned = page_callbacks.by_page(app, groups.values())
    app.page_callbacks = page_callbacks.PageCallbacks(owned, build.router.referred_page)


def _install_first_paint(build: Build) -> None:
    page = first_paint.install(
        build.app, build.features.nav(), build.router.first_paint, shell.top_bar
    )
    build.app.index_page = page
    build.first_paint_sources = page.csp_sources()


def _install_page_bundles(build: Build) -> None:
    app, router = build.app, build.router
    app.script_bundles = page_bundles.PageBundles(
        {path: page.bundles for path, (page, _service) in router.by_path.items()},
        lambda pathname: router.locate(pathname, None)[0],
        app.get_relative_path,
        {
            path: page.query_bundles
            for path, (page, _service) in router.by_path.items()
            if page.query_bundles is not None
        },
    )


def _install_asset_bundles(build: Build) -> None:
    app = build.app
    bundles = asset_bundles.AssetBundles(
        app.config.assets_folder,
        lambda url: not page_bundles.wanted(url, frozenset()),
        app.get_asset_url,
    )
    app.asset_bundles = bundles
    rule = f"{app.config.routes_pathname_prefix}{app.config.assets_url_path.strip('/')}/"
    app.server.add_url_rule(
        f"{rule}{asset_bundles.NAME_PREFIX}<name>",
        endpoint=f"dash_insight_asset_bundles{rule}",
        view_func=lambda name: bundles.answer(asset_bundles.NAME_PREFIX + name),
    )


def _install_rest(build: Build) -> None:
    build.app.server.register_blueprint(
        api_blueprint(
            [*build.features.routes(), *named_views.routes(build.features.data.named_views)]
        ),
        url_prefix=build.prefix.rstrip("/") or None,
    )


def _install_unreachable_errors(build: Build) -> None:
    """A page's callback during a Redis outage: 503 with Retry-After, not a traceback."""
    for error_type in build.features.data.unreachable_errors:
        build.app.server.register_error_handler(error_type, unreachable_response)


def _install_operations(build: Build) -> None:
    build.app.request_metrics = operations.install(
        build.app.server, build.prefix, build.features.data
    )


def _install_security_headers(build: Build) -> None:
    app = build.app
    _add_security_headers(
        app.server,
        build.prefix,
        lambda: security_headers(
            build.frame_ancestors, page_script_sources(app, build.first_paint_sources)
        ),
    )


def _install_asset_cache(build: Build) -> None:
    app = build.app
    asset_cache.install(app.server, build.prefix + app.config.assets_url_path.strip("/") + "/")


def _install_warm_up(build: Build) -> None:
    build.pages_warm_up.install(
        build.app.server, build.prefix, start_after_first_answer=build.warm_up_pages
    )


def _install_access_log(build: Build) -> None:
    build.app.access_log = access_log.install(build.app.server, build.settings)


#: What every app gets, in the order its independent parts are installed; ``after`` says which
#: order matters. Flask runs ``before_request`` hooks in the order they were added (a refusal
#: answered by one stops the rest) and ``after_request`` hooks in the reverse order.
STEPS: tuple[Step, ...] = (
    Step("pages", _install_pages),
    # its inline scripts' hashes go into the security headers
    Step("first-paint", _install_first_paint),
    Step("page-bundles", _install_page_bundles),
    Step("asset-bundles", _install_asset_bundles),
    Step("rest", _install_rest),
    Step("unreachable-errors", _install_unreachable_errors),
    # /healthz, /readyz, /metrics; its clock starts before any other hook answers
    Step("operations", _install_operations),
    Step("security-headers", _install_security_headers, after=("first-paint",)),
    Step("asset-cache", _install_asset_cache),
    # refuses a wrong Host before any other hook answers (a redirect would name a job)
    Step("host-check", lambda b: host_check.install(b.app.server, b.settings, b.prefix)),
    Step("i18n", lambda b: web_i18n.install(b.app, b.settings), after=("host-check",)),
    # before any hook that reads a body
    Step("body-limit", lambda b: body_limit.install(b.app.server, b.prefix), after=("host-check",)),
    Step(
        "dash-requests",
        lambda b: dash_requests.install(b.app, b.prefix),
        after=("body-limit", "i18n"),
    ),
    Step("warm-up", _install_warm_up, after=("host-check", "dash-requests")),
    Step("other-methods", lambda b: _answer_other_methods(b.app.server, b.prefix)),
    Step("compression", lambda b: compression.install(b.app.server, b.prefix)),
    # the outermost middleware: every answer is logged, refusals included
    Step("access-log", _install_access_log, after=(EVERY_OTHER_STEP,)),
)


def plugin_steps(features: Features) -> list[Step]:
    """The plugins' own installation steps (:class:`~dash_insight.web.plugin.Install`), each
    given its plugin's service."""

    def step(install: Install[Any], service: Any) -> Step:
        return Step(install.name, lambda b: install.install(b.app, service), install.after)

    return [step(install, service) for install, service in features.installs()]


def build_app(
    settings: Settings,
    plugins: Sequence[Plugin[Any]],
    server: flask.Flask | None = None,
    *,
    start_loader: bool = True,
    warm_up_pages: bool = True,
    title: str = "dash-insight",
    requests_pathname_prefix: str | None = None,
    frame_ancestors: Sequence[str] = SAME_ORIGIN,
) -> DashInsightApp:
    """The dash-insight Dash app of ``plugins`` over ``settings``' base directory; see
    :func:`dash_insight.default.create_app`, which gives it the default plugins."""
    prefix = settings.url_base_pathname
    data = DataService(settings)
    features = Features.build(data, plugins)
    # Dash takes a Flask app as ``server`` (documented), though its annotation names only bool
    # and callables.
    host: Any = server if server is not None else access_log.Server(__name__)
    if requests_pathname_prefix is None:
        prefixes: dict[str, Any] = {"url_base_pathname": prefix}
    else:
        prefixes = {
            "routes_pathname_prefix": prefix,
            "requests_pathname_prefix": requests_pathname_prefix,
        }
    app = DashInsightApp(
        __name__,
        server=host,
        **prefixes,
        **dash_assets(),
        title=title,
        update_title="",  # the tab title stays while callbacks run
        # the lazily loaded chunks of the component libraries written as scripts too, for
        # page_bundles.select to keep those a page's first screen draws
        eager_loading=True,
        suppress_callback_exceptions=True,  # pages are built per URL
    )
    app.data_service = data
    router = shell.PageRouter(app, features.pages())
    app.layout = shell.shell_layout(app, features.nav(), router, data.loader_health)
    build = Build(app, settings, features, router, frame_ancestors, warm_up_pages)
    for step in ordered([*STEPS, *plugin_steps(features)]):
        step.install(build)
    app.warm_up = build.pages_warm_up
    if start_loader:
        data.start()
    return app


def register_rest_api(
    server: flask.Flask,
    data: DataService,
    plugins: Sequence[Plugin[Any]],
    *,
    url_prefix: str = "",
) -> flask.Blueprint:
    """Mount only the REST API of ``plugins`` over ``data`` on ``server`` below ``url_prefix``
    ("" = at the root: ``/v1/mindinsight/...`` and ``/v1/dash-insight/...``); returns the
    blueprint."""
    blueprint = api_blueprint(Features.build(data, plugins).routes())
    server.register_blueprint(blueprint, url_prefix=url_prefix.rstrip("/") or None)
    return blueprint


def _add_security_headers(
    server: flask.Flask, prefix: str, added: Callable[[], Mapping[str, str]]
) -> None:
    """Headers on every response under our prefix (not on the host app's other routes).
    ``added()`` gives them; it is called once, at the first such response, when every callback
    (and so every inline script whose hash the CSP names) is registered."""
    once = functools.cache(added)

    @server.after_request
    def headers(response: Any) -> Any:
        if flask.request.path.startswith(prefix):
            for name, value in once().items():
                response.headers.setdefault(name, value)
        return response


def _answer_other_methods(server: flask.Flask, prefix: str) -> None:
    """A method no route knows (``TRACE``, ``PROPFIND``, ...) on a REST path gets MindInsight's
    JSON 405 with the REST headers and the path's real ``Allow`` (or its 404 when no route has
    the path), like every other method; Flask's routing would answer an HTML 405 listing the
    catch-all's methods, before the REST blueprint sees the request."""
    rest = tuple(prefix.rstrip("/") + api for api in (API_PREFIX, EXPORT_PREFIX))

    @server.errorhandler(MethodNotAllowed)
    def method_not_allowed(error: MethodNotAllowed) -> Any:
        if not flask.request.path.startswith(rest):
            return error
        adapter = server.url_map.bind_to_environ(flask.request.environ)
        allowed = set()
        for method in error.valid_methods or ():
            with contextlib.suppress(HTTPException):
                rule, _ = adapter.match(method=method, return_rule=True)
                if not rule.endpoint.endswith(("not_found", "not_found_root")):
                    allowed.add(method)
        if allowed:
            response = json_response(errors.method_not_allowed().to_dict(), 405)
            response.headers["Allow"] = ", ".join(sorted(allowed | {"OPTIONS"}))
        else:
            response = json_response(errors.api_not_exist().to_dict(), 404)
        response.headers.update(REST_SECURITY_HEADERS)
        return response
