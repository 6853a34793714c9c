"""The landscape pages' callbacks called as plain functions (no browser, no Dash): the URL the
controls write, the settings' reset, what the analysis page draws and sends again, and the
comparison's picker, overlay and body."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import dash
import pytest
from dash import html

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.landscape import compare_page, page
from dash_insight.plugins.landscape.figures import DEFAULT_STYLE
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web.url_state import parse_search
from tests.conftest import CORPUS
from tests.pages import text, walk
from tests.plugins.landscape.test_rest import write_epoch_job

LANDSCAPE_CORPUS = CORPUS.parent / "corpus-landscape"
STEP_JOB, EPOCH_JOB = "./lenet_step", "./lenet_epoch"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LandscapeService]:
    if not LANDSCAPE_CORPUS.is_dir():
        pytest.skip(f"landscape corpus not found at {LANDSCAPE_CORPUS}")
    base = tmp_path_factory.mktemp("landscapes") / "base"
    shutil.copytree(LANDSCAPE_CORPUS, base)
    write_epoch_job(base / "lenet_epoch")
    data = DataService(Settings(base, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0))
    data.loader.load_round()
    yield LandscapeService(data.provider)
    data.close()


def _controls(search: str, **values: Any) -> Any:
    args: dict[str, Any] = {
        "view": "3d",
        "interval": None,
        "loss": None,
        "scale": DEFAULT_STYLE.colour_scale,
        "levels": DEFAULT_STYLE.levels,
        "colour": DEFAULT_STYLE.path_colour,
        "width": DEFAULT_STYLE.path_width,
        "opacity": DEFAULT_STYLE.opacity,
        "log": [],
    }
    args.update(values)
    return page.controls_to_url(*args.values(), search)


def test_controls_write_only_what_differs_from_the_defaults() -> None:
    search = "?train_id=.%2Flenet_step"
    assert _controls(search) is dash.no_update  # the defaults: the same page
    written = parse_search(_controls(search, view="contour", levels=20, log=["1"]))
    assert written == {
        "train_id": "./lenet_step",
        "view": "contour",
        "levels": "20",
        "log": "1",
    }
    # Hostile values fall back to the defaults, so the URL does not change.
    assert _controls(search, scale="<script>", levels="9e99x", opacity="nan") is dash.no_update
    assert parse_search(_controls(search, levels=10**6))["levels"] == "30"  # the upper bound


def test_reset_puts_the_defaults_back_only_on_a_click() -> None:
    assert page.reset_settings(None) == (dash.no_update,) * 6  # the button drawn
    assert page.reset_settings(1) == (
        DEFAULT_STYLE.colour_scale,
        DEFAULT_STYLE.levels,
        DEFAULT_STYLE.path_colour,
        DEFAULT_STYLE.path_width,
        DEFAULT_STYLE.opacity,
        [],
    )


def test_show_sends_a_figure_only_when_its_inputs_change(service: LandscapeService) -> None:
    search = f"?train_id={STEP_JOB}"
    figure, steps, unit, _info, _notice, shown = page.show(service, search, 0, None, None)
    assert figure.data and steps.data and "step" in unit and shown["figure"][0] == STEP_JOB
    assert page.show(service, search, 1, None, shown) == (dash.no_update,) * 6  # a refresh
    # Another view: a new landscape; the step chart is the same, so it is not sent again.
    figure, steps, *_rest = page.show(service, search + "&view=contour", 2, None, shown)
    assert figure is not dash.no_update and steps is dash.no_update
    assert page.show(service, "?train_id=./missing", 0, None, None) == (dash.no_update,) * 6
    assert page.show(service, search, 0, None, ["junk"])[0] is not dash.no_update


def test_the_layout_comes_drawn_and_show_adds_nothing_at_load(service: LandscapeService) -> None:
    """The layout holds the figures, texts and keys ``show`` would send for its URL: nothing
    is asked at load (``show`` is not called then, and would send nothing)."""
    search = f"?train_id={STEP_JOB}&view=contour"
    drawn = {
        c.id: c
        for c in walk(page.layout(dash.Dash(__name__), service, parse_search(search)))
        if isinstance(getattr(c, "id", None), str)
    }
    figure, steps, unit, info, _notice, shown = page.show(service, search, 0, None, None)
    assert drawn["ls-shown"].data == shown
    assert page.show(service, search, 0, None, drawn["ls-shown"].data) == (dash.no_update,) * 6
    assert drawn["ls-graph"].figure == figure and figure.data[0].type == "contour"
    assert drawn["ls-steps"].figure == steps and drawn["ls-unit"].children == unit
    assert text(drawn["ls-info"].children) == text(info) and "LeNet5" in text(info)
    assert drawn["ls-notice"].children is None


def _compare(service: LandscapeService, trigger: Any, search: str, **values: Any) -> Any:
    args: dict[str, Any] = {
        "rows": None,
        "all": None,
        "none": None,
        "pattern": None,
        "view": "3d",
        "mode": "tile",
        "scale": "jet",
        "overlay": None,
        "shown": None,
    }
    clicked = values.pop("clicked", True)
    args.update(values)
    return compare_page.controls_to_url(service, trigger, clicked, *args.values(), search)


def test_compare_controls_and_picker(service: LandscapeService) -> None:
    names, ticked, pattern, texts = compare_page.picked(service, "")
    assert set(names) == {STEP_JOB, EPOCH_JOB} and ticked == names and pattern == ""
    assert texts == {}  # no run has labels
    assert _compare(service, "lc-view", "") is dash.no_update  # the defaults
    assert parse_search(_compare(service, "lc-mode", "", mode="overlay")) == {"mode": "overlay"}
    # "None" drawn (not clicked) changes nothing; clicked, it unticks every job.
    assert _compare(service, "lc-jobs-none", "", clicked=False) is dash.no_update
    unticked = parse_search(_compare(service, "lc-jobs-none", ""))
    assert compare_page.page_state(unticked, names).selected == []
    # Ticking an overlay job writes it; ticks the URL already shows are an echo.
    search = "?mode=overlay"
    overlay = {"mode": "overlay", "overlay": [STEP_JOB]}
    assert parse_search(_compare(service, "lc-overlay", search, **overlay))["overlay"] == STEP_JOB
    unchanged = {"mode": "overlay", "overlay": [], "shown": []}
    assert _compare(service, "lc-overlay", search, **unchanged) is dash.no_update


def test_compare_filter_searches_run_labels(service: LandscapeService) -> None:
    """The job filter finds a run by its labels (#40 item 4), in the picker, the URL its
    "All" writes and the runs drawn."""
    marks = service.provider.run_marks
    assert marks is not None
    marks.update(EPOCH_JOB, {"labels": ["sweep-b"]})
    try:
        names, _ticked, _pattern, texts = compare_page.picked(service, "?job_filter=sweep")
        assert texts == {EPOCH_JOB: f"{EPOCH_JOB} #sweep-b"}
        _jobs, state = compare_page.current_state(service, {"job_filter": "sweep"})
        assert state.jobs == [EPOCH_JOB]
        # "None" with the filter unticks only the runs it finds.
        search = _compare(service, "lc-jobs-none", "?job_filter=sweep", pattern="sweep")
        assert compare_page.page_state(parse_search(search), names).selected == [STEP_JOB]
    finally:
        marks.update(EPOCH_JOB, {"labels": []})


def test_compare_body_tiles_and_overlay(service: LandscapeService) -> None:
    content, options, overlay, row_style, _shown, key = compare_page.body(
        service, "", 0, None, {}, None
    )
    assert isinstance(content, html.Div) and content.id == "lc-tiles"
    assert [o["value"] for o in options] == sorted(o["value"] for o in options)
    assert row_style == {"display": "none"} and key
    assert {o["value"]: o["disabled"] for o in options}[EPOCH_JOB]  # no final landscape
    content, _, overlay, row_style, _, _ = compare_page.body(
        service, f"?mode=overlay&overlay={STEP_JOB}", 0, None, {}, None
    )
    assert overlay == [STEP_JOB] and row_style == {}
    assert STEP_JOB in text(content)
