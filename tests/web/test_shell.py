"""Browser tests (dash_duo, headless Chromium) of the shell: theme, unknown pages, the menu."""

from __future__ import annotations

import pytest

from dash_insight.web.components.histogram_views import band_fill
from tests.browser import until, wait_idle
from tests.conftest import console_errors

pytestmark = pytest.mark.browser


def test_theme_toggle_and_unknown_page(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_element("#job-table")
    dash_duo.find_element("#theme-toggle").click()
    until(
        lambda: (
            dash_duo.driver.execute_script("return document.documentElement.dataset.theme")
            == "dark"
        ),
        5,
    )
    dash_duo.wait_for_page(dash_duo.server_url + "/no-such-page")
    dash_duo.wait_for_contains_text("#page", "Page not found")
    # The theme is remembered across page loads.
    assert dash_duo.driver.execute_script("return document.documentElement.dataset.theme") == "dark"
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./nope")
    dash_duo.wait_for_contains_text("#dashboard-cards", "no training job")
    # The server knows it too (cookie): the parameter distribution arrives with its layout,
    # its bands already filled on the dark card colour.
    assert "di_theme=dark" in dash_duo.driver.execute_script("return document.cookie")
    dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./lenet_sc")
    first_band = (
        "const p = document.querySelector('#hist-cards .js-plotly-plot'); "
        "const band = p && p.layout && (p.layout.shapes || [])[0]; "
        "return band ? [band.fillcolor, band.line.color] : null;"
    )
    until(lambda: dash_duo.driver.execute_script(first_band) is not None, 20)
    fill, line = dash_duo.driver.execute_script(first_band)
    assert fill == band_fill(line, "dark") != band_fill(line, "light")
    assert console_errors(dash_duo) == []


def _active_nav(dash_duo) -> list[str]:
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#nav a.active')).map(a => a.id);"
    )


def test_menu_marks_the_page_shown(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_element("#job-table")
    until(lambda: _active_nav(dash_duo) == ["nav-home"], 5)
    dash_duo.find_element("#nav-lineage").click()
    until(lambda: _active_nav(dash_duo) == ["nav-lineage"], 5)  # home only on its own page
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./lenet_sc")
    until(lambda: _active_nav(dash_duo) == [], 5)
    assert console_errors(dash_duo) == []


#: Records every change of an attribute of ``<html>`` or of the menu's links once the page
#: is in the document (run before the page's own scripts).
FRAME_CHANGES = r"""
window.__frameChanges = [];
new MutationObserver(records => records.forEach(r => {
  if (r.target === document.documentElement || (r.target.closest && r.target.closest("#nav"))) {
    window.__frameChanges.push((r.target.id || r.target.tagName) + " " + r.attributeName);
  }
})).observe(document, {subtree: true, attributes: true});
"""


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_frame_is_not_changed_after_load(dash_duo, corpus_app, dark: bool) -> None:
    """The server writes the theme (the di_theme cookie) on <html> and marks the menu link of
    the page (issue 37 item 2): the theme and menu callbacks that run at load change nothing,
    so the page's last change is its content's."""
    dash_duo.start_server(corpus_app)
    if dark:
        dash_duo.driver.get(dash_duo.server_url + "/no-such-page")
        dash_duo.driver.add_cookie({"name": "di_theme", "value": "dark", "path": "/"})
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": FRAME_CHANGES}
    )
    dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
    dash_duo.wait_for_element("#lineage-overview", timeout=30)
    until(lambda: _active_nav(dash_duo) == ["nav-lineage"], 5)
    wait_idle(dash_duo)
    theme = dash_duo.driver.execute_script("return document.documentElement.dataset.theme")
    assert theme == ("dark" if dark else None)
    assert dash_duo.driver.execute_script("return window.__frameChanges") == []
    dash_duo.find_element("#theme-toggle").click()  # the observer does see a change
    until(lambda: dash_duo.driver.execute_script("return window.__frameChanges.length") > 0, 5)
    assert console_errors(dash_duo) == []
