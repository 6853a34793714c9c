"""The scalars plugin's REST answers (scalar/metadata, scalars comparison, the CSV/JSON export)
against MindInsight 2.3.1's (fixtures and helpers: tests/rest_fixtures.py).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from dash_insight.core.provider import DataProvider
from tests.rest_fixtures import (
    EXPORT,
    ORACLE_JOBS,
    PREFIX,
    assert_same,
    error_of,
    get,
)


@pytest.mark.parametrize("sampled", [False, True], ids=["every-step", "mindinsight-sampling"])
@pytest.mark.parametrize("train_id", ORACLE_JOBS)
def test_scalars_match_oracle(
    oracle: dict[str, Any],
    client: FlaskClient,
    mi_client: FlaskClient,
    train_id: str,
    sampled: bool,
) -> None:
    # No scalar tag of the corpus has more than 1000 steps: both answer exactly as MindInsight.
    for tag, answer in oracle["jobs"][train_id]["scalars"].items():
        assert_same(
            answer,
            get(mi_client if sampled else client, "/scalar/metadata", train_id=train_id, tag=tag),
            f"{train_id}[{tag}]",
        )


def test_comparison_scalars_match_oracle(oracle: dict[str, Any], client: FlaskClient) -> None:
    for tag, answer in oracle["comparison"]["scalars"].items():
        train_ids = [entry["train_id"] for entry in answer["scalars"]]
        ours = client.get(f"{PREFIX}/scalars", query_string={"train_id": train_ids, "tag": tag})
        assert_same(answer, ours.get_json(), tag)


def test_tag_without_scalar_suffix_gets_a_hint(
    client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    """REST scalar tags are ``<tag>/scalar``: ``tag=loss`` finds nothing, as in MindInsight,
    and the answer (an extra field; the shape is MindInsight's) and the log say why."""
    with caplog.at_level("INFO", logger="dash_insight.plugins.scalars.rest"):
        bare = client.get(
            f"{PREFIX}/scalars", query_string={"train_id": "./ops_all", "tag": "loss"}
        ).get_json()
    assert bare["scalars"] == []
    assert "tag=loss/scalar" in bare["hint"] and "'/scalar' suffix" in bare["hint"]
    assert any("tag=loss/scalar" in record.getMessage() for record in caplog.records)
    right = client.get(
        f"{PREFIX}/scalars", query_string={"train_id": "./ops_all", "tag": "loss/scalar"}
    ).get_json()
    assert "hint" not in right and len(right["scalars"]) == 1
    unknown = client.get(
        f"{PREFIX}/scalars", query_string={"train_id": "./ops_all", "tag": "nope"}
    ).get_json()
    assert unknown == {"scalars": []}  # MindInsight's answer: no hint to give
    caplog.clear()
    with caplog.at_level("INFO", logger="dash_insight.plugins.scalars.rest"):
        missing = client.get(
            f"{PREFIX}/scalar/metadata", query_string={"train_id": "./ops_all", "tag": "loss"}
        )
    assert missing.status_code == 400 and set(missing.get_json()) == {"error_code", "error_msg"}
    assert any("tag=loss/scalar" in record.getMessage() for record in caplog.records)


# -- export ----------------------------------------------------------------------------------------


def test_export_csv(client: FlaskClient, corpus_provider: DataProvider) -> None:
    response = client.get(
        EXPORT,
        query_string={
            "train_id": ["./ops_all", "./nested/grp/job_a"],
            "tag": ["loss", "metrics/nan_inf"],
        },
    )
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="scalars.csv"'
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert list(rows[0]) == ["train_id", "tag", "step", "wall_time", "value"]
    # nested job has "loss" but not "metrics/nan_inf": that pair is left out
    groups = [(r["train_id"], r["tag"]) for r in rows]
    assert sorted(set(groups), key=groups.index) == [
        ("./ops_all", "loss"),
        ("./ops_all", "metrics/nan_inf"),
        ("./nested/grp/job_a", "loss"),
    ]
    assert len(rows) == 500 + 500 + 200
    series = corpus_provider.read_scalars("./ops_all", "metrics/nan_inf")
    exported = [r for r in rows if r["tag"] == "metrics/nan_inf"]
    assert [int(r["step"]) for r in exported] == series.step.tolist()
    np.testing.assert_array_equal(
        np.array([float(r["value"]) for r in exported]), series.value.astype(np.float64)
    )
    assert {"nan", "inf", "-inf"} <= {r["value"] for r in exported}
    assert float(exported[0]["wall_time"]) == series.wall_time[0]


def test_export_json_equals_mindinsight_scalars(client: FlaskClient) -> None:
    response = client.get(
        EXPORT,
        query_string={"train_id": "./ops_all", "tag": "metrics/nan_inf/scalar", "format": "json"},
    )
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="scalars_ops_all_metrics_nan_inf_scalar.json"'
    )
    [exported] = response.get_json()
    assert [exported["train_id"], exported["tag"]] == ["./ops_all", "metrics/nan_inf/scalar"]
    [mindinsight] = client.get(
        f"{PREFIX}/scalars", query_string={"train_id": "./ops_all", "tag": "metrics/nan_inf/scalar"}
    ).get_json()["scalars"]
    assert exported["values"] == [
        {"step": v["step"], "wall_time": v["wall_time"], "value": v["value"]}
        for v in mindinsight["values"]
    ]
    assert any(v["value"] is None for v in exported["values"])
    one_job = client.get(EXPORT, query_string={"train_id": "./", "tag": ["a", "b"]})
    assert error_of(one_job) == (400, "50545005")


def test_export_errors(client: FlaskClient) -> None:
    def export_error(**params: Any) -> tuple[int, str]:
        return error_of(client.get(EXPORT, query_string=params))

    assert export_error(tag="loss") == (400, "50540003")
    assert export_error(train_id="./ops_all") == (400, "50540003")
    assert export_error(train_id="./ops_all", tag="loss", format="xlsx") == (400, "50540002")
    assert export_error(train_id="./nope", tag="loss") == (400, "50545005")
    assert export_error(train_id="./../corpus", tag="loss") == (400, "50540002")
    assert export_error(train_id="./ops_all", tag=["loss", "nope"]) == (400, "5054500E")
    response = client.get(EXPORT, query_string={"train_id": "./lenet_sc", "tag": "loss/auto"})
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="scalars_lenet_sc_loss_auto.csv"'
    )


# -- step ranges and level of detail (issue #18) ------------------------------------------------


def test_step_range_is_the_raw_slice_of_the_full_answer(client: FlaskClient) -> None:
    tag = "metrics/nan_inf/scalar"
    full = get(client, "/scalar/metadata", train_id="./ops_all", tag=tag)
    ranged = get(
        client, "/scalar/metadata", train_id="./ops_all", tag=tag, start_step=100, end_step=200
    )
    assert list(ranged) == ["metadatas", "points_in_range"]
    expected = [p for p in full["metadatas"] if 100 <= p["step"] <= 200]
    assert ranged["points_in_range"] == len(expected) == 101
    assert_same(expected, ranged["metadatas"])
    assert ranged["metadatas"] == expected  # the same floats, not only close ones
    open_end = get(client, "/scalar/metadata", train_id="./ops_all", tag=tag, start_step=450)
    assert open_end["metadatas"] == [p for p in full["metadatas"] if p["step"] >= 450]
    empty = get(client, "/scalar/metadata", train_id="./ops_all", tag=tag, start_step=900)
    assert empty == {"metadatas": [], "points_in_range": 0}


def test_max_points_keeps_ends_extremes_and_non_finite(
    client: FlaskClient, corpus_provider: DataProvider
) -> None:
    tag = "metrics/nan_inf/scalar"
    full = get(client, "/scalar/metadata", train_id="./ops_all", tag=tag)["metadatas"]
    drawn = get(client, "/scalar/metadata", train_id="./ops_all", tag=tag, max_points=10)
    assert drawn["points_in_range"] == 500 and len(drawn["metadatas"]) < 500
    steps = [p["step"] for p in drawn["metadatas"]]
    assert steps[0] == full[0]["step"] and steps[-1] == full[-1]["step"]
    assert {p["step"] for p in full if p["value"] is None} <= set(steps)
    finite = [p["value"] for p in full if p["value"] is not None]
    kept = [p["value"] for p in drawn["metadatas"] if p["value"] is not None]
    assert max(kept) == max(finite) and min(kept) == min(finite)
    assert all(p in full for p in drawn["metadatas"])  # drawn points are stored points
    [entry] = get(
        client, "/scalars", train_id="./ops_all", tag=tag, max_points=10, start_step=1, end_step=500
    )["scalars"]
    assert list(entry) == ["train_id", "tag", "values", "points_in_range"]
    assert entry["values"] == drawn["metadatas"] and entry["points_in_range"] == 500


def test_range_parameter_errors(client: FlaskClient) -> None:
    def fails_with(path: str, **params: Any) -> tuple[int, str]:
        return error_of(
            client.get(
                PREFIX + path,
                query_string={"train_id": "./ops_all", "tag": "loss/scalar", **params},
            )
        )

    for path in ("/scalar/metadata", "/scalars"):
        assert fails_with(path, start_step="abc") == (400, "50540001")
        assert fails_with(path, end_step="1.5") == (400, "50540001")
        assert fails_with(path, max_points="3") == (400, "50540002")
        assert fails_with(path, start_step=10, end_step=9) == (400, "50540002")
    assert error_of(
        client.get(EXPORT, query_string={"train_id": "./ops_all", "tag": "loss", "max_points": "x"})
    ) == (400, "50540001")


def test_export_of_a_range(client: FlaskClient) -> None:
    response = client.get(
        EXPORT,
        query_string={"train_id": "./ops_all", "tag": "loss", "start_step": 10, "end_step": 19},
    )
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [int(r["step"]) for r in rows] == list(range(10, 20))
    [exported] = client.get(
        EXPORT,
        query_string={"train_id": "./ops_all", "tag": "loss", "format": "json", "max_points": 20},
    ).get_json()
    assert list(exported) == ["train_id", "tag", "values", "points_in_range"]
    assert exported["points_in_range"] == 500 and 2 < len(exported["values"]) <= 20
    assert list(exported["values"][0]) == ["step", "wall_time", "value"]


def test_large_answers_are_streamed_in_pieces(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dash_insight.web import http

    query = {"train_id": "./ops_all", "tag": "metrics/nan_inf/scalar"}
    whole = client.get(f"{PREFIX}/scalar/metadata", query_string=query)
    assert whole.headers["Content-Length"] == str(len(whole.get_data()))  # one body
    monkeypatch.setattr(http, "STREAM_POINTS", 100)
    streamed = client.get(f"{PREFIX}/scalar/metadata", query_string=query)
    assert "Content-Length" not in streamed.headers  # sent piece by piece
    assert streamed.get_data() == whole.get_data()
    columns = [("step", np.arange(5)), ("value", np.array([0.5, np.nan, np.inf, -1.0, 2.0]))]
    assert b"".join(http.point_object_pieces(columns, piece=2)) == http.point_objects(columns)
    assert b"[" + http.point_objects(columns) + b"]" == (
        b'[{"step":0,"value":0.5},{"step":1,"value":null},{"step":2,"value":null},'
        b'{"step":3,"value":-1.0},{"step":4,"value":2.0}]'
    )


CHART = "/v1/dash-insight/chart/scalar"


def test_chart_scalar_columns_at_a_width(
    client: FlaskClient, corpus_provider: DataProvider
) -> None:
    """What one line of a chart draws: the LOD of ``scalar/metadata`` as columns."""
    answer = client.get(
        CHART, query_string={"train_id": "./ops_all", "tag": "loss", "max_points": 100}
    ).get_json()
    window = corpus_provider.read_scalar_window("./ops_all", "loss", max_points=100)
    assert answer["step"] == window.series.step.tolist() and answer["shown"] <= 100
    assert answer["total"] == 500 and answer["step"][0] == 1 and answer["step"][-1] == 500
    np.testing.assert_allclose(answer["y"], window.series.value.astype(np.float64))
    # MindInsight's tag spelling, a step range: every raw point of it.
    ranged = client.get(
        CHART,
        query_string={
            "train_id": "./ops_all",
            "tag": "loss/scalar",
            "start_step": 10,
            "end_step": 19,
        },
    ).get_json()
    assert ranged["step"] == list(range(10, 20)) and ranged["total"] == 10


def test_chart_scalar_marks_non_finite_values(
    client: FlaskClient, corpus_provider: DataProvider
) -> None:
    answer = client.get(
        CHART, query_string={"train_id": "./ops_all", "tag": "metrics/nan_inf"}
    ).get_json()
    value = corpus_provider.read_scalars("./ops_all", "metrics/nan_inf").value.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(value))
    assert bad.size and [i for i, _ in answer["nonfinite"]] == bad.tolist()
    assert {kind for _, kind in answer["nonfinite"]} <= {"nan", "inf", "-inf"}
    assert all(answer["y"][i] is None for i in bad.tolist())


LINES = "/v1/dash-insight/chart/scalar_lines"


def test_chart_scalar_lines_answers_each_line_as_chart_scalar(client: FlaskClient) -> None:
    """One request for a chart's lines: the n-th answer is ``chart/scalar``'s for the n-th
    job and tag; a job or tag without points is its error, the other lines still drawn."""
    pairs = [
        ("./ops_all", "loss"),
        ("./nope", "loss"),
        ("./ops_all", "nope"),
        ("./ops_all", "loss/scalar"),
    ]
    query = [("train_id", job) for job, _ in pairs] + [("tag", tag) for _, tag in pairs]
    answer = client.get(LINES, query_string=[*query, ("max_points", 100)])
    assert answer.status_code == 200
    lines = answer.get_json()["lines"]
    assert len(lines) == 4
    for (job, tag), line in zip(pairs, lines, strict=True):
        alone = client.get(CHART, query_string={"train_id": job, "tag": tag, "max_points": 100})
        assert line == alone.get_json()  # the same columns, or the same error
    assert lines[0]["total"] == 500 and lines[3] == lines[0]
    assert lines[1]["error_code"] and lines[2]["error_code"] != lines[1]["error_code"]


def test_chart_scalar_lines_errors(client: FlaskClient) -> None:
    unpaired = [("train_id", "./ops_all"), ("train_id", "./ops_all"), ("tag", "loss")]
    assert error_of(client.get(LINES, query_string=unpaired))[0] == 400
    assert error_of(client.get(LINES, query_string={"train_id": "./ops_all"}))[0] == 400
    assert error_of(client.get(LINES))[0] == 400
    bad_range = {"train_id": "./ops_all", "tag": "loss", "start_step": 9, "end_step": 1}
    assert error_of(client.get(LINES, query_string=bad_range))[0] == 400


def test_chart_scalar_errors(client: FlaskClient) -> None:
    assert error_of(client.get(CHART, query_string={"train_id": "./nope", "tag": "loss"}))[0] in (
        400,
        404,
    )
    status, code = error_of(
        client.get(CHART, query_string={"train_id": "./ops_all", "tag": "nope"})
    )
    assert status in (400, 404) and code
    status, _ = error_of(
        client.get(CHART, query_string={"train_id": "./ops_all", "tag": "loss", "max_points": 1})
    )
    assert status == 400
