"""Scalar charts in the browser: Plotly's toolbar out of the way (issue #17 item 4) and nice
axes (item 5): a constant series on a padded range, nice ticks shared by a right axis, a
threshold that leaves the x range alone (the JavaScript twins: test_chart_twins.py)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from selenium.webdriver.support.ui import Select

from dash_insight import SummaryWriter
from dash_insight.web.url_state import encode_tags
from tests.browser import point_until, until
from tests.conftest import console_errors, loaded_app
from tests.pages import TICK_LABELS


def _open(dash_duo, app, path: str) -> None:
    dash_duo.start_server(app)
    dash_duo.wait_for_page(dash_duo.server_url + path)


def _card(train_id: str, tag: str) -> str:
    return f'.di-chart-card[id*="\\"chart\\":\\"{train_id}|{tag}\\""]'


def _drawn(dash_duo, card: str) -> bool:
    return bool(
        dash_duo.driver.execute_script(
            "const p = document.querySelector(arguments[0] + ' .js-plotly-plot');"
            "return !!(p && p._fullLayout && p.data && p.data.length);",
            card,
        )
    )


def _full_axis(dash_duo, card: str, axis: str) -> dict:
    """The drawn axis (Plotly's _fullLayout): range, tick values shown, tick step; the
    traces drawn (without the epoch and restart markers, test_markers.py)."""
    return dash_duo.driver.execute_script(
        """
        const p = document.querySelector(arguments[0] + ' .js-plotly-plot');
        const a = p._fullLayout[arguments[1]];
        const traces = p.data.filter(t => (t.meta || {}).role !== 'marker').length;
        return {range: a.range.slice(), ticks: (a._vals || []).map(v => v.x),
                dtick: a.dtick, traces};""",
        card,
        axis,
    )


def _rect(dash_duo, selector: str) -> list[dict]:
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => {"
        " const r = e.getBoundingClientRect();"
        " return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; });",
        selector,
    )


def _overlap(a: dict, b: dict) -> bool:
    return (
        min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
        and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
    )


def _modebar_opacity(dash_duo, card: str) -> str:
    return dash_duo.driver.execute_script(
        "const m = document.querySelector(arguments[0] + ' .modebar-container');"
        "return m ? getComputedStyle(m).opacity : 'none';",
        card,
    )


def _hover_until_toolbar_shows(dash_duo, card: str) -> None:
    """Point at the card's plot until Plotly's toolbar is fully shown."""
    point_until(dash_duo, f"{card} .nsewdrag", lambda: _modebar_opacity(dash_duo, card) == "1", 10)


def test_plotly_toolbar_shows_on_hover_and_covers_nothing_of_ours(dash_duo, corpus_app) -> None:
    # A chart narrower than its 500 steps: it draws one point per pixel column, with a note.
    dash_duo.driver.set_window_size(560, 1000)
    _open(dash_duo, corpus_app, "/scalars?train_id=./ops_all&tags=loss")
    card = _card("./ops_all", "loss")
    until(lambda: _drawn(dash_duo, card), 20)
    note = dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' .annotation-text'))"
        ".map(e => e.textContent);",
        card,
    )
    assert any("points drawn" in text for text in note)  # the note this test protects
    assert _modebar_opacity(dash_duo, card) == "0"  # hidden until the pointer is over it

    _hover_until_toolbar_shows(dash_duo, card)
    modebar = _rect(dash_duo, f"{card} .modebar")[0]
    ours = (
        _rect(dash_duo, f"{card} .di-chart-tools button")
        + _rect(dash_duo, f"{card} .annotation")
        + _rect(dash_duo, f"{card} .nsewdrag")  # the plot area: lines, peaks
        + _rect(dash_duo, f"{card} .ytick text")
        + _rect(dash_duo, f"{card} .y2tick text")
    )
    assert len(ours) > 6
    assert not [r for r in ours if _overlap(modebar, r)]
    # Still inside the card (in its tool row, left of our buttons).
    outer = _rect(dash_duo, card)[0]
    assert outer["top"] <= modebar["top"] and modebar["bottom"] <= outer["bottom"]
    assert console_errors(dash_duo) == []


def test_constant_series_threshold_and_right_axis(dash_duo, corpus_app) -> None:
    _open(dash_duo, corpus_app, "/scalars?train_id=./lenet_sc")
    constant = _card("./lenet_sc", "learning_rate")
    loss = _card("./lenet_sc", "loss/auto")
    for card in (constant, loss):  # each chart is drawn when it comes on screen
        until(
            lambda card=card: dash_duo.driver.execute_script(  # once its card is there
                "const card = document.querySelector(arguments[0]);"
                "if (card) card.scrollIntoView({block: 'center'}); return !!card;",
                card,
            ),
            30,
        )
        until(lambda card=card: _drawn(dash_duo, card), 30)

    # The learning rate (0.05 throughout) sits inside a padded range around it, not -0.5..1.
    low, high = _full_axis(dash_duo, constant, "yaxis")["range"]
    assert 0.03 < low < 0.05 < high < 0.07

    # Nice ticks on the loss axis: multiples of a 1, 2, 2.5, 5 x 10^k step.
    y_axis = _full_axis(dash_duo, loss, "yaxis")
    step = y_axis["ticks"][1] - y_axis["ticks"][0]
    assert any(
        math.isclose(step / 10 ** math.floor(math.log10(step)), m, rel_tol=1e-6)
        for m in (1, 2, 2.5, 5)
    )

    # A threshold adds red segments and dots but leaves the x range where it was.
    before = _full_axis(dash_duo, loss, "xaxis")["range"]
    element = dash_duo.find_element(f'{loss} button[id*="th-open"]')
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()
    until(lambda: dash_duo.find_element("#th-form").is_displayed(), 10)
    value = dash_duo.find_element("#th-value-1")
    value.send_keys("\ue009a")
    value.send_keys("2.2\ue007")
    # A second condition through the browser's menu of the two comparisons.
    second = Select(dash_duo.find_element("select#th-op-2"))
    assert [option.text for option in second.options] == ["—", "greater than", "less than"]
    second.select_by_visible_text("less than")
    dash_duo.find_element("#th-value-2").send_keys("9\ue007")
    dash_duo.find_element("#th-apply").click()
    # raw and smoothed traces (the best-value star is drawn over the graph), then the threshold's
    until(lambda: _full_axis(dash_duo, loss, "xaxis")["traces"] == 3, 10)
    assert _full_axis(dash_duo, loss, "xaxis")["range"] == before
    current = f'{loss} [id*="th-current"]'
    until(lambda: "> 2.2 and < 9" in dash_duo.find_element(current).text, 10)

    # Two tags composed: the right axis has nice ticks on the left axis' grid lines.
    dash_duo.driver.get(
        dash_duo.server_url
        + "/scalars?train_id=./lenet_sc&compose="
        + encode_tags(["loss/auto", "learning_rate"])
    )
    composed = '.di-chart-card[id*="compose"]'
    until(lambda: _drawn(dash_duo, composed), 20)
    left = _full_axis(dash_duo, composed, "yaxis")
    right = _full_axis(dash_duo, composed, "yaxis2")
    assert len(left["ticks"]) == len(right["ticks"]) >= 3
    lows = [axis["range"][0] for axis in (left, right)]
    for axis, start in zip((left, right), lows, strict=True):
        positions = [(t - start) / (axis["range"][1] - start) for t in axis["ticks"]]
        assert np.allclose(positions, np.linspace(0, 1, len(positions)))
    assert 0.03 < right["range"][0] < 0.05 < right["range"][1] < 0.07
    assert console_errors(dash_duo) == []


# Issue #38 items 4 and 5 at a laptop's window: the best-value stars cover no tick label and
# no note, a chart has one note clear of Plotly's toolbar, composed tags of different ranges
# get axes of their own.
LAPTOP = (1280, 800)
#: A chart's drawn words: tick labels of every axis, axis titles, the notes.
LABELS = (".xtick text", ".ytick text", ".y2tick text", ".g-ytitle", ".g-y2title", ".annotation")

#: The rectangles of a chart's stars (shown ones) and of its drawn words (LABELS).
STARS_AND_LABELS = """
const card = document.querySelector(arguments[0]);
const plot = card && card.querySelector('.js-plotly-plot');
if (!plot || !plot._fullLayout) return null;
const box = e => { const r = e.getBoundingClientRect();
                   return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                           text: e.textContent}; };
const stars = Array.from(plot.querySelectorAll('.di-best-star')).filter(e => !e.hidden).map(box);
const labels = Array.from(plot.querySelectorAll(arguments[1].join(',')))
  .filter(e => e.getBoundingClientRect().width > 0).map(box);
return {stars, labels};"""


def _stars_and_labels(dash_duo, card: str, stars: int) -> dict:
    """Once ``stars`` stars are placed on the chart (scrolled to): their rects and the labels'."""
    found: dict = {}

    def placed() -> bool:
        dash_duo.driver.execute_script(
            "const c = document.querySelector(arguments[0]);"
            "if (c) c.scrollIntoView({block: 'center'});",
            card,
        )
        found.update(dash_duo.driver.execute_script(STARS_AND_LABELS, card, LABELS) or {})
        return len(found.get("stars", [])) == stars and bool(found.get("labels"))

    until(placed, 30)
    return found


def _covered(found: dict) -> list[tuple[str, str]]:
    return [
        ("★", label["text"])
        for star in found["stars"]
        for label in found["labels"]
        if _overlap(star, label)
    ]


def test_best_stars_on_an_axis_cover_no_tick_label(dash_duo, corpus_app) -> None:
    """A constant learning rate's best point is its first step, on the y axis ("0.05" read
    "0.0★"); on the comparison page four of them sit on the y axis by the tick labels."""
    dash_duo.driver.set_window_size(*LAPTOP)
    _open(dash_duo, corpus_app, "/scalars?train_id=./lenet_sc")
    found = _stars_and_labels(dash_duo, _card("./lenet_sc", "learning_rate"), 1)
    assert any(label["text"] == "0.05" for label in found["labels"])
    assert _covered(found) == []

    jobs = ["./lenet_adam_lr0.001_bs32", "./lenet_lr0.01_bs32", "./lenet_lr0.05_bs64"]
    jobs.append("./lenet_lr0.1_bs16")
    dash_duo.driver.get(f"{dash_duo.server_url}/compare?jobs={encode_tags(jobs)}")
    found = _stars_and_labels(dash_duo, '.di-chart-card[id*="compare|learning_rate"]', 4)
    assert len([label for label in found["labels"] if "." in label["text"]]) >= 2
    assert _covered(found) == []
    # Each star still says its value.
    titles = dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll("
        "'.di-chart-card[id*=\"compare|learning_rate\"] .di-best-star')).map(e => e.title);"
    )
    assert any("0.1" in title for title in titles)
    assert console_errors(dash_duo) == []


#: Each drawn chart inside ``arguments[0]``: its margins as its figure asks for them and as
#: Plotly drew them (left, right, top, bottom), and its legend's height (px, 0: none).
MARGINS = """
return Array.from(document.querySelectorAll(arguments[0] + ' .js-plotly-plot'))
  .filter(p => p._fullLayout && p.data && p.data.length)
  .map(p => ({asked: ['l', 'r', 't', 'b'].map(k => p.layout.margin[k]),
               drawn: ['l', 'r', 't', 'b'].map(k => p._fullLayout._size[k]),
               legend: p._fullLayout.showlegend ? p._fullLayout.legend._height : 0}));"""
#: px: a legend row (``LEGEND_ROW``) and the bottom margin of a step axis' labels and title.
LEGEND_ROW, STEP_AXIS_BOTTOM = 29, 36
#: Corpus jobs whose names wrap a comparison chart's legend into 2 or 3 rows at LAPTOP.
LONG_NAMED_JOBS = [
    "./lenet_adam_lr0.001_bs32",
    "./lenet_lr0.01_bs32",
    "./lenet_lr0.05_bs64",
    "./lenet_lr0.1_bs16",
]


def _legend_fits(chart: dict) -> bool:
    """The bottom margin a chart asks for, and Plotly drew, is its axis' and exactly its
    legend's rows."""
    return chart["drawn"][3] == chart["asked"][3] == STEP_AXIS_BOTTOM + chart["legend"]


def _fitted(charts: list[dict]) -> bool:
    """Each chart drawn in the margins it asks for (Plotly's automargin added nothing, so it
    drew the chart once), its bottom margin its legend's rows."""
    return bool(charts) and all(
        chart["drawn"] == chart["asked"] and _legend_fits(chart) for chart in charts
    )


def test_the_comparison_charts_legends_fit_their_margins(dash_duo, corpus_app) -> None:
    """A chart whose legend (rows below the x axis) needs more than the margin the figure
    gives is widened by Plotly's automargin, which then draws the whole chart a second time:
    the comparison's charts ask for the margin of as many rows as Plotly lays their legend out
    in (``legendRows``), one row for two jobs, two or three for four long names, and are drawn
    once, in the margins they ask for. In full screen a chart's legend takes one row: the chart
    is drawn again with that margin (not rows of blank), and again on leaving it."""
    dash_duo.driver.set_window_size(*LAPTOP)
    jobs = ["./lenet_lr0.01_bs32", "./lenet_lr0.05_bs64"]
    _open(dash_duo, corpus_app, f"/compare?jobs={encode_tags(jobs)}")
    until(lambda: len(dash_duo.driver.execute_script(MARGINS, ".di-chart-card")) >= 2, 60)
    charts = dash_duo.driver.execute_script(MARGINS, ".di-chart-card")
    assert [chart["legend"] for chart in charts] == [LEGEND_ROW] * len(charts)
    assert _fitted(charts)

    dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?jobs={encode_tags(LONG_NAMED_JOBS)}")
    until(lambda: len(dash_duo.driver.execute_script(MARGINS, ".di-chart-card")) >= 2, 60)
    charts = dash_duo.driver.execute_script(MARGINS, ".di-chart-card")
    assert all(chart["legend"] in (2 * LEGEND_ROW, 3 * LEGEND_ROW) for chart in charts)
    assert _fitted(charts)

    # Full screen: one row (its left margin may grow for the x axis' first label there).
    card = _card("compare", "loss/auto")
    rows = dash_duo.driver.execute_script(MARGINS, card)[0]["legend"]
    full = card + """ [id*='"type":"chart-full"']"""
    for button_rows in (LEGEND_ROW, rows):
        dash_duo.find_element(full).click()
        until(
            lambda rows=button_rows: (
                [
                    (chart["legend"], _legend_fits(chart))
                    for chart in dash_duo.driver.execute_script(MARGINS, card)
                ]
                == [(rows, True)]
            ),
            30,
        )
    assert console_errors(dash_duo) == []


#: Steps of the written job: more than a chart at LAPTOP has pixels, so each says "N of 3000
#: points drawn".
STEPS = 3000


@pytest.fixture(scope="module")
def long_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Job ``./long``: loss falling from 2.5, accuracy rising to its best at the last step (the
    top right corner, under the note), lr decaying from 0.1 to 0 (25 times below the loss)."""
    base = tmp_path_factory.mktemp("notes")
    rng = np.random.default_rng(3)
    with SummaryWriter(base / "long", host="test", timestamp=1_700_000_000) as writer:
        for step in range(1, STEPS + 1):
            writer.add_scalar("loss", float(2.5 * np.exp(-step / 800) + 0.02 * rng.random()), step)
            writer.add_scalar("accuracy", float(1 - 0.9 * np.exp(-step / 600)), step)
            writer.add_scalar("lr", float(0.05 * (1 + np.cos(np.pi * step / STEPS))), step)
    return base


@pytest.fixture
def long_app(long_base: Path, tmp_path: Path) -> Iterator:
    with loaded_app(long_base, tmp_path / "ws") as app:
        yield app


def _accept_language(dash_duo, language: str) -> None:
    """The browser's ``Accept-Language`` (the page's language), through DevTools."""
    agent = dash_duo.driver.execute_script("return navigator.userAgent")
    dash_duo.driver.execute_cdp_cmd(
        "Network.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": language}
    )


def _notes(dash_duo, card: str) -> list[str]:
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' .annotation'))"
        ".map(e => e.textContent);",
        card,
    )


@pytest.mark.parametrize(
    ("language", "drawn"),
    [("en-US,en;q=0.9", "of 9000 points drawn"), ("zh-CN,zh;q=0.9", "已绘制 9000 个点中的")],
)
def test_one_note_clear_of_the_stars_and_the_toolbar(
    dash_duo, long_app, language: str, drawn: str
) -> None:
    dash_duo.driver.set_window_size(*LAPTOP)
    _accept_language(dash_duo, language)
    _open(dash_duo, long_app, "/scalars?train_id=./long")
    # The accuracy's best point is its last one, in the corner under the note ("398★of 500").
    accuracy = _card("./long", "accuracy")
    found = _stars_and_labels(dash_duo, accuracy, 1)
    assert len(_notes(dash_duo, accuracy)) == 1
    assert _covered(found) == []

    # Three tags composed: one note for them all, clear of the stars, the chart's buttons and
    # Plotly's toolbar.
    tags = ["loss", "accuracy", "lr"]
    dash_duo.driver.get(
        f"{dash_duo.server_url}/scalars?train_id=./long&compose={encode_tags(tags)}"
    )
    composed = '.di-chart-card[id*="compose"]'
    found = _stars_and_labels(dash_duo, composed, 3)
    notes = _notes(dash_duo, composed)
    assert len(notes) == 1 and drawn in notes[0], notes
    assert _covered(found) == []
    _hover_until_toolbar_shows(dash_duo, composed)
    note = _rect(dash_duo, f"{composed} .annotation")[0]
    busy = _rect(dash_duo, f"{composed} .modebar") + _rect(dash_duo, f"{composed} .di-chart-tools")
    assert not [r for r in busy if _overlap(note, r)]
    assert _rect(dash_duo, composed)[0]["top"] <= note["top"]  # inside its card
    assert console_errors(dash_duo) == []


#: Each smoothed line of a chart: its name, y axis and the share of the plot's height its
#: values span as drawn (Plotly's own axis mapping); the y axes' titles.
LINES = """
const plot = document.querySelector(arguments[0] + ' .js-plotly-plot');
if (!plot || !plot._fullLayout || !plot.data) return null;
const full = plot._fullLayout;
const lines = plot.data.filter(t => (t.meta || {}).role === 'smoothed').map(t => {
  const axis = full['yaxis' + (t.yaxis || 'y').slice(1)];
  const ys = t.y.filter(v => v !== null && isFinite(v));
  const px = [Math.min(...ys), Math.max(...ys)].map(v => axis.l2p(axis.d2l(v)));
  return {name: t.name, yaxis: t.yaxis || 'y', extent: Math.abs(px[1] - px[0]) / full._size.h};
});
const title = a => (full[a] && full[a].title && full[a].title.text) || '';
return {lines, left: title('yaxis'), right: title('yaxis2'),
        legend: Array.from(plot.querySelectorAll('.legendtext')).map(e => e.textContent)};"""


def _lines(dash_duo, card: str, count: int) -> dict:
    found: dict = {}

    def drawn() -> bool:
        found.update(dash_duo.driver.execute_script(LINES, card) or {})
        return len(found.get("lines", [])) == count

    until(drawn, 30)
    return found


def test_composed_tags_of_ranges_apart_get_axes_of_their_own(dash_duo, long_app) -> None:
    """loss (0..2.5) and accuracy (0.1..1) on the left axis, lr (0..0.1) on the right one,
    titled with its tag: every line spans a good part of the plot (lr was a flat line)."""
    dash_duo.driver.set_window_size(*LAPTOP)
    tags = ["loss", "accuracy", "lr"]
    _open(dash_duo, long_app, f"/scalars?train_id=./long&compose={encode_tags(tags)}")
    found = _lines(dash_duo, '.di-chart-card[id*="compose"]', 3)
    axes = {line["name"]: line["yaxis"] for line in found["lines"]}
    assert axes == {"loss": "y", "accuracy": "y", "lr": "y2"}
    extent = {line["name"]: line["extent"] for line in found["lines"]}
    assert extent["lr"] > 0.6 and min(extent.values()) > 0.25, extent  # accuracy: 0.9 of 2.5
    assert (found["left"], found["right"]) == ("loss, accuracy", "lr")
    assert console_errors(dash_duo) == []


@pytest.mark.parametrize(
    ("language", "own_scale"),
    [
        ("en-US,en;q=0.9", "metrics/huge (own scale)"),
        ("zh-CN,zh;q=0.9", "metrics/huge（独立刻度）"),
    ],
)
def test_a_third_range_gets_its_own_scale(
    dash_duo, corpus_app, language: str, own_scale: str
) -> None:
    """Real data (ops_all): a fourth tag of values near 1e30 is drawn across the plot on an
    axis of its own, which its legend entry names; its hover keeps its values."""
    dash_duo.driver.set_window_size(*LAPTOP)
    _accept_language(dash_duo, language)
    tags = ["loss", "lr", "accuracy", "metrics/huge"]
    _open(dash_duo, corpus_app, f"/scalars?train_id=./ops_all&compose={encode_tags(tags)}")
    card = '.di-chart-card[id*="compose"]'
    found = _lines(dash_duo, card, 4)
    assert [line["yaxis"] for line in found["lines"]] == ["y", "y2", "y", "y3"]
    assert min(line["extent"] for line in found["lines"]) > 0.25, found["lines"]
    assert own_scale in found["legend"]
    hover = dash_duo.driver.execute_script(
        "const p = document.querySelector(arguments[0] + ' .js-plotly-plot');"
        "const t = p.data.find(t => t.yaxis === 'y3' && t.meta.role === 'smoothed');"
        "return [t.y[0], t.customdata[0][1]];",
        card,
    )
    assert hover[0] == hover[1] and hover[0] > 1e29  # the real values
    assert _covered(_stars_and_labels(dash_duo, card, 4)) == []
    assert console_errors(dash_duo) == []


@pytest.mark.parametrize("axis", ["step", "absolute"])
def test_tick_labels_are_inside_their_chart_and_never_measured_to_be_hidden(
    dash_duo, long_app, axis: str
) -> None:
    """The charts' margins hold their tick labels (``labelMargin``, then Plotly's automargin),
    so Plotly's default for a number or date axis, hiding the labels past the graph's box
    ("hide past div"), hid none; it measured every label for that (a forced layout each, the
    scalars page's first screen 0.11 s of renderer time). The figures ask for "allow": every
    label is still drawn, inside its chart, on the step axis and on the time axis (two-line
    date labels, the widest)."""
    dash_duo.driver.set_window_size(*LAPTOP)
    _open(dash_duo, long_app, f"/scalars?train_id=./long&axis={axis}")
    # The first screen's two charts (the third is drawn when scrolled to).
    until(lambda: len(dash_duo.driver.execute_script(TICK_LABELS, ".di-chart-card")) >= 2, 60)
    charts = dash_duo.driver.execute_script(TICK_LABELS, ".di-chart-card")
    assert [chart["overflow"] for chart in charts] == [["allow", "allow"]] * len(charts)
    assert all(chart["labels"] >= 6 for chart in charts)
    assert [chart["out"] for chart in charts] == [[]] * len(charts)
    assert console_errors(dash_duo) == []


#: For each ``[names, width]`` of ``arguments[0]``: the rows of the legend Plotly lays out for
#: lines of those names in a graph ``width`` px wide (the comparison's legend: horizontal,
#: below the axis, each line its legendgroup), and ``legendRows``' count for its plot area.
LEGEND_ROWS = """
const [cases, margin, row] = [arguments[0], {l: 40, r: 28, t: 22, b: 65}, arguments[1]];
const done = arguments[arguments.length - 1];
(async () => {
  const out = [];
  for (const [names, width] of cases) {
    const div = document.createElement('div');
    div.style.cssText = `position:absolute;top:0;left:0;width:${width}px;height:300px`;
    document.body.appendChild(div);
    await window.Plotly.newPlot(div, names.map(name => ({
      type: 'scatter', mode: 'lines', x: [0, 1], y: [0, 1], name, legendgroup: name})), {
      margin, font: {size: 11}, showlegend: true,
      legend: {orientation: 'h', x: 0, xanchor: 'left', y: 0, yanchor: 'bottom',
               yref: 'container'}});
    out.push([div._fullLayout.legend._height / row,
              window.dash_clientside.scalarCharts.legendRows(names, width - margin.l - margin.r)]);
    window.Plotly.purge(div);
    div.remove();
  }
  done(out);
})();"""


def test_legend_rows_are_plotlys(dash_duo, corpus_app) -> None:
    """``legendRows`` counts the rows Plotly lays a comparison chart's legend out in, for short
    and long names, one name wider than the plot, many names, and graphs 240 to 1500 px wide."""
    _open(dash_duo, corpus_app, f"/compare?jobs={encode_tags(LONG_NAMED_JOBS)}")
    until(lambda: len(dash_duo.driver.execute_script(MARGINS, ".di-chart-card")) >= 1, 60)
    names = [
        [f"./run_{i}" for i in range(4)],
        LONG_NAMED_JOBS,
        ["./a_single_run_whose_name_is_wider_than_a_narrow_plot_area_of_its_chart"],
        [f"./sweep/lr{10.0**-i:g}_seed{i % 3}" for i in range(12)],
        ["./lenet (own scale)", "./lenet", "./resnet50_imagenet_bs256", "./x"],
    ]
    cases = [[group, width] for group in names for width in range(240, 1501, 97)]
    answers = dash_duo.driver.execute_async_script(LEGEND_ROWS, cases, LEGEND_ROW)
    assert [plotly for plotly, _ in answers] == [ours for _, ours in answers]
    assert {plotly for plotly, _ in answers} >= {1, 2, 3}
    assert console_errors(dash_duo) == []
