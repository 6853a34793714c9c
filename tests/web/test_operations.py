"""Issue #41 item 7: ``/healthz``, ``/readyz`` and ``/metrics`` (Prometheus' text format)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from dash_insight.core import operations
from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

_SAMPLE = re.compile(r'^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)+\})? -?[0-9.e+-]+$|^# (HELP|TYPE) ')


@pytest.fixture
def app(tmp_path: Path):
    base = tmp_path / "base"
    with SummaryWriter(base / "job") as writer:
        for step in range(5):
            writer.add_scalar("loss", step / 2, step)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            url_base_pathname="/insight/",
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def test_probes_and_metrics(app, monkeypatch: pytest.MonkeyPatch) -> None:
    client = app.server.test_client()
    assert client.get("/insight/healthz").get_json() == {"status": "ok"}
    # Probes may name the pod by any host name: any Host header.
    other_host = {"Host": "insight.internal:8080"}
    assert client.get("/insight/healthz", headers=other_host).status_code == 200
    ready = client.get("/insight/readyz", headers=other_host)
    assert ready.status_code == 200, ready.get_json()
    body = ready.get_json()
    assert body["ready"] and body["checks"]["index"]["ok"] and body["checks"]["store"]["ok"]
    assert client.get("/insight/metrics", headers=other_host).status_code == 403  # names jobs

    jobs = client.get("/insight/v1/mindinsight/datavisual/train-jobs")
    assert jobs.status_code == 200
    metrics = client.get("/insight/metrics")
    assert metrics.status_code == 200
    assert metrics.content_type.startswith("text/plain; version=0.0.4")
    text = metrics.get_data(as_text=True)
    assert all(_SAMPLE.match(line) for line in text.splitlines()), text
    assert "dash_insight_jobs 1" in text
    assert 'dash_insight_job_load_lag_bytes{train_id="./job"} 0' in text
    assert "dash_insight_index_reachable 1" in text
    route = "/insight/v1/mindinsight/datavisual/train-jobs"
    assert f'dash_insight_request_duration_seconds_count{{route="{route}"}} 1' in text
    assert f'dash_insight_requests_total{{route="{route}",status="200"}} 1' in text

    # The summary store can no longer be listed: not ready, saying why.
    shutil.rmtree(app.data_service.summary_base_dir)
    monkeypatch.setattr(operations, "STORE_CHECK_SECONDS", 0.0)
    ready = client.get("/insight/readyz")
    assert ready.status_code == 503
    store = ready.get_json()["checks"]["store"]
    assert not store["ok"] and "FileNotFoundError" in store["detail"]
