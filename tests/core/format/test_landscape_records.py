"""Loss landscape records: MindSpore 2.10's corpus job (``../shared/corpus-landscape``) decodes as
MindInsight reads it, ``SummaryWriter.add_landscape`` writes the same bytes, and ``inspect``
lists grid size and interval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dash_insight.cli import main
from dash_insight.core.format.events import (
    DataType,
    DecodeError,
    LossLandscapeValue,
    decode_event,
    landscape_array,
    tensor_to_numpy,
)
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.format.inspect import inspect_path, landscape_text
from dash_insight.core.format.protos import anf_ir_pb2, summary_pb2
from dash_insight.core.format.writer import SummaryWriter
from tests.conftest import CORPUS

LANDSCAPE_JOB = CORPUS.parent / "corpus-landscape" / "lenet_step"


def _records(path: Path) -> list[bytes]:
    reader = RecordReader(path)
    return [bytes(r.payload) for r in reader.read()]


@pytest.fixture(scope="module")
def landscape_file() -> Path:
    if not LANDSCAPE_JOB.is_dir():
        pytest.skip(f"landscape corpus not found at {LANDSCAPE_JOB}")
    files = sorted(LANDSCAPE_JOB.glob("*_MS"))
    return files[-1]  # the file SummaryLandscape wrote after training


def _landscapes(path: Path) -> dict[str, LossLandscapeValue]:
    out = {}
    for payload in _records(path):
        for value in decode_event(payload).values:
            assert isinstance(value.value, LossLandscapeValue)
            out[value.tag] = value.value
    return out


def test_corpus_landscapes_read_as_float64(landscape_file: Path) -> None:
    """Every array is float64 from float_data: the PCA convergence point's DT_INT64 x/y come out
    as 0.0 (MindInsight: ``np.array(float_data)``), z rows follow y."""
    found = _landscapes(landscape_file)
    assert sorted(found) == ["landscape_[18, 32]", "landscape_[2, 16]", "landscape_[32]"]
    pca = found["landscape_[2, 16]"]
    assert pca.loss_path_intervals == [2, 4, 6, 8, 10, 12, 14, 16]
    assert pca.metadata == {"decomposition": "PCA", "unit": "step", "step_per_epoch": 8}
    for point in (pca.landscape, pca.loss_path_points, pca.convergence_point):
        assert all(a.dtype == np.float64 for a in point.values())
    assert pca.landscape["z"].shape == (len(pca.landscape["y"]), len(pca.landscape["x"]))
    point = [pca.convergence_point[a][0] for a in "xyz"]
    assert point == [0.0, 0.0, 2.2841074466705322]
    assert all(type(v.item()) is float for v in pca.convergence_point.values())
    final = found["landscape_[32]"]
    assert final.loss_path_intervals == [] and final.loss_path_points == {}
    assert final.landscape["x"][0] == -1.0 and final.metadata["decomposition"] == "Random"


def test_landscape_array_takes_float_data_whatever_the_dtype() -> None:
    tensor = anf_ir_pb2.TensorProto(
        dims=[2], data_type=DataType.Value("DT_INT64"), float_data=[0.5, -1.25]
    )
    # A tensor tag is cast back to its dtype when every value fits it exactly; these do not,
    # so they stay floats as MindInsight shows them (item 14 of the faults issue).
    assert tensor_to_numpy(tensor).tolist() == [0.5, -1.25]
    whole = anf_ir_pb2.TensorProto(
        dims=[2], data_type=DataType.Value("DT_INT64"), float_data=[0.0, -1.0]
    )
    assert tensor_to_numpy(whole).dtype == np.int64
    assert landscape_array(whole).dtype == np.float64  # a landscape is never cast
    assert landscape_array(tensor).tolist() == [0.5, -1.25]
    doubles = anf_ir_pb2.TensorProto(
        dims=[1], data_type=DataType.Value("DT_FLOAT64"), double_data=[0.1]
    )
    assert landscape_array(doubles).tolist() == [0.1]
    with pytest.raises(DecodeError, match="dims"):
        landscape_array(anf_ir_pb2.TensorProto(dims=[3], float_data=[1.0]))


def _original_arrays(point: summary_pb2.LossLandscape.Point) -> list[np.ndarray]:
    return [tensor_to_numpy(getattr(point, a)) for a in "xyz"]


def test_add_landscape_writes_mindspores_bytes(landscape_file: Path, tmp_path: Path) -> None:
    """Written again from its arrays (with their original dtypes), each corpus landscape record is
    byte for byte the one MindSpore wrote, except the wall time."""
    originals = [summary_pb2.Event.FromString(p) for p in _records(landscape_file)]
    originals = [e for e in originals if e.WhichOneof("what") == "summary"]
    with SummaryWriter(tmp_path, host="vm") as writer:
        for event in originals:
            value = event.summary.value[0]
            landscape = value.loss_landscape
            intervals = list(landscape.loss_path.intervals)
            meta = landscape.metadata
            writer.add_landscape(
                value.tag,
                *_original_arrays(landscape.landscape),
                intervals=intervals,
                path=_original_arrays(landscape.loss_path.points) if intervals else None,
                convergence_point=_original_arrays(landscape.convergence_point),
                decomposition=meta.decomposition,
                unit=meta.unit,
                step_per_epoch=meta.step_per_epoch,
                step=event.step,
            )
    written = _records(Path(writer.summary_path))
    assert summary_pb2.Event.FromString(written[0]).version == "MindSpore.Event:1"
    originals_bytes = [p for p in _records(landscape_file)][1:]
    assert len(written) - 1 == len(originals_bytes) == 3
    for ours, theirs in zip(written[1:], originals_bytes, strict=True):
        assert ours[0] == theirs[0] == 0x09  # wall_time first, then the same bytes
        assert ours[9:] == theirs[9:]


def test_add_landscape_checks_shapes(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        x, y = np.linspace(-1, 1, 3), np.linspace(-1, 1, 2)
        with pytest.raises(ValueError, match="rows follow y"):
            writer.add_landscape("t", x, y, np.zeros((3, 2)))
        with pytest.raises(ValueError, match="intervals and path"):
            writer.add_landscape("t", x, y, np.zeros((2, 3)), intervals=[1, 2, 3])
        with pytest.raises(ValueError, match="one value per interval"):
            writer.add_landscape(
                "t", x, y, np.zeros((2, 3)), intervals=[1, 2, 3], path=([0, 1], [0, 1], [0, 1])
            )
        with pytest.raises(ValueError, match="non-empty"):
            writer.add_landscape("", x, y, np.zeros((2, 3)))


def test_add_landscape_after_scalars_keeps_the_step_order(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("loss", 1.0, step=3)
        writer.add_landscape(
            "landscape_[1, 3]",
            [0.0, 1.0],
            [0.0],
            [[2.0, 3.0]],
            intervals=[1, 2, 3],
            path=([0, 0, 0], [0, 0, 0], [1, 1, 1]),
            convergence_point=(0, 0, 2.0),
            unit="epoch",
            step_per_epoch=4,
        )
    events = [decode_event(p) for p in _records(Path(writer.summary_path))][1:]
    assert [(e.step, [v.plugin for v in e.values]) for e in events] == [
        (3, ["scalar"]),
        (0, ["loss_landscape"]),
    ]
    value = events[1].values[0].value
    assert value.landscape["z"].tolist() == [[2.0, 3.0]]
    assert value.metadata == {"decomposition": "PCA", "unit": "epoch", "step_per_epoch": 4}


def test_inspect_lists_grid_and_interval(
    landscape_file: Path, capsys: pytest.CaptureFixture
) -> None:
    report = inspect_path(LANDSCAPE_JOB)
    facts = report["tags"]["loss_landscape"]
    assert facts["landscape_[2, 16]"]["landscape"] == {
        "grid": [12, 12],
        "interval": [2, 16],
        "points": 8,
        "decomposition": "PCA",
        "unit": "step",
    }
    assert facts["landscape_[32]"]["landscape"]["interval"] == []
    assert landscape_text(facts["landscape_[32]"]["landscape"]) == "12x12 Random, final"
    assert main(["inspect", str(LANDSCAPE_JOB)]) == 0
    text = capsys.readouterr().out
    assert "12x12 PCA, step 2..16 (8 points)" in text
    assert "12x12 PCA, step 18..32 (8 points)" in text
    assert main(["inspect", str(LANDSCAPE_JOB), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tags"]["loss_landscape"]["landscape_[18, 32]"]["landscape"]["grid"] == [12, 12]


def test_inspect_epoch_landscape_written_by_us(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        grid = np.linspace(-1, 1, 10)
        writer.add_landscape(
            "landscape_[3, 5]",
            grid,
            grid[:4],
            np.ones((4, 10)),
            intervals=[3, 4, 5],
            path=([0, 0, 0], [0, 0, 0], [1, 1, 1]),
            unit="epoch",
            step_per_epoch=4,
        )
    facts = inspect_path(tmp_path)["tags"]["loss_landscape"]["landscape_[3, 5]"]["landscape"]
    assert landscape_text(facts) == "10x4 PCA, epoch 3..5 (3 points)"
