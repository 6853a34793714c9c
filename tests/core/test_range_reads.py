"""Step-window reads of scalar tags from the chunks that overlap the window (issue #18 item 2):
the same answers as merging the whole tag, without reading the chunks outside the window."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.provider import DataProvider, IndexEntryMissing
from dash_insight.core.store import index
from dash_insight.core.store.chunks import SUMMARY_LEVELS, summarise
from dash_insight.core.store.index import IndexStore, ScalarColumns, _key
from dash_insight.core.store.lod import ExtremaPyramid, window
from dash_insight.core.store.series import ScalarSeries, merge_points
from dash_insight.core.store.state import FileState, JobState

TRAIN_ID = "./job"
TAG = "loss"


def _columns(step: np.ndarray) -> ScalarColumns:
    step = np.asarray(step, np.int64)
    value = (np.sin(step / 300.0) + 0.001 * (step % 7)).astype(np.float32)
    return ScalarColumns(step, 1e9 + step * 0.5, value)


def _job(
    tmp_path: Path,
    files: list[list[np.ndarray]],
    columns: Callable[[np.ndarray], ScalarColumns] = _columns,
) -> tuple[IndexStore, DataProvider]:
    """A job whose file ``i`` (rank ``i``) holds one chunk per array of ``files[i]`` (its points:
    ``columns(steps)``), written first-read style (no merging), as the loader does for a large
    file."""
    store = IndexStore(str(tmp_path / "index"))
    state = JobState(TRAIN_ID, version=1)
    for rank, chunks in enumerate(files):
        file_state = state.files[f"f{rank}"] = FileState(
            f"f{rank}", "summary", (rank, rank), rank=rank
        )
        for step in chunks:
            store.append_chunk(state, file_state, "scalar", TAG, columns(step), merge=False)
    state.tags = {"scalar": {TAG: {name: 1 for name in state.files}}}
    with store.transaction():
        store.save_job(state)
        store.set_job_list([(TRAIN_ID, 0.0, 0.0)])
        store.bump_generation()
    return store, DataProvider(str(tmp_path), store)


def _merged(store: IndexStore) -> tuple[np.ndarray, ...]:
    """The whole tag merged by MindInsight's rule: what every window is compared with."""
    state = store.load_job(TRAIN_ID)
    assert state is not None
    parts = store.read_columns(state, "scalar", TAG, ScalarColumns)
    series = merge_points(
        np.concatenate([c.step for _, c in parts]),
        np.concatenate([c.wall_time for _, c in parts]),
        np.concatenate([c.value for _, c in parts]),
        np.concatenate([np.full(len(c.step), f.rank) for f, c in parts]),
    )
    return series.step, series.wall_time, series.value


def _count_reads(store: IndexStore, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts the chunks (by serial) and summaries the store reads."""
    reads: Counter[str] = Counter()
    chunk, summary = store._chunk, store.read_summary

    def counted_chunk(train_id: str, plugin: str, tag: str, name: str, serial: int) -> object:
        reads[f"chunk {serial}"] += 1
        return chunk(train_id, plugin, tag, name, serial)

    def counted_summary(
        train_id: str, plugin: str, tag: str, name: str, serial: int, level: int
    ) -> object:
        reads[f"summary {serial} {level}"] += 1
        return summary(train_id, plugin, tag, name, serial, level)

    monkeypatch.setattr(store, "_chunk", counted_chunk)
    monkeypatch.setattr(store, "read_summary", counted_summary)
    return reads


def _ten_chunks(size: int = 10_000) -> list[list[np.ndarray]]:
    """Two files of five ascending chunks each, steps 0 .. 10 * size - 1 with gaps of one step
    between chunks (step ``k * size`` is missing)."""
    chunks = [np.arange(k * size + 1, (k + 1) * size) for k in range(10)]
    return [chunks[:5], chunks[5:]]


@pytest.mark.parametrize(
    ("start", "end", "max_points"),
    [
        (12_345, 12_999, None),  # inside one chunk
        (12_345, 12_999, 1000),
        (9_000, 51_000, None),  # across many chunks and both files
        (10_000, 19_999, None),  # exactly one chunk (and the missing step before it)
        (-500, -1, 100),  # before all data
        (200_000, 300_000, 100),  # after all data
        (20_000, 20_000, 10),  # the missing step between two chunks
        (None, None, None),
        (None, 30_500, None),
        (55_000, None, None),
        (12_000, 14_000, 100),  # reduced, read raw (a narrow window)
    ],
)
def test_a_window_is_what_merging_the_whole_tag_gives(
    tmp_path: Path, start: int | None, end: int | None, max_points: int | None
) -> None:
    store, provider = _job(tmp_path, _ten_chunks())
    step, wall, value = _merged(store)
    expected = window(ScalarSeries(step, wall, value), start, end, max_points)
    found = provider.read_scalar_window(TRAIN_ID, TAG, start, end, max_points)
    assert found.points_in_range == expected.points_in_range
    np.testing.assert_array_equal(found.series.step, expected.series.step)
    np.testing.assert_array_equal(found.series.value, expected.series.value)
    np.testing.assert_array_equal(found.series.wall_time, expected.series.wall_time)
    assert found.series.value.dtype == np.float32


def test_a_window_reads_only_the_chunks_it_overlaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, provider = _job(tmp_path, _ten_chunks())
    state = store.load_job(TRAIN_ID)
    assert state is not None
    serials = [
        ref.serial for f in sorted(state.files) for ref in state.files[f].chunks[("scalar", TAG)]
    ]
    reads = _count_reads(store, monkeypatch)
    found = provider.read_scalar_window(TRAIN_ID, TAG, 12_345, 31_000, None)
    assert found.series.step[0] == 12_345 and found.series.step[-1] == 31_000
    assert reads == Counter(
        {f"chunk {serials[1]}": 1, f"chunk {serials[2]}": 1, f"chunk {serials[3]}": 1}
    )
    reads.clear()
    provider.read_scalar_window(TRAIN_ID, TAG, 12_345, 31_000, None)
    assert sum(reads.values()) == 3  # read again: raw chunks are not kept in memory


def test_an_overview_reads_summaries_and_only_the_edge_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = 1 << 16
    chunks = [np.arange(k * size, (k + 1) * size) for k in range(16)]
    spike_step, nan_step = 5 * size + 1234, 11 * size + 77
    store, provider = _job(tmp_path, [chunks])
    state = store.load_job(TRAIN_ID)
    assert state is not None
    serials = [ref.serial for ref in state.files["f0"].chunks[("scalar", TAG)]]
    # A spike and a NaN in chunks read only through their summaries.
    for serial, step in ((serials[5], spike_step), (serials[11], nan_step)):
        columns = store.read_chunk(TRAIN_ID, "scalar", TAG, "f0", serial, ScalarColumns)
        value = columns.value.copy()
        value[step - int(columns.step[0])] = 50.0 if step == spike_step else np.nan
        patched = columns._replace(value=value)
        store._cache.set(_key("chunk", TRAIN_ID, "scalar", TAG, "f0", serial), patched)
        for level in SUMMARY_LEVELS:
            store._cache.set(
                _key("lod", TRAIN_ID, "scalar", TAG, "f0", serial, level),
                summarise(patched.step, patched.wall_time, patched.value, level),
            )
    reads = _count_reads(store, monkeypatch)
    start, end = 1000, 16 * size - 1000
    found = provider.read_scalar_window(TRAIN_ID, TAG, start, end, 1000)
    assert reads[f"chunk {serials[0]}"] == reads[f"chunk {serials[-1]}"] == 1
    assert sum(reads[f"chunk {s}"] for s in serials[1:-1]) == 0
    assert {key for key in reads if key.startswith("summary")} == {
        f"summary {s} 6" for s in serials[1:-1]
    }  # 1M points at 1,000 px: 64-point blocks
    assert found.points_in_range == end - start + 1 and not found.raw
    assert found.series.step[0] == start and found.series.step[-1] == end
    assert 50.0 in found.series.value.tolist()
    assert nan_step in found.series.step[np.isnan(found.series.value)].tolist()
    assert len(found.series) <= 1000 + 1  # the budget, plus the NaN
    # The same envelope as the in-memory pyramid of the merged series (both exact but within
    # one block of a column edge): the same global extremes and ends, nearly the same points.
    step, wall, value = _merged(store)
    merged = ScalarSeries(step, wall, value)
    expected = window(merged, start, end, 1000, ExtremaPyramid.build(merged.value))
    assert found.points_in_range == expected.points_in_range
    assert np.nanmax(found.series.value) == np.nanmax(expected.series.value)
    assert np.nanmin(found.series.value) == np.nanmin(expected.series.value)
    shared = np.intersect1d(found.series.step, expected.series.step)
    assert len(shared) >= 0.9 * len(expected.series)
    # every point drawn is a stored point
    at = np.searchsorted(merged.step, found.series.step)
    np.testing.assert_array_equal(merged.value[at], found.series.value)
    # zooming in to 1,000 steps around the spike: the one chunk holding them, read raw
    reads.clear()
    zoom = provider.read_scalar_window(TRAIN_ID, TAG, spike_step - 500, spike_step + 499, 1000)
    assert zoom.raw and 50.0 in zoom.series.value.tolist()
    assert reads == Counter({f"chunk {serials[5]}": 1})


def test_repeated_and_restarted_steps_are_merged_as_mindinsight_does(tmp_path: Path) -> None:
    first = [np.arange(0, 5_000), np.arange(5_000, 9_000)]
    # a restart from step 6,000 in a newer file purges 6,000-8,999 of the older one, and a
    # repeated step inside one chunk keeps its last value
    second = [np.concatenate([np.arange(6_000, 7_000), [6_500], np.arange(7_000, 12_000)])]
    store, provider = _job(tmp_path, [first, second])
    step, wall, value = _merged(store)
    merged = ScalarSeries(step, wall, value)
    for start, end, max_points in (
        (None, None, None),
        (5_500, 6_600, None),
        (None, None, 200),
        (100, 11_000, 1000),
    ):
        expected = window(merged, start, end, max_points)
        found = provider.read_scalar_window(TRAIN_ID, TAG, start, end, max_points)
        np.testing.assert_array_equal(found.series.step, expected.series.step)
        np.testing.assert_array_equal(found.series.value, expected.series.value)
    assert provider.read_scalar_window(TRAIN_ID, TAG).points_in_range == 12_000


@pytest.mark.parametrize("entry", ["chunk", "lod"])
def test_a_chunk_missing_from_the_index_asks_for_a_rebuild(tmp_path: Path, entry: str) -> None:
    size = 1 << 16
    store, provider = _job(tmp_path, [[np.arange(k * size, (k + 1) * size) for k in range(8)]])
    state = store.load_job(TRAIN_ID)
    assert state is not None
    serial = state.files["f0"].chunks[("scalar", TAG)][3].serial
    if entry == "chunk":
        store._cache.delete(_key("chunk", TRAIN_ID, "scalar", TAG, "f0", serial))
    else:
        for level in SUMMARY_LEVELS:
            store._cache.delete(_key("lod", TRAIN_ID, "scalar", TAG, "f0", serial, level))
    with pytest.raises(IndexEntryMissing, match="being read again"):
        # an overview reads the summaries; a raw read of everything reads the chunks
        provider.read_scalar_window(TRAIN_ID, TAG, None, None, 1000 if entry == "lod" else None)
    assert store.take_rebuild_requests() == {TRAIN_ID}
    # what does not need the lost entry is still answered
    assert provider.read_scalar_window(TRAIN_ID, TAG, 0, 99, None).series.step.tolist() == list(
        range(100)
    )


def test_live_merges_stop_at_the_cap_and_keep_summaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index, "MAX_CHUNK_ENTRIES", 64)
    store = IndexStore(str(tmp_path / "index"))
    state = JobState(TRAIN_ID)
    file_state = state.files["f"] = FileState("f", "summary", (1, 1))
    for start in range(0, 1000, 10):  # a live job: one small chunk per reload
        store.append_chunk(state, file_state, "scalar", TAG, _columns(np.arange(start, start + 10)))
    refs = file_state.chunks[("scalar", TAG)]
    assert all(ref.entries <= 64 for ref in refs) and sum(ref.entries for ref in refs) == 1000
    assert len(refs) < 40  # merged, LSM-style, up to the cap
    for ref in refs:
        assert ref.ascending
        columns = store.read_chunk(TRAIN_ID, "scalar", TAG, "f", ref.serial, ScalarColumns)
        assert (ref.first_step, ref.last_step) == (columns.step[0], columns.step[-1])
        for level in SUMMARY_LEVELS:
            summary = store.read_summary(TRAIN_ID, "scalar", TAG, "f", ref.serial, level)
            assert summary.step[0] == ref.first_step and summary.step[-1] == ref.last_step


def test_a_large_slice_is_stored_in_chunks_of_at_most_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slice of a file holding many points of one tag is cut at the cap, so a window read
    never reads a chunk larger than it; the windows still equal the merged series."""
    monkeypatch.setattr(index, "MAX_CHUNK_ENTRIES", 100)
    store, provider = _job(tmp_path, [[np.arange(0, 1050)]])
    state = store.load_job(TRAIN_ID)
    assert state is not None
    refs = state.files["f0"].chunks[("scalar", TAG)]
    assert [ref.entries for ref in refs] == [100] * 10 + [50]
    assert [(ref.first_step, ref.last_step) for ref in refs][-2:] == [(900, 999), (1000, 1049)]
    step, wall, value = _merged(store)
    for start, end in ((None, None), (95, 205), (1000, 1049), (333, 334)):
        found = provider.read_scalar_window(TRAIN_ID, TAG, start, end, None)
        lo = 0 if start is None else start
        hi = len(step) if end is None else end + 1
        np.testing.assert_array_equal(found.series.step, step[lo:hi])
        np.testing.assert_array_equal(found.series.value, value[lo:hi])
        np.testing.assert_array_equal(found.series.wall_time, wall[lo:hi])


@pytest.mark.parametrize(
    "files",
    [[[np.arange(0, 100), np.arange(100, 130)]], [[np.arange(0, 100)], [np.arange(50, 80)]]],
    ids=["ordered", "restarted"],
)
def test_the_extent_of_a_tag_is_its_merged_length_and_last_step(
    tmp_path: Path, files: list[list[np.ndarray]]
) -> None:
    """What the chart plan shows (points, last step) without drawing anything: from the chunk
    bounds of an ordered tag, from the merge otherwise (a restart purges the larger steps)."""
    store, provider = _job(tmp_path, files)
    step, _, _ = _merged(store)
    assert provider.scalar_extent(TRAIN_ID, TAG) == (len(step), int(step[-1]))


def _spiky_columns(step: np.ndarray) -> ScalarColumns:
    """:func:`_columns` whose values tie across chunks and hold NaN / ±inf: the minimum -1 at
    steps 50 and 120, the maximum 5 at steps 10 and 110, +inf at 20, -inf at 30, NaN at 40."""
    columns = _columns(step)
    value = columns.value.copy()
    for at, spike in (
        (10, 5.0),
        (110, 5.0),
        (50, -1.0),
        (120, -1.0),
        (20, np.inf),
        (30, -np.inf),
        (40, np.nan),
    ):
        value[columns.step == at] = spike
    return ScalarColumns(columns.step, columns.wall_time, value)


@pytest.mark.parametrize(
    ("files", "ordered"),
    [
        ([[np.arange(0, 100), np.arange(100, 130)]], True),
        ([[np.arange(0, 60), np.arange(60, 130)]], True),
        ([[np.arange(0, 100)], [np.arange(45, 130)]], False),  # a restart at 45 purges 45-99
    ],
    ids=["ordered", "ordered-other-cut", "restarted"],
)
def test_the_extremes_of_a_tag_are_those_of_its_merged_series(
    tmp_path: Path, files: list[list[np.ndarray]], ordered: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best-value marker's points: the first lowest / highest finite value of the merged
    series (NaN and ±inf never count); an ordered tag's come from its chunk refs, read-free."""
    store, provider = _job(tmp_path, files, _spiky_columns)
    step, wall, value = _merged(store)
    values = value.astype(np.float64)
    finite = np.isfinite(values)
    low = int(np.argmin(np.where(finite, values, np.inf)))
    high = int(np.argmax(np.where(finite, values, -np.inf)))
    reads = _count_reads(store, monkeypatch)
    lowest, highest = provider.scalar_extremes(TRAIN_ID, TAG)
    assert lowest == (int(step[low]), float(wall[low]), -1.0) and lowest.step == 50
    assert highest == (int(step[high]), float(wall[high]), 5.0) and highest.step == 10
    assert not reads if ordered else reads


def test_a_tag_without_a_finite_value_has_no_extremes(tmp_path: Path) -> None:
    store = IndexStore(str(tmp_path / "index"))
    state = JobState(TRAIN_ID, version=1)
    file_state = state.files["f0"] = FileState("f0", "summary", (0, 0))
    store.append_chunk(
        state,
        file_state,
        "scalar",
        TAG,
        ScalarColumns(np.arange(3), np.zeros(3), np.array([np.nan, np.inf, -np.inf], np.float32)),
    )
    state.tags = {"scalar": {TAG: {"f0": 1}}}
    with store.transaction():
        store.save_job(state)
        store.set_job_list([(TRAIN_ID, 0.0, 0.0)])
        store.bump_generation()
    assert DataProvider(str(tmp_path), store).scalar_extremes(TRAIN_ID, TAG) == (None, None)
