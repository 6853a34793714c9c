"""Logs on S3 (issue #15 item 1), against a real S3 HTTP endpoint on this machine: moto's
standalone server, reached through s3fs exactly as a real bucket is (credentials and endpoint
from the environment). The corpus uploaded to a bucket answers every REST request as the same
corpus read from the local disk; an object re-uploaded longer (an append) and one replaced by a
shorter, different file are followed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dash.testing.wait import until

from tests.ports import free_port

pytest.importorskip(
    "moto.server",
    reason="moto[server] is not installed (the S3 endpoint of "
    "these tests): pip install 'moto[server]'",
)
s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed: pip install s3fs")

from dash_insight import SummaryWriter  # noqa: E402
from tests.conftest import dump_rest, loaded_app  # noqa: E402

pytestmark = pytest.mark.slow
API = "/v1/mindinsight/datavisual"
BUCKET = "dash-insight-logs"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """moto's S3 server on a free port, this process's AWS environment pointing at it, and an
    s3fs filesystem with an empty bucket."""
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with open(log, "wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        until(
            lambda: server.poll() is not None or _answers(endpoint + "/"),
            timeout=120,
            msg="moto's S3 server did not answer",
        )
        assert server.poll() is None, log.read_text()[-2000:]
        with pytest.MonkeyPatch.context() as patch:
            # The usual AWS chain, as a real deployment gives it (never the command line).
            for name, value in {
                "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_DEFAULT_REGION": "us-east-1",
                "AWS_ENDPOINT_URL": endpoint,
            }.items():
                patch.setenv(name, value)
            patch.delenv("AWS_PROFILE", raising=False)
            s3fs.S3FileSystem.clear_instance_cache()
            fs = s3fs.S3FileSystem()
            fs.mkdir(BUCKET)
            yield fs
            s3fs.S3FileSystem.clear_instance_cache()
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _without(value: Any, fields: frozenset[str]) -> Any:
    """``value`` without the dict keys ``fields``, at any depth."""
    if isinstance(value, dict):
        return {k: _without(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [_without(v, fields) for v in value]
    return value


#: Differ by nature between a disk and a store: the files' modification times (the store's
#: upload times, which also order the job list), the folder's name, and the dump's own header.
VOLATILE = frozenset({"update_time", "meta", "name"})


def _job_list(answer: dict[str, Any]) -> dict[str, Any]:
    """A train-jobs answer without what differs by nature, its jobs by train_id."""
    jobs = sorted(answer["train_jobs"], key=lambda job: job["train_id"])
    return _without({**answer, "train_jobs": jobs}, VOLATILE)


def _dump(app: Any, path: Path) -> Any:
    """Every REST answer of ``app`` (tools/mi_dump.py), the server's address left out."""
    return json.loads(re.sub(r"http://127\.0\.0\.1:\d+", "", dump_rest(app, path).read_text()))


def test_the_corpus_on_s3_answers_as_read_locally(s3: Any, corpus: Path, tmp_path: Path) -> None:
    prefix = f"{BUCKET}/corpus-{uuid.uuid4().hex[:8]}"
    local_base = _upload_in_order(s3, corpus, prefix, tmp_path / "corpus")
    assert s3.exists(f"{prefix}/lenet_sc")
    with loaded_app(local_base, tmp_path / "ws-local") as app:
        local = _dump(app, tmp_path / "local.json")
    with loaded_app(f"s3://{prefix}", tmp_path / "ws-s3") as app:
        assert app.data_service.summary_base_dir == f"s3://{prefix}"
        remote = _dump(app, tmp_path / "s3.json")
    assert len(remote["jobs"]) == len(local["jobs"]) == 9
    assert remote["errors"] == local["errors"]
    for train_id, job in local["jobs"].items():
        for part in (
            "train_job",
            "plugins",
            "scalars",
            "histograms",
            "images",
            "tensors",
            "graphs",
            "dataset_graph",
        ):
            assert _without(remote["jobs"][train_id].get(part), VOLATILE) == _without(
                job.get(part), VOLATILE
            ), (train_id, part)
    assert _job_list(remote.pop("train_jobs")) == _job_list(local.pop("train_jobs"))
    for dump in (remote, local):  # each tag's jobs in job-list order: by train_id here
        for answer in dump["comparison"]["scalars"].values():
            answer["scalars"].sort(key=lambda series: series["train_id"])
        # Lineage rows come newest first: the store's upload times order them.
        for answer in dump["lineage"].values():
            answer.get("object", []).sort(key=lambda row: row["summary_dir"])
    assert _without(remote, VOLATILE) == _without(local, VOLATILE)


def _upload_in_order(s3: Any, corpus: Path, prefix: str, copy: Path) -> Path:
    """Upload ``corpus`` one folder a second, and give a local copy of it the same order of
    modification times: jobs are listed newest first (so are lineage rows, and the optimizer's
    answers follow their order), and the store's times are its upload times."""
    shutil.copytree(corpus, copy)
    folders = sorted({path.parent for path in copy.rglob("*") if path.is_file()})
    for number, folder in enumerate(folders):
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            s3.put(str(path), f"{prefix}/{path.relative_to(copy).as_posix()}")
            os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))
        second = int(time.time())  # of the last upload: the next folder's come a second later
        until(lambda second=second: int(time.time()) > second, 5)
    return copy


def _summary(folder: Path, steps: range, value: float) -> Path:
    """A summary file with scalar ``loss`` and image ``picture`` at ``steps`` (always the same
    name: one file name per job, as a re-upload keeps it)."""
    with SummaryWriter(folder, timestamp=1700000000, host="h") as writer:
        for step in steps:
            writer.add_scalar("loss", value * step, step)
            writer.add_image("picture", np.full((1, 3, 4, 6), (step * 7) % 256, np.uint8), step)
    return Path(writer.summary_path)


def _rest(app: Any) -> dict[str, Any]:
    """The answers that must follow the store: the job list, every job's scalars, images
    (metadata and the last image's bytes)."""
    client = app.server.test_client()
    answers: dict[str, Any] = {}
    jobs = client.get(f"{API}/train-jobs?offset=0&limit=999").get_json()
    answers["train-jobs"] = _job_list(jobs)
    for job in jobs["train_jobs"]:
        train_id = job["train_id"]
        plugins = client.get(f"{API}/plugins?train_id={train_id}&manual_update=false").get_json()[
            "plugins"
        ]
        [scalar], [image] = plugins["scalar"], plugins["image"]
        answers[f"{train_id} scalar"] = client.get(
            f"{API}/scalar/metadata?train_id={train_id}&tag={scalar}"
        ).get_json()
        images = client.get(f"{API}/image/metadata?train_id={train_id}&tag={image}").get_json()
        answers[f"{train_id} images"] = images
        last = images["metadatas"][-1]["step"]
        answers[f"{train_id} image"] = client.get(
            f"{API}/image/single-image?train_id={train_id}&tag={image}&step={last}"
        ).data
        assert answers[f"{train_id} image"][:4] == b"\x89PNG"
    return answers


def test_appended_and_replaced_objects_are_followed(s3: Any, tmp_path: Path) -> None:
    local = tmp_path / "local"
    prefix = f"{BUCKET}/live-{uuid.uuid4().hex[:8]}"
    grow = _summary(tmp_path / "grow-full", range(1, 301), 1.0).read_bytes()
    first_cut = len(grow) // 3
    swap_long = _summary(tmp_path / "swap-long", range(1, 121), 2.0).read_bytes()
    swap_short = _summary(tmp_path / "swap-short", range(1, 41), -3.0).read_bytes()
    name = "events.out.events.summary.1700000000.0.h_MS"

    def put(job: str, data: bytes) -> None:
        """The same bytes on the disk and in the bucket."""
        os.makedirs(local / job, exist_ok=True)
        (local / job / name).write_bytes(data)
        s3.pipe(f"{prefix}/{job}/{name}", data)

    put("grow", grow[:first_cut])
    put("swap", swap_long)
    with (
        loaded_app(local, tmp_path / "ws-local") as disk,
        loaded_app(f"s3://{prefix}", tmp_path / "ws-s3") as store,
    ):

        def reload_both() -> None:
            for app in (disk, store):
                app.data_service.loader.load_round()
                app.data_service.loader.load_round()  # a replacement found while reading

        before = _rest(store)
        assert before == _rest(disk)
        steps = [point["step"] for point in before["./grow scalar"]["metadatas"]]
        assert 0 < len(steps) < 300

        put("grow", grow)  # re-uploaded longer: an append, read on from the saved offset
        put("swap", swap_short)  # replaced by a shorter, different file
        reload_both()
        after = _rest(store)
        assert after == _rest(disk)
        grown = after["./grow scalar"]["metadatas"]
        assert [p["step"] for p in grown] == list(range(1, 301))
        swapped = after["./swap scalar"]["metadatas"]
        assert [p["value"] for p in swapped] == [-3.0 * step for step in range(1, 41)]
        state = store.data_service.store.load_job("./grow")
        assert state is not None and state.files[name].offset == len(grow)
