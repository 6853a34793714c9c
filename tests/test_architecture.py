"""The package's layering, as the import-linter contracts in pyproject.toml state it: a web-free
core, plugins independent of each other, web importing no plugin (the composition root,
``dash_insight/default.py``, sits above both).
Runs ``lint-imports`` so that ``pytest`` alone fails on a broken contract."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]


def _contracts() -> list[dict]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["importlinter"]["contracts"]


def _lint_imports() -> str | None:
    """The ``lint-imports`` of this interpreter's environment, else the one on PATH."""
    beside = Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports")


def test_every_plugin_is_in_the_independence_contract() -> None:
    plugins = sorted(
        f"dash_insight.plugins.{path.parent.name}"
        for path in (ROOT / "dash_insight" / "plugins").glob("*/__init__.py")
    )
    independence = [c for c in _contracts() if c["type"] == "independence"]
    assert len(independence) == 1 and plugins
    assert sorted(independence[0]["modules"]) == plugins


def test_import_contracts_are_kept() -> None:
    command = _lint_imports()
    if command is None:
        pytest.skip("lint-imports is not installed (pip install -e '.[test]')")
    # This tree's package, whatever else is installed; no cache files written into the tree.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    result = subprocess.run(
        [command, "--no-cache"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in report, report


def test_web_may_not_import_plugins_nor_the_composition_root() -> None:
    (contract,) = [c for c in _contracts() if c.get("source_modules") == ["dash_insight.web"]]
    assert contract["type"] == "forbidden" and not contract.get("ignore_imports")
    assert set(contract["forbidden_modules"]) == {"dash_insight.plugins", "dash_insight.default"}


def test_the_composition_root_is_a_layer_above_plugins_and_web() -> None:
    (layers,) = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    assert layers[1:] == [
        "dash_insight.default",
        "dash_insight.plugins",
        "dash_insight.web",
        "dash_insight.core",
    ]


def test_no_attributes_hung_on_the_app_with_type_ignore() -> None:
    hung = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "dash_insight").rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "app." in line and "type: ignore[attr-defined]" in line
    ]
    assert hung == []


#: What only JavaScript (or a page's script element) holds; looked for in string constants.
JAVASCRIPT_SIGNS = ("function(", "function (", "=>", "document.", "<script")


def _string_constants(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_javascript_in_python_strings_under_web_and_plugins() -> None:
    """JavaScript lives in ``assets/`` (and the pages' HTML around Dash's in
    ``web/templates/``), never in a Python string of ``web/`` or ``plugins/``. Docstrings may
    name it."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}"
        for folder in ("web", "plugins")
        for path in sorted((ROOT / "dash_insight" / folder).rglob("*.py"))
        for line, text in _string_constants(path)
        if any(sign in text for sign in JAVASCRIPT_SIGNS)
    ]
    assert found == []


def test_the_first_paint_parses_no_html_with_regular_expressions() -> None:
    """Dash's index is read through its public hooks (issue 36 item 4): no ``re`` call in
    ``web/first_paint.py`` is given a pattern that looks for a tag."""
    source = (ROOT / "dash_insight" / "web" / "first_paint.py").read_text(encoding="utf-8")
    patterns = [
        text
        for _, text in _string_constants(ROOT / "dash_insight" / "web" / "first_paint.py")
        if "<" in text and ("\\s" in text or ".*" in text or "[^" in text)
    ]
    assert patterns == []
    assert "app.interpolate_index =" not in source


def test_one_class_is_called_plugin() -> None:
    """The stored kinds are ``core.vocabulary.PluginName``; ``Plugin`` is the plugin contract
    (``web.plugin.Plugin``) only."""
    from dash_insight.core import vocabulary
    from dash_insight.web import plugin

    assert not hasattr(vocabulary, "Plugin")
    assert vocabulary.PluginName.SCALAR.value == "scalar"
    assert plugin.Plugin.__module__ == "dash_insight.web.plugin"
