"""The MindInsight-compatible REST API (dash_insight.web.http and the plugins' routes) against
MindInsight 2.3.1's own answers.

``../shared/oracle/mindinsight-2.3.1-corpus.json.gz`` holds what MindInsight 2.3.1 answered for
``../shared/corpus`` (dumped with ``../shared/tools/mi_dump.py``). Two apps serve the corpus:

* ``client``: dash-insight as shipped, every step kept;
* ``mi_client``: the same index read by a provider with MindInsight's reservoir sizes
  (``samples_per_plugin`` = scalar 1000, image 10, histogram 50, tensor 20).

With MindInsight's sampling every answer must equal the oracle's (floats to 1e-9, JSON types and
key order included). Without it, the corpus is small enough that the caps drop nothing, except
where the oracle shows fewer steps: images with more than 10 steps (every lenet job, ops_in_net,
ops_all) and the ops_all histograms (51 steps; MindInsight's reservoir dropped step 240). There
our answer must hold every step the oracle has, with the same values; including step 240 leaves the
histograms' shared bucket grid unchanged, so those steps are equal too. The only other
difference is a tag MindInsight never listed: ops_all writes 7 tensor tags, and MindInsight's
``MAX_TENSOR_TAG_SIZE = 6`` evicted the first one (``tensor/rank1_f32``); dash-insight lists it.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from dash_insight import SummaryWriter
from dash_insight.core.provider import DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.store.sampling import MINDINSIGHT_SAMPLES
from dash_insight.web.application import register_rest_api
from tests.conftest import ORACLE_PATH, dump_and_compare, loaded_service

PREFIX = "/v1/mindinsight/datavisual"
EXPORT = "/v1/dash-insight/export/scalars"
# The one tag MindInsight did not list (its 6-tensor-tags-per-job cap evicted the first one).
EXTRA_TAGS = {("./ops_all", "tensor"): ["tensor/rank1_f32/tensor"]}
SECURITY = {"X-Frame-Options": "SAMEORIGIN", "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store"}


def _load_oracle() -> dict[str, Any]:
    with gzip.open(ORACLE_PATH, "rt") as handle:
        return json.load(handle)


ORACLE: dict[str, Any] = _load_oracle() if ORACLE_PATH.is_file() else {"jobs": {}}
ORACLE_JOBS = sorted(ORACLE["jobs"])


# -- fixtures ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle() -> dict[str, Any]:
    if not ORACLE_PATH.is_file():
        pytest.skip(f"oracle not found at {ORACLE_PATH}")
    return ORACLE


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ws")


@pytest.fixture(scope="module")
def service(corpus: Path, workspace: Path) -> DataService:
    return loaded_service(corpus, workspace)


def _app(service: DataService, **options: Any) -> Flask:
    app = Flask(__name__)
    register_rest_api(app, service, **options)
    return app


@pytest.fixture(scope="module")
def provider(service: DataService) -> DataProvider:
    return service.provider


@pytest.fixture(scope="module")
def client(service: DataService) -> FlaskClient:
    return _app(service).test_client()


@pytest.fixture(scope="module")
def mi_app(corpus: Path, workspace: Path, service: DataService) -> Flask:
    """The same index read with MindInsight's reservoir sizes."""
    return _app(loaded_service(corpus, workspace, samples_per_plugin=MINDINSIGHT_SAMPLES))


@pytest.fixture(scope="module")
def mi_client(mi_app: Flask) -> FlaskClient:
    return mi_app.test_client()


# -- helpers -----------------------------------------------------------------------------------


def get(client: FlaskClient, path: str, **params: Any) -> Any:
    """What mi_dump.py stores: the JSON answer, or ``{"__http_status", "__body"}``."""
    response = client.get(PREFIX + path, query_string=params)
    if response.status_code != 200:
        return {"__http_status": response.status_code, "__body": response.get_json()}
    return response.get_json()


def error_of(response: Any) -> tuple[int, str]:
    """(HTTP status, error_code) of an error answer, checking its shape."""
    body = response.get_json()
    assert set(body) == {"error_code", "error_msg"}, body
    assert re.fullmatch(r"[0-9A-F]{8}", body["error_code"]), body
    assert body["error_msg"], body
    return response.status_code, body["error_code"]


def fails(client: FlaskClient, path: str, **params: Any) -> tuple[int, str]:
    return error_of(client.get(PREFIX + path, query_string=params))


def mismatches(expected: Any, actual: Any, path: str = "", ignore: frozenset[str] = frozenset()
               ) -> list[str]:
    """Differences between two JSON values: same types (int is not float, bool is not int), same
    dict keys in the same order (except ``ignore``), floats equal to 1e-9 (NaN == NaN)."""
    out: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if type(a) is not type(b):
            out.append(f"{where}: {type(a).__name__} {a!r:.60} != {type(b).__name__} {b!r:.60}")
        elif isinstance(a, dict):
            keys_a = [k for k in a if k not in ignore]
            keys_b = [k for k in b if k not in ignore]
            if keys_a != keys_b:
                out.append(f"{where}: keys {keys_a} != {keys_b}")
                return
            for key in keys_a:
                walk(a[key], b[key], f"{where}.{key}")
        elif isinstance(a, list):
            if len(a) != len(b):
                out.append(f"{where}: length {len(a)} != {len(b)}")
                return
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{where}[{i}]")
        elif isinstance(a, float):
            if not (math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                    or (math.isnan(a) and math.isnan(b))):
                out.append(f"{where}: {a!r} != {b!r}")
        elif a != b:
            out.append(f"{where}: {a!r:.60} != {b!r:.60}")

    walk(expected, actual, path)
    return out


def assert_same(expected: Any, actual: Any, path: str = "",
                ignore: frozenset[str] = frozenset()) -> None:
    found = mismatches(expected, actual, path, ignore)
    assert not found, f"{len(found)} differences, first: " + "; ".join(found[:5])


def image_bodies(client: FlaskClient, train_id: str, tag: str, steps: list[int]
                 ) -> dict[str, Any]:
    """mi_dump.py's ``bodies``: sha256/size/content type per step (and -1)."""
    bodies = {}
    for step in [*steps, -1]:
        response = client.get(f"{PREFIX}/image/single-image",
                              query_string={"train_id": train_id, "tag": tag, "step": step})
        assert response.status_code == 200, response.get_json()
        bodies[str(step)] = {"sha256": hashlib.sha256(response.data).hexdigest(),
                             "size": len(response.data), "content_type": response.content_type}
    return bodies


def default_dims(dims: list[int]) -> str:
    """mi_dump.py's default slice."""
    parts = [":" if i >= len(dims) - 2 else "0" for i in range(len(dims))]
    if parts and dims[-1] > 1000:
        parts[-1] = "0:1000"
    return "[" + ",".join(parts) + "]"


# -- every answer of the oracle ----------------------------------------------------------------


@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_plugins_and_single_job_match_oracle(oracle: dict[str, Any], client: FlaskClient,
                                             train_id: str) -> None:
    expected = json.loads(json.dumps(oracle["jobs"][train_id]["plugins"]))
    for (job, plugin), extra in EXTRA_TAGS.items():
        if job == train_id:
            expected["plugins"][plugin] = sorted(expected["plugins"][plugin] + extra)
    assert_same(expected, get(client, "/plugins", train_id=train_id, manual_update="false"))
    assert_same(expected, get(client, "/plugins", train_id=train_id, manual_update="TRUE"))
    for plugin, answer in oracle["jobs"][train_id]["single_job"].items():
        answer = json.loads(json.dumps(answer))
        answer["train_jobs"][0]["tags"] = expected["plugins"][plugin]
        assert_same(answer, get(client, "/single-job", train_id=train_id, plugin_name=plugin))


@pytest.mark.parametrize("sampled", [False, True], ids=["every-step", "mindinsight-sampling"])
@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_scalars_match_oracle(oracle: dict[str, Any], client: FlaskClient,
                              mi_client: FlaskClient, train_id: str, sampled: bool) -> None:
    # No scalar tag of the corpus has more than 1000 steps: both answer exactly as MindInsight.
    for tag, answer in oracle["jobs"][train_id]["scalars"].items():
        assert_same(answer, get(mi_client if sampled else client, "/scalar/metadata",
                                train_id=train_id, tag=tag), f"{train_id}[{tag}]")


@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_histograms_match_oracle(oracle: dict[str, Any], client: FlaskClient,
                                 mi_client: FlaskClient, train_id: str) -> None:
    for tag, answer in oracle["jobs"][train_id]["histograms"].items():
        params = {"train_id": train_id, "tag": tag}
        assert_same(answer, get(mi_client, "/histograms", **params), f"{train_id}[{tag}]")
        ours = get(client, "/histograms", **params)
        by_step = {h["step"]: h for h in ours["histograms"]}
        oracle_steps = [h["step"] for h in answer["histograms"]]
        if len(by_step) != len(oracle_steps):
            # MindInsight's 50-step reservoir dropped steps (ops_all: 51 steps, 240 dropped);
            # we keep them all, on the same bucket grid.
            assert len(oracle_steps) == 50 and set(oracle_steps) < set(by_step), tag
        assert_same(answer["histograms"], [by_step[s] for s in oracle_steps], f"{train_id}[{tag}]")
        assert [ours["train_id"], ours["tag"]] == [train_id, tag]


@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_images_match_oracle(oracle: dict[str, Any], client: FlaskClient,
                             mi_client: FlaskClient, train_id: str) -> None:
    for tag, answer in oracle["jobs"][train_id]["images"].items():
        params = {"train_id": train_id, "tag": tag}
        expected_meta = answer["metadata"]["metadatas"]
        steps = [m["step"] for m in expected_meta]
        assert_same(answer["metadata"], get(mi_client, "/image/metadata", **params))
        assert_same(answer["bodies"], image_bodies(mi_client, train_id, tag, steps))
        # Every step kept: MindInsight's 10-image reservoir kept a subset of ours.
        ours = get(client, "/image/metadata", **params)["metadatas"]
        by_step = {m["step"]: m for m in ours}
        assert set(steps) <= set(by_step) and ours[-1]["step"] == steps[-1]
        assert_same(expected_meta, [by_step[s] for s in steps])
        assert_same(answer["bodies"], image_bodies(client, train_id, tag, steps))


@pytest.mark.parametrize("sampled", [False, True], ids=["every-step", "mindinsight-sampling"])
@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_tensors_match_oracle(oracle: dict[str, Any], client: FlaskClient,
                              mi_client: FlaskClient, train_id: str, sampled: bool) -> None:
    # At most 6 steps per tensor tag in the corpus: nothing sampled away.
    api = mi_client if sampled else client
    for tag, answer in oracle["jobs"][train_id]["tensors"].items():
        params = {"train_id": train_id, "tag": tag}
        assert_same(answer["none"], get(api, "/tensors", **params), f"{tag} none")
        assert_same(answer["stats"], get(api, "/tensors", detail="stats", **params))
        assert_same(answer["histogram"], get(api, "/tensors", detail="histogram", **params))
        data = answer["data"]
        last = answer["none"]["tensors"][0]["values"][-1]
        assert data["dims"] == default_dims(last["value"]["dims"])
        ours = get(api, "/tensors", detail="data", step=data["step"], dims=data["dims"], **params)
        # error_msg compared too: MindInsight's 50545013 message is reproduced word for word.
        assert_same(data["response"], ours, f"{tag} data")


def test_comparison_scalars_match_oracle(oracle: dict[str, Any], client: FlaskClient) -> None:
    for tag, answer in oracle["comparison"]["scalars"].items():
        train_ids = [entry["train_id"] for entry in answer["scalars"]]
        ours = client.get(f"{PREFIX}/scalars", query_string={"train_id": train_ids, "tag": tag})
        assert_same(answer, ours.get_json(), tag)


def test_mindinsight_oracle_errors(oracle: dict[str, Any], client: FlaskClient) -> None:
    """Every request MindInsight refused is refused the same way (code and message)."""
    assert oracle["errors"]
    for error in oracle["errors"]:
        path = error["url"].split("/v1/mindinsight/datavisual", 1)[1]
        response = client.open(PREFIX + path, method=error["method"])
        assert response.status_code == error["status"]
        assert response.get_json() == error["response"]


# -- train jobs ----------------------------------------------------------------------------------


def test_train_jobs_match_oracle_and_list_nested(oracle: dict[str, Any],
                                                 client: FlaskClient) -> None:
    ours = get(client, "/train-jobs", offset=0, limit=999)
    assert list(ours) == list(oracle["train_jobs"]) == ["name", "total", "train_jobs",
                                                          "load_status"]
    assert ours["name"] == oracle["train_jobs"]["name"] == "corpus"
    assert ours["load_status"] == "loaded"
    by_id = {job["train_id"]: job for job in ours["train_jobs"]}
    # MindInsight looked one level deep; the nested job is listed (and served) by us.
    assert ours["total"] == len(ours["train_jobs"]) == oracle["train_jobs"]["total"] + 1
    assert set(by_id) == set(ORACLE_JOBS) | {"./nested/grp/job_a"}
    volatile = frozenset({"create_time", "update_time", "plugins"})
    for expected in oracle["train_jobs"]["train_jobs"]:
        job = by_id[expected["train_id"]]
        assert_same(expected, job, expected["train_id"], ignore=volatile)
        assert_same(get(client, "/plugins", train_id=job["train_id"])["plugins"], job["plugins"])
        for field in ("create_time", "update_time"):
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", job[field])
    nested = by_id["./nested/grp/job_a"]
    assert nested["plugins"]["scalar"] == ["accuracy/scalar", "learning_rate/scalar",
                                          "loss/scalar"]
    assert (nested["summary_files"], nested["cache_status"], nested["is_integrity"]) == (
        1, "CACHED", True)
    loss = get(client, "/scalar/metadata", train_id="./nested/grp/job_a", tag="loss/scalar")
    assert len(loss["metadatas"]) == 200


def test_train_jobs_paging(client: FlaskClient, provider: DataProvider) -> None:
    newest_first = [job.train_id for job in provider.list_jobs()]
    pages = [get(client, "/train-jobs", offset=page, limit=4) for page in range(4)]
    assert [len(p["train_jobs"]) for p in pages] == [4, 4, 1, 0]
    assert {p["total"] for p in pages} == {9}
    assert [j["train_id"] for p in pages for j in p["train_jobs"]] == newest_first
    assert len(get(client, "/train-jobs")["train_jobs"]) == 9  # default limit 10
    only = get(client, "/train-jobs", train_id="./lenet_sc")
    assert only["total"] == 1 and only["train_jobs"][0]["train_id"] == "./lenet_sc"
    assert get(client, "/train-jobs", train_id="./nope")["total"] == 0
    for bad in ({"limit": 0}, {"limit": 1000}, {"offset": -1}):
        assert fails(client, "/train-jobs", **bad) == (400, "50540002")
    assert fails(client, "/train-jobs", limit="ten") == (400, "50540001")
    assert fails(client, "/train-jobs", offset="1.5") == (400, "50540001")
    assert fails(client, "/train-jobs", train_id="./../x") == (400, "50540002")


def test_train_job_caches(client: FlaskClient) -> None:
    response = client.post(f"{PREFIX}/train-job-caches",
                           json={"train_ids": ["./lenet_sc", "./nope", "./nested/grp/job_a"]})
    assert response.get_json() == {"cache_result": [
        {"train_id": "./lenet_sc", "cache_status": "CACHED"},
        {"train_id": "./nested/grp/job_a", "cache_status": "CACHED"}]}
    post = client.post
    assert error_of(post(f"{PREFIX}/train-job-caches", json={"train_ids": "./lenet_sc"})) == (
        400, "50540001")
    assert error_of(post(f"{PREFIX}/train-job-caches", json={"train_ids": [1]})) == (
        400, "50540001")
    assert error_of(post(f"{PREFIX}/train-job-caches", json={})) == (400, "50540003")
    assert error_of(post(f"{PREFIX}/train-job-caches", data="x")) == (400, "50540003")
    assert error_of(post(f"{PREFIX}/train-job-caches", json={"train_ids": ["/etc"]})) == (
        400, "50540002")
    response = client.get(f"{PREFIX}/train-job-caches")
    assert error_of(response) == (405, "50545002")
    assert response.headers["Allow"] == "OPTIONS, POST"


# -- errors --------------------------------------------------------------------------------------


def test_missing_parameters(client: FlaskClient) -> None:
    cases = {
        "/plugins": {},
        "/single-job": {"train_id": "./lenet_sc"},
        "/scalar/metadata": {"train_id": "./lenet_sc"},
        "/image/metadata": {"tag": "input_data/auto/image"},
        "/image/single-image": {"train_id": "./lenet_sc", "tag": "input_data/auto/image"},
        "/histograms": {"train_id": "./lenet_sc"},
        "/tensors": {"train_id": "./ops_all"},
    }
    for path, params in cases.items():
        assert fails(client, path, **params) == (400, "50540003"), path
    body = client.get(f"{PREFIX}/plugins").get_json()
    assert body["error_msg"] == "Param missing. 'train_id' is required."
    data = {"train_id": "./ops_all", "tag": "tensor/f64/tensor", "detail": "data"}
    assert fails(client, "/tensors", **data) == (400, "50540003")  # step
    assert fails(client, "/tensors", step=1, **data) == (400, "50540003")  # dims
    # /scalars without parameters is an empty answer, as in MindInsight
    assert get(client, "/scalars") == {"scalars": []}


def test_unknown_jobs_and_tags(client: FlaskClient) -> None:
    job = {"train_id": "./nope"}
    for path, tag in [("/scalar/metadata", "loss/auto/scalar"), ("/histograms", "x/histogram"),
                      ("/image/metadata", "x/image"), ("/tensors", "x/tensor")]:
        assert fails(client, path, tag=tag, **job) == (400, "50545005"), path
    assert fails(client, "/plugins", **job) == (400, "50545005")
    assert fails(client, "/single-job", plugin_name="scalar", **job) == (400, "50545005")
    job = {"train_id": "./lenet_sc"}
    assert fails(client, "/scalar/metadata", tag="nope/scalar", **job) == (400, "5054500E")
    assert fails(client, "/scalar/metadata", tag="loss/auto", **job) == (400, "5054500E")
    assert fails(client, "/histograms", tag="loss/auto/scalar", **job) == (400, "5054500F")
    assert fails(client, "/image/metadata", tag="nope/image", **job) == (400, "5054500D")
    assert fails(client, "/image/single-image", tag="nope/image", step=1, **job) == (
        400, "5054500D")
    assert fails(client, "/tensors", tag="nope/tensor", **job) == (400, "50545012")
    body = client.get(f"{PREFIX}/scalar/metadata",
                      query_string={"tag": "nope/scalar", **job}).get_json()
    assert body["error_msg"] == ("Scalar value is not exist. Detail: Can not find any data in "
                                 "this train job by given tag.")
    assert fails(client, "/single-job", plugin_name="audio", **job) == (400, "5054500B")
    assert fails(client, "/plugins", manual_update="yes", **job) == (400, "50540002")
    assert fails(client, "/plugins", train_id="./lenet_sc\x00") == (400, "50545011")
    assert fails(client, "/scalar/metadata", tag="loss\x00/scalar", **job) == (400, "50545011")
    # /scalars skips unknown jobs and tags silently, as MindInsight does
    answer = client.get(f"{PREFIX}/scalars", query_string={
        "train_id": ["./nope", "./lenet_sc"], "tag": ["nope/scalar", "loss/auto/scalar"]})
    assert [(s["train_id"], s["tag"]) for s in answer.get_json()["scalars"]] == [
        ("./lenet_sc", "loss/auto/scalar")]


@pytest.mark.parametrize("train_id", ["./../x", "/etc", "./a/../../b", "..", "./", "lenet_sc",
                                      "./lenet_sc/", ".//lenet_sc", "./lenet_sc/../ops_all"])
def test_path_traversal_train_ids_are_rejected(client: FlaskClient, train_id: str) -> None:
    expected = (400, "50545005") if train_id == "./" else (400, "50540002")  # "./" is valid
    tag = {"tag": "loss/auto/scalar"}
    assert fails(client, "/scalar/metadata", train_id=train_id, **tag) == expected
    assert fails(client, "/plugins", train_id=train_id) == expected
    assert fails(client, "/image/single-image", train_id=train_id, tag="x/image", step=1) == (
        expected)
    with_scalars = client.get(f"{PREFIX}/scalars", query_string={"train_id": train_id, **tag})
    if expected[1] == "50540002":
        assert error_of(with_scalars) == expected
        message = client.get(f"{PREFIX}/plugins",
                             query_string={"train_id": train_id}).get_json()["error_msg"]
        assert message.startswith("Invalid parameter value. ") and "train_id" in message


def test_bad_steps_and_dims(client: FlaskClient) -> None:
    image = {"train_id": "./lenet_sc", "tag": "input_data/auto/image"}
    assert fails(client, "/image/single-image", step="last", **image) == (400, "50540001")
    assert fails(client, "/image/single-image", step=999, **image) == (400, "5054500D")
    tensor = {"train_id": "./ops_all", "tag": "tensor/rank4_i32/tensor", "detail": "data"}
    assert fails(client, "/tensors", step="x", dims="[0,0,:,:]", **tensor) == (400, "50540001")
    assert fails(client, "/tensors", step=7, dims="[0,0,:,:]", **tensor) == (400, "50545014")
    body = client.get(f"{PREFIX}/tensors",
                      query_string={"step": 7, "dims": "[0,0,:,:]", **tensor}).get_json()
    assert body["error_msg"] == ("Tensor data not in cache. Detail: this step: 7 data may has "
                                 "been dropped.")
    for dims in ["[0,:,:,:]", "[0,:]", "0,0,:,:", "[0,0,a,:]", "[5,0,:,:]", "[0,0,::0,:]"]:
        assert fails(client, "/tensors", step=100, dims=dims, **tensor) == (400, "50540002"), dims
    assert fails(client, "/tensors", detail="everything", train_id="./ops_all",
                 tag="tensor/f64/tensor") == (400, "50540002")
    big = {"train_id": "./ops_all", "tag": "tensor/big_1m_f32/tensor", "detail": "data"}
    assert fails(client, "/tensors", step=100, dims="[:,0:101]", **big) == (400, "50545013")
    ok = get(client, "/tensors", step=100, dims="[0:100,:]", **big)
    value = ok["tensors"][0]["values"][0]["value"]
    assert np.shape(value["data"]) == (100, 1000) and value["statistics"]["count"] == 100_000
    assert value["statistics"]["overall_count"] == 1_000_000
    # rank 1 (the tag MindInsight never listed), -1 = last step, ints and bools sent as floats
    rank1 = get(client, "/tensors", train_id="./ops_all", tag="tensor/rank1_f32/tensor",
                detail="data", step=-1, dims="[0:3]")["tensors"][0]["values"][0]
    assert rank1["step"] == 500 and len(rank1["value"]["data"]) == 3
    bools = get(client, "/tensors", train_id="./ops_all", tag="tensor/bool_mask/tensor",
                detail="data", step=1, dims="[0,:]")["tensors"][0]["values"][0]["value"]
    assert {type(v) for v in bools["data"]} == {float}


@pytest.fixture(scope="module")
def odd_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """A base directory with a symlinked job, a tensor above 10,000,000 values and a NaN tensor."""
    root = tmp_path_factory.mktemp("odd")
    base, outside = root / "logs", root / "outside"
    with SummaryWriter(base / "run", host="t") as writer:
        writer.add_scalar("loss", 1.0, step=1)
        writer.add_tensor("huge", np.zeros((3000, 4000), np.float32), step=1)
        writer.add_tensor("nan", np.array([[1.0, np.nan], [np.inf, -np.inf]], np.float32), step=1)
    with SummaryWriter(outside / "secret", host="t") as writer:
        writer.add_scalar("loss", 2.0, step=1)
    os.symlink(outside / "secret", base / "link")
    yield _app(loaded_service(base, root / "ws")).test_client()


def test_symlinks_too_large_tensors_and_nan_data(odd_base: FlaskClient) -> None:
    assert [j["train_id"] for j in get(odd_base, "/train-jobs")["train_jobs"]] == ["./run"]
    assert fails(odd_base, "/plugins", train_id="./link") == (400, "50540002")
    assert fails(odd_base, "/scalar/metadata", train_id="./link", tag="loss/scalar") == (
        400, "50540002")
    huge = {"train_id": "./run", "tag": "huge/tensor"}
    assert get(odd_base, "/tensors", **huge)["tensors"][0]["values"][0]["value"] == {
        "dims": [3000, 4000], "data_type": "DT_FLOAT32"}
    stats = get(odd_base, "/tensors", detail="stats", **huge)["tensors"][0]["values"][0]
    assert stats["value"]["statistics"] is None
    assert fails(odd_base, "/tensors", detail="histogram", **huge) == (400, "50545016")
    assert fails(odd_base, "/tensors", detail="data", step=1, dims="[0,0:10]", **huge) == (
        400, "50545016")
    nan = get(odd_base, "/tensors", detail="data", step=1, dims="[:,:]", train_id="./run",
              tag="nan/tensor")["tensors"][0]["values"][0]["value"]
    assert nan["data"] == [[1.0, "NAN"], ["INF", "-INF"]]
    assert (nan["statistics"]["nan_count"], nan["statistics"]["avg"]) == (1, 1.0)


def test_unknown_routes_and_methods(client: FlaskClient) -> None:
    for path in ["/v1/mindinsight/datavisual/nope", "/v1/mindinsight/", "/v1/dash-insight/x",
                 "/v1/mindinsight/datavisual/graphs/nope"]:
        assert error_of(client.get(path)) == (404, "50545001"), path
    response = client.post(f"{PREFIX}/train-jobs")
    assert error_of(response) == (405, "50545002")
    assert response.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert response.get_json()["error_msg"] == "405 Method Not Allowed."
    assert error_of(client.delete(EXPORT)) == (405, "50545002")
    options = client.options(f"{PREFIX}/tensors")
    assert options.status_code == 200 and options.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert error_of(client.options(f"{PREFIX}/nope")) == (404, "50545001")
    head = client.head(f"{PREFIX}/image/single-image", query_string={
        "train_id": "./lenet_sc", "tag": "input_data/auto/image", "step": 1})
    assert head.status_code == 200 and head.content_type == "image/png"


def test_security_headers_on_every_answer(client: FlaskClient) -> None:
    responses = [
        client.get(f"{PREFIX}/train-jobs"),
        client.get(f"{PREFIX}/plugins"),
        client.get(f"{PREFIX}/image/single-image", query_string={
            "train_id": "./lenet_sc", "tag": "input_data/auto/image", "step": -1}),
        client.get("/v1/mindinsight/unknown"),
        client.put(f"{PREFIX}/scalars"),
        client.get(EXPORT, query_string={"train_id": "./lenet_sc", "tag": "loss/auto"}),
    ]
    assert [r.status_code for r in responses] == [200, 400, 200, 404, 405, 200]
    assert responses[2].content_type == "image/png" and responses[2].data[:4] == b"\x89PNG"
    for response in responses:
        for name, value in SECURITY.items():
            assert response.headers[name] == value
        csp = response.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'self'" in csp


def test_embedded_under_a_prefix(service: DataService, corpus: Path) -> None:
    client = _app(service, url_prefix="/insight").test_client()
    answer = client.get("/insight/v1/mindinsight/datavisual/train-jobs").get_json()
    assert answer["name"] == corpus.name and answer["total"] == 9
    assert client.get("/insight/v1/dash-insight/export/scalars", query_string={
        "train_id": "./lenet_sc", "tag": "loss/auto"}).status_code == 200
    assert client.get("/v1/mindinsight/datavisual/train-jobs").status_code == 404


# -- export --------------------------------------------------------------------------------------


def test_export_csv(client: FlaskClient, provider: DataProvider) -> None:
    response = client.get(EXPORT, query_string={
        "train_id": ["./ops_all", "./nested/grp/job_a"], "tag": ["loss", "metrics/nan_inf"]})
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="scalars.csv"'
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert list(rows[0]) == ["train_id", "tag", "step", "wall_time", "value"]
    # nested job has "loss" but not "metrics/nan_inf": that pair is left out
    groups = [(r["train_id"], r["tag"]) for r in rows]
    assert sorted(set(groups), key=groups.index) == [
        ("./ops_all", "loss"), ("./ops_all", "metrics/nan_inf"), ("./nested/grp/job_a", "loss")]
    assert len(rows) == 500 + 500 + 200
    series = provider.read_scalars("./ops_all", "metrics/nan_inf")
    exported = [r for r in rows if r["tag"] == "metrics/nan_inf"]
    assert [int(r["step"]) for r in exported] == series.step.tolist()
    np.testing.assert_array_equal(np.array([float(r["value"]) for r in exported]),
                                  series.value.astype(np.float64))
    assert {"nan", "inf", "-inf"} <= {r["value"] for r in exported}
    assert float(exported[0]["wall_time"]) == series.wall_time[0]


def test_export_json_equals_mindinsight_scalars(client: FlaskClient) -> None:
    response = client.get(EXPORT, query_string={
        "train_id": "./ops_all", "tag": "metrics/nan_inf/scalar", "format": "json"})
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="scalars_ops_all_metrics_nan_inf_scalar.json"')
    [exported] = response.get_json()
    assert [exported["train_id"], exported["tag"]] == ["./ops_all", "metrics/nan_inf/scalar"]
    [mindinsight] = client.get(f"{PREFIX}/scalars", query_string={
        "train_id": "./ops_all", "tag": "metrics/nan_inf/scalar"}).get_json()["scalars"]
    assert exported["values"] == [{"step": v["step"], "wall_time": v["wall_time"],
                                   "value": v["value"]} for v in mindinsight["values"]]
    assert any(v["value"] is None for v in exported["values"])
    one_job = client.get(EXPORT, query_string={"train_id": "./", "tag": ["a", "b"]})
    assert error_of(one_job) == (400, "50545005")


def test_export_errors(client: FlaskClient) -> None:
    def export_error(**params: Any) -> tuple[int, str]:
        return error_of(client.get(EXPORT, query_string=params))

    assert export_error(tag="loss") == (400, "50540003")
    assert export_error(train_id="./ops_all") == (400, "50540003")
    assert export_error(train_id="./ops_all", tag="loss", format="xlsx") == (400, "50540002")
    assert export_error(train_id="./nope", tag="loss") == (400, "50545005")
    assert export_error(train_id="./../corpus", tag="loss") == (400, "50540002")
    assert export_error(train_id="./ops_all", tag=["loss", "nope"]) == (400, "5054500E")
    response = client.get(EXPORT, query_string={"train_id": "./lenet_sc", "tag": "loss/auto"})
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="scalars_lenet_sc_loss_auto.csv"')


# -- the real tools over HTTP --------------------------------------------------------------------


def test_mi_dump_and_compare_dumps(oracle: dict[str, Any], mi_app: Flask,
                                   tmp_path: Path) -> None:
    """``mi_dump.py`` against a real server, ``compare_dumps.py`` against the oracle."""
    compared = dump_and_compare(mi_app, tmp_path, "scalars,histograms,images,tensors",
                                dump_timeout=120)
    assert compared.returncode == 0, compared.stdout
    counts = {section: sum(len(job[section]) for job in oracle["jobs"].values())
              for section in ("scalars", "histograms", "images", "tensors")}
    assert counts == {"scalars": 25, "histograms": 54, "images": 14, "tensors": 8}
    expected = ", ".join(f"{section} {n}/{n}" for section, n in counts.items())
    assert f"answers equal to MindInsight 2.3.1: {expected}" in compared.stdout
