"""One colour per run (dash_insight.web.components.run_colours)."""

from __future__ import annotations

import dash

from dash_insight.web.components import run_colours as rc


def test_a_run_has_its_colour_whatever_the_chart_shows() -> None:
    jobs = ["./c", "./a", "./b"]
    # By place among all jobs sorted, not among those of a chart.
    assert rc.run_colour("./a", jobs) == rc.PALETTE[0]
    assert rc.run_colour("./c", jobs) == rc.PALETTE[2]
    assert rc.run_colours(["./c"], jobs) == {"./c": rc.PALETTE[2]}
    assert rc.run_colours(["./b", "./c"], jobs) == {"./b": rc.PALETTE[1], "./c": rc.PALETTE[2]}
    # The first len(PALETTE) runs differ; then the palette starts again.
    many = [f"./r{i:02d}" for i in range(len(rc.PALETTE) + 1)]
    colours = [rc.run_colour(j, many) for j in many]
    assert len(set(colours[:-1])) == len(rc.PALETTE) and colours[-1] == colours[0]
    # A run the list does not know still gets a palette colour, always the same.
    assert rc.run_colour("./gone", jobs) == rc.run_colour("./gone", []) in rc.PALETTE


def test_the_users_colour_wins_when_valid() -> None:
    jobs = ["./a", "./b"]
    assert rc.run_colour("./a", jobs, {"./a": "#ABCDEF"}) == "#abcdef"
    assert rc.run_colour("./a", jobs, {"./a": "red"}) == rc.PALETTE[0]  # not #rrggbb
    assert rc.run_colour("./a", jobs, {"./a": None}) == rc.PALETTE[0]
    assert rc.valid_colour("#00a5a7") and not rc.valid_colour("#00a5a") and not rc.valid_colour(3)


def test_set_colour() -> None:
    assert rc.set_colour(None, "./a", "#123456") == {"./a": "#123456"}
    assert rc.set_colour({"./a": "#123456", "./b": "#FFFFFF"}, "./a", None) == {
        "./b": "#ffffff"
    }  # back to the default
    assert rc.set_colour({"./a": "bad", 3: "#123456"}, None, None) == {}  # junk dropped
    assert rc.set_colour({}, "./a", "javascript:") == {}


def test_run_dot_carries_its_default_colour() -> None:
    dot = rc.run_dot("./a", "#00a5a7")
    assert dot.id == {"type": "run-dot", "run": "./a", "colour": "#00a5a7"}
    assert dot.style == {"background": "#00a5a7"}
    app = dash.Dash(__name__)
    rc.register_run_dots(app)
    assert any("run-dot" in key for key in app.callback_map)
