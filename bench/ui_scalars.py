"""Scalars page speed in headless Chromium, on a generated 20-tag x 20,000-step job, beside
MindInsight 2.3.1's scalars page on the same job when it is installed.

Measures (best and median of ``--repeat`` runs), from navigating to the page:

1. first chart: until the first chart holds its drawn lines;
2. screen: until every chart on the first screen is shown with its lines: dash-insight's page
   paints its first charts drawn by the server before Dash starts (``first_paint.py``), then
   its Plotly charts replace them; "interactive" is until the page's own Plotly charts on the
   first screen are drawn (zoom, hover and the chart's buttons work from then on);
3. all charts: until all 20 charts are drawn, scrolling down one screen at a time once the
   charts on screen are drawn (a page that draws everything at once needs no scrolling);
4. browser CPU for that (DevTools ``Performance.getMetrics``: TaskDuration, every main-thread
   task, and ScriptDuration, JavaScript), and the longest main-thread freeze (Long Tasks API);
5. smoothing: from typing a new smoothing value (Enter in the number box) until the charts on
   screen have redrawn (Plotly ``plotly_afterplot``); target < 100 ms. The time until all 20
   charts (most of them off screen, redrawn one per animation frame) is printed too.

Target: all charts drawn in < 2 s, and in half of MindInsight's time for its page of the same
job. MindInsight (``--mindinsight VENV``, default ``/work/mi-venv``; skipped with the reason
printed when absent) shows 6 charts per page of 1,000 sampled points each; its time is until
every chart of its first page has drawn its canvas.

    python bench/ui_scalars.py [--repeat 3] [--tags 20] [--steps 20000] [--mindinsight DIR]

Needs Debian's chromium + chromium-driver (./scripts/test.sh installs them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass

import numpy as np
import waitress
from browser_tools import (  # bench/, beside this script
    browser,
    cpu_seconds,
    free_port,
    install_probe,
    longest_task_ms,
    wait_for,
)
from machine import machine, recorded
from selenium.webdriver.common.keys import Keys

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TARGET_S = 2.0


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


#: Runs in every document before the page's scripts: once per animation frame, counts the
#: charts shown (``drawn(card)``) and notes when the first one, every one on screen and every
#: one of the page were shown (``performance.now()``: ms since navigation started). What is
#: shown is the page's first screen painted by the server (``div#di-first-paint``'s shadow root,
#: dash_insight/web/first_paint.py) while it lies over the page, then the page itself;
#: ``plotScreen`` notes when every chart card on screen of the page itself holds its Plotly
#: chart (``interactive(card)``: zoom, hover and the toolbar work).
DRAW_PROBE = """
window.__benchDraw = {first: 0, screen: 0, all: 0, drawn: 0, cards: 0, onScreen: 0,
                      plotScreen: 0};
(function tick() {
  const b = window.__benchDraw;
  const onScreenOf = card => {
    const r = card.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight && r.height > 0;
  };
  // Cards shown (MindInsight keeps the charts of its other pages in the page, hidden).
  const shownOf = root => Array.from(root.querySelectorAll(%(cards)s))
    .filter(card => card.getClientRects().length > 0);
  const overlay = document.getElementById("di-first-paint");
  const cards = shownOf(overlay && overlay.shadowRoot ? overlay.shadowRoot : document);
  let drawn = 0, onScreen = 0, onScreenDrawn = 0;
  for (const card of cards) {
    const ok = (%(drawn)s)(card);
    if (ok) drawn += 1;
    if (onScreenOf(card)) {
      onScreen += 1;
      if (ok) onScreenDrawn += 1;
    }
  }
  const page = shownOf(document).filter(onScreenOf);
  const now = performance.now();
  Object.assign(b, {drawn, cards: cards.length, onScreen, onScreenDrawn});
  if (drawn && !b.first) b.first = now;
  if (onScreen && onScreenDrawn === onScreen && !b.screen) b.screen = now;
  if (page.length && page.every(%(interactive)s) && !b.plotScreen) b.plotScreen = now;
  if (cards.length >= %(expected)d && drawn === cards.length && !b.all) b.all = now;
  window.requestAnimationFrame(tick);
})();
"""

#: dash-insight: a chart card holds a Plotly graph with its lines, or (the first paint) the
#: chart drawn by the server with its lines.
DASH_INSIGHT_CARDS = "'.di-chart-card'"
DASH_INSIGHT_INTERACTIVE = """card => {
  const p = card.querySelector('.js-plotly-plot');
  return Boolean(p && p.data && p.data.length >= 2 && p._fullLayout);
}"""
DASH_INSIGHT_DRAWN = (
    "card => (" + DASH_INSIGHT_INTERACTIVE + ")(card) || "
    "Boolean(card.querySelector('.di-chart-preview path[stroke-width]'))"
)
#: MindInsight 2.3.1 (Vue + ECharts): each chart of the scalar page is a ``.sample-content``
#: holding its ECharts canvas; drawn = the canvas has painted pixels.
MINDINSIGHT_CARDS = "'.cl-eval-show-data-content .sample-content'"
MINDINSIGHT_DRAWN = """card => {
  const canvas = card.querySelector('canvas');
  if (!canvas || !canvas.width || !canvas.height) return false;
  if (canvas.__benchPainted) return true;
  const context = canvas.getContext('2d');
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < data.length; i += 4 * 97) {
    if (data[i]) { canvas.__benchPainted = true; return true; }
  }
  return false;
}"""


@dataclass
class PageRun:
    first: float
    screen: float
    interactive: float
    every: float
    task_cpu: float
    script_cpu: float
    freeze_ms: float
    charts: int


def open_page(driver, url: str, expected: int, timeout: float = 120) -> PageRun:
    """Open ``url`` and scroll through it until ``expected`` charts are drawn."""
    driver.get("about:blank")
    before = cpu_seconds(driver)
    driver.get(url)
    probe = "return window.__benchDraw || {};"
    wait_for(lambda: driver.execute_script(probe).get("plotScreen"), timeout, "charts on screen")
    started = time.perf_counter()
    while not driver.execute_script(probe).get("all"):
        state = driver.execute_script(probe)
        if state.get("onScreenDrawn", 0) >= state.get("onScreen", 1):
            driver.execute_script("window.scrollBy(0, window.innerHeight);")
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"not every chart drawn within {timeout:.0f} s: {state}")
        time.sleep(0.02)
    state = driver.execute_script(probe)
    after = cpu_seconds(driver)
    return PageRun(
        first=state["first"] / 1000,
        screen=state["screen"] / 1000,
        interactive=state["plotScreen"] / 1000,
        every=state["all"] / 1000,
        task_cpu=after["task"] - before["task"],
        script_cpu=after["script"] - before["script"],
        freeze_ms=longest_task_ms(driver),
        charts=state["cards"],
    )


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


def smoothing_change(driver, run: int) -> tuple[float, float]:
    """Seconds until the charts on screen, and all charts, are redrawn after a new smoothing."""
    driver.execute_script("window.scrollTo(0, 0);")
    time.sleep(0.5)  # let late callbacks settle before timing a redraw
    driver.execute_script(ARM_REDRAW)
    box = driver.find_element("css selector", ".di-smoothing-box input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(f"0.{6 + run % 3}", Keys.ENTER)
    wait_for(
        lambda: driver.execute_script("return window._diRedraw.done"),
        20,
        "charts redrawn after a smoothing change",
        poll=0.005,
    )
    timing = driver.execute_script(
        "const r = window._diRedraw; return [r.visibleDone - r.start, r.done - r.start]"
    )
    return timing[0] / 1000, timing[1] / 1000


def measure_dash_insight(
    base: str, tags: int, repeat: int
) -> tuple[list[PageRun], list[tuple[float, float]]]:
    runs, smoothed = [], []
    with tempfile.TemporaryDirectory() as workspace:
        app = create_app(Settings(summary_base_dir=base, workspace=workspace, reload_interval=0))
        app.data_service.loader.wait_rounds(1)
        port = free_port()
        server = waitress.create_server(app.server, host="127.0.0.1", port=port, threads=8)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        driver = browser()
        install_probe(
            driver,
            DRAW_PROBE
            % {
                "cards": DASH_INSIGHT_CARDS,
                "drawn": DASH_INSIGHT_DRAWN,
                "interactive": DASH_INSIGHT_INTERACTIVE,
                "expected": tags,
            },
        )
        try:
            url = f"http://127.0.0.1:{port}/scalars?train_id=./big"
            open_page(driver, url, tags)  # warm: the server's caches, the browser's cache
            for run in range(repeat):
                runs.append(open_page(driver, url, tags))
                smoothed.append(smoothing_change(driver, run))
        finally:
            driver.quit()
            server.close()
            app.data_service.close()
    return runs, smoothed


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.read()
    except OSError:
        return None


def measure_mindinsight(
    venv: str, base: str, tags: int, steps: int, repeat: int
) -> list[PageRun] | str:
    """MindInsight's scalars page of the same job, or why it was not measured."""
    program = os.path.join(venv, "bin", "mindinsight")
    if not os.path.exists(program):
        return f"no {program} (install: see /work/shared/tools/mindinsight-requirements.txt)"
    port = free_port()
    env = dict(
        os.environ,
        PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION="python",
        PATH=os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", ""),
    )
    env.pop("PYTHONPATH", None)
    workspace = tempfile.mkdtemp(prefix="mi-bench-")
    started = subprocess.run(
        [
            program,
            "start",
            "--summary-base-dir",
            base,
            "--port",
            str(port),
            "--workspace",
            workspace,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    if started.returncode != 0:
        shutil.rmtree(workspace, ignore_errors=True)
        return f"mindinsight start failed: {(started.stdout + started.stderr).strip()[-300:]}"
    try:
        api = f"http://127.0.0.1:{port}/v1/mindinsight/datavisual/scalar/metadata"
        # MindInsight loads in the background: wait until the job's last tag has its last step.
        last = f"{api}?train_id=./big&tag=metrics/tag_{tags - 1:02d}/scalar"
        wait_for(
            lambda: b'"step":%d' % steps in (_get(last) or b""),
            900,
            "MindInsight loading the job",
            poll=1,
        )
        driver = browser()
        install_probe(
            driver,
            DRAW_PROBE
            % {
                "cards": MINDINSIGHT_CARDS,
                "drawn": MINDINSIGHT_DRAWN,
                "interactive": MINDINSIGHT_DRAWN,
                "expected": 6,
            },
        )
        try:
            url = f"http://127.0.0.1:{port}/#/train-manage/scalar?train_id=./big&summaryPath=./big"
            open_page(driver, url, 6)  # warm
            return [open_page(driver, url, 6) for _ in range(repeat)]
        finally:
            driver.quit()
    except TimeoutError as error:
        return f"MindInsight: {error}"
    finally:
        subprocess.run(
            [program, "stop", "--port", str(port)],
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
        shutil.rmtree(workspace, ignore_errors=True)


def _figures(name: str, runs: list[PageRun]) -> list[str]:
    def line(label: str, values: list[float], unit: str = "s") -> str:
        if unit == "ms":
            return (
                f"    {label}: best {min(values):.0f} ms, median {statistics.median(values):.0f} ms"
            )
        return f"    {label}: best {min(values):.2f} s, median {statistics.median(values):.2f} s"

    return [
        f"  {name}: {runs[0].charts} charts",
        line("first chart drawn", [r.first for r in runs]),
        line("charts on the first screen shown", [r.screen for r in runs]),
        line(
            "charts on the first screen interactive (the page's own charts)",
            [r.interactive for r in runs],
        ),
        line("all charts drawn", [r.every for r in runs]),
        line("browser CPU, all tasks (TaskDuration)", [r.task_cpu for r in runs]),
        line("browser CPU, JavaScript (ScriptDuration)", [r.script_cpu for r in runs]),
        line("longest main-thread freeze", [r.freeze_ms for r in runs], "ms"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument(
        "--mindinsight", default="/work/mi-venv", help="MindInsight 2.3.1's venv ('' to skip it)"
    )
    args = parser.parse_args()
    base = os.path.join(DATA_DIR, f"ui_scalars_{args.tags}x{args.steps}")
    generate(base, args.tags, args.steps)
    ours, smoothed = measure_dash_insight(base, args.tags, args.repeat)
    theirs: list[PageRun] | str = (
        measure_mindinsight(args.mindinsight, base, args.tags, args.steps, args.repeat)
        if args.mindinsight
        else "--mindinsight ''"
    )
    print(f"machine: {machine()}")
    print(
        f"scalars page, {args.tags} tags x {args.steps} steps, {args.repeat} runs "
        "(times from navigation)"
    )
    for text in _figures("dash-insight", ours):
        print(text)
    every = statistics.median(r.every for r in ours)
    print(f"    target: all charts < {TARGET_S:.0f} s   {'OK' if every < TARGET_S else 'MISSED'}")
    if isinstance(theirs, str):
        print(f"  MindInsight 2.3.1: skipped ({theirs})")
    else:
        for text in _figures("MindInsight 2.3.1", theirs):
            print(text)
        mine = statistics.median(r.screen for r in ours)
        mi = statistics.median(r.every for r in theirs)
        print(
            f"  dash-insight first screen shown / MindInsight first page: {mine / mi:.2f}   "
            f"target <= 0.5   {'OK' if mine <= 0.5 * mi else 'MISSED'}"
        )
        usable = statistics.median(r.interactive for r in ours)
        print(
            f"  dash-insight first screen interactive / MindInsight first page: {usable / mi:.2f}"
        )
        print(
            f"  dash-insight all {args.tags} charts / MindInsight first page "
            f"({theirs[0].charts} charts): {every / mi:.2f}"
        )
    visible = [v for v, _ in smoothed]
    print(
        f"  smoothing change, charts on screen redrawn: best {min(visible) * 1000:.0f} ms, "
        f"median {statistics.median(visible) * 1000:.0f} ms   target < 100 ms   "
        f"{'OK' if statistics.median(visible) < 0.1 else 'MISSED'}"
    )
    print(
        f"  smoothing change, all charts redrawn: best "
        f"{min(a for _, a in smoothed) * 1000:.0f} ms, median "
        f"{statistics.median(a for _, a in smoothed) * 1000:.0f} ms"
    )
    print(f"machine: {machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
