/* dash-insight scalar charts, drawn in the browser: smoothing, axes, log scale, thresholds,
   zoom history and full screen never wait for the server. The Python twins of smooth(),
   smoothBand() and thresholdMask() are smooth_ema / smooth_band / threshold_mask in
   dash_insight/plugins/scalars/query_smoothing.py (tested equal). */
(function () {
  const THRESHOLD_COLOUR = "#d14343";

  /* TensorBoard's debiased EMA (resmoothDataset); constant series and non-finite points pass. */
  function smooth(values, weight) {
    const out = values.slice();
    if (values.length < 2) return out;
    const first = values[0];
    if (values.every(v => v === first)) return out;
    const w = Math.min(Math.max(Number(weight) || 0, 0), 0.999999);
    let last = 0, count = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null || !Number.isFinite(v)) continue;
      last = last * w + (1 - w) * v;
      count += 1;
      out[i] = w ? last / (1 - Math.pow(w, count)) : last;
    }
    return out;
  }

  /* A centred moving average over ``window`` points (twin of moving_average in query_smoothing.py):
     each finite point becomes the mean of the finite values from (window - 1) / 2 points
     before it to window / 2 after it (rounded down; fewer at the ends); non-finite points
     pass. */
  function movingAverage(values, window) {
    const size = Math.floor(Number(window) || 0);
    const out = values.slice();
    if (size < 2 || values.length < 2) return out;
    const sums = [0], counts = [0];
    values.forEach((v, i) => {
      const ok = v !== null && Number.isFinite(v);
      sums.push(sums[i] + (ok ? v : 0));
      counts.push(counts[i] + (ok ? 1 : 0));
    });
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null || !Number.isFinite(v)) continue;
      const low = Math.max(i - Math.floor((size - 1) / 2), 0);
      const high = Math.min(i + Math.floor(size / 2) + 1, values.length);
      out[i] = (sums[high] - sums[low]) / Math.max(counts[high] - counts[low], 1);
    }
    return out;
  }

  /* The line drawn over a series: the page's smoother ({kind: "ema" | "ma" | "none",
     window}; EMA with the slider's weight). */
  function smoothWith(values, weight, smoother) {
    const kind = (smoother || {}).kind || "ema";
    if (kind === "none") return values.slice();
    if (kind === "ma") return movingAverage(values, smoother.window);
    return smooth(values, weight);
  }

  /* Whether the smoother changes the lines (the raw ones then fade). */
  function isSmoothed(weight, smoother) {
    const kind = (smoother || {}).kind || "ema";
    if (kind === "none") return false;
    return kind === "ma" ? (Number(smoother.window) || 0) >= 2 : weight > 0;
  }

  /* A group's band smoothed as its line is (twin of smooth_band in query_smoothing.py): each
     edge's distance from the centre is smoothed by the line's smoother and taken from (low) or
     added to (high) the smoothed centre. The smoothers are linear, so where the band has a
     value at every point of the line this is each edge smoothed on its own; where it has fewer
     (steps with a single run) the line still never leaves its band. A point without an edge
     stays without (null). Answers [low, high]. */
  function smoothBand(centre, low, high, weight, smoother) {
    const ok = v => v !== null && v !== undefined && Number.isFinite(v);
    const line = smoothWith(centre, weight, smoother);
    return [[low, 1], [high, -1]].map(([edge, sign]) => {
      const distance = smoothWith(centre.map((c, i) => (ok(c) && ok(edge[i])
        ? sign * (c - edge[i]) : null)), weight, smoother);
      return distance.map((d, i) => (ok(d) ? line[i] - sign * d : null));
    });
  }

  /* "Ignore outliers" (TensorBoard's): the 0.1 % and 99.9 % quantiles of the finite values,
     interpolated linearly as numpy's quantile (twin of outlier_range in query_smoothing.py). */
  function outlierRange(values) {
    const sorted = values.filter(v => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
    if (!sorted.length) return null;
    const at = q => {
      const position = q * (sorted.length - 1);
      const low = Math.floor(position);
      const high = Math.min(low + 1, sorted.length - 1);
      return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
    };
    return [at(0.001), at(0.999)];
  }

  /* Points matching every (and) / any (or) condition [op, value]; non-finite never match. */
  function thresholdMask(values, threshold) {
    const conditions = (threshold && threshold.conditions) || [];
    if (!conditions.length) return values.map(() => false);
    const test = (v, [op, limit]) => (op === ">" ? v > limit : v < limit);
    return values.map(v => {
      if (v === null || !Number.isFinite(v)) return false;
      return threshold.combine === "or" ? conditions.some(c => test(v, c))
                                        : conditions.every(c => test(v, c));
    });
  }

  /* Nice axes (twins of dash_insight/core/axis_scale.py, tested equal): ranges widened to
     multiples of a 1, 2, 2.5 or 5 x 10^k step, as MindInsight's ECharts axes are. */
  const NICE_MANTISSAS = [1, 2, 2.5, 5, 10];

  function cleanNumber(value, step) {
    const digits = Math.max(0, 3 - Math.floor(Math.log10(step)));
    const scale = Math.pow(10, Math.min(digits, 100));
    const out = digits > 15 ? Number(value.toPrecision(15)) : Math.round(value * scale) / scale;
    return out === 0 ? 0 : out;
  }

  function niceStep(raw) {
    const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const mantissa of NICE_MANTISSAS) {
      const step = mantissa * magnitude;
      if (step >= raw * (1 - 1e-12)) return cleanNumber(step, step);
    }
    return 10 * magnitude;
  }

  function constantSpan(value) {
    const pad = Math.abs(value) * 0.1 || 1;
    return [value - pad, value + pad];
  }

  function fitRange(low, high, step) {
    const first = Math.floor(low / step + 1e-9) * step;
    const last = Math.ceil(high / step - 1e-9) * step;
    return {low: cleanNumber(first, step), high: cleanNumber(last, step), step};
  }

  const intervalsOf = axis => Math.round((axis.high - axis.low) / axis.step);

  function niceRange(low, high, intervals) {
    const count = intervals || 5;
    [low, high] = [Math.min(low, high), Math.max(low, high)];
    if (high === low) [low, high] = constantSpan(low);
    let axis = fitRange(low, high, niceStep((high - low) / Math.max(1, count)));
    while (intervalsOf(axis) > count + 1) axis = fitRange(low, high, niceStep(axis.step * 1.000001));
    return axis;
  }

  function exactRange(low, high, intervals) {
    let step = niceStep((high - low) / intervals);
    for (;;) {
      let first = Math.floor(low / step + 1e-9) * step;
      if (first + intervals * step >= high - 1e-9 * step) {
        const spare = Math.floor((first + intervals * step - high) / step + 1e-9);
        first -= Math.floor(spare / 2) * step;
        return {low: cleanNumber(first, step), high: cleanNumber(first + intervals * step, step),
                step};
      }
      step = niceStep(step * 1.000001);
    }
  }

  /* Left and right axes with the same number of nice intervals (their ticks share the grid). */
  function alignedRanges(left, right, choices) {
    const spans = [left, right].map(([a, b]) => {
      const [low, high] = [Math.min(a, b), Math.max(a, b)];
      return high === low ? constantSpan(low) : [low, high];
    });
    let best = null;
    for (const intervals of choices || [4, 5, 6]) {
      const axes = spans.map(([low, high]) => exactRange(low, high, intervals));
      const waste = spans.reduce((sum, [low, high], i) =>
        sum + 1 - (high - low) / (axes[i].high - axes[i].low), 0);
      if (!best || waste < best[0] - 1e-9) best = [waste, axes[0], axes[1]];
    }
    return [best[1], best[2]];
  }

  function finiteExtent(values) {
    let low = Infinity, high = -Infinity;
    for (const v of values) {
      if (v === null || !Number.isFinite(v)) continue;
      if (v < low) low = v;
      if (v > high) high = v;
    }
    return low <= high ? [low, high] : null;
  }

  /* A line's y axis: the plan's ``axis`` (a composition's tags grouped by their ranges,
     axis_groups in dash_insight/core/axis_scale.py): 0 the left axis, 1 the right one, 2 and
     up an axis of its own, not shown ("y3", ...); else its ``right``. */
  function yaxisOf(series) {
    if (series.axis >= 2) return `y${series.axis + 1}`;
    return series.right ? "y2" : "y";
  }
  const layoutAxis = name => `yaxis${name.slice(1)}`;  // "y" -> "yaxis", "y3" -> "yaxis3"
  const ownAxes = chart => Array.from(new Set(chart.series.map(yaxisOf)))
    .filter(name => name !== "y" && name !== "y2");

  /* The y axes of a chart in linear scale: nice ranges the autorange keeps to (reset and
     double-click return to them), and with a right axis, ticks both sides share. */
  function niceAxes(layout, chart, outliers) {
    // A group's band widens its axis (its low and high, chart/scalar_group).
    const extent = name => (outliers ? outlierRange : finiteExtent)([].concat(...chart.series
      .filter(s => yaxisOf(s) === name).map(s => [].concat(s.y, s.low || [], s.high || []))));
    const left = extent("y"), right = extent("y2");
    const pin = (axis, range, ticks) => {
      axis.autorangeoptions = {minallowed: range.low, maxallowed: range.high};
      if (ticks) Object.assign(axis, {tickmode: "linear", tick0: range.low, dtick: range.step});
    };
    ownAxes(chart).forEach(name => {  // not shown: the line spans the plot
      const own = extent(name);
      if (own) pin(layout[layoutAxis(name)], niceRange(...own), false);
    });
    if (left && right) {
      const [l, r] = alignedRanges(left, right);
      pin(layout.yaxis, l, true);
      pin(layout.yaxis2, r, true);
      return {left: l, right: r};
    } else if (left || right) {
      const range = niceRange(...(left || right));
      pin(right ? layout.yaxis2 : layout.yaxis, range, false);
      return right ? {right: range} : {left: range};
    }
    return {};
  }

  /* Characters of the longest tick label of a y axis over ``range`` ({low, high, step} of
     niceRange; undefined: not known, e.g. a log axis): the integer digits of the wider end
     with its minus sign (Plotly writes 10000 and up as "10k"), the decimals of the step; a
     power of ten ("1.2×10³⁰") beyond Plotly's SI prefixes. */
  function tickChars(range) {
    if (!range) return 5;
    const widest = Math.max(Math.abs(range.low), Math.abs(range.high));
    if (widest >= 1e15 || range.step < 1e-6) return 9 + (range.low < 0 ? 1 : 0);
    const decimals = (String(Number(range.step.toPrecision(6))).split(".")[1] || "").length;
    // -50..150 is written "−50" .. "150": the minus counts with its own end's digits.
    const whole = end => (widest >= 1e4 ? 4 : String(Math.floor(Math.abs(end))).length) +
      (end < 0 ? 1 : 0);
    return Math.min(8, Math.max(whole(range.low), whole(range.high)) +
      (decimals ? decimals + 1 : 0));
  }

  /* px: what Plotly reserves below the plot for a legend of one row of 11 px text
     (_fullLayout._reservedMargin.legend.b), and for each further row. With 22, the wider
     margin Plotly found made it draw each chart of the comparison a second time (its 6
     charts: 140 ms, then 78). */
  const LEGEND_ROW = 29;
  /* px of a legend entry besides its text: Plotly's symbol (itemwidth 30) between two
     itemGaps (5), and the itemGap after the entry. */
  const LEGEND_ENTRY = 45;
  const LEGEND_FONT = '11px "Open Sans", verdana, arial, sans-serif';  // Plotly's, at 11 px
  let legendCanvas = null;

  /* Rows of the legend of a chart whose entries are ``names``, over a plot area ``width`` px
     wide, as Plotly lays a horizontal legend out at x 0 (legend/draw.js
     computeLegendDimensions, entries grouped: each series its legendgroup): an entry starts a
     new row when its row has entries and it would pass the plot area's width. A text's width
     is the canvas' for Plotly's font (the same as Plotly's measure of it, to 0.01 px). Within
     half a pixel of the width an entry is taken to fit, and names Plotly reads as markup (<,
     &) or an unknown width give one row: too few rows costs a second draw (automargin), too
     many a margin too wide. */
  function legendRows(names, width) {
    if (!names.length) return 0;
    if (!(width > 0) || names.some(name => /[<&]/.test(name))) return 1;
    if (!legendCanvas) {  // its own canvas: the font stays set
      legendCanvas = document.createElement("canvas").getContext("2d");
      legendCanvas.font = LEGEND_FONT;
    }
    let rows = 1, x = 0;
    names.forEach(name => {
      const entry = LEGEND_ENTRY + legendCanvas.measureText(name).width;
      if (x > 0 && x + entry > width + 0.5) {
        rows += 1;
        x = 0;
      }
      x += entry;
    });
    return rows;
  }

  /* Margins that hold the axes' labels, so that Plotly's automargin has nothing to add: when
     it has, Plotly draws the whole chart a second time (issue 17 item 8: the scalars page froze
     drawing its first screen). Estimates for 11 px labels, with room for the half of the
     first and last x labels that passes the plot's edges (a date and time: two lines, wider);
     automargin stays on for longer labels. A legend below the x axis (yref "container")
     takes LEGEND_ROW px of the margin per row (``legendRows``) besides the axis' labels and
     title. */
  function labelMargin(ranges, hasRight, dateX, legendRowCount, titled) {
    const side = range => 14 + Math.ceil(6.5 * tickChars(range)) + (titled ? 16 : 0);
    return {l: Math.max(side(ranges.left), dateX ? 60 : 0),
            r: Math.max(hasRight ? side(ranges.right) : 0, dateX ? 40 : 28), t: 22,
            b: 36 + (dateX ? 14 : 0) + LEGEND_ROW * (Number(legendRowCount) || 0)};
  }

  /* The values a series draws: on a log axis, non-positive values become gaps. */
  function drawnValues(series, logScale) {
    return logScale ? series.y.map(v => (v !== null && v > 0 ? v : null)) : series.y;
  }

  function localIso(seconds) {
    const date = new Date(seconds * 1000);
    return new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString()
      .replace("Z", "");
  }

  function xValues(series, axis) {
    // A group's points (chart/scalar_group): its runs' mean time since their own start.
    if (axis === "relative" && series.relative) return series.relative;
    if (axis === "relative") {
      const start = series.wall.length ? series.wall[0] : 0;
      return series.wall.map(w => w - start);
    }
    if (axis === "absolute") return series.wall.map(localIso);
    return series.step;
  }

  function axisTitle(axis) {
    const t = window.dashInsightText;
    return {step: t("step"), relative: t("relative time (s)"), absolute: t("time")}[axis] ||
      t("step");
  }

  /* A line's colour: its run's (the user's pick, else the server's run colour, the same on
     every chart: dash_insight/web/components/run_colours.py), or the palette colour of its
     place in the chart, which the plan carries (place_colour: the palette lives only in
     run_colours.py). */
  function seriesColour(series, runColours) {
    // A group's line and its runs' thin lines: the group's colour.
    if (series.members || series.thin) return series.colour;
    if (series.colour) return (runColours || {})[series.train_id] || series.colour;
    return series.place_colour;
  }

  /* The best point a series marks (the server's, from the raw series: best_points in
     dash_insight/plugins/scalars/page_charts.py): its own direction (guessed from its tag), the
     other one when the chart's button was flipped. */
  function bestOf(series, flipped) {
    const best = series.best || {};
    const direction = series.direction === "max" ? "max" : "min";
    return best[flipped ? (direction === "max" ? "min" : "max") : direction] || null;
  }

  /* Where a best point sits on the x axis shown (against a tag: the plan's ``x``). */
  function bestX(point, series, axis, byTag) {
    if (byTag) return point.x === undefined ? null : point.x;
    if (axis === "relative") return point.wall - (series.wall.length ? series.wall[0] : 0);
    if (axis === "absolute") return localIso(point.wall);
    return point.step;
  }

  /* The best points' stars are drawn outside Plotly: one "★" element per line over the
     graph, placed from the axes after every Plotly draw (placeStars). As a scatter trace, or
     as a layout annotation, each star made every smoothing redraw (Plotly.restyle replots
     every trace and annotation of a chart) about a tenth slower (bench/ui_scalars.py); here
     a redraw costs one look at the stars' places. figure.layout.meta.stars: [{x, y (data
     values), yaxis, colour, label}]. */
  const STAR_HALF = 10;  // half the star's box (17 px, .di-best-star) and a pixel
  function placeStars(gd) {
    const full = gd._fullLayout;
    const stars = ((gd.layout || {}).meta || {}).stars || [];
    let layer = gd.querySelector(":scope > .di-best-stars");
    if (!full || !full.xaxis || !full._size) return;
    const size = full._size;
    // A star on the plot's edge (a best point at the first step, or on the axis' end) is
    // moved in by its half, so that it covers no tick label and no note; its title gives the
    // value (issue #38 item 4).
    const inward = (p, length) => (length > 2 * STAR_HALF
      ? Math.min(Math.max(p, STAR_HALF), length - STAR_HALF) : length / 2);
    const places = stars.map(star => {
      const ya = full[layoutAxis(star.yaxis || "y")];
      if (!ya) return null;
      const px = full.xaxis.l2p(full.xaxis.d2l(star.x)), py = ya.l2p(ya.d2l(star.y));
      const inside = isFinite(px) && isFinite(py) && px >= -1 && px <= size.w + 1 &&
        py >= -1 && py <= size.h + 1;  // zoomed out of view: not shown
      return inside ? [Math.round(size.l + inward(px, size.w)),
                       Math.round(size.t + inward(py, size.h))] : null;
    });
    const key = JSON.stringify([stars, places]);
    if (layer && layer.dataset.key === key) return;  // a smoothing redraw: nothing moved
    if (!layer) {
      layer = document.createElement("div");
      layer.className = "di-best-stars";
      gd.appendChild(layer);
    }
    layer.dataset.key = key;
    layer.replaceChildren(...stars.map((star, i) => {
      const element = document.createElement("span");
      element.className = "di-best-star";
      element.textContent = "★";
      element.title = star.label;
      element.style.color = star.colour;
      Object.assign(element.dataset, {x: star.x, y: star.y, label: star.label,
                                      colour: star.colour});
      if (places[i]) {
        element.style.left = places[i][0] + "px";
        element.style.top = places[i][1] + "px";
      } else {
        element.hidden = true;
      }
      return element;
    }));
  }

  /* Every chart's stars follow its draws (plotly_afterplot), hooked once per graph. */
  const hooked = new WeakSet();
  function hookStars() {
    document.querySelectorAll(".di-graph-slot .js-plotly-plot").forEach(gd => {
      if (hooked.has(gd) || typeof gd.on !== "function") return;
      hooked.add(gd);
      gd.on("plotly_afterplot", () => placeStars(gd));
      placeStars(gd);
    });
  }

  /* A log x axis draws the step and relative time axes; its points at or below 0 are left out
     (``dropped`` counts them). */
  function logXValues(x) {
    let dropped = 0;
    const out = x.map(v => {
      if (v !== null && v > 0) return v;
      dropped += 1;
      return null;
    });
    return [out, dropped];
  }

  /* "#rrggbb" at ``alpha``: a group's band is its colour, see-through. */
  function translucent(colour, alpha) {
    const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
    if (!hex) return colour;
    const [r, g, b] = hex.slice(1).map(h => parseInt(h, 16));
    return `rgba(${r},${g},${b},${alpha})`;
  }

  /* A group's band (chart/scalar_group: ``low`` and ``high``, null where fewer than two runs
     have a value) as one see-through shape per run of consecutive points that have it, never
     bridging a point without it (nothing invented): a point alone is a thin vertical bar. Its
     edges are smoothed as the line is (smoothBand), so that a smoothed line does not wander in
     a band of raw noise; on a log axis the edges at or below 0 are gaps. meta.points: its
     points; meta.x: the x of each point of the series (restyleInPlace draws it again from
     them). */
  function bandShape(series, x, logScale, smoothing, smoother) {
    const positive = values => (logScale ? values.map(v => (v !== null && v > 0 ? v : null))
                                         : values);
    const [low, high] = smoothBand(drawnValues(series, logScale), positive(series.low || []),
                                   positive(series.high || []), smoothing, smoother)
      .map(positive);
    const has = i => x[i] !== null && x[i] !== undefined && low[i] !== null &&
      low[i] !== undefined && high[i] !== null && high[i] !== undefined;
    const xs = [], ys = [];
    let points = 0;
    for (let i = 0; i < x.length; i++) {
      if (!has(i)) continue;
      let j = i;
      while (j + 1 < x.length && has(j + 1)) j++;
      for (let k = i; k <= j; k++) { xs.push(x[k]); ys.push(low[k]); }
      for (let k = j; k >= i; k--) { xs.push(x[k]); ys.push(high[k]); }
      xs.push(x[i], null);
      ys.push(low[i], null);
      points += j - i + 1;
      i = j;
    }
    return {x: xs, y: ys, points};
  }

  function bandTrace(series, index, x, yaxis, colour, logScale, smoothing, smoother) {
    const shape = bandShape(series, x, logScale, smoothing, smoother);
    return {type: "scatter", mode: "lines", x: shape.x, y: shape.y, yaxis,
            legendgroup: `series-${index}`,
            showlegend: false, hoverinfo: "skip", fill: "toself",
            fillcolor: translucent(colour, 0.22), line: {color: translucent(colour, 0.45),
                                                          width: 1},
            name: "band", meta: {role: "band", series: index, points: shape.points, x}};
  }

  /* Issue 40 item 7: the epoch boundaries and restarts of a chart's runs (``chart.markers``,
     plugins/scalars/query_marks.py) as thin vertical lines on the step axis, one trace per kind on
     an axis of their own that spans the plot's height (0..1), their label in the hover. None
     on a time axis or a tag's values (markers are steps). */
  const MARKER_AXIS = "y99";
  function markerTraces(chart, axis, byTag, dark) {
    if (axis !== "step" || byTag || !(chart.markers || []).length) return [];
    const kinds = {
      restart: {colour: dark ? "#f59e0b" : "#c2410c", dash: "dash"},
      epoch: {colour: dark ? "rgba(220,220,220,0.4)" : "rgba(60,60,60,0.35)", dash: "dot"},
    };
    const byKind = {};
    const seen = new Set();
    chart.markers.forEach(m => {
      const key = `${m.kind}|${m.step}`;
      if (!kinds[m.kind] || seen.has(key)) return;
      seen.add(key);
      (byKind[m.kind] = byKind[m.kind] || []).push(m);
    });
    return Object.entries(byKind).map(([kind, marks]) => {
      const x = [], y = [], text = [];
      marks.forEach(m => {
        // Points up the whole line, so that the hover finds it anywhere along it.
        for (let i = 0; i <= 10; i++) { x.push(m.step); y.push(i / 10); text.push(m.label); }
        x.push(null); y.push(null); text.push("");
      });
      return {type: "scatter", mode: "lines", x, y, text, yaxis: MARKER_AXIS,
              hoverinfo: "text", showlegend: false, name: kind,
              line: {width: 1, color: kinds[kind].colour, dash: kinds[kind].dash},
              meta: {role: "marker", kind, steps: marks.map(m => m.step)}};
    });
  }

  const NOTE_LINE = 14;  // px: a line of the notes (10 px text and its box) above the plot

  function chartFigure(chart, smoothing, axis, logScale, threshold, dark, runColours, flipped,
                       logXAsked, view) {
    const smoother = (view || {}).smoother;
    const smoothedOn = isSmoothed(smoothing, smoother);
    // Runs compared: the hover lists every line at the x pointed at, highest value first.
    const unified = Boolean(chart.legend);
    const t = window.dashInsightText;
    const traces = [];
    const annotations = [];
    const stars = [];  // the best points, drawn by placeStars
    let hidden = 0;
    // Against a tag (the plan's x_tag): each point at that tag's value at its step (the
    // server's ``x`` column, null where the tag has none: those points are left out).
    const byTag = Boolean(chart.x_tag);
    const logX = Boolean(logXAsked) && (byTag || axis !== "absolute");
    let droppedX = 0, unplaced = 0;
    // On a tag, a group's runs' points without a value of it are left out of its aggregate
    // (chart/scalar_group's x_unplaced).
    let leftOut = 0;
    let banded = 0, aggregated = 0;  // a group's points with a band, and all of them
    const showLegend = Boolean(chart.legend || chart.series.length > 1);
    const legendNames = [];
    chart.series.forEach((series, index) => {
      const colour = seriesColour(series, runColours);
      const yaxis = yaxisOf(series);
      // A line on an axis of its own says so in the legend and hover.
      const name = series.axis >= 2 ? t("{name} (own scale)", {name: series.name}) : series.name;
      let x = byTag ? (series.x || series.step.map(() => null)) : xValues(series, axis);
      if (byTag && series.members) leftOut += series.x_unplaced || 0;
      else if (byTag) unplaced += series.x_unplaced || 0;
      if (logX) {
        const [kept, dropped] = logXValues(x);
        x = kept;
        droppedX += dropped;
      }
      const best = bestOf(series, flipped);
      const group = `series-${index}`;
      const raw = drawnValues(series, logScale);
      if (logScale) hidden += series.y.filter(v => v !== null && v <= 0).length;
      const smoothed = smoothWith(raw, smoothing, smoother);
      const times = series.wall.map(localIso);
      // A group's point on a tag whose runs' values of it differ sits at their mean
      // (chart/scalar_group's x_spread): its hover says so.
      const spread = byTag && series.members ? (series.x_spread || []) : [];
      const differs = t("{tag} differs between the runs here: drawn at their mean",
                        {tag: chart.x_tag});
      const custom = raw.map((v, i) => [name, v, series.step[i],
                                        times[i].replace("T", " ").slice(0, 19),
                                        series.count ? series.count[i] : null,
                                        spread[i] > 0 ? "<br>" + differs : ""]);
      if (series.members) {
        traces.push(bandTrace(series, index, x, yaxis, colour, logScale, smoothing, smoother));
        banded += (series.count || []).filter(c => c >= 2).length;
        aggregated += series.step.length;
      }
      const thin = Boolean(series.thin);
      traces.push({type: "scatter", mode: "lines", x, y: raw, yaxis, name,
                   line: {color: colour, width: thin ? 0.6 : 1},
                   opacity: thin ? 0.2 : (smoothedOn ? 0.25 : 1),
                   hoverinfo: "skip", showlegend: false, legendgroup: group,
                   meta: {series: index, role: thin ? "thin-raw" : "raw"}});
      if (showLegend && !thin) legendNames.push(name);
      const groupHover = series.members
        ? "<br>" + t("runs at this step") + " %{customdata[4]}%{customdata[5]}" : "";
      traces.push({type: "scatter", mode: "lines", x, y: smoothed, yaxis, name,
                   meta: {series: index, role: "smoothed"}, legendgroup: group,
                   showlegend: showLegend && !thin, opacity: thin ? 0.45 : 1,
                   line: {color: colour, width: thin ? 0.8 : (series.members ? 2.4 : 1.8)},
                   customdata: custom,
                   hovertemplate: unified
                     ? "%{customdata[0]}: <b>%{y:.6g}</b>" +
                       (series.members ? " · " + t("runs at this step") +
                                         " %{customdata[4]}%{customdata[5]}" : "") +
                       "<extra></extra>"
                     : "<b>%{customdata[0]}</b><br>" + t("value") +
                       " %{customdata[1]:.6g}<br>" + t("smoothed") + " %{y:.6g}<br>" + t("step") +
                       " %{customdata[2]}<br>%{customdata[3]}" + groupHover + "<extra></extra>"});
      if (threshold && threshold.conditions && threshold.conditions.length) {
        const mask = thresholdMask(smoothed, threshold);
        // Matching runs draw as red segments over the line (isolated points as dots).
        const hit = smoothed.map((v, i) => (mask[i] ? v : null));
        traces.push({type: "scatter", mode: "lines+markers", x, y: hit, yaxis,
                     name: "threshold", meta: {series: index, role: "threshold"}, line: {color: THRESHOLD_COLOUR, width: 2.5},
                     marker: {size: 3, color: THRESHOLD_COLOUR}, hoverinfo: "skip",
                     showlegend: false, connectgaps: false});
      }
      if (best && !thin) {  // a group's thin runs mark no best point
        // The best value of the raw series, whatever the smoothing; a log axis cannot place
        // a value or step at or below 0.
        const bx = bestX(best, series, axis, byTag);
        const placeable = bx !== null && (!logScale || best.value > 0) && (!logX || bx > 0);
        if (placeable) {
          stars.push({x: bx, y: best.value, yaxis, colour,
                      label: `${series.name}: ${best.label}`});
        }
      }
      if (series.nonfinite.length) {
        const finite = raw.filter(v => v !== null);
        const base = finite.length ? Math.min(...finite) : 0;
        traces.push({
          type: "scatter", mode: "markers", yaxis, showlegend: false,
          x: series.nonfinite.map(([i]) => x[i]),
          y: series.nonfinite.map(() => base),
          marker: {symbol: "x", size: 9, color: THRESHOLD_COLOUR},
          text: series.nonfinite.map(([i, kind]) => t("{name}: {kind} at step {step}", {
            name: series.name, kind: kind.toUpperCase(), step: series.step[i]})),
          hovertemplate: "%{text}<extra></extra>", name: "non-finite",
        });
      }
    });
    // The notes: one line at each end of the top margin, over the plot area (where the stars
    // stay) and below the tool row (where Plotly's toolbar shows), whatever the number of
    // lines (issue #38 item 4): on the right how many points are drawn, on the left in red
    // what is not drawn. A zoomed view says whether it holds every point of its range;
    // smoothing runs on what is drawn, which is not the whole series when some points are
    // left out. The points of every line are counted together.
    const counts = [], warnings = [];
    const shown = chart.series.reduce((sum, s) => sum + (s.shown || 0), 0);
    const total = chart.series.reduce((sum, s) => sum + (s.total || 0), 0);
    if (chart.series.some(s => s.shown < s.total)) {
      counts.push(t("{shown} of {total} points drawn", {shown, total}) +
                  (smoothedOn ? t(" (smoothed as drawn)") : ""));
    } else if (chart.series.some(s => s.range)) {
      counts.push(t("raw: all {total} points of the range", {total}));
    }
    if (aggregated) {
      counts.push(t("band: steps with at least 2 runs ({count} of {total})",
                    {count: banded, total: aggregated}));
    }
    if (hidden) {
      warnings.push(t("log scale: {count} non-positive value(s) not drawn", {count: hidden}));
    }
    const xNote = logXAsked && !byTag && axis === "absolute"
      ? t("log x needs the step or relative time axis")
      : (droppedX ? t("log x: {count} point(s) at or below 0 not drawn", {count: droppedX})
                  : "");
    if (xNote) warnings.push(xNote);
    if (unplaced) {
      warnings.push(t("{count} point(s) without a value of {tag} at their step not drawn",
                      {count: unplaced, tag: chart.x_tag}));
    }
    if (leftOut) {
      warnings.push(t("groups: {count} point(s) without {tag} left out",
                      {count: leftOut, tag: chart.x_tag}));
    }
    // Both notes: the warnings a line above the counts (the top margin grows by a line, see
    // below), so that the two never overlap on a narrow chart.
    const twoLines = counts.length > 0 && warnings.length > 0;
    [[counts, 1, "right", "points-note", {size: 10}, 1],
     [warnings, 0, "left", "warning-note", {size: 10, color: THRESHOLD_COLOUR},
      twoLines ? 1 + NOTE_LINE : 1]].forEach(
      ([texts, x, xanchor, name, font, yshift]) => {
        if (!texts.length) return;
        annotations.push({text: texts.join(" · "), xref: "paper", yref: "paper", x, y: 1,
                          yanchor: "bottom", yshift, showarrow: false, font, xanchor, name});
      });
    (chart.problems || []).forEach((text, i) => annotations.push({
      text, xref: "paper", yref: "paper", x: 0.5, y: 0.5 - 0.1 * i, showarrow: false,
      font: {size: 12, color: THRESHOLD_COLOUR}}));
    const text = dark ? "#c9ced6" : "#5f6670";
    const grid = dark ? "rgba(200,200,200,0.12)" : "rgba(0,0,0,0.07)";
    // Tick labels are never hidden: their margins hold them (labelMargin, then automargin), so
    // Plotly's default for a number or date axis ("hide past div") hid none, and it measured
    // every label's box for that, a forced layout each (the scalars page's first screen:
    // 0.11 s of renderer time, the comparison's 0.06 s).
    const axisStyle = {gridcolor: grid, zerolinecolor: grid, automargin: true,
                       ticklabeloverflow: "allow"};
    const layout = {
      margin: {l: 10, r: 10, t: 22, b: 10}, paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)", font: {color: text, size: 11},
      hovermode: unified ? "x unified" : "closest", hoversort: "value descending",
      // Below the x axis title, not on it: placed in the figure's coordinates (its bottom
      // edge), which pushes the plot area up by the legend's height.
      showlegend: showLegend,
      legend: {orientation: "h", x: 0, xanchor: "left", y: 0, yanchor: "bottom",
               yref: "container"},
      // Keep the user's zoom across data refreshes; a new axis or scale starts afresh.
      uirevision: `${chart.id}|${axis}|${logScale}|${logX}|${chart.x_tag || ""}`,
      xaxis: Object.assign({title: {text: byTag ? chart.x_tag : axisTitle(axis),
                                    font: {size: 10}},
                            type: logX ? "log" : (axis === "absolute" && !byTag ? "date"
                                                                                : "linear")},
                           axisStyle),
      yaxis: Object.assign({type: logScale ? "log" : "linear"}, axisStyle),
      annotations,
      meta: {stars},
    };
    // A composition's tags grouped by range (the plan's ``axis``): each axis says whose it
    // is, in the colour of its first line (issue #38 item 5).
    const grouped = chart.series.some(s => s.axis !== undefined);
    const titleOf = name => {
      const on = chart.series.filter(s => yaxisOf(s) === name);
      const words = on.map(s => s.name).join(", ");
      return {text: words.length > 40 ? words.slice(0, 39) + "…" : words,
              font: {size: 10, color: on.length === 1 ? seriesColour(on[0], runColours) : text}};
    };
    const titled = grouped && chart.series.some(s => yaxisOf(s) === "y2");
    if (chart.series.some(s => yaxisOf(s) === "y2")) {
      layout.yaxis2 = Object.assign({overlaying: "y", side: "right", showgrid: false,
                                     type: logScale ? "log" : "linear"}, axisStyle);
    }
    if (titled) {
      ["yaxis", "yaxis2"].forEach(axisName => {
        const title = titleOf(axisName === "yaxis" ? "y" : "y2");
        Object.assign(layout[axisName], {title, tickfont: {color: title.font.color}});
      });
    }
    ownAxes(chart).forEach(name => {
      layout[layoutAxis(name)] = {overlaying: "y", visible: false, showgrid: false,
                                  zeroline: false, type: logScale ? "log" : "linear"};
    });
    const ranges = logScale ? {} : niceAxes(layout, chart, Boolean((view || {}).outliers));
    // The legend's rows over the plot area that the side margins leave (the graph's width:
    // view.width, 0 when not known).
    const dateX = layout.xaxis.type === "date";
    const sides = labelMargin(ranges, Boolean(layout.yaxis2), dateX, 0, titled);
    const legendRowCount = legendRows(legendNames,
                                      ((view || {}).width || 0) - sides.l - sides.r);
    layout.margin = labelMargin(ranges, Boolean(layout.yaxis2), dateX, legendRowCount, titled);
    layout.meta.legendRows = legendRowCount;
    if (twoLines) layout.margin.t += NOTE_LINE;
    // The x axis spans the data exactly: markers (threshold dots, non-finite crosses) would
    // otherwise pad it, and setting a threshold would move it.
    const xs = chart.series.map(series => xValues(series, axis)).filter(x => x.length);
    // (a log axis pads nothing: its range is in log units; a tag's values need not grow)
    if (xs.length && !logX && !byTag) {
      const firsts = xs.map(x => x[0]), lasts = xs.map(x => x[x.length - 1]);
      const [lo, hi] = axis === "absolute"
        ? [firsts.slice().sort()[0], lasts.slice().sort()[lasts.length - 1]]
        : [Math.min(...firsts), Math.max(...lasts)];
      if (lo !== hi) layout.xaxis.autorangeoptions = {minallowed: lo, maxallowed: hi};
    }
    const marks = markerTraces(chart, axis, byTag, dark);
    if (marks.length) {
      traces.push(...marks);
      layout[layoutAxis(MARKER_AXIS)] = {overlaying: "y", visible: false, range: [0, 1],
                                         fixedrange: true, showgrid: false, zeroline: false};
    }
    return {data: traces, layout};
  }

  /* What the charts of the page show between Dash callbacks (set by render): the plan of the
     charts (byId: chart id -> {stamp, series specs, problems}), smoothing, axis, log scale,
     thresholds, theme and run colours. */
  const pageState = () => window._diChartState;

  /* The plan of a chart: render's (pageState), else the first plan the page's layout carries
     in its HTML (charts.chart_stores), so that the points of the charts on screen are asked
     for as soon as their slots appear rather than after the first render callback. */
  let firstPlans = {element: null, byId: {}};
  function planOf(chartId) {
    const state = pageState();
    if (state && state.byId[chartId]) return state.byId[chartId];
    const element = document.querySelector(".di-first-plan[data-plan]");
    if (!element) return undefined;
    if (firstPlans.element !== element) {
      firstPlans = {element, byId: {}};
      try {
        (JSON.parse(element.dataset.plan).charts || []).forEach(c => { firstPlans.byId[c.id] = c; });
      } catch { /* render brings the plan */ }
    }
    return firstPlans.byId[chartId];
  }

  /* Points of each chart, fetched when the chart comes on screen: loaded[chart] = {stamp (the
     plan's stamp of the chart when asked), seq, series, problems, failed}. */
  const loaded = {};
  const loading = {};  // chart -> the plan stamp being fetched
  let loadCounter = 0;

  const elementOf = (chartId, type) =>
    document.getElementById(JSON.stringify({chart: chartId, type}));

  function graphDiv(id) {
    const holder = elementOf(id.chart, id.type || "scalar-graph");
    return holder ? holder.querySelector(".js-plotly-plot") : null;
  }

  /* Points per series: no more than the pixel width of the chart's plot area (one point per
     pixel column at most; the server keeps each column's extremes, ends and every NaN / inf).
     Before the chart is drawn its plot area is the slot less the axes' margins. */
  const AXES_MARGIN = 90;
  function pointBudget(chartId) {
    const div = graphDiv({chart: chartId});
    if (div && div._fullLayout && div._fullLayout._size) {
      return Math.max(50, Math.floor(div._fullLayout._size.w));
    }
    const slot = elementOf(chartId, "graph-slot");
    const width = slot && slot.clientWidth ? slot.clientWidth : 400;
    return Math.max(50, Math.floor(width - AXES_MARGIN));
  }

  /* The JSON answer of ``route`` to ``query``; an Error "<name>: <its error_msg>" otherwise. */
  async function fetchJson(route, query, name) {
    const response = await fetch(`${window.dashInsightApi(route)}?${query}`,
                                 {credentials: "same-origin"});
    if (!response.ok) {
      let message = `HTTP ${response.status}`;
      try { message = (await response.json()).error_msg || message; } catch { /* */ }
      throw new Error(`${name}: ${message}`);
    }
    return response.json();
  }

  /* The points of each line of ``lines`` (specs: train_id, tag), asked in one request
     (chart/scalar_lines: a comparison chart's jobs at once, not a request per job). */
  async function fetchLines(lines, params) {
    const query = new URLSearchParams(params);
    lines.forEach(spec => {
      query.append("train_id", spec.train_id);
      query.append("tag", spec.tag);
    });
    const answer = await fetchJson("chart/scalar_lines", query, lines[0].name);
    return lines.map((spec, i) => {
      const line = answer.lines[i];
      if (line.error_msg !== undefined) throw new Error(`${spec.name}: ${line.error_msg}`);
      return line;
    });
  }

  /* A group's line and band: its runs' aggregate (chart/scalar_group), placed on an x tag as
     its runs' lines are (each run's points at its own values of the tag, the group's at their
     mean). */
  function fetchGroup(spec, params) {
    const query = new URLSearchParams(
      Object.assign({tag: spec.tag, centre: spec.centre, band: spec.band}, params));
    spec.members.forEach(member => query.append("train_id", member));
    return fetchJson("chart/scalar_group", query, spec.name);
  }

  /* Each series of ``series`` (specs: train_id, tag, ...) with the points the server answers
     for ``params`` (max_points, start_step, end_step) merged in. */
  async function fetchSeries(series, params) {
    const lines = series.filter(spec => !spec.members);
    const [lineAnswers, groupAnswers] = await Promise.all([
      lines.length ? fetchLines(lines, params) : [],
      Promise.all(series.filter(spec => spec.members).map(spec => fetchGroup(spec, params))),
    ]);
    let line = 0, group = 0;
    return series.map(spec => Object.assign(
      {}, spec, spec.members ? groupAnswers[group++] : lineAnswers[line++]));
  }

  /* Fetch a chart's points (whole series at its width) and draw it as soon as they arrive. */
  async function load(chartId) {
    const plan = planOf(chartId);
    if (!plan || loading[chartId] === plan.stamp) return;
    const stamp = plan.stamp;
    loading[chartId] = stamp;
    let series = [], problems = plan.problems || [], failed = false;
    if (plan.series.length) {
      try {
        series = await fetchSeries(plan.series, Object.assign(
          {max_points: pointBudget(chartId)}, plan.x_tag ? {x_tag: plan.x_tag} : {}));
      } catch (error) {
        problems = problems.concat([`could not read the points: ${error.message}`]);
        failed = true;
      }
    }
    if (loading[chartId] !== stamp) return;
    delete loading[chartId];
    const current = planOf(chartId);
    if (!current) return;
    if (current.stamp !== stamp) {  // newer data meanwhile: ask again
      if (inView.has(chartId)) load(chartId);
      return;
    }
    loaded[chartId] = {stamp, series, problems, failed, seq: ++loadCounter};
    const view = refined[chartId];
    if (view && view.range) {  // a zoomed chart asks for its range of the new data
      delete refined[chartId];
      refine(chartId, view.range);
    }
    drawSoon(chartId);
  }

  /* The chart as drawn: the plan with its loaded points (or those of its zoomed range). */
  function shownChart(state, chartId) {
    const plan = state.byId[chartId];
    const data = loaded[chartId];
    if (!plan || !data) return null;
    const view = refined[chartId];
    const series = view && view.seq === data.seq && view.series ? view.series : data.series;
    // The epoch boundaries and restarts of its runs (the plan's series' ``markers``).
    const markers = (plan.series || []).flatMap(s => s.markers || []);
    return Object.assign({}, plan, {series, problems: data.problems, markers});
  }

  function drawnKey(state, chartId, smoothing) {
    const data = loaded[chartId];
    const view = refined[chartId];
    return JSON.stringify([data ? data.seq : 0, smoothing, state.axis, state.logOf[chartId],
                           (state.bestFlipOf || {})[chartId], (state.logXOf || {})[chartId],
                           state.thresholds ? state.thresholds[chartId] : null, state.dark,
                           state.runColours || {}, state.smoother || null,
                           Boolean(state.outliers),
                           view && data && view.seq === data.seq ? view.token : 0]);
  }

  const drawnKeys = () => (window._diDrawn = window._diDrawn || {});

  /* px: the width of a chart's graph (its slot's), 0 while it has no box. */
  function chartWidth(chartId) {
    const slot = elementOf(chartId, "graph-slot");
    return slot ? slot.getBoundingClientRect().width : 0;
  }

  function figureOf(state, chartId, smoothing) {
    const chart = shownChart(state, chartId);
    if (!chart) return null;
    return chartFigure(chart, smoothing, state.axis || "step", state.logOf[chartId] === 1,
                       state.thresholds ? state.thresholds[chartId] : null, state.dark,
                       state.runColours, (state.bestFlipOf || {})[chartId] === 1,
                       (state.logXOf || {})[chartId] === 1,
                       {smoother: state.smoother, outliers: state.outliers,
                        width: chartWidth(chartId)});
  }

  function graphComponent(chartId, figure) {
    return {type: "Graph", namespace: "dash_core_components", props: {
      id: {type: "scalar-graph", chart: chartId}, figure,
      className: "di-scalar-graph", style: {height: "260px"},
      config: {displaylogo: false, displayModeBar: "hover", responsive: true,
               modeBarButtonsToRemove: ["lasso2d", "select2d", "autoScale2d"]}}};
  }

  const hasGraph = chartId => Boolean(elementOf(chartId, "scalar-graph"));

  /* Draw one chart from its loaded points, now: its slot gets its graph (created with its
     figure), or its graph a new figure when what it shows changed (false: nothing to draw). */
  function draw(chartId) {
    const state = pageState();
    // Not in the plan: a card on its way out (the grid's callback replaces the layout's cards
    // when the URL changes at load, e.g. a tag map restored); a graph without a figure throws.
    if (!state || !loaded[chartId] || !state.byId[chartId]) return false;
    const key = drawnKey(state, chartId, state.smoothing);
    const drawn = drawnKeys();
    const setProps = window.dash_clientside.set_props;
    if (hasGraph(chartId)) {
      if (drawn[chartId] === key) return false;
      drawn[chartId] = key;
      setProps({type: "scalar-graph", chart: chartId},
               {figure: figureOf(state, chartId, state.smoothing)});
      return true;
    } else if (elementOf(chartId, "graph-slot")) {
      drawn[chartId] = key;
      setProps({type: "graph-slot", chart: chartId},
               {children: graphComponent(chartId, figureOf(state, chartId, state.smoothing))});
      return true;
    }
    return false;
  }

  /* Charts whose points arrive are drawn one per task, the highest on the page first, each
     once the previous one is drawn (assets/graph-slots.js): a screen of charts drawn in one
     task froze the page (issue 17 item 8). */
  const drawSoon = window.dashInsightSlots.paced(
    draw, chartId => window.dashInsightSlots.pageTop(elementOf(chartId, "chart-card") ||
                                                      elementOf(chartId, "graph-slot")),
    chartId => {
      const div = graphDiv({chart: chartId});
      return Boolean(div && div._fullLayout);
    });

  /* A chart on screen: fetched when its points are missing or older than the plan, else
     drawn if it is not yet. */
  function ensure(chartId) {
    const state = pageState();
    const plan = planOf(chartId);
    if (!plan) return;
    const data = loaded[chartId];
    if (!data || data.stamp !== plan.stamp || data.failed) load(chartId);
    else if (state && (!hasGraph(chartId) ||
                       drawnKeys()[chartId] !== drawnKey(state, chartId, state.smoothing))) {
      drawSoon(chartId);
    }
  }

  /* Charts are fetched and drawn when their slot comes within a few rows of the screen
     (assets/graph-slots.js). Every slot in the document is observed, whenever it arrives: with
     the page's first layout, with a callback's answer (a new tag selection, a page of the
     pager, navigation) or before or after the plan that names its chart (render). A chart on
     screen before its plan is known stays in ``inView`` and is fetched when render brings the
     plan. The best-value stars are hooked to each chart's graph once Dash has put it in its
     slot. */
  const slots = window.dashInsightSlots.watch({selector: ".di-graph-slot",
                                               keyOf: window.dashInsightSlots.idField("chart"),
                                               enter: chartId => ensure(chartId),
                                               changed: hookStars});
  const inView = slots.inView;  // charts whose slot is on (or next to) the screen
  const watchSlots = slots.rescan;

  /* A smoothing change moves only the smoothed lines (and threshold segments): restyle those
     in the drawn charts directly (no figure rebuilt, no diffing by Dash), the visible charts now
     and the others in the next frames. False when a chart is not drawn as expected. */
  function restyleInPlace(chartIds, state, smoothing) {
    const work = [];
    for (const chartId of chartIds) {
      const chart = shownChart(state, chartId);
      const div = graphDiv({chart: chartId});
      if (!chart || !div) continue;
      if (!div.data) return false;
      const rect = div.getBoundingClientRect();
      work.push({div, chart, log: state.logOf[chartId] === 1,
                 threshold: state.thresholds ? state.thresholds[chartId] : null,
                 visible: rect.bottom > 0 && rect.top < window.innerHeight});
    }
    const apply = ({div, chart, log, threshold}) => {
      const smoothed = chart.series.map(series => smoothWith(drawnValues(series, log), smoothing,
                                                             state.smoother));
      const moved = [], ys = [], faded = [], bands = [], bandXs = [], bandYs = [];
      div.data.forEach((trace, i) => {
        const meta = trace.meta || {};
        if (meta.role === "smoothed") { moved.push(i); ys.push(smoothed[meta.series]); }
        else if (meta.role === "band") {  // its edges are smoothed as the line is
          const shape = bandShape(chart.series[meta.series], meta.x, log, smoothing,
                                  state.smoother);
          bands.push(i); bandXs.push(shape.x); bandYs.push(shape.y);
        }
        else if (meta.role === "threshold") {
          const mask = thresholdMask(smoothed[meta.series], threshold);
          moved.push(i); ys.push(smoothed[meta.series].map((v, k) => (mask[k] ? v : null)));
        } else if (meta.role === "raw") faded.push(i);
      });
      const fade = isSmoothed(smoothing, state.smoother) ? 0.25 : 1;
      if (faded.length && div.data[faded[0]].opacity !== fade) {
        window.Plotly.restyle(div, {opacity: fade}, faded);
      }
      if (moved.length) window.Plotly.restyle(div, {y: ys}, moved);
      if (bands.length) window.Plotly.restyle(div, {x: bandXs, y: bandYs}, bands);
    };
    work.filter(w => w.visible).forEach(apply);
    const later = work.filter(w => !w.visible);
    const step = () => {
      const next = later.shift();
      if (next) { apply(next); window.requestAnimationFrame(step); }
    };
    window.requestAnimationFrame(step);
    return true;
  }

  /* Level of detail on zoom: a box zoom or pan on the step axis asks the server for the
     visible step range of each series at the chart's pixel width (min / max per pixel column,
     ends, every NaN / inf; every raw point once the range holds no more than that), so zooming
     in ends on the exact stored values. refined[chart] = {seq, range, token, series}: the
     series drawn for that range, valid while the chart's loaded points (seq) are the same. */
  const refined = {};
  let refineCounter = 0;

  async function refine(chartId, range) {
    const state = pageState();
    const div = graphDiv({chart: chartId});
    const data = loaded[chartId];
    const plan = state && state.byId[chartId];
    if (!state || !div || !data || (state.axis || "step") !== "step" || !data.series.length ||
        !plan || plan.x_tag) {
      return;  // the exact points of a range: on the step axis only
    }
    if (div._fullLayout && div._fullLayout.xaxis && div._fullLayout.xaxis.type === "log") {
      range = range.map(v => Math.pow(10, v));  // a log axis' range is in log10 units
    }
    const token = ++refineCounter;
    refined[chartId] = Object.assign({}, refined[chartId] || {}, {pending: token});
    const start = Math.floor(Math.min(range[0], range[1]));
    const end = Math.ceil(Math.max(range[0], range[1]));
    let series = null;
    try {
      series = await fetchSeries(data.series, {start_step: start, end_step: end,
                                               max_points: pointBudget(chartId)});
    } catch {
      series = null;
    }
    if (!refined[chartId] || refined[chartId].pending !== token || loaded[chartId] !== data) {
      return;  // a newer zoom or new data
    }
    if (!series) {
      delete refined[chartId];  // the coarse view stays; nothing else to show
      return;
    }
    refined[chartId] = {seq: data.seq, range: [start, end], token,
                        series: series.map(s => Object.assign(s, {range: [start, end]}))};
    redraw(chartId);
  }

  /* Draw one chart again from what it shows now (its zoomed view, if any); the zoom stays
     (same uirevision). */
  function redraw(chartId) {
    const state = pageState();
    const div = graphDiv({chart: chartId});
    if (!state || !div) return;
    const figure = figureOf(state, chartId, state.smoothing);
    if (!figure) return;
    const layout = Object.assign({}, figure.layout);
    ["xaxis", "yaxis"].forEach(axis => {  // keep what the user zoomed to
      const full = div.layout && div.layout[axis];
      if (full && full.range && full.autorange === false) {
        layout[axis] = Object.assign({}, layout[axis], {range: full.range.slice(),
                                                        autorange: false});
      }
    });
    window.Plotly.react(div, figure.data, layout);  // emits no relayout: no zoom recorded
    drawnKeys()[chartId] = drawnKey(state, chartId, state.smoothing);
  }

  /* Smoothing typed (Enter) or dragged redraws at once, without waiting for Dash's callback
     dispatch (60-100 ms here); the callbacks still run (URL state) and find it drawn. */
  function quickSmooth(raw) {
    const state = pageState();
    const value = Math.min(0.99, Math.max(0, Number(raw) || 0));
    if (!state || value === state.smoothing) return;
    const charts = Object.keys(state.byId).filter(hasGraph);
    if (restyleInPlace(charts, state, value)) {
      state.smoothing = value;
      const drawn = drawnKeys();
      charts.forEach(chartId => { drawn[chartId] = drawnKey(state, chartId, value); });
    }
  }
  document.addEventListener("keydown", event => {
    if (event.key === "Enter" && event.target.closest && event.target.closest(".di-smoothing-box")) {
      quickSmooth(event.target.value);
    }
  }, true);
  document.addEventListener("input", event => {
    if (event.target.closest && event.target.closest(".di-slider")) quickSmooth(event.target.value);
  }, true);

  /* A chart whose width changed (the window, full screen) is drawn again when its legend
     now takes another number of rows, so that its bottom margin still holds them (Plotly's
     own resize keeps the figure's margins: too narrow, it draws the chart twice; too wide, it
     leaves rows of blank). Checked once per frame of resizing. */
  let relegendFrame = null;
  function relegend() {
    relegendFrame = null;
    Object.keys(drawnKeys()).forEach(chartId => {
      const div = graphDiv({chart: chartId});
      const layout = div && div.layout;
      if (!layout || !layout.meta || !layout.meta.legendRows || !layout.margin) return;
      const names = (div.data || []).filter(trace => trace.showlegend).map(trace => trace.name);
      const width = chartWidth(chartId) - layout.margin.l - layout.margin.r;
      if (legendRows(names, width) !== layout.meta.legendRows) {
        delete drawnKeys()[chartId];
        drawSoon(chartId);
      }
    });
  }
  window.addEventListener("resize", () => {
    if (relegendFrame === null) relegendFrame = window.requestAnimationFrame(relegend);
  });

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    scalarCharts: {
      // The maths with Python twins (tests/plugins/scalars/test_chart_twins.py runs them).
      smooth, movingAverage, smoothBand, outlierRange, thresholdMask, niceStep, niceRange,
      alignedRanges, smoothWith, isSmoothed, drawnValues, finiteExtent, tickChars, labelMargin,
      // and Plotly's legend rows (tests/plugins/scalars/test_chart_chrome.py)
      legendRows,

      /* The plan (which charts, which series), smoothing, axis, log scale, thresholds, theme or
         run colours changed. Charts whose points are loaded are drawn or redrawn (only when
         what they show changed); the others are fetched when they come on screen (the observer)
         and drawn by draw() as soon as their own points arrive. */
      render(plans, draggedAll, releasedAll, boxAll, axes, logClicks, slotIds, graphIds,
             thresholdsAll, theme, runColours, bestClicks, logXClicks, smoothersAll, windowsAll,
             outliersAll) {
        // Page-keyed components (ALL): the page shown has one of each.
        const plan = (plans || [])[0], axis = (axes || [])[0];
        const thresholds = (thresholdsAll || [])[0];
        const noUpdate = window.dash_clientside.no_update;
        const triggered = window.dash_clientside.callback_context.triggered.map(t => t.prop_id);
        const isSmoothing = t => t.includes('"chart-smoothing');
        const clamp = v => Math.min(0.99, Math.max(0, Number(v) || 0));
        let smoothing = (releasedAll || [])[0];
        if (triggered.some(t => t.includes('"chart-smoothing"') && t.endsWith(".drag_value"))) {
          smoothing = (draggedAll || [])[0];
        } else if (triggered.some(t => t.includes('"chart-smoothing-box"'))) {
          smoothing = clamp((boxAll || [])[0]);
        }
        smoothing = clamp(smoothing);
        const unchanged = [slotIds.map(() => noUpdate), graphIds.map(() => noUpdate)];
        if (!plan) return unchanged;
        const byId = {};
        (plan.charts || []).forEach(c => { byId[c.id] = c; });
        const dark = (theme || document.documentElement.dataset.theme) === "dark";
        const logOf = {};
        const logIds = window.dash_clientside.callback_context.inputs_list[5] || [];
        logIds.forEach((entry, i) => { logOf[entry.id.chart] = ((logClicks || [])[i] || 0) % 2; });
        // Per chart, like the log y button: an odd number of clicks = on (flipped).
        const oddClicks = (position, clicks) => {
          const out = {};
          const ids = window.dash_clientside.callback_context.inputs_list[position] || [];
          ids.forEach((entry, i) => { out[entry.id.chart] = ((clicks || [])[i] || 0) % 2; });
          return out;
        };
        const bestFlipOf = oddClicks(11, bestClicks), logXOf = oddClicks(12, logXClicks);
        const smoother = {kind: (smoothersAll || [])[0] || "ema",
                          window: Math.min(999, Math.max(2, Math.floor(
                            Number((windowsAll || [])[0]) || 9)))};
        const outliers = ((outliersAll || [])[0] || []).length > 0;
        const state = window._diChartState = {byId, logOf, bestFlipOf, logXOf, thresholds, plan,
                                              axis, dark, smoothing, runColours, smoother,
                                              outliers};
        const drawn = drawnKeys();
        // Charts on screen whose points are missing or older than the plan: fetched now (drawn
        // when they arrive; the loaded ones are drawn by this callback's answer). Slots not yet
        // in the document are observed when they arrive (the MutationObserver).
        watchSlots();
        inView.forEach(chartId => {
          const data = loaded[chartId];
          if (byId[chartId] && (!data || data.stamp !== byId[chartId].stamp || data.failed)) {
            load(chartId);
          }
        });
        const existing = new Set(graphIds.map(id => id.chart));
        const charts = Object.keys(byId).filter(c => existing.has(c) || hasGraph(c));
        if (triggered.length && triggered.every(isSmoothing)) {
          // Charts quickSmooth already drew at this smoothing are left alone.
          const stale = charts.filter(c => drawn[c] !== drawnKey(state, c, smoothing));
          if (!stale.length || restyleInPlace(stale, state, smoothing)) {
            stale.forEach(c => { drawn[c] = drawnKey(state, c, smoothing); });
            return unchanged;
          }
        }
        const figures = graphIds.map(id => {
          if (!loaded[id.chart]) return noUpdate;
          const key = drawnKey(state, id.chart, smoothing);
          if (drawn[id.chart] === key) return noUpdate;
          drawn[id.chart] = key;
          return figureOf(state, id.chart, smoothing) || noUpdate;
        });
        // Charts loaded before their slot's graph exists (a new grid of charts loaded before,
        // or points that came before this first render): drawn one per task, top first.
        slotIds.forEach(id => {
          if (!existing.has(id.chart) && !hasGraph(id.chart) && loaded[id.chart] &&
              loaded[id.chart].stamp === (byId[id.chart] || {}).stamp) drawSoon(id.chart);
        });
        return [slotIds.map(() => noUpdate), figures];
      },

      /* Zoom history per chart: every box zoom is remembered; "back" returns one step. */
      zoom(relayout, backClicks, resetClicks, history, id) {
        const triggered = window.dash_clientside.callback_context.triggered[0].prop_id;
        const stack = (history || []).slice();
        const div = graphDiv(id);
        const whole = () => {  // back to the page's data for the whole series
          if (refined[id.chart]) { delete refined[id.chart]; redraw(id.chart); }
        };
        if (triggered.includes("chart-reset")) {
          if (div) window.Plotly.relayout(div, {"xaxis.autorange": true, "yaxis.autorange": true});
          whole();
          return [];
        }
        if (triggered.includes("chart-back")) {
          stack.pop();
          const previous = stack[stack.length - 1];
          if (div) {
            window._diZoomSilent = true;
            window.Plotly.relayout(div, previous || {"xaxis.autorange": true,
                                                     "yaxis.autorange": true});
          }
          if (previous) {
            refine(id.chart, [previous["xaxis.range[0]"], previous["xaxis.range[1]"]]);
          }
          else whole();
          return stack;
        }
        if (window._diZoomSilent) { window._diZoomSilent = false; return stack; }
        if (relayout && relayout["xaxis.range[0]"] !== undefined) {
          const view = {};
          ["xaxis.range[0]", "xaxis.range[1]", "yaxis.range[0]", "yaxis.range[1]"]
            .forEach(k => { if (relayout[k] !== undefined) view[k] = relayout[k]; });
          stack.push(view);
          refine(id.chart, [view["xaxis.range[0]"], view["xaxis.range[1]"]]);
        } else if (relayout && relayout["xaxis.range"] !== undefined) {
          refine(id.chart, relayout["xaxis.range"]);  // a range set as one array (Plotly.relayout)
        } else if (relayout && relayout["xaxis.autorange"]) {
          whole();
          return [];
        }
        return stack;
      },

      /* The best-value button says which extreme its chart marks (``value``: the direction
         guessed from the tag; an odd number of clicks flips it). */
      bestLabel(clicks, guessed) {
        const flipped = (clicks || 0) % 2 === 1;
        const direction = (guessed === "max") !== flipped ? "max" : "min";
        return window.dashInsightText(`best: ${direction}`);
      },

      /* Whether the pin buttons must change their look (dash_insight/plugins/scalars/
         page_pins.py register_pin_callbacks): [a count one higher] for the page's pin-looks
         store when a button's class (di-pinned) disagrees with the page's pins, else nothing.
         At load, with nothing pinned, the buttons as the layout drew them are right, and the
         server is not asked. `stores`: the page's pins stores (one), `values` the buttons'
         tags, `classes` their classes, `due` the pin-looks stores' counts. */
      pinLooksDue(stores, _ids, values, classes, due) {
        const noUpdate = window.dash_clientside.no_update;
        const pins = new Set(Array.isArray(stores) && Array.isArray(stores[0]) ? stores[0] : []);
        const wrong = (values || []).some((value, i) => pins.has(value) !==
          String((classes || [])[i] || "").split(" ").includes("di-pinned"));
        return (due || []).map(count => (wrong ? (Number(count) || 0) + 1 : noUpdate));
      },

      fullScreen(clicks, className) {
        const classes = (className || "").split(" ").filter(Boolean);
        const full = classes.includes("di-full");
        const next = full ? classes.filter(c => c !== "di-full") : classes.concat("di-full");
        setTimeout(() => window.dispatchEvent(new Event("resize")), 50);
        return next.join(" ");
      },

      syncSmoothing(sliderValue, boxValue) {
        const triggered = window.dash_clientside.callback_context.triggered[0].prop_id;
        const raw = triggered.includes('"chart-smoothing-box"') ? boxValue : sliderValue;
        const value = Math.min(0.99, Math.max(0, Number(raw) || 0));
        return [value, value];
      },
    },
  });
})();
