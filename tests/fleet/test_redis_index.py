"""What only the Redis index has: WATCHed job states, leases, retired chunks expiring in Redis,
and a web process on a Redis index that loads nothing itself."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.store.index import RETIRED_CHUNK_SECONDS, ScalarColumns
from dash_insight.core.store.index_api import IndexConflict
from dash_insight.core.store.state import FileState, JobState

pytestmark = pytest.mark.fleet
redis_index = pytest.importorskip("dash_insight.core.store.redis_index")


def test_a_job_written_meanwhile_makes_the_transaction_write_nothing(
    redis_url: str, tmp_path: Path
) -> None:
    first = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    second = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    with first.transaction():
        first.save_job(JobState("./a", version=1))
    with pytest.raises(IndexConflict), first.transaction():
        state = first.load_job("./a")  # WATCHed from here on
        assert state is not None
        with second.transaction():  # another machine's writer commits the same job
            second.save_job(JobState("./a", version=7))
        state.version = 2
        first.save_job(state)
        first.set_job_list([("./a", 0.0, 0.0)])
    assert second.job_versions() == {"./a": 7} and not second.has_job_list()
    first.close()
    second.close()


def test_a_lease_is_exclusive_until_released_or_expired(redis_url: str, tmp_path: Path) -> None:
    store = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    with store.lease("job|./a", 30) as lease:
        assert lease is not None and lease.renew()
        with store.lease("job|./a", 30) as other:
            assert other is None
    with store.lease("job|./a", 0.05) as lease:
        assert lease is not None
        store.client.delete(lease.key)  # expired: another holder takes it ...
        with store.lease("job|./a", 30) as other:
            assert other is not None
            assert not lease.renew()  # ... and the first cannot renew (or release) it
    store.close()


def test_merged_chunks_expire_in_redis_instead_of_vanishing(redis_url: str, tmp_path: Path) -> None:
    store = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    state = JobState("./j")
    file_state = state.files["f"] = FileState("f", "summary", (1, 1))
    step = np.arange(4, dtype=np.int64)
    for _ in range(2):
        store.append_chunk(
            state,
            file_state,
            "scalar",
            "x",
            ScalarColumns(step, step.astype(np.float64), step.astype(np.float32)),
        )
    [merged] = file_state.chunks[("scalar", "x")]
    serial = merged.serial
    assert merged.entries == 8 and serial == 3 and not merged.ascending
    ttls = [store.client.pttl(store._k("chunk", "./j", "scalar", "x", "f", old)) for old in (1, 2)]
    assert all(0 < ttl <= RETIRED_CHUNK_SECONDS * 1000 for ttl in ttls), ttls
    assert store.client.pttl(store._k("chunk", "./j", "scalar", "x", "f", serial)) == -1
    store.close()


def test_step_windows_read_chunk_summaries_from_redis(redis_url: str, tmp_path: Path) -> None:
    """The range reads of issue #18 on a Redis index: a live tag's merged chunks carry their
    step bounds and summaries, a window equals the whole series cut to it, and a merge retires
    the summaries with their chunk."""
    from dash_insight.core.provider import DataProvider
    from dash_insight.core.store.chunks import SUMMARY_LEVELS, summarise

    store = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    state = JobState("./j", version=1)
    file_state = state.files["f"] = FileState("f", "summary", (1, 1))
    with store.transaction():
        for start, end in ((0, 1000), (1000, 2000), (2000, 4000)):  # merged into one
            step = np.arange(start, end, dtype=np.int64)
            store.append_chunk(
                state,
                file_state,
                "scalar",
                "x",
                ScalarColumns(
                    step, step.astype(np.float64), np.sin(step / 50.0).astype(np.float32)
                ),
            )
        state.tags = {"scalar": {"x": {"f": 1}}}
        store.save_job(state)
        store.set_job_list([("./j", 0.0, 0.0)])
        store.bump_generation()
    [ref] = file_state.chunks[("scalar", "x")]
    assert (ref.entries, ref.first_step, ref.last_step, ref.ascending) == (4000, 0, 3999, True)
    step = np.arange(4000, dtype=np.int64)
    value = np.sin(step / 50.0).astype(np.float32)
    for level in SUMMARY_LEVELS:
        stored = store.read_summary("./j", "scalar", "x", "f", ref.serial, level)
        np.testing.assert_array_equal(stored.step, summarise(step, step, value, level).step)
    retired = store.client.pttl(store._k("lod", "./j", "scalar", "x", "f", 1, SUMMARY_LEVELS[0]))
    assert 0 < retired <= RETIRED_CHUNK_SECONDS * 1000
    provider = DataProvider(str(tmp_path), store)
    found = provider.read_scalar_window("./j", "x", 1500, 1600)
    np.testing.assert_array_equal(found.series.step, step[1500:1601])
    np.testing.assert_array_equal(found.series.value, value[1500:1601])
    assert provider.scalar_extent("./j", "x") == (4000, 3999)
    store.close()


def test_a_web_process_on_a_redis_index_starts_no_loader(redis_url: str, tmp_path: Path) -> None:
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.service import DataService
    from dash_insight.core.settings import Settings

    with SummaryWriter(tmp_path / "base" / "job") as writer:
        writer.add_scalar("loss", 1.0, 1)
    service = DataService(
        Settings(
            summary_base_dir=str(tmp_path / "base"),
            index=redis_url,
            workspace=str(tmp_path / "ws"),
            reload_interval=0.1,
        )
    )
    try:
        service.start()
        assert service.fleet and isinstance(service.store, redis_index.RedisIndexStore)
        assert not service.loader.wait_rounds(1, timeout=0.5)  # no loading round ever runs
        assert not service.store.has_job_list() and service.store.job_versions() == {}
        assert not (tmp_path / "ws" / "index").exists()  # no diskcache either
    finally:
        service.close()


def test_a_loader_that_lost_its_job_to_another_writes_nothing(
    redis_url: str, tmp_path: Path
) -> None:
    """A worker whose lease lapsed mid-job (another worker loaded the job meanwhile) fails its
    next commit with IndexConflict: every step stays indexed exactly once."""
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.provider import DataProvider
    from dash_insight.core.store.discovery import discover_job
    from dash_insight.core.store.loader import Loader

    base = tmp_path / "base"
    with SummaryWriter(base / "j") as writer:
        for step in range(6):  # six records of about 1 MB: six passes of 1 MB
            writer.add_tensor("w", np.full(1 << 18, step, np.float32), step)
            writer.add_scalar("loss", float(step), step)
    store = redis_index.RedisIndexStore(redis_url, str(base))
    job = discover_job(str(base), "./j")
    assert job is not None

    def loader() -> Loader:
        return Loader(str(base), store, reload_interval=0, slice_bytes=1 << 20)

    passes: list[int] = []

    def other_worker_takes_over() -> None:
        passes.append(1)
        if len(passes) == 2:  # after this worker's second pass, another loads the whole job
            assert loader().load_job(job)

    with pytest.raises(IndexConflict):
        loader().load_job(job, after_pass=other_worker_takes_over)
    assert len(passes) == 2
    state = store.load_job("./j")
    assert state is not None and state.status == "loaded"
    series = DataProvider(str(base), store).read_scalars("./j", "loss")
    assert series.step.tolist() == list(range(6))
    store.close()


def test_fleet_discovery_drops_gone_jobs_and_reloads_damaged_ones(
    redis_url: str, tmp_path: Path
) -> None:
    """FleetLoading without Celery: discovery queues new jobs once, drops a deleted job, and a
    job a reader found damaged is deleted and queued again."""
    import shutil

    from dash_insight.core.fleet.loading import FleetLoading, Outcome
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.settings import Settings

    base = tmp_path / "base"
    for name in ("a", "b"):
        with SummaryWriter(base / name) as writer:
            writer.add_scalar("loss", 1.0, 1)
    settings = Settings(summary_base_dir=str(base), index=redis_url)
    store = redis_index.RedisIndexStore(redis_url, settings.base_dir)
    fleet = FleetLoading(settings, store)
    assert sorted(fleet.discover() or ()) == ["./a", "./b"]
    assert fleet.discover() == []  # queued already: not queued twice
    assert [fleet.load(train_id) for train_id in ("./a", "./b")] == [Outcome.DONE] * 2
    assert fleet.discover() == []  # nothing changed
    shutil.rmtree(base / "b")
    store.request_rebuild("./a")
    assert fleet.discover() == ["./a"]
    assert [train_id for train_id, _, _ in store.job_list()] == ["./a"]
    assert store.load_job("./b") is None and store.load_job("./a") is None
    assert fleet.load("./b") is Outcome.GONE
    with store.lease("job|./a", 30):  # another worker is on it
        assert fleet.load("./a") is Outcome.BUSY
    assert fleet.load("./a") is Outcome.DONE
    state = store.load_job("./a")
    assert state is not None and state.status == "loaded"
    store.close()


class _Exploit:
    """Unpickled as a call of ``os.system``: creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch {self.marker}",)


def test_a_pickle_planted_in_redis_is_never_executed(redis_url: str, tmp_path: Path) -> None:
    """Issue #41 item 2: anyone able to write to Redis SETs a crafted pickle over a job's state,
    the job list and its chunks, and INCRs ``generation``. Unpickled, it would create
    ``marker``; the web process and the worker decode it as an undecodable entry instead
    (treated as missing), the job is read again from its logs and the answer is right."""
    import pickle

    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.provider import DataProvider
    from dash_insight.core.settings import Settings

    marker = tmp_path / "executed"
    base = tmp_path / "base"
    with SummaryWriter(base / "j") as writer:
        for step in range(10):
            writer.add_scalar("loss", float(step) / 2, step)
    settings = Settings(summary_base_dir=str(base), index=redis_url)
    store = redis_index.RedisIndexStore(redis_url, settings.base_dir)
    fleet = FleetLoading(settings, store)

    def load() -> None:
        for train_id in fleet.discover() or ():
            fleet.load(train_id)

    load()
    web = DataProvider(settings.base_dir, redis_index.RedisIndexStore(redis_url, settings.base_dir))
    assert web.read_scalars("./j", "loss").step.tolist() == list(range(10))

    planted = pickle.dumps(_Exploit(marker))
    client = store.client
    keys = [
        key for key in client.scan_iter(match=store.prefix + "*") if client.type(key) == b"string"
    ]
    entries = [key for key in keys if client.get(key).startswith(b"DIX")]
    assert any(b"chunk" in key for key in entries) and any(b"job\x1f" in key for key in entries)
    for key in entries:
        client.set(key, planted)
    client.hincrby(store._k("versions"), "./j", 1)
    client.incr(store._k("generation"))

    # The web process that held the job: nothing executed; it answers from what it holds
    # (the job's state as last read, its series cached).
    assert web.read_scalars("./j", "loss").step.tolist() == list(range(10))
    # A process that starts now: nothing executed; the planted state is a missing entry, and
    # it asks for the job to be read again.
    fresh = DataProvider(
        settings.base_dir, redis_index.RedisIndexStore(redis_url, settings.base_dir)
    )
    assert fresh.list_jobs() == []
    assert client.sismember(store._k("rebuild"), "./j")
    load()  # the worker: the planted entries are missing entries; the job is read again
    for reader in (web, fresh):
        assert reader.read_scalars("./j", "loss").value.tolist() == [s / 2 for s in range(10)]
        assert [job.train_id for job in reader.list_jobs()] == ["./j"]
    assert not marker.exists()
    assert not client.get(store._k("job", "./j")).startswith(b"\x80")  # rewritten
    store.close()


def test_processes_started_in_different_directories_share_the_index(
    redis_url: str, tmp_path: Path
) -> None:
    """Issue #41 item 1: the key prefix and the Celery queue come from the base directory's
    canonical name (an object-storage URL as it is, a local path as its real path), never
    from the working directory. A process publishes a job list; processes started elsewhere,
    naming the base directory with or without a trailing slash, a relative path or a symlink,
    read it and agree on the queue."""
    import json
    import os
    import subprocess
    import sys

    repo = str(Path(__file__).resolve().parents[2])
    code = (
        "import json, sys\n"
        "from dash_insight.core.settings import Settings\n"
        "from dash_insight.core.fleet.worker import queue_name\n"
        "from dash_insight.core.store.redis_index import RedisIndexStore\n"
        "url, base, write = sys.argv[1], sys.argv[2], sys.argv[3] == 'write'\n"
        "settings = Settings(summary_base_dir=base, index=url)\n"
        "store = RedisIndexStore(url, settings.base_dir)\n"
        "if write:\n"
        "    store.set_job_list([('./published-from-' + base, 1.0, 2.0)])\n"
        "print(json.dumps([store.prefix, queue_name(settings), store.job_list()]))\n"
    )

    def run(*processes: tuple[Path, str, bool]) -> list[list[object]]:
        """Run the processes side by side (cwd, base directory, whether to write)."""
        started = []
        for cwd, base, write in processes:
            cwd.mkdir(parents=True, exist_ok=True)
            started.append(
                subprocess.Popen(
                    [
                        os.path.abspath(sys.executable),
                        "-c",
                        code,
                        redis_url,
                        base,
                        "write" if write else "read",
                    ],
                    cwd=cwd,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env={**os.environ, "PYTHONPATH": repo},
                )
            )
        out = []
        for process in started:
            stdout, stderr = process.communicate(timeout=60)
            assert process.returncode == 0, stderr
            out.append(list(json.loads(stdout)))
        return out

    url = f"s3://fleet-{tmp_path.name}/logs"
    (tmp_path / "data" / "logs").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "data")
    first, local = run((tmp_path / "one", url, True), (tmp_path / "data", "logs", True))
    second, elsewhere = run(
        (tmp_path / "two" / "deeper", url + "/", False),  # another directory, a trailing slash
        (tmp_path / "two", str(tmp_path / "link" / "logs"), False),  # through a symlink
    )
    assert first == second and second[2] == [[f"./published-from-{url}", 1.0, 2.0]]
    assert local == elsewhere and local[0] != first[0] and local[1] != first[1]
    assert elsewhere[2] == [["./published-from-logs", 1.0, 2.0]]


def test_status_shows_a_fleet_web_process_with_its_index(
    redis_password_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #41 item 7: ``dash-insight status`` said "no index yet" of fleet web processes;
    their record names the Redis index (password redacted) and the state is read from it."""
    from dash_insight.core import runtime
    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.settings import Settings
    from tests.redis_server import REDIS_PASSWORD

    with SummaryWriter(tmp_path / "base" / "j") as writer:
        writer.add_scalar("loss", 1.0, 1)
    settings = Settings(
        summary_base_dir=str(tmp_path / "base"),
        index=redis_password_url,
        workspace=str(tmp_path / "ws"),
        port=8123,
    )
    store = redis_index.RedisIndexStore(redis_password_url, settings.base_dir)
    fleet = FleetLoading(settings, store)
    for train_id in fleet.discover() or ():
        fleet.load(train_id)
    store.close()
    monkeypatch.setattr("setproctitle.setproctitle", lambda title: None)
    monkeypatch.setattr(os, "environ", dict(os.environ))  # announce exports its settings
    monkeypatch.setenv("DASH_INSIGHT_INDEX", redis_password_url)  # as the server's own
    record = runtime.announce(settings, "dash-insight start")
    try:
        assert REDIS_PASSWORD not in record.index and ":***@" in record.index
        state = runtime.load_state(record.workspace, record.summary_base_dir, record.index)
        assert state == f"fleet index {record.index}: loaded: 1 jobs, 0.0 MB"
        monkeypatch.delenv("DASH_INSIGHT_INDEX")  # without the password: says why, one line
        state = runtime.load_state(record.workspace, record.summary_base_dir, record.index)
        assert state.startswith(f"fleet index {record.index}: unreachable (") and "\n" not in state
        assert REDIS_PASSWORD not in state
    finally:
        runtime.retire(record, settings.workspace)


def test_one_beat_wins_each_discovery_round(redis_url: str, tmp_path: Path) -> None:
    """Issue #41 item 3: every worker may run the beat; the first discovery of a round takes
    its lease and the others return, until the round's lease expires."""
    import time

    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.settings import Settings

    with SummaryWriter(tmp_path / "base" / "j") as writer:
        writer.add_scalar("loss", 1.0, 1)
    settings = Settings(summary_base_dir=str(tmp_path / "base"), index=redis_url)
    beats = [
        FleetLoading(settings, redis_index.RedisIndexStore(redis_url, settings.base_dir))
        for _ in range(2)
    ]
    assert beats[0].store.last_discovery() is None
    assert beats[0].discover(round_seconds=1.0) == ["./j"]
    assert beats[1].discover(round_seconds=1.0) is None  # this round is taken
    discovered = beats[1].store.last_discovery()
    assert discovered is not None and time.time() - discovered < 30
    time.sleep(1.1)
    assert beats[1].discover(round_seconds=1.0) == []  # the next round: another beat wins
    for beat in beats:
        beat.store.close()


def test_discovery_reads_only_the_states_of_changed_jobs(redis_url: str, tmp_path: Path) -> None:
    """Issue #41 item 6: discovery compares each job's change mark (one HMGET) with its
    listing, and reads and decodes the states of changed jobs only."""
    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.settings import Settings

    base = tmp_path / "base"
    for name in ("a", "b", "c"):
        with SummaryWriter(base / name) as writer:
            writer.add_scalar("loss", 1.0, 1)
    settings = Settings(summary_base_dir=str(base), index=redis_url)
    store = redis_index.RedisIndexStore(redis_url, settings.base_dir)
    fleet = FleetLoading(settings, store)
    for train_id in fleet.discover() or ():
        fleet.load(train_id)
    read: list[list[str]] = []
    load_jobs = store.load_jobs
    store.load_jobs = lambda ids: read.append(sorted(ids)) or load_jobs(ids)  # type: ignore[method-assign]
    assert fleet.discover() == [] and read == [[]]  # nothing changed: no state read
    with SummaryWriter(base / "b") as writer:  # a new file in one job
        writer.add_scalar("loss", 2.0, 2)
    assert fleet.discover() == ["./b"] and read[-1] == ["./b"]
    assert fleet.load("./b").value == "done"
    assert fleet.discover() == [] and read[-1] == []
    store.close()


def test_readers_fetch_only_the_versions_of_changed_jobs(redis_url: str, tmp_path: Path) -> None:
    """Issue #41 item 6: a generation bump records which jobs it changed; a reader that saw
    the previous generation fetches those jobs' versions (HMGET), not the whole hash."""
    from dash_insight.core.provider import DataProvider

    writer = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    with writer.transaction():
        for name in ("./a", "./b", "./c"):
            writer.save_job(JobState(name, version=1))
        writer.set_job_list([(name, 0.0, 0.0) for name in ("./a", "./b", "./c")])
        writer.bump_generation()
    reader_store = redis_index.RedisIndexStore(redis_url, str(tmp_path))
    whole: list[int] = []
    job_versions = reader_store.job_versions
    reader_store.job_versions = lambda: whole.append(1) or job_versions()  # type: ignore[method-assign]
    reader = DataProvider(str(tmp_path), reader_store)
    assert [job.version for job in reader.list_jobs()] == [1, 1, 1] and whole == [1]
    with writer.transaction():
        writer.save_job(JobState("./b", version=2))
        writer.delete_job(JobState("./c", version=1))
        writer.set_job_list([("./a", 0.0, 0.0), ("./b", 0.0, 0.0)])
        writer.bump_generation()
    assert reader_store.changed_since(reader.data_version()[1] - 1) == ["./b", "./c"]
    assert {job.train_id: job.version for job in reader.list_jobs()} == {"./a": 1, "./b": 2}
    assert whole == [1]  # only the changed jobs' versions were read
    writer.bump_generation()  # outside a transaction: which jobs changed is not known
    reader.list_jobs()
    assert whole == [1, 1]
    writer.close()
    reader_store.close()


def test_an_emptied_index_says_rebuilding_until_every_job_is_read_again(
    redis_url: str, tmp_path: Path
) -> None:
    """Issue #41 item 4: after Redis restarts without its data, a web process says
    "rebuilding: n of m jobs" (loader health, REST and the page banner) until the workers
    have read every job again, then caught up."""
    from dash_insight.core.fleet.loading import FleetLoading
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.core.service import DataService
    from dash_insight.core.settings import Settings
    from dash_insight.core.store.health import CAUGHT_UP, REBUILDING
    from dash_insight.web.shell import loader_banner
    from tests.pages import text

    base = tmp_path / "base"
    for name in ("a", "b", "c"):
        with SummaryWriter(base / name) as writer:
            writer.add_scalar("loss", 1.0, 1)
    settings = Settings(summary_base_dir=str(base), index=redis_url, workspace=str(tmp_path / "ws"))
    store = redis_index.RedisIndexStore(redis_url, settings.base_dir)
    fleet = FleetLoading(settings, store)
    for train_id in fleet.discover() or ():
        fleet.load(train_id)
    web = DataService(settings)
    try:
        assert web.loader_health().state == CAUGHT_UP
        # Redis restarted without persistence: every key of this index is gone.
        store.client.delete(*store.client.keys(store._k("*")))
        assert web.loader_health().state != CAUGHT_UP
        worker = FleetLoading(settings, redis_index.RedisIndexStore(redis_url, settings.base_dir))
        queued = worker.discover() or []
        assert sorted(queued) == ["./a", "./b", "./c"]
        worker.load(queued[0])
        health = web.loader_health()
        assert health.state == REBUILDING and health.progress == (1, 3)
        assert health.to_dict()["detail"] == "1 of 3 jobs read again"
        assert "1 of 3 jobs read again" in text(loader_banner(health))
        for train_id in queued[1:]:
            worker.load(train_id)
        assert web.loader_health().state == CAUGHT_UP
        assert web.loader_health().state == CAUGHT_UP and not web.provider.rebuilding
    finally:
        web.close()
        store.close()
