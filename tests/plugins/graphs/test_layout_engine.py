"""The graph pages' layout engine (ELK layered, ``assets/graph-layout.js``) on views the server
builds, run in Node.js on the vendored ELK (``bench/elk.py``; skipped without ``node``): open
scopes hold their children, nodes do not overlap, edges run downwards and are routed around
every node that is not theirs."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dash_insight.plugins.graphs.figures import build_view
from dash_insight.plugins.graphs.service import GraphService
from tests.bench_modules import load_bench_module
from tests.conftest import loaded_service
from tests.plugins.graphs.test_layout_quality import _overlap, crosses
from tests.plugins.graphs.test_model import G


@pytest.fixture(scope="module")
def elk() -> ModuleType:
    module = load_bench_module("elk")
    if module.node_binary() is None:
        pytest.skip("node is not on the PATH")
    return module


def _box(corner: list[float]) -> dict[str, float]:
    x, y, w, h = corner
    return {"x1": x, "y1": y, "x2": x + w, "y2": y + h}


def test_open_scopes_hold_their_children_and_edges_go_around_nodes(elk: ModuleType) -> None:
    g = G()
    g.op("1", "Conv2D", "A/B")
    g.op("2", "ReLU", "A/B", ["1"])
    g.op("3", "Add", "A", ["2", "1"])
    g.op("4", "Mul", "C", ["3", "1"])
    g.op("5", "Sub", "C", ["4", "2"])
    g.op("6", "Neg", "D", ["1"])
    g.op("7", "Exp", "E", ["6", "5", "3"])
    view = build_view(g.build(), ["A/B", "C"])
    _first_ms, (laid,) = elk.lay_out([elk.view_input("v", view)])
    boxes = {name: _box(corner) for name, corner in laid.boxes.items()}
    parents = {n.name: n.parent for n in view.nodes}
    assert set(boxes) == set(parents)
    for name, parent in parents.items():  # inside its open scope
        if parent:
            inner, outer = boxes[name], boxes[parent]
            assert outer["x1"] <= inner["x1"] and inner["x2"] <= outer["x2"]
            assert outer["y1"] <= inner["y1"] and inner["y2"] <= outer["y2"]
    leaves = [n.name for n in view.nodes if not n.expanded]
    for i, a in enumerate(leaves):  # no two leaves overlap
        for b in leaves[i + 1 :]:
            one, other = boxes[a], boxes[b]
            assert (
                one["x2"] <= other["x1"]
                or other["x2"] <= one["x1"]
                or one["y2"] <= other["y1"]
                or other["y2"] <= one["y1"]
            ), (a, b)

    def ancestors(name: str | None) -> set[str]:
        found = set()
        while name:
            found.add(name)
            name = parents[name]
        return found

    for edge in view.edges:
        edge_id = f"{edge.source}\u2192{edge.target}"
        points = [(p["x"], p["y"]) for p in laid.routes[edge_id]]
        assert len(points) >= 2
        assert laid.centres[edge.source]["y"] < laid.centres[edge.target]["y"]  # downwards
        related = ancestors(edge.source) | ancestors(edge.target)
        for name, box in boxes.items():
            if name not in related:
                assert not any(crosses(a, b, box) for a, b in pairwise(points)), (edge_id, name)


def test_a_5000_node_graph_lays_out_level_by_level(elk: ModuleType, tmp_path: Path) -> None:
    """5,000 operators in 200 blocks of 25 (``bench/graph.py``'s ResNet-like generator), written
    with the project's ``SummaryWriter`` and read back by the loader: each level a person opens
    (the top, ``Default``, a stage, a block) is laid out, every drawn node placed. How long it
    takes is ``bench/graph.py``'s figure (1 s per level is its target): this machine is shared,
    and a time limit here would fail with the load of others, not with the layout."""
    bench_graph = load_bench_module("graph")
    train_id = bench_graph.write_job(str(tmp_path / "logs"), bench_graph.make_graph(5000, 200))
    data = loaded_service(tmp_path / "logs", tmp_path / "ws")
    try:
        graphs = GraphService(data.provider)
        tag = data.provider.graph_tags(train_id)[0]
        model = graphs.model(train_id, tag, "normal", extended_types=True)
        levels = [[], ["Default"], ["Default", "Default/stage0"]]
        levels.append([*levels[-1], "Default/stage0/block0"])
        views = [build_view(model, expanded) for expanded in levels]
    finally:
        data.close()
    assert len(model) > 5000 and len(views[-1].nodes) > 50
    _first_ms, laid = elk.lay_out(
        [elk.view_input(str(i), view) for i, view in enumerate(views)], repeat=1
    )
    for view, done in zip(views, laid, strict=True):
        assert set(done.boxes) == {n.name for n in view.nodes}


def test_a_map_stacks_its_operations_in_order_left_to_right(elk: ModuleType) -> None:
    """The data graph (left to right): a Map's operations top to bottom in their order."""
    operations = [f"m.op{i}" for i in range(4)]
    nodes = [
        {"id": "src", "parent": None, "w": 130, "h": 58, "compound": False},
        {"id": "m", "parent": None, "w": 130, "h": 58, "compound": True},
        *({"id": o, "parent": "m", "w": 130, "h": 48, "compound": False} for o in operations),
        {"id": "batch", "parent": None, "w": 130, "h": 58, "compound": False},
    ]
    edges = [
        {"id": "a", "source": "src", "target": "m"},
        {"id": "b", "source": "m", "target": "batch"},
    ]
    view = {"name": "pipeline", "direction": "RIGHT", "nodes": nodes, "edges": edges}
    _first_ms, (laid,) = elk.lay_out([view])
    ys = [laid.centres[o]["y"] for o in operations]
    assert ys == sorted(ys) and len({laid.centres[o]["x"] for o in operations}) == 1
    assert laid.centres["src"]["x"] < laid.boxes["m"][0] < laid.centres["batch"]["x"]


def test_a_level_of_long_random_edges_is_laid_out_without_its_longest(elk: ModuleType) -> None:
    """A chain of 400 nodes plus 400 random edges (``bench/hard_inputs.py``'s level, smaller):
    ELK would put a dummy node on every layer a long edge spans (tens of thousands; the
    1,400-node level took minutes); the longest edges are left out of the layout (drawn
    straight), the chain keeps its routes."""
    rng = random.Random(3)
    names = [f"n{i}" for i in range(400)]
    pairs = list(pairwise(names)) + [(rng.choice(names), rng.choice(names)) for _ in range(400)]
    view = {
        "name": "level",
        "nodes": [{"id": n, "parent": None, "w": 80, "h": 30, "compound": False} for n in names],
        "edges": [{"id": f"e{i}", "source": a, "target": b} for i, (a, b) in enumerate(pairs)],
    }
    _first_ms, (laid,) = elk.lay_out([view])
    assert set(laid.centres) == set(names)
    routed = {edge for edge, points in laid.routes.items() if len(points) >= 2}
    assert {f"e{i}" for i in range(399)} <= routed  # the chain
    assert 0 < len(pairs) - len(routed) < 400


def test_edge_labels_get_room_up_to_a_budget(elk: ModuleType) -> None:
    """ELK places each edge label of a level beside its edge, clear of the nodes and of the
    other labels; a level of more than ``LABELLED_EDGES`` edges is laid out without them (they
    double its time, and cannot be read until zoomed into)."""
    names = [f"n{i}" for i in range(12)]
    nodes = [{"id": n, "parent": None, "w": 80, "h": 30, "compound": False} for n in names]
    pairs = [(a, b) for a in names[:3] for b in names[3:]]
    edges = [
        {"id": f"e{i}", "source": a, "target": b, "lw": 90, "lh": 14}
        for i, (a, b) in enumerate(pairs)
    ]
    _first_ms, (laid,) = elk.lay_out([{"name": "small", "nodes": nodes, "edges": edges}])
    assert set(laid.labels) == {e["id"] for e in edges}
    boxes = [
        {"x1": c["x"] - 45, "y1": c["y"] - 7, "x2": c["x"] + 45, "y2": c["y"] + 7}
        for c in laid.labels.values()
    ]
    nodes_boxes = [_box(laid.boxes[n]) for n in names]
    assert not [
        (a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if _overlap(a, b)
    ] and not [(a, b) for a in boxes for b in nodes_boxes if _overlap(a, b)]
    many = [f"m{i}" for i in range(502)]  # 501 edges: over assets/graph-layout.js's 400
    wide = {
        "name": "wide",
        "nodes": [{"id": n, "parent": None, "w": 40, "h": 30, "compound": False} for n in many],
        "edges": [
            {"id": f"w{i}", "source": a, "target": b, "lw": 40, "lh": 14}
            for i, (a, b) in enumerate(pairwise(many))
        ],
    }
    _first_ms, (laid,) = elk.lay_out([wide])
    assert laid.labels == {}


def _near(point: dict[str, float], box: dict[str, float], by: float = 6) -> bool:
    return (
        box["x1"] - by <= point["x"] <= box["x2"] + by
        and box["y1"] - by <= point["y"] <= box["y2"] + by
    )


def test_opening_a_scope_lays_out_that_scope_and_its_ancestors_only(
    elk: ModuleType, tmp_path: Path
) -> None:
    """The graph page lays out each open scope on its own and keeps it (the scopes' cache,
    ``assets/graph-scopes.js``): opening a block in a view of two open stages lays out the
    block, its stage, ``Default`` and the top level, and every other scope keeps its picture
    (the other stage's block, relative to its box, where it was); closing it again lays out
    nothing (the whole view was cached) and puts every node back where it was. Each edge still
    runs from its source's box to its target's, through the ports on the borders it crosses."""
    bench_graph = load_bench_module("graph")
    train_id = bench_graph.write_job(str(tmp_path / "logs"), bench_graph.make_graph(500, 20))
    data = loaded_service(tmp_path / "logs", tmp_path / "ws")
    try:
        graphs = GraphService(data.provider)
        model = graphs.model(train_id, data.provider.graph_tags(train_id)[0], "normal")
        two = ["Default", "Default/stage0", "Default/stage1", "Default/stage0/block0"]
        views = [build_view(model, two), build_view(model, [*two, "Default/stage1/block0"])]
    finally:
        data.close()
    inputs = [
        elk.view_input("two stages", views[0]),
        elk.view_input("a block opened", views[1], after=0),
        elk.view_input("closed again", views[0], after=1),
    ]
    _first_ms, (before, opened, closed) = elk.lay_out(inputs)
    assert set(opened.laid_out) == {
        "Default/stage1/block0",
        "Default/stage1",
        "Default",
        "__root__",
    }
    assert opened.elk_calls == 1 and closed.elk_calls == 0 and closed.laid_out == []
    kept = "Default/stage0/block0"

    def inside(laid: Any, name: str) -> dict[str, tuple[float, float]]:
        x, y = laid.boxes[kept][:2]
        return {
            n: (round(c["x"] - x, 3), round(c["y"] - y, 3))
            for n, c in laid.centres.items()
            if n.startswith(name)
        }

    assert inside(before, kept) == inside(opened, kept) and len(inside(before, kept)) > 20
    assert closed.centres == before.centres and closed.routes == before.routes
    for laid, view in ((before, views[0]), (opened, views[1])):
        boxes = {name: _box(corner) for name, corner in laid.boxes.items()}
        for edge in view.edges:
            route = laid.routes[f"{edge.source}\u2192{edge.target}"]
            assert _near(route[0], boxes[edge.source]) and _near(route[-1], boxes[edge.target])
