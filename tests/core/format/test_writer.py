"""``SummaryWriter`` and its encoders: what it writes reads back equal, and for the same input it
writes what MindSpore 2.10 wrote into ``../shared/corpus``."""

from __future__ import annotations

import functools
import io
import json
import math
import platform
import re
import time
import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from dash_insight.core.format import writer as writer_module
from dash_insight.core.format.events import (
    DecodedLineage,
    HistogramValue,
    ImageValue,
    SummaryEvent,
    TensorValue,
    data_type_name,
    decode_event,
    decode_lineage_event,
    histogram_value,
    tensor_to_numpy,
    user_defined_to_dict,
)
from dash_insight.core.format.files import FileKind, classify
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.format.protos import anf_ir_pb2, lineage_pb2, summary_pb2
from dash_insight.core.format.writer import (
    EVENT_VERSION,
    SummaryWriter,
    calc_histogram_bins,
    dataset_graph,
    eval_lineage,
    fill_histogram,
    train_lineage,
    user_defined_info,
)
from tests.conftest import corpus_files

# --- helpers ------------------------------------------------------------------------------------


def payloads(path: str | Path) -> list[bytes]:
    """Every record payload of a framed file; the file must be intact and complete."""
    reader = RecordReader(path)
    out = [bytes(record.payload) for record in reader.read()]
    assert not reader.result.damage and reader.result.tail is None
    return out


def raw_events(path: str | Path) -> list[summary_pb2.Event]:
    return [summary_pb2.Event.FromString(p) for p in payloads(path)]


def events(path: str | Path) -> list[SummaryEvent]:
    return [decode_event(p) for p in payloads(path)]


def data_events(path: str | Path) -> list[SummaryEvent]:
    """The Events that hold values (no version, no graph)."""
    return [e for e in events(path) if e.version is None and e.graph is None]


def lineage_records(path: str | Path) -> list[DecodedLineage]:
    return [decode_lineage_event(p) for p in payloads(path)]


def the_value(path: str | Path) -> Any:
    """The decoded value of a file holding exactly one data Event with one value."""
    (event,) = data_events(path)
    (value,) = event.values
    return value.value


def files_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def decode_png(encoded: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(encoded))
    assert image.mode == "RGB"
    return np.asarray(image)


def histogram_proto(values: np.ndarray) -> summary_pb2.Summary.Histogram:
    histogram = summary_pb2.Summary.Histogram()
    fill_histogram(values, histogram)
    return histogram


def expected_canvas(images: np.ndarray) -> tuple[int, int]:
    """Canvas (height, width) MindSpore gives N images of HxW: 8 per row."""
    n, _, h, w = images.shape
    return h * math.ceil(n / 8), w * min(n, 8)


def tile(images: np.ndarray) -> np.ndarray:
    """Independent tiling of NCHW images (C in {1, 3}) into an (H, W, 3) float64 canvas, zeros
    where no image is (MindSpore's canvas is float64 whatever the input dtype)."""
    if images.shape[1] == 1:
        images = np.repeat(images, 3, axis=1)
    n, _, h, w = images.shape
    height, width = expected_canvas(images)
    canvas = np.zeros((height, width, 3))
    for i in range(n):
        y, x = divmod(i, 8)
        canvas[y * h : (y + 1) * h, x * w : (x + 1) * w] = images[i].transpose(1, 2, 0)
    return canvas


def mindspore_scaling(canvas: np.ndarray) -> np.ndarray:
    """MindSpore 2.10's ``_fill_image_summary`` scaling, transcribed (NumPy 2 arithmetic, as in
    the environment that wrote the corpus). Its ``tensor.dtype == np.uint8`` test sees the
    float64 canvas, so it never holds and uint8 input is mapped like any other."""
    scale_factor: Any = 1
    shift: Any = 0
    max_value, min_value = np.max(canvas), np.min(canvas)
    if max_value <= 1 and min_value >= 0:
        scale_factor = 255
    else:
        if max_value != min_value:
            scale_factor = 255 / (max_value - min_value + 1)
        shift = min_value
    return ((canvas.astype(np.float32) - shift) * scale_factor).astype(np.uint8)


def expected_pixels(images: np.ndarray) -> np.ndarray:
    """The (H, W, 3) uint8 pixels MindSpore stores for a batch of NCHW images."""
    return mindspore_scaling(tile(images))


def untile(canvas: np.ndarray, n: int, channels: int, h: int, w: int) -> np.ndarray:
    """Split an (H, W, 3) canvas of n tiles back into uint8 NCHW images (channel 0 for gray)."""
    out = np.zeros((n, channels, h, w), np.uint8)
    for i in range(n):
        y, x = divmod(i, 8)
        block = canvas[y * h : (y + 1) * h, x * w : (x + 1) * w]
        if channels == 1:
            assert np.array_equal(block[..., 0], block[..., 1])
            assert np.array_equal(block[..., 0], block[..., 2])
            out[i, 0] = block[..., 0]
        else:
            out[i] = block.transpose(2, 0, 1)
    return out


class ArrayLike:
    """Anything exposing ``__array__`` (numpy's protocol), like a MindSpore or JAX tensor."""

    def __init__(self, data: Any) -> None:
        self._data = np.asarray(data)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)


class FakeTorchTensor:
    """A torch-like tensor: on a device and requiring grad, so ``__array__`` refuses until
    ``.detach().cpu()`` is called, which is what torch users get."""

    def __init__(self, data: Any, *, detached: bool = False, on_cpu: bool = False) -> None:
        self._data = np.asarray(data)
        self.detached = detached
        self.on_cpu = on_cpu

    def detach(self) -> FakeTorchTensor:
        return FakeTorchTensor(self._data, detached=True, on_cpu=self.on_cpu)

    def cpu(self) -> FakeTorchTensor:
        return FakeTorchTensor(self._data, detached=self.detached, on_cpu=True)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if not (self.detached and self.on_cpu):
            raise RuntimeError("Can't call numpy() on Tensor that requires grad / is on cuda")
        return self._data if dtype is None else self._data.astype(dtype)


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "run"


# --- round trip: scalars --------------------------------------------------------------------------

SCALARS = [
    0.1,
    -2.5,
    1 / 3,
    1e-8,
    3.0e38,
    0.0,
    -0.0,
    7,
    np.int64(-12),
    np.float64(2.0**-30),
    np.float16(0.333),
    np.float32(1e-45),
    True,
    float("inf"),
    float("-inf"),
    float("nan"),
]


@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_scalar_round_trip_is_float32(log_dir: Path, value: Any) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_scalar("s", value, step=4)
    back = the_value(writer.summary_path)
    expected = float(np.float32(value))
    if math.isnan(expected):
        assert math.isnan(back)
    else:
        assert back == expected
        assert math.copysign(1, back) == math.copysign(1, expected)


def test_scalar_from_0d_and_1_element_arrays(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer, warnings.catch_warnings():
        warnings.simplefilter("error")  # one element: no warning
        writer.add_value("scalar", "a", np.array(2.5))
        writer.add_value("scalar", "b", np.array([[4.0]], dtype=np.float16))
        writer.add_value("scalar", "c", [9])
        writer.record(1)
    (event,) = data_events(writer.summary_path)
    assert [(v.tag, v.value) for v in event.values] == [("a", 2.5), ("b", 4.0), ("c", 9.0)]


def test_scalar_of_larger_array_is_first_element_with_warning(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer, pytest.warns(UserWarning, match=r"'m'.*first element"):
        writer.add_scalar("m", np.array([[3.5, 1.0], [2.0, 9.0]]), step=1)
    assert the_value(writer.summary_path) == 3.5


def test_empty_scalar_is_dropped_with_warning(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        with pytest.warns(UserWarning, match=r"'e'.*no value"):
            writer.add_scalar("e", np.zeros((0, 3)), step=1)
        writer.add_scalar("kept", 1.0, step=2)
        writer.flush()
        with pytest.warns(UserWarning):
            writer.add_value("scalar", "e", [])
        writer.record(3)  # nothing queued: no Event
    found = [(e.step, [v.tag for v in e.values]) for e in data_events(writer.summary_path)]
    assert found == [(2, ["kept"])]


# --- round trip: histograms -----------------------------------------------------------------------


def _histogram_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    with_invalid = rng.normal(size=500).astype(np.float32)
    with_invalid[[3, 40, 41]] = np.nan
    with_invalid[[7, 8]] = np.inf
    with_invalid[100] = -np.inf
    return {
        "normal_f32": rng.normal(size=(40, 50)).astype(np.float32),
        "uniform_f64": rng.uniform(-3, 5, size=1234),
        "f16": rng.normal(size=400).astype(np.float16),
        "int32": rng.integers(-50, 50, size=300, dtype=np.int32),
        "uint8": rng.integers(0, 255, size=77, dtype=np.uint8),
        "nan_inf": with_invalid,
        "constant": np.full(50, 0.25, np.float32),
        "single": np.array([4.0], np.float32),
        "five": np.arange(5, dtype=np.float32),
        "ten": np.arange(10, dtype=np.float64),
        "all_nan": np.full(20, np.nan, np.float32),
        "empty": np.zeros(0, np.float32),
    }


HISTOGRAM_INPUTS = _histogram_inputs()


@pytest.mark.parametrize("name", list(HISTOGRAM_INPUTS))
def test_histogram_round_trip(log_dir: Path, name: str) -> None:
    values = HISTOGRAM_INPUTS[name]
    with SummaryWriter(log_dir) as writer:
        writer.add_histogram("h", values, step=2)
    back = the_value(writer.summary_path)
    assert isinstance(back, HistogramValue)

    flat = values.reshape(-1)
    finite = flat[np.isfinite(flat)] if flat.dtype.kind == "f" else flat
    (event,) = [e for e in raw_events(writer.summary_path) if e.WhichOneof("what") == "summary"]
    proto = event.summary.value[0].histogram
    # MindSpore sets the counts even when 0 (proto2 presence: they are in the bytes)
    assert all(proto.HasField(f) for f in ("count", "nan_count", "pos_inf_count", "neg_inf_count"))
    assert all(proto.HasField(f) == bool(finite.size) for f in ("min", "max", "sum"))
    assert back.count == flat.size
    assert back.nan_count == np.count_nonzero(np.isnan(flat))
    assert back.pos_inf_count == np.count_nonzero(np.isposinf(flat))
    assert back.neg_inf_count == np.count_nonzero(np.isneginf(flat))
    if not finite.size:
        assert back.buckets.shape == (0, 3)
        assert (back.min, back.max, back.sum) == (0, 0, 0)
        return
    assert back.min == float(finite.min())
    assert back.max == float(finite.max())
    assert back.sum == pytest.approx(float(finite.sum(dtype=np.float64)), rel=1e-12)
    bins = calc_histogram_bins(finite.size)
    lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1, dtype=flat.dtype)
    counts, _ = np.histogram(finite, bins=edges)
    assert len(back.buckets) == bins
    np.testing.assert_array_equal(back.buckets[:, 0], edges[:-1].astype(np.float64))
    np.testing.assert_allclose(back.buckets[:, 1], np.diff(edges).astype(np.float64))
    np.testing.assert_array_equal(back.buckets[:, 2], counts)
    assert back.buckets[:, 2].sum() == finite.size


@pytest.mark.parametrize(
    ("count", "bins"),
    [(0, 1), (1, 2), (5, 2), (6, 3), (10, 3), (11, 2), (99, 10), (880, 89), (881, 90), (10**6, 90)],
)
def test_calc_histogram_bins(count: int, bins: int) -> None:
    assert calc_histogram_bins(count) == bins


# --- round trip: images ---------------------------------------------------------------------------


def test_image_float_in_unit_range_is_scaled_by_255(log_dir: Path) -> None:
    rng = np.random.default_rng(1)
    images = rng.uniform(0, 1, size=(3, 3, 10, 12)).astype(np.float32)
    images[0, :, 0, 0] = 1.0
    with SummaryWriter(log_dir) as writer:
        writer.add_image("img", images, step=1)
    back = the_value(writer.summary_path)
    assert isinstance(back, ImageValue)
    assert (back.height, back.width, back.colorspace) == (10, 36, 3)
    expected = tile(images).astype(np.float32) * np.float32(255)
    np.testing.assert_array_equal(decode_png(back.encoded), expected.astype(np.uint8))
    np.testing.assert_array_equal(decode_png(back.encoded), expected_pixels(images))


@pytest.mark.parametrize(("low", "high"), [(-4.0, 4.0), (0.0, 1000.0), (-1e-3, 0.5), (2.0, 3.0)])
def test_image_out_of_unit_range_is_mapped_linearly(log_dir: Path, low: float, high: float) -> None:
    """Not all in [0, 1]: ``(x - min) * 255 / (max - min + 1)``; ``ops_all``'s
    ``images/out_of_range`` (values 0..226, about equally often) is such a mapping of a range
    of about 8."""
    images = np.random.default_rng(5).uniform(low, high, size=(2, 3, 12, 12)).astype(np.float32)
    images[0, 0, 0, :2] = low, high
    with SummaryWriter(log_dir) as writer:
        writer.add_image("img", images, step=1)
    pixels = decode_png(the_value(writer.summary_path).encoded)
    np.testing.assert_array_equal(pixels, expected_pixels(images))
    assert pixels.min() == 0
    assert pixels.max() == math.floor(255 * (high - low) / (high - low + 1))


@pytest.mark.parametrize("value", [7.0, -3.0, 250.0])
def test_constant_image_outside_unit_range_is_black(log_dir: Path, value: float) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_image("img", np.full((1, 1, 4, 6), value), step=1)
    np.testing.assert_array_equal(decode_png(the_value(writer.summary_path).encoded), 0)


def test_image_non_finite_values_become_black(log_dir: Path) -> None:
    images = np.full((1, 3, 2, 2), 0.5, np.float32)
    images[0, 0, 0, 0] = np.nan
    with SummaryWriter(log_dir) as writer:
        writer.add_image("img", images, step=1)
    back = the_value(writer.summary_path)
    assert (back.height, back.width) == (2, 2)
    np.testing.assert_array_equal(decode_png(back.encoded), 0)


@pytest.mark.parametrize(
    ("shape", "dataformats"),
    [
        ((5, 1, 7, 9), "NCHW"),
        ((5, 3, 7, 9), "NCHW"),
        ((5, 7, 9, 3), "NHWC"),
        ((11, 7, 9, 1), "NHWC"),
        ((2, 3, 7, 9), "nchw"),
    ],
)
def test_image_uint8_round_trip(log_dir: Path, shape: tuple[int, ...], dataformats: str) -> None:
    """uint8 0..254 (with a 0 and a 254) maps to itself: 255 / (254 - 0 + 1) == 1."""
    rng = np.random.default_rng(2)
    images = rng.integers(0, 255, size=shape, dtype=np.uint8)
    images.reshape(-1)[:2] = 0, 254
    with SummaryWriter(log_dir) as writer:
        writer.add_image("img", images, step=1, dataformats=dataformats)
    nchw = images.transpose([dataformats.upper().index(c) for c in "NCHW"])
    back = the_value(writer.summary_path)
    assert (back.height, back.width, back.colorspace) == (*expected_canvas(nchw), 3)
    pixels = decode_png(back.encoded)
    np.testing.assert_array_equal(pixels, tile(nchw).astype(np.uint8))
    np.testing.assert_array_equal(pixels, expected_pixels(nchw))


@pytest.mark.parametrize(("low", "high"), [(0, 255), (10, 200), (0, 1), (3, 3)])
def test_image_uint8_is_mapped_as_mindspore(log_dir: Path, low: int, high: int) -> None:
    """MindSpore maps uint8 input too: 0..255 -> floor(x * 255 / 256), so 0 and 1 both give 0;
    ``images/uint8_2x3x20x40`` in ``ops_all`` shows it (max 254, the 0 twice as frequent)."""
    images = np.random.default_rng(6).integers(low, high + 1, size=(3, 3, 8, 8), dtype=np.uint8)
    images.reshape(-1)[:2] = low, high
    with SummaryWriter(log_dir) as writer:
        writer.add_image("img", images, step=1)
    pixels = decode_png(the_value(writer.summary_path).encoded)
    np.testing.assert_array_equal(pixels, expected_pixels(images))
    if (low, high) == (0, 255):
        canvas = tile(images)
        np.testing.assert_array_equal(pixels, np.floor(canvas * 255 / 256))
    elif (low, high) == (0, 1):
        assert set(np.unique(pixels)) == {0, 255}


@pytest.mark.parametrize(
    "shape",
    [
        (3, 10, 12),
        (2, 2, 10, 12),
        (1, 4, 5, 5),
        (1, 1, 2, 3, 4),
        (0, 3, 4, 4),
        (2, 1, 0, 4),
        (2, 3, 4, 0),
    ],
)
def test_image_bad_shape_raises(log_dir: Path, shape: tuple[int, ...]) -> None:
    with SummaryWriter(log_dir) as writer, pytest.raises(ValueError, match="images must"):
        writer.add_image("img", np.zeros(shape, np.uint8), step=1)


# --- round trip: tensors --------------------------------------------------------------------------

TENSOR_DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
]


@pytest.mark.parametrize("dtype", TENSOR_DTYPES, ids=lambda d: np.dtype(d).name)
def test_tensor_round_trip_keeps_dtype(log_dir: Path, dtype: type) -> None:
    rng = np.random.default_rng(3)
    if dtype is np.bool_:
        values = rng.integers(0, 2, size=(2, 3, 4)).astype(np.bool_)
    elif np.issubdtype(dtype, np.integer):
        low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -100
        values = rng.integers(low, 100, size=(2, 3, 4)).astype(dtype)
    else:
        values = rng.normal(scale=10, size=(2, 3, 4)).astype(dtype)
    with SummaryWriter(log_dir) as writer:
        writer.add_tensor("t", values, step=9)
    back = the_value(writer.summary_path)
    assert isinstance(back, TensorValue)
    assert back.array.dtype == np.dtype(dtype)
    assert back.dims == (2, 3, 4)
    assert back.data_type == data_type_name(writer_module.DATATYPE_OF_NUMPY[np.dtype(dtype)])
    np.testing.assert_array_equal(back.array.astype(np.float32), values.astype(np.float32))
    if dtype is not np.float64:  # every other dtype fits float32 exactly here
        np.testing.assert_array_equal(back.array, values)


@pytest.mark.parametrize(
    "values",
    [
        np.float32(2.5),
        np.zeros((0, 4), np.int32),
        np.array([np.nan, np.inf, -np.inf, -0.0], np.float32),
    ],
    ids=["0d", "empty", "non_finite"],
)
def test_tensor_edge_shapes_and_values(log_dir: Path, values: np.ndarray) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_tensor("t", values, step=1)
    back = the_value(writer.summary_path)
    assert back.dims == np.shape(values)
    assert back.array.dtype == np.asarray(values).dtype
    np.testing.assert_array_equal(back.array, values)
    np.testing.assert_array_equal(np.signbit(back.array), np.signbit(values))


def test_tensor_unsupported_dtype_raises(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer, pytest.raises(ValueError, match="unsupported"):
        writer.add_tensor("t", np.zeros(3, np.complex64), step=1)


# --- round trip: graphs ---------------------------------------------------------------------------


def _small_graph() -> anf_ir_pb2.GraphProto:
    graph = anf_ir_pb2.GraphProto(name="7_net_construct_1")
    graph.parameters.add(name="fc.weight")
    node = graph.node.add(name="1", op_type="MatMul", scope="Default/network-Net/fc")
    node.input.add(name="x")
    node.input.add(name="fc.weight")
    graph.outputs.add()
    return graph


@pytest.mark.parametrize("form", ["GraphProto", "ModelProto", "bytes"])
def test_graph_round_trip_is_its_own_event_at_step_0(log_dir: Path, form: str) -> None:
    graph = _small_graph()
    model = anf_ir_pb2.ModelProto(ir_version=1, graph=graph)
    given = {"GraphProto": graph, "ModelProto": model, "bytes": model.SerializeToString()}[form]
    with SummaryWriter(log_dir) as writer:
        writer.add_scalar("loss", 1.0, step=5)
        writer.add_graph(given)
        writer.add_value("graph", "ignored", given)
    raw = raw_events(writer.summary_path)
    assert [e.WhichOneof("what") for e in raw] == ["version", "graph_def", "graph_def", "summary"]
    for event in raw[1:3]:
        assert event.graph_def == graph
        assert not event.HasField("step")
        assert event.step == 0
    assert raw[3].step == 5


def test_graph_of_wrong_type_raises(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer, pytest.raises(TypeError, match="GraphProto"):
        writer.add_graph("not a graph")  # type: ignore[arg-type]


# --- round trip: lineage --------------------------------------------------------------------------

PIPELINE: dict[str, Any] = {
    "op_type": "Batch",
    "num_parallel_workers": 2,
    "drop_remainder": True,
    "batch_size": 32,
    "children": [
        {
            "op_type": "Map",
            "input_columns": ["image"],
            "output_columns": ["image", None],
            "operations": [
                {"tensor_op_name": "Resize", "tensor_op_params": {"size": [32, 32]}},
                {"tensor_op_name": "Normalize", "mean": [0.5, 0.25], "std": [0.5, 1]},
                {"tensor_op_name": "Crop", "size": [24, 24], "padding": None},
            ],
            "children": [
                {
                    "op_type": "MnistDataset",
                    "dataset_dir": "/data/mnist",
                    "num_samples": None,
                    "shuffle": False,
                    "ratio": 0.75,
                    "sampler": {
                        "sampler_name": "RandomSampler",
                        "num_samples": 100,
                        "replacement": False,
                    },
                    "children": [],
                }
            ],
        }
    ],
}

PIPELINE_DECODED: dict[str, Any] = {
    "op_type": "Batch",
    "num_parallel_workers": 2,
    "drop_remainder": True,
    "batch_size": 32,
    "children": [
        {
            "op_type": "Map",
            "input_columns": ['"image"'],
            "output_columns": ['"image"', None],
            "operations": [
                {"tensor_op_name": "Resize", "tensor_op_params": '{"size": [32, 32]}'},
                {"tensor_op_name": "Normalize", "weights": [0.5, 0.25, 0.5, 1.0]},
                {"tensor_op_name": "Crop", "size": [24, 24], "padding": None},
            ],
            "children": [
                {
                    "op_type": "MnistDataset",
                    "dataset_dir": "/data/mnist",
                    "num_samples": None,
                    "shuffle": False,
                    "ratio": 0.75,
                    "sampler": {
                        "sampler_name": "RandomSampler",
                        "num_samples": 100,
                        "replacement": False,
                    },
                    "children": [],
                }
            ],
        }
    ],
}


def test_lineage_round_trip_all_four_kinds(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_dataset_graph(PIPELINE)
        writer.add_custom_lineage(
            {"experiment": "sweep", "seed": 5, "dropout": 0.25, "flag": True, "notes": "a, b"}
        )
        writer.add_train_lineage(
            optimizer="Momentum",
            learning_rate=0.05,
            loss_function="SoftmaxCrossEntropy",
            epoch=3,
            parallel_mode="stand_alone",
            device_num=1,
            batch_size=32,
            train_dataset_path="/data/mnist",
            train_dataset_size=512,
            network="LeNet5",
            loss=1.25,
            model_path="/ckpt/lenet-3_16.ckpt",
            model_size=494183,
        )
        writer.add_eval_lineage(
            {"Accuracy": 0.6953125, "Loss": 1.2452679872512817},
            valid_dataset_path="/data/mnist",
            valid_dataset_size=128,
        )
        writer.flush()
    assert not Path(writer.summary_path).exists()
    records = lineage_records(writer.lineage_path)
    assert [r.kind for r in records] == [
        "dataset_graph",
        "user_defined_info",
        "train_lineage",
        "evaluation_lineage",
    ]
    dataset, custom, train, evaluation = (r.data for r in records)
    assert dataset == PIPELINE_DECODED
    assert custom == {
        "experiment": "sweep",
        "seed": 5,
        "dropout": 0.25,
        "flag": "True",
        "notes": "a, b",
    }
    assert train == {
        "hyper_parameters": {
            "optimizer": "Momentum",
            "learning_rate": float(np.float32(0.05)),
            "loss_function": "SoftmaxCrossEntropy",
            "epoch": 3,
            "parallel_mode": "stand_alone",
            "device_num": 1,
            "batch_size": 32,
        },
        "train_dataset": {"train_dataset_path": "/data/mnist", "train_dataset_size": 512},
        "algorithm": {"network": "LeNet5", "loss": 1.25},
        "model": {"path": '{"ckpt": "/ckpt/lenet-3_16.ckpt"}', "size": 494183},
    }
    assert evaluation == {
        "metric": {"Accuracy": 0.6953125, "Loss": 1.2452679872512817},
        "valid_dataset": {"valid_dataset_path": "/data/mnist", "valid_dataset_size": 128},
    }
    raw = [lineage_pb2.LineageEvent.FromString(p) for p in payloads(writer.lineage_path)]
    assert not any(event.HasField("step") for event in raw)
    assert all(event.wall_time > 0 for event in raw)


def test_lineage_through_add_value_dicts_and_messages(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_value("train_lineage", "x", {"network": "Net", "epoch": 2})
        writer.add_value("eval_lineage", "x", {"metric": {"acc": 0.5}})
        writer.add_value("dataset_graph", "x", {"op_type": "Batch", "children": []})
        writer.add_value("custom_lineage_data", "x", {"k": 1})
        writer.add_value("train_lineage", "x", train_lineage(network="AsMessage"))
        writer.record(1)  # lineage is written on record()
        writer.flush()
        assert [r.kind for r in lineage_records(writer.lineage_path)] == [
            "train_lineage",
            "evaluation_lineage",
            "dataset_graph",
            "user_defined_info",
            "train_lineage",
        ]
    records = lineage_records(writer.lineage_path)
    assert records[0].data == {"hyper_parameters": {"epoch": 2}, "algorithm": {"network": "Net"}}
    assert records[1].data == {"metric": {"acc": 0.5}}
    assert records[2].data == {"op_type": "Batch", "children": []}
    assert records[3].data == {"k": 1}
    assert records[4].data == {"algorithm": {"network": "AsMessage"}}


# --- event structure ------------------------------------------------------------------------------


def test_add_value_and_record_put_all_values_in_one_event(log_dir: Path) -> None:
    rng = np.random.default_rng(4)
    with SummaryWriter(log_dir) as writer:
        writer.add_value("scalar", "loss", 0.5)
        writer.add_value("scalar", "acc", 0.75)
        writer.add_value("histogram", "w", rng.normal(size=100))
        writer.add_value("tensor", "t", np.arange(6).reshape(2, 3))
        writer.add_value("image", "img", rng.uniform(size=(2, 3, 4, 4)))
        writer.record(3)
        writer.add_value("scalar", "loss", 0.25)
        writer.record(4)
    found = data_events(writer.summary_path)
    assert [e.step for e in found] == [3, 4]
    assert [(v.tag, v.plugin) for v in found[0].values] == [
        ("loss", "scalar"),
        ("acc", "scalar"),
        ("w", "histogram"),
        ("t", "tensor"),
        ("img", "image"),
    ]
    assert [(v.tag, v.value) for v in found[1].values] == [("loss", 0.25)]
    raw = raw_events(writer.summary_path)
    assert all(e.HasField("step") for e in raw if e.WhichOneof("what") == "summary")


def test_values_of_one_event_are_grouped_by_plugin_as_mindspore(log_dir: Path) -> None:
    """MindSpore keeps one list per plugin (in the order plugins were first added) and writes
    them list after list; ``ops_in_net`` step 2 shows it: the network's image op value sits
    between the collector's image and scalar although both came from other sources."""
    with SummaryWriter(log_dir) as writer:
        writer.add_value("image", "input_data/auto", np.zeros((1, 3, 2, 2), np.uint8))
        writer.add_value("scalar", "loss/auto", 1.0)
        writer.add_value("histogram", "conv.weight/auto", np.arange(4.0))
        writer.add_value("image", "op/input_image", np.zeros((1, 3, 2, 2), np.uint8))
        writer.add_value("scalar", "op/activation_max", 2.0)
        writer.add_value("tensor", "op/logits", np.zeros(2, np.float32))
        writer.add_value("histogram", "op/conv_activation", np.arange(3.0))
        writer.record(2)
    (event,) = data_events(writer.summary_path)
    assert [v.tag for v in event.values] == [
        "input_data/auto",
        "op/input_image",
        "loss/auto",
        "op/activation_max",
        "conv.weight/auto",
        "op/conv_activation",
        "op/logits",
    ]


def test_tensorboard_style_writes_one_event_per_step(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        for step in range(1, 6):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.add_scalar("acc", step / 10, step)
            if step % 2:
                writer.add_histogram("w", np.arange(step + 1.0), step)
    found = data_events(writer.summary_path)
    assert [e.step for e in found] == [1, 2, 3, 4, 5]
    for event in found:
        tags = [v.tag for v in event.values]
        assert tags == (["loss", "acc", "w"] if event.step % 2 else ["loss", "acc"])
        assert event.values[0].value == pytest.approx(1.0 / event.step, rel=1e-7)


def test_record_rejects_non_int_step(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_value("scalar", "a", 1.0)
        for bad in (1.5, "3", True, None):
            with pytest.raises(TypeError, match="step"):
                writer.record(bad)  # type: ignore[arg-type]
        writer.record(np.int64(7))
    assert [e.step for e in data_events(writer.summary_path)] == [7]


def test_unknown_plugin_and_bad_tag_raise(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        with pytest.raises(ValueError, match="unknown plugin"):
            writer.add_value("audio", "a", 1.0)
        for tag in ("", None, 3):
            with pytest.raises(ValueError, match="tag"):
                writer.add_value("scalar", tag, 1.0)  # type: ignore[arg-type]


def test_flush_makes_records_readable_while_writer_is_open(log_dir: Path) -> None:
    writer = SummaryWriter(log_dir)
    try:
        writer.add_scalar("loss", 0.5, step=1)
        writer.add_histogram("w", np.arange(10.0), step=1)
        writer.add_custom_lineage({"seed": 1})
        writer.flush()
        reader = RecordReader(writer.summary_path)
        first = [decode_event(r.payload) for r in reader.read()]
        assert reader.result.tail is None and not reader.result.damage
        assert first[0].version == EVENT_VERSION
        assert [(e.step, [v.tag for v in e.values]) for e in first[1:]] == [(1, ["loss", "w"])]
        assert [r.kind for r in lineage_records(writer.lineage_path)] == ["user_defined_info"]

        writer.add_scalar("loss", 0.25, step=2)  # still pending: not on disk before flush()
        assert list(reader.read()) == []
        writer.flush()
        later = [decode_event(r.payload) for r in reader.read()]
        assert [(e.step, [v.tag for v in e.values]) for e in later] == [(2, ["loss"])]
        assert reader.result.tail is None

        writer.add_value("scalar", "queued", 1.0)  # MindSpore style: waits for record()
        writer.flush()
        assert list(reader.read()) == []
        writer.record(3)
        writer.flush()
        assert [decode_event(r.payload).step for r in reader.read()] == [3]
    finally:
        writer.close()


def test_close_writes_values_never_recorded_at_step_0(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_value("scalar", "late", 2.0)
    found = data_events(writer.summary_path)
    assert [(e.step, [v.tag for v in e.values]) for e in found] == [(0, ["late"])]


def test_first_record_is_the_version_event(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_scalar("a", 1.0, step=1)
    raw = raw_events(writer.summary_path)
    assert raw[0].WhichOneof("what") == "version"
    assert raw[0].version == EVENT_VERSION == "MindSpore.Event:1"
    assert not raw[0].HasField("step")
    assert raw[0].wall_time == pytest.approx(time.time(), abs=60)
    assert [e.WhichOneof("what") for e in raw[1:]] == ["summary"]


def test_no_lineage_file_without_lineage(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_scalar("a", 1.0, step=1)
        writer.add_graph(_small_graph())
    assert files_in(log_dir) == [Path(writer.summary_path).name]
    assert not Path(writer.lineage_path).exists()


def test_no_summary_file_with_only_lineage(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.add_custom_lineage({"a": 1})
        writer.record(1)
    assert files_in(log_dir) == [Path(writer.lineage_path).name]
    assert not Path(writer.summary_path).exists()


def test_nothing_recorded_creates_no_file(log_dir: Path) -> None:
    with SummaryWriter(log_dir) as writer:
        writer.record(1)
        writer.flush()
    assert log_dir.is_dir()
    assert files_in(log_dir) == []


@pytest.mark.parametrize(
    ("prefix", "device_id", "host"), [("events", 0, "vm"), ("run-a", 3, "node-1.example")]
)
def test_file_names(log_dir: Path, prefix: str, device_id: int, host: str) -> None:
    before = int(time.time())
    with SummaryWriter(log_dir, file_prefix=prefix, device_id=device_id, host=host) as writer:
        writer.add_scalar("a", 1.0, step=1)
        writer.add_custom_lineage({"a": 1})
    after = int(time.time())
    pattern = re.compile(
        rf"^{re.escape(prefix)}\.out\.events\.summary\.(\d+)\.{device_id}\.{re.escape(host)}"
        r"(_MS|_lineage)$"
    )
    names = files_in(log_dir)
    assert len(names) == 2
    matches = [pattern.match(name) for name in names]
    assert all(matches)
    stamps = {int(m.group(1)) for m in matches if m}
    assert len(stamps) == 1 and before <= stamps.pop() <= after + 1
    assert {m.group(2) for m in matches if m} == {"_MS", "_lineage"}
    assert classify(Path(writer.summary_path).name) is FileKind.SUMMARY
    assert classify(Path(writer.lineage_path).name) is FileKind.LINEAGE


def test_chosen_file_name_timestamp(log_dir: Path) -> None:
    """``timestamp`` names the files (jobs order files by it); a taken name still moves on."""
    with SummaryWriter(log_dir, host="vm", timestamp=1_700_000_000) as first:
        first.add_scalar("a", 1.0, step=1)
        first.add_custom_lineage({"a": 1})
    assert Path(first.summary_path).name == "events.out.events.summary.1700000000.0.vm_MS"
    assert Path(first.lineage_path).name == "events.out.events.summary.1700000000.0.vm_lineage"
    with SummaryWriter(log_dir, host="vm", timestamp=1_700_000_000) as second:
        second.add_scalar("a", 2.0, step=1)
    assert Path(second.summary_path).name == "events.out.events.summary.1700000001.0.vm_MS"
    assert the_value(first.summary_path) == 1.0 and the_value(second.summary_path) == 2.0
    for bad in (-1, 1.5, True, "1700000000"):
        with pytest.raises(ValueError, match="timestamp"):
            SummaryWriter(log_dir, timestamp=bad)  # type: ignore[arg-type]


def test_default_host_is_the_node_name(log_dir: Path) -> None:
    writer = SummaryWriter(log_dir)
    writer.close()
    node = platform.node() or "localhost"
    assert Path(writer.summary_path).name.endswith(f".0.{node}_MS")


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> float:
    """The writer sees one fixed second (as if everything happened within it)."""
    now = 1795324654.25
    monkeypatch.setattr(writer_module, "time", types.SimpleNamespace(time=lambda: now))
    return now


def test_two_writers_in_the_same_second_one_after_the_other(
    log_dir: Path, frozen_clock: float
) -> None:
    with SummaryWriter(log_dir, host="vm") as first:
        first.add_scalar("run", 1.0, step=1)
        first.add_custom_lineage({"run": 1})
    with SummaryWriter(log_dir, host="vm") as second:
        second.add_scalar("run", 2.0, step=1)
        second.add_custom_lineage({"run": 2})
    assert first.summary_path != second.summary_path
    assert first.lineage_path != second.lineage_path
    assert len(files_in(log_dir)) == 4
    assert the_value(first.summary_path) == 1.0
    assert the_value(second.summary_path) == 2.0
    assert [r.data for r in lineage_records(first.lineage_path)] == [{"run": 1}]
    assert [r.data for r in lineage_records(second.lineage_path)] == [{"run": 2}]


def test_two_writers_open_at_once_in_the_same_second(log_dir: Path, frozen_clock: float) -> None:
    """Both writers are created before either writes (files are created lazily, so the second
    writer cannot see the first one's file at construction)."""
    writers = [SummaryWriter(log_dir, host="vm") for _ in range(3)]
    for i, writer in enumerate(writers):
        writer.add_scalar("run", float(i), step=1)
        writer.flush()
    for i, writer in enumerate(reversed(writers)):
        writer.add_custom_lineage({"run": i})
        writer.close()
    assert len({w.summary_path for w in writers}) == 3
    assert len({w.lineage_path for w in writers}) == 3
    assert len(files_in(log_dir)) == 6
    for i, writer in enumerate(writers):
        assert the_value(writer.summary_path) == float(i)
        assert [r.data for r in lineage_records(writer.lineage_path)] == [{"run": 2 - i}]
        assert Path(writer.summary_path).name.startswith("events.out.events.summary.17953246")


def test_array_like_inputs(log_dir: Path) -> None:
    weights = np.linspace(-1, 1, 30, dtype=np.float32).reshape(5, 6)
    image = np.full((1, 3, 4, 4), 200, np.uint8)
    with SummaryWriter(log_dir) as writer:
        for kind, wrap in (("array", ArrayLike), ("torch", FakeTorchTensor)):
            writer.add_value("scalar", f"{kind}/s", wrap(np.array([0.5], np.float32)))
            writer.add_value("histogram", f"{kind}/h", wrap(weights))
            writer.add_value("tensor", f"{kind}/t", wrap(weights))
            writer.add_value("image", f"{kind}/i", wrap(image))
        writer.record(1)
    (event,) = data_events(writer.summary_path)
    values = {v.tag: v.value for v in event.values}
    reference = histogram_value(histogram_proto(weights))
    for kind in ("array", "torch"):
        assert values[f"{kind}/s"] == 0.5
        np.testing.assert_array_equal(values[f"{kind}/h"].buckets, reference.buckets)
        assert values[f"{kind}/t"].array.dtype == np.float32
        np.testing.assert_array_equal(values[f"{kind}/t"].array, weights)
        np.testing.assert_array_equal(
            decode_png(values[f"{kind}/i"].encoded), expected_pixels(image)
        )


def test_fake_torch_tensor_needs_detach_and_cpu() -> None:
    with pytest.raises(RuntimeError):
        np.asarray(FakeTorchTensor([1.0]))
    np.testing.assert_array_equal(writer_module.to_numpy(FakeTorchTensor([1.0, 2.0])), [1.0, 2.0])


def test_closed_writer_raises(log_dir: Path) -> None:
    writer = SummaryWriter(log_dir)
    writer.add_scalar("a", 1.0, step=1)
    writer.close()
    writer.close()  # a second close is a no-op
    calls = [
        lambda: writer.add_scalar("a", 1.0, step=2),
        lambda: writer.add_histogram("h", np.zeros(3), step=2),
        lambda: writer.add_image("i", np.zeros((1, 1, 2, 2)), step=2),
        lambda: writer.add_tensor("t", np.zeros(3), step=2),
        lambda: writer.add_value("scalar", "a", 1.0),
        lambda: writer.add_graph(_small_graph()),
        lambda: writer.add_train_lineage(network="n"),
        lambda: writer.add_eval_lineage({"a": 1.0}),
        lambda: writer.add_dataset_graph({"op_type": "Batch"}),
        lambda: writer.add_custom_lineage({"a": 1}),
        lambda: writer.record(2),
        writer.flush,
    ]
    for call in calls:
        with pytest.raises(ValueError, match="closed"):
            call()
    assert [e.step for e in data_events(writer.summary_path)] == [1]


# --- same output as MindSpore (../shared/corpus) --------------------------------------------------


@functools.cache
def corpus_events(path: Path) -> tuple[summary_pb2.Event, ...]:
    return tuple(raw_events(path))


def corpus_values(corpus: Path, job: str, tag: str) -> list[tuple[int, summary_pb2.Summary.Value]]:
    """(step, value) of every value with ``tag`` in the job's summary file(s)."""
    out = []
    for path in sorted((corpus / job).glob("*_MS")):
        for event in corpus_events(path):
            out.extend((event.step, value) for value in event.summary.value if value.tag == tag)
    assert out, f"{job} has no tag {tag!r}"
    return out


def written_events(writer: SummaryWriter) -> list[summary_pb2.Event]:
    return [e for e in raw_events(writer.summary_path) if e.WhichOneof("what") == "summary"]


def test_histogram_of_tensor_equals_mindspores_histogram(corpus: Path, log_dir: Path) -> None:
    """ops_in_net: the TensorSummary of the conv weight and SummaryCollector's histogram of the
    same parameter at the same step; our histogram of the tensor is MindSpore's, bit for bit."""
    tensors = corpus_values(corpus, "ops_in_net", "op/conv_weight")
    histograms = corpus_values(corpus, "ops_in_net", "conv.weight/auto")
    assert len(tensors) == 17
    corpus_bytes = {h.histogram.SerializeToString(deterministic=True) for _, h in histograms}
    with SummaryWriter(log_dir) as writer:
        for step, value in tensors:
            array = tensor_to_numpy(value.tensor)
            assert array.dtype == np.float32 and array.shape == (4, 1, 3, 3)
            ours = histogram_proto(array)
            same_step = [h.histogram for s, h in histograms if s == step]
            assert same_step and all(ours == h for h in same_step), f"step {step}"
            assert ours.SerializeToString(deterministic=True) in corpus_bytes
            writer.add_histogram("conv.weight/auto", array, step)
    written = written_events(writer)
    assert len(written) == 17
    for event, (step, _) in zip(written, tensors, strict=True):
        (value,) = event.summary.value
        assert event.step == step
        assert next(h.histogram for s, h in histograms if s == step) == value.histogram


def _histogram_dtype(path: Path, tag: str) -> type:
    if path.parent.name == "ops_all":
        return {"hist/float16": np.float16, "hist/int32": np.int32}.get(tag, np.float32)
    return np.float32


@pytest.mark.parametrize(
    "path", corpus_files("**/*_MS"), ids=lambda p: f"{p.parent.name}/{p.name.split('.')[4]}"
)
def test_histogram_edges_follow_mindspores_rule(corpus: Path, path: Path) -> None:
    checked = 0
    for event in corpus_events(path):
        for value in event.summary.value:
            if value.WhichOneof("value") != "histogram":
                continue
            h = value.histogram
            valid = h.count - h.nan_count - h.pos_inf_count - h.neg_inf_count
            left = np.array([b.left for b in h.buckets])
            width = np.array([b.width for b in h.buckets])
            if not valid:
                assert len(h.buckets) == 0
                continue
            lo, hi = h.min, h.max
            if not lo < hi:
                lo, hi = lo - 0.5, hi + 0.5
            dtype = _histogram_dtype(path, value.tag)
            edges = np.linspace(lo, hi, calc_histogram_bins(valid) + 1, dtype=dtype)
            where = f"{value.tag} step {event.step}"
            np.testing.assert_array_equal(left, edges[:-1].astype(np.float64), err_msg=where)
            np.testing.assert_allclose(width, np.diff(edges).astype(np.float64), err_msg=where)
            assert sum(b.count for b in h.buckets) == valid, where
            checked += 1
    assert checked  # every corpus summary file holds histograms


@pytest.mark.parametrize("tag", ["hist/constant", "hist/single_value", "hist/all_nan"])
def test_reconstructed_histograms_equal_mindspores(corpus: Path, log_dir: Path, tag: str) -> None:
    found = corpus_values(corpus, "ops_all", tag)
    assert len(found) == 51
    with SummaryWriter(log_dir) as writer:
        for step, value in found:
            h = value.histogram
            if tag == "hist/all_nan":
                array = np.full(h.count, np.nan, np.float32)
            else:
                array = np.full(h.count, h.min, np.float32)
            ours = histogram_proto(array)
            assert ours == h, f"step {step}"
            assert ours.SerializeToString(deterministic=True) == h.SerializeToString(
                deterministic=True
            )
            writer.add_histogram(tag, array, step)
    for event, (step, value) in zip(written_events(writer), found, strict=True):
        assert event.step == step
        assert event.summary.value[0] == value


CORPUS_IMAGES = [  # tag, N, C, H, W of what ops_all passed to add_value; whether its canvas is
    # 0..254 (with both ends), which MindSpore's mapping of uint8 input leaves unchanged
    ("images/gray_4x28x28", 4, 1, 28, 28, False),
    ("images/gray_16x16x16", 16, 1, 16, 16, True),
    ("images/rgb_8x32x32", 8, 3, 32, 32, False),
    ("images/rgb_1x64x96", 1, 3, 64, 96, False),
    ("images/uint8_2x3x20x40", 2, 3, 20, 40, True),
]


@pytest.mark.parametrize(
    ("tag", "n", "channels", "h", "w", "uint8_unchanged"),
    CORPUS_IMAGES,
    ids=[t[0] for t in CORPUS_IMAGES],
)
def test_images_equal_mindspores(
    corpus: Path,
    log_dir: Path,
    tag: str,
    n: int,
    channels: int,
    h: int,
    w: int,
    uint8_unchanged: bool,
) -> None:
    """Each corpus canvas cut back into its N images: written as floats in [0, 1] (pixel / 255)
    they give MindSpore's canvas exactly; written as uint8 NCHW they give a canvas of the same
    size, mapped as MindSpore maps uint8 (unchanged for a 0..254 canvas)."""
    found = corpus_values(corpus, "ops_all", tag)
    assert len(found) == 11
    batches = []
    with SummaryWriter(log_dir) as writer:
        for step, value in found:
            image = value.image
            assert (image.height, image.width) == (h * math.ceil(n / 8), w * min(n, 8))
            assert image.colorspace == 3
            pixels = decode_png(image.encoded_image)
            assert pixels.shape == (image.height, image.width, 3)
            batch = untile(pixels, n, channels, h, w)
            assert batch.shape == (n, channels, h, w)
            batches.append((pixels, batch))
            writer.add_image(tag, batch.astype(np.float32) / np.float32(255), step)
            writer.add_image(f"{tag}/uint8", batch, step)
    written = written_events(writer)
    assert len(written) == len(found)
    for event, (step, value), (pixels, batch) in zip(written, found, batches, strict=True):
        as_float, as_uint8 = event.summary.value
        assert event.step == step
        for ours in (as_float, as_uint8):
            assert (ours.image.height, ours.image.width, ours.image.colorspace) == (
                value.image.height,
                value.image.width,
                value.image.colorspace,
            )
        np.testing.assert_array_equal(decode_png(as_float.image.encoded_image), pixels)
        uint8_pixels = decode_png(as_uint8.image.encoded_image)
        np.testing.assert_array_equal(uint8_pixels, expected_pixels(batch))
        if uint8_unchanged:
            assert (batch.min(), batch.max()) == (0, 254)
            np.testing.assert_array_equal(uint8_pixels, pixels)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 16, 17, 33])
@pytest.mark.parametrize(("h", "w"), [(5, 3), (28, 28)])
def test_canvas_size_rule(log_dir: Path, n: int, h: int, w: int) -> None:
    images = np.random.default_rng(n).uniform(size=(n, 1, h, w))
    image = summary_pb2.Summary.Image()
    writer_module.fill_image(images, image)
    assert (image.height, image.width) == (h * math.ceil(n / 8), w * min(n, 8))
    assert image.colorspace == 3
    pixels = decode_png(image.encoded_image)
    assert pixels.shape == (image.height, image.width, 3)
    np.testing.assert_array_equal(pixels, expected_pixels(images))


def _corpus_tensor_values(corpus: Path) -> list[tuple[str, int, summary_pb2.Summary.Value]]:
    out = []
    for job in ("ops_all", "ops_in_net"):
        for path in sorted((corpus / job).glob("*_MS")):
            for event in corpus_events(path):
                out.extend(
                    (job, event.step, value)
                    for value in event.summary.value
                    if value.WhichOneof("value") == "tensor"
                )
    return out


def test_tensors_equal_mindspores(corpus: Path, log_dir: Path) -> None:
    found = _corpus_tensor_values(corpus)
    assert len(found) == 6 * 6 + 1 + 17 * 2
    assert {data_type_name(v.tensor.data_type) for _, _, v in found} == {
        "DT_FLOAT32",
        "DT_FLOAT16",
        "DT_INT32",
        "DT_BOOL",
        "DT_FLOAT64",
    }
    with SummaryWriter(log_dir) as writer:
        for _, step, value in found:
            writer.add_tensor(value.tag, tensor_to_numpy(value.tensor), step)
    ours = [v for e in written_events(writer) for v in e.summary.value]
    assert len(ours) == len(found)
    for mine, (job, step, theirs) in zip(ours, found, strict=True):
        where = f"{job} {theirs.tag} step {step}"
        assert mine.tag == theirs.tag
        assert list(mine.tensor.dims) == list(theirs.tensor.dims), where
        assert mine.tensor.data_type == theirs.tensor.data_type, where
        assert len(mine.tensor.float_data) == len(theirs.tensor.float_data), where
        assert (
            np.array(mine.tensor.float_data, np.float32).tobytes()
            == np.array(theirs.tensor.float_data, np.float32).tobytes()
        ), where
        assert mine.tensor.SerializeToString() == theirs.tensor.SerializeToString(), where


def test_big_tensor_writes_as_mindspore(corpus: Path, log_dir: Path) -> None:
    """1M values written byte for byte as MindSpore did (its speed: ``bench/hard_inputs.py``)."""
    ((step, value),) = corpus_values(corpus, "ops_all", "tensor/big_1m_f32")
    array = tensor_to_numpy(value.tensor)
    assert array.shape == (1000, 1000) and array.dtype == np.float32
    with SummaryWriter(log_dir) as writer:
        writer.add_tensor("tensor/big_1m_f32", array, step)
        writer.flush()
    (event,) = written_events(writer)
    assert event.step == step == 100
    assert event.summary.value[0].tensor.SerializeToString() == value.tensor.SerializeToString()


def test_graph_from_corpus_written_as_mindspore(corpus: Path, log_dir: Path) -> None:
    path = next((corpus / "ops_all").glob("*_MS"))
    (theirs,) = [e for e in corpus_events(path) if e.WhichOneof("what") == "graph_def"]
    with SummaryWriter(log_dir) as writer:
        writer.add_graph(anf_ir_pb2.ModelProto(graph=theirs.graph_def).SerializeToString())
        writer.flush()
    (ours,) = [e for e in raw_events(writer.summary_path) if e.WhichOneof("what") == "graph_def"]
    assert ours.HasField("step") == theirs.HasField("step") is False
    assert ours.graph_def.SerializeToString() == theirs.graph_def.SerializeToString()


def _corpus_lineage(kind: str) -> list[tuple[Path, lineage_pb2.LineageEvent]]:
    out = []
    for path in corpus_files("**/*_lineage"):
        for payload in payloads(path):
            event = lineage_pb2.LineageEvent.FromString(payload)
            if event.WhichOneof("what") == kind:
                out.append((path, event))
    return out


def _lineage_id(item: tuple[Path, lineage_pb2.LineageEvent]) -> str:
    return item[0].parent.name


@pytest.mark.parametrize("item", _corpus_lineage("user_defined_info"), ids=_lineage_id)
def test_user_defined_info_equals_mindspores(
    corpus: Path, log_dir: Path, item: tuple[Path, lineage_pb2.LineageEvent]
) -> None:
    theirs = item[1].user_defined_info
    data = user_defined_to_dict(theirs)
    ours = user_defined_info(data)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    with SummaryWriter(log_dir) as writer:
        writer.add_custom_lineage(data)
    (payload,) = payloads(writer.lineage_path)
    written = lineage_pb2.LineageEvent.FromString(payload)
    assert written.user_defined_info == theirs


def test_lenet_sc_user_defined_info(corpus: Path) -> None:
    (theirs,) = [
        e.user_defined_info
        for p, e in _corpus_lineage("user_defined_info")
        if p.parent.name == "lenet_sc"
    ]
    data = {
        "experiment": "lenet_sc",
        "dropout": 0.0,
        "seed": 1,
        "notes": "baseline, collect_freq=1",
    }
    assert user_defined_to_dict(theirs) == data
    assert user_defined_info(data).SerializeToString(deterministic=True) == (
        theirs.SerializeToString(deterministic=True)
    )


def _train_lineage_arguments(message: lineage_pb2.TrainLineage) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for part in ("hyper_parameters", "train_dataset", "algorithm"):
        for field, value in getattr(message, part).ListFields():
            arguments[field.name] = value
    if message.HasField("model"):
        arguments["model_path"] = json.loads(message.model.path)["ckpt"]
        arguments["model_size"] = message.model.size
    return arguments


@pytest.mark.parametrize("item", _corpus_lineage("train_lineage"), ids=_lineage_id)
def test_train_lineage_equals_mindspores(
    corpus: Path, item: tuple[Path, lineage_pb2.LineageEvent]
) -> None:
    theirs = item[1].train_lineage
    ours = train_lineage(**_train_lineage_arguments(theirs))
    assert ours == theirs
    assert ours.SerializeToString() == theirs.SerializeToString()


def test_lenet_sc_train_lineage(corpus: Path, log_dir: Path) -> None:
    (theirs,) = [
        e.train_lineage for p, e in _corpus_lineage("train_lineage") if p.parent.name == "lenet_sc"
    ]
    decoded = _train_lineage_arguments(theirs)
    assert decoded["model_path"] == "/data/summaries/lenet_sc/ckpt/lenet-3_16.ckpt"
    assert decoded["model_size"] == 494183
    assert decoded["network"] == "LeNet5" and decoded["epoch"] == 3
    with SummaryWriter(log_dir) as writer:
        writer.add_train_lineage(**decoded)
    (payload,) = payloads(writer.lineage_path)
    assert lineage_pb2.LineageEvent.FromString(payload).train_lineage == theirs


@pytest.mark.parametrize("item", _corpus_lineage("evaluation_lineage"), ids=_lineage_id)
def test_eval_lineage_equals_mindspores(
    corpus: Path, item: tuple[Path, lineage_pb2.LineageEvent]
) -> None:
    theirs = item[1].evaluation_lineage
    metric = json.loads(theirs.metric) if theirs.HasField("metric") else None
    dataset = theirs.valid_dataset
    ours = eval_lineage(
        metric,
        dataset.valid_dataset_path if dataset.HasField("valid_dataset_path") else None,
        dataset.valid_dataset_size if dataset.HasField("valid_dataset_size") else None,
    )
    assert ours == theirs


def _serialize_form(graph: lineage_pb2.DatasetGraph) -> dict[str, Any]:
    """Undo SummaryCollector's encoding of a ``dataset.serialize()`` dict (lists are JSON
    elements, dicts JSON text, None ``"None"``) for pipelines without size/weights lists."""

    def parameters(parameter: lineage_pb2.OperationParameter) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for mapping in (parameter.mapBool, parameter.mapInt, parameter.mapDouble):
            out.update(mapping)
        for key, text in parameter.mapStr.items():
            if text == "None":
                out[key] = None
            elif text.startswith("{"):
                out[key] = json.loads(text)
            else:
                out[key] = text
        for key, items in parameter.mapStrList.items():
            out[key] = [json.loads(item) if item else None for item in items.strValue]
        return out

    node = parameters(graph.parameter)
    if len(graph.operations):
        node["operations"] = [parameters(op.operationParam) for op in graph.operations]
    if graph.HasField("sampler"):
        node["sampler"] = parameters(graph.sampler.operationParam)
    node["children"] = [_serialize_form(child) for child in graph.children]
    return node


@pytest.mark.parametrize("item", _corpus_lineage("dataset_graph"), ids=_lineage_id)
def test_dataset_graph_equals_mindspores(
    corpus: Path, item: tuple[Path, lineage_pb2.LineageEvent]
) -> None:
    theirs = item[1].dataset_graph
    ours = dataset_graph(_serialize_form(theirs))
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
