"""Loading on several cores (issue #18 item 6): the loader's worker processes.

One worker or many must give the same index and the same answers; a worker that dies or raises
on a file costs that file's unread slice only (recorded as damage, every point read before it
visible, every other file read), and damage inside a file is found the same way by a worker.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.format.scan import EventScanner
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.index import BlobColumns, IndexStore, ScalarColumns
from dash_insight.core.store.load_pool import (
    LoadPool,
    SliceTask,
    WorkerCrashed,
    following_slices,
    read_slice,
)
from dash_insight.core.store.loader import Loader
from dash_insight.core.vocabulary import PluginName
from tests.core.store.failing_slices import VICTIM

#: Small slices: every file of the test jobs is read in several of them.
SLICE_BYTES = 4096
STEPS = 300


def write_job(base: Path, name: str, files: int = 1, steps: int = STEPS) -> None:
    """A job of ``files`` summary files (each a new SummaryWriter: its own timestamped file)
    with two scalar tags and a histogram every 10 steps, and a lineage file."""
    rng = np.random.default_rng(len(name))
    for part in range(files):
        with SummaryWriter(base / name, host=f"h{part}") as writer:
            for step in range(part * steps + 1, (part + 1) * steps + 1):
                writer.add_value("scalar", "loss", float(rng.random()))
                writer.add_value("scalar", "acc", float(step % 7))
                if step % 10 == 0:
                    writer.add_value("histogram", "w", rng.standard_normal(50).astype(np.float32))
                writer.record(step)
            if part == 0:
                writer.add_train_lineage(optimizer="SGD", learning_rate=0.1, epoch=3, loss=0.5)
            writer.flush()


def load(base: Path, workspace: Path, workers: int, **options: Any) -> tuple[Loader, IndexStore]:
    store = IndexStore(str(workspace / "index"))
    loader = Loader(
        str(base),
        store,
        reload_interval=0,
        slice_bytes=SLICE_BYTES,
        load_workers=workers,
        pool_min_bytes=0,
        **options,
    )
    loader.load_round()
    return loader, store


@pytest.fixture
def base(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    write_job(folder, "single")
    write_job(folder, "three_files", files=3)
    write_job(folder / "group", "nested", files=2, steps=120)
    return folder


def answers(provider: DataProvider, store: IndexStore) -> dict[str, Any]:
    """Everything the index answers about every job, in plain comparable values."""
    out: dict[str, Any] = {}
    for job in provider.list_jobs():
        train_id = job.train_id
        state = store.load_job(train_id)
        assert state is not None
        entry: dict[str, Any] = {
            "status": job.status,
            "reasons": sorted(job.reasons),
            "tags": {},
            "bytes": (job.bytes_read, job.bytes_on_disk),
            "lineage": [
                (r.file, r.offset, r.kind, repr(r.data)) for r in provider.lineage_records(train_id)
            ],
            "graphs": provider.graph_tags(train_id),
        }
        for plugin in (PluginName.SCALAR.value, PluginName.HISTOGRAM.value):
            for tag in provider.list_tags(train_id, plugin):
                if plugin == PluginName.SCALAR.value:
                    series = provider.read_scalars(train_id, tag)
                    entry["tags"][(plugin, tag)] = (
                        series.step.tolist(),
                        series.wall_time.tolist(),
                        series.value.tobytes(),
                    )
                    layout: type = ScalarColumns
                else:
                    steps = provider.value_steps(train_id, plugin, tag)
                    last = provider.read_value(train_id, plugin, tag, int(steps.step[-1]))
                    entry["tags"][(plugin, tag)] = (steps.step.tolist(), repr(last))
                    layout = BlobColumns
                for file_state, columns in store.read_columns(state, plugin, tag, layout):
                    # bytes, not lists: NaN values (the corpus has some) compare equal so
                    entry.setdefault("columns", {})[(file_state.name, plugin, tag)] = [
                        (c.dtype.str, c.tobytes()) if isinstance(c, np.ndarray) else c
                        for c in columns
                    ]
        entry["files"] = {
            name: (
                f.offset,
                f.records,
                f.caught_up,
                f.read_size,
                f.lost_at,
                [(d.offset, d.reason) for d in f.damage],
            )
            for name, f in state.files.items()
        }
        out[train_id] = entry
    return out


def loaded_answers(
    base: Path, workspace: Path, workers: int, **options: Any
) -> tuple[Loader, dict[str, Any]]:
    loader, store = load(base, workspace, workers, **options)
    try:
        return loader, answers(DataProvider(str(base), store), store)
    finally:
        store.close()


def test_one_worker_or_three_give_the_same_index(base: Path, tmp_path: Path) -> None:
    serial, one = loaded_answers(base, tmp_path / "one", workers=1)
    pooled, three = loaded_answers(base, tmp_path / "three", workers=3)
    assert serial.pool_passes == 0 and pooled.pool_passes > 0
    assert set(one) == {"./single", "./three_files", "./group/nested"}
    assert one == three
    for entry in three.values():
        assert entry["status"] == "loaded" and entry["reasons"] == []
    assert len(three["./three_files"]["tags"][("scalar", "loss")][0]) == 3 * STEPS


def test_the_real_corpus_gives_the_same_index_with_workers(corpus: Path, tmp_path: Path) -> None:
    _, one = loaded_answers(corpus, tmp_path / "one", workers=1)
    pooled, two = loaded_answers(corpus, tmp_path / "two", workers=2)
    assert pooled.pool_passes > 0
    assert one == two


def test_a_damaged_file_read_by_a_worker_keeps_every_readable_point(
    base: Path, tmp_path: Path
) -> None:
    summary = next(p for p in (base / "single").iterdir() if p.name.endswith("_MS"))
    data = bytearray(summary.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 40] = b"\xff" * 40  # a damaged record (or two) in the middle
    summary.write_bytes(bytes(data))
    _, one = loaded_answers(base, tmp_path / "one", workers=1)
    pooled, three = loaded_answers(base, tmp_path / "three", workers=3)
    assert pooled.pool_passes > 0
    assert one == three
    single = three["./single"]
    assert any("@" in reason for reason in single["reasons"])  # the damage is reported
    steps = single["tags"][("scalar", "loss")][0]
    assert steps[0] == 1 and steps[-1] == STEPS and STEPS - 5 <= len(steps) < STEPS


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("crash_on_victim", "the load worker stopped while reading this file (exit code 9)"),
        ("raise_on_victim", "ValueError('a reader bug')"),
    ],
)
def test_a_worker_failing_on_a_file_costs_that_file_only(
    base: Path, tmp_path: Path, target: str, reason: str
) -> None:
    write_job(base, VICTIM)
    loader, result = loaded_answers(
        base, tmp_path / "ws", workers=2, pool_target=f"tests.core.store.failing_slices:{target}"
    )
    assert loader.pool_passes > 0
    victim = result[f"./{VICTIM}"]
    # The first slice (read before the failure) stays visible; the rest is reported.
    steps = victim["tags"][("scalar", "loss")][0]
    assert 0 < len(steps) < STEPS and steps == list(range(1, len(steps) + 1))
    assert len(victim["reasons"]) == 1 and reason in victim["reasons"][0]
    assert victim["status"] == "loaded"
    for train_id in ("./single", "./three_files", "./group/nested"):
        assert result[train_id]["reasons"] == [] and result[train_id]["status"] == "loaded"
    assert len(result["./three_files"]["tags"][("scalar", "loss")][0]) == 3 * STEPS


def summary_tasks(base: Path) -> Iterator[SliceTask]:
    for path in sorted(base.rglob("*_MS")):
        yield SliceTask(
            path=str(path),
            tensorboard=False,
            offset=0,
            lost_at=None,
            inode=None,
            max_payload=1 << 20,
            slice_bytes=1 << 30,
        )


def test_the_pool_answers_in_order_and_replaces_a_dead_worker(base: Path, tmp_path: Path) -> None:
    victim = tmp_path / VICTIM
    write_job(victim, "job")
    tasks = list(summary_tasks(base))
    crashing = SliceTask(
        path=str(next(victim.rglob("*_MS"))),
        tensorboard=False,
        offset=1,
        lost_at=None,
        inode=None,
        max_payload=1 << 20,
        slice_bytes=1 << 30,
    )
    with LoadPool(2, "tests.core.store.failing_slices:crash_on_victim") as pool:
        got = list(pool.ordered([tasks[0], crashing, *tasks[1:]]))
        assert pool.crashes == 1
    assert isinstance(got[1], WorkerCrashed)
    del got[1]
    expected = [read_slice(task) for task in tasks]
    assert [g.offset for g in got] == [e.offset for e in expected]
    assert [sorted(g.scan.scalars) for g in got] == [sorted(e.scan.scalars) for e in expected]
    for g, e in zip(got, expected, strict=True):
        for tag in e.scan.scalars:
            assert np.array_equal(g.scan.scalars[tag].value, e.scan.scalars[tag].value)


def test_workers_run_in_sessions_of_their_own_and_end_with_the_pool(base: Path) -> None:
    """Each worker leads a session of its own (Linux's autogroup scheduling gives every
    session one share of the CPU: workers in the loader's session only divided its share) and
    still ends when the pool closes; a prepared slice's chunks come back as bytes."""
    tasks = [replace(task, prepare=True) for task in summary_tasks(base)]
    with LoadPool(2) as pool:
        got = list(pool.ordered(tasks))
        processes = [worker.process for worker in pool._all]
        assert processes and all(os.getsid(p.pid) == p.pid != os.getsid(0) for p in processes)
    assert all(p.poll() is not None for p in processes)
    for result in got:
        assert result.prepared and not result.scan.scalars
        assert all(
            isinstance(chunk.columns, bytes) for _, _, chunks in result.prepared for chunk in chunks
        )


def test_a_pool_with_nothing_worth_it_reads_in_process(base: Path, tmp_path: Path) -> None:
    """Below ``pool_min_bytes`` (a live run's few new records) no worker is started."""
    store = IndexStore(str(tmp_path / "index"))
    try:
        loader = Loader(str(base), store, reload_interval=0, load_workers=4)
        loader.load_round()
        assert loader.pool_passes == 0
        assert len(DataProvider(str(base), store).list_jobs()) == 3
    finally:
        store.close()
    shutil.rmtree(tmp_path / "index")
    assert not os.path.exists(tmp_path / "index")


def _task(path: str, **fields: Any) -> SliceTask:
    values: dict[str, Any] = {
        "tensorboard": False,
        "offset": 100,
        "lost_at": None,
        "inode": 7,
        "max_payload": 1 << 20,
        "slice_bytes": 1000,
        "prepare": True,
        **fields,
    }
    return SliceTask(path=path, **values)


def test_following_slices_cut_a_slice_into_pieces_with_framing_lost_where_they_start() -> None:
    task = _task("/logs/run/x.summary.1_MS", scanner=EventScanner())
    pieces = following_slices(task, size=3_500, piece_bytes=250)
    assert [(p.offset, p.lost_at, p.slice_bytes) for p in pieces] == [
        (100, None, 250),
        (350, 350, 250),
        (600, 600, 250),
        (850, 850, 250),
    ]
    assert pieces[0].scanner is task.scanner and all(p.scanner is None for p in pieces[1:])
    assert [p.offset for p in following_slices(task, size=500, piece_bytes=250)] == [100, 350]
    assert following_slices(task, size=3_500, piece_bytes=1000) == [task]
    assert following_slices(task, size=300, piece_bytes=250) == [task]  # one piece: the slice
    # Only a local MindSpore file read for the first time from a record boundary is cut.
    for other in (
        _task("/x", tensorboard=True),
        _task("/x", prepare=False),
        _task("/x", lost_at=90),
        _task("/x", prefix_digest=b"d"),
        _task("https://host/logs/x.summary.1_MS"),
    ):
        assert following_slices(other, size=10_000, piece_bytes=250) == [other]


def test_one_large_file_is_read_by_every_worker_into_the_same_index(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    write_job(base, "one_file", steps=3 * STEPS)
    serial, one = loaded_answers(base, tmp_path / "one", workers=1)
    pooled, two = loaded_answers(base, tmp_path / "two", workers=2)
    assert serial.pool_passes == 0 and pooled.pool_passes > 0 and pooled.pieces_dropped == 0
    assert one == two
    assert len(two["./one_file"]["tags"][("scalar", "loss")][0]) == 3 * STEPS


@pytest.mark.parametrize("where", [0.3, 0.5, 0.7])
def test_damage_read_by_pieces_is_found_as_one_worker_finds_it(
    tmp_path: Path, where: float
) -> None:
    base = tmp_path / "logs"
    write_job(base, "one_file", steps=3 * STEPS)
    summary = next(p for p in (base / "one_file").iterdir() if p.name.endswith("_MS"))
    data = bytearray(summary.read_bytes())
    start = int(len(data) * where)
    data[start : start + 1500] = b"\xfe" * 1500  # longer than two pieces
    summary.write_bytes(bytes(data))
    _, one = loaded_answers(base, tmp_path / "one", workers=1)
    pooled, three = loaded_answers(base, tmp_path / "three", workers=3)
    assert pooled.pool_passes > 0
    assert one == three
    assert any("@" in reason for reason in three["./one_file"]["reasons"])


def test_a_piece_that_does_not_continue_its_file_is_dropped_and_read_again(tmp_path: Path) -> None:
    """Pieces that fail (as one starting inside a damaged record would not begin where the
    piece before ended) are dropped without a trace: the file is read on from its offset."""
    base = tmp_path / "logs"
    write_job(base, "one_file", steps=3 * STEPS)
    _, one = loaded_answers(base, tmp_path / "one", workers=1)
    pooled, two = loaded_answers(
        base,
        tmp_path / "two",
        workers=2,
        pool_target="tests.core.store.failing_slices:raise_on_pieces",
    )
    assert pooled.pool_passes > 0 and pooled.pieces_dropped > 0
    assert one == two and two["./one_file"]["reasons"] == []
