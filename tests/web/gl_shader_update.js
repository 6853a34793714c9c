// Runs gl-shader's `update` (as minified in the plotly.js bundle, patched by
// scripts/patch_plotly_bundle.py; the file named by argv[2]) on a fake WebGL context and prints
// what it linked, as JSON, for tests/web/test_plotly_bundle.py.
"use strict";
const fs = require("fs");
const vm = require("vm");

const links = [];
const gl = {
  VERTEX_SHADER: 1, FRAGMENT_SHADER: 2, LINK_STATUS: 3,
  createProgram: () => ({ bound: [] }),
  attachShader() {},
  linkProgram(program) { links.push(program.bound.length ? program.bound.join(",") : "probe"); },
  getProgramParameter: () => true,
  getProgramInfoLog: () => "",
  deleteProgram() {},
  getUniformLocation: (program, name) => ({ program, name }),
};
const names = {
  v: Error,
  _: (a, b) => (a.name < b.name ? -1 : 1),
  // gl-shader's shader cache: compiles a source once; links a program per attribute locations.
  f: {
    shader: (_gl, type, src) => ({ id: src + type, shader: src, dispose() {} }),
    program(_gl, vref, fref, attributes, locations) {
      const program = { bound: attributes.map((name, i) => name + "@" + locations[i]) };
      gl.linkProgram(program);
      return program;
    },
  },
  // its reflection: what a linked program says of its uniforms and attributes
  c: {
    uniforms: () => [{ name: "model", type: "mat4" }, { name: "colour", type: "vec4" }],
    attributes: () => [{ name: "position", type: "vec3" }],
  },
  l: (list) => list.map((item) => item.name),
  // the attribute wrapper: moving an attribute drops the program (gl-shader's `location` setter)
  u: (_gl, wrapper, _unpacked, locations) => ({
    move(index, location) { locations[index] = location; wrapper.program = null; },
  }),
  // the uniform wrapper: which uniforms have a location when it is made
  s: (_gl, _wrapper, uniforms, locations) => ({
    get: () => uniforms.map((uniform, i) => (locations[i] ? uniform.name : null)),
    configurable: true,
  }),
};
const context = vm.createContext({ ...names });
vm.runInContext("var p = {}; p.update = " + fs.readFileSync(process.argv[2], "utf8"), context);
const update = context.p.update;

function shader(vertex, attributes) {
  const wrapper = { gl, _vref: null, _fref: null, program: null };
  update.call(wrapper, vertex, "fragment", null, attributes);
  return wrapper;
}
const bind = (wrapper) => wrapper.program || wrapper._relink();
const report = {};
const given = [{ name: "position", type: "vec3" }, { name: "colour", type: "vec4" }];
const first = shader("vertex", given);
report.made = links.slice();
first.attributes.move(1, 0);
first.attributes.move(0, 1);
bind(first);
report.bound = links.slice();
report.uniforms = first.uniforms;
report.types = first.types;
const second = shader("vertex", given);
report.secondUniforms = second.uniforms;
const unknown = shader("other", null);
report.unknownMade = links.slice();
report.unknownUniforms = unknown.uniforms;
report.links = links;
console.log(JSON.stringify(report));
