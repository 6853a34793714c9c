// Runs the setter of Plotly's 3D camera mode (as minified in the plotly.js bundle, patched by
// scripts/patch_plotly_bundle.py; the file named by argv[2]) on a fake view, for each case
// of argv[3] ({name: [eye, center, computed up]}), and prints the keyframes it set, as JSON,
// for tests/web/test_plotly_bundle.py.
"use strict";
const fs = require("fs");
const vm = require("vm");

const context = vm.createContext({ s: () => 1000 });
const setter = vm.runInContext("({" + fs.readFileSync(process.argv[2], "utf8") + "})", context).set;
const report = {};
for (const [name, [eye, center, up]] of Object.entries(JSON.parse(process.argv[3]))) {
  const keys = [];
  context.g = {
    computedUp: up, computedEye: eye, computedCenter: center, mode: "orbit",
    setMode(mode) { this.mode = mode; },
    getMode() { return this.mode; },
    _active: {
      lookAt: (t, _eye, _center, towards) => keys.push([t, towards]),
      flush: (t) => keys.push(["flush", t]),
    },
  };
  setter("turntable");
  report[name] = keys;
}
console.log(JSON.stringify(report));
