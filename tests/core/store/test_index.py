"""The diskcache index: typed entries (NamedTuple chunks, frozen dataclass records) stored
without pickle, chunk merging, and rebuilding an index of another format."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight.core.store.chunks import SUMMARY_LEVELS
from dash_insight.core.store.codec import decode
from dash_insight.core.store.index import (
    INDEX_FORMAT,
    MAX_CHUNK_ENTRIES,
    BlobColumns,
    IndexStore,
    ScalarColumns,
    index_directory,
    prepare_chunks,
)
from dash_insight.core.store.index_api import IndexApi, IndexConflict
from dash_insight.core.store.loader import Loader
from dash_insight.core.store.state import FileState, GraphRecord, JobState, LineageRecord

OpenStore = Callable[[str], IndexApi]  # base directory -> its index


@pytest.fixture(params=["diskcache", pytest.param("redis", marks=pytest.mark.fleet)])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens the index of a base directory: the diskcache one, or the Redis one (a real
    redis-server, keys of this test's own base directory)."""
    opened: list[IndexApi] = []

    def open_(base_dir: str) -> IndexApi:
        if request.param == "diskcache":
            store: IndexApi = IndexStore(index_directory(str(tmp_path / "ws"), base_dir))
        else:
            from dash_insight.core.store.redis_index import RedisIndexStore

            store = RedisIndexStore(
                request.getfixturevalue("redis_url"),
                str(tmp_path / "key-space" / base_dir.strip("/")),
            )
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


def _entries(store: IndexApi) -> Iterator[tuple[str, Any]]:
    """Every entry, as another process would decode it."""
    if isinstance(store, IndexStore):
        for key in store._cache.iterkeys():
            yield key, store._cache[key]
        return
    client = store.client  # type: ignore[attr-defined]
    for key in client.scan_iter(match=store.prefix + "*"):  # type: ignore[attr-defined]
        if client.type(key) == b"string":
            raw = client.get(key)
            assert raw is not None and not raw.startswith(b"\x80"), key  # never a pickle
            if raw.startswith(b"DIX"):  # an entry, not a counter
                yield key.decode(), decode(raw)


def test_corpus_entries_are_typed_and_never_pickles(corpus: Path, open_store: OpenStore) -> None:
    store = open_store(str(corpus))
    Loader(str(corpus), store, reload_interval=0).load_round()
    kinds: set[type] = set()
    for _key, value in _entries(store):
        kinds.add(type(value))
        if isinstance(value, JobState):
            assert all(type(plugin) is str for plugin in value.tags)
            assert all(type(g) is GraphRecord for g in value.graphs)
            assert all(type(r) is LineageRecord for r in value.lineage)
            for file_state in value.files.values():
                assert all(type(p) is str and type(t) is str for p, t in file_state.chunks)
    assert {ScalarColumns, BlobColumns, JobState} <= kinds
    lenet = store.load_job("./lenet_sc")
    assert lenet is not None and lenet.lineage and lenet.graphs
    assert {r.kind for r in lenet.lineage} >= {"train_lineage", "dataset_graph"}
    assert lenet.graphs[0].kind == "summary" and lenet.graphs[0].offset > 0


def _scalars(steps: range) -> ScalarColumns:
    step = np.arange(steps.start, steps.stop, dtype=np.int64)
    return ScalarColumns(step, step.astype(np.float64), step.astype(np.float32))


def test_chunks_merge_and_keep_their_layout(open_store: OpenStore) -> None:
    store = open_store("/chunks")
    state = JobState("./j")
    file_state = state.files["f"] = FileState("f", "summary", (1, 1))
    for start in range(0, 100, 10):
        store.append_chunk(state, file_state, "scalar", "x", _scalars(range(start, start + 10)))
    assert sum(ref.entries for ref in file_state.chunks[("scalar", "x")]) == 100
    assert len(file_state.chunks[("scalar", "x")]) < 10  # merged LSM-style
    [(read_file, columns)] = store.read_columns(state, "scalar", "x", ScalarColumns)
    assert read_file is file_state and type(columns) is ScalarColumns
    assert columns.step.tolist() == list(range(100))
    assert columns.value.dtype == np.float32

    blobs = [
        BlobColumns(
            np.array([s], np.int64),
            np.array([0.5]),
            np.array([8 * s], np.int64),
            np.array([4], np.int64),
            np.array([0], np.int32),
            [{"n": s}],
        )
        for s in range(3)
    ]
    for chunk in blobs:
        store.append_chunk(state, file_state, "image", "i", chunk)
    [(_, merged)] = store.read_columns(state, "image", "i", BlobColumns)
    assert type(merged) is BlobColumns
    assert merged.offset.tolist() == [0, 8, 16] and merged.meta == [{"n": 0}, {"n": 1}, {"n": 2}]
    with pytest.raises(TypeError, match="BlobColumns, not ScalarColumns"):
        store.read_columns(state, "image", "i", ScalarColumns)


def _stored(store: IndexApi, state: JobState, file_state: FileState) -> list[Any]:
    """Every chunk of ``file_state`` with its summaries as read back, serials left out."""
    out: list[Any] = []
    for (plugin, tag), refs in file_state.chunks.items():
        for ref in refs:
            layout: type = ScalarColumns if plugin == "scalar" else BlobColumns
            columns = store.read_chunk(
                state.train_id, plugin, tag, file_state.name, ref.serial, layout
            )
            summaries = [
                store.read_summary(state.train_id, plugin, tag, file_state.name, ref.serial, level)
                for level in SUMMARY_LEVELS
                if ref.ascending and ref.entries and plugin == "scalar"
            ]
            out.append(
                (
                    plugin,
                    tag,
                    ref._replace(serial=0),
                    type(columns),
                    [c.tobytes() if isinstance(c, np.ndarray) else c for c in columns],
                    [[c.tobytes() for c in summary] for summary in summaries],
                )
            )
    return out


def test_prepared_chunks_are_stored_as_append_chunk_stores_them(open_store: OpenStore) -> None:
    """A load worker's :func:`prepare_chunks` + the writer's ``append_prepared`` (one bulk
    insert) store what ``append_chunk(merge=False)`` stores: the same chunks, cut at
    MAX_CHUNK_ENTRIES, with the same refs (bounds, extremes) and summaries; each entry is read
    back through the index's ordinary reads, and diskcache still counts every entry."""
    long = _scalars(range(MAX_CHUNK_ENTRIES + 500))
    long.value[7] = np.nan
    unordered = ScalarColumns(np.array([5, 3, 9], np.int64), np.zeros(3), np.ones(3, np.float32))
    blob = BlobColumns(
        np.array([1, 2], np.int64),
        np.array([0.5, 1.5]),
        np.array([0, 64], np.int64),
        np.array([64, 64], np.int64),
        np.array([0, 1], np.int32),
        [{"height": 2, "width": 3}, None],
    )
    tags = [("scalar", "long", long), ("scalar", "unordered", unordered), ("image", "i", blob)]
    direct, prepared = JobState("./j"), JobState("./j")
    for state, name in ((direct, "direct"), (prepared, "prepared")):
        state.files["f"] = FileState("f", "summary", (1, 1))
        store = open_store(f"/{name}")
        with store.transaction():
            if state is direct:
                for plugin, tag, columns in tags:
                    store.append_chunk(state, state.files["f"], plugin, tag, columns, False)
            else:
                store.append_prepared(
                    state,
                    state.files["f"],
                    [(plugin, tag, prepare_chunks(columns)) for plugin, tag, columns in tags],
                )
    assert len(prepared.files["f"].chunks[("scalar", "long")]) == 2
    # Steps 0, 1, 2, ... delta-encoded, all three columns compressed: a few bytes a point.
    assert len(prepare_chunks(_scalars(range(1000)))[0].columns) < 6 * 1000
    serials = [ref.serial for refs in prepared.files["f"].chunks.values() for ref in refs]
    assert len(set(serials)) == len(serials) == 4
    assert _stored(store, prepared, prepared.files["f"]) == _stored(
        open_store("/direct"), direct, direct.files["f"]
    )
    if isinstance(store, IndexStore):
        entries = 4 + 2 * len(SUMMARY_LEVELS)  # 4 chunks, the summaries of the 2 ascending
        assert len(store._cache) == entries + 2  # + the format and the chunk serial counter
        assert store._cache.volume() > 0 and store._cache.check() == []


def test_an_index_of_another_format_is_rebuilt(tmp_path: Path) -> None:
    directory = str(tmp_path / "index")
    store = IndexStore(directory)
    store.set_job_list([("./old", 1.0, 2.0)])
    store._cache.set("format", INDEX_FORMAT - 1)
    store.close()
    reopened = IndexStore(directory)
    assert not reopened.has_job_list()
    assert reopened._cache.get("format") == INDEX_FORMAT
    reopened.close()


def test_a_transaction_writes_all_or_nothing_and_checks_versions(open_store: OpenStore) -> None:
    """What fleet writers rely on: a failed transaction leaves nothing behind, and one that
    expects a job at a version another writer has moved on from writes nothing."""
    store = open_store("/versions")
    with store.transaction(expect={"./a": None}):
        store.save_job(JobState("./a", version=1))
        store.set_job_list([("./a", 1.0, 2.0)])
        store.bump_generation()
    assert store.job_versions() == {"./a": 1} and store.generation() == 1
    with pytest.raises(RuntimeError), store.transaction():
        store.save_job(JobState("./a", version=2))
        store.set_job_list([])
        store.bump_generation()
        raise RuntimeError("the writer fails before committing")
    assert store.job_versions() == {"./a": 1} and store.job_list() == [("./a", 1.0, 2.0)]
    assert store.generation() == 1
    with pytest.raises(IndexConflict), store.transaction(expect={"./a": 0}):
        store.save_job(JobState("./a", version=5))
    other = JobState("./b", version=3)
    with store.transaction():  # another job's version does not disturb ./a's
        store.save_job(other)
        store.bump_generation()
    assert store.job_versions() == {"./a": 1, "./b": 3}
    with store.transaction(expect={"./b": 3}):
        store.delete_job(other)
        store.bump_generation()
    assert store.job_versions() == {"./a": 1} and store.load_job("./b") is None


def test_every_thread_reads_the_index_with_a_small_page_cache_and_no_memory_map(
    tmp_path: Path,
) -> None:
    """Each thread has its own SQLite connection: with diskcache's 32 MB page cache and 64 MB
    memory map each, the web server's threads held hundreds of MB of chunk pages after a few
    step-window reads."""
    import threading

    store = IndexStore(str(tmp_path / "index"))
    found: list[tuple[int, int]] = []

    def pragmas() -> None:
        sql = store._cache._sql  # the calling thread's connection
        found.append(
            (sql("PRAGMA cache_size").fetchone()[0], sql("PRAGMA mmap_size").fetchone()[0])
        )

    reader = threading.Thread(target=pragmas)
    reader.start()
    reader.join()
    pragmas()
    assert found == [(1024, 0), (1024, 0)]
    store.close()


def test_a_large_write_ahead_log_is_truncated_after_a_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers polling the index keep SQLite's passive checkpoints from starting the log over;
    past the threshold, the loader's transaction checkpoints and truncates it."""
    from dash_insight.core.store import index

    store = index.IndexStore(str(tmp_path / "index"))
    wal = tmp_path / "index" / "cache.db-wal"
    reader = index.IndexStore(str(tmp_path / "index"))
    reader.job_list()  # another connection, as a web worker's
    blob = np.arange(1 << 16, dtype=np.int64).tobytes()
    with store.transaction():
        store._cache.set("blob-1", blob)
    assert wal.stat().st_size > (1 << 19)  # under the threshold: left to SQLite
    monkeypatch.setattr(index, "_WAL_CHECKPOINT_BYTES", 1 << 19)
    with store.transaction():
        store._cache.set("blob-2", blob)
    assert wal.stat().st_size == 0
    assert reader._cache.get("blob-1") == blob
    assert reader._cache.get("blob-2") == blob
