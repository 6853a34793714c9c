"""The auto refresh and the theme a page is built with: the browser's cookies
(web/refresh_setting.py, web/theme.py), so that no callback applies them at load."""

from __future__ import annotations

import json
from pathlib import Path

import flask
import pytest
from selenium.webdriver.common.keys import Keys

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.refresh_setting import (
    REFRESH_COOKIE,
    RefreshSetting,
    parse_refresh,
    request_refresh,
)
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import find_props


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("on:10", RefreshSetting(True, 10)),
        ("off:30", RefreshSetting(False, 30)),
        ("on:1", RefreshSetting(True, 3)),  # MindInsight's bounds, as the browser clamps
        ("off:9999", RefreshSetting(False, 300)),
        ("off:99999999999", RefreshSetting()),
        ("off:-5", RefreshSetting()),
        ("maybe:10", RefreshSetting()),
        ("on", RefreshSetting()),
        ("", RefreshSetting()),
        (None, RefreshSetting()),
    ],
)
def test_the_refresh_cookie(text: str | None, setting: RefreshSetting) -> None:
    assert parse_refresh(text) == setting


def test_the_refresh_of_the_request() -> None:
    app = flask.Flask(__name__)
    with app.test_request_context(headers={"Cookie": f"{REFRESH_COOKIE}=off:42"}):
        assert request_refresh() == RefreshSetting(False, 42)
    assert request_refresh() == RefreshSetting()  # outside a request


@pytest.fixture
def app(corpus: Path, tmp_path: Path):
    app = create_app(
        Settings(summary_base_dir=str(corpus), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def test_the_layout_is_built_with_the_cookies(app) -> None:
    client = app.server.test_client()
    client.set_cookie(REFRESH_COOKIE, "off:42")
    client.set_cookie("di_theme", "dark")
    layout = json.loads(client.get("/_dash-layout").data)
    assert find_props(layout, "auto-refresh")["value"] == []
    assert find_props(layout, "refresh-seconds")["value"] == 42
    assert (
        find_props(layout, "refresh-interval")["disabled"],
        find_props(layout, "refresh-interval")["interval"],
    ) == (True, 42_000)
    theme = find_props(layout, "theme")
    assert theme["data"] == "dark" and "storage_type" not in theme  # in memory: no echo at mount
    # Nothing in them is remembered by Dash in the browser, whose copy would differ.
    assert "persistence" not in find_props(layout, "auto-refresh")
    fresh = json.loads(app.server.test_client().get("/_dash-layout").data)
    assert find_props(fresh, "auto-refresh")["value"] == ["on"]
    assert find_props(fresh, "refresh-interval")["interval"] == 10_000
    assert find_props(fresh, "theme")["data"] == "light"


def test_the_theme_and_refresh_callbacks_are_not_called_at_load(app) -> None:
    by_output = {c["output"]: c for c in app._callback_list}
    assert by_output["theme.data"]["prevent_initial_call"] is True
    timer = "..refresh-interval.disabled...refresh-interval.interval.."
    assert by_output[timer]["prevent_initial_call"] is True


#: The props of the ``refresh-interval`` timer in Dash's layout.
TIMER = """
const find = node => {
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = find(child);
      if (found) return found;
    }
    return null;
  }
  if (!node || typeof node !== "object" || !node.props) return null;
  return node.props.id === "refresh-interval" ? node.props : find(node.props.children);
};
return find(window.store.getState().layout.components);
"""


@pytest.mark.browser
def test_the_refresh_setting_is_kept_across_loads(dash_duo, app) -> None:
    dash_duo.start_server(app)
    dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
    dash_duo.wait_for_element("#lineage-overview", timeout=30)
    seconds = dash_duo.find_element("#refresh-seconds")
    seconds.send_keys(Keys.CONTROL, "a")
    seconds.send_keys("42", Keys.ENTER)
    dash_duo.find_element("#auto-refresh input").click()
    cookie = "return (document.cookie.match(/di_refresh=([^;]*)/) || [])[1]"
    until(lambda: dash_duo.driver.execute_script(cookie) == "off:42", 10)
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./lenet_sc")
    dash_duo.wait_for_element("#dashboard-cards .di-card", timeout=30)
    wait_idle(dash_duo)
    assert not dash_duo.find_element("#auto-refresh input").is_selected()
    assert dash_duo.find_element("#refresh-seconds").get_attribute("value") == "42"
    # The timer of the page is the one set: off, every 42 s.
    state = dash_duo.driver.execute_script(TIMER)
    assert (state["disabled"], state["interval"]) == (True, 42_000)
    dash_duo.find_element("#auto-refresh input").click()
    until(lambda: dash_duo.driver.execute_script(cookie) == "on:42", 10)
    assert console_errors(dash_duo) == []
