/* Small charts drawn in plain SVG: the Dash component `SvgChart` of namespace `dash_insight`
   (dash_insight/web/components/svg_chart.py says why and builds the specs). React comes from
   Dash's page (window.React): no build step.

   Spec: {height, margin: {l, r, t, b}, message: [line, ...] | null, ...} and either
   - a pie: {kind: "pie", slices: [[value, colour, text, [hover line, ...]]]}, clockwise from
     the top, each slice's text inside it when it has room; or
   - axes and marks: {legend, overlay, barWidth,
       x, y: {kind: "category", labels, angle, title}
             | {kind: "number", range: [low, high], ticks: [[value, text]], title},
       series: [{name, colour, mark: "bar" | "dot" | "span", points}]}.
     A point is [x, y, [hover line, ...]], a span's [start, row, [hover line, ...], end].
     A point's place on a category axis is its label's index (labels from the left, or from
     the top). A bar goes from 0 along its number axis; on a category axis the bars of a
     category stand side by side in its band (over each other with `overlay`), on a number
     axis they are `barWidth` wide (in its units). A span is a bar from start to end on the
     x axis, in its row of the y axis (at least 1 px wide).
   Hovering a mark shows its lines, the first one bold. */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const BAR_GAP = 0.2;        // of a category's band, between two categories' bars
  const SPAN_HEIGHT = 0.6;    // of a row's band
  const DOT_RADIUS = 4.5;     // px
  const TICK = 4;             // px: a tick's length
  const LINE = 13;            // px from a line of a message to the next
  const LEGEND_KEY = 10;      // px: a legend entry's colour square
  const PIE_TEXT_SHARE = 0.03;  // slices smaller than this share keep their text for the hover

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
    const perUnit = (end - start) / span;
    return {band: 0, perUnit: Math.abs(perUnit), at: value => start + (value - low) * perUnit};
  }

  function messageMarkup(lines, width, height) {
    const first = height / 2 - ((lines.length - 1) * LINE) / 2;
    return `<text class="di-svg-message" text-anchor="middle">` + lines.map((line, k) =>
      `<tspan x="${number(width / 2)}" y="${number(first + k * LINE)}" dy="0.32em">` +
      `${escape(line)}</tspan>`).join("") + "</text>";
  }

  /* A number axis' grid lines and tick labels (x: below the plot, y: left of it; classed
     di-svg-xtick and di-svg-ytick, as a category axis' labels). */
  function numberAxisMarkup(axis, at, horizontal, box) {
    let out = "";
    for (const [value, text] of axis.ticks) {
      const p = number(at(value));
      out += horizontal
        ? `<line class="di-svg-grid" x1="${p}" x2="${p}" y1="${box.top}" y2="${box.bottom}">` +
          `</line><text class="di-svg-xtick" x="${p}" y="${box.bottom + TICK + 2}" dy="0.71em" ` +
          `text-anchor="middle">${escape(text)}</text>`
        : `<line class="di-svg-grid" x1="${box.left}" x2="${box.right}" y1="${p}" y2="${p}">` +
          `</line><text class="di-svg-ytick" x="${box.left - TICK - 2}" y="${p}" dy="0.32em" ` +
          `text-anchor="end">${escape(text)}</text>`;
    }
    return out;
  }

  /* A category axis' labels (x: under each band, turned by its angle; y: left of each). */
  function categoryAxisMarkup(axis, at, horizontal, box) {
    return axis.labels.map((label, i) => {
      const p = number(at(i));
      if (!horizontal) {
        return `<text class="di-svg-ytick" x="${box.left - TICK - 2}" y="${p}" dy="0.32em" ` +
               `text-anchor="end">${escape(label)}</text>`;
      }
      const angle = axis.angle || 0;
      return `<text class="di-svg-xtick" ` +
             `transform="translate(${p},${box.bottom + TICK + 2}) rotate(${angle})" ` +
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
      out += `<text class="di-svg-title" x="${number((box.left + box.right) / 2)}" ` +
             `y="${height - 4}" text-anchor="middle">${escape(spec.x.title)}</text>`;
    }
    if (spec.y.title) {
      out += `<text class="di-svg-title" text-anchor="middle" dy="0.71em" transform="` +
             `translate(2,${number((box.top + box.bottom) / 2)}) rotate(-90)">` +
             `${escape(spec.y.title)}</text>`;
    }
    return out;
  }

  const rect = (data, x, y, width, height) =>
    `<rect class="di-svg-mark" ${data} x="${number(x)}" y="${number(y)}" ` +
    `width="${number(width)}" height="${number(height)}"></rect>`;

  /* The marks of a chart with axes (see the spec above). */
  function marksMarkup(spec, xs, ys) {
    const vertical = spec.y.kind !== "category";  // bars stand on the x axis
    const along = vertical ? xs : ys, value = vertical ? ys : xs;
    const bars = spec.series.filter(s => s.mark === "bar");
    const band = along.band || (spec.barWidth || 1) * along.perUnit;
    const group = along.band ? band * (1 - BAR_GAP) : band;
    const thickness = spec.overlay ? group : group / Math.max(1, bars.length);
    return spec.series.map((series, s) => {
      const k = spec.overlay ? 0 : bars.indexOf(series);
      return `<g class="di-svg-series" fill="${escape(series.colour)}">` +
        series.points.map((point, p) => {
          const data = `data-series="${s}" data-point="${p}"`;
          if (series.mark === "dot") {
            return `<circle class="di-svg-mark" ${data} cx="${number(xs.at(point[0]))}" ` +
                   `cy="${number(ys.at(point[1]))}" r="${DOT_RADIUS}"></circle>`;
          }
          if (series.mark === "span") {
            const left = xs.at(point[0]);
            const width = Math.max(1, xs.at(point[3]) - left);
            const height = ys.band * SPAN_HEIGHT;
            return rect(data, left, ys.at(point[1]) - height / 2, width, height);
          }
          const start = along.at(vertical ? point[0] : point[1]) - group / 2 + k * thickness;
          const end = value.at(vertical ? point[1] : point[0]), zero = value.at(0);
          return vertical
            ? rect(data, start, Math.min(end, zero), thickness, Math.abs(end - zero))
            : rect(data, Math.min(end, zero), start, Math.abs(end - zero), thickness);
        }).join("") + "</g>";
    }).join("");
  }

  /* The series' names in the top margin, from the chart's left edge. */
  function legendMarkup(spec) {
    let x = 4, out = '<g class="di-svg-legend">';
    const y = Math.max(2, spec.margin.t - LEGEND_KEY - 8);
    for (const series of spec.series) {
      out += `<rect x="${x}" y="${y}" width="${LEGEND_KEY}" height="${LEGEND_KEY}" ` +
             `fill="${escape(series.colour)}"></rect><text x="${x + LEGEND_KEY + 4}" ` +
             `y="${y + LEGEND_KEY / 2}" dy="0.32em">${escape(series.name)}</text>`;
      x += LEGEND_KEY + 14 + 6.5 * String(series.name).length;
    }
    return out + "</g>";
  }

  function axesMarkup(spec, width, height) {
    const m = spec.margin;
    const box = {left: m.l, right: Math.max(m.l + 1, width - m.r),
                 top: m.t, bottom: Math.max(m.t + 1, height - m.b)};
    // Categories from the left or from the top; numbers rightwards and upwards.
    const xs = scale(spec.x, box.left, box.right);
    const ys = spec.y.kind === "category" ? scale(spec.y, box.top, box.bottom)
                                          : scale(spec.y, box.bottom, box.top);
    let out = axisMarkup(spec.x, xs.at, true, box) + axisMarkup(spec.y, ys.at, false, box);
    out += `<line class="di-svg-axis" x1="${box.left}" x2="${box.right}" y1="${box.bottom}" ` +
           `y2="${box.bottom}"></line><line class="di-svg-axis" x1="${box.left}" ` +
           `x2="${box.left}" y1="${box.top}" y2="${box.bottom}"></line>`;
    out += marksMarkup(spec, xs, ys) + titlesMarkup(spec, box, height);
    return spec.legend ? out + legendMarkup(spec) : out;
  }

  /* A pie, clockwise from the top; a slice's text at the middle of its radius. */
  function pieMarkup(spec, width, height) {
    const m = spec.margin;
    const radius = Math.max(1, Math.min(width - m.l - m.r, height - m.t - m.b) / 2);
    const cx = m.l + (width - m.l - m.r) / 2, cy = m.t + (height - m.t - m.b) / 2;
    const total = spec.slices.reduce((sum, slice) => sum + Math.max(0, slice[0]), 0) || 1;
    const point = (angle, r) => [cx + r * Math.sin(angle), cy - r * Math.cos(angle)];
    let angle = 0, marks = "", texts = "";
    spec.slices.forEach(([value, colour, text], i) => {
      const share = Math.max(0, value) / total;
      if (!share) return;
      const end = angle + share * 2 * Math.PI;
      const data = `data-series="0" data-point="${i}" fill="${escape(colour)}"`;
      if (share >= 1 - 1e-9) {
        marks += `<circle class="di-svg-mark" ${data} cx="${number(cx)}" cy="${number(cy)}" ` +
                 `r="${number(radius)}"></circle>`;
      } else {
        const [x0, y0] = point(angle, radius), [x1, y1] = point(end, radius);
        marks += `<path class="di-svg-mark" ${data} d="M${number(cx)},${number(cy)}` +
                 `L${number(x0)},${number(y0)}A${number(radius)},${number(radius)} 0 ` +
                 `${share > 0.5 ? 1 : 0} 1 ${number(x1)},${number(y1)}Z"></path>`;
      }
      if (text && share >= PIE_TEXT_SHARE) {
        const [tx, ty] = point((angle + end) / 2, radius * 0.62);
        texts += `<text class="di-svg-pie-text" x="${number(tx)}" y="${number(ty)}" ` +
                 `dy="0.32em" text-anchor="middle">${escape(text)}</text>`;
      }
      angle = end;
    });
    return marks + texts;
  }

  /* The chart of `spec` in `container`, as wide as it is. */
  function draw(container, spec) {
    const tooltip = '<div class="di-svg-tooltip" hidden></div>';
    if (!spec) {
      container.innerHTML = "";
      return;
    }
    const width = container.clientWidth || 300, height = spec.height;
    let svg = `<svg class="di-svg" width="${width}" height="${height}" ` +
              `viewBox="0 0 ${width} ${height}" xmlns="${SVG}">`;
    if (spec.message) {
      svg += messageMarkup(spec.message, width, height);
    } else {
      svg += spec.kind === "pie" ? pieMarkup(spec, width, height)
                                 : axesMarkup(spec, width, height);
    }
    container.innerHTML = svg + "</svg>" + tooltip;
  }

  /* The hover lines of the mark under the pointer, in the tooltip beside it. */
  function hover(container, spec, event) {
    const tooltip = container.querySelector(".di-svg-tooltip");
    const mark = event.target.closest && event.target.closest(".di-svg-mark");
    container.querySelectorAll(".di-svg-mark.is-hovered").forEach(element =>
      element.classList.remove("is-hovered"));
    if (!tooltip) return;
    if (!mark || !spec || event.type === "pointerleave") {
      tooltip.hidden = true;
      return;
    }
    mark.classList.add("is-hovered");
    const index = Number(mark.dataset.point);
    const lines = spec.kind === "pie" ? spec.slices[index][3]
      : spec.series[Number(mark.dataset.series)].points[index][2];
    tooltip.textContent = "";
    lines.forEach((text, i) => {
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

  /* SvgChart: `spec` drawn in a div, again when the div's width changes. */
  function SvgChart(props) {
    const React = window.React;
    const box = React.useRef(null);
    const spec = React.useRef(props.spec);
    spec.current = props.spec;
    React.useLayoutEffect(() => draw(box.current, props.spec), [props.spec]);
    React.useEffect(() => {
      const element = box.current;
      const onPointer = event => hover(element, spec.current, event);
      element.addEventListener("pointermove", onPointer);
      element.addEventListener("pointerleave", onPointer);
      let observer = null;
      if (window.ResizeObserver) {
        observer = new ResizeObserver(() => {
          const svg = element.querySelector("svg.di-svg");
          if (svg && Number(svg.getAttribute("width")) !== element.clientWidth) {
            draw(element, spec.current);
          }
        });
        observer.observe(element);
      }
      return () => {
        element.removeEventListener("pointermove", onPointer);
        element.removeEventListener("pointerleave", onPointer);
        if (observer) observer.disconnect();
      };
    }, []);
    return React.createElement("div", {
      id: props.id,
      ref: box,
      className: props.className,  // di-svg-chart and the page's (svg_chart.SvgChart)
      style: props.style,
    });
  }

  window.dash_insight = Object.assign(window.dash_insight || {}, {SvgChart});
})();
