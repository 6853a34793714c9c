"""Name pickers (dash_insight.web.components.tag_select): the selection rules, paging, the
picker, and pickers in the browser (a page's tags; 10,000 names)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import dash
from dash import ctx, dcc, html
from plotly.utils import PlotlyJSONEncoder
from selenium.webdriver.common.keys import Keys

from dash_insight.web.application import dash_assets
from dash_insight.web.components import tag_select as ts
from dash_insight.web.url_state import Tags, Text, TypedUrlState, encode_tags
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import bind_picker_url, find, picker_rows, run_js, text, tick_name, url_params


def test_filter_and_visible_tags() -> None:
    tags = ["conv1.weight", "conv2.weight", "fc1.bias"]
    assert ts.filter_tags(tags, "^CONV") == (["conv1.weight", "conv2.weight"], None)
    matching, error = ts.filter_tags(tags, "([")
    assert matching == tags and error and error.startswith("invalid regular expression")
    assert ts.visible_tags(tags, None, "bias") == ["fc1.bias"]
    assert ts.visible_tags(tags, ["fc1.bias", "conv1.weight"], "") == ["conv1.weight", "fc1.bias"]
    assert ts.visible_tags(tags, [], "") == []


def test_selection_reports_unknown_tags() -> None:
    tags = ["a", "b"]
    assert ts.selection(["b", "zz"], tags) == (["b"], ["zz"])
    assert ts.selection(None, tags) == (None, [])
    assert ts.ticked_tags(tags, ["b", "a"]) is None  # every tag: the URL leaves it out
    assert ts.ticked_tags(tags, ["b", "zz"]) == ["b"]
    assert ts.ticked_tags(tags, []) == []
    assert encode_tags(ts.ticked_tags(tags, []) or []) == ","  # none, not all
    assert ts.ticked_tags(tags, None) is None


@dataclass(frozen=True)
class PickedUrl:
    """The URL state of the test pages with a picker: its ticked names and its filter."""

    tags: list[str] | None = None
    filter: str = ""


PICKED = TypedUrlState(PickedUrl, tags=Tags("tags"), filter=Text("filter"))


def test_paging() -> None:
    assert ts.page_of(list(range(25)), 3, 12) == ([24], 3, 3)
    assert ts.page_of(list(range(5)), 9, 12) == ([0, 1, 2, 3, 4], 1, 1)
    assert ts.page_of([], 1, 12) == ([], 1, 1)


def test_page_after_and_tags_on_page() -> None:
    assert ts.page_after("p-prev", "p", 1) == (1, True)
    assert ts.page_after("p-next", "p", 1) == (2, True)
    for picker_part in ("p-tags", "p-tags-all", "p-tags-none", "p-tags-filter"):
        assert ts.page_after(picker_part, "p", 4) == (1, False)
    assert ts.page_after("p-view", "p", 4) == (4, False)
    tags = [f"t{i}" for i in range(5)]
    assert ts.tags_on_page(None, tags, "", 2, 2) == (["t2", "t3"], 2, 3, [], "Total 5 tags")
    assert ts.tags_on_page(["t4", "gone"], tags, "", 9, 2) == (
        ["t4"],
        1,
        1,
        ["gone"],
        "Total 1 tag",
    )
    assert ts.tags_on_page(None, tags, "[34]", 1, 2)[0] == ["t3", "t4"]


def test_pick_keeps_hidden_names() -> None:
    names = ["a", "b", "c", "d"]
    assert ts.pick(names, ["a"], None, ["c", "d"], "all") == ["a", "c", "d"]
    assert ts.pick(names, ["d", "a", "c"], None, ["c", "d"], "none") == ["a"]
    assert ts.pick(names, ["a", "c"], ["d"], ["c", "d"], "list") == ["a", "d"]
    assert ts.pick(names, ["c", "a"], ["b"], ["b"], None) == ["c", "a"]
    assert ts.picker_action("x-all", "x") == "all"
    assert ts.picker_action("x-none", "x") == "none"
    assert ts.picker_action("x", "x") == "list"
    assert ts.picker_action("x-filter", "x") is None
    assert ts.picker_action({"type": "chart-axis"}, "x") is None
    assert ts.checked_names(["a", "b"]) == ["a", "b"]
    assert ts.checked_names(None) == [] and ts.checked_names(["c", 3]) == ["c"]
    assert ts.checked_names({"ids": ["c"]}) == ts.checked_names("c") == []
    # The list reporting the ticks the URL gave it is no user change.
    assert ts.echoed("x", "x", ["c", "d"], names, None, "[cd]")
    assert not ts.echoed("x", "x", ["c"], names, None, "[cd]")
    assert not ts.echoed("x-all", "x", ["c", "d"], names, None, "[cd]")
    assert ts.echoed("x", "x", [], names, ["a"], "[cd]")


def test_picker_view_counts_and_sends_only_changes() -> None:
    names = [f"t{i}" for i in range(40)]
    view = ts.picker_view(names, None, "3$")
    assert view.rows == ["t3", "t13", "t23", "t33"] and view.ticked == view.rows
    assert view.summary == "40 of 40 tags selected, 4 match" and view.error == ""
    view = ts.picker_view(names, ["t3", "t5"], "3$", noun="job")
    assert view.ticked == ["t3"] and view.summary == "2 of 40 jobs selected, 4 match"
    broken = ts.picker_view(names, [], "([")
    assert broken.rows == names and broken.error.startswith("invalid regular expression")
    assert broken.summary == "0 of 40 tags selected"
    assert ts.count_text(["a"], ["a"], "") == "1 of 1 tag selected"
    # What the list shows is sent only when it changed: rows and ticks, ticks alone, nothing.
    first = ts.picker_update(view, None)
    assert first[3] == [{"label": n, "value": n, "title": n} for n in view.rows]
    assert first[4] == ["t3"] and first[5] == {"height": f"{ts.picker_height(4)}px"}
    assert first[2] == view.key
    other_ticks = ts.picker_view(names, ["t13"], "3$", noun="job")
    update = ts.picker_update(other_ticks, view.key)
    assert update[3] is dash.no_update and update[4] == ["t13"] and update[5] is dash.no_update
    same = ts.picker_update(view, view.key)
    assert same[2] is dash.no_update and same[3] is dash.no_update and same[4] is dash.no_update
    assert same[0] == view.summary  # the count is always written (cheap)
    assert (
        ts.picker_height(0) == ts.picker_height(2) < ts.picker_height(8) == ts.picker_height(10_000)
    )


def test_eyes_are_sent_when_only_they_change() -> None:
    """A list with eyes: its options (with their eyes) are sent again when only the eyes
    changed, its ticks and height not."""
    names = [f"t{i}" for i in range(40)]
    eyes = ts.picker_view(names, None, "3$", hidden=[])
    closed = ts.picker_view(names, None, "3$", hidden=["t13"])
    update = ts.picker_update(closed, eyes.key)
    assert _plain(update[3]) == _plain(closed.options()) != _plain(eyes.options())
    assert update[4] is dash.no_update and update[5] is dash.no_update
    assert ts.picker_update(closed, closed.key)[3] is dash.no_update


def _plain(options: list[dict]) -> object:
    """Options as the browser gets them (components compare by identity)."""
    return json.loads(json.dumps(options, cls=PlotlyJSONEncoder))


def _eye(option: dict) -> html.Button:
    return option["label"][0]


def test_picker_follows_the_url_as_a_plain_function() -> None:
    """register_picker's callback without Dash: count, filter error, key, the list's options,
    ticks and box; nothing sent again for the key on screen; the eyes' colours come from the
    store."""
    names = ["a", "b", "c"]
    source = ts.PickerSource(lambda search: (names, ["b"] if search else None, "("))
    count, error, key, options, ticks, _box = source.follow_url("", 0, None, None)
    assert "3" in str(count) and error and ticks == names and len(options) == 3
    assert source.follow_url("", 1, None, key)[4] is dash.no_update
    assert source.follow_url("?x", 1, None, key)[4] == ["b"]
    assert source.follow_url("", 0, None, "junk")[3]  # a hostile key: all sent
    painted = ts.PickerSource(
        lambda _search: (names, None, ""),
        noun="job",
        read_hidden=lambda _search: ["c"],
        read_colours=lambda _search, overrides: dict.fromkeys(names, overrides["a"]),
    )
    options = painted.follow_url("", 0, None, {"a": "#123456"}, None)[3]
    assert [o["value"] for o in options] == names
    assert _eye(options[0]).style == {"color": "#123456"}
    closed = _eye(options[2])
    assert "di-eye-closed" in closed.className and not hasattr(closed, "style")
    assert getattr(closed, "data-run") == "c" and getattr(closed, "aria-pressed") == "true"


def test_picker_component() -> None:
    row = ts.picker("p-tags", "Tag Selection", ["a", "b,c"], ["a"], "a", extra=["!"])
    checklist = find(row, "p-tags")
    assert checklist.options == [{"label": "a", "value": "a", "title": "a"}]
    assert checklist.value == ["a"]
    assert find(row, "p-tags-count").children == "1 of 2 tags selected, 1 match"
    assert find(row, "p-tags-filter").value == "a"
    assert find(row, "p-tags-filter").placeholder == "Filter tags (regular expression)"
    assert text(row).startswith("Tag Selection All None")
    assert text(row).endswith("No tag matches the filter.")  # shown when the list is empty
    assert find(row, "p-tags-all") is not None and find(row, "p-tags-none") is not None
    assert find(row, "p-tags-box").style == {"height": f"{ts.picker_height(1)}px"}
    assert find(row, "p-tags-eye") is None  # no eyes
    assert [(i.component_id, i.component_property) for i in ts.picker_inputs("p-tags")] == [
        ("p-tags", "value"),
        ("p-tags-all", "n_clicks"),
        ("p-tags-none", "n_clicks"),
        ("p-tags-filter", "value"),
    ]
    assert ts.picker_action("p-tags", "p-tags") == "list"
    assert ts.picker_action("p-tags-ticks", "p-tags") is None
    assert ts.page_after("p-tags", "p", 3) == (1, False)
    jobs = ts.picker("x-jobs", "Job Selection", ["j"], None, noun="job", hidden=["j"])
    assert find(jobs, "x-jobs-filter").placeholder == "Filter jobs (regular expression)"
    assert find(jobs, "x-jobs-eye") is not None
    assert text(jobs).endswith("No job matches the filter.")


def test_pager_component() -> None:
    paged = ts.pager("p", 13, 2, 2)
    assert text(paged) == "Total 13 tags ‹ 2 / 2 ›"
    assert find(paged, "p-next").disabled and not find(paged, "p-prev").disabled
    filled_later = ts.pager("q")
    assert text(filled_later) == "‹ ›" and not getattr(
        find(filled_later, "q-next"), "disabled", False
    )


#: The number of chart cards of the parameter distribution page (their charts are drawn when
#: they come on screen).
HIST_CARDS = "return document.querySelectorAll('#hist-cards .di-vp-card').length"


def test_all_none_and_one_tag_in_the_browser(dash_duo, corpus_app) -> None:
    """None, All, one tag off, on the parameter distribution page."""
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./lenet_sc")
    until(lambda: run_js(dash_duo, HIST_CARDS) == 8, 15)
    dash_duo.find_element("#hist-tags-none").click()
    dash_duo.wait_for_contains_text("#hist-cards", "No tag selected")
    assert url_params(dash_duo)["tags"] == ","
    until(lambda: picker_rows(dash_duo, "hist-tags")["ticked"] == [], 10)
    dash_duo.find_element("#hist-tags-all").click()
    until(lambda: run_js(dash_duo, HIST_CARDS) == 8, 15)
    assert "tags" not in url_params(dash_duo)
    until(lambda: len(picker_rows(dash_duo, "hist-tags")["ticked"]) == 8, 10)
    tick_name(dash_duo, "hist-tags", "fc1.bias/auto")
    until(lambda: run_js(dash_duo, HIST_CARDS) == 7, 15)
    assert "fc1.bias/auto" not in url_params(dash_duo)["tags"].split(",")
    assert dash_duo.find_element("#hist-tags-count").text == "7 of 8 tags selected"
    assert console_errors(dash_duo) == []


def _ten_thousand_app() -> dash.Dash:
    """A page with nothing but a picker of 10,000 names and its URL state (``tags``,
    ``filter``), wired as the real pages wire it."""
    names = [f"name{i:05d}" for i in range(10_000)]
    # The picker's scripts (assets/pickers.js): the arrow keys.
    app = dash.Dash(__name__, **dash_assets(), suppress_callback_exceptions=True)
    app.layout = html.Div(
        [
            dcc.Location(id="url", refresh=False, pathname="/", search=""),
            dcc.Interval(id="refresh-interval", disabled=True),
            html.Button(id="refresh-now"),
            ts.picker("p-tags", "Names", names, [], "", noun="name"),
        ]
    )

    def read(search: str | None) -> tuple[list[str], list[str], str]:
        parsed = PICKED.parse_search(search)
        return names, [] if parsed.tags is None else parsed.tags, parsed.filter

    ts.register_picker(app, "p-tags", read, noun="name")

    def answer(rows: object, pattern: str | None, search: str | None) -> object:
        _, selected, _ = read(search)
        matching, _ = ts.filter_tags(names, pattern or "")
        chosen = ts.pick(
            names,
            selected,
            ts.checked_names(rows),
            matching,
            ts.picker_action(ctx.triggered_id, "p-tags"),
        )
        new = PICKED.search(PickedUrl(chosen or [], pattern or ""))
        return dash.no_update if new == (search or "") else new

    bind_picker_url(app, "p-tags", answer)
    return app


def _scroll_to_end(dash_duo, list_id: str) -> list[str]:
    """Scrolls a picker's virtualised list to its end; the rows it then draws."""
    run_js(
        dash_duo,
        "const list = document.querySelector('#' + arguments[0] + "
        "' .dash-options-list-virtualized'); list.scrollTop = list.scrollHeight;",
        list_id,
    )
    return picker_rows(dash_duo, list_id)["rows"]


def _focused(dash_duo) -> str | None:
    """The name of the picker row whose checkbox has the focus."""
    return run_js(dash_duo, "return document.activeElement.value || null;")


def test_a_picker_of_10000_names(dash_duo) -> None:
    """Scrolls to its end, filters, selects all matching, takes the keyboard."""
    dash_duo.start_server(_ten_thousand_app())
    until(lambda: picker_rows(dash_duo, "p-tags")["rows"][:2] == ["name00000", "name00001"], 20)
    assert len(picker_rows(dash_duo, "p-tags")["rows"]) < 60  # virtualised
    until(lambda: _scroll_to_end(dash_duo, "p-tags")[-1:] == ["name09999"], 10)

    search = dash_duo.find_element("#p-tags-filter")
    search.send_keys("^name099\ue007")
    until(
        lambda: (
            dash_duo.find_element("#p-tags-count").text == "0 of 10000 names selected, 100 match"
        ),
        10,
    )
    until(lambda: picker_rows(dash_duo, "p-tags")["rows"][:1] == ["name09900"], 10)
    dash_duo.find_element("#p-tags-all").click()
    until(
        lambda: (
            dash_duo.find_element("#p-tags-count").text == "100 of 10000 names selected, 100 match"
        ),
        10,
    )
    until(
        lambda: (
            len(picker_rows(dash_duo, "p-tags")["ticked"])
            == len(picker_rows(dash_duo, "p-tags")["rows"])
            > 5
        ),
        10,
    )

    tick_name(dash_duo, "p-tags", "name09900")
    until(lambda: dash_duo.find_element("#p-tags-count").text.startswith("99 of"), 10)
    # The keyboard: Tab from the filter reaches the list's first row, an arrow the next, Space
    # ticks; the arrows go on past the rows drawn.
    search.send_keys(Keys.TAB)
    until(lambda: _focused(dash_duo) == "name09900", 5)
    run_js(dash_duo, "return document.activeElement;").send_keys(Keys.ARROW_DOWN)
    until(lambda: _focused(dash_duo) == "name09901", 5)
    run_js(dash_duo, "return document.activeElement;").send_keys(" ")
    until(lambda: dash_duo.find_element("#p-tags-count").text.startswith("98 of"), 10)
    for _ in range(30):
        run_js(dash_duo, "return document.activeElement;").send_keys(Keys.ARROW_DOWN)
    until(lambda: _focused(dash_duo) == "name09931", 5)
    run_js(dash_duo, "return document.activeElement;").send_keys(Keys.ARROW_UP)
    until(lambda: _focused(dash_duo) == "name09930", 5)
    assert "name09900" not in url_params(dash_duo)["tags"]
    assert "name09901" not in url_params(dash_duo)["tags"]
    assert console_errors(dash_duo) == []
