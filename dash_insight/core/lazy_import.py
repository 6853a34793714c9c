"""Import a heavy module on first use, safely from any thread.

A server defers what it does not need to start (plotly's subplots), so the first requests that
need such a module may import it from several threads at once. Python's per-module import locks
do not cover a package's own circular imports (pandas: a second thread got the partly
initialised package, ``partially initialized module 'pandas' has no attribute 'Series'``). One
lock for these imports makes the second thread wait for the first. A module that other code
looks up in ``sys.modules`` without importing it (plotly does so for pandas while it builds any
figure) would be found half imported by that code: the web app imports it before any page code
runs (:mod:`dash_insight.web.warm_up`), through this lock too.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

_IMPORTING = threading.Lock()


def import_module(name: str) -> ModuleType:
    """``importlib.import_module(name)``, one thread at a time."""
    with _IMPORTING:
        return importlib.import_module(name)
