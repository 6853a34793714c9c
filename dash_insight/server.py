"""Serve dash-insight in the foreground with waitress, a production WSGI server.

``dash-insight start`` runs ``python -m dash_insight.server ...`` in the background; ``python
app.py`` runs the same in the foreground. For several worker processes, run any WSGI server on
``dash_insight.wsgi:application`` (see README); their loaders share the index.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

import waitress

from .app import create_app
from .options import LOCAL_HOSTS, add_server_options, base_dir_of


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dash_insight.server",
                                     description="Serve dash-insight in the foreground.")
    add_server_options(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    try:
        base = base_dir_of(args)
    except ValueError as error:
        parser.exit(2, f"dash-insight: {error}\n")
    if args.host not in LOCAL_HOSTS:
        logging.warning("listening on %s: anyone who can reach this address can read the "
                        "summaries (dash-insight has no login)", args.host)
    app = create_app(base, workspace=os.path.expanduser(args.workspace),
                     reload_interval=args.reload_interval, max_depth=args.max_depth,
                     samples_per_plugin=args.samples_per_plugin)

    def stop(signum: int, _frame: FrameType | None) -> None:
        app.data_service.close()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    logging.info("serving %s at http://%s:%d/", base, args.host, args.port)
    waitress.serve(app.server, host=args.host, port=args.port, threads=8,
                   ident="dash-insight", _quiet=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
