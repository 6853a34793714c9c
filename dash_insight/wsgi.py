"""WSGI entry point for running dash-insight under any WSGI server, e.g. several workers::

    DASH_INSIGHT_SUMMARY_BASE_DIR=/data/summaries gunicorn -w 4 -b 127.0.0.1:8080 \\
        'dash_insight.wsgi:application'

Settings come from the environment: ``DASH_INSIGHT_SUMMARY_BASE_DIR`` (required),
``DASH_INSIGHT_WORKSPACE`` (default ``~/dash-insight``), ``DASH_INSIGHT_RELOAD_INTERVAL``
(seconds, default 3), ``DASH_INSIGHT_MAX_DEPTH``, ``DASH_INSIGHT_SAMPLES_PER_PLUGIN``,
``DASH_INSIGHT_URL_BASE_PATHNAME`` (default ``/``). Every worker has a loader thread; they share
the index in the workspace through a file lock, so one of them reads the logs at a time (another
takes over if it dies) and all of them answer from the same index.
"""

from __future__ import annotations

import os

from .app import create_app
from .data.sampling import parse_samples_per_plugin


def _application():  # returns the Flask server of the app
    environ = os.environ
    base = environ.get("DASH_INSIGHT_SUMMARY_BASE_DIR")
    if not base:
        raise RuntimeError("set DASH_INSIGHT_SUMMARY_BASE_DIR to the summary base directory")
    samples = environ.get("DASH_INSIGHT_SAMPLES_PER_PLUGIN")
    depth = environ.get("DASH_INSIGHT_MAX_DEPTH")
    app = create_app(
        base,
        url_base_pathname=environ.get("DASH_INSIGHT_URL_BASE_PATHNAME", "/"),
        workspace=os.path.expanduser(environ.get("DASH_INSIGHT_WORKSPACE", "~/dash-insight")),
        reload_interval=float(environ.get("DASH_INSIGHT_RELOAD_INTERVAL", "3")),
        max_depth=int(depth) if depth else None,
        samples_per_plugin=parse_samples_per_plugin(samples) if samples else None,
    )
    return app.server


application = _application()
