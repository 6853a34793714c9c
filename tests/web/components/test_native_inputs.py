"""``RangeInput`` and ``SelectInput`` (``dash_insight/web/components/native_inputs.py``,
``assets/native-inputs.js``): their props as Dash writes them, their first-paint copies, and in
the browser the value a slider sets on release, at each move (``updatemode="drag"``) and from a
key, the ``drag_value`` it follows, the value a menu sets (of the option's own type, None from
a clearable menu's first entry), and the values and options callbacks give them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import dash
import pytest
from dash import Input, Output, html
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from dash_insight.web.components.native_inputs import RangeInput, SelectInput, option_pairs
from dash_insight.web.first_paint import static_html
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import choose, run_js

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def test_its_props_are_dash_sliders_with_the_pages_defaults() -> None:
    written = RangeInput(id={"type": "s", "tag": "a"}, max=10, value=3).to_plotly_json()
    assert (written["namespace"], written["type"]) == ("dash_insight", "RangeInput")
    assert written["props"] == {
        "id": {"type": "s", "tag": "a"},
        "min": 0,
        "max": 10,
        "step": 1,
        "value": 3,
        "disabled": False,
        "updatemode": "mouseup",
        "className": "di-range",
    }
    assert RangeInput(min=2, max=5).to_plotly_json()["props"]["value"] == 2  # none: at min
    with pytest.raises(TypeError):
        RangeInput(marks={0: "0"})  # type: ignore[call-arg]


def test_its_first_paint_is_the_native_inputs_it_becomes() -> None:
    assert static_html(RangeInput(id="s", max=0.99, step=0.01, value=0.6)) == (
        '<input class="di-range" type="range" min="0" max="0.99" step="0.01" value="0.6" '
        'style="--di-range-fill:60.6061%">'
    )
    assert static_html(RangeInput(max=3, value=3.0, disabled=True)) == (
        '<input class="di-range" type="range" min="0" max="3" step="1" disabled value="3" '
        'style="--di-range-fill:100%">'
    )


def _app(assets: Path) -> dash.Dash:
    """Two sliders (released / dragged), their values and drag values as text, and a button
    that sets the first one's value."""
    shutil.copy(ASSETS / "native-inputs.js", assets / "native-inputs.js")
    (assets / "width.css").write_text("input[type=range] { width: 400px; }")
    app = dash.Dash(__name__, assets_folder=str(assets))
    app.layout = html.Div(
        [
            RangeInput(id="released", max=10, value=5),
            RangeInput(id="dragged", max=10, value=5, updatemode="drag"),
            html.Button("reset", id="reset"),
            html.Div(id="released-value"),
            html.Div(id="released-drag"),
            html.Div(id="dragged-value"),
        ]
    )
    app.callback(Output("released-value", "children"), Input("released", "value"))(str)
    app.callback(Output("released-drag", "children"), Input("released", "drag_value"))(str)
    app.callback(Output("dragged-value", "children"), Input("dragged", "value"))(str)
    app.callback(
        Output("released", "value"), Input("reset", "n_clicks"), prevent_initial_call=True
    )(lambda _clicks: 1)
    return app


@pytest.mark.browser
def test_it_sets_its_value_on_release_or_at_each_move(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(_app(tmp_path))
    dash_duo.wait_for_text_to_equal("#released-value", "5")
    dash_duo.wait_for_text_to_equal("#dragged-value", "5")

    # A key moves the thumb and sets the value (the input's change event).
    dash_duo.find_element("#released").send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    dash_duo.wait_for_text_to_equal("#released-value", "7")
    dash_duo.wait_for_text_to_equal("#released-drag", "7")

    # Dragging: the released slider's value waits for the release; its drag value and the
    # dragged slider's value follow the pointer.
    released = dash_duo.find_element("#released")
    drag = ActionChains(dash_duo.driver).click_and_hold(released).move_by_offset(-190, 0)
    drag.perform()
    dash_duo.wait_for_text_to_equal("#released-drag", "0")
    assert dash_duo.find_element("#released-value").text == "7"
    ActionChains(dash_duo.driver).release().perform()
    dash_duo.wait_for_text_to_equal("#released-value", "0")

    dragged = dash_duo.find_element("#dragged")
    ActionChains(dash_duo.driver).click_and_hold(dragged).move_by_offset(190, 0).perform()
    dash_duo.wait_for_text_to_equal("#dragged-value", "10")
    ActionChains(dash_duo.driver).release().perform()

    # A callback's value moves the thumb.
    dash_duo.find_element("#reset").click()
    dash_duo.wait_for_text_to_equal("#released-value", "1")
    until(lambda: dash_duo.find_element("#released").get_attribute("value") == "1", 10)
    fill = "return arguments[0].style.getPropertyValue('--di-range-fill')"
    assert run_js(dash_duo, fill, dash_duo.find_element("#released")) == "10%"  # its track
    assert console_errors(dash_duo) == []


def test_a_menu_writes_dcc_dropdowns_props_and_reads_its_options_as_dcc_does() -> None:
    written = SelectInput(id="m", options=[1, 2], value=2, className="wide").to_plotly_json()
    assert (written["namespace"], written["type"]) == ("dash_insight", "SelectInput")
    assert written["props"] == {
        "id": "m",
        "options": [1, 2],
        "value": 2,
        "clearable": False,
        "disabled": False,
        "className": "di-select wide",
    }
    assert option_pairs([3, {"label": "four", "value": 4}, {"value": "v"}]) == [
        ("3", 3),
        ("four", 4),
        ("v", "v"),
    ]


def test_a_menus_first_paint_shows_its_choice_or_its_placeholder() -> None:
    options = [{"label": "Jet", "value": "jet"}, {"label": "Viridis", "value": "viridis"}]
    assert static_html(SelectInput(options=options, value="viridis", style={"width": 80})) == (
        '<select class="di-select" style="width:80px"><option>Viridis</option></select>'
    )
    assert static_html(SelectInput(options=options, placeholder="<none>")) == (
        '<select class="di-select"><option>&lt;none&gt;</option></select>'
    )


def _menu_app(assets: Path) -> dash.Dash:
    """A menu of numbers, a clearable menu whose options and value a button sets, and what
    each holds (its value's repr)."""
    shutil.copy(ASSETS / "native-inputs.js", assets / "native-inputs.js")
    app = dash.Dash(__name__, assets_folder=str(assets))
    app.layout = html.Div(
        [
            SelectInput(id="numbers", options=[0, 1, 2, 3], value=2),
            SelectInput(id="later", placeholder="nothing yet", clearable=True),
            html.Button("fill", id="fill"),
            html.Div(id="numbers-value"),
            html.Div(id="later-value"),
        ]
    )
    app.callback(Output("numbers-value", "children"), Input("numbers", "value"))(repr)
    app.callback(Output("later-value", "children"), Input("later", "value"))(repr)
    app.callback(
        Output("later", "options"),
        Output("later", "value"),
        Input("fill", "n_clicks"),
        prevent_initial_call=True,
    )(
        lambda _clicks: (
            [{"label": "loss", "value": "loss"}, {"label": "acc", "value": "acc"}],
            "acc",
        )
    )
    return app


@pytest.mark.browser
def test_a_menu_sets_its_options_value_and_takes_the_pages(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(_menu_app(tmp_path))
    dash_duo.wait_for_text_to_equal("#numbers-value", "2")
    assert dash_duo.find_element("#numbers option:checked").text == "2"
    choose(dash_duo, "#numbers", "3")
    dash_duo.wait_for_text_to_equal("#numbers-value", "3")  # a number, as the option's value

    # No value: the placeholder shows; the page's options and value come in.
    dash_duo.wait_for_text_to_equal("#later-value", "None")
    assert dash_duo.find_element("#later option:checked").text == "nothing yet"
    dash_duo.find_element("#fill").click()
    dash_duo.wait_for_text_to_equal("#later-value", "'acc'")
    until(lambda: dash_duo.find_element("#later option:checked").text == "acc", 10)
    choose(dash_duo, "#later", "loss")
    dash_duo.wait_for_text_to_equal("#later-value", "'loss'")
    choose(dash_duo, "#later", "nothing yet")  # clearable: its first entry clears it
    dash_duo.wait_for_text_to_equal("#later-value", "None")
    assert console_errors(dash_duo) == []
