"""The callbacks of the scalars page and the scalar comparison called as plain functions (no
browser, no Dash): the URL the controls write, the export links, the thresholds, the pickers'
sources, the run colours and the crowd warning (issue 36 item 2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dash
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.provider import DataProvider
from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars import page as scalars
from dash_insight.web.components.run_colours import PALETTE
from dash_insight.web.url_state import encode_tags, parse_search
from tests.conftest import loaded_service
from tests.pages import walk

TAGS = ["loss", "acc", "lr"]  # as written


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DataProvider]:
    """Jobs ./a, ./b and ./c (the newest last), ./b with ``acc`` and ``lr`` besides ``loss``."""
    base = tmp_path_factory.mktemp("scalars") / "logs"
    for i, name in enumerate(("a", "b", "c")):
        with SummaryWriter(base / name, host="test", timestamp=1_700_000_000 + i) as writer:
            for step in (1, 2, 3):
                writer.add_scalar("loss", 1.0 / (step + i), step)
                if name == "b":
                    writer.add_scalar("acc", step / 4, step)
                    writer.add_scalar("lr", 0.1, step)
    service = loaded_service(base, tmp_path_factory.mktemp("ws"))
    yield service.provider
    service.close()


# -- the scalars page ------------------------------------------------------------------------------


def _controls(
    provider: DataProvider, trigger: Any, search: str, clicked: bool = True, **values: Any
) -> Any:
    args: dict[str, Any] = {
        "rows": None,
        "all": None,
        "none": None,
        "pattern": "",
        "axis": "step",
        "smoothing": 0.0,
        "prev": None,
        "next": None,
        "compose": None,
        "remove": None,
        "x_tag": None,
        "composed": None,
    }
    args.update(values)
    return scalars.controls_to_url(provider, trigger, clicked, *args.values(), search)


def test_scalar_picker_reads_the_url(provider: DataProvider) -> None:
    assert scalars.picked(provider, "?train_id=./b") == (TAGS, TAGS, "")
    search = f"?train_id=./b&tags={encode_tags(['lr', 'gone'])}&filter=l"
    assert scalars.picked(provider, search) == (TAGS, ["lr"], "l")
    assert scalars.picked(provider, "?train_id=./nope") == ([], [], "")


def test_scalar_controls_write_the_url(provider: DataProvider) -> None:
    search = "?train_id=.%2Fb"
    assert parse_search(_controls(provider, "scalar-next", search)) == {
        "train_id": "./b",
        "page": "2",
    }
    written = parse_search(_controls(provider, scalars.IDS["axis"], search, axis="relative"))
    assert written["axis"] == "relative"
    smoothed = _controls(provider, scalars.IDS["smoothing"], search, smoothing=5)
    assert parse_search(smoothed)["smoothing"] == "0.99"  # bounded
    filtered = parse_search(_controls(provider, "scalar-tags-filter", search, pattern="^l"))
    assert filtered["filter"] == "^l"
    none = parse_search(_controls(provider, "scalar-tags-none", search))
    assert none["tags"] == ","  # no tag selected
    composed = _controls(provider, "compose-apply", search, composed=["loss", "acc", "x"])
    assert parse_search(composed)["compose"] == "loss,acc"  # unknown tags dropped
    # Nothing changed: the URL stays.
    assert _controls(provider, "scalar-prev", search) is dash.no_update
    assert _controls(provider, "compose-apply", search, composed=["loss"]) is dash.no_update


def test_scalar_controls_ignore_what_no_user_did(provider: DataProvider) -> None:
    search = f"?train_id=.%2Fb&tags={encode_tags(['lr'])}"
    # Several inputs at once (the controls drawn), an "All" button drawn, not clicked:
    assert _controls(provider, None, search) is dash.no_update
    assert _controls(provider, "scalar-tags-all", search, clicked=False) is dash.no_update
    # The list echoing the URL's ticks keeps a linked selection.
    echo = _controls(provider, "scalar-tags", search, rows=["lr"])
    assert echo is dash.no_update
    # A click on "All" selects every tag: no ``tags`` in the URL.
    assert parse_search(_controls(provider, "scalar-tags-all", search)) == {"train_id": "./b"}


def test_scalar_downloads_name_the_tags_drawn(provider: DataProvider) -> None:
    search = f"?train_id=./b&tags={encode_tags(['lr', 'loss'])}"
    style, csv_link, json_link = scalars.downloads(provider, "/p".__add__, search, 0, None)
    assert style == {"display": "none"}  # no composition to remove
    assert csv_link.startswith("/p/v1/dash-insight/export/scalars?")
    assert parse_search(csv_link.split("?", 1)[1])["format"] == "csv"
    assert "tag=loss" in csv_link and "tag=lr" in csv_link and "tag=acc" not in csv_link
    assert json_link.endswith("format=json")
    composed = f"?train_id=./b&compose={encode_tags(['lr', 'loss'])}"
    assert scalars.downloads(provider, str, composed, None, None)[0] == {}


def _card_titles(cards: Any) -> list[str]:
    """The chart titles of a grid's cards, in order (each card's pin names its chart)."""
    return [
        node.value
        for card in cards
        for node in walk(card)
        if isinstance(getattr(node, "id", None), dict) and node.id.get("type") == "chart-pin"
    ]


def test_scalar_grid_plans_the_charts_pinned_first(provider: DataProvider) -> None:
    search = "?train_id=./b"
    cards, total, page, plan = scalars.grid(provider, search, None, None, [], None, None)
    assert _card_titles(cards) == TAGS and total == "3 of 3 tags" and page == "1 / 1"
    assert [chart["id"] for chart in plan["charts"]] == [c.id["chart"] for c in cards]
    pinned = scalars.grid(provider, search, None, None, [], None, None, [["lr"]])
    assert _card_titles(pinned[0]) == ["lr", "loss", "acc"]
    # The same charts already drawn, the same plan: only the counts are answered.
    shown = [{"chart": chart["id"]} for chart in plan["charts"]]
    again = scalars.grid(provider, search, None, None, shown, plan, None)
    assert again == (dash.no_update, total, page, dash.no_update)
    # Charts were drawn, the URL now names a job without scalars: the message replaces them.
    empty = scalars.grid(provider, "?train_id=./nope", None, None, shown, None, None)
    assert "No scalar in this job yet." in str(empty[0]) and empty[1] == "0 of 0 tags"


def test_compare_grid_and_download(provider: DataProvider) -> None:
    search = f"?jobs={encode_tags(['./a', './b'])}"
    cards, total, page, plan = compare.grid(provider, search, None, None, [], None)
    assert _card_titles(cards) == TAGS and total == "3 of 3 tags, 2 jobs" and page == "1 / 1"
    assert len(plan["charts"]) == 3
    assert _card_titles(compare.grid(provider, search, None, None, [], None, [["acc"]])[0])[0] == (
        "acc"
    )
    drawn = [{"chart": chart["id"]} for chart in plan["charts"]]
    none = compare.grid(provider, f"?jobs={encode_tags([])}", None, None, drawn, None)
    assert "Select jobs and tags" in str(none[0])
    csv = compare.download(provider, "compare-download-csv", True, 1, None, search)
    assert csv["filename"] == "scalars_comparison.csv"
    rows = csv["content"].splitlines()
    assert len(rows) == 1 + 3 * 2 + 3 + 3  # header; loss of ./a and ./b, acc and lr of ./b
    as_json = compare.download(provider, "compare-download-json", True, None, 1, search)
    assert as_json["filename"] == "scalars_comparison.json" and as_json["content"].startswith("[")
    assert compare.download(provider, "compare-download-csv", False, None, None, search) is (
        dash.no_update
    )


def _thresholds(provider: DataProvider, trigger: str, **values: Any) -> Any:
    args: dict[str, Any] = {
        "applied": 1,
        "delete": None,
        "op1": ">",
        "value1": 0.5,
        "op2": None,
        "value2": None,
        "combine": None,
        "to_all": [],
        "target": "./b|loss",
        "stored": {"./b|lr": {"conditions": [["<", 1.0]], "combine": "and"}},
        "search": "?train_id=./b",
    }
    args.update(values)
    return scalars.thresholds(provider, trigger, *args.values())


def test_thresholds_apply_and_delete(provider: DataProvider) -> None:
    above = {"conditions": [[">", 0.5]], "combine": "and"}
    lr = {"conditions": [["<", 1.0]], "combine": "and"}
    assert _thresholds(provider, "th-apply") == {"./b|lr": lr, "./b|loss": above}
    every = _thresholds(provider, "th-apply", to_all=["all"], op2="<", value2=2, combine="or")
    both = {"conditions": [[">", 0.5], ["<", 2.0]], "combine": "or"}
    assert every == {f"./b|{tag}": both for tag in TAGS}
    # An incomplete form, no target, the button drawn: nothing.
    assert _thresholds(provider, "th-apply", value1=None) is dash.no_update
    assert _thresholds(provider, "th-apply", target=None) is dash.no_update
    assert _thresholds(provider, "th-apply", applied=None) is dash.no_update
    gone = _thresholds(provider, "th-delete-request", delete={"chart": "./b|lr"})
    assert gone == {}
    assert _thresholds(provider, "th-delete-request", delete=None) is dash.no_update


def test_threshold_labels_follow_the_store() -> None:
    stored = {"./b|lr": {"conditions": [["<", 1.0]], "combine": "and"}}
    texts, styles = scalars.threshold_labels(stored, [{"chart": "./b|lr"}, {"chart": "./b|x"}])
    assert "< 1" in texts[0] and "<" not in texts[1]
    assert styles[0] != styles[1]
    assert scalars.threshold_labels(None, []) == ([], [])


# -- the comparison --------------------------------------------------------------------------------


def _compare_controls(
    provider: DataProvider, trigger: Any, search: str, clicked: bool = True, **values: Any
) -> Any:
    args: dict[str, Any] = {
        "job_rows": None,
        "a": None,
        "b": None,
        "job_pattern": "",
        "tag_rows": None,
        "c": None,
        "d": None,
        "tag_pattern": "",
        "axis": "step",
        "smoothing": 0.0,
        "prev": None,
        "next": None,
        "x_tag": None,
    }
    args.update(values)
    return compare.controls_to_url(provider, trigger, clicked, *args.values(), search)


def test_compare_pickers_read_the_url(provider: DataProvider) -> None:
    jobs, selected, pattern, texts = compare.picked_jobs(provider, "")
    assert sorted(jobs) == ["./a", "./b", "./c"] and selected == jobs and pattern == ""
    assert texts == {}  # no job has labels
    search = f"?jobs={encode_tags(['./a', './b'])}&hidden={encode_tags(['./a', './x'])}"
    assert compare.picked_tags(provider, search) == (TAGS, TAGS, "")
    assert compare.hidden_jobs(provider, search) == ["./a"]
    colours = compare.job_colours(provider, search, {"./a": PALETTE[3]})
    assert colours["./a"] == PALETTE[3] and set(colours) == set(jobs)
    assert compare.job_colours(provider, search, "junk") == compare.eye_colours(provider, jobs)


def test_compare_controls_write_the_url(provider: DataProvider) -> None:
    assert parse_search(_compare_controls(provider, "compare-next", "")) == {"page": "2"}
    assert _compare_controls(provider, "compare-prev", "") is dash.no_update
    ticked = _compare_controls(provider, "compare-jobs", "", job_rows=["./b"])
    assert compare.STATE.parse_search(ticked).jobs == ["./b"]
    filtered = parse_search(_compare_controls(provider, "compare-tags-filter", "", tag_pattern="l"))
    assert filtered == {"filter": "l"}
    # A picker's button drawn, not clicked; its list echoing the URL: no change.
    assert _compare_controls(provider, "compare-tags-all", "", clicked=False) is dash.no_update
    echo = _compare_controls(provider, "compare-jobs", "", job_rows=["./a"])
    assert compare.STATE.parse_search(echo).jobs == ["./a"]
    every = ["./a", "./b", "./c"]
    assert _compare_controls(provider, "compare-jobs", "", job_rows=every) is dash.no_update


def test_eye_warning_and_colours(provider: DataProvider) -> None:
    closed = compare.eye_clicked(provider, {"value": {"run": "./a", "hidden": True}}, "")
    assert compare.STATE.parse_search(closed).hidden == ["./a"]
    assert compare.eye_clicked(provider, {"value": "junk"}, "") is dash.no_update
    assert compare.warning(provider, "", None, None) == ""
    assert compare.warning(provider, f"?jobs={encode_tags([])}", 0, 0) == ""
    options, chosen = compare.colour_choices(provider, closed, None, None)
    assert [o["value"] for o in options] == compare.current_state(provider, closed)[0].shown_jobs
    assert chosen == options[0]["value"]
    assert compare.colour_choices(provider, closed, None, "./a")[1] == chosen  # hidden run
    assert compare.colour_choices(provider, "", None, "./a")[1] == "./a"


def test_pick_colour_only_on_a_click() -> None:
    swatch = {"type": "run-swatch", "colour": PALETTE[2]}
    assert compare.pick_colour(swatch, True, [1], None, "./a", None) == {"./a": PALETTE[2]}
    assert compare.pick_colour(swatch, False, [None], None, "./a", None) is dash.no_update
    assert compare.pick_colour(swatch, True, [1], None, None, None) is dash.no_update
    reset = compare.pick_colour("compare-colour-reset", True, [], 1, "./a", {"./a": PALETTE[2]})
    assert "./a" not in (reset or {})
