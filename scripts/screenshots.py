"""Screenshots of every page of the user guide (``docs/pages/``), in both themes and both
languages.

Serves the real MindSpore jobs of ``--shared`` (default ``../shared``: ``corpus/``, and
``corpus-landscape/`` and ``corpus-profiler/`` for those pages) in-process, opens each
page in headless Chromium at ``--width`` x ``--height`` pixels, waits until the page is drawn
(its content is there, every Plotly chart has rendered, Dash has no callback pending), then
saves the page (down to ``--max-height``) as ``<page>-light.png`` and ``<page>-dark.png``, and
in Chinese as ``<page>-zh-light.png`` and ``<page>-zh-dark.png`` (the Chinese guide shows
those), under ``--out`` (default ``docs/img``).

    .venv/bin/python scripts/screenshots.py [--shared ../shared] [--out docs/img] [--only NAME ...]

Needs Debian's chromium + chromium-driver (``./scripts/test.sh`` installs them).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import waitress
from selenium import webdriver

from dash_insight.core import i18n
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.url_state import encode_tags

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LENET = quote("./lenet_adam_lr0.001_bs32")

#: name, corpus (a folder of ``--shared``), path and query, the element that says the page's
#: content is there, and the elements clicked in turn once it is drawn, those shown (the graph:
#: its first-visit guide closed, its first scope opened, as a user would). One per page of the
#: user guide (``docs/pages/``).
PAGES: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    ("summary-list", "corpus", "/", "#job-table tbody tr", ()),
    ("dashboard", "corpus", f"/dashboard?train_id={LENET}", "#preview-scalar .main-svg", ()),
    ("scalars", "corpus", f"/scalars?train_id={LENET}", ".di-chart-card .js-plotly-plot", ()),
    (
        "parameter-distribution",
        "corpus",
        f"/histograms?train_id={LENET}",
        ".di-vp-card .js-plotly-plot",
        (),
    ),
    ("images", "corpus", f"/images?train_id={LENET}", ".di-vi-meta span", ()),
    (
        "tensors",
        "corpus",
        "/tensors?train_id=" + quote("./ops_all"),
        ".di-vt-card .di-card-body",
        (),
    ),
    (
        "graph",
        "corpus",
        f"/graph?train_id={LENET}",
        "#graph-cy[data-laid-out] canvas",
        ("#graph-guide-close", ".gp-tree-toggle"),
    ),
    ("data-graph", "corpus", f"/data-graph?train_id={LENET}", "#data-graph-cy canvas", ()),
    ("lineage", "corpus", "/lineage", ".di-lineage-grid .ag-row", ()),
    (
        "comparison",
        "corpus",
        "/compare?jobs="
        + quote(
            encode_tags(
                [
                    "./lenet_adam_lr0.001_bs32",
                    "./lenet_lr0.01_bs32",
                    "./lenet_lr0.05_bs64",
                    "./lenet_lr0.1_bs16",
                ]
            )
        ),
        ".di-chart-card .js-plotly-plot",
        (),
    ),
    (
        "comparison-groups",
        "corpus",
        "/compare?jobs="
        + quote(
            encode_tags(
                [
                    "./lenet_sc",
                    "./lenet_lr0.01_bs32",
                    "./lenet_lr0.05_bs64",
                    "./lenet_lr0.1_bs16",
                    "./lenet_adam_lr0.001_bs32",
                ]
            )
        )
        + "&group_by=optimizer&band=minmax&runs=1",
        ".di-chart-card .js-plotly-plot",
        (),
    ),
    (
        "landscape",
        "corpus-landscape",
        "/loss-landscape?train_id=" + quote("./lenet_step"),
        "#ls-graph .js-plotly-plot",
        (),
    ),
    (
        "profiler",
        "corpus-profiler",
        "/profiler?train_id=" + quote("./lenet_prof"),
        "#prof-card-ranking",
        (),
    ),
)

#: The languages shot: the locale the language cookie asks for, and its part of the file name.
LANGUAGES = ((i18n.ENGLISH, ""), (i18n.CHINESE, "-zh"))
THEMES = ("light", "dark")


def file_names(page: str) -> list[str]:
    """The screenshots of ``page``: each language in each theme."""
    return [f"{page}{part}-{theme}.png" for _, part in LANGUAGES for theme in THEMES]


#: True when the page is drawn: its content selector matches, every Plotly chart has a layout,
#: and Dash has no callback requested, waiting or running.
DRAWN = """
const selector = arguments[0];
if (!document.querySelector(selector) || !window.store) { return false; }
const callbacks = window.store.getState().callbacks || {};
const idle = ['requested', 'prioritized', 'blocked', 'executing', 'watched', 'executed']
  .every(name => !(callbacks[name] || []).length);
const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
return idle && plots.every(plot => plot._fullLayout);
"""


def browser(width: int, height: int) -> webdriver.Chrome:
    """Headless Chromium (Debian's, when installed) at the window size of the screenshots."""
    options = webdriver.ChromeOptions()
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(options=options)


def wait_drawn(driver: webdriver.Chrome, selector: str, timeout: float = 120.0) -> None:
    """Until :data:`DRAWN` has held for one second (charts settle; a late callback resets it)."""
    deadline = time.monotonic() + timeout
    held_since = None
    while time.monotonic() < deadline:
        if driver.execute_script(DRAWN, selector):
            held_since = held_since or time.monotonic()
            if time.monotonic() - held_since >= 1.0:
                return
        else:
            held_since = None
        time.sleep(0.1)
    raise TimeoutError(f"{driver.current_url}: not drawn within {timeout:.0f} s")


def set_theme(driver: webdriver.Chrome, theme: str) -> None:
    """Click the theme button until ``<html data-theme>`` is ``theme`` (the choice is stored
    in the browser, so later pages open in it)."""
    for _ in range(3):
        if driver.execute_script("return document.documentElement.dataset.theme") == theme:
            return
        driver.find_element("id", "theme-toggle").click()
        deadline = time.monotonic() + 10
        while (
            time.monotonic() < deadline
            and driver.execute_script("return document.documentElement.dataset.theme") != theme
        ):
            time.sleep(0.05)
    raise RuntimeError(f"could not switch to the {theme} theme")


def serve(corpus: str, workspace: str) -> tuple[str, Callable[[], None]]:
    """``corpus`` served in-process once read: its address and how to stop it."""
    app = create_app(Settings(summary_base_dir=corpus, workspace=workspace, reload_interval=0))
    app.data_service.loader.wait_rounds(1)
    server = waitress.create_server(app.server, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()

    def stop() -> None:
        server.close()
        app.data_service.close()

    return f"http://127.0.0.1:{server.effective_port}", stop


def set_language(driver: webdriver.Chrome, url: str, locale: str) -> None:
    """The language cookie the top bar's switch sets, for the server of ``url``."""
    driver.get(url)
    driver.add_cookie({"name": i18n.COOKIE_NAME, "value": locale, "path": "/"})


def shoot(driver: webdriver.Chrome, url: str, page: tuple[str, ...], args: Any) -> None:
    """The page at ``url`` in each language and theme (:func:`file_names`), each down to
    ``--max-height``."""
    name, selector, clicks = page[0], page[3], page[4]
    for (locale, part), theme in ((language, theme) for language in LANGUAGES for theme in THEMES):
        set_language(driver, url, locale)
        driver.get(url)
        wait_drawn(driver, selector)
        for click in clicks:
            element = driver.find_element("css selector", click)
            if element.is_displayed():  # the graph's first-visit guide: closed once
                element.click()
                wait_drawn(driver, selector)
        set_theme(driver, theme)
        wait_drawn(driver, selector)
        # The whole page down to --max-height: the charts below the pickers too.
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(args.width, min(max(height, args.height) + 150, args.max_height))
        wait_drawn(driver, selector)
        target = os.path.join(args.out, f"{name}{part}-{theme}.png")
        driver.save_screenshot(target)
        driver.set_window_size(args.width, args.height)
        print(f"wrote {os.path.relpath(target, ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    parser.add_argument("--only", nargs="*", help="these pages only (names as in PAGES)")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--max-height", type=int, default=1700, help="a longer page is cut here")
    args = parser.parse_args()
    pages = [page for page in PAGES if not args.only or page[0] in args.only]
    corpora = {page[1]: os.path.normpath(os.path.join(args.shared, page[1])) for page in pages}
    missing = [folder for folder in corpora.values() if not os.path.isdir(folder)]
    if missing:
        print(f"no corpus at {', '.join(missing)}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    driver = browser(args.width, args.height)
    try:
        for corpus, folder in corpora.items():
            with tempfile.TemporaryDirectory() as workspace:
                address, stop = serve(folder, workspace)
                try:
                    for page in pages:
                        if page[1] == corpus:
                            shoot(driver, address + page[2], page, args)
                finally:
                    stop()
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
