"""Decode summary ``Event``, lineage ``LineageEvent`` and graph ``ModelProto`` payloads into plain
Python values (numpy arrays for tensors and histogram buckets).

What MindSpore 2.10 writes (``../shared/spec/file-format.md``):

* the first ``Event`` of a ``_MS`` file holds ``version``; a ``graph_def`` Event never sets
  ``step``;
* a data Event holds every value added since the previous ``record(step)``: ``scalar_value``
  (float32), ``image`` (PNG canvas), ``histogram``, ``tensor`` (every dtype flattened into the
  float32 ``float_data``, original dtype in ``data_type``) or ``loss_landscape``;
* a ``_lineage`` file holds one ``LineageEvent`` per lineage item (train, eval, dataset graph,
  user-defined info).

Decoding never trusts the bytes: anything protobuf refuses, or a tensor whose value count does
not match its dims, raises :class:`DecodeError` with a readable reason.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import numpy as np
from google.protobuf.message import DecodeError as _ProtoDecodeError
from google.protobuf.message import Message

from dash_insight.core.format.protos import anf_ir_pb2, lineage_pb2, summary_pb2
from dash_insight.core.vocabulary import PluginName

#: ``Summary.Value`` oneof field -> the kind of value it holds (plain ``str`` values: they end up
#: in the index, whose pickles must not reference the enum class).
VALUE_FIELD_PLUGIN: dict[str, str] = {
    "scalar_value": PluginName.SCALAR.value,
    "image": PluginName.IMAGE.value,
    "histogram": PluginName.HISTOGRAM.value,
    "tensor": PluginName.TENSOR.value,
    "loss_landscape": PluginName.LOSS_LANDSCAPE.value,
}

DataType = anf_ir_pb2.DataType

#: numpy dtype each ``DataType`` is cast back to. numpy has no bfloat16 or int4: those widen to
#: float32 / int8, which holds every value they can take.
NUMPY_DTYPES: dict[int, np.dtype] = {
    DataType.Value("DT_BOOL"): np.dtype(np.bool_),
    DataType.Value("DT_INT8"): np.dtype(np.int8),
    DataType.Value("DT_INT16"): np.dtype(np.int16),
    DataType.Value("DT_INT32"): np.dtype(np.int32),
    DataType.Value("DT_INT64"): np.dtype(np.int64),
    DataType.Value("DT_UINT8"): np.dtype(np.uint8),
    DataType.Value("DT_UINT16"): np.dtype(np.uint16),
    DataType.Value("DT_UINT32"): np.dtype(np.uint32),
    DataType.Value("DT_UINT64"): np.dtype(np.uint64),
    DataType.Value("DT_FLOAT16"): np.dtype(np.float16),
    DataType.Value("DT_FLOAT32"): np.dtype(np.float32),
    DataType.Value("DT_FLOAT64"): np.dtype(np.float64),
    DataType.Value("DT_BFLOAT16"): np.dtype(np.float32),
    DataType.Value("DT_INT4"): np.dtype(np.int8),
    DataType.Value("DT_COMPLEX64"): np.dtype(np.complex64),
    DataType.Value("DT_COMPLEX128"): np.dtype(np.complex128),
}

#: The reverse map used by the writer (numpy dtype -> DataType), as MindSpore's
#: ``_nptype_to_prototype`` does.
DATATYPE_OF_NUMPY: dict[np.dtype, int] = {
    np.dtype(np.bool_): DataType.Value("DT_BOOL"),
    np.dtype(np.int8): DataType.Value("DT_INT8"),
    np.dtype(np.int16): DataType.Value("DT_INT16"),
    np.dtype(np.int32): DataType.Value("DT_INT32"),
    np.dtype(np.int64): DataType.Value("DT_INT64"),
    np.dtype(np.uint8): DataType.Value("DT_UINT8"),
    np.dtype(np.uint16): DataType.Value("DT_UINT16"),
    np.dtype(np.uint32): DataType.Value("DT_UINT32"),
    np.dtype(np.uint64): DataType.Value("DT_UINT64"),
    np.dtype(np.float16): DataType.Value("DT_FLOAT16"),
    np.dtype(np.float32): DataType.Value("DT_FLOAT32"),
    np.dtype(np.float64): DataType.Value("DT_FLOAT64"),
}


class DecodeError(ValueError):
    """A payload or value that cannot be decoded; the message says why."""


def data_type_name(data_type: int) -> str:
    """``DataType`` number -> its name (``11 -> "DT_FLOAT32"``); unknown numbers kept visible."""
    try:
        return DataType.Name(data_type)
    except ValueError:
        return f"DT_UNKNOWN_{data_type}"


@dataclass(frozen=True)
class ImageValue:
    """An encoded image (PNG from MindSpore) with the canvas size from the proto."""

    height: int
    width: int
    colorspace: int
    encoded: bytes


@dataclass(frozen=True)
class HistogramValue:
    """Histogram as written: ``buckets`` is an ``(n, 3)`` float64 array of (left, width, count),
    sorted by ``left``. ``count`` includes NaN/inf; min/max/sum cover finite values only."""

    buckets: np.ndarray
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int
    max: float
    min: float
    sum: float
    count: int


@dataclass(frozen=True)
class TensorValue:
    """A tensor cast back to its original dtype, shaped by ``dims``."""

    array: np.ndarray
    data_type: str

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.array.shape)


@dataclass(frozen=True)
class LossLandscapeValue:
    """A loss landscape as MindSpore 2.10's ``SummaryLandscape`` writes it: ``landscape`` x [N],
    y [M], z [M, N] (rows follow y), ``loss_path_intervals`` (empty for the final landscape),
    ``loss_path_points`` x/y/z [k], ``metadata`` (decomposition, unit, step_per_epoch) and
    ``convergence_point`` x/y/z [1]. Every array is float64 (see :func:`landscape_array`)."""

    landscape: dict[str, np.ndarray]
    loss_path_intervals: list[int]
    loss_path_points: dict[str, np.ndarray]
    metadata: dict[str, Any]
    convergence_point: dict[str, np.ndarray]


SummaryPayload = float | ImageValue | HistogramValue | TensorValue | LossLandscapeValue


@dataclass(frozen=True)
class SummaryValue:
    """One ``Summary.Value``: its tag as written, its plugin and the decoded value."""

    tag: str
    plugin: str
    value: SummaryPayload


@dataclass(frozen=True)
class SummaryEvent:
    """One decoded ``Event``; exactly one of version / graph / values / explain is meaningful."""

    wall_time: float
    step: int
    version: str | None = None
    graph: anf_ir_pb2.GraphProto | None = None
    values: tuple[SummaryValue, ...] = ()
    explain: bool = False
    errors: tuple[str, ...] = field(default=())  # values that could not be decoded


MessageT = TypeVar("MessageT", bound=Message)


def from_buffer(message_type: type[MessageT], payload: bytes | memoryview) -> MessageT:
    """``message_type.FromString(payload)``: upb parses any buffer in place, so a memoryview
    of a record is parsed without a copy (the protobuf stubs only name ``bytes``)."""
    return message_type.FromString(cast(bytes, payload))


def parse_event(payload: bytes | memoryview) -> summary_pb2.Event:
    """Parse an ``Event`` payload with the C (upb) protobuf backend; :class:`DecodeError` if bad."""
    try:
        return from_buffer(summary_pb2.Event, payload)
    except (_ProtoDecodeError, RuntimeError) as error:
        raise DecodeError(f"not a summary Event: {error}") from None


def tensor_to_numpy(tensor: anf_ir_pb2.TensorProto) -> np.ndarray:
    """Values of a ``TensorProto`` as an array of its original dtype, shaped by ``dims``.

    MindSpore stores every element in ``float_data`` whatever the dtype; other data fields are
    read when ``float_data`` is empty (files from other writers). Float values of a bool or
    integer tensor are exact (float32 holds every int up to 2**24, which covers bool/int8/16 and
    the int32 values people record), so casting back restores them. When a stored float does
    not fit the integer dtype (int32 2147483647 is stored as float32 2147483648.0, uint64's
    maximum as 2**64), the tensor keeps its floats, as MindInsight shows it (it never casts
    back): a wrapped-around -2147483648 would be a wrong value.
    """
    dims = tuple(int(d) for d in tensor.dims)
    if any(d < 0 for d in dims):
        raise DecodeError(f"tensor has negative dims {list(dims)}")
    dtype = NUMPY_DTYPES.get(tensor.data_type, np.dtype(np.float32))
    if len(tensor.float_data):
        flat = np.array(tensor.float_data, dtype=np.float32)
    elif len(tensor.double_data):
        flat = np.array(tensor.double_data, dtype=np.float64)
    elif len(tensor.int32_data):
        flat = np.array(tensor.int32_data, dtype=np.int32)
    elif len(tensor.int64_data):
        flat = np.array(tensor.int64_data, dtype=np.int64)
    elif len(tensor.uint64_data):
        flat = np.array(tensor.uint64_data, dtype=np.uint64)
    elif tensor.raw_data:
        raw = tensor.raw_data
        if len(raw) % dtype.itemsize:
            raise DecodeError(
                f"tensor raw_data of {len(raw)} bytes is not a whole number of {dtype.name} values"
            )
        flat = np.frombuffer(raw, dtype=dtype.newbyteorder("<"))
    else:
        flat = np.zeros(0, dtype=np.float32)
    expected = math.prod(dims)
    if flat.size != expected:
        raise DecodeError(f"tensor holds {flat.size} values but dims {list(dims)} need {expected}")
    if dtype == np.bool_:
        flat = flat != 0
    elif flat.dtype != dtype:
        flat = _cast_back(flat, dtype)
    return flat.reshape(dims)


def _cast_back(flat: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``flat`` as ``dtype`` when every value converts exactly; else ``flat`` unchanged."""
    if dtype.kind in "iu" and flat.size:
        info = np.iinfo(dtype)
        low, high = float(flat.min()), float(flat.max())  # NaN fails every comparison
        # float(info.max) rounds up to 2**31, 2**63, ... for the wide types: compare below it.
        if not (
            low >= info.min and high < float(info.max) + 1 and np.array_equal(flat, np.trunc(flat))
        ):
            return flat
    with np.errstate(invalid="ignore", over="ignore"):
        return flat.astype(dtype)


def histogram_value(histogram: summary_pb2.Summary.Histogram) -> HistogramValue:
    """Plain form of a ``Summary.Histogram``; buckets sorted by their left edge."""
    buckets = np.array(
        [(b.left, b.width, b.count) for b in histogram.buckets], dtype=np.float64
    ).reshape(-1, 3)
    if len(buckets) > 1:
        buckets = buckets[np.argsort(buckets[:, 0], kind="stable")]
    return HistogramValue(
        buckets=buckets,
        nan_count=histogram.nan_count,
        pos_inf_count=histogram.pos_inf_count,
        neg_inf_count=histogram.neg_inf_count,
        max=histogram.max,
        min=histogram.min,
        sum=histogram.sum,
        count=histogram.count,
    )


def landscape_array(tensor: anf_ir_pb2.TensorProto) -> np.ndarray:
    """A landscape tensor as float64, shaped by ``dims``, from its ``float_data`` whatever
    ``data_type`` says: MindSpore writes the PCA convergence point's x/y as DT_INT64 and z as
    DT_FLOAT64, and MindInsight reads them all as ``np.array(float_data).reshape(dims)``
    (``tensor_container.py``), so ``0`` comes out as ``0.0``. Other writers' data fields are
    read as :func:`tensor_to_numpy` reads them."""
    if len(tensor.float_data):
        dims = tuple(int(d) for d in tensor.dims)
        flat = np.array(tensor.float_data, dtype=np.float32).astype(np.float64)
        if any(d < 0 for d in dims) or flat.size != math.prod(dims):
            raise DecodeError(
                f"tensor holds {flat.size} values but dims {list(dims)} need {math.prod(dims)}"
            )
        return flat.reshape(dims)
    array = tensor_to_numpy(tensor)
    return np.asarray(array.real if np.iscomplexobj(array) else array, dtype=np.float64)


def _point(point: summary_pb2.LossLandscape.Point) -> dict[str, np.ndarray]:
    return {
        axis: landscape_array(getattr(point, axis))
        for axis in ("x", "y", "z")
        if point.HasField(axis)
    }


def loss_landscape_value(landscape: summary_pb2.LossLandscape) -> LossLandscapeValue:
    """Plain form of a ``LossLandscape``."""
    return LossLandscapeValue(
        landscape=_point(landscape.landscape),
        loss_path_intervals=list(landscape.loss_path.intervals),
        loss_path_points=_point(landscape.loss_path.points),
        metadata=proto_to_dict(landscape.metadata),
        convergence_point=_point(landscape.convergence_point),
    )


def decode_value(value: summary_pb2.Summary.Value) -> SummaryValue:
    """Decode one ``Summary.Value``; :class:`DecodeError` for an empty or undecodable value."""
    kind = value.WhichOneof("value")
    if kind is None:
        raise DecodeError(f"value {value.tag!r} holds no data")
    plugin = VALUE_FIELD_PLUGIN[kind]
    payload: SummaryPayload
    if kind == "scalar_value":
        payload = value.scalar_value
    elif kind == "image":
        image = value.image
        payload = ImageValue(image.height, image.width, image.colorspace, image.encoded_image)
    elif kind == "histogram":
        payload = histogram_value(value.histogram)
    elif kind == "tensor":
        payload = TensorValue(tensor_to_numpy(value.tensor), data_type_name(value.tensor.data_type))
    else:
        payload = loss_landscape_value(value.loss_landscape)
    return SummaryValue(value.tag, plugin, payload)


def decode_event(payload: bytes | memoryview) -> SummaryEvent:
    """Decode a whole ``Event``. A value that cannot be decoded is left out and described in
    :attr:`SummaryEvent.errors`; the other values of the Event are kept."""
    event = parse_event(payload)
    kind = event.WhichOneof("what")
    if kind == "version":
        return SummaryEvent(event.wall_time, event.step, version=event.version)
    if kind == "graph_def":
        return SummaryEvent(event.wall_time, event.step, graph=event.graph_def)
    if kind == "explain":
        return SummaryEvent(event.wall_time, event.step, explain=True)
    values: list[SummaryValue] = []
    errors: list[str] = []
    for value in event.summary.value:
        try:
            values.append(decode_value(value))
        except DecodeError as error:
            errors.append(f"tag {value.tag!r}: {error}")
    return SummaryEvent(event.wall_time, event.step, values=tuple(values), errors=tuple(errors))


def decode_value_at(payload: bytes | memoryview, index: int) -> SummaryValue:
    """Decode only the ``index``-th value of an Event (lazy access to one large value)."""
    event = parse_event(payload)
    values = event.summary.value
    if event.WhichOneof("what") != "summary" or not 0 <= index < len(values):
        raise DecodeError(f"event has no value #{index}")
    return decode_value(values[index])


# --- generic proto -> dict ---------------------------------------------------------------------


def proto_to_dict(message: Message) -> dict[str, Any]:
    """Set fields of ``message`` as a dict of plain Python values (int64 stays int, unlike
    ``MessageToDict``); maps become dicts, repeated fields lists, enums their numbers."""
    out: dict[str, Any] = {}
    for descriptor, value in message.ListFields():
        message_type = descriptor.message_type
        if message_type is not None and message_type.GetOptions().map_entry:
            value_type = message_type.fields_by_name["value"].message_type
            out[descriptor.name] = {
                key: proto_to_dict(item) if value_type is not None else item
                for key, item in value.items()
            }
        elif descriptor.is_repeated:
            out[descriptor.name] = [
                proto_to_dict(item) if message_type is not None else item for item in value
            ]
        elif message_type is not None:
            out[descriptor.name] = proto_to_dict(value)
        else:
            out[descriptor.name] = value
    return out


# --- lineage ------------------------------------------------------------------------------------

LINEAGE_TRAIN = "train_lineage"
LINEAGE_EVAL = "evaluation_lineage"
LINEAGE_DATASET_GRAPH = "dataset_graph"
LINEAGE_USER_DEFINED = "user_defined_info"


@dataclass(frozen=True)
class DecodedLineage:
    """One ``LineageEvent``: ``kind`` is its oneof field name, ``data`` its plain contents."""

    wall_time: float
    kind: str
    data: dict[str, Any]


def user_defined_to_dict(info: lineage_pb2.UserDefinedInfo) -> dict[str, Any]:
    """Flatten ``UserDefinedInfo`` as MindInsight does: every ``user_info`` entry and map entry
    becomes one key; ``map_dict`` values are nested dicts."""
    out: dict[str, Any] = {}
    for item in info.user_info:
        out.update(user_defined_to_dict(item))
    for key, nested in info.map_dict.items():
        out[key] = user_defined_to_dict(nested)
    for mapping in (info.map_int32, info.map_str, info.map_double):
        out.update(dict(mapping.items()))
    return out


def _operation_parameter(parameter: lineage_pb2.OperationParameter) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mapping in (parameter.mapStr, parameter.mapBool, parameter.mapInt, parameter.mapDouble):
        for key, value in mapping.items():
            out[key] = None if value == "None" else value
    for key, str_list in parameter.mapStrList.items():
        out[key] = [None if item == "" else item for item in str_list.strValue]
    return out


def _operation(operation: lineage_pb2.Operation) -> dict[str, Any]:
    out = _operation_parameter(operation.operationParam)
    if len(operation.size):
        out["size"] = list(operation.size)
    if len(operation.weights):
        out["weights"] = list(operation.weights)
    return out


def dataset_graph_to_dict(graph: lineage_pb2.DatasetGraph) -> dict[str, Any]:
    """The pipeline as nested dicts, MindInsight's ``organize_graph`` form: a node's parameters
    at top level (``"None"`` -> None; string-list elements ``""`` -> None, others verbatim),
    ``operations`` as a list of dicts, ``sampler`` when present, ``children`` always."""
    node = _operation_parameter(graph.parameter)
    if len(graph.operations):
        node["operations"] = [_operation(op) for op in graph.operations]
    if graph.HasField("sampler"):
        sampler = _operation(graph.sampler)
        if sampler:
            node["sampler"] = sampler
    node["children"] = [dataset_graph_to_dict(child) for child in graph.children]
    return node


def decode_lineage_event(payload: bytes | memoryview) -> DecodedLineage:
    """Decode one ``LineageEvent``; the eval ``metric`` JSON string is decoded into a dict
    (``{}`` when unset, as MindInsight; left as text if it is not valid JSON)."""
    try:
        event = from_buffer(lineage_pb2.LineageEvent, payload)
    except (_ProtoDecodeError, RuntimeError) as error:
        raise DecodeError(f"not a LineageEvent: {error}") from None
    kind = event.WhichOneof("what")
    if kind is None:
        raise DecodeError("lineage event holds no data")
    data: dict[str, Any]
    if kind == LINEAGE_USER_DEFINED:
        data = user_defined_to_dict(event.user_defined_info)
    elif kind == LINEAGE_DATASET_GRAPH:
        data = dataset_graph_to_dict(event.dataset_graph)
    elif kind == "version":
        data = {"version": event.version}
    else:
        data = proto_to_dict(getattr(event, kind))
        if kind == LINEAGE_EVAL:
            metric = data.get("metric", "")
            try:
                data["metric"] = json.loads(metric) if metric else {}
            except json.JSONDecodeError:
                data["metric"] = metric
    return DecodedLineage(event.wall_time, kind, data)


# --- graph .pb files ----------------------------------------------------------------------------


def decode_model_proto(data: bytes) -> anf_ir_pb2.GraphProto:
    """The graph of a bare serialized ``ModelProto`` (a ``.pb`` file, not framed)."""
    try:
        model = anf_ir_pb2.ModelProto.FromString(data)
    except (_ProtoDecodeError, RuntimeError) as error:
        raise DecodeError(f"not a MindSpore ModelProto: {error}") from None
    if not model.HasField("graph"):
        raise DecodeError("ModelProto holds no graph")
    return model.graph
