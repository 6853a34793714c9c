"""``POST /lineagemgr/lineages``, ``PUT /lineagemgr/lineages`` and ``POST
/optimizer/targets/search`` against MindInsight 2.3.1's answers for the corpus (the oracle)."""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.conftest import ORACLE_PATH

ORACLE = ORACLE_PATH
LINEAGES = "/v1/mindinsight/lineagemgr/lineages"
TARGETS = "/v1/mindinsight/optimizer/targets/search"
#: MindInsight's order (update time, newest first) on the machine that made the oracle.
ORACLE_ORDER = [
    "./ops_in_net",
    "./lenet_adam_lr0.001_bs32",
    "./lenet_lr0.1_bs16",
    "./lenet_lr0.05_bs64",
    "./lenet_lr0.01_bs32",
    "./lenet_sc",
]
QUERIES = {
    "all": {},
    "model": {"lineage_type": {"in": ["model"]}},
    "dataset": {"lineage_type": {"in": ["dataset"]}},
}


@pytest.fixture(scope="module")
def oracle() -> dict[str, Any]:
    if not ORACLE.is_file():
        pytest.skip(f"oracle not found at {ORACLE}")
    with gzip.open(ORACLE) as handle:
        return json.load(handle)


def _client(base: Path, workspace: Path):
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1)
    return app, app.server.test_client()


@pytest.fixture(scope="module")
def ordered_corpus(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the corpus whose modification times give MindInsight's job order."""
    base = tmp_path_factory.mktemp("corpus") / "corpus"
    shutil.copytree(corpus, base)
    now = 1_800_000_000
    for rank, train_id in enumerate(ORACLE_ORDER):
        for path in (base / train_id).rglob("*"):
            os.utime(path, (now - 100 * rank, now - 100 * rank))
    return base


@pytest.fixture(scope="module")
def ordered(ordered_corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    app, client = _client(ordered_corpus, tmp_path_factory.mktemp("ws"))
    yield client
    app.data_service.close()


@pytest.fixture(scope="module")
def plain(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    app, client = _client(corpus, tmp_path_factory.mktemp("ws"))
    yield client
    app.data_service.close()


def _without_added_info(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        **answer,
        "object": [{k: v for k, v in o.items() if k != "added_info"} for o in answer["object"]],
    }


@pytest.mark.parametrize("kind", list(QUERIES))
def test_lineages_equal_the_oracle(ordered, oracle: dict[str, Any], kind: str) -> None:
    response = ordered.post(LINEAGES, data=json.dumps(QUERIES[kind]))
    assert response.status_code == 200
    ours = response.get_json()
    assert _without_added_info(ours) == _without_added_info(oracle["lineage"][kind])
    assert list(ours["object"][0]) == list(oracle["lineage"][kind]["object"][0])


def test_lineages_on_the_corpus_as_checked_out(plain, oracle: dict[str, Any]) -> None:
    """Without controlled modification times the order of jobs is the checkout's: rows equal
    the oracle's as a set, and jobs share dataset marks exactly as there."""
    ours = plain.post(LINEAGES, data=b"").get_json()
    expected = oracle["lineage"]["all"]
    assert ours["count"] == expected["count"] == 6
    assert dict(ours["customized"]) == dict(expected["customized"])  # same items, any order

    def by_dir(answer: dict[str, Any]) -> dict[str, Any]:
        rows = {}
        for obj in answer["object"]:
            lineage = dict(obj["model_lineage"])
            lineage.pop("dataset_mark")
            rows[obj["summary_dir"]] = {**obj, "model_lineage": lineage, "added_info": {}}
        return rows

    assert by_dir(ours) == by_dir(expected)

    def partition(answer: dict[str, Any]) -> set[frozenset[str]]:
        groups: dict[str, set[str]] = {}
        for obj in answer["object"]:
            groups.setdefault(obj["model_lineage"]["dataset_mark"], set()).add(obj["summary_dir"])
        return {frozenset(g) for g in groups.values()}

    assert partition(ours) == partition(expected)
    assert "./nested/grp/job_a" not in {o["summary_dir"] for o in ours["object"]}


def _close(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, float) or isinstance(theirs, float):
        return (
            ours is not None
            and theirs is not None
            and math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)
        )
    if isinstance(ours, dict):
        return (
            isinstance(theirs, dict)
            and ours.keys() == theirs.keys()
            and all(_close(ours[k], theirs[k]) for k in ours)
        )
    if isinstance(ours, list):
        return (
            isinstance(theirs, list)
            and len(ours) == len(theirs)
            and all(_close(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    return ours == theirs


def test_optimizer_targets_equal_the_oracle(ordered, oracle: dict[str, Any]) -> None:
    response = ordered.post(TARGETS, data=b"{}")
    assert response.status_code == 200
    assert _close(response.get_json(), oracle["optimizer"]["targets_search"])


def test_search_condition_filters_sorts_and_pages(plain) -> None:
    body = {
        "metric/Accuracy": {"gt": 0.5},
        "sorted_name": "metric/Accuracy",
        "sorted_type": "descending",
    }
    answer = plain.post(LINEAGES, data=json.dumps(body)).get_json()
    assert [o["summary_dir"] for o in answer["object"]] == ["./lenet_sc", "./lenet_lr0.1_bs16"]
    answer = plain.post(
        LINEAGES,
        data=json.dumps(
            {
                "batch_size": {"in": [32, 64]},
                "optimizer": {"not_in": ["Adam"]},
                "limit": 1,
                "offset": 1,
                "sorted_name": "summary_dir",
            }
        ),
    ).get_json()
    assert answer["count"] == 3
    assert [o["summary_dir"] for o in answer["object"]] == ["./lenet_lr0.05_bs64"]
    assert list(answer["customized"]) == [
        "metric/Accuracy",
        "metric/Loss",
        "user_defined/experiment",
        "user_defined/lr_tag",
        "user_defined/seed",
        "user_defined/schedule",
    ]
    targets = plain.post(TARGETS, data=json.dumps({"optimizer": {"eq": "Momentum"}})).get_json()
    assert sorted(targets["metadata"]["train_ids"]) == [
        "./lenet_lr0.01_bs32",
        "./lenet_lr0.1_bs16",
        "./lenet_sc",
    ]


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b"{oops", "50540002", "Invalid parameter value. Json data parse failed."),
        (b"[]", "50542218", "Search_condition param error: TypeError. Invalid search_condition"),
        (b'{"limit": 0}', "50542218", "Search_condition param error: Invalid input limit."),
        (
            b'{"nope": {"eq": 1}}',
            "50542218",
            "Search_condition param error: ValueError. The search attribute not supported.",
        ),
        (
            b'{"network": {"gt": "a"}}',
            "50542218",
            "Search_condition param error: The parameter network is invalid. Its operation",
        ),
        (
            b'{"sorted_type": "descending"}',
            "50542218",
            "Search_condition param error: ValueError. The sorted_name must exist",
        ),
    ],
)
def test_invalid_search_conditions(plain, body: bytes, code: str, message: str) -> None:
    for path in (LINEAGES, TARGETS):
        response = plain.post(path, data=body)
        assert response.status_code == 400
        error = response.get_json()
        assert error["error_code"] == code and error["error_msg"].startswith(message)


def test_tags_and_remarks_persist_across_restarts(corpus: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    app, client = _client(corpus, workspace)
    try:
        url = f"{LINEAGES}?train_id=./lenet_sc"
        assert client.put(url, json={"tag": 3}).get_json() == {"status": "success"}
        assert client.put(url, json={"remark": "baseline"}).status_code == 200
        client.put(f"{LINEAGES}?train_id=./ops_in_net", json={"tag": 7})
        for query, body, code in (
            ("./lenet_sc", {"tag": 11}, "50542081"),
            ("./lenet_sc", {"remark": "x" * 129}, "50542081"),
            ("./lenet_sc", {"colour": "red"}, "50542081"),
            ("./lenet_sc", [1], "50540002"),
            ("./ops_all", {"tag": 1}, "50540002"),  # a job without lineage
            ("./missing", {"tag": 1}, "50545005"),
            ("lenet_sc", {"tag": 1}, "50540002"),
        ):
            response = client.put(f"{LINEAGES}?train_id={query}", json=body)
            assert (response.status_code, response.get_json()["error_code"]) == (400, code)
        assert client.put(LINEAGES, json={"tag": 1}).get_json()["error_code"] == "50540003"
    finally:
        app.data_service.close()
    app, client = _client(corpus, workspace)  # a restart on the same workspace
    try:
        answer = client.post(
            LINEAGES, data=json.dumps({"sorted_name": "tag", "sorted_type": "descending"})
        ).get_json()
        added = [(o["summary_dir"], o["added_info"]) for o in answer["object"]]
        assert added[:2] == [
            ("./ops_in_net", {"tag": 7}),
            ("./lenet_sc", {"tag": 3, "remark": "baseline"}),
        ]
        assert all(info == {} for _, info in added[2:])
    finally:
        app.data_service.close()
