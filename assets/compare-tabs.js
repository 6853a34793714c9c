/* The comparison pages' tab strip (dash_insight/web/components/compare_tabs.py), called with
   dash.ClientsideFunction("compareTabs", name). */
(function () {
  /* compare_tabs.SHARED: the URL parameters a tab link carries to the next tab. */
  const SHARED = ["jobs", "job_filter", "hidden", "archived"];
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    compareTabs: {
      /* Each tab link (``hrefs``: theirs now) with the SHARED parameters of the URL's
         ``search``. */
      keepShared(search, ...hrefs) {
        const now = new URLSearchParams(search || ""), kept = new URLSearchParams();
        SHARED.forEach(name => {
          if (now.get(name)) kept.set(name, now.get(name));
        });
        const query = kept.toString() ? "?" + kept.toString() : "";
        return hrefs.map(href => String(href || "").split("?")[0] + query);
      },
    },
  });
})();
