/* dash-insight: cytoscape's render loop waits while its graphs have nothing to do.

   Cytoscape's canvas renderer (3.x in dash-cytoscape) asks for an animation frame forever:
   each frame it runs its before-render callbacks (animations, the texture caches' queues) and
   draws only when something asked it to (`redraw()` sets `requestedFrame`). A graph page left
   alone still ran 60 frames a second doing nothing: 0.2 s of the browser's CPU every 3 s of
   idle (bench/idle_cpu.py). Here the loop is not given its next frame ("parked") once every
   cytoscape of the page has had, for GRACE_MS, no redraw asked, no animation running or queued
   and no element or layer texture queued; it gets frames again as soon as any of them asks for
   a redraw (cytoscape does on every change of elements, styles or viewport: pan, zoom, resize,
   hover styles) or plays an animation (`cy.animate`: assets/graph-pages.js moves the view so).
   Every frame that would draw still draws, in the same frame: what is drawn is unchanged.

   The loop is known by its code (the function passed to requestAnimationFrame that tests
   `requestedFrame && !…skipFrame`), as assets/graph-layout.js knows dash-cytoscape's
   listeners; cytoscape looks `window.requestAnimationFrame` up on every call. */
(function () {
  const GRACE_MS = 500;
  const LOOP_CODE = /requestedFrame\s*&&\s*!\s*[\w$]+\.skipFrame/;
  const nativeFrame = window.requestAnimationFrame;
  if (!nativeFrame) return;
  /* function => whether it is a cytoscape render loop */
  const known = new WeakMap();
  const parked = new Set();
  const watched = new WeakSet();
  let busyUntil = 0;

  function wake() {
    busyUntil = Math.max(busyUntil, performance.now() + GRACE_MS);
    const loops = [...parked];
    parked.clear();
    loops.forEach(loop => nativeFrame.call(window, loop));
  }

  function after(object, name) {
    const original = object[name];
    object[name] = function () {
      const result = original.apply(this, arguments);
      wake();
      return result;
    };
  }

  /* An animation played (core or element) runs in the loop's before-render callbacks. */
  let animationsWatched = false;
  function watch(cy, renderer) {
    watched.add(renderer);
    after(renderer, "redraw");
    const animation = !animationsWatched && cy.animation ? cy.animation({}) : null;
    if (animation && typeof animation.play === "function") {
      animationsWatched = true;
      after(Object.getPrototypeOf(animation), "play");
    }
  }

  const queued = cache => Boolean(cache && cache.eleCacheQueue && cache.eleCacheQueue.size() > 0);

  function busy(cy, renderer) {
    const own = cy._private, data = renderer.data || {};
    return Boolean(renderer.requestedFrame)
      || own.aniEles.length > 0
      || own.animation.current.length > 0 || own.animation.queue.length > 0
      || ["eleTxrCache", "lblTxrCache", "slbTxrCache", "tlbTxrCache"].some(k => queued(data[k]))
      || Boolean(data.lyrTxrCache && data.lyrTxrCache.layersQueue
                 && data.lyrTxrCache.layersQueue.size() > 0);
  }

  /* Whether any cytoscape of the page has work (watching the ones not seen yet). */
  function anyBusy() {
    let found = false;
    document.querySelectorAll(".__________cytoscape_container").forEach(container => {
      const cy = container._cyreg && container._cyreg.cy;
      const renderer = cy && !cy.destroyed() && cy.renderer && cy.renderer();
      if (!renderer || !renderer.redraw) return;
      if (!watched.has(renderer)) watch(cy, renderer);
      found = found || busy(cy, renderer);
    });
    return found;
  }

  function isLoop(callback) {
    let loop = known.get(callback);
    if (loop === undefined) {
      loop = typeof callback === "function" && LOOP_CODE.test(String(callback));
      known.set(callback, loop);
      /* a new renderer starts its loop before cytoscape keeps it (cy.renderer() is null) */
      if (loop) busyUntil = Math.max(busyUntil, performance.now() + GRACE_MS);
    }
    return loop;
  }

  window.requestAnimationFrame = function (callback) {
    if (isLoop(callback)) {
      const now = performance.now();
      if (anyBusy()) busyUntil = now + GRACE_MS;
      if (now >= busyUntil) {
        parked.add(callback);
        return 0;
      }
    }
    return nativeFrame.call(window, callback);
  };
})();
