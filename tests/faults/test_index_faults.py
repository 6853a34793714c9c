"""Items 1, 2, 9 and 10: the index shared by several loaders, chunks merged under a reader, a
damaged index, and who may read the index and the logs (real files; real server processes where
the item is about the server)."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.index import IndexStore, ScalarColumns, index_directory
from dash_insight.core.store.loader import Loader
from dash_insight.core.store.state import JobState
from tests.faults.conftest import Server, stop_server, write_job

LOCAL = {"Host": "127.0.0.1"}
JOBS = "/v1/mindinsight/datavisual/train-jobs?limit=999"


def _metadata(server: Server, train_id: str, tag: str = "loss/scalar") -> tuple[int, dict]:
    answer = server.request(
        "GET",
        f"/v1/mindinsight/datavisual/scalar/metadata?train_id={train_id}&tag={tag}",
        headers=LOCAL,
    )
    return answer.status, json.loads(answer.body)


def _wait(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


# -- item 1: several workers take turns as the loader ----------------------------------------


def test_a_loader_keeps_the_jobs_another_loader_added(tmp_path: Path) -> None:
    """Worker A loads, worker B loads a job A has not seen, A loads again: B's job stays
    readable (A used to write its stale copy of the job versions back whole)."""
    base, workspace = tmp_path / "logs", str(tmp_path / "ws")
    directory = index_directory(workspace, str(base))
    first, second = IndexStore(directory), IndexStore(directory)  # two worker processes
    loaders = [Loader(str(base), store, reload_interval=0) for store in (first, second)]
    write_job(base, "a")
    loaders[0].load_round()
    write_job(base, "b")
    loaders[1].load_round()
    write_job(base, "c")
    loaders[0].load_round()
    reader = DataProvider(str(base), IndexStore(directory))
    listed = [job.train_id for job in reader.list_jobs()]
    assert sorted(listed) == ["./a", "./b", "./c"]
    for train_id in listed:
        assert reader.job(train_id).status == "loaded"
        assert reader.read_scalars(train_id, "loss").step.tolist() == [1, 2, 3]


def test_a_listed_job_is_never_unknown_while_the_loader_commits(tmp_path: Path) -> None:
    """The job list, the job states, their versions and the generation are published in one
    transaction: whenever a reader lists a job, it can read it."""
    base, workspace = tmp_path / "logs", str(tmp_path / "ws")
    directory = index_directory(workspace, str(base))
    store = IndexStore(directory)
    loader = Loader(str(base), store, reload_interval=0)
    reader = DataProvider(str(base), IndexStore(directory))
    write_job(base, "a")
    loader.load_round()
    assert [job.train_id for job in reader.list_jobs()] == ["./a"]
    original = store.bump_generation
    unknown: list[str] = []
    looks: list[int] = []

    def look() -> None:
        looks.append(1)
        for job in reader.list_jobs():
            try:
                reader.job(job.train_id)
            except LookupError:
                unknown.append(job.train_id)

    def bump_between_looks() -> int:
        look()  # the loader has stored the new job: can a reader list it but not read it?
        generation = original()
        look()
        return generation

    store.bump_generation = bump_between_looks  # type: ignore[method-assign]
    write_job(base, "b")
    loader.load_round()
    assert looks and unknown == []
    assert sorted(job.train_id for job in reader.list_jobs()) == ["./a", "./b"]
    assert reader.read_scalars("./b", "loss").step.tolist() == [1, 2, 3]


def test_a_failed_loader_transaction_publishes_no_version(tmp_path: Path) -> None:
    """A round that fails is rolled back; the next one must not publish the versions of the
    states that were rolled back (readers would reload them forever)."""
    store = IndexStore(str(tmp_path / "index"))
    with pytest.raises(RuntimeError), store.transaction():
        store.save_job(JobState("./x", version=7))
        raise RuntimeError("a file the loader could not read")
    store.bump_generation()
    assert store.load_job("./x") is None and store.job_versions() == {}


# -- item 2: chunks merged while a reader holds the previous job state ------------------------


def _append(writer: SummaryWriter, steps: range) -> None:
    for step in steps:
        writer.add_scalar("loss", float(step), step)
        writer.record(step)
    writer.flush()


@pytest.fixture
def live_job(tmp_path: Path) -> Iterator[tuple[SummaryWriter, IndexStore, Loader]]:
    """A job whose file is read to its end (16 steps), then appended 4 steps at a time: the
    index holds chunks [16, 4]; the next 4 steps merge them into [24]."""
    base = tmp_path / "logs"
    writer = SummaryWriter(str(base / "run"))
    store = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
    loader = Loader(str(base), store, reload_interval=0)
    _append(writer, range(1, 17))
    loader.load_round()
    _append(writer, range(17, 21))
    loader.load_round()
    yield writer, store, loader
    writer.close()


def test_a_reader_holding_the_previous_state_reads_it_after_a_merge(
    live_job: tuple[SummaryWriter, IndexStore, Loader],
) -> None:
    writer, store, loader = live_job
    held = store.load_job("./run")  # what another worker's reader holds
    assert held is not None
    [file_state] = held.files.values()
    assert len(file_state.chunks[("scalar", "loss")]) == 2  # 16 steps, then 4
    _append(writer, range(21, 25))
    loader.load_round()  # merges the chunks the held state names
    [(_, columns)] = store.read_columns(held, "scalar", "loss", ScalarColumns)
    assert columns.step.tolist() == list(range(1, 21))  # that state's points, exactly once
    current = store.load_job("./run")
    assert current is not None
    [(_, columns)] = store.read_columns(current, "scalar", "loss", ScalarColumns)
    assert columns.step.tolist() == list(range(1, 25))


def test_a_reader_whose_chunks_expired_reloads_the_state(
    live_job: tuple[SummaryWriter, IndexStore, Loader],
) -> None:
    """The race of item 2 made certain: the loader merges (and the replaced chunks expire)
    between the reader's look at the job state and its read of the chunks."""
    writer, store, loader = live_job
    reader = DataProvider(loader.base_dir, store)
    assert reader.job("./run").status == "loaded"  # the reader holds the current state
    _append(writer, range(21, 25))
    read_columns = store.read_columns
    interleaved: list[bool] = []

    def loader_runs_first(*args: object, **kwargs: object) -> object:
        if not interleaved:
            interleaved.append(True)
            loader.load_round()
            store._cache.expire(now=time.time() + 3600)  # and the replaced chunks expire
        return read_columns(*args, **kwargs)  # type: ignore[arg-type]

    store.read_columns = loader_runs_first  # type: ignore[method-assign,assignment]
    series = reader.read_scalars("./run", "loss")
    assert interleaved and series.step.tolist() == list(range(1, 25))
    assert store._cache.get("rebuild") is None  # not mistaken for damage


# -- item 9: a damaged index ------------------------------------------------------------------


def _damage(database: Path, how: str) -> None:
    data = database.read_bytes()
    if how == "truncated":
        database.write_bytes(data[: len(data) // 2])
    else:
        database.write_bytes(os.urandom(len(data)))


@pytest.mark.parametrize("how", ["truncated", "garbage"])
def test_a_damaged_index_is_rebuilt_at_start(
    tmp_path: Path, serve: Callable[..., Server], how: str
) -> None:
    base = tmp_path / "logs"
    for number in range(3):
        write_job(base, f"job{number}", steps=200)
    stop_server(serve(base, workspace="ws"))
    [database] = (tmp_path / "ws" / "index").glob("*/cache.db")
    for sidecar in database.parent.glob("cache.db-*"):  # the WAL's pages would mask the damage
        sidecar.unlink()
    _damage(database, how)
    server = serve(base, workspace="ws")  # starts, and loads every job again
    log = server.log.read_text()
    assert log.count("is damaged") == 1 and "rebuilding it from the logs" in log, log
    assert "Traceback" not in log, log
    for number in range(3):
        status, body = _metadata(server, f"./job{number}")
        assert status == 200 and [p["step"] for p in body["metadatas"]] == list(range(1, 201))


def test_missing_index_rows_make_the_loader_read_the_job_again(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    base = tmp_path / "logs"
    write_job(base, "job0", steps=200)
    write_job(base, "job1", steps=200)
    server = serve(base, workspace="ws")
    [database] = (tmp_path / "ws" / "index").glob("*/cache.db")
    with sqlite3.connect(database, timeout=60) as connection:
        deleted = connection.execute(
            "DELETE FROM Cache WHERE key LIKE ?", ("chunk\x1f./job0\x1fscalar%",)
        ).rowcount
    assert deleted
    answer = server.request(
        "GET",
        "/v1/mindinsight/datavisual/scalar/metadata?train_id=./job0&tag=loss/scalar",
        headers=LOCAL,
    )
    body = json.loads(answer.body)
    assert answer.status == 503 and "being read again from the logs" in body["error_msg"], body
    assert {k.lower(): v for k, v in answer.headers.items()}["retry-after"] == "2"
    answers: list[tuple[int, dict]] = []

    def served() -> bool:
        # while the job is read again its tag may answer empty (still loading, #42 item 9)
        answers.append(_metadata(server, "./job0"))
        return answers[-1][0] == 200 and bool(answers[-1][1]["metadatas"])

    _wait(served, "job0 read again")
    assert {status for status, _ in answers} <= {200, 503}, answers
    assert [p["step"] for p in answers[-1][1]["metadatas"]] == list(range(1, 201))
    assert all(body.get("error_msg") != "System error." for _, body in answers), answers
    status, body = _metadata(server, "./job1")  # the other job was not touched
    assert status == 200 and len(body["metadatas"]) == 200
    log = server.log.read_text()
    assert "the index of ./job0 is damaged: reading it again" in log, log
    assert "Traceback" not in log, log


def test_a_damaged_page_is_reported_and_rebuilt(tmp_path: Path) -> None:
    """A page of ``cache.db`` holding a chunk of job0 is overwritten while the index is open:
    the read that meets it is answered with a clear error, then the loader reads the job again
    (or, when SQLite cannot even delete its rows, rebuilds the whole index) and every step of
    every job is served again."""

    base = tmp_path / "logs"
    write_job(base, "job0", steps=2000)
    write_job(base, "job1", steps=200)
    store = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
    loader = Loader(str(base), store, reload_interval=0)
    loader.load_round()
    reader = DataProvider(str(base), store)
    [database] = (tmp_path / "ws" / "index").glob("*/cache.db")
    with sqlite3.connect(database, timeout=60) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in cache.db
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        # Bytes only job0's largest scalar chunk has (entries are compressed: found by value).
        [value] = connection.execute(
            "SELECT value FROM Cache WHERE key LIKE ? ORDER BY length(value) DESC LIMIT 1",
            ("chunk\x1f./job0\x1fscalar%",),
        ).fetchone()
    middle = len(value) // 2
    at = database.read_bytes().find(bytes(value)[middle : middle + 64])
    assert at > 0
    with open(database, "r+b") as handle:
        handle.seek(at - at % page_size)
        handle.write(os.urandom(page_size))
    with pytest.raises(Exception, match="being read again from the logs"):
        reader.read_scalars("./job0", "loss")
    loader.reload_interval = 0.1
    loader.start()
    try:

        def served(train_id: str, steps: int) -> bool:
            try:
                return reader.read_scalars(train_id, "loss").step.tolist() == list(
                    range(1, steps + 1)
                )
            except Exception:  # until the loader has read the job again
                return False

        _wait(lambda: served("./job0", 2000) and served("./job1", 200), "the jobs read again")
        rounds = loader.rounds
        assert loader.wait_rounds(rounds + 2)  # later rounds do not meet the damage again
    finally:
        loader.stop()
    assert served("./job0", 2000) and served("./job1", 200)


# -- item 10: only the owner reads the index and the logs --------------------------------------


def test_index_and_logs_are_readable_by_their_owner_only(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    base = tmp_path / "logs"
    write_job(base, "job0")
    old_umask = os.umask(0o022)  # the usual umask: files 0644 unless created otherwise
    try:
        server = serve(base, workspace="ws")
    finally:
        os.umask(old_umask)
    _metadata(server, "./job0")  # a line in the access log
    workspace = tmp_path / "ws"
    index = workspace / "index"
    [directory] = [path for path in index.iterdir() if path.is_dir()]
    paths = [
        index,
        *index.iterdir(),
        *directory.iterdir(),
        workspace / "log",
        *(workspace / "log").iterdir(),
    ]
    names = {path.name for path in paths}
    assert {"cache.db", "cache.db-wal", "cache.db-shm"} <= names, names
    assert any(name.endswith(".loader.lock") for name in names), names
    assert any(name.startswith("access.") for name in names), names
    for path in paths:
        mode = stat.S_IMODE(path.stat().st_mode)
        expected = 0o700 if path.is_dir() else 0o600
        assert mode == expected, f"{path.relative_to(workspace)}: {oct(mode)}"
