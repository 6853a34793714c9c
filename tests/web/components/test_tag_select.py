"""Tag selection (dash_insight.web.components.tag_select): the selection rules, paging, the two
rows (All checkbox; All / None buttons), and the row in the browser."""

from __future__ import annotations

from dash.testing.wait import until

from dash_insight.web.components import tag_select as ts
from dash_insight.web.url_state import encode_tags
from tests.conftest import console_errors
from tests.pages import HIST_META, click_option, find, run_js, text, url_params


def test_filter_and_visible_tags() -> None:
    tags = ["conv1.weight", "conv2.weight", "fc1.bias"]
    assert ts.filter_tags(tags, "^CONV") == (["conv1.weight", "conv2.weight"], None)
    matching, error = ts.filter_tags(tags, "([")
    assert matching == tags and error and error.startswith("invalid regular expression")
    assert ts.visible_tags(tags, None, "bias") == ["fc1.bias"]
    assert ts.visible_tags(tags, ["fc1.bias", "conv1.weight"], "") == ["conv1.weight",
                                                                        "fc1.bias"]
    assert ts.visible_tags(tags, [], "") == []


def test_selection_from_params_reports_unknown_tags() -> None:
    tags = ["a", "b"]
    assert ts.selection_from_params({}, tags) == (None, [])
    assert ts.selection_from_params({"tags": "b,zz"}, tags) == (["b"], ["zz"])
    assert ts.selection(["b", "zz"], tags) == (["b"], ["zz"])
    assert ts.selection(None, tags) == (None, [])
    assert ts.selection_state(tags, ["a", "b"], "") == {"tags": None, "filter": ""}
    assert ts.selection_state(tags, ["b"], "x") == {"tags": ["b"], "filter": "x"}
    assert ts.selection_state(tags, [], "") == {"tags": [], "filter": ""}
    assert encode_tags(ts.selection_state(tags, [], "")["tags"]) == ","  # none, not all
    assert ts.selection_state(tags, None, "") == {"tags": None, "filter": ""}


def test_sync_selection_all_box_respects_the_filter() -> None:
    tags = ["conv1", "conv2", "fc1"]
    chosen, all_value, count, error = ts.sync_selection("all", tags, ["fc1"], ["all"], "conv")
    assert chosen == tags and all_value == ["all"] and error is None
    assert count == "2 of 3 shown"
    chosen, all_value, _, _ = ts.sync_selection("all", tags, tags, [], "conv")
    assert chosen == ["fc1"] and all_value == []  # hidden tags stay as they were
    chosen, all_value, count, _ = ts.sync_selection(None, tags, tags, [], "")
    assert all_value == ["all"] and count == "3 tags"


def test_short_label_and_paging() -> None:
    assert ts.short_label("short") == "short"
    label = ts.short_label("a" * 30 + "/middle/" + "z" * 30, 20)
    assert len(label) == 20 and label.startswith("a") and label.endswith("z") and "…" in label
    assert ts.page_of(list(range(25)), 3, 12) == ([24], 3, 3)
    assert ts.page_of(list(range(5)), 9, 12) == ([0, 1, 2, 3, 4], 1, 1)
    assert ts.page_of([], 1, 12) == ([], 1, 1)


def test_page_after_and_tags_on_page() -> None:
    assert ts.page_after("p-prev", "p", 1) == (1, True)
    assert ts.page_after("p-next", "p", 1) == (2, True)
    assert ts.page_after("p-tags", "p", 4) == (1, False)
    assert ts.page_after("p-filter", "p", 4) == (1, False)
    assert ts.page_after("p-view", "p", 4) == (4, False)
    tags = [f"t{i}" for i in range(5)]
    assert ts.tags_on_page(None, tags, "", 2, 2) == (["t2", "t3"], 2, 3, [], "Total 5 tags")
    assert ts.tags_on_page(["t4", "gone"], tags, "", 9, 2) == (["t4"], 1, 1, ["gone"],
                                                               "Total 1 tag")
    assert ts.tags_on_page(None, tags, "[34]", 1, 2)[0] == ["t3", "t4"]


def test_pick_keeps_hidden_names() -> None:
    names = ["a", "b", "c", "d"]
    assert ts.pick(names, ["a"], None, ["c", "d"], "all") == ["a", "c", "d"]
    assert ts.pick(names, ["d", "a", "c"], None, ["c", "d"], "none") == ["a"]
    assert ts.pick(names, ["a", "c"], ["d"], ["c", "d"], "list") == ["a", "d"]
    assert ts.pick(names, ["c", "a"], ["b"], ["b"], None) == ["c", "a"]
    assert ts.button_action("x-all", "x") == "all"
    assert ts.button_action("x-none", "x") == "none"
    assert ts.button_action("x", "x") == "list"
    assert ts.button_action("x-filter", "x") is None
    assert ts.button_action({"type": "chart-axis"}, "x") is None


def test_rows_and_pager_components() -> None:
    row = ts.tag_select("p", ["a", "b,c"], ["a"], "a")
    # All is ticked: every tag the filter shows is checked.
    assert find(row, "p-tags").value == ["a"] and find(row, "p-all").value == ["all"]
    assert find(row, "p-tag-count").children == "1 of 2 shown"
    assert find(row, "p-filter").value == "a" and find(row, "p-tag-list").data == ["a", "b,c"]
    assert [o["value"] for o in find(row, "p-tags").options] == ["a"]  # the filter hides b,c
    buttons = ts.button_select("x-jobs", "Jobs", "x-job-filter", "re", noun="jobs",
                               value=["j"], extra=["!"])
    assert text(buttons) == "Jobs All None !"
    assert find(buttons, "x-job-filter").placeholder == "Filter jobs (regular expression)"
    assert find(buttons, "x-jobs").value == ["j"]
    assert find(buttons, "x-jobs-all") is not None and find(buttons, "x-jobs-none") is not None
    paged = ts.pager("p", 13, 2, 2)
    assert text(paged) == "Total 13 tags ‹ 2 / 2 ›"
    assert find(paged, "p-next").disabled and not find(paged, "p-prev").disabled
    filled_later = ts.pager("q")
    assert text(filled_later) == "‹ ›" and not getattr(find(filled_later, "q-next"),
                                                       "disabled", False)


def test_all_box_and_one_tag_in_the_browser(dash_duo, corpus_app) -> None:
    """All off, All on, one tag off, on the parameter distribution page."""
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./lenet_sc")
    until(lambda: len(run_js(dash_duo, HIST_META)) == 8, 15)
    dash_duo.find_element("#hist-all input").click()
    dash_duo.wait_for_contains_text("#hist-cards", "No tag selected")
    assert url_params(dash_duo)["tags"] == ","
    dash_duo.find_element("#hist-all input").click()
    until(lambda: len(run_js(dash_duo, HIST_META)) == 8, 15)
    assert "tags" not in url_params(dash_duo)
    click_option(dash_duo, "#hist-tags", "fc1.bias/auto")
    until(lambda: len(run_js(dash_duo, HIST_META)) == 7, 15)
    assert "fc1.bias/auto" not in url_params(dash_duo)["tags"].split(",")
    assert not dash_duo.find_element("#hist-all input").is_selected()
    assert console_errors(dash_duo) == []
