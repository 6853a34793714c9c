"""Assets linked with a fingerprint (their content's, or a bundle's content-named file:
web/asset_bundles.py) are kept by the browser a year (no revalidation on every page load);
without it they are revalidated as Flask does."""

from __future__ import annotations

import re

import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("base")
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
            url_base_pathname="/di/",
        ),
        start_loader=False,
    )
    yield app.server.test_client()
    app.data_service.close()


def test_linked_assets_are_kept_a_year(client) -> None:
    page = client.get("/di/").get_data(as_text=True)
    linked = re.findall(r'"(/di/assets/[^"]+\?m=[^"]+|/di/assets/di-bundle-[^"]+)"', page)
    assert any(url.split("?")[0].endswith(".js") for url in linked)
    assert any(url.split("?")[0].endswith(".css") for url in linked)
    for url in linked:
        answer = client.get(url)
        assert answer.status_code == 200
        assert answer.cache_control.max_age == 31_536_000 and answer.cache_control.public
        assert answer.cache_control.immutable
        assert not answer.cache_control.no_cache
        again = client.get(url, headers={"If-None-Match": answer.headers["ETag"]})
        assert again.status_code == 304 and again.cache_control.max_age == 31_536_000


def test_unfingerprinted_assets_are_revalidated(client) -> None:
    answer = client.get("/di/assets/shell.js")
    assert answer.status_code == 200 and answer.cache_control.no_cache
    assert answer.cache_control.max_age is None
    missing = client.get("/di/assets/nope.js?m=1")
    assert missing.status_code == 404 and missing.cache_control.max_age is None


def test_only_assets(client) -> None:
    layout = client.get("/di/_dash-layout?m=1")
    assert layout.cache_control.max_age is None
