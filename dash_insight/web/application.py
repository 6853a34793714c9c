"""The composition root: ``create_app`` builds dash-insight from the plugins listed here.

This is the only module that imports every plugin. Adding a kind of data is one folder under
``dash_insight/plugins/`` and one line in :data:`PLUGINS`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dash
import flask
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from dash_insight.core.service import DataService
from dash_insight.core.settings import DEFAULT_RELOAD_INTERVAL, DEFAULT_WORKSPACE, Settings
from dash_insight.plugins.graphs.plugin import PLUGIN as GRAPHS
from dash_insight.plugins.histograms.plugin import PLUGIN as HISTOGRAMS
from dash_insight.plugins.images.plugin import PLUGIN as IMAGES
from dash_insight.plugins.jobs import landing as jobs_landing
from dash_insight.plugins.jobs.plugin import PLUGIN as JOBS
from dash_insight.plugins.landscape.plugin import PLUGIN as LANDSCAPE
from dash_insight.plugins.lineage.plugin import PLUGIN as LINEAGE
from dash_insight.plugins.profiler.plugin import PLUGIN as PROFILER
from dash_insight.plugins.scalars.plugin import PLUGIN as SCALARS
from dash_insight.plugins.tensors.plugin import PLUGIN as TENSORS
from dash_insight.web import (
    access_log,
    asset_cache,
    body_limit,
    compression,
    dash_requests,
    dashboard,
    errors,
    first_paint,
    host_check,
    operations,
    shell,
    warm_up,
)
from dash_insight.web import i18n as web_i18n
from dash_insight.web.components import compare_tabs
from dash_insight.web.http import (
    API_PREFIX,
    EXPORT_PREFIX,
    api_blueprint,
    json_response,
    unreachable_response,
)
from dash_insight.web.http import SECURITY_HEADERS as REST_SECURITY_HEADERS
from dash_insight.web.plugin import NavLink, Page, Plugin, Route

#: Every feature, in the order of the training dashboard's cards.
PLUGINS: tuple[Plugin[Any], ...] = (
    JOBS,
    SCALARS,
    HISTOGRAMS,
    TENSORS,
    GRAPHS,
    IMAGES,
    LANDSCAPE,
    LINEAGE,
    PROFILER,
)

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


def dash_assets() -> dict[str, Any]:
    """The ``dash.Dash`` keyword arguments for the product's assets: the folder
    (:func:`assets_folder`) without ``assets/inline/``, whose scripts the pages hold inline
    (:mod:`dash_insight.web.first_paint`) and which must never run as Dash's script tags."""
    return {
        "assets_folder": assets_folder(),
        "assets_path_ignore": [f"^{first_paint.INLINE_FOLDER}$"],
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
    def build(cls, data: DataService, plugins: Iterable[Plugin[Any]] = PLUGINS) -> Features:
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


def page_paths(plugins: Iterable[Plugin[Any]] = PLUGINS) -> list[str]:
    """The path of every page (below the app's prefix): each plugin's pages and the training
    dashboard, as :meth:`Features.pages` registers them."""
    return [page.path for plugin in plugins for page in plugin.pages] + [dashboard.PATH]


def create_app(
    summary_base_dir: str | os.PathLike[str],
    server: flask.Flask | bool | None = None,
    url_base_pathname: str = "/",
    *,
    workspace: str | os.PathLike[str] | None = None,
    reload_interval: float = DEFAULT_RELOAD_INTERVAL,
    max_depth: int | None = None,
    samples_per_plugin: Mapping[str, int] | None = None,
    start_loader: bool = True,
    warm_up_pages: bool = True,
    title: str = "dash-insight",
    settings: Settings | None = None,
    requests_pathname_prefix: str | None = None,
    frame_ancestors: Sequence[str] = SAME_ORIGIN,
) -> dash.Dash:
    """The dash-insight Dash app for ``summary_base_dir``.

    ``server``: an existing Flask app to mount on (the REST API is mounted under the same
    ``url_base_pathname``), or None to create one. ``reload_interval`` seconds between
    reloads (0 = load once); the index lives in ``workspace`` (default ``~/dash-insight``).
    ``settings`` (from :meth:`Settings.from_args` / :meth:`Settings.from_env`) replaces the
    keyword arguments. The data service is ``app.data_service``; ``start_loader=False`` leaves
    loading to the caller (``app.data_service.loader.load_round()``). ``warm_up_pages``: import
    what only the pages need (pandas) in the background once the first request is answered
    (:mod:`dash_insight.web.warm_up`); False leaves it to the first layout or callback request.
    A host process that builds plotly figures in threads of its own calls
    ``app.warm_up.wait()`` first. Requests below
    ``url_base_pathname`` get a request id and a line in ``<workspace>/log/access.<port>.log``
    (``app.access_log``, :mod:`dash_insight.web.access_log`).

    ``requests_pathname_prefix``: the path the browser uses when a proxy that strips a prefix
    stands in front (JupyterHub's ``/user/<name>/proxy/<port>/``): it must end with
    ``url_base_pathname``, which stays the path the server sees. ``frame_ancestors``: see
    :func:`security_headers`.
    """
    if settings is None:
        settings = Settings(
            summary_base_dir=os.fspath(summary_base_dir),
            workspace=os.fspath(workspace) if workspace is not None else DEFAULT_WORKSPACE,
            reload_interval=reload_interval,
            max_depth=max_depth,
            samples_per_plugin=dict(samples_per_plugin or {}),
            url_base_pathname=url_base_pathname,
        )
    prefix = settings.url_base_pathname
    data = DataService(settings)
    features = Features.build(data)
    # Dash takes a Flask app as ``server`` (documented), though its annotation names only bool
    # and callables.
    host: Any = server if server not in (None, True) else access_log.Server(__name__)
    if requests_pathname_prefix is None:
        prefixes: dict[str, Any] = {"url_base_pathname": prefix}
    else:
        prefixes = {
            "routes_pathname_prefix": prefix,
            "requests_pathname_prefix": requests_pathname_prefix,
        }
    app = dash.Dash(
        __name__,
        server=host,
        **prefixes,
        **dash_assets(),
        title=title,
        update_title="",  # the tab title stays while callbacks run
        suppress_callback_exceptions=True,  # pages are built per URL
    )
    pages = features.pages()
    router = shell.PageRouter(app, pages)
    app.layout = shell.shell_layout(app, features.nav(), router, data.loader_health)
    compare_tabs.install(app, features.compare_tabs())
    shell.register_shell(app, router, data.loader_health)
    painted = first_paint.install(app, features.nav(), router.first_paint, shell.top_bar)
    for page, service in pages:
        page.register(app, service)
    app.server.register_blueprint(
        api_blueprint(features.routes()), url_prefix=prefix.rstrip("/") or None
    )
    for error_type in data.unreachable_errors:  # a page's callback during a Redis outage
        app.server.register_error_handler(error_type, unreachable_response)
    app.request_metrics = operations.install(app.server, prefix, data)  # type: ignore[attr-defined]
    _add_security_headers(
        app.server,
        prefix,
        lambda: security_headers(frame_ancestors, page_script_sources(app, painted)),
    )
    asset_cache.install(app.server, prefix + app.config.assets_url_path.strip("/") + "/")
    host_check.install(app.server, settings, prefix)
    jobs_landing.install(app, data.provider)  # after the host check
    web_i18n.install(app, settings)
    body_limit.install(app.server, prefix)  # before any hook that reads a body
    dash_requests.install(app, prefix)
    pages_warm_up = warm_up.WarmUp()
    pages_warm_up.install(app.server, prefix, start_after_first_answer=warm_up_pages)
    _answer_other_methods(app.server, prefix)
    compression.install(app.server, prefix)
    # outermost: every answer is logged, refusals included
    app.access_log = access_log.install(app.server, settings)  # type: ignore[attr-defined]
    app.data_service = data  # type: ignore[attr-defined]
    app.warm_up = pages_warm_up  # type: ignore[attr-defined]
    if start_loader:
        data.start()
    return app


def register_rest_api(
    server: flask.Flask,
    data: DataService,
    *,
    url_prefix: str = "",
    plugins: Sequence[Plugin[Any]] = PLUGINS,
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
