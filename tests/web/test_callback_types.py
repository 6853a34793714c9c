"""The JSON types a callback's annotated parameters take (web/callback_types.py)."""

from __future__ import annotations

from typing import Any

import pytest

from dash_insight.web.callback_types import accepts, parameter_annotations, wrong_type


@pytest.mark.parametrize(
    ("annotation", "value", "taken"),
    [
        ("str | None", "?a=1", True),
        ("str | None", None, True),
        ("str | None", ["x"], False),
        ("str | None", 3, False),
        ("int | None", 3, True),
        ("int | None", 3.0, True),  # a slider may send either
        ("int | None", True, False),
        ("bool", True, True),
        ("dict | None", {"a": 1}, True),
        ("dict | None", "x", False),
        ("list[str] | None", ["a", "b"], True),
        ("list[str] | None", ["a", 1], False),
        ("list[int | None]", [1, None], True),
        ("list[int | None]", [1, "x"], False),
        ("list", [1, "x", {}], True),
        ("list[dict[str, Any]] | None", [{"a": 1}], True),
        ("Any", {"anything": [1]}, True),
        ("Mapping[str, str]", 5, True),  # not ours to judge
    ],
)
def test_accepts(annotation: str, value: Any, taken: bool) -> None:
    assert accepts(annotation, value) is taken


def _callback(search: str | None, stored: dict | None, tags: list[str] | None) -> Any:
    return search, stored, tags


def _variadic(*values: Any) -> Any:
    return values


def test_wrong_type_names_the_first_misfit() -> None:
    assert parameter_annotations(_callback) == ("str | None", "dict | None", "list[str] | None")
    assert wrong_type(_callback, ["?a", {}, ["t"]]) is None
    assert wrong_type(_callback, [None, None, None]) is None
    assert wrong_type(_callback, ["?a", "junk", ["t"]]) == 1
    assert wrong_type(_callback, [["?a"], "junk", ["t"]]) == 0
    assert wrong_type(_callback, ["?a", {}]) is None  # cannot be matched: Dash's own check
    assert wrong_type(_variadic, [1, 2]) is None


def _failing_app() -> Any:
    """An app with one callback that fails as told by its input (a string)."""
    import dash
    from dash import Input, Output, html

    from dash_insight.core.provider import JobNotFound
    from dash_insight.web import dash_requests

    app = dash.Dash(__name__)
    app.layout = html.Div([html.Div(id="in"), html.Div(id="out")])

    @app.callback(Output("out", "children"), Input("in", "title"))
    def fail(title: str | None) -> str:
        if title == "job":
            raise JobNotFound("no job ./nope")
        return title.upper()  # type: ignore[union-attr]  # fails on None: a real bug

    dash_requests.install(app, "/")

    @app.server.route("/boom")
    def boom() -> str:
        raise RuntimeError("not a callback")

    return app


def _post(app: Any, value: Any) -> Any:
    body = {
        "output": "out.children",
        "outputs": {"id": "out", "property": "children"},
        "inputs": [{"id": "in", "property": "title", "value": value}],
        "changedPropIds": ["in.title"],
    }
    return app.server.test_client().post("/_dash-update-component", json=body)


def test_a_failed_callback_is_400_only_for_what_the_request_got_wrong() -> None:
    app = _failing_app()
    assert _post(app, "ok").status_code == 200
    misfit = _post(app, ["a", "list"])  # the annotation takes a string: the body was wrong
    assert misfit.status_code == 400
    assert "value 0 (title)" in misfit.get_json()["message"]
    missing = _post(app, "job")
    assert missing.status_code == 400 and missing.get_json() == {"message": "no job ./nope"}
    assert _post(app, None).status_code == 500  # a value the callback takes: the server's bug
    assert app.server.test_client().get("/boom").status_code == 500  # other routes: as before
    assert app.server.test_client().post("/boom").status_code == 405  # HTTP errors: as before
