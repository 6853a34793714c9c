"""Scalar charts in the browser: Plotly's toolbar out of the way (issue #17 item 4) and nice
axes (item 5): a constant series on a padded range, nice ticks shared by a right axis, a
threshold that leaves the x range alone; the JavaScript twins of core/axis_scale.py."""

from __future__ import annotations

import math

import numpy as np
from selenium.webdriver.common.action_chains import ActionChains

from dash_insight.core.axis_scale import aligned_ranges, nice_range
from dash_insight.web.url_state import encode_tags
from tests.browser import until
from tests.conftest import console_errors


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
    """The drawn axis (Plotly's _fullLayout): range, tick values shown, tick step."""
    return dash_duo.driver.execute_script(
        """
        const p = document.querySelector(arguments[0] + ' .js-plotly-plot');
        const a = p._fullLayout[arguments[1]];
        return {range: a.range.slice(), ticks: (a._vals || []).map(v => v.x),
                dtick: a.dtick, traces: p.data.length};""",
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

    ActionChains(dash_duo.driver).move_to_element(
        dash_duo.find_element(f"{card} .nsewdrag")
    ).perform()
    until(lambda: _modebar_opacity(dash_duo, card) == "1", 10)
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
    dash_duo.find_element("#th-apply").click()
    # raw and smoothed traces (the best-value star is drawn over the graph), then the threshold's
    until(lambda: _full_axis(dash_duo, loss, "xaxis")["traces"] == 3, 10)
    assert _full_axis(dash_duo, loss, "xaxis")["range"] == before

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


def test_axis_js_twins_equal_python(dash_duo, corpus_app) -> None:
    _open(dash_duo, corpus_app, "/scalars?train_id=./lenet_sc")
    until(
        lambda: dash_duo.driver.execute_script(
            "return !!(window.dash_clientside && window.dash_clientside.scalarCharts);"
        ),
        10,
    )
    rng = np.random.default_rng(7)
    cases = [(0.05, 0.05), (0.0, 0.0), (1.2, 2.35), (-3.0, 1e6), (1.74, 2.371), (1e-9, 3e-9)]
    cases += [
        tuple(sorted(float(v) * 10.0 ** int(rng.integers(-6, 6)) for v in rng.standard_normal(2)))
        for _ in range(40)
    ]
    for low, high in cases:
        js = dash_duo.driver.execute_script(
            "return window.dash_clientside.scalarCharts.niceRange(arguments[0], arguments[1]);",
            low,
            high,
        )
        py = nice_range(low, high)
        assert np.allclose(
            [js["low"], js["high"], js["step"]], [py.low, py.high, py.step], rtol=1e-12, atol=0
        ), (low, high)
    for (a, b), (c, d) in zip(cases[::2], cases[1::2], strict=True):
        js = dash_duo.driver.execute_script(
            "return window.dash_clientside.scalarCharts.alignedRanges(arguments[0], arguments[1]);",
            [a, b],
            [c, d],
        )
        py = aligned_ranges((a, b), (c, d))
        for js_axis, py_axis in zip(js, py, strict=True):
            assert np.allclose(
                [js_axis["low"], js_axis["high"], js_axis["step"]],
                [py_axis.low, py_axis.high, py_axis.step],
                rtol=1e-12,
                atol=0,
            )
