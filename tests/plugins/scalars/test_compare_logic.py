"""The comparison page's hidden runs and download, without a browser (issue 17 item 10)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import dash
import numpy as np
from dash import no_update

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.scalars import compare_page as compare
from dash_insight.plugins.scalars.page_charts import (
    ChartSpec,
    SeriesSpec,
    chart_flags_search,
    chart_plan,
)
from dash_insight.web.components import compare_runs
from dash_insight.web.components.compare_runs import eye_search
from dash_insight.web.components.tag_select import picker_update, picker_view
from dash_insight.web.url_state import encode_tags, parse_search
from tests.conftest import loaded_service

JOBS = ["./a", "./b", "./c"]
TAGS_OF = {"./a": ["loss"], "./b": ["loss", "acc"], "./c": ["loss"]}


def test_hidden_runs_leave_the_charts_and_stay_selected() -> None:
    state = compare.page_state({"hidden": encode_tags(["./b", "./gone"])}, JOBS, TAGS_OF)
    assert state.jobs == JOBS and state.hidden == ["./b"]  # unknown names dropped
    assert state.shown_jobs == ["./a", "./c"]
    assert state.shown_tags == ["loss"]  # only the hidden run has "acc"
    charts, _pages = compare.chart_specs(state, TAGS_OF)
    assert [[s.train_id for s in chart.series] for chart in charts] == [["./a", "./c"]]
    # A control keeps the hidden runs in the URL.
    search = compare.controls_search(
        state, JOBS, TAGS_OF, "compare-next", None, "", None, "", "step", 0.0
    )
    assert compare.STATE.parse_search(search).hidden == ["./b"]


def test_eye_click_toggles_the_url() -> None:
    search = "?page=2&axis=relative"  # in STATE's order: the page's own, then the charts'
    closed = eye_search(search, JOBS, {"value": {"run": "./c", "hidden": True}})
    assert compare.STATE.parse_search(closed) == replace(
        compare.STATE.parse_search(search), hidden=["./c"]
    )
    both = eye_search(closed, JOBS, {"value": {"run": "./a", "hidden": True}})
    assert compare.STATE.parse_search(both).hidden == ["./c", "./a"]
    opened = eye_search(both, JOBS, {"value": {"run": "./c", "hidden": False}})
    assert compare.STATE.parse_search(opened).hidden == ["./a"]
    assert eye_search(opened, JOBS, {"value": {"run": "./a", "hidden": False}}) == search
    # Anything else is ignored.
    for report in (None, {}, {"value": "x"}, {"value": {"run": "./nope", "hidden": True}}):
        assert eye_search(search, JOBS, report) is None


def _eyes(options: list[dict]) -> list[tuple[str, bool, str | None]]:
    """Each row's name, whether its eye is closed and its eye's colour."""
    eyes = [(option["value"], option["label"][0]) for option in options]
    return [
        (name, "di-eye-closed" in eye.className, getattr(eye, "style", {}).get("color"))
        for name, eye in eyes
    ]


def test_picker_eyes_update_rows_in_place() -> None:
    view = picker_view(JOBS, JOBS, "", "job", hidden=[])
    assert _eyes(view.options())[0] == ("./a", False, None)
    closed = picker_view(JOBS, JOBS, "", "job", hidden=["./b"])
    outputs = picker_update(closed, view.key)
    # Same rows and ticks: the options with their eyes, not the ticks or the box.
    assert _eyes(outputs[3])[1] == ("./b", True, None)
    assert outputs[4] is outputs[5] is dash.no_update
    assert picker_update(closed, closed.key)[3] is dash.no_update
    assert len(picker_update(picker_view(JOBS, JOBS, ""), None)) == 6  # no eyes: as many


def test_the_job_list_eyes_take_the_runs_colours() -> None:
    """#38 item 2: the eye of each run in the job list is drawn in the run's colour (the
    list is the charts' legend, as TensorBoard's runs list); a new user colour is sent with
    the options (the ticks and box are kept), a list without colours is as before."""
    plain = picker_view(JOBS, JOBS, "", "job", hidden=["./b"])
    assert _eyes(plain.options())[0] == ("./a", False, None)
    colours = {"./a": "#00a5a7", "./b": "#986000", "./c": "#2860f0"}
    painted = picker_view(JOBS, JOBS, "", "job", hidden=["./b"], colours=colours)
    assert _eyes(painted.options()) == [
        ("./a", False, "#00a5a7"),
        ("./b", True, None),  # a closed eye is grey
        ("./c", False, "#2860f0"),
    ]
    assert painted.key[:2] == plain.key[:2]
    repainted = picker_view(
        JOBS, JOBS, "", "job", hidden=["./b"], colours={**colours, "./c": "#ff50a0"}
    )
    outputs = picker_update(repainted, painted.key)
    assert outputs[4] is outputs[5] is dash.no_update  # no new ticks or box
    assert _eyes(outputs[3])[2] == ("./c", False, "#ff50a0")
    assert picker_update(painted, painted.key)[3] is dash.no_update  # the same: nothing sent


def test_eye_colours_are_the_lines_colours(tmp_path: Path) -> None:
    """The eyes and the charts' lines get one colour per run from one rule
    (:func:`compare.eye_colours`), the user's colour first."""
    base = tmp_path / "logs"
    _write(base)
    service = loaded_service(base, tmp_path / "ws")
    try:
        jobs, tags_of = compare.scalar_jobs(service.provider)
        colours = compare.eye_colours(service.provider, jobs)
        state = compare.page_state({}, jobs, tags_of)
        charts, _pages = compare.chart_specs(state, tags_of, colours)
        assert {s.train_id: s.colour for c in charts for s in c.series} == colours
        assert len(set(colours.values())) == len(jobs) == 3
        chosen = compare.eye_colours(service.provider, jobs, {"./a": "#123456", "./b": "bad"})
        assert chosen == {**colours, "./a": "#123456"}
    finally:
        service.close()


def _write(base: Path) -> None:
    for i, name in enumerate(("a", "b", "c")):
        with SummaryWriter(base / name, host="test", timestamp=1_700_000_000 + i) as writer:
            for step in (1, 2, 3):
                writer.add_scalar("loss", 1.0 / (step + i), step)
                if name == "b":
                    writer.add_scalar("=acc", float("nan") if step == 2 else step / 4, step)


def test_download_of_the_drawn_runs(tmp_path: Path) -> None:
    _write(tmp_path / "logs")
    service = loaded_service(tmp_path / "logs", tmp_path / "ws")
    try:
        jobs, tags_of = compare.scalar_jobs(service.provider)
        state = compare.page_state(
            {
                "jobs": encode_tags(["./a", "./b", "./c"]),
                "hidden": encode_tags(["./c"]),
                "smoothing": "0.9",
            },
            jobs,
            tags_of,
        )
        found = compare.downloads(service.provider, state, tags_of)
        # Chart after chart, the runs in the page's order (newest first), ./c hidden.
        drawn = [j for j in jobs if j != "./c"]
        assert [(job, tag) for job, tag, _ in found] == [
            *((job, "loss") for job in drawn),
            ("./b", "=acc"),
        ]
        text = compare.download_file(found, "csv")
        assert text["filename"] == "scalars_comparison.csv"
        rows = list(csv.reader(io.StringIO(text["content"])))
        assert rows[0] == ["train_id", "tag", "step", "wall_time", "value"]
        assert len(rows) == 1 + 9 and not any(row[0] == "./c" for row in rows)
        acc = [row for row in rows if row[1] == "'=acc"]  # a formula-like tag is quoted
        assert [row[4] for row in acc] == ["0.25", "nan", "0.75"]  # raw, not smoothed
        loss_a = [float(row[4]) for row in rows if row[:2] == ["./a", "loss"]]
        assert np.allclose(loss_a, [1.0, 0.5, 1 / 3])
        document = json.loads(compare.download_file(found, "json")["content"])
        assert [entry["train_id"] for entry in document] == [*drawn, "./b"]
        assert [p["value"] for p in document[2]["values"]] == [0.25, None, 0.75]
        assert set(document[0]["values"][0]) == {"step", "wall_time", "value"}
    finally:
        service.close()


def test_chart_points_against_a_tag(tmp_path: Path) -> None:
    """``chart/scalar``'s ``x_tag``: each point's x is the tag's value at its step; without it
    the answer is as before (no ``x``)."""
    base = tmp_path / "logs"
    with SummaryWriter(base / "j", host="test", timestamp=1_700_000_000) as writer:
        for step in range(1, 7):
            writer.add_scalar("loss", 1.0 / step, step)
            if step % 3:
                writer.add_scalar("epoch", step / 2, step)
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0),
        start_loader=False,
    )
    app.data_service.loader.load_round()
    client = app.server.test_client()
    url = "/v1/dash-insight/chart/scalar"
    try:
        plain = client.get(url, query_string={"train_id": "./j", "tag": "loss"}).get_json()
        assert "x" not in plain and plain["step"] == [1, 2, 3, 4, 5, 6]
        against = client.get(
            url, query_string={"train_id": "./j", "tag": "loss", "x_tag": "epoch"}
        ).get_json()
        assert against["x"] == [0.5, 1.0, None, 2.0, 2.5, None]
        assert against["x_unplaced"] == 2
        assert {k: v for k, v in against.items() if not k.startswith("x")} == plain
        ranged = client.get(
            url, query_string={"train_id": "./j", "tag": "loss", "x_tag": "epoch", "start_step": 4}
        ).get_json()
        assert ranged["x"] == [2.0, 2.5, None] and ranged["x_unplaced"] == 1
        missing = client.get(
            url, query_string={"train_id": "./j", "tag": "loss", "x_tag": "nope"}
        ).get_json()
        assert missing["x"] == [None] * 6 and missing["x_unplaced"] == 6
        # The plan places the best points on that axis (loss is lowest at step 6: no epoch).
        plan = chart_plan(
            app.data_service.provider,
            [ChartSpec("c", "loss", (SeriesSpec("./j", "loss", "loss"),))],
            "epoch",
        )
        [series] = plan["charts"][0]["series"]
        assert plan["charts"][0]["x_tag"] == "epoch"
        assert series["best"]["min"]["x"] is None and series["best"]["max"]["x"] == 0.5
    finally:
        app.data_service.close()


def test_chart_flags_in_the_url() -> None:
    """A flipped best value and a log x axis per chart: the charts of the page with an odd
    number of clicks are listed, the charts of other pages kept, other parameters untouched."""
    ids = [{"type": "chart-best", "chart": "c|loss"}, {"type": "chart-best", "chart": "c|acc"}]
    xlog = [{"type": "chart-xlog", "chart": "c|loss"}, {"type": "chart-xlog", "chart": "c|acc"}]
    search = "?jobs=a&best_flip=c%7Cother"
    new = chart_flags_search([1, 2], [None, 3], ids, xlog, search)
    assert parse_search(new) == {
        "jobs": "a",
        "best_flip": encode_tags(["c|other", "c|loss"]),
        "log_x": "c|acc",
    }
    assert parse_search(chart_flags_search([0, 0], [0, 0], ids, xlog, new)) == {
        "jobs": "a",
        "best_flip": "c|other",
    }
    assert chart_flags_search([2, 0], [0, 0], ids, xlog, "?jobs=a") is no_update


def test_the_eye_click_is_the_comparison_pages_one_definition() -> None:
    """Issue 36 item 6: the scalars comparison's eye click is compare_runs' own (no copy of
    it) over the one ``hidden`` field every comparison page reads, and like the other tabs
    keeps the parameters it does not know."""
    assert not hasattr(compare, "toggle_hidden") and not hasattr(compare, "eye_search")
    assert compare.STATE.fields["hidden"] is compare_runs.HIDDEN
    search = "?axis=relative&b=80"
    closed = compare_runs.eye_search(search, JOBS, {"value": {"run": "./c", "hidden": True}})
    assert closed is not None and "b=80" in closed
    assert compare.STATE.parse_search(closed).hidden == ["./c"]
