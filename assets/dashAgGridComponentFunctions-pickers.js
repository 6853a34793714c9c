/* AG Grid cell components of the name pickers (dash_insight/web/components/tag_select.py).
   dash-ag-grid looks a column's ``cellRenderer`` name up in window.dashAgGridComponentFunctions,
   shared by every grid of the app, so this adds to it whichever assets file created it. */
(function () {
  /* The colour of run ``name``'s open eye: the user's colour of the run (the shell's
     "run-colours" store, kept by dcc.Store in localStorage: the page's first rows are drawn
     before any callback could send it), else ``colour``, its default from the server (none:
     the accent colour). */
  function runColour(name, colour) {
    if (!colour) return null;
    try {
      const chosen = JSON.parse(window.localStorage.getItem("run-colours") || "{}") || {};
      return /^#[0-9a-fA-F]{6}$/.test(chosen[name] || "") ? chosen[name] : colour;
    } catch {  // unreadable storage: the server's colour
      return colour;
    }
  }

  window.dashAgGridComponentFunctions = Object.assign(window.dashAgGridComponentFunctions || {}, {
    /* The eye of a picker row: open = the name is drawn, closed = hidden (it stays selected).
       A click reports {run, hidden} in the grid's ``cellRendererData`` (props.setData) and does
       not tick or untick the row: the click listener is the button's own (it runs before the
       grid's row handler, which React's delegated onClick would not) and sets AG Grid's
       stop-propagation flag, which the row's click selection honours. Keyboard: Enter or Space
       on the eye's cell (arrow keys reach it) toggles it too, without ticking the row (the
       column's suppressKeyboardEvent keeps AG Grid's own Space / Enter off that cell); on the
       focused button itself they are the button's own click. */
    PickerEye(props) {
      const React = window.React;
      const hidden = Boolean(props.data && props.data.hidden);  // the value adds its colour
      const name = props.data ? props.data.name : "";
      const ref = React.useRef(null);
      const latest = React.useRef(props);
      latest.current = props;
      React.useEffect(() => {
        const button = ref.current;
        if (!button) return undefined;
        const toggle = () => {
          const now = latest.current;
          now.setData({run: now.data.name, hidden: !now.data.hidden});
        };
        const onClick = event => {
          event.__ag_Grid_Stop_Propagation = true;  // AG Grid's stopPropagationForAgGrid
          toggle();
        };
        const cell = latest.current.eGridCell;
        const onKey = event => {
          if ((event.key !== "Enter" && event.key !== " ") || event.target === button) return;
          event.preventDefault();
          toggle();
        };
        button.addEventListener("click", onClick);
        if (cell) cell.addEventListener("keydown", onKey);
        return () => {
          button.removeEventListener("click", onClick);
          if (cell) cell.removeEventListener("keydown", onKey);
        };
      }, []);
      const path = hidden
        ? "M2 2l20 20M6.7 6.7C4.2 8.3 2.5 10.6 2 12c1.3 3.6 5.4 7 10 7 1.9 0 3.7-.6 5.3-1.6" +
          "M9.9 5.2c.7-.1 1.4-.2 2.1-.2 4.6 0 8.7 3.4 10 7-.5 1.3-1.4 2.7-2.6 3.9"
        : "M2 12c1.3-3.6 5.4-7 10-7s8.7 3.4 10 7c-1.3 3.6-5.4 7-10 7S3.3 15.6 2 12z" +
          "M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6z";
      const colour = hidden ? null : runColour(name, props.data && props.data.colour);
      return React.createElement("button", {
        ref, type: "button", className: "di-eye" + (hidden ? " di-eye-closed" : ""),
        style: colour ? {color: colour} : undefined,
        title: hidden ? props.show : props.hide, "aria-pressed": hidden,
        "aria-label": (hidden ? props.show : props.hide) + ": " + name,
        "data-run": name,
      }, React.createElement("svg", {viewBox: "0 0 24 24", width: 15, height: 15,
                                     "aria-hidden": true},
        React.createElement("path", {d: path, fill: "none", stroke: "currentColor",
                                     strokeWidth: 2, strokeLinecap: "round"})));
    },
  });

  /* Functions the eye column names with {"function": "name(params)"}
     (dash_insight/web/components/tag_select.py). */
  window.dashAgGridFunctions = Object.assign(window.dashAgGridFunctions || {}, {
    /* The eye cell's value changes with the eye's colour too: the grid draws a cell again only
       when its value changed (a row update of the colour alone would leave the eye as it was). */
    pickerEyeValue(params) {
      return (params.data.hidden ? "hidden" : "shown") + (params.data.colour || "");
    },
    /* Enter / Space on the eye's cell toggle the eye (the renderer's keydown), not the row's
       tick. */
    pickerEyeKey(params) {
      return params.event.key === "Enter" || params.event.key === " ";
    },
  });
})();
