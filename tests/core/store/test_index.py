"""The diskcache index: typed entries (NamedTuple chunks, frozen dataclass records) that pickle
without the enum class, chunk merging, and rebuilding an index of another format."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.store.index import (
    INDEX_FORMAT,
    BlobColumns,
    IndexStore,
    ScalarColumns,
    index_directory,
)
from dash_insight.core.store.loader import Loader
from dash_insight.core.store.state import FileState, GraphRecord, JobState, LineageRecord


def test_corpus_entries_are_typed_and_pickle_plain_strings(corpus: Path, tmp_path: Path) -> None:
    store = IndexStore(index_directory(str(tmp_path), str(corpus)))
    Loader(str(corpus), store, reload_interval=0).load_round()
    cache = store._cache  # every entry, as another process would unpickle it
    kinds: set[type] = set()
    for key in cache.iterkeys():
        value = cache[key]
        kinds.add(type(value))
        # Plugin names are stored as plain str: a pickle naming the enum would break when the
        # vocabulary changes (and cost a class lookup per entry).
        assert b"vocabulary" not in pickle.dumps(value, pickle.HIGHEST_PROTOCOL), key
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


def test_chunks_merge_and_keep_their_layout(tmp_path: Path) -> None:
    store = IndexStore(str(tmp_path / "index"))
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

    blobs = [BlobColumns(np.array([s], np.int64), np.array([0.5]), np.array([8 * s], np.int64),
                         np.array([4], np.int64), np.array([0], np.int32), [{"n": s}])
             for s in range(3)]
    for chunk in blobs:
        store.append_chunk(state, file_state, "image", "i", chunk)
    [(_, merged)] = store.read_columns(state, "image", "i", BlobColumns)
    assert type(merged) is BlobColumns
    assert merged.offset.tolist() == [0, 8, 16] and merged.meta == [{"n": 0}, {"n": 1}, {"n": 2}]
    with pytest.raises(TypeError, match="BlobColumns, not ScalarColumns"):
        store.read_columns(state, "image", "i", ScalarColumns)


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
