/* The computational graph's overview (#graph-overview, a <canvas> beside the graph): the main
   canvas in small, drawn here from its cytoscape's elements where they are drawn there (no
   labels, no arrows): open scopes' boxes (outer ones first), the edges along their routes,
   then the other nodes, in their shapes and the stylesheet's colours, the whole graph fitted
   with 6 px around. assets/graph-pages.js draws it once the graph is laid out and when its
   styles change, and places the box of the part in view on it (`view` gives the fit).

   It was a second cytoscape holding the same elements, patched alongside: every open or
   close restyled and drew its 3,000 elements (the 1,500-node view) again, 2-5 s
   (bench/graph_pan.py). Drawing the picture takes some milliseconds. */
(function (root) {
  const PADDING = 6;
  /* Edges as the overview's stylesheet drew them: 0.6 model px wide. */
  const EDGE_WIDTH = 0.6;
  /* The box of a node's shape, no label, no overlay, from cytoscape's caches. */
  const BODY = {includeLabels: false, includeOverlays: false, useCache: true};

  const colour = (value, opacity) => `rgba(${value[0]},${value[1]},${value[2]},${opacity})`;

  /* The outline of `node`'s shape (ellipse, round rectangle or rectangle) on `ctx`. */
  function shapePath(ctx, node) {
    const at = node.position(), w = node.paddedWidth(), h = node.paddedHeight();
    const shape = node.pstyle("shape").value;
    ctx.beginPath();
    if (shape === "ellipse") {
      ctx.ellipse(at.x, at.y, w / 2, h / 2, 0, 0, 2 * Math.PI);
    } else if (shape === "round-rectangle" && ctx.roundRect) {
      /* cytoscape's corners: a quarter of the smaller side, at most 8 px */
      ctx.roundRect(at.x - w / 2, at.y - h / 2, w, h, Math.min(w / 4, h / 4, 8));
    } else {
      ctx.rect(at.x - w / 2, at.y - h / 2, w, h);
    }
  }

  function drawNode(ctx, node) {
    shapePath(ctx, node);
    ctx.fillStyle = colour(node.pstyle("background-color").value,
      node.pstyle("background-opacity").value);
    ctx.fill();
    const border = node.pstyle("border-width").pfValue;
    if (border > 0) {
      ctx.lineWidth = border;
      ctx.setLineDash([]);
      ctx.strokeStyle = colour(node.pstyle("border-color").value,
        node.pstyle("border-opacity").value);
      ctx.stroke();
    }
  }

  /* An edge along the path cytoscape draws it (its segments, or a bezier's control points). */
  function drawEdge(ctx, edge) {
    const start = edge.sourceEndpoint(), end = edge.targetEndpoint();
    if (!start || !end || !Number.isFinite(start.x) || !Number.isFinite(end.x)) return;
    const curve = edge.pstyle("curve-style").value;
    ctx.beginPath();
    ctx.moveTo(start.x, start.y);
    if (curve === "segments") {
      for (const p of edge.segmentPoints() || []) ctx.lineTo(p.x, p.y);
      ctx.lineTo(end.x, end.y);
    } else {
      const controls = (curve.indexOf("bezier") >= 0 && edge.controlPoints()) || [];
      controls.forEach((c, i) => {
        const to = i + 1 < controls.length
          ? {x: (c.x + controls[i + 1].x) / 2, y: (c.y + controls[i + 1].y) / 2} : end;
        ctx.quadraticCurveTo(c.x, c.y, to.x, to.y);
      });
      if (!controls.length) ctx.lineTo(end.x, end.y);
    }
    ctx.setLineDash(edge.pstyle("line-style").value === "dashed"
      ? edge.pstyle("line-dash-pattern").pfValue : []);
    ctx.lineWidth = EDGE_WIDTH;
    ctx.strokeStyle = colour(edge.pstyle("line-color").value, edge.pstyle("line-opacity").value);
    ctx.stroke();
  }

  /* The fit of `bounds` in a `width` x `height` picture, as cytoscape's fit(eles, 6): the
     zoom and the pan (picture px = model px * zoom + pan). */
  function fit(bounds, width, height) {
    const zoom = Math.min((width - 2 * PADDING) / bounds.w, (height - 2 * PADDING) / bounds.h);
    return {zoom, pan: {x: (width - zoom * (bounds.x1 + bounds.x2)) / 2,
                        y: (height - zoom * (bounds.y1 + bounds.y2)) / 2}};
  }

  /* Draw `cy`'s graph on `canvas`; its fit ({zoom, pan, width, height}, null when nothing is
     drawn) is kept for `view`, and `data-drawn` says what was drawn ("<nodes>:<edges>"). */
  function draw(cy, canvas) {
    const width = canvas.clientWidth, height = canvas.clientHeight;
    const ratio = root.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const nodes = cy.nodes();
    const bounds = nodes.length ? cy.elements().boundingBox(BODY) : null;
    if (!bounds || !(bounds.w > 0) || !(bounds.h > 0) || width <= 0 || height <= 0) {
      canvas._diView = null;
      canvas.dataset.drawn = "0:0";
      return;
    }
    const {zoom, pan} = fit(bounds, width, height);
    ctx.setTransform(zoom * ratio, 0, 0, zoom * ratio, pan.x * ratio, pan.y * ratio);
    /* open scopes under their contents, outer ones first; edges over the boxes */
    const parents = nodes.filter(n => n.isParent()).toArray();
    const depth = new Map(parents.map(n => [n, n.ancestors().length]));
    parents.sort((a, b) => depth.get(a) - depth.get(b));
    parents.forEach(n => drawNode(ctx, n));
    cy.edges().forEach(e => drawEdge(ctx, e));
    nodes.forEach(n => { if (!n.isParent()) drawNode(ctx, n); });
    canvas._diView = {zoom, pan, width, height};
    canvas.dataset.drawn = nodes.length + ":" + cy.edges().length;
  }

  /* The fit of the last picture drawn on `canvas` (see draw), or null. */
  const view = canvas => canvas._diView || null;

  root.diGraphOverview = {draw, view, BODY};
})(window);
