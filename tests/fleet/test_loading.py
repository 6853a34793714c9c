"""Fleet pieces that need no Redis: the --index setting, what makes discovery queue a job,
re-listing one job for its load task, and a single-machine server importing neither redis nor
celery."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings, SettingsError
from dash_insight.core.store.discovery import discover_job, discover_jobs
from dash_insight.core.store.index import IndexStore
from dash_insight.core.store.loader import Loader


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("", ""),
        ("diskcache", ""),
        ("redis://h:6379/0", "redis://h:6379/0"),
        ("rediss://h/1", "rediss://h/1"),
        ("unix:///run/redis.sock", "unix:///run/redis.sock"),
    ],
)
def test_index_setting(given: str, stored: str, tmp_path: Path) -> None:
    assert Settings(summary_base_dir=str(tmp_path), index=given).index == stored
    env = Settings.from_env(
        {"DASH_INSIGHT_SUMMARY_BASE_DIR": str(tmp_path), "DASH_INSIGHT_INDEX": given}
    )
    assert env.index == stored


@pytest.mark.parametrize("given", ["memcached://h", "redis://", "/var/index"])
def test_index_setting_refuses_what_is_not_redis(given: str) -> None:
    with pytest.raises(SettingsError, match="Redis URL"):
        Settings(index=given)


def test_discovery_queues_exactly_the_jobs_whose_files_changed(tmp_path: Path) -> None:
    from dash_insight.core.fleet.loading import needs_load  # imports redis_index

    base = tmp_path / "base"
    for name in ("a", "b"):
        with SummaryWriter(base / name, timestamp=1) as writer:
            writer.add_scalar("loss", 1.0, 1)
    store = IndexStore(str(tmp_path / "index"))
    Loader(str(base), store, reload_interval=0).load_round()
    jobs = {job.train_id: job for job in discover_jobs(str(base))}
    assert not any(needs_load(job, store.load_job(train_id)) for train_id, job in jobs.items())
    assert needs_load(jobs["./a"], None)  # never indexed
    with SummaryWriter(base / "a", timestamp=2) as writer:  # a new file
        writer.add_scalar("loss", 2.0, 2)
    with open(next((base / "b").iterdir()), "ab") as handle:  # a grown file
        handle.write(b"\0")
    jobs = {job.train_id: job for job in discover_jobs(str(base))}
    assert all(needs_load(job, store.load_job(train_id)) for train_id, job in jobs.items())
    store.close()


def test_a_load_task_lists_its_job_again_but_never_through_a_symlink(tmp_path: Path) -> None:
    base, outside = tmp_path / "base", tmp_path / "outside"
    with SummaryWriter(base / "deep" / "job") as writer:
        writer.add_scalar("loss", 1.0, 1)
    with SummaryWriter(outside) as writer:
        writer.add_scalar("loss", 1.0, 1)
    (base / "link").symlink_to(outside)
    job = discover_job(str(base), "./deep/job")
    assert job is not None and job.train_id == "./deep/job" and len(job.files) == 1
    assert job == next(j for j in discover_jobs(str(base)) if j.train_id == "./deep/job")
    assert discover_job(str(base), "./link") is None
    assert discover_job(str(base), "./../outside") is None
    assert discover_job(str(base), "./gone") is None


def test_a_load_task_lists_a_job_on_object_storage(tmp_path: Path) -> None:
    """A worker of a fleet over ``s3://...`` lists its job's prefix alone, as discovery lists
    the whole base, and never a key outside the base."""
    fsspec = pytest.importorskip("fsspec")
    memory, base = fsspec.filesystem("memory"), f"memory://fleet-{os.getpid()}/logs"
    for name in ("deep/job", "other"):
        with SummaryWriter(tmp_path / name) as writer:
            writer.add_scalar("loss", 1.0, 1)
        for path in (tmp_path / name).iterdir():
            memory.put(str(path), f"{base}/{name}/{path.name}")
    with SummaryWriter(tmp_path / "outside") as writer:
        writer.add_scalar("loss", 1.0, 1)
    memory.put(
        str(next((tmp_path / "outside").iterdir())),
        f"memory://fleet-{os.getpid()}/outside/x.summary.1_MS",
    )
    try:
        job = discover_job(base, "./deep/job")
        assert job == next(j for j in discover_jobs(base) if j.train_id == "./deep/job")
        assert job is not None and len(job.files) == 1
        assert discover_job(base, "./../outside") is None
        assert discover_job(base, "./gone") is None
    finally:
        memory.rm(f"memory://fleet-{os.getpid()}", recursive=True)


def test_the_single_machine_default_imports_neither_redis_nor_celery(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from dash_insight.core.service import DataService\n"
        "from dash_insight.core.settings import Settings\n"
        f"service = DataService(Settings(summary_base_dir={str(tmp_path)!r}, "
        f"workspace={str(tmp_path / 'ws')!r}, reload_interval=0))\n"
        "service.start(); service.loader.wait_rounds(1); service.close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('redis', 'celery')))\n"
    )
    repo = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": repo},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_an_orphaned_beat_stops() -> None:
    """The embedded beat's watcher calls stop once its parent is not the worker any more."""
    import threading

    worker = pytest.importorskip("dash_insight.core.fleet.worker")
    stopped = threading.Event()
    worker.stop_when_orphaned(stopped.set, parent=-1, poll_seconds=0.01)  # already re-parented
    assert stopped.wait(10)
    alive = threading.Event()
    watcher = worker.stop_when_orphaned(alive.set, parent=os.getppid(), poll_seconds=0.01)
    assert watcher.is_alive() and not alive.is_set()  # the parent is alive: still watching
