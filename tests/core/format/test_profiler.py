"""Profiler files (``dash_insight.core.format.profiler``): every file of the real MindSpore 2.10
corpus parsed, both layouts recognised, malformed and truncated files keep their readable rows,
and the synthetic writer produces what the parsers read back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format import profiler as prof
from dash_insight.core.format.profiler_writer import (
    synthetic_launches,
    synthetic_ops,
    write_cpu_profile,
)

JOBS = ("lenet_prof", "lenet_summary_prof")


def _native(job: Path) -> Path:
    return next(job.glob("*_ascend_ms"))


@pytest.mark.parametrize("job", JOBS)
def test_corpus_files_parse_completely(profiler_corpus: Path, job: str) -> None:
    folder = profiler_corpus / job / "profiler"
    types = prof.parse_op_type_csv((folder / "cpu_op_type_info_0.csv").read_text())
    details = prof.parse_op_detail_csv((folder / "cpu_op_detail_info_0.csv").read_text())
    assert types.problems == [] and details.problems == []
    assert len(types.rows) == 13 and len(details.rows) == 43
    bias = next(r for r in types.rows if r.op_type == "BiasAdd")
    assert (bias.occurrences, bias.frequency) == (60, 3) if job == "lenet_prof" else True
    # The type table is the detail table aggregated (spec §2).
    for row in types.rows:
        mine = [d for d in details.rows if d.op_type == row.op_type]
        assert sum(d.occurrences for d in mine) == row.occurrences
        assert sum(d.total_ms for d in mine) == pytest.approx(row.total_ms, rel=1e-4)
        assert row.avg_ms == pytest.approx(row.total_ms / row.occurrences, rel=1e-4)
    assert sum(r.fraction for r in types.rows) == pytest.approx(1.0, rel=1e-4)
    assert {d.pid for d in details.rows} != {""} and {d.side for d in details.rows} == {"Host"}

    steps = 20 if job == "lenet_prof" else 16
    framework, problems = prof.parse_framework((folder / "cpu_framework_0.txt").read_text())
    assert problems == [] and len(framework) == 43 * steps
    assert framework.op_types[0] == "AssignAdd" and framework.op_names[1] == "Conv2D-op0"
    assert framework.inputs[0] == "input_1:[1]; input_2:[1]; input_3:NoShape"
    assert framework.inputs[1] == "input_1:[32, 1, 32, 32]; input_2:[6, 1, 5, 5]"

    table, problems = prof.parse_timestamps((folder / "cpu_op_execute_timestamp_0.txt").read_text())
    assert problems == [] and len(table.names) == 43 and len(table) == 43 * steps
    assert set(table.names) == {d.full_name for d in details.rows}
    # Launch durations add up to the detail table's totals (ms -> us).
    totals = np.bincount(table.op, weights=table.duration_us) / 1000.0
    by_name = {d.full_name: d.total_ms for d in details.rows}
    for name, total in zip(table.names, totals, strict=True):
        assert total == pytest.approx(by_name[name], rel=1e-3)

    info, problems = prof.parse_profiler_info((folder / "profiler_info_0.json").read_text())
    assert problems == [] and info["ms_version"] == "2.10.0" and info["context_mode"] == "graph"


@pytest.mark.parametrize("job", JOBS)
def test_trace_view_equals_timestamp_file(profiler_corpus: Path, job: str) -> None:
    native = _native(profiler_corpus / job)
    trace, problems = prof.parse_trace_view(
        (native / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_text()
    )
    stamps, _ = prof.parse_timestamps(
        (native / "FRAMEWORK" / "cpu_op_execute_timestamp_0.txt").read_text()
    )
    assert problems == [] and len(trace) == len(stamps)
    # Same launches: names, start (MindSpore rounds the trace's us, so within 1 us), duration.
    ours = sorted(
        zip(
            [trace.names[i] for i in trace.op],
            trace.start_ns.tolist(),
            trace.duration_us.tolist(),
            strict=True,
        )
    )
    theirs = sorted(
        zip(
            [stamps.names[i] for i in stamps.op],
            stamps.start_ns.tolist(),
            stamps.duration_us.tolist(),
            strict=True,
        )
    )
    assert [n for n, *_ in ours] == [n for n, *_ in theirs]
    assert np.abs(np.array([s for _, s, _ in ours]) - [s for _, s, _ in theirs]).max() <= 1000
    assert [d for *_, d in ours] == pytest.approx([d for *_, d in theirs], abs=1e-3)


def test_both_layouts_recognised(profiler_corpus: Path) -> None:
    job = profiler_corpus / "lenet_prof"
    found = prof.profiler_dirs(str(job))
    assert [f.layout for f in found] == [prof.LAYOUT_MINDINSIGHT, prof.LAYOUT_MINDSPORE]
    classic, native = found
    assert classic.devices == ("0",) and classic.data_dir == str(job / "profiler")
    assert classic.trace_view is None and classic.profiler_type == "cpu"
    assert native.data_dir == str(_native(job) / "FRAMEWORK")
    assert native.trace_view == str(_native(job) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")
    assert native.devices == ("0",) and native.profiler_type == "cpu"
    assert set(native.files["0"]) == {
        prof.OP_TYPE_PREFIX,
        prof.OP_DETAIL_PREFIX,
        prof.FRAMEWORK_PREFIX,
        prof.TIMESTAMP_PREFIX,
    }
    assert prof.primary_profiler_dir(found) is classic
    assert prof.primary_profiler_dir([native]) is native
    assert prof.primary_profiler_dir([]) is None


def test_directory_rules(tmp_path: Path) -> None:
    ops = synthetic_ops(6)
    # profiler* without profiler_info: not MindInsight's profiler directory.
    write_cpu_profile(str(tmp_path), ops, 2, name="profiler_raw")
    os.remove(tmp_path / "profiler_raw" / "profiler_info_0.json")
    assert prof.profiler_dirs(str(tmp_path)) == []
    # ... but readable when asked for directly (REST ``profile=profiler_raw``).
    assert prof.read_profiler_dir(str(tmp_path / "profiler_raw")).devices == ("0",)
    # *_ascend_ms with an empty FRAMEWORK and no trace: nothing.
    (tmp_path / "h_1_20260101000000000_ascend_ms" / "FRAMEWORK").mkdir(parents=True)
    assert prof.profiler_dirs(str(tmp_path)) == []
    # Two devices, a dynamic-shape file, several MindInsight directories: the greatest name.
    write_cpu_profile(str(tmp_path), ops, 2, name="profiler", device="1")
    write_cpu_profile(str(tmp_path), ops, 2, name="profiler", device="0")
    write_cpu_profile(str(tmp_path), ops, 2, name="profiler_b")
    (tmp_path / "profiler_b" / "dynamic_shape_info_0.json").write_text("{}")
    found = prof.profiler_dirs(str(tmp_path))
    assert [os.path.basename(f.path) for f in found] == ["profiler", "profiler_b"]
    assert found[0].devices == ("0", "1") and not found[0].dynamic_shape
    assert prof.primary_profiler_dir(found).dynamic_shape


def test_symbolic_links_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_cpu_profile(str(outside), synthetic_ops(4), 2)
    job = tmp_path / "job"
    job.mkdir()
    (job / "profiler").symlink_to(outside / "profiler", target_is_directory=True)
    assert prof.profiler_dirs(str(job)) == []
    # A linked file inside a real profiler directory is not a file of it.
    real = job / "profiler_real"
    real.mkdir()
    (real / "profiler_info_0.json").write_text("{}")
    (real / "cpu_op_type_info_0.csv").symlink_to(outside / "profiler" / "cpu_op_type_info_0.csv")
    found = prof.read_profiler_dir(str(real))
    assert prof.OP_TYPE_PREFIX not in found.files["0"]
    with pytest.raises(OSError):
        prof.read_text(str(real / "cpu_op_type_info_0.csv"))
    # A linked FRAMEWORK directory of a MindSpore output is ignored too.
    native = job / "h_1_20260101000000000_ascend_ms"
    native.mkdir()
    (native / "FRAMEWORK").symlink_to(outside / "profiler", target_is_directory=True)
    assert prof.read_profiler_dir(str(native)).files == {}


def test_malformed_and_truncated_csv_keep_readable_rows(profiler_corpus: Path) -> None:
    text = (profiler_corpus / "lenet_prof" / "profiler" / "cpu_op_type_info_0.csv").read_text()
    lines = text.splitlines()
    broken = "\n".join([*lines[:3], "Conv9,x,2,1.0,0.5,0.1", *lines[3:], lines[5][:12]])
    parsed = prof.parse_op_type_csv(broken, "cpu_op_type_info_0.csv")
    assert len(parsed.rows) == 13
    assert [str(p) for p in parsed.problems] == [
        "cpu_op_type_info_0.csv line 4: not a number: invalid literal for int() with base 10: 'x'",
        "cpu_op_type_info_0.csv line 16: 4 of 6 columns (truncated file?)",
    ]
    detail = (profiler_corpus / "lenet_prof" / "profiler" / "cpu_op_detail_info_0.csv").read_text()
    cut = detail[: len(detail) // 2]
    parsed = prof.parse_op_detail_csv(cut, "d.csv")
    assert 0 < len(parsed.rows) < 43
    assert len(parsed.problems) <= 1
    assert all("truncated" in p.reason for p in parsed.problems)
    assert prof.parse_op_type_csv("").problems[0].reason == "empty file"
    headerless = prof.parse_op_type_csv("BiasAdd,60,3,1.9,0.03,0.001\nReLU,80,4,23.6,0.29,0.01\n")
    assert len(headerless.rows) == 1 and "unexpected header" in headerless.problems[0].reason


def test_malformed_text_files(profiler_corpus: Path) -> None:
    stamps = (
        profiler_corpus / "lenet_prof" / "profiler" / "cpu_op_execute_timestamp_0.txt"
    ).read_text()
    cut = stamps[: len(stamps) // 3]  # ends inside a launch of some operator
    table, problems = prof.parse_timestamps(cut, "t.txt")
    assert len(table.names) >= 1 and len(table) > 0
    assert problems and problems[-1].line == len(cut.splitlines())
    table, problems = prof.parse_timestamps("garbage line\nA/B-op0;HostCpuOps;5,0.1,0 x,y,0\n")
    assert table.names == ("A/B-op0",) and table.start_ns.tolist() == [5]
    assert table.duration_us.tolist() == [100.0]
    assert [p.line for p in problems] == [1, 2]
    framework, problems = prof.parse_framework("Conv2D;Conv2D-op0;1;input_1:[1];\nbroken\n")
    assert framework.op_names == ["Conv2D-op0"] and framework.inputs == ["input_1:[1]"]
    assert problems[0].line == 2
    info, problems = prof.parse_profiler_info("[1]")
    assert info == {} and problems[0].reason == "expected a JSON object"
    info, problems = prof.parse_profiler_info("{")
    assert info == {} and "invalid JSON" in problems[0].reason


def test_truncated_trace_view_keeps_complete_events(profiler_corpus: Path) -> None:
    path = _native(profiler_corpus / "lenet_prof") / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    text = path.read_text()
    full, _ = prof.parse_trace_view(text)
    cut, problems = prof.parse_trace_view(text[: len(text) // 2])
    assert 0 < len(cut) < len(full)
    assert "invalid JSON" in problems[0].reason and "complete event" in problems[0].reason
    none, problems = prof.parse_trace_view('{"traceEvents": 3}')
    assert len(none) == 0 and problems


def test_trace_times_are_exact() -> None:
    assert prof._microseconds_to_ns("1795399200513580.265") == 1795399200513580265
    assert prof._microseconds_to_ns("27.5") == 27500
    assert prof._microseconds_to_ns(12) == 12000
    with pytest.raises(ValueError):
        prof._microseconds_to_ns(None)


@pytest.mark.parametrize("layout", [prof.LAYOUT_MINDINSIGHT, prof.LAYOUT_MINDSPORE])
def test_writer_round_trip(tmp_path: Path, layout: str) -> None:
    ops = synthetic_ops(30)
    launches = synthetic_launches(ops, 5, seed=3)
    root = write_cpu_profile(str(tmp_path), ops, 5, layout=layout, launches=launches)
    found = prof.read_profiler_dir(root)
    assert found.layout == layout and found.devices == ("0",)
    types = prof.parse_op_type_csv(prof.read_text(found.file("0", prof.OP_TYPE_PREFIX)))
    details = prof.parse_op_detail_csv(prof.read_text(found.file("0", prof.OP_DETAIL_PREFIX)))
    assert types.problems == details.problems == []
    assert len(details.rows) == 30 and sum(t.occurrences for t in types.rows) == 150
    table, problems = prof.parse_timestamps(prof.read_text(found.file("0", prof.TIMESTAMP_PREFIX)))
    assert problems == [] and len(table) == 150
    assert sorted(table.start_ns.tolist()) == sorted(launches.start_ns.reshape(-1).tolist())
    if layout == prof.LAYOUT_MINDSPORE:
        trace, problems = prof.parse_trace_view(prof.read_text(found.trace_view))
        assert problems == [] and sorted(trace.start_ns.tolist()) == sorted(table.start_ns.tolist())
    else:
        info = json.loads(Path(found.file("0", prof.INFO_PREFIX)).read_text())
        assert info["context_mode"] == "graph"
