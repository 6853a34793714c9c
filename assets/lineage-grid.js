/* The lineage table's rows and columns (dash_insight/plugins/lineage/page.py): the page's
   render callback writes them to the lineage-table store, {rows, defs} (defs null: the columns
   did not change), and lineageGrid.table hands them to the AG Grid once the grid is set up and
   one task later. Set up with its rows, the grid's first mount was the page's longest freeze
   (issue 17 item 8); as two tasks, creating the grid and drawing its rows, each is shorter.
   Columns and rows change together, so the grid never shows new columns with old rows. */
(function () {
  const GRID = "lineage-grid";
  const nextTask = () => new Promise(resolve => setTimeout(resolve, 0));

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lineageGrid: {
      async table(table) {
        const noUpdate = window.dash_clientside.no_update;
        if (!table) return [noUpdate, noUpdate];
        await window.dash_ag_grid.getApiAsync(GRID);
        await nextTask();
        return [table.rows, table.defs || noUpdate];
      },
    },
  });
})();
