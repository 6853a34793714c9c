"""``assets/dash-patches.js``: the Redux updates of nothing that dcc.Store and dash-renderer
make at a page's load are not made (issue 37 item 2), and the state they would have left is the
same; a short checklist's component labels survive new options."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import dash
import pytest
from dash import Input, Output, dcc, html

from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import callbacks_sent

pytestmark = pytest.mark.browser

ASSETS = Path(__file__).resolve().parents[2] / "assets"

#: Dispatches a reset of ``arguments[0]`` (a path) and says how many listeners ran.
RESET = """
let heard = 0;
const stop = window.store.subscribe(() => { heard += 1; });
window.store.dispatch({type: 'RESET_COMPONENT_STATE', payload: {itempath: arguments[0]}});
stop();
return heard;
"""


#: Dispatches ``arguments[0]`` and says how many listeners ran and whether the state changed.
DISPATCH = """
let heard = 0;
const before = window.store.getState();
const stop = window.store.subscribe(() => { heard += 1; });
window.store.dispatch(arguments[0]);
stop();
return {heard, same: window.store.getState() === before};
"""


def _open_images(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(f"{dash_duo.server_url}/images?train_id=.%2Fops_all")
    dash_duo.wait_for_element("#img-cards img", timeout=30)
    wait_idle(dash_duo)


def _patched_app(assets: Path) -> dash.Dash:
    """A Dash app whose assets are ``assets/dash-patches.js`` alone."""
    shutil.copy(ASSETS / "dash-patches.js", assets / "dash-patches.js")
    return dash.Dash(__name__, assets_folder=str(assets))


def _store_app(assets: Path) -> dash.Dash:
    """A page of two memory Stores (data None, as a layout sets it, and data 0), each the
    input of a callback that only a change of its data fires (prevent_initial_call), and a
    button that changes one."""
    app = _patched_app(assets)
    app.layout = html.Div(
        [
            dcc.Store(id="none", data=None),
            dcc.Store(id="zero", data=0),
            html.Button("change", id="change"),
            html.Div(id="fired-none"),
            html.Div(id="fired-zero"),
        ]
    )

    def fired(data: Any) -> str:
        return f"fired with {data!r}"

    app.callback(
        Output("fired-none", "children"), Input("none", "data"), prevent_initial_call=True
    )(fired)
    app.callback(
        Output("fired-zero", "children"), Input("zero", "data"), prevent_initial_call=True
    )(fired)
    app.callback(Output("zero", "data"), Input("change", "n_clicks"), prevent_initial_call=True)(
        lambda clicks: clicks
    )
    return app


def test_a_memory_store_fires_nothing_at_mount(dash_duo: Any, tmp_path: Path) -> None:
    """dcc.Store set a memory Store's data None again at mount (undefined compared with null),
    which fired its callback as if the data had changed; a real change still fires it."""
    dash_duo.start_server(_store_app(tmp_path))
    dash_duo.wait_for_element("#change")
    assert dash_duo.driver.execute_script("return window.dashInsightQuietStores") is True
    wait_idle(dash_duo)
    assert callbacks_sent(dash_duo) == 0
    assert dash_duo.find_element("#fired-none").text == ""
    dash_duo.find_element("#change").click()
    dash_duo.wait_for_text_to_equal("#fired-zero", "fired with 1")
    assert dash_duo.find_element("#fired-none").text == ""
    assert console_errors(dash_duo) == []


def test_a_reset_with_no_hash_under_its_path_is_not_dispatched(
    dash_duo: Any, corpus_app: Any
) -> None:
    _open_images(dash_duo, corpus_app)
    assert dash_duo.driver.execute_script("return window.dashInsightQuietResets") is True
    assert dash_duo.driver.execute_script(RESET, ["no", "such", "path"]) == 0
    # A path with a hash under it (a prop changed since) is reset as dash-renderer does.
    path = dash_duo.driver.execute_script("return window.store.getState().paths.strs['route']")
    key = ",".join(map(str, path))
    dash_duo.driver.execute_script(
        "window.store.dispatch({type: 'ON_PROP_CHANGE', payload: "
        "{itempath: arguments[0], props: {modified_timestamp: 1}}})",
        path,
    )
    hashes = "return Object.keys(window.store.getState().layoutHashes)"
    until(lambda: key in dash_duo.driver.execute_script(hashes), 10)
    assert dash_duo.driver.execute_script(RESET, path) == 1
    assert key not in dash_duo.driver.execute_script(hashes)


def test_an_aggregate_of_no_change_is_not_dispatched(dash_duo: Any, corpus_app: Any) -> None:
    """dash-renderer's Callbacks.Aggregate of nulls leaves its state as it is (its reducer skips
    nulls) yet ran every listener; one with a change still does."""
    _open_images(dash_duo, corpus_app)
    nothing = {"type": "Callbacks.Aggregate", "payload": [None, None, None]}
    assert dash_duo.driver.execute_script(DISPATCH, nothing) == {"heard": 0, "same": True}
    completed = "return window.store.getState().callbacks.completed"
    done = dash_duo.driver.execute_script(completed)
    one = {
        "type": "Callbacks.Aggregate",
        "payload": [None, {"type": "Callbacks.Completed", "payload": 1}],
    }
    assert dash_duo.driver.execute_script(DISPATCH, one) == {"heard": 1, "same": False}
    assert dash_duo.driver.execute_script(completed) == done + 1
    # The page still works: its cards are drawn and nothing failed.
    assert console_errors(dash_duo) == []


def _labels(names: list[str]) -> list[dict[str, Any]]:
    return [{"label": [html.B("eye"), html.Span(name)], "value": name} for name in names]


def show_more(ticked: list[str]) -> list[dict[str, Any]]:
    """The list's options: an archived name in front of the others once the switch is on."""
    return _labels((["archived"] if ticked else []) + ["a", "b"])


def test_a_checklist_with_component_labels_takes_new_options(dash_duo: Any, tmp_path: Path) -> None:
    """A checklist of fewer than 100 options whose labels are components, given options with
    another value at a row: its label's wrapper updated a path where nothing was inserted, and
    Dash's error boundary reverted the user's last change (the switch unticked itself)."""
    app = _patched_app(tmp_path)
    app.layout = html.Div(
        [
            dcc.Checklist(id="switch", options=["show archived"], value=[]),
            dcc.Checklist(id="list", options=_labels(["a", "b"]), value=["a"]),
        ]
    )
    app.callback(Output("list", "options"), Input("switch", "value"), prevent_initial_call=True)(
        show_more
    )
    dash_duo.start_server(app)
    dash_duo.wait_for_element("#list input")
    dash_duo.find_element("#switch input").click()
    values = "return Array.from(document.querySelectorAll('#list input'), i => i.value)"
    until(lambda: dash_duo.driver.execute_script(values) == ["archived", "a", "b"], 30)
    wait_idle(dash_duo)
    assert dash_duo.find_element("#switch input").is_selected()
    assert [e.is_selected() for e in dash_duo.find_elements("#list input")] == [False, True, False]
    assert console_errors(dash_duo) == []
    assert dash_duo.driver.execute_script("return window.dashInsightKeyedLabels") is True
