/* Chart slots drawn when they come on screen, shared by assets/lazy-graphs.js (parameter
   distribution, lineage), assets/per-tag-pages.js (the tensor tables) and
   assets/scalar-charts.js (scalars, comparison); loaded before them (assets are injected in
   alphabetical order).

   window.dashInsightSlots.watch({selector, keyOf, enter, changed}) observes every element
   matching ``selector`` whenever it enters the document (with the page's first layout or with
   a callback's answer): ``enter(key)`` when it comes on the screen, or next to it once the
   page has been scrolled (the first screen draws what it shows and nothing below it; from
   the first scroll on, the charts a few rows ahead are drawn before they show);
   ``inView`` holds the keys entered and still on (or next to) the screen; ``rescan()`` looks
   for new slots now; ``changed()`` (optional) after each batch of HTML elements added or
   removed.
   window.dashInsightSlots.idField(name) is a ``keyOf``: the ``name`` field of a slot's JSON id
   (its pattern-matching id, e.g. {"type": "lazy-graph-slot", "key": ...}).
   window.dashInsightSlots.sightline(report) and isNear(rect) are that rule of "near the screen"
   for other elements (assets/deferred.js's cards).

   window.dashInsightSlots.paced(draw, rank, drawn) queues keys and calls ``draw(key)`` for
   one key per task, the key of lowest ``rank(key)`` first (the slot highest on the page: the
   screen fills from the top), else the first queued; with ``drawn(key)``, the next key waits
   until it says the chart is drawn (or a few seconds passed: the graph component itself is
   loaded lazily, and the charts that waited for it were all drawn in one task): every chart
   is a main-thread task of its own, so the page answers between two charts instead of
   freezing while a screen of charts is drawn
   (issue 17 item 8: the parameter distribution froze for 4.8 s drawing its first screen). */
(function () {
  const MARGIN_PX = 150;  // "next to the screen": within this distance of the window
  /* Whether the page (or anything in it) has been scrolled: until then a slot is entered when
     it is on the screen; the first scroll has every watch look a few rows ahead. */
  let scrolled = false;
  const onFirstScroll = [];
  document.addEventListener("scroll", () => {
    scrolled = true;
    onFirstScroll.splice(0).forEach(lookAhead => lookAhead());
  }, {capture: true, passive: true, once: true});

  /* Whether an element's box (getBoundingClientRect) is near the screen: on it, or within
     MARGIN_PX of it once scrolled. */
  function isNear(rect) {
    const margin = scrolled ? MARGIN_PX : 0;
    return rect.bottom > -margin && rect.top < window.innerHeight + margin &&
      Boolean(rect.width || rect.height);
  }

  /* Elements watched for coming near the screen: ``report(entries)``, an IntersectionObserver's
     callback, for the elements near the screen (isNear); from the first scroll on, a few
     rows ahead (each element is observed again, so reported once more). Null without an
     IntersectionObserver. */
  function sightline(report) {
    if (!("IntersectionObserver" in window)) return null;
    const elements = new Set();
    const make = () => new IntersectionObserver(report,
      {rootMargin: `${scrolled ? MARGIN_PX : 0}px 0px`});
    let observer = make();
    if (!scrolled) {
      onFirstScroll.push(() => {
        observer.disconnect();
        observer = make();
        elements.forEach(element => {
          if (element.isConnected) observer.observe(element); else elements.delete(element);
        });
      });
    }
    return {
      observe(element) { elements.add(element); observer.observe(element); },
      unobserve(element) { elements.delete(element); observer.unobserve(element); },
    };
  }

  /* A keyOf for watch(): the ``name`` field of a slot's JSON id; undefined (the slot is not
     watched) when its id is not JSON. */
  function idField(name) {
    return slot => {
      try {
        return JSON.parse(slot.id)[name];
      } catch {
        return undefined;
      }
    };
  }

  function watch({selector, keyOf, enter, changed}) {
    const inView = new Set();
    const observed = new Map();  // slot element -> key
    function report(entries) {
      for (const entry of entries) {
        const key = observed.get(entry.target);
        if (key === undefined) continue;  // a slot no longer in the document
        if (!entry.isIntersecting) {
          inView.delete(key);
        } else if (!inView.has(key)) {
          inView.add(key);
          enter(key);
        }
      }
    }
    const observing = sightline(report);

    /* Forget the slots that left the document, observe the new ones. */
    function rescan() {
      const gone = [];
      for (const [element, key] of observed) {
        if (!element.isConnected) {
          if (observing) observing.unobserve(element);
          observed.delete(element);
          gone.push(key);
        }
      }
      const kept = new Set(observed.values());
      gone.filter(key => !kept.has(key)).forEach(key => inView.delete(key));
      document.querySelectorAll(selector).forEach(slot => {
        if (observed.has(slot)) return;
        const key = keyOf(slot);
        if (key === undefined) return;
        observed.set(slot, key);
        if (!observing) { inView.add(key); enter(key); return; }  // no observer: every chart
        observing.observe(slot);  // reports whether it is on screen, once the page is idle
        fresh.push([slot, key]);
      });
      if (fresh.length && !framed) {
        framed = true;
        window.requestAnimationFrame(enterOnScreen);
      }
    }

    /* A slot on screen is entered in the next frame: the observer's first report waits for the
       main thread, which is busy with the rest of the page's first render. Measured in the
       frame, where the browser lays the page out anyway (measured at once, in the task that
       added the slots, it laid the page out one more time inside the longest task). */
    const fresh = [];
    let framed = false;
    function enterOnScreen() {
      framed = false;
      for (const [slot, key] of fresh.splice(0)) {
        if (!slot.isConnected || inView.has(key)) continue;
        if (isNear(slot.getBoundingClientRect())) {
          inView.add(key);
          enter(key);
        }
      }
    }

    /* Slots come and go with Dash's renders: look again after any batch of changes that added
       or removed HTML elements (Plotly's own SVG drawing is skipped). */
    const isHtml = node => node.nodeType === 1 && !(node instanceof SVGElement);
    new MutationObserver(mutations => {
      if (mutations.some(m => Array.prototype.some.call(m.addedNodes, isHtml) ||
                              Array.prototype.some.call(m.removedNodes, isHtml))) {
        rescan();
        if (changed) changed();
      }
    }).observe(document.documentElement, {childList: true, subtree: true});

    return {inView, rescan};
  }

  function paced(draw, rank, drawn) {
    const WAIT_MS = 3000;  // the longest wait for one chart
    const queue = [];
    let scheduled = false;

    function next() {
      let best = 0;
      if (rank) {
        const ranks = queue.map(rank);
        ranks.forEach((value, i) => { if (value < ranks[best]) best = i; });
      }
      const key = queue.splice(best, 1)[0];
      if (key === undefined) { scheduled = false; return; }
      const since = performance.now();
      let started = true;
      const after = () => {
        if (started && drawn && !drawn(key) && performance.now() - since < WAIT_MS) {
          setTimeout(after, 16);
          return;
        }
        scheduled = false;
        if (queue.length) schedule();
      };
      try {
        started = draw(key) !== false;  // false: nothing to draw, nothing to wait for
      } finally {
        setTimeout(after, 0);
      }
    }

    function schedule() {
      if (scheduled) return;
      scheduled = true;
      setTimeout(next, 0);
    }

    return function enqueue(key) {
      if (!queue.includes(key)) queue.push(key);
      schedule();
    };
  }

  /* The distance of an element from the top of the page (Infinity when it is not in it). */
  function pageTop(element) {
    return element && element.isConnected
      ? element.getBoundingClientRect().top + window.scrollY : Infinity;
  }

  window.dashInsightSlots = {watch, idField, paced, pageTop, sightline, isNear};
})();
