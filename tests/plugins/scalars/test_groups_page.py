"""Groups of runs on the scalar comparison (issue 40 item 1): URL state, the charts' lines and
bands, the group route, the download with aggregates, and the page in a browser."""

from __future__ import annotations

import csv
import io
import json
from urllib.parse import quote

import numpy as np
import pytest

from dash_insight.core.lineage_rows import lineage_row, row_columns
from dash_insight.core.provider import DataProvider
from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars.query_groups import GroupBy, aggregate
from dash_insight.web.components.run_colours import MISSING_COLOUR, PALETTE, colour_at
from dash_insight.web.url_state import encode_tags, parse_search
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import run_js
from tests.plugins.scalars.test_page import _set_input, _wait_charts

LENET = [
    "./lenet_sc",
    "./lenet_lr0.01_bs32",
    "./lenet_lr0.05_bs64",
    "./lenet_lr0.1_bs16",
    "./lenet_adam_lr0.001_bs32",
]
JOBS = encode_tags(LENET)
TAG = "loss/auto"


def _state(provider: DataProvider, **params: str) -> dict:
    jobs, tags_of = compare.scalar_jobs(provider)
    return compare.page_state({"jobs": JOBS, **params}, jobs, tags_of)


def test_group_state_is_checked_and_kept() -> None:
    jobs, tags_of = ["./a", "./b"], {"./a": ["loss"], "./b": ["loss"]}
    state = compare.page_state({"group_by": "re:(", "band": "iqr", "centre": "x"}, jobs, tags_of)
    assert state.group is None and state.url.group_by == ""
    assert "Cannot group by" in state.group_problem
    assert (state.url.band, state.url.centre, state.url.runs) == ("std", "mean", False)
    grouped = compare.page_state(
        {"group_by": "re:(a|b)", "band": "minmax", "centre": "median", "runs": "1"}, jobs, tags_of
    )
    assert grouped.group == GroupBy(pattern="(a|b)")
    # another control keeps the groups in the URL
    search = compare.controls_search(
        grouped, jobs, tags_of, "compare-next", None, None, None, None, "step", 0.0
    )
    assert {k: v for k, v in parse_search(search).items() if k != "page"} == {
        "group_by": "re:(a|b)",
        "centre": "median",
        "band": "minmax",
        "runs": "1",
    }


def test_group_controls_write_the_url() -> None:
    base = "?jobs=a&page=2"
    by_column = compare.group_search("compare-group-by", "batch_size", "", "mean", "std", [], base)
    assert parse_search(by_column) == {"jobs": "a", "page": "2", "group_by": "batch_size"}
    by_regex = compare.group_search(
        "compare-group-regex", "batch_size", r"lr([\d.]+)", "median", "minmax", ["runs"], base
    )
    assert parse_search(by_regex) == {
        "jobs": "a",
        "page": "2",
        "group_by": r"re:lr([\d.]+)",
        "centre": "median",
        "band": "minmax",
        "runs": "1",
    }
    cleared = compare.group_search("compare-group-regex", None, "", "mean", "std", [], by_regex)
    assert parse_search(cleared) == {"jobs": "a", "page": "2"}
    # the same URL again: no update
    assert (
        compare.group_search("compare-group-by", "batch_size", "", "mean", "std", [], by_column)
        is compare.dash.no_update
    )


def test_groups_by_a_hyper_parameter_give_one_line_per_group(corpus_provider) -> None:
    state = _state(corpus_provider, group_by="optimizer", runs="1")
    groups, problem = compare.run_groups(corpus_provider, state)
    assert problem == ""
    by_name = {g.name: set(g.runs) for g in groups}
    assert by_name == {
        "Momentum": {"./lenet_sc", "./lenet_lr0.01_bs32", "./lenet_lr0.1_bs16"},
        "SGD": {"./lenet_lr0.05_bs64"},
        "Adam": {"./lenet_adam_lr0.001_bs32"},
    }
    _jobs, tags_of = compare.scalar_jobs(corpus_provider)
    charts, _pages = compare.chart_specs(state, tags_of, None, groups)
    loss = next(c for c in charts if c.title == TAG)
    lines = [s for s in loss.series if s.members]
    thin = [s for s in loss.series if s.thin]
    assert [s.name for s in lines] == [
        f"optimizer={g.name} ({len(g.runs)} run{'s' if len(g.runs) > 1 else ''})" for g in groups
    ]
    assert [s.colour for s in lines] == list(PALETTE[: len(groups)])
    assert sorted(s.train_id for s in thin) == sorted(LENET)  # runs under their group's line
    assert loss.series[: len(thin)] == tuple(thin)  # drawn first, under the lines
    plan = compare.chart_plan(corpus_provider, [loss])["charts"][0]
    momentum = next(s for s in plan["series"] if s.get("members") and "Momentum" in s["name"])
    assert momentum["centre"] == "mean" and momentum["band"] == "std"
    assert momentum["total"] == sum(
        corpus_provider.scalar_extent(job, TAG)[0] for job in momentum["members"]
    )
    # a column none of the jobs has: said so, every run in "no group"
    unknown = _state(corpus_provider, group_by="user_defined/nothing")
    groups, problem = compare.run_groups(corpus_provider, unknown)
    assert "user_defined/nothing" in problem and [g.name for g in groups] == [None]


def test_group_options_are_the_lineage_columns(corpus_provider) -> None:
    state = _state(corpus_provider, group_by="re:lenet_(\\w+)")
    options, value, note, colour_options, colour_value, legend = compare.group_controls(
        corpus_provider,
        "?"
        + "&".join(
            f"{k}={quote(v)}" for k, v in {"jobs": JOBS, "group_by": state.url.group_by}.items()
        ),
        None,
        None,
    )
    values = [o["value"] for o in options]
    assert {"optimizer", "batch_size", "network"} <= set(values)
    assert values[-1] == "re:lenet_(\\w+)" and value == "re:lenet_(\\w+)"
    # sc, lr0 (four runs: \w stops at "."), adam
    assert note.startswith("3 groups") and "at least two runs" in note
    # the colour menu lists the columns (not the regex); grouped runs have no colour legend
    assert colour_options == options[:-1] and colour_value is None and legend == []
    row = row_columns(lineage_row("./lenet_sc", corpus_provider.lineage_records("./lenet_sc")))
    assert row["batch_size"] == 32 and row["optimizer"] == "Momentum"


def test_download_gives_the_aggregates(corpus_provider) -> None:
    state = _state(corpus_provider, group_by="optimizer", centre="median", band="minmax")
    _jobs, tags_of = compare.scalar_jobs(corpus_provider)
    found = compare.downloads(corpus_provider, state, tags_of)
    groups, _problem = compare.run_groups(corpus_provider, state)
    aggregates = compare.group_downloads(state, groups, found)
    rows = list(
        csv.DictReader(io.StringIO(compare.download_file(found, "csv", aggregates)["content"]))
    )
    momentum = [r for r in rows if r["group"] == "optimizer=Momentum" and r["tag"] == TAG]
    runs = [r for r in momentum if r["train_id"]]
    assert {r["train_id"] for r in runs} == {
        "./lenet_sc",
        "./lenet_lr0.01_bs32",
        "./lenet_lr0.1_bs16",
    }
    centre = [r for r in momentum if not r["train_id"]]
    expected = aggregate(
        [
            corpus_provider.read_scalars(j, TAG)
            for j in ("./lenet_sc", "./lenet_lr0.01_bs32", "./lenet_lr0.1_bs16")
        ],
        "median",
        "minmax",
    )
    assert [int(r["step"]) for r in centre] == expected.step.tolist()
    np.testing.assert_allclose([float(r["value"]) for r in centre], expected.centre)
    np.testing.assert_allclose([float(r["high"]) for r in centre], expected.high)
    assert [int(r["count"]) for r in centre] == expected.count.tolist()
    document = json.loads(compare.download_file(found, "json", aggregates)["content"])
    assert {e["train_id"] for e in document["runs"]} == set(LENET)
    entry = next(
        g for g in document["groups"] if g["group"] == "optimizer=Momentum" and g["tag"] == TAG
    )
    assert [p["count"] for p in entry["values"]] == expected.count.tolist()
    assert compare.download_file(found, "csv")["content"].startswith("train_id,tag,step,")


def test_group_route(corpus_app) -> None:
    client = corpus_app.server.test_client()
    members = ["./lenet_sc", "./lenet_lr0.01_bs32", "./lenet_lr0.1_bs16"]
    query = "&".join(f"train_id={quote(j)}" for j in members)
    answer = client.get(f"/v1/dash-insight/chart/scalar_group?{query}&tag={quote(TAG)}")
    assert answer.status_code == 200, answer.data
    body = answer.get_json()
    provider = corpus_app.data_service.provider
    expected = aggregate([provider.read_scalars(j, TAG) for j in members])
    assert body["step"] == expected.step.tolist() and body["runs"] == 3
    np.testing.assert_allclose(body["y"], expected.centre)
    assert [v is None for v in body["low"]] == np.isnan(expected.low).tolist()
    narrow = client.get(
        f"/v1/dash-insight/chart/scalar_group?{query}&tag={quote(TAG)}&max_points=10"
        "&centre=median&band=minmax"
    ).get_json()
    assert narrow["shown"] <= 12 and narrow["total"] == len(expected)
    bad = client.get(f"/v1/dash-insight/chart/scalar_group?{query}&tag={quote(TAG)}&band=iqr")
    assert bad.status_code == 400
    missing = client.get(f"/v1/dash-insight/chart/scalar_group?{query}&tag=nothing")
    assert missing.status_code == 400  # chart/scalar's ScalarNotExist


#: Per drawn chart title: its groups' lines (name -> points) and bands (colour of the fill ->
#: points with a band), read from the figures.
GROUP_TRACES = """
const out = {};
document.querySelectorAll('#compare-grid .di-chart-card').forEach(card => {
    const plot = card.querySelector('.js-plotly-plot');
    if (!plot || !plot.data) return;
    const title = card.querySelector('.di-chart-title').textContent;
    const lines = {}, bands = {}, thin = [];
    plot.data.forEach(t => {
        const role = (t.meta || {}).role;
        if (role === 'smoothed' && t.showlegend) lines[t.name] = t.y.filter(v => v !== null).length;
        if (role === 'band') bands[t.fillcolor] = t.meta.points;
        if (role === 'thin-raw') thin.push(t.name);
    });
    out[title] = {lines, bands, thin,
                  notes: (plot.layout.annotations || []).map(a => a.text).join(' | ')};
});
return out;
"""


def test_grouping_by_a_hyper_parameter_draws_a_line_and_band_per_group(
    dash_duo, corpus_app
) -> None:
    dash_duo.driver.set_window_size(1280, 900)
    dash_duo.start_server(corpus_app)
    dash_duo.driver.add_cookie({"name": "di_language", "value": "zh_CN"})
    dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?jobs={quote(JOBS)}")
    _wait_charts(dash_duo, 2)
    # Group by the optimizer from the menu of lineage columns.
    dash_duo.select_dcc_dropdown("#compare-group-by", value="optimizer")
    until(lambda: "group_by=optimizer" in dash_duo.driver.current_url, 20)

    def drawn() -> dict | None:
        traces = run_js(dash_duo, GROUP_TRACES).get(TAG)
        return traces if traces and len(traces["lines"]) == 3 else None

    traces = until(drawn, 30)
    assert sorted(traces["lines"]) == sorted(
        [
            "optimizer=Momentum（3 次运行）",
            "optimizer=SGD（1 次运行）",
            "optimizer=Adam（1 次运行）",
        ]
    )
    # One band per group, in its colour; only the group of three runs has steps with two.
    assert len(traces["bands"]) == 3
    assert sorted(traces["bands"].values())[:2] == [0, 0] and max(traces["bands"].values()) > 0
    note = "色带"
    assert note in traces["notes"]
    # The note is another callback's output: waited for, not read at once.
    groups = "3 个组"
    until(lambda: groups in dash_duo.find_element("#compare-group-note").text, 20)
    run_js(dash_duo, "const s = document.getElementById('compare-side'); s.scrollTop = 1e6;")
    # Show runs: each run as a thin line under its group's.
    dash_duo.find_element("#compare-group-runs input").click()
    until(lambda: "runs=1" in dash_duo.driver.current_url, 20)
    until(lambda: len(run_js(dash_duo, GROUP_TRACES)[TAG]["thin"]) == 5, 30)
    # A regular expression on the run names instead.
    _set_input(dash_duo, "#compare-group-regex", "lenet_(lr0\\.0)")
    until(lambda: "group_by=re%3Alenet_%28lr0" in dash_duo.driver.current_url, 20)
    until(lambda: len(run_js(dash_duo, GROUP_TRACES)[TAG]["lines"]) == 2, 30)
    assert console_errors(dash_duo) == []


def test_colour_runs_by_a_lineage_column(corpus_provider) -> None:
    """Issue 40 item 2: numbers on a colour scale with its bar, categories in the palette."""
    state = _state(corpus_provider, colour_by="batch_size")
    columns = compare.lineage_columns(corpus_provider, state.shown_jobs)
    colours, legend = compare.lineage_colours(columns, LENET, "batch_size")
    assert legend == {"low": 16, "high": 64}
    assert colours["./lenet_lr0.1_bs16"] == colour_at(0.0)
    assert colours["./lenet_lr0.05_bs64"] == colour_at(1.0)
    assert colours["./lenet_sc"] == colour_at((32 - 16) / 48)
    by_optimizer, legend = compare.lineage_colours(columns, [*LENET, "./ops_all"], "optimizer")
    names = ["Momentum", "SGD", "Adam"]
    assert legend == {"items": [(name, PALETTE[i]) for i, name in enumerate(names)]}
    assert by_optimizer["./lenet_adam_lr0.001_bs32"] == PALETTE[2]
    assert by_optimizer["./ops_all"] == MISSING_COLOUR  # no lineage
    assert compare.lineage_colours(columns, LENET, "user_defined/nothing") == ({}, None)
    search = compare.group_search(
        "compare-colour-by", None, "", "mean", "std", [], "?jobs=a", "batch_size"
    )
    assert parse_search(search) == {"jobs": "a", "colour_by": "batch_size"}
    # The job list's eyes take the lines' colours; a colour the user chose wins.
    url = f"?jobs={quote(JOBS)}&colour_by=batch_size"
    eyes = compare.job_colours(corpus_provider, url, None)
    assert eyes["./lenet_lr0.1_bs16"] == colour_at(0.0)
    assert eyes["./lenet_lr0.05_bs64"] == colour_at(1.0)
    mine = compare.job_colours(corpus_provider, url, {"./lenet_lr0.1_bs16": PALETTE[5]})
    assert mine["./lenet_lr0.1_bs16"] == PALETTE[5]
    # Grouped runs: the eyes keep the runs' own colours.
    grouped = compare.job_colours(corpus_provider, url + "&group_by=optimizer", None)
    assert grouped == compare.eye_colours(corpus_provider, list(grouped))


def _rgb(colour: str) -> str:
    """``#rrggbb`` as the browser gives an element's colour back."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


@pytest.mark.browser
def test_colour_by_draws_the_scale_and_its_bar(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(f"{dash_duo.server_url}/compare?jobs={quote(JOBS)}&colour_by=batch_size")
    _wait_charts(dash_duo, 2)
    line_colour = """
        const plot = Array.from(document.querySelectorAll('#compare-grid .di-chart-card')).find(
            c => c.querySelector('.di-chart-title').textContent === arguments[0])
            .querySelector('.js-plotly-plot');
        const out = {};
        plot.data.filter(t => (t.meta || {}).role === 'smoothed')
            .forEach(t => { out[t.name] = t.line.color; });
        return out;"""
    until(lambda: run_js(dash_duo, line_colour, TAG).get("./lenet_lr0.05_bs64") == colour_at(1.0))
    colours = run_js(dash_duo, line_colour, TAG)
    assert colours["./lenet_lr0.1_bs16"] == colour_at(0.0)
    assert colours["./lenet_sc"] == colour_at((32 - 16) / 48)
    # The job list's eyes are the lines' legend: the same colours.
    eye = (
        "return (document.querySelector(`#compare-jobs .di-eye[data-run='${arguments[0]}']`)"
        " || {style: {}}).style.color;"
    )
    until(lambda: run_js(dash_duo, eye, "./lenet_lr0.1_bs16") == _rgb(colour_at(0.0)), 20)
    until(lambda: dash_duo.find_elements("#compare-colour-legend .di-colour-bar"), 20)
    assert dash_duo.find_element("#compare-colour-legend").text.split() == ["16", "64"]
    dash_duo.select_dcc_dropdown("#compare-colour-by", value="optimizer")
    until(lambda: "colour_by=optimizer" in dash_duo.driver.current_url, 20)
    until(lambda: len(dash_duo.find_elements("#compare-colour-legend .di-colour-item")) == 3, 20)
    until(lambda: run_js(dash_duo, line_colour, TAG).get("./lenet_sc") == PALETTE[0], 20)
    run_js(dash_duo, "const s = document.getElementById('compare-side'); s.scrollTop = 1e6;")
    dash_duo.find_element("#compare-side").screenshot("/tmp/colour-by-side.png")
    assert console_errors(dash_duo) == []
