"""SVG charts (web.components.svg_chart, assets/svg-chart.js): the specs' helpers, and the
charts as the browser draws them: bars standing on a category axis or lying along one, side
by side or over each other, dots, spans in rows, a pie, a message; each mark where its value
says, its hover's lines, drawn again at a new width or spec."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import dash
import pytest
from dash import Input, Output, html

from dash_insight.web.components import svg_chart
from dash_insight.web.components.svg_chart import SvgChart
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import hover_svg_mark

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def test_number_axis_ticks_inside_its_range() -> None:
    axis = svg_chart.number_axis(0.0, 1.05)
    assert axis["range"] == [0.0, 1.05]
    assert [t[0] for t in axis["ticks"]] == [0.0, 0.5, 1.0]
    assert [t[1] for t in axis["ticks"]] == ["0", "0.5", "1"]


def test_number_axis_pads_and_widens_a_single_value() -> None:
    low, high = svg_chart.number_axis(10.0, 20.0, pad=0.05)["range"]
    assert math.isclose(low, 9.5) and math.isclose(high, 20.5)
    assert svg_chart.number_axis(32.0, 32.0)["range"] == pytest.approx([28.8, 35.2])
    assert svg_chart.number_axis(0.0, 0.0)["range"] == [-1.0, 1.0]


@pytest.mark.parametrize(
    ("high", "ticks"),
    [(1.05, [0, 1]), (2.1, [0, 1, 2]), (7.35, [0, 2, 4, 6]), (12.6, [0, 5, 10])],
)
def test_job_counts_are_ticked_at_whole_numbers(high: float, ticks: list[int]) -> None:
    axis = svg_chart.number_axis(0, high, integers=True)
    assert [t[0] for t in axis["ticks"]] == ticks


def test_hover_lines_are_plotlys_hover_text_as_plain_lines() -> None:
    text = "<b>Conv2D</b> (2 types)<br>1.50 us<br>a &lt; b"
    assert svg_chart.hover_lines(text) == ["Conv2D (2 types)", "1.50 us", "a < b"]


def _axes(kind: str, **extra: Any) -> dict[str, Any]:
    return {
        "height": 200,
        "margin": {"l": 40, "r": 10, "t": 10, "b": 30},
        "message": None,
        "legend": False,
        **extra,
    }


#: Vertical bars side by side, over each other, lying bars, dots, spans, a pie and a message.
SPECS: dict[str, dict[str, Any]] = {
    "grouped": _axes(
        "bars",
        x=svg_chart.category_axis(["a", "b"]),
        y=svg_chart.number_axis(0, 4),
        series=[
            {
                "name": "one",
                "colour": "#00f",
                "mark": "bar",
                "points": [[0, 1, ["a one"]], [1, 2, ["b one"]]],
            },
            {
                "name": "two",
                "colour": "#f00",
                "mark": "bar",
                "points": [[0, 4, ["a two"]], [1, 0, ["b two"]]],
            },
        ],
    ),
    "overlay": _axes(
        "bars",
        overlay=True,
        barWidth=0.8,
        x=svg_chart.number_axis(0.5, 2.5),
        y=svg_chart.number_axis(0, 4),
        series=[
            {
                "name": "span",
                "colour": "#888",
                "mark": "bar",
                "points": [[1, 4, ["1"]], [2, 2, ["2"]]],
            },
            {
                "name": "busy",
                "colour": "#0a0",
                "mark": "bar",
                "points": [[1, 1, ["1 busy"]], [2, 2, ["2 busy"]]],
            },
        ],
    ),
    "lying": _axes(
        "bars",
        x=svg_chart.number_axis(0, 1),
        y=svg_chart.category_axis(["top", "bottom"]),
        series=[
            {
                "name": "r",
                "colour": "#00f",
                "mark": "bar",
                "points": [[1, 0, ["top"]], [0.5, 1, ["bottom"]]],
            }
        ],
    ),
    "dots": _axes(
        "dots",
        x=svg_chart.number_axis(0, 10),
        y=svg_chart.number_axis(0, 10),
        series=[
            {
                "name": "d",
                "colour": "#d00",
                "mark": "dot",
                "points": [[0, 0, ["origin"]], [10, 10, ["corner"]]],
            }
        ],
    ),
    "spans": _axes(
        "spans",
        x=svg_chart.number_axis(0, 100),
        y=svg_chart.category_axis(["first", "second"]),
        series=[
            {
                "name": "s",
                "colour": "#00f",
                "mark": "span",
                "points": [[10, 1, ["ten"], 60], [50, 0, ["tiny"], 50]],
            }
        ],
    ),
    "pie": {
        "kind": "pie",
        "height": 200,
        "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
        "message": None,
        "slices": [[3, "#00f", "75%", ["three"]], [1, "#f00", "25%", ["one"]]],
    },
    "message": svg_chart.message_chart(["nothing", "to draw"], 120),
}

#: Each mark's box relative to its chart's svg (px): series, point, x, y, width, height.
_BOXES = """
const svg = document.querySelector(`#${arguments[0]} svg.di-svg`);
if (!svg) { return null; }
const origin = svg.getBoundingClientRect();
return [...svg.querySelectorAll('.di-svg-mark')].map(m => { const b = m.getBoundingClientRect();
  return [Number(m.dataset.series), Number(m.dataset.point), Math.round(b.left - origin.left),
          Math.round(b.top - origin.top), Math.round(b.width), Math.round(b.height)]; });"""


def _app(assets: Path) -> dash.Dash:
    shutil.copy(ASSETS / "svg-chart.js", assets / "svg-chart.js")
    shutil.copy(ASSETS / "dash-insight.css", assets / "dash-insight.css")
    app = dash.Dash(__name__, assets_folder=str(assets))
    app.layout = html.Div(
        [
            html.Button("again", id="again"),
            *(
                html.Div(SvgChart(id=name, spec=spec), style={"width": "300px"}, id=f"{name}-box")
                for name, spec in SPECS.items()
            ),
        ]
    )
    app.callback(Output("dots", "spec"), Input("again", "n_clicks"), prevent_initial_call=True)(
        lambda _clicks: {**SPECS["dots"], "height": 100}
    )
    return app


def _dots_size(dash_duo: Any) -> list[str] | None:
    """The dots chart's width and height as drawn, read at once (a redraw replaces its svg)."""
    return dash_duo.driver.execute_script(
        "const svg = document.querySelector('#dots svg.di-svg');"
        "return svg && [svg.getAttribute('width'), svg.getAttribute('height')];"
    )


@pytest.mark.browser
def test_the_browser_draws_each_mark_where_its_value_says(dash_duo: Any, tmp_path: Path) -> None:
    dash_duo.start_server(_app(tmp_path))
    marked = [name for name in SPECS if name != "message"]
    boxes = {
        name: until(lambda n=name: dash_duo.driver.execute_script(_BOXES, n), 20) for name in marked
    }
    # Plot area: x 40..290 (300 wide, margins 40 and 10), y 10..170 (200 high, 10 and 30).
    (_, _, ax, ay, aw, ah), (_, _, _bx, by, bw, bh) = boxes["grouped"][:1] + boxes["grouped"][1:2]
    two_a = boxes["grouped"][2]
    assert aw == bw == two_a[4] == 50  # side by side in 80 % of a's band (125 px)
    assert two_a[2] == ax + aw  # the second series' bar right of the first
    assert ah == 40 and bh == 80 and two_a[5] == 160  # 1, 2 and 4 of 0..4 over 160 px
    assert ay + ah == by + bh == 170  # standing on the axis
    over = boxes["overlay"]
    assert over[0][2] == over[2][2] and over[0][4] == over[2][4] == 100  # 0.8 of 125 px
    top, bottom = boxes["lying"]
    assert top[2] == bottom[2] == 40 and top[4] == 250 and bottom[4] == 125 and top[3] < bottom[3]
    origin, corner = boxes["dots"]
    assert abs(origin[2] + origin[4] / 2 - 40) <= 1 and abs(origin[3] + origin[5] / 2 - 170) <= 1
    assert abs(corner[2] + corner[4] / 2 - 290) <= 1 and abs(corner[3] + corner[5] / 2 - 10) <= 1
    ten, tiny = boxes["spans"]
    assert ten[2] == 40 + 25 and ten[4] == 125 and ten[3] > tiny[3]  # 10..60 of 100, lower row
    assert tiny[4] >= 1  # as wide as a pixel at least
    big, small = boxes["pie"]
    assert big[4] == big[5] == 200 and small[2] < 150  # the larger slice whole, the smaller left
    texts = dash_duo.driver.execute_script(
        "return [...document.querySelectorAll('#pie .di-svg-pie-text, #message tspan')]"
        ".map(t => t.textContent);"
    )
    assert texts == ["75%", "25%", "nothing", "to draw"]
    assert hover_svg_mark(dash_duo, "grouped", 1, 0) == ["a two"]
    assert hover_svg_mark(dash_duo, "pie", 0, 1) == ["one"]
    # A new spec and a new width: drawn again.
    dash_duo.find_element("#again").click()
    until(lambda: _dots_size(dash_duo) == ["300", "100"], 10)
    dash_duo.driver.execute_script("document.getElementById('dots-box').style.width = '500px'")
    until(lambda: _dots_size(dash_duo) == ["500", "100"], 10)
    assert console_errors(dash_duo) == []


def test_label_room_fits_the_longest_label() -> None:
    assert svg_chart.label_room(["ReLU", "Conv2DBackpropFilter"]) == 14 + 6 * 20
    assert svg_chart.label_room([]) == 14
