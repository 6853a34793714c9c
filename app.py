"""Development entry point: ``python app.py ...`` runs the ``dash-insight`` command line in the
foreground (``python app.py inspect PATH``). The Dash app itself lands with issue #4."""

from __future__ import annotations

import sys

from dash_insight.cli import main

if __name__ == "__main__":
    sys.exit(main())
