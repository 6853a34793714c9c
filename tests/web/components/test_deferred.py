"""A component mounted after the charts on screen (web/components/deferred.py,
assets/deferred.js)."""

from __future__ import annotations

import json

import pytest
from dash import html

from dash_insight.web.components.deferred import LONGEST_WAIT_MS, deferred, deferred_children
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import find


def test_the_holder_carries_its_component_as_json() -> None:
    holder = deferred(
        html.Span("late", id="inner", title="x"),
        "holder",
        className="di-picker-list",
        style={"minHeight": "90px"},
    )
    props = holder.to_plotly_json()["props"]
    assert props["id"] == "holder" and props["className"] == "di-deferred di-picker-list"
    assert props["style"] == {"minHeight": "90px"} and props["children"] is None
    assert json.loads(props["data-component"]) == {
        "type": "Span",
        "namespace": "dash_html_components",
        "props": {"children": "late", "id": "inner", "title": "x"},
    }
    assert props["data-wait-ms"] == str(LONGEST_WAIT_MS)
    assert find(holder, "inner").children == "late"  # Python readers still find it


def test_a_card_holds_its_children_back_but_its_title() -> None:
    title = html.Div("loss", className="title")
    card = html.Div(
        [html.Button("log", id="b"), title],
        id={"type": "card", "n": "1"},
        className="card",
        style={"order": 2},
    )
    holder = deferred_children(card, "300px", 3, keep=lambda c: c is title)
    props = holder.to_plotly_json()["props"]
    assert props["id"] == {"type": "card", "n": "1"}
    assert props["className"] == "di-deferred card" and props["children"] == [title]
    assert props["style"] == {"order": 2, "minHeight": "300px"}
    assert json.loads(props["data-style"]) == {"order": 2}  # the card's own, once filled
    assert props["data-on-screen"] == "now" and props["data-batch"] == "3"
    assert [c["props"].get("id") for c in json.loads(props["data-component"])] == ["b", None]
    assert find(holder, "b").children == "log"
    held = deferred_children(card, "300px", 3, keep=lambda c: c is title, on_screen_only=True)
    assert held.to_plotly_json()["props"]["data-on-screen"] == "only"


# When each thing first appeared, from before the page's scripts run.
ORDER_PROBE = """
window.__firstSeen = {};
(function tick() {
  const seen = window.__firstSeen;
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
  if (!seen.chart && plots.some(p => p._fullLayout)) seen.chart = performance.now();
  if (!seen.grid && document.querySelector('#scalar-tags .ag-row')) seen.grid = performance.now();
  if (!(seen.chart && seen.grid)) requestAnimationFrame(tick);
})();
"""


@pytest.mark.browser
def test_the_tag_grid_comes_after_the_first_chart(dash_duo, corpus_app) -> None:
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": ORDER_PROBE}
    )
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./lenet_sc")
    until(lambda: len(dash_duo.driver.execute_script("return window.__firstSeen")) == 2, 20)
    seen = dash_duo.driver.execute_script("return window.__firstSeen")
    assert seen["chart"] <= seen["grid"], seen
    # The mounted grid works: its rows tick and its holder no longer holds a fixed space.
    assert dash_duo.find_element("#scalar-tags-holder").get_attribute("style") == ""
    dash_duo.find_element("#scalar-tags-none").click()
    dash_duo.wait_for_contains_text("#scalar-grid", "No tag selected")
    assert console_errors(dash_duo) == []
