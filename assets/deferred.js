/* Components mounted when they come on screen (dash_insight/web/components/deferred.py): a
   holder <div class="di-deferred" data-component="{type, namespace, props}"> gets its
   component as children through dash_clientside.set_props once it is near the screen, and not
   before: a card below the first screen costs the first screen nothing (issue 37 item 2: the
   scalars page mounted its second row of cards, just below a 1600x1000 window, and drew their
   charts before it was quiet). Near the screen is assets/graph-slots.js's rule: on it, and a
   few rows ahead once the page has been scrolled (the cards' charts are then drawn before they
   show); its IntersectionObserver says when, so no frame is spent looking while a holder
   waits. Holders are mounted in page order (the highest first), up to data-batch of them (a
   row of cards) per animation frame: React mounting a screenful of cards in one task froze the
   page (issue 17 item 8).

   A callback may change a holder's data-component until its component is mounted, so it is
   read at the mount; the holder drops it then (its callbacks then know that the component
   itself is there to update, and the page does not keep a large spec twice). */
(function () {
  const mounted = new WeakSet();
  let scheduled = false;
  let sight;  // graph-slots.js's sightline, made when the first holder is seen

  /* A holder is looked at again when it comes near the screen (observing it again is a
     no-op: the sightline and its IntersectionObserver keep each element once). */
  function watch(holder) {
    const slots = window.dashInsightSlots;
    if (sight === undefined) {
      sight = slots ? slots.sightline(entries => {
        if (entries.some(entry => entry.isIntersecting)) schedule();
      }) : null;
    }
    if (sight) sight.observe(holder);
  }

  /* Without a sightline every holder is mounted. */
  function near(holder) {
    return !sight || window.dashInsightSlots.isNear(holder.getBoundingClientRect());
  }

  function mount(holder) {
    mounted.add(holder);
    if (sight) sight.unobserve(holder);
    let spec = null, style = {};
    try {
      spec = JSON.parse(holder.dataset.component);
      if (holder.dataset.style) style = JSON.parse(holder.dataset.style);
    } catch (error) {
      console.error("dash-insight: a deferred component could not be read", error);
      return;
    }
    // The holder kept the space of its component (min-height) until now. The id of a
    // pattern-matching holder (a chart card) is its JSON.
    let id = holder.id;
    if (id.startsWith("{")) {
      try { id = JSON.parse(id); } catch { /* a plain id after all */ }
    }
    // The holder drops its spec (a picker's rows are not kept twice; pickers.toHolder then
    // leaves it alone).
    window.dash_clientside.set_props(id, {children: spec, style, "data-component": null});
  }

  function check() {
    scheduled = false;
    const holders = Array.from(document.querySelectorAll(".di-deferred[data-component]"))
      .filter(holder => !mounted.has(holder));
    if (!holders.length) return;
    if (!window.dash_clientside || !window.dash_clientside.set_props) {
      schedule();
      return;
    }
    holders.forEach(watch);
    const due = holders.filter(near);
    if (!due.length) return;
    // This frame: the first due holder and those after it of its kind, up to its batch; the
    // next of a screen of them, next frame.
    const batch = Math.max(1, Number(due[0].dataset.batch) || 1);
    const kind = due[0].dataset.batch || "";
    due.filter(holder => (holder.dataset.batch || "") === kind).slice(0, batch).forEach(mount);
    schedule();
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    window.requestAnimationFrame(check);
  }

  // Holders arrive with the page's layout or a callback's answer.
  new MutationObserver(() => {
    if (document.querySelector(".di-deferred[data-component]")) schedule();
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
