"""Answers below the app's prefix are compressed when the client accepts it (zstd, br, gzip)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import brotli
import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app

METADATA = "/v1/mindinsight/datavisual/scalar/metadata?train_id=./ops_all&tag=loss/scalar"


@pytest.fixture(scope="module")
def client(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    app = create_app(
        Settings(
            summary_base_dir=str(corpus),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        ),
        start_loader=False,
    )
    app.data_service.loader.load_round()
    yield app.server.test_client()
    app.data_service.close()


def test_rest_answers_gzip_and_br(client) -> None:
    plain = client.get(METADATA)
    assert plain.headers.get("Content-Encoding") is None
    zipped = client.get(METADATA, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.data) == plain.data
    assert len(zipped.data) < len(plain.data) / 3
    brotlied = client.get(METADATA, headers={"Accept-Encoding": "br"})
    assert brotlied.headers["Content-Encoding"] == "br"
    assert brotli.decompress(brotlied.data) == plain.data
    assert "Accept-Encoding" in zipped.headers["Vary"]


def test_pages_layout_and_assets_compressed(client) -> None:
    page = client.get("/scalars?train_id=./ops_all", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    layout = client.get("/_dash-layout", headers={"Accept-Encoding": "gzip"})
    assert layout.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(layout.data))  # the layout, whole
    # Files are streamed: compressed by the streaming algorithms a browser offers (br, zstd).
    assets = client.get("/assets/scalar-charts.js", headers={"Accept-Encoding": "gzip, br"})
    assert assets.headers["Content-Encoding"] == "br"
    assert b"scalarCharts" in brotli.decompress(assets.data)
