"""The package's layering, as the import-linter contracts in pyproject.toml state it: a web-free
core, plugins independent of each other, web importing no plugin (the composition root,
``dash_insight/default.py``, sits above both).
Runs ``lint-imports`` so that ``pytest`` alone fails on a broken contract."""

from __future__ import annotations

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
