"""Browser tests (dash_duo, headless Chromium) of the shell: theme, unknown pages, the menu."""

from __future__ import annotations

import pytest

from dash_insight.web.components.histogram_views import band_fill
from tests.browser import until
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
