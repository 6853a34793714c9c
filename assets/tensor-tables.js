/* The tensor table of a small slice as a plain HTML table (dash_insight/plugins/tensors/
   query_table.py plain_table; mounted into its card by tensorsPage, assets/per-tag-pages.js).
   It looks and behaves as the AG Grid of a larger slice (tensors/page.py _grid): a header of
   the tensor's indices, a row index pinned on the left, the header pinned on top, cells
   formatted and coloured by the grid's functions (tensorValue, tensorCellStyle, tensorRowIndex
   of assets/dashAgGridFunctions-tensors.js: one definition of the format), columns resized by
   dragging their header's right edge, a cell focused by a click and moved by the arrow keys.
   Every cell is in the page (at most PLAIN_MAX_VALUES), drawn in a few milliseconds, where a
   grid took the page 0.1-0.2 s of main thread to mount.

   window.dashInsightTensorTable.draw(plain, format) -> the table's box (a new element);
   .reformat(box, format) formats its cells again; ``format`` ({fmt, dec}, or null: the
   slice's own) is the value format and decimals chosen on the page. */
(function () {
  /* Column widths (tensors/page.py _grid): values, text (wrapped), the row index. */
  const VALUE_WIDTH = 104;
  const TEXT_WIDTH = 480;
  const INDEX_WIDTH = 64;
  const MIN_WIDTH = 30;  // a column dragged narrower stops here
  const tables = new WeakMap();  // box -> {plain, cells: the value cells in value order}

  const functions = () => window.dashAgGridFunctions;
  const contextOf = (plain, format) => Object.assign({}, plain.context, format || {});

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fill(cell, value, context) {
    const params = {value, context};
    cell.textContent = functions().tensorValue(params);
    const style = functions().tensorCellStyle(params);
    cell.style.color = style.color || "";
    cell.style.backgroundColor = style.backgroundColor || "";
    cell.style.whiteSpace = style.whiteSpace || "";
  }

  /* Dragging a header's right edge sets its column's width. */
  function resizer(col) {
    const handle = element("span", "di-vt-resize");
    handle.addEventListener("pointerdown", event => {
      event.preventDefault();
      handle.setPointerCapture(event.pointerId);
      const start = event.clientX, width = col.getBoundingClientRect().width;
      const move = e => { col.style.width = Math.max(MIN_WIDTH, width + e.clientX - start) + "px"; };
      const stop = () => {
        handle.removeEventListener("pointermove", move);
        handle.removeEventListener("pointerup", stop);
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", stop);
    });
    return handle;
  }

  function head(plain, colgroup) {
    const row = element("tr");
    colgroup.appendChild(element("col")).style.width = INDEX_WIDTH + "px";
    row.appendChild(element("th", "di-vt-index"));
    const width = plain.context.kind === "s" ? TEXT_WIDTH : VALUE_WIDTH;
    plain.columns.forEach(name => {
      const col = colgroup.appendChild(element("col"));
      col.style.width = width + "px";
      const cell = row.appendChild(element("th", null, name));
      cell.appendChild(resizer(col));
    });
    colgroup.appendChild(element("col"));  // the rest of the width, as the grid's
    row.appendChild(element("th", "di-vt-fill"));
    return row;
  }

  function body(plain, context, cells) {
    const tbody = element("tbody");
    const width = plain.columns.length;
    plain.rows.forEach((index, i) => {
      const row = tbody.appendChild(element("tr"));
      row.appendChild(element("td", "di-vt-index",
                              functions().tensorRowIndex({value: index})));
      for (let j = 0; j < width; j++) {
        const cell = row.appendChild(element("td"));
        cell.tabIndex = -1;
        fill(cell, plain.values[i * width + j], context);
        cells.push(cell);
      }
      row.appendChild(element("td", "di-vt-fill"));
    });
    return tbody;
  }

  /* The arrow keys move the focus from cell to cell, as in the grid. */
  const STEPS = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
  function onKey(event) {
    const step = STEPS[event.key];
    const cell = event.target;
    if (!step || cell.tagName !== "TD") return;
    const row = cell.parentElement.parentElement.rows[cell.parentElement.sectionRowIndex + step[0]];
    const next = row && row.cells[cell.cellIndex + step[1]];
    if (next && next.tabIndex === -1) {
      event.preventDefault();
      next.focus();
    }
  }

  function draw(plain, format) {
    const box = element("div", "di-vt-table di-vt-plain");
    const table = box.appendChild(element("table"));
    const colgroup = table.appendChild(element("colgroup"));
    table.appendChild(element("thead")).appendChild(head(plain, colgroup));
    const cells = [];
    table.appendChild(body(plain, contextOf(plain, format), cells));
    if (!plain.values.length) box.appendChild(element("div", "di-vt-empty", plain.empty));
    box.addEventListener("keydown", onKey);
    tables.set(box, {plain, cells});
    return box;
  }

  function reformat(box, format) {
    const table = tables.get(box);
    if (!table) return;
    const context = contextOf(table.plain, format);
    table.cells.forEach((cell, k) => fill(cell, table.plain.values[k], context));
  }

  window.dashInsightTensorTable = {draw, reformat};
})();
