/* Plotly's first chart of a page costs about three times the next one (its code compiled and
   run for the first time, its styles and measuring elements set up): that first draw was among
   the longest freezes of the chart pages (issue 17 item 8). One tiny chart, drawn off screen
   and removed at once in the page's first idle moment (while the page waits for the server's
   layout and data), pays most of that cost in a task of its own; the page's first real chart
   is then drawn at about the cost of the others. It uses what the pages' charts use: lines, a
   filled band, an axis title, the mode bar. Loaded after plotly-dash-insight.min.js (assets are
   injected in alphabetical order). */
(function () {
  function warm() {
    const Plotly = window.Plotly;
    if (!Plotly || !document.body) return;
    const div = document.createElement("div");
    div.setAttribute("aria-hidden", "true");
    div.style.cssText = "position:absolute;left:-10000px;top:0;width:240px;height:140px;" +
      "visibility:hidden;pointer-events:none";
    document.body.appendChild(div);
    const done = () => {
      Plotly.purge(div);
      div.remove();
    };
    try {
      Plotly.newPlot(div, [
        {type: "scatter", mode: "lines", x: [0, 1, 2], y: [1, 0.5, 0.7], line: {width: 1}},
        {type: "scatter", mode: "lines", x: [0, 1, 2], y: [0.2, 0.4, 0.3], fill: "tozeroy"},
      ], {margin: {l: 30, r: 10, t: 10, b: 30}, font: {size: 11}, showlegend: false,
          xaxis: {title: {text: "step", font: {size: 10}}}},
      {displayModeBar: "hover", displaylogo: false}).then(done, done);
    } catch (error) {
      done();
    }
  }

  if (window.requestIdleCallback) window.requestIdleCallback(warm, {timeout: 1000});
  else setTimeout(warm, 0);
})();
