"""TensorBoard jobs through the MindInsight REST API and the pages: every answer has the shape
a MindSpore job's answer has (same keys and value types, at every depth)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
import tensorboardX
from flask.testing import FlaskClient

from dash_insight import SummaryWriter as MindSporeWriter
from dash_insight.core.format.protos import tb_summary_pb2
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.url_state import encode_tags
from tests.browser import until
from tests.conftest import console_errors
from tests.core.format.test_tensorboard import _event_file, _summary, _tensor, _value
from tests.plugins.scalars.test_page import _open, _wait_charts
from tests.rest_fixtures import get

STEPS = (1, 2, 3)


def _shape(value: Any) -> Any:
    """The structure of a JSON value: dict keys and element types (lists by their first
    element), numbers as "number"."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """``./ms`` (MindSpore) and ``./tb`` (tensorboardX, plus a TF 2 style tensor file) with the
    same tags: loss, weight, input, a 2x3 tensor."""
    base = tmp_path_factory.mktemp("mixed")
    rng = np.random.default_rng(3)
    with MindSporeWriter(str(base / "ms"), timestamp=1700000000) as writer:
        for step in STEPS:
            writer.add_scalar("loss", 1.0 / step, step)
            writer.add_histogram("weight", rng.normal(size=100), step)
            writer.add_image("input", rng.integers(0, 256, (1, 3, 4, 5), dtype=np.uint8), step)
            writer.add_tensor("matrix", rng.normal(size=(2, 3)).astype(np.float32), step)
    with tensorboardX.SummaryWriter(str(base / "tb")) as writer:
        for step in STEPS:
            writer.add_scalar("loss", 2.0 / step, step)
            writer.add_histogram("weight", rng.normal(size=100), step)
            writer.add_image("input", rng.integers(0, 256, (3, 4, 5), dtype=np.uint8), step)
    _event_file(
        base / "tb" / "events.out.tfevents.1600000000.host.v2",
        [
            _summary(
                step,
                _value(
                    "matrix", _tensor("DT_FLOAT", [2, 3], float_val=rng.normal(size=6).tolist())
                ),
            )
            for step in STEPS
        ],
    )
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


def _ok(client: FlaskClient, path: str, **params: Any) -> Any:
    answer = get(client, path, **params)
    assert "__http_status" not in answer, answer
    return answer


def _both(client: FlaskClient, path: str, **params: Any) -> tuple[Any, Any]:
    return (
        _ok(client, path, train_id="./ms", **params),
        _ok(client, path, train_id="./tb", **params),
    )


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/single-job", {"plugin_name": "scalar"}),
        ("/single-job", {"plugin_name": "image"}),
        ("/plugins", {}),
        ("/scalar/metadata", {"tag": "loss/scalar"}),
        ("/scalars", {"tag": "loss/scalar"}),
        ("/histograms", {"tag": "weight/histogram"}),
        ("/image/metadata", {"tag": "input/image"}),
        ("/tensors", {"tag": "matrix/tensor"}),
        ("/tensors", {"tag": "matrix/tensor", "detail": "stats"}),
        ("/tensors", {"tag": "matrix/tensor", "detail": "histogram"}),
        ("/tensors", {"tag": "matrix/tensor", "detail": "data", "step": 2, "dims": "[:, :]"}),
    ],
)
def test_same_answer_shapes_as_mindspore(
    client: FlaskClient, path: str, params: dict[str, Any]
) -> None:
    ms, tb = _both(client, path, **params)
    assert _shape(tb) == _shape(ms)
    if path == "/plugins":
        assert tb == ms  # the same tags, under MindInsight's names


def test_train_jobs_list_both_kinds(client: FlaskClient) -> None:
    jobs = {job["train_id"]: job for job in _ok(client, "/train-jobs")["train_jobs"]}
    assert set(jobs) == {"./ms", "./tb"}
    assert _shape(jobs["./tb"]) == _shape(jobs["./ms"])
    assert jobs["./tb"]["summary_files"] == 2  # tensorboardX's file and the TF 2 style one


def test_values_as_written(client: FlaskClient) -> None:
    scalars = _ok(client, "/scalars", train_id="./tb", tag="loss/scalar")
    values = [v["value"] for v in scalars["scalars"][0]["values"]]
    assert values == [float(np.float32(2.0 / step)) for step in STEPS]
    image = client.get(
        "/v1/mindinsight/datavisual/image/single-image",
        query_string={"train_id": "./tb", "tag": "input/image", "step": 2},
    )
    assert image.status_code == 200 and image.data.startswith(b"\x89PNG")


def test_pages_render_tensorboard_jobs(client: FlaskClient) -> None:
    for page in (
        "/",
        "/dashboard?train_id=./tb",
        "/scalars?train_id=./tb",
        "/histograms?train_id=./tb",
        "/images?train_id=./tb",
        "/tensors?train_id=./tb",
        "/compare",
        "/lineage",
    ):
        assert client.get(page).status_code == 200, page


def test_simple_value_and_tensor_scalars_share_a_tag(tmp_path: Path) -> None:
    """One tag written both ways (tensorboardX before and after TF 2's new-style scalars) is
    one series."""
    _event_file(
        tmp_path / "run" / "events.out.tfevents.1600000000.host",
        [
            _summary(1, tb_summary_pb2.Summary.Value(tag="acc", simple_value=0.5)),
            _summary(2, _value("acc", _tensor("DT_FLOAT", [], float_val=[0.75]), "scalars")),
        ],
    )
    app = create_app(
        Settings(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    try:
        assert app.data_service.loader.wait_rounds(1)
        answer = _ok(app.server.test_client(), "/scalars", train_id="./run", tag="acc/scalar")
        assert [v["value"] for v in answer["scalars"][0]["values"]] == [0.5, 0.75]
    finally:
        app.data_service.close()


def test_mixed_base_in_the_browser(dash_duo, tmp_path: Path) -> None:
    """A MindSpore job and a TensorBoard job (tensorboardX) on one comparison chart, both in
    the summary list, the TensorBoard hparams session on the lineage page."""
    base = tmp_path / "base"
    with MindSporeWriter(str(base / "ms"), timestamp=1700000000) as writer:
        for step in range(1, 6):
            writer.add_scalar("loss", 1.0 / step, step)
    with tensorboardX.SummaryWriter(str(base / "tb")) as tb_writer:
        for step in range(1, 6):
            tb_writer.add_scalar("loss", 2.0 / step, step)
        tb_writer.add_hparams({"lr": 0.5, "optimizer": "sgd"}, {"accuracy": 0.75}, name="hp")
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    try:
        assert app.data_service.loader.wait_rounds(1)
        _open(dash_duo, app, f"/compare?jobs={quote(encode_tags(['./ms', './tb']))}")
        traces = _wait_charts(dash_duo, 1)["loss"]["data"]
        written = {"./ms": 1.0, "./tb": 2.0}
        assert {t["name"] for t in traces} == set(written)
        for trace in traces:  # the raw line and the smoothed one of each job
            assert trace["x"] == [1, 2, 3, 4, 5]
            if trace["y"][0] == written[trace["name"]]:  # the raw line
                assert trace["y"] == [
                    float(np.float32(written[trace["name"]] / s)) for s in range(1, 6)
                ]
        assert {t["name"] for t in traces if t["y"][0] == written[t["name"]]} == set(written)

        dash_duo.wait_for_page(dash_duo.server_url + "/")
        for train_id in ("./ms", "./tb", "./tb/hp"):
            until(lambda t=train_id: t in dash_duo.find_element("body").text, 15)
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        until(lambda: "./tb/hp" in dash_duo.find_element("body").text, 15)
        until(lambda: "sgd" in dash_duo.find_element("body").text, 15)
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()
