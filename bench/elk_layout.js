/* The graph pages' layout (assets/graph-layout.js: ELK layered with the pages' options) run
   in Node.js on the vendored ELK (assets/vendor/), for bench/elk.py and the layout tests.

   stdin: {"repeat": n, "views": [{"name", "direction": "DOWN" | "RIGHT",
           "nodes": [{id, parent, w, h, compound}], "edges": [{id, source, target}],
           "after": index of an earlier view}]}: top to bottom, the scopes' cache is emptied
   before each run, then holds the scopes of the view `after` (laid out first, not timed,
   after its own `after`...): what opening or closing a scope in that view costs.
   stdout: {"views": [{"name", "ms": [each run's ms], "centres": {id: {x, y}},
            "boxes": {id: [x, y, w, h]}, "routes": {edge id: [{x, y}...]},
            "labels": {edge id: {x, y}}, "laidOut": [scopes ELK laid out], "elkCalls": n}]}
   (labels: the centres of the edge labels)
   The first run of the first view also warms the JIT up (V8 compiles ELK's 1.6 MB once, as
   the browser does on the first graph of a page): its time is reported as "first_ms". */
const fs = require("fs");
const path = require("path");

const ASSETS = path.join(__dirname, "..", "assets");
const shared = require(path.join(ASSETS, "graph-layout.js"));
const scopes = require(path.join(ASSETS, "graph-scopes.js"));
const vendor = name => path.join(ASSETS, "vendor", name + "-" + shared.ELK_VERSION + ".min.js");
const ELK = require(vendor("elk-api"));
const {Worker} = require(vendor("elk-worker"));

function boxes(result) {
  const out = {};
  (function walk(node) {
    for (const child of node.children || []) {
      out[child.id] = [child.x, child.y, child.width, child.height];
      walk(child);
    }
  })(result);
  return out;
}

/* The views laid out before `view` (its `after`, that view's `after`...), the first first. */
function history(views, view) {
  const out = [];
  for (let at = view.after; at !== undefined; at = views[at].after) out.unshift(views[at]);
  return out;
}

/* The view laid out as the page lays it out: top to bottom scope by scope (graph-scopes.js),
   left to right in one piece. */
async function layOut(elk, view) {
  const direction = view.direction || "DOWN";
  if (direction === "DOWN") {
    const placed = await scopes.layOutScopes(elk, view.nodes, view.edges, direction, shared);
    const corners = {};
    for (const [id, b] of Object.entries(placed.boxes)) corners[id] = [b.x - b.w / 2, b.y - b.h / 2, b.w, b.h];
    return {centres: placed.centres, boxes: corners, routes: placed.routes, labels: placed.labels,
      laidOut: placed.laidOut};
  }
  const result = await elk.layout(shared.elkGraph(view.nodes, view.edges, direction));
  return Object.assign({boxes: boxes(result), laidOut: ["__root__"]}, shared.placements(result));
}

(async () => {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const elk = new ELK({workerFactory: url => new Worker(url)});
  const views = [];
  let first = null;
  for (const view of input.views) {
    const ms = [];
    let placed = null;
    for (let run = 0; run < Math.max(1, input.repeat || 1); run++) {
      scopes.clear();
      for (const before of history(input.views, view)) await layOut(elk, before);
      const calls = scopes.stats.elkCalls;
      const start = process.hrtime.bigint();
      placed = await layOut(elk, view);
      const took = Number(process.hrtime.bigint() - start) / 1e6;
      if (first === null) first = took;
      ms.push(took);
      placed.elkCalls = scopes.stats.elkCalls - calls;
    }
    views.push(Object.assign({name: view.name, ms}, placed));
  }
  process.stdout.write(JSON.stringify({first_ms: first, views}));
})().catch(error => { console.error(error); process.exit(1); });
