"""``create_app``: the Dash app of dash-insight, standalone or mounted in a Flask service."""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import dash
import flask

from ..data.service import DataService
from . import pages as pages_package
from . import shell
from .pages import not_found

ASSETS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "assets")


def page_modules() -> list[ModuleType]:
    """Every module of ``app/pages`` that is a page: it defines ``PATH`` (its URL below the
    app's prefix), ``layout(app, service, params)`` and ``register(app, service)``."""
    found = []
    for info in sorted(pkgutil.iter_modules(pages_package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{pages_package.__name__}.{info.name}")
        if hasattr(module, "PATH"):
            found.append(module)
    return found


SECURITY_HEADERS = {
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    # Dash renders inline bootstrap scripts and plotly.js evaluates generated code.
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'self'"
    ),
}


def create_app(
    summary_base_dir: str | os.PathLike[str],
    server: flask.Flask | bool | None = None,
    url_base_pathname: str = "/",
    *,
    workspace: str | os.PathLike[str] | None = None,
    reload_interval: float = 3.0,
    max_depth: int | None = None,
    samples_per_plugin: Mapping[str, int] | None = None,
    start_loader: bool = True,
    title: str = "dash-insight",
) -> dash.Dash:
    """The dash-insight Dash app for ``summary_base_dir``.

    ``server``: an existing Flask app to mount on (the REST API is mounted under the same
    ``url_base_pathname``), or None to create one. ``reload_interval`` seconds between
    reloads (0 = load once); the index lives in ``workspace`` (default ``~/dash-insight``).
    The data service is ``app.data_service``; ``start_loader=False`` leaves loading to the
    caller (``app.data_service.loader.load_round()``).
    """
    if not url_base_pathname.startswith("/") or not url_base_pathname.endswith("/"):
        raise ValueError("url_base_pathname must start and end with '/'")
    service = DataService(summary_base_dir, workspace=workspace,
                          reload_interval=reload_interval, max_depth=max_depth,
                          samples_per_plugin=samples_per_plugin)
    app = dash.Dash(
        __name__,
        server=server if server is not None else True,
        url_base_pathname=url_base_pathname,
        assets_folder=ASSETS,
        title=title,
        update_title=None,
        suppress_callback_exceptions=True,  # pages are built per URL
    )
    app.layout = shell.shell_layout(app)
    modules = page_modules()
    pages = {module.PATH: (module.layout, module.__name__) for module in modules}
    shell.register_shell(app, pages, not_found.layout, service)
    for module in modules:
        module.register(app, service)
    _mount_rest_api(app, service, url_base_pathname)
    _add_security_headers(app.server, url_base_pathname)
    app.data_service = service  # type: ignore[attr-defined]
    if start_loader:
        service.start()
    return app


def _mount_rest_api(app: dash.Dash, service: DataService, prefix: str) -> None:
    from ..api.rest import register_rest_api

    register_rest_api(app.server, service.provider, url_prefix=prefix.rstrip("/"),
                      summary_base_dir_name=service.name)


def _add_security_headers(server: flask.Flask, prefix: str) -> None:
    """Headers on every response under our prefix (not on the host app's other routes)."""

    @server.after_request
    def headers(response: Any) -> Any:
        if flask.request.path.startswith(prefix):
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
        return response
