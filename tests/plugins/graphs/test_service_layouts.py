"""The pictures of graph canvases kept in the workspace (``plugins/graphs/service_layouts.py``):
the store's checks, ``/v1/dash-insight/graph-layout``, and in the browser a graph laid out once
and drawn from its picture the next time, in the same places, without loading ELK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import diskcache
import pytest
from flask import Flask
from flask.testing import FlaskClient

from dash_insight.default import register_rest_api
from dash_insight.plugins.graphs.service_layouts import (
    FOLDER,
    MAX_PICTURE_BYTES,
    LayoutStore,
    PictureError,
)
from tests.browser import until
from tests.conftest import console_errors, loaded_service

PICTURE = {
    "boxes": {"a": {"x": 1, "y": 2, "w": 3, "h": 4}},
    "centres": {"a": {"x": 1, "y": 2}},
    "pieces": {},
    "labels": {},
}
URL = "/v1/dash-insight/graph-layout"


def test_the_store_keeps_pictures_under_their_keys_and_refuses_others(tmp_path: Path) -> None:
    store = LayoutStore(tmp_path)
    try:
        assert store.get("0.12.1-abc-xyz") is None
        store.put("0.12.1-abc-xyz", PICTURE)
        assert json.loads(store.get("0.12.1-abc-xyz") or "") == PICTURE
        for key in ("", "A", "../x", "a" * 65, "a/b", None):
            with pytest.raises(PictureError):
                store.put(key, PICTURE)  # type: ignore[arg-type]
        for picture in ([], {"boxes": {}}, {**PICTURE, "centres": []}, "x"):
            with pytest.raises(PictureError):
                store.put("k", picture)
        with pytest.raises(PictureError):
            store.put("k", {**PICTURE, "labels": {"x": "y" * MAX_PICTURE_BYTES}})
        assert store.get("k") is None
    finally:
        store.close()
    assert (tmp_path / FOLDER).stat().st_mode & 0o777 == 0o700


@pytest.fixture
def client(corpus: Path, tmp_path: Path) -> Iterator[FlaskClient]:
    service = loaded_service(corpus, tmp_path / "ws")
    app = Flask(__name__)
    register_rest_api(app, service)
    try:
        yield app.test_client()
    finally:
        service.close()


def test_the_route_gets_and_puts_pictures(client: FlaskClient) -> None:
    assert client.get(URL, query_string={"key": "v-1"}).status_code == 204  # none yet
    assert client.put(URL, query_string={"key": "v-1"}, json=PICTURE).status_code == 204
    answer = client.get(URL, query_string={"key": "v-1"})
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert answer.get_json() == PICTURE
    for query, body in (({}, PICTURE), ({"key": "../../x"}, PICTURE), ({"key": "v"}, [1])):
        refused = client.put(URL, query_string=query, json=body)
        assert refused.status_code == 400, refused.get_data()
        assert "Invalid parameter value" in refused.get_json()["error_msg"]
    garbage = client.put(URL, query_string={"key": "v"}, data=b"\xff{", content_type="text/x")
    assert garbage.status_code == 400
    huge = client.put(URL, query_string={"key": "v"}, data=b" " * (MAX_PICTURE_BYTES + 1))
    assert huge.status_code == 413
    assert client.get(URL, query_string={"key": "v"}).status_code == 204


#: Every node's position on the canvas ``arguments[0]``, by id.
POSITIONS_JS = """
const cy = document.getElementById(arguments[0])._cyreg.cy;
return Object.fromEntries(cy.nodes().map(n => [n.id(), [n.position('x'), n.position('y')]]));
"""
LAID_OUT_JS = """
const e = document.getElementById(arguments[0]);
const cy = e && e._cyreg && e._cyreg.cy;
return Boolean(cy) && e.dataset.laidOut === cy.nodes().length + ':' + cy.edges().length;
"""
ELK_LOADED_JS = """
return performance.getEntriesByType('resource').some(e => e.name.includes('/vendor/elk-'))
  || typeof window.ELK !== 'undefined';
"""


def _kept(workspace: Path) -> int:
    with diskcache.Cache(str(workspace / FOLDER)) as cache:
        return len(cache)


@pytest.mark.browser
@pytest.mark.parametrize(
    ("page", "canvas"),
    [
        ("graph?train_id=./lenet_sc&expanded=Default", "graph-cy"),  # scope by scope
        ("data-graph?train_id=./lenet_sc", "data-graph-cy"),
    ],  # in one piece
)
def test_a_graph_laid_out_once_is_drawn_again_without_elk(
    dash_duo: Any, corpus_app: Any, tmp_path: Path, page: str, canvas: str
) -> None:
    dash_duo.start_server(corpus_app)
    url = f"{dash_duo.server_url}/{page}"
    dash_duo.wait_for_page(url=url)
    until(lambda: dash_duo.driver.execute_script(LAID_OUT_JS, canvas), 60)
    first = dash_duo.driver.execute_script(POSITIONS_JS, canvas)
    assert dash_duo.driver.execute_script(ELK_LOADED_JS)  # laid out by ELK the first time
    until(lambda: (tmp_path / "ws" / FOLDER).exists() and _kept(tmp_path / "ws") >= 1, 30)

    dash_duo.wait_for_page(url=url)  # a new document: nothing in the page's memory
    until(lambda: dash_duo.driver.execute_script(LAID_OUT_JS, canvas), 60)
    assert not dash_duo.driver.execute_script(ELK_LOADED_JS)
    again = dash_duo.driver.execute_script(POSITIONS_JS, canvas)
    assert again.keys() == first.keys() and len(first) > 3
    assert all(
        abs(again[n][0] - first[n][0]) < 0.01 and abs(again[n][1] - first[n][1]) < 0.01
        for n in first
    )
    assert console_errors(dash_duo) == []
