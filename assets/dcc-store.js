/* dcc.Store in memory without the Redux updates it makes of nothing (issue 37 item 2).

   A memory Store (dcc's default storage) keeps its data in a backing object of its own, new
   with each Store. At mount dcc.Store reads that empty object back and sets its own props:
   with data, its modified_timestamp; with data None, its data again (undefined compared with
   null), which fires every callback listening to it as if its data had changed (the lineage
   page sent a round trip for its brush store at each load). After each change of its data it
   sets its modified_timestamp again. Each is a Redux update that every component of the page
   sees: 17 at the load of the images page. Nothing in
   dash-insight reads a Store's modified_timestamp, so a memory Store only keeps its backing
   object in step here. Stores in localStorage or sessionStorage (the theme, the run colours)
   are left as dcc writes them: they read their storage back at mount.

   dcc's script sets window.dash_core_components after this file runs (assets come first), so
   the Store is patched when that global is set. window.dashInsightQuietStores says it was. */
(function () {
  "use strict";

  function inMemory(store) {
    const storage = store.props.storage_type;
    return Boolean(store._backstore) && (!storage || storage === "memory");
  }

  function quiet(Store) {
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

  let components = window.dash_core_components;
  if (components) {
    quiet(components.Store);
    return;
  }
  Object.defineProperty(window, "dash_core_components", {
    configurable: true,
    enumerable: true,
    get() { return components; },
    set(value) {
      components = value;
      quiet(value && value.Store);
    },
  });
})();
