"""Item 8: tensors whose header claims absurd dims (10**8 x 10**8, dims whose product overflows
int64, negative dims) answer MindInsight's errors for that step only; the tag's other steps
keep working."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.faults.records import append_records, tensor_event

TENSORS = "/v1/mindinsight/datavisual/tensors?train_id=./job"
GOOD = np.arange(6, dtype=np.float32).reshape(2, 3)
#: step -> the dims its tensor header claims (no values follow)
HUGE = {4: [10**8, 10**8], 6: [2**62, 2**62, 16]}  # 6: np.prod wraps around to 0
NEGATIVE = {5: [-2, 3]}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``weights``: steps 1-3 fine, 4-6 absurd; ``bias``: steps 1-3 fine, 5 negative dims."""
    base = tmp_path_factory.mktemp("logs")
    with SummaryWriter(str(base / "job")) as writer:
        for step in (1, 2, 3):
            writer.add_tensor("weights", GOOD * step, step)
            writer.add_tensor("bias", GOOD + step, step)
            writer.record(step)
        path = Path(writer.summary_path)
    append_records(
        path,
        [
            tensor_event("weights", step, dims)
            for step, dims in sorted({**HUGE, **NEGATIVE}.items())
        ],
    )
    append_records(path, [tensor_event("bias", 5, NEGATIVE[5])])
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app.server.test_client()
    app.data_service.close()


def values(answer: Any) -> list[dict[str, Any]]:
    assert answer.status_code == 200, answer.get_data(as_text=True)
    result: list[dict[str, Any]] = answer.get_json()["tensors"][0]["values"]
    return result


def test_every_step_keeps_its_dims(client: Any) -> None:
    listed = values(client.get(TENSORS + "&tag=weights/tensor"))
    assert [(v["step"], v["value"]["dims"]) for v in listed] == [
        (1, [2, 3]),
        (2, [2, 3]),
        (3, [2, 3]),
        (4, HUGE[4]),
        (5, NEGATIVE[5]),
        (6, HUGE[6]),
    ]


def test_statistics_are_null_for_the_bad_steps_only(client: Any) -> None:
    """MindInsight's null statistics for a step it could not keep; before, the negative dims
    made the whole tag a 500."""
    listed = values(client.get(TENSORS + "&tag=weights/tensor&detail=stats"))
    statistics = {v["step"]: v["value"]["statistics"] for v in listed}
    assert [step for step, stats in statistics.items() if stats is None] == [4, 5, 6]
    assert statistics[3]["max"] == 15.0 and statistics[3]["count"] == 6


@pytest.mark.parametrize("step", sorted(HUGE))
def test_absurd_dims_are_too_large(client: Any, step: int) -> None:
    """MindInsight's TensorTooLarge, counted exactly: 2**62 * 2**62 * 16 wrapped to 0 in int64
    and the step answered 500."""
    answer = client.get(
        TENSORS + f"&tag=weights/tensor&detail=data&step={step}"
        f"&dims=[{','.join(['0'] * (len(HUGE[step]) - 1))},:]"
    )
    assert answer.status_code == 400
    assert answer.get_json()["error_code"] == "50545016"
    assert f"{np.prod(HUGE[step], dtype=object):,}" in answer.get_json()["error_msg"]


def test_negative_dims_answer_their_own_error(client: Any) -> None:
    answer = client.get(TENSORS + "&tag=weights/tensor&detail=data&step=5&dims=[0,:]")
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["error_code"] == "50545014"
    assert "negative dims [-2, 3]" in body["error_msg"]


def test_the_good_steps_still_answer(client: Any) -> None:
    for step in (1, 2, 3):
        listed = values(
            client.get(TENSORS + f"&tag=weights/tensor&detail=data&step={step}&dims=[:,:]")
        )
        assert listed[0]["value"]["data"] == (GOOD * step).tolist()


def test_histograms_leave_out_an_unreadable_step(client: Any) -> None:
    """``bias`` step 5 cannot be read: the histogram view shows steps 1-3 (before: 500)."""
    listed = values(client.get(TENSORS + "&tag=bias/tensor&detail=histogram"))
    assert [v["step"] for v in listed] == [1, 2, 3]
    assert all(v["value"]["histogram_buckets"] for v in listed)


def test_histograms_of_a_tag_with_a_too_large_step(client: Any) -> None:
    """Steps too large are named and left empty; the others keep their histograms (#42:
    MindInsight answers 50545016 for the whole tag)."""
    listed = values(client.get(TENSORS + "&tag=weights/tensor&detail=histogram"))
    # 4 and 6 are huge (named), 5 has negative dims (unreadable: left out)
    assert [v["step"] for v in listed] == [1, 2, 3, *sorted(HUGE)]
    assert all(v["value"]["histogram_buckets"] for v in listed[:3])
    for large in listed[3:]:
        assert large["value"]["histogram_buckets"] == [] and "values" in large["value"]["error"]
