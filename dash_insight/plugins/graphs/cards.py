"""The computational-graph and data-graph cards of the training dashboard."""

from __future__ import annotations

from collections import Counter
from typing import Any

import dash_cytoscape as cyto
from dash import html

from dash_insight.core.vocabulary import Plugin
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.web.dashboard import no_data
from dash_insight.web.plugin import CardRequest

NO_GRAPH = ["No computational graph. SummaryCollector records it in GRAPH_MODE ",
              html.Code("collect_specified_data={'collect_graph': True}"), "; PyNative runs have "
              "none."]
NO_PIPELINE = ["No data graph. SummaryCollector records the dataset pipeline with ",
                html.Code("collect_specified_data={'collect_dataset_graph': True}"), "."]


def graph_card(request: CardRequest, service: GraphService) -> tuple[Any, Any]:
    """Top-level name scopes with their node counts, and the edges between them."""
    provider, train_id = service.provider, request.job.train_id
    tags = request.job.tags[Plugin.GRAPH]
    if not tags:
        return no_data(NO_GRAPH), None
    graph = provider.read_graph(train_id, tags[-1])
    scope_of = {node.name: (node.scope or node.full_name or node.name).split("/")[0]
                for node in graph.node}
    counts = Counter(scope_of.values())
    edges: Counter[tuple[str, str]] = Counter()
    for node in graph.node:
        for edge in node.input:
            source = scope_of.get(edge.name)
            if source and source != scope_of[node.name]:
                edges[(source, scope_of[node.name])] += 1
    scopes = sorted(counts, key=lambda s: (-counts[s], s))
    elements = [{"data": {"id": s, "label": f"{s}\n{counts[s]} nodes"},
                 "position": {"x": 170 * i, "y": 60 * (i % 2)}} for i, s in enumerate(scopes)]
    elements += [{"data": {"source": a, "target": b, "label": f"{n} tensors"}}
                 for (a, b), n in edges.items()]
    stylesheet = [
        {"selector": "node", "style": {"label": "data(label)", "text-wrap": "wrap",
                                       "text-valign": "center", "shape": "round-rectangle",
                                       "width": 130, "height": 48, "font-size": 11,
                                       "background-color": "#d7eef2", "border-width": 1,
                                       "border-color": "#00a5a7"}},
        {"selector": "edge", "style": {"label": "data(label)", "font-size": 9,
                                       "curve-style": "bezier", "target-arrow-shape": "triangle",
                                       "line-color": "#9aa0a8", "target-arrow-color": "#9aa0a8",
                                       "text-background-color": "#ffffff",
                                       "text-background-opacity": 0.7}},
    ]
    return (cyto.Cytoscape(id="preview-graph", elements=elements, layout={"name": "preset"},
                           stylesheet=stylesheet, userZoomingEnabled=False,
                           userPanningEnabled=False, autoungrabify=True,
                           style={"width": "100%", "height": "230px"}),
            f"{tags[-1]} · {len(graph.node)} nodes")


def pipeline_steps(graph: dict[str, Any] | None) -> list[tuple[str, list[str]]]:
    """The dataset pipeline from source to last op: (op type, its map operations)."""
    chain = []
    node = graph
    while node:
        operations = [op.get("tensor_op_name") or op.get("tensor_op_module") or "op"
                      for op in node.get("operations", [])]
        chain.append((str(node.get("op_type", "?")), operations))
        children = node.get("children") or []
        node = children[0] if children else None
    return chain[::-1]


def dataset_card(request: CardRequest, service: GraphService) -> tuple[Any, Any]:
    """The dataset pipeline from source to last operation."""
    chain = pipeline_steps(service.provider.dataset_graph(request.job.train_id))
    if not chain:
        return no_data(NO_PIPELINE), None
    items: list[Any] = []
    for i, (op_type, operations) in enumerate(chain):
        if i:
            items.append(html.Span("→", className="di-arrow"))
        items.append(html.Div([op_type, html.Small(", ".join(operations))] if operations
                              else op_type, className="di-op"))
    return html.Div(items, className="di-pipeline", id="preview-dataset"), f"{len(chain)} ops"
