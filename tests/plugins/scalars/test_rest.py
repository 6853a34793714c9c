"""The scalars plugin's REST answers (scalar/metadata, scalars comparison, the CSV/JSON export)
against MindInsight 2.3.1's (fixtures and helpers: tests/rest_fixtures.py).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from dash_insight.core.provider import DataProvider
from tests.rest_fixtures import (
    EXPORT,
    ORACLE_JOBS,
    PREFIX,
    assert_same,
    error_of,
    get,
)


@pytest.mark.parametrize("sampled", [False, True], ids=["every-step", "mindinsight-sampling"])
@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_scalars_match_oracle(oracle: dict[str, Any], client: FlaskClient,
                              mi_client: FlaskClient, train_id: str, sampled: bool) -> None:
    # No scalar tag of the corpus has more than 1000 steps: both answer exactly as MindInsight.
    for tag, answer in oracle["jobs"][train_id]["scalars"].items():
        assert_same(answer, get(mi_client if sampled else client, "/scalar/metadata",
                                train_id=train_id, tag=tag), f"{train_id}[{tag}]")


def test_comparison_scalars_match_oracle(oracle: dict[str, Any], client: FlaskClient) -> None:
    for tag, answer in oracle["comparison"]["scalars"].items():
        train_ids = [entry["train_id"] for entry in answer["scalars"]]
        ours = client.get(f"{PREFIX}/scalars", query_string={"train_id": train_ids, "tag": tag})
        assert_same(answer, ours.get_json(), tag)


# -- export ----------------------------------------------------------------------------------------


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
