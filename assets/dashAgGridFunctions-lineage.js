/* AG Grid functions of the lineage table (dash_insight/plugins/lineage/page.py and figures.py).
   dash-ag-grid evaluates a {"function": "name(params)"} document with every member of
   window.dashAgGridFunctions in scope (a comparator document names the function itself), so
   these are added to that shared object, whichever assets file created it first. Names start
   with "lineage" because the object is shared by every grid of the app. */
window.dashAgGridFunctions = Object.assign(window.dashAgGridFunctions || {}, {
  /* The job a row is about: the grid's row id, and what the "Summary path" column filters on
     (its cell is a markdown link, whose text is escaped). */
  lineageTrainId(params) {
    return params.data.train_id;
  },

  /* "Summary path" sorts by the job's id, not by the markdown of its link. */
  lineageCompareTrainIds(valueA, valueB, nodeA, nodeB) {
    return nodeA.data.train_id.localeCompare(nodeB.data.train_id);
  },

  /* A number to 4 significant digits, as Python's f"{value:.4g}" (number_text in
     dash_insight/plugins/lineage/figures.py): 0.0009766, 1.235e+05; the tooltip has it whole. */
  lineageNumber(params) {
    const value = params.value;
    if (value === null || value === undefined) return "";
    if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
    if (value === 0) return "0";
    const rounded = Number(value.toPrecision(4));
    const exponent = Math.floor(Math.log10(Math.abs(rounded)));
    if (exponent < -4 || exponent >= 4) {
      const [mantissa, power] = value.toExponential(3).split("e");
      const digits = power.replace(/^[+-]/, "").padStart(2, "0");
      return `${mantissa.replace(/\.?0+$/, "")}e${power[0] === "-" ? "-" : "+"}${digits}`;
    }
    return String(rounded);
  },

  /* Tag 1..10 shown as "★ n"; 0 (no tag) shows nothing. */
  lineageTagStars(params) {
    return params.value ? "★ " + params.value : "";
  },

  /* CSV export: the summary path as the plain job id (not its markdown link), missing values
     as empty cells. */
  lineageCsvCell(params) {
    if (params.column.getColId() === "summary_dir") return params.node.data.train_id;
    return params.value === null || params.value === undefined ? "" : params.value;
  },
});
