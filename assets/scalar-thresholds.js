/* Browser side of the scalars page's threshold form (dash_insight/plugins/scalars/page.py,
   charts.threshold_form): opening the one form for a chart and asking to delete a chart's
   threshold. The thresholds themselves are set by the server callback (it knows the tags
   "apply to all selected tags" means). Nothing here calls the server. */
(function () {
  const noUpdate = () => window.dash_clientside.no_update;
  /* The triggering input of a pattern-matching list, and whether it was really clicked (a
     card inserted into the page calls these with n_clicks unset). */
  function clicked() {
    const triggered = window.dash_clientside.callback_context.triggered || [];
    const first = triggered[0];
    if (!first || !first.value) { return null; }
    const id = first.prop_id.slice(0, first.prop_id.lastIndexOf("."));
    try { return JSON.parse(id); } catch { return id; }
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    scalarThresholds: {
      /* "Set threshold" of a chart -> [target chart id, form hidden?, form title]; Apply or
         Cancel hide the form. */
      form(_opens, _apply, _cancel, openIds, titles) {
        const trigger = clicked();
        if (trigger === null) { return [noUpdate(), noUpdate(), noUpdate()]; }
        if (typeof trigger !== "object") { return [noUpdate(), true, noUpdate()]; }
        const position = (openIds || []).findIndex(id => id.chart === trigger.chart);
        return [trigger.chart, false, position >= 0 ? titles[position] : trigger.chart];
      },
      /* × of a chart -> {chart, at} for the server callback that drops its threshold. */
      remove() {
        const trigger = clicked();
        if (trigger === null || typeof trigger !== "object") { return noUpdate(); }
        return {chart: trigger.chart, at: Date.now()};
      },
    },
  });
})();
