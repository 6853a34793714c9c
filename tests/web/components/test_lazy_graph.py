"""A lazy graph's figure as JSON text (dash_insight.web.components.lazy_graph.figure_json)."""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go

from dash_insight.web.components.lazy_graph import figure_json, lazy_figure


def _decoded(spec: dict) -> np.ndarray:
    array = np.frombuffer(base64.b64decode(spec["bdata"]), dtype="<" + spec["dtype"])
    return array.reshape([int(n) for n in spec["shape"].split(",")]) if "shape" in spec else array


def test_numeric_arrays_go_as_plotly_typed_arrays() -> None:
    figure = {
        "data": [
            {
                "type": "scatter",
                "x": np.array([0.5, 1.5, np.nan]),
                "y": np.arange(3, dtype=np.int64),
                "big": np.array([2**40, 1]),
                "small": np.array([1, 2], dtype=np.uint8),
                "customdata": np.array([[1.0, 2.0], [3.0, 4.0]]),
                "text": ["a", "b"],
                "names": np.array(["p", "q"]),
                "empty": np.zeros(0),
                "width": np.float32(1.5),
            }
        ],
        "layout": {"meta": {"view": "top"}, "height": np.int64(300)},
    }
    trace = json.loads(figure_json(figure))["data"][0]
    assert trace["x"]["dtype"] == "f8"
    np.testing.assert_array_equal(_decoded(trace["x"]), [0.5, 1.5, np.nan])
    assert trace["y"]["dtype"] == "i4" and _decoded(trace["y"]).tolist() == [0, 1, 2]
    # Plotly.js has no 64-bit integers: too wide for 32 bits, they go as floats.
    assert trace["big"]["dtype"] == "f8" and _decoded(trace["big"]).tolist() == [2**40, 1]
    assert trace["small"]["dtype"] == "u1"
    assert trace["customdata"]["shape"] == "2,2"
    assert _decoded(trace["customdata"]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    # Strings, empty arrays and numpy scalars as plain JSON.
    assert trace["text"] == ["a", "b"] and trace["names"] == ["p", "q"]
    assert trace["empty"] == [] and trace["width"] == 1.5
    assert json.loads(figure_json(figure))["layout"] == {"meta": {"view": "top"}, "height": 300}


def test_a_plotly_figure_is_encoded_as_plotly_does_and_none_stays_empty() -> None:
    figure = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]), layout={"height": 200})
    decoded = json.loads(figure_json(figure))
    assert decoded["layout"]["height"] == 200 and decoded["data"][0]["type"] == "scatter"
    assert go.Figure(decoded).data[0].y == (3, 4)
    assert lazy_figure("g", None, {}, "c") is None
    assert json.loads(lazy_figure("g", {"data": [], "layout": {}}, {}, "c")["figure"]) == {
        "data": [],
        "layout": {},
    }
