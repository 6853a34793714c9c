"""Tags across runs (issue 40 item 3): the mapping, its suggestion and its text box, pure; and
the comparison page's charts, groups and download through it, without a browser."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from dash import no_update

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars.query_tag_map import (
    MAX_ENTRIES,
    MAX_NAME_CHARS,
    chart_tags,
    clean_tag_map,
    describe,
    format_lines,
    merged,
    originals,
    parse_lines,
    series_name,
    suggest_tag_map,
    tag_key,
)
from dash_insight.web.url_state import encode_map, encode_tags
from tests.conftest import loaded_service

MAP = {"train/loss": "loss", "loss/auto": "loss"}
TAGS_OF = {"./tb": ["train/loss", "train/acc"], "./ms": ["loss/auto"], "./pt": ["loss"]}


@pytest.mark.parametrize(
    ("tag", "key"),
    [
        ("train/loss", "loss"),
        ("loss/auto", "loss"),
        ("Loss", "loss"),
        ("eval/loss/scalar", "loss"),
        ("acc/scalar", "acc"),
        ("conv1.weight/auto", "conv1.weight"),
        ("auto", "auto"),
        ("/a//b/", "b"),
        ("", ""),
    ],
)
def test_tag_key_is_the_last_path_part_without_writer_suffixes(tag: str, key: str) -> None:
    assert tag_key(tag) == key


def test_suggestion_merges_tags_of_different_runs_only() -> None:
    assert suggest_tag_map(TAGS_OF) == {"train/loss": "loss", "loss/auto": "loss"}
    # One run with both train/loss and eval/loss: "loss" is never merged.
    clash = {**TAGS_OF, "./both": ["train/loss", "eval/loss"]}
    assert suggest_tag_map(clash) == {}
    # A key only one tag has, or one run: nothing to merge.
    assert suggest_tag_map({"./a": ["train/loss"], "./b": ["train/loss"]}) == {}
    assert suggest_tag_map({}) == {}
    assert suggest_tag_map({"./a": ["x/acc/scalar"], "./b": ["acc"]}) == {"x/acc/scalar": "acc"}


def test_clean_drops_what_is_not_a_mapping_and_bounds_it() -> None:
    raw = {" a ": " b ", "same": "same", "": "x", "y": "", 3: "z", "w": None, "k" * 300: "q"}
    assert clean_tag_map(raw) == {"a": "b"}  # type: ignore[arg-type]
    assert clean_tag_map(None) == {}
    many = {f"t{i}": "c" for i in range(MAX_ENTRIES + 50)}
    assert len(clean_tag_map(many)) == MAX_ENTRIES
    assert clean_tag_map({"k" * MAX_NAME_CHARS: "c"}) == {"k" * MAX_NAME_CHARS: "c"}


def test_charts_and_originals() -> None:
    charts = chart_tags(TAGS_OF, MAP)
    assert charts == {"./tb": ["loss", "train/acc"], "./ms": ["loss"], "./pt": ["loss"]}
    assert chart_tags(TAGS_OF, {}) == TAGS_OF
    assert originals(["loss", "loss/auto", "acc"], "loss", MAP) == ["loss", "loss/auto"]
    assert originals(["train/acc"], "loss", MAP) == []
    assert series_name("./tb", "train/loss", "loss", True) == "./tb · train/loss"
    assert series_name("./pt", "loss", "loss", True) == "./pt · loss"
    assert series_name("./pt", "loss", "loss", False) == "./pt"


def test_text_box_round_trip() -> None:
    assert parse_lines("train/loss → loss\n\n loss/auto -> loss \nnot a line\n a=b = c") == {
        "train/loss": "loss",
        "loss/auto": "loss",
        "a=b": "c",
    }
    assert parse_lines(format_lines(MAP)) == MAP
    assert parse_lines(None) == {}
    assert describe(MAP) == ["train/loss, loss/auto → loss"]
    assert merged({"train/loss": "mine"}, MAP) == {"train/loss": "mine", "loss/auto": "loss"}


def test_page_state_and_charts_through_the_map() -> None:
    jobs = list(TAGS_OF)
    state = compare.page_state(
        {"jobs": encode_tags(jobs), "tag_map": encode_map(MAP)}, jobs, TAGS_OF
    )
    assert state.url.tag_map == MAP
    assert state.all_tags == ["loss", "train/acc"]
    assert state.raw_tags == ["train/loss", "train/acc", "loss/auto", "loss"]
    charts, _pages = compare.chart_specs(state, TAGS_OF)
    loss = charts[0]
    assert loss.title == "loss"
    assert [(s.train_id, s.tag, s.name) for s in loss.series] == [
        ("./tb", "train/loss", "./tb · train/loss"),
        ("./ms", "loss/auto", "./ms · loss/auto"),
        ("./pt", "loss", "./pt · loss"),
    ]
    assert [s.name for s in charts[1].series] == ["./tb"]  # an unmapped chart: the job
    # Without the map every tag is its own chart.
    plain = compare.page_state({"jobs": encode_tags(jobs)}, jobs, TAGS_OF)
    assert plain.all_tags == ["train/loss", "train/acc", "loss/auto", "loss"]
    # The controls keep the map; an x tag is an original tag.
    search = compare.controls_search(
        state, jobs, TAGS_OF, "compare-next", None, "", None, "", "step", 0.0, "train/acc"
    )
    again = compare.STATE.parse_search(search)
    assert again.tag_map == MAP and again.x_tag == "train/acc"


def test_groups_aggregate_per_original_tag() -> None:
    jobs = list(TAGS_OF)
    state = compare.page_state(
        {"jobs": encode_tags(jobs), "tag_map": encode_map(MAP), "group_by": "re:(.)"},
        jobs,
        TAGS_OF,
    )
    groups, _problem = compare.run_groups(None, state)  # type: ignore[arg-type]
    assert groups is not None
    lines = compare.group_series(state, groups, "loss", TAGS_OF)
    assert [(s.tag, s.members) for s in lines] == [
        ("train/loss", ("./tb",)),
        ("loss/auto", ("./ms",)),
        ("loss", ("./pt",)),
    ]
    assert all(s.name.endswith(" · " + s.tag) for s in lines)


def test_download_names_each_runs_original_tag(tmp_path: Path) -> None:
    base = tmp_path / "base"
    for job, tag in (("tb", "train/loss"), ("ms", "loss/auto")):
        with SummaryWriter(str(base / job), timestamp=1700000000) as writer:
            for step in (1, 2):
                writer.add_scalar(tag, float(step), step)
    service = loaded_service(base, tmp_path / "ws")
    try:
        provider = service.provider
        search = "?" + "&".join(
            [f"jobs={encode_tags(['./tb', './ms'])}", f"tag_map={encode_map(MAP)}"]
        )
        state, _jobs, tags_of = compare.current_state(provider, search)
        assert state.shown_tags == ["loss"]
        found = compare.downloads(provider, state, tags_of)
        assert sorted((job, tag) for job, tag, _points in found) == [
            ("./ms", "loss/auto"),
            ("./tb", "train/loss"),
        ]
        rows = list(csv.reader(io.StringIO(compare.download_file(found, "csv")["content"])))
        assert {(r[0], r[1]) for r in rows[1:]} == {("./ms", "loss/auto"), ("./tb", "train/loss")}
        text, note = compare.tag_map_controls(provider, search, None, None)
        assert parse_lines(text) == MAP and "train/loss, loss/auto → loss" in note
        # The suggestion from the selected jobs, added by its button; Clear empties it.
        plain = f"?jobs={encode_tags(['./tb', './ms'])}"
        url, stored = compare.tag_map_search(
            provider, "k", "compare-tag-map-suggest", True, 1, None, None, "", plain, {"o": {}}
        )
        assert compare.STATE.parse_search(url).tag_map == MAP
        assert stored == {"o": {}, "k": MAP}
        url, stored = compare.tag_map_search(
            provider, "k", "compare-tag-map-clear", True, None, None, 1, "", url, stored
        )
        assert "tag_map" not in url and stored == {"o": {}, "k": {}}
    finally:
        service.close()


def test_restore_from_the_browser_only_without_a_map_in_the_url() -> None:
    stored = {"k": MAP, "other": {"a": "b"}}
    url = compare.restore_tag_map("k", stored, "?jobs=x")
    assert compare.STATE.parse_search(url).tag_map == MAP
    assert compare.restore_tag_map("k", stored, f"?tag_map={encode_map({'x': 'y'})}") is no_update
    assert compare.restore_tag_map("k", {"k": {}}, "") is no_update
    assert compare.restore_tag_map("k", None, "") is no_update
