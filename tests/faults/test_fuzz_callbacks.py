"""Fuzz every Dash callback (hypothesis over ``/_dash-dependencies``): whatever the values of
its inputs and states, ``/_dash-update-component`` never answers 500, and a body naming a
million jobs answers small.

The callbacks are read from the composed app, so a new page is fuzzed without touching this
file. Each callback gets bodies of the renderer's shape (its inputs, states and outputs) whose
values are what a page would send (URL searches naming corpus jobs and tags) or junk of every
JSON type; the examples are derandomized (``DASH_INSIGHT_FUZZ_EXAMPLES`` for a longer search).
"""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.conftest import CORPUS

EXAMPLES = int(os.environ.get("DASH_INSIGHT_FUZZ_EXAMPLES", "10"))
UPDATE = "/_dash-update-component"
JOBS = ["./lenet_sc", "./lenet_lr0.01_bs32", "./ops_all", "./nope", "../..", "/etc"]
TAGS = ["loss/auto", "learning_rate", "conv1.weight/auto", "nope"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("fuzzcb") / "logs"
    for job in ("lenet_sc", "lenet_lr0.01_bs32", "ops_all"):
        shutil.copytree(CORPUS / job, base / job)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app.server.test_client()
    app.data_service.close()


@pytest.fixture(scope="module")
def callbacks(client: Any) -> list[dict[str, Any]]:
    found = client.get("/_dash-dependencies").get_json()
    assert len(found) > 40  # every page's callbacks
    return [c for c in found if not c.get("clientside_function")]


def _dependency(spec: dict[str, Any]) -> dict[str, Any]:
    """A body entry for ``spec``: a pattern id gets a concrete value for its wildcards."""
    raw = spec["id"]
    if raw.startswith("{"):
        pattern = json.loads(raw)
        concrete = {k: ("x" if isinstance(v, list) else v) for k, v in pattern.items()}
        return {"id": concrete, "property": spec["property"]}
    return {"id": raw, "property": spec["property"]}


def _outputs(callback: dict[str, Any]) -> Any:
    """The ``outputs`` entry of a body: Dash names several outputs ``..a.x...b.y..``."""
    output = callback["output"]
    several = output.startswith("..") and output.endswith("..")
    parts = output[2:-2].split("...") if several else [output]
    specs = []
    for part in parts:
        name, _, prop = part.rpartition(".")
        specs.append(_dependency({"id": name, "property": prop}))
    return specs if several else specs[0]


LIKELY_SEARCH = st.builds(
    lambda jobs, tags, extra: (
        "?"
        + urlencode(
            {
                "train_id": jobs[0] if jobs else "",
                "jobs": ",".join(jobs),
                "tags": ",".join(tags),
                **extra,
            }
        )
    ),
    st.lists(st.sampled_from(JOBS), max_size=4),
    st.lists(st.sampled_from(TAGS), max_size=3),
    st.dictionaries(
        st.sampled_from(["page", "step", "smoothing", "view", "x", "tab", "hidden", "group_by"]),
        st.one_of(st.text(max_size=8), st.integers(-(2**70), 2**70).map(str)),
        max_size=3,
    ),
)
JUNK = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=20),
        st.sampled_from(JOBS + TAGS + ["/scalars", "/compare", "?train_id=./lenet_sc"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)


def _value(prop: str) -> st.SearchStrategy[Any]:
    if prop in ("search", "href"):
        return st.one_of(LIKELY_SEARCH, JUNK)
    if prop == "pathname":
        return st.one_of(
            st.sampled_from(["/", "/scalars", "/compare", "/dashboard", "/lineage", "/graph"]), JUNK
        )
    return JUNK


def _body(draw: Any, callback: dict[str, Any]) -> dict[str, Any]:
    entries = {}
    for key in ("inputs", "state"):
        entries[key] = [
            {**_dependency(spec), "value": draw(_value(spec["property"]))} for spec in callback[key]
        ]
    return {
        "output": callback["output"],
        "outputs": _outputs(callback),
        **entries,
        "changedPropIds": [
            f"{e['id'] if isinstance(e['id'], str) else json.dumps(e['id'])}.{e['property']}"
            for e in entries["inputs"][:1]
        ],
    }


def _fuzz_one(client: Any, callback: dict[str, Any], failures: list[tuple[str, int, str]]) -> None:
    """``EXAMPLES`` bodies for one callback (one draw each: hypothesis is quick on small
    examples, slow on one example holding every callback's values)."""

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        body = _body(data.draw, callback)
        answer = client.post(UPDATE, json=body)
        if answer.status_code >= 500:
            failures.append((callback["output"], answer.status_code, json.dumps(body)[:400]))

    fuzz()


def test_no_callback_answers_500(client: Any, callbacks: list[dict[str, Any]]) -> None:
    failures: list[tuple[str, int, str]] = []
    for callback in callbacks:
        _fuzz_one(client, callback, failures)
    by_output = sorted({output for output, _, _ in failures})
    assert not failures, f"{len(failures)} answers >= 500 on {by_output}: {failures[:3]}"


def test_a_million_jobs_in_a_url_answers_small(
    client: Any, callbacks: list[dict[str, Any]]
) -> None:
    """Every callback reading the URL, given a search naming a million jobs (a 14 MB body): a
    small answer (a 400) and what the server allocates for it bounded (the body's own bytes
    aside)."""
    search = "?" + urlencode({"jobs": ",".join(f"./j{i}" for i in range(1_000_000))})
    readers = [
        c for c in callbacks if any(s["property"] == "search" for s in c["inputs"] + c["state"])
    ]
    assert readers
    worst = 0
    tracemalloc.start()
    try:
        for callback in readers:
            body = _body(lambda _strategy: None, callback)
            for entry in body["inputs"] + body["state"]:
                if entry["property"] == "search":
                    entry["value"] = search
                elif entry["property"] == "pathname":
                    entry["value"] = "/compare"
            raw = json.dumps(body).encode()
            before, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            answer = client.post(UPDATE, data=raw, content_type="application/json")
            worst = max(worst, tracemalloc.get_traced_memory()[1] - before)
            assert answer.status_code < 500, callback["output"]
            assert len(answer.get_data()) < 100_000, callback["output"]
    finally:
        tracemalloc.stop()
    assert worst < 200 << 20, worst


def _store_body(callback: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """A body for ``callback`` with ``values`` by property (``data`` of an ``ALL`` store: the
    list itself), None elsewhere."""
    body = _body(lambda _strategy: None, callback)
    for entry in body["inputs"] + body["state"]:
        if entry["property"] in values:
            entry["value"] = values[entry["property"]]
    for key, specs in (("inputs", callback["inputs"]), ("state", callback["state"])):
        for position, spec in enumerate(specs):
            if '["ALL"]' in spec["id"]:  # the renderer sends a list of entries
                entry = body[key][position]
                body[key][position] = [{**entry, "value": item} for item in entry["value"] or []]
    return body


def test_a_store_not_of_the_pages_shape_answers_400(
    client: Any, callbacks: list[dict[str, Any]]
) -> None:
    """#36 item 1: a tensor card's store without its steps, a page of 100,000 cards, a tab's
    store of steps that are not integers: 400 JSON before any work, not a 500."""
    by_output = {c["output"]: c for c in callbacks}
    view = next(o for o in by_output if '"type":"tensor-table"' in o)
    stats = next(o for o in by_output if o.startswith('{"tag":["ALL"],"type":"tensor-stats"}'))
    tab = next(o for o in by_output if o.startswith("..url.search@") and "hcmp-step-box" in o)
    search = "?train_id=./ops_all"
    bodies = {
        "names its tag": _store_body(by_output[view], {"data": {"tag": "t"}, "search": search}),
        "at most 6 cards": _store_body(
            by_output[stats],
            {"data": [{"tag": "t"}] * 100_000, "value": [0] * 100_000, "search": search},
        ),
        "steps as integers": _store_body(
            by_output[tab], {"data": {"steps": ["a", 1]}, "value": 3, "search": ""}
        ),
    }
    for message, body in bodies.items():
        answer = client.post(UPDATE, json=body)
        assert answer.status_code == 400, (body["output"], answer.get_data()[:200])
        assert message in answer.get_json()["message"]
