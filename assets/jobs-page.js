/* dash-insight summary list (dash_insight/plugins/jobs/page.py), called with
   dash.ClientsideFunction("jobsPage", name). */
(function () {
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    jobsPage: {
      /* "×" of the training parameter details: empty the modal (no server round trip). */
      closeDetails(clicks) {
        return clicks ? null : window.dash_clientside.no_update;
      },
    },
  });
})();
