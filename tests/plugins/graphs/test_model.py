"""The computational graph model (dash_insight.plugins.graphs): MindInsight 2.3.1's building
rules on small hand-built graphs and on the corpus graphs, the layered layout, the drawn view,
the cache and the dataset pipeline."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader
from dash_insight.plugins.graphs.figures import MAX_VISIBLE_NODES, build_view, edge_label
from dash_insight.plugins.graphs.query_builder import SUMMARY_PLUGINS
from dash_insight.plugins.graphs.query_dataset import (
    decode_value,
    display_text,
    kind_of,
    mindinsight_order,
    pipeline,
)
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.query_nodes import (
    SPLICED_TYPES,
    GraphBuildError,
    TypeNames,
    ValueText,
)
from dash_insight.plugins.graphs.service import GraphCache
from tests.conftest import CORPUS

ORACLE_PATH = CORPUS.parent / "oracle" / "mindinsight-2.3.1-corpus.json.gz"

# -- building small graphs ---------------------------------------------------------------------


def tensor(
    type_proto: anf_ir_pb2.TypeProto, dims: Iterable[int], elem: int = anf_ir_pb2.DT_FLOAT32
) -> None:
    type_proto.data_type = anf_ir_pb2.DT_TENSOR
    type_proto.tensor_type.elem_type = elem
    for size in dims:
        type_proto.tensor_type.shape.dim.add(size=size)


class G:
    """A GraphProto builder: ``op(id, type, scope, inputs)`` (``"^x"`` = control input)."""

    def __init__(self) -> None:
        self.proto = anf_ir_pb2.GraphProto()

    def op(
        self,
        node_id: str,
        op_type: str,
        scope: str,
        inputs: Iterable[str] = (),
        dims: Iterable[int] = (2, 3),
        full_name: str | None = None,
        **fields: Any,
    ) -> anf_ir_pb2.NodeProto:
        node = self.proto.node.add(name=node_id, op_type=op_type, scope=scope, **fields)
        if full_name is not None:
            node.full_name = full_name
        for name in inputs:
            control = name.startswith("^")
            node.input.add(
                name=name.lstrip("^"),
                type=anf_ir_pb2.InputProto.CONTROL_EDGE
                if control
                else anf_ir_pb2.InputProto.DATA_EDGE,
            )
        tensor(node.output_type, dims)
        return node

    def param(self, name: str, dims: Iterable[int] = (3, 3)) -> None:
        tensor(self.proto.parameters.add(name=name).type, dims)

    def const(self, key: str, value: float = 1.0) -> None:
        const = self.proto.const_vals.add(key=key)
        const.value.dtype = anf_ir_pb2.DT_FLOAT32
        const.value.float_val = value

    def build(self, mode: str = "normal") -> GraphModel:
        return GraphModel.build(self.proto, mode)


def names(model: GraphModel, scope: str = "") -> list[str]:
    return model.child_names(scope)


# -- grouping, aggregation, copies, inheritance -------------------------------------------------


def test_name_scopes_from_slash_prefixes() -> None:
    g = G()
    g.op("1", "Conv2D", "Default/net/conv1")
    g.op("2", "ReLU", "Default/net", ["1"])
    g.op("3", "Add", "Grad", ["2"])
    model = g.build()
    assert names(model) == ["Default", "Grad"]
    assert names(model, "Default") == ["Default/net"]
    assert names(model, "Default/net") == ["Default/net/ReLU-op2", "Default/net/conv1"]
    scope = model.node("Default/net/conv1")
    assert (scope.type, scope.scope, scope.subnode_count) == ("name_scope", "Default/net", 1)
    assert model.node("Default").subnode_count == 1
    assert model.ancestors("Default/net/conv1/Conv2D-op1") == [
        "Default",
        "Default/net",
        "Default/net/conv1",
    ]
    # an operator without full name is "<scope>/<type>-op<id>"; with one, its full name
    g = G()
    g.op("Default/x/Conv2D-op7", "Conv2D", "Default/x")
    g.op("8", "ReLU", "Default", ["Default/x/Conv2D-op7"], full_name="Default/my_relu")
    model = g.build()
    assert "Default/x/Conv2D-op7" in model and "Default/my_relu" in model
    assert list(model.node("Default/my_relu").inputs) == ["Default/x/Conv2D-op7"]


def test_edges_carry_source_shape_and_type_and_scopes_inherit_crossing_edges() -> None:
    g = G()
    g.op("1", "Conv2D", "A", dims=(1, 2))
    g.op("2", "ReLU", "A", ["1"])
    g.op("3", "Add", "B", ["2", "^1"])
    model = g.build()
    add = model.node("B/Add-op3")
    assert add.inputs["A/ReLU-op2"] == {
        "shape": [[2, 3]],
        "edge_type": "data",
        "independent_layout": False,
        "data_type": "DT_TENSOR[DT_FLOAT32]",
    }
    assert add.inputs["A/Conv2D-op1"]["edge_type"] == "control"
    assert add.inputs["A/Conv2D-op1"]["shape"] == [[1, 2]]
    assert set(model.node("A/Conv2D-op1").outputs) == {"A/ReLU-op2", "B/Add-op3"}
    # scope A: only what crosses its border (the internal 1 -> 2 edge is not inherited)
    a, b = model.node("A"), model.node("B")
    assert set(a.outputs) == {"B/Add-op3"} and a.inputs == {}
    assert set(b.inputs) == {"A/ReLU-op2", "A/Conv2D-op1"} and b.outputs == {}
    # the same attribute object on both ends and on the scope, as MindInsight shares it; a
    # scope keeps one edge per outside node (the last child's wins)
    relu_edge = model.node("A/ReLU-op2").outputs["B/Add-op3"]
    assert relu_edge is add.inputs["A/ReLU-op2"] and a.outputs["B/Add-op3"] is relu_edge


def test_aggregation_of_five_or_more_siblings() -> None:
    g = G()
    for i in range(1, 6):
        g.op(str(i), "Add", "S")
    for i in range(6, 10):
        g.op(str(i), "Mul", "S", [str(i - 5)])
    g.op("10", "Mul", "T", ["9"])
    model = g.build()
    assert names(model, "S") == [f"S/Mul-op{i}" for i in range(6, 10)] + ["S/Add[5]_0"]
    group = model.node("S/Add[5]_0")
    assert (group.type, group.subnode_count, group.scope) == ("aggregation_scope", 5, "S")
    assert names(model, "S/Add[5]_0") == [f"S/Add[5]_0/Add-op{i}" for i in range(1, 6)]
    # the group inherits its members' outside edges; edges are re-keyed to the new names
    assert set(group.outputs) == {f"S/Mul-op{i}" for i in range(6, 10)}
    assert "S/Add[5]_0/Add-op1" in model.node("S/Mul-op6").inputs
    # 4 Mul in S are not grouped; the running index counts groups over the whole graph
    g2 = G()
    for scope in ("P", "Q"):
        for i in range(5):
            g2.op(f"{scope}{i}", "Cast", scope)
    model = g2.build()
    assert "P/Cast[5]_0" in model and "Q/Cast[5]_1" in model


def test_readable_mode_groups_from_ten() -> None:
    g = G()
    for i in range(1, 10):
        g.op(str(i), "Add", "S", [str(i - 1)] if i > 1 else [])
    assert "S/Add[9]_0" in g.build("normal")
    assert "S/Add[9]_0" not in g.build("optimize")
    g.op("10", "Add", "S", ["9"])
    assert "S/Add[10]_0" in g.build("optimize")


def test_parameter_and_constant_copies_per_consumer_scope() -> None:
    g = G()
    g.param("w", (4, 5))
    g.const("cst1", 2.0)
    g.op("1", "MatMul", "A", ["w", "cst1"])
    g.op("2", "MatMul", "B", ["w", "1", "cst1"])
    g.op("3", "Add", "B", ["w"])
    model = g.build()
    assert "w" not in model and "cst1" not in model  # the global originals are gone
    copy = model.node("B/w")
    assert (copy.type, copy.scope) == ("Parameter", "B")
    assert set(copy.outputs) == {"B/MatMul-op2", "B/Add-op3"}
    assert copy.attributes() == {"type": "DT_TENSOR[DT_FLOAT32]", "shape": "[[4, 5]]"}
    assert model.node("A/w").outputs.keys() == {"A/MatMul-op1"}
    assert "B/w" in model.node("B/MatMul-op2").inputs
    const = model.node("A/cst1")
    assert const.type == "Const" and const.attributes() == {
        "cst1": "dtype: DT_FLOAT32\nfloat_val: 2.0\n"
    }
    assert model.node("B/MatMul-op2").inputs["B/cst1"]["data_type"] == ""  # as MindInsight
    # scopes do not inherit constant edges; a parameter's copy lives inside the scope
    assert set(model.node("B").inputs) == {"A/MatMul-op1"}
    assert model.node("A").subnode_count == 3  # MatMul, w, cst1


def test_parameter_groups_get_independent_layout_and_proxies() -> None:
    g = G()
    for i in range(5):
        g.param(f"p{i}")
    for i in range(5):
        g.op(str(i + 1), "Conv2D", "S", [f"p{i}"])
    model = g.build()
    group = model.node("S/Parameter[5]_1")
    assert group.independent_layout
    member = model.node("S/Parameter[5]_1/p0")
    assert member.independent_layout
    consumer = model.node("S/Conv2D[5]_0/Conv2D-op1")
    assert consumer.inputs["S/Parameter[5]_1/p0"]["independent_layout"] is True
    # the consumer was grouped too: the proxies point at its aggregation scope
    assert "S/Conv2D[5]_0" in group.proxy_outputs
    assert "S/Parameter[5]_1" in model.node("S/Conv2D[5]_0").proxy_inputs


def test_output_shapes_types_and_dynamic_shapes() -> None:
    g = G()
    node = g.op("1", "Split", "S")
    node.output_type.Clear()
    node.output_type.data_type = anf_ir_pb2.DT_TUPLE
    for dims in ((2, -1), (3,)):
        tensor(node.output_type.sequence_type.elem_types.add(), dims)
    g.op("2", "ReLU", "S", ["1"])
    scalar = g.op("3", "Depend", "T", ["2", "1"])
    scalar.output_type.Clear()
    scalar.output_type.data_type = anf_ir_pb2.DT_BOOL
    attribute = g.op("4", "Reshape", "T", ["3"]).attribute.add(name="output_is_dynamic_shape")
    attribute.value.dtype = anf_ir_pb2.DT_BOOL
    attribute.value.bool_val = True
    model = g.build()
    split = model.node("S/Split-op1")
    assert split.output_shape == [[2, -1], [3]]
    assert split.output_data_type == "DT_TUPLE['DT_TENSOR[DT_FLOAT32]', 'DT_TENSOR[DT_FLOAT32]']"
    assert split.is_dynamic_shape_node  # its output edge has a -1
    assert model.node("S/ReLU-op2").is_dynamic_shape_node  # ... and its consumer's input
    # scopes inherit the -1 edge Split -> Depend that crosses from S into T
    assert model.node("S").is_dynamic_shape_node and model.node("T").is_dynamic_shape_node
    assert model.node("T/Depend-op3").output_shape == [[]]
    assert model.node("T/Reshape-op4").is_dynamic_shape_node  # by attribute
    assert model.node("T/Depend-op3").is_dynamic_shape_node  # its input from Split
    assert not model.node("S/ReLU-op2").output_data_type.startswith("DT_TUPLE")


def test_data_types_mindinsight_could_not_read() -> None:
    """MindSpore 2.x writes DT_SLICE (49) and friends; MindInsight's enum stops at 42, so its
    REST answers say DT_UNDEFINED with no shape. The page shows the real names."""
    type_proto = anf_ir_pb2.TypeProto(data_type=anf_ir_pb2.DT_SLICE)
    assert TypeNames().text(type_proto) == "DT_UNDEFINED"
    assert TypeNames().shape(type_proto) == []
    assert TypeNames(extended=True).text(type_proto) == "DT_SLICE"
    assert TypeNames(extended=True).shape(type_proto) == [[]]
    assert TypeNames().name(anf_ir_pb2.DT_ANY) == "DT_ANYTHING"
    value = anf_ir_pb2.ValueProto(
        dtype=anf_ir_pb2.DT_TUPLE,
        values=[
            anf_ir_pb2.ValueProto(dtype=anf_ir_pb2.DT_SLICE),
            anf_ir_pb2.ValueProto(dtype=anf_ir_pb2.DT_ANY, int_val=3),
        ],
    )
    assert str(ValueText(value)) == (
        "dtype: DT_TUPLE\nvalues {\n}\nvalues {\n  dtype: DT_ANYTHING\n  int_val: 3\n}\n"
    )
    assert "DT_SLICE" in str(ValueText(value, extended=True))
    # floats as MindInsight's pure-Python protobuf printed them
    assert (
        str(ValueText(anf_ir_pb2.ValueProto(dtype=anf_ir_pb2.DT_FLOAT32, float_val=1)))
        == "dtype: DT_FLOAT32\nfloat_val: 1.0\n"
    )


def test_large_attributes_summary_operators_and_invalid_names() -> None:
    g = G()
    node = g.op("1", "Const2", "S")
    big = node.attribute.add(name="big")
    big.value.dtype = anf_ir_pb2.DT_STRING
    big.value.str_val = "x" * 2000
    small = node.attribute.add(name="small")
    small.value.dtype = anf_ir_pb2.DT_INT64
    small.value.int_val = 7
    g.op("2", "ScalarSummary", "S", ["1"], full_name="S/loss[:Scalar]")
    g.proto.const_vals.add(key="cst9").value.CopyFrom(
        anf_ir_pb2.ValueProto(dtype=anf_ir_pb2.DT_STRING, str_val="y" * 2000)
    )
    g.op("3", "Add", "S", ["cst9"])
    model = g.build()
    assert model.node("S/Const2-op1").attributes() == {"small": "dtype: DT_INT64\nint_val: 7\n"}
    assert "S/ScalarSummary-op2" in model  # summary operators get a generated name
    assert "scalar" in SUMMARY_PLUGINS
    assert model.node("S/cst9").attributes() == {"cst9": "dtype: DT_STRING"}
    bad = G()
    bad.op("1", "Add", "S", full_name='S/a<b>"')
    with pytest.raises(GraphBuildError, match="invalid characters"):
        bad.build()


def test_a_node_named_like_a_scope_is_renamed() -> None:
    g = G()
    g.op("1", "Add", "Top", full_name="Top/A")
    g.op("2", "Mul", "Top/A", ["1"], full_name="Top/A/inner")
    model = g.build()
    assert "Top/(A)" in model and model.node("Top/A").type == "name_scope"
    assert "Top/(A)" in model.node("Top/A/inner").inputs


def test_readable_mode_drops_gradients_optimizer_and_splices_plumbing() -> None:
    g = G()
    g.param("w")
    g.op("1", "Load", "Default/net", ["w"], full_name="Default/net/Load-op0")
    g.op("2", "Conv2D", "Default/net", ["1"], full_name="Default/net/Conv2D-op0")
    g.op("3", "MakeTuple", "Default", ["2"], full_name="Default/MakeTuple-op0")
    g.op("4", "TupleGetItem", "Default", ["3"], full_name="Default/TupleGetItem-op0")
    g.op("5", "ReLU", "Default/net", ["4"], full_name="Default/net/ReLU-op0")
    g.op(
        "6",
        "Conv2DBackpropInput",
        "Gradients/Default",
        ["5"],
        full_name="Gradients/Default/Conv2DBackpropInput-op0",
    )
    g.op(
        "7",
        "ApplyMomentum",
        "Default/optimizer-Momentum",
        ["6"],
        full_name="Default/optimizer-Momentum/ApplyMomentum-op0",
    )
    g.op("8", "Cast", "Default", ["2"], full_name="Default/Cast-op9", instance_name="optim")
    g.op("9", "Lonely", "Default", [], full_name="Default/Lonely-op0")
    normal, readable = g.build("normal"), g.build("optimize")
    assert names(normal) == ["Default", "Gradients"]
    assert names(readable) == ["Default"]
    leaves = {n.name for n in readable.leaves()}
    assert leaves == {"Default/net/Conv2D-op0", "Default/net/ReLU-op0", "Default/net/w"}
    assert not any(n.type in SPLICED_TYPES for n in readable.nodes.values())
    # Load -> Conv2D becomes w -> Conv2D; Conv2D -> MakeTuple -> TupleGetItem -> ReLU is joined
    assert "Default/net/w" in readable.node("Default/net/Conv2D-op0").inputs
    assert "Default/net/Conv2D-op0" in readable.node("Default/net/ReLU-op0").inputs


def test_readable_mode_lifts_single_type_scopes() -> None:
    g = G()
    g.op("1", "Conv2D", "Default/net", full_name="Default/net/Conv2D-op0")
    g.op("2", "Add", "Default/net/Add", ["1"], full_name="Default/net/Add/Add-op0")
    g.op("3", "Add", "Default/net/Add", ["2"], full_name="Default/net/Add/Add-op1")
    g.op("4", "ReLU", "Default/net/relu-ReLU", ["3"], full_name="Default/net/relu-ReLU/ReLU-op0")
    model = g.build("optimize")
    # two Adds, all of the scope's type: lifted one level; a single ReLU stays in its cell
    assert {"Default/net/Add-op0", "Default/net/Add-op1"} <= set(model.nodes)
    assert "Default/net/Add" not in model
    assert "Default/net/relu-ReLU/ReLU-op0" in model
    assert model.node("Default/net/Add-op0").scope == "Default/net"


def test_search_single_node_and_leaves() -> None:
    g = G()
    g.op("1", "Conv2D", "Default/conv1")
    g.op("2", "ReLU", "Default/conv1", ["1"])
    g.op("3", "Conv2D", "Default/fc", ["2"])
    model = g.build()
    # the pattern must be in the last segment: "conv" finds the scope and two operators
    found = [n.name for n in model.search("CONV")]
    assert found == ["Default/conv1/Conv2D-op1", "Default/fc/Conv2D-op3", "Default/conv1"]
    assert model.search("/") == [] and model.search("") == [] and model.search(None) == []
    assert [n.name for n in model.search("fc")] == ["Default/fc"]
    tree = model.search_tree(model.search("conv"))
    # MindInsight's quirk: the scope listed after its matching child replaces it, empty
    assert tree == [
        {
            "name": "Default",
            "type": "name_scope",
            "is_dynamic_shape_node": False,
            "nodes": [
                {
                    "name": "Default/conv1",
                    "type": "name_scope",
                    "is_dynamic_shape_node": False,
                    "nodes": [],
                },
                {
                    "name": "Default/fc",
                    "type": "name_scope",
                    "is_dynamic_shape_node": False,
                    "nodes": [
                        {
                            "name": "Default/fc/Conv2D-op3",
                            "type": "Conv2D",
                            "is_dynamic_shape_node": False,
                            "nodes": [],
                        }
                    ],
                },
            ],
        }
    ]
    single = model.single_node("Default/fc/Conv2D-op3")
    assert [n["name"] for n in single["nodes"]] == ["Default"]
    assert single["children"]["scope_name"] == "Default"
    assert single["children"]["children"]["scope_name"] == "Default/fc"
    assert single["children"]["children"]["children"] == {}
    with pytest.raises(KeyError):
        model.single_node("nope")
    assert [n.name for n in model.leaves()] == [
        "Default/conv1/Conv2D-op1",
        "Default/conv1/ReLU-op2",
        "Default/fc/Conv2D-op3",
    ]
    assert [n.name for n in model.leaves("Default/fc")] == ["Default/fc/Conv2D-op3"]


# -- the corpus graphs --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_provider(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> DataProvider:
    store = IndexStore(index_directory(str(tmp_path_factory.mktemp("ws")), str(corpus)))
    Loader(str(corpus), store, reload_interval=0).load_round()
    return DataProvider(str(corpus), store)


def _corpus_graphs(provider: DataProvider) -> list[tuple[str, str]]:
    return [
        (job.train_id, tag)
        for job in provider.list_jobs()
        for tag in provider.graph_tags(job.train_id)
    ]


def test_corpus_graph_invariants(corpus_provider: DataProvider) -> None:
    graphs = _corpus_graphs(corpus_provider)
    assert len(graphs) == 6
    for train_id, tag in graphs:
        proto = corpus_provider.read_graph(train_id, tag)
        for mode in ("normal", "optimize"):
            model = GraphModel.build(proto, mode)
            for name, node in model.nodes.items():
                assert node.scope == "" or model.node(node.scope).is_scope, name
                if node.is_scope:
                    assert node.subnode_count == len(model.child_names(name)) > 0, name
                for kind in ("inputs", "outputs"):
                    for other in getattr(node, kind):
                        assert other in model.nodes, (name, other)
            for node in model.nodes.values():
                if node.type == "aggregation_scope":
                    members = [model.node(n) for n in model.child_names(node.name)]
                    real = [m for m in members if m.type != "Const"]
                    assert len({m.type for m in real}) == 1
                    assert len(real) >= (10 if mode == "optimize" else 5)
                if node.type == "name_scope":  # inherited edges = crossing edges below it
                    prefix = node.name + "/"
                    crossing = {
                        other
                        for leaf in model.leaves(node.name)
                        for other in leaf.inputs
                        if not other.startswith(prefix) and model.node(other).type != "Const"
                    }
                    assert crossing <= set(node.inputs), node.name
            if mode == "optimize":
                assert model.child_names("") == ["Default"]
                assert not any(
                    n.type in SPLICED_TYPES
                    or n.name.startswith("Gradients")
                    or "optimizer" in n.name
                    for n in model.nodes.values()
                )


@pytest.mark.skipif(not ORACLE_PATH.is_file(), reason="oracle not found")
def test_corpus_models_equal_mindinsight(corpus_provider: DataProvider) -> None:
    """Every scope of every corpus graph, both modes: the children MindInsight 2.3.1 listed
    (the REST tests check the same through HTTP, with the search and single-node answers)."""
    with gzip.open(ORACLE_PATH, "rt") as handle:
        oracle = json.load(handle)
    checked = 0
    for train_id, job in oracle["jobs"].items():
        for mode, tags in job["graphs"].items():
            for tag, answer in tags.items():
                if tag == "__no_tag__":
                    continue
                model = GraphModel.build(
                    corpus_provider.read_graph(train_id, tag.removesuffix(" (optimized)")), mode
                )
                for scope, response in answer["nodes"].items():
                    ours = json.loads(json.dumps(model.list_nodes(scope)))
                    expected = {n["name"]: n for n in response["nodes"]}
                    assert {n["name"]: n for n in ours} == expected, (train_id, mode, scope)
                    checked += 1
    assert checked == 270


# -- layout and view ----------------------------------------------------------------------------


def test_view_draws_open_levels_inside_their_scopes() -> None:
    g = G()
    g.op("1", "Conv2D", "A/B")
    g.op("2", "ReLU", "A/B", ["1"])
    g.op("3", "Add", "A", ["2"])
    g.op("4", "Mul", "C", ["3", "1"])
    model = g.build()
    closed = build_view(model)
    assert [n.name for n in closed.nodes] == ["A", "C"]
    assert [(e.source, e.target, e.count, e.label) for e in closed.edges] == [
        ("A", "C", 2, "2 tensors")
    ]
    view = build_view(model, ["A/B"])  # its ancestor opens too
    assert view.expanded == ["A", "A/B"]
    drawn = {n.name: n for n in view.nodes}
    assert drawn["A/B/ReLU-op2"].parent == "A/B" and drawn["A/Add-op3"].parent == "A"
    edges = {(e.source, e.target): e for e in view.edges}
    assert edges[("A/B/ReLU-op2", "A/Add-op3")].label == "DT_TENSOR[DT_FLOAT32] 2×3"
    assert ("A/B/Conv2D-op1", "C") in edges and ("A/Add-op3", "C") in edges
    # parents before their children (cytoscape needs a compound node before its children)
    order = [n.name for n in view.nodes]
    assert all(order.index(n.parent) < order.index(n.name) for n in view.nodes if n.parent)
    assert edge_label([{"shape": [[], []], "data_type": "DT_TUPLE['a', 'b']"}]) == "tuple(2 items)"


def test_view_refuses_to_draw_too_many_nodes() -> None:
    g = G()
    for i in range(MAX_VISIBLE_NODES + 10):
        g.op(str(i + 1), f"T{i}", "Big")
    model = g.build()
    view = build_view(model, ["Big"])
    assert view.expanded == [] and [n.name for n in view.nodes] == ["Big"]
    assert "stays closed" in view.notices[0]


# -- cache --------------------------------------------------------------------------------------


class _FakeProvider:
    base_dir = "/fake"

    def __init__(self, proto: anf_ir_pb2.GraphProto) -> None:
        self.proto = proto
        self.version = 1
        self.reads = 0

    def job(self, train_id: str) -> Any:
        return type("Job", (), {"version": self.version})()

    def read_graph(self, train_id: str, tag: str) -> anf_ir_pb2.GraphProto:
        self.reads += 1
        return self.proto


def test_cache_is_keyed_by_job_version_and_bounded() -> None:
    g = G()
    g.op("1", "Add", "S")
    provider = _FakeProvider(g.proto)
    cache = GraphCache(max_graphs=2)
    first = cache.get(provider, "./j", "t")
    assert cache.get(provider, "./j", "t") is first and cache.builds == 1
    assert cache.get(provider, "./j", "t", "optimize") is not first
    provider.version = 2  # the job changed: built again
    assert cache.get(provider, "./j", "t") is not first and cache.builds == 3
    cache.get(provider, "./j", "other")
    assert len(cache._items) == 2
    small = GraphCache(max_graphs=5, max_nodes=3)  # one 2-node graph at a time
    small.get(provider, "./j", "a")
    small.get(provider, "./j", "b")
    assert len(small._items) == 1
    with pytest.raises(ValueError):
        cache.get(provider, "./j", "t", "fancy")


# -- dataset pipeline ---------------------------------------------------------------------------

PIPELINE = {
    "op_type": "Batch",
    "num_parallel_workers": 2,
    "drop_remainder": True,
    "batch_size": 32,
    "children": [
        {
            "op_type": "Shuffle",
            "buffer_size": 64,
            "children": [
                {
                    "op_type": "Map",
                    "output_columns": ['"image"'],
                    "input_columns": ['"image"'],
                    "operations": [{"tensor_op_params": None, "tensor_op_name": "HwcToChw"}],
                    "num_parallel_workers": 2,
                    "children": [
                        {
                            "op_type": "MnistDataset",
                            "dataset_dir": "/d",
                            "sampler": {"sampler_name": "RandomSampler", "num_samples": 8},
                            "children": [],
                        }
                    ],
                }
            ],
        }
    ],
}


def test_dataset_graph_key_order_and_decoding() -> None:
    ordered = mindinsight_order(PIPELINE)
    assert list(ordered) == [
        "op_type",
        "drop_remainder",
        "batch_size",
        "num_parallel_workers",
        "children",
    ]
    map_node = ordered["children"][0]["children"][0]
    assert list(map_node) == [
        "op_type",
        "num_parallel_workers",
        "input_columns",
        "output_columns",
        "operations",
        "children",
    ]
    assert list(map_node["operations"][0]) == ["tensor_op_name", "tensor_op_params"]
    assert list(map_node["children"][0]) == ["dataset_dir", "op_type", "sampler", "children"]
    assert ordered == PIPELINE  # same content
    assert decode_value(['"image"', "plain", None, 3]) == ["image", "plain", None, 3]
    assert display_text(['"label"']) == '["label"]' and display_text(None) == "None"
    assert (
        kind_of("BatchDataset", True) == "batch"
        and kind_of("GeneratorDataset", False) == "create"
        and kind_of("Zip", True) == "other"
    )


def test_dataset_pipeline_nodes_edges_and_sizes() -> None:
    graph = pipeline(PIPELINE)
    kinds = {n.id: (n.label, n.kind) for n in graph.nodes}
    assert kinds == {
        "0": ("Batch", "batch"),
        "0.0": ("Shuffle", "shuffle"),
        "0.0.0": ("Map", "map"),
        "0.0.0.op0": ("HwcToChw", "operator"),
        "0.0.0.0": ("MnistDataset", "create"),
    }
    assert graph.edges == [("0.0", "0"), ("0.0.0", "0.0"), ("0.0.0.0", "0.0.0")]
    by_id = graph.by_id
    # the operator inside its Map box; sizes for the layout in the browser
    assert by_id["0.0.0.op0"].parent == "0.0.0"
    assert all(n.width >= 130 and n.height >= 48 for n in graph.nodes)
    assert "children" not in by_id["0"].parameters
    assert pipeline(None).nodes == [] and pipeline({}).nodes == []


def test_a_bundle_of_tensors_is_counted_in_the_page_language() -> None:
    from dash_insight.core import i18n
    from dash_insight.plugins.graphs.figures import tensor_count

    assert tensor_count(12) == "12 tensors" and tensor_count(1) == "1 tensor"
    assert edge_label([{}, {}]) == "2 tensors"
    with i18n.use_locale(i18n.CHINESE):
        assert tensor_count(12) == "12 个张量"
        assert edge_label([{}, {}, {}]) == "3 个张量"


def test_a_tuple_edge_is_labelled_in_the_page_language() -> None:
    from dash_insight.core import i18n

    tuple_edge = [{"shape": [[], [], []], "data_type": "DT_TUPLE['a', 'b', 'c']"}]
    assert edge_label(tuple_edge) == "tuple(3 items)"
    assert edge_label([{"shape": [[]], "data_type": "DT_TUPLE['a']"}]) == "tuple(1 item)"
    with i18n.use_locale(i18n.CHINESE):
        assert edge_label(tuple_edge) == "元组（3 项）"
