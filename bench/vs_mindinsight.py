"""dash-insight beside MindInsight 2.3.1: every page timed in the same browser, in alternating
pairs (issue 37 item 1).

Installs MindInsight 2.3.1 once into its own venv outside the repo
(``~/.cache/dash-insight/mindinsight-2.3.1``; the PyPI wheel and the pins of
``../shared/tools/mindinsight-requirements.txt``, installed with ``--no-deps``), serves the same
jobs from both apps, and times each page with ``../shared/tools/pagetime.py`` (used as is: a fresh
headless Chromium per load, "drawn" = the page's last DOM change, canvas draw or answered request
once nothing changed and no request was in flight for 1.5 s, the same definition for both apps):
MindInsight, dash-insight, MindInsight, dash-insight ... ``--repeat`` pairs (default 3). Printed
per page: the median time until drawn, the browser's CPU seconds (the whole Chromium tree), the
JS heap, the bytes the browser received (counted by a relay in front of each server) and the
ratios dash-insight / MindInsight, with OK when dash-insight's time and CPU are both at most
0.7x MindInsight's, MISSED otherwise; the core count and load average before and after.

The same run first times two floors, ``--repeat`` alternating loads of each: a static HTML
page of one ``<span>`` (what any page costs the browser in this measurement), printed as the
row "floor: static HTML page", and a bare Dash page (``bench/dash_floor.py``: the installed
dash, one ``html.Div`` holding a ``html.Span``, no callbacks, the Dash scripts every
dash-insight page loads, served by waitress and compressed like dash-insight; what any of its
pages costs before it draws anything), printed as the row "floor: bare Dash page". Then, for
the pages that draw with plotly.js or Cytoscape, the same bare page drawing the smallest chart
of that library (``bench/dash_floor.py``'s ``LIBRARY_FLOORS``: a line of two points, a 2 x 2
surface in the 3D scene, two nodes; the scripts a dash-insight page of that library loads),
printed as the rows "floor: Dash + <library>" (:data:`LIBRARY_FLOOR_ROWS`): what any page
drawing with it costs. Each page's row gives its targets (0.7x MindInsight's time / CPU, in
seconds) and a MISSED row whose time or CPU target lies below its floor (:attr:`Page.floor`)
says so: no Dash page drawing with its library can meet it.

Pages and jobs (``bench/data/vs_mindinsight``, kept between runs; the real corpus jobs copied from
``--shared``):

* scalars: a job of 20 tags x ``--steps`` steps (default 20,000);
* parameter distribution: the same job's 20 histogram tags (50 steps each);
* computational graph: a ResNet-34-like graph of 2,000 operators in 40 blocks of 50 (conv,
  bias, ReLU, matmul... with skip connections; ``bench/graph.py``'s generator);
* loss landscape: ``corpus-landscape/lenet_step``;
* model lineage: the corpus's jobs (``corpus/``: 6 jobs with lineage);
* scalar comparison: 4 jobs of 5 tags x ``--steps`` steps (a base directory of their own, as
  MindInsight selects the first 5 jobs of its base directory);
* profiler: the performance dashboard of ``corpus-profiler/lenet_summary_prof``;
* images and tensors: the corpus's ``ops_all`` (6 image tags, 7 tensor tags).

    python bench/vs_mindinsight.py [--repeat 3] [--steps 20000] [--pages scalars,graph]
        [--shared ../shared] [--shots DIR]

``--pages`` runs the pages whose names contain one of the words; ``--shots DIR`` saves a
screenshot of each app's first load of each page. Needs Debian's chromium + chromium-driver and
network access to the package registry on the first run. The machine is often shared: a high
load average slows both apps, so the ratios are the figures to read.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import waitress
from graph import make_graph  # bench/, beside this script
from machine import free_port, machine, recorded

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA_DIR = os.path.join(HERE, "data", "vs_mindinsight")
MI_VENV = os.path.join(os.path.expanduser("~"), ".cache", "dash-insight", "mindinsight-2.3.1")
MI_VERSION = "2.3.1"
TARGET = 0.7
#: pagetime.py's figures summarized per app and page (medians of the loads).
KEYS = ("visual_complete_s", "browser_tree_cpu_s", "js_heap_mb", "bytes")
#: The figures with a target (time, CPU).
TARGET_KEYS = KEYS[:2]
FLOOR = "floor: bare Dash page"
BROWSER_FLOOR = "floor: static HTML page"
PLOTLY_FLOOR = "floor: Dash + plotly.js"
GL3D_FLOOR = "floor: Dash + 3D plotly.js"
CYTOSCAPE_FLOOR = "floor: Dash + Cytoscape"
#: The rows of ``bench/dash_floor.py``'s library floors, by the path they are served below.
LIBRARY_FLOOR_ROWS = {
    "/plotly/": PLOTLY_FLOOR,
    "/gl3d/": GL3D_FLOOR,
    "/cytoscape/": CYTOSCAPE_FLOOR,
}
SCALAR_TAGS = 20
HISTOGRAM_STEPS = 50
COMPARE_JOBS = 4
COMPARE_TAGS = 5


@dataclass(frozen=True)
class Page:
    name: str
    base: str  # "main" or "compare": the base directory both apps serve
    mindinsight: str  # MindInsight's route (after ``#``)
    ours: str  # dash-insight's path
    #: pagetime.py's ``--min-charts``: canvases or SVGs the page must hold before it can be
    #: drawn (0: pages of ``<img>`` and table cells, where MindInsight draws neither)
    min_charts: int = 1
    #: The row of the floor its targets are compared with: the bare Dash page, or the floor of
    #: the library its first screen draws with (:data:`LIBRARY_FLOOR_ROWS`).
    floor: str = FLOOR


PAGES = (
    Page(
        "scalars",
        "main",
        "/train-manage/scalar?train_id=./train&summaryPath=./train",
        "/scalars?train_id=.%2Ftrain",
        floor=PLOTLY_FLOOR,
    ),
    Page(
        "parameter distribution",
        "main",
        "/train-manage/histogram?train_id=./train&summaryPath=./train",
        "/histograms?train_id=.%2Ftrain",
        floor=PLOTLY_FLOOR,
    ),
    Page(
        "computational graph",
        "main",
        "/train-manage/graph?train_id=./resnet34&summaryPath=./resnet34",
        "/graph?train_id=.%2Fresnet34",
        floor=CYTOSCAPE_FLOOR,
    ),
    Page(
        "loss landscape",
        "main",
        "/train-manage/loss-analysis?train_id=./lenet_step&summaryPath=./lenet_step",
        "/loss-landscape?train_id=.%2Flenet_step",
        floor=GL3D_FLOOR,
    ),
    Page("model lineage", "main", "/model-traceback", "/lineage"),
    Page(
        "scalar comparison",
        "compare",
        "/compare-analysis/scalar",
        "/compare",
        floor=PLOTLY_FLOOR,
    ),
    Page(
        "profiler",
        "main",
        "/profiling-cpu/performance-dashboard?dir=./profiler&id=./lenet_summary_prof"
        "&path=./lenet_summary_prof",
        "/profiler?train_id=.%2Flenet_summary_prof",
    ),
    Page(
        "images",
        "main",
        "/train-manage/image?train_id=./ops_all&summaryPath=./ops_all",
        "/images?train_id=.%2Fops_all",
        0,
    ),
    Page(
        "tensors",
        "main",
        "/train-manage/tensor?train_id=./ops_all&summaryPath=./ops_all",
        "/tensors?train_id=.%2Fops_all",
        0,
    ),
)


# ----------------------------------------------------------------------------- pure helpers


def median(values: list[float | None]) -> float | None:
    """The median of the values that are there (``None``: a load that timed out), or ``None``."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """``ours / theirs``, or ``None`` when either is missing or ``theirs`` is 0."""
    if ours is None or theirs is None or theirs <= 0:
        return None
    return ours / theirs


def verdict(time_ratio: float | None, cpu_ratio: float | None, target: float = TARGET) -> str:
    """``OK`` when both ratios are known and at most ``target``, else ``MISSED``."""
    ok = all(r is not None and r <= target for r in (time_ratio, cpu_ratio))
    return "OK" if ok else "MISSED"


def medians(runs: list[dict]) -> dict[str, float | None]:
    """The median of each of :data:`KEYS` over pagetime.py's results ``runs``."""
    return {key: median([run.get(key) for run in runs]) for key in KEYS}


def targets(mi: dict[str, float | None], target: float = TARGET) -> tuple[float | None, ...]:
    """dash-insight's targets in seconds, ``(time, CPU)``: ``target`` x MindInsight's medians
    ``mi`` (``None`` where MindInsight's is missing)."""
    return tuple(
        None if mi[key] is None else target * mi[key]  # type: ignore[operator]
        for key in TARGET_KEYS
    )


def below_floor(goals: tuple[float | None, ...], floor: dict[str, float | None]) -> list[str]:
    """The names ("time", "CPU") of the targets ``goals`` (:func:`targets`) below a floor's
    medians ``floor``: targets no Dash page of that floor's scripts and chart can meet."""
    return [
        name
        for name, goal, key in zip(("time", "CPU"), goals, TARGET_KEYS, strict=True)
        if goal is not None and floor[key] is not None and goal < floor[key]  # type: ignore[operator]
    ]


def fmt(value: float | None, unit: str = "", digits: int = 2) -> str:
    """``1.23 s``; ``-`` for a missing value."""
    return "-" if value is None else f"{value:.{digits}f}{unit}"


def fmt_ratio(value: float | None) -> str:
    """``0.42x``; ``-`` for a missing value."""
    return "-" if value is None else f"{value:.2f}x"


def fmt_bytes(value: float | None) -> str:
    """``1.2 MB`` (decimal units); ``-`` for a missing value."""
    if value is None:
        return "-"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} B"


# ----------------------------------------------------------------------------- the jobs


def _copy(source: str, target: str) -> None:
    if not os.path.isdir(target):
        shutil.copytree(source, target)


def generate(base: str, shared: str, steps: int) -> dict[str, str]:
    """The two base directories (``main``, ``compare``), generated or copied once each."""
    main_dir = os.path.join(base, f"main_{steps}")
    compare_dir = os.path.join(base, f"compare_{steps}")
    started = time.perf_counter()
    rng = np.random.default_rng(0)
    train = os.path.join(main_dir, "train")
    if not os.path.isdir(train):
        every = max(1, steps // HISTOGRAM_STEPS)
        with SummaryWriter(train + ".part", host="bench") as writer:
            noise = rng.random((steps, SCALAR_TAGS)) * 0.05
            for step in range(1, steps + 1):
                decay = np.exp(-step / (steps / 4))
                for i in range(SCALAR_TAGS):
                    writer.add_scalar(
                        f"metrics/tag_{i:02d}", float(decay * (i + 1) + noise[step - 1, i]), step
                    )
                if step % every == 0:
                    for i in range(SCALAR_TAGS):
                        writer.add_histogram(
                            f"layer{i:02d}.weight",
                            rng.standard_normal(2000) * (1 + step / steps),
                            step,
                        )
        os.rename(train + ".part", train)
    graph_job = os.path.join(main_dir, "resnet34")
    if not os.path.isdir(graph_job):
        with SummaryWriter(graph_job + ".part", host="bench") as writer:
            writer.add_graph(make_graph(2000, 40))
            writer.add_scalar("loss", 1.0, 1)
            writer.record(1)
        os.rename(graph_job + ".part", graph_job)
    corpus = os.path.join(shared, "corpus")
    for name in sorted(os.listdir(corpus)):
        if os.path.isdir(os.path.join(corpus, name)):
            _copy(os.path.join(corpus, name), os.path.join(main_dir, name))
    _copy(
        os.path.join(shared, "corpus-landscape", "lenet_step"),
        os.path.join(main_dir, "lenet_step"),
    )
    _copy(
        os.path.join(shared, "corpus-profiler", "lenet_summary_prof"),
        os.path.join(main_dir, "lenet_summary_prof"),
    )
    for job in range(COMPARE_JOBS):
        path = os.path.join(compare_dir, f"run_{job}")
        if os.path.isdir(path):
            continue
        with SummaryWriter(path + ".part", host="bench") as writer:
            noise = rng.random((steps, COMPARE_TAGS)) * 0.05
            for step in range(1, steps + 1):
                for i in range(COMPARE_TAGS):
                    value = np.exp(-step / (steps / (2 + job))) * (i + 1) + noise[step - 1, i]
                    writer.add_scalar(f"metrics/tag_{i}", float(value), step)
        os.rename(path + ".part", path)
    spent = time.perf_counter() - started
    if spent > 1:
        print(f"generated the jobs in {spent:.1f} s")
    return {"main": main_dir, "compare": compare_dir}


# ----------------------------------------------------------------------------- MindInsight


def install_mindinsight(requirements: str) -> str:
    """MindInsight 2.3.1 in its own venv (once); the venv's ``bin`` directory."""
    bin_dir = os.path.join(MI_VENV, "bin")
    python = os.path.join(bin_dir, "python")
    check = [python, "-c", "import mindinsight, flask; print(mindinsight.__version__)"]
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
    if os.path.exists(python):
        done = subprocess.run(check, capture_output=True, text=True, env=env)
        if done.returncode == 0 and done.stdout.strip() == MI_VERSION:
            return bin_dir
    print(f"installing MindInsight {MI_VERSION} into {MI_VENV}")
    uv = shutil.which("uv") or os.path.join(REPO, ".tools", "uv-0.13.9", "bin", "uv")
    with open(requirements, encoding="utf-8") as pins:
        listed = any(line.lower().startswith("mindinsight==") for line in pins)
    extra = [] if listed else [f"mindinsight=={MI_VERSION}"]
    if os.path.exists(uv):
        subprocess.run([uv, "venv", "-q", "--allow-existing", "-p", "3.11", MI_VENV], check=True)
        install = [uv, "pip", "install", "-q", "--python", python]
    else:
        subprocess.run([sys.executable, "-m", "venv", MI_VENV], check=True)
        install = [python, "-m", "pip", "install", "-q"]
    subprocess.run([*install, "--no-deps", "-r", requirements, *extra], check=True)
    subprocess.run(check, check=True, env=env, capture_output=True)
    return bin_dir


class MindInsight:
    """``mindinsight start`` on ``base`` (a gunicorn daemon), stopped by ``stop()``."""

    def __init__(self, bin_dir: str, base: str, workspace: str) -> None:
        self.bin_dir, self.port = bin_dir, free_port()
        self.env = {
            **os.environ,
            "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
            "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python",
        }
        self.env.pop("VIRTUAL_ENV", None)
        os.makedirs(workspace, exist_ok=True)
        subprocess.run(
            [
                os.path.join(bin_dir, "mindinsight"),
                "start",
                "--summary-base-dir",
                base,
                "--port",
                str(self.port),
                "--workspace",
                workspace,
            ],
            check=True,
            env=self.env,
            cwd=workspace,
            stdout=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        subprocess.run(
            [os.path.join(self.bin_dir, "mindinsight"), "stop", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


# ----------------------------------------------------------------------------- serving


class Relay:
    """A TCP relay on a free port in front of ``127.0.0.1:target``, counting the bytes the
    server sends (what the browser receives: headers and bodies, as sent)."""

    def __init__(self, target: int) -> None:
        self.target, self.received = target, 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, count: bool) -> None:
        try:
            while chunk := source.recv(1 << 16):
                if count:
                    with self._lock:
                        self.received += len(chunk)
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()

    def close(self) -> None:
        self._listener.close()


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def wait_loaded(
    port: int, jobs: list[str], scalar: tuple[str, str, int] | None, timeout: float
) -> float:
    """Seconds until the app at ``port`` lists every job of ``jobs`` and, with ``scalar``
    ``(train_id, tag, step)``, serves that scalar up to its last step."""
    root = f"http://127.0.0.1:{port}/v1/mindinsight/datavisual"
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            listing = get_json(f"{root}/train-jobs?offset=0&limit=100")
            listed = {job["train_id"] for job in listing["train_jobs"]}  # type: ignore[index]
            if set(jobs) <= listed:
                if scalar is None:
                    return time.monotonic() - started
                train_id, tag, step = scalar
                answer = get_json(
                    f"{root}/scalar/metadata?train_id={urllib.request.quote(train_id)}"
                    f"&tag={urllib.request.quote(tag)}"
                )
                points = answer.get("metadatas") or []  # type: ignore[union-attr]
                if points and points[-1]["step"] >= step:
                    return time.monotonic() - started
        except (OSError, ValueError, KeyError, TypeError, urllib.error.HTTPError):
            pass
        time.sleep(0.5)
    raise TimeoutError(f"port {port}: jobs not loaded within {timeout:.0f} s")


def serve_ours(base: str, workspace: str) -> tuple[int, Callable[[], None]]:
    app = create_app(Settings(summary_base_dir=base, workspace=workspace, reload_interval=0))
    app.data_service.loader.wait_rounds(1, timeout=900)
    port = free_port()
    server = waitress.create_server(app.server, host="127.0.0.1", port=port, threads=8)
    threading.Thread(target=server.run, daemon=True).start()

    def stop() -> None:
        server.close()
        app.data_service.close()

    return port, stop


def serve_floor(timeout: float = 60) -> tuple[int, Callable[[], None]]:
    """The bare Dash page of ``bench/dash_floor.py`` served on a free port by a process of its
    own (whose Dash imports no component package beyond dash's), once it answers."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "dash_floor.py"), "--port", str(port)]
    )

    def stop() -> None:
        server.terminate()
        server.wait(timeout=30)

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5):
                return port, stop
        except OSError:
            time.sleep(0.2)
    stop()
    raise TimeoutError(f"the bare Dash page did not answer within {timeout:.0f} s")


def floor_paths(pages: list[Page]) -> dict[str, str]:
    """The floors to time for ``pages``, row label -> path of ``bench/dash_floor.py``: the
    static page, the bare Dash page and the library floors of the pages'."""
    wanted = {page.floor for page in pages}
    paths = {BROWSER_FLOOR: "/browser-floor", FLOOR: "/"}
    paths.update({row: path for path, row in LIBRARY_FLOOR_ROWS.items() if row in wanted})
    return paths


def time_floors(script: str, repeat: int, pages: list[Page]) -> dict[str, list[dict]]:
    """``repeat`` loads of each floor of ``pages`` (:func:`floor_paths`; :func:`serve_floor`),
    alternating, each in a fresh Chromium, through a relay counting their bytes: their runs by
    row label."""
    port, stop = serve_floor()
    relay = Relay(port)
    root = f"http://127.0.0.1:{relay.port}"
    paths = floor_paths(pages)
    runs: dict[str, list[dict]] = {label: [] for label in paths}
    try:
        for _ in range(repeat):
            for label, path in paths.items():
                # a library floor is drawn once its chart is: pagetime waits for one
                charts = 0 if label in (BROWSER_FLOOR, FLOOR) else 1
                runs[label].append(pagetime(script, root + path, relay, label, None, charts))
        return runs
    finally:
        relay.close()
        stop()


# ----------------------------------------------------------------------------- timing


def pagetime(
    script: str, url: str, relay: Relay, label: str, shot: str | None, min_charts: int
) -> dict:
    """One load in a fresh Chromium: pagetime.py's JSON line, plus ``bytes``."""
    before = relay.received
    command = [sys.executable, script, url, "--timeout", "180", "--label", label]
    command += ["--min-charts", str(min_charts)]
    if shot:
        command += ["--shot", shot]
    done = subprocess.run(command, capture_output=True, text=True, timeout=400)
    time.sleep(0.3)  # the last answers' bytes through the relay
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        print(f"  {label}: pagetime failed: {done.stderr.strip()[-400:]}", file=sys.stderr)
        return {"visual_complete_s": None, "bytes": relay.received - before}
    result = json.loads(lines[-1])
    result["bytes"] = relay.received - before
    return result


#: How each of :data:`KEYS` is shown in the table.
SHOW: dict[str, Callable[[float | None], str]] = {
    "visual_complete_s": lambda v: fmt(v, " s"),
    "browser_tree_cpu_s": lambda v: fmt(v, " s"),
    "js_heap_mb": lambda v: fmt(v, " MB", 1),
    "bytes": fmt_bytes,
}


def fmt_targets(goals: tuple[float | None, ...]) -> str:
    """``0.89/1.55 s``: the time and CPU targets in seconds."""
    return f"{fmt(goals[0])}/{fmt(goals[1])} s"


def summarize(
    name: str, runs: dict[str, list[dict]], floor: dict[str, float | None], floor_label: str = FLOOR
) -> str:
    """A page's row: each app's medians of :data:`KEYS`, the ratios ours / MI of time, CPU and
    bytes, the targets (:func:`targets`) and the verdict, which says when a target lies below
    the page's ``floor`` (the medians of the row ``floor_label``) and how many loads timed
    out."""
    cells = {app: medians(runs[app]) for app in ("mi", "ours")}
    timeouts = sum(1 for app in runs for run in runs[app] if run.get("visual_complete_s") is None)
    t_ratio = ratio(cells["ours"]["visual_complete_s"], cells["mi"]["visual_complete_s"])
    c_ratio = ratio(cells["ours"]["browser_tree_cpu_s"], cells["mi"]["browser_tree_cpu_s"])
    b_ratio = ratio(cells["ours"]["bytes"], cells["mi"]["bytes"])
    row = [f"{name:26s}"]
    for key, show in SHOW.items():
        row.append(f"{show(cells['mi'][key]):>9s} {show(cells['ours'][key]):>9s}")
    row.append(f"{fmt_ratio(t_ratio):>6s} {fmt_ratio(c_ratio):>6s}")
    row.append(f"{fmt_ratio(b_ratio):>6s}")
    goals = targets(cells["mi"])
    row.append(f"{fmt_targets(goals):>13s}")
    below = below_floor(goals, floor)
    where = floor_label.removeprefix("floor: ")
    note = f" ({' and '.join(below)} target below its floor, {where})" if below else ""
    row.append(verdict(t_ratio, c_ratio) + note + (f" ({timeouts} timed out)" if timeouts else ""))
    return "  ".join(row)


def floor_row(floor: dict[str, float | None], label: str = FLOOR) -> str:
    """A floor's row (``label``): its medians in the "ours" columns."""
    row = [f"{label:26s}"]
    for key, show in SHOW.items():
        row.append(f"{'-':>9s} {show(floor[key]):>9s}")
    return "  ".join(row)


def print_table(
    pages: list[Page],
    results: dict[str, dict[str, list[dict]]],
    floor_runs: dict[str, list[dict]],
) -> None:
    """The header, the floors' rows (``floor_runs`` by label, :func:`time_floors`) and each
    page's row (:func:`summarize`, against its floor, :attr:`Page.floor`)."""
    print(
        f"{'page':26s}  {'time to drawn':>19s}  {'browser CPU':>19s}  {'JS heap':>19s}  "
        f"{'bytes received':>19s}  {'time':>6s} {'CPU':>6s}  {'bytes':>6s}  {'target':>13s}"
    )
    pair = f"{'MI':>9s} {'ours':>9s}"
    print(f"{'':26s}  {pair}  {pair}  {pair}  {pair}  {'ours / MI':>20s}  {'time/CPU':>13s}")
    for label, runs in floor_runs.items():
        print(floor_row(medians(runs), label))
    for page in pages:
        if page.name in results:
            floor = medians(floor_runs[page.floor])
            print(summarize(page.name, results[page.name], floor, page.floor))


def default_shared() -> str:
    beside = os.path.normpath(os.path.join(REPO, "..", "shared"))
    return beside if os.path.isdir(beside) else "/work/shared"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="pairs of loads per page")
    parser.add_argument("--steps", type=int, default=20000, help="steps of the scalar jobs")
    parser.add_argument(
        "--pages", default="", help="comma-separated words: only the pages whose names contain one"
    )
    parser.add_argument(
        "--shared",
        default=default_shared(),
        help="the shared directory (corpus, corpus-landscape, corpus-profiler, tools)",
    )
    parser.add_argument("--shots", help="save a screenshot of each app's first load per page here")
    args = parser.parse_args()
    words = [w.strip() for w in args.pages.split(",") if w.strip()]
    pages = [page for page in PAGES if not words or any(w in page.name for w in words)]
    script = os.path.join(args.shared, "tools", "pagetime.py")
    requirements = os.path.join(args.shared, "tools", "mindinsight-requirements.txt")
    bin_dir = install_mindinsight(requirements)
    bases = generate(DATA_DIR, args.shared, args.steps)
    wanted = {"main": ["./train"], "compare": [f"./run_{j}" for j in range(COMPARE_JOBS)]}
    scalar_of = {
        "main": ("./train", f"metrics/tag_{SCALAR_TAGS - 1:02d}/scalar", args.steps),
        "compare": (
            f"./run_{COMPARE_JOBS - 1}",
            f"metrics/tag_{COMPARE_TAGS - 1}/scalar",
            args.steps,
        ),
    }
    if args.shots:
        os.makedirs(args.shots, exist_ok=True)
    print(f"machine: {machine()}")
    floor_runs = time_floors(script, args.repeat, pages)
    results: dict[str, dict[str, list[dict]]] = {}
    with tempfile.TemporaryDirectory() as workspace:
        for key in sorted({page.base for page in pages}):
            base = bases[key]
            mi = MindInsight(bin_dir, base, os.path.join(workspace, f"mi_{key}"))
            stops: list[Callable[[], None]] = [mi.stop]
            relays: list[Relay] = []
            try:
                mi_loaded = wait_loaded(mi.port, wanted[key], scalar_of[key], 900)
                started = time.monotonic()
                port, stop = serve_ours(base, os.path.join(workspace, f"ours_{key}"))
                stops.append(stop)
                ours_loaded = (
                    time.monotonic() - started + wait_loaded(port, wanted[key], scalar_of[key], 900)
                )
                print(
                    f"{key}: loaded by MindInsight in {mi_loaded:.1f} s, "
                    f"by dash-insight in {ours_loaded:.1f} s"
                )
                relays = [Relay(mi.port), Relay(port)]
                roots = {
                    "mi": (f"http://127.0.0.1:{relays[0].port}/#", relays[0]),
                    "ours": (f"http://127.0.0.1:{relays[1].port}", relays[1]),
                }
                for page in (p for p in pages if p.base == key):
                    runs: dict[str, list[dict]] = {"mi": [], "ours": []}
                    for attempt in range(args.repeat):
                        for app in ("mi", "ours"):
                            root, relay = roots[app]
                            path = page.mindinsight if app == "mi" else page.ours
                            shot = None
                            if args.shots and attempt == 0:
                                slug = page.name.replace(" ", "_")
                                shot = os.path.join(args.shots, f"{slug}_{app}.png")
                            runs[app].append(
                                pagetime(
                                    script,
                                    root + path,
                                    relay,
                                    f"{app} {page.name}",
                                    shot,
                                    page.min_charts,
                                )
                            )
                    results[page.name] = runs
            finally:
                for relay in relays:
                    relay.close()
                for stop in reversed(stops):
                    stop()
    print(
        f"median of {args.repeat} alternating pairs, fresh Chromium each "
        f"(MI = MindInsight {MI_VERSION}, ours = dash-insight; target: ours <= {TARGET}x "
        f"MI's time and CPU; floors: {args.repeat} loads each of a static page of one span, "
        "of a Dash page of one html.Div, no callbacks, and of that page drawing the smallest "
        "chart of each library)"
    )
    print_table(pages, results, floor_runs)
    print(f"machine: {machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
