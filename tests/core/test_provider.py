"""The data layer end to end: discovery -> loader -> diskcache index -> DataProvider."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.provider import DataProvider, JobNotFound, StepNotFound, TagNotFound
from dash_insight.core.store.discovery import discover_jobs
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader
from tests.core.store.test_discovery import CORPUS_JOBS


def _open(
    base: Path, workspace: Path, **options: object
) -> tuple[IndexStore, Loader, DataProvider]:
    store = IndexStore(index_directory(str(workspace), str(base)))
    loader = Loader(str(base), store, reload_interval=0, **options)
    return store, loader, DataProvider(str(base), store)


@pytest.fixture(scope="module")
def corpus_provider(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> DataProvider:
    _, loader, provider = _open(corpus, tmp_path_factory.mktemp("ws"))
    loader.load_round()
    return provider


def test_corpus_jobs_all_loaded(corpus_provider: DataProvider) -> None:
    jobs = {job.train_id: job for job in corpus_provider.list_jobs()}
    assert set(jobs) == CORPUS_JOBS
    for job in jobs.values():
        assert job.status == "loaded" and job.is_intact, job
        assert job.bytes_read == job.bytes_on_disk > 0
    assert jobs["./lenet_lr0.1_bs16"].tags["graph"] == []  # PyNative: no graph
    assert jobs["./ops_all"].tags["tensor"][-1] == "tensor/big_1m_f32"
    assert (jobs["./lenet_sc"].summary_files, jobs["./lenet_sc"].lineage_files) == (1, 2)


def test_corpus_multi_file_restart_and_duplicates(corpus_provider: DataProvider) -> None:
    session = corpus_provider.read_scalars("./multi_file", "session")
    assert session.step.tolist() == list(range(1, 301))
    assert session.value.tolist() == [1] * 120 + [2] * 60 + [3] * 120
    histogram_steps = corpus_provider.value_steps("./multi_file", "histogram", "fc.weight")
    # file 3's histograms start at 200: file 2's 200-240 are replaced, its 140-180 stay
    assert histogram_steps.step.tolist() == list(range(20, 301, 20))
    assert histogram_steps.files[histogram_steps.file[8]].endswith("1795324817.0.vm_MS")
    assert histogram_steps.files[histogram_steps.file[9]].endswith("1795324820.0.vm_MS")
    loss = corpus_provider.read_scalars("./lenet_sc", "loss/auto")
    assert loss.step.tolist() == list(range(1, 49))  # the 3 repeated epoch-end steps once
    nested = corpus_provider.read_scalars("./nested/grp/job_a", "accuracy")
    assert len(nested) == 200


def test_corpus_values(corpus_provider: DataProvider) -> None:
    """Value references, graphs and lineage (decoded values: tests/plugins/<plugin>/)."""
    steps = corpus_provider.value_steps("./ops_all", "image", "images/rgb_1x64x96")
    assert len(steps) == 11 and steps.meta[0] == {"height": 64, "width": 96}
    [graph_tag] = corpus_provider.graph_tags("./ops_all")
    assert len(corpus_provider.read_graph("./ops_all", graph_tag).node) == 21
    assert corpus_provider.dataset_graph("./lenet_sc")["op_type"] == "Batch"
    kinds = [r.kind for r in corpus_provider.lineage_records("./lenet_sc")]
    assert sorted(kinds) == [
        "dataset_graph",
        "evaluation_lineage",
        "train_lineage",
        "user_defined_info",
    ]


def test_errors_are_typed(corpus_provider: DataProvider) -> None:
    with pytest.raises(JobNotFound):
        corpus_provider.read_scalars("./nope", "loss")
    with pytest.raises(TagNotFound):
        corpus_provider.read_scalars("./lenet_sc", "nope")
    with pytest.raises(StepNotFound):
        corpus_provider.read_value("./lenet_sc", "image", "input_data/auto", 999)
    many = corpus_provider.read_scalars_many(
        ["./lenet_sc", "./nope", "./ops_all"], ["loss/auto", "loss"]
    )
    assert set(many) == {("./lenet_sc", "loss/auto"), ("./ops_all", "loss")}


def test_downsampled_read(corpus_provider: DataProvider) -> None:
    full = corpus_provider.read_scalars("./ops_all", "metrics/nan_inf")
    small = corpus_provider.read_scalars("./ops_all", "metrics/nan_inf", max_points=50)
    assert len(full) == 500
    assert small.step[0] == 1 and small.step[-1] == 500
    assert np.isnan(full.value).sum() == np.isnan(small.value).sum()  # non-finite kept


def test_warm_restart_reads_nothing(corpus: Path, tmp_path: Path) -> None:
    _, loader, _ = _open(corpus, tmp_path)
    assert loader.load_round()
    _, loader, provider = _open(corpus, tmp_path)
    assert loader.load_round() is False  # its time: bench/load.py, "warm restart"
    assert len(provider.read_scalars("./ops_all", "loss")) == 500


def _write_steps(directory: Path, steps: range, tags: list[str], **kwargs: object) -> str:
    with SummaryWriter(directory, host="test", **kwargs) as writer:
        for step in steps:
            for i, tag in enumerate(tags):
                writer.add_scalar(tag, step * 10 + i, step)
    return writer.summary_path


def test_data_version_follows_every_change_of_any_job(tmp_path: Path) -> None:
    """The same data_version: the same data of every job (pages skip a refresh with nothing
    new); any job's new points change it, a round that finds nothing new does not."""
    base = tmp_path / "logs"
    _write_steps(base / "a", range(3), ["loss"])
    _write_steps(base / "b", range(3), ["loss"])
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    first = provider.data_version()
    loader.load_round()
    assert provider.data_version() == first
    _write_steps(base / "b", range(3, 5), ["loss"], timestamp=1_900_000_000)
    loader.load_round()
    assert provider.data_version() != first


def test_live_writer_every_point_once(tmp_path: Path) -> None:
    base, job = tmp_path / "logs", tmp_path / "logs" / "live"
    job.mkdir(parents=True)
    store = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
    loader = Loader(str(base), store, reload_interval=0.02)
    provider = DataProvider(str(base), store)
    loader.start()
    try:
        with SummaryWriter(job, host="live") as writer:
            for step in range(1, 1001):
                writer.add_scalar("loss", 1.0 / step, step)
                writer.add_scalar("acc", step / 1000, step)
                if step % 50 == 0:
                    writer.add_histogram("w", np.random.default_rng(step).normal(size=100), step)
                    writer.flush()
                    time.sleep(0.005)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if len(provider.read_scalars("./live", "loss")) == 1000:
                    break
            except (JobNotFound, TagNotFound):
                pass
            time.sleep(0.05)
    finally:
        loader.stop()
    loss = provider.read_scalars("./live", "loss")
    assert loss.step.tolist() == list(range(1, 1001))
    np.testing.assert_allclose(loss.value, np.float32(1.0 / np.arange(1, 1001)))
    assert len(provider.value_steps("./live", "histogram", "w")) == 20
    job_summary = provider.job("./live")
    assert job_summary.is_intact and job_summary.status == "loaded"
    # Points were appended in many chunks; the index kept few per tag (LSM merging).
    [file_state] = store.load_job("./live").files.values()
    assert len(file_state.chunks[("scalar", "loss")]) <= 12


def test_damaged_file_keeps_everything_readable(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    path = Path(_write_steps(base / "run", range(1, 101), ["a", "b"]))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    job = provider.job("./run")
    assert not job.is_intact and any("CRC mismatch" in r for r in job.reasons)
    assert len(provider.read_scalars("./run", "a")) == 99  # one record lost, not the file


def test_garbage_and_empty_files(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    (base / "garbage").mkdir(parents=True)
    (base / "garbage" / "x.summary.5_MS").write_bytes(os.urandom(5000))
    (base / "empty").mkdir()
    (base / "empty" / "x.summary.5_MS").write_bytes(b"")
    _write_steps(base / "good", range(1, 11), ["loss"])
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    jobs = {j.train_id: j for j in provider.list_jobs()}
    assert not jobs["./garbage"].is_intact
    assert jobs["./empty"].is_intact and jobs["./empty"].tags["scalar"] == []
    assert len(provider.read_scalars("./good", "loss")) == 10


def test_replaced_truncated_and_vanished_files(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    first = Path(_write_steps(base / "run", range(1, 51), ["x"], timestamp=1_700_000_000))
    second = Path(_write_steps(base / "run", range(51, 101), ["x"], timestamp=1_700_000_001))
    other = Path(_write_steps(base / "other", range(1, 11), ["x"]))
    store, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    assert len(provider.read_scalars("./run", "x")) == 100
    other_offset = store.load_job("./other").files[other.name].offset

    # Truncate the second file to its first half: re-read from scratch, first file untouched.
    data = second.read_bytes()
    second.write_bytes(data[: len(data) // 2])
    loader.load_round()
    series = provider.read_scalars("./run", "x")
    assert series.step[:50].tolist() == list(range(1, 51)) and 51 < len(series) < 100
    assert provider.job("./run").status == "loaded"

    # Replace it (new inode): read again in full.
    replacement = second.with_suffix(".tmp")
    replacement.write_bytes(data)
    os.replace(replacement, second)
    loader.load_round()
    assert len(provider.read_scalars("./run", "x")) == 100

    # Delete the first file: its points go, the job says why.
    first.unlink()
    loader.load_round()
    series = provider.read_scalars("./run", "x")
    assert series.step.tolist() == list(range(51, 101))
    assert any("vanished" in reason for reason in provider.job("./run").reasons)
    assert store.load_job("./other").files[other.name].offset == other_offset

    # Remove a whole job directory: it leaves the list.
    shutil.rmtree(base / "other")
    loader.load_round()
    assert "./other" not in {j.train_id for j in provider.list_jobs()}


def test_restarted_training_in_a_new_file(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    _write_steps(base / "run", range(1, 101), ["x"], timestamp=1_700_000_000)
    # restarted from a checkpoint at 60, into a later file
    _write_steps(base / "run", range(60, 81), ["x"], timestamp=1_700_000_001)
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    series = provider.read_scalars("./run", "x")
    assert series.step.tolist() == list(range(1, 81))


def test_400_tag_job(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    tags = [f"group{i // 20}/metric_{i}" for i in range(400)]
    _write_steps(base / "wide", range(1, 21), tags)
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    assert provider.list_tags("./wide", "scalar") == tags
    series = provider.read_scalars_many(["./wide"], tags)
    assert len(series) == 400 and all(len(s) == 20 for s in series.values())


def _reader_process(base: str, workspace: str, queue: multiprocessing.Queue) -> None:
    store = IndexStore(index_directory(workspace, base))
    provider = DataProvider(base, store)
    queue.put(len(provider.read_scalars("./run", "x")))


def test_other_processes_read_the_index(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    _write_steps(base / "run", range(1, 31), ["x"])
    store, loader, _ = _open(base, tmp_path / "ws")
    loader.load_round()
    with store.loader_lock() as owner:
        assert owner
        # A second would-be loader (another worker) does not get the lock meanwhile.
        other = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
        with other.loader_lock() as second_owner:
            assert not second_owner
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_reader_process, args=(str(base), str(tmp_path / "ws"), queue))
    process.start()
    assert queue.get(timeout=60) == 30
    process.join(30)


def test_reload_thread_runs_once_with_interval_zero(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    _write_steps(base / "run", range(1, 6), ["x"])
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.start()
    assert loader.wait_rounds(1, timeout=30)
    loader.stop()
    assert len(provider.read_scalars("./run", "x")) == 5
    assert threading.active_count() >= 1


def test_samples_per_plugin_is_mindinsight_reservoir(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    _write_steps(base / "run", range(1, 3001), ["x"])
    store = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
    Loader(str(base), store, reload_interval=0).load_round()
    sampled = DataProvider(str(base), store, samples_per_plugin={"scalar": 1000})
    series = sampled.read_scalars("./run", "x")
    assert len(series) == 1000 and series.step[-1] == 3000
    assert np.all(np.diff(series.step) > 0)
    assert len(DataProvider(str(base), store).read_scalars("./run", "x")) == 3000


def test_stale_incomplete_record_is_reported(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    path = Path(_write_steps(base / "run", range(1, 11), ["x"]))
    path.write_bytes(path.read_bytes()[:-7])  # the last record is cut
    now = [1000.0]
    store = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
    loader = Loader(str(base), store, reload_interval=0, clock=lambda: now[0])
    provider = DataProvider(str(base), store, clock=lambda: now[0])
    loader.load_round()
    job = provider.job("./run")
    assert job.is_intact and job.status == "loaded"  # may still be being written
    assert len(provider.read_scalars("./run", "x")) == 9
    now[0] += 601
    loader.load_round()
    assert any("incomplete last record" in r for r in provider.job("./run").reasons)


def test_ready_and_loaded_once(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    path = Path(_write_steps(base / "run", range(1, 6), ["x"]))
    store, loader, provider = _open(base, tmp_path / "ws")
    assert not provider.ready and provider.list_jobs() == []
    loader.load_round()
    assert provider.ready
    job = provider.job("./run")
    assert job.status == "loaded" and job.loaded_once
    with path.open("ab") as handle:  # the job grows: loading again, but it was loaded once
        handle.write(path.read_bytes()[-60:])
    [info] = discover_jobs(str(base))
    state = store.load_job("./run")
    loader._reconcile(info, state)
    assert state.status == "loading" and state.loaded_once


def test_scalar_window_reads_a_range_from_the_cached_series(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    _write_steps(base / "job", range(1, 5001), ["loss"])
    _, loader, provider = _open(base, tmp_path / "ws")
    loader.load_round()
    series = provider.read_scalars("./job", "loss")
    raw = provider.read_scalar_window("./job", "loss", 1200, 1299, 500)
    assert raw.raw and raw.points_in_range == 100
    assert raw.series.step.tolist() == list(range(1200, 1300))
    np.testing.assert_array_equal(raw.series.value, series.value[1199:1299])
    wide = provider.read_scalar_window("./job", "loss", None, None, 10)  # from the pyramid
    assert wide.points_in_range == 5000 and len(wide.series) <= 10
    assert wide.series.step[0] == 1 and wide.series.step[-1] == 5000
    assert wide.series.value.max() == series.value.max()
    cached = len(provider._cache)
    provider.read_scalar_window("./job", "loss", 1, 4000, 10)
    assert len(provider._cache) == cached  # the series and its pyramid, built once
    assert provider.read_scalar_window("./job", "loss").series.step.tolist() == list(range(1, 5001))
    with pytest.raises(TagNotFound):
        provider.read_scalar_window("./job", "nope", 1, 2, 10)
