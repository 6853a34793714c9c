"""Items 3-6: files that are not what their names say. A FIFO named like a summary file, a
record whose length runs past the end of its file (and cut or empty files left for hours), a
file replaced while it is first read, a file or directory that cannot be read and later can."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from dash.testing.wait import until

from dash_insight.core.format.framing import RecordReader, masked_crc32c
from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.load_pool import SliceResult
from dash_insight.core.store.loader import Loader
from dash_insight.core.store.state import FileState, JobState
from tests.faults.conftest import START_TIMEOUT, Server, free_port, stop_server, write_job

JOBS = "/v1/mindinsight/datavisual/train-jobs?limit=999"
HOURS_AGO = time.time() - 3 * 3600
WAIT = 60.0  # generous: the machine is shared


def _jobs(server: Server) -> dict[str, dict[str, Any]]:
    answer = server.request("GET", JOBS)
    assert answer.status == 200, answer.body
    return {job["train_id"]: job for job in json.loads(answer.body)["train_jobs"]}


def _loaded(server: Server) -> bool:
    answer = server.request("GET", JOBS)
    return answer.status == 200 and json.loads(answer.body)["load_status"] == "loaded"


def _steps(server: Server, train_id: str, tag: str = "loss/scalar") -> list[int]:
    """The steps of a scalar tag as the server answers them ([] when the tag is unknown)."""
    answer = server.request(
        "GET", f"/v1/mindinsight/datavisual/scalar/metadata?train_id={train_id}&tag={tag}"
    )
    if answer.status != 200:
        return []
    return [point["step"] for point in json.loads(answer.body)["metadatas"]]


def _summary_file(job: Path) -> Path:
    [path] = [p for p in job.iterdir() if "summary" in p.name]
    return path


# ------------------------------------------------------------------------------ item 3: FIFO


def test_fifo_named_like_a_summary_file_is_skipped_and_reported(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    """Opening a FIFO for reading waits for a writer: the loader hung there for good, holding
    its lock, and SIGTERM took 14 s. A FIFO is skipped, named in its job's problems and the log;
    everything else loads, later data too, and the server stops at once."""
    base = tmp_path / "logs"
    write_job(base, "job")
    os.mkfifo(base / "job" / "events.out.events.summary.1700000000.0.host_MS")
    (base / "only_fifo").mkdir()
    os.mkfifo(base / "only_fifo" / "events.out.events.summary.1700000000.0.host_MS")
    server = serve(base, loaded=False)
    until(lambda: _loaded(server), timeout=WAIT, msg=server.log.read_text())
    jobs = _jobs(server)
    assert _steps(server, "./job") == [1, 2, 3]
    assert jobs["./job"]["is_integrity"] is False  # the FIFO is a problem of the job
    only_fifo = jobs["./only_fifo"]
    assert only_fifo["is_integrity"] is False and only_fifo["summary_files"] == 0
    assert "a FIFO, not a regular file: skipped" in server.log.read_text()
    write_job(base, "later")  # the loader still works
    until(lambda: _steps(server, "./later") == [1, 2, 3], timeout=WAIT)
    started = time.monotonic()
    stop_server(server)
    assert server.process.returncode == 0 and time.monotonic() - started < 5


# ---------------------------------------------------------------- item 4: length past the end


def _record_offsets(path: Path) -> list[int]:
    return [record.offset for record in RecordReader(path).read()]


def _header(length: int) -> bytes:
    """A record header whose length CRC is valid: only the length is wrong."""
    packed = struct.pack("<Q", length)
    return packed + struct.pack("<I", masked_crc32c(packed))


def test_length_past_end_of_file_is_damage_and_later_records_are_read(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    """A record claiming more bytes than the file holds, with intact records after it, was taken
    for a tail still being written: the records after it were never served and the damage was
    reported 600 s later. A file cut, or left empty, hours ago was shown intact for 600 s."""
    base = tmp_path / "logs"
    path = _summary_file(write_job(base, "spliced", steps=6))
    data = path.read_bytes()
    cut = _record_offsets(path)[4]  # version record, steps 1-3 | steps 4-6
    path.write_bytes(data[:cut] + _header(1_000_000) + b"partial payload" + data[cut:])

    cut_file = _summary_file(write_job(base, "cut_hours_ago", steps=3))
    cut_file.write_bytes(cut_file.read_bytes()[:-7])
    os.utime(cut_file, (HOURS_AGO, HOURS_AGO))
    (base / "empty_hours_ago").mkdir()
    empty = base / "empty_hours_ago" / "events.out.events.summary.1700000000.0.host_MS"
    empty.write_bytes(b"")
    os.utime(empty, (HOURS_AGO, HOURS_AGO))
    # Still being written (the last record incomplete, just now): not a problem yet.
    growing = _summary_file(write_job(base, "growing", steps=3))
    growing.write_bytes(growing.read_bytes()[:-7])

    server = serve(base)
    assert _steps(server, "./spliced") == [1, 2, 3, 4, 5, 6]
    assert _steps(server, "./cut_hours_ago") == [1, 2]
    assert _steps(server, "./growing") == [1, 2]
    jobs = _jobs(server)
    assert {train_id: job["is_integrity"] for train_id, job in jobs.items()} == {
        "./spliced": False,
        "./cut_hours_ago": False,
        "./empty_hours_ago": False,
        "./growing": True,
    }
    assert (
        f"@ {cut}: record of 1000000 bytes runs past the end of the file" in server.log.read_text()
    )


# ------------------------------------------------------------- item 5: replaced while reading


class _ReplacingLoader(Loader):
    """Replaces the file by ``replacement`` once, right after the first slice of its first
    read: the window the issue found by chance with large files."""

    def __init__(self, *args: Any, replacement: Path, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.replacement: Path | None = replacement

    def _store_summary_slice(
        self, state: JobState, file_state: FileState, summary_slice: SliceResult
    ) -> None:
        super()._store_summary_slice(state, file_state, summary_slice)
        if self.replacement is not None:
            os.replace(
                self.replacement, os.path.join(self.base_dir, state.train_id, file_state.name)
            )
            self.replacement = None


def _write_constant(directory: Path, steps: int, value: float) -> Path:
    """A summary file in ``directory`` with ``value`` at steps 1..``steps``."""
    with SummaryWriter(str(directory)) as writer:
        for step in range(1, steps + 1):
            writer.add_scalar("loss", value, step)
            writer.record(step)
    return Path(writer.summary_path)


def test_file_replaced_while_first_read_is_read_again_without_mixing(tmp_path: Path) -> None:
    """The slice reader reopened the path at the old offset: one series mixed both files. The
    replacement is noticed by its inode when the file is opened for the next slice, and the new
    file is read from its start, in the same round."""
    base = tmp_path / "logs"
    original = _write_constant(base / "job", 3000, 1.0)  # ~10 slices of 16 KB
    replacement = _write_constant(tmp_path / "spare", 2000, 2.0)
    store = IndexStore(index_directory(str(tmp_path / "ws"), str(base)))
    loader = _ReplacingLoader(
        str(base), store, reload_interval=0, slice_bytes=16 << 10, replacement=replacement
    )
    try:
        loader.load_round()
        assert loader.replacement is None and not replacement.exists()  # it was replaced
        series = DataProvider(str(base), store).read_scalars("./job", "loss")
        assert series.value.tolist() == [2.0] * 2000
        assert series.step.tolist() == list(range(1, 2001))
        job = DataProvider(str(base), store).job("./job")
        assert job.status == "loaded" and job.bytes_read == original.stat().st_size
    finally:
        store.close()


# ------------------------------------------------------------------ item 6: EACCES, then chmod


def _without_permission_override() -> list[str]:
    """The command prefix that makes this process's children subject to file permissions: none
    for a normal user; as root, ``setpriv`` dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
    (root ignores ``chmod 000`` otherwise). Skips the test when root cannot drop them."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: chmod 000 does not deny root reads")
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    with tempfile.NamedTemporaryFile() as locked:
        os.chmod(locked.name, 0)
        probe = subprocess.run(
            [*prefix, "test", "-r", locked.name], check=False, capture_output=True
        )
    if probe.returncode != 1:  # 0: still reads it; other: setpriv refused
        pytest.skip(
            f"running as root and setpriv cannot drop CAP_DAC_OVERRIDE here "
            f"({probe.stderr.decode(errors='replace').strip()})"
        )
    return prefix


@pytest.fixture
def restricted_server(tmp_path: Path) -> Iterator[Callable[[Path], Server]]:
    """``start(base)``: a server process over ``base`` that file permissions apply to (every
    one started uses the same workspace, so a second one is a restart)."""
    prefix = _without_permission_override()
    started: list[Server] = []

    def start(base: Path) -> Server:
        port = free_port()
        workspace = tmp_path / "ws"
        workspace.mkdir(exist_ok=True)
        log = tmp_path / f"server.{port}.log"
        with open(log, "wb") as handle:
            process = subprocess.Popen(
                [
                    *prefix,
                    sys.executable,
                    "-m",
                    "dash_insight.server",
                    "--port",
                    str(port),
                    "--summary-base-dir",
                    str(base),
                    "--workspace",
                    str(workspace),
                    "--reload-interval",
                    "0.5",
                ],
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        server = Server(process, port, log)
        started.append(server)

        def ready() -> bool:
            assert process.poll() is None, log.read_text()
            try:
                return _loaded(server)
            except OSError:
                return False

        until(ready, timeout=START_TIMEOUT, poll=0.1, msg=f"not loaded: {log.read_text()}")
        return server

    yield start
    for server in started:
        stop_server(server)


def test_unreadable_file_and_directory_come_back_after_chmod(
    tmp_path: Path, restricted_server: Callable[[Path], Server]
) -> None:
    """A read error on a file's first read (EACCES) was permanent: after chmod, restart or
    touch its data never appeared. A directory that cannot be listed made its jobs vanish
    silently. Both are reported (job problems, log) and come back once readable."""
    base = tmp_path / "logs"
    locked_file = _summary_file(write_job(base, "locked_file"))
    until_restart = _summary_file(write_job(base, "until_restart"))
    locked_dir = write_job(base, "locked_dir")
    write_job(base, "open")
    locked_file.chmod(0)
    until_restart.chmod(0)
    try:
        first = restricted_server(base)
        jobs = _jobs(first)
        assert jobs["./until_restart"]["is_integrity"] is False
        assert jobs["./until_restart"]["plugins"]["scalar"] == []
        assert _steps(first, "./open") == [1, 2, 3]
        assert (
            f"./until_restart/{until_restart.name}: cannot read file: Permission denied"
            in first.log.read_text()
        )
        stop_server(first)

        until_restart.chmod(0o644)  # while no server runs: the index still says unreadable
        server = restricted_server(base)
        until(lambda: _steps(server, "./until_restart") == [1, 2, 3], timeout=WAIT)
        assert _jobs(server)["./locked_file"]["is_integrity"] is False
        locked_file.chmod(0o644)
        until(lambda: _steps(server, "./locked_file") == [1, 2, 3], timeout=WAIT)
        until(lambda: _jobs(server)["./locked_file"]["is_integrity"] is True, timeout=WAIT)

        locked_dir.chmod(0)
        until(
            lambda: _jobs(server)["./locked_dir"]["is_integrity"] is False,
            timeout=WAIT,
            msg=f"no problem reported for ./locked_dir: {server.log.read_text()}",
        )
        assert _steps(server, "./locked_dir") == [1, 2, 3]  # what was read stays
        assert "./locked_dir: cannot list this directory" in server.log.read_text()
        locked_dir.chmod(0o755)
        until(lambda: _jobs(server)["./locked_dir"]["is_integrity"] is True, timeout=WAIT)
    finally:
        for path in (locked_file, until_restart):
            path.chmod(0o644)
        locked_dir.chmod(0o755)
