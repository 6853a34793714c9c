/* The computational graph laid out scope by scope (issue #39 item 6: a 5,000-node graph lays
   out in at most 1 s per opened level), for assets/graph-layout.js.

   Every open scope (and the canvas itself, ROOT) is laid out on its own by ELK layered: its
   children (an open child as a box of the size its own layout gave it) and the edges between
   them (ELK's SEPARATE_CHILDREN, bottom-up, in one call). An edge between nodes of different
   scopes is cut where it crosses a scope's border: a port on that border (out of the scope
   on its bottom, into it on its top; one port per scope and inner node, shared by every edge
   of that node crossing there), and each piece is routed inside the scope holding it; the
   edge is drawn through its pieces' routes in order. Its label gets room on the piece in the
   lowest scope holding both ends, the only piece drawn at that scope's level.

   A scope's layout depends on its contents only (children with their sizes or their own
   layouts, the pieces of edges inside it, its ports), so it is kept in CACHE under a digest
   of them: a later layout gives ELK a cached scope as one box with its ports fixed where they
   were, and puts the cached picture inside it. Opening a scope thus lays out that scope and
   its ancestors (each of a few boxes), and every other scope keeps its picture; the whole
   canvas laid out before (a scope opened and closed again) costs no ELK call at all. */
(function (root) {
  const ROOT = "__root__";
  const SEP = "\u0001";
  /* Pictures remembered, counted in the boxes and edge pieces they hold (the oldest forgotten
     first): a picture holds its scope's whole contents, and the canvas's a whole view (3,000
     items for the 1,500-node view); 150,000 keep dozens of views of a 5,000-node graph and
     every scope in them, some tens of MB. */
  const CACHE_ITEMS = 150000;
  const CACHE = new Map();
  let cachedItems = 0;
  const stats = {hits: 0, misses: 0, elkCalls: 0};

  /* The digest of `text` (53-bit cyrb53): equal contents, equal keys. */
  function digest(text) {
    let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  }

  /* Children of each scope in the nodes' order (ROOT: the top level) and each node's scope. */
  function tree(nodes) {
    const byId = new Map(nodes.map(n => [n.id, n]));
    const kids = new Map([[ROOT, []]]);
    const parent = new Map();
    for (const n of nodes) {
      const p = n.parent && byId.has(n.parent) ? n.parent : ROOT;
      parent.set(n.id, p);
      if (!kids.has(p)) kids.set(p, []);
      kids.get(p).push(n.id);
    }
    return {byId, kids, parent};
  }

  /* [node, its scope, ..., ROOT]. */
  function chain(parent, id) {
    const out = [id];
    while (id !== ROOT) { id = parent.get(id); out.push(id); }
    return out;
  }

  const port = (scope, way, node) => scope + SEP + way + SEP + node;

  /* The pieces of every edge: `pieces` (scope -> Map(piece id -> {id, source, target, lw,
     lh})), `ports` (scope -> Map(port id -> "in" | "out")), `paths` (edge id -> its piece ids
     in order, and the one whose label is drawn). An edge from a scope to a node inside it has
     no path (drawn straight). */
  function cut(edges, shape) {
    const pieces = new Map(), ports = new Map(), paths = new Map();
    const piece = (scope, source, target, label) => {
      if (!pieces.has(scope)) pieces.set(scope, new Map());
      const id = scope + SEP + source + SEP + target;
      const there = pieces.get(scope);
      if (!there.has(id)) there.set(id, Object.assign({id, source, target}, label || {}));
      return id;
    };
    const addPort = (scope, way, node) => {
      if (!ports.has(scope)) ports.set(scope, new Map());
      const id = port(scope, way, node);
      ports.get(scope).set(id, way);
      return id;
    };
    for (const e of edges) {
      if (!shape.byId.has(e.source) || !shape.byId.has(e.target) || e.source === e.target) continue;
      const up = chain(shape.parent, e.source), down = chain(shape.parent, e.target);
      const ancestors = new Set(up.slice(1));
      const lca = down.slice(1).find(a => ancestors.has(a));
      if (up.includes(e.target) || down.includes(e.source) || lca === undefined) continue;
      const path = [];
      let from = e.source;
      for (const scope of up.slice(1, up.indexOf(lca))) {
        const exit = addPort(scope, "out", e.source);
        path.push(piece(scope, from, exit));
        from = exit;
      }
      const inner = down.slice(1, down.indexOf(lca)).reverse();
      let to = inner.length ? addPort(inner[0], "in", e.target) : e.target;
      const label = e.lw ? {lw: e.lw, lh: e.lh} : null;
      const middle = piece(lca, from, to, label);
      path.push(middle);
      inner.forEach((scope, i) => {
        const next = i + 1 < inner.length ? addPort(inner[i + 1], "in", e.target) : e.target;
        path.push(piece(scope, to, next));
        to = next;
      });
      paths.set(e.id, {pieces: path, label: middle});
    }
    return {pieces, ports, paths};
  }

  /* Each scope's cache key, children before their scope: the digest of its children (a leaf's
     id and size, an open child's key), its pieces and ports, and the direction. */
  function keys(shape, cuts, direction) {
    const out = new Map();
    (function key(scope) {
      const parts = [direction, scope];
      for (const child of shape.kids.get(scope) || []) {
        const node = shape.byId.get(child);
        parts.push(shape.kids.has(child) ? "C" + key(child) : "L" + child + "," + node.w + "," + node.h);
      }
      for (const p of (cuts.pieces.get(scope) || new Map()).values()) {
        parts.push("E" + p.source + SEP + p.target + (p.lw ? "," + p.lw + "," + p.lh : ""));
      }
      for (const [id, way] of cuts.ports.get(scope) || []) parts.push("P" + id + way);
      const k = scope + "#" + digest(parts.join("\n"));
      out.set(scope, k);
      return k;
    })(ROOT);
    return out;
  }

  /* The ELK graph of the scopes to lay out: a cached scope is one box with fixed ports. */
  function elkGraph(shape, cuts, scopeKeys, direction, base) {
    const sides = direction === "RIGHT" ? {in: "WEST", out: "EAST"} : {in: "NORTH", out: "SOUTH"};
    const options = Object.assign({}, base.OPTIONS, {"elk.direction": direction,
      "elk.hierarchyHandling": "SEPARATE_CHILDREN", "elk.portConstraints": "FIXED_SIDE"});
    delete options["elk.json.edgeCoords"];
    delete options["elk.json.shapeCoords"];
    const hits = new Map();  // scope -> its cached picture (held: the cache may forget it)
    function build(id) {
      const cached = id !== ROOT && recall(scopeKeys.get(id));
      if (cached) {
        hits.set(id, cached);
        return {id, width: cached.w, height: cached.h,
          layoutOptions: {"elk.portConstraints": "FIXED_POS"},
          ports: cached.ports.map(p => ({id: p.id, width: 1, height: 1, x: p.x, y: p.y,
            layoutOptions: {"elk.port.side": sides[p.way]}}))};
      }
      if (!shape.kids.has(id)) {
        const node = shape.byId.get(id);
        return {id, width: node.w, height: node.h};
      }
      const own = cuts.pieces.get(id) || new Map();
      const members = (shape.kids.get(id) || []).map(c => ({id: c}));
      const dropped = base.overBudget(members, [...own.values()]);
      const labelled = own.size <= base.LABELLED_EDGES;
      const layoutOptions = Object.assign({}, options, dropped.size ? base.CHEAP : {});
      if (id !== ROOT) layoutOptions["elk.padding"] = base.SCOPE_PADDING;
      const edges = [];
      for (const p of own.values()) {
        if (dropped.has(p.id)) continue;
        const edge = {id: p.id, sources: [p.source], targets: [p.target]};
        if (labelled && p.lw) edge.labels = [{id: p.id + SEP + "label", text: "_", width: p.lw, height: p.lh}];
        edges.push(edge);
      }
      return {id, layoutOptions, children: shape.kids.get(id).map(build), edges,
        ports: [...(cuts.ports.get(id) || [])].map(([pid, way]) => ({id: pid, width: 1,
          height: 1, layoutOptions: {"elk.port.side": sides[way]}}))};
    }
    return {graph: build(ROOT), hits};
  }

  const moved = (p, dx, dy) => ({x: p.x + dx, y: p.y + dy});

  /* A scope's picture in `into`, moved by (dx, dy): `boxes` (id -> {x, y, w, h}, x and y the
     centre), `centres` (leaves), `pieces` (piece id -> route) and `labels` (piece id ->
     centre). */
  function paste(picture, dx, dy, into) {
    for (const [id, b] of Object.entries(picture.boxes)) into.boxes[id] = Object.assign({}, b, moved(b, dx, dy));
    for (const [id, c] of Object.entries(picture.centres)) into.centres[id] = moved(c, dx, dy);
    for (const [id, r] of Object.entries(picture.pieces)) into.pieces[id] = r.map(p => moved(p, dx, dy));
    for (const [id, c] of Object.entries(picture.labels)) into.labels[id] = moved(c, dx, dy);
  }

  /* The picture of ELK's laid-out `node` (its contents, relative to its top-left corner), the
     cached scopes in it pasted; each scope ELK laid out is cached on the way. */
  function picture(node, scopeKeys, hits) {
    const out = {boxes: {}, centres: {}, pieces: {}, labels: {}};
    for (const child of node.children || []) {
      const w = child.width, h = child.height, x = child.x || 0, y = child.y || 0;
      out.boxes[child.id] = {x: x + w / 2, y: y + h / 2, w, h};
      if (hits.has(child.id)) {
        paste(hits.get(child.id), x, y, out);
      } else if (child.children && child.children.length) {
        paste(picture(child, scopeKeys, hits), x, y, out);
      } else {
        out.centres[child.id] = {x: x + w / 2, y: y + h / 2};
      }
    }
    for (const edge of node.edges || []) {
      const points = [];
      for (const s of edge.sections || []) points.push(s.startPoint, ...(s.bendPoints || []), s.endPoint);
      out.pieces[edge.id] = points.map(p => ({x: p.x, y: p.y}));
      const label = (edge.labels || [])[0];
      if (label && Number.isFinite(label.x)) {
        out.labels[edge.id] = {x: label.x + label.width / 2, y: label.y + label.height / 2};
      }
    }
    if (node.id !== ROOT) remember(scopeKeys.get(node.id), Object.assign(out, {w: node.width,
      h: node.height, ports: (node.ports || []).map(p => ({id: p.id, x: p.x, y: p.y,
        way: p.id.split(SEP)[1]}))}));
    return out;
  }

  /* The picture kept under `key` (now the most recently used), or undefined. */
  function recall(key) {
    const picture = CACHE.get(key);
    if (picture) { CACHE.delete(key); CACHE.set(key, picture); }
    return picture;
  }

  function forget(key) {
    const old = CACHE.get(key);
    if (old) { cachedItems -= old.items; CACHE.delete(key); }
  }

  function remember(key, value) {
    forget(key);
    value.items = Object.keys(value.boxes).length + Object.keys(value.pieces).length;
    CACHE.set(key, value);
    cachedItems += value.items;
    while (cachedItems > CACHE_ITEMS && CACHE.size > 1) forget(CACHE.keys().next().value);
  }

  /* Everything forgotten (bench/elk_layout.js: each run from an empty cache). */
  function clear() {
    CACHE.clear();
    cachedItems = 0;
  }

  /* Each edge's route through its pieces (a point shared by two pieces once), its ends moved
     `nudge` px along it as graph-layout.js's placements() does, and its label's centre. */
  function routes(paths, drawn, nudge) {
    const out = {}, labels = {};
    for (const [id, path] of paths) {
      if (!path.pieces.every(p => drawn.pieces[p] && drawn.pieces[p].length >= 2)) continue;
      const points = [];
      for (const p of path.pieces) {
        for (const point of drawn.pieces[p]) {
          const last = points[points.length - 1];
          if (!last || Math.abs(last.x - point.x) + Math.abs(last.y - point.y) > 1.5) points.push(point);
        }
      }
      if (points.length < 2) continue;
      const n = points.length - 1;
      points[0] = nudge(points[0], points[1], 4);
      points[n] = nudge(points[n], points[n - 1], 4);
      out[id] = points;
      const label = drawn.labels[path.label];
      if (label) labels[id] = {x: label.x, y: label.y};
    }
    return {routes: out, labels};
  }

  /* Lay out `nodes` and `edges` (as graph-layout.js's elkGraph takes them) scope by scope with
     `elk` (ELK's API: layout(graph) -> Promise); `base` is graph-layout.js's shared part;
     `stored` (optional: {get(key, nodes) -> Promise of a picture or null, put(key, picture)})
     keeps the canvas's picture beyond this page. Resolves to {centres, boxes (every node's
     centre and size), routes, labels, laidOut (the scopes ELK laid out this time, ROOT
     included when it ran)}. */
  async function layOutScopes(elk, nodes, edges, direction, base, stored) {
    const shape = tree(nodes);
    const cuts = cut(edges, shape);
    const scopeKeys = keys(shape, cuts, direction);
    const rootKey = scopeKeys.get(ROOT);
    let drawn = recall(rootKey);
    if (!drawn && stored) {
      drawn = await stored.get(rootKey, nodes);
      if (drawn) remember(rootKey, drawn);
    }
    let laidOut = [];
    if (drawn) {
      stats.hits += 1;
    } else {
      const {graph, hits} = elkGraph(shape, cuts, scopeKeys, direction, base);
      const all = [...shape.kids.keys()];
      laidOut = all.filter(s => s === ROOT || !hits.has(s) && ![...chain(shape.parent, s)]
        .slice(1).some(a => hits.has(a)));
      stats.misses += laidOut.length;
      stats.hits += hits.size;
      stats.elkCalls += 1;
      const result = await elk.layout(graph);
      drawn = picture(result, scopeKeys, hits);
      remember(rootKey, drawn);
      if (stored) stored.put(rootKey, drawn);
    }
    const centres = {}, boxes = {};
    for (const [id, b] of Object.entries(drawn.boxes)) boxes[id] = {x: b.x, y: b.y, w: b.w, h: b.h};
    for (const [id, c] of Object.entries(drawn.centres)) centres[id] = {x: c.x, y: c.y};
    const {routes: edgeRoutes, labels} = routes(cuts.paths, drawn, base.nudge);
    return {centres, boxes, routes: edgeRoutes, labels, laidOut};
  }

  const api = {layOutScopes, digest, cut, tree, clear, ROOT, CACHE, stats};
  /* global module:readonly */
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.diGraphScopes = api;
})(typeof window !== "undefined" ? window : globalThis);
