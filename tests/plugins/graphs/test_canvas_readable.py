"""Graph canvases a person can read (issue #17 item 6): the graph opens fitted, the dashboard
card and the page give an edge the same tensor count, and both canvases follow the dark theme.
(Edges routed around nodes: ``test_layout_quality.py``.)"""

from __future__ import annotations

from typing import Any

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


def test_graph_opens_fitted_themed_and_counts_like_the_card(dash_duo: Any, corpus_app: Any) -> None:
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
