"""The READMEs (issue #43): at most 150 lines each, each linking the other, and every command of
their quick start run for real.

The quick start's code blocks are the fenced blocks right after a ``<!-- quickstart -->`` line,
grouped by their ``###`` section (MindSpore, PyTorch, notebooks). Both READMEs must hold the
same blocks, so running one set runs both. Each section runs in a temp dir of its own, in order:
``bash`` lines as commands (``pip install`` is checked, not run: the package of ``.`` must be the
installed dash-insight of pyproject.toml, other names must be installed; ``dash-insight`` runs
the venv's entry point, its port and workspace from ``DASH_INSIGHT_PORT`` /
``DASH_INSIGHT_WORKSPACE`` so the README's lines run unchanged), ``python`` blocks as scripts,
``ipython`` blocks in an IPython shell in a process of their own (the notebook server is a thread
of it). A command the test does not know fails it: teach it here when the README grows one."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from dash_insight.core.settings import DEMO_DIR
from tests.ports import free_port

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
READMES = {"en": REPO / "README.md", "zh-CN": REPO / "README.zh-CN.md"}
MARK = "<!-- quickstart -->"
MAX_LINES = 150
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Block:
    section: str
    lang: str
    code: str


def quickstart_blocks(path: Path) -> list[Block]:
    """The marked fenced blocks of ``path`` in order, with the ``###`` heading above each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    section = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("### "):
            section = line[4:].strip()
        if line.strip() == MARK:
            fence = lines[index + 1]
            assert fence.startswith("```"), f"{path.name}:{index + 2}: {MARK} not before a fence"
            end = lines.index("```", index + 2)
            code = "\n".join(lines[index + 2 : end]) + "\n"
            blocks.append(Block(section, fence[3:].strip(), code))
            index = end
        index += 1
    return blocks


def _sections(blocks: list[Block]) -> dict[str, list[Block]]:
    grouped: dict[str, list[Block]] = {}
    for block in blocks:
        grouped.setdefault(block.section, []).append(block)
    return grouped


# --- shape ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", sorted(READMES))
def test_readme_is_short(language: str) -> None:
    count = len(READMES[language].read_text(encoding="utf-8").splitlines())
    assert count <= MAX_LINES, f"{READMES[language].name}: {count} lines (at most {MAX_LINES})"


def test_each_readme_links_the_other() -> None:
    english = READMES["en"].read_text(encoding="utf-8").splitlines()
    chinese = READMES["zh-CN"].read_text(encoding="utf-8").splitlines()
    assert "(README.zh-CN.md)" in "\n".join(english[:5])
    assert "(README.md)" in "\n".join(chinese[:5])


def test_both_readmes_have_the_same_quick_start() -> None:
    english, chinese = (quickstart_blocks(READMES[k]) for k in ("en", "zh-CN"))
    assert [(b.lang, b.code) for b in english] == [(b.lang, b.code) for b in chinese]
    # Three audiences, each with three steps (install, logs, the page).
    assert len(_sections(english)) == 3 and len(_sections(chinese)) == 3
    assert {b.lang for b in english} == {"bash", "python", "ipython"}


def test_the_two_commands_stay_named() -> None:
    for path in READMES.values():
        text = path.read_text(encoding="utf-8")
        assert "./scripts/demo.sh" in text and "./scripts/test.sh" in text, path.name
    assert (REPO / "scripts" / "demo.sh").exists() and (REPO / "scripts" / "test.sh").exists()


def test_relative_links_to_files_of_the_repository_exist() -> None:
    """Links to files other than the docs pages (another change writes those) must resolve."""
    for path in READMES.values():
        for target in re.findall(r"\]\(([^)#:]+)\)", path.read_text(encoding="utf-8")):
            if not target.startswith("docs/") or target.startswith("docs/img/"):
                assert (REPO / target).exists(), f"{path.name}: {target}"


# --- running the quick start ---------------------------------------------------------------------


class Runner:
    """Runs one section's blocks in ``cwd``; servers it started are stopped at the end."""

    def __init__(self, cwd: Path, port: int) -> None:
        self.cwd, self.port = cwd, port
        self.env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "DASH_INSIGHT_PORT": str(port),
            "DASH_INSIGHT_WORKSPACE": str(cwd / "ws"),
        }
        self.running: str | None = None  # URL of the server `dash-insight start` started
        self.pages: list[str] = []  # pages answered 200

    def run(self, block: Block, expected_job: str) -> None:
        if block.lang == "bash":
            for line in block.code.splitlines():
                line = line.split(" #")[0].strip()
                if line and not line.startswith("#"):
                    self.command(shlex.split(line), expected_job)
        elif block.lang == "python":
            done = subprocess.run(
                [sys.executable, "-c", block.code],
                cwd=self.cwd,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
        elif block.lang == "ipython":
            self.notebook(block.code, expected_job)
        else:
            pytest.fail(f"no runner for a {block.lang!r} block")

    def command(self, argv: list[str], expected_job: str) -> None:
        if argv[:2] == ["pip", "install"]:
            project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
            for spec in argv[2:]:
                if spec == ".":  # the checkout: the package of pyproject.toml, installed
                    assert project["name"] == "dash-insight"
                    assert importlib.metadata.version(project["name"]) == project["version"]
                else:
                    importlib.metadata.distribution(spec)  # an installed distribution
        elif argv[:2] == ["dash-insight", "start"]:
            done = self.dash_insight(argv[1:])
            assert done.returncode == 0, done.stderr
            match = re.search(r"running at (http://\S+/)", done.stdout)
            assert match, done.stdout
            self.running = match.group(1)
            assert self.running == f"http://127.0.0.1:{self.port}/"
            self.wait_for_job(self.running, expected_job)
            self.get_page(self.running)
        elif argv == ["dash-insight", "stop"]:
            assert self.running is not None, "stop before start"
            done = self.dash_insight(argv[1:])
            assert done.returncode == 0, done.stderr
            assert f"port {self.port} stopped" in done.stdout
            with pytest.raises(OSError):
                urllib.request.urlopen(self.running, timeout=5)
            self.running = None
        else:
            pytest.fail(f"the test does not know the README command {shlex.join(argv)!r}")

    def dash_insight(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["dash-insight", *args],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def get_page(self, url: str) -> None:
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200
            assert b"_dash-config" in response.read()  # the Dash page itself
        self.pages.append(url)

    @staticmethod
    def wait_for_job(base_url: str, job: str) -> None:
        api = f"{base_url}v1/mindinsight/datavisual/train-jobs?offset=0&limit=999"
        deadline = time.monotonic() + 60
        listed: list[str] = []
        while time.monotonic() < deadline:
            with urllib.request.urlopen(api, timeout=10) as response:
                answer = json.load(response)
            listed = [j["train_id"] for j in answer["train_jobs"]]
            if job in listed and answer["load_status"] == "loaded":
                return
            time.sleep(0.2)
        pytest.fail(f"{job} not loaded within 60 s: {listed}")

    def notebook(self, code: str, expected_job: str) -> None:
        """The cell in an IPython shell (Dash's notebook support needs one) in a process of its
        own; it prints the frames' URLs, fetched here while that process waits."""
        script = textwrap.dedent(
            f"""
            import json
            import sys

            from IPython.core.interactiveshell import InteractiveShell
            from IPython.utils.capture import capture_output

            shell = InteractiveShell.instance()
            with capture_output() as captured:
                shell.run_cell({code!r}).raise_error()
            sys.stderr.write(captured.stdout + captured.stderr)
            import dash_insight.notebook
            servers = dash_insight.notebook.servers()
            frames = [o.data.get("text/html", "") for o in captured.outputs]
            print(json.dumps({{"servers": [s.url for s in servers], "frames": frames}}))
            sys.stdout.flush()
            sys.stdin.readline()  # serve until the test is done
            """
        )
        env = {**self.env}
        env.pop("DASH_INSIGHT_PORT")  # a notebook takes any free port, as the README says
        shell = subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=self.cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert shell.stdout is not None and shell.stdin is not None
            line = shell.stdout.readline()  # blocks until the cell ran (or the process ended)
            if not line:
                pytest.fail(f"the IPython cell failed: {shell.communicate(timeout=30)[1]}")
            report = json.loads(line)
            assert len(report["servers"]) == 1, report
            base = report["servers"][0]
            self.wait_for_job(base, expected_job)
            frames = [
                m for f in report["frames"] for m in re.findall(r'<iframe[^>]*src="([^"]*)', f)
            ]
            assert len(frames) == 1 and frames[0].startswith(base), report
            self.get_page(frames[0].replace("&amp;", "&"))
            shell.stdin.write("\n")
            shell.stdin.flush()
            assert shell.wait(timeout=60) == 0, shell.stderr.read() if shell.stderr else ""
            output = shell.stderr.read() if shell.stderr else ""
            assert "dash-insight:" not in output, output  # the magic prints its errors
        finally:
            if shell.poll() is None:
                shell.kill()
                shell.wait()

    def close(self) -> None:
        if self.running is not None:
            self.dash_insight(["stop"])


# The logs each section's commands expect before they run (a MindSpore training's summaries:
# a job of the bundled demo), and the job its page must list.
SECTIONS = {
    "MindSpore": ("summary_dir/run1", "./run1"),
    "PyTorch": (None, "./exp1"),
    "Notebook": (None, "./run1"),
}


def _section_name(heading: str) -> str:
    names = [name for name in SECTIONS if heading.startswith(name)]
    assert len(names) == 1, f"unknown quick start section {heading!r}"
    return names[0]


def test_sections_are_known() -> None:
    for path in READMES.values():
        names = [_section_name(h) for h in _sections(quickstart_blocks(path))]
        assert names == list(SECTIONS), path.name


@pytest.mark.slow
@pytest.mark.parametrize("section", list(SECTIONS))
def test_quick_start_runs(section: str, tmp_path: Path) -> None:
    blocks = next(
        blocks
        for heading, blocks in _sections(quickstart_blocks(READMES["en"])).items()
        if _section_name(heading) == section
    )
    logs, job = SECTIONS[section]
    if logs is not None:
        shutil.copytree(Path(DEMO_DIR) / "lenet_sc", tmp_path / logs)
    runner = Runner(tmp_path, free_port())
    try:
        for block in blocks:
            runner.run(block, job)
    finally:
        runner.close()
    assert runner.running is None, "the quick start leaves its server running"
    assert runner.pages, "the quick start never opened a page"
