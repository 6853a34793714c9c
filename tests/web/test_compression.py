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


def test_an_asset_is_compressed_once_and_kept(client, monkeypatch: pytest.MonkeyPatch) -> None:
    """Flask streams a file; its compressed bytes are kept like a component bundle's instead of
    being compressed chunk by chunk on every request (plotly.js: 13 ms a page load)."""
    import flask_compress.flask_compress as compress_module

    calls: list[str] = []
    compress = compress_module._compress_data
    monkeypatch.setattr(
        compress_module,
        "_compress_data",
        lambda app, data, algorithm: calls.append(algorithm) or compress(app, data, algorithm),
    )
    url = "/assets/shell.js?m=kept-once"
    first = client.get(url, headers={"Accept-Encoding": "zstd"})
    again = client.get(url, headers={"Accept-Encoding": "zstd"})
    assert first.headers["Content-Encoding"] == again.headers["Content-Encoding"] == "zstd"
    assert first.data == again.data and int(again.headers["Content-Length"]) == len(again.data)
    assert calls == ["zstd"]
