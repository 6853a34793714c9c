// ESLint for the browser scripts of assets/ (scripts/test.sh, tests/test_eslint.py):
//   npm ci --prefix scripts/eslint && npm run --prefix scripts/eslint lint (from the root)
// The files are plain browser scripts (no modules) that Dash loads in the page's <head>.
import js from "@eslint/js";
import globals from "globals";

export default [
    {
        // Only the app's own scripts: the plotly.js bundles are built, the vendor folder's
        // scripts (ELK) and regenerator's runtime are third parties'.
        ignores: [
            "assets/plotly-*.min.js",
            "assets/regenerator-runtime-*.js",
            "assets/vendor/**",
        ],
    },
    {
        files: ["assets/**/*.js"],
        ...js.configs.recommended,
        languageOptions: {
            ecmaVersion: 2022,
            sourceType: "script",
            globals: {
                ...globals.browser,
                // Set by the libraries the page loads before these scripts.
                Plotly: "readonly",
                dash_clientside: "writable",
                dash_ag_grid: "readonly",
                dashAgGridFunctions: "writable",
                dashAgGridComponentFunctions: "writable",
                cytoscape: "readonly",
                React: "readonly",
            },
        },
        linterOptions: {reportUnusedDisableDirectives: "error"},
    },
];
