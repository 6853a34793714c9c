"""The runs, tag and step of the histograms and images comparison tabs (pure functions)."""

from __future__ import annotations

import dash

from dash_insight.web.components.compare_runs import (
    DEFAULT_RUNS,
    STATE,
    RunPicker,
    chosen_step,
    chosen_tag,
    eye_search,
    missing_text,
    picker_search,
    run_selection,
    slider_props,
    step_at_or_below,
    step_note,
    tag_step_search,
    tag_step_to_url,
    tag_view,
    union_names,
    union_steps,
)
from dash_insight.web.url_state import encode_tags, parse_search

JOBS = [f"./j{i}" for i in range(7)]  # newest first


def test_step_at_or_below() -> None:
    steps = [0, 10, 20, 30]
    assert step_at_or_below(steps, 20) == 20  # the step itself
    assert step_at_or_below(steps, 25) == 20  # else the last before it
    assert step_at_or_below(steps, 99) == 30
    assert step_at_or_below([5, 10], 4) is None  # nothing yet
    assert step_at_or_below([], 4) is None


def test_chosen_step_and_union() -> None:
    union = union_steps([[0, 10, 20], [15, 0], []])
    assert union == [0, 10, 15, 20]
    assert chosen_step(-1, union) == 20  # absent: the last
    assert chosen_step(15, union) == 15
    assert chosen_step(17, union) == 15  # not a step of any run: the one before
    assert chosen_step(-5, union) == 20
    assert chosen_step(3, [5, 6]) == 6  # before them all: the last
    assert chosen_step(3, []) is None


def test_step_note() -> None:
    assert step_note(20, 20, 0) == "step 20"
    assert step_note(20, 15, 0) == "step 15 (the last at or before 20)"
    assert step_note(1, None, 2) == "nothing at or before step 1 (first: step 2)"
    assert step_note(1, None, None) == "no readable step"


def test_run_selection_default_filter_and_hidden() -> None:
    runs = run_selection(STATE.parse({}), JOBS)
    assert runs.selected == JOBS[:DEFAULT_RUNS] and runs.shown == JOBS[:DEFAULT_RUNS]
    assert not runs.explicit and runs.hidden == []
    params = {
        "jobs": encode_tags(["./j6", "./j1", "./gone"]),
        "hidden": "./j1",
        "job_filter": "j[16]",
    }
    runs = run_selection(STATE.parse(params), JOBS)
    assert runs.selected == ["./j1", "./j6"]  # in the jobs' order, unknown names dropped
    assert runs.hidden == ["./j1"] and runs.shown == ["./j6"] and runs.explicit


def test_tags_and_missing() -> None:
    assert union_names([["a", "b"], ["c", "a"]]) == ["a", "b", "c"]
    assert chosen_tag("c", ["a", "c"]) == "c"
    assert chosen_tag("zz", ["a", "c"]) == "a"
    assert chosen_tag("", []) is None
    assert missing_text("w", []) == ""
    assert missing_text("w", ["./a", "./b"]) == "No w in: ./a, ./b"


def test_eye_and_picker_keep_the_tab_parameters() -> None:
    search = "?tag=w&step=20&b=80"
    new = eye_search(search, JOBS, {"value": {"run": "./j2", "hidden": True}})
    assert parse_search(new) == {"tag": "w", "step": "20", "b": "80", "hidden": "./j2"}
    assert (
        eye_search(new, JOBS, {"value": {"run": "./j2", "hidden": False}}) == "?tag=w&step=20&b=80"
    )
    assert eye_search(search, JOBS, {"value": {"run": "./nope", "hidden": True}}) is None
    assert eye_search(search, JOBS, None) is None
    # Unticking a run writes ``jobs`` (no longer the default selection), the rest stays.
    new = picker_search(search, JOBS, "tab-jobs", JOBS[:2], "", "tab-jobs")
    assert parse_search(new) == {"jobs": encode_tags(JOBS[:2]), "tag": "w", "step": "20", "b": "80"}


def test_slider_props() -> None:
    assert slider_props([], None)["disabled"]
    props = slider_props([0, 10, 15, 20], 15)
    assert (props["max"], props["value"], props["marks"], props["disabled"]) == (
        3,
        2,
        {0: "0", 3: "20"},
        False,
    )
    assert slider_props([7], 7)["disabled"]


def test_tag_step_search() -> None:
    shown = {"tag": "w", "tags": ["w", "b"], "steps": [0, 10, 15, 20]}
    assert tag_step_search("?jobs=x", "w", 2, shown) == "?jobs=x&step=15"
    assert tag_step_search("?step=15", "w", 3, shown) == ""  # the last step: left out
    # Another tag keeps the step; the first tag is the default, left out.
    assert tag_step_search("?step=15", "b", 3, shown) == "?tag=b&step=15"
    assert tag_step_search("?tag=b&step=15", "w", 0, {**shown, "tag": "b"}) == "?step=15"
    assert tag_step_search("", None, 0, shown) is None
    assert tag_step_search("", "w", 0, None) is None


def test_run_picker_callbacks_as_plain_functions() -> None:
    """The job list's callbacks without Dash: what it shows, the URL its ticks, buttons and
    eyes write, and nothing for a button drawn or a list echoing the URL."""
    runs = RunPicker("tab-jobs", lambda _params: JOBS)
    names, ticked, pattern, texts = runs.picked("?hidden=.%2Fj1")
    assert names == JOBS and ticked == JOBS[:DEFAULT_RUNS] and pattern == "" and texts == {}
    assert runs.hidden("?hidden=.%2Fj1") == ["./j1"]
    assert runs.picker_to_url("tab-jobs-none", False, None, None, None, "", "") is dash.no_update
    unticked = runs.picker_to_url("tab-jobs-none", True, None, None, 1, "", "")
    assert run_selection(STATE.parse_search(unticked), JOBS).selected == []
    echo = JOBS[:DEFAULT_RUNS]
    assert runs.picker_to_url("tab-jobs", True, echo, None, None, "", "") is dash.no_update
    eye = {"value": {"run": "./j2", "hidden": True}}
    assert parse_search(runs.eye_clicked(eye, ""))["hidden"] == "./j2"
    assert runs.eye_clicked({"value": {"run": "./nope"}}, "") is dash.no_update
    shown = {"tag": "w", "tags": ["w", "b"], "steps": [0, 10, 15, 20]}
    assert tag_step_to_url("w", 2, shown, "") == "?step=15"
    assert tag_step_to_url("w", 3, shown, "") is dash.no_update  # the page shown
    assert tag_step_to_url(None, 3, "junk", "") is dash.no_update  # type: ignore[arg-type]


def test_tag_view() -> None:
    tags_of = {"./j0": ["w"], "./j1": ["w", "b"], "./j2": ["b"]}
    steps = {("./j0", "w"): [0, 10], ("./j1", "w"): [5], ("./j1", "b"): [1]}
    view = tag_view(
        STATE.parse({"jobs": encode_tags(["./j0", "./j1", "./j2"]), "step": "7"}),
        JOBS,
        tags_of,
        lambda run, tag: steps.get((run, tag), []),
    )
    assert (view.tag, view.having, view.missing) == ("w", ["./j0", "./j1"], ["./j2"])
    assert (view.steps, view.step) == ([0, 5, 10], 5)
    assert view.store() == {
        "tag": "w",
        "tags": ["w", "b"],
        "default": None,
        "steps": [0, 5, 10],
        "step": 5,
    }
    empty = tag_view(STATE.parse({"jobs": ","}), JOBS, tags_of, lambda run, tag: [])
    assert (empty.tag, empty.step, empty.having) == (None, None, [])
