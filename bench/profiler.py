"""Profiler pages on a 200,000-launch CPU profile, in headless Chromium.

Generates (once, under ``bench/data/``) a MindSpore >= 2.5 style profile written in the
documented format (``dash_insight.core.format.profiler_writer``): ``--ops`` operators (default
1,000, 26 types) launched once per step for ``--steps`` steps (default 200): 200,000 launches
in ``FRAMEWORK/cpu_op_execute_timestamp_0.txt`` (and ``trace_view.json``, the CSVs and
``cpu_framework_0.txt``). Then measures, from navigating to the page until it is drawn:

1. operator page (type view: chart and every type row), first open after the server started
   (every file parsed) and then again (median of ``--repeat``), as a full page load and as a
   click on its tab from the performance dashboard; target < 1 s;
2. all-operators view (first page of the table; its first open reads ``cpu_framework``);
3. timeline (every scope row and the operators row drawn), the same ways; target < 2 s;

A full page load restarts Dash and plotly.js in the browser (the load times of the summary
list and of a one-chart scalars page are printed for scale: what any page costs); a tab click
is what a user does inside the app. The browser has plotly.js in its cache (from that scalars
page) before the profiler pages are first opened, as a user's browser has.

and the server side alone (the operator tables; the whole parse; timeline bars; one window's
figure). The machine's cores and
load average are printed beside the figures: on a shared machine they explain a slow run.

    python bench/profiler.py [--ops 1000] [--steps 200] [--repeat 5]

Needs Debian's chromium + chromium-driver (./scripts/test.sh installs them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable

import waitress
from browser_tools import browser, free_port  # bench/, beside this script
from machine import machine, recorded
from selenium import webdriver

from dash_insight.core.format.profiler import LAYOUT_MINDSPORE
from dash_insight.core.format.profiler_writer import synthetic_ops, write_cpu_profile
from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.profiler import page_shared, timeline_page
from dash_insight.plugins.profiler.query_timeline import timeline_figure, window_view
from dash_insight.plugins.profiler.service import ProfilerService

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
OPERATOR_TARGET_S = 1.0
TIMELINE_TARGET_S = 2.0

TYPE_VIEW_DRAWN = """
    const chart = document.querySelector('#prof-op-chart .js-plotly-plot');
    const rows = document.querySelectorAll('#prof-type-table-body > tbody > tr').length;
    return Boolean(chart && chart.data && chart.data.length && chart._fullLayout)
        && rows >= arguments[0];"""
ALL_VIEW_DRAWN = """
    return document.querySelectorAll('#prof-all-table-body > tbody > tr').length >= 10;"""
DASHBOARD_DRAWN = """
    const charts = document.querySelectorAll('#prof-cards svg.di-svg');  // SVG charts
    return document.querySelectorAll('#prof-cards .di-card').length >= 5 && charts.length >= 3;"""
ONE_CHART_DRAWN = """
    const chart = document.querySelector('.js-plotly-plot');
    return Boolean(chart && chart.data && chart.data.length && chart._fullLayout);"""
SUMMARY_LIST_DRAWN = """
    return document.querySelectorAll('#job-table tbody tr').length >= 1
        && document.querySelector('#job-total').textContent.startsWith('Total');"""
TIMELINE_DRAWN = """
    const chart = document.querySelector('#prof-timeline .js-plotly-plot');
    return Boolean(chart && chart.data && chart.data.length >= 3 && chart._fullLayout
        && document.querySelector("#prof-timeline-info").textContent.includes("bars"));"""


def generate(base: str, ops: int, steps: int) -> None:
    warm = os.path.join(base, "warm")
    if not os.path.isdir(warm):  # a one-chart job: its page puts plotly.js in the browser cache
        os.makedirs(warm)
        with SummaryWriter(warm) as writer:
            for step in range(1, 11):
                writer.add_scalar("loss", 1.0 / step, step)
                writer.record(step)
    job = os.path.join(base, "big")
    if os.path.isdir(job):
        return
    started = time.perf_counter()
    write_cpu_profile(job, synthetic_ops(ops), steps, layout=LAYOUT_MINDSPORE)
    print(
        f"generated {ops} operators x {steps} steps = {ops * steps:,} launches in "
        f"{time.perf_counter() - started:.1f} s"
    )


#: Installed in every page: times (performance.now(), ms since the navigation started, and
#: the same instant in ms since the epoch) when ``window.__diCondition`` first holds, checked
#: on every DOM change and every 10 ms inside the page, so the measurement does not depend on
#: how often WebDriver polls.
WATCHER = """
window.__diDrawn = null;
window.__diDrawnAt = null;
const check = () => {
    if (window.__diDrawn === null && window.__diCondition) {
        try {
            if (window.__diCondition()) {
                window.__diDrawn = performance.now();
                window.__diDrawnAt = performance.timeOrigin + window.__diDrawn;
            }
        } catch (e) {}
    }
};
new MutationObserver(check).observe(document, {subtree: true, childList: true});
setInterval(check, 10);
"""


def _condition(drawn: str, args: tuple[object, ...]) -> str:
    return (
        f"window.__diArgs = {json.dumps(list(args))}; window.__diCondition = () => "
        f"(function () {{{drawn}}}).apply(null, window.__diArgs);"
    )


def _result(driver: webdriver.Chrome, deadline: float, name: str = "__diDrawn") -> float:
    """Seconds of ``window[name]`` (ms) once the page sets it."""
    while True:
        drawn = driver.execute_script(f"return window.{name};")
        if drawn is not None:
            return drawn / 1000
        if time.perf_counter() > deadline:
            raise TimeoutError("page not drawn within 120 s")
        time.sleep(0.1)


def open_page(driver: webdriver.Chrome, url: str, drawn: str, *args: object) -> float:
    """Seconds from navigating to ``url`` (a full page load: Dash and plotly.js start again)
    until the ``drawn`` script holds, timed inside the page."""
    driver.get("about:blank")
    script = driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": WATCHER + _condition(drawn, args)}
    )
    try:
        driver.get(url)
        return _result(driver, time.perf_counter() + 120)
    finally:
        driver.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]}
        )


def click_tab(
    driver: webdriver.Chrome, start_url: str, start_drawn: str, tab: str, drawn: str, *args: object
) -> float:
    """Seconds from clicking a profiler tab (as a user goes from the dashboard to a page)
    until the ``drawn`` script holds, timed inside the pages (ms since the epoch): in the same
    document, or in the new one the click opens when the page needs scripts the dashboard's
    document lacks (web/page_bundles.py: the operator page's AG Grid and plotly.js)."""
    open_page(driver, start_url, start_drawn)
    time.sleep(0.5)  # let the dashboard's last callbacks settle before timing the click
    driver.execute_script("window.__diDrawn = null; window.__diDrawnAt = null;")
    driver.execute_script(_condition(drawn, args))
    script = driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": WATCHER + _condition(drawn, args)}
    )
    try:
        clicked = driver.execute_script(
            "const at = performance.timeOrigin + performance.now();"
            f"document.querySelector('#{tab}').click();"
            "return at;"
        )
        return _result(driver, time.perf_counter() + 120, "__diDrawnAt") - clicked / 1000
    finally:
        driver.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]}
        )


def server_side(base: str) -> list[tuple[str, float]]:
    """Seconds for: parsing the profile, building the timeline's bars, one window's figure."""
    with tempfile.TemporaryDirectory() as workspace:
        data = DataService(Settings(base, workspace=workspace, reload_interval=0))
        data.loader.load_round()
        service = ProfilerService.from_data(data)
        params = {"train_id": "./big"}
        timings: list[tuple[str, float]] = []

        def timed(label: str, work: Callable[[], object]) -> object:
            started = time.perf_counter()
            result = work()
            timings.append((label, time.perf_counter() - started))
            return result

        timed(
            "operator tables only (what the operator page opens on)",
            lambda: page_shared.load_tables(ProfilerService.from_data(data), params),
        )
        timed(
            "parse the profile (CSVs + 200k launch times)",
            lambda: page_shared.load(service, params),
        )
        built = timed(
            "timeline bars (scope rows)", lambda: timeline_page._timeline(service, params, "scope")
        )
        bars, launches, _ = built  # type: ignore[misc]
        timed(
            "whole-run window: merge + figure",
            lambda: timeline_figure(
                bars, window_view(bars, *timeline_page.step_window(launches, None)), launches
            ),
        )
        data.close()
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = os.path.join(DATA_DIR, f"profiler_{args.ops}x{args.steps}")
    generate(base, args.ops, args.steps)
    print(f"before: {machine()}")
    for label, seconds in server_side(base):
        print(f"  server: {label}: {seconds:.2f} s")
    types = len({op.op_type for op in synthetic_ops(args.ops)})
    with tempfile.TemporaryDirectory() as workspace:
        app = create_app(Settings(summary_base_dir=base, workspace=workspace, reload_interval=0))
        app.data_service.loader.wait_rounds(1)
        port = free_port()
        server = waitress.create_server(app.server, host="127.0.0.1", port=port, threads=8)
        threading.Thread(target=server.run, daemon=True).start()
        root = f"http://127.0.0.1:{port}"
        driver = browser()
        try:
            # Dash's bundles into the browser cache, as for a user; and what any page costs.
            empty = [
                open_page(driver, root + "/", SUMMARY_LIST_DRAWN) for _ in range(args.repeat + 1)
            ][1:]
            # plotly.js too, as for a user who opened any chart before (not the profile).
            one_chart = [
                open_page(driver, f"{root}/scalars?train_id=./warm", ONE_CHART_DRAWN)
                for _ in range(args.repeat + 1)
            ][1:]
            dashboard = f"{root}/profiler?train_id=./big"
            operator = f"{root}/profiler/operator?train_id=./big"
            timeline = f"{root}/profiler/timeline?train_id=./big"
            operator_first = open_page(driver, operator, TYPE_VIEW_DRAWN, types)
            operator_again = [
                open_page(driver, operator, TYPE_VIEW_DRAWN, types) for _ in range(args.repeat)
            ]
            operator_click = [
                click_tab(
                    driver, dashboard, DASHBOARD_DRAWN, "prof-tab-operator", TYPE_VIEW_DRAWN, types
                )
                for _ in range(args.repeat)
            ]
            all_first = open_page(driver, operator + "&view=all", ALL_VIEW_DRAWN)
            all_again = [
                open_page(driver, operator + "&view=all", ALL_VIEW_DRAWN)
                for _ in range(args.repeat)
            ]
            timeline_first = open_page(driver, timeline, TIMELINE_DRAWN)
            timeline_again = [
                open_page(driver, timeline, TIMELINE_DRAWN) for _ in range(args.repeat)
            ]
            timeline_click = [
                click_tab(driver, dashboard, DASHBOARD_DRAWN, "prof-tab-timeline", TIMELINE_DRAWN)
                for _ in range(args.repeat)
            ]
        finally:
            driver.quit()
            server.close()
            app.data_service.close()
    launches = args.ops * args.steps
    print(
        f"profiler pages, {launches:,} launches ({args.ops} operators x {args.steps} steps), "
        f"{args.repeat} runs after the first"
    )

    def line(label: str, first: float, again: list[float], target: float | None) -> None:
        verdict = ""
        if target is not None:
            verdict = f"   target < {target:g} s   " + (
                "OK" if max(first, statistics.median(again)) < target else "MISSED"
            )
        print(
            f"  {label}: first {first:.2f} s, then median {statistics.median(again):.2f} s "
            f"(best {min(again):.2f}){verdict}"
        )

    print(
        f"  for scale: summary list (a full Dash page load): median "
        f"{statistics.median(empty):.2f} s; a one-chart scalars page (plotly.js too): "
        f"median {statistics.median(one_chart):.2f} s"
    )
    line(
        "operator page (chart + type table), page load",
        operator_first,
        operator_again,
        OPERATOR_TARGET_S,
    )
    print(
        f"  operator page, from the dashboard's tab: median "
        f"{statistics.median(operator_click):.2f} s (best {min(operator_click):.2f})   "
        f"target < {OPERATOR_TARGET_S:g} s   "
        f"{'OK' if statistics.median(operator_click) < OPERATOR_TARGET_S else 'MISSED'}"
    )
    line("all-operators view (first page), page load", all_first, all_again, None)
    line(
        "timeline (all steps, every row), page load",
        timeline_first,
        timeline_again,
        TIMELINE_TARGET_S,
    )
    print(
        f"  timeline, from the dashboard's tab: median "
        f"{statistics.median(timeline_click):.2f} s (best {min(timeline_click):.2f})   "
        f"target < {TIMELINE_TARGET_S:g} s   "
        f"{'OK' if statistics.median(timeline_click) < TIMELINE_TARGET_S else 'MISSED'}"
    )
    print(f"after: {machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
