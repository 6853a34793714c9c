"""The built graph and MindInsight's queries on it (``Graph.list_node_by_scope``,
``MSGraph.search_nodes_by_pattern`` / ``get_nodes``, ``Graph.search_single_node``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.core.vocabulary import GRAPH_MODES, GraphMode
from dash_insight.plugins.graphs.query_builder import build_nodes
from dash_insight.plugins.graphs.query_nodes import SCOPE_TYPES, Node


class GraphModel:
    """One built graph: nodes by name (MindInsight's map order) and the children of each
    scope. Read-only once built; safe to share between threads."""

    def __init__(self, nodes: dict[str, Node], mode: str = GraphMode.NORMAL) -> None:
        self.mode = mode
        self.nodes = nodes
        self.children: dict[str, list[str]] = {}
        for name, node in nodes.items():
            self.children.setdefault(node.scope, []).append(name)

    @classmethod
    def build(cls, proto: anf_ir_pb2.GraphProto, mode: str = GraphMode.NORMAL) -> GraphModel:
        """Build ``proto`` as MindInsight does (``mode`` ``"optimize"`` = readable graph)."""
        if mode not in GRAPH_MODES:
            raise ValueError(f"mode must be one of {GRAPH_MODES}, got {mode!r}")
        return cls(build_nodes(proto, readable=mode == GraphMode.OPTIMIZE), mode)

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, name: object) -> bool:
        return name in self.nodes

    @property
    def is_empty(self) -> bool:
        """No node at the top level (MindInsight then registers no graph tag)."""
        return not self.children.get("")

    def node(self, name: str) -> Node:
        """The node called ``name`` (KeyError if absent)."""
        return self.nodes[name]

    def child_names(self, scope: str = "") -> list[str]:
        """Names of the direct children of ``scope`` ("" = top level), in map order."""
        return self.children.get(scope, [])

    def list_nodes(self, scope: str = "") -> list[dict[str, Any]]:
        """``/graphs/nodes``: the node dicts of the direct children of ``scope``."""
        return [self.nodes[name].to_dict() for name in self.child_names(scope)]

    def ancestors(self, name: str) -> list[str]:
        """The scopes containing ``name``, outermost first (its chain of ``scope`` fields)."""
        chain = []
        node = self.nodes.get(name)
        while node is not None and node.scope:
            chain.append(node.scope)
            node = self.nodes.get(node.scope)
        return chain[::-1]

    def leaves(self, scope: str = "") -> Iterator[Node]:
        """Every non-scope node below ``scope``, depth first in map order."""
        for name in self.child_names(scope):
            node = self.nodes[name]
            if node.type in SCOPE_TYPES:
                yield from self.leaves(name)
            else:
                yield node

    # -- search (MindInsight's /graphs/nodes/names and /graphs/single-node) --
    def search(self, pattern: str | None) -> list[Node]:
        """``search_nodes_by_pattern``: nodes (scopes included, map order) whose lower-cased
        name contains the lower-cased pattern with no ``/`` after its last occurrence, i.e.
        the pattern is in the last name segment. Empty or ``/`` patterns find nothing."""
        if not pattern or pattern == "/":
            return []
        pattern = pattern.lower()
        found = []
        for name, node in self.nodes.items():
            lowered = name.lower()
            position = lowered.rfind(pattern)
            if position >= 0 and lowered.find("/", position + len(pattern)) == -1:
                found.append(node)
        return found

    def search_tree(self, matches: list[Node]) -> list[dict[str, Any]]:
        """``MSGraph.get_nodes``: the matches nested under their scopes as
        ``{"name", "type", "is_dynamic_shape_node", "nodes": [...]}``. As in MindInsight, a
        matching scope listed after matches inside it replaces them by an empty entry."""
        root: dict[str, Any] = {}
        for node in matches:
            parts = node.name.split("/")
            level = root
            prefix = ""
            for part in parts[:-1]:
                prefix = f"{prefix}/{part}" if prefix else part
                entry = level.get(part)
                if entry is None:
                    scope = self.nodes.get(prefix)
                    entry = _tree_entry(prefix, scope)
                    level[part] = entry
                level = entry["children"]
            level[parts[-1]] = _tree_entry(node.name, node)
        return _tree_list(root)

    def single_node(self, name: str) -> dict[str, Any]:
        """``search_single_node``: the children of the root and of every scope on the way to
        ``name``, nested as ``{"nodes", "scope_name", "children"}`` (KeyError if absent)."""
        if name not in self.nodes:
            raise KeyError(name)
        response: dict[str, Any] = {"nodes": self.list_nodes(""), "scope_name": "", "children": {}}
        level = response["children"]
        index = name.find("/")
        while index != -1:
            scope = name[:index]
            level.update({"nodes": self.list_nodes(scope), "scope_name": scope, "children": {}})
            level = level["children"]
            index = name.find("/", index + 1)
        return response


def _tree_entry(name: str, node: Node | None) -> dict[str, Any]:
    return {
        "name": name,
        "type": node.type if node is not None else None,
        "is_dynamic_shape_node": node.is_dynamic_shape_node if node is not None else False,
        "children": {},
    }


def _tree_list(level: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "name": entry["name"],
            "type": entry["type"],
            "is_dynamic_shape_node": entry["is_dynamic_shape_node"],
            "nodes": _tree_list(entry["children"]),
        }
        for entry in level.values()
    ]
