"""Summary logs on an fsspec filesystem (``memory://``): discovery through the store's listing,
incremental reading from the saved offset, replaced and damaged files, the prefix rule, the
settings' checks of a URL and the index directory of one."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

fsspec = pytest.importorskip("fsspec", reason="fsspec is not installed (pip install fsspec)")

from dash_insight import SummaryWriter  # noqa: E402
from dash_insight.core.format.remote import is_url, normalise_url  # noqa: E402
from dash_insight.core.provider import DataProvider  # noqa: E402
from dash_insight.core.settings import Settings, SettingsError  # noqa: E402
from dash_insight.core.store.discovery import discover_jobs, resolve_train_id  # noqa: E402
from dash_insight.core.store.index import IndexStore, index_directory  # noqa: E402
from dash_insight.core.store.loader import Loader  # noqa: E402

MEMORY = fsspec.filesystem("memory")
SUMMARY = "events.out.events.summary.1700000000.0.host_MS"


@pytest.fixture
def root() -> Iterator[str]:
    """A fresh folder of the process-wide memory filesystem, removed afterwards."""
    path = f"/t{uuid.uuid4().hex[:12]}"
    yield path
    for folder in (path, path + "-other"):
        if MEMORY.exists(folder):
            MEMORY.rm(folder, recursive=True)


def summary_bytes(
    tmp_path: Path, values: list[float], *, start: int = 1, image: bool = False
) -> bytes:
    """A summary file holding ``loss`` = ``values`` at steps ``start``, ``start + 1``, ..."""
    folder = tmp_path / uuid.uuid4().hex
    with SummaryWriter(folder, timestamp=1700000000, host="host") as writer:
        for step, value in enumerate(values, start):
            writer.add_scalar("loss", value, step)
            if image:
                writer.add_image("picture", np.full((1, 3, 4, 5), step % 255, np.uint8), step)
    return Path(writer.summary_path).read_bytes()


def _open(base: str, workspace: Path) -> tuple[Loader, DataProvider]:
    store = IndexStore(index_directory(str(workspace), base))
    return Loader(base, store, reload_interval=0), DataProvider(base, store)


def test_discovery_lists_the_store_and_keeps_to_the_prefix(root: str) -> None:
    for key in (
        f"{root}/{SUMMARY}",
        f"{root}/a/{SUMMARY}",
        f"{root}/a/b/x.summary.5_lineage",
        f"{root}/a/notes.txt",
        f"{root}/c/model.pb",
        # a sibling prefix sharing the name's start, and keys a train_id cannot name
        f"{root}-other/{SUMMARY}",
        f"{root}/d/../{SUMMARY}",
    ):
        MEMORY.pipe(key, b"")
    base = "memory://" + root.lstrip("/")
    jobs = {job.train_id: job for job in discover_jobs(base)}
    assert set(jobs) == {"./", "./a", "./a/b", "./c"}
    assert [f.name for f in jobs["./a"].files] == [SUMMARY]
    assert jobs["./a"].path == base + "/a"
    assert jobs["./a"].files[0].version  # the object's version, "" only for local files
    assert {j.train_id for j in discover_jobs(base, max_depth=1)} == {"./", "./a", "./c"}
    assert [j.train_id for j in discover_jobs(base, max_depth=0)] == ["./"]
    assert discover_jobs(base + "/missing") == []
    assert resolve_train_id(base, "./a/b") == base + "/a/b"
    for bad in ("./../x", "./a/../../x", "a", "./a//b", "/etc"):
        with pytest.raises(ValueError):
            resolve_train_id(base, bad)


def test_incremental_append_reads_from_the_saved_offset(
    root: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A longer copy of the object (an object store's append) is read on from the offset: the
    first steps are not read twice, nothing is re-read from the start."""
    full = summary_bytes(tmp_path, [float(i) for i in range(200)])
    key = f"{root}/run/{SUMMARY}"
    MEMORY.pipe(key, full[: len(full) // 2])  # cut inside a record: an incomplete tail
    loader, provider = _open("memory://" + root.lstrip("/"), tmp_path / "ws")
    loader.load_round()
    first = len(provider.read_scalars("./run", "loss"))
    assert 0 < first < 200
    state = loader.store.load_job("./run")
    assert state is not None
    offset = state.files[SUMMARY].offset
    assert 0 < offset <= len(full) // 2 and state.files[SUMMARY].prefix_digest is not None
    MEMORY.pipe(key, full)
    with caplog.at_level(logging.INFO):
        assert loader.load_round()
    assert "reading it again" not in caplog.text
    loss = provider.read_scalars("./run", "loss")
    assert loss.step.tolist() == list(range(1, 201))
    assert loss.value.tolist() == [float(i) for i in range(200)]
    state = loader.store.load_job("./run")
    assert state is not None and state.files[SUMMARY].records == 201  # 200 + the version event


@pytest.mark.parametrize("change", ["longer", "same_size", "shorter"])
def test_a_replaced_object_is_read_again_from_its_start(
    root: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, change: str
) -> None:
    before = summary_bytes(tmp_path, [1.0] * 50)
    after = {
        "longer": summary_bytes(tmp_path, [2.0] * 80, start=1),
        "same_size": summary_bytes(tmp_path, [3.0] * 50, start=1),
        "shorter": summary_bytes(tmp_path, [4.0] * 20, start=1),
    }[change]
    key = f"{root}/run/{SUMMARY}"
    MEMORY.pipe(key, before)
    loader, provider = _open("memory://" + root.lstrip("/"), tmp_path / "ws")
    loader.load_round()
    assert provider.read_scalars("./run", "loss").value.tolist() == [1.0] * 50
    MEMORY.pipe(key, after)
    with caplog.at_level(logging.INFO):
        loader.load_round()
        loader.load_round()  # a replacement found while reading is read on the next pass
    assert "reading it again" in caplog.text
    loss = provider.read_scalars("./run", "loss")
    expected = {"longer": [2.0] * 80, "same_size": [3.0] * 50, "shorter": [4.0] * 20}[change]
    assert loss.value.tolist() == expected
    assert loss.step.tolist() == list(range(1, len(expected) + 1))


def test_damaged_object_keeps_what_is_readable(root: str, tmp_path: Path) -> None:
    data = bytearray(summary_bytes(tmp_path, [float(i) for i in range(100)]))
    middle = len(data) // 2
    data[middle : middle + 8] = b"\xff" * 8
    MEMORY.pipe(f"{root}/run/{SUMMARY}", bytes(data))
    loader, provider = _open("memory://" + root.lstrip("/"), tmp_path / "ws")
    loader.load_round()
    job = provider.job("./run")
    assert job.status == "loaded" and not job.is_intact
    assert any("CRC" in reason for reason in job.reasons)
    assert 90 <= len(provider.read_scalars("./run", "loss")) < 100


def test_values_are_read_back_with_ranged_reads(root: str, tmp_path: Path) -> None:
    MEMORY.pipe(f"{root}/run/{SUMMARY}", summary_bytes(tmp_path, [0.5] * 5, image=True))
    loader, provider = _open("memory://" + root.lstrip("/"), tmp_path / "ws")
    loader.load_round()
    assert provider.value_steps("./run", "image", "picture").step.tolist() == [1, 2, 3, 4, 5]
    png = provider.read_value("./run", "image", "picture", 3)
    assert png is not None


def test_settings_check_a_url_in_one_line(root: str) -> None:
    MEMORY.pipe(f"{root}/run/{SUMMARY}", b"")
    base = "memory://" + root.lstrip("/")
    assert Settings(summary_base_dir=base + "/").checked_base_dir() == base
    problems = {
        "memory://nowhere-" + uuid.uuid4().hex: "summary base directory not found",
        f"{base}/run/{SUMMARY}": "is a file, not a directory",
        "nosuchprotocol://bucket/x": "unknown protocol 'nosuchprotocol'",
        "s3://": "names no bucket",
    }
    for url, message in problems.items():
        with pytest.raises(SettingsError) as caught:
            Settings(summary_base_dir=url).checked_base_dir()
        assert message in str(caught.value) and "\n" not in str(caught.value)
    assert Settings(summary_base_dir="file:///tmp").base_dir == "/tmp"


def test_index_directory_of_a_url_is_stable_and_safe(tmp_path: Path) -> None:
    one = index_directory(str(tmp_path), "s3://bucket/logs")
    assert one == index_directory(str(tmp_path), "s3://bucket/logs/")
    assert one != index_directory(str(tmp_path), "s3://bucket/logs2")
    name = Path(one).name
    assert name.isalnum() and len(name) == 16
    assert is_url("s3://b/p") and not is_url("/data/s3:/x") and not is_url("C:\\logs")
    assert normalise_url("memory://") == "memory://"
