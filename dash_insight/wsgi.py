"""WSGI entry point for running dash-insight under any WSGI server, e.g. several workers::

    DASH_INSIGHT_SUMMARY_BASE_DIR=/data/summaries gunicorn -w 4 --threads 8 \\
        -b 127.0.0.1:8080 'dash_insight.wsgi:application'

(threads, because a sync worker is blocked by one slow request).

Settings come from the ``DASH_INSIGHT_*`` environment over the config file
``$DASH_INSIGHT_CONFIG`` (:meth:`dash_insight.core.settings.Settings.from_env`):
``DASH_INSIGHT_SUMMARY_BASE_DIR`` (required, here or in the config file),
``DASH_INSIGHT_WORKSPACE`` (default ``~/dash-insight``), ``DASH_INSIGHT_RELOAD_INTERVAL``
(seconds, default 3), ``DASH_INSIGHT_MAX_DEPTH``, ``DASH_INSIGHT_SAMPLES_PER_PLUGIN``,
``DASH_INSIGHT_URL_BASE_PATHNAME`` (default ``/``), ``DASH_INSIGHT_ALLOWED_HOSTS`` (host names
besides IP addresses and ``localhost`` that requests may carry in ``Host``: the workers do not
know the address the WSGI server binds), ... validated as the command line validates them. The
port (for the process title and the access log's name) is the one the worker listens on unless
``DASH_INSIGHT_PORT`` or the config file gives it. Every worker has a loader thread; they share
the index in the workspace through a file lock, so one of them reads the logs at a time
(another takes over if it dies) and all of them answer from the same index.
"""

from __future__ import annotations

import sys

from dash_insight.web.lean_import import import_dash_without_notebook_support

import_dash_without_notebook_support()  # before anything imports Dash

import flask  # noqa: E402

from dash_insight.core.memory import return_large_buffers  # noqa: E402
from dash_insight.core.runtime import announce, listening_ports  # noqa: E402
from dash_insight.core.settings import DEFAULT_SOURCE, Settings  # noqa: E402
from dash_insight.default import create_app  # noqa: E402


def _application() -> flask.Flask:
    settings = Settings.from_env()
    settings.checked_base_dir()
    ports = listening_ports()
    if settings.source("port") == DEFAULT_SOURCE and len(ports) == 1:
        settings = settings.replace(source="the socket this worker listens on", port=ports[0])
    announce(settings, "gunicorn" if "gunicorn" in sys.modules else "wsgi")
    return_large_buffers()  # before the loader and the request threads start
    server: flask.Flask = create_app(settings).server
    return server


application = _application()
