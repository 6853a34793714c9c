"""Groups of runs on the chosen x axis, and their smoothed bands (issue 40 item 1: "runs of
different lengths are aligned on steps (or on the chosen x axis)"): the group route and the
download place a group's points at the mean of its runs' x values, and the browser draws the
group's line and band there, its band's edges smoothed as its line is."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from urllib.parse import quote

import numpy as np
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars.query_smoothing import (
    Smoother,
    moving_average,
    smooth_band,
    smooth_ema,
)
from dash_insight.web.url_state import encode_tags
from tests.browser import until
from tests.conftest import console_errors, loaded_app
from tests.pages import run_js
from tests.plugins.scalars.test_page import _set_input

STEPS = range(0, 21)
RUNS = ["./s1_a", "./s2_a", "./s1_b"]
#: Group "a" holds two runs, "b" one.
GROUP_BY = "re:_(a|b)$"


def _loss(run: str, step: int) -> float:
    return {"./s1_a": 2.0, "./s2_a": 3.0}.get(run, 5.0) + 0.25 * step * (
        -1 if run == "./s1_b" else 1
    )


def _tokens(run: str, step: int) -> float | None:
    """The x tag: group "a"'s runs log it at the even steps only, at different rates (their
    x values differ at every even step but 0); the run of "b" at every step."""
    if run == "./s1_b":
        return 10.0 * step
    if step % 2:
        return None
    return (10.0 if run == "./s1_a" else 12.0) * step


@pytest.fixture(scope="module")
def x_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    base = tmp_path_factory.mktemp("groups_x")
    for i, run in enumerate(RUNS):
        with SummaryWriter(base / run[2:], host="test", timestamp=1_700_000_000 + i) as writer:
            for step in STEPS:
                writer.add_scalar("loss", _loss(run, step), step)
                tokens = _tokens(run, step)
                if tokens is not None:
                    writer.add_scalar("tokens", tokens, step)
    with loaded_app(base, tmp_path_factory.mktemp("ws")) as app:
        yield app


EVEN = [s for s in STEPS if s % 2 == 0]


def test_group_route_places_a_group_on_an_x_tag(x_app) -> None:
    client = x_app.server.test_client()
    url = "/v1/dash-insight/chart/scalar_group"
    both = {"train_id": ["./s1_a", "./s2_a"], "tag": "loss"}
    a = client.get(url, query_string={**both, "x_tag": "tokens"}).get_json()
    # Each run's points where it has tokens: the even steps; x the mean of 10 and 12 x step.
    assert a["step"] == EVEN and a["x"] == [11.0 * s for s in EVEN]
    assert a["count"] == [2] * len(EVEN)
    np.testing.assert_allclose(
        a["y"], [np.mean([_loss(r, s) for r in both["train_id"]]) for s in EVEN]
    )
    assert a["x_unplaced"] == 2 * 10 and a["x_differs"] == 10  # odd steps; all but step 0
    assert a["x_spread"] == [2.0 * s for s in EVEN]
    b = client.get(
        url, query_string={"train_id": "./s1_b", "tag": "loss", "x_tag": "tokens"}
    ).get_json()
    assert b["x"] == [10.0 * s for s in STEPS] and (b["x_unplaced"], b["x_differs"]) == (0, 0)
    # A tag none of the runs has places nothing; without x_tag the answer is as before.
    none = client.get(url, query_string={**both, "x_tag": "nothing"}).get_json()
    assert none["step"] == [] and none["x_unplaced"] == 2 * len(STEPS)
    plain = client.get(url, query_string=both).get_json()
    assert "x" not in plain and plain["step"] == list(STEPS)
    narrow = client.get(url, query_string={**both, "x_tag": "tokens", "max_points": 4}).get_json()
    assert narrow["total"] == len(EVEN) and set(narrow["x"]) <= set(a["x"])


def _found(x_app, **params: str):
    provider = x_app.data_service.provider
    jobs, tags_of = compare.scalar_jobs(provider)
    state = compare.page_state(
        {"jobs": encode_tags(RUNS), "group_by": GROUP_BY, **params}, jobs, tags_of
    )
    found = compare.downloads(provider, state, tags_of)
    groups, problem = compare.run_groups(provider, state)
    assert problem == "" and groups is not None
    xs = compare.x_values(provider, state, found)
    return state, found, compare.group_downloads(state, groups, found, xs), xs


def test_download_on_an_x_tag_carries_the_charts_x(x_app) -> None:
    state, found, aggregates, xs = _found(x_app, x_tag="tokens")
    assert state.url.x_tag == "tokens" and xs is not None
    text = compare.download_file(found, "csv", aggregates, xs, "tokens")["content"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert text.startswith("train_id,tag,step,wall_time,value,group,low,high,count,x\n")
    s1 = [r for r in rows if r["train_id"] == "./s1_a" and r["tag"] == "loss"]
    assert [r["x"] for r in s1[:3]] == ["0.0", "", "20.0"]  # no tokens at step 1
    a = [r for r in rows if not r["train_id"] and r["group"] == "a" and r["tag"] == "loss"]
    assert [int(r["step"]) for r in a] == EVEN
    assert [float(r["x"]) for r in a] == [11.0 * s for s in EVEN]
    document = json.loads(compare.download_file(found, "json", aggregates, xs, "tokens")["content"])
    assert document["x_tag"] == "tokens"
    entry = next(g for g in document["groups"] if g["group"] == "b" and g["tag"] == "loss")
    assert [p["x"] for p in entry["values"]] == [10.0 * s for s in STEPS]
    run = next(e for e in document["runs"] if e["train_id"] == "./s2_a" and e["tag"] == "loss")
    assert [p["x"] for p in run["values"][:3]] == [0.0, None, 24.0]
    # The download callback, as a plain function, gives the same file.
    search = "?" + "&".join(
        f"{k}={quote(v)}"
        for k, v in {"jobs": encode_tags(RUNS), "group_by": GROUP_BY, "x_tag": "tokens"}.items()
    )
    provider = x_app.data_service.provider
    clicked = compare.download(provider, "compare-download-csv", True, 1, None, search)
    assert clicked["content"] == text and clicked["filename"] == "scalars_comparison_groups.csv"
    # Without an x tag: the files as before (no x column).
    _state, found, plain, no_x = _found(x_app)
    assert no_x is None and plain[0][2].x is None
    assert compare.download_file(found, "csv", plain)["content"].startswith(
        "train_id,tag,step,wall_time,value,group,low,high,count\n"
    )


def test_smooth_band_smooths_each_edges_distance_from_the_line() -> None:
    """The band's edges: the smoothed line less / plus the smoothed distance of each edge from
    the centre; equal to smoothing each edge where the band has every point (linear
    smoothers), and never crossing the line where it has fewer."""
    centre = np.array([1.0, 4.0, 2.0, 8.0, 3.0, 5.0])
    low = centre - np.array([1.0, 0.5, 2.0, 1.0, 0.0, 3.0])
    high = centre + np.array([2.0, 1.0, 1.0, 0.5, 0.0, 1.0])
    for smoother in (Smoother("ema", 0.6), Smoother("ma", window=3)):
        got_low, got_high = smooth_band(centre, low, high, smoother)
        np.testing.assert_allclose(got_low, smoother.apply(low))
        np.testing.assert_allclose(got_high, smoother.apply(high))
    none_low, none_high = smooth_band(centre, low, high, Smoother("none"))
    np.testing.assert_array_equal(none_low, low)
    np.testing.assert_array_equal(none_high, high)
    # No band at steps with one run (NaN edges): those stay without, and the distances are
    # smoothed over the steps that have one (EMA by hand: debiased over two points).
    gappy_low = np.where([True, False, True, False, True, True], low, np.nan)
    got_low, _high = smooth_band(centre, gappy_low, high, Smoother("ema", 0.5))
    line = smooth_ema(centre, 0.5)
    distances = np.array([1.0, 2.0, 0.0, 3.0])
    expected = [distances[0], (0.5 * distances[0] + distances[1]) / 1.5]
    assert np.isnan(got_low[[1, 3]]).all()
    np.testing.assert_allclose(got_low[[0, 2]], line[[0, 2]] - expected)
    assert (got_low[[0, 2, 4, 5]] <= line[[0, 2, 4, 5]]).all()
    ma_low, _high = smooth_band(centre, gappy_low, high, Smoother("ma", window=3))
    np.testing.assert_allclose(
        ma_low[[0, 2, 4, 5]],
        moving_average(centre, 3)[[0, 2, 4, 5]]
        - moving_average(np.array([1.0, np.nan, 2.0, np.nan, 0.0, 3.0]), 3)[[0, 2, 4, 5]],
    )


#: The group lines and bands of the chart of ``arguments[0]``: per legend name its x and y,
#: each band's x and y (a closed shape: low edge forward, high edge back), the x axis title
#: and the notes.
GROUP_PLOT = """
const card = Array.from(document.querySelectorAll('#compare-grid .di-chart-card')).find(
    c => c.querySelector('.di-chart-title').textContent === arguments[0]);
const plot = card && card.querySelector('.js-plotly-plot');
if (!plot || !plot.data || !plot._fullLayout) return null;
const lines = {}, bands = [];
plot.data.forEach(t => {
    const role = (t.meta || {}).role;
    if (role === 'smoothed') {
        lines[t.name] = {x: t.x, y: t.y, hover: t.customdata.map(c => c[5])};
    }
    if (role === 'band') bands.push({x: t.x, y: t.y, series: t.meta.series, points: t.meta.points});
});
// The notes' boxes on the screen: [left, right, top, bottom] of each.
const boxes = Array.from(plot.querySelectorAll('.annotation')).map(a => {
    const r = a.getBoundingClientRect();
    return [r.left, r.right, r.top, r.bottom];
});
return {lines, bands, boxes, xtitle: plot._fullLayout.xaxis.title.text,
        names: plot.data.map(t => t.name),
        notes: (plot.layout.annotations || []).map(a => a.text).join(' | ')};
"""


def _band_edges(band: dict) -> tuple[list[float], list[float]]:
    """The low and high edge of a band of one stretch (x forward, then back, then closed)."""
    ys = [y for y in band["y"] if y is not None]
    points = band["points"]
    return ys[:points], ys[points : 2 * points][::-1]


@pytest.mark.browser
def test_a_group_is_drawn_at_its_runs_mean_x(dash_duo, x_app) -> None:
    dash_duo.driver.set_window_size(1280, 900)  # two charts a row
    dash_duo.start_server(x_app)
    # With the runs as thin lines (each at its own tokens).
    search = f"jobs={quote(encode_tags(RUNS))}&group_by={quote(GROUP_BY)}&x_tag=tokens&runs=1"
    dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?{search}&smoothing=0.6")

    def drawn() -> dict | None:
        plot = run_js(dash_duo, GROUP_PLOT, "loss")
        return plot if plot and len(plot["lines"]) == 5 and plot["xtitle"] == "tokens" else None

    plot = until(drawn, 60)
    a, b = (plot["lines"][name] for name in ("a (2 runs)", "b (1 run)"))
    # Each group at the mean of its runs' tokens at each step where they have one.
    assert a["x"] == [11.0 * s for s in EVEN] and b["x"] == [10.0 * s for s in STEPS]
    # Group a's band: its two runs differ by 1 at every step, so its std is 0.5 all along,
    # and the smoothed band is the smoothed line ± 0.5 (the raw centre ± 0.5 lags elsewhere).
    [band] = [band for band in plot["bands"] if band["points"] == len(EVEN)]
    assert [x for x in band["x"] if x is not None][: len(EVEN)] == a["x"]
    low, high = _band_edges(band)
    np.testing.assert_allclose(low, np.array(a["y"]) - 0.5, rtol=1e-12)
    np.testing.assert_allclose(high, np.array(a["y"]) + 0.5, rtol=1e-12)
    centre = np.array([np.mean([_loss(r, s) for r in RUNS[:2]]) for s in EVEN])
    np.testing.assert_allclose(a["y"], smooth_ema(centre, 0.6), rtol=1e-12)
    assert not np.allclose(low, centre - 0.5)
    # Said on the chart: the runs' points left out; a group point at the mean of differing x
    # values says so in its hover (group a's runs differ at every even step but 0).
    assert "groups: 20 point(s) without tokens left out" in plot["notes"]
    assert "20 point(s) without a value of tokens at their step not drawn" in plot["notes"]
    assert plot["lines"]["./s2_a"]["x"][:3] == [0.0, None, 24.0]  # a thin run at its own x
    differs = "<br>tokens differs between the runs here: drawn at their mean"
    assert a["hover"] == [""] + [differs] * (len(EVEN) - 1) and set(b["hover"]) == {""}
    # The warning and the band's note, both above the plot, do not overlap.
    assert len(plot["boxes"]) == 2
    (l1, r1, t1, b1), (l2, r2, t2, b2) = plot["boxes"]
    assert r1 <= l2 or r2 <= l1 or b1 <= t2 or b2 <= t1, plot["boxes"]

    # A smoothing typed in: the band moves with its line (redrawn in place, in the browser).
    _set_input(dash_duo, ".di-smoothing-box input", "0.9")
    heavier = smooth_ema(centre, 0.9) - 0.5

    def band_low() -> list[float]:
        plot = run_js(dash_duo, GROUP_PLOT, "loss")
        [band] = [band for band in plot["bands"] if band["points"] == len(EVEN)]
        return _band_edges(band)[0]

    until(lambda: np.allclose(band_low(), heavier, rtol=1e-12), 20)
    assert console_errors(dash_duo) == []
