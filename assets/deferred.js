/* Components mounted after the charts on the first screen are drawn
   (dash_insight/web/components/deferred.py): a holder <div class="di-deferred"
   data-component="{type, namespace, props}"> gets its component as children through
   dash_clientside.set_props once every chart card on screen holds a drawn Plotly chart, or
   after data-wait-ms, or at once on a page without chart cards. The charts come first: a picker
   grid mounted with the layout delayed the first chart by a few hundred ms (issue 17 item 8). */
(function () {
  const mounted = new WeakSet();
  const firstSeen = new WeakMap();
  let scheduled = false;

  function chartsOnScreenDrawn() {
    const cards = Array.from(document.querySelectorAll(".di-chart-card, .di-vp-card"));
    return cards.every(card => {
      const r = card.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= window.innerHeight) return true;  // off screen
      const plot = card.querySelector(".js-plotly-plot");
      return Boolean(plot && plot._fullLayout);
    });
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
    const ready = chartsOnScreenDrawn();
    let waiting = false;
    for (const holder of holders) {
      if (!firstSeen.has(holder)) firstSeen.set(holder, now);
      const waitMs = Number(holder.dataset.waitMs) || 2500;
      if (!ready && now - firstSeen.get(holder) < waitMs) {
        waiting = true;
        continue;
      }
      mounted.add(holder);
      let spec = null;
      try {
        spec = JSON.parse(holder.dataset.component);
      } catch (error) {
        console.error("dash-insight: a deferred component could not be read", error);
        continue;
      }
      // The holder kept the space of its component (min-height) until now.
      window.dash_clientside.set_props(holder.id, {children: spec, style: {}});
    }
    if (waiting) schedule();
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
