"""The tensors plugin's REST answers against MindInsight 2.3.1's, and its refusals: bad steps
and dims, tensors too large, NaN/Inf data (fixtures and helpers: tests/rest_fixtures.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from dash_insight import SummaryWriter
from tests.conftest import loaded_service
from tests.rest_fixtures import (
    ORACLE_JOBS,
    PREFIX,
    assert_same,
    fails,
    get,
    rest_app,
)


def default_dims(dims: list[int]) -> str:
    """mi_dump.py's default slice."""
    parts = [":" if i >= len(dims) - 2 else "0" for i in range(len(dims))]
    if parts and dims[-1] > 1000:
        parts[-1] = "0:1000"
    return "[" + ",".join(parts) + "]"


@pytest.mark.parametrize("sampled", [False, True], ids=["every-step", "mindinsight-sampling"])
@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_tensors_match_oracle(
    oracle: dict[str, Any],
    client: FlaskClient,
    mi_client: FlaskClient,
    train_id: str,
    sampled: bool,
) -> None:
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


def test_bad_steps_and_dims(client: FlaskClient) -> None:
    image = {"train_id": "./lenet_sc", "tag": "input_data/auto/image"}
    assert fails(client, "/image/single-image", step="last", **image) == (400, "50540001")
    assert fails(client, "/image/single-image", step=999, **image) == (400, "5054500D")
    tensor = {"train_id": "./ops_all", "tag": "tensor/rank4_i32/tensor", "detail": "data"}
    assert fails(client, "/tensors", step="x", dims="[0,0,:,:]", **tensor) == (400, "50540001")
    assert fails(client, "/tensors", step=7, dims="[0,0,:,:]", **tensor) == (400, "50545014")
    body = client.get(
        f"{PREFIX}/tensors", query_string={"step": 7, "dims": "[0,0,:,:]", **tensor}
    ).get_json()
    assert body["error_msg"] == (
        "Tensor data not in cache. Detail: this step: 7 data may has been dropped."
    )
    for dims in ["[0,:,:,:]", "[0,:]", "0,0,:,:", "[0,0,a,:]", "[5,0,:,:]", "[0,0,::0,:]"]:
        assert fails(client, "/tensors", step=100, dims=dims, **tensor) == (400, "50540002"), dims
    assert fails(
        client, "/tensors", detail="everything", train_id="./ops_all", tag="tensor/f64/tensor"
    ) == (400, "50540002")
    big = {"train_id": "./ops_all", "tag": "tensor/big_1m_f32/tensor", "detail": "data"}
    assert fails(client, "/tensors", step=100, dims="[:,0:101]", **big) == (400, "50545013")
    ok = get(client, "/tensors", step=100, dims="[0:100,:]", **big)
    value = ok["tensors"][0]["values"][0]["value"]
    assert np.shape(value["data"]) == (100, 1000) and value["statistics"]["count"] == 100_000
    assert value["statistics"]["overall_count"] == 1_000_000
    # rank 1 (the tag MindInsight never listed), -1 = last step, ints and bools sent as floats
    rank1 = get(
        client,
        "/tensors",
        train_id="./ops_all",
        tag="tensor/rank1_f32/tensor",
        detail="data",
        step=-1,
        dims="[0:3]",
    )["tensors"][0]["values"][0]
    assert rank1["step"] == 500 and len(rank1["value"]["data"]) == 3
    bools = get(
        client,
        "/tensors",
        train_id="./ops_all",
        tag="tensor/bool_mask/tensor",
        detail="data",
        step=1,
        dims="[0,:]",
    )["tensors"][0]["values"][0]["value"]
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
    yield rest_app(loaded_service(base, root / "ws")).test_client()


def test_symlinks_too_large_tensors_and_nan_data(odd_base: FlaskClient) -> None:
    assert [j["train_id"] for j in get(odd_base, "/train-jobs")["train_jobs"]] == ["./run"]
    assert fails(odd_base, "/plugins", train_id="./link") == (400, "50540002")
    assert fails(odd_base, "/scalar/metadata", train_id="./link", tag="loss/scalar") == (
        400,
        "50540002",
    )
    huge = {"train_id": "./run", "tag": "huge/tensor"}
    assert get(odd_base, "/tensors", **huge)["tensors"][0]["values"][0]["value"] == {
        "dims": [3000, 4000],
        "data_type": "DT_FLOAT32",
    }
    stats = get(odd_base, "/tensors", detail="stats", **huge)["tensors"][0]["values"][0]
    assert stats["value"]["statistics"] is None
    # #42: the step too large is named and left empty; other steps would still be served
    (large,) = get(odd_base, "/tensors", detail="histogram", **huge)["tensors"][0]["values"]
    assert (
        large["value"]["histogram_buckets"] == [] and "12,000,000 values" in large["value"]["error"]
    )
    assert fails(odd_base, "/tensors", detail="data", step=1, dims="[0,0:10]", **huge) == (
        400,
        "50545016",
    )
    nan = get(
        odd_base,
        "/tensors",
        detail="data",
        step=1,
        dims="[:,:]",
        train_id="./run",
        tag="nan/tensor",
    )["tensors"][0]["values"][0]["value"]
    assert nan["data"] == [[1.0, "NAN"], ["INF", "-INF"]]
    assert (nan["statistics"]["nan_count"], nan["statistics"]["avg"]) == (1, 1.0)
