"""The REST plumbing shared by every plugin (dash_insight.web.http): missing parameters, unknown
jobs and tags, path traversal, unknown routes and methods, security headers, embedding under a
prefix, MindInsight's refusals, and the real mi_dump.py/compare_dumps.py run against the oracle.

Each plugin's own answers are tested in tests/plugins/<name>/test_rest.py; fixtures and helpers
are in tests/rest_fixtures.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dash_insight.core.service import DataService
from tests.conftest import dump_and_compare
from tests.rest_fixtures import (
    EXPORT,
    PREFIX,
    SECURITY,
    error_of,
    fails,
    get,
    rest_app,
)


def test_mindinsight_oracle_errors(oracle: dict[str, Any], client: FlaskClient) -> None:
    """Every request MindInsight refused is refused the same way (code and message)."""
    assert oracle["errors"]
    for error in oracle["errors"]:
        path = error["url"].split("/v1/mindinsight/datavisual", 1)[1]
        response = client.open(PREFIX + path, method=error["method"])
        assert response.status_code == error["status"]
        assert response.get_json() == error["response"]


# -- errors ----------------------------------------------------------------------------------------


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
    for path, tag in [
        ("/scalar/metadata", "loss/auto/scalar"),
        ("/histograms", "x/histogram"),
        ("/image/metadata", "x/image"),
        ("/tensors", "x/tensor"),
    ]:
        assert fails(client, path, tag=tag, **job) == (400, "50545005"), path
    assert fails(client, "/plugins", **job) == (400, "50545005")
    assert fails(client, "/single-job", plugin_name="scalar", **job) == (400, "50545005")
    job = {"train_id": "./lenet_sc"}
    assert fails(client, "/scalar/metadata", tag="nope/scalar", **job) == (400, "5054500E")
    assert fails(client, "/scalar/metadata", tag="loss/auto", **job) == (400, "5054500E")
    assert fails(client, "/histograms", tag="loss/auto/scalar", **job) == (400, "5054500F")
    assert fails(client, "/image/metadata", tag="nope/image", **job) == (400, "5054500D")
    assert fails(client, "/image/single-image", tag="nope/image", step=1, **job) == (
        400,
        "5054500D",
    )
    assert fails(client, "/tensors", tag="nope/tensor", **job) == (400, "50545012")
    body = client.get(
        f"{PREFIX}/scalar/metadata", query_string={"tag": "nope/scalar", **job}
    ).get_json()
    assert body["error_msg"] == (
        "Scalar value is not exist. Detail: Can not find any data in this train job by given tag."
    )
    assert fails(client, "/single-job", plugin_name="audio", **job) == (400, "5054500B")
    assert fails(client, "/plugins", manual_update="yes", **job) == (400, "50540002")
    assert fails(client, "/plugins", train_id="./lenet_sc\x00") == (400, "50545011")
    assert fails(client, "/scalar/metadata", tag="loss\x00/scalar", **job) == (400, "50545011")
    # /scalars skips unknown jobs and tags silently, as MindInsight does
    answer = client.get(
        f"{PREFIX}/scalars",
        query_string={
            "train_id": ["./nope", "./lenet_sc"],
            "tag": ["nope/scalar", "loss/auto/scalar"],
        },
    )
    assert [(s["train_id"], s["tag"]) for s in answer.get_json()["scalars"]] == [
        ("./lenet_sc", "loss/auto/scalar")
    ]


@pytest.mark.parametrize(
    "train_id",
    [
        "./../x",
        "/etc",
        "./a/../../b",
        "..",
        "./",
        "lenet_sc",
        "./lenet_sc/",
        ".//lenet_sc",
        "./lenet_sc/../ops_all",
    ],
)
def test_path_traversal_train_ids_are_rejected(client: FlaskClient, train_id: str) -> None:
    expected = (400, "50545005") if train_id == "./" else (400, "50540002")  # "./" is valid
    tag = {"tag": "loss/auto/scalar"}
    assert fails(client, "/scalar/metadata", train_id=train_id, **tag) == expected
    assert fails(client, "/plugins", train_id=train_id) == expected
    assert fails(client, "/image/single-image", train_id=train_id, tag="x/image", step=1) == (
        expected
    )
    with_scalars = client.get(f"{PREFIX}/scalars", query_string={"train_id": train_id, **tag})
    if expected[1] == "50540002":
        assert error_of(with_scalars) == expected
        message = client.get(f"{PREFIX}/plugins", query_string={"train_id": train_id}).get_json()[
            "error_msg"
        ]
        assert message.startswith("Invalid parameter value. ") and "train_id" in message


def test_unknown_routes_and_methods(client: FlaskClient) -> None:
    for path in [
        "/v1/mindinsight/datavisual/nope",
        "/v1/mindinsight/",
        "/v1/dash-insight/x",
        "/v1/mindinsight/datavisual/graphs/nope",
    ]:
        assert error_of(client.get(path)) == (404, "50545001"), path
    response = client.post(f"{PREFIX}/train-jobs")
    assert error_of(response) == (405, "50545002")
    assert response.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert response.get_json()["error_msg"] == "405 Method Not Allowed."
    assert error_of(client.delete(EXPORT)) == (405, "50545002")
    options = client.options(f"{PREFIX}/tensors")
    assert options.status_code == 200 and options.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert error_of(client.options(f"{PREFIX}/nope")) == (404, "50545001")
    head = client.head(
        f"{PREFIX}/image/single-image",
        query_string={"train_id": "./lenet_sc", "tag": "input_data/auto/image", "step": 1},
    )
    assert head.status_code == 200 and head.content_type == "image/png"


def test_security_headers_on_every_answer(client: FlaskClient) -> None:
    responses = [
        client.get(f"{PREFIX}/train-jobs"),
        client.get(f"{PREFIX}/plugins"),
        client.get(
            f"{PREFIX}/image/single-image",
            query_string={"train_id": "./lenet_sc", "tag": "input_data/auto/image", "step": -1},
        ),
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
    client = rest_app(service, url_prefix="/insight").test_client()
    answer = client.get("/insight/v1/mindinsight/datavisual/train-jobs").get_json()
    assert answer["name"] == corpus.name and answer["total"] == 9
    assert (
        client.get(
            "/insight/v1/dash-insight/export/scalars",
            query_string={"train_id": "./lenet_sc", "tag": "loss/auto"},
        ).status_code
        == 200
    )
    assert client.get("/v1/mindinsight/datavisual/train-jobs").status_code == 404


# -- the real tools over HTTP ----------------------------------------------------------------------


def test_mi_dump_and_compare_dumps(oracle: dict[str, Any], mi_app: Flask, tmp_path: Path) -> None:
    """``mi_dump.py`` against a real server, ``compare_dumps.py`` against the oracle."""
    compared = dump_and_compare(
        mi_app, tmp_path, "scalars,histograms,images,tensors", dump_timeout=120
    )
    assert compared.returncode == 0, compared.stdout
    counts = {
        section: sum(len(job[section]) for job in oracle["jobs"].values())
        for section in ("scalars", "histograms", "images", "tensors")
    }
    assert counts == {"scalars": 25, "histograms": 54, "images": 14, "tensors": 8}
    expected = ", ".join(f"{section} {n}/{n}" for section, n in counts.items())
    assert f"answers equal to MindInsight 2.3.1: {expected}" in compared.stdout
