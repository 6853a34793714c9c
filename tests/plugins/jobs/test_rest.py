"""The jobs plugin's REST answers (train-jobs, plugins, single-job, train-job-caches) against
MindInsight 2.3.1's (fixtures and helpers: tests/rest_fixtures.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from dash_insight.core.provider import DataProvider
from tests.rest_fixtures import (
    EXTRA_TAGS,
    ORACLE_JOBS,
    PREFIX,
    assert_same,
    error_of,
    fails,
    get,
)


@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_plugins_and_single_job_match_oracle(
    oracle: dict[str, Any], client: FlaskClient, train_id: str
) -> None:
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


# -- train jobs ------------------------------------------------------------------------------------


def test_train_jobs_match_oracle_and_list_nested(
    oracle: dict[str, Any], client: FlaskClient
) -> None:
    ours = get(client, "/train-jobs", offset=0, limit=999)
    assert (
        list(ours) == list(oracle["train_jobs"]) == ["name", "total", "train_jobs", "load_status"]
    )
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
    assert nested["plugins"]["scalar"] == ["accuracy/scalar", "learning_rate/scalar", "loss/scalar"]
    assert (nested["summary_files"], nested["cache_status"], nested["is_integrity"]) == (
        1,
        "CACHED",
        True,
    )
    loss = get(client, "/scalar/metadata", train_id="./nested/grp/job_a", tag="loss/scalar")
    assert len(loss["metadatas"]) == 200


def test_train_jobs_paging(client: FlaskClient, corpus_provider: DataProvider) -> None:
    newest_first = [job.train_id for job in corpus_provider.list_jobs()]
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
    response = client.post(
        f"{PREFIX}/train-job-caches",
        json={"train_ids": ["./lenet_sc", "./nope", "./nested/grp/job_a"]},
    )
    assert response.get_json() == {
        "cache_result": [
            {"train_id": "./lenet_sc", "cache_status": "CACHED"},
            {"train_id": "./nested/grp/job_a", "cache_status": "CACHED"},
        ]
    }
    post = client.post
    assert error_of(post(f"{PREFIX}/train-job-caches", json={"train_ids": "./lenet_sc"})) == (
        400,
        "50540001",
    )
    assert error_of(post(f"{PREFIX}/train-job-caches", json={"train_ids": [1]})) == (
        400,
        "50540001",
    )
    assert error_of(post(f"{PREFIX}/train-job-caches", json={})) == (400, "50540003")
    assert error_of(post(f"{PREFIX}/train-job-caches", data="x")) == (400, "50540003")
    assert error_of(post(f"{PREFIX}/train-job-caches", json={"train_ids": ["/etc"]})) == (
        400,
        "50540002",
    )
    response = client.get(f"{PREFIX}/train-job-caches")
    assert error_of(response) == (405, "50545002")
    assert response.headers["Allow"] == "OPTIONS, POST"


def test_train_job_caches_costs_nothing_per_unknown_id(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#42 item 8: an id that names no job is dropped by a set lookup: the index is read once
    per request (not once per id) and no id touches the file system, even at the cap."""
    from dash_insight.plugins.jobs.rest import MAX_CACHE_IDS
    from dash_insight.web import http

    calls = {"refresh": 0, "resolve": 0}
    refresh, resolve = DataProvider._refresh, http.resolve_train_id

    def counting_refresh(provider: DataProvider) -> None:
        calls["refresh"] += 1
        refresh(provider)

    def counting_resolve(base: str, train_id: str) -> str:
        calls["resolve"] += 1
        return resolve(base, train_id)

    monkeypatch.setattr(DataProvider, "_refresh", counting_refresh)
    monkeypatch.setattr(http, "resolve_train_id", counting_resolve)
    ids = ["./lenet_sc", *(f"./gone/j{i}" for i in range(MAX_CACHE_IDS - 1))]
    response = client.post(f"{PREFIX}/train-job-caches", json={"train_ids": ids})
    assert response.get_json() == {
        "cache_result": [{"train_id": "./lenet_sc", "cache_status": "CACHED"}]
    }
    assert calls == {"refresh": 1, "resolve": 0}
    for bad in ("/etc", "./a/../b", "./x\x00"):  # malformed ids are still refused, without I/O
        response = client.post(f"{PREFIX}/train-job-caches", json={"train_ids": ["./gone", bad]})
        assert response.status_code == 400, bad
    assert calls["resolve"] == 0
