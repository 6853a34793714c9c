"""Issue 17, items 1, 2 and 7 in the browser, on jobs these tests write: a job of 400 scalar
tags and 1,200 small jobs. Pickers of long lists work (rows drawn, filter, select all matching,
keyboard), the tag filter decides the charts, and a run keeps one colour on every chart."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.url_state import encode_tags
from tests.browser import until
from tests.conftest import console_errors
from tests.large_jobs import write_many_jobs, write_wide_job
from tests.pages import picker_row, picker_rows, run_js, url_params


@pytest.fixture(scope="module")
def long_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("long-lists")
    write_wide_job(base)
    write_many_jobs(base)
    return base


@pytest.fixture(scope="module")
def long_app(long_base: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """One app for the module: reading 1,201 jobs took 15-90 s per test."""
    app = create_app(
        Settings(
            summary_base_dir=str(long_base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    yield app
    app.data_service.close()


def _text(dash_duo, selector: str) -> str:
    return run_js(
        dash_duo,
        "const e = document.querySelector(arguments[0]);return e ? e.textContent : null;",
        selector,
    )


def _picker(dash_duo, list_id: str) -> dict | None:
    """What a picker's list shows: its box's height, the names of the rows in the page (a
    list of 100 names or more draws only those near the view) and of the ticked ones."""
    height = run_js(
        dash_duo,
        "const box = document.getElementById(arguments[0] + '-box');"
        "return box && box.getBoundingClientRect().height;",
        list_id,
    )
    return None if height is None else {"height": height, **picker_rows(dash_duo, list_id)}


def _titles(dash_duo) -> list[str]:
    """The charts of the grid (each is drawn when it comes on screen)."""
    return run_js(
        dash_duo,
        "return Array.from(document.querySelectorAll('.di-chart-card'))"
        ".map(c => c.querySelector('.di-chart-title').textContent);",
    )


def _type(dash_duo, selector: str, text: str) -> None:
    """Type ``text`` over what the box holds and press Enter, again while the box does not hold
    it (a redraw of the box on a loaded machine can take what was typed before it)."""

    def typed() -> bool:
        element = dash_duo.find_element(selector)
        if element.get_attribute("value") == text:
            return True
        run_js(dash_duo, "arguments[0].scrollIntoView({block: 'center'});", element)
        element.send_keys("\ue009a")  # ctrl-a
        element.send_keys(text + "\ue007")  # enter
        return False

    until(typed, poll=2)


def _click(dash_duo, selector: str) -> None:
    element = dash_duo.find_element(selector)
    run_js(dash_duo, "arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def test_400_tags_picker_filter_and_keyboard(dash_duo, long_app) -> None:
    dash_duo.start_server(long_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./wide")
    until(lambda: _text(dash_duo, "#scalar-total") == "400 of 400 tags", 30)
    assert _text(dash_duo, "#scalar-page") == "1 / 17"
    # The list is drawn: a real height, its first rows, all ticked, few rows in the page.
    until(
        lambda: (
            (_picker(dash_duo, "scalar-tags") or {}).get("rows", [])[:3]
            == ["tag_000", "tag_001", "tag_002"]
        ),
        20,
    )
    shown = _picker(dash_duo, "scalar-tags")
    assert shown["height"] > 150 and len(shown["rows"]) < 60 and shown["ticked"] == shown["rows"]
    assert _text(dash_duo, "#scalar-tags-count") == "400 of 400 tags selected"

    # The filter decides the charts: "40 of 400 tags" over 2 pages, only matching charts.
    _type(dash_duo, "#scalar-tags-filter", "3[0-9]$")
    until(lambda: _text(dash_duo, "#scalar-total") == "40 of 400 tags", 20)
    assert _text(dash_duo, "#scalar-page") == "1 / 2"
    until(
        lambda: (
            len(_titles(dash_duo)) == 24 and all(re.search("3[0-9]$", t) for t in _titles(dash_duo))
        ),
        30,
    )
    until(lambda: _picker(dash_duo, "scalar-tags")["rows"][:2] == ["tag_030", "tag_031"], 20)
    assert _text(dash_duo, "#scalar-tags-count") == "400 of 400 tags selected, 40 match"
    assert url_params(dash_duo)["filter"] == "3[0-9]$"

    # A click unticks a row; the keyboard moves down and space unticks the next one.
    _click(dash_duo, picker_row("scalar-tags", "tag_030"))
    until(lambda: _text(dash_duo, "#scalar-total") == "39 of 400 tags", 20)
    focused = run_js(dash_duo, "return document.activeElement;")
    focused.send_keys("\ue015")  # arrow down
    run_js(dash_duo, "return document.activeElement;").send_keys(" ")
    until(lambda: _text(dash_duo, "#scalar-total") == "38 of 400 tags", 20)
    assert {"tag_030", "tag_031"}.isdisjoint(url_params(dash_duo)["tags"].split(","))
    assert len(url_params(dash_duo)["tags"].split(",")) == 398  # hidden tags stay selected

    # None and All act on what the filter shows.
    _click(dash_duo, "#scalar-tags-none")
    until(lambda: _text(dash_duo, "#scalar-total") == "0 of 400 tags", 20)
    until(lambda: _picker(dash_duo, "scalar-tags")["ticked"] == [], 20)
    _click(dash_duo, "#scalar-tags-all")
    until(lambda: _text(dash_duo, "#scalar-total") == "40 of 400 tags", 20)
    until(lambda: "tags" not in url_params(dash_duo), 20)
    assert console_errors(dash_duo) == []


def test_1200_jobs_picker_and_tag_filter_on_the_comparison(dash_duo, long_app) -> None:
    dash_duo.start_server(long_app)
    jobs = encode_tags(["./run_0000", "./run_0001"])
    dash_duo.wait_for_page(dash_duo.server_url + f"/compare?jobs={quote(jobs)}")
    until(lambda: _text(dash_duo, "#compare-total") == "2 of 2 tags, 2 jobs", 30)
    until(lambda: len((_picker(dash_duo, "compare-jobs") or {}).get("rows", [])) >= 6, 20)
    shown = _picker(dash_duo, "compare-jobs")
    assert shown["height"] > 150 and len(shown["rows"]) < 60
    assert _text(dash_duo, "#compare-jobs-count") == "2 of 1201 jobs selected"

    # Filter the jobs, select all that match: ten lines per chart.
    _type(dash_duo, "#compare-jobs-filter", r"run_000[0-9]$")
    until(lambda: _text(dash_duo, "#compare-jobs-count") == "2 of 1201 jobs selected, 10 match", 20)
    _click(dash_duo, "#compare-jobs-all")
    until(lambda: _text(dash_duo, "#compare-total") == "2 of 2 tags, 10 jobs", 30)
    until(lambda: len(_picker(dash_duo, "compare-jobs")["ticked"]) == 10, 20)

    # The tag filter decides the charts here too.
    _type(dash_duo, "#compare-tags-filter", "0$")
    until(lambda: _text(dash_duo, "#compare-total") == "1 of 2 tags, 10 jobs", 20)
    until(lambda: _titles(dash_duo) == ["tag_000"], 30)
    assert console_errors(dash_duo) == []


def _show(dash_duo, title: str) -> None:
    """Scroll the chart ``title`` to the middle of the screen (charts are drawn when on it)."""
    run_js(
        dash_duo,
        "Array.from(document.querySelectorAll('.di-chart-card')).find(c =>"
        " c.querySelector('.di-chart-title').textContent === arguments[0])"
        ".scrollIntoView({block: 'center'});",
        title,
    )


def _lines(dash_duo) -> dict[str, dict[str, str]]:
    """{chart title: {run: line colour}} of the drawn comparison charts (smoothed lines)."""
    return run_js(
        dash_duo,
        """
        const out = {};
        document.querySelectorAll('.di-chart-card').forEach(card => {
            const plot = card.querySelector('.js-plotly-plot');
            if (!plot || !plot.data) return;
            const lines = {};
            plot.data.filter(t => (t.meta || {}).role === 'smoothed')
                .forEach(t => { lines[t.name] = t.line.color; });
            out[card.querySelector('.di-chart-title').textContent] = lines;
        });
        return out;""",
    )


def _boxes_overlap(dash_duo, title: str) -> dict:
    """The legend's and the x axis title's boxes in the chart ``title``, and whether they
    overlap."""
    return run_js(
        dash_duo,
        """
        const card = Array.from(document.querySelectorAll('.di-chart-card'))
            .find(c => c.querySelector('.di-chart-title').textContent === arguments[0]);
        const legend = card.querySelector('.legend'), xtitle = card.querySelector('.g-xtitle');
        if (!legend || !xtitle) return {legend: !!legend, xtitle: !!xtitle};
        const a = legend.getBoundingClientRect(), b = xtitle.getBoundingClientRect();
        return {legend: true, xtitle: true,
                overlap: a.left < b.right && b.left < a.right && a.top < b.bottom
                         && b.top < a.bottom};""",
        title,
    )


def test_one_colour_per_run_legend_and_picked_colour(dash_duo, long_app) -> None:
    dash_duo.start_server(long_app)
    runs = ["./run_0000", "./run_0001", "./run_0002"]
    dash_duo.wait_for_page(dash_duo.server_url + f"/compare?jobs={quote(encode_tags(runs))}")
    # tag_000: only run_0001 has it; tag_001: all three. Each is drawn when on screen.
    until(lambda: len(_titles(dash_duo)) == 2, 30)
    for title in ("tag_000", "tag_001"):
        _show(dash_duo, title)
        until(lambda title=title: title in _lines(dash_duo), 30)
    lines = _lines(dash_duo)
    assert lines["tag_000"]["./run_0001"] == lines["tag_001"]["./run_0001"]
    assert len(set(lines["tag_001"].values())) == 3
    # A legend also with one job, not on the x axis title.
    for title in ("tag_000", "tag_001"):
        until(lambda title=title: _boxes_overlap(dash_duo, title).get("xtitle"), 10)
        boxes = _boxes_overlap(dash_duo, title)
        assert boxes["legend"] and not boxes["overlap"], (title, boxes)
    # The colour is the run's by the rule of run_colours (imported here: new in issue 17).
    from dash_insight.web.components.run_colours import PALETTE, run_colour

    all_ids = [job.train_id for job in long_app.data_service.provider.list_jobs()]
    expected = {run: run_colour(run, all_ids) for run in runs}
    assert lines["tag_001"] == expected

    # Pick run_0001's colour: both charts follow, and a reload keeps it.
    picked = PALETTE[4] if expected["./run_0001"] != PALETTE[4] else PALETTE[5]
    run_js(dash_duo, "window.scrollTo(0, 0);")
    dash_duo.select_dcc_dropdown("#compare-colour-run", value="./run_0001")
    _click(dash_duo, f'button[id*="\\"colour\\":\\"{picked}\\""]')
    until(lambda: {c["./run_0001"] for c in _lines(dash_duo).values()} == {picked}, 20)
    assert _lines(dash_duo)["tag_001"]["./run_0000"] == expected["./run_0000"]
    dash_duo.driver.refresh()
    # The reloaded page opens at its top: its charts are drawn when scrolled to.
    until(lambda: len(_titles(dash_duo)) == 2, 30)
    _show(dash_duo, "tag_000")
    until(lambda: _lines(dash_duo).get("tag_000") == {"./run_0001": picked}, 30)
    # Back to its own colour (the picker is at the top, under the page's sticky head).
    run_js(dash_duo, "window.scrollTo(0, 0);")
    dash_duo.select_dcc_dropdown("#compare-colour-run", value="./run_0001")
    _click(dash_duo, "#compare-colour-reset")
    until(lambda: _lines(dash_duo).get("tag_000") == {"./run_0001": expected["./run_0001"]}, 20)
    assert console_errors(dash_duo) == []
