/* Three behaviours of Dash's own scripts, each patched when Dash sets its global
   (window.store, window.dash_core_components, window.dash_component_api; the assets run before
   Dash's scripts). The first two are Redux updates that change nothing (issue 37 item 2); the
   third is a Dash bug.

   1. dash-renderer's Redux store: no reset of nothing, no aggregate of nothing.

   Each Dash component that mounts as part of a new layout dispatches RESET_COMPONENT_STATE
   for its path: the store then drops the layout hashes (what callbacks changed) recorded
   under that path. At a page's load there are none, yet each dispatch makes a new hashes
   object and every connected component of the page runs its selectors: 448 dispatches for
   the 187 components of the scalars page, about 450 x 187 selector runs (dash-renderer's
   notifyNestedSubs was most of its time in a CPU profile). A reset under which no hash is
   recorded is not dispatched here; the others are, unchanged. The state is the same either
   way: that reducer only filters the hashes whose key starts with the path.
   Likewise dash-renderer's callback pipeline dispatches a Callbacks.Aggregate of its changes
   to the queues of callbacks (requested, prioritized, executing...) at each step, null for a
   queue that did not change, and one of nulls only when none did: 13 to 27 such dispatches at
   the load of each page, each running every component's selectors for a state its reducer
   returns unchanged (it skips the nulls). They are not dispatched here.
   window.dashInsightQuietResets says the filter is on.

   2. dcc.Store in memory: no props set of nothing.

   A memory Store (dcc's default storage) keeps its data in a backing object of its own, new
   with each Store. At mount dcc.Store reads that empty object back and sets its own props:
   with data, its modified_timestamp; with data None, its data again (undefined compared with
   null), which fires every callback listening to it as if its data had changed (the lineage
   page sent a round trip for its brush store at each load). After each change of its data it
   sets its modified_timestamp again. Each is a Redux update that every component of the page
   sees: 17 at the load of the images page. Nothing in dash-insight reads a Store's
   modified_timestamp, so a memory Store only keeps its backing object in step here. Stores in
   localStorage or sessionStorage (the run colours) are left as dcc writes them:
   they read their storage back at mount.
   window.dashInsightQuietStores says the Store is patched.

   3. Component labels of a short checklist: remounted when their option changes.

   dcc's Checklist (Dash 4) draws a label that is a component (a job picker's eye) with
   dash_component_api.ExternalWrapper at the path [checklist, option value, i], inserted into
   the layout when the wrapper mounts. A list of fewer than 100 options keys its rows by index:
   when the options change, the wrapper of row i stays mounted with the next option's path,
   where nothing was inserted, and updating its props there throws ("Cannot read properties of
   undefined (reading 'props')"). Dash's error boundary then reverts the last change the user
   made: ticking "show archived runs" on the comparison page, which gives the job picker new
   rows, unticked itself. Dash fixed the same for lists of 100 options or more (plotly/dash
   #3799, a key per option value); here each wrapper is keyed by its path, so a row given
   another option mounts a new wrapper, inserted at its own path.
   window.dashInsightKeyedLabels says the wrapper is keyed. */
(function () {
  "use strict";

  /* Call `patch` with the global `name` once it is set (at once if it already is). */
  function whenSet(name, patch) {
    let value = window[name];
    if (value) {
      patch(value);
      return;
    }
    Object.defineProperty(window, name, {
      configurable: true,
      enumerable: true,
      get() { return value; },
      set(next) {
        value = next;
        patch(next);
      },
    });
  }

  const RESET = "RESET_COMPONENT_STATE";
  const AGGREGATE = "Callbacks.Aggregate";

  /* Whether the hashes hold a key under `path` (keys are paths joined by ","). */
  function hashedUnder(hashes, path) {
    const prefix = path.join(",");
    for (const key in hashes) {
      if (key.startsWith(prefix)) return true;
    }
    return false;
  }

  function quietResets(store) {
    if (!store || typeof store.dispatch !== "function" || typeof store.getState !== "function") {
      return;
    }
    const dispatch = store.dispatch;
    store.dispatch = function (action) {
      const path = action && action.type === RESET && action.payload && action.payload.itempath;
      if (Array.isArray(path) && !hashedUnder(store.getState().layoutHashes || {}, path)) {
        return action;
      }
      if (action && action.type === AGGREGATE && Array.isArray(action.payload) &&
          action.payload.every(change => change === null)) {
        return action;
      }
      return dispatch.apply(this, arguments);
    };
    window.dashInsightQuietResets = true;
  }

  function inMemory(store) {
    const storage = store.props.storage_type;
    return Boolean(store._backstore) && (!storage || storage === "memory");
  }

  function quietStores(Store) {
    const proto = Store && Store.prototype;
    if (!proto || typeof proto.UNSAFE_componentWillMount !== "function" ||
        typeof proto.componentDidUpdate !== "function") {
      console.warn("dash-insight: dcc.Store changed; memory stores left as they are");
      return;
    }
    const mount = proto.UNSAFE_componentWillMount;
    const update = proto.componentDidUpdate;
    proto.UNSAFE_componentWillMount = function () {
      if (!inMemory(this)) return mount.apply(this, arguments);
      const {id, data} = this.props;
      if (data !== null && data !== undefined) this._backstore.setItem(id, data);
      return undefined;
    };
    proto.componentDidUpdate = function () {
      const {id, data, clear_data: clear} = this.props;
      // Cleared or unset data: dcc's own answer (it sets the data).
      if (!inMemory(this) || clear || data === undefined) return update.apply(this, arguments);
      this._backstore.setItem(id, data);
      return undefined;
    };
    window.dashInsightQuietStores = true;
  }

  function keyedLabels(api) {
    const Wrapper = api && api.ExternalWrapper;
    if (typeof Wrapper !== "function") {
      console.warn(
        "dash-insight: Dash's ExternalWrapper changed; component labels left as they are");
      return;
    }
    api.ExternalWrapper = function KeyedExternalWrapper(props) {
      const key = JSON.stringify(props.componentPath);
      return window.React.createElement(Wrapper, Object.assign({}, props, {key}));
    };
    window.dashInsightKeyedLabels = true;
  }

  whenSet("store", quietResets);
  whenSet("dash_core_components", components => quietStores(components && components.Store));
  whenSet("dash_component_api", keyedLabels);
})();
