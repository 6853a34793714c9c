/* Components mounted after the charts on the first screen are drawn
   (dash_insight/web/components/deferred.py): a holder <div class="di-deferred"
   data-component="{type, namespace, props}"> gets its component as children through
   dash_clientside.set_props once every chart card on screen holds a drawn Plotly chart (a
   tensor table card: its table), or
   after data-wait-ms, or at once on a page without chart cards; a holder that is not a chart
   card also waits while a chart is being drawn (graph-slots.js busy, at most twice
   data-wait-ms), and charts wait two frames after a mount (hold). The charts come first: the
   pickers' former AG Grid mounted with the layout delayed the first chart by a few hundred ms
   (issue 17 item 8).

   A holder with data-on-screen="now" (a chart card whose children were held back:
   deferred_children) is mounted at once when it is on or next to the screen, else as the
   others; one with data-on-screen="only" (a tensor table card below the first screen) when it
   comes on the screen, and not before (an IntersectionObserver says when: no frame is spent
   looking while it waits). Holders are mounted in page order (the highest first), one per
   animation frame, or up to data-batch of them (cards): React mounting a screenful of cards in
   one task froze the page.

   A callback may change a holder's data-component until its component is mounted, so it is
   read at the mount; the holder drops it then (its callbacks then know that the component
   itself is there to update, and the page does not keep a large spec twice). */
(function () {
  const MARGIN_PX = 150;  // "next to the screen", as assets/graph-slots.js
  /* A holder mounted on screen only is mounted once on the screen: the second row of tensor
     cards, 130 px below a 1600x1000 window, is not the first screen's. */
  const ONLY_MARGIN_PX = 0;
  const mounted = new WeakSet();
  const firstSeen = new WeakMap();
  const watched = new WeakSet();  // holders mounted on screen only, observed
  let scheduled = false;
  let nearObserver = null;

  const onScreenOnly = holder => holder.dataset.onScreen === "only";

  /* A holder mounted on screen only is looked at again when it comes near the screen. */
  function watchNear(holder) {
    if (watched.has(holder) || !window.IntersectionObserver) return;
    watched.add(holder);
    if (!nearObserver) {
      nearObserver = new IntersectionObserver(entries => {
        if (entries.some(entry => entry.isIntersecting)) schedule();
      }, {rootMargin: ONLY_MARGIN_PX + "px 0px"});
    }
    nearObserver.observe(holder);
  }

  function chartsOnScreenDrawn() {
    const cards = Array.from(document.querySelectorAll(".di-chart-card, .di-vp-card"));
    return cards.every(card => {
      const r = card.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= window.innerHeight) return true;  // off screen
      // A tensor table card draws no chart: drawn once its table (or message) is in its slot
      // (assets/per-tag-pages.js tensorsPage.views).
      const table = card.querySelector(".di-vt-slot");
      if (table) return table.childElementCount > 0 || !table.style.minHeight;
      const plot = card.querySelector(".js-plotly-plot");
      return Boolean(plot && plot._fullLayout);
    });
  }

  function nearScreen(holder, margin = MARGIN_PX) {
    const r = holder.getBoundingClientRect();
    return r.bottom > -margin && r.top < window.innerHeight + margin &&
      Boolean(r.width || r.height);
  }

  function mount(holder) {
    mounted.add(holder);
    if (nearObserver) nearObserver.unobserve(holder);
    let spec = null, style = {};
    try {
      spec = JSON.parse(holder.dataset.component);
      if (holder.dataset.style) style = JSON.parse(holder.dataset.style);
    } catch (error) {
      console.error("dash-insight: a deferred component could not be read", error);
      return;
    }
    // The holder kept the space of its component (min-height) until now. The id of a
    // pattern-matching holder (a chart card) is its JSON.
    let id = holder.id;
    if (id.startsWith("{")) {
      try { id = JSON.parse(id); } catch { /* a plain id after all */ }
    }
    // The holder drops its spec (a picker's rows are not kept twice; pickers.toHolder then
    // leaves it alone).
    window.dash_clientside.set_props(id, {children: spec, style, "data-component": null});
  }

  function check() {
    scheduled = false;
    const holders = Array.from(document.querySelectorAll(".di-deferred[data-component]"))
      .filter(holder => !mounted.has(holder));
    if (!holders.length || !window.dash_clientside || !window.dash_clientside.set_props) {
      if (holders.length) schedule();
      return;
    }
    const now = performance.now();
    let ready = null;  // looked at once per frame, when needed
    const slots = window.dashInsightSlots;
    const due = holders.filter(holder => {
      if (onScreenOnly(holder)) {
        watchNear(holder);
        return nearScreen(holder, ONLY_MARGIN_PX);
      }
      if (!firstSeen.has(holder)) firstSeen.set(holder, now);
      if (holder.dataset.onScreen === "now" && nearScreen(holder)) return true;
      const waitMs = Number(holder.dataset.waitMs) || 2500;
      const waited = now - firstSeen.get(holder);
      if (waited >= 2 * waitMs) return true;
      // Not while a chart is drawn (one long task of the two, see graph-slots.js hold).
      if (slots && slots.busy() && !holder.dataset.batch) return false;
      if (waited >= waitMs) return true;
      if (ready === null) ready = chartsOnScreenDrawn();
      return ready;
    });
    // This frame: the first due holder and those after it of its kind, up to its batch.
    if (due.length) {
      const batch = Math.max(1, Number(due[0].dataset.batch) || 1);
      const kind = due[0].dataset.batch || "";
      if (slots && !kind) slots.hold();  // a component, not a batch of cards
      due.filter(holder => (holder.dataset.batch || "") === kind).slice(0, batch)
        .forEach(mount);
    }
    if (holders.some(holder => !mounted.has(holder) && !onScreenOnly(holder))) schedule();
    if (due.some(onScreenOnly)) schedule();  // the next of a screen of them, next frame
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    window.requestAnimationFrame(check);
  }

  // Holders arrive with the page's layout or a callback's answer.
  new MutationObserver(() => {
    if (document.querySelector(".di-deferred[data-component]")) schedule();
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
