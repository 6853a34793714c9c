"""A picker whose grid is not mounted yet follows the URL (issue 17): its grid arrives after the
charts on screen are drawn (web/components/deferred.py), and a URL change, a back navigation or
a click of "Refresh" in the meantime must neither fail in the browser nor leave the grid, once
mounted, with the rows and ticks of the first URL.

The page here holds its grid back until the test lets it go: a chart card on screen whose chart
is "drawn" only when the test says so (``assets/deferred.js`` waits for it), and a holder whose
``data-wait-ms`` (the product's own longest wait) is longer than any test."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import dash
import pytest
from dash import Input, Output, State, ctx, dcc, html
from dash.testing.errors import TestingTimeoutError as WaitTimedOut

from dash_insight.web.application import dash_assets
from dash_insight.web.components import tag_select as ts
from dash_insight.web.url_state import Tags, Text, TypedUrlState, encode_tags
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import find, run_js, url_params

#: What the grid holds once mounted: its rows (every one, in order: the grid's model, not the
#: rows it draws), the ticked names and the names whose eye is closed. Null before it is set up.
GRID_MODEL = """
const api = window.dash_ag_grid && window.dash_ag_grid.getApi
    && document.getElementById(arguments[0]) && window.dash_ag_grid.getApi(arguments[0]);
if (!api) return null;
const rows = [], hidden = [];
api.forEachNode(node => {
  rows.push(node.data.name);
  if (node.data.hidden) hidden.push(node.data.name);
});
return {rows, ticked: api.getSelectedRows().map(row => row.name).sort(), hidden};
"""

#: The fake chart card's chart is drawn: what ``assets/deferred.js`` waits for.
DRAW_CHART = """
const plot = document.createElement('div');
plot.className = 'js-plotly-plot';
plot._fullLayout = {};
document.getElementById('fake-card').appendChild(plot);
"""


@dataclass(frozen=True)
class HeldUrl:
    """The test page's URL state: the picker's ticked names, its filter, its closed eyes."""

    tags: list[str] | None = None
    filter: str = ""
    hidden: list[str] | None = None


STATE = TypedUrlState(HeldUrl, tags=Tags("tags"), filter=Text("filter"), hidden=Tags("hidden"))


def _held_app(names: list[str], ticks_calls: list[Any] | None = None) -> dash.Dash:
    """A page with a picker (eyes included) wired as the real pages wire it (``tags``,
    ``filter``, ``hidden`` in the URL; absent ``tags``: all), a button ``#go`` that rewrites
    ``url.search`` to its ``data-search``, and a chart card on screen never drawn by itself.
    ``names``: the picker's names, read again on every refresh (a test may add to it);
    ``ticks_calls``: gets the ticks of each call of the page's callback the list's ticks
    fired."""
    app = dash.Dash(__name__, **dash_assets(), suppress_callback_exceptions=True)
    row = ts.picker("p-tags", "Names", names, None, "", noun="name", hidden=[])
    # The grid waits for the chart card only: the product's longest wait is out of the way.
    setattr(find(row, "p-tags-holder"), "data-wait-ms", str(3_600_000))
    app.layout = html.Div(
        [
            dcc.Location(id="url", refresh=False, pathname="/", search=""),
            dcc.Interval(id="refresh-interval", disabled=True),
            html.Button("Refresh", id="refresh-now"),
            dcc.Input(id="go-search", value=""),
            html.Button("Go", id="go"),
            html.Div(id="fake-card", className="di-chart-card", style={"height": "60px"}),
            row,
        ]
    )

    def read(search: str | None) -> tuple[list[str], list[str] | None, str]:
        parsed = STATE.parse_search(search)
        return list(names), parsed.tags, parsed.filter

    def read_hidden(search: str | None) -> list[str]:
        return STATE.parse_search(search).hidden or []

    ts.register_picker(app, "p-tags", read, noun="name", read_hidden=read_hidden)

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("go", "n_clicks"),
        State("go-search", "value"),
        prevent_initial_call=True,
    )
    def go(_clicks: Any, search: str) -> str:
        return search

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
        if ticks_calls is not None and ctx.triggered_id == "p-tags-ticks":
            ticks_calls.append(ts.checked_names(rows))
        shown, selected, old_pattern = read(search)
        if ts.echoed(
            ctx.triggered_id, "p-tags", ts.checked_names(rows), shown, selected, old_pattern
        ):
            return dash.no_update
        matching, _ = ts.filter_tags(names, pattern or "")
        chosen = ts.pick(
            names,
            list(names) if selected is None else selected,
            ts.checked_names(rows),
            matching,
            ts.picker_action(ctx.triggered_id, "p-tags"),
        )
        new = STATE.search(
            replace(
                STATE.parse_search(search),
                tags=ts.ticked_tags(names, chosen),
                filter=pattern or "",
            )
        )
        return dash.no_update if new == (search or "") else new

    return app


def _go(dash_duo: Any, search: str) -> None:
    """Rewrite ``url.search`` as a page's control does, and wait for the picker's count."""
    field = dash_duo.find_element("#go-search")
    field.send_keys("\ue009a")  # ctrl-a: the text typed replaces the last one
    field.send_keys(search)
    until(lambda: field.get_attribute("value") == search, msg=f"could not type {search}")
    wait_idle(dash_duo)
    dash_duo.find_element("#go").click()
    until(
        lambda: dash_duo.driver.execute_script("return location.search") == search,
        msg=f"the URL did not become {search}",
    )


def _count(dash_duo: Any) -> str:
    return str(
        run_js(
            dash_duo,
            "const count = document.getElementById('p-tags-count');"
            "return count && count.textContent;",
        )
    )


def _wait_for_count(dash_duo: Any, text: str) -> None:
    """Until the picker's count says ``text`` (its callback followed the URL); on failure,
    what it says and the browser's errors."""
    try:
        until(lambda: _count(dash_duo) == text)
    except WaitTimedOut:
        raise AssertionError(
            f"the count says {_count(dash_duo)!r}, not {text!r}; browser "
            f"errors: {console_errors(dash_duo)}"
        ) from None


def _not_mounted(dash_duo: Any) -> bool:
    return bool(
        run_js(
            dash_duo,
            "return !document.getElementById('p-tags') && "
            "!!document.getElementById('p-tags-holder')",
        )
    )


def _mount_and_read(dash_duo: Any) -> dict[str, Any]:
    """Let the grid come (the chart is drawn), then what it holds once its rows arrived."""
    wait_idle(dash_duo)
    assert _not_mounted(dash_duo)  # the whole change happened before the grid existed
    run_js(dash_duo, DRAW_CHART)
    until(lambda: (run_js(dash_duo, GRID_MODEL, "p-tags") or {}).get("rows"))
    wait_idle(dash_duo)
    # Once the grid has everything, its holder no longer carries its spec.
    until(
        lambda: (
            run_js(
                dash_duo,
                "return document.getElementById('p-tags-holder').getAttribute('data-component')",
            )
            is None
        )
    )
    return dict(run_js(dash_duo, GRID_MODEL, "p-tags"))


NAMES = [f"name{i:02d}" for i in range(30)]


@pytest.mark.parametrize("way", ["control", "back"])
def test_a_url_change_before_the_grid_is_mounted(dash_duo: Any, way: str) -> None:
    """The grid mounts with the rows, ticks and eyes of the URL at that time (a control's
    change, or back to an earlier URL), not of the first one, with no browser error; the
    grid's echo of its ticks leaves the URL as it is."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    wait_idle(dash_duo)
    assert _not_mounted(dash_duo)
    wanted = "?" + "&".join(
        [
            f"tags={encode_tags(['name01', 'name11', 'name02'])}",
            "filter=1%24",
            f"hidden={encode_tags(['name11'])}",
        ]
    )
    _go(dash_duo, wanted)
    if way == "back":
        _go(dash_duo, "?filter=2")
        _wait_for_count(dash_duo, "30 of 30 names selected, 12 match")
        run_js(dash_duo, "history.back();")
        until(lambda: dash_duo.driver.execute_script("return location.search") == wanted)
    _wait_for_count(dash_duo, "3 of 30 names selected, 3 match")

    grid = _mount_and_read(dash_duo)
    assert grid == {
        "rows": ["name01", "name11", "name21"],
        "ticked": ["name01", "name11"],
        "hidden": ["name11"],
    }
    assert dash_duo.driver.execute_script("return location.search") == wanted
    assert console_errors(dash_duo) == []

    # Mounted, the grid gets what the URL says from then on: a new filter's rows and ticks.
    filter_box = dash_duo.find_element("#p-tags-filter")
    filter_box.send_keys("\ue009a")  # ctrl-a
    filter_box.send_keys("^name0\ue007")
    until(lambda: run_js(dash_duo, GRID_MODEL, "p-tags")["rows"] == NAMES[:10])
    until(lambda: run_js(dash_duo, GRID_MODEL, "p-tags")["ticked"] == ["name01", "name02"])
    assert _count(dash_duo) == "3 of 30 names selected, 10 match"
    assert console_errors(dash_duo) == []


def test_only_the_eyes_change_before_the_grid_is_mounted(dash_duo: Any) -> None:
    """A URL that closes an eye and nothing else (the callback sends a row transaction, not
    rows): the mounted grid has the eye closed."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    _go(dash_duo, f"?hidden={encode_tags(['name03', 'name29'])}")
    wait_idle(dash_duo)
    grid = _mount_and_read(dash_duo)
    assert grid["rows"] == NAMES and grid["ticked"] == NAMES
    assert grid["hidden"] == ["name03", "name29"]
    assert console_errors(dash_duo) == []


def test_refresh_before_the_grid_is_mounted(dash_duo: Any) -> None:
    """A click of "Refresh" after a new name arrived: the mounted grid lists it."""
    names = list(NAMES)
    dash_duo.start_server(_held_app(names))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    wait_idle(dash_duo)
    names.append("name30")  # the job got a new tag
    dash_duo.find_element("#refresh-now").click()
    _wait_for_count(dash_duo, "31 of 31 names selected")
    grid = _mount_and_read(dash_duo)
    assert grid["rows"] == [*NAMES, "name30"] and grid["ticked"] == sorted([*NAMES, "name30"])
    assert url_params(dash_duo) == {}
    assert console_errors(dash_duo) == []


def test_the_pickers_own_controls_before_the_grid_is_mounted(dash_duo: Any) -> None:
    """The filter and None, used before the grid exists: they write the URL (the page's
    "controls -> URL" callback listens to the grid's ticks too, through ``-ticks``) with no
    browser error, and the grid mounts with what they chose."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    wait_idle(dash_duo)
    filter_box = dash_duo.find_element("#p-tags-filter")
    filter_box.send_keys("^name2\ue007")
    until(lambda: url_params(dash_duo).get("filter") == "^name2")
    _wait_for_count(dash_duo, "30 of 30 names selected, 10 match")
    wait_idle(dash_duo)
    dash_duo.find_element("#p-tags-none").click()
    _wait_for_count(dash_duo, "20 of 30 names selected, 10 match")
    grid = _mount_and_read(dash_duo)
    assert grid == {"rows": NAMES[20:], "ticked": [], "hidden": []}
    assert console_errors(dash_duo) == []


def test_url_changes_after_the_grid_is_mounted(dash_duo: Any) -> None:
    """Once mounted, the grid follows URL changes that are not its own (a control, back): new
    ticks, new rows, back to earlier ticks, each followed by the next (the grid's report of
    ticks set from the URL once left Dash with the page's callback waiting for good, and the
    picker stopped following the URL)."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    grid = _mount_and_read(dash_duo)
    assert grid["rows"] == NAMES and grid["ticked"] == NAMES
    _go(dash_duo, "?filter=1%24&tags=name21")
    until(lambda: run_js(dash_duo, GRID_MODEL, "p-tags")["ticked"] == ["name21"])
    _wait_for_count(dash_duo, "1 of 30 names selected, 3 match")
    wait_idle(dash_duo)
    _go(dash_duo, "?filter=^name0")
    until(lambda: run_js(dash_duo, GRID_MODEL, "p-tags")["rows"] == NAMES[:10])
    until(lambda: len(run_js(dash_duo, GRID_MODEL, "p-tags")["ticked"]) == 10)
    wait_idle(dash_duo)
    run_js(dash_duo, "history.back();")
    until(lambda: run_js(dash_duo, GRID_MODEL, "p-tags")["ticked"] == ["name21"])
    _wait_for_count(dash_duo, "1 of 30 names selected, 3 match")
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return location.search") == "?filter=1%24&tags=name21"
    assert console_errors(dash_duo) == []


def test_mounting_the_grid_calls_the_server_for_nothing(dash_duo: Any) -> None:
    """The grid's first report of the ticks it was mounted with only echoes the URL: it stays
    in the browser (pickers.ticks), where it was a round trip late in every page's load. A
    click that follows still reaches the page's callback."""
    calls: list[Any] = []
    dash_duo.start_server(_held_app(list(NAMES), calls))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    grid = _mount_and_read(dash_duo)
    assert grid["ticked"] == NAMES and calls == []
    run_js(
        dash_duo, "window.dash_ag_grid.getApi('p-tags').getRowNode('name05').setSelected(false);"
    )
    until(lambda: "tags=" in dash_duo.driver.execute_script("return location.search"))
    _wait_for_count(dash_duo, "29 of 30 names selected")
    # The click (and the grid's report of the ticks the URL then sends it, an echo as before).
    assert calls and all(ticks == [n for n in NAMES if n != "name05"] for ticks in calls)
    assert console_errors(dash_duo) == []
