/* AG Grid cell component of the lineage table (dash_insight/plugins/lineage/figures.py), added to
   window.dashAgGridComponentFunctions (shared by every grid of the app) whichever assets file
   created it. */
window.dashAgGridComponentFunctions = Object.assign(window.dashAgGridComponentFunctions || {}, {
  /* The "Summary path" cell: the job's id as a link to its dashboard (the row's
     ``summary_dir``), the same elements dash-ag-grid's "markdown" renderer made of a markdown
     link (<div class="agGrid-Markdown"><div><a target="_self">), without parsing markdown:
     react-markdown took ~5 ms a cell, a large part of the grid's first mount, the page's
     longest freeze (issue 17 item 8). */
  LineageLink(props) {
    const React = window.React;
    const data = props.data || {};
    return React.createElement("div", {className: "agGrid-Markdown"},
      React.createElement("div", null,
        React.createElement("a", {href: props.value, target: "_self"}, data.train_id)));
  },
});
