"""create_app mounted on an existing Flask service under a prefix: pages and REST work."""

from __future__ import annotations

import json
import re
from pathlib import Path

import flask
import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.application import assets_folder, security_headers
from tests.conftest import console_errors


@pytest.fixture
def host_app(corpus: Path, tmp_path: Path):
    server = flask.Flask("host")

    @server.route("/health")
    def health() -> str:
        return "ok"

    app = create_app(
        Settings(
            summary_base_dir=str(corpus),
            url_base_pathname="/insight/",
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
        ),
        server=server,
    )
    assert app.data_service.loader.wait_rounds(1)
    yield server, app
    app.data_service.close()


def test_mounted_under_prefix(host_app) -> None:
    server, _ = host_app
    client = server.test_client()
    assert client.get("/health").data == b"ok"
    assert "X-Frame-Options" not in client.get("/health").headers  # the host's own routes
    page = client.get("/insight/")
    assert page.status_code == 200 and page.headers["X-Frame-Options"] == "SAMEORIGIN"
    assert b"/insight/_dash-" in page.data
    assert client.get("/insight/_dash-layout").status_code == 200
    jobs = client.get("/insight/v1/mindinsight/datavisual/train-jobs?limit=999").get_json()
    assert jobs["total"] == 9
    scalars = client.get(
        "/insight/v1/mindinsight/datavisual/scalar/metadata"
        "?train_id=./lenet_sc&tag=loss/auto/scalar"
    ).get_json()
    assert len(scalars["metadatas"]) == 48
    image = client.get(
        "/insight/v1/mindinsight/datavisual/image/single-image"
        "?train_id=./lenet_sc&tag=input_data/auto/image&step=-1"
    )
    assert image.status_code == 200 and image.data.startswith(b"\x89PNG")
    assert client.get("/v1/mindinsight/datavisual/train-jobs").status_code == 404


@pytest.mark.browser
def test_mounted_app_in_browser(dash_duo, host_app) -> None:
    _, app = host_app
    dash_duo.start_server(app, navigate=False)  # the host app has no page at "/"
    dash_duo.wait_for_page(dash_duo.server.url + "/insight/")
    dash_duo.wait_for_contains_text("#job-total", "Total 9")
    dash_duo.find_element('a[href="/insight/dashboard?train_id=.%2Flenet_sc"]').click()
    dash_duo.wait_for_element("#preview-image")
    assert dash_duo.driver.current_url.endswith("/insight/dashboard?train_id=.%2Flenet_sc")
    assert console_errors(dash_duo) == []


def test_assets_folder_of_the_package_or_the_checkout(tmp_path: Path, caplog) -> None:
    package = tmp_path / "site" / "dash_insight"
    package.mkdir(parents=True)
    (tmp_path / "site" / "assets").mkdir()  # a checkout's top-level folder
    assert assets_folder(str(package)) == str(tmp_path / "site" / "assets")
    (package / "assets").mkdir()  # an installed wheel's: wins
    assert assets_folder(str(package)) == str(package / "assets")
    bare = tmp_path / "bare" / "dash_insight"
    bare.mkdir(parents=True)
    assert assets_folder(str(bare)) == str(bare / "assets")
    assert "no assets folder" in caplog.text
    assert Path(assets_folder(), "scalar-charts.js").is_file()  # this checkout's


def test_behind_a_prefix_stripping_proxy_and_framed_by_a_notebook(tmp_path: Path) -> None:
    """JupyterHub's jupyter-server-proxy: the browser asks for /user/a/proxy/8050/..., the server
    sees /...; a notebook on another origin may frame the pages."""
    from dash_insight.core.settings import DEMO_DIR

    app = create_app(
        Settings(summary_base_dir=DEMO_DIR, workspace=str(tmp_path / "ws")),
        start_loader=False,
        requests_pathname_prefix="/user/a/proxy/8050/",
        frame_ancestors=("'self'", "http://localhost:*"),
    )
    client = app.server.test_client()
    page = client.get("/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    # the stylesheets' bundle (web/asset_bundles.py), linked below the browser's prefix
    styles = re.search(r'href="/user/a/proxy/8050/assets/(di-bundle-[0-9a-f]+\.css)"', html)
    assert styles is not None and b".di-" in client.get(f"/assets/{styles.group(1)}").data
    config = json.loads(re.search(r'id="_dash-config"[^>]*>(.*?)</script>', html).group(1))
    assert config["requests_pathname_prefix"] == "/user/a/proxy/8050/"
    assert client.get("/_dash-layout").status_code == 200
    assert "X-Frame-Options" not in page.headers
    assert "frame-ancestors 'self' http://localhost:*" in page.headers["Content-Security-Policy"]
    app.data_service.close()


def test_security_headers_same_origin_by_default() -> None:
    assert security_headers()["X-Frame-Options"] == "SAMEORIGIN"
    assert security_headers()["Content-Security-Policy"].endswith("frame-ancestors 'self'")
    assert "X-Frame-Options" not in security_headers(("'self'", "vscode-webview:"))
