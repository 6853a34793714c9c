"""What the REST tests share (tests/web/test_rest.py and tests/plugins/<name>/test_rest.py): the
apps serving the corpus (over tests/conftest.py's ``service``), the oracle and the helpers
comparing answers with it. Registered as a pytest plugin by tests/conftest.py; module-scoped
fixtures load the corpus once per test module that uses them.

The MindInsight-compatible REST API (dash_insight.web.http and the plugins' routes) is tested
against MindInsight 2.3.1's own answers.

``../shared/oracle/mindinsight-2.3.1-corpus.json.gz`` holds what MindInsight 2.3.1 answered for
``../shared/corpus`` (dumped with ``../shared/tools/mi_dump.py``). Two apps serve the corpus:

* ``client``: dash-insight as shipped, every step kept;
* ``mi_client``: the same index read by a provider with MindInsight's reservoir sizes
  (``samples_per_plugin`` = scalar 1000, image 10, histogram 50, tensor 20).

With MindInsight's sampling every answer must equal the oracle's (floats to 1e-9, JSON types and
key order included). Without it, the corpus is small enough that the caps drop nothing, except
where the oracle shows fewer steps: images with more than 10 steps (every lenet job, ops_in_net,
ops_all) and the ops_all histograms (51 steps; MindInsight's reservoir dropped step 240). There
our answer must hold every step the oracle has, with the same values; including step 240 leaves the
histograms' shared bucket grid unchanged, so those steps are equal too. The only other
difference is a tag MindInsight never listed: ops_all writes 7 tensor tags, and MindInsight's
``MAX_TENSOR_TAG_SIZE = 6`` evicted the first one (``tensor/rank1_f32``); dash-insight lists it.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dash_insight.core.service import DataService
from dash_insight.core.store.sampling import MINDINSIGHT_SAMPLES
from dash_insight.default import register_rest_api
from tests.conftest import ORACLE_PATH, loaded_service

PREFIX = "/v1/mindinsight/datavisual"
EXPORT = "/v1/dash-insight/export/scalars"
# The one tag MindInsight did not list (its 6-tensor-tags-per-job cap evicted the first one).
EXTRA_TAGS = {("./ops_all", "tensor"): ["tensor/rank1_f32/tensor"]}
SECURITY = {
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def _load_oracle() -> dict[str, Any]:
    with gzip.open(ORACLE_PATH, "rt") as handle:
        return json.load(handle)


ORACLE: dict[str, Any] = _load_oracle() if ORACLE_PATH.is_file() else {"jobs": {}}
ORACLE_JOBS = sorted(ORACLE["jobs"])


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle() -> dict[str, Any]:
    if not ORACLE_PATH.is_file():
        pytest.skip(f"oracle not found at {ORACLE_PATH}")
    return ORACLE


def rest_app(service: DataService, **options: Any) -> Flask:
    """A Flask app serving only the REST API over ``service``."""
    app = Flask(__name__)
    register_rest_api(app, service, **options)
    return app


@pytest.fixture(scope="module")
def client(service: DataService) -> FlaskClient:
    return rest_app(service).test_client()


@pytest.fixture(scope="module")
def mi_app(corpus: Path, workspace: Path, service: DataService) -> Flask:
    """The same index read with MindInsight's reservoir sizes."""
    return rest_app(loaded_service(corpus, workspace, samples_per_plugin=MINDINSIGHT_SAMPLES))


@pytest.fixture(scope="module")
def mi_client(mi_app: Flask) -> FlaskClient:
    return mi_app.test_client()


# -- helpers ---------------------------------------------------------------------------------------


def get(client: FlaskClient, path: str, **params: Any) -> Any:
    """What mi_dump.py stores: the JSON answer, or ``{"__http_status", "__body"}``."""
    response = client.get(PREFIX + path, query_string=params)
    if response.status_code != 200:
        return {"__http_status": response.status_code, "__body": response.get_json()}
    return response.get_json()


def error_of(response: Any) -> tuple[int, str]:
    """(HTTP status, error_code) of an error answer, checking its shape."""
    body = response.get_json()
    assert set(body) == {"error_code", "error_msg"}, body
    assert re.fullmatch(r"[0-9A-F]{8}", body["error_code"]), body
    assert body["error_msg"], body
    return response.status_code, body["error_code"]


def fails(client: FlaskClient, path: str, **params: Any) -> tuple[int, str]:
    return error_of(client.get(PREFIX + path, query_string=params))


def mismatches(
    expected: Any, actual: Any, path: str = "", ignore: frozenset[str] = frozenset()
) -> list[str]:
    """Differences between two JSON values: same types (int is not float, bool is not int), same
    dict keys in the same order (except ``ignore``), floats equal to 1e-9 (NaN == NaN)."""
    out: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if type(a) is not type(b):
            out.append(f"{where}: {type(a).__name__} {a!r:.60} != {type(b).__name__} {b!r:.60}")
        elif isinstance(a, dict):
            keys_a = [k for k in a if k not in ignore]
            keys_b = [k for k in b if k not in ignore]
            if keys_a != keys_b:
                out.append(f"{where}: keys {keys_a} != {keys_b}")
                return
            for key in keys_a:
                walk(a[key], b[key], f"{where}.{key}")
        elif isinstance(a, list):
            if len(a) != len(b):
                out.append(f"{where}: length {len(a)} != {len(b)}")
                return
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{where}[{i}]")
        elif isinstance(a, float):
            if not (
                math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))
            ):
                out.append(f"{where}: {a!r} != {b!r}")
        elif a != b:
            out.append(f"{where}: {a!r:.60} != {b!r:.60}")

    walk(expected, actual, path)
    return out


def assert_same(
    expected: Any, actual: Any, path: str = "", ignore: frozenset[str] = frozenset()
) -> None:
    found = mismatches(expected, actual, path, ignore)
    assert not found, f"{len(found)} differences, first: " + "; ".join(found[:5])
