/* The lineage page's parallel-coordinates chart (dash_insight/plugins/lineage/page.py), drawn in
   plain SVG from the spec views.parallel_chart builds (the lineage-chart-spec store). Plotly's
   parcoords trace draws with WebGL: without a GPU (software rendering) it froze the page for
   seconds; this draws 150 jobs x 12 axes in 17-78 ms of main thread, layout included
   (headless Chromium, load average 10 on 2 cores).

   Spec: {height, margin: {l, r, t, b}, labelAngle, message, brushHint,
          axes: [{id, kind: "number" | "category", title: [line, ...], fullTitle,
                  ticks: [[fraction, text, whole text]], brushes: [[a, b]]}],
          lines: [{id, colour, selected, points: [fraction per axis],
                   hover: [job, "label: value", ...]}],
          colourbar: {title, fullTitle, stops: [[offset, colour]], ticks: [[fraction, text]],
                      missing: colour | null} | null}
   Fractions are heights above an axis' foot (0) up to its top (1).

   A drag along an axis brushes it (Shift adds a range to the axis' brushes); a click on a
   brushed axis clears it. The result goes to the lineage-brush store as
   {axis: index, id, ranges: [[a, b], ...] | null}; the server turns it into the URL's filter
   and sends the chart back with the brush and the dimmed lines. Hovering a line shows the job
   and its values whole. */
(function () {
  "use strict";
  const CONTAINER = "lineage-chart";
  const BRUSH_WIDTH = 24;     // px: the band around an axis that takes a drag
  const CLICK_PX = 3;         // a drag shorter than this is a click
  const MIN_TICK_GAP = 12;    // px between two category tick labels (closer ones are skipped)
  const TICK_OFFSET = 7;      // px from an axis to the right end of its tick labels
  const TICK_GAP = 6;         // px kept clear between a tick label and the axis left of it
  const TITLE_LINE = 13;      // px from a line of an axis title to the next (figures.py's twin)
  let current = null;         // {spec, geometry} of the chart drawn
  let drag = null;            // the brush being dragged
  let observer = null;

  const escape = text => String(text).replace(/[&<>"']/g, ch => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[ch]));
  const number = value => (Math.round(value * 100) / 100).toString();

  /* Pixel geometry of a spec in a container of `width` px. */
  function geometry(spec, width) {
    const m = spec.margin || {l: 60, r: 60, t: 40, b: 24};
    const left = m.l, right = Math.max(m.l + 1, width - m.r);
    const top = m.t, bottom = Math.max(m.t + 1, spec.height - m.b);
    const count = spec.axes.length;
    const xs = spec.axes.map((_, i) => count > 1 ? left + (i * (right - left)) / (count - 1)
                                                  : (left + right) / 2);
    return {width, left, right, top, bottom, xs,
            y: fraction => bottom - fraction * (bottom - top),
            fraction: y => Math.min(1, Math.max(0, (bottom - y) / (bottom - top)))};
  }

  function linePath(line, g) {
    return "M" + line.points.map((f, i) => number(g.xs[i]) + "," + number(g.y(f))).join("L");
  }

  function axisMarkup(axis, i, g, angle, hint) {
    const x = number(g.xs[i]);
    let out = `<g class="di-pc-axis" data-axis="${i}" data-id="${escape(axis.id)}" ` +
              `data-kind="${escape(axis.kind || "number")}" ` +
              `transform="translate(${x},0)">`;
    out += `<line class="di-pc-domain" x1="0" x2="0" y1="${number(g.top)}" ` +
           `y2="${number(g.bottom)}"></line>`;
    let lastY = Infinity;
    for (const [fraction, text, whole] of axis.ticks) {
      const y = g.y(fraction);
      if (Math.abs(lastY - y) < MIN_TICK_GAP) continue;  // crowded category labels
      lastY = y;
      out += `<g class="tick" transform="translate(0,${number(y)})"><line x1="-4" x2="0">` +
             `</line><text x="${-TICK_OFFSET}" dy="0.32em" text-anchor="end">${escape(text)}` +
             `<title>${escape(whole)}</title></text></g>`;
    }
    for (const [a, b] of axis.brushes) {
      out += brushRect(g, a, b);
    }
    // A long title wraps (views.title_lines): its last line nearest the axis, the others
    // stacked above it, parallel.
    const lines = Array.isArray(axis.title) ? axis.title : [axis.title];
    const tspans = lines.map((line, k) =>
      `<tspan x="0" dy="${k ? TITLE_LINE : -(lines.length - 1) * TITLE_LINE}">` +
      `${escape(line)}</tspan>`).join("");
    out += `<text class="axis-title" text-anchor="start" transform="translate(0,` +
           `${number(g.top - 10)}) rotate(${angle})">${tspans}` +
           `<title>${escape(axis.fullTitle)}</title></text>`;
    out += `<rect class="di-pc-brush-area" data-axis="${i}" x="${-BRUSH_WIDTH / 2}" ` +
           `y="${number(g.top - 4)}" width="${BRUSH_WIDTH}" ` +
           `height="${number(g.bottom - g.top + 8)}"><title>${escape(hint || "")}</title></rect>`;
    return out + "</g>";
  }

  /* Tick labels stay between their axis and the one left of it: a longer one is shortened
     to fit (ending in "…"; its hover and the table have it whole), so no label lies across a
     neighbour's axis line. A category's label sits on a chip of the panel's colour, off the
     job lines that meet at its tick (#38 item 8). */
  function fitTickLabels(container, g) {
    container.querySelectorAll(".di-pc-axis").forEach(axis => {
      const i = Number(axis.dataset.axis);
      const room = (i ? g.xs[i] - g.xs[i - 1] : g.xs[0]) - TICK_OFFSET - TICK_GAP;
      const category = axis.dataset.kind === "category";
      axis.querySelectorAll(".tick text").forEach(text => {
        const node = text.firstChild;
        let value = node.nodeValue;
        while (value.length > 1 && text.getComputedTextLength() > room) {
          value = value.replace(/…$/, "").slice(0, -1) + "…";
          node.nodeValue = value;
        }
        if (category) {
          const box = text.getBBox();
          const chip = document.createElementNS("http://www.w3.org/2000/svg", "rect");
          chip.setAttribute("class", "di-pc-tick-chip");
          chip.setAttribute("x", number(box.x - 2));
          chip.setAttribute("y", number(box.y - 1));
          chip.setAttribute("width", number(box.width + 4));
          chip.setAttribute("height", number(box.height + 2));
          chip.setAttribute("rx", "2");
          text.parentNode.insertBefore(chip, text);
        }
      });
    });
  }

  function brushRect(g, a, b) {
    const y1 = g.y(Math.max(a, b)), y2 = g.y(Math.min(a, b));
    return `<rect class="di-pc-brush" x="-5" width="10" y="${number(y1)}" ` +
           `height="${number(Math.max(1, y2 - y1))}"></rect>`;
  }

  function colourBarMarkup(bar, g) {
    const x = g.right + 34, width = 10;
    const stops = bar.stops.map(([offset, colour]) =>
      `<stop offset="${offset}" stop-color="${colour}"></stop>`).join("");
    let out = `<g class="di-pc-colourbar"><defs><linearGradient id="di-pc-gradient" ` +
              `x1="0" y1="1" x2="0" y2="0">${stops}</linearGradient></defs>`;
    const barBottom = bar.missing ? g.bottom - 16 : g.bottom;
    const y = fraction => barBottom - fraction * (barBottom - g.top);
    out += `<rect x="${x}" y="${g.top}" width="${width}" height="${number(barBottom - g.top)}" ` +
           `fill="url(#di-pc-gradient)"></rect>`;
    if (bar.missing) {
      out += `<rect class="di-pc-missing" x="${x}" y="${number(g.bottom - 10)}" ` +
             `width="${width}" height="10" fill="${bar.missing}"></rect>`;
    }
    for (const [fraction, text] of bar.ticks) {
      out += `<g class="tick" transform="translate(${x + width},${number(y(fraction))})">` +
             `<line x1="0" x2="3"></line><text x="6" dy="0.32em">${escape(text)}</text></g>`;
    }
    const middle = (g.top + g.bottom) / 2;
    out += `<text class="di-pc-colourbar-title" text-anchor="middle" transform="translate(` +
           `${x + width + 58},${number(middle)}) rotate(90)">${escape(bar.title)}` +
           `<title>${escape(bar.fullTitle)}</title></text>`;
    return out + "</g>";
  }

  /* Which lines lie inside every brush (`brushes[i]`: the ranges of axis i, or empty). */
  function inside(line, brushes) {
    return brushes.every((ranges, i) => !ranges.length ||
      ranges.some(([a, b]) => line.points[i] >= Math.min(a, b) - 1e-9 &&
                              line.points[i] <= Math.max(a, b) + 1e-9));
  }

  function render(container, spec) {
    const width = container.clientWidth || 800;
    const g = geometry(spec, width);
    current = {spec, g};
    let svg = `<svg class="di-pc" width="${width}" height="${spec.height}" ` +
              `viewBox="0 0 ${width} ${spec.height}" xmlns="http://www.w3.org/2000/svg">`;
    if (spec.message) {
      svg += `<text class="di-pc-message" x="${width / 2}" y="${spec.height / 2}" ` +
             `text-anchor="middle">${escape(spec.message)}</text></svg>`;
      container.innerHTML = svg;
      return;
    }
    // Dimmed lines first, the selected ones over them.
    const order = spec.lines.map((line, i) => i)
      .sort((a, b) => Number(spec.lines[a].selected) - Number(spec.lines[b].selected));
    svg += '<g class="di-pc-lines">' + order.map(i => {
      const line = spec.lines[i];
      return `<path data-line="${i}" class="di-pc-line${line.selected ? "" : " is-dimmed"}" ` +
             `stroke="${escape(line.colour)}" d="${linePath(line, g)}"></path>`;
    }).join("") + "</g>";
    svg += spec.axes.map((axis, i) =>
      axisMarkup(axis, i, g, spec.labelAngle, spec.brushHint)).join("");
    // Wide transparent twins of the lines take the hover (over the axes' ticks, under the
    // brush bands so that a drag on an axis brushes).
    svg += '<g class="di-pc-hits">' + order.map(i =>
      `<path data-line="${i}" data-job="${escape(spec.lines[i].id)}" ` +
      `d="${linePath(spec.lines[i], g)}"></path>`).join("") + "</g>";
    svg += '<g class="di-pc-areas"></g>';
    if (spec.colourbar) svg += colourBarMarkup(spec.colourbar, g);
    svg += "</svg>";
    container.innerHTML = svg + '<div class="di-pc-tooltip" hidden></div>';
    fitTickLabels(container, g);
    // The brush bands on top of the hit lines.
    const areas = container.querySelector(".di-pc-areas");
    container.querySelectorAll(".di-pc-axis").forEach(axis => {
      const area = axis.querySelector(".di-pc-brush-area");
      const wrap = document.createElementNS("http://www.w3.org/2000/svg", "g");
      wrap.setAttribute("transform", axis.getAttribute("transform"));
      wrap.appendChild(area);
      areas.appendChild(wrap);
    });
  }

  /* Dim the lines outside the brushes while a brush is dragged (the server answers with the
     same selection once the drag ends). */
  function dimLive(container, brushes) {
    container.querySelectorAll(".di-pc-lines .di-pc-line").forEach(path => {
      const line = current.spec.lines[Number(path.dataset.line)];
      path.classList.toggle("is-dimmed", !inside(line, brushes));
    });
  }

  function setBrush(index, ranges) {
    const axis = current.spec.axes[index];
    window.dash_clientside.set_props("lineage-brush", {data: {
      axis: index, id: axis.id, ranges: ranges.length ? ranges : null, at: Date.now()}});
  }

  function onPointerDown(event) {
    const area = event.target.closest && event.target.closest(".di-pc-brush-area");
    if (!area || !current || event.button !== 0) return;
    event.preventDefault();
    const container = document.getElementById(CONTAINER);
    const index = Number(area.dataset.axis);
    const box = container.querySelector("svg").getBoundingClientRect();
    drag = {index, box, startY: event.clientY - box.top, endY: event.clientY - box.top,
            keep: event.shiftKey ? current.spec.axes[index].brushes.slice() : [],
            container};
    area.setPointerCapture && area.setPointerCapture(event.pointerId);
  }

  function dragRanges() {
    const g = current.g;
    const a = g.fraction(drag.startY), b = g.fraction(drag.endY);
    return [...drag.keep, [Math.min(a, b), Math.max(a, b)]];
  }

  function onPointerMove(event) {
    if (drag) {
      drag.endY = event.clientY - drag.box.top;
      if (Math.abs(drag.endY - drag.startY) < CLICK_PX) return;
      const axis = drag.container.querySelector(`.di-pc-axis[data-axis="${drag.index}"]`);
      axis.querySelectorAll(".di-pc-brush").forEach(rect => rect.remove());
      const ranges = dragRanges();
      axis.insertAdjacentHTML("beforeend", ranges.map(([a, b]) =>
        brushRect(current.g, a, b)).join(""));
      const brushes = current.spec.axes.map((axis_, i) =>
        i === drag.index ? ranges : axis_.brushes);
      dimLive(drag.container, brushes);
      return;
    }
    hover(event);
  }

  function onPointerUp(event) {
    if (!drag) return;
    drag.endY = event.clientY - drag.box.top;
    const index = drag.index;
    if (Math.abs(drag.endY - drag.startY) < CLICK_PX) {
      if (current.spec.axes[index].brushes.length) {  // a click clears: at once on screen
        drag.container.querySelectorAll(`.di-pc-axis[data-axis="${index}"] .di-pc-brush`)
          .forEach(rect => rect.remove());
        dimLive(drag.container, current.spec.axes.map((axis, i) => i === index ? []
                                                                             : axis.brushes));
        setBrush(index, []);
      }
    } else {
      setBrush(index, dragRanges());
    }
    drag = null;
  }

  function hover(event) {
    const container = document.getElementById(CONTAINER);
    if (!container || !current) return;
    const tooltip = container.querySelector(".di-pc-tooltip");
    const hit = event.target.closest && event.target.closest(".di-pc-hits path");
    container.querySelectorAll(".di-pc-line.is-hovered").forEach(p =>
      p.classList.remove("is-hovered"));
    if (!hit || !tooltip) {
      if (tooltip) tooltip.hidden = true;
      return;
    }
    const index = hit.dataset.line;
    const line = current.spec.lines[Number(index)];
    const path = container.querySelector(`.di-pc-lines [data-line="${index}"]`);
    if (path) {
      path.classList.add("is-hovered");
      path.parentNode.appendChild(path);  // drawn over the others
    }
    tooltip.textContent = "";
    line.hover.forEach((text, i) => {
      const row = document.createElement(i ? "div" : "strong");
      row.textContent = text;
      tooltip.appendChild(row);
    });
    tooltip.dataset.job = line.id;
    tooltip.hidden = false;
    const box = container.getBoundingClientRect();
    const x = event.clientX - box.left, y = event.clientY - box.top;
    const flip = x + tooltip.offsetWidth + 16 > box.width;
    tooltip.style.left = (flip ? x - tooltip.offsetWidth - 12 : x + 12) + "px";
    tooltip.style.top = Math.max(0, y - tooltip.offsetHeight / 2) + "px";
  }

  function listen(container) {
    if (container.dataset.pcListening) return;
    container.dataset.pcListening = "1";
    container.addEventListener("pointerdown", onPointerDown);
    container.addEventListener("pointermove", onPointerMove);
    container.addEventListener("pointerup", onPointerUp);
    container.addEventListener("pointercancel", () => { drag = null; });
    container.addEventListener("pointerleave", event => { if (!drag) hover(event); });
    if (window.ResizeObserver) {
      if (observer) observer.disconnect();
      let width = container.clientWidth;
      observer = new ResizeObserver(() => {
        if (!current || drag || container.clientWidth === width) return;
        width = container.clientWidth;
        window.requestAnimationFrame(() => render(container, current.spec));
      });
      observer.observe(container);
    }
  }

  /* The chart as a standalone SVG file: the theme's styles (CSS variables) written into each
     element, on the panel's background, without the hover and brush bands. */
  function standalone(svg) {
    const copy = svg.cloneNode(true);
    const originals = svg.querySelectorAll("*"), copies = copy.querySelectorAll("*");
    const properties = ["fill", "stroke", "stroke-width", "stroke-opacity", "fill-opacity",
                        "opacity", "font-family", "font-size", "font-weight"];
    originals.forEach((element, i) => {
      const style = getComputedStyle(element);
      copies[i].setAttribute("style", properties.map(p =>
        `${p}:${style.getPropertyValue(p)}`).join(";"));
    });
    copy.querySelectorAll(".di-pc-hits, .di-pc-areas").forEach(g => g.remove());
    const background = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    background.setAttribute("width", "100%");
    background.setAttribute("height", "100%");
    background.setAttribute("fill", getComputedStyle(svg.parentNode).getPropertyValue(
      "--panel").trim() || "#fff");
    copy.insertBefore(background, copy.firstChild);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' +
      new XMLSerializer().serializeToString(copy);
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lineageChart: {
      /* "Save chart": lineage.svg, as drawn now. */
      save() {
        const svg = document.querySelector(`#${CONTAINER} svg`);
        if (svg) {
          const url = URL.createObjectURL(new Blob([standalone(svg)], {type: "image/svg+xml"}));
          const link = document.createElement("a");
          link.href = url;
          link.download = "lineage.svg";
          document.body.appendChild(link);
          link.click();
          link.remove();
          window.setTimeout(() => URL.revokeObjectURL(url), 1000);
        }
        return window.dash_clientside.no_update;
      },

      /* lineage-chart-spec -> the SVG chart; returns how many lines it drew. */
      draw(spec) {
        const container = document.getElementById(CONTAINER);
        if (!container || !spec || !Array.isArray(spec.axes)) {
          return window.dash_clientside.no_update;
        }
        listen(container);
        drag = null;
        render(container, spec);
        return spec.lines.length;
      },
    },
  });
})();
