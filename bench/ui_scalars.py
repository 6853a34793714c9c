"""Scalars page speed in headless Chromium, on a generated 20-tag x 20,000-step job.

Measures (best and median of ``--repeat`` runs):

1. open: from navigating to ``/scalars?train_id=./big`` until every chart holds its drawn data
   (the raw and smoothed traces of all 20 tags); target < 2 s;
2. smoothing: from typing a new smoothing value (Enter in the number box) until the charts on
   screen have redrawn (Plotly ``plotly_afterplot``); target < 100 ms. The time until all 20
   charts (most of them off screen, redrawn one per animation frame) is printed too.

    python bench/ui_scalars.py [--repeat 5] [--tags 20] [--steps 20000]

Needs Debian's chromium + chromium-driver (./scripts/test.sh installs them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time

import numpy as np
import waitress
from browser_tools import browser, free_port  # bench/, beside this script
from machine import machine
from selenium.webdriver.common.keys import Keys

from dash_insight import SummaryWriter
from dash_insight.web.application import create_app

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def generate(base: str, tags: int, steps: int) -> None:
    job = os.path.join(base, "big")
    if os.path.isdir(job):
        return
    rng = np.random.default_rng(0)
    names = [f"metrics/tag_{i:02d}" for i in range(tags)]
    started = time.perf_counter()
    with SummaryWriter(job, host="bench") as writer:
        noise = rng.standard_normal((steps, tags)) * 0.05
        for step in range(1, steps + 1):
            base_value = np.exp(-step / 5000)
            for i, name in enumerate(names):
                writer.add_value("scalar", name, float(base_value * (i + 1) + noise[step - 1, i]))
            writer.record(step)
    print(f"generated {tags} tags x {steps} steps in {time.perf_counter() - started:.1f} s")


CHARTS_DRAWN = """
    const plots = document.querySelectorAll('.di-chart-card .js-plotly-plot');
    let drawn = 0;
    plots.forEach(p => { if (p.data && p.data.length >= 2 && p._fullLayout) drawn += 1; });
    return drawn;"""

ARM_REDRAW = """
    window._diRedraw = {start: 0, done: 0, visibleDone: 0, pending: 0, visible: 0};
    const plots = Array.from(document.querySelectorAll('.di-chart-card .js-plotly-plot'));
    window._diRedraw.pending = plots.length;
    plots.forEach(p => {
        const rect = p.getBoundingClientRect();
        p._diVisible = rect.bottom > 0 && rect.top < window.innerHeight;
        if (p._diVisible) window._diRedraw.visible += 1;
        if (!p._diHooked) {
            p._diHooked = true;
            p.on('plotly_afterplot', () => {
                const r = window._diRedraw;
                if (!r.start) return;
                r.pending -= 1;
                if (p._diVisible) {
                    r.visible -= 1;
                    if (r.visible <= 0 && !r.visibleDone) r.visibleDone = performance.now();
                }
                if (r.pending <= 0 && !r.done) r.done = performance.now();
            });
        }
    });
    if (!window._diKeyHook) {
        window._diKeyHook = true;
        window.addEventListener('keydown', e => {
            if (e.key === 'Enter' && e.target.closest('.di-smoothing-box')) {
                window._diRedraw.start = performance.now();
            }
        }, true);
    }"""


def measure(url: str, tags: int, repeat: int
            ) -> tuple[list[float], list[tuple[float, float]]]:
    opened, smoothed = [], []
    driver = browser()
    try:
        for run in range(repeat):
            driver.get("about:blank")
            started = time.perf_counter()
            driver.get(url)
            while driver.execute_script(CHARTS_DRAWN) < tags:
                if time.perf_counter() - started > 60:
                    raise TimeoutError("charts not drawn within 60 s")
                time.sleep(0.01)
            opened.append(time.perf_counter() - started)
            time.sleep(0.5)  # let late callbacks settle before timing a redraw
            driver.execute_script(ARM_REDRAW)
            box = driver.find_element("css selector", ".di-smoothing-box input")
            box.send_keys(Keys.CONTROL, "a")
            box.send_keys(f"0.{6 + run % 3}", Keys.ENTER)
            deadline = time.perf_counter() + 20
            while not driver.execute_script("return window._diRedraw.done"):
                if time.perf_counter() > deadline:
                    state = driver.execute_script("return window._diRedraw")
                    raise TimeoutError(f"charts not redrawn within 20 s: {state}")
                time.sleep(0.005)
            timing = driver.execute_script(
                "const r = window._diRedraw; return [r.visibleDone - r.start, r.done - r.start]")
            smoothed.append((timing[0] / 1000, timing[1] / 1000))
    finally:
        driver.quit()
    return opened, smoothed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20000)
    args = parser.parse_args()
    base = os.path.join(DATA_DIR, f"ui_scalars_{args.tags}x{args.steps}")
    generate(base, args.tags, args.steps)
    with tempfile.TemporaryDirectory() as workspace:
        app = create_app(base, workspace=workspace, reload_interval=0)
        app.data_service.loader.wait_rounds(1)
        port = free_port()
        server = waitress.create_server(app.server, host="127.0.0.1", port=port, threads=8)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            opened, smoothed = measure(f"http://127.0.0.1:{port}/scalars?train_id=./big",
                                       args.tags, args.repeat)
        finally:
            server.close()
            app.data_service.close()
    print(f"machine: {machine()}")
    print(f"scalars page, {args.tags} tags x {args.steps} steps, {args.repeat} runs")
    print(f"  open until all charts drawn: best {min(opened):.2f} s, median "
          f"{statistics.median(opened):.2f} s   target < 2 s   "
          f"{'OK' if statistics.median(opened) < 2 else 'MISSED'}")
    visible = [v for v, _ in smoothed]
    every = [a for _, a in smoothed]
    print(f"  smoothing change, charts on screen redrawn: best {min(visible) * 1000:.0f} ms, "
          f"median {statistics.median(visible) * 1000:.0f} ms   target < 100 ms   "
          f"{'OK' if statistics.median(visible) < 0.1 else 'MISSED'}")
    print(f"  smoothing change, all {args.tags} charts redrawn: best {min(every) * 1000:.0f} ms, "
          f"median {statistics.median(every) * 1000:.0f} ms (off-screen charts follow, one "
          f"per animation frame)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
