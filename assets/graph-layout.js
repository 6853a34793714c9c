/* dash-insight graph canvases laid out by ELK's layered algorithm (the Eclipse Layout Kernel,
   elkjs, assets/vendor/; loaded on the first graph and run in a Web Worker so the page stays
   interactive while it works). The server sends nodes with their sizes (an open scope is a
   compound node holding its children) and edges, no positions; every cytoscape canvas whose
   element has the class `di-elk` is laid out here whenever its elements change: open scopes
   hold their contents, edges are routed orthogonally around the nodes (cytoscape draws them
   as `segments` through ELK's bend points, class `routed`). `di-elk-right` lays out left to
   right (the data graph), `di-elk-fit` fits the view once laid out (the dashboard card).
   Top to bottom, each open scope is laid out on its own and kept (assets/graph-scopes.js):
   opening a scope lays out that scope and its ancestors only. The server keeps each canvas's
   picture (`stored`, dash_insight/plugins/graphs/service_layouts.py): a canvas laid out before,
   in any browser, is drawn from it, and ELK is loaded only when a canvas has none.

   When a layout is applied the container gets `data-laid-out="<nodes>:<edges>"` and cytoscape
   emits `dilaidout` (assets/graph-pages.js moves the view then). The pure part (the ELK graph
   of a canvas's elements, the segments of a route) is shared with bench/elk_layout.js. */
(function (root) {
  const ELK_VERSION = "0.12.1";
  /* Gaps in model pixels (the node sizes come from dash_insight/plugins/graphs/figures.py). */
  const OPTIONS = {
    "elk.algorithm": "layered",
    "elk.hierarchyHandling": "INCLUDE_CHILDREN",
    "elk.edgeRouting": "ORTHOGONAL",
    "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
    "elk.spacing.nodeNode": "28",
    "elk.layered.spacing.nodeNodeBetweenLayers": "44",
    "elk.spacing.edgeNode": "14",
    "elk.spacing.edgeEdge": "10",
    "elk.layered.spacing.edgeNodeBetweenLayers": "16",
    "elk.layered.spacing.edgeEdgeBetweenLayers": "10",
    "elk.edgeLabels.placement": "CENTER",
    "elk.spacing.edgeLabel": "3",
    "elk.spacing.labelNode": "6",
    "elk.json.edgeCoords": "ROOT",
    "elk.json.shapeCoords": "ROOT",
  };
  /* Room inside an open scope: cytoscape draws its box 18 px around its children (the
     stylesheet's padding) and its title above the box. */
  const SCOPE_PADDING = "[top=46,left=22,bottom=22,right=22]";
  /* Left to right (the data graph), a box holds operations that no edge links: they are
     stacked in their order, top to bottom, as MindInsight draws a Map. */
  const STACKED = {"elk.hierarchyHandling": "SEPARATE_CHILDREN", "elk.algorithm": "layered",
    "elk.direction": "DOWN", "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES"};

  /* Layered layout costs grow with the layers an edge spans (ELK puts a dummy node in each):
     a level whose edges would span more than this in all is laid out without its longest
     edges (drawn straight, not routed), else a random 1,400-node level takes minutes. */
  const SPAN_BUDGET = 3000;
  /* ...and with less effort: no model order, one crossing minimisation run. */
  const CHEAP = {"elk.layered.considerModelOrder.strategy": "NONE",
    "elk.layered.thoroughness": "1", "elk.omitNodeMicroLayout": "true"};

  /* The ids of the edges left out of the layout: `edges` ({id, source, target}) between
     `nodes` (in their order), layered by longest path (an edge runs from the node given first
     to the later one, so cycles need no breaking); the longest ones dropped while the layers
     they span pass SPAN_BUDGET. */
  function overBudget(nodes, edges) {
    const index = new Map(nodes.map((node, i) => [node.id, i]));
    const forward = edges.filter(e => index.has(e.source) && index.has(e.target)
      && e.source !== e.target).map(e => {
      const a = index.get(e.source), b = index.get(e.target);
      return {id: e.id, from: Math.min(a, b), to: Math.max(a, b)};
    }).sort((p, q) => p.from - q.from);
    const layer = new Array(nodes.length).fill(0);
    for (const edge of forward) layer[edge.to] = Math.max(layer[edge.to], layer[edge.from] + 1);
    const spans = forward.map(e => ({id: e.id, span: layer[e.to] - layer[e.from] - 1}));
    let total = spans.reduce((sum, e) => sum + e.span, 0);
    const dropped = new Set();
    if (total <= SPAN_BUDGET) return dropped;
    spans.sort((p, q) => q.span - p.span);
    for (const edge of spans) {
      if (total <= SPAN_BUDGET) break;
      dropped.add(edge.id);
      total -= edge.span;
    }
    return dropped;
  }

  /* ELK makes room for the edge labels of a level of at most this many edges: they double the
     time of a 1,500-node level (a label is a node more in its layer), whose labels are too
     small to read until zoomed into anyway. Top to bottom, a level is one scope's own edges
     (assets/graph-scopes.js), so a large view opened scope by scope has its labels placed. */
  const LABELLED_EDGES = 400;

  /* ELK's graph of `nodes` ({id, parent, w, h, compound}, parents before children) and `edges`
     ({id, source, target}, with `lw` and `lh` the size of its label when it has one: ELK
     keeps room for it beside the edge, clear of nodes and other labels); `direction` DOWN or
     RIGHT. */
  function elkGraph(nodes, edges, direction) {
    const graph = {id: "__root__", layoutOptions: Object.assign({"elk.direction": direction},
      OPTIONS), children: [], edges: []};
    const byId = {};
    for (const node of nodes) {
      byId[node.id] = node.compound
        ? {id: node.id, children: [], layoutOptions: Object.assign(
          {"elk.padding": SCOPE_PADDING}, direction === "RIGHT" ? STACKED : {})}
        : {id: node.id, width: node.w, height: node.h};
    }
    for (const node of nodes) {
      const parent = node.parent && byId[node.parent];
      (parent ? parent.children : graph.children).push(byId[node.id]);
    }
    const dropped = overBudget(nodes, edges);
    const labelled = edges.length <= LABELLED_EDGES;
    if (dropped.size) Object.assign(graph.layoutOptions, CHEAP);
    for (const edge of edges) {
      if (byId[edge.source] && byId[edge.target] && edge.source !== edge.target
        && !dropped.has(edge.id)) {
        const elkEdge = {id: edge.id, sources: [edge.source], targets: [edge.target]};
        if (labelled && edge.lw) elkEdge.labels = [{id: edge.id + ":label", text: "_", width: edge.lw, height: edge.lh}];
        graph.edges.push(elkEdge);
      }
    }
    return graph;
  }

  /* `point` moved `by` px toward `toward`. */
  function nudge(point, toward, by) {
    const dx = toward.x - point.x, dy = toward.y - point.y, length = Math.hypot(dx, dy);
    const step = length ? Math.min(by, length / 2) / length : 0;
    return {x: point.x + dx * step, y: point.y + dy * step};
  }

  /* Centres of the laid-out leaves and each edge's route, absolute: its start and end points
     (on its nodes' borders) moved 4 px out along the route, so that cytoscape, which draws no
     edge whose first segment point is inside its source, starts it there; then its bends.
     `labels`: the centre ELK gave each edge's label. */
  function placements(result) {
    const centres = {}, routes = {}, labels = {};
    (function walk(node) {
      for (const child of node.children || []) {
        if (!(child.children && child.children.length)) {
          centres[child.id] = {x: child.x + child.width / 2, y: child.y + child.height / 2};
        }
        walk(child);
      }
    })(result);
    for (const edge of result.edges || []) {
      const points = [];
      for (const section of edge.sections || []) {
        points.push(section.startPoint, ...(section.bendPoints || []), section.endPoint);
      }
      if (points.length >= 2) {
        const last = points.length - 1;
        points[0] = nudge(points[0], points[1], 4);
        points[last] = nudge(points[last], points[last - 1], 4);
      }
      routes[edge.id] = points;
      const label = (edge.labels || [])[0];
      if (label && Number.isFinite(label.x)) {
        labels[edge.id] = {x: label.x + label.width / 2, y: label.y + label.height / 2};
      }
    }
    return {centres, routes, labels};
  }

  /* Cytoscape's `segment-weights` and `segment-distances` of an edge drawn through `points`,
     measured from the source and target centres (`edge-distances: node-position`): a point
     P = S + w (T - S) + d n, n the unit normal (-dy, dx) / |T - S|. Null when S and T
     coincide or there is no point. */
  function segments(source, target, points) {
    const dx = target.x - source.x, dy = target.y - source.y;
    const length = Math.hypot(dx, dy);
    if (!points.length || length === 0) return null;
    const weights = [], distances = [];
    for (const p of points) {
      weights.push((((p.x - source.x) * dx + (p.y - source.y) * dy) / (length * length))
        .toFixed(4));
      distances.push((((p.x - source.x) * -dy + (p.y - source.y) * dx) / length).toFixed(1));
    }
    return {weights: weights.join(" "), distances: distances.join(" ")};
  }

  /* Where cytoscape puts the middle of an edge drawn through `s` (segments) from the centre
     `source` to the centre `target` (its `midpoint()`, where it draws the label): its middle
     segment point, or halfway between the two middle ones; computed here from the same
     numbers, without asking cytoscape (which projects the edge's whole drawing for it). */
  function segmentsMidpoint(source, target, s) {
    const weights = s.weights.split(" ").map(Number);
    const distances = s.distances.split(" ").map(Number);
    const dx = target.x - source.x, dy = target.y - source.y, length = Math.hypot(dx, dy);
    const point = i => ({x: source.x + dx * weights[i] - dy / length * distances[i],
                         y: source.y + dy * weights[i] + dx / length * distances[i]});
    const n = Math.min(weights.length, distances.length);
    if (n % 2 === 1) return point((n - 1) / 2);
    const a = point(n / 2 - 1), b = point(n / 2);
    return {x: (a.x + b.x) / 2, y: (a.y + b.y) / 2};
  }

  // Node (tests/plugins/graphs/test_layout_engine.py) loads this file as a CommonJS module.
  /* global module:readonly */
  const shared = {ELK_VERSION, OPTIONS, SCOPE_PADDING, CHEAP, SPAN_BUDGET, LABELLED_EDGES, elkGraph,
    overBudget, nudge, placements, segments, segmentsMidpoint};
  if (typeof module === "object" && module.exports) {
    module.exports = shared;
    return;
  }

  /* -- in the page ------------------------------------------------------------------------ */
  // vendor/ beside the script that holds this file (itself, or the page's bundle of the
  // assets: dash_insight/web/asset_bundles.py serves it from the same folder)
  const script = document.currentScript;
  const VENDOR = script ? new URL("vendor/", script.src).href : "/assets/vendor/";
  let elk = null;

  /* ELK, its API script loaded on first use (the worker script is fetched by the Worker). */
  function loadElk() {
    if (!elk) {
      elk = new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = VENDOR + "elk-api-" + ELK_VERSION + ".min.js";
        tag.onload = () => resolve(new root.ELK({
          workerUrl: VENDOR + "elk-worker-" + ELK_VERSION + ".min.js"}));
        tag.onerror = reject;
        document.head.appendChild(tag);
      });
    }
    return elk;
  }

  const keyOf = cy => cy.nodes().length + ":" + cy.edges().length;

  /* What the graph scripts keep about a canvas (the server's order, the layout running, the
     last layout's places, ...), on the cytoscape instance. Not in `cy.scratch`: each write of
     the core's scratch restyles every element (cytoscape 3.28 updates the mappers of the whole
     graph on it), seconds per write in the 1,500-node view, and a patch made dozens of them. */
  const stateOf = cy => cy._diState || (cy._diState = {});

  /* The size of an edge label on the canvas (the stylesheet's 10 px in cytoscape's font, its
     background 1 px around it), measured once per text. */
  const LABEL_FONT = "10px Helvetica Neue, Helvetica, sans-serif";
  let measure = null;
  function labelSize(text) {
    if (!measure) {
      measure = document.createElement("canvas").getContext("2d");
      measure.font = LABEL_FONT;
    }
    return {w: Math.ceil(measure.measureText(text).width) + 4, h: 14};
  }

  /* `collection`'s elements in the order of the server's list (the page keeps it in the
     state `order` (stateOf) while it patches the canvas, assets/graph-pages.js applyPatch: an added
     element is last in cytoscape's own order), as an array; cytoscape's order without it. */
  function inOrder(cy, collection) {
    const order = stateOf(cy).order;
    const items = collection.toArray();
    if (!order) return items;
    const rank = new Map(order.map((id, i) => [id, i]));
    const at = ele => (rank.has(ele.id()) ? rank.get(ele.id()) : order.length);
    return items.sort((a, b) => at(a) - at(b));
  }

  /* The canvas's nodes and edges for ELK, in the server's order (ELK keeps the model order:
     the same elements in another order are laid out otherwise). */
  function elementsOf(cy) {
    const nodes = inOrder(cy, cy.nodes()).map(n => ({id: n.id(), parent: n.parent().length ? n.parent().id()
      : null, w: Number(n.data("w")) || 40, h: Number(n.data("h")) || 30,
      compound: n.isParent()}));
    const edges = inOrder(cy, cy.edges()).map(e => {
      const edge = {id: e.id(), source: e.source().id(), target: e.target().id()};
      const text = e.data("label");
      if (text) {
        const size = labelSize(String(text));
        Object.assign(edge, {lw: size.w, lh: size.h});
      }
      return edge;
    });
    return {nodes, edges};
  }

  /* The shift that keeps the picture where it was: the scope whose open state changed since
     the last layout (`before`: each node's centre and whether it was open) keeps its centre
     (`box` gives a node's laid-out centre); {x: 0, y: 0} when none did. */
  function anchorShift(cy, before, box) {
    if (!before) return {x: 0, y: 0};
    const changed = inOrder(cy, cy.nodes()).filter(n => before[n.id()]
      && before[n.id()].open !== n.isParent());
    const anchor = changed.length ? changed[0] : null;
    const now = anchor && box(anchor.id());
    if (!now) return {x: 0, y: 0};
    const then = before[anchor.id()];
    return {x: then.x - now.x, y: then.y - now.y};
  }

  /* Every node's centre (an open scope's: its box's) and whether it is open. `useCache`
     said: a box asked for without it is recomputed with every box inside it, cytoscape's
     caches ignored (the whole graph again for each open scope of the 1,500-node view). */
  function snapshot(cy) {
    const out = {};
    cy.nodes().forEach(n => {
      const box = n.isParent() ? n.boundingBox({includeLabels: false, useCache: true}) : null;
      out[n.id()] = box ? {x: (box.x1 + box.x2) / 2, y: (box.y1 + box.y2) / 2, open: true}
        : {x: n.position("x"), y: n.position("y"), open: false};
    });
    return out;
  }

  /* The snapshot of the places the last layout wrote: taken once that layout is drawn (the
     boxes are then in cytoscape's caches: taken at once, it measured every open scope again
     before the first frame, 100-170 ms in the 1,500-node view), or on first need before
     (graph-pages.js takes it before a patch changes the elements). */
  function keptPlaces(cy) {
    const state = stateOf(cy);
    if (state.placesPending && !cy.destroyed()) {
      state.placesPending = false;
      state.placed = snapshot(cy);
    }
    return state.placed;
  }

  /* The pictures of canvases the server keeps (dash_insight/plugins/graphs/service_layouts.py):
     a canvas laid out before, in any browser, is drawn from its picture without ELK. A key is
     the layout's version (ELK's, and a digest of its options) and the canvas's digest. */
  const stored = {
    version: null,  // the layout's part of every key, made on first use
    url(key) {
      const digest = root.diGraphScopes.digest;
      if (!this.version) {
        this.version = `${ELK_VERSION}-${digest(JSON.stringify(
          [OPTIONS, SCOPE_PADDING, STACKED, CHEAP, SPAN_BUDGET, LABELLED_EDGES]))}`;
      }
      return `${root.dashInsightApi("graph-layout")}?key=${this.version}-${digest(key)}`;
    },
    /* The picture kept under `key`, or null (none, or not one that places every node of
       `nodes`: then the canvas is laid out again). */
    async get(key, nodes) {
      try {
        const response = await fetch(this.url(key), {credentials: "same-origin"});
        if (response.status !== 200) return null;
        const picture = await response.json();
        const boxes = picture && picture.boxes;
        const placed = boxes && typeof boxes === "object" && picture.centres
          && typeof picture.centres === "object"
          && nodes.every(n => boxes[n.id] && Number.isFinite(boxes[n.id].x)
            && Number.isFinite(boxes[n.id].y));
        return placed ? picture : null;
      } catch {
        return null;
      }
    },
    put(key, picture) {
      fetch(this.url(key), {method: "PUT", credentials: "same-origin",
        headers: {"Content-Type": "application/json"}, body: JSON.stringify(picture)})
        .catch(() => { /* kept next time */ });
    },
  };

  /* ELK, loaded when a layout is first asked of it (a canvas drawn from a kept picture never
     loads it). */
  const engine = {layout: graph => loadElk().then(elk => elk.layout(graph))};

  /* Where ELK puts `nodes` and `edges`: {centres (leaves), routes, labels, boxes (every
     node's centre)}. Top to bottom (the computational graph) scope by scope with the scopes'
     cache (assets/graph-scopes.js); left to right (the data graph, a few dozen nodes) in one
     piece, kept under the digest of ELK's graph. Either is kept by the server (`stored`). */
  async function place(engine, nodes, edges, right) {
    if (!right && root.diGraphScopes) {
      return root.diGraphScopes.layOutScopes(engine, nodes, edges, "DOWN", shared, stored);
    }
    const graph = elkGraph(nodes, edges, right ? "RIGHT" : "DOWN");
    const key = `whole-${JSON.stringify(graph)}`;
    const kept = await stored.get(key, nodes);
    if (kept) return kept;
    const result = await engine.layout(graph);
    const boxes = {};
    (function walk(node) {
      for (const child of node.children || []) {
        boxes[child.id] = {x: child.x + child.width / 2, y: child.y + child.height / 2};
        walk(child);
      }
    })(result);
    const placed = Object.assign(placements(result), {boxes});
    stored.put(key, placed);
    return placed;
  }

  /* Lay `cy` out again (a newer request wins over one still running). */
  async function layOut(cy, container) {
    const generation = (stateOf(cy).layoutGeneration || 0) + 1;
    stateOf(cy).layoutGeneration = generation;
    stateOf(cy).layoutRunning = true;
    const right = container.classList.contains("di-elk-right");
    const {nodes, edges} = elementsOf(cy);
    let placed;
    try {
      placed = await place(engine, nodes, edges, right);
    } catch (error) {
      console.warn("graph layout failed", error);
      placed = null;
    }
    if (stateOf(cy).layoutGeneration !== generation || cy.destroyed()) return;
    if (placed) writePlaces(cy, placed);
    stateOf(cy).placed = null;
    stateOf(cy).placesPending = true;
    requestAnimationFrame(() => setTimeout(() => keptPlaces(cy), 0));
    stateOf(cy).layoutRunning = false;
    if (container.classList.contains("di-elk-fit")) cy.fit(undefined, 12);
    container.dataset.laidOut = keyOf(cy);
    cy.emit("dilaidout");
  }

  /* ELK's places (place) written to `cy`, shifted so that the scope opened or closed stays
     where it was on screen (anchorShift; the picture and the view moved together by
     commonMove's shift), in one batch: the nodes that moved, in one call (one position
     event and one bounds update for all of them), each edge's route (class `routed`) and
     its label's place (class `placed`). Only what changed is written: each write restyles
     the element with its compound relatives (seconds for the 1,500-node view when a scope
     opens or closes, most of it in place already). */
  function writePlaces(cy, placed) {
    const {centres, routes, labels, boxes} = placed;
    const before = keptPlaces(cy);
    const anchor = anchorShift(cy, before, id => boxes[id]);
    const keep = cy.animated() ? null : commonMove(cy, before, centres, anchor);
    const shift = keep ? {x: anchor.x + keep.x, y: anchor.y + keep.y} : anchor;
    const shifted = p => ({x: p.x + shift.x, y: p.y + shift.y});
    cy.batch(() => {
      if (keep) {
        /* the view moved with the picture: every element is drawn where the anchored
           layout draws it */
        const pan = cy.pan(), zoom = cy.zoom(), offset = stateOf(cy).offset || {x: 0, y: 0};
        cy.pan({x: pan.x - keep.x * zoom, y: pan.y - keep.y * zoom});
        stateOf(cy).offset = {x: offset.x + keep.x, y: offset.y + keep.y};
      }
      const moved = cy.nodes().filter(n => {
        const to = centres[n.id()];
        return Boolean(to) && !samePlace(n.position(), shifted(to));
      });
      if (moved.length) moved.positions(n => shifted(centres[n.id()]));
      cy.edges().forEach(e => {
        const route = routes[e.id()];
        const source = e.source().position(), target = e.target().position();
        const s = route && segments(source, target, route.map(shifted));
        if (s) {
          if (e.data("weights") !== s.weights || e.data("distances") !== s.distances) {
            e.data({weights: s.weights, distances: s.distances});
          }
          if (!e.hasClass("routed")) e.addClass("routed");
        } else if (e.hasClass("routed")) {
          e.removeClass("routed");
        }
        const at = s && labels[e.id()];
        placeLabel(e, at ? shifted(at) : null, at ? segmentsMidpoint(source, target, s) : null);
      });
    });
  }

  /* The move that leaves most nodes where they are: the anchored layout (`anchor`, see
     anchorShift) moves the whole picture when a scope opens or closes (most of the 1,500-node
     view, one or two moves shared by all but the toggled scope's surroundings), and cytoscape
     measures each moved node and its edges again before drawing (0.3-0.8 s). Written moved
     by the most common one (rounded to 0.01 px) and drawn with the view moved the other way,
     the picture on screen is the same and only the other nodes move. Null when no two nodes
     that were placed before (`before`, the snapshot) share a move. */
  function commonMove(cy, before, centres, anchor) {
    if (!before) return null;
    const counts = new Map();
    let best = null, bestKey = "0,0", most = 1;
    cy.nodes().forEach(n => {
      const to = centres[n.id()], then = before[n.id()];
      if (!to || !then || then.open) return;
      const at = n.position();
      const move = {x: at.x - to.x - anchor.x, y: at.y - to.y - anchor.y};
      const key = Math.round(move.x * 100) + "," + Math.round(move.y * 100);
      const count = (counts.get(key) || 0) + 1;
      counts.set(key, count);
      if (count > most) { most = count; best = move; bestKey = key; }
    });
    return bestKey === "0,0" ? null : best;
  }

  /* Whether two points are the same (but for floating-point noise). */
  const samePlace = (a, b) => Math.abs(a.x - b.x) < 1e-6 && Math.abs(a.y - b.y) < 1e-6;

  /* A routed edge's label where ELK made room for it (`at`): cytoscape draws an edge's label
     at its midpoint (`mid`), moved by `text-margin-x/y` (the stylesheet's `edge.placed`). */
  function placeLabel(e, at, mid) {
    if (at && mid && Number.isFinite(mid.x)) {
      const move = {lx: at.x - mid.x, ly: at.y - mid.y};
      if (!samePlace({x: e.data("lx"), y: e.data("ly")}, {x: move.lx, y: move.ly})) {
        e.data(move);
      }
      if (!e.hasClass("placed")) e.addClass("placed");
    } else if (e.hasClass("placed")) {
      e.removeClass("placed");
    }
  }

  /* dash-cytoscape's own listeners that write a prop on every viewport change (`extent`) and
     on every node or edge the pointer passes over while the graph is dragged or zoomed
     (`mouseoverNodeData`, `mouseoverEdgeData`; `mouseout` clears them): each write re-renders
     the component, which compares its 3,000 elements (1,500 nodes): tasks of 0.1-3.8 s on
     every frame of a pan or zoom (bench/graph_pan.py). No callback reads these props of a
     graph canvas. */
  const PROP_WRITES = [/^function\s*\(\)\s*\{\s*[\w$]+\([\w$]+\.extent\(\)\)\s*;?\s*\}$/,
    /setProps\(\{\s*mouseover(Node|Edge)Data\s*:/];

  function mutePropWrites(cy) {
    const emitter = cy.emitter && cy.emitter();
    const listeners = [...((emitter && emitter.listeners) || [])];
    /* ...and the one that writes every element back into `elements` (positions included)
       after each change of them (dash-cytoscape listens to `dragfree add remove` for it): a
       second round of the server's 700 kB answer through Dash's store and React, 3,000
       elements compared again (seconds per scope opened in the 1,500-node view). Nothing
       drags a node here (autoungrabify), and `elements` is no callback's input. */
    const writeBack = new Set(listeners.filter(l => l.event === "dragfree").map(l => l.callback));
    for (const listener of listeners) {
      const code = String(listener.callback);
      if (writeBack.has(listener.callback) || PROP_WRITES.some(pattern => pattern.test(code))) {
        cy.off(listener.event, listener.callback);
      }
    }
  }

  /* A canvas of more elements than this draws a pan or zoom as one picture of the graph moved
     or scaled (cytoscape's textureOnViewport), labels and edges left out meanwhile: drawing
     its 3,000 elements (1,500 nodes) again on every frame took tasks of 100-2,000 ms
     (bench/graph_pan.py). The graph is drawn in full once the gesture ends. */
  const FAST_VIEWPORT = 600;

  function fastViewport(cy) {
    const renderer = cy.renderer && cy.renderer();
    if (!renderer) return;
    const large = cy.elements().length > FAST_VIEWPORT;
    renderer.textureOnViewport = large;
    renderer.hideEdgesOnViewport = large;
    renderer.hideLabelsOnViewport = large;
  }

  /* Cytoscape (3.x in dash-cytoscape 1.0.2) draws a node's background images in two passes
     and sets its `backgrounding` flag in each: without images the first pass sets it false and
     the second true (an image-less 'none' counts as one image "inside" the node), and every
     change restyles the node with its descendants and ancestors (compound graphs). Drawing
     the 1,500-node view restyled the whole graph several times per frame of a pan or zoom
     (27,000 style applications, tasks of 200-750 ms; bench/graph_pan.py). The graph pages
     draw no background image, so a node is never waiting for one: the flag stays false. */
  const NOT_BACKGROUNDING = {configurable: true, get: () => false, set: () => {}};

  function steadyBackgrounding(nodes) {
    nodes.forEach(n => Object.defineProperty(n._private, "backgrounding", NOT_BACKGROUNDING));
  }

  /* A drag of the canvas ends with the browser's click on it, which Dash's html components
     around it each turn into an `n_clicks` prop write (a render of the page's layout at the
     end of every pan); a click after the pointer moved more than a few pixels stays in the
     canvas (cytoscape tells its taps from drags by itself, from the pointer's moves). */
  function keepDragClicks(container) {
    let down = null;
    container.addEventListener("pointerdown", ev => { down = [ev.clientX, ev.clientY]; }, true);
    container.addEventListener("click", ev => {
      if (down && Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > 4) ev.stopPropagation();
    });
  }

  /* While the canvas is dragged (pressed and moved more than a few pixels), cytoscape still
     looks for the element under the pointer on every move (for its hover events), through all
     3,000 elements of the 1,500-node view: 30-130 ms a move (bench/graph_pan.py). A drag pans,
     nothing is hovered meanwhile: the search finds nothing until the button is released (and
     cytoscape has handled the release). A press and a tap still find their element (the
     search runs before the pointer moves). */
  function quietDrags(cy, container) {
    const renderer = cy.renderer && cy.renderer();
    if (!renderer || !renderer.findNearestElements) return;
    const find = renderer.findNearestElements.bind(renderer);
    let down = null, dragging = false;
    container.addEventListener("pointerdown", ev => {
      down = [ev.clientX, ev.clientY];
      dragging = false;
    }, true);
    container.addEventListener("pointermove", ev => {
      if (down && Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > 4) dragging = true;
    }, true);
    /* after cytoscape's own mouseup (a drag ends on no element) */
    window.addEventListener("pointerup", () => {
      down = null;
      setTimeout(() => { dragging = false; }, 0);
    }, true);
    renderer.findNearestElements = (...args) => (dragging ? [] : find(...args));
  }

  /* Once per canvas: lay it out now and after every change of its elements (once per batch). */
  function watch(container) {
    const cy = container._cyreg && container._cyreg.cy;
    if (!cy || cy._diElk) return Boolean(cy);
    cy._diElk = true;
    /* ELK is not started here, before the elements come: a canvas laid out before is drawn
       from its kept picture (`stored`) without it. */
    mutePropWrites(cy);
    keepDragClicks(container);
    quietDrags(cy, container);
    let queued = false;
    const schedule = () => {
      stateOf(cy).layoutRunning = true;
      if (queued) return;
      queued = true;
      /* in a microtask, not a task of its own: the browser drew a frame between a patch and
         its layout (the elements changed, not placed yet: every moved element measured
         and drawn once more, 0.4-1 s in the 1,500-node view); a layout from the scopes'
         cache is then written before the next frame */
      queueMicrotask(() => {
        queued = false;
        fastViewport(cy);
        if (cy.nodes().length) layOut(cy, container);
        else stateOf(cy).layoutRunning = false;
      });
    };
    cy.on("add remove", schedule);
    cy.on("add", "node", ev => steadyBackgrounding(ev.target));
    steadyBackgrounding(cy.nodes());
    if (cy.elements().length) schedule();
    return true;
  }

  let pending = false;
  function scan() {
    pending = false;
    document.querySelectorAll(".di-elk").forEach(container => {
      if (!watch(container)) setTimeout(() => watch(container), 50);
    });
  }
  new MutationObserver(() => {
    if (!pending) { pending = true; requestAnimationFrame(scan); }
  }).observe(document.documentElement, {childList: true, subtree: true});

  root.diGraphLayout = Object.assign(shared, {keyOf, inOrder, stateOf, keptPlaces});
})(typeof window !== "undefined" ? window : globalThis);
