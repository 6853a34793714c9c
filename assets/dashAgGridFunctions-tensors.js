/* AG Grid functions of the tensor table (dash-ag-grid reads them from
   window.dashAgGridFunctions); a column definition names one with {"function": "name(params)"}. */
var dagfuncs = (window.dashAgGridFunctions = window.dashAgGridFunctions || {});

/* Tensor table (dash_insight/plugins/tensors/page.py). The grid's context holds the tensor's
   kind ("b" bool, "i" integer, "f" float, "s" text), the format ("value" or "sci"), the decimals and the
   colour scale (largest finite |value| shown). Bools and integers are shown as they are, floats
   with ``dec`` decimals, fixed or scientific; the "NAN" / "INF" / "-INF" strings as sent. */
dagfuncs.tensorValue = function (params) {
  const value = params.value;
  const context = params.context || {};
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") {
    if (context.kind !== "f") return String(value);
    return context.fmt === "sci" ? value.toExponential(context.dec)
                                 : value.toFixed(context.dec);
  }
  return value === null || value === undefined ? "" : String(value);
};

/* Cells on a diverging scale: orange below 0, teal above, stronger with |value| / scale; true
   cells teal; NaN / ±Inf (strings) in the error colour. */
dagfuncs.tensorCellStyle = function (params) {
  const value = params.value;
  const scale = (params.context || {}).scale;
  if ((params.context || {}).kind === "s") {
    return {color: "inherit", backgroundColor: "transparent", whiteSpace: "pre-wrap"};
  }
  if (typeof value === "number") {
    let background = "transparent";
    if (scale > 0) {
      background = value < 0
        ? "rgba(232, 124, 37, " + Math.min(1, -value / scale) * 0.7 + ")"
        : "rgba(0, 165, 167, " + Math.min(1, value / scale) * 0.7 + ")";
    }
    return {color: "inherit", backgroundColor: background};
  }
  if (value === true) return {color: "inherit", backgroundColor: "rgba(0, 165, 167, 0.45)"};
  if (value === false || value === null || value === undefined) {
    return {color: "inherit", backgroundColor: "transparent"};
  }
  return {color: "var(--error)", backgroundColor: "transparent"};
};

/* The row header: the tensor's own index; -1 (a single value, no index) is shown empty. */
dagfuncs.tensorRowIndex = function (params) {
  return params.value < 0 ? "" : String(params.value);
};
