"""What the graph page draws: the top level plus the children of every expanded scope, the
edges between the drawn nodes (a scope drawn collapsed stands for everything inside it), with
the size of every closed node. Where they go is ELK's layered layout in the browser
(``assets/graph-layout.js``): an expanded scope is a compound node around its children.

Pure: no Dash. :func:`build_view` is what the page calls on every expand, collapse or mode
change; only the drawn levels are visited.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.query_nodes import (
    AGGREGATION_SCOPE,
    CONST,
    NAME_SCOPE,
    PARAMETER,
    Node,
)

#: More drawn nodes than this make the browser sluggish: further expansions are refused.
MAX_VISIBLE_NODES = 1500
#: Width of a label's character (pixels of the model space), for the node sizes.
CHAR_WIDTH = 6.6


@dataclass
class ViewNode:
    """One drawn node; ``parent`` the expanded scope drawn around it (None at the top level);
    ``width, height`` the size of a closed node (an expanded one takes its children's room)."""

    name: str
    label: str
    kind: str  # name_scope, aggregation_scope, operator, const, parameter
    type: str
    parent: str | None
    expanded: bool
    width: float
    height: float
    subnode_count: int = 0
    dynamic: bool = False


@dataclass
class ViewEdge:
    """Tensors flowing between two drawn nodes (``count`` underlying edges)."""

    source: str
    target: str
    count: int
    label: str
    control: bool


@dataclass
class GraphView:
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    expanded: list[str]
    notices: list[str] = field(default_factory=list)

    def node(self, name: str) -> ViewNode | None:
        for node in self.nodes:
            if node.name == name:
                return node
        return None


def kind_of(node: Node) -> str:
    """Legend category of a node."""
    if node.type == NAME_SCOPE:
        return "name_scope"
    if node.type == AGGREGATION_SCOPE:
        return "aggregation_scope"
    if node.type == CONST:
        return "const"
    if node.type == PARAMETER:
        return "parameter"
    return "operator"


def base_name(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def node_size(node: Node) -> tuple[float, float]:
    """Drawn size of a collapsed node: constants are dots, operators ellipses sized by their
    label, scopes boxes."""
    label = base_name(node.name)
    if node.type == CONST:
        return 18.0, 18.0
    text = min(len(label), 34) * CHAR_WIDTH
    if node.type in (NAME_SCOPE, AGGREGATION_SCOPE):
        return max(90.0, text + 28), 40.0
    if node.type == PARAMETER:
        return max(60.0, text + 20), 26.0
    return max(70.0, text + 30), 34.0


def normalise_expanded(model: GraphModel, requested: Iterable[str]) -> list[str]:
    """The scopes to draw open: every requested scope that exists, plus its ancestors (a scope
    can only be open inside an open scope), in map order."""
    wanted: set[str] = set()
    for name in requested:
        node = model.nodes.get(name)
        if node is None or not node.is_scope or not node.subnode_count:
            continue
        wanted.add(name)
        wanted.update(model.ancestors(name))
    return [name for name in model.nodes if name in wanted]


def tensor_count(count: int) -> str:
    """How many tensors a bundle of edges carries (``12 tensors``), in the page's language."""
    return ngettext("{n} tensor", "{n} tensors", count).format(n=count)


def tuple_items(count: int) -> str:
    """A tuple-typed edge's text (``tuple(3 items)``), in the page's language."""
    return ngettext("tuple({n} item)", "tuple({n} items)", count).format(n=count)


def edge_label(attrs: list[dict]) -> str:
    """MindInsight's edge text: the data type and shape of a single tensor
    (``DT_TENSOR[DT_FLOAT32] 32×10``), ``tuple(3 items)``, or how many tensors a bundle
    carries (:func:`tensor_count`)."""
    if len(attrs) != 1:
        return tensor_count(len(attrs))
    attr = attrs[0]
    data_type = attr.get("data_type") or ""
    shapes = [dims for dims in attr.get("shape") or [] if dims]
    if data_type.startswith("DT_TUPLE"):
        return tuple_items(len(attr.get("shape") or []))
    shape = " ".join("×".join(str(d) for d in dims) for dims in shapes)
    return " ".join(part for part in (data_type, shape) if part)


class _ViewBuilder:
    def __init__(self, model: GraphModel, expanded: list[str]) -> None:
        self.model = model
        self.expanded = set(expanded)
        self.visible: dict[str, str | None] = {}  # drawn node -> its drawn parent
        self._representative: dict[str, str | None] = {}
        self.notices: list[str] = []

    def collect(self, order: list[str]) -> list[str]:
        """Drawn nodes, parents first; expansions past the node budget are refused."""
        for name in self.model.child_names(""):
            self.visible[name] = None
        opened = []
        for scope in sorted(order, key=lambda s: len(self.model.ancestors(s))):
            if scope not in self.visible:  # inside a scope that stayed closed
                continue
            children = self.model.child_names(scope)
            if len(self.visible) + len(children) > MAX_VISIBLE_NODES:
                self.notices.append(
                    _(
                        "{scope} has {count} nodes; it stays closed because the view would show "
                        "more than {most} nodes. Close other scopes first."
                    ).format(scope=scope, count=len(children), most=MAX_VISIBLE_NODES)
                )
                self.expanded.discard(scope)
                continue
            opened.append(scope)
            for child in children:
                self.visible[child] = scope
        self.expanded = set(opened)
        return opened

    def representative(self, name: str) -> str | None:
        """The drawn node standing for ``name``: itself, or its outermost closed ancestor."""
        if name in self._representative:
            return self._representative[name]
        result = None
        if name in self.model.nodes:
            for candidate in [*self.model.ancestors(name), name]:
                if candidate not in self.visible:
                    break
                if candidate not in self.expanded:
                    result = candidate
                    break
        self._representative[name] = result
        return result

    def edges(self) -> list[ViewEdge]:
        """Edges between drawn, closed nodes, each bundling the tensors between them: the
        source's outputs name the consuming leaves, the target's inputs the producing ones;
        the bundle carries as many tensors as the larger of the two sets."""
        consumers: dict[tuple[str, str], dict[str, dict]] = {}
        producers: dict[tuple[str, str], dict[str, dict]] = {}
        for name in self.visible:
            if name in self.expanded:
                continue
            node = self.model.nodes[name]
            for target, attr in node.outputs.items():
                other = self.representative(target)
                if other is not None and other != name:
                    consumers.setdefault((name, other), {})[target] = attr
            for source, attr in node.inputs.items():
                other = self.representative(source)
                if other is not None and other != name:
                    producers.setdefault((other, name), {})[source] = attr
        edges = []
        for pair in {**consumers, **producers}:
            seen_out = consumers.get(pair, {})
            seen_in = producers.get(pair, {})
            values = list(seen_in.values()) or list(seen_out.values())
            count = max(len(seen_out), len(seen_in))
            label = edge_label(values[:1]) if count == 1 else tensor_count(count)
            control = all(v.get("edge_type") == "control" for v in values)
            edges.append(ViewEdge(pair[0], pair[1], count, label, control))
        return edges


def build_view(model: GraphModel, expanded: Iterable[str] = ()) -> GraphView:
    """The drawn graph for the set of open scopes (see :func:`normalise_expanded`)."""
    order = normalise_expanded(model, expanded)
    builder = _ViewBuilder(model, order)
    opened = builder.collect(order)
    edges = builder.edges()
    children: dict[str | None, list[str]] = {}
    for name, parent in builder.visible.items():
        children.setdefault(parent, []).append(name)
    nodes: dict[str, ViewNode] = {}
    for name, parent in builder.visible.items():
        node = model.nodes[name]
        width, height = node_size(node)
        nodes[name] = ViewNode(
            name,
            base_name(name),
            kind_of(node),
            node.type,
            parent,
            name in builder.expanded,
            width,
            height,
            subnode_count=node.subnode_count,
            dynamic=node.is_dynamic_shape_node,
        )
    ordered = []

    def walk(scope: str | None) -> None:
        for member in children.get(scope, []):
            ordered.append(nodes[member])
            walk(member)

    walk(None)
    return GraphView(ordered, edges, opened, builder.notices)
