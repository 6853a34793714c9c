/* Charts drawn when they come on screen (dash_insight/web/components/lazy_graph.py): each
   card sends its figure in a store beside an empty slot; a slot gets its dcc.Graph, created
   once with its figure, when it comes within a few rows of the screen, and again when its
   card's figure changes while it is drawn. Every slot is observed whenever it enters the
   document: with the page's first layout or with a callback's answer. */
(function () {
  const SLOT = "lazy-graph-slot";
  const figures = {};  // key -> {figure, graph} of the card in the page now
  const drawnIn = new WeakMap();  // slot element -> the {figure, graph} it draws
  const inView = new Set();  // keys whose slot is on (or next to) the screen
  const observed = new Map();  // slot element -> key

  const slotOf = key => document.getElementById(JSON.stringify({key, type: SLOT}));

  function keyOf(slot) {
    try {
      return JSON.parse(slot.id).key;
    } catch (error) {
      return undefined;
    }
  }

  function component(data) {
    return {type: "Graph", namespace: "dash_core_components",
            props: Object.assign({figure: data.figure, responsive: true}, data.graph)};
  }

  /* The graph of ``key`` into its slot, unless the slot draws this figure already. */
  function mount(key) {
    const data = figures[key];
    const slot = slotOf(key);
    if (!data || !slot || drawnIn.get(slot) === data) return;
    drawnIn.set(slot, data);
    window.dash_clientside.set_props({type: SLOT, key}, {children: component(data)});
  }

  const observer = "IntersectionObserver" in window
    ? new IntersectionObserver(entries => {
      for (const entry of entries) {
        const key = observed.get(entry.target);
        if (key === undefined) continue;  // a slot no longer in the document
        if (entry.isIntersecting) {
          inView.add(key);
          mount(key);
        } else {
          inView.delete(key);
        }
      }
    }, {rootMargin: "150px 0px"})
    : null;

  /* Forget the slots that left the document, observe the new ones. */
  function watchSlots() {
    const gone = [];
    for (const [element, key] of observed) {
      if (!element.isConnected) {
        if (observer) observer.unobserve(element);
        observed.delete(element);
        gone.push(key);
      }
    }
    const kept = new Set(observed.values());
    gone.filter(key => !kept.has(key)).forEach(key => inView.delete(key));
    document.querySelectorAll(".di-lazy-slot").forEach(slot => {
      if (observed.has(slot)) return;
      const key = keyOf(slot);
      if (key === undefined) return;
      observed.set(slot, key);
      if (observer) observer.observe(slot);  // reports at once whether it is on screen
      else { inView.add(key); mount(key); }  // no observer: draw every chart
    });
  }

  /* Slots come and go with Dash's renders: look again after any batch of changes that added
     or removed HTML elements (Plotly's own SVG drawing is skipped). */
  const isHtml = node => node.nodeType === 1 && !(node instanceof SVGElement);
  new MutationObserver(mutations => {
    if (mutations.some(m => Array.prototype.some.call(m.addedNodes, isHtml) ||
                            Array.prototype.some.call(m.removedNodes, isHtml))) {
      watchSlots();
    }
  }).observe(document.documentElement, {childList: true, subtree: true});

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lazyGraphs: {
      /* The cards' figures (new cards, or new figures of the cards shown): those on screen
         are drawn by this answer, the others when they come on screen. */
      figures(datas, ids) {
        const keys = new Set();
        (ids || []).forEach((id, i) => { figures[id.key] = datas[i]; keys.add(id.key); });
        Object.keys(figures).forEach(key => { if (!keys.has(key)) delete figures[key]; });
        watchSlots();
        const noUpdate = window.dash_clientside.no_update;
        const outputs = window.dash_clientside.callback_context.outputs_list || [];
        return outputs.map(output => {
          const key = output.id.key;
          const data = figures[key];
          const slot = slotOf(key);
          if (!inView.has(key) || !data || !slot || drawnIn.get(slot) === data) return noUpdate;
          drawnIn.set(slot, data);
          return component(data);
        });
      },
    },
  });
})();
