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
   itself is there to update, and the page does not keep a large spec twice).

   A holder that still holds its component REMOUNT_MS after its mount is mounted again: Dash
   drops the set_props of a component it does not know yet, and a callback may give a mounted
   holder its component again (a CI run on a loaded machine saw a chart card on screen for
   30 s still holding its component). */
(function () {
  const REMOUNT_MS = 1000;
  const mountedAt = new WeakMap();  // holder -> performance.now() of its last mount
  let scheduled = false;
  let retry = null;
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
    mountedAt.set(holder, performance.now());
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

  /* Look again once a holder mounted lately has had the time to drop its component. */
  function checkLater() {
    if (retry !== null) return;
    retry = window.setTimeout(() => {
      retry = null;
      schedule();
    }, REMOUNT_MS);
  }

  function check() {
    scheduled = false;
    const now = performance.now();
    const waiting = Array.from(document.querySelectorAll(".di-deferred[data-component]"));
    const holders = waiting.filter(holder =>
      !mountedAt.has(holder) || now - mountedAt.get(holder) >= REMOUNT_MS);
    if (holders.length < waiting.length) checkLater();
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
