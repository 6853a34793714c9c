"""The computational-graph and data-graph cards of the training dashboard."""

from __future__ import annotations

from typing import Any

import dash_cytoscape as cyto
from dash import html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, ngettext
from dash_insight.core.provider import DataError
from dash_insight.core.vocabulary import GraphMode, PluginName
from dash_insight.plugins.graphs.figures import GraphView, build_view
from dash_insight.plugins.graphs.figures_cytoscape import ELK_CLASS, ELK_FIT
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.query_nodes import GraphBuildError
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.web.dashboard import no_data
from dash_insight.web.plugin import CardRequest


def no_graph() -> list[Any]:
    """The card of a job without a computational graph: how to record one."""
    return interpolate(
        _(
            "No computational graph. SummaryCollector records it in GRAPH_MODE {collect}; "
            "PyNative runs have none."
        ),
        collect=html.Code("collect_specified_data={'collect_graph': True}"),
    )


def no_pipeline() -> list[Any]:
    """The card of a job without a dataset graph: how to record one."""
    return interpolate(
        _("No data graph. SummaryCollector records the dataset pipeline with {collect}."),
        collect=html.Code("collect_specified_data={'collect_dataset_graph': True}"),
    )


def graph_card(request: CardRequest, service: GraphService) -> tuple[Any, Any]:
    """The top level of the graph page's view (the same model, layout and edge bundles, so an
    edge says as many tensors here as on the page), each scope with its operator count; the
    footer names the graph file and its operator count."""
    tags = request.job.tags[PluginName.GRAPH]
    if not tags:
        return no_data(no_graph()), None
    try:
        model = service.model(request.job.train_id, tags[-1], GraphMode.NORMAL, extended_types=True)
    except (DataError, GraphBuildError) as error:
        return no_data(
            [_("The graph {tag!r} cannot be shown: {error}").format(tag=tags[-1], error=error)]
        ), None
    leaves = sum(1 for _leaf in model.leaves())
    return (
        card_canvas(card_elements(model, build_view(model))),
        f"{tags[-1]} · " + ngettext("{count} node", "{count} nodes", leaves).format(count=leaves),
    )


def _node_label(label: str, operators: int) -> str:
    """A node's label, with its operator count on a second line when it has operators."""
    if not operators:
        return label
    return f"{label}\n" + ngettext("{count} node", "{count} nodes", operators).format(
        count=operators
    )


def card_elements(model: GraphModel, view: GraphView) -> list[dict[str, Any]]:
    """The cytoscape elements of ``view``: its nodes (a scope labelled with how many
    operators it holds, each at least 130 x 44) and its edges with their labels."""
    elements: list[dict[str, Any]] = []
    for node in view.nodes:
        operators = (
            sum(1 for _leaf in model.leaves(node.name)) if node.kind.endswith("scope") else 0
        )
        data = {
            "id": node.name,
            "label": _node_label(node.label, operators),
            "w": max(node.width, 130),
            "h": max(node.height, 44),
        }
        elements.append({"data": data})
    elements += [
        {"data": {"source": e.source, "target": e.target, "label": e.label}} for e in view.edges
    ]
    return elements


def card_stylesheet() -> list[dict[str, Any]]:
    """The card's cytoscape style: rounded boxes of the nodes' sizes, labelled edges."""
    node_style = {
        "label": "data(label)",
        "text-wrap": "wrap",
        "text-valign": "center",
        "shape": "round-rectangle",
        "width": "data(w)",
        "height": "data(h)",
        "font-size": 11,
        "background-color": "#d7eef2",
        "border-width": 1,
        "border-color": "#00a5a7",
    }
    edge_style = {
        "label": "data(label)",
        "font-size": 9,
        "curve-style": "bezier",
        "target-arrow-shape": "triangle",
        "line-color": "#9aa0a8",
        "target-arrow-color": "#9aa0a8",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.7,
    }
    return [{"selector": "node", "style": node_style}, {"selector": "edge", "style": edge_style}]


def card_canvas(elements: list[dict[str, Any]]) -> cyto.Cytoscape:
    """The card's canvas: fitted, laid out by ELK in the browser, not zoomed nor panned."""
    return cyto.Cytoscape(
        id="preview-graph",
        elements=elements,
        layout={"name": "preset", "fit": True, "padding": 12},
        stylesheet=card_stylesheet(),
        userZoomingEnabled=False,
        maxZoom=1.2,
        userPanningEnabled=False,
        autoungrabify=True,
        className=f"di-graph-canvas {ELK_CLASS} {ELK_FIT}",
        style={"width": "100%", "height": "230px"},
    )


def pipeline_steps(graph: dict[str, Any] | None) -> list[tuple[str, list[str]]]:
    """The dataset pipeline from source to last op: (op type, its map operations)."""
    chain = []
    node = graph
    while node:
        operations = [
            op.get("tensor_op_name") or op.get("tensor_op_module") or "op"
            for op in node.get("operations", [])
        ]
        chain.append((str(node.get("op_type", "?")), operations))
        children = node.get("children") or []
        node = children[0] if children else None
    return chain[::-1]


def dataset_card(request: CardRequest, service: GraphService) -> tuple[Any, Any]:
    """The dataset pipeline from source to last operation. Each arrow is kept with the
    operation it points to, so a line that wraps never ends with an arrow."""
    chain = pipeline_steps(service.provider.dataset_graph(request.job.train_id))
    if not chain:
        return no_data(no_pipeline()), None
    items: list[Any] = []
    for i, (op_type, operations) in enumerate(chain):
        box = html.Div(
            [op_type, html.Small(", ".join(operations))] if operations else op_type,
            className="di-op",
        )
        items.append(
            html.Span([html.Span("→", className="di-arrow"), box], className="di-pipeline-step")
            if i
            else box
        )
    count = ngettext("{count} op", "{count} ops", len(chain)).format(count=len(chain))
    return html.Div(items, className="di-pipeline", id="preview-dataset"), count
