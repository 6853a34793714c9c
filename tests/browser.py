"""The browser side of the tests: a ``dash_duo`` that waits for conditions, with time limits
for a loaded 2-core machine.

A time limit only says how long a failing test takes to fail, so it is generous
(:data:`PATIENCE`); what a test waits for is always a condition. Two conditions matter
beyond the page's own content: the Dash renderer has no callback pending (:func:`wait_idle`),
before a test navigates away or stops its server (a callback cut short by either logs a
browser error that a later console check would blame on the next page).
"""

from __future__ import annotations

import atexit
import contextlib
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from dash.testing import wait
from dash.testing.composite import DashComposite
from dash.testing.errors import TestingTimeoutError
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains

from tests.ports import free_port

T = TypeVar("T")

#: Seconds a condition may take on a loaded 2-core machine before a test fails.
PATIENCE = 60.0

#: True when the Dash renderer of the page has no callback requested, waiting or running
#: (its redux store's ``callbacks``, as dash.testing's ``redux_state_rqs`` reads them), and the
#: page has no pending ``fetch`` of a Dash callback; null on a page without Dash.
_IDLE_JS = """
const store = window.store;
if (!store || !store.getState) { return null; }
const state = store.getState();
const callbacks = Object.assign({}, state.callbacks || {});
delete callbacks.stored;
delete callbacks.completed;
const pending = Object.values(callbacks).some(list => list && list.length);
return !pending && !state.isLoading;
"""

#: What keeps the page busy, for a timeout's message: each pending callback as
#: "<state>: <its outputs>", and whether the renderer is loading.
_PENDING_JS = """
const store = window.store;
if (!store || !store.getState) { return []; }
const state = store.getState();
const out = [];
for (const [name, list] of Object.entries(state.callbacks || {})) {
  if (name === 'stored' || name === 'completed' || !list) continue;
  for (const cb of list) {
    out.push(name + ': ' + ((cb.callback && cb.callback.output) || '?'));
  }
}
if (state.isLoading) out.push('isLoading');
return out;
"""


def until(
    condition: Callable[[], T],
    timeout: float = PATIENCE,
    poll: float = 0.1,
    msg: str = "expected condition not met within timeout",
) -> T:
    """``condition()`` once it is truthy; TestingTimeoutError after ``timeout`` seconds, never
    less than :data:`PATIENCE` (the callers' own limits were tuned on an idle machine)."""
    return wait.until(condition, max(timeout, PATIENCE), poll, msg)


def point_until(
    dash_duo: Any, selector: str, condition: Callable[[], T], timeout: float = PATIENCE
) -> T:
    """``condition()`` once it is truthy, the pointer over ``selector`` all along.

    The pointer moves again on every poll (to the element's centre, then a few pixels either
    side): an element drawn again under the pointer (a chart redrawn, a grid's rows sent
    anew, a card moved while the page settles) loses a single hover, and with it the hover's
    toolbar or tooltip."""
    polls = iter(range(10**9))

    def pointed() -> T | None:
        dx = 5 if next(polls) % 2 else -5
        try:
            target = dash_duo.find_element(selector)
            ActionChains(dash_duo.driver).move_to_element(target).move_by_offset(dx, 0).perform()
        except StaleElementReferenceException:  # drawn again between finding and pointing
            return None
        return condition()

    return until(pointed, timeout, poll=0.5)


def wait_idle(dash_duo: Any, timeout: float = PATIENCE) -> None:
    """Until the page's Dash renderer has no callback pending, seen on two polls in a row
    (a finished callback may trigger the next one in the same tick). A page without Dash
    (about:blank, an error page) is idle."""
    streak = [0]

    def idle_twice() -> bool:
        state = dash_duo.driver.execute_script(_IDLE_JS)
        streak[0] = streak[0] + 1 if state is None or state else 0
        return streak[0] >= 2

    try:
        until(idle_twice, timeout, poll=0.1)
    except TestingTimeoutError as error:
        pending = dash_duo.driver.execute_script(_PENDING_JS)
        raise TestingTimeoutError(
            f"the page at {dash_duo.driver.current_url} was never idle; pending: {pending}"
        ) from error


#: The browser window of every test that does not choose one (width, height in px).
DEFAULT_WINDOW = (1280, 1100)


class _KeptBrowser:
    """The Chromium of this test process, handed from one test to the next: starting one costs
    2-3 s of a loaded 2-core machine, some 170 times a run. Each test gets a new tab (a new
    DevTools target: no probe scripts, user agent or language override of the last test) with
    no cookies, no storage of the origins the last test served and an empty cache."""

    driver: ClassVar[Any] = None
    #: The origins the tests served since the last reset (their storage is cleared).
    origins: ClassVar[set[str]] = set()

    @classmethod
    def take(cls, start: Callable[[], Any], download_path: str) -> Any:
        if cls.driver is not None:
            try:
                cls._reset(cls.driver, download_path)
                return cls.driver
            except Exception:  # a crashed or wedged browser: start another
                cls.discard()
        cls.driver = start()
        cls.origins.clear()
        return cls.driver

    @classmethod
    def _reset(cls, driver: Any, download_path: str) -> None:
        old = driver.window_handles
        driver.switch_to.new_window("tab")
        fresh = driver.current_window_handle
        for handle in old:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(fresh)
        driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        for origin in cls.origins:
            driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
        cls.origins.clear()
        driver.execute_cdp_cmd(
            "Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": download_path}
        )
        driver.get_log("browser")  # the last test's console

    @classmethod
    def discard(cls) -> None:
        if cls.driver is not None:
            with contextlib.suppress(Exception):
                cls.driver.quit()
        cls.driver = None


atexit.register(_KeptBrowser.discard)


class PatientDashComposite(DashComposite):
    """``dash_duo`` whose default waits are :data:`PATIENCE` seconds, whose server may take as
    long to start, which lets the page's callbacks finish before it navigates away, and which
    stops its server only after leaving an idle page (:meth:`stop_server`). The browser is the
    test process's own, kept from test to test (:class:`_KeptBrowser`)."""

    def __init__(self, server: Any, **kwargs: Any) -> None:
        super().__init__(server, wait_timeout=int(PATIENCE), **kwargs)
        # A poll's script waits while the page's main thread is busy (a large chart drawn on a
        # loaded machine): WebDriver's 30 s default failed such polls with "script timeout".
        self.driver.set_script_timeout(PATIENCE)
        # A desktop window: pages draw the charts on screen first, and headless Chromium's
        # default 800 x 600 puts the first chart of most pages below the fold.
        self.driver.set_window_size(*DEFAULT_WINDOW)

    def _try_get_webdriver(self) -> Any:
        return _KeptBrowser.take(super()._try_get_webdriver, self.download_path)

    def __exit__(self, exc_type: Any, exc_val: Any, traceback: Any) -> None:
        # The browser stays for the next test (Browser's own __exit__ quits it), on a blank
        # page: nothing of this test's page runs on while its server stops.
        try:
            self.driver.get("about:blank")
        except Exception:
            _KeptBrowser.discard()

    def start_server(self, app: Any, navigate: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("start_timeout", PATIENCE)
        # dash's runner counts ports up from 58050 in every process: pytest workers running at
        # once (pytest-xdist) would collide.
        kwargs.setdefault("port", free_port())
        self.server.port = kwargs["port"]
        for host in ("127.0.0.1", "localhost"):
            _KeptBrowser.origins.add(f"http://{host}:{kwargs['port']}")
        super().start_server(app, navigate, **kwargs)

    def wait_for_page(self, url: str | None = None, timeout: float = PATIENCE) -> Any:
        if self._driver.current_url.startswith(("http://", "https://")):
            wait_idle(self)
        return super().wait_for_page(url, timeout)

    def stop_server(self) -> None:
        """Let the page's callbacks finish, leave it (so that nothing asks the stopped server
        again), then stop the server."""
        wait_idle(self)
        self.driver.get("about:blank")
        self.server.stop()
