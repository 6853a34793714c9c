"""The graph and dataset-graph REST endpoints against MindInsight 2.3.1's own answers.

``../shared/oracle/mindinsight-2.3.1-corpus.json.gz`` holds, for every graph of
``../shared/corpus`` and both modes, MindInsight's ``/graphs/nodes`` answer for the top level and
every scope, a ``conv`` node-name search and a single-node search, plus ``/datasets/dataset_graph``
for every job. Ours must be the same JSON text (same key order, same list order).

There is no deliberate difference on the corpus. Differences elsewhere (documented in
``dash_insight/plugins/graphs/rest.py``): an unreadable or unbuildable graph answers
GraphNotExist with the reason, and ``dataset_graph`` of an unknown job answers
TrainJobNotExist. The dataset graph is MindInsight's ``organize_graph`` dict: list elements stay
JSON-encoded strings as MindSpore 2.x wrote them (``"\\"image\\""``), exactly as MindInsight
serves them; only the page decodes them.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dash_insight import SummaryWriter
from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.core.service import DataService
from dash_insight.default import register_rest_api
from tests.conftest import ORACLE_PATH, dump_and_compare, loaded_service

PREFIX = "/v1/mindinsight"
LENET = "./lenet_sc"
LENET_TAG = "events.out.events.summary.1795324654.0.vm_MS"


def _load_oracle() -> dict[str, Any]:
    with gzip.open(ORACLE_PATH, "rt") as handle:
        return json.load(handle)


ORACLE: dict[str, Any] = _load_oracle() if ORACLE_PATH.is_file() else {"jobs": {}}


@pytest.fixture(scope="module")
def oracle() -> dict[str, Any]:
    if not ORACLE_PATH.is_file():
        pytest.skip(f"oracle not found at {ORACLE_PATH}")
    return ORACLE


def _app(service: DataService) -> Flask:
    app = Flask(__name__)
    register_rest_api(app, service)
    return app


@pytest.fixture(scope="module")
def app(service: DataService) -> Flask:
    return _app(service)


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def get(client: FlaskClient, path: str, **params: Any) -> Any:
    """What mi_dump.py stores: the JSON answer, or ``{"__http_status", "__body"}``."""
    response = client.get(PREFIX + path, query_string=params)
    if response.status_code != 200:
        return {"__http_status": response.status_code, "__body": response.get_json()}
    return response.get_json()


def fails(client: FlaskClient, path: str, **params: Any) -> tuple[int, str]:
    response = client.get(PREFIX + path, query_string=params)
    body = response.get_json()
    assert set(body) == {"error_code", "error_msg"} and body["error_msg"], body
    return response.status_code, body["error_code"]


def same_text(expected: Any, actual: Any) -> bool:
    """Equal as JSON text: same values, key order and list order."""
    return json.dumps(expected) == json.dumps(actual)


# -- MindInsight's answers ---------------------------------------------------------------------


def test_graph_nodes_of_every_scope_match_oracle(
    oracle: dict[str, Any], client: FlaskClient
) -> None:
    checked = 0
    for train_id, job in oracle["jobs"].items():
        for mode, tags in job["graphs"].items():
            for tag, answer in tags.items():
                if tag == "__no_tag__":  # a job without graph: GraphNotExist, both modes
                    assert (
                        get(client, "/datavisual/graphs/nodes", train_id=train_id, mode=mode)
                        == answer
                    )
                    continue
                assert not answer["capped"]
                for scope, expected in answer["nodes"].items():
                    params = {"train_id": train_id, "tag": tag, "mode": mode}
                    if scope:
                        params["name"] = scope
                    ours = get(client, "/datavisual/graphs/nodes", **params)
                    assert same_text(expected, ours), (train_id, mode, scope)
                    checked += 1
    assert checked == 270


def test_search_and_single_node_match_oracle(oracle: dict[str, Any], client: FlaskClient) -> None:
    graphs = 0
    for train_id, job in oracle["jobs"].items():
        for mode, tags in job["graphs"].items():
            for tag, answer in tags.items():
                if tag == "__no_tag__":
                    continue
                search = get(
                    client,
                    "/datavisual/graphs/nodes/names",
                    train_id=train_id,
                    tag=tag,
                    mode=mode,
                    search="conv",
                    offset=0,
                    limit=1000,
                )
                assert same_text(answer["search_conv"], search), (train_id, mode)
                single = answer["single_node"]
                ours = get(
                    client,
                    "/datavisual/graphs/single-node",
                    train_id=train_id,
                    tag=tag,
                    mode=mode,
                    name=single["name"],
                )
                assert same_text(single["response"], ours), (train_id, mode)
                graphs += 1
    assert graphs == 12


def test_dataset_graph_matches_oracle(oracle: dict[str, Any], client: FlaskClient) -> None:
    for train_id, job in oracle["jobs"].items():
        ours = get(client, "/datasets/dataset_graph", train_id=train_id)
        assert same_text(job["dataset_graph"], ours), train_id
    assert get(client, "/datasets/dataset_graph", train_id="./multi_file") == {}
    # a job MindInsight could not see (two levels deep) is served the same way
    assert get(client, "/datasets/dataset_graph", train_id="./nested/grp/job_a") == {}


@pytest.mark.slow
def test_mi_dump_and_compare_dumps_graphs(
    oracle: dict[str, Any], app: Flask, tmp_path: Path
) -> None:
    """``mi_dump.py`` against a real server, ``compare_dumps.py`` (graphs, dataset_graph)."""
    compared = dump_and_compare(app, tmp_path, "graphs,dataset_graph")
    assert compared.returncode == 0, compared.stdout
    assert "graphs 270/270, dataset_graph 8/8" in compared.stdout, compared.stdout


# -- parameters and errors ----------------------------------------------------------------------


def test_defaults_paging_and_all_nodes(client: FlaskClient) -> None:
    default = get(client, "/datavisual/graphs/nodes", train_id=LENET)
    assert same_text(
        default,
        get(client, "/datavisual/graphs/nodes", train_id=LENET, tag=LENET_TAG, mode="normal"),
    )
    readable = get(client, "/datavisual/graphs/nodes", train_id=LENET, mode="optimize")
    assert [n["name"] for n in readable["nodes"]] == ["Default"]
    # paging of the name search: offset is a page index
    everything = get(
        client, "/datavisual/graphs/nodes/names", train_id=LENET, search="op", limit=1000
    )
    first = get(client, "/datavisual/graphs/nodes/names", train_id=LENET, search="op", limit=2)
    second = get(
        client, "/datavisual/graphs/nodes/names", train_id=LENET, search="op", limit=2, offset=1
    )

    def leaves(tree: list[dict]) -> list[str]:
        return [n["name"] for n in tree if not n["nodes"]] + [
            name for n in tree for name in leaves(n["nodes"])
        ]

    assert len(leaves(first["nodes"])) == 2 and leaves(first["nodes"]) != leaves(second["nodes"])
    assert len(leaves(everything["nodes"])) >= 40
    assert get(client, "/datavisual/graphs/nodes/names", train_id=LENET) == {"nodes": []}
    assert get(client, "/datavisual/graphs/nodes/names", train_id=LENET, search="/") == {
        "nodes": []
    }
    # every leaf below a scope, depth first
    scope = "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d"
    detail = get(client, "/datavisual/graphs/nodes/all", train_id=LENET, name=scope)
    assert [n["name"] for n in detail["all_nodes_detail"]] == [
        f"{scope}/Conv2D-op0",
        f"{scope}/inputs0",
    ]
    everything = get(client, "/datavisual/graphs/nodes/all", train_id=LENET)
    assert len(everything["all_nodes_detail"]) > 100
    assert all(
        n["type"] not in ("name_scope", "aggregation_scope") for n in everything["all_nodes_detail"]
    )


def test_errors(client: FlaskClient) -> None:
    nodes = "/datavisual/graphs/nodes"
    assert fails(client, nodes) == (400, "50540003")
    assert fails(client, nodes, train_id="./nope") == (400, "50545005")
    assert fails(client, nodes, train_id="./multi_file") == (400, "5054500C")
    assert fails(client, nodes, train_id=LENET, tag="other") == (400, "5054500C")
    # optimized tags are only valid in optimize mode, and the other way round
    assert fails(client, nodes, train_id=LENET, tag=LENET_TAG + " (optimized)") == (400, "5054500C")
    assert fails(client, nodes, train_id=LENET, tag=LENET_TAG, mode="optimize") == (400, "5054500C")
    assert fails(client, nodes, train_id=LENET, mode="fancy") == (400, "50540002")
    assert fails(client, nodes, train_id=LENET, name="Default/nothing") == (400, "50545009")
    assert fails(client, nodes, train_id=LENET, tag="x\x00") == (400, "50545011")
    assert fails(client, nodes, train_id="../etc") == (400, "50540002")
    names = "/datavisual/graphs/nodes/names"
    assert fails(client, names, train_id=LENET, search="a", offset=-1) == (400, "50540002")
    assert fails(client, names, train_id=LENET, search="a", offset="x") == (400, "50540001")
    assert fails(client, names, train_id=LENET, search="a", limit=0) == (400, "50540002")
    assert fails(client, names, train_id=LENET, search="a", limit=1001) == (400, "50540002")
    single = "/datavisual/graphs/single-node"
    assert fails(client, single, train_id=LENET) == (400, "50540003")
    assert fails(client, single, train_id=LENET, name="nope") == (400, "50545009")
    assert fails(client, "/datavisual/graphs/nodes/all", train_id=LENET, name="nope") == (
        400,
        "50545009",
    )
    assert fails(client, "/datasets/dataset_graph") == (400, "50540003")
    assert fails(client, "/datasets/dataset_graph", train_id="./nope") == (400, "50545005")
    response = client.post(PREFIX + nodes, query_string={"train_id": LENET})
    assert response.status_code == 405


# -- graphs outside the corpus: .pb files, broken and empty graphs -----------------------------


def _graph(name: str, full_names: list[str]) -> anf_ir_pb2.GraphProto:
    graph = anf_ir_pb2.GraphProto(name=name)
    previous = None
    for index, full_name in enumerate(full_names, start=1):
        node = graph.node.add(
            name=str(index),
            op_type=full_name.rsplit("/", 1)[-1].split("-")[0],
            scope=full_name.rsplit("/", 1)[0],
            full_name=full_name,
        )
        if previous:
            node.input.add(name=previous)
        node.output_type.data_type = anf_ir_pb2.DT_TENSOR
        node.output_type.tensor_type.elem_type = anf_ir_pb2.DT_FLOAT32
        previous = node.name
    return graph


def test_pb_files_broken_and_empty_graphs(tmp_path: Path) -> None:
    job = tmp_path / "logs" / "job"
    job.mkdir(parents=True)
    for file_name in ("b_graph.pb", "ms_output_optimize.pb"):
        model = anf_ir_pb2.ModelProto()
        model.graph.CopyFrom(_graph(file_name, ["Default/net/Conv2D-op0", "Default/ReLU-op1"]))
        (job / file_name).write_bytes(model.SerializeToString())
    with SummaryWriter(str(job)) as writer:  # a summary graph that is all gradients
        writer.add_graph(_graph("g", ["Gradients/Default/Mul-op0", "Gradients/Default/Add-op1"]))
        writer.add_scalar("loss", 1.0, step=1)
        writer.record(1)
    bad = tmp_path / "logs" / "bad"
    bad.mkdir()
    model = anf_ir_pb2.ModelProto()
    model.graph.CopyFrom(_graph("bad", ['Default/a<b>"', "Default/ok-op1"]))
    (bad / "graph.pb").write_bytes(model.SerializeToString())
    service = loaded_service(tmp_path / "logs", tmp_path / "ws")
    client = _app(service).test_client()
    tags = service.provider.graph_tags("./job")
    assert {"b_graph.pb", "ms_output_optimize.pb"} <= set(tags) and len(tags) == 3
    plugins = get(client, "/datavisual/plugins", train_id="./job")["plugins"]
    assert plugins["graph"][0] == "ms_output_optimize.pb"
    # no tag: MindInsight's first one, the save_graphs dump
    top = get(client, "/datavisual/graphs/nodes", train_id="./job")
    assert [n["name"] for n in top["nodes"]] == ["Default"]
    assert (
        get(client, "/datavisual/graphs/nodes", train_id="./job", tag="b_graph.pb", name="Default")[
            "nodes"
        ][0]["name"]
        == "Default/ReLU-op1"
    )
    summary_tag = next(t for t in tags if t.endswith(".pb") is False)
    assert (
        get(client, "/datavisual/graphs/nodes", train_id="./job", tag=summary_tag)["nodes"][0][
            "name"
        ]
        == "Gradients"
    )
    # readable mode of the all-gradient graph is empty: no graph there
    status, code = fails(
        client,
        "/datavisual/graphs/nodes",
        train_id="./job",
        tag=summary_tag + " (optimized)",
        mode="optimize",
    )
    assert (status, code) == (400, "5054500C")
    # MindInsight refuses "<", ">" and '"' in names: the graph does not exist, with the reason
    response = client.get(f"{PREFIX}/datavisual/graphs/nodes", query_string={"train_id": "./bad"})
    body = response.get_json()
    assert body["error_code"] == "5054500C" and "invalid characters" in body["error_msg"]
