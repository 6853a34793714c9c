"""Scalars page and comparison dashboard: algorithms, payload, and the pages in a browser."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from dash.testing.errors import TestingTimeoutError as WaitTimedOut
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars import page as scalars
from dash_insight.plugins.scalars.page_charts import (
    ChartSpec,
    SeriesSpec,
    chart_plan,
    delete_style,
    threshold_text,
)
from dash_insight.plugins.scalars.query_smoothing import smooth_ema, threshold_mask
from dash_insight.web.components.run_colours import PALETTE
from dash_insight.web.components.tag_select import filter_tags
from dash_insight.web.url_state import encode_tags, parse_search
from tests.browser import until, wait_idle
from tests.conftest import console_errors, loaded_app
from tests.pages import MARGINS_ADDED, picker_row, picker_rows, run_js

# --- algorithms ---------------------------------------------------------------------------------


def test_smoothing_matches_tensorboard() -> None:
    # Hand-computed with TensorBoard's resmoothDataset (debiased EMA).
    np.testing.assert_allclose(smooth_ema(np.array([0.0, 1.0]), 0.6), [0.0, 0.625])
    np.testing.assert_allclose(smooth_ema(np.array([1.0, 2.0, 3.0]), 0.5), [1.0, 5 / 3, 17 / 7])
    assert smooth_ema(np.array([2.0, 4.0]), 0.0).tolist() == [2.0, 4.0]
    assert smooth_ema(np.array([3.0, 3.0, 3.0]), 0.9).tolist() == [3.0, 3.0, 3.0]  # constant
    assert smooth_ema(np.array([5.0]), 0.9).tolist() == [5.0]
    with_nan = smooth_ema(np.array([1.0, np.nan, np.inf, 3.0]), 0.5)
    assert math.isnan(with_nan[1]) and with_nan[2] == np.inf  # non-finite pass through
    np.testing.assert_allclose(with_nan[[0, 3]], [1.0, 7 / 3])  # and do not count


def test_threshold_logic() -> None:
    values = np.array([1.0, 5.0, 3.0, np.nan, -2.0])
    assert threshold_mask(values, [(">", 2)]).tolist() == [False, True, True, False, False]
    assert threshold_mask(values, [(">", 2), ("<", 4)], "and").tolist() == [
        False,
        False,
        True,
        False,
        False,
    ]
    assert threshold_mask(values, [(">", 4), ("<", 0)], "or").tolist() == [
        False,
        True,
        False,
        False,
        True,
    ]
    assert not threshold_mask(values, []).any()
    assert (
        threshold_text({"conditions": [[">", 1], ["<", 3.5]], "combine": "or"})
        == "Current threshold: > 1 or < 3.5"
    )
    assert threshold_text(None) == "Current threshold: -"
    # The delete button only where a threshold is set.
    assert delete_style(None) == delete_style({"conditions": []}) == {"display": "none"}
    assert delete_style({"conditions": [[">", 1]], "combine": "and"}) is None


def test_filter_and_page_state() -> None:
    names = ["loss", "train/acc", "eval/acc"]
    assert filter_tags(names, "ACC$")[0] == ["train/acc", "eval/acc"]
    assert filter_tags(names, "(")[1].startswith("invalid regular expression")
    state = scalars.page_state(
        {
            "tags": encode_tags(["eval/acc", "gone"]),
            "smoothing": "7",
            "axis": "weird",
            "compose": encode_tags(["loss", "x"]),
        },
        names,
    )
    assert state.selected == ["eval/acc"]
    assert (state.smoothing, state.axis, state.compose) == (0.99, "step", None)
    assert scalars.page_state({"tags": ","}, names).selected == []
    assert scalars.page_state({}, names).selected == names
    charts, pages = scalars.chart_specs(
        "./j", replace(state, shown=[f"t{i}" for i in range(30)], compose=["t1", "t2"])
    )
    assert pages == 2 and len(charts) == 25 and len(charts[0].series) == 2
    # The filter decides the charts: ticked AND matching.
    filtered = scalars.page_state(
        {"tags": encode_tags(["loss", "eval/acc"]), "filter": "acc$"}, names
    )
    assert filtered.selected == ["loss", "eval/acc"] and filtered.shown == ["eval/acc"]
    assert [c.title for c in scalars.chart_specs("./j", filtered)[0]] == ["eval/acc"]
    jobs = ["./a", "./b", "./c", "./d", "./e", "./f"]
    tags_of = {j: ["loss"] + (["acc"] if j == "./b" else []) for j in jobs}
    default = compare.page_state({}, jobs, tags_of)
    assert default.jobs == jobs[:5] and default.tags == ["loss", "acc"]
    filtered = compare.page_state({"job_filter": "[ab]", "filter": "acc"}, jobs, tags_of)
    assert filtered.shown_jobs == ["./a", "./b"] and filtered.shown_tags == ["acc"]
    charts, _ = compare.chart_specs(filtered, tags_of, {"./a": "#111111", "./b": "#222222"})
    assert [(c.title, c.legend) for c in charts] == [("acc", True)]
    assert [(s.train_id, s.colour) for s in charts[0].series] == [("./b", "#222222")]
    chosen = compare.page_state({"jobs": encode_tags(["./f", "./a"])}, jobs, tags_of)
    assert chosen.jobs == ["./a", "./f"] and chosen.all_tags == ["loss"]


def test_scalar_controls_to_state_and_url() -> None:
    tags = ["loss", "train/acc", "eval/acc", "lr"]
    state = scalars.page_state({"train_id": "./j", "filter": "acc$", "page": "2"}, tags)
    # "None" unselects what the filter shows; the others stay; the URL names the rest.
    after = scalars.next_state(
        state, tags, "scalar-tags-none", tags, "acc$", "step", 0, (None, None)
    )
    assert after.selected == ["loss", "lr"] and state.selected == tags  # a new state
    # what is drawn changed: back to page 1
    assert scalars.state_search(after, tags) == "?train_id=.%2Fj&tags=loss%2Clr&filter=acc%24"
    assert (
        scalars.next_state(state, tags, "scalar-tags-filter", None, "^l", "step", 0, None).page == 1
    )
    after = scalars.next_state(after, tags, "scalar-tags-all", None, "acc$", "step", 0, None)
    assert after.selected == tags and "tags=" not in scalars.state_search(after, tags)
    # Unticking one shown tag keeps the hidden ones.
    after = scalars.next_state(state, tags, "scalar-tags", ["eval/acc"], "acc$", "step", 0, None)
    assert after.selected == ["loss", "eval/acc", "lr"]
    after = scalars.next_state(state, tags, scalars.IDS["smoothing"], None, "", "step", 0.6, None)
    assert after.smoothing == 0.6 and "smoothing=0.6" in scalars.state_search(after, tags)
    after = scalars.next_state(state, tags, scalars.IDS["axis"], None, "", "absolute", 0, None)
    assert after.axis == "absolute"
    assert scalars.next_state(state, tags, "scalar-prev", None, "", "step", 0, None).page == 1
    assert scalars.next_state(state, tags, "scalar-next", None, "", "step", 0, None).page == 3
    composed = scalars.next_state(state, tags, "compose-apply", None, "", "step", 0, ["loss", "lr"])
    assert composed.compose == ["loss", "lr"]
    assert scalars.page_state(parse_search(scalars.state_search(composed, tags)), tags).compose == [
        "loss",
        "lr",
    ]
    assert (
        scalars.next_state(
            state, tags, "compose-apply", None, "", "step", 0, ["loss", "loss"]
        ).compose
        is None
    )  # two different tags
    assert (
        scalars.next_state(
            composed, tags, "compose-remove", None, "", "step", 0, ["loss", "lr"]
        ).compose
        is None
    )
    # Every chosen tag is composed, as MindInsight composes all the selected tags.
    three = scalars.next_state(
        state, tags, "compose-apply", None, "", "step", 0, ["lr", "loss", "eval/acc", "gone"]
    )
    assert three.compose == ["lr", "loss", "eval/acc"]
    assert scalars.page_state(parse_search(scalars.state_search(three, tags)), tags).compose == [
        "lr",
        "loss",
        "eval/acc",
    ]
    chart = scalars.chart_specs("./j", replace(three, shown=[]))[0][0]
    assert chart.title == "lr  +  loss  +  eval/acc"
    assert [(s.tag, s.right_axis) for s in chart.series] == [
        ("lr", False),
        ("loss", False),
        ("eval/acc", False),
    ]
    assert chart.grouped_axes  # the plan puts them on axes by their ranges


def test_composed_tags_go_on_axes_by_their_ranges(corpus_provider) -> None:
    """Issue #38 item 5: loss (0..2.5) and accuracy (0..1) share the left axis, lr (0..0.1)
    gets the right one, metrics/huge (1e30) an axis of its own; a chart of runs is left as
    its specs say."""
    tags = ["loss", "lr", "accuracy", "metrics/huge"]
    chart = scalars.chart_specs("./ops_all", replace(_composed_state(tags), shown=[]))[0][0]
    plan = chart_plan(corpus_provider, [chart])["charts"][0]
    assert [(s["tag"], s["axis"], s["right"]) for s in plan["series"]] == [
        ("loss", 0, False),
        ("lr", 1, True),
        ("accuracy", 0, False),
        ("metrics/huge", 2, False),
    ]
    runs = ChartSpec("c", "lr", tuple(SeriesSpec(j, "lr", j) for j in ("./ops_all", "./ops_all")))
    assert all("axis" not in s for s in chart_plan(corpus_provider, [runs])["charts"][0]["series"])


def _composed_state(tags: list[str]) -> scalars.ScalarsState:
    state = scalars.page_state(parse_search(""), tags)
    return replace(state, compose=tags)


def test_threshold_of_the_form() -> None:
    assert scalars.threshold_of([">", "<"], [1, 3.5], "or") == {
        "conditions": [[">", 1.0], ["<", 3.5]],
        "combine": "or",
    }
    # A condition without operator or value is left out; "and" when no combination is set.
    assert scalars.threshold_of([">", None], [9, None], None) == {
        "conditions": [[">", 9.0]],
        "combine": "and",
    }
    assert scalars.threshold_of([None, "<"], [2, 0], "and") == {
        "conditions": [["<", 0.0]],
        "combine": "and",
    }
    assert scalars.threshold_of([">", "<"], [None, None], "and") is None


def test_compare_controls_to_url() -> None:
    jobs = ["./a", "./b", "./c", "./d", "./e", "./f"]
    tags_of = {j: ["loss"] + (["acc"] if j == "./b" else []) for j in jobs}
    state = compare.page_state({}, jobs, tags_of)

    def search(
        trigger: object,
        checked_jobs: list[str] | None = None,
        job_pattern: str = "",
        checked_tags: list[str] | None = None,
        axis: str = "step",
        smoothing: float = 0.0,
        start: compare.CompareState | None = None,
    ) -> str:
        return compare.controls_search(
            start or state,
            jobs,
            tags_of,
            trigger,
            checked_jobs,
            job_pattern,
            checked_tags,
            "",
            axis,
            smoothing,
        )

    assert search("compare-next") == "?page=2"  # the default jobs stay implicit
    assert (
        search(
            "compare-jobs-filter",
            job_pattern="a",
            start=replace(state, url=replace(state.url, page=3)),
        )
        == "?job_filter=a"
    )  # a new filter: back to page 1
    added = search("compare-jobs", checked_jobs=[*jobs[:5], "./f"])
    assert compare.STATE.parse_search(added).jobs == jobs
    none = compare.STATE.parse_search(search("compare-jobs-none", job_pattern="[ab]"))
    assert none.jobs == ["./c", "./d", "./e"]
    only_acc = search("compare-tags", checked_tags=["acc"])
    assert compare.STATE.parse_search(only_acc).tags == ["acc"]
    assert (
        search({"type": "chart-axis", "page": "compare"}, axis="relative", smoothing=0.5)
        == "?axis=relative&smoothing=0.5"
    )
    explicit = compare.page_state({"jobs": encode_tags(jobs[:5])}, jobs, tags_of)
    assert (
        compare.STATE.parse_search(search("compare-next", start=explicit)).jobs == jobs[:5]
    )  # once named, the jobs stay in the link


def test_plan_names_the_series_without_points_and_reports_problems(
    corpus: Path, tmp_path: Path
) -> None:
    app = create_app(
        Settings(summary_base_dir=str(corpus), workspace=str(tmp_path / "ws"), reload_interval=0),
        start_loader=False,
    )
    app.data_service.loader.load_round()
    specs = [
        ChartSpec(
            "a",
            "loss",
            (SeriesSpec("./ops_all", "loss", "loss"), SeriesSpec("./ops_all", "nope", "nope")),
        )
    ]
    plan = chart_plan(app.data_service.provider, specs)
    [chart] = plan["charts"]
    series = dict(chart["series"][0])
    assert len(chart["series"]) == 1
    best, direction = series.pop("best"), series.pop("direction")
    assert series == {
        "name": "loss",
        "train_id": "./ops_all",
        "tag": "loss",
        "right": False,
        "colour": None,
        "place_colour": PALETTE[0],  # no run colour: the palette's, by its place in the chart
        "total": 500,
        "last": 500,
    }  # no points: fetched later
    # Only the best points of the raw series travel with the plan (a loss: its lowest).
    full = app.data_service.provider.read_scalars("./ops_all", "loss")
    finite = full.value[np.isfinite(full.value)]
    assert direction == "min" and best["min"]["value"] == float(finite.min())
    assert best["max"]["value"] == float(finite.max())
    assert "nope" in chart["problems"][0]
    assert chart_plan(app.data_service.provider, specs) == plan  # same data, same stamps
    other = chart_plan(
        app.data_service.provider, [ChartSpec("a", "loss", (SeriesSpec("./ops_all", "lr", "lr"),))]
    )
    assert other["stamp"] != plan["stamp"] and other["charts"][0]["stamp"] != chart["stamp"]
    # The browser takes the palette from the plan (it has no copy): one colour per place.
    tags = [SeriesSpec("./ops_all", tag, tag) for tag in ("loss", "lr", "nope", "loss")]
    three = chart_plan(app.data_service.provider, [ChartSpec("b", "3", tuple(tags))])["charts"][0]
    assert [s["place_colour"] for s in three["series"]] == list(PALETTE[:3])
    app.data_service.close()


# --- browser ------------------------------------------------------------------------------------


def _figures(dash_duo) -> dict[str, dict]:
    """{chart title: {"data": [...], "layout": {...}}} of the charts drawn, read in one go;
    the lines, thresholds and marks of non-finite values (the best-value stars are left out:
    test_user_asks.py reads them; so are the epoch and restart markers: test_markers.py)."""
    return dash_duo.driver.execute_script("""
        const out = {};
        document.querySelectorAll('.di-chart-card').forEach(card => {
            const plot = card.querySelector('.js-plotly-plot');
            const title = card.querySelector('.di-chart-title').textContent;
            if (plot && plot.data) out[title] = {
                data: plot.data.filter(t => !['best', 'marker'].includes((t.meta || {}).role))
                    .map(t => ({name: t.name, y: t.y, x: t.x, yaxis: t.yaxis})),
                layout: {xaxis: plot.layout.xaxis.title, yaxis: plot.layout.yaxis.type,
                         annotations: (plot.layout.annotations || []).map(a => a.text),
                         y2: !!plot.layout.yaxis2}};
        });
        return out;""")


#: The card ``arguments[1]`` among those that match ``arguments[0]``, as ``card``.
NTH_CARD = "const card = document.querySelectorAll(arguments[0])[arguments[1]];\n"

#: What a card that is not drawn holds, for a timeout's message.
CARD_STATE = (
    NTH_CARD
    + """
if (!card) return 'gone';
const slot = card.querySelector('.di-graph-slot');
return {id: card.id, className: card.className, data: Object.assign({}, card.dataset),
        children: Array.from(card.children).map(c => c.className || c.tagName),
        slot: slot ? {className: slot.className, data: Object.assign({}, slot.dataset)} : null,
        rect: card.getBoundingClientRect().toJSON(), scrollY: window.scrollY,
        html: card.outerHTML.slice(0, 1500)};
"""
)


def _wait_charts(dash_duo, count: int, timeout: float = 30) -> dict[str, dict]:
    """The figures once ``count`` chart cards are there and drawn: charts are drawn when they
    come on screen, so each card is scrolled into view in turn (then back to the top)."""
    cards = ".di-chart-card"
    until(lambda: len(dash_duo.find_elements(cards)) == count, timeout)
    for index in range(count):
        dash_duo.driver.execute_script(
            NTH_CARD + "if (card) card.scrollIntoView({block: 'center'});", cards, index
        )
        try:
            until(
                lambda index=index: dash_duo.driver.execute_script(
                    NTH_CARD + "const plot = card && card.querySelector('.js-plotly-plot');"
                    "return Boolean(plot && plot.data);",
                    cards,
                    index,
                ),
                timeout,
            )
        except WaitTimedOut as error:
            raise AssertionError(
                f"card {index} of {count} never drawn: "
                + str(run_js(dash_duo, CARD_STATE, cards, index))
            ) from error
    dash_duo.driver.execute_script("window.scrollTo(0, 0);")
    until(lambda: len(_figures(dash_duo)) == count, timeout)
    return _figures(dash_duo)


def _show_chart(dash_duo, title: str) -> None:
    """Scroll the chart ``title`` to the middle of the screen."""
    dash_duo.driver.execute_script(
        """
        Array.from(document.querySelectorAll('.di-chart-card')).find(c =>
            c.querySelector('.di-chart-title').textContent === arguments[0])
          .scrollIntoView({block: 'center'});""",
        title,
    )


def _plot_width(dash_duo, title: str) -> int:
    """The pixel width of the plot area of the chart ``title``."""
    return dash_duo.driver.execute_script(
        """
        const card = Array.from(document.querySelectorAll('.di-chart-card')).find(c =>
            c.querySelector('.di-chart-title').textContent === arguments[0]);
        return card.querySelector('.js-plotly-plot')._fullLayout._size.w;""",
        title,
    )


def _open(dash_duo, app, path: str) -> None:
    dash_duo.start_server(app)
    dash_duo.wait_for_page(dash_duo.server_url + path)
    # Record every request the page sends from now on, to tell server callbacks apart.
    dash_duo.driver.execute_script("""
        window._diRequests = [];
        const original = window.fetch;
        window.fetch = function (url, options) {
            window._diRequests.push(String((options && options.body) || ''));
            return original.apply(this, arguments);
        };""")


def _zoom_history(dash_duo, chart: str) -> list:
    """The ``chart-zoom`` store of ``chart``, read from Dash's own state (it has no DOM)."""
    return dash_duo.driver.execute_script(
        """
        const state = window.store.getState();
        for (const entry of (state.paths.objs || {})["chart,type"] || []) {
            if (entry.values[0] !== arguments[0] || entry.values[1] !== "chart-zoom") continue;
            let node = state.layout;
            for (const key of entry.path) node = node[key];
            return node.props.data || [];
        }
        return null;""",
        chart,
    )


def _click(dash_duo, selector: str) -> None:
    """Click after centring the element (the sticky top bar would cover it at the top)."""
    element = dash_duo.find_element(selector)
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def _set_input(dash_duo, selector: str, text: str) -> None:
    element = dash_duo.find_element(selector)
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.send_keys("\ue009a")  # ctrl-a
    element.send_keys("\ue003" + text + "\ue007")  # backspace, the text, enter


def test_tags_axis_and_smoothing_in_the_browser(dash_duo, corpus_app) -> None:
    _open(dash_duo, corpus_app, "/scalars?train_id=./ops_all")
    figures = _wait_charts(dash_duo, 10)
    # The figures' margins hold the labels: Plotly's automargin added nothing to any chart
    # drawn (when it adds, it draws the chart a second time).
    added = run_js(dash_duo, MARGINS_ADDED, "#scalar-grid")
    assert added and [m for m in added if m != [0, 0, 0, 0]] == []
    # The chart gets at most a point per pixel column of its plot area, each a stored value.
    stored = corpus_app.data_service.provider.read_scalars("./ops_all", "loss")
    assert stored.step.tolist() == list(range(1, 501))
    steps, drawn = figures["loss"]["data"][0]["x"], figures["loss"]["data"][0]["y"]
    assert 100 < len(steps) <= _plot_width(dash_duo, "loss")
    np.testing.assert_allclose(drawn, stored.value[np.asarray(steps) - 1], rtol=1e-6)
    np.testing.assert_allclose(figures["loss"]["data"][1]["y"], drawn)  # unsmoothed

    # Unselect a tag: its chart goes, the URL says so.
    _click(dash_duo, picker_row("scalar-tags", "lr"))
    _wait_charts(dash_duo, 9)
    assert "tags=" in dash_duo.driver.current_url and "lr" not in _figures(dash_duo)
    _click(dash_duo, "#scalar-tags-all")
    _wait_charts(dash_duo, 10)

    # Regex filter: the charts of the matching tags; "None" unselects only what is shown,
    # clearing the filter shows the others again.
    _set_input(dash_duo, "#scalar-tags-filter", "^metrics/")
    until(lambda: len(picker_rows(dash_duo, "scalar-tags")["rows"]) == 4, 10)
    _wait_charts(dash_duo, 4)
    _click(dash_duo, "#scalar-tags-none")
    dash_duo.wait_for_contains_text("#scalar-grid", "No tag selected")
    _set_input(dash_duo, "#scalar-tags-filter", "")
    _wait_charts(dash_duo, 6)

    # Relative time axis.
    _click(dash_duo, '.di-axis input[value="relative"]')
    until(lambda: _figures(dash_duo)["loss"]["layout"]["xaxis"]["text"] == "relative time (s)", 10)
    # The chart follows the radio in the browser; the URL comes with the server's answer.
    until(lambda: "axis=relative" in dash_duo.driver.current_url, 10)

    # Smoothing: redrawn in the browser, equal to the Python twin; no server call draws it.
    dash_duo.driver.execute_script("window._diRequests = [];")
    _set_input(dash_duo, ".di-smoothing-box input", "0.6")
    expected = smooth_ema(np.asarray(drawn, np.float64), 0.6)
    until(lambda: np.allclose(_figures(dash_duo)["loss"]["data"][1]["y"], expected, rtol=1e-5), 10)
    sent = [
        json.loads(body)
        for body in dash_duo.driver.execute_script("return window._diRequests;")
        if body.startswith("{")
    ]
    outputs = json.dumps([request.get("outputs") for request in sent])
    assert sent and '"property": "figure"' not in outputs  # the server never drew a chart
    until(lambda: "smoothing=0.6" in dash_duo.driver.current_url, 10)

    # The slider follows the box; a key on it smooths by its step, the box follows it.
    slider = ".di-slider input[type=range]"
    until(lambda: dash_duo.find_element(slider).get_attribute("value") == "0.6", 10)
    dash_duo.find_element(slider).send_keys(Keys.ARROW_RIGHT)
    expected = smooth_ema(np.asarray(drawn, np.float64), 0.61)
    until(lambda: np.allclose(_figures(dash_duo)["loss"]["data"][1]["y"], expected, rtol=1e-5), 10)
    until(lambda: "smoothing=0.61" in dash_duo.driver.current_url, 10)
    assert dash_duo.find_element(".di-smoothing-box input").get_attribute("value") == "0.61"


def test_a_link_with_tags_draws_those_tags(dash_duo, corpus_app) -> None:
    """A bookmarked or linked page (notebook.show(..., tags=[...])) keeps its ``tags``: Dash's
    first call of the controls' callback, with every input "triggered", changes nothing."""
    _open(dash_duo, corpus_app, "/scalars?train_id=./ops_all&tags=lr%2Closs")
    dash_duo.wait_for_text_to_equal("#scalar-total", "2 of 10 tags")
    assert sorted(_wait_charts(dash_duo, 2)) == ["loss", "lr"]
    assert "tags=lr%2Closs" in dash_duo.driver.current_url
    _click(dash_duo, "#scalar-tags-all")  # the buttons still work
    _wait_charts(dash_duo, 10)


#: Drops the first mount of the card of metrics/nan_inf (below the first screen), as Dash drops
#: a set_props it cannot place, before the page's scripts run.
LOSE_FIRST_MOUNT = """
const wait = setInterval(() => {
  const clientside = window.dash_clientside;
  if (!clientside || !clientside.set_props) return;
  clearInterval(wait);
  const setProps = clientside.set_props;
  window.__mounts = 0;
  clientside.set_props = function (id, props) {
    if (id && String(id.chart).endsWith('metrics/nan_inf') && 'data-component' in props
        && ++window.__mounts === 1) return undefined;
    return setProps.apply(this, arguments);
  };
}, 1);
"""


def test_a_chart_card_whose_mount_was_lost_is_mounted_again(dash_duo, corpus_app) -> None:
    """A deferred card still holding its component a second after its mount is mounted
    again (assets/deferred.js): the lost mount leaves no card empty."""
    dash_duo.start_server(corpus_app)
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": LOSE_FIRST_MOUNT}
    )
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./ops_all")
    figures = _wait_charts(dash_duo, 10)
    assert run_js(dash_duo, "return window.__mounts;") == 2  # the lost one, then its mount
    assert figures["metrics/nan_inf"]["data"]
    assert console_errors(dash_duo) == []


def test_log_zoom_threshold_and_composition(dash_duo, corpus_app) -> None:
    _open(dash_duo, corpus_app, "/scalars?train_id=./ops_all")
    _wait_charts(dash_duo, 10)
    card = '[id*="\\"chart\\":\\"./ops_all|train/grad_norm\\""]'

    # Log scale: non-positive values become gaps, with a note.
    _click(dash_duo, f'{card} button[id*="chart-log"]')
    until(lambda: _figures(dash_duo)["train/grad_norm"]["layout"]["yaxis"] == "log", 10)
    notes = _figures(dash_duo)["train/grad_norm"]["layout"]["annotations"]
    assert any("non-positive" in note for note in notes)

    # Box zoom twice, back one step, reset.
    plot = f"{card}.di-chart-card .js-plotly-plot"
    ranges = dash_duo.driver.execute_script(
        """
        const div = document.querySelector(arguments[0]);
        return [div.layout.xaxis.range.slice()];""",
        plot,
    )
    for depth, (lo, hi) in enumerate(((100, 400), (200, 300)), start=1):
        dash_duo.driver.execute_script(
            "Plotly.relayout(document.querySelector(arguments[0]),"
            " {'xaxis.range[0]': arguments[1], 'xaxis.range[1]': arguments[2]});",
            plot,
            lo,
            hi,
        )
        # the next zoom only once this one is in the chart's zoom history
        until(
            lambda depth=depth: len(_zoom_history(dash_duo, "./ops_all|train/grad_norm")) == depth,
            10,
        )
    _click(dash_duo, f'{card} button[id*="chart-back"]')
    until(
        lambda: (
            dash_duo.driver.execute_script(
                "return document.querySelector(arguments[0]).layout.xaxis.range;", plot
            )
            == [100, 400]
        ),
        10,
    )
    _click(dash_duo, f'{card} button[id*="chart-reset"]')
    until(
        lambda: (
            dash_duo.driver.execute_script(
                "return document.querySelector(arguments[0]).layout.xaxis.range;", plot
            )
            == ranges[0]
        ),
        10,
    )

    # Threshold on "loss": > 1 highlights exactly the points above 1; remembered; deleted.
    loss_card = '[id*="\\"chart\\":\\"./ops_all|loss\\""]'
    delete = f'{loss_card} button[id*="th-delete"]'
    assert not dash_duo.find_element(delete).is_displayed()  # no threshold, nothing to delete
    _click(dash_duo, f'{loss_card} button[id*="th-open"]')
    dash_duo.wait_for_contains_text("#th-form-title", "loss")
    _set_input(dash_duo, "#th-value-1", "1")
    _click(dash_duo, "#th-apply")
    until(lambda: not dash_duo.find_element("#th-form").is_displayed(), 10)
    dash_duo.wait_for_contains_text(f'{loss_card} [id*="th-current"]', "> 1")
    until(lambda: len(_figures(dash_duo)["loss"]["data"]) == 3, 10)
    trace = _figures(dash_duo)["loss"]["data"][2]
    smoothed = _figures(dash_duo)["loss"]["data"][1]["y"]
    assert [y is not None for y in trace["y"]] == [v > 1 for v in smoothed]
    dash_duo.driver.refresh()
    dash_duo.wait_for_contains_text(f'{loss_card} [id*="th-current"]', "> 1", timeout=15)
    assert dash_duo.find_element(delete).is_displayed()
    _click(dash_duo, delete)
    dash_duo.wait_for_contains_text(f'{loss_card} [id*="th-current"]', "-")
    until(lambda: not dash_duo.find_element(delete).is_displayed(), 10)

    # Compose two tags in one chart with two y axes.
    dash_duo.driver.execute_script("window.scrollTo(0, 0);")
    for tag in ("loss", "lr"):  # ranges 25 times apart (issue #38 item 5)
        dash_duo.select_dcc_dropdown("#compose-tags", value=tag)
        # A multi-select stays open after a pick: close it, so the next click opens it.
        ActionChains(dash_duo.driver).send_keys(Keys.ESCAPE).perform()
        dash_duo.wait_for_no_elements(".dash-dropdown-options")
    dash_duo.wait_for_contains_text("#compose-tags", "lr")
    _click(dash_duo, "#compose-apply")
    until(lambda: "loss  +  lr" in _figures(dash_duo), 10)
    composed = _figures(dash_duo)["loss  +  lr"]
    assert composed["layout"]["y2"] and {t["yaxis"] for t in composed["data"]} == {"y", "y2"}
    assert "compose=" in dash_duo.driver.current_url
    assert console_errors(dash_duo) == []


def test_compare_two_jobs(dash_duo, corpus_app) -> None:
    jobs = encode_tags(["./lenet_sc", "./lenet_lr0.01_bs32"])
    _open(dash_duo, corpus_app, f"/compare?jobs={quote(jobs)}")
    figures = _wait_charts(dash_duo, 2)
    names = {t["name"] for t in figures["loss/auto"]["data"]}
    assert names == {"./lenet_sc", "./lenet_lr0.01_bs32"}
    # One request per chart for both jobs' lines (chart/scalar_lines), none per job.
    asked = run_js(
        dash_duo,
        """return performance.getEntriesByType('resource').map(e => e.name)
             .filter(name => name.includes('/v1/dash-insight/chart/scalar'));""",
    )
    assert asked and all("/chart/scalar_lines?" in url for url in asked), asked
    assert len(asked) == len(figures)
    assert all(url.count("train_id=") == 2 and url.count("tag=") == 2 for url in asked)
    # Add a third job from the checklist: its line appears in the same chart.
    _click(dash_duo, picker_row("compare-jobs", "./lenet_lr0.05_bs64"))
    _show_chart(dash_duo, "loss/auto")  # a chart is brought up to date when on screen
    until(lambda: len({t["name"] for t in _figures(dash_duo)["loss/auto"]["data"]}) == 3, 10)
    _click(dash_duo, '.di-axis input[value="absolute"]')
    until(lambda: _figures(dash_duo)["loss/auto"]["layout"]["xaxis"]["text"] == "time", 10)
    assert console_errors(dash_duo) == []


#: Every callback the page sends (its outputs, then the inputs that changed), recorded before
#: the page's scripts run.
CALLBACK_RECORDER = """
window.__callbacks = [];
const originalFetch = window.fetch;
window.fetch = function (url, options) {
  if (String(url).includes('_dash-update-component')) {
    const request = JSON.parse(String(options.body));
    window.__callbacks.push(request.output + ' <- ' + (request.changedPropIds || []).join(' '));
  }
  return originalFetch.apply(this, arguments);
};
"""


def test_compare_layout_has_its_grid_counts_warning_and_menus(dash_duo, corpus_app) -> None:
    """#37 item 2: the comparison's layout holds its chart cards (and their plan), the counts,
    the crowd warning, the run colour, group and colour-by menus and the tag map's note, so
    opening it sends no callback for them (each was a round trip before the charts' points
    were asked for, and the menus' values, set by an answer, ran the group controls' callback
    once more); the charts drawn are the same."""
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": CALLBACK_RECORDER}
    )
    jobs = encode_tags(["./lenet_sc", "./lenet_lr0.01_bs32"])
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + f"/compare?jobs={quote(jobs)}")
    figures = _wait_charts(dash_duo, 2)
    assert {t["name"] for t in figures["loss/auto"]["data"]} == {
        "./lenet_sc",
        "./lenet_lr0.01_bs32",
    }
    wait_idle(dash_duo)
    # None at all: the last one, the tag map's restoring callback, answered nothing.
    assert run_js(dash_duo, "return window.__callbacks;") == []
    assert dash_duo.find_element("#compare-total").text == "2 of 2 tags, 2 jobs"
    assert dash_duo.find_element("#compare-page").text == "1 / 1"
    # The recorder sees the page's callbacks: Refresh sends some.
    dash_duo.find_element("#refresh-now").click()
    until(lambda: run_js(dash_duo, "return window.__callbacks.length;") > 0, 30)
    assert console_errors(dash_duo) == []


def test_zooming_in_ends_on_the_exact_raw_points(dash_duo, tmp_path: Path) -> None:
    """A spike at one step of 120,000: each box zoom asks the server for the visible range at
    the chart's width, and the last one draws every raw point of its range, exactly."""
    from dash_insight import SummaryWriter

    spike = 73_141
    steps = np.arange(1, 120_001)
    values = (np.sin(steps / 5000) + np.random.default_rng(1).random(len(steps)) * 0.2).astype(
        np.float32
    )
    values[spike - 1] = 3.25  # 1.2 above anything else
    values[spike + 30 - 1] = np.nan
    with SummaryWriter(tmp_path / "logs" / "long", host="test") as writer:
        for step, value in zip(steps.tolist(), values.tolist(), strict=True):
            writer.add_value("scalar", "loss", value)
            writer.record(step)
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        _open(dash_duo, app, "/scalars?train_id=./long")
        figure = _wait_charts(dash_duo, 1, timeout=30)["loss"]
        width = _plot_width(dash_duo, "loss")
        assert len(figure["data"][0]["x"]) <= width + 1  # the NaN beyond the budget
        assert any("points drawn" in note for note in figure["layout"]["annotations"])
        plot = ".di-chart-card .js-plotly-plot"

        def drawn() -> tuple[list, list, list]:
            data = _figures(dash_duo)["loss"]
            return data["data"][0]["x"], data["data"][0]["y"], data["layout"]["annotations"]

        for depth, (lo, hi) in enumerate(
            ((60_000, 90_000), (72_000, 75_000), (73_050, 73_250)), start=1
        ):
            dash_duo.driver.execute_script(
                "Plotly.relayout(document.querySelector(arguments[0]),"
                " {'xaxis.range[0]': arguments[1], 'xaxis.range[1]': arguments[2]});",
                plot,
                lo,
                hi,
            )
            until(lambda lo=lo: drawn()[0] and drawn()[0][0] >= lo, 15)  # the range's points
            x, y, notes = drawn()
            assert spike in x and y[x.index(spike)] == 3.25  # the spike, at every zoom
            assert min(x) >= lo and max(x) <= hi
            until(lambda depth=depth: len(_zoom_history(dash_duo, "./long|loss")) == depth, 10)
        x, y, notes = drawn()
        assert x == list(range(73_050, 73_251))  # every step of the range
        assert y == [
            None if math.isnan(v) else v
            for v in values[73_050 - 1 : 73_251 - 1].astype(np.float64).tolist()
        ]
        assert "raw: all 201 points of the range" in notes
        _click(dash_duo, 'button[id*="chart-reset"]')  # back to the whole series
        until(lambda: len(drawn()[0]) <= width + 1 and drawn()[0][-1] == 120_000, 10)
        assert console_errors(dash_duo) == []


#: The first chart card's graph and every card of its row (same top), once the first is drawn:
#: bottoms of their graphs, the window's height, the number of job rows listed.
FIRST_ROW = """
const cards = Array.from(document.querySelectorAll('#compare-grid .di-chart-card'));
const plot = cards.length && cards[0].querySelector('.js-plotly-plot');
if (!plot || !plot.data) return null;
const top = cards[0].getBoundingClientRect().top;
const row = cards.filter(card => Math.abs(card.getBoundingClientRect().top - top) < 1);
return {bottoms: row.map(card => card.querySelector('.di-graph-slot')
                                      .getBoundingClientRect().bottom),
        plot: plot.getBoundingClientRect().bottom, window: window.innerHeight,
        scrolled: window.scrollY, jobs: document.querySelectorAll('#compare-jobs label').length};
"""


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_compare_first_row_of_charts_on_the_first_screen(
    dash_duo, corpus_app, language: str
) -> None:
    """#38 item 2: with the job and tag selection in a side panel, a whole row of charts
    (at least one) is on the first screen at 1280×800 and 1600×1000, with the job list
    beside it."""
    dash_duo.start_server(corpus_app)
    dash_duo.driver.add_cookie({"name": "di_language", "value": language})
    for width, height in ((1280, 800), (1600, 1000)):
        dash_duo.driver.set_window_size(width, height)
        dash_duo.wait_for_page(dash_duo.server_url + "/compare")
        until(lambda: (run_js(dash_duo, FIRST_ROW) or {}).get("jobs"), 60)
        found = run_js(dash_duo, FIRST_ROW)
        assert found["scrolled"] == 0
        assert found["plot"] <= found["window"], (width, found)
        assert all(bottom <= found["window"] for bottom in found["bottoms"]), (width, found)
        assert len(found["bottoms"]) >= 2, (width, found)  # a row: more than one chart
        # The side panel lists the jobs beside the charts.
        side = dash_duo.find_element("#compare-side").rect
        grid = dash_duo.find_element("#compare-grid").rect
        assert side["x"] + side["width"] <= grid["x"] and side["y"] < found["window"]
    assert console_errors(dash_duo) == []


def test_compare_job_list_eyes_have_the_lines_colours(dash_duo, corpus_app) -> None:
    """#38 item 2: each run's eye in the job list has the colour of its lines, so that the
    side panel's list is the charts' legend (TensorBoard's runs list); a colour the user
    picks for a run repaints its eye too."""
    dash_duo.driver.set_window_size(1600, 1000)
    _open(dash_duo, corpus_app, "/compare")
    # Charts are drawn one at a time: wait until those drawn hold the lines of two runs (the
    # first one drawn may be of a tag only one run has).
    until(lambda: len(run_js(dash_duo, EYE_AND_LINE_COLOURS) or {}) >= 2, 60)
    pairs = run_js(dash_duo, EYE_AND_LINE_COLOURS)
    assert all(eye == line for eye, line in pairs.values()), pairs
    assert len({line for _eye, line in pairs.values()}) == len(pairs)
    run = dash_duo.find_element("#compare-colour-run").text  # the first run drawn
    pink = "rgb(255, 80, 160)"  # PALETTE[3]
    assert pairs[run][0] != pink
    _click(dash_duo, f'button[id*="{PALETTE[3]}"]')
    eye = f'#compare-jobs .di-eye[data-run="{run}"]'
    until(
        lambda: (
            run_js(
                dash_duo, "return getComputedStyle(arguments[0]).color;", dash_duo.find_element(eye)
            )
            == pink
        ),
        30,
    )
    assert console_errors(dash_duo) == []


#: {run: [its eye's colour, its line's colour]} for the runs of the charts drawn, both as the
#: browser computes them (rgb(...)); null until a chart and the list are drawn.
EYE_AND_LINE_COLOURS = """
const plots = Array.from(document.querySelectorAll('#compare-grid .js-plotly-plot'))
    .filter(plot => plot.data);
if (!plots.length) return null;
const computed = colour => { const probe = document.createElement('span');
    probe.style.color = colour; document.body.appendChild(probe);
    const value = getComputedStyle(probe).color; probe.remove(); return value; };
const out = {};
for (const trace of plots.flatMap(plot => plot.data)) {
    const role = (trace.meta || {}).role;  // the run's lines, not the best-value stars
    if (!trace.line || !trace.line.color || !['raw', 'smoothed'].includes(role)) continue;
    const eye = document.querySelector(`#compare-jobs .di-eye[data-run="${trace.name}"]`);
    if (!eye) return null;
    out[trace.name] = [getComputedStyle(eye).color, computed(trace.line.color)];
}
return Object.keys(out).length ? out : null;
"""
