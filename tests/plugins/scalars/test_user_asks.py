"""Issue 17 item 10 in the browser, on jobs these tests write: what TensorBoard and MindInsight
users ask for and neither has. The best value of each line marked (scalars and comparison
pages), a log-scale x axis, a run hidden everywhere on the comparison page without deleting
it, the comparison page's CSV / JSON download, and any scalar as the x axis."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from selenium.webdriver.common.keys import Keys

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.components.run_colours import PALETTE
from dash_insight.web.url_state import encode_tags
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import click_option, run_js, url_params

#: Steps 0..40; loss: lowest at step 30 (and again at 35: the earliest counts), a NaN at 12;
#: acc: highest at step 20.
STEPS = range(0, 41)


def _loss(run: int, step: int) -> float:
    if step == 12:
        return math.nan
    if step in (30, 35):
        return 0.125 + run
    return 2.0 + run + 0.01 * step


def _acc(step: int) -> float:
    return 0.875 if step == 20 else 0.5 + 0.001 * step


@pytest.fixture(scope="module")
def asks_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """One app for the module: runs ./r0, ./r1, ./r2 with ``loss``; ./r0 also ``acc``; ./r1
    also ``epoch`` (step / 8) at the even steps only."""
    base = tmp_path_factory.mktemp("asks")
    for run in range(3):
        with SummaryWriter(base / f"r{run}", host="test", timestamp=1_700_000_000 + run) as writer:
            for step in STEPS:
                writer.add_scalar("loss", _loss(run, step), step)
                if run == 0:
                    writer.add_scalar("acc", _acc(step), step)
                if run == 1 and step % 2 == 0:
                    writer.add_scalar("epoch", step / 8, step)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    yield app
    app.data_service.close()


def _card(chart: str) -> str:
    return f'.di-chart-card[id*="{json.dumps(chart)[1:-1]}"]'


def _plot(dash_duo, chart: str) -> dict | None:
    """The drawn chart: its best-value stars (drawn over the graph: x, y, hover text, colour,
    shown), its lines (names, colours), the legend's texts, its x axis type and its
    annotations' texts."""
    return run_js(
        dash_duo,
        """
        const card = document.querySelector(arguments[0]);
        const p = card && card.querySelector('.js-plotly-plot');
        if (!p || !p.data || !p._fullLayout) return null;
        const best = Array.from(p.querySelectorAll('.di-best-star')).map(e => ({
            x: Number(e.dataset.x), y: Number(e.dataset.y), text: e.title,
            colour: e.dataset.colour, shown: !e.hidden && e.getBoundingClientRect().width > 0}));
        const smoothed = p.data.filter(t => (t.meta || {}).role === 'smoothed');
        const lines = smoothed.map(t => t.name);
        return {best, lines, colours: smoothed.map(t => t.line.color),
                traces: p.data.length, xtype: p._fullLayout.xaxis.type,
                xtitle: p._fullLayout.xaxis.title.text, x: smoothed.map(t => t.x),
                legend: Array.from(card.querySelectorAll('.legendtext')).map(e => e.textContent),
                notes: (p.layout.annotations || []).map(a => a.text)};""",
        _card(chart),
    )


def _show(dash_duo, chart: str) -> None:
    """Scroll the chart to the middle of the screen (charts are drawn when on it), once its
    card is there."""
    until(
        lambda: run_js(
            dash_duo,
            "const c = document.querySelector(arguments[0]);"
            "if (c) c.scrollIntoView({block: 'center'}); return !!c;",
            _card(chart),
        ),
        30,
    )


def _click(dash_duo, selector: str) -> None:
    element = dash_duo.find_element(selector)
    run_js(dash_duo, "arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def test_best_value_marked_on_the_raw_series_and_flipped(dash_duo, asks_app) -> None:
    dash_duo.start_server(asks_app)
    # Smoothing 0.9: the best is still the raw series' (the smoothed line never reaches it).
    dash_duo.wait_for_page(
        dash_duo.server_url
        + "/scalars?train_id=./r0&smoothing=0.9&tags="
        + quote(encode_tags(["loss", "acc"]))
    )
    loss, acc = "./r0|loss", "./r0|acc"
    for chart in (acc, loss):
        _show(dash_duo, chart)
        until(lambda chart=chart: (_plot(dash_duo, chart) or {}).get("best"), 30)
    [best] = _plot(dash_duo, loss)["best"]
    # The lowest, the earliest of the tie, NaN skipped; on the chart.
    assert best["shown"] and (best["x"], best["y"]) == (30, 0.125)
    assert best["text"] == "loss: best 0.125 @ step 30"  # the line is named by its tag
    [best] = _plot(dash_duo, acc)["best"]  # an accuracy: its highest
    assert best["x"] == 20 and math.isclose(best["y"], 0.875)
    assert best["text"] == "acc: best 0.875 @ step 20"
    # The star is not drawn by Plotly: the chart's traces are the raw and smoothed lines.
    assert _plot(dash_duo, acc)["traces"] == 2
    # A job's own chart: its line and star in the palette's first colour, which the plan
    # carries (place_colour: the browser has no copy of the palette).
    assert _plot(dash_duo, acc)["colours"] == [PALETTE[0]] and best["colour"] == PALETTE[0]
    assert dash_duo.find_element(f'{_card(acc)} button[id*="chart-best"]').text == "best: max"

    # Flip the loss chart: its highest is marked, the accuracy chart is left alone.
    _click(dash_duo, f'{_card(loss)} button[id*="chart-best"]')
    until(lambda: _plot(dash_duo, loss)["best"][0]["x"] == 40, 20)
    assert _plot(dash_duo, loss)["best"][0]["text"] == "loss: best 2.4 @ step 40"
    until(
        lambda: (
            dash_duo.find_element(f'{_card(loss)} button[id*="chart-best"]').text == "best: max"
        ),
        10,
    )
    assert _plot(dash_duo, acc)["best"][0]["x"] == 20
    # The flip is in the URL: a reload keeps it.
    until(lambda: url_params(dash_duo).get("best_flip") == "./r0|loss", 10)
    wait_idle(dash_duo)
    dash_duo.driver.refresh()
    _show(dash_duo, loss)
    until(lambda: ((_plot(dash_duo, loss) or {}).get("best") or [{}])[0].get("x") == 40, 30)
    assert dash_duo.find_element(f'{_card(loss)} button[id*="chart-best"]').text == "best: max"

    # The comparison page: a star per run, in the run's colour, the legend naming the runs.
    wait_idle(dash_duo)
    dash_duo.wait_for_page(
        dash_duo.server_url + "/compare?jobs=" + quote(encode_tags(["./r0", "./r1"]))
    )
    until(lambda: _runs_drawn(dash_duo) == ["./r0", "./r1"], 30)
    until(lambda: len(_plot(dash_duo, "compare|loss")["best"]) == 2, 30)
    shown = _plot(dash_duo, "compare|loss")
    by_run = {b["text"].split(":")[0]: b for b in shown["best"]}
    assert by_run["./r1"]["text"] == "./r1: best 1.125 @ step 30"
    assert by_run["./r0"]["y"] == 0.125
    line_colours = dict(zip(shown["lines"], shown["colours"], strict=True))
    assert {run: b["colour"] for run, b in by_run.items()} == line_colours
    assert {"./r0", "./r1"} <= set(shown["legend"])
    assert console_errors(dash_duo) == []


def test_log_x_axis_with_steps_at_zero(dash_duo, asks_app) -> None:
    dash_duo.start_server(asks_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./r0&tags=loss")
    chart = "./r0|loss"
    until(lambda: (_plot(dash_duo, chart) or {}).get("xtype") == "linear", 30)
    assert not any("log x" in note for note in _plot(dash_duo, chart)["notes"])
    _click(dash_duo, f'{_card(chart)} button[id*="chart-xlog"]')
    until(lambda: _plot(dash_duo, chart)["xtype"] == "log", 20)
    # Kept in the URL: a reload draws it logarithmic again.
    until(lambda: url_params(dash_duo).get("log_x") == chart, 10)
    wait_idle(dash_duo)
    dash_duo.driver.refresh()
    until(lambda: (_plot(dash_duo, chart) or {}).get("xtype") == "log", 30)
    # Step 0 cannot be placed on a log axis: it is left out, and the chart says so.
    assert "log x: 1 point(s) at or below 0 not drawn" in _plot(dash_duo, chart)["notes"]
    assert _plot(dash_duo, chart)["best"][0]["x"] == 30  # the best stays marked
    # Absolute time cannot be logarithmic: a linear date axis, with a note.
    click_option(dash_duo, ".di-axis", "Absolute time")
    until(lambda: _plot(dash_duo, chart)["xtype"] == "date", 20)
    assert "log x needs the step or relative time axis" in _plot(dash_duo, chart)["notes"]
    # Back to steps: still logarithmic (the button is the chart's).
    click_option(dash_duo, ".di-axis", "Step")
    until(lambda: _plot(dash_duo, chart)["xtype"] == "log", 20)
    _click(dash_duo, f'{_card(chart)} button[id*="chart-xlog"]')
    until(lambda: _plot(dash_duo, chart)["xtype"] == "linear", 20)
    until(lambda: "log_x" not in url_params(dash_duo), 10)
    assert console_errors(dash_duo) == []


def _eye(dash_duo, run: str) -> dict | None:
    """The eye of ``run`` in the comparison's job list: closed or not, and the row ticked."""
    return run_js(
        dash_duo,
        """
        const eye = document.querySelector('#compare-jobs .di-eye[data-run="' + arguments[0]
                                           + '"]');
        if (!eye) return null;
        return {closed: eye.classList.contains('di-eye-closed'),
                ticked: eye.closest('label').querySelector('input').checked};""",
        run,
    )


def _row(run: str) -> str:
    """The CSS selector of ``run``'s row in the comparison's job list."""
    return f'#compare-jobs label:has(.di-eye[data-run="{run}"])'


def _runs_drawn(dash_duo) -> list[str] | None:
    """The runs of the loss chart (scrolled to: charts are drawn when on screen)."""
    if not run_js(
        dash_duo, "return !!document.querySelector(arguments[0]);", _card("compare|loss")
    ):
        return None
    _show(dash_duo, "compare|loss")
    plot = _plot(dash_duo, "compare|loss")
    return sorted(plot["lines"]) if plot else None


def test_hide_a_run_everywhere_and_download_what_is_shown(dash_duo, asks_app) -> None:
    dash_duo.start_server(asks_app)
    runs = ["./r0", "./r1", "./r2"]
    dash_duo.wait_for_page(dash_duo.server_url + f"/compare?jobs={quote(encode_tags(runs))}")
    until(lambda: _runs_drawn(dash_duo) == runs, 30)
    until(lambda: _eye(dash_duo, "./r1") == {"closed": False, "ticked": True}, 20)

    # Close ./r1's eye: it leaves the chart, the colour choices, stays ticked; the URL says so.
    _click(dash_duo, '#compare-jobs .di-eye[data-run="./r1"]')
    until(lambda: url_params(dash_duo).get("hidden") == "./r1", 20)
    until(lambda: _runs_drawn(dash_duo) == ["./r0", "./r2"], 20)
    until(lambda: _eye(dash_duo, "./r1") == {"closed": True, "ticked": True}, 20)
    assert "jobs" in url_params(dash_duo)  # the selection did not change
    until(lambda: dash_duo.find_element("#compare-total").text.endswith(", 1 hidden"), 10)

    # A reload keeps it hidden.
    wait_idle(dash_duo)
    dash_duo.driver.refresh()
    until(lambda: _runs_drawn(dash_duo) == ["./r0", "./r2"], 30)
    until(lambda: _eye(dash_duo, "./r1") == {"closed": True, "ticked": True}, 20)

    # The download holds the raw points of the runs drawn, not the hidden one.
    wait_idle(dash_duo)
    _click(dash_duo, "#compare-download-csv")
    saved = Path(dash_duo.download_path) / "scalars_comparison.csv"
    until(lambda: saved.exists() and saved.stat().st_size > 0, 20)
    rows = list(csv.reader(io.StringIO(saved.read_text())))
    assert rows[0] == ["train_id", "tag", "step", "wall_time", "value"]
    assert {(row[0], row[1]) for row in rows[1:]} == {
        ("./r0", "loss"),
        ("./r0", "acc"),
        ("./r2", "loss"),
    }
    assert len(rows) == 1 + 3 * len(STEPS)
    r2 = {int(row[2]): row[4] for row in rows[1:] if row[0] == "./r2"}
    assert r2[12] == "nan" and float(r2[30]) == 2.125 and float(r2[1]) == pytest.approx(4.01)
    _click(dash_duo, "#compare-download-json")
    saved_json = Path(dash_duo.download_path) / "scalars_comparison.json"
    until(lambda: saved_json.exists() and saved_json.stat().st_size > 0, 20)
    document = json.loads(saved_json.read_text())
    assert sorted((entry["train_id"], entry["tag"]) for entry in document) == [
        ("./r0", "acc"),
        ("./r0", "loss"),
        ("./r2", "loss"),
    ]

    # Open the eye again from the keyboard (Tab from the row's checkbox, as the arrow keys
    # reach it, then Enter): the run is back, without a trace of it in the URL, and the row
    # stays ticked.
    eye = dash_duo.find_element('#compare-jobs .di-eye[data-run="./r1"]')
    assert (eye.tag_name, eye.get_attribute("aria-pressed")) == ("button", "true")
    run_js(dash_duo, "document.querySelector(arguments[0] + ' input').focus();", _row("./r1"))
    dash_duo.driver.switch_to.active_element.send_keys(Keys.TAB)
    until(
        lambda: (
            run_js(dash_duo, "return document.activeElement.getAttribute('data-run');") == "./r1"
        ),
        10,
    )
    dash_duo.driver.switch_to.active_element.send_keys(Keys.ENTER)
    until(lambda: _runs_drawn(dash_duo) == runs, 20)
    until(lambda: "hidden" not in url_params(dash_duo), 10)
    assert _eye(dash_duo, "./r1") == {"closed": False, "ticked": True}
    assert console_errors(dash_duo) == []


def test_a_tag_as_the_x_axis(dash_duo, asks_app) -> None:
    dash_duo.start_server(asks_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./r1&tags=loss")
    chart = "./r1|loss"
    until(lambda: (_plot(dash_duo, chart) or {}).get("xtitle") == "step", 30)
    dash_duo.select_dcc_dropdown(".di-xtag", value="epoch")
    until(lambda: url_params(dash_duo).get("x_tag") == "epoch", 20)
    until(lambda: _plot(dash_duo, chart)["xtitle"] == "epoch", 20)
    shown = _plot(dash_duo, chart)
    [x] = shown["x"]
    # Each point at epoch's value at its step; the odd steps have none: left out, and said.
    assert x[:5] == [0, None, 0.25, None, 0.5] and x[30] == 3.75
    assert sum(v is None for v in x) == 20
    assert "20 point(s) without a value of epoch at their step not drawn" in shown["notes"]
    assert shown["best"][0]["x"] == 3.75  # the best (step 30) sits at its epoch

    # The comparison: the runs without epoch draw nothing on it, and the chart says so.
    wait_idle(dash_duo)
    runs = ["./r0", "./r1", "./r2"]
    dash_duo.wait_for_page(
        dash_duo.server_url + "/compare?x_tag=epoch&jobs=" + quote(encode_tags(runs))
    )
    until(lambda: _runs_drawn(dash_duo) == runs, 30)
    until(lambda: _plot(dash_duo, "compare|loss")["xtitle"] == "epoch", 20)
    notes = _plot(dash_duo, "compare|loss")["notes"]
    assert (
        f"{2 * len(STEPS) + 20} point(s) without a value of epoch at their step not drawn" in notes
    )
    # Without x_tag: the step axis again.
    wait_idle(dash_duo)
    dash_duo.driver.get(dash_duo.server_url + f"/compare?jobs={quote(encode_tags(runs))}")
    until(lambda: _runs_drawn(dash_duo) == runs, 30)
    until(lambda: _plot(dash_duo, "compare|loss")["xtitle"] == "step", 20)
    assert console_errors(dash_duo) == []
