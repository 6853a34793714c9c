/* The runs' colour swatches (dash_insight/web/components/run_colours.py), called with
   dash.ClientsideFunction("runColours", name). */
(function () {
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    runColours: {
      /* Every run dot's style: the user's colour of its run, else its default. */
      dotStyles(overrides, ids) {
        const chosen = overrides || {};
        return ids.map(id => ({background: chosen[id.run] || id.colour}));
      },
    },
  });
})();
