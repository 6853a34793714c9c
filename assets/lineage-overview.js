/* The lineage overview's small charts (dash_insight/plugins/lineage/page.py): the objective's
   distribution, the parameters' importance and a parameter against the objective, drawn in
   plain SVG from the specs of figures.py (distribution_chart, importance_chart, scatter_chart,
   message_chart) that the lineage-overview-charts store holds, {name: spec | null}. Plotly's
   build was loaded for these three charts alone.

   Spec: {height, margin: {l, r, t, b}, message: [line, ...] | null, legend,
          x, y: {kind: "category", labels, angle, title}
                | {kind: "number", range: [low, high], ticks: [[value, text]], title},
          series: [{name, colour, mark: "bar" | "dot", points: [[x, y, [hover line, ...]]]}]}
   A point's place on a category axis is its label's index (labels from the left, or from
   the top); a bar goes from 0 along the number axis, the bars of a category side by side.
   Hovering a bar or a dot shows its lines, the first one bold. */
(function () {
  "use strict";
  const CHARTS = ["distribution", "importance", "scatter"];
  const BAR_GAP = 0.2;        // of a category's band, between two categories' bars
  const DOT_RADIUS = 4.5;     // px
  const TICK = 4;             // px: a tick's length
  const LINE = 13;            // px from a line of a message to the next
  const LEGEND_KEY = 10;      // px: a legend entry's colour square
  const drawn = new Map();    // container id -> the spec drawn in it
  let observer = null;

  const escape = text => String(text).replace(/[&<>"']/g, ch => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[ch]));
  const number = value => (Math.round(value * 100) / 100).toString();

  /* Pixel place of a value between `start` and `end` px (a category: its band's middle). */
  function scale(axis, start, end) {
    if (axis.kind === "category") {
      const band = (end - start) / Math.max(1, axis.labels.length);
      return {band: Math.abs(band), at: index => start + (index + 0.5) * band};
    }
    const [low, high] = axis.range;
    const span = high - low || 1;
    return {band: 0, at: value => start + ((value - low) / span) * (end - start)};
  }

  function messageMarkup(lines, width, height) {
    const first = height / 2 - ((lines.length - 1) * LINE) / 2;
    return `<text class="di-oc-message" text-anchor="middle">` + lines.map((line, k) =>
      `<tspan x="${number(width / 2)}" y="${number(first + k * LINE)}" dy="0.32em">` +
      `${escape(line)}</tspan>`).join("") + "</text>";
  }

  /* A number axis' grid lines and tick labels (x: below the plot, y: left of it). */
  function numberAxisMarkup(axis, at, horizontal, box) {
    let out = "";
    for (const [value, text] of axis.ticks) {
      const p = number(at(value));
      out += horizontal
        ? `<line class="di-oc-grid" x1="${p}" x2="${p}" y1="${box.top}" y2="${box.bottom}">` +
          `</line><text x="${p}" y="${box.bottom + TICK + 2}" dy="0.71em" ` +
          `text-anchor="middle">${escape(text)}</text>`
        : `<line class="di-oc-grid" x1="${box.left}" x2="${box.right}" y1="${p}" y2="${p}">` +
          `</line><text x="${box.left - TICK - 2}" y="${p}" dy="0.32em" ` +
          `text-anchor="end">${escape(text)}</text>`;
    }
    return out;
  }

  /* A category axis' labels (x: under each band, turned by its angle; y: left of each). */
  function categoryAxisMarkup(axis, at, horizontal, box) {
    return axis.labels.map((label, i) => {
      const p = number(at(i));
      if (!horizontal) {
        return `<text x="${box.left - TICK - 2}" y="${p}" dy="0.32em" ` +
               `text-anchor="end">${escape(label)}</text>`;
      }
      const angle = axis.angle || 0;
      return `<text transform="translate(${p},${box.bottom + TICK + 2}) rotate(${angle})" ` +
             `dy="0.71em" text-anchor="${angle ? "end" : "middle"}">${escape(label)}</text>`;
    }).join("");
  }

  function axisMarkup(axis, at, horizontal, box) {
    return axis.kind === "category" ? categoryAxisMarkup(axis, at, horizontal, box)
                                    : numberAxisMarkup(axis, at, horizontal, box);
  }

  function titlesMarkup(spec, box, height) {
    let out = "";
    if (spec.x.title) {
      out += `<text class="di-oc-title" x="${number((box.left + box.right) / 2)}" ` +
             `y="${height - 4}" text-anchor="middle">${escape(spec.x.title)}</text>`;
    }
    if (spec.y.title) {
      out += `<text class="di-oc-title" text-anchor="middle" dy="0.71em" transform="` +
             `translate(2,${number((box.top + box.bottom) / 2)}) rotate(-90)">` +
             `${escape(spec.y.title)}</text>`;
    }
    return out;
  }

  /* The marks: bars (from 0 on the number axis, a category's bars side by side) and dots. */
  function marksMarkup(spec, xs, ys) {
    const vertical = spec.x.kind === "category";  // bars stand on the x axis
    const bars = spec.series.filter(s => s.mark === "bar");
    const band = (vertical ? xs : ys).band;
    const group = band * (1 - BAR_GAP), thickness = group / Math.max(1, bars.length);
    return spec.series.map((series, s) => {
      const colour = escape(series.colour);
      const k = bars.indexOf(series);
      return `<g class="di-oc-series" fill="${colour}">` + series.points.map(([x, y], p) => {
        const data = `data-series="${s}" data-point="${p}"`;
        if (series.mark === "dot") {
          return `<circle class="di-oc-mark" ${data} cx="${number(xs.at(x))}" ` +
                 `cy="${number(ys.at(y))}" r="${DOT_RADIUS}"></circle>`;
        }
        if (vertical) {
          const left = xs.at(x) - group / 2 + k * thickness;
          const top = Math.min(ys.at(y), ys.at(0)), size = Math.abs(ys.at(y) - ys.at(0));
          return `<rect class="di-oc-mark" ${data} x="${number(left)}" y="${number(top)}" ` +
                 `width="${number(thickness)}" height="${number(size)}"></rect>`;
        }
        const top = ys.at(y) - group / 2 + k * thickness;
        const left = Math.min(xs.at(x), xs.at(0)), size = Math.abs(xs.at(x) - xs.at(0));
        return `<rect class="di-oc-mark" ${data} x="${number(left)}" y="${number(top)}" ` +
               `width="${number(size)}" height="${number(thickness)}"></rect>`;
      }).join("") + "</g>";
    }).join("");
  }

  /* The series' names in the top margin, from the chart's left edge. */
  function legendMarkup(spec) {
    let x = 4, out = '<g class="di-oc-legend">';
    const y = Math.max(LEGEND_KEY, spec.margin.t - LEGEND_KEY - 8);
    for (const series of spec.series) {
      out += `<rect x="${x}" y="${y}" width="${LEGEND_KEY}" height="${LEGEND_KEY}" ` +
             `fill="${escape(series.colour)}"></rect><text x="${x + LEGEND_KEY + 4}" ` +
             `y="${y + LEGEND_KEY / 2}" dy="0.32em">${escape(series.name)}</text>`;
      x += LEGEND_KEY + 14 + 6.5 * String(series.name).length;
    }
    return out + "</g>";
  }

  function render(container, spec) {
    drawn.set(container.id, spec);
    const width = container.clientWidth || 300, height = spec.height;
    let svg = `<svg class="di-oc" width="${width}" height="${height}" ` +
              `viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">`;
    if (spec.message) {
      container.innerHTML = svg + messageMarkup(spec.message, width, height) + "</svg>";
      return;
    }
    const m = spec.margin;
    const box = {left: m.l, right: Math.max(m.l + 1, width - m.r),
                 top: m.t, bottom: Math.max(m.t + 1, height - m.b)};
    // Categories from the left or from the top; numbers rightwards and upwards.
    const xs = scale(spec.x, box.left, box.right);
    const ys = spec.y.kind === "category" ? scale(spec.y, box.top, box.bottom)
                                          : scale(spec.y, box.bottom, box.top);
    svg += axisMarkup(spec.x, xs.at, true, box) + axisMarkup(spec.y, ys.at, false, box);
    svg += `<line class="di-oc-axis" x1="${box.left}" x2="${box.right}" y1="${box.bottom}" ` +
           `y2="${box.bottom}"></line><line class="di-oc-axis" x1="${box.left}" ` +
           `x2="${box.left}" y1="${box.top}" y2="${box.bottom}"></line>`;
    svg += marksMarkup(spec, xs, ys) + titlesMarkup(spec, box, height);
    if (spec.legend) svg += legendMarkup(spec);
    container.innerHTML = svg + '</svg><div class="di-oc-tooltip" hidden></div>';
  }

  function hover(event) {
    const container = event.currentTarget, spec = drawn.get(container.id);
    const tooltip = container.querySelector(".di-oc-tooltip");
    const mark = event.target.closest && event.target.closest(".di-oc-mark");
    container.querySelectorAll(".di-oc-mark.is-hovered").forEach(element =>
      element.classList.remove("is-hovered"));
    if (!tooltip) return;
    if (!mark || !spec || event.type === "pointerleave") {
      tooltip.hidden = true;
      return;
    }
    mark.classList.add("is-hovered");
    const point = spec.series[Number(mark.dataset.series)].points[Number(mark.dataset.point)];
    tooltip.textContent = "";
    point[2].forEach((text, i) => {
      const row = document.createElement(i ? "div" : "strong");
      row.textContent = text;
      tooltip.appendChild(row);
    });
    tooltip.hidden = false;
    const box = container.getBoundingClientRect();
    const x = event.clientX - box.left, y = event.clientY - box.top;
    const flip = x + tooltip.offsetWidth + 16 > box.width;
    tooltip.style.left = Math.max(0, flip ? x - tooltip.offsetWidth - 12 : x + 12) + "px";
    tooltip.style.top = Math.max(0, y - tooltip.offsetHeight - 8) + "px";
  }

  function listen(container) {
    if (container.dataset.ocListening) return;
    container.dataset.ocListening = "1";
    container.addEventListener("pointermove", hover);
    container.addEventListener("pointerleave", hover);
    if (!window.ResizeObserver) return;
    if (!observer) {
      // The panel's width follows the window's: draw again at the new width.
      observer = new ResizeObserver(entries => entries.forEach(entry => {
        const element = entry.target, spec = drawn.get(element.id);
        const svg = element.querySelector("svg.di-oc");
        if (spec && svg && Number(svg.getAttribute("width")) !== element.clientWidth) {
          render(element, spec);
        }
      }));
    }
    observer.observe(container);
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lineageOverview: {
      /* lineage-overview-charts -> each chart drawn in its box (emptied without a spec);
         returns how many it drew. */
      draw(charts) {
        let count = 0;
        for (const name of CHARTS) {
          const container = document.getElementById(`lineage-${name}`);
          if (!container) continue;
          const spec = charts && charts[name];
          if (!spec) {
            drawn.delete(container.id);
            container.textContent = "";
            continue;
          }
          listen(container);
          render(container, spec);
          count += 1;
        }
        return count;
      },
    },
  });
})();
