"""The composition root: the default plugins and :func:`create_app`, which builds the app
from them (as TensorBoard's ``default.py`` lists its plugins for its ``application.py``).

This is the only module that imports every plugin; it sits above ``dash_insight.web`` and
``dash_insight.plugins`` (import-linter's layers in ``pyproject.toml``). Adding a kind of data is
one folder under ``dash_insight/plugins/`` and one line in :data:`DEFAULT_PLUGINS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flask

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.graphs.plugin import PLUGIN as GRAPHS
from dash_insight.plugins.histograms.plugin import PLUGIN as HISTOGRAMS
from dash_insight.plugins.images.plugin import PLUGIN as IMAGES
from dash_insight.plugins.jobs.plugin import PLUGIN as JOBS
from dash_insight.plugins.landscape.plugin import PLUGIN as LANDSCAPE
from dash_insight.plugins.lineage.plugin import PLUGIN as LINEAGE
from dash_insight.plugins.profiler.plugin import PLUGIN as PROFILER
from dash_insight.plugins.scalars.plugin import PLUGIN as SCALARS
from dash_insight.plugins.tensors.plugin import PLUGIN as TENSORS
from dash_insight.web import application
from dash_insight.web.application import SAME_ORIGIN, DashInsightApp
from dash_insight.web.plugin import Plugin

#: Every feature, in the order of the training dashboard's cards.
DEFAULT_PLUGINS: tuple[Plugin[Any], ...] = (
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


def create_app(
    settings: Settings,
    plugins: Sequence[Plugin[Any]] = DEFAULT_PLUGINS,
    server: flask.Flask | None = None,
    *,
    start_loader: bool = True,
    warm_up_pages: bool = True,
    title: str = "dash-insight",
    requests_pathname_prefix: str | None = None,
    frame_ancestors: Sequence[str] = SAME_ORIGIN,
) -> DashInsightApp:
    """The dash-insight Dash app of ``plugins`` over the base directory of ``settings``
    (``Settings(summary_base_dir=..., workspace=..., reload_interval=...)``, or
    :meth:`Settings.from_args` / :meth:`Settings.from_env`).

    ``server``: an existing Flask app to mount on (the REST API is mounted under the same
    ``settings.url_base_pathname``), or None to create one. The data service is
    ``app.data_service``; ``start_loader=False`` leaves loading to the caller
    (``app.data_service.loader.load_round()``). ``warm_up_pages``: import what only the pages
    need (pandas) in the background once the first request is answered
    (:mod:`dash_insight.web.warm_up`); False leaves it to the first layout or callback request.
    A host process that builds plotly figures in threads of its own calls
    ``app.warm_up.wait()`` first. Requests below the prefix get a request id and a line in
    ``<workspace>/log/access.<port>.log`` (``app.access_log``,
    :mod:`dash_insight.web.access_log`).

    ``requests_pathname_prefix``: the path the browser uses when a proxy that strips a prefix
    stands in front (JupyterHub's ``/user/<name>/proxy/<port>/``): it must end with
    ``url_base_pathname``, which stays the path the server sees. ``frame_ancestors``: see
    :func:`dash_insight.web.application.security_headers`.
    """
    return application.build_app(
        settings,
        plugins,
        server,
        start_loader=start_loader,
        warm_up_pages=warm_up_pages,
        title=title,
        requests_pathname_prefix=requests_pathname_prefix,
        frame_ancestors=frame_ancestors,
    )


def page_paths(plugins: Sequence[Plugin[Any]] = DEFAULT_PLUGINS) -> list[str]:
    """The path of every page (below the app's prefix) of an app of ``plugins``."""
    return application.page_paths(plugins)


def register_rest_api(
    server: flask.Flask,
    data: DataService,
    *,
    url_prefix: str = "",
    plugins: Sequence[Plugin[Any]] = DEFAULT_PLUGINS,
) -> flask.Blueprint:
    """Mount only the REST API of ``plugins`` over ``data`` on ``server`` below ``url_prefix``
    ("" = at the root); returns the blueprint."""
    return application.register_rest_api(server, data, plugins, url_prefix=url_prefix)
