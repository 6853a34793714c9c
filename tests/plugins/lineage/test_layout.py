"""The lineage page at 1280×800 as a user reads it (#38 item 8), in English and Chinese: the
filter icon of a right-aligned header at its right edge, the Columns menu's "All" and "None"
apart, the parameter importance's messages whole, category ticks off the axis lines, data
lineage axis titles whole, table headers grouped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dash_insight.web.application import create_app
from tests.browser import until
from tests.pages import accept_language
from tests.plugins.lineage.test_page import LINEAGE_JOBS, _wait_table

pytestmark = pytest.mark.browser

LANGUAGES = ("en-US", "zh-CN")


@pytest.fixture(scope="module")
def app(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = create_app(str(corpus), workspace=str(tmp_path_factory.mktemp("ws")), reload_interval=0)
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def _open(dash_duo: Any, app: Any, language: str, search: str = "", width: int = 1280) -> None:
    dash_duo.start_server(app)
    dash_duo.driver.set_window_size(width, 800)
    accept_language(dash_duo, language)
    dash_duo.wait_for_page(dash_duo.server_url + "/lineage" + search)
    until(
        lambda: (
            dash_duo.driver.execute_script("return document.documentElement.lang")
            == ("zh-CN" if language == "zh-CN" else "en")
        ),
        20,
    )


# -- the table's headers ---------------------------------------------------------------------

#: Per right-aligned (numeric) header: its text's and its filter icon's left and right edges
#: and the cell's right edge.
_RIGHT_ALIGNED = """
return [...document.querySelectorAll('#lineage-grid .ag-header-cell.ag-right-aligned-header')]
  .filter(c => c.offsetParent !== null)
  .map(c => {
    const text = c.querySelector('.ag-header-cell-text').getBoundingClientRect();
    const icon = c.querySelector('.ag-header-cell-filter-button, .ag-header-icon.ag-filter-icon,'
                                 + ' .ag-header-cell-menu-button');
    const box = icon ? icon.getBoundingClientRect() : null;
    const cell = c.getBoundingClientRect();
    return {id: c.getAttribute('col-id'), textRight: text.right,
            iconLeft: box && box.left, iconRight: box && box.right, cellRight: cell.right};
  });"""


def test_filter_icon_of_a_right_aligned_header_sits_at_its_right_edge(
    dash_duo: Any, app: Any
) -> None:
    """#38 item 8: a numeric column's header is right-aligned, like its cells; its filter icon
    is at the right edge too (after the name), not at the left."""
    _open(dash_duo, app, "en-US")
    _wait_table(dash_duo, LINEAGE_JOBS)
    headers = until(lambda: dash_duo.driver.execute_script(_RIGHT_ALIGNED), 20)
    assert {h["id"] for h in headers} >= {"metric/Accuracy", "metric/Loss", "loss"}
    misplaced = [
        h
        for h in headers
        if h["iconLeft"] is None
        or h["iconLeft"] < h["textRight"] - 1
        or h["iconRight"] > h["cellRight"] + 1
        or h["cellRight"] - h["iconRight"] > 24
    ]
    assert misplaced == []


# -- the Columns menu --------------------------------------------------------------------------

_COLUMN_BUTTONS = """
const menu = document.querySelector('.di-lineage-columns');
menu.open = true;
return ['lineage-columns-all', 'lineage-columns-none'].map(id => {
  const b = document.getElementById(id), r = b.getBoundingClientRect();
  return {text: b.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
});"""

_CHECKED = (
    "return [...document.querySelectorAll('#lineage-columns input[type=checkbox]')]"
    ".map(i => i.checked);"
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_columns_menu_has_all_and_none_apart(dash_duo: Any, app: Any, language: str) -> None:
    """#38 item 8: the Columns menu read "AllNone": its two controls are apart and each one
    does what it says."""
    _open(dash_duo, app, language)
    _wait_table(dash_duo, LINEAGE_JOBS)
    until(lambda: len(dash_duo.driver.execute_script(_CHECKED)) > 10, 20)
    every, none = dash_duo.driver.execute_script(_COLUMN_BUTTONS)
    assert (every["text"], none["text"]) == (
        ("All", "None") if language == "en-US" else ("全部", "清空")
    )
    gap = none["left"] - every["right"]
    assert gap >= 8 or none["top"] >= every["bottom"], (every, none)
    dash_duo.find_element("#lineage-columns-none").click()
    until(lambda: not any(dash_duo.driver.execute_script(_CHECKED)), 20)
    dash_duo.find_element("#lineage-columns-all").click()
    until(lambda: all(dash_duo.driver.execute_script(_CHECKED)), 20)


# -- the overview's messages -------------------------------------------------------------------

#: The importance chart's message: its text and whether its box lies inside the chart and the
#: overview panel (nothing cut at either edge).
_MESSAGE_BOX = """
const plot = document.querySelector('#lineage-importance .js-plotly-plot');
const text = plot && plot.querySelector('.annotation-text');
if (!text || !text.textContent) { return null; }
const box = text.getBoundingClientRect(), outer = plot.getBoundingClientRect();
const panel = document.getElementById('lineage-overview').getBoundingClientRect();
const inside = r => box.left >= r.left - 0.5 && box.right <= r.right + 0.5;
return {text: [...text.querySelectorAll('.line')].map(l => l.textContent).join('|')
                || text.textContent,
        inPlot: inside(outer), inPanel: inside(panel), width: box.width,
        plotWidth: outer.width};"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_importance_message_is_whole(dash_duo: Any, app: Any, language: str) -> None:
    """#38 item 8: with one job in the table, "Parameter importance needs at least 3 jobs…" was
    one line wider than the overview, cut at both edges; it wraps inside the chart."""
    _open(dash_duo, app, language, "?show=./lenet_sc")
    _wait_table(dash_duo, {"./lenet_sc"})
    box = until(lambda: dash_duo.driver.execute_script(_MESSAGE_BOX), 30)
    expected = "3" in box["text"] and (
        "needs at least" in box["text"] if language == "en-US" else "至少需要" in box["text"]
    )
    assert expected, box
    assert box["inPlot"] and box["inPanel"], box
