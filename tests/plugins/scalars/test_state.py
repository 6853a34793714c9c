"""The typed URL state of the scalars page and the scalar comparison (issue 36 item 1): frozen
dataclasses read from the URL in one place, written back the same, every list and string
bounded, and hostile values read as the defaults or the nearest bound."""

from __future__ import annotations

import dataclasses
import time

import pytest

from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars import page as scalars
from dash_insight.web.limits import MAX_FILTER_CHARS, MAX_URL_LIST_ITEMS
from dash_insight.web.url_state import (
    TypedUrlState,
    encode_map,
    encode_tags,
    make_search,
    parse_search,
)

#: Every parameter of the scalars page away from its default.
SCALARS_PARAMS = {
    "train_id": "./job, with=odd&chars",
    "tags": encode_tags(["a,b", "loss"]),
    "filter": "^l",
    "axis": "relative",
    "smoothing": "0.6",
    "page": "3",
    "compose": encode_tags(["loss", "lr"]),
    "x_tag": "epoch",
    "best_flip": encode_tags(["./job|loss"]),
    "log_x": encode_tags(["./job|lr"]),
    "smoother": "ma",
    "window": "15",
    "outliers": "1",
    "epoch_steps": "250",
}
#: Every parameter of the comparison away from its default.
COMPARE_PARAMS = {
    "jobs": encode_tags(["./a", "./b"]),
    "job_filter": "a",
    "tags": encode_tags(["loss"]),
    "filter": "l",
    "axis": "absolute",
    "smoothing": "0.5",
    "page": "2",
    "hidden": encode_tags(["./b"]),
    "x_tag": "epoch",
    "best_flip": encode_tags(["compare|loss"]),
    "log_x": encode_tags(["compare|loss"]),
    "smoother": "none",
    "window": "3",
    "outliers": "1",
    "group_by": "re:(a)",
    "centre": "median",
    "band": "minmax",
    "runs": "1",
    "colour_by": "lr",
    "tag_map": encode_map({"train/loss": "loss"}),
    "archived": "1",
    "epoch_steps": "10",
}


@pytest.mark.parametrize(
    ("state", "params"),
    [(scalars.STATE, SCALARS_PARAMS), (compare.STATE, COMPARE_PARAMS)],
    ids=["scalars", "compare"],
)
def test_parse_and_write_round_trip(state: TypedUrlState, params: dict[str, str]) -> None:
    parsed = state.parse(params)
    search = make_search(state.params(parsed))
    assert parse_search(search) == params  # every value written back as it was read
    assert state.parse_search(search) == parsed
    default = state.parse({})
    assert make_search(state.params(default)) == ""  # defaults leave the URL empty
    assert state.parse_search("?unknown=1&page=") == default
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.page = 9  # type: ignore[misc]


def test_scalars_state_is_typed_and_checked_against_the_job() -> None:
    tags = ["loss", "lr", "epoch"]
    state = scalars.page_state(SCALARS_PARAMS, tags)
    assert isinstance(state, scalars.ScalarsState)
    assert state.selected == ["loss"]  # "a,b" is not a tag of the job
    assert state.shown == ["loss"] and state.compose == ["loss", "lr"]
    assert (state.axis, state.smoothing, state.page, state.window) == ("relative", 0.6, 3, 15)
    # The page writes back what it shows (unknown tags dropped).
    again = scalars.page_state(parse_search(scalars.state_search(state, tags)), tags)
    assert again == dataclasses.replace(state, tags=["loss"])
    # A composition or an x tag the job lacks is not kept.
    other = scalars.page_state(SCALARS_PARAMS, ["loss"])
    assert other.compose is None and other.x_tag == ""


def test_compare_state_is_typed_and_checked_against_the_jobs() -> None:
    jobs, tags_of = ["./a", "./b", "./c"], {"./a": ["loss"], "./b": ["train/loss", "epoch"]}
    state = compare.page_state(COMPARE_PARAMS, jobs, tags_of)
    assert isinstance(state, compare.CompareState)
    assert state.jobs == ["./a", "./b"] and state.hidden == ["./b"]
    assert state.shown_jobs == ["./a"] and state.url.x_tag == "epoch"
    assert state.group is not None and state.url.group_by == "re:(a)"
    assert state.all_tags == ["loss", "epoch"] and state.raw_tags == ["loss", "train/loss", "epoch"]
    search = compare.controls_search(
        state, jobs, tags_of, "compare-next", None, "a", None, "l", "absolute", 0.5, "epoch"
    )
    assert compare.STATE.parse_search(search) == dataclasses.replace(
        compare.STATE.parse(COMPARE_PARAMS), page=3
    )


HOSTILE = {
    "train_id": "x" * 10**6,
    "tags": ",".join(f"t{i}" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "filter": "(" * 10**5,
    "axis": "<script>",
    "smoothing": "nan",
    "page": "-99999999999999999999",
    "compose": "\\" * 10**5,
    "x_tag": "y" * 10**6,
    "best_flip": ",",
    "log_x": "",
    "smoother": "median",
    "window": "1e99",
    "outliers": "yes",
    "epoch_steps": "-5",
    "jobs": ",".join(f"./j{i}" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "job_filter": "z" * 10**6,
    "hidden": ",".join(f"./h{i}" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "group_by": "re:" + "(" * 10**5,
    "centre": "max",
    "band": "all",
    "runs": "2",
    "colour_by": "c" * 10**6,
    "tag_map": "=,==,\\" * 10**4,
    "archived": "true",
}


def test_hostile_scalars_values_are_bounded() -> None:
    url = scalars.STATE.parse(HOSTILE)
    assert len(url.train_id) == scalars.MAX_TEXT_CHARS
    assert len(url.filter) == MAX_FILTER_CHARS and len(url.x_tag) == 1024
    assert url.tags is not None and len(url.tags) == MAX_URL_LIST_ITEMS
    assert (url.axis, url.smoothing, url.page, url.smoother) == ("step", 0.0, 1, "ema")
    assert (url.window, url.outliers, url.epoch_steps, url.best_flip) == (9, False, 0, [])
    started = time.perf_counter()
    state = scalars.page_state(HOSTILE, ["loss"])
    assert time.perf_counter() - started < 2  # unknown names dropped before any work
    assert state.selected == state.shown == [] and state.compose is None and state.x_tag == ""


def test_hostile_compare_values_are_bounded() -> None:
    url = compare.STATE.parse(HOSTILE)
    assert url.jobs is not None and len(url.jobs) == MAX_URL_LIST_ITEMS
    assert url.hidden is not None and len(url.hidden) == MAX_URL_LIST_ITEMS
    assert len(url.job_filter) == MAX_FILTER_CHARS and len(url.colour_by) == compare.MAX_TEXT_CHARS
    assert (url.centre, url.band, url.runs, url.archived) == ("mean", "std", False, False)
    jobs = [f"./real{i}" for i in range(1000)]
    started = time.perf_counter()
    state = compare.page_state(HOSTILE, jobs, {job: ["loss"] for job in jobs})
    assert time.perf_counter() - started < 2
    assert state.jobs == state.hidden == state.shown_jobs == []  # no known job named
    assert state.group is None and "Cannot group by" in state.group_problem
    assert len(state.group_problem) < 200  # the refused text is cut in the note
    assert state.url.tag_map == {}
