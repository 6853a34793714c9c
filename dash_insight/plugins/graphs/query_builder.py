"""Build MindInsight's graph model from a ``GraphProto`` (``graph.py``, ``msgraph.py``,
``optimized_graph.py`` of MindInsight 2.3.1).

Steps, in MindInsight's order (each depends on the previous ones):

1. parse operators, parameters and constants; resolve input ids to names, fill each edge's shape
   and data type from its source; outputs mirror inputs (not for parameters and constants);
   the *readable* mode (MindInsight's "optimized" graph) first drops the gradient and optimizer
   operators, splices out ``Load``, ``TupleGetItem``, ``MakeTuple`` and ``UpdateState``, drops
   operators left without any edge and lifts the nodes of a scope that holds only operators of
   one type named in the scope (``.../conv1-Conv2d/Conv2D-op0`` stays, ``.../Add/Add-op3`` is
   lifted one level);
2. give every scope that uses a parameter its own copy (``scope/param``);
3. group >= 5 (readable: 10) siblings of one type into an aggregation scope
   ``scope/Type[count]_i`` (``i`` runs over the whole graph);
4. parameter groups get ``independent_layout`` and proxy edges;
5. create a name scope for every ``/`` prefix; it inherits every edge of its descendants that
   crosses its border (constant sources excluded);
6. give every scope that uses a constant its own copy; count each scope's direct children.

Nodes are kept in one insertion-ordered dict, renamed nodes moving to its end, as MindInsight's
``_normal_node_map``: the order decides the running index of aggregation scopes and the answers
of the node-name search.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable

from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.plugins.graphs.query_nodes import (
    AGGREGATION_SCOPE,
    CONST,
    CONTROL_EDGE,
    DATA_EDGE,
    DYNAMIC_SHAPE_ATTRIBUTES,
    MAX_ATTRIBUTE_BYTES,
    NAME_SCOPE,
    PARAMETER,
    SPLICED_TYPES,
    Node,
    TypeNames,
    ValueText,
    check_name,
    edge_attr,
    join_name,
)

#: MindInsight's ``MIN_GROUP_NODE_COUNT``: normal graph / optimized (readable) graph.
MIN_GROUP_NODE_COUNT = 5
MIN_GROUP_NODE_COUNT_READABLE = 10
#: Plugin names: an operator whose ``full_name`` ends with ``[:<plugin>]`` is a summary operator
#: and gets a generated name (``PluginNameEnum``).
SUMMARY_PLUGINS = (
    "image",
    "scalar",
    "graph",
    "optimized_graph",
    "histogram",
    "tensor",
    "loss_landscape",
)
_EDGE_KINDS = ("inputs", "outputs", "proxy_inputs", "proxy_outputs")


class GraphBuilder:
    """Builds the node map of one graph; ``readable`` = MindInsight's optimized graph;
    ``extended_types``: MindSpore 2.x's data type names (see :class:`TypeNames`) instead of
    what MindInsight could read."""

    def __init__(self, readable: bool = False, extended_types: bool = False) -> None:
        self.readable = readable
        self.types = TypeNames(extended_types)
        self.min_group = MIN_GROUP_NODE_COUNT_READABLE if readable else MIN_GROUP_NODE_COUNT
        self.nodes: dict[str, Node] = {}
        self._by_id: dict[str, str] = {}
        self._parameters: dict[str, Node] = {}
        self._consts: dict[str, Node] = {}

    # -- the node map --
    def _cache(self, node: Node) -> None:
        if node.type == CONST:
            self._consts[node.name] = node
        elif node.type == PARAMETER:
            self._parameters[node.name] = node
        self.nodes[node.name] = node
        self._by_id[node.node_id] = node.name

    def _delete(self, names: Iterable[str]) -> None:
        for name in list(names):
            self._parameters.pop(name, None)
            self._consts.pop(name, None)
            node = self.nodes.pop(name, None)
            if node is not None:
                self._by_id.pop(node.node_id, None)

    def _rename(self, node: Node, new_name: str, update_parents: bool = False) -> None:
        """``_update_node_name_of_cache``: rename ``node`` (its scope follows its new name),
        re-key the edges its neighbours (and, with ``update_parents``, their scopes) hold to
        it, and move it to the end of the node map."""
        old_name = node.name
        node.name = new_name
        node.scope = new_name.rsplit("/", 1)[0] if "/" in new_name else ""
        neighbours: dict[str, Node] = {}
        for kind in _EDGE_KINDS:
            for target_name in getattr(node, kind):
                target = self.nodes.get(target_name)
                if target is None:
                    continue
                neighbours[target_name] = target
                if not update_parents:
                    continue
                index = target_name.find("/")
                while index != -1:
                    scope_name = target_name[:index]
                    index = target_name.find("/", index + 1)
                    scope = self.nodes.get(scope_name)
                    if scope_name not in neighbours and scope is not None:
                        neighbours[scope_name] = scope
        for target in neighbours.values():
            for kind in _EDGE_KINDS:
                edges = getattr(target, kind)
                attr = edges.pop(old_name, None)
                if attr is not None:
                    target.add_edge(kind, new_name, attr)
        self._delete([old_name])
        self._cache(node)

    def _operators_in_order(self) -> list[Node]:
        """Operators (not parameters or constants) in the order of the proto."""
        return sorted(
            (n for n in self.nodes.values() if n.type not in (CONST, PARAMETER)),
            key=lambda n: n.topological_index,
        )

    # -- 1. parsing --
    def build(self, proto: anf_ir_pb2.GraphProto) -> dict[str, Node]:
        """Every node of the built graph by name, in MindInsight's map order."""
        self._parse_operators(proto)
        self._parse_parameters(proto)
        self._parse_consts(proto)
        self._resolve_inputs()
        if self.readable:
            self._splice_inputs()
        self._mirror_outputs()
        if self.readable:
            self._splice_outputs()
            self._delete(n.name for n in list(self.nodes.values()) if n.type in SPLICED_TYPES)
            self._delete(
                n.name for n in self._operators_in_order() if not n.inputs and not n.outputs
            )
            self._lift_single_type_scopes()
        self._add_variable_copies(PARAMETER)
        self._build_aggregation_scopes()
        self._process_independent_layout()
        self._build_name_scopes()
        self._add_variable_copies(CONST)
        self._count_subnodes()
        for node in self.nodes.values():
            if not node.full_name:
                node.full_name = node.name
        return self.nodes

    def _skipped_in_readable_mode(self, proto: anf_ir_pb2.NodeProto) -> bool:
        """Gradient and optimizer operators (``OptimizedGraph._parse_op_nodes``)."""
        return (
            proto.full_name.startswith("Gradients")
            or "optimizer" in proto.full_name
            or "opt" in proto.instance_name
        )

    def _parse_operators(self, proto: anf_ir_pb2.GraphProto) -> None:
        for index, node_proto in enumerate(proto.node):
            if not node_proto.name:
                continue
            if self.readable and self._skipped_in_readable_mode(node_proto):
                continue
            self._cache(self._operator(index, node_proto))

    def _operator(self, index: int, proto: anf_ir_pb2.NodeProto) -> Node:
        """``_parse_op_node``: the name is ``full_name``, or ``scope/<type>-op<id>`` without one;
        the id is what follows the last "op" of the proto name; summary operators
        (``x[:scalar]``) get ``scope/<type>-op<proto name>``."""
        node_id = proto.name.split("/")[-1].split("op")[-1]
        name = join_name(proto.scope, f"{proto.op_type}-op{node_id}")
        full_name = proto.full_name
        if full_name:
            name = full_name
        lowered = full_name.lower()
        if full_name and any(lowered.endswith(f"[:{p}]") for p in SUMMARY_PLUGINS):
            name = join_name(proto.scope, f"{proto.op_type}-op{proto.name}")
        check_name(name)
        node = Node(name, node_id, full_name, index)
        node.type = proto.op_type
        for attribute in proto.attribute:
            if attribute.value.ByteSize() > MAX_ATTRIBUTE_BYTES:
                continue
            if attribute.name in DYNAMIC_SHAPE_ATTRIBUTES and attribute.value.bool_val:
                node.is_dynamic_shape_node = True
            node.attr[attribute.name] = ValueText(attribute.value, self.types.extended)
        for input_proto in proto.input:
            if not input_proto.name:
                continue
            source = input_proto.name
            if "/" in source:
                source = source.split("op")[-1]
            node.add_input(source, edge_attr(CONTROL_EDGE if input_proto.type else DATA_EDGE))
        node.output_i = proto.output_i
        node.scope = proto.scope
        node.output_shape = self.types.shape(proto.output_type)
        node.output_data_type = self.types.text(proto.output_type)
        return node

    def _parse_parameters(self, proto: anf_ir_pb2.GraphProto) -> None:
        """Parameters: attributes ``type`` (data type text) and ``shape`` (``str`` of the
        shapes list)."""
        for parameter in proto.parameters:
            if not parameter.name:
                continue
            check_name(parameter.name)
            node = Node(parameter.name, parameter.name)
            node.type = PARAMETER
            node.output_shape = self.types.shape(parameter.type)
            node.output_data_type = self.types.text(parameter.type)
            node.attr.update(type=node.output_data_type, shape=str(node.output_shape))
            self._cache(node)

    def _parse_consts(self, proto: anf_ir_pb2.GraphProto) -> None:
        """Constants: one attribute ``{key: str(value)}`` (``dtype: <type>`` above 1024 bytes);
        their edges carry no data type (MindInsight never sets it)."""
        for const in proto.const_vals:
            if not const.key:
                continue
            check_name(const.key)
            node = Node(const.key, const.key)
            node.type = CONST
            dtype = const.value.dtype if self.types.known(const.value.dtype) else 0
            if const.value.ByteSize() > MAX_ATTRIBUTE_BYTES:
                node.attr[const.key] = "dtype: " + self.types.name(dtype)
            else:
                node.attr[const.key] = ValueText(const.value, self.types.extended)
            if dtype == anf_ir_pb2.DT_TENSOR:
                node.output_shape = [list(const.value.tensor_val.dims)]
            else:
                node.output_shape = [[]]
            self._cache(node)

    def _resolve_inputs(self) -> None:
        """Input ids -> source names, each edge taking its source's shape and data type; inputs
        from unknown ids are dropped."""
        for node in list(self.nodes.values()):
            for source_id, attr in list(node.inputs.items()):
                del node.inputs[source_id]
                source = self.nodes.get(self._by_id.get(source_id, ""))
                if source is None:
                    continue
                attr["shape"] = source.output_shape
                attr["data_type"] = source.output_data_type
                node.add_input(source.name, attr)

    def _mirror_outputs(self) -> None:
        """Every input edge is also its source's output (the same attribute object), except
        for parameter and constant sources."""
        for node in self.nodes.values():
            for source_name, attr in node.inputs.items():
                source = self.nodes.get(source_name)
                if source is None or source.type in (CONST, PARAMETER):
                    continue
                source.add_output(node.name, attr)

    def _splice_inputs(self) -> None:
        """Readable mode: an input from a spliced operator is replaced by that operator's own
        inputs (in proto order, so chains resolve)."""
        for node in self._operators_in_order():
            for source_name in list(node.inputs):
                source = self.nodes.get(source_name)
                if source is None or source.type not in SPLICED_TYPES:
                    continue
                node.inputs.pop(source_name, None)
                for name, attr in list(source.inputs.items()):
                    origin = self.nodes.get(name)
                    if origin is None:
                        continue
                    attr["shape"] = origin.output_shape
                    attr["data_type"] = origin.output_data_type
                    node.add_input(origin.name, attr)

    def _splice_outputs(self) -> None:
        """Readable mode: an output to a spliced operator is replaced by that operator's
        outputs; as in MindInsight, such an edge then carries the *consumer's* output shape."""
        for node in self._operators_in_order():
            for target_name in list(node.outputs):
                target = self.nodes.get(target_name)
                if target is None or target.type not in SPLICED_TYPES:
                    continue
                node.outputs.pop(target_name, None)
                for name, attr in list(target.outputs.items()):
                    consumer = self.nodes.get(name)
                    if consumer is None:
                        continue
                    attr["shape"] = consumer.output_shape
                    attr["data_type"] = consumer.output_data_type
                    node.add_output(consumer.name, attr)

    def _lift_single_type_scopes(self) -> None:
        """Readable mode (``_extract_node_by_single_node_in_scope``): a scope (not top level)
        with more than one operator, all of one type whose name is part of the scope's name, and
        no sub-scope, is dissolved into its parent."""
        operators = self._operators_in_order()
        types: dict[str, set[str]] = defaultdict(set)
        counts: dict[str, int] = defaultdict(int)
        for node in operators:
            if node.scope and "/" in node.scope:
                types[node.scope].add(node.type)
                counts[node.scope] += 1
        lifted = {
            scope
            for scope, kinds in types.items()
            if len(kinds) == 1 and counts[scope] > 1 and next(iter(kinds)) in scope
        }
        lifted = {
            scope for scope in lifted if not any(other.startswith(scope + "/") for other in types)
        }
        for node in operators:
            if node.scope in lifted:
                parent = node.scope.rsplit("/", 1)[0]
                self._rename(node, f"{parent}/{node.name.rsplit('/', 1)[1]}")

    # -- 2 and 6. parameter and constant copies --
    def _add_variable_copies(self, node_type: str) -> None:
        """``_add_variable_nodes``: every scope that consumes a parameter (constant) gets its own
        copy ``scope/name``, which feeds every consumer in that scope; unused originals are
        removed."""
        originals = self._parameters if node_type == PARAMETER else self._consts
        copies: dict[str, Node] = {}
        for node in list(self.nodes.values()):
            for source_name, attr in list(node.inputs.items()):
                original = originals.get(source_name)
                if original is None:
                    continue
                copy_name = join_name(node.scope, source_name)
                copy = copies.get(copy_name)
                if copy is None:
                    copy = original.copy_as(copy_name)
                    copy.scope = node.scope
                    copies[copy_name] = copy
                copy.add_output(node.name, dict(attr))
                del node.inputs[source_name]
                node.add_input(copy_name, dict(attr))
        for copy in copies.values():
            self._cache(copy)
        self._delete(set(originals) - set(copies))

    # -- 3. aggregation --
    def _build_aggregation_scopes(self) -> None:
        """Siblings of one type (not constants or name scopes), >= ``min_group`` of them, move
        into ``scope/Type[count]_i``, which inherits their outside edges."""
        groups: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes.values():
            if node.type in (CONST, NAME_SCOPE):
                continue
            groups[join_name(node.scope, node.type)].append(node)
        selected = [name for name, members in groups.items() if len(members) >= self.min_group]
        scopes: list[tuple[Node, list[Node]]] = []
        for index, group in enumerate(selected):
            scope_name, _, op_type = group.rpartition("/")
            members = groups[group]
            name = join_name(scope_name, f"{op_type}[{len(members)}]_{index}")
            scope = Node(name, name)
            scope.type = AGGREGATION_SCOPE
            scope.scope = scope_name
            scope.subnode_count = len(members)
            for member in members:
                self._rename(member, join_name(name, member.name.split("/")[-1]))
            self._cache(scope)
            scopes.append((scope, members))
        for scope, members in scopes:
            self._inherit(scope, members)

    def _inherit(self, parent: Node, children: Iterable[Node]) -> None:
        """``_inherit_input_output_from_subnode``: ``parent`` takes every edge of ``children``
        whose other end is outside it, except edges of constants (the same attribute
        objects)."""
        prefix = parent.name + "/"
        for kind in _EDGE_KINDS:
            for child in children:
                for other, attr in getattr(child, kind).items():
                    target = self.nodes.get(other)
                    if target is None or other.startswith(prefix) or target.type == CONST:
                        continue
                    parent.add_edge(kind, other, attr)

    # -- 4. independent layout of parameter groups --
    def _process_independent_layout(self) -> None:
        """``_process_independent_layout``: aggregation scopes of parameters are drawn beside
        their consumers: they and their members get ``independent_layout`` and proxy edges (to
        the consumer, or to its aggregation scope when it has been grouped), and the consumer's
        input edge is marked ``independent_layout``."""
        groups = {
            node.name: node
            for node in self.nodes.values()
            if node.type == AGGREGATION_SCOPE and PARAMETER in node.name.split("/")[-1]
        }
        members: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes.values():
            if node.scope in groups:
                members[node.scope].append(node)
        for group in groups.values():
            group.independent_layout = True
            for target_name, attr in list(group.outputs.items()):
                proxy = {"edge_type": attr["edge_type"]}
                target = self.nodes.get(target_name)
                if target is None:
                    continue
                target.proxy_inputs[group.name] = proxy
                target_scope = self.nodes.get(target.scope)
                if target.scope == group.scope or target_scope is None:
                    group.proxy_outputs[target_name] = proxy
                else:
                    group.proxy_outputs[target.scope] = proxy
                    target_scope.proxy_inputs[group.name] = proxy
            for member in members[group.name]:
                member.independent_layout = True
                for target_name, attr in list(member.outputs.items()):
                    proxy = {"edge_type": attr["edge_type"]}
                    target = self.nodes.get(target_name)
                    if target is None:
                        continue
                    member.proxy_outputs[
                        target_name if target.scope == group.scope else target.scope
                    ] = proxy
                    input_attr = target.inputs.get(member.name)
                    if input_attr is None:
                        continue
                    input_attr["independent_layout"] = True
                    target.add_input(member.name, input_attr)

    # -- 5. name scopes --
    def _build_name_scopes(self) -> None:
        """A ``name_scope`` node for every ``/`` prefix of every node name (aggregation scopes
        excepted); each inherits the outside edges of the nodes below it. A node whose name is
        also a scope is renamed ``parent/(base)``."""
        scopes: dict[str, Node] = {}
        for name, node in list(self.nodes.items()):
            if self.nodes.get(name) is not node:  # renamed by a conflict meanwhile
                name = node.name
            index = name.find("/")
            previous = -1
            while index > 0:
                scope_name = name[:index]
                scope = scopes.get(scope_name)
                if scope is None:
                    existing = self.nodes.get(scope_name)
                    if existing is not None and existing.type == AGGREGATION_SCOPE:
                        previous, index = index, name.find("/", index + 1)
                        continue
                    if existing is not None:
                        base = scope_name.split("/")[-1]
                        self._rename(
                            existing, join_name(existing.scope, f"({base})"), update_parents=True
                        )
                    scope = Node(scope_name, scope_name)
                    scope.type = NAME_SCOPE
                    scope.scope = name[:previous] if previous > 0 else ""
                    scopes[scope_name] = scope
                self._inherit(scope, [node])
                previous, index = index, name.find("/", index + 1)
        for scope in scopes.values():
            self._cache(scope)

    def _count_subnodes(self) -> None:
        counts: dict[str, int] = defaultdict(int)
        for node in self.nodes.values():
            if node.scope and node.scope in self.nodes:
                counts[node.scope] += 1
        for name, count in counts.items():
            self.nodes[name].subnode_count = count


def build_nodes(
    proto: anf_ir_pb2.GraphProto, readable: bool = False, extended_types: bool = False
) -> dict[str, Node]:
    """The nodes of ``proto`` as MindInsight builds them (normal or optimized graph).

    The cyclic garbage collector is paused meanwhile: building allocates hundreds of thousands
    of small dicts, nothing cyclic, and collections triggered by them would rescan the whole
    heap again and again (about half of the build time on a 5,000-node graph)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return GraphBuilder(readable, extended_types).build(proto)
    finally:
        if enabled:
            gc.enable()
