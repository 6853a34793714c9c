"""A picker follows the URL (issue 17): a URL change by another control, a back navigation,
a click of "Refresh" set its rows, ticks and eyes, with no browser error, and its own ticks
set from the URL are no user change (the URL stays as it is). The page's list loads the
names the layout gives it: its first report calls the server for nothing."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import dash
import pytest
from dash import Input, Output, State, ctx, dcc, html
from dash.testing.errors import TestingTimeoutError as WaitTimedOut

from dash_insight.web.application import dash_assets
from dash_insight.web.components import tag_select as ts
from dash_insight.web.components.compare_runs import eye_search
from dash_insight.web.url_state import Tags, Text, TypedUrlState, encode_tags
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import bind_picker_url, run_js, tick_name, url_params

#: What the list shows (fewer than 100 names: every row is drawn): its rows in order, the
#: ticked names and the names whose eye is closed. Null before it is drawn.
LIST_MODEL = """
const list = document.getElementById(arguments[0]);
if (!list) return null;
const rows = Array.from(list.querySelectorAll('label[data-option-index]'))
  .filter(r => Number(r.getAttribute('data-option-index')) >= 0);
const name = r => r.querySelector('input').value;
return {rows: rows.map(name),
        ticked: rows.filter(r => r.querySelector('input').checked).map(name).sort(),
        hidden: rows.filter(r => r.querySelector('.di-eye-closed')).map(name)};
"""


#: Whether the "no match" line of the list is inside its box (not cut off below it).
EMPTY_SHOWN = """
const box = document.getElementById('p-tags-box').getBoundingClientRect();
const line = document.querySelector('#p-tags-box .di-picker-empty').getBoundingClientRect();
return line.height > 0 && line.top >= box.top && line.bottom <= box.bottom;
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
    ``filter``, ``hidden`` in the URL; absent ``tags``: all) and a button ``#go`` that rewrites
    ``url.search`` to the text of ``#go-search``.
    ``names``: the picker's names, read again on every refresh (a test may add to it);
    ``ticks_calls``: gets the ticks of each call of the page's callback the list's ticks
    fired."""
    app = dash.Dash(__name__, **dash_assets(), suppress_callback_exceptions=True)
    row = ts.picker("p-tags", "Names", names, None, "", noun="name", hidden=[])
    app.layout = html.Div(
        [
            dcc.Location(id="url", refresh=False, pathname="/", search=""),
            dcc.Interval(id="refresh-interval", disabled=True),
            html.Button("Refresh", id="refresh-now"),
            dcc.Input(id="go-search", value=""),
            html.Button("Go", id="go"),
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
        Input("p-tags-eye", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    def eye(report: Any, search: str | None) -> object:
        return eye_search(search, names, report) or dash.no_update

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("go", "n_clicks"),
        State("go-search", "value"),
        prevent_initial_call=True,
    )
    def go(_clicks: Any, search: str) -> str:
        return search

    def answer(rows: object, pattern: str | None, search: str | None) -> object:
        if ticks_calls is not None and ctx.triggered_id == "p-tags":
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

    bind_picker_url(app, "p-tags", answer)
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


def _shown(dash_duo: Any) -> dict[str, Any]:
    """What the list shows, once the page's callbacks are done."""
    wait_idle(dash_duo)
    return dict(run_js(dash_duo, LIST_MODEL, "p-tags") or {})


NAMES = [f"name{i:02d}" for i in range(30)]


@pytest.mark.parametrize("way", ["control", "back"])
def test_a_url_change(dash_duo: Any, way: str) -> None:
    """The list shows the rows, ticks and eyes of the URL (a control's change, or back to an
    earlier URL), with no browser error; its echo of the ticks leaves the URL as it is."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
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
    assert _shown(dash_duo) == {
        "rows": ["name01", "name11", "name21"],
        "ticked": ["name01", "name11"],
        "hidden": ["name11"],
    }
    assert dash_duo.driver.execute_script("return location.search") == wanted
    assert console_errors(dash_duo) == []
    # A new filter's rows and ticks.
    filter_box = dash_duo.find_element("#p-tags-filter")
    filter_box.send_keys("\ue009a")  # ctrl-a
    filter_box.send_keys("^name0\ue007")
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["rows"] == NAMES[:10])
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["ticked"] == ["name01", "name02"])
    assert _count(dash_duo) == "3 of 30 names selected, 10 match"
    assert console_errors(dash_duo) == []


def test_only_the_eyes_change(dash_duo: Any) -> None:
    """A URL that closes eyes and nothing else: the list shows them closed, its rows and
    ticks as they were; a click on an eye opens it again (the URL's ``hidden``) without
    unticking its row."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    _go(dash_duo, f"?hidden={encode_tags(['name03', 'name29'])}")
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["hidden"] == ["name03", "name29"])
    shown = _shown(dash_duo)
    assert shown["rows"] == NAMES and shown["ticked"] == NAMES
    dash_duo.find_element('#p-tags .di-eye[data-run="name03"]').click()
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["hidden"] == ["name29"])
    assert _shown(dash_duo)["ticked"] == NAMES and "tags" not in url_params(dash_duo)
    assert console_errors(dash_duo) == []


def test_refresh(dash_duo: Any) -> None:
    """A click of "Refresh" after a new name arrived: the list shows it."""
    names = list(NAMES)
    dash_duo.start_server(_held_app(names))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    wait_idle(dash_duo)
    names.append("name30")  # the job got a new tag
    dash_duo.find_element("#refresh-now").click()
    _wait_for_count(dash_duo, "31 of 31 names selected")
    shown = _shown(dash_duo)
    assert shown["rows"] == [*NAMES, "name30"] and shown["ticked"] == sorted([*NAMES, "name30"])
    assert url_params(dash_duo) == {}
    assert console_errors(dash_duo) == []


def test_the_pickers_own_controls(dash_duo: Any) -> None:
    """The filter and None write the URL and the list shows what they chose."""
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
    assert _shown(dash_duo) == {"rows": NAMES[20:], "ticked": [], "hidden": []}
    assert not dash_duo.find_element("#p-tags-box .di-picker-empty").is_displayed()
    # A filter nothing matches: the list says so, in its box.
    filter_box.send_keys("\ue009a")  # ctrl-a
    filter_box.send_keys("nothing\ue007")
    _wait_for_count(dash_duo, "20 of 30 names selected, 0 match")
    until(lambda: dash_duo.find_element("#p-tags-box .di-picker-empty").is_displayed())
    assert run_js(dash_duo, EMPTY_SHOWN) is True
    assert console_errors(dash_duo) == []


def test_url_changes_one_after_another(dash_duo: Any) -> None:
    """The list follows URL changes that are not its own (a control, back): new ticks, new
    rows, back to earlier ticks, each followed by the next (a list's report of ticks set from
    the URL once left Dash with the page's callback waiting for good, and the picker stopped
    following the URL)."""
    dash_duo.start_server(_held_app(list(NAMES)))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    shown = _shown(dash_duo)
    assert shown["rows"] == NAMES and shown["ticked"] == NAMES
    _go(dash_duo, "?filter=1%24&tags=name21")
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["ticked"] == ["name21"])
    _wait_for_count(dash_duo, "1 of 30 names selected, 3 match")
    wait_idle(dash_duo)
    _go(dash_duo, "?filter=^name0")
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["rows"] == NAMES[:10])
    until(lambda: len(run_js(dash_duo, LIST_MODEL, "p-tags")["ticked"]) == 10)
    wait_idle(dash_duo)
    run_js(dash_duo, "history.back();")
    until(lambda: run_js(dash_duo, LIST_MODEL, "p-tags")["ticked"] == ["name21"])
    _wait_for_count(dash_duo, "1 of 30 names selected, 3 match")
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return location.search") == "?filter=1%24&tags=name21"
    assert console_errors(dash_duo) == []


def test_the_load_calls_the_server_for_nothing(dash_duo: Any) -> None:
    """The list drawn with the layout does not report its ticks (no round trip at load); a
    click on a row reaches the page's callback with the ticks."""
    calls: list[Any] = []
    dash_duo.start_server(_held_app(list(NAMES), calls))
    _wait_for_count(dash_duo, "30 of 30 names selected")
    assert _shown(dash_duo)["ticked"] == NAMES and calls == []
    tick_name(dash_duo, "p-tags", "name05")
    until(lambda: "tags=" in dash_duo.driver.execute_script("return location.search"))
    _wait_for_count(dash_duo, "29 of 30 names selected")
    # The click (and the list's report of the ticks the URL then sends it, an echo).
    assert calls and all(ticks == [n for n in NAMES if n != "name05"] for ticks in calls)
    assert console_errors(dash_duo) == []
