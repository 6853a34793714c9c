"""The graph pages' ELK layout (``assets/graph-layout.js``) run in Node.js
(``bench/elk_layout.js``): what ``bench/graph.py`` and ``bench/hard_inputs.py`` time and the
layout tests check. Needs ``node`` on the PATH."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
from dataclasses import dataclass
from typing import Any

from dash_insight.plugins.graphs.figures import GraphView
from dash_insight.plugins.graphs.figures_cytoscape import graph_elements

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elk_layout.js")


def node_binary() -> str | None:
    return shutil.which("node")


@dataclass
class Laid:
    """One laid-out view: the median time, the leaves' centres, every node's box (x, y, w, h,
    top-left corner), every edge's route and the centre of every edge label ELK made room for,
    in model pixels; the scopes ELK laid out (``__root__``: the top level; the others came
    from the scopes' cache) and the ELK calls it took (0: the whole view was cached)."""

    name: str
    ms: float
    centres: dict[str, dict[str, float]]
    boxes: dict[str, list[float]]
    routes: dict[str, list[dict[str, float]]]
    labels: dict[str, dict[str, float]]
    laid_out: list[str]
    elk_calls: int


#: Width of an edge label's character in the graph page's 10 px font (model pixels).
LABEL_CHAR_PX = 5.6


def view_input(name: str, view: GraphView, after: int | None = None) -> dict[str, Any]:
    """What the browser gives ELK for ``view``: the page's cytoscape elements
    (:func:`graph_elements`), an open scope a compound node, an edge's label with its size
    (the page measures its text in the canvas's 10 px font: about :data:`LABEL_CHAR_PX` a
    character). ``after``: the index of the view laid out before it (and that view's ``after``
    before it...: their scopes cached, as on the page when this view is a scope more or less
    open than that one), else a first layout."""
    nodes, edges = [], []
    parents = {n.parent for n in view.nodes if n.parent}
    for element in graph_elements(view):
        data = element["data"]
        if "source" in data:
            edge = {"id": data["id"], "source": data["source"], "target": data["target"]}
            if data.get("label"):
                edge |= {"lw": round(len(data["label"]) * LABEL_CHAR_PX) + 4, "lh": 14}
            edges.append(edge)
        else:
            nodes.append(
                {
                    "id": data["id"],
                    "parent": data.get("parent"),
                    "w": data["w"],
                    "h": data["h"],
                    "compound": data["id"] in parents,
                }
            )
    laid = {"name": name, "direction": "DOWN", "nodes": nodes, "edges": edges}
    return laid if after is None else laid | {"after": after}


def lay_out(views: list[dict[str, Any]], repeat: int = 1) -> tuple[float, list[Laid]]:
    """(the first layout's ms, JIT warm-up included; each view laid out ``repeat`` times)."""
    binary = node_binary()
    if binary is None:
        raise RuntimeError("node is not on the PATH")
    answer = subprocess.run(
        [binary, RUNNER],
        input=json.dumps({"repeat": repeat, "views": views}),
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(answer.stdout)
    return result["first_ms"], [
        Laid(
            v["name"],
            statistics.median(v["ms"]),
            v["centres"],
            v["boxes"],
            v["routes"],
            v["labels"],
            v["laidOut"],
            v.get("elkCalls", 1),
        )
        for v in result["views"]
    ]
