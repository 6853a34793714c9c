/* The lineage table's rows and columns (dash_insight/plugins/lineage/page.py): the page's
   render callback writes them to the lineage-table store, {rows, defs} (defs null: the columns
   did not change), and lineageGrid.table hands them to the AG Grid once the grid is set up and
   one task later. Set up with its rows, the grid's first mount was the page's longest freeze
   (issue 17 item 8); as two tasks, creating the grid and drawing its rows, each is shorter.
   Columns and rows change together, so the grid never shows new columns with old rows.

   The grid reports its column state when it is set up and whenever its columns change, not
   only on a header click; lineageGrid.sortChange passes it on (to the lineage-sort store, and
   the server's sort_to_url) only when the sorted columns differ from the last state's, the
   first of which (the grid set up with the URL's sort) is not sent: no round trip at load.
   New columns from the server carry the URL's sort too, so they send nothing either, unless
   they drop the sorted column. (The last state is kept across new columns: AG Grid reports
   no state for columns equal to its own, and a reset then swallowed the next header click.) */
(function () {
  const GRID = "lineage-grid";
  const nextTask = () => new Promise(resolve => setTimeout(resolve, 0));
  let sortSeen;  // the sorted columns of the last column state; undefined before the first

  /* The sorted columns of a column state, in sort order: what a header click changes. */
  function sortedColumns(columnState) {
    return JSON.stringify(columnState.filter(column => column.sort)
      .sort((a, b) => (a.sortIndex || 0) - (b.sortIndex || 0))
      .map(column => [column.colId, column.sort]));
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lineageGrid: {
      async table(table) {
        const noUpdate = window.dash_clientside.no_update;
        if (!table) return [noUpdate, noUpdate];
        await window.dash_ag_grid.getApiAsync(GRID);
        await nextTask();
        return [table.rows, table.defs || noUpdate];
      },
      sortChange(columnState) {
        const noUpdate = window.dash_clientside.no_update;
        if (!Array.isArray(columnState) || !columnState.length) return noUpdate;
        const sorted = sortedColumns(columnState);
        const changed = sortSeen !== undefined && sorted !== sortSeen;
        sortSeen = sorted;
        return changed ? columnState : noUpdate;
      },
    },
  });
})();
