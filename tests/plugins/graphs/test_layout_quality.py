"""A computational graph a person can read (issue #39): measured from cytoscape's own geometry in
the browser. On the corpus's LeNet job trained with Momentum (scopes ``Default``,
``network-WithLossCell``, ``optimizer-Momentum``, the backbone), at several open levels, no
drawn edge passes through the box of a node that is neither its end nor a scope holding one.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from tests.browser import until

LENET = "./lenet_sc"
NET = "Default/network-WithLossCell"
OPTIMIZER = "Default/optimizer-Momentum"
BACKBONE = f"{NET}/_backbone-LeNet5"
#: Open scopes of the measured views, from the top level down to the backbone.
LEVELS: tuple[tuple[str, ...], ...] = (
    ("Default",),
    ("Default", NET, OPTIMIZER),
    ("Default", NET, OPTIMIZER, BACKBONE),
)

#: Every drawn edge as the polyline cytoscape draws (a bezier sampled in 16 pieces), with
#: the ids of its ends and of the scopes holding them; every node's box (labels left out).
GEOMETRY_JS = """
const cy = document.getElementById(arguments[0])._cyreg.cy;
const xy = p => [p.x, p.y];
function quadratic(a, c, b) {
  const out = [];
  for (let i = 1; i <= 16; i++) {
    const t = i / 16, u = 1 - t;
    out.push([u * u * a[0] + 2 * u * t * c[0] + t * t * b[0],
              u * u * a[1] + 2 * u * t * c[1] + t * t * b[1]]);
  }
  return out;
}
function polyline(edge) {
  const start = xy(edge.sourceEndpoint()), end = xy(edge.targetEndpoint());
  const curve = edge.style('curve-style');
  if (curve === 'segments' || curve === 'taxi') {
    return [start, ...(edge.segmentPoints() || []).map(xy), end];
  }
  const controls = (curve.indexOf('bezier') >= 0 && edge.controlPoints()) || [];
  if (!controls.length) return [start, end];
  const points = [start];
  let from = start;
  controls.map(xy).forEach((c, i, all) => {
    const to = i + 1 < all.length ? [(c[0] + all[i + 1][0]) / 2, (c[1] + all[i + 1][1]) / 2]
      : end;
    points.push(...quadratic(from, c, to));
    from = to;
  });
  return points;
}
const nodes = cy.nodes().map(n => ({id: n.id(),
  box: n.boundingBox({includeLabels: false, includeOverlays: false})}));
const edges = cy.edges().map(e => ({id: e.id(),
  related: [e.source(), e.target()].flatMap(n => [n.id(), ...n.ancestors().map(a => a.id())]),
  points: polyline(e)}));
return {nodes, edges};
"""


def crosses(start: tuple[float, float], end: tuple[float, float], box: dict) -> bool:
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


def crossing_edges(geometry: dict[str, Any]) -> list[tuple[str, str]]:
    """(edge, node) of every drawn edge passing through the box of a node that is neither its
    end nor a scope holding one (each edge once, with the first such node)."""
    found = []
    for edge in geometry["edges"]:
        points = [tuple(p) for p in edge["points"]]
        related = set(edge["related"])
        for node in geometry["nodes"]:
            if node["id"] in related:
                continue
            if any(crosses(a, b, node["box"]) for a, b in pairwise(points)):
                found.append((edge["id"], node["id"]))
                break
    return found


def test_crosses() -> None:
    box = {"x1": 0.0, "y1": 0.0, "x2": 10.0, "y2": 10.0}
    assert crosses((-5.0, 5.0), (15.0, 5.0), box)
    assert not crosses((-5.0, 11.0), (15.0, 11.0), box)
    assert not crosses((-5.0, 1.0), (15.0, 1.0), box)  # along the border
    assert not crosses((5.0, -5.0), (5.0, -1.0), box)  # stops short


def _drawn(dash_duo: Any, scopes: tuple[str, ...]) -> dict[str, Any]:
    """The geometry of the graph once every scope of ``scopes`` is drawn open and the layout
    of what is drawn is applied (``assets/graph-layout.js`` marks the canvas)."""
    ready = """
    const e = document.getElementById('graph-cy');
    const cy = e && e._cyreg && e._cyreg.cy;
    if (!cy) return false;
    return arguments[0].every(s => cy.getElementById(s).length && cy.getElementById(s).isParent())
      && e.dataset.laidOut === cy.nodes().length + ':' + cy.edges().length;"""
    until(lambda: dash_duo.driver.execute_script(ready, list(scopes)), 60)
    return dash_duo.driver.execute_script(GEOMETRY_JS, "graph-cy")


# On the hand-written layout it replaced: 2 of 15 edges at Default, 10 of 26 with the network
# and the optimizer open, 21 of 53 with the backbone open too.
def test_no_edge_crosses_an_unrelated_node(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(1600, 1000)
    measured = []
    for scopes in LEVELS:
        dash_duo.wait_for_page(
            url=f"{dash_duo.server_url}/graph?train_id={LENET}&expanded={','.join(scopes)}"
        )
        geometry = _drawn(dash_duo, scopes)
        measured.append((scopes[-1], crossing_edges(geometry), len(geometry["edges"])))
    assert all(edges >= 10 for _scope, _crossing, edges in measured[1:]), measured
    assert [len(crossing) for _scope, crossing, _edges in measured] == [0] * len(LEVELS), measured
