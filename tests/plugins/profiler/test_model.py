"""The profiler plugin's pure logic: steps, launch-time distribution, input shapes, the
service's cache and path rules, the timeline's bars and windows, the type chart, and the
operator page's rows; plus a 200,000-launch profile written in the documented format."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format.profiler import FrameworkTable, OpTypeStat
from dash_insight.core.format.profiler_writer import (
    SyntheticLaunches,
    SyntheticOp,
    synthetic_ops,
    write_cpu_profile,
)
from dash_insight.core.service import DataService
from dash_insight.plugins.profiler import figures, operator_page, page_shared, timeline_page
from dash_insight.plugins.profiler.query_profile import assign_steps, input_shapes, sorted_launches
from dash_insight.plugins.profiler.query_timeline import (
    MAX_BARS,
    ROWS_SCOPE,
    ROWS_TYPE,
    build_timeline,
    timeline_figure,
    window_view,
)
from dash_insight.plugins.profiler.service import LocateError, ProfilerService
from tests.conftest import loaded_service


@pytest.fixture(scope="module")
def data(profiler_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> DataService:
    service = loaded_service(profiler_corpus, tmp_path_factory.mktemp("ws"))
    yield service
    service.close()


@pytest.fixture(scope="module")
def service(data: DataService) -> ProfilerService:
    return ProfilerService.from_data(data)


def test_steps_of_the_corpus(service: ProfilerService) -> None:
    for train_id, steps in (("./lenet_prof", 20), ("./lenet_summary_prof", 16)):
        launches = page_shared.load(service, {"train_id": train_id}).profile.launches
        assert launches.steps == steps
        # every operator exactly once per step (AssignAdd closes the steps after the first)
        assert np.bincount(launches.step)[1:].tolist() == [43] * steps
        assert launches.start_us[0] == 0.0 and np.all(np.diff(launches.start_us) >= 0)


def test_steps_with_repeated_operators() -> None:
    # op 0 twice per step, op 1 (the marker) and op 2 once, 3 steps; op 2 runs before op 1
    # in step 1 only (the marker is not the first operator).
    op = np.array([2, 1, 0, 0, 1, 0, 2, 0, 1, 0, 2, 0])
    start = np.arange(len(op), dtype=float)
    step, starts = assign_steps(op, start)
    assert step.tolist() == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    assert starts.tolist() == [1.0, 4.0, 8.0]
    assert assign_steps(np.zeros(0, np.int64), np.zeros(0))[0].tolist() == []


def test_distribution_matches_numpy(service: ProfilerService) -> None:
    profile = page_shared.load(service, {"train_id": "./lenet_prof"}).profile
    launches, spread = profile.launches, profile.distribution
    for column, detail in enumerate(profile.details[:10]):
        times = launches.duration_us[np.array(launches.names)[launches.op] == detail.full_name]
        assert spread.minimum[column] == pytest.approx(times.min())
        assert spread.median[column] == pytest.approx(np.median(times))
        assert spread.p95[column] == pytest.approx(np.percentile(times, 95))
        assert spread.maximum[column] == pytest.approx(times.max())
        assert times.mean() == pytest.approx(detail.avg_ms * 1000, rel=1e-3)


def test_input_shapes(service: ProfilerService) -> None:
    loaded = page_shared.load(service, {"train_id": "./lenet_prof"})
    shapes, problems = service.inputs(loaded.found, loaded.device)
    assert problems == [] and len(shapes) == 43
    # the two Conv2D-op0 (conv1, conv2) get their own shapes: aligned by launch order
    assert shapes["Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0"] == (
        "input_1:[32, 1, 32, 32]; input_2:[6, 1, 5, 5]"
    )
    assert shapes["Default/network-WithLossCell/_backbone-LeNet5/conv2-Conv2d/Conv2D-op0"] == (
        "input_1:[32, 6, 14, 14]; input_2:[16, 6, 5, 5]"
    )
    # not aligned: only names that end one full name are matched; varying shapes are counted
    from dash_insight.core.format.profiler import LaunchTable

    table = LaunchTable(
        ("a/X-op0", "b/X-op0", "c/Y-op1"),
        np.array([0, 1, 2, 2]),
        np.array([1, 2, 3, 4]),
        np.ones(4),
    )
    launches = sorted_launches(table, "t")
    framework = FrameworkTable(
        ["X", "Y", "Y", "Y"],
        ["X-op0", "Y-op1", "Y-op1", "Y-op1"],
        ["1"] * 4,
        ["in:[1]", "in:[2]", "in:[2]", "in:[3]"],
    )
    assert input_shapes(framework, launches) == {"c/Y-op1": "in:[2] (+1 other shape)"}


def test_cache_follows_file_identity(tmp_path: Path) -> None:
    ops = synthetic_ops(8)
    write_cpu_profile(str(tmp_path / "base" / "job"), ops, 3)
    data = loaded_service(tmp_path / "base", tmp_path / "ws")
    service = ProfilerService.from_data(data)
    params = {"train_id": "./job"}
    first = page_shared.load(service, params).profile
    parses = service.parses
    assert page_shared.load(service, params).profile is first and service.parses == parses
    # rewritten with more steps: parsed again
    write_cpu_profile(str(tmp_path / "base" / "job"), ops, 5)
    stamp = time.time() + 5
    for name in os.listdir(tmp_path / "base" / "job" / "profiler"):
        os.utime(tmp_path / "base" / "job" / "profiler" / name, (stamp, stamp))
    again = page_shared.load(service, params).profile
    assert again is not first and again.launches.steps == 5
    data.close()


def test_locate_rules(service: ProfilerService, profiler_corpus: Path) -> None:
    found = service.locate("./lenet_prof", "./profiler")
    assert found.path == os.path.join(os.path.realpath(profiler_corpus), "lenet_prof", "profiler")
    assert service.locate("lenet_prof", "profiler/").path == found.path
    for train_id, profile in (
        ("./lenet_prof", "../lenet_summary_prof/profiler"),
        ("./../x", "profiler"),
        ("./lenet_prof", "/etc"),
    ):
        with pytest.raises(LocateError) as caught:
            service.locate(train_id, profile)
        assert caught.value.kind == "invalid"
    with pytest.raises(LocateError) as caught:
        service.locate("./nope", "profiler")
    assert caught.value.kind == "no_job"
    with pytest.raises(page_shared.ProfileUnavailable, match="no training job"):
        page_shared.load(service, {"train_id": "./nope"})
    with pytest.raises(page_shared.ProfileUnavailable, match="No device '7'"):
        page_shared.load(service, {"train_id": "./lenet_prof", "device": "7"})


def test_timeline_bars(service: ProfilerService) -> None:
    profile = page_shared.load(service, {"train_id": "./lenet_prof"}).profile
    launches = profile.launches
    type_of = {d.full_name: d.op_type for d in profile.details}
    scope = build_timeline(launches, type_of, ROWS_SCOPE)
    assert scope.rows == (
        "Scope 0",
        "Scope 1",
        "Scope 2",
        "Scope 3",
        "Scope 4",
        "Scope 5",
        "Operators",
    )
    ops = scope.row == len(scope.rows) - 1
    assert ops.sum() == len(launches)
    top = [scope.items[i] for i in scope.item[scope.row == 0]]
    assert set(top) == {"Default", "Gradients"}
    # consecutive launches of one scope are one bar, spanning them
    assert (scope.row == 0).sum() < 100 and scope.count[scope.row == 0].sum() == len(launches)
    by_type = build_timeline(launches, type_of, ROWS_TYPE)
    assert len(by_type.rows) == 13 and by_type.rows[0] == "MaxPoolGrad"  # most total time
    whole = timeline_page.step_window(launches, None)
    view = window_view(by_type, *whole, max_bars=200)
    assert view.merged and view.count.sum() == len(launches)
    step = timeline_page.step_window(launches, 3)
    narrow = window_view(by_type, *step)
    assert not narrow.merged and len(narrow) == 43  # one step: every launch on its own
    figure = timeline_figure(by_type, narrow, launches, launches.step_starts_us)
    hover = figure["data"][-1]["hovertext"]
    assert len(hover) == 43 and "step 3" in hover[0] and " us · " in hover[0]
    assert figure["layout"]["xaxis"]["range"] == [step[0] / 1000, step[1] / 1000]


def test_relayout_windows() -> None:
    assert timeline_page.relayout_window({"autosize": True}) is None
    assert timeline_page.relayout_window({"xaxis.autorange": True}) == "reset"
    assert timeline_page.relayout_window({"xaxis.range[0]": 2, "xaxis.range[1]": 1}) == (
        1000.0,
        2000.0,
    )
    assert timeline_page.relayout_window({"xaxis.range": [0.5, 1.5]}) == (500.0, 1500.0)
    assert timeline_page.relayout_window({"xaxis.range": ["a", 1]}) is None


def test_chart_slices() -> None:
    stats = [
        OpTypeStat(f"T{i:02d}", 10 * (i + 1), 1, float(i + 1), (i + 1) / (10 * (i + 1)), 0.0)
        for i in range(26)
    ]
    items = figures.slices(stats, figures.MEASURE_TOTAL)
    assert len(items) == 20 and items[-1].label == "Other" and items[-1].types == 7
    assert items[0].label == "T25" and items[-1].value == pytest.approx(sum(range(1, 8)) * 1000)
    assert sum(item.share for item in items) == pytest.approx(1.0)
    average = figures.slices(stats, figures.MEASURE_AVERAGE)
    other = average[-1]  # the rest's total time over its launches, not a sum of averages
    assert other.value == pytest.approx(sum(range(1, 8)) * 1000 / sum(10 * i for i in range(1, 8)))
    assert len(figures.slices(stats[:20], figures.MEASURE_TOTAL)) == 20  # 20 types: no Other
    with pytest.raises(ValueError):
        figures.slices(stats, "median")


def test_operator_page_rows(service: ProfilerService) -> None:
    loaded = page_shared.load(service, {"train_id": "./lenet_prof"})
    inputs, _ = service.inputs(loaded.found, loaded.device)
    rows = operator_page.op_rows(loaded.profile, inputs)
    first = next(r for r in rows if r[2] == "Conv2DBackpropInput-op0")
    assert first[7] == 18.275  # percent (0.182752 in the file), not MindInsight's fraction
    assert first[9] and first[10] <= first[11] <= first[12] <= first[13]
    state = operator_page.parse_state({"q": "grad", "sort": "op_name", "order": "asc"})
    found = operator_page.all_table_rows(rows, state)
    assert len(found) == 9 and [r[2] for r in found] == sorted(r[2] for r in found)
    conv, size = operator_page.drill_down_rows(rows, "Conv2D", 0)
    assert size == 2 and {r[1] for r in conv} == {"Conv2D"}
    text = operator_page.csv_text(operator_page.OP_COLUMNS, found)
    assert text.splitlines()[0].startswith("op_side,op_type,op_name,full_op_name,")
    assert len(text.splitlines()) == 10


def test_operator_state_round_trip() -> None:
    state = operator_page.OperatorState(
        chart="bar",
        measure="avg",
        view="all",
        type_search="conv",
        type_sort="avg_time",
        type_descending=False,
        open=("Conv2D", "MatMul"),
        search="grad",
        sort="max",
        descending=False,
        page=3,
        size=50,
    )
    params = {k: str(v) for k, v in operator_page.state_params(state).items() if v}
    assert operator_page.parse_state(params) == state
    assert operator_page.state_params(operator_page.OperatorState()) == dict.fromkeys(
        operator_page.state_params(state)
    )
    bad = operator_page.parse_state({"chart": "x", "size": "7", "sort": "nope", "page": "-2"})
    assert bad == operator_page.OperatorState()


def test_two_hundred_thousand_launches(tmp_path: Path) -> None:
    """A profile of 200,000 launches written in the documented format: parsed, the operator
    page's rows and the timeline built, every view bounded; a zoom shows single launches."""
    ops = synthetic_ops(1000)
    rng = np.random.default_rng(1)
    starts = 1_795_399_200_000_000_000 + np.arange(200 * 1000, dtype=np.int64) * 20_000
    launches = SyntheticLaunches(
        starts.reshape(200, 1000).T, np.round(rng.uniform(1, 15, (1000, 200)), 3)
    )
    write_cpu_profile(str(tmp_path / "base" / "big"), ops, 200, launches=launches)
    data = loaded_service(tmp_path / "base", tmp_path / "ws")
    service = ProfilerService.from_data(data)
    params = {"train_id": "./big"}
    loaded = page_shared.load(service, params)
    profile = loaded.profile
    assert len(profile.launches) == 200_000 and profile.launches.steps == 200
    assert len(profile.details) == 1000 and profile.problems == ()
    state = operator_page.parse_state({"view": "all"})
    inputs, _ = service.inputs(loaded.found, loaded.device)
    assert len(operator_page.all_table_rows(operator_page.op_rows(profile, inputs), state)) == 1000
    bars, launched, _ = timeline_page._timeline(service, params, ROWS_SCOPE)
    whole = window_view(bars, *timeline_page.step_window(launched, None))
    assert len(whole) <= MAX_BARS + 2 * len(bars.rows) and whole.merged
    operators = len(bars.rows) - 1
    assert whole.count[whole.row == operators].sum() == 200_000
    zoom = window_view(bars, 1_000.0, 1_100.0)  # 100 us: five launches every 20 us
    assert not zoom.merged and (zoom.row == operators).sum() == 5
    data.close()


def test_type_view_reads_no_launch_file(tmp_path: Path) -> None:
    """The operator page opens on the type view from the operator tables alone (the launch
    file is most of a large profile's parse); a type opened, the all-operators view and the
    CSV of the type table need the launches only when they show them."""
    import dash

    write_cpu_profile(str(tmp_path / "base" / "job"), synthetic_ops(30), 4)
    data = loaded_service(tmp_path / "base", tmp_path / "ws")
    service = ProfilerService.from_data(data)
    built: list[str] = []
    build_profile = service._build_profile

    def counted(found: object, device: str) -> object:
        built.append(device)
        return build_profile(found, device)  # type: ignore[arg-type]

    service._build_profile = counted  # type: ignore[method-assign]
    app = dash.Dash(__name__)
    page = str(operator_page.layout(app, service, {"train_id": "./job"}))
    assert "prof-type-table-body" in page and "'type': 'pie'" in page and built == []
    bar, _title, legend = operator_page.chart_view(service, "?train_id=./job&chart=bar&measure=avg")
    assert bar["data"][0]["type"] == "bar" and legend is None and built == []
    opened = str(operator_page.table_view(app, service, "?train_id=./job&open=MatMul", {})[0])
    assert "prof-drill" in opened and "MatMul: " in opened and built == ["0"]
    all_view = operator_page.table_view(app, service, "?train_id=./job&view=all", {})
    assert all_view[1] == "Total 30" and built == ["0"]  # parsed once, then cached
    data.close()


def test_drawn_keys() -> None:
    """The redraw callbacks compare the URL with what is drawn by these keys: one spelling per
    view state; the chart's key changes only with what the chart shows."""
    keys = operator_page.drawn_keys
    plain = keys("?train_id=./job")
    assert keys("?train_id=.%2Fjob&chart=pie&view=type&page=1&size=10") == plain
    bar = keys("?train_id=./job&chart=bar")
    assert bar[0] != plain[0] and bar[1] != plain[1]
    searched = keys("?train_id=./job&tq=conv&sort=op_name")
    assert searched[0] == plain[0] and searched[1] != plain[1]
    assert keys("?train_id=./job&device=1")[0] != plain[0]
    assert keys("?train_id=./job&nonsense=1") == plain


def test_synthetic_op_names_are_unique() -> None:
    ops = synthetic_ops(3000)
    assert len({op.full_name for op in ops}) == 3000
    assert isinstance(ops[0], SyntheticOp) and ops[0].op_type == "AssignAdd"


def test_several_devices_and_a_damaged_profile(tmp_path: Path) -> None:
    """Two devices: the first by default, a selector; a truncated CSV and a cut launch file
    still give every card, with the problems listed."""
    import dash

    from dash_insight.plugins.profiler import dashboard_page

    job = tmp_path / "base" / "job"
    ops = synthetic_ops(12)
    write_cpu_profile(str(job), ops, 4, device="0")
    write_cpu_profile(str(job), ops, 6, device="1", seed=2)
    data = loaded_service(tmp_path / "base", tmp_path / "ws")
    service = ProfilerService.from_data(data)
    found, device = page_shared.locate(service, {"train_id": "./job"})
    assert found.devices == ("0", "1") and device == "0"
    selector = page_shared.device_selector(found, device)
    assert "prof-device" in str(selector) and "'1'" in str(selector)
    assert (
        page_shared.load(service, {"train_id": "./job", "device": "1"}).profile.launches.steps == 6
    )
    folder = job / "profiler"
    types = folder / "cpu_op_type_info_0.csv"
    types.write_text(types.read_text()[:-9])
    stamps = folder / "cpu_op_execute_timestamp_0.txt"
    stamps.write_text(stamps.read_text()[:-30])
    loaded = page_shared.load(service, {"train_id": "./job"})
    assert {p.file for p in loaded.profile.problems} == {types.name, stamps.name}
    app = dash.Dash(__name__)
    built = dashboard_page.build_cards(app, service, {"train_id": "./job"})
    text = str(built)
    assert "problems reading the profiler files" in text
    for card in (
        "prof-card-ranking",
        "prof-card-steps",
        "prof-card-timeline",
        "prof-card-operators",
        "prof-card-profile",
    ):
        assert card in text
    # The type table CSV: its six columns with units, one line per readable type.
    csv = operator_page.csv_text(
        operator_page.TYPE_COLUMNS,
        operator_page.type_table_rows(loaded.profile, operator_page.OperatorState()),
    )
    assert csv.splitlines()[0] == (
        "op_type,type_occurrences (times),execution_frequency (times),"
        "total_compute_time (us),avg_time (us/time),"
        "total_time_proportion (%)"
    )
    assert len(csv.splitlines()) == 1 + len(loaded.profile.types)
    data.close()


def test_mindspore_layout_launches_from_the_trace(profiler_corpus: Path, tmp_path: Path) -> None:
    """MindSpore's own layout: the CPU files in FRAMEWORK/; without the timestamp file the
    launches come from ASCEND_PROFILER_OUTPUT/trace_view.json (same steps, same launches)."""
    import shutil

    native = next((profiler_corpus / "lenet_prof").glob("*_ascend_ms"))
    job = tmp_path / "base" / "job"
    shutil.copytree(native, job / native.name)
    (job / native.name / "FRAMEWORK" / "cpu_op_execute_timestamp_0.txt").unlink()
    data = loaded_service(tmp_path / "base", tmp_path / "ws")
    service = ProfilerService.from_data(data)
    assert data.provider.job("./job").profiler_dir == f"./{native.name}"
    profile = page_shared.load(service, {"train_id": "./job"}).profile
    assert profile.launches.source == "trace_view.json" and len(profile.launches) == 860
    assert profile.launches.steps == 20 and len(profile.types) == 13
    assert np.bincount(profile.launches.step)[1:].tolist() == [43] * 20
    data.close()
