"""The index entries' format (:mod:`.store.codec`): lossless, compact, and never executed."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format.framing import Damage
from dash_insight.core.store.chunks import ChunkRef, Extreme, SummaryPoints
from dash_insight.core.store.codec import UndecodableEntry, decode, encode
from dash_insight.core.store.index import BlobColumns, IndexStore, ScalarColumns
from dash_insight.core.store.state import FileState, GraphRecord, JobState, LineageRecord


def _scalars(n: int, seed: int = 0) -> ScalarColumns:
    rng = np.random.default_rng(seed)
    step = np.arange(n, dtype=np.int64) * 10
    wall_time = 1.7e9 + np.cumsum(rng.random(n) * 0.05)
    value = (np.exp(-step / 1e5) + rng.random(n) * 0.01).astype(np.float32)
    return ScalarColumns(step, wall_time, value)


@pytest.mark.parametrize(
    "step",
    [
        np.arange(1, 70_000, dtype=np.int64),
        np.array([0, 2**63 - 1, -2, -(2**63)], np.int64),  # differences that wrap
        np.zeros(0, np.int64),
        np.array([5], np.int64),
    ],
)
def test_columns_come_back_bit_exact(step: np.ndarray) -> None:
    n = len(step)
    columns = ScalarColumns(
        step,
        np.linspace(1.7e9, 1.7e9 + 5, n),
        np.where(np.arange(n) % 7 == 3, np.nan, np.arange(n)).astype(np.float32),
    )
    back = decode(encode(columns))
    assert type(back) is ScalarColumns
    for column, stored in zip(columns, back, strict=True):
        assert stored.dtype == column.dtype
        np.testing.assert_array_equal(stored.view(np.uint8), column.view(np.uint8))
    blob = BlobColumns(
        step,
        np.zeros(n),
        step * 3,
        np.full(n, 64, np.int64),
        np.arange(n, dtype=np.int32),
        [{"width": 4, "dims": (2, 3)} if i % 2 else None for i in range(n)],
    )
    back_blob = decode(encode(blob))
    assert type(back_blob) is BlobColumns and back_blob.meta == blob.meta
    np.testing.assert_array_equal(back_blob.value_index, blob.value_index)
    summary = SummaryPoints(step, np.zeros(n), np.zeros(n, np.float32))
    assert type(decode(encode(summary))) is SummaryPoints


def test_a_scalar_chunk_takes_at_most_six_bytes_a_value() -> None:
    """Issue #41 item 6: steps delta-encoded, wall times XORed, every column byte-shuffled and
    compressed (20 bytes a point as arrays; noisy values and wall times, the worst case)."""
    columns = _scalars(1 << 16)
    assert len(encode(columns)) / (1 << 16) <= 6


def test_job_states_come_back_equal() -> None:
    state = JobState(
        "./a",
        create_time=1.5,
        files={
            "f": FileState(
                "f",
                "summary",
                (12, None),
                damage=[Damage(3, "bad")],
                chunks={("scalar", "x"): [ChunkRef(1, 2, 0, 1, True, Extreme(1, 2.0, 3.0))]},
                prefix_digest=b"\x00\xff",
            )
        },
        tags={"scalar": {"x": {"f": 2}}},
        graphs=[GraphRecord("g", "pb", 0, 1, 2.0, 3)],
        lineage=[LineageRecord("l", 0, 1.0, "k", {"a": [1, "b"], "c": {"d": 1.5}, "t": (1, 2)})],
        problems=("p",),
        version=4,
    )
    assert decode(encode(state)) == state
    assert decode(encode([("./a", 1.0, 2.0)])) == [("./a", 1.0, 2.0)]
    assert decode(encode({"./a", "./b"})) == {"./a", "./b"}
    assert decode(encode({"./a": 3})) == {"./a": 3}


class _Exploit:
    """Unpickled as a call of ``os.system``: creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def test_a_pickle_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    planted = pickle.dumps(_Exploit(marker))
    for raw in (planted, b"DIX\x01J" + planted, b"DIX\x01A" + planted, b"DIX\x02J{}", b""):
        with pytest.raises(UndecodableEntry):
            decode(raw)
    with pytest.raises(UndecodableEntry):  # a class that is not a state of the index
        decode(b'DIX\x01J["c","Popen",{"args":"touch x"}]')
    assert not marker.exists()


def test_a_pickle_planted_in_the_diskcache_index_is_not_executed(tmp_path: Path) -> None:
    """diskcache unpickles rows of its pickle mode: the index reads them with the codec."""
    marker = tmp_path / "executed"
    store = IndexStore(str(tmp_path / "index"))
    store.save_job(JobState("./a", version=1))
    store._cache._con.execute(
        "UPDATE Cache SET value = ? WHERE key = ?",
        (pickle.dumps(_Exploit(marker)), "job\x1f./a"),
    )
    with pytest.raises(UndecodableEntry):
        store.load_job("./a", repair=False)
    assert store.load_job("./a") is None  # the loader: missing, deleted, read again
    assert not marker.exists()
    store.close()
