"""What the browser benchmarks share: a free local port, headless Chromium, the browser's CPU
time for a page (DevTools ``Performance.getMetrics``) and the Long Tasks observer."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from machine import free_port  # bench/, beside this script
from selenium import webdriver

__all__ = [
    "browser",
    "cpu_seconds",
    "free_port",
    "install_probe",
    "longest_task_ms",
    "wait_for",
]


def browser() -> webdriver.Chrome:
    """Headless Chromium (Debian's, when installed) with the flags this sandbox needs."""
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--window-size=1600,1000"):
        options.add_argument(flag)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(options=options)


#: Installed before any script of a page runs: every long task (a main-thread freeze of more
#: than 50 ms, the Long Tasks API) of the page is kept in ``window.__benchLongTasks``.
LONG_TASKS = """
window.__benchLongTasks = [];
try {
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
      window.__benchLongTasks.push([entry.startTime, entry.duration]);
    }
  }).observe({type: 'longtask', buffered: true});
} catch (error) { window.__benchLongTasks = null; }
"""


def install_probe(driver: webdriver.Chrome, script: str = "") -> None:
    """Run :data:`LONG_TASKS` (and ``script``) in every document the driver opens from now on,
    before the page's own scripts; turn on DevTools' performance metrics."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                           {"source": LONG_TASKS + script})
    driver.execute_cdp_cmd("Performance.enable", {})


def cpu_seconds(driver: webdriver.Chrome) -> dict[str, float]:
    """The page's main-thread CPU so far: ``task`` (TaskDuration: every task) and ``script``
    (ScriptDuration: JavaScript), in seconds (DevTools ``Performance.getMetrics``)."""
    metrics = {m["name"]: m["value"]
               for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
    return {"task": metrics.get("TaskDuration", 0.0), "script": metrics.get("ScriptDuration", 0.0)}


def longest_task_ms(driver: webdriver.Chrome) -> float:
    """The longest main-thread task of the page so far (ms; 0 when none was over 50 ms)."""
    tasks = driver.execute_script("return window.__benchLongTasks;") or []
    return max((duration for _, duration in tasks), default=0.0)


def wait_for(condition: Callable[[], object], timeout: float, what: str,
             poll: float = 0.02) -> object:
    """``condition()`` once it is truthy; TimeoutError naming ``what`` after ``timeout`` s."""
    deadline = time.perf_counter() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        time.sleep(poll)
