"""The lineage page at 1280×800 as a user reads it (#38 item 8), in English and Chinese: the
filter icon of a right-aligned header at its right edge, the Columns menu's "All" and "None"
apart, the parameter importance's messages whole, category ticks off the axis lines, data
lineage axis titles whole, table headers grouped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dash.testing import errors as testing_errors

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.browser import until
from tests.pages import accept_language
from tests.plugins.lineage import chart_driver as chart
from tests.plugins.lineage.test_chart_readable import _overlapping
from tests.plugins.lineage.test_page import LINEAGE_JOBS, _wait_table

pytestmark = pytest.mark.browser

LANGUAGES = ("en-US", "zh-CN")


@pytest.fixture(scope="module")
def app(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = create_app(
        Settings(
            summary_base_dir=str(corpus),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
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
const plot = document.querySelector('#lineage-importance svg.di-svg');
const text = plot && plot.querySelector('.di-svg-message');
if (!text || !text.textContent) { return null; }
const box = text.getBoundingClientRect(), outer = plot.getBoundingClientRect();
const panel = document.getElementById('lineage-overview').getBoundingClientRect();
const inside = r => box.left >= r.left - 0.5 && box.right <= r.right + 0.5;
return {text: [...text.querySelectorAll('tspan')].map(l => l.textContent).join('|'),
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


# -- the overview's places --------------------------------------------------------------------

#: Records, before any script of the page runs, where each overview chart's slot is after
#: every change of the page (its distance from the page's top).
_SLOT_PLACES = """
window.__places = [];
new MutationObserver(() => {
  const slots = [...document.querySelectorAll('#lineage-overview .di-svg-chart')];
  if (slots.length) window.__places.push(slots.map(s => s.getBoundingClientRect().top + scrollY));
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


def test_the_overview_charts_keep_their_places(dash_duo: Any, app: Any) -> None:
    """Issue 37 item 2: each overview chart's slot is where it will be from the page's first
    render on. The dropdowns, which dcc draws a render later, and the parameter importance,
    higher than its stylesheet's place for its rows, moved the charts below them down: the
    scatter, just below the first screen of a 1600x1000 window, started on it and was drawn."""
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _SLOT_PLACES}
    )
    _open(dash_duo, app, "en-US")
    _wait_table(dash_duo, LINEAGE_JOBS)
    until(
        lambda: (
            dash_duo.driver.execute_script(
                "return document.querySelectorAll('#lineage-overview svg.di-svg').length"
            )
            == 3
        ),
        30,
    )
    places = dash_duo.driver.execute_script("return window.__places")
    assert places and all(place == places[-1] for place in places), places


# -- grouped headers ---------------------------------------------------------------------------

#: Per header group drawn: its text, its box, and the boxes of the column headers under it.
_GROUPS = """
const box = e => { const r = e.getBoundingClientRect();
                   return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
const api = window.dash_ag_grid.getApi('lineage-grid');
const members = {};
(api.getColumnDefs() || []).filter(d => d.children)
  .forEach(d => { members[d.groupId] = d.children.map(c => c.colId); });
return [...document.querySelectorAll('#lineage-grid .ag-header-group-cell[col-id^="group-"]')]
  .filter(g => g.offsetParent !== null)
  .map(g => {
    const id = g.getAttribute('col-id').replace(/_\\d+$/, '');  // AG Grid adds "_0"
    const children = (members[id] || []).map(c => document.querySelector(
      `#lineage-grid .ag-header-cell[col-id="${CSS.escape(c)}"]`)).filter(c => c);
    return {id, text: g.querySelector('.ag-header-group-text').textContent, box: box(g),
            children: children.map(c => ({id: c.getAttribute('col-id'), box: box(c)}))};
  });"""

_GROUP_NAMES = {
    "en-US": ["Metrics", "Hyper-parameters", "User-defined", "Dataset"],
    "zh-CN": ["度量指标", "超参数", "自定义数据", "数据集"],
}


def _spans(group: dict[str, Any]) -> bool:
    """Whether a drawn header group is above its columns and spans them (to a pixel)."""
    lefts = [c["box"]["left"] for c in group["children"]]
    rights = [c["box"]["right"] for c in group["children"]]
    tops = [c["box"]["top"] for c in group["children"]]
    return (
        group["box"]["bottom"] <= min(tops) + 1
        and abs(group["box"]["left"] - min(lefts)) <= 1
        and abs(group["box"]["right"] - max(rights)) <= 1
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_table_headers_are_grouped(dash_duo: Any, app: Any, language: str) -> None:
    """#38 item 8: as MindInsight's table, a header row above the column names names each
    group (metrics, hyper-parameters, user-defined, dataset) over its columns; sorting and
    choosing columns still work."""
    columns = "dataset_mark,user_defined/seed,metric/Accuracy,epoch"
    # Wide enough for every chosen column beside the job, remark, tag and labels ones: AG Grid
    # draws only the columns in view.
    _open(dash_duo, app, language, "?columns=" + columns.replace("/", "%2F"), width=1600)
    _wait_table(dash_duo, LINEAGE_JOBS)

    def groups() -> list[dict[str, Any]]:
        """The four groups once each is above its columns, spanning them (AG Grid sizes the
        columns after it draws the group row: wait for the sizes to settle)."""
        drawn = dash_duo.driver.execute_script(_GROUPS)
        if len(drawn) != 4 or not all(g["children"] and _spans(g) for g in drawn):
            return []
        return drawn

    try:
        drawn = until(groups, 20)
    except testing_errors.TestingTimeoutError:
        raise AssertionError(dash_duo.driver.execute_script(_GROUPS)) from None
    assert [g["text"] for g in drawn] == _GROUP_NAMES[language]
    assert {g["id"]: sorted(c["id"] for c in g["children"]) for g in drawn} == {
        "group-metrics": ["metric/Accuracy"],
        "group-hyper": ["epoch"],
        "group-user": ["user_defined/seed"],
        "group-dataset": ["dataset_mark"],
    }

    # Sorting a grouped column still reaches the URL.
    dash_duo.find_element(
        '#lineage-grid .ag-header-cell[col-id="epoch"] .ag-header-cell-label'
    ).click()
    until(lambda: "sort=epoch" in dash_duo.driver.current_url, 20)
    # Hiding every user-defined column hides its group.
    dash_duo.driver.execute_script("document.querySelector('.di-lineage-columns').open = true;")
    dash_duo.find_element('#lineage-columns input[value="user_defined/seed"]').click()
    until(
        lambda: (
            [g["id"] for g in dash_duo.driver.execute_script(_GROUPS)]
            == ["group-metrics", "group-hyper", "group-dataset"]
        ),
        20,
    )


# -- the chart ---------------------------------------------------------------------------------

#: Per axis title: its lines, its hover text (the whole name) and whether its box lies inside
#: the chart's (nothing cut at an edge).
_TITLES = """
const svg = document.querySelector('#lineage-chart svg.di-pc');
if (!svg) { return []; }
const outer = svg.getBoundingClientRect();
return [...svg.querySelectorAll('.di-pc-axis .axis-title')].map(t => {
  const r = t.getBoundingClientRect();
  return {lines: [...t.querySelectorAll('tspan')].map(s => s.textContent),
          whole: t.querySelector('title').textContent,
          inside: r.left >= outer.left - 0.5 && r.right <= outer.right + 0.5
                  && r.top >= outer.top - 0.5};
});"""


@pytest.mark.parametrize("width", [1280, 1600])
def test_data_lineage_axis_titles_are_whole(dash_duo: Any, app: Any, width: int) -> None:
    """#38 item 8: data lineage's titles are stage names with their parameters, longer than
    22 characters: they were cut to "Map 2 [Resize, Rescal…". They wrap onto more lines,
    whole, inside the chart, apart from each other; the hover has the name too."""
    _open(dash_duo, app, "en-US", "?tab=dataset", width)
    until(lambda: len(chart.axis_titles(dash_duo)) >= 5, 30)
    titles = dash_duo.driver.execute_script(_TITLES)
    assert any(len(t["lines"]) > 1 for t in titles)  # the corpus has a long one
    for title in titles:
        assert "…" not in "".join(title["lines"]), title
        assert "".join(title["lines"]).replace(" ", "") == title["whole"].replace(" ", "")
        assert title["inside"], title
    assert _overlapping(dash_duo, "#lineage-chart .axis-title") == []


#: Tick labels whose box crosses an axis line (their own or a neighbour's), with the axis.
_TICKS_ON_AXES = """
const domains = [...document.querySelectorAll('#lineage-chart .di-pc-axis')].map(a => {
  const r = a.querySelector('.di-pc-domain').getBoundingClientRect();
  return {id: a.dataset.id, x: (r.left + r.right) / 2, top: r.top, bottom: r.bottom};
});
const out = [];
document.querySelectorAll('#lineage-chart .di-pc-axis').forEach(a => {
  a.querySelectorAll('.tick text').forEach(t => {
    const r = t.getBoundingClientRect();
    domains.filter(d => r.left < d.x && r.right > d.x && r.bottom > d.top && r.top < d.bottom)
      .forEach(d => out.push(a.dataset.id + ': ' + t.firstChild.nodeValue + ' on ' + d.id));
  });
});
return out;"""


@pytest.mark.parametrize("tab", ["model", "dataset"])
def test_tick_labels_are_off_the_axis_lines(dash_duo: Any, app: Any, tab: str) -> None:
    """#38 item 8: at 1280 px a category's label ("Momentum", "batch_siz…") reached across
    the axis left of it; labels stay between two axes, a category's on a chip over the job
    lines, the whole value in its hover."""
    _open(dash_duo, app, "en-US", "" if tab == "model" else "?tab=dataset")
    until(lambda: len(chart.axis_titles(dash_duo)) >= 5, 30)
    until(lambda: chart.tick_texts(dash_duo) and all(chart.tick_texts(dash_duo)), 20)
    assert dash_duo.driver.execute_script(_TICKS_ON_AXES) == []
    chips = dash_duo.driver.execute_script(
        "return document.querySelectorAll('#lineage-chart .di-pc-tick-chip').length;"
    )
    categories = dash_duo.driver.execute_script(
        "return document.querySelectorAll("
        "'#lineage-chart .di-pc-axis[data-kind=category] .tick text').length;"
    )
    assert chips == categories > 0
