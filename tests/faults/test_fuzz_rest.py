"""Fuzz every REST endpoint (hypothesis): whatever the query parameters and the body, an answer
is never a 500 and never names a path outside the summary base directory.

The endpoints are read from the composed app's URL map, and the parameter names from the
plugins' REST modules, so a new endpoint or parameter is fuzzed without touching this file. The
data is the shared corpus plus the loss-landscape and profiler corpora, copied into one base
directory and served through the Flask test client (fast: ~1,000 requests in well under a
minute; 30 examples per endpoint). The examples are derandomized so a run is reproducible; set
``DASH_INSIGHT_FUZZ_EXAMPLES`` for a longer search.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dash_insight
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.conftest import CORPUS

SHARED = CORPUS.parent
EXAMPLES = int(os.environ.get("DASH_INSIGHT_FUZZ_EXAMPLES", "30"))
IGNORED_METHODS = {"HEAD", "OPTIONS"}
PLUGINS_DIR = Path(dash_insight.__file__).parent / "plugins"
#: ``request.args.get("x")``, ``.getlist("x")``, ``required_args("x", "y")``
_ARG = re.compile(r"""args\.get(?:list)?\(\s*["']([A-Za-z_]+)["']""")
_REQUIRED = re.compile(r"""required_args\(([^)]*)\)""")
_QUOTED = re.compile(r"""["']([A-Za-z_]+)["']""")
#: Keys of MindInsight's JSON bodies (lineage search, profiler conditions, caches, remarks).
BODY_KEYS = [
    "train_id",
    "train_ids",
    "summary_dir",
    "sorted_name",
    "sorted_type",
    "limit",
    "offset",
    "lineage_type",
    "loss",
    "metric/accuracy",
    "learning_rate",
    "in",
    "not_in",
    "eq",
    "lt",
    "gt",
    "le",
    "ge",
    "op_type",
    "device_id",
    "op_name",
    "filter_condition",
    "sort_condition",
    "group_condition",
    "name",
    "type",
    "partial_match_str_in",
    "added_info",
    "remark",
    "tag",
    "batch_size",
]
HOSTILE = [
    "",
    "..",
    "../",
    "./..",
    "./../..",
    "./lenet_sc/../..",
    "/etc",
    "/etc/passwd",
    "~",
    "~/.ssh",
    "./\x00",
    "./lenet_sc\x00",
    "%2e%2e%2f",
    "./nested/..",
    ".//",
    "./lenet_sc/",
    "\\..\\..",
    "./" + "a" * 300,
    "-1",
    "0",
    "1e999",
    "NaN",
    "[",
    "{}",
    "[0,:]",
    "[:,:]",
    "[0,0,:]",
    "[::0]",
    "[" + ",".join(["0"] * 50) + "]",
    "profiler",
    "./profiler",
    "../profiler",
    "cpu_op_type",
    "cpu_op_info",
    "normal",
    "optimized",
    "interval",
    "final",
    "csv",
    "json",
    "true",
    "false",
    "histogram",
    "stats",
    "data",
    "Default",
    "Default/",
    "/",
    "ascending",
    "descending",
    "train_lineage",
    "model",
    "dataset",
    "\u2603",
    "\ud7ff",
    " ",
    "\t",
]


@dataclass(frozen=True)
class Endpoint:
    path: str
    methods: tuple[str, ...]
    names: tuple[str, ...]  # the query parameters its module reads


@dataclass(frozen=True)
class Corpus:
    client: Any
    base: Path
    endpoints: tuple[Endpoint, ...]
    tags: dict[str, dict[str, tuple[str, ...]]]  # train id -> plugin -> its tags
    profiled: tuple[str, ...]  # train ids with profiler data

    def jobs_for(self, endpoint: Endpoint) -> list[str]:
        """The jobs holding what ``endpoint`` serves (all jobs when it is not one plugin's)."""
        if "/profile/" in endpoint.path:
            return list(self.profiled)
        kind = endpoint_kind(endpoint)
        jobs = [job for job, tags in self.tags.items() if tags.get(kind or "")]
        return sorted(jobs or self.tags)

    def tags_for(self, endpoint: Endpoint, train_id: str) -> tuple[str, ...]:
        tags = self.tags[train_id]
        kind = endpoint_kind(endpoint)
        return tags.get(kind or "") or tuple(t for each in tags.values() for t in each)


def endpoint_kind(endpoint: Endpoint) -> str | None:
    """The plugin whose tags ``endpoint`` takes (``scalar`` for ``.../scalars``), if any."""
    for kind in ("scalar", "image", "histogram", "tensor", "graph", "landscape"):
        if kind in endpoint.path:
            return "loss_landscape" if kind == "landscape" else kind
    return None


def names_read_by(source: str) -> set[str]:
    """The query parameters a REST module's source reads."""
    names = set(_ARG.findall(source))
    for arguments in _REQUIRED.findall(source):
        names.update(_QUOTED.findall(arguments))
    return names


def parameter_names() -> list[str]:
    """Every query parameter a plugin's REST module reads."""
    return sorted(
        set().union(
            *(names_read_by(module.read_text()) for module in PLUGINS_DIR.glob("*/rest.py"))
        )
    )


PARAMETERS = parameter_names()


def rest_endpoints(server: Any) -> tuple[Endpoint, ...]:
    """The REST routes of the composed app (its catch-all views left out), each with the query
    parameters its module reads."""
    found = []
    for rule in server.url_map.iter_rules():
        if not rule.rule.startswith(("/v1/mindinsight/", "/v1/dash-insight/")):
            continue
        if rule.endpoint.endswith(("not_found", "not_found_root")):
            continue
        module = inspect.getmodule(server.view_functions[rule.endpoint])
        names = names_read_by(inspect.getsource(module)) if module else set()
        found.append(
            Endpoint(
                rule.rule,
                tuple(sorted(set(rule.methods or ()) - IGNORED_METHODS)),
                tuple(sorted(names)),
            )
        )
    return tuple(sorted(found, key=lambda endpoint: endpoint.path))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    base = tmp_path_factory.mktemp("fuzz") / "logs"
    shutil.copytree(CORPUS, base)
    for extra in ("corpus-landscape", "corpus-profiler"):
        for job in sorted((SHARED / extra).glob("*")):
            if job.is_dir():
                shutil.copytree(job, base / f"{extra}-{job.name}")
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    client = app.server.test_client()
    jobs = client.get("/v1/mindinsight/datavisual/train-jobs?limit=999").get_json()["train_jobs"]
    tags = {
        job["train_id"]: {plugin: tuple(tags) for plugin, tags in job["plugins"].items()}
        for job in jobs
    }
    profiled = tuple(job["train_id"] for job in jobs if job["profiler_dir"])
    yield Corpus(client, base.resolve(), rest_endpoints(app.server), tags, profiled)
    app.data_service.close()


def test_every_endpoint_is_fuzzed(corpus: Corpus) -> None:
    """The fuzzing below covers what the app serves (a guard against an empty URL map or
    parameter harvest)."""
    assert {endpoint.path for endpoint in corpus.endpoints} >= set(ENDPOINT_PATHS)
    assert {"train_id", "tag", "step", "dims", "offset", "limit", "profile"} <= set(PARAMETERS)


#: Some of the endpoints when this test was written (the fuzz test covers whatever the app has).
ENDPOINT_PATHS = [
    "/v1/dash-insight/export/scalars",
    "/v1/mindinsight/datasets/dataset_graph",
    "/v1/mindinsight/datavisual/graphs/nodes",
    "/v1/mindinsight/datavisual/histograms",
    "/v1/mindinsight/datavisual/image/single-image",
    "/v1/mindinsight/datavisual/scalars",
    "/v1/mindinsight/datavisual/tensors",
    "/v1/mindinsight/datavisual/train-job-caches",
    "/v1/mindinsight/datavisual/train-jobs",
    "/v1/mindinsight/lineagemgr/lineages",
    "/v1/mindinsight/profile/ops/search",
    "/v1/mindinsight/datavisual/landscape/landscapes",
]


DIMS_TEXT = st.text(alphabet="[]:,-0123456789 ", max_size=16)
#: What clients send for the parameters whose values are a small vocabulary.
LIKELY = {
    "step": ["-1", "0", "1", "2", "3", "5", "10", "20", "100", "10000"],
    "dims": ["[0,:]", "[:,:]", "[0,0,:]", "[:]", "[]", "[0,0,0,:]"],
    "profile": ["profiler", "./profiler"],
    "detail": ["stats", "histogram", "data"],
    "mode": ["normal", "optimize"],
    "type": ["interval", "final", "cpu_op_type"],
    "offset": ["0", "1", "2"],
    "limit": ["1", "10", "100", "999"],
    "format": ["csv", "json"],
    "manual_update": ["true", "false"],
    "plugin_name": ["scalar", "image", "histogram", "tensor", "graph", "loss_landscape"],
    "search": ["conv", "Default", "o"],
    "name": ["Default", "Default/conv1-Conv2d", ""],
    "interval_id": ["0", "1"],
}


def values(
    corpus: Corpus, endpoint: Endpoint, name: str, train_id: str, hostile: bool
) -> st.SearchStrategy[str]:
    """Texts for parameter ``name``: what a client would send (``train_id``, a tag of that job,
    a step, dims), or when ``hostile`` paths out of the base, huge numbers and any text."""
    if hostile:
        return st.one_of(
            st.sampled_from(
                [
                    *HOSTILE,
                    str(corpus.base),
                    str(corpus.base.parent),
                    str(corpus.base) + "/../..",
                    train_id + "/../..",
                ]
            ),
            st.integers(min_value=-(2**70), max_value=2**70).map(str),
            st.text(max_size=24),
        )
    likely: st.SearchStrategy[str]
    if name == "train_id":
        likely = st.just(train_id)
    elif name == "tag":
        likely = st.sampled_from(corpus.tags_for(endpoint, train_id) or ("loss/scalar",))
    elif name == "dims":
        likely = st.one_of(st.sampled_from(LIKELY["dims"]), DIMS_TEXT)
    else:
        likely = st.sampled_from(LIKELY.get(name) or HOSTILE[-40:])
    return likely


def json_values(corpus: Corpus) -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=16),
        st.sampled_from([*corpus.tags, *HOSTILE]),
    )  # train ids and hostile texts
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(
                st.one_of(st.sampled_from(BODY_KEYS), st.text(max_size=8)), inner, max_size=5
            ),
        ),
        max_leaves=12,
    )


def templates(train_id: str) -> list[dict[str, Any]]:
    """Bodies MindInsight's UI sends: caches, lineage search, profiler operator search."""
    return [
        {"train_ids": [train_id]},
        {
            "summary_dir": {"in": [train_id]},
            "sorted_name": "summary_dir",
            "sorted_type": "descending",
            "limit": 10,
            "offset": 0,
            "lineage_type": {"in": ["model"]},
        },
        {"train_id": train_id, "added_info": {"remark": "fuzz", "tag": 1}},
        {
            "op_type": "cpu_op_info",
            "device_id": "0",
            "filter_condition": {},
            "sort_condition": {"name": "op_avg_time", "type": "descending"},
            "group_condition": {"offset": 0, "limit": 10},
        },
    ]


def edited(corpus: Corpus, train_id: str) -> st.SearchStrategy[Any]:
    """A UI body with some of its values replaced by any JSON."""
    return st.tuples(
        st.sampled_from(templates(train_id)),
        st.dictionaries(st.sampled_from(BODY_KEYS), json_values(corpus), max_size=3),
    ).map(lambda pair: {**pair[0], **pair[1]})


#: Bodies every endpoint that takes one is sent once (besides the fuzzing): nested too deep for
#: the JSON parser, numbers too large for a float, not UTF-8, not JSON.
HOSTILE_BODIES = [
    b"[" * 5000,
    b'{"a":' * 3000,
    b"[" * 100 + b"]" * 100,
    b"1e999999",
    b"\xff\xfe",
    b"NaN",
    b"{",
    b'"' + b"x" * 100_000 + b'"',
    b"[]",
    b"null",
    b'{"train_ids": ["./lenet_sc", "../.."]}',
    b'{"op_type": "cpu_op_info", "device_id": "0"}',
]


def bodies(corpus: Corpus, train_id: str) -> st.SearchStrategy[tuple[bytes, str | None]]:
    """(body, content type): UI bodies edited, JSON of MindInsight's keys, raw bytes, broken or
    deep JSON."""
    return st.one_of(
        edited(corpus, train_id).map(
            lambda value: (json.dumps(value).encode(), "application/json")
        ),
        edited(corpus, train_id).map(
            lambda value: (json.dumps(value).encode(), "application/json")
        ),
        json_values(corpus).map(lambda value: (json.dumps(value).encode(), "application/json")),
        st.binary(max_size=64).map(lambda raw: (raw, "application/json")),
        st.sampled_from(HOSTILE_BODIES).map(lambda raw: (raw, "application/json")),
        st.just((b"", None)),
    )


#: An absolute path in an answer: a slash, then path characters.
_ABSOLUTE = re.compile(r"(?<![\w.%:/])(/[\w.\-~]+(?:/[\w.\-~ ]*)*)")
TOP_LEVEL = {f"/{name}" for name in os.listdir("/")}


def outside_paths(answer: str, request: str, base: Path) -> list[str]:
    """Absolute paths in ``answer`` that name something outside ``base`` and were not sent in
    the request (an echoed parameter reveals nothing)."""
    found = []
    for match in _ABSOLUTE.findall(answer):
        candidate = match.rstrip(". ")
        top = "/" + candidate.strip("/").split("/", 1)[0]
        if top not in TOP_LEVEL or candidate in request:
            continue
        resolved = os.path.realpath(candidate)
        if resolved == str(base) or resolved.startswith(str(base) + os.sep):
            continue
        found.append(candidate)
    return found


def fuzz(corpus: Corpus, endpoint: Endpoint) -> None:
    """Hypothesis over one endpoint's methods, parameters and bodies."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def requests(data: st.DataObject) -> None:
        method = data.draw(st.sampled_from(endpoint.methods))
        train_id = data.draw(st.sampled_from(corpus.jobs_for(endpoint)))
        # the endpoint's own parameters, mostly, and now and then any other
        names = [name for name in endpoint.names if data.draw(st.integers(0, 9)) < 8]
        names += data.draw(st.lists(st.sampled_from(PARAMETERS), max_size=2))
        names = data.draw(st.permutations(names))
        # one or two parameters hostile at a time, so that the others pass their checks
        hostile = data.draw(st.sets(st.sampled_from(names), max_size=2)) if names else set()
        query = [
            (name, data.draw(values(corpus, endpoint, name, train_id, name in hostile)))
            for name in names
        ]
        body, content_type = data.draw(bodies(corpus, train_id)) if method != "GET" else (b"", None)
        headers = {"Content-Type": content_type} if content_type else {}
        check(corpus, method, endpoint, query, body, headers)

    requests()


def check(
    corpus: Corpus,
    method: str,
    endpoint: Endpoint,
    query: list[tuple[str, str]],
    body: bytes,
    headers: dict[str, str],
) -> None:
    """One request: never a 500, never a path outside the base directory."""
    answer = corpus.client.open(
        endpoint.path, method=method, query_string=query, data=body, headers=headers
    )
    text = answer.get_data().decode("utf-8", "replace")
    sent = f"{endpoint.path} {query!r} {body.decode('utf-8', 'replace')}"
    assert answer.status_code < 500, (
        f"{method} {endpoint.path} {query!r} {body[:200]!r}: {text[:1000]}"
    )
    leaked = outside_paths(text, sent, corpus.base)
    assert not leaked, f"{method} {endpoint.path} {query!r}: {leaked} in {text[:500]}"
    assert "root:x:0:0" not in text


def test_hostile_bodies(corpus: Corpus) -> None:
    """Every endpoint that takes a body gets each of :data:`HOSTILE_BODIES`, with the query a
    client would send (so the body is what is checked)."""
    for endpoint in corpus.endpoints:
        for method in set(endpoint.methods) - {"GET", "DELETE"}:
            train_id = corpus.jobs_for(endpoint)[0]
            query = [
                (
                    name,
                    LIKELY.get(name, [train_id])[0]
                    if name != "tag"
                    else (corpus.tags_for(endpoint, train_id) or ("x",))[0],
                )
                for name in endpoint.names
                if name in ("train_id", "profile", "tag")
            ]
            for body in HOSTILE_BODIES:
                check(corpus, method, endpoint, query, body, {"Content-Type": "application/json"})


def test_no_500_and_no_outside_path(corpus: Corpus) -> None:
    """Every endpoint the composed app serves, new ones included."""
    for endpoint in corpus.endpoints:
        fuzz(corpus, endpoint)
