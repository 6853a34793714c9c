/* Browser side of the name pickers (dash_insight/web/components/tag_select.py
   register_picker): what the server's follow_url decided the list should show
   ({list_id}-sent: the grid's props that changed, and the key of what it then shows) reaches
   the list wherever it is.

   The list's grid is mounted after the charts on screen (assets/deferred.js): until then it
   is only a spec in its holder's data-component. pickers.toGrid writes to the
   grid itself (its outputs are all the grid's, so Dash skips it while the grid is not in the
   page, without the "nonexistent object" error of a callback missing one of its outputs);
   pickers.toHolder folds the same change into the holder's spec, so that the grid, whenever
   it is mounted, shows the current URL and not the first one (issue 17). Nothing here calls
   the server. */
(function () {
  const noUpdate = () => window.dash_clientside.no_update;

  /* rows with those of `changed` that have the same `name` (the pickers' getRowId) replaced:
     a row transaction's "update" applied to rows not yet in a grid. */
  function updateRows(rows, changed) {
    const byName = new Map((changed || []).map(row => [row.name, row]));
    return (rows || []).map(row => byName.get(row.name) || row);
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    pickers: {
      /* The changed props of `sent` for this callback's outputs (the grid's rowData,
         selectedRows, style, scrollTo and, with eyes, rowTransaction), in their order. */
      toGrid(sent) {
        const outputs = window.dash_clientside.callback_context.outputs_list;
        return outputs.map(output => (sent && Object.prototype.hasOwnProperty.call(
          sent, output.property) ? sent[output.property] : noUpdate()));
      },

      /* The grid's ticked rows, as it reports them, for the page's callbacks (they listen to
         {list_id}-ticks, which is in the page before the grid is); nothing before it has
         any (a grid just mounted, its rows not given yet). `mounted`: the names the grid was
         mounted with ({list_id}-mounted-ticks), until its first report: when that report
         ticks the same names, it only echoes the URL and stays here (the page's callbacks
         would call the server to find that out). Either way the first report clears it.
         `rows`: row objects, or {ids: [...]} as the server sets them. */
      ticks(rows, mounted) {
        if (rows === null || rows === undefined) return [noUpdate(), noUpdate()];
        if (!Array.isArray(mounted)) return [rows, noUpdate()];
        const listed = Array.isArray(rows) ? rows.map(row => row && row.name) : rows.ids;
        const names = new Set(Array.isArray(listed) ? listed : [null]);
        const echoed = names.size === mounted.length && mounted.every(name => names.has(name));
        return [echoed ? noUpdate() : rows, null];
      },

      /* The holder's data-component with `sent` folded in, while it still holds its grid's
         spec (deferred.js drops it at the mount): a row transaction updates the spec's rows;
         scrollTo is left out (a grid mounted later opens at its first row). */
      toHolder(sent, component) {
        if (!sent || !component) return noUpdate();
        let spec;
        try {
          spec = JSON.parse(component);
        } catch (error) {
          console.error("dash-insight: a picker's held grid could not be read", error);
          return noUpdate();
        }
        let changed = false;
        Object.keys(sent).forEach(name => {
          const value = sent[name];
          if (name === "key" || name === "scrollTo") return;
          if (name === "rowTransaction") {
            spec.props.rowData = updateRows(spec.props.rowData, value && value.update);
          } else {
            spec.props[name] = value;
          }
          changed = true;
        });
        return changed ? JSON.stringify(spec) : noUpdate();
      },
    },
  });
})();
