"""Pure landscape functions: interval ids, epoch -> step conversion, grid orientation, the path
and the convergence point."""

from __future__ import annotations

import numpy as np
import pytest

from dash_insight.core.format.events import LossLandscapeValue
from dash_insight.plugins.landscape.query import (
    LandscapeError,
    catalogue,
    convergence_point,
    evaluation_metric,
    find_landscape,
    grid,
    interval_id,
    landscape_entry,
    lineage_metadata,
    list_intervals,
    loss_path,
    resolution,
    step_range,
)


def value(
    x: list[float],
    y: list[float],
    z: np.ndarray,
    intervals: list[int] | None = None,
    point: dict[str, list[float]] | None = None,
) -> LossLandscapeValue:
    path = {
        "x": np.zeros(len(intervals or [])),
        "y": np.ones(len(intervals or [])),
        "z": np.arange(len(intervals or []), dtype=np.float64),
    }
    return LossLandscapeValue(
        landscape={"x": np.array(x), "y": np.array(y), "z": np.asarray(z, dtype=np.float64)},
        loss_path_intervals=list(intervals or []),
        loss_path_points=path if intervals else {},
        metadata={"decomposition": "PCA", "unit": "step", "step_per_epoch": 8},
        convergence_point={k: np.array(v, dtype=np.float64) for k, v in (point or {}).items()},
    )


def test_interval_id_is_a_stable_signed_64_bit_decimal() -> None:
    first = interval_id([2, 4, 6, 8, 10, 12, 14, 16])
    assert first == interval_id((2, 4, 6, 8, 10, 12, 14, 16)) == interval_id(range(2, 17, 2))
    assert -(2**63) <= int(first) < 2**63 and str(int(first)) == first
    assert interval_id([2, 4, 16]) != interval_id([2, 8, 16])  # same ends, other entries
    assert interval_id(np.array([1, 2, 3])) == interval_id([1, 2, 3])
    assert first == "6499698307736764553"  # never changes: links and scripts keep working


def test_intervals_sorted_by_first_value_in_tag_order() -> None:
    refs = catalogue(
        [
            ("landscape_[3, 5]", 0, [3, 4, 5]),
            ("landscape_[1, 3]", 0, [1, 2, 3]),
            ("landscape_[5]", 0, []),
            ("b_[1, 9]", 0, [1, 9]),
        ]
    )
    assert [r.tag for r in refs] == [
        "b_[1, 9]",
        "landscape_[1, 3]",
        "landscape_[3, 5]",
        "landscape_[5]",
    ]
    listed = list_intervals(refs)
    assert [i["value"] for i in listed] == [[1, 9], [1, 3], [3, 5]]  # stable for equal starts
    assert listed[1]["id"] == interval_id([1, 2, 3])
    assert find_landscape(refs, "final", "anything").tag == "landscape_[5]"
    assert find_landscape(refs, "interval", interval_id([3, 4, 5])).tag == "landscape_[3, 5]"
    assert find_landscape(refs, "interval", "0") is None
    assert find_landscape(refs, "surface", listed[0]["id"]) is None
    assert refs[1].label == "1-3" and refs[3].label == "final"


@pytest.mark.parametrize(
    ("value_range", "unit", "per_epoch", "expected"),
    [
        ([2, 16], "step", 8, (2, 16)),
        ([3, 5], "epoch", 4, (12, 20)),  # MindInsight's example: epochs 3-5 -> steps 12-20
        ([1, 3], "epoch", 0, (1, 3)),  # no step_per_epoch recorded: left as it is
    ],
)
def test_step_range(
    value_range: list[int], unit: str, per_epoch: int, expected: tuple[int, int]
) -> None:
    assert step_range(value_range, unit, per_epoch) == expected


def test_grid_rows_follow_y() -> None:
    x, y = [0.0, 1.0, 2.0], [10.0, 20.0]
    z = np.array([[1, 2, 3], [4, 5, 6]])  # z[i][j] = loss at (x[j], y[i])
    cells = grid(value(x, y, z))
    assert cells.z[1][2] == 6 and cells.x[2] == 2.0 and cells.y[1] == 20.0
    assert resolution(cells) == "3x2x2"
    with pytest.raises(LandscapeError, match=r"expected \[len\(y\), len\(x\)\] = \[2, 3\]"):
        grid(value(x, y, z.T))
    entry = landscape_entry("./j", value(x, y, z), None)
    assert entry["points"]["z"] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_path_and_convergence_point() -> None:
    interval = value(
        [0.0, 1.0],
        [0.0, 1.0],
        np.zeros((2, 2)),
        [2, 4, 6],
        {"x": [0.0], "y": [0.0], "z": [2.2841074466705322]},
    )
    path = loss_path(interval)
    assert path is not None and path.intervals == (2, 4, 6) and path.z.tolist() == [0, 1, 2]
    point = convergence_point(interval)
    assert point == [0.0, 0.0, 2.2841074466705322]
    assert all(type(v) is float for v in point)  # DT_INT64 x/y in the file: floats here
    final = value([0.0, 1.0], [0.0, 1.0], np.zeros((2, 2)))
    assert loss_path(final) is None and convergence_point(final) == [0, 0, 0]
    entry = landscape_entry("./j", final, None)
    assert list(entry) == ["train_id", "points", "metadata", "convergence_point"]
    broken = LossLandscapeValue(
        final.landscape, [1, 2], {"x": np.zeros(2), "y": np.zeros(1), "z": np.zeros(2)}, {}, {}
    )
    with pytest.raises(LandscapeError, match="2 x, 1 y and 2 z"):
        loss_path(broken)


def test_lineage_metadata_and_metric() -> None:
    row = {
        "network": "LeNet5",
        "learning_rate": 0.05,
        "optimizer": "Momentum",
        "metric": {},
        "loss": 2.31805,
    }
    assert lineage_metadata(row) == {
        "network": "LeNet5",
        "learning_rate": "5.000000e-02",
        "optimizer": "Momentum",
        "metric": {},
        "loss": "2.318050e+00",
    }
    assert lineage_metadata(None) == {
        "network": None,
        "learning_rate": None,
        "optimizer": None,
        "metric": {},
    }
    assert evaluation_metric({"metric": {}}, [0.1, 0.1, 2.2388088703155518]) == (
        None,
        2.2388088703155518,
    )
    assert evaluation_metric({}, []) == (None, None)
    assert evaluation_metric({"metric": {"accuracy": 0.9, "loss": 1}}, [0, 0, 0]) == (
        "accuracy",
        0.9,
    )
