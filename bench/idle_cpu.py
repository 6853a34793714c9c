"""What a page costs the browser while nobody touches it: a fresh headless Chromium loads each
URL, waits ``--settle`` s, then measures ``--idle`` s of idle time: the CPU time of the whole
Chromium process tree (psutil: user + system of the browser, renderer and GPU processes), the
renderer main thread's (DevTools ``TaskDuration``), the animation frames the page asked for
(``requestAnimationFrame`` callbacks run) and the WebGL / canvas draw calls.

A page that shows a finished chart should cost next to nothing here; a render loop that
polls every frame (plotly's 3D scene, cytoscape's canvas) shows up as ~60 frames a second.

    .venv/bin/python bench/idle_cpu.py URL [URL ...] [--settle 5] [--idle 3] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import psutil
from browser_tools import browser, cpu_profile, cpu_seconds, install_probe, profile_report
from selenium import webdriver

#: Counts animation-frame callbacks and draw calls (``window.__idle``), from before the page's
#: own scripts run.
PROBE = """
(function () {
  const S = window.__idle = {frames: 0, draws: 0};
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = function (fn) {
    return raf(t => { S.frames++; fn(t); });
  };
  const count = (proto, names) => {
    if (!proto) return;
    for (const name of names) {
      const f = proto[name];
      if (f) proto[name] = function () { S.draws++; return f.apply(this, arguments); };
    }
  };
  count(window.WebGLRenderingContext && WebGLRenderingContext.prototype,
        ["drawArrays", "drawElements"]);
  count(window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype,
        ["fill", "stroke", "fillText", "drawImage"]);
})();
"""


def tree_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and all its descendants."""
    total = 0.0
    try:
        processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def idle_costs(
    driver: webdriver.Chrome, url: str, settle: float, idle: float, profile: bool
) -> dict[str, object]:
    """Load ``url``, wait ``settle`` s, then the costs of ``idle`` s of nothing happening."""
    pid = driver.service.process.pid
    driver.get(url)
    time.sleep(settle)
    before = driver.execute_script("return Object.assign({}, window.__idle);")
    main0, tree0 = cpu_seconds(driver)["task"], tree_cpu(pid)
    report = ""
    if profile:
        with cpu_profile(driver, 200) as recorded:
            time.sleep(idle)
        report = profile_report(recorded.result, driver, top=12)
    else:
        time.sleep(idle)
    main1, tree1 = cpu_seconds(driver)["task"], tree_cpu(pid)
    after = driver.execute_script("return Object.assign({}, window.__idle);")
    result: dict[str, object] = {
        "url": url,
        "idle_tree_cpu_s": round(tree1 - tree0, 3),
        "idle_main_thread_s": round(main1 - main0, 3),
        "frames": after["frames"] - before["frames"],
        "draw_calls": after["draws"] - before["draws"],
        "load1": round(os.getloadavg()[0], 2),
    }
    if report:
        result["profile"] = report
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("urls", nargs="+")
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--idle", type=float, default=3.0)
    parser.add_argument("--profile", action="store_true", help="print the idle time's profile")
    args = parser.parse_args()
    for url in args.urls:
        driver = browser()
        try:
            install_probe(driver, PROBE)
            result = idle_costs(driver, url, args.settle, args.idle, args.profile)
        finally:
            driver.quit()
        report = result.pop("profile", "")
        print(json.dumps(result), flush=True)
        if report:
            print(report, flush=True)


if __name__ == "__main__":
    main()
