"""The encoded-answer cache of the scalar endpoints (issue #18 item 3): a repeated request is
answered from the kept bytes, a grown series is encoded again, the cache stays within its
bytes, every parameter is part of the key, and the bytes are those encoded without it."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.provider import DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.core.store.series import ScalarSeries
from dash_insight.plugins.scalars import rest
from dash_insight.plugins.scalars.rest_export import csv_rows
from dash_insight.web import http
from tests.rest_fixtures import rest_app

PREFIX = "/v1/mindinsight/datavisual"
EXPORT = "/v1/dash-insight/export/scalars"
#: Values a chart must show as they are: NaN and ±inf among finite ones.
VALUES = [0.5, float("nan"), 1.25, float("inf"), -2.0, float("-inf"), 3.0e-7, 1.0e20]


class ReadCounter:
    """Counts the windows the provider reads (a kept answer reads none)."""

    def __init__(self, provider: DataProvider, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = provider.read_scalar_window

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(provider, "read_scalar_window", counted)


class GrowingJob:
    """A job ``./run`` of one scalar tag ``loss`` written step by step, and its data service."""

    def __init__(self, tmp_path: Path) -> None:
        self.base = tmp_path / "logs"
        self.writer = SummaryWriter(str(self.base / "run"), host="test")
        self.step = 0
        self.service = DataService(
            Settings(str(self.base), workspace=str(tmp_path / "ws"), reload_interval=0)
        )

    def write(self, values: list[float]) -> None:
        for value in values:
            self.step += 1
            self.writer.add_value("scalar", "loss", value)
            self.writer.record(self.step)
        self.writer.flush()
        self.service.loader.load_round()

    def close(self) -> None:
        self.writer.close()
        self.service.close()


@pytest.fixture
def job(tmp_path: Path) -> Iterator[GrowingJob]:
    grown = GrowingJob(tmp_path)
    yield grown
    grown.close()


def _answer_cache(client_app: Any) -> rest.AnswerCache:
    """The cache of the app's scalar routes (the views object behind ``scalar/metadata``)."""
    view = next(
        view
        for endpoint, view in client_app.view_functions.items()
        if endpoint.endswith(".scalar_metadata")
    )
    return view.__self__.answers  # type: ignore[no-any-return]


def _metadata(client: FlaskClient, **params: Any) -> bytes:
    response = client.get(
        f"{PREFIX}/scalar/metadata",
        query_string={"train_id": "./run", "tag": "loss/scalar", **params},
    )
    assert response.status_code == 200, response.get_data()
    return response.get_data()


def test_a_repeated_request_is_answered_from_the_kept_bytes(
    job: GrowingJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    job.write(VALUES * 5)
    app = rest_app(job.service)
    client = app.test_client()
    reads = ReadCounter(job.service.provider, monkeypatch)
    first = _metadata(client)
    assert reads.calls == 1
    again = _metadata(client)
    assert again == first and reads.calls == 1  # nothing read, nothing encoded
    assert len(_answer_cache(app).lru) == 1
    # The scalars endpoint shares the metadata encoding of the same window.
    scalars = client.get(
        f"{PREFIX}/scalars", query_string={"train_id": "./run", "tag": "loss/scalar"}
    ).get_json()
    assert reads.calls == 1
    assert (
        scalars["scalars"][0]["values"]
        == client.get(
            f"{PREFIX}/scalar/metadata", query_string={"train_id": "./run", "tag": "loss/scalar"}
        ).get_json()["metadatas"]
    )


def test_a_grown_series_is_encoded_again(job: GrowingJob) -> None:
    job.write(VALUES)
    client = rest_app(job.service).test_client()
    before = client.get(
        f"{PREFIX}/scalar/metadata", query_string={"train_id": "./run", "tag": "loss/scalar"}
    ).get_json()
    assert [p["step"] for p in before["metadatas"]] == list(range(1, len(VALUES) + 1))
    job.write([7.5, 8.5])
    after = client.get(
        f"{PREFIX}/scalar/metadata", query_string={"train_id": "./run", "tag": "loss/scalar"}
    ).get_json()
    assert [p["step"] for p in after["metadatas"]] == list(range(1, len(VALUES) + 3))
    assert [p["value"] for p in after["metadatas"][-2:]] == [7.5, 8.5]
    csv_text = client.get(EXPORT, query_string={"train_id": "./run", "tag": "loss"}).get_data()
    assert csv_text.decode().splitlines()[-1].endswith(",8.5")


def test_every_parameter_is_part_of_the_key(job: GrowingJob) -> None:
    job.write([float(v) for v in range(200)])
    client = rest_app(job.service).test_client()
    fresh = rest_app(job.service).test_client()  # another app: its own, empty cache
    asked = [
        {},
        {"max_points": 10},
        {"max_points": 20},
        {"start_step": 50},
        {"start_step": 50, "end_step": 60},
        {"end_step": 60},
        {"max_points": 10},
    ]
    for params in asked:
        assert _metadata(client, **params) == _metadata(fresh, **params), params
        fresh = rest_app(job.service).test_client()
    shapes = {
        fmt: client.get(
            EXPORT, query_string={"train_id": "./run", "tag": "loss", "format": fmt}
        ).get_data()
        for fmt in ("csv", "json")
    }
    assert shapes["csv"].startswith(b"train_id,tag,step,wall_time,value\n")
    assert shapes["json"].startswith(b'[{"train_id":"./run","tag":"loss","values":[{"step":1,')
    # The tag as named is part of the key: the answer names it as asked.
    named = client.get(EXPORT, query_string={"train_id": "./run", "tag": "loss/scalar"})
    assert b"./run,loss/scalar,1," in named.get_data()


def test_the_cache_stays_within_its_bytes(job: GrowingJob) -> None:
    job.write([float(v) for v in range(400)])
    app = rest_app(job.service)
    cache = _answer_cache(app)
    one = len(_metadata(app.test_client(), max_points=100))
    cache.lru.max_bytes = 3 * one
    client = app.test_client()
    for points in range(100, 120):
        _metadata(client, max_points=points)
        assert cache.lru.bytes <= cache.lru.max_bytes
    assert 1 <= len(cache.lru) <= 3
    cache.lru.max_bytes = 100  # smaller than any answer: computed, never kept
    cache.lru.clear()
    _metadata(client)
    assert len(cache.lru) == 0


def test_a_streamed_window_is_not_kept(job: GrowingJob, monkeypatch: pytest.MonkeyPatch) -> None:
    job.write([float(v) for v in range(300)])
    app = rest_app(job.service)
    client = app.test_client()
    whole = _metadata(client)
    _answer_cache(app).lru.clear()
    monkeypatch.setattr(http, "STREAM_POINTS", 100)
    streamed = client.get(
        f"{PREFIX}/scalar/metadata", query_string={"train_id": "./run", "tag": "loss/scalar"}
    )
    assert "Content-Length" not in streamed.headers and streamed.get_data() == whole
    assert len(_answer_cache(app).lru) == 0
    rows = client.get(EXPORT, query_string={"train_id": "./run", "tag": "loss"})
    assert "Content-Length" not in rows.headers
    assert rows.get_data().decode().count("\n") == 301 and len(_answer_cache(app).lru) == 0


def _csv_writer_rows(train_id: str, tag: str, series: ScalarSeries) -> str:
    """The CSV rows as the export wrote them before (one csv.writer row per point)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["train_id", "tag", "step", "wall_time", "value"])
    prefix = [
        ("'" + text) if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text
        for text in (train_id, tag)
    ]
    writer.writerows(
        (*prefix, step, repr(wall), repr(float(value)))
        for step, wall, value in zip(
            series.step.tolist(), series.wall_time.tolist(), series.value.tolist(), strict=True
        )
    )
    return buffer.getvalue()


@pytest.mark.parametrize(
    "names", [("./run", "loss"), ("./a,b", 'say "hi"'), ("=cmd", "-tag\nline")]
)
def test_csv_rows_are_those_of_csv_writer(names: tuple[str, str]) -> None:
    values = np.array(VALUES * 3 + [1e-5, 123456.789, -0.0, 1e16], np.float32)
    series = ScalarSeries(
        step=np.arange(1, len(values) + 1, dtype=np.int64),
        wall_time=1.7e9 + np.arange(len(values)) * 0.123,
        value=values,
    )
    assert "".join(csv_rows([(*names, series)])) == _csv_writer_rows(*names, series)


def test_csv_rows_of_the_corpus_are_those_of_csv_writer(corpus_provider: DataProvider) -> None:
    checked = 0
    for job in corpus_provider.list_jobs():
        for tag in job.tags.get("scalar", []):
            series = corpus_provider.read_scalars(job.train_id, tag)
            assert "".join(csv_rows([(job.train_id, tag, series)])) == _csv_writer_rows(
                job.train_id, tag, series
            ), (job.train_id, tag)
            checked += 1
    assert checked > 0
