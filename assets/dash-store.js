/* Dash's Redux store without the updates that change nothing (issue 37 item 2).

   Each Dash component that mounts as part of a new layout dispatches RESET_COMPONENT_STATE
   for its path: the store then drops the layout hashes (what callbacks changed) recorded
   under that path. At a page's load there are none, yet each dispatch makes a new hashes
   object and every connected component of the page runs its selectors: 448 dispatches for
   the 187 components of the scalars page, about 450 x 187 selector runs (dash-renderer's
   notifyNestedSubs was most of its time in a CPU profile). A reset under which no hash is
   recorded is not dispatched here; the others are, unchanged. The state is the same either
   way: that reducer only filters the hashes whose key starts with the path.

   dash-renderer sets window.store when it creates the store; the filter is put on its
   dispatch then. window.dashInsightQuietResets says it was. */
(function () {
  "use strict";

  const RESET = "RESET_COMPONENT_STATE";

  /* Whether the hashes hold a key under `path` (keys are paths joined by ","). */
  function hashedUnder(hashes, path) {
    const prefix = path.join(",");
    for (const key in hashes) {
      if (key.startsWith(prefix)) return true;
    }
    return false;
  }

  function quiet(store) {
    if (!store || typeof store.dispatch !== "function" || typeof store.getState !== "function") {
      return;
    }
    const dispatch = store.dispatch;
    store.dispatch = function (action) {
      const path = action && action.type === RESET && action.payload && action.payload.itempath;
      if (Array.isArray(path) && !hashedUnder(store.getState().layoutHashes || {}, path)) {
        return action;
      }
      return dispatch.apply(this, arguments);
    };
    window.dashInsightQuietResets = true;
  }

  let current = window.store;
  if (current) {
    quiet(current);
    return;
  }
  Object.defineProperty(window, "store", {
    configurable: true,
    enumerable: true,
    get() { return current; },
    set(value) {
      current = value;
      quiet(value);
    },
  });
})();
