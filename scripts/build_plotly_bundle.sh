#!/usr/bin/env bash
# Rebuilds assets/plotly-dash-insight.min.js: plotly.js with only the trace types dash-insight
# draws (2.4 MB instead of the full 4.8 MB bundle Dash would load, so every page with a chart
# starts faster; bench/profiler.py measures it), and assets/plotly-cartesian.min.js, the same
# without the WebGL traces (scattergl, scatter3d, surface: regl, the 3D scene), which every page
# that draws none of them loads instead, and assets/plotly-gl3d.min.js, the loss landscape pages'
# (contours and the 3D scene, without bar, pie and scattergl's regl: 1.8 MB)
# (dash_insight/web/page_bundles.py). The two with the 3D scene are then patched by
# scripts/patch_plotly_bundle.py (its render loop idles, each pair of shaders is read once, the
# camera turns to z up only from another view, picking waits for a pointer).
# The version follows the plotly Python package, so figures are built and drawn by the same
# plotly.js. Needs node + npm (the npm registry).
#
# The bundle is plotly.js's "strict" flavour (its lib/index-strict.js, which its
# tasks/partial_bundle.mjs cuts down with `strict: true`): a trace with a src/traces/<type>/strict.js
# (scattergl: regl's shaders precompiled) is taken from there, so the bundle never builds code
# with `new Function` and runs under the pages' Content-Security-Policy without 'unsafe-eval'
# (dash_insight/web/application.py, tests/web/test_csp.py).
#
#   ./scripts/build_plotly_bundle.sh          # after upgrading plotly, or to add a trace type
#
# tests/web/test_plotly_bundle.py fails when the bundle's version differs from plotly's or a
# trace type the code uses is missing from TRACES.
set -euo pipefail
cd "$(dirname "$0")/.."
# tests/web/test_plotly_bundle.py checks the code draws no other type; scatter and heatmap
# (contour's base) come with them.
TRACES=(bar pie contour scattergl scatter3d surface)
#: The traces of the cartesian bundle: the WebGL ones left out.
CARTESIAN=(bar pie contour)
#: The traces of the loss landscape pages' bundle: contours and the 3D scene.
GL3D=(contour scatter3d surface)
PYTHON=${PYTHON:-.venv/bin/python}
# a path: still found after the cd below (absolute, its symlinks kept: a venv's python is a
# symlink to the base interpreter, which does not see the venv's packages)
case $PYTHON in */*) PYTHON="$(cd "$(dirname "$PYTHON")" && pwd)/$(basename "$PYTHON")" ;; esac
PATCH="$PWD/scripts/patch_plotly_bundle.py"
VERSION=$("$PYTHON" -c "from plotly.offline import get_plotlyjs_version as v; print(v())")
OUT="$PWD/assets/plotly-dash-insight.min.js"
OUT_CARTESIAN="$PWD/assets/plotly-cartesian.min.js"
OUT_GL3D="$PWD/assets/plotly-gl3d.min.js"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "building plotly.js $VERSION with ${TRACES[*]} in $WORK"
cd "$WORK"
npm pack --silent "plotly.js@$VERSION" >/dev/null
tar xzf "plotly.js-$VERSION.tgz"
cd package
npm install --silent --omit=dev --ignore-scripts --no-audit --no-fund
# plotly.js's own build plugins (its esbuild-config.js), at the versions its package.json names.
PLUGINS=$(node -e '
const d = require("./package.json").devDependencies;
console.log(["esbuild", "esbuild-plugin-environment", "esbuild-plugin-glsl",
             "esbuild-plugin-inline-css", "stream-browserify"].map(n => n + "@" + d[n]).join(" "));')
# shellcheck disable=SC2086
npm install --silent --no-save --ignore-scripts --no-audit --no-fund $PLUGINS
entry() {  # entry <file> <trace>...: plotly's core registering the traces given
  local file=$1
  shift
  {
    echo "'use strict';"
    echo "var Plotly = require('./core');"
    echo "Plotly.register(["
    for trace in "$@"; do
      if [[ -f "src/traces/$trace/strict.js" ]]; then
        echo "    require('../src/traces/$trace/strict'),"
      else
        echo "    require('./$trace'),"
      fi
    done
    echo "]);"
    echo "module.exports = Plotly;"
  } > "lib/$file"
}
entry index-dash-insight.js "${TRACES[@]}"
entry index-cartesian.js "${CARTESIAN[@]}"
entry index-gl3d.js "${GL3D[@]}"
cat > build-dash-insight.js <<'JS'
// plotly.js's esbuild-config.js, minified, with the entry above.
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const { glsl } = require('esbuild-plugin-glsl');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');
esbuild.build({
    entryPoints: [process.argv[3]], outfile: process.argv[2],
    format: 'iife', globalName: 'Plotly', bundle: true, minify: true, sourcemap: false,
    plugins: [InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
    alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
    define: { global: 'window', 'define.amd': 'false' },
    target: 'es2016', logLevel: 'warning',
}).catch(() => process.exit(1));
JS
write() {  # write <out> <entry> <trace>...
  local out=$1 entry=$2
  shift 2
  node build-dash-insight.js "$WORK/bundle.js" "./lib/$entry"
  {
    echo "/* plotly.js v$VERSION (MIT, Copyright Plotly, Inc.), partial bundle built by"
    echo "   scripts/build_plotly_bundle.sh (strict: no function constructors);"
    echo "   traces: scatter heatmap $* */"
    cat "$WORK/bundle.js"
  } > "$out"
  echo "wrote $out ($(du -k "$out" | cut -f1) KB)"
}
write "$OUT" index-dash-insight.js "${TRACES[@]}"
write "$OUT_CARTESIAN" index-cartesian.js "${CARTESIAN[@]}"
write "$OUT_GL3D" index-gl3d.js "${GL3D[@]}"
# The builds with the 3D scene: its render loop idles while the scene is still, and gl-shader
# reads each pair of shaders once.
"$PYTHON" "$PATCH" "$OUT" "$OUT_GL3D"
