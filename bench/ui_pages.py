"""The slow pages of issue 17 item 8, in headless Chromium: the time until each is drawn as it
opens, until every chart is drawn scrolling to the end, and the longest main-thread freeze.

Pages, on jobs generated in ``bench/data/ui_pages`` (kept between runs):

* scalars of a 24-tag job (2,000 steps per tag): every chart drawn, scrolling down one screen
  at a time once the charts on screen are drawn (charts are drawn when they come on screen);
* parameter distribution of a 21-tag histogram job (40 steps per tag), and of the corpus's
  ``lenet_sc`` and ``ops_all`` (``--corpus``; issue 17 item 8 measured these); charts are drawn
  when they come on screen, scrolled to as for scalars;
* model lineage of 20 jobs;
* the computational graph of 5,000 nodes (``bench/graph.py``'s generator).

"Drawn" = the page as it opens is drawn: its own content is there (chart cards, lineage rows,
the graph canvas), every chart on its first screen has rendered in Plotly (not the first
paint's copy), and Dash has no callback pending. The chart pages draw only what is on screen
(issue 17 item 8: "Draw only what is on screen, in one pass"): charts below are drawn as they
come on screen, so a page is drawn when its first screen is. "Scrolled to the end": until
every chart of the page was drawn, scrolling down one screen at a time once the charts on
screen are drawn (held for 1 s; for pages without charts below, the same state as "drawn").
"First screen shown": until the first screen was shown with its charts, counting the page's
first paint (its first screen drawn by the server, ``div#di-first-paint``'s shadow root,
``dash_insight/web/first_paint.py``) while it lies over the page: every chart card of it on
screen holds a chart drawn by the server (a page without a first paint: "drawn"). Times are
from navigation. The longest freeze is the longest main-thread task (Long Tasks API, observed
from before the page's scripts, scrolling included). Targets: drawn in < 2 s, no freeze
> 200 ms; OK / MISSED per page (medians of ``--repeat`` runs, after one warm-up run).

    python bench/ui_pages.py [--repeat 3] [--corpus ../shared/corpus] [--pages lineage,graph]
        [--profile 25]

``--pages`` runs the pages whose names contain one of the words; ``--profile N`` records a
DevTools CPU profile of one more load of each page and prints its N functions of most self time
and the call stacks of its longest main-thread task (where the time of a freeze goes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

import numpy as np
import waitress
from browser_tools import (
    browser,
    cpu_profile,
    cpu_seconds,
    free_port,
    install_probe,
    longest_task_ms,
    profile_report,
)
from graph import make_graph  # bench/, beside this script
from machine import machine, recorded
from selenium.common.exceptions import TimeoutException

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ui_pages")
TARGET_S = 2.0
FREEZE_MS = 200.0


def generate(base: str) -> None:
    """The four jobs (and 19 more lineage jobs), once."""
    if os.path.isdir(base):
        return
    started = time.perf_counter()
    rng = np.random.default_rng(0)
    with SummaryWriter(os.path.join(base, "scalars24"), host="bench") as writer:
        for step in range(1, 2001):
            for i in range(24):
                writer.add_scalar(
                    f"metrics/tag_{i:02d}",
                    float(np.exp(-step / 500) * (i + 1) + rng.random() * 0.05),
                    step,
                )
    with SummaryWriter(os.path.join(base, "histograms21"), host="bench") as writer:
        for step in range(1, 41):
            for i in range(21):
                writer.add_histogram(
                    f"layer{i:02d}.weight", rng.standard_normal(2000) * (1 + step / 40), step
                )
            writer.record(step)
    for job in range(20):
        with SummaryWriter(os.path.join(base, f"lineage_{job:02d}"), host="bench") as writer:
            writer.add_scalar("loss", float(1 / (job + 1)), 1)
            writer.add_train_lineage(
                optimizer="Momentum",
                learning_rate=0.01 * (job + 1),
                epoch=10 + job % 3,
                batch_size=32 * (1 + job % 2),
                loss=float(1 / (job + 1)),
                network="LeNet5",
                train_dataset_size=60000,
            )
            writer.add_eval_lineage(metric={"accuracy": 0.9 + job / 400}, valid_dataset_size=10000)
    with SummaryWriter(os.path.join(base, "graph5000"), host="bench") as writer:
        writer.add_graph(make_graph(5000, 200))
        writer.add_scalar("loss", 1.0, 1)
    print(f"generated the jobs in {time.perf_counter() - started:.1f} s")


#: Each page: the logs it reads ("bench": the jobs generated here, "corpus": ``--corpus``), its
#: path, the element that says its content is there, and whether it scrolls (charts drawn when
#: they come on screen).
PAGES = (
    (
        "scalars, 24 charts",
        "bench",
        "/scalars?train_id=.%2Fscalars24",
        ".di-chart-card .js-plotly-plot",
        True,
    ),
    (
        "parameter distribution, 21 tags",
        "bench",
        "/histograms?train_id=.%2Fhistograms21",
        ".js-plotly-plot",
        True,
    ),
    (
        "parameter distribution, lenet_sc",
        "corpus",
        "/histograms?train_id=.%2Flenet_sc",
        ".js-plotly-plot",
        True,
    ),
    (
        "parameter distribution, ops_all",
        "corpus",
        "/histograms?train_id=.%2Fops_all",
        ".js-plotly-plot",
        True,
    ),
    ("lineage, 20 jobs", "bench", "/lineage", ".di-lineage-grid .ag-row", False),
    ("graph, 5,000 nodes", "bench", "/graph?train_id=.%2Fgraph5000", "#graph-cy canvas", False),
)
CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus")

#: Once per animation frame: whether the page is drawn (see the module docstring), and since
#: when (``performance.now()``).
READY_PROBE = """
window.__benchReady = {since: 0, ready: false, screenSince: 0, shownSince: 0};
(function tick() {
  const probe = window.__benchReady;
  let ready = false;
  const onScreenOf = card => {
    const r = card.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  };
  // The first paint's copy while it lies over the page: its cards on screen drawn by the
  // server (lines or bands: paths with a stroke width; grid lines have none).
  const overlay = document.getElementById('di-first-paint');
  const copy = overlay && overlay.shadowRoot;
  if (copy && !probe.shownSince) {
    const painted = Array.from(copy.querySelectorAll('.di-chart-card, .di-vp-card'))
      .filter(onScreenOf);
    if (painted.length && painted.every(card => card.querySelector(
        '.di-chart-preview path[stroke-width], .di-hist-preview path[stroke-width]'))) {
      probe.shownSince = performance.now();
    }
  }
  const selector = window.__benchSelector;
  if (selector && document.querySelector(selector) && window.store) {
    const callbacks = window.store.getState().callbacks || {};
    const idle = ['requested', 'prioritized', 'blocked', 'executing', 'watched', 'executed']
      .every(name => !(callbacks[name] || []).length);
    const drawn = card => {
      const plot = card.querySelector('.js-plotly-plot');
      return Boolean(plot && plot._fullLayout);
    };
    // Chart cards whose charts are drawn when they come on screen (scalars, histograms).
    const cards = Array.from(document.querySelectorAll('.di-chart-card, .di-vp-card'));
    const onScreen = cards.filter(onScreenOf);
    const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
    const base = idle && plots.every(plot => plot._fullLayout);
    probe.screenReady = base && onScreen.every(drawn);
    ready = base && cards.every(drawn);
  }
  if (ready && !probe.ready) probe.since = performance.now();
  if (probe.screenReady && !probe.screenSince) probe.screenSince = performance.now();
  if (probe.screenReady && !probe.shownSince) probe.shownSince = probe.screenSince;
  probe.ready = ready;
  window.requestAnimationFrame(tick);
})();
"""


@dataclass
class Run:
    shown_s: float
    drawn_s: float  # the page as it opens: the charts on its first screen
    scrolled_s: float  # every chart, scrolled to the end
    freeze_ms: float
    cpu_s: float


def open_page(driver, url: str, selector: str, scrolls: bool, timeout: float = 120) -> Run:
    driver.get("about:blank")
    before = cpu_seconds(driver)
    driver.get(url)
    driver.execute_script("window.__benchSelector = arguments[0];", selector)
    started = time.perf_counter()
    held = None
    while True:
        try:
            state = driver.execute_script("return window.__benchReady || {};")
            at_bottom = driver.execute_script(
                "return window.innerHeight + window.scrollY >= document.body.scrollHeight - 2;"
            )
        except TimeoutException:  # the page's main thread is frozen longer than a script may wait
            state, at_bottom = {}, False
        if scrolls and state.get("screenReady") and not at_bottom:
            driver.execute_script("window.scrollBy(0, window.innerHeight);")
        if state.get("ready"):
            if held is None:
                held = time.perf_counter()
            elif time.perf_counter() - held > 1.0:
                break
        else:
            held = None
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"{url}: not drawn within {timeout:.0f} s")
        time.sleep(0.02)
    probe = driver.execute_script("return window.__benchReady;")
    after = cpu_seconds(driver)
    return Run(
        probe["shownSince"] / 1000,
        probe["screenSince"] / 1000,
        probe["since"] / 1000,
        longest_task_ms(driver),
        after["task"] - before["task"],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--corpus",
        default=os.path.normpath(CORPUS),
        help="the summary corpus (lenet_sc, ops_all); default ../shared/corpus",
    )
    parser.add_argument(
        "--pages", default="", help="comma-separated words: only the pages whose names contain one"
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="print the N functions of most self time of one more load",
    )
    args = parser.parse_args()
    words = [w.strip() for w in args.pages.split(",") if w.strip()]
    pages = [page for page in PAGES if not words or any(w in page[0] for w in words)]
    generate(DATA_DIR)
    results: dict[str, list[Run]] = {}
    with tempfile.TemporaryDirectory() as workspace:
        apps, servers, ports = [], [], {}
        for key, base in (("bench", DATA_DIR), ("corpus", args.corpus)):
            app = create_app(
                Settings(
                    summary_base_dir=base, workspace=os.path.join(workspace, key), reload_interval=0
                )
            )
            app.data_service.loader.wait_rounds(1, timeout=600)
            ports[key] = free_port()
            server = waitress.create_server(
                app.server, host="127.0.0.1", port=ports[key], threads=8
            )
            threading.Thread(target=server.run, daemon=True).start()
            apps.append(app)
            servers.append(server)
        driver = browser()
        install_probe(driver, READY_PROBE)
        try:
            for name, key, path, selector, scrolls in pages:
                url = f"http://127.0.0.1:{ports[key]}{path}"
                open_page(driver, url, selector, scrolls)  # warm: caches, bundles
                results[name] = [
                    open_page(driver, url, selector, scrolls) for _ in range(args.repeat)
                ]
                if args.profile:
                    with cpu_profile(driver) as profile:
                        open_page(driver, url, selector, scrolls)
                    print(f"--- {name}: CPU profile")
                    print(profile_report(profile.result, driver, args.profile))
        finally:
            driver.quit()
            for server in servers:
                server.close()
            for app in apps:
                app.data_service.close()
    print(f"machine: {machine()}")
    print(
        f"pages drawn as they open, median of {args.repeat} runs (from navigation; targets: "
        f"drawn < {TARGET_S:.0f} s, no freeze > {FREEZE_MS:.0f} ms)"
    )
    for name, runs in results.items():
        shown = statistics.median(r.shown_s for r in runs)
        drawn = statistics.median(r.drawn_s for r in runs)
        scrolled = statistics.median(r.scrolled_s for r in runs)
        freeze = statistics.median(r.freeze_ms for r in runs)
        cpu = statistics.median(r.cpu_s for r in runs)
        verdict = "OK" if drawn < TARGET_S and freeze <= FREEZE_MS else "MISSED"
        print(
            f"  {name:34s} first screen shown {shown:5.2f} s   drawn {drawn:5.2f} s"
            f"   scrolled to the end {scrolled:6.2f} s   "
            f"longest freeze {freeze:6.0f} ms   browser CPU {cpu:5.2f} s   {verdict}"
        )
    print(f"machine: {machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
