"""The package's layering, as the import-linter contracts in pyproject.toml state it: a web-free
core, plugins independent of each other, web importing no plugin but in its composition root.
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
