/* The graph pages' layout (assets/graph-layout.js: ELK layered with the pages' options) run
   in Node.js on the vendored ELK (assets/vendor/), for bench/elk.py and the layout tests.

   stdin: {"repeat": n, "views": [{"name", "direction": "DOWN" | "RIGHT",
           "nodes": [{id, parent, w, h, compound}], "edges": [{id, source, target}]}]}
   stdout: {"views": [{"name", "ms": [each run's ms], "centres": {id: {x, y}},
            "boxes": {id: [x, y, w, h]}, "routes": {edge id: [{x, y}...]},
            "labels": {edge id: {x, y}}}]} (the centres of the edge labels)
   The first run of the first view also warms the JIT up (V8 compiles ELK's 1.6 MB once, as
   the browser does on the first graph of a page): its time is reported as "first_ms". */
const fs = require("fs");
const path = require("path");

const ASSETS = path.join(__dirname, "..", "assets");
const shared = require(path.join(ASSETS, "graph-layout.js"));
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

(async () => {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const elk = new ELK({workerFactory: url => new Worker(url)});
  const views = [];
  let first = null;
  for (const view of input.views) {
    const ms = [];
    let result = null;
    for (let run = 0; run < Math.max(1, input.repeat || 1); run++) {
      const graph = shared.elkGraph(view.nodes, view.edges, view.direction || "DOWN");
      const start = process.hrtime.bigint();
      result = await elk.layout(graph);
      const took = Number(process.hrtime.bigint() - start) / 1e6;
      if (first === null) first = took;
      ms.push(took);
    }
    const {centres, routes, labels} = shared.placements(result);
    views.push({name: view.name, ms, centres, boxes: boxes(result), routes, labels});
  }
  process.stdout.write(JSON.stringify({first_ms: first, views}));
})().catch(error => { console.error(error); process.exit(1); });
