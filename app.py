"""Run dash-insight in the foreground (development): ``python app.py [--summary-base-dir DIR]
[--port 8080] [--demo] ...`` takes the same options as ``dash-insight start``."""

from __future__ import annotations

import sys

from dash_insight.server import main

if __name__ == "__main__":
    sys.exit(main(prog="app.py"))
