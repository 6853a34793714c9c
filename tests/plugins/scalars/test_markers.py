"""Epoch boundaries and restarts on the scalar charts (issue 40 item 7)."""

from __future__ import annotations

from pathlib import Path

from dash_insight.core.i18n import use_locale
from dash_insight.core.markers import Restart, epoch_boundaries, restarts, steps_per_epoch
from dash_insight.plugins.scalars import page as scalars
from dash_insight.plugins.scalars.page_charts import (
    ChartSpec,
    SeriesSpec,
    chart_plan,
    smoother_to_url,
)
from dash_insight.plugins.scalars.query_marks import group_markers, series_markers
from dash_insight.web.url_state import parse_search
from tests.browser import until
from tests.conftest import console_errors, loaded_app, loaded_service
from tests.pages import run_js


def test_restarts_are_files_resuming_before_the_previous_one_ended() -> None:
    assert restarts([]) == restarts([(1, 10)]) == []
    assert restarts([(1, 10), (11, 20)]) == []  # continues
    assert restarts([(1, 10), (10, 20)]) == []  # the same step again is not earlier
    assert restarts([(1, 10), (5, 20)]) == [Restart(5, 10)]
    assert restarts([(1, 10), (5, 20), (15, 30)]) == [Restart(5, 10), Restart(15, 20)]
    # From scratch, then on from there: one restart, the next file continues the second one.
    assert restarts([(1, 100), (1, 50), (51, 200)]) == [Restart(1, 100)]


def test_steps_per_epoch_from_the_lineage_row() -> None:
    row = {"train_dataset_count": 512, "batch_size": 32, "device_num": 1}
    assert steps_per_epoch(row) == 16
    assert steps_per_epoch({**row, "device_num": 2}) == 8
    assert steps_per_epoch({**row, "device_num": None}) == 16  # one device when not recorded
    assert steps_per_epoch({**row, "train_dataset_count": 500}) == 16  # a last, short batch
    for bad in (
        {},
        None,
        {**row, "batch_size": 0},
        {**row, "batch_size": True},
        {**row, "train_dataset_count": "512"},
        {**row, "batch_size": float("nan")},
    ):
        assert steps_per_epoch(bad) is None


def test_epoch_boundaries_inside_the_steps_and_bounded() -> None:
    assert epoch_boundaries(16, 1, 48) == [(16, 1), (32, 2)]  # 48 ends the training
    assert epoch_boundaries(16, 1, 49) == [(16, 1), (32, 2), (48, 3)]
    assert epoch_boundaries(16, 17, 40) == [(32, 2)]
    assert epoch_boundaries(16, 1, 10) == epoch_boundaries(0, 1, 100) == []
    many = epoch_boundaries(1, 0, 10_001, most=100)
    assert len(many) == 100 and many[0] == (100, 100) and many[-1] == (10_000, 10_000)


def test_markers_of_a_corpus_job_with_lineage(corpus_provider) -> None:
    # lenet_sc: 512 samples in batches of 32 on one device, 3 epochs, steps 1..48.
    markers = series_markers(corpus_provider, "./lenet_sc", "loss/auto")
    assert [(m["kind"], m["step"]) for m in markers] == [("epoch", 16), ("epoch", 32)]
    assert markers[0]["label"] == "end of epoch 1 (step 16)"
    with use_locale("zh_CN"):
        label = series_markers(corpus_provider, "./lenet_sc", "loss/auto")[0]["label"]
    assert label == "第 1 轮结束（步骤 16）"
    assert series_markers(corpus_provider, "./no such job", "loss") == []


def _write_restarted_job(base: Path) -> None:
    """Steps 1..30 in a first file, then a second file resuming at step 21 up to 40."""
    from dash_insight import SummaryWriter

    for timestamp, steps in ((1_700_000_000, range(1, 31)), (1_700_000_100, range(21, 41))):
        with SummaryWriter(base / "resumed", host="test", timestamp=timestamp) as writer:
            for step in steps:
                writer.add_value("scalar", "loss", 1.0 / step)
                writer.record(step)


def test_restart_of_a_written_job(tmp_path: Path) -> None:
    _write_restarted_job(tmp_path / "logs")
    service = loaded_service(tmp_path / "logs", tmp_path / "ws")
    try:
        assert service.provider.scalar_file_ranges("./resumed", "loss") == [(1, 30), (21, 40)]
        markers = series_markers(service.provider, "./resumed", "loss")
        assert markers == [
            {
                "step": 21,
                "kind": "restart",
                "label": "restart: resumed at step 21 after step 30",
            }
        ]
        # Steps per epoch given by the user: epochs every 10 steps, after the restart.
        epochs = series_markers(service.provider, "./resumed", "loss", 10)
        assert [(m["kind"], m["step"]) for m in epochs] == [
            ("restart", 21),
            ("epoch", 10),
            ("epoch", 20),
            ("epoch", 30),
        ]
    finally:
        service.close()


def test_steps_per_epoch_given_by_the_user_are_kept_in_the_url() -> None:
    search = "?train_id=./a&smoothing=0.5"
    new = smoother_to_url(["ema"], [9], [[]], search, [250])
    assert parse_search(new) == {"train_id": "./a", "smoothing": "0.5", "epoch_steps": "250"}
    cleared = smoother_to_url(["ema"], [9], [[]], new, [None])
    assert parse_search(cleared) == {"train_id": "./a", "smoothing": "0.5"}
    assert scalars.page_state(parse_search(new), []).epoch_steps == 250
    assert scalars.page_state({"epoch_steps": "-3"}, []).epoch_steps == 0


def test_the_first_paint_draws_the_markers_too(tmp_path: Path) -> None:
    """The chart drawn on the server before the browser's (plugins/scalars/figures_preview.py)
    has the restart line the browser draws, on the step axis only."""
    _write_restarted_job(tmp_path / "logs")
    service = loaded_service(tmp_path / "logs", tmp_path / "ws")
    try:
        for axis, drawn in (("step", True), ("relative", False)):
            state = scalars.page_state({"train_id": "./resumed", "axis": axis}, ["loss"])
            charts, _pages = scalars.chart_specs("./resumed", state)
            plan = chart_plan(service.provider, charts)["charts"][0]
            assert plan["series"][0]["markers"][0]["step"] == 21
            preview = scalars.chart_preview(service.provider, plan, state)
            assert preview is not None
            markup = preview.markup
            assert ("restart: resumed at step 21 after step 30</title>" in markup) is drawn
            assert ('class="di-marker"' in markup) is drawn
    finally:
        service.close()


#: The marker traces of the first chart drawn: {kind: {"steps", "texts", "axis"}}.
MARKERS = """
const plot = document.querySelector('.di-chart-card .js-plotly-plot');
if (!plot || !plot.data) return null;
const out = {};
plot.data.filter(t => (t.meta || {}).role === 'marker').forEach(t => {
  out[t.meta.kind] = {steps: t.meta.steps, texts: Array.from(new Set(t.text.filter(Boolean))),
                      axis: plot.layout.yaxis99 && plot.layout.yaxis99.range};
});
return out;
"""


def test_a_restart_is_marked_on_the_chart(dash_duo, tmp_path: Path) -> None:
    _write_restarted_job(tmp_path / "logs")
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.driver.add_cookie({"name": "di_language", "value": "zh_CN"})
        dash_duo.wait_for_page(f"{dash_duo.server_url}/scalars?train_id=./resumed")
        drawn = until(lambda: run_js(dash_duo, MARKERS), msg="no chart drawn with markers")
        label = "重新开始：在步骤 30 之后从步骤 21 继续"
        assert drawn == {"restart": {"steps": [21], "texts": [label], "axis": [0, 1]}}
        # Steps per epoch given in the page: epoch boundaries every 10 steps.
        field = dash_duo.find_element('input[id*="chart-epoch-steps"]')
        dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", field)
        field.send_keys("10\n")
        until(lambda: "epoch_steps=10" in dash_duo.driver.current_url)
        until(
            lambda: (run_js(dash_duo, MARKERS) or {}).get("epoch", {}).get("steps") == [10, 20, 30]
        )
        # The comparison marks it too.
        dash_duo.wait_for_page(f"{dash_duo.server_url}/compare")
        until(lambda: (run_js(dash_duo, MARKERS) or {}).get("restart", {}).get("steps") == [21])
        # Not on a time axis (markers are steps).
        dash_duo.wait_for_page(f"{dash_duo.server_url}/scalars?train_id=./resumed&axis=relative")
        until(lambda: run_js(dash_duo, MARKERS) == {})
        assert console_errors(dash_duo) == []


def test_a_group_line_carries_its_runs_markers(corpus_provider, tmp_path: Path) -> None:
    """A grouped chart marks its runs' epoch boundaries (an epoch they share once) and
    restarts (named by their run), as their own lines would."""
    lenet = ["./lenet_sc", "./lenet_lr0.01_bs32"]
    markers = group_markers(corpus_provider, lenet, "loss/auto")
    own = [series_markers(corpus_provider, job, "loss/auto") for job in lenet]
    assert own[0] and markers == list({(m["kind"], m["step"]): m for m in own[0] + own[1]}.values())
    spec = SeriesSpec(lenet[0], "loss/auto", "group", members=tuple(lenet))
    [plan] = chart_plan(corpus_provider, [ChartSpec("c", "loss/auto", (spec,))])["charts"]
    assert plan["series"][0]["markers"] == markers
    _write_restarted_job(tmp_path / "logs")
    service = loaded_service(tmp_path / "logs", tmp_path / "ws")
    try:
        [restart] = group_markers(service.provider, ["./resumed", "./none"], "loss")
        assert restart["label"] == "./resumed: restart: resumed at step 21 after step 30"
    finally:
        service.close()
