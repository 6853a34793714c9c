"""Serve dash-insight in the foreground with waitress, a production WSGI server.

``dash-insight start`` runs ``python -m dash_insight.server ...`` in the background; ``python
app.py`` runs the same in the foreground. For several worker processes, run any WSGI server on
``dash_insight.wsgi:application`` (see README); their loaders share the index.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Sequence
from types import FrameType

import waitress

from dash_insight.core.settings import Settings, SettingsError
from dash_insight.web.application import create_app


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dash_insight.server",
                                     description="Serve dash-insight in the foreground.")
    Settings.add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    try:
        settings = Settings.from_args(args)
        base = settings.checked_base_dir()
    except SettingsError as error:
        parser.exit(2, f"dash-insight: {error}\n")
    if not settings.is_local:
        logging.warning("listening on %s: anyone who can reach this address can read the "
                        "summaries (dash-insight has no login)", settings.host)
    app = create_app(base, settings=settings)

    def stop(signum: int, _frame: FrameType | None) -> None:
        app.data_service.close()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    logging.info("serving %s at http://%s:%d/", base, settings.host, settings.port)
    waitress.serve(app.server, host=settings.host, port=settings.port, threads=8,
                   ident="dash-insight", _quiet=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
