"""``SummaryWriter``: write MindSpore-compatible summary and lineage files without MindSpore.

Output semantics follow MindSpore 2.10's ``SummaryRecord`` (``mindspore/train/summary/``):

* file names ``{prefix}.out.events.summary.{unix seconds}.{device id}.{host}{suffix}`` (suffix
  ``_MS``) and the same name with ``_lineage`` for lineage; files are created on the first
  record routed to them, and a summary file starts with ``Event{version: "MindSpore.Event:1"}``;
* every value added since the previous ``record(step)`` goes into ONE ``Event{wall_time, step,
  summary}``, grouped by plugin (plugins in the order first added); a graph goes into its own
  ``Event{wall_time, graph_def}`` without step;
* scalars are float32 (first element of a larger array); images are 4-D NCHW with C in {1, 3},
  tiled 8 per row, 1 channel repeated to 3, values all in [0, 1] scaled by 255, others (uint8
  too) mapped linearly to [0, 255), cast to uint8, PNG-encoded; histograms use MindSpore's bin
  rule and edges; tensors store every element in ``float_data`` with the original
  ``data_type``;
* lineage items are ``LineageEvent`` records of their own, without step.

Two deliberate differences: a file name that already exists is never overwritten (MindSpore
truncates it when two sessions start in the same second; we move to the next free second), and
files are not made read-only on close.
"""

from __future__ import annotations

import json
import math
import os
import platform
import struct
import time
import warnings
import zlib
from collections.abc import Mapping
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np
from google.protobuf.message import Message

from dash_insight.core.format.events import DATATYPE_OF_NUMPY
from dash_insight.core.format.files import LINEAGE_SUFFIX, summary_file_name
from dash_insight.core.format.framing import frame_record
from dash_insight.core.format.protos import anf_ir_pb2, lineage_pb2, summary_pb2
from dash_insight.core.vocabulary import PluginName

EVENT_VERSION = "MindSpore.Event:1"
_DATA_PLUGINS = (PluginName.SCALAR, PluginName.IMAGE, PluginName.HISTOGRAM, PluginName.TENSOR)
_LINEAGE_PLUGINS = ("train_lineage", "eval_lineage", "dataset_graph", "custom_lineage_data")
_LINEAGE_FIELDS = {
    "train_lineage": "train_lineage",
    "eval_lineage": "evaluation_lineage",
    "dataset_graph": "dataset_graph",
    "custom_lineage_data": "user_defined_info",
}


def to_numpy(value: Any) -> np.ndarray:
    """Any array-like (numpy, MindSpore ``Tensor``, torch tensor, list, number) as an ndarray."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "asnumpy"):  # mindspore.Tensor
        return np.asarray(value.asnumpy())
    if hasattr(value, "detach"):  # torch.Tensor, possibly on a device or requiring grad
        value = value.detach()
        if hasattr(value, "cpu"):
            value = value.cpu()
    return np.asarray(value)


# --- value encoders (pure functions, MindSpore's _summary_adapter.py rules) -------------------


def calc_histogram_bins(count: int) -> int:
    """MindSpore's bin count for ``count`` finite values: 0 -> 1, <=5 -> 2, <=10 -> 3,
    <=880 -> count // 10 + 1, else 90 (about ten values per bin, at most 90 bins)."""
    if not count:
        return 1
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    if count <= 880:
        return count // 10 + 1
    return 90


def fill_histogram(values: np.ndarray, histogram: summary_pb2.Summary.Histogram) -> None:
    """MindSpore's ``_fill_histogram_summary``: ``count`` = all elements, NaN/±inf counted apart,
    min/max/sum over finite values (sum in float64), ``calc_histogram_bins`` equal-width buckets
    over [min, max] (±0.5 when min == max) with edges in the input dtype, ``np.histogram``
    counts. No finite value: no bucket, min = max = sum = 0."""
    if values.dtype == np.bool_:
        values = values.astype(np.uint8)
    masked = np.ma.masked_invalid(values)
    total, valid = values.size, int(masked.count())
    histogram.count = total
    # MindSpore always sets the three counts, zeros included (proto2: they are on the wire).
    nan = pos_inf = neg_inf = 0
    if total > valid:
        nan = int(np.count_nonzero(np.isnan(values)))
        pos_inf = int(np.count_nonzero(np.isposinf(values)))
        neg_inf = int(np.count_nonzero(np.isneginf(values)))
    histogram.nan_count, histogram.pos_inf_count, histogram.neg_inf_count = nan, pos_inf, neg_inf
    if not valid:
        return
    if issubclass(values.dtype.type, np.floating):
        # numpy#15077: max of a masked float16 array returns inf without the fill value.
        histogram.min = float(masked.min(fill_value=np.inf))
        histogram.max = float(masked.max(fill_value=-np.inf))
    else:
        histogram.min = float(masked.min())
        histogram.max = float(masked.max())
    histogram.sum = float(masked.sum(dtype=np.float64))
    first_edge, last_edge = histogram.min, histogram.max
    if not first_edge < last_edge:
        first_edge -= 0.5
        last_edge += 0.5
    edges = np.linspace(first_edge, last_edge, calc_histogram_bins(valid) + 1, dtype=values.dtype)
    counts, edges = np.histogram(masked.compressed(), bins=edges)
    for count, left, right in zip(counts, edges, edges[1:], strict=False):
        bucket = histogram.buckets.add()
        bucket.left = float(left)
        bucket.width = float(right - left)
        bucket.count = int(count)


def make_image_canvas(images: np.ndarray, columns: int = 8) -> np.ndarray:
    """MindSpore's ``_make_canvas_for_imgs``: N images (NCHW, C in {1, 3}) on a float64 canvas of
    ``min(N, columns)`` columns and ``ceil(N / columns)`` rows, shape (3, H*rows, W*cols)."""
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    n, _, h, w = images.shape
    cols = min(n, columns)
    rows = math.ceil(n / cols)
    canvas = np.zeros((3, h * rows, w * cols))
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h : (y + 1) * h, x * w : (x + 1) * w] = images[i]
    return canvas


def image_to_uint8(canvas: np.ndarray) -> np.ndarray:
    """MindSpore 2.10's scaling of the canvas: values all in [0, 1] are multiplied by 255 (in
    float32); otherwise they are mapped linearly, ``(x - min) * 255 / (max - min + 1)`` (just
    ``x - min`` when all are equal; in float64, as NumPy 2 computes MindSpore's expression); then
    truncated to uint8, non-finite results as 0. The canvas is float64 whatever the input dtype,
    so uint8 input is mapped too: MindSpore's "uint8 as is" branch never applies."""
    if not canvas.size:
        return np.zeros(canvas.shape, np.uint8)
    low, high = float(np.min(canvas)), float(np.max(canvas))
    values = canvas.astype(np.float32)
    if low >= 0 and high <= 1:
        scaled = values * np.float32(255)
    else:
        scale = 255 / (high - low + 1) if high != low else 1.0
        scaled = (values.astype(np.float64) - low) * scale
    scaled = np.nan_to_num(scaled, nan=0.0, posinf=0.0, neginf=0.0)
    return (np.trunc(scaled).astype(np.int64) & 0xFF).astype(np.uint8)


def encode_png(rgb: np.ndarray) -> bytes:
    """PNG encoder for an (H, W, 3) uint8 array (8-bit RGB, zlib level 6). Every row uses the same
    filter, whichever of None / Sub / Up compresses the image smallest (smooth canvases shrink
    tens of times compared with no filter; Pillow, which MindSpore uses, filters adaptively)."""
    height, width, _ = rgb.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    rows = rgb.reshape(height, width * 3)
    sub = rows.copy()
    sub[:, 3:] -= rows[:, :-3]  # uint8 arithmetic wraps modulo 256, as PNG filters do
    up = rows.copy()
    up[1:] -= rows[:-1]
    candidates = []
    for filter_type, filtered in ((0, rows), (1, sub), (2, up)):
        framed = np.concatenate([np.full((height, 1), filter_type, np.uint8), filtered], 1)
        candidates.append(zlib.compress(framed.tobytes(), 6))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", min(candidates, key=len)),
            chunk(b"IEND", b""),
        )
    )


def fill_image(
    images: np.ndarray, image: summary_pb2.Summary.Image, dataformats: str = "NCHW"
) -> None:
    """Tile, scale and PNG-encode a batch of images as MindSpore's ``_fill_image_summary``."""
    dataformats = dataformats.upper()
    if images.ndim != 4 or len(dataformats) != 4 or sorted(dataformats) != sorted("NCHW"):
        raise ValueError(f"images must be 4-D {dataformats}, got shape {images.shape}")
    if dataformats != "NCHW":
        images = images.transpose([dataformats.index(c) for c in "NCHW"])
    if images.shape[1] not in (1, 3):
        raise ValueError(f"images must have 1 or 3 channels, got shape {images.shape} (NCHW)")
    if 0 in images.shape:  # MindSpore drops such a value with an error
        raise ValueError(f"images must not be empty, got shape {images.shape} (NCHW)")
    canvas = make_image_canvas(images)
    rgb = image_to_uint8(canvas.transpose(1, 2, 0))
    image.height, image.width, image.colorspace = rgb.shape[0], rgb.shape[1], 3
    image.encoded_image = encode_png(rgb)


def tensor_proto(values: np.ndarray) -> anf_ir_pb2.TensorProto:
    """A ``TensorProto`` as MindSpore writes it: dims, the original ``data_type`` and every
    element as float32 in ``float_data``. Built from raw packed bytes (a 10M-value tensor takes
    milliseconds, not the seconds of ``float_data.extend``)."""
    data_type = DATATYPE_OF_NUMPY.get(values.dtype)
    if data_type is None:
        raise ValueError(f"unsupported tensor dtype {values.dtype}")
    floats = np.ascontiguousarray(values, dtype="<f4").reshape(-1).tobytes()
    head = anf_ir_pb2.TensorProto(
        dims=list(values.shape), data_type=anf_ir_pb2.DataType.Name(data_type)
    )
    packed = b"\x1a" + _varint_bytes(len(floats)) + floats if floats else b""
    return anf_ir_pb2.TensorProto.FromString(head.SerializeToString() + packed)


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def scalar_value(values: np.ndarray, tag: str) -> float | None:
    """The float MindSpore records for a scalar: the value, or the first element (with a warning)
    of a larger array; None (nothing recorded) for an empty one."""
    if values.size == 0:
        warnings.warn(f"scalar {tag!r} has no value; not recorded", stacklevel=3)
        return None
    if values.size > 1:
        warnings.warn(
            f"scalar {tag!r} has shape {values.shape}; recording its first element", stacklevel=3
        )
    return float(values.reshape(-1)[0])


def landscape_proto(
    x: Any,
    y: Any,
    z: Any,
    *,
    intervals: Any = (),
    path: Any = None,
    convergence_point: Any = None,
    decomposition: str = "PCA",
    unit: str = "step",
    step_per_epoch: int = 1,
) -> summary_pb2.LossLandscape:
    """The ``LossLandscape`` of :meth:`SummaryWriter.add_landscape`; ValueError when the shapes
    do not fit together (z must be [len(y), len(x)], one path point per interval entry)."""
    x_values, y_values, z_values = to_numpy(x), to_numpy(y), to_numpy(z)
    if x_values.ndim != 1 or y_values.ndim != 1:
        raise ValueError(f"x and y must be 1-D, got shapes {x_values.shape} and {y_values.shape}")
    if z_values.shape != (len(y_values), len(x_values)):
        raise ValueError(
            f"z must have shape (len(y), len(x)) = ({len(y_values)}, "
            f"{len(x_values)}): rows follow y; got {z_values.shape}"
        )
    steps = [int(v) for v in np.asarray(intervals).reshape(-1).tolist()]
    if bool(steps) != (path is not None):
        raise ValueError(
            "an interval landscape needs both intervals and path; the final landscape neither"
        )
    landscape = summary_pb2.LossLandscape()
    for axis, values in zip("xyz", (x_values, y_values, z_values), strict=True):
        getattr(landscape.landscape, axis).CopyFrom(tensor_proto(values))
    if steps:
        points = [to_numpy(v) for v in path]
        if len(points) != 3 or any(p.shape != (len(steps),) for p in points):
            raise ValueError(
                f"path must be (x, y, z), each with one value per interval entry "
                f"({len(steps)}); got {[p.shape for p in points]}"
            )
        landscape.loss_path.intervals.extend(steps)
        for axis, values in zip("xyz", points, strict=True):
            getattr(landscape.loss_path.points, axis).CopyFrom(tensor_proto(values))
    landscape.metadata.decomposition = decomposition
    landscape.metadata.unit = unit
    landscape.metadata.step_per_epoch = int(step_per_epoch)
    if convergence_point is not None:
        coordinates = [to_numpy(v).reshape(-1) for v in convergence_point]
        if len(coordinates) != 3 or any(c.shape != (1,) for c in coordinates):
            raise ValueError("convergence_point must be (x, y, z), one value each")
        for axis, values in zip("xyz", coordinates, strict=True):
            getattr(landscape.convergence_point, axis).CopyFrom(tensor_proto(values))
    return landscape


# --- lineage builders --------------------------------------------------------------------------


def train_lineage(
    *,
    optimizer: str | None = None,
    learning_rate: float | None = None,
    loss_function: str | None = None,
    epoch: int | None = None,
    parallel_mode: str | None = None,
    device_num: int | None = None,
    batch_size: int | None = None,
    train_dataset_path: str | None = None,
    train_dataset_size: int | None = None,
    network: str | None = None,
    loss: float | None = None,
    model_path: str | None = None,
    model_size: int | None = None,
) -> lineage_pb2.TrainLineage:
    """``TrainLineage`` as SummaryCollector fills it; ``model.path`` is stored as
    ``{"ckpt": model_path}`` JSON like MindSpore does."""
    message = lineage_pb2.TrainLineage()
    hyper = message.hyper_parameters
    for name, value in (
        ("optimizer", optimizer),
        ("learning_rate", learning_rate),
        ("loss_function", loss_function),
        ("epoch", epoch),
        ("parallel_mode", parallel_mode),
        ("device_num", device_num),
        ("batch_size", batch_size),
    ):
        if value is not None:
            setattr(hyper, name, value)
    if train_dataset_path is not None:
        message.train_dataset.train_dataset_path = train_dataset_path
    if train_dataset_size is not None:
        message.train_dataset.train_dataset_size = train_dataset_size
    if network is not None:
        message.algorithm.network = network
    if loss is not None:
        message.algorithm.loss = loss
    if model_path is not None or model_size is not None:
        message.model.path = json.dumps({"ckpt": model_path})
        message.model.size = model_size or 0
    return message


def eval_lineage(
    metric: Mapping[str, Any] | None = None,
    valid_dataset_path: str | None = None,
    valid_dataset_size: int | None = None,
) -> lineage_pb2.EvaluationLineage:
    """``EvaluationLineage``: ``metric`` stored as JSON text, as SummaryCollector does."""
    message = lineage_pb2.EvaluationLineage()
    if metric is not None:
        message.metric = json.dumps(dict(metric))
    if valid_dataset_path is not None:
        message.valid_dataset.valid_dataset_path = valid_dataset_path
    if valid_dataset_size is not None:
        message.valid_dataset.valid_dataset_size = valid_dataset_size
    return message


def _fill_operation_parameter(
    parameter: lineage_pb2.OperationParameter, key: str, value: Any
) -> None:
    if isinstance(value, bool):
        parameter.mapBool[key] = value
    elif isinstance(value, int):
        parameter.mapInt[key] = value
    elif isinstance(value, float):
        parameter.mapDouble[key] = value
    elif isinstance(value, str):
        parameter.mapStr[key] = value
    elif isinstance(value, (list, tuple)):
        parameter.mapStrList[key].strValue.extend(
            "" if item is None else json.dumps(item) for item in value
        )
    elif isinstance(value, dict):
        parameter.mapStr[key] = json.dumps(value)
    elif value is None:
        parameter.mapStr[key] = "None"
    else:
        parameter.mapStr[key] = str(value)


def _fill_operation(operation: lineage_pb2.Operation, spec: Mapping[str, Any]) -> None:
    for key, value in spec.items():
        is_list = isinstance(value, (list, tuple))
        if is_list and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            operation.size.extend(value)
        elif is_list and value and all(isinstance(v, (int, float)) for v in value):
            operation.weights.extend(value)
        else:
            _fill_operation_parameter(operation.operationParam, key, value)


def dataset_graph(pipeline: Mapping[str, Any]) -> lineage_pb2.DatasetGraph:
    """``DatasetGraph`` from a ``mindspore.dataset.serialize()``-style dict, as SummaryCollector
    builds it: ``children`` recursed, ``operations`` and ``sampler`` as ``Operation``s, other
    keys into typed maps (lists as JSON-encoded strings, dicts as JSON, None as ``"None"``)."""
    message = lineage_pb2.DatasetGraph()
    for key, value in pipeline.items():
        if key == "children":
            for child in value or ():
                message.children.append(dataset_graph(child))
        elif key == "operations":
            for spec in value or ():
                _fill_operation(message.operations.add(), spec)
        elif key == "sampler" and isinstance(value, Mapping):
            _fill_operation(message.sampler, value)
        else:
            _fill_operation_parameter(message.parameter, key, value)
    return message


def user_defined_info(data: Mapping[str, Any]) -> lineage_pb2.UserDefinedInfo:
    """``UserDefinedInfo`` as SummaryCollector's ``custom_lineage_data``: one ``user_info``
    entry per key; int -> ``map_int32``, float -> ``map_double``, anything else -> ``map_str``."""
    message = lineage_pb2.UserDefinedInfo()
    for key, value in data.items():
        entry = message.user_info.add()
        if isinstance(value, int) and not isinstance(value, bool):
            entry.map_int32[key] = value
        elif isinstance(value, float):
            entry.map_double[key] = value
        else:
            entry.map_str[key] = str(value)
    return message


# --- the writer --------------------------------------------------------------------------------


class SummaryWriter:
    """Writes one training session's summary (``_MS``) and lineage (``_lineage``) files.

    Two styles, freely mixed::

        with SummaryWriter("./summary/run1") as writer:      # TensorBoard style
            writer.add_scalar("loss", 0.25, step=1)          # one Event per step
            writer.add_histogram("fc.weight", weights, step=1)

        writer.add_value("scalar", "loss", 0.25)              # MindSpore style
        writer.record(1)

    Values accept numpy arrays and anything with ``__array__`` (torch and MindSpore tensors).
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str],
        file_prefix: str = "events",
        file_suffix: str = "_MS",
        *,
        device_id: int = 0,
        host: str | None = None,
        timestamp: int | None = None,
    ) -> None:
        """``timestamp`` is the Unix second in the file names (default: now). Jobs order their
        files by it, so a test or a tool can write a "later" file without waiting for the
        clock. As with the default, a name already taken moves on to the next free second."""
        if timestamp is not None and (
            isinstance(timestamp, bool)
            or not isinstance(timestamp, (int, np.integer))
            or timestamp < 0
        ):
            raise ValueError(f"timestamp must be a non-negative int, got {timestamp!r}")
        self.log_dir = os.fspath(log_dir)
        os.makedirs(self.log_dir, mode=0o700, exist_ok=True)
        host = host if host is not None else (platform.node() or "localhost")
        self._name_parts = (device_id, host, file_prefix, file_suffix)
        self._timestamp = int(time.time()) if timestamp is None else int(timestamp)
        while any(os.path.exists(path) for path in self._paths(self._timestamp)):
            self._timestamp += 1
        self.summary_path, self.lineage_path = self._paths(self._timestamp)
        self._summary_file: BinaryIO | None = None
        self._lineage_file: BinaryIO | None = None
        self._values: list[summary_pb2.Summary.Value] = []
        self._graphs: list[anf_ir_pb2.GraphProto] = []
        self._lineage: list[lineage_pb2.LineageEvent] = []
        self._pending_step: int | None = None
        self._closed = False

    # -- context manager --
    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- MindSpore style --
    def add_value(self, plugin: str, tag: str, value: Any, *, dataformats: str = "NCHW") -> None:
        """Queue a value for the next :meth:`record`, like ``SummaryRecord.add_value``.

        ``plugin`` is ``scalar``, ``image``, ``histogram``, ``tensor``, ``graph`` (value: a
        ``GraphProto``/``ModelProto`` or its bytes) or a lineage plugin: ``train_lineage`` /
        ``eval_lineage`` / ``dataset_graph`` / ``custom_lineage_data`` (value: a dict of the
        fields, or the protobuf message).
        """
        self._check_open()
        if not isinstance(tag, str) or not tag:
            raise ValueError(f"tag must be a non-empty str, got {tag!r}")
        if plugin == PluginName.GRAPH:
            self.add_graph(value)
            return
        if plugin in _LINEAGE_PLUGINS:
            self._add_lineage(plugin, value)
            return
        if plugin not in _DATA_PLUGINS:
            raise ValueError(
                f"unknown plugin {plugin!r}; expected one of "
                f"{', '.join((*_DATA_PLUGINS, PluginName.GRAPH, *_LINEAGE_PLUGINS))}"
            )
        array = to_numpy(value)
        proto = summary_pb2.Summary.Value(tag=tag)
        if plugin == PluginName.SCALAR:
            number = scalar_value(array, tag)
            if number is None:
                return
            proto.scalar_value = number
        elif plugin == PluginName.IMAGE:
            fill_image(array, proto.image, dataformats)
        elif plugin == PluginName.HISTOGRAM:
            fill_histogram(array, proto.histogram)
        else:
            proto.tensor.CopyFrom(tensor_proto(array))
        self._values.append(proto)

    def record(self, step: int) -> None:
        """Write what was queued: pending graphs, then one Event with every queued value at
        ``step``, then pending lineage records."""
        self._check_open()
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"step must be an int, got {step!r}")
        self._pending_step = None
        self._write_graphs()
        if self._values:
            # MindSpore keeps one list per plugin, in the order plugins were first added, and
            # writes the lists one after the other.
            first: dict[str | None, int] = {}
            for value in self._values:
                first.setdefault(value.WhichOneof("value"), len(first))
            event = summary_pb2.Event(wall_time=time.time(), step=int(step))
            event.summary.value.extend(
                sorted(self._values, key=lambda value: first[value.WhichOneof("value")])
            )
            self._values = []
            self._write_summary(event)
        self._write_lineage()

    # -- TensorBoard style --
    def add_scalar(self, tag: str, value: Any, step: int) -> None:
        """Record a scalar (stored as float32) at ``step``."""
        self._at_step(step)
        self.add_value(PluginName.SCALAR, tag, value)

    def add_image(self, tag: str, images: Any, step: int, dataformats: str = "NCHW") -> None:
        """Record a batch of images (4-D, ``dataformats`` order, 1 or 3 channels) at ``step``."""
        self._at_step(step)
        self.add_value(PluginName.IMAGE, tag, images, dataformats=dataformats)

    def add_histogram(self, tag: str, values: Any, step: int) -> None:
        """Record the histogram of ``values`` at ``step``."""
        self._at_step(step)
        self.add_value(PluginName.HISTOGRAM, tag, values)

    def add_tensor(self, tag: str, values: Any, step: int) -> None:
        """Record a whole tensor at ``step``."""
        self._at_step(step)
        self.add_value(PluginName.TENSOR, tag, values)

    def add_landscape(
        self,
        tag: str,
        x: Any,
        y: Any,
        z: Any,
        *,
        intervals: Any = (),
        path: Any = None,
        convergence_point: Any = None,
        decomposition: str = "PCA",
        unit: str = "step",
        step_per_epoch: int = 1,
        step: int = 0,
    ) -> None:
        """Write a loss landscape as MindSpore 2.10's ``SummaryLandscape`` does: one Event at
        ``step`` (MindSpore: 0) holding one ``Summary.Value{tag, loss_landscape}``, written at
        once (values of a pending ``add_*`` step are written first).

        ``x`` [N] and ``y`` [M] are the grid axes and ``z`` [M, N] the loss at (x[j], y[i]) in
        ``z[i][j]`` (``np.meshgrid(x, y)``: rows follow y). An interval landscape (PCA
        directions) has ``intervals`` (the steps or epochs of its checkpoints) and ``path`` =
        (x, y, z) of the training path, one point per interval entry; the final landscape has
        neither. ``convergence_point`` = (x, y, z). Arrays keep their dtype, as MindSpore's
        do (x/y float32, z float64; the PCA convergence x/y int64); every value is stored as
        float32 ``float_data``. MindSpore names the tags ``landscape_[first, last]`` and
        ``landscape_[last step]`` (final).
        """
        self._check_open()
        if not isinstance(tag, str) or not tag:
            raise ValueError(f"tag must be a non-empty str, got {tag!r}")
        landscape = landscape_proto(
            x,
            y,
            z,
            intervals=intervals,
            path=path,
            convergence_point=convergence_point,
            decomposition=decomposition,
            unit=unit,
            step_per_epoch=step_per_epoch,
        )
        if self._pending_step is not None:
            self.record(self._pending_step)
        event = summary_pb2.Event(wall_time=time.time(), step=int(step))
        event.summary.value.add(tag=tag).loss_landscape.CopyFrom(landscape)
        self._write_summary(event)

    def _at_step(self, step: int) -> None:
        if self._pending_step is not None and self._pending_step != step:
            self.record(self._pending_step)
        self._pending_step = step

    # -- graph and lineage --
    def add_graph(self, graph: anf_ir_pb2.GraphProto | anf_ir_pb2.ModelProto | bytes) -> None:
        """Queue a computational graph; it is written as its own Event (no step) on the next
        :meth:`record` or :meth:`flush`. Bytes are read as a serialized ``ModelProto``."""
        self._check_open()
        if isinstance(graph, (bytes, bytearray)):
            graph = anf_ir_pb2.ModelProto.FromString(bytes(graph))
        if isinstance(graph, anf_ir_pb2.ModelProto):
            graph = graph.graph
        if not isinstance(graph, anf_ir_pb2.GraphProto):
            raise TypeError(f"graph must be a GraphProto, ModelProto or bytes, got {type(graph)}")
        self._graphs.append(graph)

    def add_train_lineage(self, **fields: Any) -> None:
        """Queue a train lineage record; fields as :func:`train_lineage`."""
        self._add_lineage("train_lineage", fields)

    def add_eval_lineage(
        self,
        metric: Mapping[str, Any] | None = None,
        valid_dataset_path: str | None = None,
        valid_dataset_size: int | None = None,
    ) -> None:
        """Queue an evaluation lineage record (``metric`` as a dict of metric values)."""
        self._add_lineage(
            "eval_lineage", eval_lineage(metric, valid_dataset_path, valid_dataset_size)
        )

    def add_dataset_graph(self, pipeline: Mapping[str, Any]) -> None:
        """Queue the dataset pipeline (a ``mindspore.dataset.serialize()``-style dict)."""
        self._add_lineage("dataset_graph", pipeline)

    def add_custom_lineage(self, data: Mapping[str, Any]) -> None:
        """Queue user-defined lineage info (SummaryCollector's ``custom_lineage_data``)."""
        self._add_lineage("custom_lineage_data", data)

    def _add_lineage(self, plugin: str, value: Any) -> None:
        self._check_open()
        message: Message
        if isinstance(value, Message):
            message = value
        elif plugin == "train_lineage":
            message = train_lineage(**value)
        elif plugin == "eval_lineage":
            message = eval_lineage(**value)
        elif plugin == "dataset_graph":
            message = dataset_graph(value)
        else:
            message = user_defined_info(value)
        event = lineage_pb2.LineageEvent(wall_time=time.time())
        getattr(event, _LINEAGE_FIELDS[plugin]).CopyFrom(message)
        self._lineage.append(event)

    # -- files --
    def flush(self) -> None:
        """Write what is queued (values of the pending ``add_*`` step, graphs, lineage) and flush
        both files to the operating system, so readers see complete records. Values queued by
        :meth:`add_value` join the pending ``add_*`` step when there is one; otherwise they wait
        for their :meth:`record` call."""
        self._check_open()
        if self._pending_step is not None:
            self.record(self._pending_step)
        self._write_graphs()
        self._write_lineage()
        for handle in (self._summary_file, self._lineage_file):
            if handle is not None:
                handle.flush()

    def close(self) -> None:
        """Flush and close the files. Values queued by :meth:`add_value` and never recorded are
        written at step 0 rather than lost (MindSpore drops them)."""
        if self._closed:
            return
        if self._values and self._pending_step is None:
            self._pending_step = 0
        self.flush()
        for handle in (self._summary_file, self._lineage_file):
            if handle is not None:
                handle.close()
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("SummaryWriter is closed")

    def _write_graphs(self) -> None:
        for graph in self._graphs:
            self._write_summary(summary_pb2.Event(wall_time=time.time(), graph_def=graph))
        self._graphs = []

    def _paths(self, timestamp: int) -> tuple[str, str]:
        """Summary and lineage file paths for a file-name ``timestamp``."""
        device_id, host, prefix, suffix = self._name_parts
        summary = summary_file_name(timestamp, device_id, host, prefix, suffix)
        lineage = summary_file_name(timestamp, device_id, host, prefix, LINEAGE_SUFFIX)
        return os.path.join(self.log_dir, summary), os.path.join(self.log_dir, lineage)

    def _create(self, lineage: bool) -> BinaryIO:
        """Create the lineage or summary file. If another writer started in the same second took
        the name since ``__init__`` (files are created lazily), move on to the next free second;
        the other file follows while it is not created yet."""
        while True:
            try:
                return open(self.lineage_path if lineage else self.summary_path, "xb")
            except FileExistsError:
                self._timestamp += 1
                summary_path, lineage_path = self._paths(self._timestamp)
                if self._summary_file is None:
                    self.summary_path = summary_path
                if self._lineage_file is None:
                    self.lineage_path = lineage_path

    def _write_lineage(self) -> None:
        if not self._lineage:
            return
        if self._lineage_file is None:
            self._lineage_file = self._create(lineage=True)
        for event in self._lineage:
            self._lineage_file.write(frame_record(event.SerializeToString()))
        self._lineage = []

    def _write_summary(self, event: summary_pb2.Event) -> None:
        if self._summary_file is None:
            self._summary_file = self._create(lineage=False)
            version = summary_pb2.Event(wall_time=time.time(), version=EVENT_VERSION)
            self._summary_file.write(frame_record(version.SerializeToString()))
        self._summary_file.write(frame_record(event.SerializeToString()))
