"""TensorBoard event files (``events.out.tfevents.*``) read into the same structures as
MindSpore's summaries, so every plugin shows them unchanged.

The framing is the same TFRecord framing with CRC32C (:mod:`.framing`); the records are
TensorBoard's own ``Event`` / ``Summary`` protos (vendored under ``proto/tb_*.proto``). A
``Summary.Value`` becomes what MindSpore would have written for it, following TensorBoard's
own reading of old and new forms (``tensorboard/data_compat.py``, ``plugins/*/metadata.py``):

* ``simple_value``, or a one-element numeric ``tensor`` of the ``scalars`` plugin (or of no
  plugin and rank 0) -> a scalar point (float32, as MindSpore stores scalars);
* ``histo`` (``HistogramProto``) -> a histogram; bucket ``i`` spans ``(bucket_limit[i-1],
  bucket_limit[i]]``, the first from ``min`` and the last to ``max`` (TensorBoard's
  ``_migrate_histogram``), i.e. MindSpore's (left, width = right - left, count) buckets;
  a ``histograms`` tensor of shape ``[k, 3]`` (left, right, count) -> the same buckets (its
  sum is not recorded: NaN);
* ``image`` (encoded PNG/JPEG/GIF and its size) -> an image as MindSpore's (encoded bytes kept
  as written); an ``images`` string tensor ``[width, height, image_0, ...]`` -> one image per
  sample, sample 0 under the tag and sample ``i`` under ``<tag>/image/<i>`` (TF 1's naming);
* a ``text`` string tensor -> a tensor of strings (the tensors page shows it as a table);
* any other numeric tensor -> a tensor (``DataType`` names as MindSpore's: ``DT_FLOAT32``...);
* ``hparams`` plugin data (``HParamsPluginData``) -> :class:`HParamsRecord`, which the store
  keeps as lineage (see :func:`dash_insight.core.lineage_rows.tensorboard_lineage`).

Audio, graph definitions, run metadata and other plugins' string tensors are not shown by any
page and are skipped. A value TensorBoard's writers would never produce (a tensor whose value
count does not fit its shape, a histogram whose arrays disagree) is reported with its record
offset, like a damaged MindSpore value; the other values are kept.

Writers set a tag's ``SummaryMetadata`` on its first value only, so the scanner remembers each
tag's plugin; a value's meta (kept in the index) records how to decode it again
(:data:`META_FORM`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError as _ProtoDecodeError

from dash_insight.core.format.events import (
    DecodeError,
    HistogramValue,
    ImageValue,
    SummaryPayload,
    SummaryValue,
    TensorValue,
    from_buffer,
)
from dash_insight.core.format.framing import Damage, Record, RecordReader
from dash_insight.core.format.protos import (
    tb_event_pb2,
    tb_hparams_api_pb2,
    tb_hparams_plugin_data_pb2,
    tb_summary_pb2,
    tb_tensor_pb2,
    tb_types_pb2,
)
from dash_insight.core.format.scan import ScannedBlobs, ScannedScalars, ScanResult
from dash_insight.core.vocabulary import PluginName

#: TensorBoard's plugin names (``SummaryMetadata.plugin_data.plugin_name``).
TB_SCALARS = "scalars"
TB_HISTOGRAMS = "histograms"
TB_IMAGES = "images"
TB_TEXT = "text"
TB_HPARAMS = "hparams"

#: Key of a value's index meta saying how to decode it again: one of the ``FORM_*`` values.
META_FORM = "tensorboard"
FORM_HISTO = "histo"  # Summary.Value.histo
FORM_HISTOGRAM_TENSOR = "histogram_tensor"  # [k, 3] tensor of the histograms plugin
FORM_IMAGE = "image"  # Summary.Value.image
FORM_IMAGE_TENSOR = "image_tensor"  # string tensor of the images plugin; meta "sample" = i
FORM_TENSOR = "tensor"  # a numeric or text tensor

#: Lineage record kind of TensorBoard hparams data (:class:`HParamsRecord`).
LINEAGE_TENSORBOARD_HPARAMS = "tensorboard_hparams"

_DT = tb_types_pb2.DataType
#: TensorBoard dtype -> (numpy dtype, MindSpore's DataType name). bfloat16 widens to float32.
_DTYPES: dict[int, tuple[np.dtype, str]] = {
    _DT.Value("DT_FLOAT"): (np.dtype(np.float32), "DT_FLOAT32"),
    _DT.Value("DT_DOUBLE"): (np.dtype(np.float64), "DT_FLOAT64"),
    _DT.Value("DT_HALF"): (np.dtype(np.float16), "DT_FLOAT16"),
    _DT.Value("DT_BFLOAT16"): (np.dtype(np.float32), "DT_BFLOAT16"),
    _DT.Value("DT_INT8"): (np.dtype(np.int8), "DT_INT8"),
    _DT.Value("DT_INT16"): (np.dtype(np.int16), "DT_INT16"),
    _DT.Value("DT_INT32"): (np.dtype(np.int32), "DT_INT32"),
    _DT.Value("DT_INT64"): (np.dtype(np.int64), "DT_INT64"),
    _DT.Value("DT_UINT8"): (np.dtype(np.uint8), "DT_UINT8"),
    _DT.Value("DT_UINT16"): (np.dtype(np.uint16), "DT_UINT16"),
    _DT.Value("DT_UINT32"): (np.dtype(np.uint32), "DT_UINT32"),
    _DT.Value("DT_UINT64"): (np.dtype(np.uint64), "DT_UINT64"),
    _DT.Value("DT_BOOL"): (np.dtype(np.bool_), "DT_BOOL"),
    _DT.Value("DT_COMPLEX64"): (np.dtype(np.complex64), "DT_COMPLEX64"),
    _DT.Value("DT_COMPLEX128"): (np.dtype(np.complex128), "DT_COMPLEX128"),
}
_DT_STRING = _DT.Value("DT_STRING")
STRING_DATA_TYPE = "DT_STRING"


@dataclass(frozen=True)
class HParamsRecord:
    """One ``hparams`` plugin value: ``data`` is ``{"hparams": {name: value}}`` (a session's
    start), ``{"metric_tags": [tag, ...]}`` (the experiment's metrics whose group is empty,
    i.e. scalar tags of the same run) or ``{"status": name}`` (a session's end)."""

    offset: int
    wall_time: float
    data: dict[str, Any]


@dataclass
class TensorBoardScan(ScanResult):
    """A :class:`~.scan.ScanResult` plus the hparams values found."""

    hparams: list[HParamsRecord] = field(default_factory=list)


def parse_tb_event(payload: bytes | memoryview) -> tb_event_pb2.Event:
    """Parse a TensorBoard ``Event`` payload; :class:`DecodeError` if protobuf refuses it."""
    try:
        return from_buffer(tb_event_pb2.Event, payload)
    except (_ProtoDecodeError, RuntimeError) as error:
        raise DecodeError(f"not a TensorBoard Event: {error}") from None


def _shape(tensor: tb_tensor_pb2.TensorProto) -> tuple[int, ...]:
    dims = tuple(int(d.size) for d in tensor.tensor_shape.dim)
    if any(d < 0 for d in dims):
        raise DecodeError(f"tensor has unknown dims {list(dims)}")
    return dims


def _element_count(tensor: tb_tensor_pb2.TensorProto) -> int:
    dims = tuple(max(int(d.size), 0) for d in tensor.tensor_shape.dim)
    return math.prod(dims)


def _flat_values(tensor: tb_tensor_pb2.TensorProto, dtype: np.dtype) -> np.ndarray:
    """The stored values of a numeric tensor, flat, from ``tensor_content`` or the ``*_val``
    field its dtype uses (TensorFlow's ``tensor_util.MakeNdarray``)."""
    number = tensor.dtype
    if tensor.tensor_content:
        raw = tensor.tensor_content
        if number == _DT.Value("DT_BFLOAT16"):
            if len(raw) % 2:
                raise DecodeError(f"tensor_content of {len(raw)} bytes is not bfloat16 values")
            bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            return bits.view(np.float32)
        if len(raw) % dtype.itemsize:
            raise DecodeError(
                f"tensor_content of {len(raw)} bytes is not a whole number of {dtype.name} values"
            )
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
    if number == _DT.Value("DT_HALF"):
        return np.array(tensor.half_val, dtype=np.uint16).view(np.float16)
    if number == _DT.Value("DT_BFLOAT16"):
        return (np.array(tensor.half_val, dtype=np.uint32) << 16).view(np.float32)
    if number == _DT.Value("DT_FLOAT"):
        return np.array(tensor.float_val, dtype=np.float32)
    if number == _DT.Value("DT_DOUBLE"):
        return np.array(tensor.double_val, dtype=np.float64)
    if number == _DT.Value("DT_INT64"):
        return np.array(tensor.int64_val, dtype=np.int64)
    if number == _DT.Value("DT_UINT32"):
        return np.array(tensor.uint32_val, dtype=np.uint32)
    if number == _DT.Value("DT_UINT64"):
        return np.array(tensor.uint64_val, dtype=np.uint64)
    if number == _DT.Value("DT_BOOL"):
        return np.array(tensor.bool_val, dtype=np.bool_)
    if number in (_DT.Value("DT_COMPLEX64"), _DT.Value("DT_COMPLEX128")):
        pairs = tensor.scomplex_val if number == _DT.Value("DT_COMPLEX64") else tensor.dcomplex_val
        parts = np.array(pairs, dtype=np.float64)
        if len(parts) % 2:
            raise DecodeError("complex tensor holds an odd number of parts")
        return (parts[0::2] + 1j * parts[1::2]).astype(dtype)
    # DT_INT32, DT_INT16, DT_INT8, DT_UINT8, DT_UINT16 share int_val.
    return np.array(tensor.int_val, dtype=np.int64).astype(dtype)


def _fill(flat: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """``flat`` shaped by ``dims``: no value means zeros, fewer values than the shape needs
    repeat the last one (TensorFlow's version-0 rule, as ``MakeNdarray``)."""
    expected = math.prod(dims)
    if flat.size == expected:
        return flat.reshape(dims)
    if flat.size == 0:
        return np.zeros(dims, dtype=flat.dtype)
    if flat.size < expected:
        return np.pad(flat, (0, expected - flat.size), mode="edge").reshape(dims)
    raise DecodeError(f"tensor holds {flat.size} values but dims {list(dims)} need {expected}")


def tb_tensor_to_numpy(tensor: tb_tensor_pb2.TensorProto) -> TensorValue:
    """A TensorBoard ``TensorProto`` as a :class:`TensorValue`: numeric dtypes as numpy arrays
    with MindSpore's dtype names, ``DT_STRING`` as an array of Python ``str`` (UTF-8, undecodable
    bytes replaced) named ``DT_STRING``."""
    dims = _shape(tensor)
    if tensor.dtype == _DT_STRING:
        texts = np.array(
            [s.decode("utf-8", errors="replace") for s in tensor.string_val], dtype=object
        )
        return TensorValue(_fill(texts, dims), STRING_DATA_TYPE)
    known = _DTYPES.get(tensor.dtype)
    if known is None:
        raise DecodeError(f"tensor dtype {_dtype_name(tensor.dtype)} cannot be shown")
    dtype, name = known
    return TensorValue(_fill(_flat_values(tensor, dtype), dims), name)


def _dtype_name(number: int) -> str:
    try:
        return _DT.Name(number)
    except ValueError:
        return f"DT_UNKNOWN_{number}"


def histo_value(histo: tb_summary_pb2.HistogramProto) -> HistogramValue:
    """A ``HistogramProto`` as MindSpore's histogram: bucket ``i`` from ``bucket_limit[i-1]``
    (``min`` for the first) to ``bucket_limit[i]`` (``max`` for the last), as TensorBoard's
    ``data_compat._migrate_histogram`` reads it; ``count`` is ``num``.

    Edges are clipped to [min, max], where every value lies: TensorFlow's default bucket
    limits (tensorboardX's ``bins="tensorflow"``) put the first limit below ``min``, which
    would give the first (empty) bucket a negative width."""
    limits = np.array(histo.bucket_limit, dtype=np.float64)
    counts = np.array(histo.bucket, dtype=np.float64)
    if len(limits) != len(counts):
        raise DecodeError(f"histogram has {len(limits)} bucket limits but {len(counts)} counts")
    if len(counts):
        lefts = np.concatenate([[histo.min], limits[:-1]])
        rights = np.concatenate([limits[:-1], [histo.max]])
        if histo.min <= histo.max:
            lefts = np.clip(lefts, histo.min, histo.max)
            rights = np.clip(rights, histo.min, histo.max)
        buckets = np.column_stack([lefts, rights - lefts, counts])
    else:
        buckets = np.zeros((0, 3))
    return HistogramValue(
        buckets=buckets,
        nan_count=0,
        pos_inf_count=0,
        neg_inf_count=0,
        max=histo.max,
        min=histo.min,
        sum=histo.sum,
        count=int(histo.num),
    )


def histogram_tensor_value(tensor: tb_tensor_pb2.TensorProto) -> HistogramValue:
    """A ``histograms`` plugin tensor ``[k, 3]`` of (left, right, count) rows as MindSpore's
    histogram: min = first left, max = last right, count = the counts' sum; its sum is not
    recorded (NaN)."""
    array = tb_tensor_to_numpy(tensor).array
    if array.dtype == object or array.ndim != 2 or array.shape[1] != 3:
        raise DecodeError(f"histogram tensor has shape {list(array.shape)}, not [k, 3]")
    rows = array.astype(np.float64)
    buckets = np.column_stack([rows[:, 0], rows[:, 1] - rows[:, 0], rows[:, 2]])
    if len(rows) == 0:
        return HistogramValue(buckets, 0, 0, 0, math.nan, math.nan, math.nan, 0)
    return HistogramValue(
        buckets=buckets,
        nan_count=0,
        pos_inf_count=0,
        neg_inf_count=0,
        max=float(rows[-1, 1]),
        min=float(rows[0, 0]),
        sum=math.nan,
        count=round(float(rows[:, 2].sum())),
    )


def _image_tensor_sample(tensor: tb_tensor_pb2.TensorProto, sample: int) -> ImageValue:
    """Sample ``sample`` of an ``images`` string tensor ``[width, height, encoded...]``."""
    values = tensor.string_val
    if tensor.dtype != _DT_STRING or len(values) < 2 + sample + 1:
        raise DecodeError(f"image tensor has no sample {sample}")
    width, height = _image_size(values[0], values[1])
    return ImageValue(height=height, width=width, colorspace=0, encoded=values[2 + sample])


def _image_size(width: bytes, height: bytes) -> tuple[int, int]:
    try:
        return int(width), int(height)
    except ValueError:
        raise DecodeError("image tensor's width and height are not numbers") from None


def sample_tag(tag: str, sample: int) -> str:
    """The tag of sample ``sample`` of an image tensor: the tag itself for the first."""
    return tag if sample == 0 else f"{tag}/image/{sample}"


def _scalar_of_tensor(tensor: tb_tensor_pb2.TensorProto, plugin_name: str) -> float | None:
    """The value of a scalar tensor (one numeric element; rank 0 when no plugin claims it),
    else None."""
    if tensor.dtype not in _DTYPES or tensor.dtype in (
        _DT.Value("DT_COMPLEX64"),
        _DT.Value("DT_COMPLEX128"),
    ):
        return None
    if plugin_name == TB_SCALARS:
        if _element_count(tensor) != 1:
            return None
    elif plugin_name or len(tensor.tensor_shape.dim):
        return None
    array = tb_tensor_to_numpy(tensor).array
    return float(array.reshape(-1)[0])


def decode_tb_value(
    payload: bytes | memoryview, index: int, meta: dict[str, Any] | None
) -> SummaryValue:
    """Decode again the large value indexed at ``index`` (the ``Summary.Value``'s position)
    of a TensorBoard Event, as its index ``meta`` says (:data:`META_FORM`); the tag is the one
    it is indexed under."""
    event = parse_tb_event(payload)
    values = event.summary.value
    if event.WhichOneof("what") != "summary" or not 0 <= index < len(values):
        raise DecodeError(f"event has no value #{index}")
    value = values[index]
    form = (meta or {}).get(META_FORM)
    payload_value: SummaryPayload
    if form == FORM_HISTO and value.HasField("histo"):
        plugin, payload_value = PluginName.HISTOGRAM.value, histo_value(value.histo)
    elif form == FORM_HISTOGRAM_TENSOR and value.HasField("tensor"):
        plugin, payload_value = PluginName.HISTOGRAM.value, histogram_tensor_value(value.tensor)
    elif form == FORM_IMAGE and value.HasField("image"):
        image = value.image
        plugin = PluginName.IMAGE.value
        payload_value = ImageValue(
            image.height, image.width, image.colorspace, image.encoded_image_string
        )
    elif form == FORM_IMAGE_TENSOR and value.HasField("tensor"):
        sample = int((meta or {}).get("sample", 0))
        plugin, payload_value = PluginName.IMAGE.value, _image_tensor_sample(value.tensor, sample)
        return SummaryValue(sample_tag(value.tag, sample), plugin, payload_value)
    elif form == FORM_TENSOR and value.HasField("tensor"):
        plugin, payload_value = PluginName.TENSOR.value, tb_tensor_to_numpy(value.tensor)
    else:
        raise DecodeError(f"value #{index} is not a {form or 'known'} value")
    return SummaryValue(value.tag, plugin, payload_value)


def _struct_value(value: Any) -> Any:
    """A ``google.protobuf.Value`` as a plain Python value (numbers as float, as stored)."""
    return json_format.MessageToDict(value)


def hparams_data(content: bytes) -> dict[str, Any] | None:
    """The :class:`HParamsRecord` data of an ``hparams`` plugin value's content, None for an
    empty one; :class:`DecodeError` when protobuf refuses it."""
    try:
        data = tb_hparams_plugin_data_pb2.HParamsPluginData.FromString(content)
    except (_ProtoDecodeError, RuntimeError) as error:
        raise DecodeError(f"not hparams plugin data: {error}") from None
    which = data.WhichOneof("data")
    if which == "session_start_info":
        hparams = data.session_start_info.hparams
        return {"hparams": {name: _struct_value(hparams[name]) for name in sorted(hparams)}}
    if which == "experiment":
        return {
            "metric_tags": [
                info.name.tag for info in data.experiment.metric_infos if not info.name.group
            ]
        }
    if which == "session_end_info":
        status = data.session_end_info.status
        names = tb_hparams_api_pb2.Status
        return {"status": names.Name(status) if status in names.values() else str(status)}
    return None


class _Batch:
    """What one :meth:`TensorBoardScanner.scan` call gathers."""

    def __init__(self) -> None:
        self.result = TensorBoardScan()
        self.scalars: dict[str, tuple[list[int], list[float], list[float]]] = {}
        self.blobs: dict[
            tuple[str, str],
            tuple[list[tuple[int, float, int, int, int]], list[dict[str, Any] | None]],
        ] = {}

    def scalar(self, tag: str, step: int, wall: float, value: float) -> None:
        columns = self.scalars.get(tag)
        if columns is None:
            columns = self.scalars[tag] = ([], [], [])
        columns[0].append(step)
        columns[1].append(wall)
        columns[2].append(value)

    def blob(
        self,
        plugin: str,
        tag: str,
        step: int,
        wall: float,
        record: Record,
        index: int,
        meta: dict[str, Any],
    ) -> None:
        refs = self.blobs.get((plugin, tag))
        if refs is None:
            refs = self.blobs[(plugin, tag)] = ([], [])
        refs[0].append((step, wall, record.offset, len(record.payload), index))
        refs[1].append(meta)

    def finish(self) -> TensorBoardScan:
        result = self.result
        for tag, (steps, walls, values) in self.scalars.items():
            result.scalars[tag] = ScannedScalars(
                np.asarray(steps, dtype=np.int64),
                np.asarray(walls, dtype=np.float64),
                np.asarray(values, dtype=np.float32),
            )
        for key, (refs, meta) in self.blobs.items():
            result.blobs[key] = ScannedBlobs.from_refs(refs, meta)
        return result


class TensorBoardScanner:
    """Scans the records of one TensorBoard event file; keep one per file (it remembers each
    tag's plugin, which writers set on the tag's first value only)."""

    def __init__(self) -> None:
        self._plugins: dict[str, str] = {}

    def scan_from(self, reader: RecordReader, max_bytes: int | None) -> TensorBoardScan:
        """:meth:`scan` the records ``reader`` reads next (up to ``max_bytes``)."""
        return self.scan(reader.read(max_bytes))

    def scan(self, records: Iterable[Record]) -> TensorBoardScan:
        """Index ``records`` (in file order)."""
        batch = _Batch()
        for record in records:
            batch.result.events += 1
            try:
                event = parse_tb_event(record.payload)
            except DecodeError as error:
                batch.result.errors.append(Damage(record.offset, str(error)))
                continue
            what = event.WhichOneof("what")
            if what == "file_version":
                batch.result.versions.append(event.file_version)
            elif what == "summary":
                for index, value in enumerate(event.summary.value):
                    try:
                        self._add_value(batch, record, event, index, value)
                    except DecodeError as error:
                        batch.result.errors.append(
                            Damage(record.offset, f"value {value.tag!r}: {error}")
                        )
            # graph_def (a TensorFlow GraphDef), session logs and run metadata: no page shows
            # them.
        return batch.finish()

    def _add_value(
        self,
        batch: _Batch,
        record: Record,
        event: tb_event_pb2.Event,
        index: int,
        value: tb_summary_pb2.Summary.Value,
    ) -> None:
        step, wall, tag = int(event.step), float(event.wall_time), value.tag
        if value.HasField("metadata") and value.metadata.HasField("plugin_data"):
            self._plugins[tag] = value.metadata.plugin_data.plugin_name
        plugin_name = self._plugins.get(tag, "")
        which = value.WhichOneof("value")
        if which == "simple_value":
            batch.scalar(tag, step, wall, value.simple_value)
        elif which == "histo":
            batch.blob(
                PluginName.HISTOGRAM.value, tag, step, wall, record, index, {META_FORM: FORM_HISTO}
            )
        elif which == "image":
            batch.blob(
                PluginName.IMAGE.value,
                tag,
                step,
                wall,
                record,
                index,
                {META_FORM: FORM_IMAGE, "height": value.image.height, "width": value.image.width},
            )
        elif which == "tensor":
            self._add_tensor(batch, record, event, index, value, plugin_name)
        elif which is None and plugin_name != TB_HPARAMS:
            raise DecodeError("holds no data")
        if plugin_name == TB_HPARAMS and value.HasField("metadata"):
            data = hparams_data(value.metadata.plugin_data.content)
            if data is not None:
                batch.result.hparams.append(HParamsRecord(record.offset, wall, data))
        # audio and old-style histograms: no page shows them

    def _add_tensor(
        self,
        batch: _Batch,
        record: Record,
        event: tb_event_pb2.Event,
        index: int,
        value: tb_summary_pb2.Summary.Value,
        plugin_name: str,
    ) -> None:
        step, wall, tag, tensor = int(event.step), float(event.wall_time), value.tag, value.tensor
        if plugin_name == TB_HPARAMS:
            return
        scalar = _scalar_of_tensor(tensor, plugin_name)
        if scalar is not None:
            batch.scalar(tag, step, wall, scalar)
        elif plugin_name == TB_HISTOGRAMS:
            histogram_tensor_value(tensor)  # refuse a malformed one now, with its offset
            batch.blob(
                PluginName.HISTOGRAM.value,
                tag,
                step,
                wall,
                record,
                index,
                {META_FORM: FORM_HISTOGRAM_TENSOR},
            )
        elif plugin_name == TB_IMAGES:
            values = tensor.string_val
            if tensor.dtype != _DT_STRING or len(values) < 2:
                raise DecodeError("image tensor holds no width and height")
            width, height = _image_size(values[0], values[1])
            for sample in range(len(values) - 2):
                batch.blob(
                    PluginName.IMAGE.value,
                    sample_tag(tag, sample),
                    step,
                    wall,
                    record,
                    index,
                    {
                        META_FORM: FORM_IMAGE_TENSOR,
                        "sample": sample,
                        "height": height,
                        "width": width,
                    },
                )
        elif tensor.dtype in _DTYPES or (tensor.dtype == _DT_STRING and plugin_name == TB_TEXT):
            dims = list(_shape(tensor))
            name = STRING_DATA_TYPE if tensor.dtype == _DT_STRING else _DTYPES[tensor.dtype][1]
            batch.blob(
                PluginName.TENSOR.value,
                tag,
                step,
                wall,
                record,
                index,
                {META_FORM: FORM_TENSOR, "dims": dims, "data_type": name},
            )
        # other plugins' string tensors (custom scalar layouts, ...): nothing shows them
