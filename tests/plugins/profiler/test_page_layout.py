"""The profiler pages' layout at 1280×800, measured from the DOM (#38 item 7): the
dashboard's timeline labels, the timeline tab's legend and axis title and height, the operator
table's number formats and the slowest operators' names."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from tests.browser import until
from tests.conftest import console_errors

LENET = "./lenet_prof"
GROUPED_2_DECIMALS = re.compile(r"^\d{1,3}(,\d{3})*\.\d{2}$")
GROUPED = re.compile(r"^\d{1,3}(,\d{3})*$")


@pytest.fixture(scope="module")
def app(profiler_app: Any) -> Any:
    return profiler_app


def _open(dash_duo: Any, app: Any, path: str) -> None:
    dash_duo.start_server(app)
    dash_duo.driver.set_window_size(1280, 800)
    dash_duo.wait_for_page(dash_duo.server_url + path)


def _ticks(dash_duo: Any, graph: str) -> list[dict[str, float]] | None:
    """The y tick labels of a chart: text, font size and vertical centre (px)."""
    return dash_duo.driver.execute_script(f"""
        const labels = document.querySelectorAll('#{graph} .ytick text, #{graph} .di-svg-ytick');
        if (!labels.length) return null;
        return Array.from(labels).map(t => {{
            const box = t.getBoundingClientRect();
            return {{text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize),
                     top: box.top, bottom: box.bottom}};
        }});""")


@pytest.mark.parametrize("job", [LENET, "./lenet_summary_prof"])
def test_dashboard_timeline_labels_are_legible(dash_duo: Any, app: Any, job: str) -> None:
    _open(dash_duo, app, f"/profiler?train_id={job}")
    until(lambda: _ticks(dash_duo, "prof-timeline-preview"), 30)
    ticks = sorted(_ticks(dash_duo, "prof-timeline-preview") or [], key=lambda t: t["top"])
    assert 2 <= len(ticks) <= 8
    assert all(t["size"] >= 9 for t in ticks)
    # no two labels overlap, with at least 3 px between them
    assert all(b["top"] - a["bottom"] >= 3 for a, b in itertools.pairwise(ticks))
    note = dash_duo.find_elements("#prof-timeline-more")
    assert note and re.search(
        r"the 8 operator types with the most time, and \d+ more", note[0].text
    )
    assert console_errors(dash_duo) == []


def test_timeline_legend_clears_the_axis_title_and_fills_the_page(dash_duo: Any, app: Any) -> None:
    _open(dash_duo, app, f"/profiler/timeline?train_id={LENET}")
    dash_duo.wait_for_contains_text("#prof-timeline-info", "860 launches")

    def boxes() -> dict[str, Any] | None:
        return dash_duo.driver.execute_script("""
            const legend = document.querySelector('#prof-timeline .legend');
            const title = document.querySelector('#prof-timeline .xtitle');
            const plot = document.querySelector('#prof-timeline .main-svg');
            if (!legend || !title || !plot) return null;
            const box = e => { const r = e.getBoundingClientRect();
                return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
            return {legend: box(legend), title: box(title), plot: box(plot),
                    page: document.documentElement.scrollHeight,
                    window: window.innerHeight};""")

    until(boxes, 30)
    found = boxes()
    assert found is not None
    legend, title = found["legend"], found["title"]
    apart = (
        legend["bottom"] <= title["top"]
        or title["bottom"] <= legend["top"]
        or legend["right"] <= title["left"]
        or title["right"] <= legend["left"]
    )
    assert apart, found
    # the chart reaches to near the window's bottom: no empty half page below it
    assert found["plot"]["bottom"] >= 0.85 * found["window"], found
    assert console_errors(dash_duo) == []


def test_operator_table_numbers_have_one_format_per_column(dash_duo: Any, app: Any) -> None:
    _open(dash_duo, app, f"/profiler/operator?train_id={LENET}&view=all")
    table = "prof-all-table-body"

    def column(index: int) -> list[str]:
        return dash_duo.driver.execute_script(f"""
            return Array.from(document.querySelectorAll('#{table} > tbody > tr'))
                .filter(r => r.cells.length > 1).map(r => r.cells[{index}].textContent);""")

    until(lambda: len(column(5)) == 10, 30)
    for index in (5, 6, 7, 10, 11, 12, 13):  # us, us/time, %, min / median / p95 / max (us)
        texts = column(index)
        assert all(GROUPED_2_DECIMALS.match(t) for t in texts), (index, texts)
    assert all(GROUPED.match(t) for t in column(4)), column(4)  # occurrences (times)
    # the dashboard card shows the same format
    dash_duo.wait_for_page(dash_duo.server_url + f"/profiler?train_id={LENET}")
    dash_duo.wait_for_element("#prof-card-operators")
    card = dash_duo.driver.execute_script("""
        return Array.from(document.querySelectorAll('#prof-card-operators tr'))
            .map(r => r.cells[2].textContent);""")
    assert card and all(GROUPED_2_DECIMALS.match(t.split(" ")[0]) for t in card), card


def test_slowest_operators_break_only_at_separators(dash_duo: Any, app: Any) -> None:
    _open(dash_duo, app, f"/profiler?train_id={LENET}")
    dash_duo.wait_for_element("#prof-card-operators td.di-prof-scope")
    # a narrow card (as in a narrower window or beside a wide neighbour) must wrap its names
    found = dash_duo.driver.execute_script("""
        const card = document.querySelector('#prof-card-operators');
        card.style.width = '480px'; card.style.maxWidth = '480px';
        const words = [];
        // every run of letters/digits of a name sits on one line (one client rect)
        for (const cell of card.querySelectorAll('td')) {
            const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const re = /[^\\/\\s]+/g; let m;
                while ((m = re.exec(node.textContent))) {
                    const range = document.createRange();
                    range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
                    const lines = new Set(Array.from(range.getClientRects())
                        .filter(r => r.width > 0).map(r => Math.round(r.top)));
                    words.push({word: m[0], lines: lines.size});
                }
            }
        }
        const body = card.querySelector('.di-card-body');
        return {words: words, overflow: body.scrollWidth - body.clientWidth,
                titles: Array.from(card.querySelectorAll('[title]')).map(e => e.title)};""")
    assert found["words"], found
    broken = [w for w in found["words"] if w["lines"] > 1]
    assert not broken, broken
    assert found["overflow"] <= 1, found
    assert all("/" in title for title in found["titles"])  # the full names as tooltips
