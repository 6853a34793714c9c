"""The documentation site: the reference pages generated from the code are current
(``scripts/gen_docs.py --check``), a change of the code makes them stale, ``bench/<script>.py
--record`` writes what the benchmark reference is built from, and ``mkdocs build --strict``
passes (every link, anchor and nav entry resolves, in English and Chinese)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen_docs() -> ModuleType:
    return _load(ROOT / "scripts" / "gen_docs.py", "gen_docs")


def test_the_generated_reference_pages_are_current(
    gen_docs: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    status = gen_docs.main(["--check"])
    assert status == 0, capsys.readouterr().err + "run: .venv/bin/python scripts/gen_docs.py"


def test_a_new_option_makes_the_cli_reference_stale(gen_docs: ModuleType) -> None:
    from dash_insight.cli import build_parser

    parser = build_parser()
    commands = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    commands.choices["start"].add_argument("--brand-new-option", help="an option the page lacks")
    text = gen_docs.cli_reference(parser)
    assert "`--brand-new-option BRAND_NEW_OPTION`" in text
    assert "an option the page lacks" in text
    assert gen_docs.stale_pages({"cli.md": text}) == [os.path.join("docs", "reference", "cli.md")]
    # The code as it is gives the page as it is.
    assert gen_docs.stale_pages({"cli.md": gen_docs.cli_reference()}) == []


def test_a_missing_page_is_stale(gen_docs: ModuleType, tmp_path: Path) -> None:
    assert gen_docs.stale_pages({"cli.md": "x\n"}, folder=str(tmp_path)) == [
        os.path.relpath(tmp_path / "cli.md", ROOT)
    ]


def test_record_writes_what_the_benchmark_reference_shows(
    gen_docs: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine = _load(ROOT / "bench" / "machine.py", "bench_machine")
    monkeypatch.setattr(machine, "RESULTS", str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["graph.py", "--nodes", "10", "--record"])
    seen: list[list[str]] = []

    def main() -> int:
        seen.append(list(sys.argv))
        print("open the graph   12.5 ms  OK (< 1 s)")
        return 0

    assert machine.recorded(main, str(ROOT / "bench" / "graph.py")) == 0
    assert seen == [["graph.py", "--nodes", "10"]]  # --record is not the benchmark's option
    text = gen_docs.benchmarks_reference(results=str(tmp_path))
    assert "open the graph   12.5 ms  OK (< 1 s)" in text
    assert "`python bench/graph.py --nodes 10 --record`" in text
    assert "| `load.py` |" in text and "not yet" in text  # a script without a recorded result


def test_mkdocs_builds_strict(tmp_path: Path) -> None:
    """Without --quiet: mkdocs 1.6 does not count the warnings that --quiet hides."""
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    for page in ("index.html", "quickstart/index.html", "reference/cli/index.html"):
        assert (site / page).is_file(), page
        assert (site / "zh" / page).is_file(), f"zh/{page}"
    chinese = (site / "zh" / "quickstart" / "index.html").read_text(encoding="utf-8")
    assert "快速上手" in chinese


def test_every_page_of_the_guide_shows_its_screenshots() -> None:
    """Each ``docs/pages/`` page shows light and dark screenshots that ``scripts/screenshots.py``
    takes, in its own language (a Chinese page the Chinese ones), and every screenshot it takes
    is in ``docs/img/``."""
    screenshots = _load(ROOT / "scripts" / "screenshots.py", "screenshots")
    taken = {name for page in screenshots.PAGES for name in screenshots.file_names(page[0])}
    assert sorted(taken - {p.name for p in (ROOT / "docs" / "img").glob("*.png")}) == []
    for page in sorted((ROOT / "docs" / "pages").glob("*.md")):
        shown = set(
            re.findall(r"\]\(\.\./img/([\w-]+\.png)#only-(?:light|dark)\)", page.read_text())
        )
        chinese = page.name.endswith(".zh.md")
        assert len(shown) >= 2 and shown <= taken, f"{page.name} shows {sorted(shown)}"
        assert all(("-zh-" in name) == chinese for name in shown), page.name
