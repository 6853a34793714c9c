"""The dataset pipeline (MindInsight's "data graph"): the ``organize_graph`` dict the provider
returns, put in MindInsight's key order, and turned into nodes and edges for drawing.

The dict is a tree whose root is the LAST operation (``Batch``) and whose leaves are the source
datasets; data flows from the children to their parent. A ``Map`` node holds its
``operations`` (``{"tensor_op_name": "TypeCast", "tensor_op_params": "{...}"}``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_STRUCTURE_KEYS = ("operations", "sampler", "children")
_OPERATION_LIST_KEYS = ("size", "weights")


def _group(value: Any) -> int:
    """Which ``OperationParameter`` map a value came from, in MindInsight's merge order:
    mapStr (``None`` is a ``"None"`` string), mapBool, mapInt, mapDouble, then mapStrList."""
    if value is None or isinstance(value, str):
        return 0
    if isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return 2
    if isinstance(value, float):
        return 3
    return 4


def _ordered_parameters(node: Mapping[str, Any], skip: tuple[str, ...]) -> dict[str, Any]:
    keys = [k for k in node if k not in skip]
    keys.sort(key=lambda k: (_group(node[k]), k))
    return {k: node[k] for k in keys}


def _ordered_operation(operation: Mapping[str, Any]) -> dict[str, Any]:
    result = _ordered_parameters(operation, _OPERATION_LIST_KEYS)
    for key in _OPERATION_LIST_KEYS:
        if key in operation:
            result[key] = operation[key]
    return result


def mindinsight_order(node: Mapping[str, Any]) -> dict[str, Any]:
    """``node`` with its keys in the order MindInsight's ``organize_graph`` produces them:
    the parameter maps (mapStr, mapBool, mapInt, mapDouble, each in the sorted order MindSpore
    writes map entries), the string lists, then ``operations``, ``sampler``, ``children``."""
    result = _ordered_parameters(node, _STRUCTURE_KEYS)
    if "operations" in node:
        result["operations"] = [_ordered_operation(op) for op in node["operations"]]
    if "sampler" in node:
        result["sampler"] = _ordered_operation(node["sampler"])
    result["children"] = [mindinsight_order(child) for child in node.get("children") or []]
    return result


def decode_value(value: Any) -> Any:
    """A parameter value for display: MindSpore 2.x writes list elements JSON-encoded
    (``["\\"image\\""]``); they are decoded (``["image"]``), anything else is kept."""
    if isinstance(value, list):
        decoded = []
        for item in value:
            if isinstance(item, str):
                try:
                    decoded.append(json.loads(item))
                except ValueError:
                    decoded.append(item)
            else:
                decoded.append(item)
        return decoded
    return value


def display_text(value: Any) -> str:
    """One parameter value as text: JSON for lists and dicts, ``None`` for null."""
    value = decode_value(value)
    if value is None:
        return "None"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def kind_of(op_type: str, has_children: bool) -> str:
    """Legend category of a pipeline operation: create (a source dataset), map, shuffle,
    batch, repeat, or other (zip, concat, project...)."""
    short = (
        op_type[: -len("Dataset")]
        if op_type.endswith("Dataset") and op_type != "Dataset"
        else op_type
    )
    lowered = short.lower()
    if lowered in ("map", "shuffle", "batch", "repeat"):
        return lowered
    return "other" if has_children else "create"


@dataclass
class PipelineNode:
    id: str
    label: str
    kind: str  # create, map, shuffle, batch, repeat, other, operator
    parameters: dict[str, Any]
    parent: str | None = None  # the Map box holding an operator
    width: float = 0.0
    height: float = 0.0


@dataclass
class Pipeline:
    nodes: list[PipelineNode]
    edges: list[tuple[str, str]]  # data flow: child dataset -> consumer
    by_id: dict[str, PipelineNode] = field(default_factory=dict)


OP_WIDTH, OP_HEIGHT = 130.0, 48.0


def pipeline(graph: Mapping[str, Any] | None) -> Pipeline:
    """Nodes (ids are tree paths: ``0``, ``0.0``, ``0.0.1``; operators ``<map id>.op<i>``),
    edges from each child to its parent, and node sizes (ELK lays them out left to right in the
    browser); a Map is a box with its operators stacked inside, as MindInsight draws it."""
    if not graph:
        return Pipeline([], [])
    nodes: list[PipelineNode] = []
    edges: list[tuple[str, str]] = []

    def visit(node: Mapping[str, Any], node_id: str) -> None:
        children = node.get("children") or []
        op_type = str(node.get("op_type") or node.get("op_module") or "Dataset")
        params = {k: v for k, v in node.items() if k not in ("children", "operations")}
        entry = PipelineNode(node_id, op_type, kind_of(op_type, bool(children)), params)
        operations = node.get("operations") or []
        if operations:
            entry.kind = "map"
        nodes.append(entry)
        for index, operation in enumerate(operations):
            name = str(
                operation.get("tensor_op_name")
                or operation.get("tensor_op_module")
                or f"operation {index}"
            )
            nodes.append(
                PipelineNode(
                    f"{node_id}.op{index}", name, "operator", dict(operation), parent=node_id
                )
            )
        for index, child in enumerate(children):
            child_id = f"{node_id}.{index}"
            edges.append((child_id, node_id))
            visit(child, child_id)

    visit(graph, "0")
    for node in nodes:
        node.width = max(OP_WIDTH, len(node.label) * 8.5 + 30)
        node.height = OP_HEIGHT if node.parent is not None else OP_HEIGHT + 10
    return Pipeline(nodes, edges, {n.id: n for n in nodes})
