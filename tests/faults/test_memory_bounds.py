"""Item 7: large values are refused or streamed under a stated memory bound, measured on a real
server process (``psutil``, its resident memory sampled every few milliseconds).

The bound (README, ``--max-record-bytes``): a record longer than the limit is skipped unread;
loading holds one record (2-4 times its size at the peak); requests decode records of at most
the limit at once and send images of at most the limit at once; the cache (``--cache-bytes``)
comes on top. Before: a 1 GiB record in a 16 KB sparse file cost 2.2 GB to load and 3.3 GB
per image request, eight requests for 100 MB images 1.7-2 GB, a 300 MB callback body 600 MB.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import psutil

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from tests.faults.conftest import Server
from tests.faults.records import append_records, append_sparse_image, scalar_event

MB = 1 << 20
TRAIN_JOBS = "/v1/mindinsight/datavisual/train-jobs?limit=999"
IMAGE = "/v1/mindinsight/datavisual/image/single-image?train_id=./job&step=1&tag="
SCALARS = "/v1/mindinsight/datavisual/scalar/metadata?train_id=./job&tag=loss/scalar"


class PeakMemory:
    """The largest resident set size of a process while the ``with`` block runs."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = 0

    @contextmanager
    def sampling(self) -> Iterator[PeakMemory]:
        stop = threading.Event()
        self.peak = self.process.memory_info().rss

        def sample() -> None:
            while not stop.is_set():
                try:
                    self.peak = max(self.peak, self.process.memory_info().rss)
                except psutil.Error:
                    return
                stop.wait(0.003)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            yield self
        finally:
            stop.set()
            sampler.join()

    @property
    def now(self) -> int:
        return int(self.process.memory_info().rss)


def job_around(base: Path, between: Callable[[Path], None]) -> Path:
    """``base/job`` with one file: loss at step 1, whatever ``between`` appends, loss at step 2
    after it."""
    with SummaryWriter(str(base / "job")) as writer:
        writer.add_scalar("loss", 1.0, 1)
        writer.record(1)
        path = Path(writer.summary_path)
    between(path)
    append_records(path, [scalar_event("loss", 2, 0.5)])
    return path


def wait_loaded(server: Server, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while b'"load_status": "loaded"' not in server.request("GET", TRAIN_JOBS).body:
        assert time.monotonic() < deadline, "the server did not load"
        time.sleep(0.05)


def test_a_huge_sparse_record_is_skipped_unread(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    """A 1 GiB image record (a few KB on disk): skipped without reading it, reported, and the
    steps around it stay readable; loading stays within the bound."""
    base = tmp_path / "logs"
    path = job_around(base, lambda path: append_sparse_image(path, 1 << 30, tag="big"))
    assert path.stat().st_size > 1 << 30 and path.stat().st_blocks * 512 < 1 * MB
    server = serve(base, loaded=False)
    with PeakMemory(server.process.pid).sampling() as memory:
        wait_loaded(server)
        settled = memory.now
    limit = Settings().max_record_bytes
    assert memory.peak < settled + 4 * limit, (memory.peak // MB, settled // MB)
    job = json.loads(server.request("GET", TRAIN_JOBS).body)["train_jobs"][0]
    assert job["is_integrity"] is False
    assert job["plugins"]["image"] == []
    with PeakMemory(server.process.pid).sampling() as memory:
        answer = server.request("GET", IMAGE + "big/image")
        scalars = server.request("GET", SCALARS)
    assert answer.status == 400 and json.loads(answer.body)["error_code"] == "5054500D"
    assert [p["step"] for p in json.loads(scalars.body)["metadatas"]] == [1, 2]
    assert memory.peak < settled + 16 * MB


def test_the_damage_names_the_setting(tmp_path: Path) -> None:
    """What the summary list shows for the skipped record (in process: the same loader)."""
    base = tmp_path / "logs"
    job_around(base, lambda path: append_sparse_image(path, 2 * MB, tag="big"))
    service = DataService(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
            max_record_bytes=MB,
        )
    )
    try:
        service.loader.load_round()
        reasons = service.provider.job("./job").reasons
    finally:
        service.close()
    assert len(reasons) == 1
    assert (
        "record of 2,097,152 bytes is larger than the 1,048,576-byte limit "
        "(--max-record-bytes); skipped without reading it" in reasons[0]
    )


def test_large_images_fetched_at_once_stay_under_the_bound(
    tmp_path: Path, serve: Callable[..., Server]
) -> None:
    """Eight requests at once for four 100 MB images (limit raised to 128 MB to allow them):
    every answer is complete; the memory they take stays under 3x the limit plus the cache
    (before: 1.7 GB)."""
    base = tmp_path / "logs"
    size = 100 * MB

    def four_images(path: Path) -> None:
        for number in range(4):
            append_sparse_image(path, size, tag=f"image{number}")

    job_around(base, four_images)
    limit, cache = 128 * MB, 16 * MB
    server = serve(
        base, "--max-record-bytes", f"{limit // MB}M", "--cache-bytes", f"{cache // MB}M"
    )

    def fetch(number: int) -> tuple[int, int]:
        answer = server.request("GET", IMAGE + f"image{number % 4}/image", timeout=300)
        return answer.status, len(answer.body)

    memory = PeakMemory(server.process.pid)
    settled = memory.now
    with memory.sampling(), ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(fetch, range(8)))
    assert {status for status, _ in answers} == {200}
    lengths = {length for _, length in answers}  # the image: the record less its framing
    assert len(lengths) == 1 and size - 100 < lengths.pop() < size
    assert memory.peak - settled < 3 * limit + cache, (memory.peak - settled) // MB


def test_a_huge_request_body_is_refused_unread(
    summary_base: Path, serve: Callable[..., Server]
) -> None:
    """300 MB bodies are answered 413 without being read (before: a callback body cost 600 MB
    before Dash refused it), in MindInsight's error format on the REST API."""
    server = serve(summary_base)
    body = bytes(300 * MB)
    memory = PeakMemory(server.process.pid)
    settled = memory.now
    with memory.sampling():
        callback = server.request(
            "POST",
            "/_dash-update-component",
            body=body,
            headers={"Content-Type": "application/json"},
            timeout=120,
        )
        rest = server.request(
            "POST",
            "/v1/mindinsight/lineagemgr/lineages",
            body=body,
            headers={"Content-Type": "application/json"},
            timeout=120,
        )
        get = server.request("GET", TRAIN_JOBS, body=body, timeout=120)
    assert callback.status == 413
    assert "larger than the 33,554,432 bytes" in json.loads(callback.body)["message"]
    for answer in (rest, get):
        assert answer.status == 413
        error = json.loads(answer.body)
        assert error["error_code"] == "50540002"
        assert "314,572,800 bytes" in error["error_msg"]
    assert memory.peak - settled < 32 * MB, (memory.peak - settled) // MB
    assert server.request("GET", TRAIN_JOBS).status == 200
