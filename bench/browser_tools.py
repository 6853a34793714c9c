"""What the browser benchmarks share: a free local port, headless Chromium, the browser's CPU
time for a page (DevTools ``Performance.getMetrics``) and the Long Tasks observer."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from machine import free_port  # bench/, beside this script
from selenium import webdriver

__all__ = [
    "browser",
    "cpu_profile",
    "cpu_seconds",
    "free_port",
    "install_probe",
    "longest_task_ms",
    "profile_report",
    "wait_for",
]


def browser() -> webdriver.Chrome:
    """Headless Chromium (Debian's, when installed) with the flags this sandbox needs."""
    options = webdriver.ChromeOptions()
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1600,1000",
    ):
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
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LONG_TASKS + script})
    driver.execute_cdp_cmd("Performance.enable", {})


def cpu_seconds(driver: webdriver.Chrome) -> dict[str, float]:
    """The page's main-thread CPU so far: ``task`` (TaskDuration: every task) and ``script``
    (ScriptDuration: JavaScript), in seconds (DevTools ``Performance.getMetrics``)."""
    metrics = {
        m["name"]: m["value"]
        for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    }
    return {"task": metrics.get("TaskDuration", 0.0), "script": metrics.get("ScriptDuration", 0.0)}


def longest_task_ms(driver: webdriver.Chrome) -> float:
    """The longest main-thread task of the page so far (ms; 0 when none was over 50 ms)."""
    tasks = driver.execute_script("return window.__benchLongTasks;") or []
    return max((duration for _, duration in tasks), default=0.0)


def wait_for(
    condition: Callable[[], object], timeout: float, what: str, poll: float = 0.02
) -> object:
    """``condition()`` once it is truthy; TimeoutError naming ``what`` after ``timeout`` s."""
    deadline = time.perf_counter() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        time.sleep(poll)


class Profile:
    """What :func:`cpu_profile` recorded: DevTools' ``Profiler.Profile`` (in ``result``)."""

    def __init__(self) -> None:
        self.result: dict[str, Any] = {}


@contextlib.contextmanager
def cpu_profile(driver: webdriver.Chrome, interval_us: int = 500) -> Iterator[Profile]:
    """A DevTools CPU profile (JavaScript, sampled every ``interval_us``) of what the browser
    does inside the ``with`` block."""
    profile = Profile()
    driver.execute_cdp_cmd("Profiler.enable", {})
    driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": interval_us})
    driver.execute_cdp_cmd("Profiler.start", {})
    try:
        yield profile
    finally:
        profile.result = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
        driver.execute_cdp_cmd("Profiler.disable", {})


ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")
_SOURCES: dict[str, list[str] | None] = {}


def _where(frame: dict[str, Any]) -> str:
    """``function file:line:column``, with the code at that place for the minified bundles of
    ``assets/`` (their function names say nothing)."""
    url = frame.get("url", "")
    name = re.sub(r"\?.*$", "", url.rsplit("/", 1)[-1])
    name = re.sub(r"\.v[0-9_]+m[0-9]+(\.min)?\.js$", r"\1.js", name)  # Dash's fingerprints
    line, column = frame.get("lineNumber", 0), frame.get("columnNumber", 0)
    text = f"{frame.get('functionName') or '(anonymous)'} {name}:{line + 1}:{column + 1}"
    if name.endswith(".min.js") and "/assets/" in url:
        if name not in _SOURCES:
            path = os.path.join(ASSETS, name)
            _SOURCES[name] = None
            if os.path.exists(path):
                with open(path, encoding="utf-8") as source:
                    _SOURCES[name] = source.read().split("\n")
        lines = _SOURCES[name]
        if lines and line < len(lines):
            text += "  `" + lines[line][column : column + 70] + "`"
    return text if url or frame.get("functionName") else text.split(" ")[0]


def profile_report(profile: dict[str, Any], driver: webdriver.Chrome, top: int = 25) -> str:
    """The ``top`` functions of most self time of ``profile`` (from :func:`cpu_profile`), and,
    in its longest stretch of samples without idle time (about the longest main-thread task),
    the functions of most self and of most total time (time with the function on the stack)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent: dict[int, int] = {}
    for node in profile["nodes"]:
        for child in node.get("children", ()):
            parent[child] = node["id"]
    samples, deltas = profile["samples"], profile["timeDeltas"]
    # Each sample lasts until the next one.
    durations = [d / 1000 for d in deltas[1:]] + [0.0]

    def frame(node_id: int) -> str:
        return _where(nodes[node_id]["callFrame"])

    def stack(node_id: int) -> list[str]:
        frames = []
        while node_id in nodes and node_id in parent:
            frames.append(frame(node_id))
            node_id = parent[node_id]
        return frames

    own: Counter[str] = Counter()
    for node_id, ms in zip(samples, durations, strict=True):
        own[frame(node_id)] += ms
    lines = [f"  total {sum(durations):.0f} ms of samples; most self time (ms):"]
    lines += [f"  {ms:8.1f}  {name}" for name, ms in own.most_common(top)]
    # The longest stretch of busy samples.
    best, start = (0.0, 0, 0), None
    busy = 0.0
    for i, node_id in enumerate(samples):
        idle = nodes[node_id]["callFrame"]["functionName"] in ("(idle)", "(program)")
        if not idle:
            if start is None:
                start, busy = i, 0.0
            busy += durations[i]
            if busy > best[0]:
                best = (busy, start, i + 1)
        else:
            start = None
    ms_busy, first, last = best
    inner_self: Counter[str] = Counter()
    inner_total: Counter[str] = Counter()
    for node_id, ms in zip(samples[first:last], durations[first:last], strict=True):
        inner_self[frame(node_id)] += ms
        for name in set(stack(node_id)):
            inner_total[name] += ms
    lines.append(f"  longest busy stretch {ms_busy:.0f} ms; most self time (ms):")
    lines += [f"  {ms:8.1f}  {name}" for name, ms in inner_self.most_common(top)]
    lines.append("  most total time (ms):")
    lines += [f"  {ms:8.1f}  {name}" for name, ms in inner_total.most_common(top)]
    return "\n".join(lines)
