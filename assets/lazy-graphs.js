/* Charts drawn when they come on screen (dash_insight/web/components/lazy_graph.py): each
   card sends its figure in a store beside an empty slot; a slot gets its dcc.Graph, created
   once with its figure, when it comes within a few rows of the screen, and again when its
   card's figure changes while it is drawn. Slots are watched and charts drawn one per task by
   assets/graph-slots.js, so a screen of charts never freezes the page for long. */
(function () {
  const SLOT = "lazy-graph-slot";
  const figures = {};  // key -> {figure, graph} of the card in the page now
  const drawnIn = new WeakMap();  // slot element -> the {figure, graph} it draws

  const slotOf = key => document.getElementById(JSON.stringify({key, type: SLOT}));

  /* The figure comes as JSON text (lazy_graph.py figure_json), parsed when drawn. */
  function component(data) {
    const figure = typeof data.figure === "string" ? JSON.parse(data.figure) : data.figure;
    return {type: "Graph", namespace: "dash_core_components",
            props: Object.assign({figure, responsive: true}, data.graph)};
  }

  /* The graph of ``key`` into its slot, unless the slot draws this figure already or left
     the screen while it waited its turn (false: nothing drawn). */
  function mount(key) {
    const data = figures[key];
    const slot = slotOf(key);
    if (!data || !slot || drawnIn.get(slot) === data || !slots.inView.has(key)) return false;
    drawnIn.set(slot, data);
    window.dash_clientside.set_props({type: SLOT, key}, {children: component(data)});
    return true;
  }

  /* Whether the slot of ``key`` holds a drawn chart (or nothing is left to wait for). */
  function isDrawn(key) {
    const slot = slotOf(key);
    const plot = slot && slot.querySelector(".js-plotly-plot");
    return !slot || !drawnIn.has(slot) || Boolean(plot && plot._fullLayout);
  }

  const draw = window.dashInsightSlots.paced(
    mount, key => window.dashInsightSlots.pageTop(slotOf(key)), isDrawn);
  const slots = window.dashInsightSlots.watch({
    selector: ".di-lazy-slot", keyOf: window.dashInsightSlots.idField("key"), enter: draw});

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lazyGraphs: {
      /* The cards' figures (new cards, or new figures of the cards shown): those on screen
         are drawn one after the other from now on, the others when they come on screen. */
      figures(datas, ids) {
        const keys = new Set();
        (ids || []).forEach((id, i) => { figures[id.key] = datas[i]; keys.add(id.key); });
        Object.keys(figures).forEach(key => { if (!keys.has(key)) delete figures[key]; });
        slots.rescan();
        (ids || []).forEach(id => { if (slots.inView.has(id.key)) draw(id.key); });
        const noUpdate = window.dash_clientside.no_update;
        return (window.dash_clientside.callback_context.outputs_list || []).map(() => noUpdate);
      },
    },
  });
})();
