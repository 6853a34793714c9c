"""ESLint (scripts/eslint: the locked eslint 9 with its recommended rules) finds nothing in
assets/ (the vendored plotly.js bundle excepted), and its configuration does catch mistakes.
Skipped without node and npm; installs scripts/eslint/node_modules with ``npm ci`` when it is
missing or older than the lock, as scripts/test.sh does."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ESLINT_DIR = REPO / "scripts" / "eslint"
CONFIG = ESLINT_DIR / "eslint.config.mjs"


@pytest.fixture(scope="module")
def eslint() -> list[str]:
    """The command line of the locked eslint, run from the repository's root."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed")
    installed = ESLINT_DIR / "node_modules" / ".package-lock.json"
    lock = ESLINT_DIR / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        done = subprocess.run(
            ["npm", "ci", "--prefix", str(ESLINT_DIR), "--no-audit", "--no-fund"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
    return [str(ESLINT_DIR / "node_modules" / ".bin" / "eslint"), "--config", str(CONFIG)]


def _lint(eslint: list[str], *paths: str, stdin: str | None = None) -> list[dict]:
    done = subprocess.run(
        [*eslint, "--format", "json", "--max-warnings", "0", *paths],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr  # 2: eslint itself failed
    return json.loads(done.stdout)


def _messages(results: list[dict]) -> list[str]:
    return [
        f"{Path(r['filePath']).relative_to(REPO)}:{m.get('line')}: {m['message']} ({m['ruleId']})"
        for r in results
        for m in r["messages"]
    ]


def test_assets_are_clean(eslint: list[str]) -> None:
    results = _lint(eslint, "assets")
    linted = {Path(r["filePath"]).relative_to(REPO).as_posix() for r in results}
    own = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "assets").rglob("*.js")
        if "vendor" not in p.relative_to(REPO / "assets").parts  # third parties' (ELK)
    }
    # the plotly.js builds and regenerator's runtime (as published) are third parties'
    built = {p for p in own if re.fullmatch(r"assets/plotly-[a-z0-9-]+\.min\.js", p)}
    assert len(built) == 3, built
    assert linted == {p for p in own - built if "/regenerator-runtime-" not in p}
    assert "assets/shell.js" in linted
    assert _messages(results) == []


def test_the_config_catches_mistakes(eslint: list[str]) -> None:
    """A script of assets/ (given on stdin, nothing is written there) with an undefined name, an
    unused variable and a typo of a global is refused; the globals of the page's libraries are
    known."""
    source = (
        "(function () {\n"
        '  "use strict";\n'
        "  const unused = 1;\n"
        "  Plotly.purge(document.body);\n"
        "  window.dash_clientside = dash_clientside || {};\n"
        "  cytoscape.use(undefinedPlugin);\n"
        "  Plotyl.react(document.body, []);\n"
        "})();\n"
    )
    results = _lint(eslint, "--stdin", "--stdin-filename", "assets/probe.js", stdin=source)
    rules = sorted((m["ruleId"], m["message"]) for m in results[0]["messages"])
    assert rules == [
        ("no-undef", "'Plotyl' is not defined."),
        ("no-undef", "'undefinedPlugin' is not defined."),
        ("no-unused-vars", "'unused' is assigned a value but never used."),
    ], rules
    # Fixed, it passes: what failed was the mistakes, not the way the file is linted.
    fixed = source.replace("  const unused = 1;\n", "").replace("Plotyl", "Plotly")
    fixed = fixed.replace("undefinedPlugin", "window.cytoscapeDagre")
    assert (
        _lint(eslint, "--stdin", "--stdin-filename", "assets/probe.js", stdin=fixed)[0]["messages"]
        == []
    )
