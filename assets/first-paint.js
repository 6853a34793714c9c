/* The page's first screen painted by the server (dash_insight/web/first_paint.py) lies over the
   page in #di-first-paint until Dash's page shows as much: its layout is in the page and every
   chart card on screen holds its drawn Plotly chart (a page without chart cards: its layout
   is in). Removed then, in the frame after, or data-longest-ms after Dash's layout came in
   whatever happens (before, there is nothing else to show; a page whose Dash never starts
   loses it after LAST_RESORT_MS).
   Chart cards: the scalars page's (.di-chart-card: its chart, the card not yet filled
   included) and the per-tag pages' (.di-vp-card: the chart of each of its lazy slots,
   web/components/lazy_graph.py; a card without one, an error message, has none to wait for). */
(function () {
  const overlay = document.getElementById("di-first-paint");
  if (!overlay) return;
  const started = performance.now();
  const longest = Number(overlay.dataset.longestMs) || 10000;
  const LAST_RESORT_MS = 60000;
  let laidOut = null;  // when Dash's layout came into the page

  function drawn(root) {
    const plot = root.querySelector(".js-plotly-plot");
    return Boolean(plot && plot._fullLayout);
  }

  function cardShown(card) {
    if (card.classList.contains("di-chart-card")) return drawn(card);
    return Array.from(card.querySelectorAll(".di-lazy-slot")).every(drawn);
  }

  function pageShown() {
    const page = document.getElementById("page");
    if (!page || !page.firstElementChild) return false;
    return Array.from(page.querySelectorAll(".di-chart-card, .di-vp-card")).every(card => {
      const r = card.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= window.innerHeight) return true;  // off screen
      return cardShown(card);
    });
  }

  function check() {
    if (!overlay.isConnected) return;
    const now = performance.now();
    const page = document.getElementById("page");
    if (laidOut === null && page && page.firstElementChild) laidOut = now;
    if (pageShown() || (laidOut !== null && now - laidOut > longest) ||
        now - started > LAST_RESORT_MS) {
      overlay.remove();
      return;
    }
    window.requestAnimationFrame(check);
  }
  window.requestAnimationFrame(check);
})();
