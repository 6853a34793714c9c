/* dash-insight loss landscape pages: view tools of a landscape chart, in the browser.
   Each takes the chart's dcc.Graph id; its frame is "<id>-box". */
(function () {
  const plotOf = id => document.querySelector("#" + CSS.escape(id) + " .js-plotly-plot");
  const PNG_SCALE = 2;
  /* A drawn chart as the figure Plotly.toImage takes: what it copies from a chart itself
     (its data, its layout with the camera as turned, its config), at the chart's size, its
     WebGL drawn at `ratio` pixels per pixel. */
  const exportedFigure = (gd, ratio) => ({
    data: structuredClone(gd.data),
    layout: Object.assign(structuredClone(gd.layout),
                          {width: gd._fullLayout.width, height: gd._fullLayout.height}),
    config: Object.assign({}, gd._context, {plotGlPixelRatio: ratio}),
  });
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    landscapePages: {
      /* Back to the starting camera (3D) or to the whole grid (contours). */
      resetView(clicks, graphId) {
        const gd = plotOf(graphId);
        if (clicks && gd && window.Plotly) {
          if (gd._fullLayout && gd._fullLayout.scene) {
            window.Plotly.relayout(gd, {"scene.camera": {eye: {x: 1.5, y: -1.5, z: 1.0},
                                        up: {x: 0, y: 0, z: 1}, center: {x: 0, y: 0, z: 0}}});
          } else {
            window.Plotly.relayout(gd, {"xaxis.autorange": true, "yaxis.autorange": true});
          }
        }
        return window.dash_clientside.no_update;
      },
      toggleFullScreen(clicks, graphId) {
        const box = document.getElementById(graphId + "-box");
        if (clicks && box) {
          if (document.fullscreenElement) { document.exitFullscreen(); }
          else if (box.requestFullscreen) { box.requestFullscreen(); }
        }
        return window.dash_clientside.no_update;
      },
      /* The view as a PNG twice the chart's size, its 3D scene drawn at that size too (the
         page draws WebGL at the screen's pixel ratio: assets/plotly-setup.js). */
      downloadPng(clicks, graphId) {
        const gd = plotOf(graphId);
        if (clicks && gd && window.Plotly) {
          window.Plotly.downloadImage(exportedFigure(gd, PNG_SCALE),
                                      {format: "png", filename: "loss-landscape", scale: PNG_SCALE});
        }
        return window.dash_clientside.no_update;
      },
    },
  });
})();
