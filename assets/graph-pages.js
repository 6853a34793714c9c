/* dash-insight graph pages (computational graph /graph and data graph /data-graph): the
   viewport work cytoscape does in the browser. Called from dash_insight/plugins/graphs/page.py,
   data_graph_page.py and figures_cytoscape.py with dash.ClientsideFunction("graphPages", name);
   element ids come in as arguments (States of the elements themselves), so nothing here knows a layout. */
(function () {
  /* The cytoscape instance dash-cytoscape keeps on its element, or null before it is drawn. */
  function cyOf(id) {
    const element = document.getElementById(id);
    return element && element._cyreg ? element._cyreg.cy : null;
  }

  /* What the graph scripts keep about a canvas (assets/graph-layout.js stateOf). */
  const stateOf = cy => window.diGraphLayout.stateOf(cy);

  const MAX_FIT_ZOOM = 2.5;
  /* An opened scope is shown at least this close: node labels (11 px in the stylesheet) and
     edge labels (10 px) are then 9 px or more on screen (issue 39). */
  const READABLE_ZOOM = 0.92;

  /* Place the overview's box on the part of the graph the main view shows (hidden when the
     overview shows nothing or the view is out of it). */
  function drawOverviewBox(cy, overview, box) {
    if (!box) return;
    const view = window.diGraphOverview.view(overview);
    if (!view) { box.style.display = "none"; return; }
    const extent = cy.extent(), zoom = view.zoom, pan = view.pan;
    const left = Math.max(0, extent.x1 * zoom + pan.x);
    const top = Math.max(0, extent.y1 * zoom + pan.y);
    const right = Math.min(view.width, extent.x2 * zoom + pan.x);
    const bottom = Math.min(view.height, extent.y2 * zoom + pan.y);
    box.style.display = right > left && bottom > top ? "block" : "none";
    box.style.left = left + "px";
    box.style.top = top + "px";
    box.style.width = (right - left) + "px";
    box.style.height = (bottom - top) + "px";
  }

  /* The overview (a <canvas>, assets/graph-overview.js) drawn again from the main view, then
     its box; in a task of its own after the main view's next frame (which measures the
     elements that changed: the overview then finds them measured), once for several calls. */
  function drawOverview(cy, overview, redraw) {
    afterNextFrame(overview, () => {
      /* elements patched meanwhile are not placed yet: the layout's end draws them (wire) */
      if (layingOut(cy)) return;
      window.diGraphOverview.draw(cy, overview);
      redraw();
    });
  }

  /* `run` in a task of its own after the next frame is drawn, once however often it is asked
     for before (`holder` keeps the request). */
  function afterNextFrame(holder, run) {
    if (holder._diPending) return;
    holder._diPending = true;
    requestAnimationFrame(() => setTimeout(() => {
      holder._diPending = false;
      run();
    }, 0));
  }

  /* After a new stylesheet on the main view (the theme's: cytoscape then has another style
     object and restyles every element) the overview takes its colours; not while it is laid
     out (the overview is drawn when it is). Other restyles (a press, a selection, a patch)
     leave the overview as it is. */
  function onStyles(cy, overview, redraw) {
    let sheet = cy.style();
    cy.on("style", () => {
      if (cy.style() === sheet) return;
      sheet = cy.style();
      if (!layingOut(cy)) drawOverview(cy, overview, redraw);
    });
  }

  /* Once per cytoscape instance: the overview box follows the main view, a double tap on a node
     is written to the store `dbltapId` (the server opens or closes the scope), a click on the
     overview centres the main view there; once the main view is laid out, the overview is
     drawn from it and the focus request that waited for it is shown. */
  function wire(cy, overview, redraw, dbltapId) {
    if (!cy._diWired) {
      cy._diWired = true;
      cy.on("viewport resize", redraw);
      cy.on("dbltap", "node", ev => window.dash_clientside.set_props(
        dbltapId, {data: {id: ev.target.id(), t: Date.now()}}));
      const showWaiting = () => {
        const waiting = stateOf(cy).focus;
        if (waiting && !behind(cy, waiting)) {
          stateOf(cy).focus = null;
          applyFocus(cy, waiting, false);
        }
        redraw();
        drawOverview(cy, overview, redraw);
      };
      cy.on("dilaidout", showWaiting);
      /* a patch that added or removed nothing is not laid out again */
      cy.on("dipatched", () => { if (!layingOut(cy)) showWaiting(); });
      onStyles(cy, overview, redraw);
    }
    if (!overview._diWired) {
      overview._diWired = true;
      overview.addEventListener("click", ev => {
        const view = window.diGraphOverview.view(overview);
        if (!view) return;
        const x = (ev.offsetX - view.pan.x) / view.zoom, y = (ev.offsetY - view.pan.y) / view.zoom;
        cy.animate({pan: {x: cy.width() / 2 - x * cy.zoom(),
                          y: cy.height() / 2 - y * cy.zoom()}}, {duration: 200});
      });
      /* a new size (the window, full screen) draws it again, fitted */
      new ResizeObserver(() => {
        if (overview.clientWidth && !layingOut(cy)) drawOverview(cy, overview, redraw);
      }).observe(overview);
    }
  }

  /* True while the main canvas waits for ELK (its elements changed, the layout is not drawn). */
  function layingOut(cy) {
    const layout = window.diGraphLayout;
    return Boolean(stateOf(cy).layoutRunning)
      || (layout && cy.nodes().length > 0
          && cy.container().dataset.laidOut !== layout.keyOf(cy));
  }

  /* A move of the view still under way (an earlier request's animation, an overview click's)
     stopped where it is: it would go on writing the pan and zoom it started for over the
     newer request's (a fit asked for just after a node was located ended at the node's old
     place, outside the graph drawn since, and the overview's box was hidden). */
  function settle(cy) {
    if (cy.animated()) cy.stop(true);
  }

  /* Show what `focus` ({fit, node}) asks for: the whole graph filling the canvas (a small
     graph no closer than MAX_FIT_ZOOM, where two scope boxes are already large), an
     opened scope, or a node outside the middle of the canvas centred. Returns false while the node is not
     drawn yet (elements arrive after the focus request). */
  function applyFocus(cy, focus, fitClicked) {
    if (fitClicked) { settle(cy); cy.fit(undefined, 30); return true; }
    if (!focus) return true;
    const node = focus.node ? cy.getElementById(focus.node) : null;
    if (focus.node && (!node || !node.length)) return false;
    settle(cy);
    if (focus.fit || !node) {
      cy.fit(undefined, 30);
      if (cy.zoom() > MAX_FIT_ZOOM) { cy.zoom(MAX_FIT_ZOOM); cy.center(); }
      return true;
    }
    if (node.isParent()) {
      /* the whole scope when it fits at a readable zoom, else its top (centred, or its left
         part when it is wider than the canvas) at the readable zoom */
      const bounds = node.boundingBox();
      const fits = Math.min((cy.width() - 60) / bounds.w, (cy.height() - 60) / bounds.h);
      const zoom = Math.max(READABLE_ZOOM, Math.min(1.2, fits));
      const x = bounds.w * zoom <= cy.width() - 60
        ? cy.width() / 2 - (bounds.x1 + bounds.w / 2) * zoom : 30 - bounds.x1 * zoom;
      const y = bounds.h * zoom <= cy.height() - 60
        ? cy.height() / 2 - (bounds.y1 + bounds.h / 2) * zoom : 30 - bounds.y1 * zoom;
      cy.animate({zoom, pan: {x, y}}, {duration: 250});
      return true;
    }
    /* a node already in the middle half of the canvas stays where it is; else it is centred */
    const at = node.renderedPosition();
    const central = Math.abs(at.x / cy.width() - 0.5) <= 0.25
      && Math.abs(at.y / cy.height() - 0.5) <= 0.25 && cy.zoom() >= 0.5;
    if (!central) {
      cy.animate({center: {eles: node}, zoom: Math.max(cy.zoom(), 0.6)}, {duration: 250});
    }
    return true;
  }

  /* Classes the layout gives an edge (assets/graph-layout.js), kept when the server changes
     the edge's own. */
  const LAYOUT_CLASSES = ["routed", "placed"];

  /* `patch` (figures_cytoscape.py element_patch: what changed since the view drawn as its
     `base`) applied to cytoscape `cy` in one batch: the elements kept stay where they are
     (positions, routes), the removed ones go, the added ones come in with the server's data,
     the updated ones take their new data and classes. The server's order of the elements is
     kept in the canvas's state `order` (graph-layout.js lays them out in it). Returns how
     many elements were written. */
  function patchCanvas(cy, patch) {
    const add = patch.add || [];
    cy.batch(() => {
      if (patch.reset) {
        cy.elements().remove();
      } else {
        const gone = cy.collection();
        for (const id of patch.remove) gone.merge(cy.getElementById(id));
        cy.remove(gone);
        for (const element of patch.update) {
          const ele = cy.getElementById(element.data.id);
          if (!ele.length) continue;
          const kept = LAYOUT_CLASSES.filter(c => ele.hasClass(c));
          ele.data(element.data);
          ele.classes([element.classes || "", ...kept].join(" "));
        }
      }
      if (add.length) cy.add(add);
    });
    let order = add.map(e => e.data.id);
    if (!patch.reset) {
      const removed = new Set(patch.remove);
      order = (stateOf(cy).order || []).filter(id => !removed.has(id));
      patch.at.forEach((index, i) => order.splice(index, 0, add[i].data.id));
    }
    stateOf(cy).order = order;
    return add.length + (patch.update || []).length;
  }

  /* The patches not applied yet, oldest first (the canvases may not be drawn yet). */
  const patches = [];

  /* Apply the waiting patches to the main canvas (the overview is drawn from it once it is
     laid out); false while it is not drawn. A patch from another view than the one drawn (two answers crossed) clears what
     the page thinks is shown and asks for a refresh: the server then sends everything. */
  function drainPatches(cyId, shownId) {
    const cy = cyOf(cyId);
    if (!cy) return false;
    while (patches.length) {
      const patch = patches.shift();
      if (!patch.reset && (stateOf(cy).serial || 0) !== patch.base) {
        patches.length = 0;
        window.dash_clientside.set_props(shownId, {data: null});
        window.dash_clientside.set_props("refresh-now", {n_clicks: Date.now()});
        return true;
      }
      window.diGraphLayout.keptPlaces(cy);  // the places before the patch (anchorShift)
      const written = patchCanvas(cy, patch);
      stateOf(cy).serial = patch.n;
      Object.assign(cy.container().dataset, {drawn: patch.n, written});
      cy.emit("dipatched");
      markSelection(cy);
      drawTreeSoon(cy);
    }
    return true;
  }

  /* The URL's selected node and its edges get the class `di-selected` (figures_cytoscape.py
     SELECTION_RULES: MindInsight's red outline), the node selected before loses it. */
  function markSelection(cy) {
    const name = new URLSearchParams(window.location.search).get("node");
    const node = name ? cy.getElementById(name) : cy.collection();
    const now = node.length ? node.union(node.connectedEdges()) : cy.collection();
    const before = cy.$(".di-selected");
    const gone = before.difference(now), come = now.difference(before);
    if (!gone.length && !come.length) return;
    cy.batch(() => {
      gone.removeClass("di-selected");
      come.addClass("di-selected");
    });
  }

  /* True while the focus request waits for the patch of its view (page.py graph_outputs). */
  const behind = (cy, focus) => Boolean(focus && focus.drawn
    && (stateOf(cy).serial || 0) < focus.drawn);

  /* Retry `step` every 50 ms until it returns true (at most 40 times: 2 s). */
  function retry(step, delay) {
    const attempt = tries => {
      if (!step() && tries < 40) setTimeout(() => attempt(tries + 1), 50);
    };
    setTimeout(() => attempt(0), delay);
  }

  /* The scope tree (#graph-tree): the open part of the scope hierarchy as the canvas draws
     it, in the server's order, drawn here from the canvas's elements (1,500 rows as Dash
     components took seconds to compare and render on every open or close): a row per node,
     an arrow on a scope (▾ open, ▸ closed; a click opens or closes it, as a double tap does),
     its swatch and name (a click shows and selects it: the store graph-tree-pick), the URL's
     selected node marked. The ids are the JSON of {name, type} (graph-tree-toggle,
     graph-tree-node), as Dash writes pattern ids. At most TREE_ROWS rows. */
  const TREE_ROWS = 2000;
  const rowId = (name, type) => "{\"name\":" + JSON.stringify(name) + ",\"type\":\"" + type + "\"}";

  function treeButton(className, id, title) {
    const button = document.createElement("button");
    button.className = className;
    button.id = id;
    button.title = title;
    return button;
  }

  function treeRow(node, selected, words) {
    const name = node.id(), open = node.hasClass("expanded");
    const row = document.createElement("li");
    if (node.data("sub")) {
      const toggle = treeButton("gp-tree-toggle", rowId(name, "graph-tree-toggle"),
        open ? words.close : words.open);
      toggle.textContent = open ? "▾" : "▸";
      row.appendChild(toggle);
    } else {
      const spacer = document.createElement("span");
      spacer.className = "gp-tree-spacer";
      row.appendChild(spacer);
    }
    const label = treeButton("gp-tree-label" + (name === selected ? " selected" : ""),
      rowId(name, "graph-tree-node"), name);
    const swatch = document.createElement("span");
    swatch.className = "gp-swatch gp-sw-" + node.data("kind");
    label.append(swatch, String(node.data("label")));
    row.appendChild(label);
    return row;
  }

  function drawTree(cy) {
    const wrap = document.getElementById("graph-tree");
    if (!wrap || !window.diGraphLayout) return;
    const selected = new URLSearchParams(window.location.search).get("node");
    const words = {open: wrap.dataset.open || "Open", close: wrap.dataset.close || "Close"};
    const nodes = window.diGraphLayout.inOrder(cy, cy.nodes()).slice(0, TREE_ROWS);
    const lists = new Map(), top = document.createElement("ul");
    top.className = "gp-tree";
    for (const node of nodes) {
      const parent = node.parent().length ? node.parent().id() : null;
      const list = parent === null ? top : lists.get(parent);
      if (!list) continue;
      const row = treeRow(node, selected, words);
      list.appendChild(row);
      if (node.hasClass("expanded") && node.children().length) {
        const inner = document.createElement("ul");
        row.appendChild(inner);
        lists.set(node.id(), inner);
      }
    }
    /* the row that had the keyboard focus keeps it (the tree is drawn again after a patch
       and after a selection: the key that opened a scope is followed by two redraws) */
    const active = document.activeElement;
    const focused = active && wrap.contains(active) ? active.id : null;
    wrap.replaceChildren(...(nodes.length ? [top] : []));
    const again = focused && document.getElementById(focused);
    if (again) again.focus();
  }

  /* The tree drawn again once the canvas's next frame is drawn (a patch's layout runs before
     that frame: the tree's 1,500 rows waited for it), once for several patches. */
  const treeRequest = {};
  function drawTreeSoon(cy) {
    afterNextFrame(treeRequest, () => drawTree(cy));
  }

  document.addEventListener("click", ev => {
    const button = ev.target.closest ? ev.target.closest("#graph-tree button") : null;
    const name = button ? nameOf(button) : null;
    if (!name) return;
    const store = button.classList.contains("gp-tree-toggle") ? "graph-dbltap" : "graph-tree-pick";
    window.dash_clientside.set_props(store, {data: {id: name, t: Date.now()}});
  });

  /* The scope tree by keyboard (issue 39 item 4): on a row's label, ↑/↓ move to the row above
     or below, → opens a closed scope (or moves into an open one), ← closes an open scope (or
     moves to the row's scope), Enter locates the node (the label's own click). Opening,
     closing and locating (by key or click) redraw the tree: the row keeps the focus. */
  const nameOf = label => { try { return JSON.parse(label.id).name; } catch { return null; } };
  let keepFocus = null;

  function treeKey(ev) {
    const label = ev.target.closest ? ev.target.closest(".gp-tree-label") : null;
    if (!label || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const labels = Array.from(document.querySelectorAll(".gp-tree .gp-tree-label"));
    const index = labels.indexOf(label);
    const row = label.parentElement;
    const toggle = row.querySelector(":scope > .gp-tree-toggle");
    const open = Boolean(row.querySelector(":scope > ul"));
    let next = null;
    const keep = () => { keepFocus = {name: nameOf(label), at: Date.now()}; };
    if (ev.key === "ArrowDown") next = labels[index + 1];
    else if (ev.key === "ArrowUp") next = labels[index - 1];
    else if (ev.key === "ArrowRight" && toggle && !open) { keep(); toggle.click(); }
    else if (ev.key === "ArrowRight" && open) next = labels[index + 1];
    else if (ev.key === "ArrowLeft" && toggle && open) { keep(); toggle.click(); }
    else if (ev.key === "ArrowLeft") {
      const scope = row.parentElement.closest("li");
      next = scope ? scope.querySelector(":scope > .gp-tree-label") : null;
    } else if (ev.key === "Enter") { keep(); return; }
    else return;
    ev.preventDefault();
    if (next) next.focus();
  }

  /* After the tree is redrawn (the focused label removed: the focus fell to the body), the row
     that had the focus gets it back, within 10 s of the key. */
  function refocus() {
    if (!keepFocus || Date.now() - keepFocus.at > 10000) { keepFocus = null; return; }
    const active = document.activeElement;
    if (active && active !== document.body) return;
    const label = Array.from(document.querySelectorAll(".gp-tree .gp-tree-label"))
      .find(l => nameOf(l) === keepFocus.name);
    if (label) { label.focus(); keepFocus = null; }
  }

  /* The first-visit guide of the computational graph (page.py guide()): shown until closed
     once, remembered in localStorage; the toolbar's "?" shows it again. */
  const GUIDE_SEEN = "dash-insight.graph-guide";
  function guideSeen() {
    try { return localStorage.getItem(GUIDE_SEEN) === "seen"; } catch { return false; }
  }
  function firstVisitGuide() {
    const guide = document.getElementById("graph-guide");
    if (!guide || guide.dataset.checked) return;
    guide.dataset.checked = "1";
    if (!guideSeen()) guide.hidden = false;
  }
  document.addEventListener("click", ev => {
    const guide = document.getElementById("graph-guide");
    if (!guide || !ev.target.closest) return;
    if (ev.target.closest("#graph-guide-close")) {
      guide.hidden = true;
      try { localStorage.setItem(GUIDE_SEEN, "seen"); } catch { /* private mode: shown again */ }
    } else if (ev.target.closest("#graph-guide-open")) {
      guide.hidden = !guide.hidden;
    }
  });

  document.addEventListener("keydown", treeKey);
  document.addEventListener("click", ev => {  // a label clicked keeps the focus too
    const label = ev.target.closest ? ev.target.closest(".gp-tree-label") : null;
    if (label) keepFocus = {name: nameOf(label), at: Date.now()};
  });
  new MutationObserver(() => { refocus(); firstVisitGuide(); }).observe(
    document.documentElement, {childList: true, subtree: true});

  /* -- the drawn graph as SVG (MindInsight downloads its graph as SVG): nodes, their labels,
     edges along the path cytoscape draws (segments, or a bezier's control points), arrows and
     edge labels, from cytoscape's own geometry and styles. */
  const escapeXml = text => String(text).replace(/[<>&"']/g, c =>
    ({"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;"})[c]);
  const num = value => Math.round(value * 10) / 10;

  function svgText(x, y, text, style, anchor) {
    if (!text) return "";
    return `<text x="${num(x)}" y="${num(y)}" font-size="${parseFloat(style.size)}" `
      + `font-family="Helvetica, Arial, sans-serif" font-weight="${style.weight}" `
      + `fill="${style.color}" text-anchor="middle" dominant-baseline="${anchor}">`
      + `${escapeXml(text)}</text>`;
  }

  function svgNode(node) {
    const b = node.boundingBox({includeLabels: false, includeOverlays: false,
      useCache: true});  // (snapshot in graph-layout.js says why)
    const shape = node.style("shape");
    const paint = `fill="${node.style("background-color")}" `
      + `fill-opacity="${node.style("background-opacity")}" `
      + `stroke="${node.style("border-color")}" stroke-width="${node.style("border-width")}"`;
    const body = shape === "ellipse"
      ? `<ellipse cx="${num((b.x1 + b.x2) / 2)}" cy="${num((b.y1 + b.y2) / 2)}" `
        + `rx="${num(b.w / 2)}" ry="${num(b.h / 2)}" ${paint}/>`
      : `<rect x="${num(b.x1)}" y="${num(b.y1)}" width="${num(b.w)}" height="${num(b.h)}" `
        + `rx="${shape === "round-rectangle" ? 6 : 0}" ${paint}/>`;
    const style = {size: node.style("font-size"), weight: node.style("font-weight"),
                   color: node.style("color")};
    const valign = node.style("text-valign");
    const y = valign === "top" ? b.y1 - 4 : valign === "bottom" ? b.y2 + 3 : (b.y1 + b.y2) / 2;
    const anchor = valign === "top" ? "text-after-edge"
      : valign === "bottom" ? "text-before-edge" : "central";
    return body + svgText((b.x1 + b.x2) / 2, y, node.style("label"), style, anchor);
  }

  function svgEdge(edge) {
    const start = edge.sourceEndpoint(), end = edge.targetEndpoint();
    const curve = edge.style("curve-style");
    let path = `M${num(start.x)},${num(start.y)}`;
    let last = start;
    if (curve === "segments") {
      for (const p of edge.segmentPoints() || []) { path += ` L${num(p.x)},${num(p.y)}`; last = p; }
      path += ` L${num(end.x)},${num(end.y)}`;
    } else {
      const controls = (curve.indexOf("bezier") >= 0 && edge.controlPoints()) || [];
      controls.forEach((c, i) => {
        const to = i + 1 < controls.length
          ? {x: (c.x + controls[i + 1].x) / 2, y: (c.y + controls[i + 1].y) / 2} : end;
        path += ` Q${num(c.x)},${num(c.y)} ${num(to.x)},${num(to.y)}`;
        last = c;
      });
      if (!controls.length) path += ` L${num(end.x)},${num(end.y)}`;
    }
    const colour = edge.style("line-color"), width = parseFloat(edge.style("width"));
    const dash = edge.style("line-style") === "dashed" ? ' stroke-dasharray="6 3"' : "";
    let out = `<path d="${path}" fill="none" stroke="${colour}" stroke-width="${width}"${dash}/>`;
    if (edge.style("target-arrow-shape") !== "none") {
      const dx = end.x - last.x, dy = end.y - last.y, length = Math.hypot(dx, dy) || 1;
      const ux = dx / length, uy = dy / length, size = 4 + 2 * width;
      const bx = end.x - ux * size * 1.6, by = end.y - uy * size * 1.6;
      out += `<polygon points="${num(end.x)},${num(end.y)} ${num(bx - uy * size)},`
        + `${num(by + ux * size)} ${num(bx + uy * size)},${num(by - ux * size)}" `
        + `fill="${edge.style("target-arrow-color")}"/>`;
    }
    /* where the canvas draws the label: the midpoint moved by its margins (ELK's place) */
    const middle = edge.midpoint();
    const x = middle.x + (parseFloat(edge.style("text-margin-x")) || 0);
    const y = middle.y + (parseFloat(edge.style("text-margin-y")) || 0);
    const style = {size: edge.style("font-size"), weight: "normal", color: edge.style("color")};
    return out + svgText(x, y, edge.style("label"), style, "central");
  }

  function graphSvg(cy, background) {
    const b = cy.elements().boundingBox({useCache: true});
    const pad = 20, x = b.x1 - pad, y = b.y1 - pad, w = b.w + 2 * pad, h = b.h + 2 * pad;
    const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="${num(x)} ${num(y)} `
      + `${num(w)} ${num(h)}" width="${num(w)}" height="${num(h)}">`,
      `<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" `
      + `fill="${background}"/>`];
    /* parents first (their boxes under their children), edges over the boxes */
    const nodes = cy.nodes().sort((a, b2) => a.ancestors().length - b2.ancestors().length);
    nodes.filter(n => n.isParent()).forEach(n => parts.push(svgNode(n)));
    cy.edges().forEach(e => parts.push(svgEdge(e)));
    nodes.filter(n => !n.isParent()).forEach(n => parts.push(svgNode(n)));
    parts.push("</svg>");
    return parts.join("\n");
  }
  window.diGraphSvg = graphSvg;

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    graphPages: {
      /* Computational graph viewport: fit / centre on a focus request or the Fit button, keep
         the overview drawn with its box. Inputs: the graph-focus store and the Fit button; the
         ids of the main cytoscape, the overview's canvas, its box and the double-tap store come
         as States. */
      followFocus(focus, fitClicks, cyId, overviewId, boxId, dbltapId) {
        const triggered = window.dash_clientside.callback_context.triggered[0] || {};
        const fitClicked = Boolean(fitClicks) && (triggered.prop_id || "").endsWith(".n_clicks");
        let cy = null, overview = null;
        retry(() => {
          cy = cyOf(cyId);
          overview = document.getElementById(overviewId);
          if (!cy || !overview) return false;
          const box = document.getElementById(boxId);
          const redraw = () => drawOverviewBox(cy, overview, box);
          wire(cy, overview, redraw, dbltapId);
          markSelection(cy);  // the selection may have changed
          drawTree(cy);
          retry(() => {
            if (!fitClicked && (layingOut(cy) || !cy.nodes().length || behind(cy, focus))) {
              stateOf(cy).focus = focus;  // shown once laid out (wire: dilaidout)
              return true;
            }
            if (!applyFocus(cy, focus, fitClicked)) return false;
            if (overview.dataset.drawn !== window.diGraphLayout.keyOf(cy)) {
              drawOverview(cy, overview, redraw);
            } else {
              redraw();
            }
            return true;
          }, 30);
          return true;
        }, 0);
        return window.dash_clientside.no_update;
      },

      /* The render callback's `patch` (page.py) applied to the main canvas (`cyId`);
         `shownId`: the store of what the page shows. */
      applyPatch(patch, cyId, shownId) {
        if (!patch) return window.dash_clientside.no_update;
        patches.push(patch);
        retry(() => drainPatches(cyId, shownId), 0);
        return window.dash_clientside.no_update;
      },

      /* Fit a cytoscape graph to its element. */
      fitCanvas(clicks, cyId) {
        const cy = cyOf(cyId);
        if (clicks && cy) cy.fit(undefined, 30);
        return window.dash_clientside.no_update;
      },

      /* Full screen on / off for a graph's frame (the element `wrapId`). */
      toggleFullScreen(clicks, wrapId) {
        const wrap = document.getElementById(wrapId);
        if (clicks && wrap) {
          if (document.fullscreenElement) document.exitFullscreen();
          else if (wrap.requestFullscreen) wrap.requestFullscreen();
        }
        return window.dash_clientside.no_update;
      },

      /* dash-cytoscape's generateImage request for the Download PNG button (`request` is the
         {type, action, filename, options} the page stored beside the button). */
      downloadPng(clicks, request) {
        return clicks && request ? request : window.dash_clientside.no_update;
      },

      /* Download the drawn graph as SVG (graphSvg), named as the PNG request says, on the
         canvas's background colour. */
      downloadSvg(clicks, request, cyId, wrapId) {
        const cy = cyOf(cyId);
        if (!clicks || !cy || !cy.nodes().length) return window.dash_clientside.no_update;
        const wrap = document.getElementById(wrapId);
        const background = wrap ? getComputedStyle(wrap).backgroundColor : "#ffffff";
        const blob = new Blob([graphSvg(cy, background)], {type: "image/svg+xml"});
        const link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = ((request && request.filename) || "graph") + ".svg";
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 1000);
        return window.dash_clientside.no_update;
      },
    },
  });
})();
