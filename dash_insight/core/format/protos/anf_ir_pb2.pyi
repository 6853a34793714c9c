from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Version(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWWN_VERSION: _ClassVar[Version]
    IR_VERSION: _ClassVar[Version]

class DataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DT_UNDEFINED: _ClassVar[DataType]
    DT_BOOL: _ClassVar[DataType]
    DT_INT8: _ClassVar[DataType]
    DT_INT16: _ClassVar[DataType]
    DT_INT32: _ClassVar[DataType]
    DT_INT64: _ClassVar[DataType]
    DT_UINT8: _ClassVar[DataType]
    DT_UINT16: _ClassVar[DataType]
    DT_UINT32: _ClassVar[DataType]
    DT_UINT64: _ClassVar[DataType]
    DT_FLOAT16: _ClassVar[DataType]
    DT_FLOAT32: _ClassVar[DataType]
    DT_FLOAT64: _ClassVar[DataType]
    DT_STRING: _ClassVar[DataType]
    DT_TENSOR: _ClassVar[DataType]
    DT_GRAPH: _ClassVar[DataType]
    DT_BOOLS: _ClassVar[DataType]
    DT_INTS8: _ClassVar[DataType]
    DT_INTS16: _ClassVar[DataType]
    DT_INTS32: _ClassVar[DataType]
    DT_INTS64: _ClassVar[DataType]
    DT_UINTS8: _ClassVar[DataType]
    DT_UINTS16: _ClassVar[DataType]
    DT_UINTS32: _ClassVar[DataType]
    DT_UINTS64: _ClassVar[DataType]
    DT_FLOATS16: _ClassVar[DataType]
    DT_FLOATS32: _ClassVar[DataType]
    DT_FLOATS64: _ClassVar[DataType]
    DT_STRINGS: _ClassVar[DataType]
    DT_TENSORS: _ClassVar[DataType]
    DT_GRAPHS: _ClassVar[DataType]
    DT_TUPLE: _ClassVar[DataType]
    DT_LIST: _ClassVar[DataType]
    DT_DICT: _ClassVar[DataType]
    DT_NONE: _ClassVar[DataType]
    DT_SYM_INST: _ClassVar[DataType]
    DT_BASE_INT: _ClassVar[DataType]
    DT_BASE_UINT: _ClassVar[DataType]
    DT_BASE_FLOAT: _ClassVar[DataType]
    DT_TYPE: _ClassVar[DataType]
    DT_ANY: _ClassVar[DataType]
    DT_REFKEY: _ClassVar[DataType]
    DT_REF: _ClassVar[DataType]
    DT_COMPLEX64: _ClassVar[DataType]
    DT_COMPLEX128: _ClassVar[DataType]
    DT_BASE_COMPLEX: _ClassVar[DataType]
    DT_BFLOAT16: _ClassVar[DataType]
    DT_BFLOATS16: _ClassVar[DataType]
    DT_INT4: _ClassVar[DataType]
    DT_SLICE: _ClassVar[DataType]
UNKNOWWN_VERSION: Version
IR_VERSION: Version
DT_UNDEFINED: DataType
DT_BOOL: DataType
DT_INT8: DataType
DT_INT16: DataType
DT_INT32: DataType
DT_INT64: DataType
DT_UINT8: DataType
DT_UINT16: DataType
DT_UINT32: DataType
DT_UINT64: DataType
DT_FLOAT16: DataType
DT_FLOAT32: DataType
DT_FLOAT64: DataType
DT_STRING: DataType
DT_TENSOR: DataType
DT_GRAPH: DataType
DT_BOOLS: DataType
DT_INTS8: DataType
DT_INTS16: DataType
DT_INTS32: DataType
DT_INTS64: DataType
DT_UINTS8: DataType
DT_UINTS16: DataType
DT_UINTS32: DataType
DT_UINTS64: DataType
DT_FLOATS16: DataType
DT_FLOATS32: DataType
DT_FLOATS64: DataType
DT_STRINGS: DataType
DT_TENSORS: DataType
DT_GRAPHS: DataType
DT_TUPLE: DataType
DT_LIST: DataType
DT_DICT: DataType
DT_NONE: DataType
DT_SYM_INST: DataType
DT_BASE_INT: DataType
DT_BASE_UINT: DataType
DT_BASE_FLOAT: DataType
DT_TYPE: DataType
DT_ANY: DataType
DT_REFKEY: DataType
DT_REF: DataType
DT_COMPLEX64: DataType
DT_COMPLEX128: DataType
DT_BASE_COMPLEX: DataType
DT_BFLOAT16: DataType
DT_BFLOATS16: DataType
DT_INT4: DataType
DT_SLICE: DataType

class ValueProto(_message.Message):
    __slots__ = ("dtype", "bool_val", "int_val", "uint_val", "float_val", "double_val", "str_val", "tensor_val", "graph", "bool_vals", "int_vals", "uint_vals", "float_vals", "double_vals", "str_vals", "tensor_vals", "graphs", "values", "dict_val", "type_val")
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VAL_FIELD_NUMBER: _ClassVar[int]
    INT_VAL_FIELD_NUMBER: _ClassVar[int]
    UINT_VAL_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VAL_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_VAL_FIELD_NUMBER: _ClassVar[int]
    STR_VAL_FIELD_NUMBER: _ClassVar[int]
    TENSOR_VAL_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALS_FIELD_NUMBER: _ClassVar[int]
    INT_VALS_FIELD_NUMBER: _ClassVar[int]
    UINT_VALS_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VALS_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_VALS_FIELD_NUMBER: _ClassVar[int]
    STR_VALS_FIELD_NUMBER: _ClassVar[int]
    TENSOR_VALS_FIELD_NUMBER: _ClassVar[int]
    GRAPHS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    DICT_VAL_FIELD_NUMBER: _ClassVar[int]
    TYPE_VAL_FIELD_NUMBER: _ClassVar[int]
    dtype: DataType
    bool_val: bool
    int_val: int
    uint_val: int
    float_val: float
    double_val: float
    str_val: str
    tensor_val: TensorProto
    graph: GraphProto
    bool_vals: _containers.RepeatedScalarFieldContainer[bool]
    int_vals: _containers.RepeatedScalarFieldContainer[int]
    uint_vals: _containers.RepeatedScalarFieldContainer[int]
    float_vals: _containers.RepeatedScalarFieldContainer[float]
    double_vals: _containers.RepeatedScalarFieldContainer[float]
    str_vals: _containers.RepeatedScalarFieldContainer[str]
    tensor_vals: _containers.RepeatedCompositeFieldContainer[TensorProto]
    graphs: _containers.RepeatedCompositeFieldContainer[GraphProto]
    values: _containers.RepeatedCompositeFieldContainer[ValueProto]
    dict_val: _containers.RepeatedCompositeFieldContainer[NamedValueProto]
    type_val: TypeProto
    def __init__(self, dtype: _Optional[_Union[DataType, str]] = ..., bool_val: _Optional[bool] = ..., int_val: _Optional[int] = ..., uint_val: _Optional[int] = ..., float_val: _Optional[float] = ..., double_val: _Optional[float] = ..., str_val: _Optional[str] = ..., tensor_val: _Optional[_Union[TensorProto, _Mapping]] = ..., graph: _Optional[_Union[GraphProto, _Mapping]] = ..., bool_vals: _Optional[_Iterable[bool]] = ..., int_vals: _Optional[_Iterable[int]] = ..., uint_vals: _Optional[_Iterable[int]] = ..., float_vals: _Optional[_Iterable[float]] = ..., double_vals: _Optional[_Iterable[float]] = ..., str_vals: _Optional[_Iterable[str]] = ..., tensor_vals: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., graphs: _Optional[_Iterable[_Union[GraphProto, _Mapping]]] = ..., values: _Optional[_Iterable[_Union[ValueProto, _Mapping]]] = ..., dict_val: _Optional[_Iterable[_Union[NamedValueProto, _Mapping]]] = ..., type_val: _Optional[_Union[TypeProto, _Mapping]] = ...) -> None: ...

class AttributeProto(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: ValueProto
    def __init__(self, name: _Optional[str] = ..., value: _Optional[_Union[ValueProto, _Mapping]] = ...) -> None: ...

class NamedValueProto(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: ValueProto
    def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ValueProto, _Mapping]] = ...) -> None: ...

class TensorShapeProto(_message.Message):
    __slots__ = ("dim",)
    class Dimension(_message.Message):
        __slots__ = ("size", "name")
        SIZE_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        size: int
        name: str
        def __init__(self, size: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
    DIM_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedCompositeFieldContainer[TensorShapeProto.Dimension]
    def __init__(self, dim: _Optional[_Iterable[_Union[TensorShapeProto.Dimension, _Mapping]]] = ...) -> None: ...

class TypeProto(_message.Message):
    __slots__ = ("data_type", "tensor_type", "sequence_type")
    class Tensor(_message.Message):
        __slots__ = ("elem_type", "shape")
        ELEM_TYPE_FIELD_NUMBER: _ClassVar[int]
        SHAPE_FIELD_NUMBER: _ClassVar[int]
        elem_type: DataType
        shape: TensorShapeProto
        def __init__(self, elem_type: _Optional[_Union[DataType, str]] = ..., shape: _Optional[_Union[TensorShapeProto, _Mapping]] = ...) -> None: ...
    class Sequence(_message.Message):
        __slots__ = ("elem_types",)
        ELEM_TYPES_FIELD_NUMBER: _ClassVar[int]
        elem_types: _containers.RepeatedCompositeFieldContainer[TypeProto]
        def __init__(self, elem_types: _Optional[_Iterable[_Union[TypeProto, _Mapping]]] = ...) -> None: ...
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_TYPE_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    data_type: DataType
    tensor_type: TypeProto.Tensor
    sequence_type: TypeProto.Sequence
    def __init__(self, data_type: _Optional[_Union[DataType, str]] = ..., tensor_type: _Optional[_Union[TypeProto.Tensor, _Mapping]] = ..., sequence_type: _Optional[_Union[TypeProto.Sequence, _Mapping]] = ...) -> None: ...

class ParameterProto(_message.Message):
    __slots__ = ("name", "type", "default_val")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VAL_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: TypeProto
    default_val: ValueProto
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[TypeProto, _Mapping]] = ..., default_val: _Optional[_Union[ValueProto, _Mapping]] = ...) -> None: ...

class OutputProto(_message.Message):
    __slots__ = ("name", "type")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: TypeProto
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[TypeProto, _Mapping]] = ...) -> None: ...

class InputProto(_message.Message):
    __slots__ = ("name", "type")
    class EdgeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DATA_EDGE: _ClassVar[InputProto.EdgeType]
        CONTROL_EDGE: _ClassVar[InputProto.EdgeType]
    DATA_EDGE: InputProto.EdgeType
    CONTROL_EDGE: InputProto.EdgeType
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: InputProto.EdgeType
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[InputProto.EdgeType, str]] = ...) -> None: ...

class NodeProto(_message.Message):
    __slots__ = ("input", "name", "op_type", "scope", "attribute", "output_type", "output_i", "full_name", "instance_name")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TYPE_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_I_FIELD_NUMBER: _ClassVar[int]
    FULL_NAME_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_NAME_FIELD_NUMBER: _ClassVar[int]
    input: _containers.RepeatedCompositeFieldContainer[InputProto]
    name: str
    op_type: str
    scope: str
    attribute: _containers.RepeatedCompositeFieldContainer[AttributeProto]
    output_type: TypeProto
    output_i: int
    full_name: str
    instance_name: str
    def __init__(self, input: _Optional[_Iterable[_Union[InputProto, _Mapping]]] = ..., name: _Optional[str] = ..., op_type: _Optional[str] = ..., scope: _Optional[str] = ..., attribute: _Optional[_Iterable[_Union[AttributeProto, _Mapping]]] = ..., output_type: _Optional[_Union[TypeProto, _Mapping]] = ..., output_i: _Optional[int] = ..., full_name: _Optional[str] = ..., instance_name: _Optional[str] = ...) -> None: ...

class ModelProto(_message.Message):
    __slots__ = ("ir_version", "domain", "model_version", "graph", "metadata_operators")
    IR_VERSION_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    MODEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    METADATA_OPERATORS_FIELD_NUMBER: _ClassVar[int]
    ir_version: int
    domain: str
    model_version: int
    graph: GraphProto
    metadata_operators: OperatorSetProto
    def __init__(self, ir_version: _Optional[int] = ..., domain: _Optional[str] = ..., model_version: _Optional[int] = ..., graph: _Optional[_Union[GraphProto, _Mapping]] = ..., metadata_operators: _Optional[_Union[OperatorSetProto, _Mapping]] = ...) -> None: ...

class OperatorProto(_message.Message):
    __slots__ = ("name", "config", "obj_info")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    OBJ_INFO_FIELD_NUMBER: _ClassVar[int]
    name: str
    config: bytes
    obj_info: bytes
    def __init__(self, name: _Optional[str] = ..., config: _Optional[bytes] = ..., obj_info: _Optional[bytes] = ...) -> None: ...

class OperatorSetProto(_message.Message):
    __slots__ = ("operators", "summary")
    OPERATORS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    operators: _containers.RepeatedCompositeFieldContainer[OperatorProto]
    summary: str
    def __init__(self, operators: _Optional[_Iterable[_Union[OperatorProto, _Mapping]]] = ..., summary: _Optional[str] = ...) -> None: ...

class GraphProto(_message.Message):
    __slots__ = ("node", "name", "parameters", "outputs", "const_vals")
    NODE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    CONST_VALS_FIELD_NUMBER: _ClassVar[int]
    node: _containers.RepeatedCompositeFieldContainer[NodeProto]
    name: str
    parameters: _containers.RepeatedCompositeFieldContainer[ParameterProto]
    outputs: _containers.RepeatedCompositeFieldContainer[OutputProto]
    const_vals: _containers.RepeatedCompositeFieldContainer[NamedValueProto]
    def __init__(self, node: _Optional[_Iterable[_Union[NodeProto, _Mapping]]] = ..., name: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[ParameterProto, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[OutputProto, _Mapping]]] = ..., const_vals: _Optional[_Iterable[_Union[NamedValueProto, _Mapping]]] = ...) -> None: ...

class TensorProto(_message.Message):
    __slots__ = ("dims", "data_type", "float_data", "int32_data", "int64_data", "double_data", "uint64_data", "raw_data")
    DIMS_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FLOAT_DATA_FIELD_NUMBER: _ClassVar[int]
    INT32_DATA_FIELD_NUMBER: _ClassVar[int]
    INT64_DATA_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_DATA_FIELD_NUMBER: _ClassVar[int]
    UINT64_DATA_FIELD_NUMBER: _ClassVar[int]
    RAW_DATA_FIELD_NUMBER: _ClassVar[int]
    dims: _containers.RepeatedScalarFieldContainer[int]
    data_type: DataType
    float_data: _containers.RepeatedScalarFieldContainer[float]
    int32_data: _containers.RepeatedScalarFieldContainer[int]
    int64_data: _containers.RepeatedScalarFieldContainer[int]
    double_data: _containers.RepeatedScalarFieldContainer[float]
    uint64_data: _containers.RepeatedScalarFieldContainer[int]
    raw_data: bytes
    def __init__(self, dims: _Optional[_Iterable[int]] = ..., data_type: _Optional[_Union[DataType, str]] = ..., float_data: _Optional[_Iterable[float]] = ..., int32_data: _Optional[_Iterable[int]] = ..., int64_data: _Optional[_Iterable[int]] = ..., double_data: _Optional[_Iterable[float]] = ..., uint64_data: _Optional[_Iterable[int]] = ..., raw_data: _Optional[bytes] = ...) -> None: ...
