"""Profiler data in job discovery: both layouts, profiler-only jobs, and the job's
``profiler_dir`` / ``profiler_type`` carried through the index to ``JobSummary``."""

from __future__ import annotations

import os
from pathlib import Path

from dash_insight import SummaryWriter
from dash_insight.core.format.profiler_writer import synthetic_ops, write_cpu_profile
from dash_insight.core.store.discovery import discover_jobs
from tests.conftest import loaded_service


def test_corpus_profiled_jobs(profiler_corpus: Path) -> None:
    jobs = {job.train_id: job for job in discover_jobs(str(profiler_corpus))}
    assert set(jobs) == {"./lenet_prof", "./lenet_summary_prof"}
    only = jobs["./lenet_prof"]
    assert only.files == () and len(only.profilers) == 2  # MindInsight's copy + MindSpore's
    assert (only.profiler_dir, only.profiler_type, only.profiler_graph_mode) == (
        "./profiler",
        "cpu",
        "static",
    )
    assert only.update_time == max(p.update_time for p in only.profilers)
    both = jobs["./lenet_summary_prof"]
    assert len(both.files) == 2 and both.profiler_dir == "./profiler"


def test_layouts_and_profiler_only_jobs(tmp_path: Path) -> None:
    ops = synthetic_ops(5)
    write_cpu_profile(
        str(tmp_path / "native"),
        ops,
        2,
        layout="mindspore",
        name="host_9_20260101000000000_ascend_ms",
    )
    write_cpu_profile(
        str(tmp_path / "native"),
        ops,
        2,
        layout="mindspore",
        name="host_3_20260102000000000_ascend_ms",
    )  # newer stamp, smaller pid
    write_cpu_profile(str(tmp_path / "classic"), ops, 2)
    (tmp_path / "raw" / "profiler_raw").mkdir(parents=True)  # no profiler_info: not profiler
    (tmp_path / "raw" / "profiler_raw" / "cpu_op_type_info_0.csv").write_text("op_type\n")
    deep = tmp_path / "a" / "b"
    write_cpu_profile(str(deep), ops, 2)
    jobs = {job.train_id: job for job in discover_jobs(str(tmp_path))}
    assert set(jobs) == {"./native", "./classic", "./a/b"}
    assert jobs["./native"].profiler_dir == "./host_3_20260102000000000_ascend_ms"
    assert jobs["./native"].profiler_type == "cpu"
    assert jobs["./classic"].profiler_dir == "./profiler"
    # The job must be within max_depth; its profiler directory is one level below it.
    assert {j.train_id for j in discover_jobs(str(tmp_path), max_depth=1)} == {
        "./native",
        "./classic",
    }


def test_profiler_fields_reach_job_summary(tmp_path: Path) -> None:
    base = tmp_path / "base"
    write_cpu_profile(str(base / "prof_only"), synthetic_ops(5), 2)
    with SummaryWriter(str(base / "plain")) as writer:
        writer.add_scalar("loss", 1.0, 1)
    service = loaded_service(base, tmp_path / "ws")
    try:
        jobs = {job.train_id: job for job in service.provider.list_jobs()}
        prof_only, plain = jobs["./prof_only"], jobs["./plain"]
        assert (prof_only.profiler_dir, prof_only.profiler_type, prof_only.profiler_graph_mode) == (
            "./profiler",
            "cpu",
            "static",
        )
        assert prof_only.status == "loaded" and prof_only.summary_files == 0
        assert (plain.profiler_dir, plain.profiler_type, plain.profiler_graph_mode) == (
            None,
            "",
            "",
        )
        # A dynamic-shape file appears: the next round reports it.
        (base / "prof_only" / "profiler" / "dynamic_shape_info_0.json").write_text("{}")
        os.utime(base / "prof_only" / "profiler" / "dynamic_shape_info_0.json", (1, 1))
        service.loader.load_round()
        assert service.provider.job("./prof_only").profiler_graph_mode == "dynamic"
        # Profiler data removed: the folder is no job any more.
        for name in os.listdir(base / "prof_only" / "profiler"):
            os.remove(base / "prof_only" / "profiler" / name)
        service.loader.load_round()
        assert [j.train_id for j in service.provider.list_jobs()] == ["./plain"]
    finally:
        service.close()
