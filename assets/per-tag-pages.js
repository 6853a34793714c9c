/* Browser side of the per-tag pages (parameter distribution, images, tensors): clientside
   callbacks registered with ClientsideFunction(namespace, name) by
   dash_insight/web/per_tag_page.py (perTagPage), dash_insight/web/components/histogram_views.py
   (perTagPage.fullScreen) and the pages of dash_insight/plugins/{histograms,images,tensors}
   (histogramsPage, imagesPage, tensorsPage). Nothing here calls the server. */
(function () {
  const clientside = () => window.dash_clientside;
  const noUpdate = () => window.dash_clientside.no_update;
  const HIDDEN = {display: "none"};
  /* The brightness / contrast slider value that leaves the image unchanged (images/page.py
     DEFAULT_LEVEL; the CSS filter factor is value / 50, as MindInsight). */
  const LEVEL = 50;
  /* The tensor table's default decimals (tensors/page.py DEFAULT_DECIMALS). */
  const DECIMALS = 5;

  /* Esc closes the image's actual-size window, as a click on it does (imagesPage.actualSize
     hides it on the modal's n_clicks). */
  document.addEventListener("keydown", event => {
    const modal = document.getElementById("img-modal");
    if (event.key === "Escape" && modal && modal.style.display !== "none") modal.click();
  });

  /* setParams(search, {name: value or null}) -> the new query string ('' when empty). */
  function setParams(search, updates) {
    const params = new URLSearchParams(search || "");
    Object.keys(updates).forEach(name => {
      const value = updates[name];
      if (value === null || value === undefined || value === "") {
        params.delete(name);
      } else {
        params.set(name, String(value));
      }
    });
    const text = params.toString();
    return text ? "?" + text : "";
  }

  /* [[key, value], ...] -> "k=v,k2=v2" with "\", "," and "=" escaped: the Python twin is
     dash_insight.web.url_state.encode_map (tested equal). */
  function encodeMap(pairs) {
    const esc = s => String(s).replace(/\\/g, "\\\\").replace(/,/g, "\\,").replace(/=/g, "\\=");
    return pairs.map(p => esc(p[0]) + "=" + esc(p[1])).join(",");
  }

  /* The new search, or no_update when it is the current one (no history entry, no callback). */
  function changed(next, search) {
    return next === (search || "") ? noUpdate() : next;
  }

  const perTagPage = {
    setParams,
    encodeMap,

    /* The URL parameters the cards are built from (``keys``); other parameters (slider
       positions, formats) change in the browser, so they leave this unchanged and the server
       is not asked to rebuild the cards. */
    query: function (search, current, keys) {
      const params = new URLSearchParams(search || "");
      const query = (keys || []).map(k => params.get(k));
      return JSON.stringify(query) === JSON.stringify(current) ? noUpdate() : query;
    },

    /* Full screen of one card: a CSS class on the card, the button's label. */
    fullScreen: function (clicks, className) {
      const FULL = "di-full-screen";
      const classes = (className || "").split(" ").filter(c => c);
      const on = !classes.includes(FULL);
      const next = classes.filter(c => c !== FULL);
      if (on) next.push(FULL);
      document.body.classList.toggle("di-has-full-screen", on);
      setTimeout(() => window.dispatchEvent(new Event("resize")), 50);
      const t = window.dashInsightText;
      return [next.join(" "), on ? t("✕ Exit full screen") : t("Full screen")];
    },
  };

  const histogramsPage = {
    /* The vertical-axis choice exists in the Top view only. */
    axisGroupStyle: function (view) {
      return view === "front" ? HIDDEN : {};
    },
  };

  const imagesPage = {
    /* Brightness / contrast: the CSS variable every image's filter reads, the Reset buttons
       (disabled at the default) and the URL (b, c; left out at the default). */
    levels: function (b, c, search) {
      b = (b === null || b === undefined) ? LEVEL : b;
      c = (c === null || c === undefined) ? LEVEL : c;
      const filter = "brightness(" + (b / LEVEL) + ") contrast(" + (c / LEVEL) + ")";
      const next = setParams(search, {b: b === LEVEL ? null : b, c: c === LEVEL ? null : c});
      return [{"--di-image-filter": filter}, b === LEVEL, c === LEVEL, changed(next, search)];
    },

    reset: function (clicks) {
      return clicks ? LEVEL : noUpdate();
    },

    /* Step slider of one card: the image source (only that step is loaded), step and time
       (formatted by the server). */
    showStep: function (position, data) {
      if (!data) return noUpdate();
      const i = Math.max(0, Math.min(data.steps.length - 1, position || 0));
      return [data.src + data.steps[i], window.dashInsightText("Step: {step}", {step: data.steps[i]}),
              data.times[i]];
    },

    /* Steps chosen away from the last one go to the URL (steps=tag=12,...). */
    stepsToUrl: function (positions, data, search) {
      const pairs = [];
      (data || []).forEach((d, k) => {
        const i = positions[k];
        if (d && i !== null && i !== undefined && i !== d.last) pairs.push([d.tag, d.steps[i]]);
      });
      return changed(setParams(search, {steps: pairs.length ? encodeMap(pairs) : null}),
                     search);
    },

    /* A click on an image opens it at its actual size in a modal; a click on the modal closes
       it. */
    actualSize: function (frames, closeClicks, sources, data) {
      const no = noUpdate();
      const ctx = clientside().callback_context;
      if (!ctx.triggered.length) return [no, no, no];
      const trigger = ctx.triggered[0];
      if (trigger.prop_id === "img-modal.n_clicks") return [HIDDEN, no, no];
      if (!trigger.value) return [no, no, no];
      const id = JSON.parse(trigger.prop_id.split(".")[0]);
      const k = data.findIndex(d => d && d.tag === id.tag);
      if (k < 0) return [no, no, no];
      const src = sources[k];
      const step = new URLSearchParams(src.split("?")[1]).get("step");
      const i = data[k].steps.indexOf(Number(step));
      const size = i >= 0 ? data[k].sizes[i] : null;
      const caption = id.tag + " · step " + step +
        (size && size[0] ? " · " + size[0] + "×" + size[1] + " px" : "");
      return [{}, src, caption];
    },
  };

  /* The tensor tables (tensors/page.py stored_view): each card comes with its table (or
     message) as JSON text in its empty slot's data-view (tensor-view), a new one (another
     step or slice) in the store beside it; a slot gets it when it comes
     within a few rows of the screen, one slot per task (assets/graph-slots.js, as the charts
     of assets/lazy-graphs.js), and again when its card's store changes while it is shown. A
     page of six grids mounted at once was the longest freeze of the tensors page. A grid
     mounted after the value format or decimals changed gets them (tensorsPage.format).
     A small slice's table ({plain: ...}) is drawn into the slot by
     assets/tensor-tables.js, not by Dash: the slot then holds that element beside the
     components Dash put there (none: a grid or message it held is taken out with set_props). */
  const VIEW_SLOT = "tensor-view";
  const STATS_ASKED = "tensor-stats-asked";  // tensors/page.py STATS_ASKED
  const views = {};  // tag -> the JSON text of its card's view, when its store has one
  const shownIn = new WeakMap();  // slot element -> the JSON text it shows
  const plainIn = new WeakMap();  // slot element -> the plain table drawn in it
  let chosenFormat = null;  // {fmt, dec} once changed on the page

  const viewSlot = tag => document.getElementById(JSON.stringify({tag, type: VIEW_SLOT}));

  function showPlain(slot, tag, plain) {
    const box = window.dashInsightTensorTable.draw(plain, chosenFormat);
    const old = plainIn.get(slot);
    if (Array.from(slot.children).some(child => child !== old)) {
      window.dash_clientside.set_props({tag, type: VIEW_SLOT}, {children: null});
    }
    if (old && old.parentNode === slot) old.replaceWith(box); else slot.appendChild(box);
    plainIn.set(slot, box);
  }

  /* A grid's library (AG Grid) is loaded when the page's first grid is mounted: the page's
     document has it only if one of its URLs named it (assets/page-bundles.js); meanwhile the
     slot may have been given another view, or left the page. */
  function showComponent(slot, tag, view) {
    const old = plainIn.get(slot);
    if (old) old.remove();
    plainIn.delete(slot);
    const show = () => window.dash_clientside.set_props(
      {tag, type: VIEW_SLOT}, {children: viewComponent(view)});
    const grid = view && view.props && view.props.children;
    const bundles = window.dashInsightBundles;
    if (grid && grid.namespace === "dash_ag_grid" && !window.dash_ag_grid && bundles) {
      const text = shownIn.get(slot);
      bundles.load("grid").then(() => {
        if (slot.isConnected && shownIn.get(slot) === text) show();
      });
      return;
    }
    show();
  }

  function viewComponent(view) {
    const grid = view && view.props && view.props.children;
    if (chosenFormat && grid && grid.namespace === "dash_ag_grid") {
      const options = grid.props.dashGridOptions || {};
      grid.props.dashGridOptions = Object.assign({}, options, {
        context: Object.assign({}, options.context, chosenFormat)});
    }
    return view;
  }

  /* The view of ``tag`` into its slot, unless the slot shows it already or left the screen
     while it waited its turn (false: nothing mounted). A slot React kept while the cards
     were rebuilt around it (the same tag where it was) lost its table: mounted again. */
  function mountView(tag) {
    const slot = viewSlot(tag);
    const text = views[tag] || (slot && slot.dataset.view);
    const shown = slot && slot.childElementCount > 0 && shownIn.get(slot) === text;
    if (!text || !slot || shown || !viewSlots().inView.has(tag)) return false;
    if (!views[tag] && chosenFormat) askStatistics(slot);
    shownIn.set(slot, text);
    const view = JSON.parse(text);
    if (view && view.plain) showPlain(slot, tag, view.plain); else showComponent(slot, tag, view);
    return true;
  }

  /* A card built before the format was chosen (below the first screen, filled when it came
     on screen) shows its statistics in the format of its URL: all are asked for again, once
     for the cards that came in one task. */
  const asked = new WeakSet();
  let asking = false;
  function askStatistics(slot) {
    if (asked.has(slot)) return;
    asked.add(slot);
    if (asking) return;
    asking = true;
    setTimeout(() => {
      asking = false;
      window.dash_clientside.set_props(STATS_ASKED, {data: Date.now()});
    }, 0);
  }

  let slotWatch = null;
  let mountPaced = null;
  function viewSlots() {
    if (!slotWatch) {
      const slots = window.dashInsightSlots;
      mountPaced = slots.paced(mountView, tag => slots.pageTop(viewSlot(tag)));
      slotWatch = slots.watch({selector: ".di-vt-slot", keyOf: slots.idField("tag"),
                               enter: tag => mountPaced(tag)});
    }
    return slotWatch;
  }

  const tensorsPage = {
    /* The cards' views (tensors/page.py stored_view; new cards, or a new step or slice of a
       card): those on screen are mounted one after the other from now on, the others when
       they come on screen. */
    views: function (texts, ids) {
      const watch = viewSlots();
      const tags = new Set();
      (ids || []).forEach((id, i) => {
        if (texts[i]) views[id.tag] = texts[i]; else delete views[id.tag];
        tags.add(id.tag);
      });
      Object.keys(views).forEach(tag => { if (!tags.has(tag)) delete views[tag]; });
      watch.rescan();
      (ids || []).forEach(id => { if (watch.inView.has(id.tag)) mountPaced(id.tag); });
      return (clientside().callback_context.outputs_list || []).map(() => noUpdate());
    },

    /* Table controls in the table view, view controls in the histogram view, the vertical
       axis in the Top view only. */
    controlsStyle: function (view, hview) {
      const histogram = view === "histogram";
      return [histogram ? HIDDEN : {}, histogram ? {} : HIDDEN, hview === "front" ? HIDDEN : {}];
    },

    /* Value format and decimals: every grid and plain table formats again in the browser
       (the formatters of dashAgGridFunctions-tensors.js read them from the grid's context).
       The second output (the slots' className, left as it is) makes Dash call this on a
       page whose tables are all plain: it calls no callback whose outputs are none. */
    format: function (fmt, dec, options, ids) {
      chosenFormat = {fmt: fmt || "value", dec: dec === null ? DECIMALS : dec};
      document.querySelectorAll(".di-vt-plain").forEach(
        box => window.dashInsightTensorTable.reformat(box, chosenFormat));
      const grids = options.map((opts, k) => {
        const context = Object.assign({}, (opts || {}).context, chosenFormat);
        const library = window.dash_ag_grid;
        const api = library && library.getApi ? library.getApi(ids[k]) : null;
        if (api) {
          api.setGridOption("context", context);
          api.refreshCells({force: true});
        }
        return Object.assign({}, opts, {context: context});
      });
      const slots = (clientside().callback_context.outputs_list || [])[1] || [];
      return [grids, slots.map(() => noUpdate())];
    },
  };

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    perTagPage, histogramsPage, imagesPage, tensorsPage,
  });
})();
