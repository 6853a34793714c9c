/* The page's first screen painted by the server (dash_insight/web/first_paint.py) lies over the
   page in #di-first-paint until Dash's page shows as much: its layout is in the page and every
   chart card on screen holds its drawn Plotly chart (a page without chart cards: its layout
   is in). Removed then, in the frame after, or after data-longest-ms whatever happens. */
(function () {
  const overlay = document.getElementById("di-first-paint");
  if (!overlay) return;
  const started = performance.now();
  const longest = Number(overlay.dataset.longestMs) || 10000;

  function pageShown() {
    const page = document.getElementById("page");
    if (!page || !page.firstElementChild) return false;
    return Array.from(page.querySelectorAll(".di-chart-card")).every(card => {
      const r = card.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= window.innerHeight) return true;  // off screen
      const plot = card.querySelector(".js-plotly-plot");
      return Boolean(plot && plot._fullLayout);
    });
  }

  function check() {
    if (!overlay.isConnected) return;
    if (pageShown() || performance.now() - started > longest) {
      overlay.remove();
      return;
    }
    window.requestAnimationFrame(check);
  }
  window.requestAnimationFrame(check);
})();
