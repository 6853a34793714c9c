"""Serve dash-insight in the foreground with waitress, a production WSGI server.

``dash-insight start`` runs ``python -m dash_insight.server ...`` in the background; ``python
app.py`` runs the same in the foreground. For several worker processes, run any WSGI server on
``dash_insight.wsgi:application`` (see README); their loaders share the index. Settings come
from the command line, the ``DASH_INSIGHT_*`` environment and a config file, in that order
(:mod:`dash_insight.core.settings`); the running server names itself in its process title and
exports its settings (:func:`dash_insight.core.runtime.announce`).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import NoReturn

import waitress

from dash_insight.web.lean_import import import_dash_without_notebook_support

import_dash_without_notebook_support()  # before anything imports Dash

from dash_insight.core.runtime import announce, retire  # noqa: E402
from dash_insight.core.service import DataService  # noqa: E402
from dash_insight.core.settings import Settings, SettingsError, bind_problem  # noqa: E402
from dash_insight.core.store.loader import LOADER_THREAD  # noqa: E402
from dash_insight.web.application import create_app  # noqa: E402


def _launcher() -> str:
    """Who started this process, for ``dash-insight status``."""
    script = os.path.basename(sys.argv[0]) if sys.argv else ""
    return "app.py" if script == "app.py" else "python -m dash_insight.server"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dash_insight.server",
                                     description="Serve dash-insight in the foreground.")
    Settings.add_arguments(parser)
    parser.add_argument("--launcher", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    try:
        settings = Settings.from_args(args)
        base = settings.checked_base_dir()
    except SettingsError as error:
        parser.exit(2, f"dash-insight: {error}\n")
    problem = bind_problem(settings.host, settings.port)
    if problem is not None:
        parser.exit(1, f"dash-insight: {problem}\n")
    if not settings.is_local:
        logging.warning("listening on %s: anyone who can reach this address can read the "
                        "summaries (dash-insight has no login)", settings.host)
    record = announce(settings, args.launcher or _launcher())
    app = create_app(base, settings=settings)

    def stop(signum: int, _frame: FrameType | None) -> None:
        retire(record, settings.workspace)  # os._exit below skips the exit handlers
        stop_now(app.data_service)

    signal.signal(signal.SIGTERM, stop)
    logging.info("serving %s at http://%s:%d%s (workspace %s)", base, settings.host,
                 settings.port, settings.url_base_pathname, settings.workspace)
    waitress.serve(app.server, host=settings.host, port=settings.port, threads=8,
                   ident="dash-insight", _quiet=True)
    return 0


#: Seconds SIGTERM waits for the loader to finish what it is writing.
STOP_GRACE = 2.0


def stop_now(service: DataService) -> NoReturn:
    """End the process within :data:`STOP_GRACE` seconds of SIGTERM. The loader is asked to
    stop; if it is still inside a round (a large file can take many seconds) the process ends
    without waiting: the index is a SQLite database whose unfinished transaction is rolled
    back on the next start, as after ``kill -9``. Waiting for the round made SIGTERM take
    10-14 s. In-flight requests are cut, as any WSGI server's SIGTERM does."""
    service.loader.stop(timeout=STOP_GRACE)
    if not any(thread.name == LOADER_THREAD and thread.is_alive()
               for thread in threading.enumerate()):
        service.close()
    logging.info("stopped")
    logging.shutdown()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
