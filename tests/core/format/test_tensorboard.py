"""TensorBoard event files: written by the real writer (tensorboardX) and by hand in TensorFlow
2's tensor forms, read back through discovery -> loader -> index -> provider, every value equal
to what was written; damaged and truncated files handled as MindSpore's are."""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorboardX
from google.protobuf.descriptor import Descriptor
from PIL import Image
from tensorboardX.proto import api_pb2 as tbx_api_pb2
from tensorboardX.proto import event_pb2 as tbx_event_pb2
from tensorboardX.proto import plugin_hparams_pb2 as tbx_hparams_pb2
from tensorboardX.proto import summary_pb2 as tbx_summary_pb2
from tensorboardX.proto import tensor_pb2 as tbx_tensor_pb2

from dash_insight import SummaryWriter as MindSporeWriter
from dash_insight.core.format.events import DecodeError
from dash_insight.core.format.files import FileKind, classify, file_timestamp
from dash_insight.core.format.framing import frame_record
from dash_insight.core.format.inspect import inspect_path
from dash_insight.core.format.protos import (
    tb_event_pb2,
    tb_hparams_api_pb2,
    tb_hparams_plugin_data_pb2,
    tb_summary_pb2,
    tb_tensor_pb2,
    tb_tensor_shape_pb2,
    tb_types_pb2,
)
from dash_insight.core.format.tensorboard import (
    histo_value,
    tb_tensor_to_numpy,
)
from dash_insight.core.lineage_rows import lineage_row
from dash_insight.core.provider import DataProvider
from tests.conftest import loaded_service

STEPS = 30
RNG_SEED = 7


# --- the vendored protos ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (tb_event_pb2.Event, tbx_event_pb2.Event),
        (tb_event_pb2.SessionLog, tbx_event_pb2.SessionLog),
        (tb_summary_pb2.Summary, tbx_summary_pb2.Summary),
        (tb_summary_pb2.Summary.Value, tbx_summary_pb2.Summary.Value),
        (tb_summary_pb2.Summary.Image, tbx_summary_pb2.Summary.Image),
        (tb_summary_pb2.HistogramProto, tbx_summary_pb2.HistogramProto),
        (tb_summary_pb2.SummaryMetadata, tbx_summary_pb2.SummaryMetadata),
        (tb_summary_pb2.SummaryMetadata.PluginData, tbx_summary_pb2.SummaryMetadata.PluginData),
        (tb_tensor_pb2.TensorProto, tbx_tensor_pb2.TensorProto),
        (tb_hparams_plugin_data_pb2.HParamsPluginData, tbx_hparams_pb2.HParamsPluginData),
        (tb_hparams_plugin_data_pb2.SessionStartInfo, tbx_hparams_pb2.SessionStartInfo),
        (tb_hparams_api_pb2.Experiment, tbx_api_pb2.Experiment),
        (tb_hparams_api_pb2.MetricInfo, tbx_api_pb2.MetricInfo),
        (tb_hparams_api_pb2.MetricName, tbx_api_pb2.MetricName),
    ],
)
def test_vendored_protos_are_wire_compatible_with_tensorboardx(ours: Any, theirs: Any) -> None:
    """Every field tensorboardX writes has the same number, type and label in ours."""
    mine: Descriptor = ours.DESCRIPTOR
    for field in theirs.DESCRIPTOR.fields:
        assert field.name in mine.fields_by_name, f"{mine.full_name} lacks {field.name}"
        other = mine.fields_by_name[field.name]
        assert (other.number, other.type, other.is_repeated) == (
            field.number,
            field.type,
            field.is_repeated,
        ), f"{mine.full_name}.{field.name}"


def test_tensorboard_file_names() -> None:
    assert classify("events.out.tfevents.1700000000.host.123.0") is FileKind.TENSORBOARD
    assert classify("events.out.tfevents.1700000000.host.v2") is FileKind.TENSORBOARD
    assert file_timestamp("events.out.tfevents.1700000000.host.123.0") == 1700000000
    # MindSpore's own names keep their kinds
    assert classify("x.out.events.summary.1700000000.0.host_MS") is FileKind.SUMMARY
    assert classify("x.out.events.summary.1700000000.0.host_lineage") is FileKind.LINEAGE


# --- files written by tensorboardX --------------------------------------------------------------


def _written(base: Path) -> dict[str, Any]:
    """A tensorboardX job ``./tbx`` (and its hparams session ``./tbx/hp``); returns what was
    written."""
    rng = np.random.default_rng(RNG_SEED)
    losses = (1.0 / (np.arange(STEPS) + 1.0)).tolist()
    weights = {step: rng.normal(step * 0.1, 1.0, 2000) for step in range(0, STEPS, 3)}
    auto = {step: rng.uniform(-1, 1, 500) for step in range(0, STEPS, 10)}
    images = {step: rng.integers(0, 256, (6, 9, 3), dtype=np.uint8) for step in (4, 8)}
    texts = {1: "first **note**", 5: "second: ünïcode ✓"}
    hparams = {"lr": 0.01, "batch_size": 64, "optimizer": "adam", "shuffle": True}
    metrics = {"hparam/accuracy": 0.875, "hparam/loss": 0.3125}
    with tensorboardX.SummaryWriter(str(base / "tbx")) as writer:
        for step, loss in enumerate(losses):
            writer.add_scalar("train/loss", loss, step)
        for step, values in weights.items():
            writer.add_histogram("fc/weight", values, step)  # TensorFlow's default buckets
        for step, values in auto.items():
            writer.add_histogram("fc/bias", values, step, bins="auto")
        for step, image in images.items():
            writer.add_image("input", image, step, dataformats="HWC")
        for step, text in texts.items():
            writer.add_text("notes", text, step)
        writer.add_hparams(hparams, metrics, name="hp")
        tensorflow_bins = writer.default_bins  # what bins="tensorflow" stands for
    return {
        "tensorflow": tensorflow_bins,
        "losses": losses,
        "weights": weights,
        "auto": auto,
        "images": images,
        "texts": texts,
        "hparams": hparams,
        "metrics": metrics,
    }


@pytest.fixture(scope="module")
def tbx_job(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DataProvider, dict[str, Any]]]:
    base = tmp_path_factory.mktemp("tbx")
    written = _written(base)
    service = loaded_service(base, tmp_path_factory.mktemp("ws"))
    yield service.provider, written
    service.close()


def test_tensorboardx_jobs_are_listed_intact(tbx_job: tuple[DataProvider, dict]) -> None:
    provider, _ = tbx_job
    jobs = {job.train_id: job for job in provider.list_jobs()}
    assert set(jobs) == {"./tbx", "./tbx/hp"}
    job = jobs["./tbx"]
    assert job.status == "loaded" and job.is_intact and job.summary_files == 1
    assert job.tags["scalar"] == ["train/loss"]
    assert job.tags["histogram"] == ["fc/weight", "fc/bias"]
    assert job.tags["image"] == ["input"]
    assert job.tags["tensor"] == ["notes/text_summary"]  # tensorboardX's text tag
    assert jobs["./tbx/hp"].lineage_files == 1


def test_every_scalar_reads_back(tbx_job: tuple[DataProvider, dict]) -> None:
    provider, written = tbx_job
    series = provider.read_scalars("./tbx", "train/loss")
    assert series.step.tolist() == list(range(STEPS))
    assert series.value.tolist() == np.float32(written["losses"]).tolist()


@pytest.mark.parametrize(
    ("tag", "key", "bins"), [("fc/weight", "weights", "tensorflow"), ("fc/bias", "auto", "auto")]
)
def test_every_histogram_reads_back(
    tbx_job: tuple[DataProvider, dict], tag: str, key: str, bins: str
) -> None:
    """Each step equals the HistogramProto tensorboardX wrote: its counts, its bucket limits
    as right edges (the last one is ``max``), its num, min, max and sum."""
    provider, written = tbx_job
    steps = provider.value_steps("./tbx", "histogram", tag)
    assert steps.step.tolist() == sorted(written[key])
    for step, values in written[key].items():
        edges = written["tensorflow"] if bins == "tensorflow" else bins
        proto = tensorboardX.summary.histogram(tag, values, edges).value[0].histo
        value = provider.read_value("./tbx", "histogram", tag, step)
        assert value.buckets[:, 2].tolist() == list(proto.bucket)
        rights = value.buckets[:, 0] + value.buckets[:, 1]
        limits = np.clip(list(proto.bucket_limit), proto.min, proto.max)
        np.testing.assert_allclose(rights[:-1], limits[:-1], rtol=0, atol=1e-12)
        assert rights[-1] == pytest.approx(proto.max)
        assert (value.count, value.min, value.max) == (len(values), values.min(), values.max())
        assert value.sum == pytest.approx(values.sum())
        assert (value.buckets[:, 1] >= 0).all()
        assert value.buckets[:, 2].sum() == len(values)


def test_every_image_reads_back(tbx_job: tuple[DataProvider, dict]) -> None:
    provider, written = tbx_job
    for step, pixels in written["images"].items():
        value = provider.read_value("./tbx", "image", "input", step)
        assert (value.height, value.width) == pixels.shape[:2]
        decoded = np.asarray(Image.open(io.BytesIO(value.encoded)).convert("RGB"))
        assert np.array_equal(decoded, pixels)


def test_every_text_reads_back(tbx_job: tuple[DataProvider, dict]) -> None:
    provider, written = tbx_job
    for step, text in written["texts"].items():
        value = provider.read_value("./tbx", "tensor", "notes/text_summary", step)
        assert value.data_type == "DT_STRING" and value.array.tolist() == [text]


def test_hparams_are_a_lineage_row(tbx_job: tuple[DataProvider, dict]) -> None:
    provider, written = tbx_job
    row = lineage_row("./tbx/hp", provider.lineage_records("./tbx/hp"))
    assert row is not None
    assert row["user_defined"] == written["hparams"]
    assert row["metric"] == {tag: float(np.float32(v)) for tag, v in written["metrics"].items()}
    assert lineage_row("./tbx", provider.lineage_records("./tbx")) is None


# --- TensorFlow 2's tensor forms, written with the vendored protos ------------------------------


def _tensor(dtype: str, shape: list[int], **values: Any) -> tb_tensor_pb2.TensorProto:
    tensor = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DataType.Value(dtype), **values)
    tensor.tensor_shape.dim.extend(tb_tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in shape)
    return tensor


def _value(
    tag: str, tensor: tb_tensor_pb2.TensorProto, plugin: str = "", content: bytes = b""
) -> tb_summary_pb2.Summary.Value:
    value = tb_summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if plugin:
        value.metadata.plugin_data.plugin_name = plugin
        value.metadata.plugin_data.content = content
    return value


def _event_file(path: Path, events: list[tb_event_pb2.Event]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    first = tb_event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
    path.write_bytes(b"".join(frame_record(e.SerializeToString()) for e in [first, *events]))


def _summary(step: int, *values: tb_summary_pb2.Summary.Value) -> tb_event_pb2.Event:
    event = tb_event_pb2.Event(wall_time=100.0 + step, step=step)
    event.summary.value.extend(values)
    return event


def _png(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def _jpeg(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def tf2_job(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DataProvider, dict[str, Any]]]:
    """A job in TF 2's forms: metadata on a tag's first value only, as TF writes it."""
    base = tmp_path_factory.mktemp("tf2")
    rng = np.random.default_rng(1)
    pixels = [rng.integers(0, 256, (4, 5, 3), dtype=np.uint8) for _ in range(2)]
    events = []
    for step in range(3):
        first = step == 0
        rows = np.array([[0.0, 1.0, 3.0], [1.0, 2.5, 5.0 + step]])
        hparams = tb_hparams_plugin_data_pb2.HParamsPluginData(version=0)
        hparams.session_start_info.hparams["units"].number_value = 128
        hparams.session_start_info.hparams["act"].string_value = "relu"
        events.append(
            _summary(
                step,
                _value(
                    "loss",
                    _tensor("DT_FLOAT", [], float_val=[0.5 / (step + 1)]),
                    "scalars" if first else "",
                ),
                _value("lr", _tensor("DT_DOUBLE", [], double_val=[1e-3 * (step + 1)])),
                _value(
                    "dist",
                    _tensor("DT_DOUBLE", [2, 3], tensor_content=rows.tobytes()),
                    "histograms" if first else "",
                ),
                _value(
                    "pics",
                    _tensor(
                        "DT_STRING", [4], string_val=[b"5", b"4", _png(pixels[0]), _png(pixels[1])]
                    ),
                    "images" if first else "",
                ),
                _value(
                    "note",
                    _tensor("DT_STRING", [2], string_val=[b"a", f"b{step}".encode()]),
                    "text" if first else "",
                ),
                _value("counts", _tensor("DT_INT32", [2, 2], int_val=[step, 1, 2, 3])),
                _value("filled", _tensor("DT_FLOAT", [3], float_val=[7.0])),  # version-0 fill
                _value(
                    "half",
                    _tensor(
                        "DT_HALF",
                        [2],
                        half_val=np.array([1.5, -2.0], np.float16).view(np.uint16).tolist(),
                    ),
                ),
            )
        )
        if first:
            jpeg = tb_summary_pb2.Summary.Value(tag="photo")
            jpeg.image.height, jpeg.image.width = 4, 5
            jpeg.image.encoded_image_string = _jpeg(pixels[0])
            events.append(
                _summary(
                    0,
                    jpeg,
                    _value(
                        "_hparams_/session_start_info",
                        _tensor("DT_STRING", []),
                        "hparams",
                        hparams.SerializeToString(),
                    ),
                )
            )
    _event_file(base / "tf2" / "events.out.tfevents.1700000000.host.1.v2", events)
    service = loaded_service(base, tmp_path_factory.mktemp("ws"))
    yield service.provider, {"jpeg": _jpeg(pixels[0]), "pixels": pixels}
    service.close()


def test_tensor_scalars(tf2_job: tuple[DataProvider, dict]) -> None:
    provider, _ = tf2_job
    job = provider.job("./tf2")
    assert job.is_intact, job.reasons
    assert (
        provider.read_scalars("./tf2", "loss").value.tolist()
        == np.float32([0.5, 0.25, 0.5 / 3]).tolist()
    )
    assert (
        provider.read_scalars("./tf2", "lr").value.tolist()
        == np.float32([1e-3, 2e-3, 3e-3]).tolist()
    )


def test_histogram_tensors(tf2_job: tuple[DataProvider, dict]) -> None:
    value = tf2_job[0].read_value("./tf2", "histogram", "dist", 2)
    assert value.buckets.tolist() == [[0.0, 1.0, 3.0], [1.0, 1.5, 7.0]]
    assert (value.min, value.max, value.count) == (0.0, 2.5, 10)


def test_image_tensor_samples_and_jpeg(tf2_job: tuple[DataProvider, dict]) -> None:
    provider, written = tf2_job
    assert provider.list_tags("./tf2", "image") == ["pics", "pics/image/1", "photo"]
    for tag, pixels in zip(["pics", "pics/image/1"], written["pixels"], strict=True):
        value = provider.read_value("./tf2", "image", tag, 1)
        assert (value.width, value.height) == (5, 4)
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(value.encoded))), pixels)
    assert provider.read_value("./tf2", "image", "photo", 0).encoded == written["jpeg"]


def test_text_and_numeric_tensors(tf2_job: tuple[DataProvider, dict]) -> None:
    provider, _ = tf2_job
    assert provider.read_value("./tf2", "tensor", "note", 2).array.tolist() == ["a", "b2"]
    counts = provider.read_value("./tf2", "tensor", "counts", 1)
    assert counts.data_type == "DT_INT32" and counts.array.tolist() == [[1, 1], [2, 3]]
    assert provider.read_value("./tf2", "tensor", "filled", 0).array.tolist() == [7.0] * 3
    half = provider.read_value("./tf2", "tensor", "half", 0)
    assert half.data_type == "DT_FLOAT16" and half.array.tolist() == [1.5, -2.0]


def test_hparams_without_experiment(tf2_job: tuple[DataProvider, dict]) -> None:
    row = lineage_row("./tf2", tf2_job[0].lineage_records("./tf2"))
    assert row is not None
    assert row["user_defined"] == {"act": "relu", "units": 128.0} and row["metric"] == {}


def test_malformed_values_are_reported_not_raised() -> None:
    with pytest.raises(DecodeError, match="holds 3 values but dims"):
        tb_tensor_to_numpy(_tensor("DT_FLOAT", [2], float_val=[1.0, 2.0, 3.0]))
    with pytest.raises(DecodeError, match="bucket limits"):
        histo_value(tb_summary_pb2.HistogramProto(bucket_limit=[1.0], bucket=[1.0, 2.0]))


# --- damage ---------------------------------------------------------------------------------------


def _scalar_file(path: Path, steps: int) -> list[int]:
    """A scalar-per-record file; returns each record's offset."""
    events = [
        _summary(step, tb_summary_pb2.Summary.Value(tag="x", simple_value=float(step)))
        for step in range(steps)
    ]
    _event_file(path, events)
    offsets, position, data = [], 0, path.read_bytes()
    while position < len(data):
        offsets.append(position)
        position += 16 + struct.unpack_from("<Q", data, position)[0]
    return offsets[1:]  # without the file_version record


def test_crc_damage_and_truncation(tmp_path: Path) -> None:
    crc = tmp_path / "base" / "crc" / "events.out.tfevents.1700000000.host"
    offsets = _scalar_file(crc, 10)
    data = bytearray(crc.read_bytes())
    data[offsets[4] + 14] ^= 0xFF  # a payload byte of step 4's record
    crc.write_bytes(bytes(data))
    cut = tmp_path / "base" / "cut" / "events.out.tfevents.1700000000.host"
    _scalar_file(cut, 10)
    cut.write_bytes(cut.read_bytes()[:-7])  # the last record loses its end
    garbage = tmp_path / "base" / "garbage" / "events.out.tfevents.1700000000.host"
    garbage.parent.mkdir()
    garbage.write_bytes(os.urandom(64))

    service = loaded_service(tmp_path / "base", tmp_path / "ws")
    try:
        provider = service.provider
        assert provider.read_scalars("./crc", "x").step.tolist() == [0, 1, 2, 3, 5, 6, 7, 8, 9]
        reasons = provider.job("./crc").reasons
        assert len(reasons) == 1 and f"@ {offsets[4]}" in reasons[0] and "CRC" in reasons[0]
        assert provider.read_scalars("./cut", "x").step.tolist() == list(range(9))
        assert provider.job("./garbage").tags["scalar"] == []
    finally:
        service.close()

    report = inspect_path(str(crc))
    assert report["files"][0]["kind"] == "tensorboard"
    assert report["files"][0]["status"] == "damaged"
    assert report["files"][0]["errors"][0]["offset"] == offsets[4]
    assert inspect_path(str(cut))["files"][0]["status"] == "truncated"
    entry = inspect_path(str(garbage))["files"][0]
    assert entry["status"] == "damaged"
    assert "not a TensorBoard event file" in entry["errors"][0]["reason"]


# --- MindSpore and TensorBoard side by side -------------------------------------------------------


def test_mixed_base_directory(tmp_path: Path) -> None:
    """MindSpore and TensorBoard jobs under one base; a job holding both kinds of file merges
    them by their name timestamps (a later file's repeated steps win)."""
    with MindSporeWriter(str(tmp_path / "ms"), timestamp=1700000000) as writer:
        for step in range(1, 6):
            writer.add_scalar("loss", 1.0 / step, step)
    with MindSporeWriter(str(tmp_path / "both"), timestamp=1700000000) as writer:
        for step in range(1, 6):
            writer.add_scalar("loss", 10.0, step)
    _event_file(
        tmp_path / "both" / "events.out.tfevents.1700000100.host",
        [
            _summary(step, tb_summary_pb2.Summary.Value(tag="loss", simple_value=20.0))
            for step in (4, 5, 6)
        ],
    )
    with tensorboardX.SummaryWriter(str(tmp_path / "tb")) as writer:
        for step in range(1, 6):
            writer.add_scalar("loss", 2.0 / step, step)
    service = loaded_service(tmp_path, tmp_path / "ws")
    try:
        provider = service.provider
        assert {job.train_id for job in provider.list_jobs()} == {"./ms", "./both", "./tb"}
        both = provider.read_scalars("./both", "loss")
        assert both.step.tolist() == [1, 2, 3, 4, 5, 6]
        assert both.value.tolist() == [10.0, 10.0, 10.0, 20.0, 20.0, 20.0]
        assert provider.job("./both").summary_files == 2
        many = provider.read_scalars_many(["./ms", "./tb"], ["loss"])
        assert set(many) == {("./ms", "loss"), ("./tb", "loss")}
    finally:
        service.close()
