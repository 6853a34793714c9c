"""One colour per run (dash_insight.web.components.run_colours): the rule, and the palette's
colours told apart (CIEDE2000, also by the common colour-vision deficiencies) and seen on both
themes' charts."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path

import dash
import pytest

from dash_insight.web.application import assets_folder
from dash_insight.web.components import run_colours as rc
from dash_insight.web.components.histogram_views import PANEL_COLOURS
from tests.colour_science import Deficiency, ciede2000, contrast_ratio, hex_to_lab


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


# --- the palette's colours ----------------------------------------------------------------------

#: Sharma, Wu, Dalal (2005), table 1: the 34 CIEDE2000 test pairs, ((L*, a*, b*) of each, ΔE00).
SHARMA_2005 = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 2.8361, -74.0200), (50.0, 0.0, -82.7485), 3.4412),
    ((50.0, -1.3802, -84.2814), (50.0, 0.0, -82.7485), 1.0000),
    ((50.0, -1.1848, -84.8006), (50.0, 0.0, -82.7485), 1.0000),
    ((50.0, -0.9009, -85.5211), (50.0, 0.0, -82.7485), 1.0000),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, -1.0, 2.0), (50.0, 0.0, 0.0), 2.3669),
    ((50.0, 2.4900, -0.0010), (50.0, -2.4900, 0.0009), 7.1792),
    ((50.0, 2.4900, -0.0010), (50.0, -2.4900, 0.0010), 7.1792),
    ((50.0, 2.4900, -0.0010), (50.0, -2.4900, 0.0011), 7.2195),
    ((50.0, 2.4900, -0.0010), (50.0, -2.4900, 0.0012), 7.2195),
    ((50.0, -0.0010, 2.4900), (50.0, 0.0009, -2.4900), 4.8045),
    ((50.0, -0.0010, 2.4900), (50.0, 0.0010, -2.4900), 4.8045),
    ((50.0, -0.0010, 2.4900), (50.0, 0.0011, -2.4900), 4.7461),
    ((50.0, 2.5, 0.0), (50.0, 0.0, -2.5), 4.3065),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0000),
    ((50.0, 2.5, 0.0), (50.0, 3.2972, 0.0), 1.0000),
    ((50.0, 2.5, 0.0), (50.0, 1.8634, 0.5757), 1.0000),
    ((50.0, 2.5, 0.0), (50.0, 3.2592, 0.3350), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
    ((61.2901, 3.7196, -5.3901), (61.4292, 2.2480, -4.9620), 1.8731),
    ((35.0831, -44.1164, 3.7933), (35.0232, -40.0716, 1.5901), 1.8645),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((36.4612, 47.8580, 18.3852), (36.2715, 50.5065, 21.2231), 1.4146),
    ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
    ((6.7747, -0.2908, -2.4247), (5.8714, -0.0985, -2.2286), 0.6377),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]
DEFICIENCIES: tuple[Deficiency, ...] = ("protanopia", "deuteranopia", "tritanopia")
#: The bounds the palette meets (its comment in run_colours.py says why), as {n: the smallest
#: CIEDE2000 between two of the first n colours}. Normal vision: the first 12 at least 20
#: apart, the first runs further (most comparisons show 2 to 6 runs).
MIN_DE = {2: 44.0, 4: 37.0, 6: 27.0, 12: 20.0}
#: Dichromacy (Machado 2009, severity 1), the worst of each simulation: twelve colours all 20
#: apart for every dichromat cannot also keep 3:1 on both themes (the lightness band left is
#: narrow); the palette has 37.07, 13.51, 11.90 and 6.85.
MIN_DE_DICHROMAT = {2: 35.0, 4: 13.5, 8: 11.5, 12: 6.5}
#: WCAG 2.1 non-text contrast (success criterion 1.4.11) of every line on both themes' charts.
MIN_CONTRAST = 3.0
#: Every colour this far (CIEDE2000) from the red of the threshold segments drawn over a line.
MIN_DE_THRESHOLD = 20.0


def _worst_pair(colours: Sequence[str], deficiency: Deficiency | None = None) -> float:
    """The smallest CIEDE2000 between two of ``colours`` (as seen with ``deficiency``)."""
    labs = [hex_to_lab(colour, deficiency) for colour in colours]
    return min(ciede2000(a, b) for a, b in itertools.combinations(labs, 2))


def _css_panel(theme: str) -> str:
    """``--panel`` (the cards' background, under the charts' transparent plot) of ``theme`` in
    dash-insight.css: ``:root`` (light) or ``html[data-theme="dark"]``."""
    css = Path(assets_folder(), "dash-insight.css").read_text(encoding="utf-8")
    selector = ":root" if theme == "light" else 'html[data-theme="dark"]'
    block = css[css.index(selector + " {") :]
    match = re.search(r"--panel:\s*(#[0-9a-fA-F]{6})", block[: block.index("}")])
    assert match, theme
    return match.group(1).lower()


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA_2005)
def test_ciede2000_gives_the_published_differences(
    lab1: tuple[float, float, float], lab2: tuple[float, float, float], expected: float
) -> None:
    # The table gives 4 decimals; the difference is symmetric.
    assert abs(ciede2000(lab1, lab2) - expected) < 5e-5
    assert abs(ciede2000(lab2, lab1) - expected) < 5e-5


def test_the_first_twelve_runs_are_told_apart() -> None:
    first = rc.PALETTE[:12]
    assert len(first) == 12 and len(set(first)) == 12 and all(map(rc.valid_colour, first))
    # One palette for both themes (lines drawn opaque): these differences hold on either; the
    # first runs get the colours furthest apart.
    worst = {n: round(_worst_pair(first[:n]), 2) for n in MIN_DE}
    assert all(worst[n] >= bound for n, bound in MIN_DE.items()), worst


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_runs_stay_apart_for_dichromats(deficiency: Deficiency) -> None:
    first = rc.PALETTE[:12]
    worst = {n: round(_worst_pair(first[:n], deficiency), 2) for n in MIN_DE_DICHROMAT}
    assert all(worst[n] >= bound for n, bound in MIN_DE_DICHROMAT.items()), worst


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_run_colour_reads_on_both_themes(theme: str) -> None:
    background = _css_panel(theme)
    assert background == PANEL_COLOURS[theme]  # the charts' background, as the code knows it
    for colour in rc.PALETTE:
        assert contrast_ratio(colour, background) >= MIN_CONTRAST, (colour, theme)


def test_run_colours_stay_clear_of_the_threshold_red() -> None:
    # Points past a threshold are drawn red over their line (and non-finite values marked red).
    script = Path(assets_folder(), "scalar-charts.js").read_text(encoding="utf-8")
    match = re.search(r'THRESHOLD_COLOUR = "(#[0-9a-fA-F]{6})"', script)
    assert match
    red = hex_to_lab(match.group(1))
    for colour in rc.PALETTE:
        assert ciede2000(hex_to_lab(colour), red) >= MIN_DE_THRESHOLD, colour


def test_the_palette_has_one_copy() -> None:
    # The browser takes a chart's colours from the server (run colours, and the palette's by
    # place: charts.chart_plan's place_colour); no script repeats the palette.
    scripts = [p for p in Path(assets_folder()).glob("*.js") if not p.name.endswith(".min.js")]
    assert scripts
    for path in scripts:
        text = path.read_text(encoding="utf-8").lower()
        assert not [colour for colour in rc.PALETTE if colour in text], path.name
