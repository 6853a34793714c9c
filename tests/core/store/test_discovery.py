"""Job discovery under a summary base directory, and train_id resolution."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dash_insight.core.format.files import FileKind
from dash_insight.core.store.discovery import (
    discover_jobs,
    holds_no_job,
    resolve_train_id,
    train_id_of,
)

CORPUS_JOBS = {
    "./lenet_adam_lr0.001_bs32",
    "./lenet_lr0.01_bs32",
    "./lenet_lr0.05_bs64",
    "./lenet_lr0.1_bs16",
    "./lenet_sc",
    "./multi_file",
    "./nested/grp/job_a",
    "./ops_all",
    "./ops_in_net",
}


def test_corpus_jobs_found(corpus: Path) -> None:
    jobs = {job.train_id: job for job in discover_jobs(str(corpus))}
    assert set(jobs) == CORPUS_JOBS
    lenet = jobs["./lenet_sc"]
    assert [f.kind for f in lenet.files] == [FileKind.SUMMARY, FileKind.LINEAGE, FileKind.LINEAGE]
    assert lenet.create_time == 1795324654.0
    multi = jobs["./multi_file"]
    assert [f.timestamp for f in multi.files] == [1795324815, 1795324817, 1795324820]


def test_depth_limit_order_and_symlinks(tmp_path: Path) -> None:
    for i, rel in enumerate(["", "a", "a/b", "a/b/c", "z"]):
        directory = tmp_path / rel
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"events.out.events.summary.{100 + i}.0.h_MS"
        path.write_bytes(b"")
        os.utime(path, (1000 + i, 1000 + i))
    (tmp_path / "a" / "notes.txt").write_text("not a summary")
    (tmp_path / "only_text").mkdir()
    (tmp_path / "only_text" / "x.txt").write_text("")
    outside = tmp_path.parent / f"{tmp_path.name}_outside"
    outside.mkdir()
    outside_file = outside / "events.out.events.summary.1.0.h_MS"
    outside_file.write_bytes(b"")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)
    (tmp_path / "a" / "linked.summary.5_MS").symlink_to(outside_file)

    jobs = discover_jobs(str(tmp_path))
    assert [j.train_id for j in jobs] == ["./z", "./a/b/c", "./a/b", "./a", "./"]
    assert [f.name for f in jobs[3].files] == ["events.out.events.summary.101.0.h_MS"]
    assert [j.train_id for j in discover_jobs(str(tmp_path), max_depth=1)] == ["./z", "./a", "./"]
    assert [j.train_id for j in discover_jobs(str(tmp_path), max_depth=0)] == ["./"]


def test_holds_no_job_is_sure_or_says_false(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "notes.txt").write_text("not a summary")
    (deep / "model.ckpt").write_bytes(b"")
    assert holds_no_job(str(tmp_path))
    (deep / "events.out.events.summary.5.0.h_MS").write_bytes(b"")
    assert not holds_no_job(str(tmp_path))
    # Only what discovery would list: below max_depth it is not looked for.
    assert holds_no_job(str(tmp_path), max_depth=1)
    # Past its budget of directories it does not know, so it does not claim "empty".
    (deep / "events.out.events.summary.5.0.h_MS").unlink()
    assert holds_no_job(str(tmp_path), max_directories=3)
    assert not holds_no_job(str(tmp_path), max_directories=2)
    assert not holds_no_job("s3://bucket/prefix")


def test_train_id_resolution(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "evil").symlink_to(tmp_path.parent)
    assert resolve_train_id(str(tmp_path), "./") == os.path.realpath(tmp_path)
    assert resolve_train_id(str(tmp_path), "./run") == os.path.join(
        os.path.realpath(tmp_path), "run"
    )
    for bad in [
        "run",
        "./../x",
        "./run/../..",
        "/etc",
        "./evil",
        "./evil/x",
        "./a//b",
        "./.",
        "",
        "./run\x00",
    ]:
        with pytest.raises(ValueError):
            resolve_train_id(str(tmp_path), bad)
    assert train_id_of(str(tmp_path), str(tmp_path)) == "./"
    assert train_id_of(str(tmp_path), str(tmp_path / "a" / "b")) == "./a/b"


def test_rescanning_1200_jobs(tmp_path: Path) -> None:
    for i in range(1200):
        job = tmp_path / f"group{i % 12}" / f"run{i}"
        job.mkdir(parents=True)
        for suffix in ("_MS", "_lineage"):
            (job / f"events.out.events.summary.{1000 + i}.0.h{suffix}").write_bytes(b"")
    discover_jobs(str(tmp_path))
    jobs = discover_jobs(str(tmp_path))
    assert len(jobs) == 1200  # the rescan's time: bench/load.py, "Listing"


def test_entries_that_are_not_regular_files_are_named(tmp_path: Path) -> None:
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "events.out.events.summary.1.0.h_MS").write_bytes(b"")
    os.mkfifo(tmp_path / "job" / "events.out.events.summary.2.0.h_MS")
    (tmp_path / "fifo_only").mkdir()
    os.mkfifo(tmp_path / "fifo_only" / "x.summary.3_lineage")
    os.mkfifo(tmp_path / "fifo_only" / "notes")  # not named like ours: not a problem
    jobs = {job.train_id: job for job in discover_jobs(str(tmp_path))}
    assert set(jobs) == {"./job", "./fifo_only"}
    assert [f.name for f in jobs["./job"].files] == ["events.out.events.summary.1.0.h_MS"]
    assert jobs["./job"].errors == (
        "events.out.events.summary.2.0.h_MS: a FIFO, not a regular file: skipped",
    )
    assert jobs["./fifo_only"].files == () and len(jobs["./fifo_only"].errors) == 1
    assert all(job.listed for job in jobs.values())
