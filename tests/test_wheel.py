"""The package a user installs (issue #20): the sdist and the wheel built from it hold the assets,
the demo jobs, the protobuf stubs and ``py.typed``; the wheel, installed into a scratch venv and
run from an empty folder (no ``PYTHONPATH``, no checkout on ``sys.path``), serves the demo with
``dash-insight start --demo``: pages, every asset, the REST API.

The scratch venv (``.venv-wheel`` at the repository root, git-ignored) is kept between runs while
the package's dependencies and the Python version stay the same: only the freshly built wheel is
reinstalled (``--no-deps``), so a run takes seconds after the first. The dependencies are the
versions of ``uv.lock`` (``uv export`` as constraints) when uv is at hand, as scripts/bootstrap.sh
installs them: a new release elsewhere does not change what this test installs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ports import free_port
from tests.test_demo import DEMO_JOBS, LANDSCAPE, PROFILED

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

pytestmark = [pytest.mark.wheel, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
SCRATCH_VENV = Path(os.environ.get("DASH_INSIGHT_WHEEL_VENV", ROOT / ".venv-wheel"))
STAMP = SCRATCH_VENV / ".requirements.sha256"
#: The repository's stylesheets and scripts, which the installed app must serve byte for byte.
ASSET_FILES = sorted(p for p in (ROOT / "assets").iterdir() if p.suffix in (".css", ".js"))
#: The plotly.js builds: a page links the one it draws with (web/page_bundles.py).
PLOTLY_BUILDS = {"plotly-dash-insight.min.js", "plotly-cartesian.min.js", "plotly-gl3d.min.js"}
#: The pages of PAGES that draw no Plotly chart: they link neither build.
WITHOUT_PLOTLY = (
    "/",
    "/images?train_id=./lenet_sc",
    "/graph?train_id=./lenet_sc",
    "/lineage",
    f"/profiler?train_id={PROFILED}",
)
#: Third parties' scripts a page loads when it needs them (ELK), not linked into pages.
VENDOR_FILES = sorted((ROOT / "assets" / "vendor").glob("*.js"))
PAGES = (
    "/",
    "/dashboard?train_id=./lenet_sc",
    "/scalars?train_id=./lenet_sc",
    "/histograms?train_id=./lenet_sc",
    "/images?train_id=./lenet_sc",
    "/graph?train_id=./lenet_sc",
    "/lineage",
    f"/profiler?train_id={PROFILED}",
    f"/loss-landscape?train_id={LANDSCAPE}",
)


def _clean_env() -> dict[str, str]:
    """The environment of a user's shell: nothing pointing at this checkout or the test venv."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")
        and not k.startswith("DASH_INSIGHT_")
    }
    env["PATH"] = f"{SCRATCH_VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(command: list[str], cwd: Path, timeout: float = 600) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (
        f"{' '.join(command)} exited {done.returncode}\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def _uv() -> str | None:
    """The uv of scripts/bootstrap.sh (it exports UV), or one on PATH."""
    return os.environ.get("UV") or shutil.which("uv")


def _requirements_key(constraints: str) -> str:
    """What the scratch venv's installed dependencies depend on."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    text = json.dumps([sys.version, project["dependencies"], constraints])
    return hashlib.sha256(text.encode()).hexdigest()


def _locked_constraints(uv: str | None) -> str:
    """uv.lock's versions of the app's dependencies, as a pip constraints file ("" without uv)."""
    if uv is None:
        return ""
    return _run(
        [
            uv,
            "export",
            "--frozen",
            "--no-hashes",
            "--no-emit-project",
            "--no-header",
            "--quiet",
            "--project",
            str(ROOT),
        ],
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel built from that sdist (``python -m build``), as a release is."""
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: the build backend (hatchling) is in the test extra, no download needed.
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"python -m build failed:\n{done.stdout[-3000:]}{done.stderr}"
    return {"sdist": next(out.glob("*.tar.gz")), "wheel": next(out.glob("*.whl"))}


@pytest.fixture(scope="module")
def installed(built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scratch venv with the wheel installed (dependencies from the package index, at the
    lock's versions when uv is at hand)."""
    uv = _uv()
    constraints = _locked_constraints(uv)
    key = _requirements_key(constraints)
    fresh = not (STAMP.exists() and STAMP.read_text() == key)
    if fresh:
        shutil.rmtree(SCRATCH_VENV, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "venv", str(SCRATCH_VENV)],
            check=True,
            env=_clean_env(),
            timeout=300,
        )
    scratch = tmp_path_factory.mktemp("pip")
    (scratch / "constraints.txt").write_text(constraints)
    install = (
        [uv, "pip", "install", "--python", str(SCRATCH_VENV / "bin" / "python")]
        if uv
        else [
            str(SCRATCH_VENV / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
        ]
    )
    install += ["--quiet", "--constraint", str(scratch / "constraints.txt")]
    extra = [] if fresh else ["--no-deps", "--reinstall" if uv else "--force-reinstall"]
    _run([*install, *extra, str(built["wheel"])], cwd=scratch, timeout=900)
    if fresh:
        STAMP.write_text(key)
    return SCRATCH_VENV


def test_wheel_and_sdist_hold_every_data_file(built: dict[str, Path]) -> None:
    wheel = set(zipfile.ZipFile(built["wheel"]).namelist())
    for asset in ASSET_FILES:
        assert f"dash_insight/assets/{asset.name}" in wheel
    assert VENDOR_FILES
    for asset in VENDOR_FILES:
        assert f"dash_insight/assets/vendor/{asset.name}" in wheel
    demo = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "dash_insight" / "demo").rglob("*")
        if p.is_file()
    ]
    assert demo and set(demo) <= wheel
    assert {
        "dash_insight/py.typed",
        "dash_insight/core/format/protos/summary_pb2.pyi",
        "dash_insight/core/format/protos/summary_pb2.py",
    } <= wheel
    with tarfile.open(built["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {f"assets/{asset.name}" for asset in ASSET_FILES} <= names
    assert set(demo) <= names and "pyproject.toml" in names


def _linking(name: str) -> str:
    """A pattern of a ``<script src>`` or ``<link href>`` linking the asset ``name``."""
    return rf'(?:src|href)="[^"]*/assets/{re.escape(name)}\?m='


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read()


def _render(base: str, path: str, train_id: str | None = None) -> str:
    """A page's frame as the shell's routing callback renders it (the browser asks for it)."""
    search = f"?train_id={train_id}" if train_id else ""
    body = {
        "output": "..page.children...route.data..",
        "outputs": [{"id": "page", "property": "children"}, {"id": "route", "property": "data"}],
        "inputs": [
            {"id": "url", "property": "pathname", "value": path},
            {"id": "url", "property": "search", "value": search},
        ],
        "changedPropIds": ["url.pathname"],
        "state": [{"id": "route", "property": "data", "value": None}],
    }
    request = urllib.request.Request(
        base + "_dash-update-component",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
        return response.read().decode()


@pytest.fixture(scope="module")
def demo_server(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``dash-insight start --demo`` of the installed wheel, run from an empty folder."""
    cwd = tmp_path_factory.mktemp("user")
    port, workspace = free_port(), str(cwd / "workspace")
    cli = str(installed / "bin" / "dash-insight")
    started = _run(
        [
            cli,
            "start",
            "--demo",
            "--port",
            str(port),
            "--workspace",
            workspace,
            "--reload-interval",
            "0",
        ],
        cwd=cwd,
        timeout=120,
    )
    assert f"http://127.0.0.1:{port}/" in started
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        _run([cli, "stop", "--port", str(port), "--workspace", workspace], cwd=cwd)


def test_installed_package_is_the_wheel(installed: Path, tmp_path: Path) -> None:
    where = _run(
        [
            str(installed / "bin" / "python"),
            "-c",
            "import dash_insight, sys; print(dash_insight.__file__)",
        ],
        cwd=tmp_path,
    )
    assert Path(where.strip()).is_relative_to(installed)


def test_demo_serves_pages_assets_and_rest(demo_server: str) -> None:
    mindinsight = demo_server + "v1/mindinsight/"
    api = mindinsight + "datavisual/"
    deadline = time.monotonic() + 120
    jobs: dict[str, Any] = {}
    while time.monotonic() < deadline:
        jobs = json.loads(_get(api + "train-jobs?offset=0&limit=100")[1])
        if jobs.get("load_status") == "loaded" and jobs.get("total") == len(DEMO_JOBS):
            break
        time.sleep(0.2)
    assert {job["train_id"] for job in jobs["train_jobs"]} == DEMO_JOBS
    metadata = "scalar/metadata?train_id=./lenet_sc&tag=loss%2Fauto%2Fscalar"
    scalars = json.loads(_get(api + metadata)[1])
    assert len(scalars["metadatas"]) == 48, scalars
    # the profiler and the loss landscape have data in the demo too
    devices = f"profile/devices?profile=./profiler&train_id={PROFILED}"
    listed = json.loads(_get(mindinsight + devices)[1])
    assert listed["device_list"] == ["0"], listed
    final = f"landscape/landscapes?train_id={LANDSCAPE}&type=final"
    assert len(json.loads(_get(api + final)[1])["landscapes"]) == 1

    for page in PAGES:
        status, html = _get(demo_server + page.lstrip("/"))
        assert status == 200
        # Every file of the assets folder comes into each page, in a bundle served from the
        # wheel (web/asset_bundles.py) or linked, one plotly.js build (none on a page without
        # Plotly charts)
        text = html.decode()
        # (a script or stylesheet's address; data-page-bundles names the cartesian build too)
        linked = {a.name for a in ASSET_FILES if re.search(_linking(a.name), text)}
        bundled = b"".join(
            _get(f"{demo_server}assets/{name}")[1]
            for name in re.findall(r'/assets/(di-bundle-[0-9a-f]+\.(?:js|css))"', text)
        )
        linked |= {a.name for a in ASSET_FILES if a.read_bytes().rstrip(b"\n") in bundled}
        assert {a.name for a in ASSET_FILES} - linked == PLOTLY_BUILDS - linked, page
        assert len(PLOTLY_BUILDS & linked) == (page not in WITHOUT_PLOTLY), page
    for asset in ASSET_FILES:
        status, body = _get(f"{demo_server}assets/{asset.name}")
        assert status == 200 and body == asset.read_bytes(), asset.name
    for asset in VENDOR_FILES:
        status, body = _get(f"{demo_server}assets/vendor/{asset.name}")
        assert status == 200 and body == asset.read_bytes(), asset.name

    assert "Current folder: demo" in _render(demo_server, "/")
    for page in ("/dashboard", "/scalars", "/images"):
        assert "lenet_sc" in _render(demo_server, page, "./lenet_sc"), page
