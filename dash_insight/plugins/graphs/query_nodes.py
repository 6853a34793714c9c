"""Nodes of a computational graph as MindInsight models them (``graph/node.py``, ``msgraph.py``).

A node is an operator, a parameter, a constant, a name scope (``Default/conv1``) or an
aggregation scope (``Default/Add[12]_3``). Edges live on both ends: ``inputs[source name]`` on
the consumer and ``outputs[consumer name]`` on the producer, each an *edge attribute* dict
``{"shape", "edge_type", "independent_layout", "data_type"}``. MindInsight shares one dict
object between several ends (a producer's output and its consumer's input, a scope and the
edge it inherits) and later updates some of them in place; the builder keeps that sharing, so
the answers are MindInsight's to the byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from dash_insight.core.format.protos import anf_ir_pb2

# Node types (MindInsight's ``NodeTypeEnum``).
NAME_SCOPE = "name_scope"
AGGREGATION_SCOPE = "aggregation_scope"
PARAMETER = "Parameter"
CONST = "Const"
LOAD = "Load"
TUPLE_GET_ITEM = "TupleGetItem"
MAKE_TUPLE = "MakeTuple"
UPDATE_STATE = "UpdateState"
#: Operators the readable (optimized) graph splices out, reconnecting their neighbours.
SPLICED_TYPES = frozenset({LOAD, TUPLE_GET_ITEM, MAKE_TUPLE, UPDATE_STATE})
SCOPE_TYPES = frozenset({NAME_SCOPE, AGGREGATION_SCOPE})

#: Edge types (``EdgeTypeEnum``): ``InputProto.type`` 0 -> data, 1 -> control.
DATA_EDGE = "data"
CONTROL_EDGE = "control"

#: Attribute values bigger than this (serialized) are dropped (``MAX_NODE_ATTRIBUTE_VALUE_BYTES``).
MAX_ATTRIBUTE_BYTES = 1024
#: Characters that abort graph building (MindInsight's ``check_invalid_character``).
INVALID_CHARACTERS = frozenset('<>"')
#: Attributes that mark a dynamic-shape node when true.
DYNAMIC_SHAPE_ATTRIBUTES = ("input_is_dynamic_shape", "output_is_dynamic_shape")

EdgeAttr = dict[str, Any]


class GraphBuildError(ValueError):
    """The graph cannot be built (MindInsight refuses it too); ``str()`` says why."""


def check_name(name: str) -> None:
    """MindInsight's ``check_invalid_character``: ``<``, ``>`` and ``"`` are not allowed in
    node names (its graphviz renderer broke on them; the graph is not shown)."""
    found = INVALID_CHARACTERS.intersection(name)
    if found:
        raise GraphBuildError(
            f"the graph has a node name with invalid characters {sorted(found)}: {name!r}"
        )


def join_name(scope: str, base: str) -> str:
    """``Node.create_node_name``: ``scope/base``, or ``base`` at the root."""
    return f"{scope}/{base}" if scope else base


def edge_attr(edge_type: str) -> EdgeAttr:
    """A new edge attribute as the parser creates it (shape and type filled in later)."""
    return {"shape": [], "edge_type": edge_type, "independent_layout": False, "data_type": ""}


#: MindInsight's ``DataType`` enum stops at 42 and calls 40 ``DT_ANYTHING``; MindSpore 2.x
#: writes 40 as ``DT_ANY`` and adds 43..49 (``DT_COMPLEX64`` ... ``DT_SLICE``), which
#: MindInsight's proto2 parser reads back as "not set".
MINDINSIGHT_LAST_DTYPE = 42
_MINDINSIGHT_RENAMED: dict[int, str] = {anf_ir_pb2.DT_ANY: "DT_ANYTHING"}


class TypeNames:
    """Data type names and output shapes of ``TypeProto`` values, either as MindInsight 2.3.1
    reads them (``extended=False``: the REST API answers as MindInsight does) or with MindSpore
    2.x's extended enum (``DT_SLICE``, ``DT_COMPLEX64``... shown by name)."""

    def __init__(self, extended: bool = False) -> None:
        self.extended = extended

    def known(self, value: int) -> bool:
        """Whether MindInsight's enum has ``value`` (always true when extended)."""
        return self.extended or 0 <= value <= MINDINSIGHT_LAST_DTYPE

    def name(self, value: int) -> str:
        """The enum name of ``value`` (``DT_UNDEFINED`` for what the reader cannot know)."""
        if not self.known(value):
            return "DT_UNDEFINED"
        if not self.extended and value in _MINDINSIGHT_RENAMED:
            return _MINDINSIGHT_RENAMED[value]
        try:
            return anf_ir_pb2.DataType.Name(value)
        except ValueError:
            return "DT_UNDEFINED"

    def data_type(self, type_proto: anf_ir_pb2.TypeProto) -> int:
        """``data_type`` as the reader sees it (0 when unset or unknown)."""
        value = type_proto.data_type
        return value if type_proto.HasField("data_type") and self.known(value) else 0

    def shape(self, type_proto: anf_ir_pb2.TypeProto) -> list[list[int]]:
        """Output shapes of a ``TypeProto`` (``_get_shape_by_parse_type_proto``): one list per
        output; a non-tensor, non-tuple type is one scalar output ``[[]]``; a tuple is the
        concatenation of its elements' shapes; an unset type has no output ``[]``."""
        value = type_proto.data_type
        if (
            type_proto.HasField("data_type")
            and self.known(value)
            and value not in (anf_ir_pb2.DT_TENSOR, anf_ir_pb2.DT_TUPLE)
        ):
            return [[]]
        shapes: list[list[int]] = []
        if type_proto.HasField("tensor_type"):
            shapes.append([dim.size for dim in type_proto.tensor_type.shape.dim])
        if type_proto.HasField("sequence_type"):
            for element in type_proto.sequence_type.elem_types:
                shapes.extend(self.shape(element))
        return shapes

    def text(self, type_proto: anf_ir_pb2.TypeProto) -> str:
        """Data type text of a ``TypeProto`` (``_get_data_type_by_parse_type_proto``):
        ``DT_TENSOR[DT_FLOAT32]``, ``DT_TUPLE['DT_TENSOR[DT_FLOAT32]', 'DT_INT64']`` or the
        plain enum name."""
        value = self.data_type(type_proto)
        name = self.name(value)
        if value == anf_ir_pb2.DT_TENSOR:
            return f"{name}[{self.name(type_proto.tensor_type.elem_type)}]"
        if value == anf_ir_pb2.DT_TUPLE:
            return f"{name}{[self.text(e) for e in type_proto.sequence_type.elem_types]!s}"
        return name


class ValueText:
    """A ``ValueProto`` shown as MindInsight's ``str(value)``: protobuf's text format with
    pure-Python float formatting (``1.0``, not ``1``); as MindInsight read it, data types it
    does not know are left out and 40 is ``DT_ANYTHING`` (unless ``extended``). Rendered on
    first use."""

    __slots__ = ("extended", "message")

    def __init__(self, message: Message, extended: bool = False) -> None:
        self.message = message
        self.extended = extended

    def __str__(self) -> str:
        message = self.message
        if not self.extended and _has_foreign_dtype(message):
            message = type(message).FromString(message.SerializeToString())
            _clear_foreign_dtypes(message)
        text = text_format.MessageToString(message)
        if not self.extended:
            text = _ANY_LINE.sub(r"\1DT_ANYTHING", text)
        return text


_ANY_LINE = re.compile(r"^(\s*\w+: )DT_ANY$", re.MULTILINE)


def _dtype_fields(message: Message) -> Iterator[tuple[Message, FieldDescriptor, Any]]:
    """(message, field, value) of every set field, depth first."""
    for field, value in message.ListFields():
        yield message, field, value
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            items = value if _is_repeated(field) else [value]
            for item in items:
                yield from _dtype_fields(item)


def _is_repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _is_foreign(field: FieldDescriptor, value: Any) -> bool:
    return (
        field.enum_type is not None
        and field.enum_type.name == "DataType"
        and not _is_repeated(field)
        and value > MINDINSIGHT_LAST_DTYPE
    )


def _has_foreign_dtype(message: Message) -> bool:
    return any(_is_foreign(field, value) for _, field, value in _dtype_fields(message))


def _clear_foreign_dtypes(message: Message) -> None:
    for owner, field, value in list(_dtype_fields(message)):
        if _is_foreign(field, value):
            owner.ClearField(field.name)


def has_dynamic_shape(attr: EdgeAttr) -> bool:
    """``Node.is_dynamic_shape_by_shape``: an edge whose shape has a -1 or -2 dimension."""
    return any(-1 in dims or -2 in dims for dims in attr.get("shape") or [])


class Node:
    """One graph node (MindInsight's ``Node``); attribute values are turned into their text
    form (``str(ValueProto)``) only when first shown."""

    __slots__ = (
        "attr",
        "full_name",
        "independent_layout",
        "inputs",
        "is_dynamic_shape_node",
        "name",
        "node_id",
        "output_data_type",
        "output_i",
        "output_shape",
        "outputs",
        "proxy_inputs",
        "proxy_outputs",
        "scope",
        "subnode_count",
        "topological_index",
        "type",
    )

    def __init__(
        self, name: str, node_id: str, full_name: str = "", topological_index: int = -1
    ) -> None:
        self.name = name
        self.node_id = node_id
        self.full_name = full_name
        self.topological_index = topological_index
        self.type = ""
        self.scope = ""
        self.is_dynamic_shape_node = False
        self.attr: dict[str, str | ValueText] = {}
        self.inputs: dict[str, EdgeAttr] = {}
        self.outputs: dict[str, EdgeAttr] = {}
        self.proxy_inputs: dict[str, EdgeAttr] = {}
        self.proxy_outputs: dict[str, EdgeAttr] = {}
        self.output_i = 0
        self.subnode_count = 0
        self.independent_layout = False
        self.output_shape: list[list[int]] = []
        self.output_data_type = ""

    def __repr__(self) -> str:
        return f"<Node {self.name} ({self.type})>"

    @property
    def is_scope(self) -> bool:
        return self.type in SCOPE_TYPES

    # -- edges (the dynamic-shape flag follows the shapes added, as ``add_inputs`` does) --
    def add_input(self, source: str, attr: EdgeAttr) -> None:
        if not self.is_dynamic_shape_node and has_dynamic_shape(attr):
            self.is_dynamic_shape_node = True
        self.inputs[source] = attr

    def add_output(self, target: str, attr: EdgeAttr) -> None:
        if not self.is_dynamic_shape_node and has_dynamic_shape(attr):
            self.is_dynamic_shape_node = True
        self.outputs[target] = attr

    def add_edge(self, kind: str, other: str, attr: EdgeAttr) -> None:
        """Add to ``inputs``, ``outputs``, ``proxy_inputs`` or ``proxy_outputs``."""
        if kind == "inputs":
            self.add_input(other, attr)
        elif kind == "outputs":
            self.add_output(other, attr)
        else:
            getattr(self, kind)[other] = attr

    def copy_as(self, name: str) -> Node:
        """``copy_node_without_input_output``: a copy named ``name`` (its id) with the same
        type, shape, attributes... and no edges."""
        node = Node(name, name, self.full_name)
        node.type = self.type
        node.output_i = self.output_i
        node.subnode_count = self.subnode_count
        node.scope = self.scope
        node.independent_layout = self.independent_layout
        node.output_shape = self.output_shape
        node.output_data_type = self.output_data_type
        node.attr.update(self.attr)
        return node

    def attributes(self) -> dict[str, str]:
        """Attribute texts (protobuf values rendered as MindInsight's ``str(value)``)."""
        for key, value in self.attr.items():
            if not isinstance(value, str):
                self.attr[key] = str(value)
        return self.attr  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        """The node as ``/graphs/nodes`` answers it (``Node.to_dict``, same key order)."""
        return {
            "name": self.name,
            "type": self.type,
            "is_dynamic_shape_node": self.is_dynamic_shape_node,
            "attr": dict(self.attributes()),
            "input": dict(self.inputs),
            "output": dict(self.outputs),
            "output_i": self.output_i,
            "proxy_input": dict(self.proxy_inputs),
            "proxy_output": dict(self.proxy_outputs),
            "subnode_count": self.subnode_count,
            "independent_layout": self.independent_layout,
            "stack_info": [],
        }
