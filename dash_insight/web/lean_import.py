"""Import Dash for a server process without its notebook support.

When IPython is installed, ``dash._jupyter`` imports IPython, ipykernel's ``comm``,
``nest_asyncio`` and ``requests`` at import time (~0.3 s of CPU, a quarter of Dash's import):
they serve only ``app.run(jupyter_mode=...)``. A server process (``dash-insight start``,
``python app.py``, a WSGI worker) never runs inside a notebook, so it imports Dash while
``IPython`` cannot be imported; Dash then keeps its own stand-ins (its ``except ImportError``
branch). The notebook entry point (:mod:`dash_insight.notebook`) does not call this, and a
process that has already imported Dash or IPython is left as it is.
"""

from __future__ import annotations

import importlib
import sys

#: What ``dash._jupyter`` imports first (the rest of its notebook imports follow it).
NOTEBOOK_ROOT = "IPython"


def import_dash_without_notebook_support() -> None:
    """Import ``dash`` with ``IPython`` unavailable for the duration of the import only."""
    if "dash" in sys.modules or NOTEBOOK_ROOT in sys.modules:
        return
    # A None entry makes ``import IPython`` raise ModuleNotFoundError (an ImportError).
    sys.modules[NOTEBOOK_ROOT] = None  # type: ignore[assignment]
    try:
        importlib.import_module("dash")
    finally:
        del sys.modules[NOTEBOOK_ROOT]
