"""Graph canvases a person can read (issue #17 item 6): the graph opens fitted, edges across
layers go between nodes (the layered layout's routes), the dashboard card and the page give an
edge the same tensor count, and both canvases follow the dark theme."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from dash_insight.plugins.graphs.graph_view import segment_points
from tests.browser import until
from tests.conftest import console_errors

LENET = "./lenet_sc"

_CY = "const cy = document.getElementById(arguments[0])._cyreg.cy;"
_EDGE_LABELS = (
    _CY
    + """
return cy.edges().map(e => [e.source().id(), e.target().id(), e.data('label')]);"""
)
_READY = """const e = document.getElementById(arguments[0]);
return !!(e && e._cyreg && e._cyreg.cy && e._cyreg.cy.nodes().length);"""


def _ready(dash_duo: Any, element_id: str) -> bool:
    return bool(dash_duo.driver.execute_script(_READY, element_id))


def _fill(dash_duo: Any) -> float:
    """How much of the canvas the drawn graph fills (the larger of width and height share)."""
    return dash_duo.driver.execute_script(
        _CY
        + """
        const box = cy.elements().renderedBoundingBox();
        return Math.max(box.w / cy.width(), box.h / cy.height());""",
        "graph-cy",
    )


def _crosses(start: tuple[float, float], end: tuple[float, float], box: dict) -> bool:
    """Whether the segment start-end passes through the inside of ``box`` (shrunk by 2 px:
    touching a border is not crossing), by clipping it to the box (Liang-Barsky)."""
    x1, y1, x2, y2 = box["x1"] + 2, box["y1"] + 2, box["x2"] - 2, box["y2"] - 2
    (sx, sy), (ex, ey) = start, end
    low, high = 0.0, 1.0
    for p, q in (
        (-(ex - sx), sx - x1),
        (ex - sx, x2 - sx),
        (-(ey - sy), sy - y1),
        (ey - sy, y2 - sy),
    ):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return False
    return True


def test_segment_points_reproduce_the_bends() -> None:
    weights, distances = segment_points((0.0, 0.0), (0.0, 100.0), [(30.0, 50.0)])
    assert weights == "0.5000" and distances == "-30.0"  # cytoscape's normal is (-dy, dx)
    assert segment_points((1.0, 1.0), (1.0, 1.0), [(2.0, 2.0)]) is None
    assert segment_points((0.0, 0.0), (1.0, 1.0), []) is None


def test_graph_opens_fitted_routed_themed_and_counts_like_the_card(
    dash_duo: Any, corpus_app: Any
) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(1600, 1000)

    # The dashboard card and the page label the same edge alike.
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/dashboard?train_id={LENET}")
    until(lambda: _ready(dash_duo, "preview-graph"), 30)
    card = {
        (s, t): label
        for s, t, label in dash_duo.driver.execute_script(_EDGE_LABELS, "preview-graph")
    }
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    until(lambda: _ready(dash_duo, "graph-cy"), 30)
    page = {
        (s, t): label for s, t, label in dash_duo.driver.execute_script(_EDGE_LABELS, "graph-cy")
    }
    assert card == page and any("tensors" in label for label in page.values())

    # Two scope boxes fill the canvas (zoomed in up to 2.5x) instead of sitting small in its
    # middle (a fifth of it, at most 1.2x, before).
    until(lambda: _fill(dash_duo) > 0.4, 15)

    # Scopes open: every edge between two nodes of one scope that crosses layers goes through
    # the room kept for it, never through another node. (An edge from inside an open scope
    # to outside it is routed between the blocks, not yet inside its own block.)
    dash_duo.wait_for_page(
        url=f"{dash_duo.server_url}/graph?train_id={LENET}"
        "&expanded=Default,Default/network-WithLossCell"
    )
    until(
        lambda: (
            _ready(dash_duo, "graph-cy")
            and dash_duo.driver.execute_script(
                _CY + "return cy.getElementById('Default/UpdateState-op0').length;", "graph-cy"
            )
        ),
        30,
    )
    drawn = dash_duo.driver.execute_script(
        _CY
        + """
        const leaves = cy.nodes().filter(n => !n.isParent()).map(n => ({id: n.id(),
            ancestors: n.ancestors().map(a => a.id()), box: n.boundingBox(
                {includeLabels: false, includeOverlays: false})}));
        const parent = n => (n.parent().length ? n.parent().id() : "");
        const edges = cy.edges('.routed').filter(e => parent(e.source()) === parent(e.target()))
          .map(e => ({source: e.source().id(), target: e.target().id(),
            points: [e.sourceEndpoint(), ...e.segmentPoints(), e.targetEndpoint()]}));
        return {leaves, edges};""",
        "graph-cy",
    )
    assert len(drawn["edges"]) >= 2
    for edge in drawn["edges"]:
        points = [(p["x"], p["y"]) for p in edge["points"]]
        for leaf in drawn["leaves"]:
            if leaf["id"] in (edge["source"], edge["target"]):
                continue
            assert not any(_crosses(a, b, leaf["box"]) for a, b in pairwise(points)), (
                edge["source"],
                edge["target"],
                leaf["id"],
            )

    # Dark theme: the canvas takes the panel's colour, edge labels sit on it.
    dash_duo.driver.execute_script("document.querySelector('#theme-toggle').click();")
    until(
        lambda: (
            dash_duo.driver.execute_script("return document.documentElement.dataset.theme;")
            == "dark"
        ),
        10,
    )
    colours = (
        "const wrap = document.querySelector(arguments[0]);"
        "const panel = document.querySelector('.di-panel');"
        "return [getComputedStyle(wrap).backgroundColor,"
        " getComputedStyle(panel).backgroundColor];"
    )
    canvas, panel = dash_duo.driver.execute_script(colours, "#graph-canvas-wrap")
    assert canvas == panel == "rgb(32, 35, 42)"
    until(
        lambda: (
            _ready(dash_duo, "graph-cy")
            and dash_duo.driver.execute_script(
                _CY + "return cy.edges()[0].style('text-background-color');", "graph-cy"
            )
            == "rgb(32,35,42)"
        ),
        10,
    )
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/data-graph?train_id={LENET}")
    until(lambda: _ready(dash_duo, "data-graph-cy"), 30)
    canvas, panel = dash_duo.driver.execute_script(colours, "#data-graph-canvas-wrap")
    assert canvas == panel == "rgb(32, 35, 42)"
    assert not console_errors(dash_duo)
