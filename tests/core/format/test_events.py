"""Decoding Event / LineageEvent / ModelProto payloads into plain values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format.events import (
    NUMPY_DTYPES,
    DecodeError,
    data_type_name,
    decode_event,
    decode_lineage_event,
    decode_model_proto,
    decode_value_at,
    proto_to_dict,
    tensor_to_numpy,
)
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.format.protos import anf_ir_pb2, lineage_pb2, summary_pb2
from tests.conftest import corpus_files

DT = anf_ir_pb2.DataType


@pytest.mark.parametrize(
    ("data_type", "values", "expected"),
    [
        ("DT_BOOL", [0.0, 1.0, 1.0, 0.0], np.array([False, True, True, False])),
        ("DT_INT8", [-128.0, 127.0, 0.0, 5.0], np.array([-128, 127, 0, 5], np.int8)),
        ("DT_INT16", [-300.0, 300.0, 0.0, 1.0], np.array([-300, 300, 0, 1], np.int16)),
        ("DT_INT32", [-(2**24), 2**24, 7.0, -7.0], np.array([-(2**24), 2**24, 7, -7], np.int32)),
        ("DT_INT64", [1.0, 2.0, 3.0, 4.0], np.array([1, 2, 3, 4], np.int64)),
        ("DT_UINT8", [0.0, 255.0, 1.0, 2.0], np.array([0, 255, 1, 2], np.uint8)),
        ("DT_UINT16", [0.0, 65535.0, 1.0, 2.0], np.array([0, 65535, 1, 2], np.uint16)),
        ("DT_UINT32", [0.0, 1.0, 2.0, 3.0], np.array([0, 1, 2, 3], np.uint32)),
        ("DT_UINT64", [0.0, 1.0, 2.0, 3.0], np.array([0, 1, 2, 3], np.uint64)),
        ("DT_FLOAT16", [0.5, -1.5, 65504.0, 0.0], np.array([0.5, -1.5, 65504, 0], np.float16)),
        (
            "DT_FLOAT32",
            [0.1, np.nan, np.inf, -np.inf],
            np.array([0.1, np.nan, np.inf, -np.inf], np.float32),
        ),
        (
            "DT_FLOAT64",
            [0.1, 0.2, 0.3, 0.4],
            np.array([0.1, 0.2, 0.3, 0.4], np.float32).astype(np.float64),
        ),
        ("DT_BFLOAT16", [1.0, 2.0, 3.0, 4.0], np.array([1, 2, 3, 4], np.float32)),
    ],
)
def test_tensor_cast_back_to_its_dtype(
    data_type: str, values: list[float], expected: np.ndarray
) -> None:
    proto = anf_ir_pb2.TensorProto(dims=[2, 2], data_type=DT.Value(data_type), float_data=values)
    array = tensor_to_numpy(proto)
    assert array.shape == (2, 2)
    assert array.dtype == expected.dtype
    np.testing.assert_array_equal(array.reshape(-1), expected)


def test_every_numeric_datatype_has_a_dtype() -> None:
    numeric = [
        name
        for name in DT.DESCRIPTOR.values_by_name
        if name.rstrip("0123456789").endswith(("BOOL", "INT", "UINT", "FLOAT", "COMPLEX"))
        and not name.startswith("DT_BASE")
    ]
    for name in numeric:
        assert DT.Value(name) in NUMPY_DTYPES, name


def test_tensor_errors_and_other_fields() -> None:
    with pytest.raises(DecodeError, match="holds 3 values but dims"):
        tensor_to_numpy(anf_ir_pb2.TensorProto(dims=[2, 2], data_type=11, float_data=[1, 2, 3]))
    with pytest.raises(DecodeError, match="negative"):
        tensor_to_numpy(anf_ir_pb2.TensorProto(dims=[-1], data_type=11))
    scalar = tensor_to_numpy(anf_ir_pb2.TensorProto(dims=[], data_type=11, float_data=[2.5]))
    assert scalar.shape == () and scalar == 2.5
    raw = np.arange(6, dtype="<i4")
    from_raw = tensor_to_numpy(
        anf_ir_pb2.TensorProto(dims=[2, 3], data_type=4, raw_data=raw.tobytes())
    )
    np.testing.assert_array_equal(from_raw, raw.reshape(2, 3))
    doubles = tensor_to_numpy(
        anf_ir_pb2.TensorProto(dims=[2], data_type=12, double_data=[0.1, 0.2])
    )
    assert doubles.tolist() == [0.1, 0.2]
    assert data_type_name(11) == "DT_FLOAT32" and data_type_name(99) == "DT_UNKNOWN_99"


def test_event_kinds_and_bad_values_are_isolated() -> None:
    assert decode_event(summary_pb2.Event(wall_time=1, version="v").SerializeToString()).version
    graph = summary_pb2.Event(wall_time=1)
    graph.graph_def.name = "g"
    assert decode_event(graph.SerializeToString()).graph.name == "g"
    event = summary_pb2.Event(wall_time=2.5, step=7)
    event.summary.value.add(tag="ok", scalar_value=1.5)
    event.summary.value.add(tag="empty")
    bad = event.summary.value.add(tag="bad")
    bad.tensor.dims.extend([3])
    bad.tensor.float_data.extend([1.0])
    histogram = event.summary.value.add(tag="h").histogram
    histogram.buckets.add(left=2, width=1, count=3)
    histogram.buckets.add(left=0, width=1, count=1)
    decoded = decode_event(event.SerializeToString())
    assert (decoded.step, decoded.wall_time) == (7, 2.5)
    assert [(v.tag, v.plugin) for v in decoded.values] == [("ok", "scalar"), ("h", "histogram")]
    assert decoded.values[1].value.buckets[:, 0].tolist() == [0, 2]  # sorted by left edge
    assert len(decoded.errors) == 2
    assert decode_value_at(event.SerializeToString(), 0).value == 1.5
    with pytest.raises(DecodeError):
        decode_value_at(event.SerializeToString(), 9)
    with pytest.raises(DecodeError):
        decode_event(b"\xff\xff\xff")


def test_lineage_and_model_decoding() -> None:
    event = lineage_pb2.LineageEvent(wall_time=1)
    event.evaluation_lineage.metric = '{"Accuracy": 0.5}'
    assert decode_lineage_event(event.SerializeToString()).data["metric"] == {"Accuracy": 0.5}
    event.evaluation_lineage.metric = "not json"
    assert decode_lineage_event(event.SerializeToString()).data["metric"] == "not json"
    event = lineage_pb2.LineageEvent(wall_time=1)
    event.train_lineage.model.size = 2**40
    assert decode_lineage_event(event.SerializeToString()).data == {"model": {"size": 2**40}}
    with pytest.raises(DecodeError):
        decode_lineage_event(lineage_pb2.LineageEvent(wall_time=1).SerializeToString())
    model = anf_ir_pb2.ModelProto()
    model.graph.node.add(name="n", op_type="Add")
    assert decode_model_proto(model.SerializeToString()).node[0].op_type == "Add"
    with pytest.raises(DecodeError):
        decode_model_proto(anf_ir_pb2.ModelProto(domain="x").SerializeToString())
    info = lineage_pb2.UserDefinedInfo()
    info.map_dict["nested"].map_int32["k"] = 3
    assert proto_to_dict(info) == {"map_dict": {"nested": {"map_int32": {"k": 3}}}}


@pytest.mark.parametrize("path", corpus_files("**/*_MS"), ids=lambda p: p.parent.name)
def test_corpus_events_decode_without_errors(path: Path) -> None:
    for record in RecordReader(path).read():
        event = decode_event(record.payload)
        assert not event.errors
        for value in event.values:
            if value.plugin == "tensor":
                assert value.value.array.size == np.prod(value.value.dims)


def test_corpus_tensor_dtypes(corpus: Path) -> None:
    [path] = (corpus / "ops_all").glob("*_MS")
    dtypes: dict[str, tuple[str, np.dtype, tuple[int, ...]]] = {}
    for record in RecordReader(path).read():
        for value in decode_event(record.payload).values:
            if value.plugin == "tensor":
                tensor = value.value
                dtypes[value.tag] = (tensor.data_type, tensor.array.dtype, tensor.dims)
    assert dtypes["tensor/bool_mask"] == ("DT_BOOL", np.dtype(bool), (10, 10))
    assert dtypes["tensor/rank4_i32"] == ("DT_INT32", np.dtype(np.int32), (2, 3, 4, 5))
    assert dtypes["tensor/rank3_f16"] == ("DT_FLOAT16", np.dtype(np.float16), (4, 8, 16))
    assert dtypes["tensor/f64"] == ("DT_FLOAT64", np.dtype(np.float64), (7, 9))
    assert dtypes["tensor/big_1m_f32"] == ("DT_FLOAT32", np.dtype(np.float32), (1000, 1000))


@pytest.mark.parametrize("path", corpus_files("**/*_lineage"), ids=lambda p: p.parent.name)
def test_corpus_lineage_decodes(path: Path) -> None:
    kinds = [decode_lineage_event(r.payload).kind for r in RecordReader(path).read()]
    assert kinds and set(kinds) <= {
        "train_lineage",
        "evaluation_lineage",
        "dataset_graph",
        "user_defined_info",
    }


def test_corpus_lineage_contents(corpus: Path) -> None:
    records = [
        decode_lineage_event(r.payload)
        for path in sorted((corpus / "lenet_sc").glob("*_lineage"))
        for r in RecordReader(path).read()
    ]
    by_kind = {r.kind: r.data for r in records}
    assert by_kind["user_defined_info"] == {
        "experiment": "lenet_sc",
        "dropout": 0.0,
        "seed": 1,
        "notes": "baseline, collect_freq=1",
    }
    train = by_kind["train_lineage"]
    assert train["hyper_parameters"]["optimizer"] == "Momentum"
    assert train["model"]["size"] == 494183
    assert by_kind["evaluation_lineage"]["metric"]["Accuracy"] == 0.6953125
    graph = by_kind["dataset_graph"]
    assert graph["op_type"] == "Batch" and graph["batch_size"] == 32
    assert graph["children"][0]["op_type"] == "Shuffle"
    tensor_op = graph["children"][0]["children"][0]["operations"][3]
    assert tensor_op == {"tensor_op_name": "HwcToChw", "tensor_op_params": None}


def test_loss_landscape_decodes() -> None:
    event = summary_pb2.Event(wall_time=1, step=3)
    value = event.summary.value.add(tag="landscape")
    landscape = value.loss_landscape
    for axis, data in (("x", [0.0, 1.0]), ("y", [2.0, 3.0]), ("z", [4.0, 5.0])):
        tensor = getattr(landscape.landscape, axis)
        tensor.dims.append(2)
        tensor.data_type = DT.Value("DT_FLOAT32")
        tensor.float_data.extend(data)
    landscape.loss_path.intervals.extend([1, 5])
    landscape.metadata.decomposition = "PCA"
    landscape.metadata.step_per_epoch = 10
    [decoded] = decode_event(event.SerializeToString()).values
    assert decoded.plugin == "loss_landscape"
    assert decoded.value.landscape["z"].tolist() == [4.0, 5.0]
    assert decoded.value.loss_path_intervals == [1, 5]
    assert decoded.value.metadata == {"decomposition": "PCA", "step_per_epoch": 10}
    assert decoded.value.convergence_point == {}
