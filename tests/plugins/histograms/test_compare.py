"""Issue 17 item 10: one histogram tag of several runs overlaid at one step, on jobs this test
writes (the comparison dashboard's histograms tab)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlparse

import numpy as np
import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.histograms import compare_page
from dash_insight.web.components.compare_runs import (
    nearest_step,
    step_box_search,
    step_box_to_url,
    typed_step,
)
from dash_insight.web.components.run_colours import run_colour
from dash_insight.web.url_state import encode_tags
from tests.browser import until, wait_idle
from tests.pages import count_draws, draws, refresh, run_js, text, type_into, url_params

#: ./h0 has ``w`` at steps 0, 10, 20, 30; ./h1 at 0, 15, 30; ./h2 only ``b``.
STEPS = {"h0": (0, 10, 20, 30), "h1": (0, 15, 30), "h2": (0, 5)}
RUNS = ["./h0", "./h1", "./h2"]


@pytest.fixture(scope="module")
def hist_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    base = tmp_path_factory.mktemp("hcmp")
    rng = np.random.default_rng(7)
    for run, steps in STEPS.items():
        with SummaryWriter(base / run, host="test", timestamp=1_700_000_000) as writer:
            for step in steps:
                values = rng.normal(step / 10, 1.0, 500).astype(np.float32)
                writer.add_histogram("b" if run == "h2" else "w", values, step)
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


def _drawn(dash_duo) -> list[dict] | None:
    """The overlay's curves: run, step, colour, legend name."""
    return run_js(
        dash_duo,
        """
        const p = document.querySelector('#hcmp-graph .js-plotly-plot');
        if (!p || !p.data) return null;
        return p.data.map(t => ({run: t.meta.run, step: t.meta.step, colour: t.line.color,
                                 name: t.name}));""",
    )


def _notes(dash_duo) -> dict[str, str]:
    return {
        li.find_element("css selector", "b").text: li.text
        for li in dash_duo.find_elements("#hcmp-notes li.di-cmp-note")
    }


def test_histograms_of_several_runs_overlaid(dash_duo, hist_app) -> None:
    dash_duo.start_server(hist_app)
    every = sorted(job.train_id for job in hist_app.data_service.provider.list_jobs())
    search = f"?jobs={quote(encode_tags(RUNS))}&tag=w&step=20"
    dash_duo.wait_for_page(dash_duo.server_url + "/compare/histograms" + search)

    # One curve per run with the tag, in the run's colour; ./h1 shows its step 15.
    until(lambda: sorted(d["run"] for d in _drawn(dash_duo) or []) == ["./h0", "./h1"], 30)
    drawn = {d["run"]: d for d in _drawn(dash_duo)}
    assert {run: d["colour"] for run, d in drawn.items()} == {
        run: run_colour(run, every) for run in ("./h0", "./h1")
    }
    assert (drawn["./h0"]["step"], drawn["./h1"]["step"]) == (20, 15)
    until(lambda: set(_notes(dash_duo)) == {"./h0", "./h1"}, 10)
    notes = _notes(dash_duo)
    assert notes["./h0"].endswith("step 20")
    assert notes["./h1"].endswith("step 15 (the last at or before 20)")
    assert dash_duo.find_element("#hcmp-missing").text == "No w in: ./h2"
    assert dash_duo.find_element("#hcmp-step-label").text == "step 20"
    assert (
        dash_duo.find_element("#compare-tab-compare-histograms")
        .get_attribute("class")
        .endswith("active")
    )

    # Hide ./h1 by its eye: it is not drawn; the URL keeps it.
    wait_idle(dash_duo)
    run_js(dash_duo, "document.querySelector('#hcmp-jobs .di-eye[data-run=\"./h1\"]').click();")
    until(lambda: url_params(dash_duo).get("hidden") == "./h1", 20)
    until(lambda: [d["run"] for d in _drawn(dash_duo) or []] == ["./h0"], 20)
    assert set(_notes(dash_duo)) == {"./h0"}

    # The other tabs get the same runs: their links carry the jobs and the hidden runs.
    def carried(tab: str) -> dict[str, list[str]]:
        href = dash_duo.find_element(f"#compare-tab-{tab}").get_attribute("href")
        return parse_qs(urlparse(href).query)

    until(
        lambda: carried("compare-images") == {"jobs": [encode_tags(RUNS)], "hidden": ["./h1"]}, 10
    )
    assert carried("compare") == carried("compare-images")


def test_a_refresh_with_nothing_new_keeps_the_overlay_as_drawn(dash_duo, hist_app) -> None:
    """The auto refresh drew the overlay again at every tick; now only when the logs changed."""
    graph = "#hcmp-graph .js-plotly-plot"
    dash_duo.start_server(hist_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/compare/histograms?tag=w&step=20")
    until(lambda: len(_drawn(dash_duo) or []) == 2, 30)
    count_draws(dash_duo, graph)
    refresh(dash_duo)
    assert draws(dash_duo, graph) == 0
    base = hist_app.data_service.summary_base_dir
    with SummaryWriter(f"{base}/h1", host="test", timestamp=1_700_000_100) as writer:
        writer.add_histogram("w", np.ones(10, dtype=np.float32), 40)
    assert hist_app.data_service.loader.load_round()
    refresh(dash_duo)
    until(lambda: draws(dash_duo, graph) != 0, 30)


def test_the_runs_are_named_once_below_the_chart(dash_duo, hist_app) -> None:
    """#38 item 9: the chart's Plotly legend repeated the notes below it (run, colour, step);
    the notes alone name each run now."""
    dash_duo.start_server(hist_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/compare/histograms?tag=w&step=20")
    until(lambda: len(_drawn(dash_duo) or []) == 2, 30)
    until(lambda: set(_notes(dash_duo)) == {"./h0", "./h1"}, 10)
    legend = run_js(
        dash_duo,
        "return Array.from(document.querySelectorAll('#hcmp-graph .legendtext'))"
        ".map(t => t.textContent);",
    )
    assert legend == []
    named = [" ".join(li.text.split()) for li in dash_duo.find_elements("#hcmp-notes li")]
    assert sorted(named) == ["./h0 step 20", "./h1 step 15 (the last at or before 20)"]


def test_nearest_step_and_the_step_box() -> None:
    steps = [0, 10, 15, 20, 30]
    assert [nearest_step(steps, w) for w in (10, 11, 12, 13, 17, 25, -5, 99)] == [
        10, 10, 10, 15, 15, 20, 0, 30,
    ]  # fmt: skip
    assert nearest_step([], 3) is None
    assert [typed_step(t) for t in (16, "16", 16.4, "", None, "x", True)] == [
        16, 16, 16, None, None, None, None,
    ]  # fmt: skip
    shown = {"steps": steps, "step": 20}
    assert step_box_search("?tag=w&step=20", 16, shown) == ("?tag=w&step=15", 15)
    assert step_box_search("?tag=w&step=20", 28, shown) == ("?tag=w", 30)  # the last: default
    assert step_box_search("?tag=w&step=20", "", shown) == (None, 20)
    assert step_box_search("?tag=w", 5, None) == (None, None)
    # The callback (Enter or leaving the box): the URL and the box, no update where unchanged.
    assert step_box_to_url(1, None, 16, shown, "?tag=w&step=20") == ("?tag=w&step=15", 15)
    assert step_box_to_url(None, 1, "", shown, "?tag=w&step=20") == (no_update, 20)
    assert step_box_to_url(1, None, 20, shown, "?tag=w&step=20") == (no_update, 20)
    assert step_box_to_url(1, None, 5, None, "?tag=w") == (no_update, no_update)


def test_the_step_box_shows_and_takes_the_step(dash_duo, hist_app) -> None:
    """#38 item 1: the box beside the slider showed its 0-based position (3 beside "step 20")
    and Enter did nothing; it shows the step, and Enter selects the recorded step nearest the
    one typed."""
    dash_duo.start_server(hist_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/compare/histograms?tag=w&step=20")
    label = "#hcmp-step-label"
    box = "#hcmp-step-box"
    dash_duo.wait_for_element(box)
    until(lambda: dash_duo.find_element(label).text == "step 20", 30)
    until(lambda: dash_duo.find_element(box).get_attribute("value") == "20", 10)
    wait_idle(dash_duo)
    type_into(dash_duo, "#hcmp-step-box", "16")  # not recorded: 15 is nearest
    until(lambda: dash_duo.find_element(label).text == "step 15", 30)
    until(lambda: dash_duo.find_element(box).get_attribute("value") == "15", 10)
    assert url_params(dash_duo)["step"] == "15"
    until(lambda: {d["step"] for d in _drawn(dash_duo) or []} == {10, 15}, 20)
    wait_idle(dash_duo)
    type_into(dash_duo, "#hcmp-step-box", "10")  # recorded: that very step
    until(lambda: dash_duo.find_element(label).text == "step 10", 30)
    until(lambda: dash_duo.find_element(box).get_attribute("value") == "10", 10)
    wait_idle(dash_duo)
    type_into(dash_duo, "#hcmp-step-box", "19")  # not recorded: 20 is nearest
    until(lambda: dash_duo.find_element(label).text == "step 20", 30)
    wait_idle(dash_duo)
    type_into(dash_duo, "#hcmp-step-box", "21")  # nearest is 20, the step shown: the box snaps back
    until(lambda: dash_duo.find_element(box).get_attribute("value") == "20", 20)
    assert dash_duo.find_element(label).text == "step 20"


def test_body_is_a_plain_function(hist_app) -> None:
    """The tab's callback without a browser: the URL's tag and step, a note per run drawn, the
    run without the tag named, nothing sent again for the same URL; junk colours ignored."""
    service = hist_app.data_service
    search = f"?jobs={quote(encode_tags(RUNS))}&tag=w&step=20"
    answer = compare_page.body(service, search, None, None, "junk", None)
    options, tag, _max, _value, _marks, disabled, label = answer[:7]
    figure, notes, missing, key = answer[8:]
    assert "w" in options and tag == "w" and not disabled and label == "step 20"
    assert sorted(note.id["run"] for note in notes) == ["./h0", "./h1"]
    assert "./h2" in text(missing)
    assert {trace.meta["run"] for trace in figure.data} == {"./h0", "./h1"}
    with pytest.raises(PreventUpdate):
        compare_page.body(service, search, None, None, "junk", key)
    empty = compare_page.body(service, f"?jobs={quote(encode_tags(['./nope']))}", 0, 0, 0, 0)
    assert empty[1] is None and "No histogram" in text(empty[9])
