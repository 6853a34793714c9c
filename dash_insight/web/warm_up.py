"""Import what the pages need, but a first answer does not, beside the first answers.

A warm restart answers its first request after the imports of the process (issue #18 item 4),
and pandas was about half a second of them: only the lineage queries use it. But plotly looks
pandas up in ``sys.modules`` without importing it while it builds any figure, so a figure
built while another thread is importing pandas finds the package half initialised
(``partially initialized module 'pandas' has no attribute 'Series'``). So pandas is imported by
a :class:`WarmUp` of the app: in a background thread started once the app has answered its
first request (started with the process, the import took CPU from the first answers on a
2-core machine), and every Dash request that runs Python page code (a layout or a callback,
where figures are built) waits until it is done. The job list, the REST API, the page's HTML
and its scripts do not wait: they build no figure. The REST lineage queries import pandas on
first use with :func:`dash_insight.core.lazy_import.import_module`, under the same lock as the
warm-up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import flask

from dash_insight.core.lazy_import import import_module

log = logging.getLogger(__name__)

#: Modules other code looks up in ``sys.modules`` while building figures: imported before any
#: page code runs.
PAGE_MODULES = ("pandas",)
#: The Dash requests that run page code (below the app's prefix).
PAGE_CODE_PATHS = ("_dash-layout", "_dash-update-component")
#: The background import's thread name (``py-spy``, ``threading.enumerate()``).
WARM_UP_THREAD = "dash-insight-warm-up"


class WarmUp:
    """Imports :data:`PAGE_MODULES` once, in a background thread; :meth:`wait` until done."""

    def __init__(self, modules: Sequence[str] = PAGE_MODULES) -> None:
        self.modules = tuple(modules)
        self._done = threading.Event()
        self._started = False
        self._lock = threading.Lock()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def start(self) -> None:
        """Start the background import (once; later calls do nothing)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name=WARM_UP_THREAD, daemon=True).start()

    def wait(self) -> None:
        """Until every module is imported (or failed to), starting the import if need be."""
        self.start()
        self._done.wait()

    def _run(self) -> None:
        try:
            for name in self.modules:
                try:
                    import_module(name)
                except ImportError as error:  # the page needing it says so when it runs
                    log.warning("could not import %s for the pages: %s", name, error)
        finally:
            self._done.set()

    def install(self, server: flask.Flask, prefix: str, start_after_first_answer: bool) -> None:
        """Make the requests of :data:`PAGE_CODE_PATHS` below ``prefix`` wait for the import;
        ``start_after_first_answer``: start it once the first request below ``prefix`` has been
        answered (else the first request that waits starts it)."""
        paths = frozenset(prefix + path for path in PAGE_CODE_PATHS)

        @server.before_request
        def wait_for_page_modules() -> None:
            if not self._done.is_set() and flask.request.path in paths:
                self.wait()

        if start_after_first_answer:

            @server.teardown_request
            def start_after_an_answer(_error: BaseException | None) -> None:
                if not self._started and flask.request.path.startswith(prefix):
                    self.start()
