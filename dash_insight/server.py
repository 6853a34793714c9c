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

from dash_insight import __version__  # noqa: E402
from dash_insight.core.memory import return_large_buffers  # noqa: E402
from dash_insight.core.runtime import announce, retire  # noqa: E402
from dash_insight.core.service import DataService  # noqa: E402
from dash_insight.core.settings import (  # noqa: E402
    Settings,
    SettingsError,
    SuggestingParser,
    bind_failure,
    bind_problem,
)
from dash_insight.core.startup import empty_base_warning, environment_problem  # noqa: E402
from dash_insight.core.store.index_api import IndexUnavailable  # noqa: E402
from dash_insight.core.store.loader import LOADER_THREAD  # noqa: E402
from dash_insight.default import create_app  # noqa: E402

#: Bytes of an answer waitress holds in memory before it spills the rest to a temporary file
#: (its default, 1 MiB, wrote every answer of 20,000 scalar points, 1.4 MB, to disk and read it
#: back: about a millisecond of each such request). At most this much per connection being
#: answered; a larger (streamed) answer still goes through temporary files.
OUTPUT_BUFFER_IN_MEMORY = 4 << 20


def _launcher() -> str:
    """Who started this process, for ``dash-insight status``."""
    script = os.path.basename(sys.argv[0]) if sys.argv else ""
    return "app.py" if script == "app.py" else "python -m dash_insight.server"


def _checked_settings(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[Settings, str]:
    """The settings of the command line and their base directory; a problem that stops the
    server (bad settings, a port taken, a missing package) ends it with one line."""
    try:
        settings = Settings.from_args(args)
        base = settings.checked_base_dir()
    except SettingsError as error:
        parser.exit(2, f"dash-insight: {error}\n")
    problem = bind_problem(settings.host, settings.port) or environment_problem(settings)
    if problem is not None:
        parser.exit(1, f"dash-insight: {problem}\n")
    if not settings.is_local:
        logging.warning(
            "listening on %s: anyone who can reach this address can read the "
            "summaries (dash-insight has no login)",
            settings.host,
        )
    return settings, base


def main(argv: Sequence[str] | None = None, prog: str = "python -m dash_insight.server") -> int:
    """Serve in the foreground until SIGTERM or Ctrl-C; ``prog`` names the program in
    ``--help`` and usage errors (``app.py`` passes its own name)."""
    parser = SuggestingParser(
        prog=prog, description="Serve dash-insight in the foreground (Ctrl-C stops it)."
    )
    parser.add_argument("--version", action="version", version=f"dash-insight {__version__}")
    Settings.add_arguments(parser)
    parser.add_argument("--launcher", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings, base = _checked_settings(parser, args)
    record = announce(settings, args.launcher or _launcher())
    return_large_buffers()  # before the loader and the request threads start
    try:
        app = create_app(settings)
    except IndexUnavailable as error:  # a fleet's Redis: one line, not a traceback
        retire(record, settings.workspace)
        parser.exit(1, f"dash-insight: {error}\n")

    def stop(signum: int, _frame: FrameType | None) -> None:
        retire(record, settings.workspace)  # os._exit below skips the exit handlers
        stop_now(app.data_service)

    signal.signal(signal.SIGTERM, stop)
    try:
        server = waitress.create_server(
            app.server,
            host=settings.host,
            port=settings.port,
            threads=8,
            ident="dash-insight",
            outbuf_overflow=OUTPUT_BUFFER_IN_MEMORY,
        )
    except OSError as error:  # taken since bind_problem() looked, e.g. by a second demo.sh
        print(
            f"dash-insight: {bind_failure(settings.host, settings.port, error)}",
            file=sys.stderr,
            flush=True,
        )
        retire(record, settings.workspace)
        stop_now(app.data_service, code=1)
    # Said once it listens: a server that cannot start says only why.
    warning = empty_base_warning(base, settings.max_depth)
    if warning is not None:
        print(f"dash-insight: {warning}", file=sys.stderr, flush=True)
    logging.info("serving %s at %s (workspace %s)", base, record.url, settings.workspace)
    # The one line a user of app.py / demo.sh looks for: the port actually listened on.
    print(f"dash-insight is running at {record.url} (Ctrl-C stops it)", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        retire(record, settings.workspace)
        stop_now(app.data_service)
    return 0


#: Seconds SIGTERM waits for the loader to finish what it is writing.
STOP_GRACE = 2.0


def stop_now(service: DataService, code: int = 0) -> NoReturn:
    """End the process within :data:`STOP_GRACE` seconds of SIGTERM. The loader is asked to
    stop; if it is still inside a round (a large file can take many seconds) the process ends
    without waiting: the index is a SQLite database whose unfinished transaction is rolled
    back on the next start, as after ``kill -9``. Waiting for the round made SIGTERM take
    10-14 s. In-flight requests are cut, as any WSGI server's SIGTERM does."""
    service.loader.stop(timeout=STOP_GRACE)
    if not any(
        thread.name == LOADER_THREAD and thread.is_alive() for thread in threading.enumerate()
    ):
        service.close()
    if code == 0:
        logging.info("stopped")
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
