"""A computational graph a person can read (issue #39): measured from cytoscape's own geometry in
the browser. On the corpus's LeNet job trained with Momentum (scopes ``Default``,
``network-WithLossCell``, ``optimizer-Momentum``, the backbone), at several open levels, no
drawn edge passes through the box of a node that is neither its end nor a scope holding one;
opening a scope shows it with every label in it 9 px or more on screen, the edge labels
MindInsight's (a tensor's type and shape, a bundle's tensor count) in the page's language.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from tests.browser import until
from tests.pages import accept_language

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


#: For each label drawn inside the scope ``arguments[1]`` (its own title, its children's and
#: their edges'), on screen in the canvas: [id, rendered font px, text].
LABELS_JS = """
const cy = document.getElementById(arguments[0])._cyreg.cy;
const scope = cy.getElementById(arguments[1]);
const inside = scope.union(scope.descendants());
const shown = inside.union(inside.connectedEdges().filter(
  e => inside.contains(e.source()) && inside.contains(e.target())));
const w = cy.width(), h = cy.height();
return shown.filter(el => el.style('label') && el.style('display') !== 'none').filter(el => {
  const b = el.renderedBoundingBox({includeLabels: false});
  return b.x2 > 0 && b.y2 > 0 && b.x1 < w && b.y1 < h;
}).map(el => [el.id(), parseFloat(el.style('font-size')) * cy.zoom(), el.style('label')]);
"""


#: Clicks the scope tree's arrow of the scope ``arguments[0]``; false while it is not drawn.
TREE_ARROW_JS = """
const arrow = Array.from(document.querySelectorAll('.gp-tree-toggle'))
  .find(b => JSON.parse(b.id).name === arguments[0]);
if (arrow) arrow.click();
return Boolean(arrow);
"""


def _open_in_tree(dash_duo: Any, scope: str) -> None:
    """Open ``scope`` with its arrow in the scope tree, as a person does."""
    until(lambda: dash_duo.driver.execute_script(TREE_ARROW_JS, scope))


@pytest.mark.parametrize(
    ("language", "bundle"), [("en-US,en;q=0.9", "tensors"), ("zh-CN,zh;q=0.9", "个张量")]
)
def test_opening_a_scope_shows_it_with_readable_labels(
    dash_duo: Any, corpus_app: Any, language: str, bundle: str
) -> None:
    dash_duo.start_server(corpus_app)
    accept_language(dash_duo, language)
    dash_duo.driver.set_window_size(1280, 800)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    _drawn(dash_duo, ())
    for scopes in LEVELS[:2]:
        for scope in scopes:
            if dash_duo.driver.execute_script(
                "const cy = document.getElementById('graph-cy')._cyreg.cy;"
                "const n = cy.getElementById(arguments[0]); return n.length && n.isParent();",
                scope,
            ):
                continue
            _open_in_tree(dash_duo, scope)
            _drawn(dash_duo, (scope,))
            # the view moves to the opened scope once it is laid out
            until(
                lambda scope=scope: (
                    len(dash_duo.driver.execute_script(LABELS_JS, "graph-cy", scope)) > 1
                    and not dash_duo.driver.execute_script(
                        "return document.getElementById('graph-cy')._cyreg.cy.animated();"
                    )
                )
            )
            labels = dash_duo.driver.execute_script(LABELS_JS, "graph-cy", scope)
            small = [(i, round(px, 1)) for i, px, _text in labels if px < 9]
            assert not small, (scope, small)
    labels = dash_duo.driver.execute_script(LABELS_JS, "graph-cy", "Default")
    texts = [text for _id, _px, text in labels]
    assert any(bundle in text for text in texts), texts
    assert any("DT_TENSOR[DT_FLOAT32]" in text for text in texts), texts


#: [x, y] of the node ``arguments[0]`` in model coordinates: a closed node's position, an open
#: scope's box centre.
#: A node's centre (an open scope's: its box's) in the layout's frame: its model coordinates
#: less the shift the page gave the picture and the view together (assets/graph-layout.js
#: commonMove: the same place on screen).
CENTRE_JS = """
const cy = document.getElementById('graph-cy')._cyreg.cy, n = cy.getElementById(arguments[0]);
if (!n.length) return null;
const offset = window.diGraphLayout.stateOf(cy).offset || {x: 0, y: 0};
if (!n.isParent()) return [n.position('x') - offset.x, n.position('y') - offset.y];
const b = n.boundingBox({includeLabels: false});
return [(b.x1 + b.x2) / 2 - offset.x, (b.y1 + b.y2) / 2 - offset.y];
"""


def test_opening_a_scope_keeps_it_where_it_was(dash_duo: Any, corpus_app: Any) -> None:
    """The layout after an open is moved so that the opened scope's centre stays where the
    closed scope was (ELK lays out from the origin each time): the picture around it does not
    jump, and its siblings keep their side of it."""
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(1280, 800)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}&expanded=Default")
    _drawn(dash_duo, ("Default",))
    centre = lambda name: dash_duo.driver.execute_script(CENTRE_JS, name)  # noqa: E731
    before = {name: centre(name) for name in (NET, OPTIMIZER)}
    _open_in_tree(dash_duo, NET)
    _drawn(dash_duo, ("Default", NET))
    after = {name: centre(name) for name in (NET, OPTIMIZER)}
    moved = abs(after[NET][0] - before[NET][0]) + abs(after[NET][1] - before[NET][1])
    assert moved < 30, (before, after)
    side = [(b - a) > 0 for a, b in zip(before[NET], before[OPTIMIZER], strict=True)]
    now = [(b - a) > 0 for a, b in zip(after[NET], after[OPTIMIZER], strict=True)]
    assert side[1] == now[1] or side[0] == now[0], (before, after)


#: Every drawn edge label's box and every leaf node's box (label included), in model
#: coordinates: {labels: [[edge id, source, target, box]], nodes: [[id, box]]}.
LABEL_BOXES_JS = """
const cy = document.getElementById(arguments[0])._cyreg.cy;
const only = {includeNodes: false, includeEdges: false, includeLabels: true,
  includeMainLabels: true, includeSourceLabels: false, includeTargetLabels: false,
  includeOverlays: false, includeUnderlays: false};
const labels = cy.edges().filter(e => e.style('label') && e.visible()
  && e.style('text-opacity') !== '0').map(e => [e.id(), e.source().id(), e.target().id(),
  e.boundingBox(only)]).filter(l => l[3].w > 0 && l[3].h > 0);
const nodes = cy.nodes().filter(n => !n.isParent()).map(n => [n.id(),
  n.boundingBox({includeLabels: true, includeOverlays: false})]);
return {labels, nodes};
"""


#: How many drawn edges have a placed label, and how far (model px, the larger of x and y) the
#: midpoint assets/graph-layout.js computes for placing it (segmentsMidpoint) is at worst from
#: the midpoint cytoscape draws the label at.
MIDPOINTS_JS = """
const cy = document.getElementById(arguments[0])._cyreg.cy;
let worst = 0, placed = 0;
cy.edges('.placed').forEach(e => {
  const mine = window.diGraphLayout.segmentsMidpoint(e.source().position(),
    e.target().position(), {weights: e.data('weights'), distances: e.data('distances')});
  const drawn = e.midpoint();
  worst = Math.max(worst, Math.abs(mine.x - drawn.x), Math.abs(mine.y - drawn.y));
  placed++;
});
return [placed, worst];
"""


def _overlap(a: dict, b: dict) -> bool:
    """Whether two boxes overlap by more than 1 px each way."""
    return min(a["x2"], b["x2"]) - max(a["x1"], b["x1"]) > 1 and (
        min(a["y2"], b["y2"]) - max(a["y1"], b["y1"]) > 1
    )


def label_overlaps(boxes: dict[str, Any]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(label, label) pairs whose boxes overlap, and (label, node) pairs of an edge label over
    a node box that is not one of the edge's ends."""
    labels = boxes["labels"]
    pairs = [
        (a[0], b[0]) for i, a in enumerate(labels) for b in labels[i + 1 :] if _overlap(a[3], b[3])
    ]
    on_nodes = [
        (label[0], node)
        for label in labels
        for node, box in boxes["nodes"]
        if node not in label[1:3] and _overlap(label[3], box)
    ]
    return pairs, on_nodes


def test_label_overlaps() -> None:
    box = {"x1": 0.0, "y1": 0.0, "x2": 10.0, "y2": 10.0}
    apart = {"x1": 9.5, "y1": 0.0, "x2": 20.0, "y2": 10.0}
    over = {"x1": 5.0, "y1": 5.0, "x2": 9.0, "y2": 20.0}
    boxes = {"labels": [["e1", "a", "b", box], ["e2", "a", "c", apart], ["e3", "c", "d", over]]}
    boxes["nodes"] = [["a", over], ["z", apart]]
    assert label_overlaps(boxes) == ([("e1", "e3")], [("e2", "z"), ("e3", "a")])


def test_edge_labels_overlap_neither_each_other_nor_nodes(dash_duo: Any, corpus_app: Any) -> None:
    """At each level the layout quality test opens, no drawn edge label covers another or a node
    that is not one of its edge's ends (measured from cytoscape's label boxes), and each label
    is placed from the midpoint cytoscape draws it at."""
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(1600, 1000)
    measured = []
    for scopes in LEVELS:
        dash_duo.wait_for_page(
            url=f"{dash_duo.server_url}/graph?train_id={LENET}&expanded={','.join(scopes)}"
        )
        _drawn(dash_duo, scopes)
        boxes = dash_duo.driver.execute_script(LABEL_BOXES_JS, "graph-cy")
        pairs, on_nodes = label_overlaps(boxes)
        measured.append((scopes[-1], len(boxes["labels"]), pairs, on_nodes))
        placed, worst = dash_duo.driver.execute_script(MIDPOINTS_JS, "graph-cy")
        assert worst < 0.01, (scopes, placed, worst)  # each label where ELK made room for it
    assert all(labels >= 10 for _scope, labels, _pairs, _nodes in measured[1:]), measured
    # a graph this small is drawn in full while it moves
    fast = "return document.getElementById('graph-cy')._cyreg.cy.renderer().textureOnViewport;"
    assert dash_duo.driver.execute_script(fast) is False
    assert [(len(p), len(n)) for _s, _l, p, n in measured] == [(0, 0)] * len(LEVELS), measured


#: What the canvas draws, in model coordinates from the leaves' top-left centre (an open moves
#: the picture so that the opened scope stays put: the same drawing, elsewhere), to 0.01 px
#: (what is left of that move's fraction of a pixel): each node's data, classes and centre
#: (a leaf's: an open scope's box is around its children, and a pixel wider around the
#: selected one, whose border is thicker),
#: each edge's data (its route and label place) and classes, and how many elements the last
#: patch wrote (assets/graph-pages.js applyPatch).
DRAWING_JS = """
const e = document.getElementById('graph-cy'), cy = e._cyreg.cy;
const leaves = cy.nodes().filter(n => !n.isParent());
const box = {x1: Math.min(...leaves.map(n => n.position('x'))),
  y1: Math.min(...leaves.map(n => n.position('y')))};
const near = v => (typeof v === 'number' ? Math.round(v * 100) / 100 : v);
const data = ele => Object.fromEntries(Object.entries(ele.data()).map(([k, v]) => [k, near(v)]));
const nodes = cy.nodes().map(n => [n.id(), data(n), n.classes().sort().join(' '),
  ...(n.isParent() ? [] : [near(n.position('x') - box.x1), near(n.position('y') - box.y1)])]);
const edges = cy.edges().map(ed => [ed.id(), data(ed), ed.classes().sort().join(' ')]);
nodes.sort((a, b) => a[0] < b[0] ? -1 : 1);
edges.sort((a, b) => a[0] < b[0] ? -1 : 1);
return {nodes, edges, written: Number(e.dataset.written)};
"""


IS_OPEN_JS = """
const node = document.getElementById('graph-cy')._cyreg.cy.getElementById(arguments[0]);
return node.length > 0 && node.isParent();
"""


def test_an_open_or_close_draws_what_the_full_render_draws(dash_duo: Any, corpus_app: Any) -> None:
    """Opening or closing a scope sends what changed (the new level's elements), not the view,
    and the canvas then draws what the page draws when opened at that address: the same
    elements, data, classes and places."""
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(1280, 800)
    page = f"{dash_duo.server_url}/graph?train_id={LENET}&expanded="
    levels = ("Default", NET, OPTIMIZER)
    dash_duo.wait_for_page(url=page + ",".join(levels))
    _drawn(dash_duo, levels)
    patched = {}
    for scopes in ((*levels, BACKBONE), levels):
        _open_in_tree(dash_duo, BACKBONE)  # the arrow opens it, then closes it
        until(
            lambda s=scopes: (
                dash_duo.driver.execute_script(IS_OPEN_JS, BACKBONE) == (BACKBONE in s)
            ),
            60,
        )
        _drawn(dash_duo, scopes)
        patched[scopes] = dash_duo.driver.execute_script(DRAWING_JS)
    for scopes, drawing in patched.items():  # the scope toggled is selected
        dash_duo.wait_for_page(url=page + ",".join(scopes) + "&node=" + BACKBONE)
        _drawn(dash_duo, scopes)
        full = dash_duo.driver.execute_script(DRAWING_JS)
        assert (drawing["nodes"], drawing["edges"]) == (full["nodes"], full["edges"])
        assert full["written"] == len(full["nodes"]) + len(full["edges"])  # all, once
        assert 0 < drawing["written"] < full["written"]  # what changed, not the view
