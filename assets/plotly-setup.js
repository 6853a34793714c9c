/* Two things that make Plotly's charts cheaper to draw (issue 17 item 8: no main-thread freeze
   over 200 ms). Loaded after plotly-dash-insight.min.js (assets are injected in alphabetical
   order).

   Warm-up: Plotly's first chart of a page costs about three times the next one (its code
   compiled and run for the first time, its styles and measuring elements set up), and that
   first draw was among the longest freezes of the chart pages. One tiny chart, drawn off screen
   and removed at once in the page's first idle moments (while the page waits for the server's
   layout and data), pays most of that cost in tasks of their own; the page's first real chart
   is then drawn at about the cost of the others. It uses what the pages' charts use: lines, a
   filled band, an axis title, the mode bar.

   Resize: dcc.Graph asks Plotly.Plots.resize after every first draw of a responsive graph,
   which relays the chart out ({autosize: true}: every trace's defaults computed again, 60 to
   120 ms for a parameter distribution chart) even when its box has the size it was just drawn
   at. Such a call now answers at once; a box whose size differs from the drawn chart's by more
   than Plotly's own 1 px tolerance (plotAutoSize) is resized as before.

   A page whose first screen draws no Plotly chart may load no plotly.js (the tensors page's
   table view; dash_insight/web/page_bundles.py): dcc's graph loads it when a chart comes
   (assets/page-bundles.js), and the resize above is set up as soon as plotly.js defines
   window.Plotly. */
(function () {
  /* Plotly.Plots.resize answers at once for a chart that has its box's size (see above). */
  function patchResize(Plotly) {
    const resize = Plotly.Plots.resize;
    Plotly.Plots.resize = function (gd) {
      const div = typeof gd === "string" ? document.getElementById(gd) : gd;
      const full = div && div._fullLayout;
      const layout = div && div.layout;
      if (full && layout && !(layout.width && layout.height) && full.autosize !== false &&
          !div._redrawTimer) {
        const style = window.getComputedStyle(div);
        const width = parseFloat(style.width), height = parseFloat(style.height);
        if (style.display !== "none" && Math.abs(full.width - width) <= 1 &&
            Math.abs(full.height - height) <= 1) {
          return Promise.resolve(div);  // the chart already has its box's size
        }
      }
      return resize.apply(this, arguments);
    };
  }

  /* The warm-up in three steps of growing figures, each in an idle moment of its own: an
     empty chart (axes, styles), a line, then a band with an axis title and the mode bar; each
     step costs about a third of the first chart drawn in one go. */
  const STEPS = [
    [[], {}, {displayModeBar: false}],
    [[{type: "scatter", mode: "lines", x: [0, 1, 2], y: [1, 0.5, 0.7], line: {width: 1}}],
     {showlegend: false}, {displayModeBar: false}],
    [[{type: "scatter", mode: "lines", x: [0, 1, 2], y: [1, 0.5, 0.7], line: {width: 1}},
      {type: "scatter", mode: "lines", x: [0, 1, 2], y: [0.2, 0.4, 0.3], fill: "tozeroy"}],
     {font: {size: 11}, showlegend: false, xaxis: {title: {text: "step", font: {size: 10}}}},
     {displayModeBar: "hover", displaylogo: false}],
  ];

  /* A step is skipped once the page itself draws a chart (the warm-up's own chart is removed
     after each step): its first chart has then paid the cost, and a warm-up chart drawn after
     it only delayed the page's last change (the profiler dashboard, whose charts come with its
     layout: 0.7 s later at load 10 on 2 cores). */
  function warm(step) {
    if (!document.body || step >= STEPS.length) return;
    if (document.querySelector(".js-plotly-plot")) return;
    const [data, layout, config] = STEPS[step];
    const div = document.createElement("div");
    div.setAttribute("aria-hidden", "true");
    div.style.cssText = "position:absolute;left:-10000px;top:0;width:240px;height:140px;" +
      "visibility:hidden;pointer-events:none";
    document.body.appendChild(div);
    const done = () => {
      Plotly.purge(div);
      div.remove();
      idle(() => warm(step + 1));
    };
    try {
      Plotly.newPlot(div, data, Object.assign({margin: {l: 30, r: 10, t: 10, b: 30}}, layout),
                     config).then(done, done);
    } catch {
      Plotly.purge(div);
      div.remove();
    }
  }

  const idle = callback => (window.requestIdleCallback
    ? window.requestIdleCallback(callback, {timeout: 1000}) : setTimeout(callback, 0));

  /* Pages that draw no Plotly chart on their first screen (the summary list, images, the two
     graphs, lineage: its chart is SVG; tensors but in its histogram view) are not warmed up:
     there it is only work in the way of the page's own (the graph page's longest task grew;
     the tensors page's tables waited for it). */
  function drawsCharts() {
    let base = "/";
    try {
      base = JSON.parse(document.getElementById("_dash-config").textContent)
        .url_base_pathname || "/";
    } catch { /* the default base */ }
    const path = window.location.pathname;
    const page = (path.startsWith(base) ? path.slice(base.length) : path).replace(/^\/+|\/+$/g, "");
    if (page === "tensors") {
      return new URLSearchParams(window.location.search).get("view") === "histogram";
    }
    return !["", "images", "compare/images", "graph", "data-graph", "lineage"].includes(page);
  }

  /* WebGL charts (the loss landscape's 3D surface, the profiler's timeline) are drawn at the
     screen's pixel ratio. Plotly's default is 2 on every screen: on a 1x screen four times the
     pixels shaded, a third of the landscape page's CPU where the GPU is the CPU (no GPU,
     SwiftShader), for a supersampling the context's own antialiasing already gives. A figure's
     own config (an image export) still sets its own. */
  function setUp(Plotly) {
    patchResize(Plotly);
    Plotly.setPlotConfig({plotGlPixelRatio: Math.max(1, window.devicePixelRatio || 1)});
  }

  const Plotly = window.Plotly;
  if (Plotly && Plotly.Plots) {
    setUp(Plotly);
    if (drawsCharts()) idle(() => warm(0));
  } else if (!("Plotly" in window)) {
    // plotly.js, loaded later, ends with `window.Plotly = ...` (its UMD wrapper).
    Object.defineProperty(window, "Plotly", {
      configurable: true,
      enumerable: true,
      get: () => undefined,
      set(value) {
        Object.defineProperty(window, "Plotly", {
          value, configurable: true, enumerable: true, writable: true});
        if (value && value.Plots) setUp(value);
      },
    });
  }
})();
