/* Browser side of the name pickers (dash_insight/web/components/tag_select.py): the list is
   Dash's checklist in a box (.di-picker-list); this adds what a checklist lacks. Nothing here
   calls the server itself.

   - pickers.toTop scrolls a list back to its first row when it gets new rows.

   - The arrow keys move from row to row (Up / Down), as in a list box: the
     checklist's rows are checkboxes, which Tab alone would walk one by one. In a list of 100
     names or more only the rows in view exist: the list is scrolled to the row first.
   - A click on a row's eye (.di-eye, tag_select.eye_button) is reported in the picker's
     {list_id}-eye store as {value: {run, hidden}, at}: the page's callback writes the URL.
     A button in a label does not tick the label's checkbox. */
(function () {
  /* The row (label) of the list `box` at `index` (data-option-index), if it is drawn. */
  function rowAt(box, index) {
    return box.querySelector(`label[data-option-index="${index}"]`);
  }

  /* The row an arrow key last asked for while its list scrolls to it, {box, index}: the next
     arrow counts from it, not from the row still focused, so that no key pressed meanwhile is
     lost (a busy browser draws the scrolled rows frames later). */
  let pending = null;

  /* Focuses the checkbox of row `index` of `box`, scrolling the virtualised list to it first
     when it is not drawn (its rows come a frame or more later); gives up after `tries` frames
     (past the last row) or when a later arrow key asked for another row. */
  function focusRow(box, index, tries) {
    const mine = pending && pending.box === box;
    if (mine && pending.index !== index) return;
    const row = rowAt(box, index);
    const scroller = box.querySelector(".dash-options-list-virtualized");
    const drawn = box.querySelector("label[data-option-index]");
    if (row || !scroller || !drawn || tries <= 0) {
      if (mine) pending = null;
      if (row) row.querySelector("input").focus();
      return;  // no row: past the last one, the focus stays
    }
    scroller.scrollTop = index * drawn.offsetHeight;
    window.requestAnimationFrame(() => focusRow(box, index, tries - 1));
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    pickers: {
      /* Scrolls the list of the box that triggered this (its height changes with its rows)
         back to its first row; a callback without outputs. */
      toTop() {
        const box = window.dash_clientside.callback_context.triggered_id;
        const element = document.getElementById(box);
        if (!element) return;
        element.querySelectorAll(".di-picker-checklist, .dash-options-list-virtualized")
          .forEach((list) => { list.scrollTop = 0; });
      },
    },
  });

  document.addEventListener("keydown", (event) => {
    const step = {ArrowDown: 1, ArrowUp: -1}[event.key];
    const input = event.target;
    if (!step || !(input instanceof HTMLInputElement)) return;
    const box = input.closest(".di-picker-list");
    const row = input.closest("label[data-option-index]");
    if (!box || !row) return;
    event.preventDefault();  // not the page's or the list's scroll: the focus moves
    const from = pending && pending.box === box
      ? pending.index : Number(row.getAttribute("data-option-index"));
    const index = from + step;
    if (index < 0) return;
    pending = {box, index};
    focusRow(box, index, 30);
  });

  document.addEventListener("click", (event) => {
    const eye = event.target instanceof Element ? event.target.closest(".di-eye") : null;
    const picker = eye ? eye.closest(".di-picker") : null;
    if (!eye || !picker || !picker.id.endsWith("-picker")) return;
    event.preventDefault();  // no tick of the row's checkbox, whatever the browser does
    const store = picker.id.slice(0, -"-picker".length) + "-eye";
    window.dash_clientside.set_props(store, {
      data: {
        value: {
          run: eye.getAttribute("data-run"),
          hidden: !eye.classList.contains("di-eye-closed"),
        },
        at: Date.now(),
      },
    });
  });
})();
