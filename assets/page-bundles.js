/* A page that needs a script bundle this document did not load is opened as a new document
   (dash_insight/web/page_bundles.py: each page's answer loads only the bundles it draws with),
   and so is a page whose callbacks the document lacks (dash_insight/web/page_callbacks.py:
   a document has those of its own plugin's pages only).
   <html data-page-bundles> holds {all, loaded, pages: {pathname: [bundles]}, drawable}; a
   pathname not in pages needs every bundle; drawable, when there, lists the pathnames of the
   pages whose callbacks the document has.
   dcc.Link and the Location component change the URL with history.pushState, then tell Dash
   with a "_dashprivate_pushstate" event; the browser's back and forward buttons with
   "popstate". This script runs before Dash's Location listens, so it
   can stop the event before Dash draws a page whose components are not there.

   A document without plotly.js (the tensors page's table view) that draws a Plotly chart later
   (its histogram view) has dcc's graph load plotly.js then, from window._dashPlotlyJSURL: Dash's
   renderer sets it to the plotly package's full build; here it is the cartesian build the
   pages link (spec.plotly), the build every chart page draws with, and the renderer's value is
   ignored.

   window.dashInsightBundles.load(name): a Promise of bundle ``name``'s scripts (spec.later:
   AG Grid, on the tensors page) run in this document, in their order, once; at once when the
   document has the bundle. A script that fails to load is logged and the Promise still
   resolves (the component then shows Dash's own error). */
(function () {
  const root = document.documentElement;
  let spec;
  try {
    spec = JSON.parse(root.getAttribute("data-page-bundles") || "null");
  } catch {
    spec = null;
  }
  if (!spec) return;
  const loaded = new Set(spec.loaded);
  let leaving = false;

  if (spec.plotly && !loaded.has("plotly")) {
    Object.defineProperty(window, "_dashPlotlyJSURL", {
      configurable: true,
      get: () => spec.plotly,
      set: () => {},  // Dash's renderer writes the full build's URL
    });
  }

  const loading = {};
  function load(name) {
    if (!loading[name]) {
      const sources = loaded.has(name) ? [] : (spec.later || {})[name] || [];
      loading[name] = sources.reduce((previous, source) => previous.then(() => new Promise(
        resolve => {
          const script = document.createElement("script");
          script.src = source;
          script.onload = resolve;
          script.onerror = () => {
            console.error("dash-insight: a script could not be loaded", source);
            resolve();
          };
          document.head.appendChild(script);
        })), Promise.resolve());
    }
    return loading[name];
  }
  window.dashInsightBundles = {load};

  function needsNewDocument() {
    const path = window.location.pathname.replace(/\/+$/, "") || "/";
    if (spec.drawable && !spec.drawable.includes(path)) return true;
    const wanted = spec.pages[path] || spec.all;
    return wanted.some(name => !loaded.has(name));
  }

  function check(event) {
    if (!leaving && needsNewDocument()) {
      leaving = true;
      // Not reload(): a new navigation sends this page as its Referer, which tells the server
      // the home URL was asked for from the app (no landing redirect, jobs/landing_page.py).
      window.location.replace(window.location.href.split("#")[0]);
    }
    if (leaving && event) event.stopImmediatePropagation();
  }

  const pushState = window.history.pushState;
  window.history.pushState = function () {
    const answer = pushState.apply(this, arguments);
    check(null);
    return answer;
  };
  window.addEventListener("_dashprivate_pushstate", check);
  window.addEventListener("popstate", check);
})();
