"""Name pickers (dash_insight.web.components.tag_select): the selection rules, paging, the
picker, and pickers in the browser (a page's tags; 10,000 names)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import dash
from dash import Output, State, ctx, dcc, html

from dash_insight.web.application import assets_folder, dash_assets
from dash_insight.web.components import tag_select as ts
from dash_insight.web.url_state import Tags, Text, TypedUrlState, encode_tags
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import find, run_js, text, url_params


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
    assert ts.checked_names([{"name": "a"}, {"name": "b"}]) == ["a", "b"]
    assert ts.checked_names({"ids": ["c"]}) == ["c"] and ts.checked_names(None) == []
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
    assert first[0] == [{"name": n} for n in view.rows] and first[1] == {"ids": ["t3"]}
    assert first[4] == {"height": f"{ts.picker_height(4)}px"} and first[5] == view.key
    other_ticks = ts.picker_view(names, ["t13"], "3$", noun="job")
    update = ts.picker_update(other_ticks, view.key)
    assert update[0] is dash.no_update and update[1] == {"ids": ["t13"]}
    same = ts.picker_update(view, view.key)
    assert same[0] is dash.no_update and same[1] is dash.no_update and same[5] is dash.no_update
    assert same[2] == view.summary  # the count is always written (cheap)
    assert first[6] == {"rowIndex": 0, "rowPosition": "top"} and update[6] is dash.no_update
    assert (
        ts.picker_height(0) == ts.picker_height(2) < ts.picker_height(8) == ts.picker_height(10_000)
    )


def test_what_is_sent_to_the_list() -> None:
    """register_picker sends the grid's props that changed (to the grid, or to its holder's
    spec before it is mounted) with the key of what the list then shows; nothing when none
    changed."""
    names = [f"t{i}" for i in range(40)]
    view = ts.picker_view(names, None, "3$")
    first = ts.sent_to_grid(ts.picker_update(view, None), view.key)
    assert first == {
        "rowData": [{"name": n} for n in view.rows],
        "selectedRows": {"ids": view.rows},
        "style": {"height": f"{ts.picker_height(4)}px"},
        "scrollTo": {"rowIndex": 0, "rowPosition": "top"},
        "key": view.key,
    }
    ticks = ts.picker_view(names, ["t13"], "3$")
    assert ts.sent_to_grid(ts.picker_update(ticks, view.key), ticks.key) == {
        "selectedRows": {"ids": ["t13"]},
        "key": ticks.key,
    }
    assert ts.sent_to_grid(ts.picker_update(view, view.key), view.key) is dash.no_update
    # With eyes: only the eyes changed, a row transaction.
    eyes = ts.picker_view(names, None, "3$", hidden=[])
    closed = ts.picker_view(names, None, "3$", hidden=["t13"])
    sent = ts.sent_to_grid(ts.picker_update(closed, eyes.key), closed.key)
    assert sent == {"rowTransaction": {"update": closed.row_data()}, "key": closed.key}


def test_picker_follows_the_url_as_a_plain_function() -> None:
    """register_picker's callback without Dash: count, filter error, key and what goes to the
    grid; nothing sent again for the key on screen; the eyes' colours come from the store."""
    names = ["a", "b", "c"]
    source = ts.PickerSource(lambda search: (names, ["b"] if search else None, "("))
    count, error, key, sent = source.follow_url("", 0, None, None)
    assert "3" in str(count) and error and sent["selectedRows"] == {"ids": names}
    assert source.follow_url("", 1, None, key)[3] is dash.no_update
    assert source.follow_url("?x", 1, None, key)[3]["selectedRows"] == {"ids": ["b"]}
    assert source.follow_url("", 0, None, "junk")[3]["rowData"]  # a hostile key: all sent
    painted = ts.PickerSource(
        lambda _search: (names, None, ""),
        noun="job",
        read_hidden=lambda _search: ["c"],
        read_colours=lambda _search, overrides: dict.fromkeys(names, overrides["a"]),
    )
    rows = painted.follow_url("", 0, None, {"a": "#123456"}, None)[3]["rowData"]
    assert rows[2] == {"name": "c", "hidden": True, "colour": "#123456"}


def test_picker_component() -> None:
    row = ts.picker("p-tags", "Tag Selection", ["a", "b,c"], ["a"], "a", extra=["!"])
    grid = find(row, "p-tags")
    assert grid.rowData == [{"name": "a"}] and grid.selectedRows == {"ids": ["a"]}
    assert grid.getRowId == "params.data.name"
    assert grid.dashGridOptions["rowSelection"]["mode"] == "multiRow"
    assert find(row, "p-tags-count").children == "1 of 2 tags selected, 1 match"
    assert find(row, "p-tags-filter").value == "a"
    assert find(row, "p-tags-filter").placeholder == "Filter tags (regular expression)"
    assert text(row).startswith("Tag Selection All None")
    assert find(row, "p-tags-all") is not None and find(row, "p-tags-none") is not None
    assert getattr(find(row, "p-tags-sent"), "data", None) is None  # nothing sent yet
    assert find(row, "p-tags-holder") is not None  # where the grid's spec waits
    assert [i.component_id for i in ts.picker_inputs("p-tags")] == [
        "p-tags-ticks",
        "p-tags-all",
        "p-tags-none",
        "p-tags-filter",
    ]
    assert (
        ts.picker_action("p-tags-ticks", "p-tags") == ts.picker_action("p-tags", "p-tags") == "list"
    )
    assert ts.page_after("p-tags-ticks", "p", 3) == (1, False)
    jobs = ts.picker("x-jobs", "Job Selection", ["j"], None, noun="job")
    assert find(jobs, "x-jobs").columnDefs[0]["headerName"] == "Jobs"
    assert find(jobs, "x-jobs-filter").placeholder == "Filter jobs (regular expression)"


def test_pager_component() -> None:
    paged = ts.pager("p", 13, 2, 2)
    assert text(paged) == "Total 13 tags ‹ 2 / 2 ›"
    assert find(paged, "p-next").disabled and not find(paged, "p-prev").disabled
    filled_later = ts.pager("q")
    assert text(filled_later) == "‹ ›" and not getattr(
        find(filled_later, "q-next"), "disabled", False
    )


def test_the_pickers_browser_functions_exist() -> None:
    """Every ClientsideFunction register_picker names is defined in ``assets/pickers.js`` (a
    typo would only show as a console error)."""
    app = dash.Dash(__name__, suppress_callback_exceptions=True)
    ts.register_picker(app, "p-tags", lambda search: ([], None, ""), read_hidden=lambda search: [])
    named = {
        (c["clientside_function"]["namespace"], c["clientside_function"]["function_name"])
        for c in app._callback_list
        if c.get("clientside_function")
    }
    assert named == {("pickers", "toGrid"), ("pickers", "toHolder"), ("pickers", "ticks")}
    script = (Path(assets_folder()) / "pickers.js").read_text()
    for _namespace, name in named:
        assert re.search(rf"\b{name}\(", script), name


def _picker_rows(dash_duo, list_id: str) -> dict:
    """The rows of a picker's list in the page (the grid draws only those near the view) and
    the ticked ones among them."""
    return run_js(
        dash_duo,
        """
        const rows = Array.from(document.querySelectorAll(
            '#' + arguments[0] + ' .ag-center-cols-container .ag-row'));
        rows.sort((a, b) => a.getAttribute('row-index') - b.getAttribute('row-index'));
        const cell = r => r.querySelector('[col-id="name"]');
        const named = rows.filter(cell);  // a row the grid is drawing has no cells yet
        const name = r => cell(r).textContent;
        return {rows: named.map(name),
                ticked: named.filter(r => r.classList.contains('ag-row-selected')).map(name)};
    """,
        list_id,
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
    until(lambda: _picker_rows(dash_duo, "hist-tags")["ticked"] == [], 10)
    dash_duo.find_element("#hist-tags-all").click()
    until(lambda: run_js(dash_duo, HIST_CARDS) == 8, 15)
    assert "tags" not in url_params(dash_duo)
    until(lambda: len(_picker_rows(dash_duo, "hist-tags")["ticked"]) == 8, 10)
    row = _picker_rows(dash_duo, "hist-tags")["rows"].index("fc1.bias/auto")
    dash_duo.find_element(f'#hist-tags .ag-row[row-index="{row}"] [col-id="name"]').click()
    until(lambda: run_js(dash_duo, HIST_CARDS) == 7, 15)
    assert "fc1.bias/auto" not in url_params(dash_duo)["tags"].split(",")
    assert dash_duo.find_element("#hist-tags-count").text == "7 of 8 tags selected"
    assert console_errors(dash_duo) == []


def _ten_thousand_app() -> dash.Dash:
    """A page with nothing but a picker of 10,000 names and its URL state (``tags``,
    ``filter``), wired as the real pages wire it."""
    names = [f"name{i:05d}" for i in range(10_000)]
    # The picker's scripts; its grid arrives after the layout (web/components/deferred.py).
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

    @app.callback(
        Output("url", "search"),
        *ts.picker_inputs("p-tags"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def to_url(
        rows: object, _all: object, _none: object, pattern: str | None, search: str | None
    ) -> object:
        if not ctx.triggered[0]["value"] and str(ctx.triggered_id).endswith(("-all", "-none")):
            return dash.no_update
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

    return app


def test_a_picker_of_10000_names(dash_duo) -> None:
    """Scrolls to its end, filters, selects all matching, takes the keyboard."""
    dash_duo.start_server(_ten_thousand_app())
    until(lambda: _picker_rows(dash_duo, "p-tags")["rows"][:2] == ["name00000", "name00001"], 20)
    assert len(_picker_rows(dash_duo, "p-tags")["rows"]) < 60  # virtualised
    run_js(dash_duo, "dash_ag_grid.getApi('p-tags').ensureIndexVisible(9999, 'bottom');")
    until(lambda: _picker_rows(dash_duo, "p-tags")["rows"][-1:] == ["name09999"], 10)

    search = dash_duo.find_element("#p-tags-filter")
    search.send_keys("^name099\ue007")
    until(
        lambda: (
            dash_duo.find_element("#p-tags-count").text == "0 of 10000 names selected, 100 match"
        ),
        10,
    )
    until(lambda: _picker_rows(dash_duo, "p-tags")["rows"][:1] == ["name09900"], 10)
    dash_duo.find_element("#p-tags-all").click()
    until(
        lambda: (
            dash_duo.find_element("#p-tags-count").text == "100 of 10000 names selected, 100 match"
        ),
        10,
    )
    until(
        lambda: (
            len(_picker_rows(dash_duo, "p-tags")["ticked"])
            == len(_picker_rows(dash_duo, "p-tags")["rows"])
            > 5
        ),
        10,
    )

    dash_duo.find_element('#p-tags .ag-row[row-index="0"] [col-id="name"]').click()
    until(lambda: dash_duo.find_element("#p-tags-count").text.startswith("99 of"), 10)
    run_js(dash_duo, "return document.activeElement;").send_keys("\ue015")  # arrow down
    run_js(dash_duo, "return document.activeElement;").send_keys(" ")
    until(lambda: dash_duo.find_element("#p-tags-count").text.startswith("98 of"), 10)
    assert "name09900" not in url_params(dash_duo)["tags"]
    assert "name09901" not in url_params(dash_duo)["tags"]
    assert console_errors(dash_duo) == []
