"""create_app mounted on an existing Flask service under a prefix: pages and REST work."""

from __future__ import annotations

from pathlib import Path

import flask
import pytest

from dash_insight.web.application import create_app
from tests.conftest import console_errors


@pytest.fixture
def host_app(corpus: Path, tmp_path: Path):
    server = flask.Flask("host")

    @server.route("/health")
    def health() -> str:
        return "ok"

    app = create_app(str(corpus), server=server, url_base_pathname="/insight/",
                     workspace=str(tmp_path / "ws"), reload_interval=0)
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
    scalars = client.get("/insight/v1/mindinsight/datavisual/scalar/metadata"
                         "?train_id=./lenet_sc&tag=loss/auto/scalar").get_json()
    assert len(scalars["metadatas"]) == 48
    image = client.get("/insight/v1/mindinsight/datavisual/image/single-image"
                       "?train_id=./lenet_sc&tag=input_data/auto/image&step=-1")
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
