"""``docs/limits.md`` is the table of what one request may ask for: it lists every route of the
composed app and every Dash callback, and each bound it writes down answers its documented
error just past the bound."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.jobs.rest import MAX_CACHE_IDS
from dash_insight.web.body_limit import MAX_REQUEST_BYTES
from dash_insight.web.http import MAX_JSON_BODY
from dash_insight.web.limits import MAX_URL_CHARS, MAX_URL_LIST_ITEMS
from dash_insight.web.url_state import decode_tags, encode_tags, parse_search
from tests.conftest import CORPUS, REPO

TABLE = REPO / "docs" / "limits.md"
UPDATE = "/_dash-update-component"
CACHES = "/v1/mindinsight/datavisual/train-job-caches"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    base = tmp_path_factory.mktemp("limits") / "logs"
    shutil.copytree(CORPUS / "lenet_sc", base / "lenet_sc")
    built = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert built.data_service.loader.wait_rounds(1)
    yield built
    built.data_service.close()


def table_cells() -> set[str]:
    """Every back-quoted text in the table's cells."""
    text = TABLE.read_text(encoding="utf-8")
    return {cell for line in text.splitlines() if line.startswith("|") for cell in _quoted(line)}


def _quoted(line: str) -> list[str]:
    return re.findall(r"`([^`]+)`", line)


def test_every_route_is_listed(app: Any) -> None:
    cells = table_cells()
    routes = {rule.rule for rule in app.server.url_map.iter_rules()}
    missing = sorted(route for route in routes if route not in cells)
    assert not missing, f"docs/limits.md lists no row for {missing}"


def test_every_callback_is_listed(app: Any) -> None:
    cells = table_cells()
    outputs = {c["output"] for c in app.server.test_client().get("/_dash-dependencies").get_json()}
    missing = sorted(output for output in outputs if output not in cells)
    assert not missing, f"docs/limits.md lists no row for {len(missing)} callbacks: {missing[:5]}"


def _search_callback(app: Any, search: Any) -> dict[str, Any]:
    """A body for the first callback whose first input is the URL's search."""
    for callback in app.server.test_client().get("/_dash-dependencies").get_json():
        inputs = callback["inputs"]
        if callback.get("clientside_function") or not inputs:
            continue
        if inputs[0]["property"] == "search" and not callback["output"].startswith(".."):
            name, _, prop = callback["output"].rpartition(".")
            if name.startswith("{"):
                continue
            return {
                "output": callback["output"],
                "outputs": {"id": name, "property": prop},
                "inputs": [{**_entry(spec), "value": None} for spec in inputs],
                "state": [{**_entry(spec), "value": None} for spec in callback["state"]],
                "changedPropIds": [],
            } | {"_search": search}
    raise AssertionError("no callback reads the URL's search")


def _entry(spec: dict[str, Any]) -> dict[str, Any]:
    raw = spec["id"]
    return {"id": json.loads(raw) if raw.startswith("{") else raw, "property": spec["property"]}


def _post_search(app: Any, search: Any) -> Any:
    body = _search_callback(app, search)
    body["inputs"][0]["value"] = body.pop("_search")
    return app.server.test_client().post(UPDATE, json=body)


def test_a_url_over_its_length_is_refused(app: Any) -> None:
    assert _post_search(app, "?jobs=" + "a" * (MAX_URL_CHARS - 6)).status_code < 400
    over = _post_search(app, "?jobs=" + "a" * MAX_URL_CHARS)
    assert over.status_code == 400
    assert "longer" in over.get_json()["message"]


@pytest.mark.parametrize("junk", [1, 2.5, True, [], ["?x=1"], {"a": 1}])
def test_a_url_of_another_type_is_refused(app: Any, junk: Any) -> None:
    answer = _post_search(app, junk)
    assert answer.status_code == 400
    assert "must be a string" in answer.get_json()["message"]


def test_unticking_one_name_of_a_10000_name_picker_keeps_the_others() -> None:
    """The picker then lists the 9,999 others: the URL holds them all and every one is read."""
    names = [f"name{i:05d}" for i in range(1, 10_000)]
    search = "?tags=" + quote(encode_tags(names))
    assert len(search) < MAX_URL_CHARS
    assert decode_tags(parse_search(search)["tags"]) == names


def test_a_url_list_keeps_its_bound() -> None:
    names = ",".join(f"j{i}" for i in range(MAX_URL_LIST_ITEMS + 10))
    assert len(decode_tags(names) or []) == MAX_URL_LIST_ITEMS


def test_a_body_over_the_request_limit_is_refused(app: Any) -> None:
    client = app.server.test_client()
    for path in (CACHES, UPDATE):
        answer = client.post(path, data=b" " * (MAX_REQUEST_BYTES + 1))
        assert answer.status_code == 413, path


def test_a_json_body_over_its_limit_is_refused(app: Any) -> None:
    body = json.dumps({"train_ids": ["./lenet_sc"], "pad": "x" * MAX_JSON_BODY}).encode()
    answer = app.server.test_client().post(CACHES, data=body, content_type="application/json")
    assert answer.status_code == 413
    assert answer.get_json()["error_code"] == "50540002"


def test_train_job_caches_over_its_ids_is_refused(app: Any) -> None:
    ids = [f"./j{i}" for i in range(MAX_CACHE_IDS + 1)]
    answer = app.server.test_client().post(CACHES, json={"train_ids": ids})
    assert answer.status_code == 400
    assert answer.get_json()["error_code"] == "50540002"


def test_the_table_names_its_constants() -> None:
    text = TABLE.read_text(encoding="utf-8")
    for name in ("MAX_REQUEST_BYTES", "MAX_JSON_BODY", "MAX_URL_CHARS", "MAX_URL_LIST_ITEMS"):
        assert name in text
    assert Path(TABLE).stat().st_size < 200_000
