"""The graph page in a browser for ``bench/graph.py``: dash-insight's graph page beside
MindInsight 2.3.1's on the same generated job (time until drawn), and the largest graph zoomed
and dragged (long tasks), then a block of it closed and opened again (seconds until drawn).
Served as ``bench/vs_mindinsight.py`` serves both apps; MindInsight only when its venv is there
(``python bench/vs_mindinsight.py`` installs it)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

from graph import STAGES, make_graph, write_job  # bench/, beside this script
from graph_pan import EXPANDED, LONG_TASK_MS, TARGET_LEVEL_S, measure_pan, toggles_line
from machine import machine
from vs_mindinsight import (
    MI_VENV,
    MI_VERSION,
    MindInsight,
    Relay,
    default_shared,
    fmt,
    fmt_ratio,
    median,
    pagetime,
    ratio,
    serve_ours,
    wait_loaded,
)

#: The graph pages of the generated job ``./job`` (MindInsight's route after ``#``).
MI_PAGE = "/train-manage/graph?train_id=./job&summaryPath=./job"
OUR_PAGE = "/graph?train_id=.%2Fjob"
#: The pan/zoom view (``graph_pan.EXPANDED``: 1,499 nodes) needs a graph this large.
PAN_NODES = 5000


def mindinsight_bin() -> str | None:
    """The ``bin`` of MindInsight's venv when MindInsight is installed there."""
    bin_dir = os.path.join(MI_VENV, "bin")
    return bin_dir if os.path.exists(os.path.join(bin_dir, "mindinsight")) else None


@contextlib.contextmanager
def mindinsight(logs: str, workspace: str) -> Iterator[Relay | None]:
    """MindInsight serving ``logs`` behind a relay, or None when it is not installed."""
    bin_dir = mindinsight_bin()
    if bin_dir is None:
        yield None
        return
    server = MindInsight(bin_dir, logs, workspace)
    try:
        wait_loaded(server.port, ["./job"], None, 900)
        relay = Relay(server.port)
        try:
            yield relay
        finally:
            relay.close()
    finally:
        server.stop()


def page_times(sizes: list[int], per_scope: int, repeat: int) -> bool:
    """Print the page rows of each size; True when the pan/zoom target is met."""
    script = os.path.join(default_shared(), "tools", "pagetime.py")
    if mindinsight_bin() is None:
        print(
            f"\nMindInsight {MI_VERSION} is not installed in {MI_VENV} "
            "(python bench/vs_mindinsight.py installs it): dash-insight's page alone"
        )
    print(f"\n{'page: time until drawn':<28} {'MindInsight':>12} {'dash-insight':>13} {'ratio':>7}")
    ok = True
    for nodes in sizes:
        print(f"machine: {machine()}")
        with tempfile.TemporaryDirectory(prefix="dash-insight-graph-page-") as base:
            logs = os.path.join(base, "logs")
            write_job(logs, make_graph(nodes, max(STAGES, nodes // per_scope)))
            port, stop = serve_ours(logs, os.path.join(base, "ours"))
            ours = Relay(port)
            try:
                with mindinsight(logs, os.path.join(base, "mi")) as theirs:
                    times: dict[str, list[float | None]] = {"mi": [], "ours": []}
                    for _ in range(repeat):
                        if theirs is not None:
                            url = f"http://127.0.0.1:{theirs.port}/#{MI_PAGE}"
                            run = pagetime(script, url, theirs, "mi graph", None, 1)
                            times["mi"].append(run.get("visual_complete_s"))
                        url = f"http://127.0.0.1:{ours.port}{OUR_PAGE}"
                        run = pagetime(script, url, ours, "ours graph", None, 1)
                        times["ours"].append(run.get("visual_complete_s"))
                mi, us = median(times["mi"]), median(times["ours"])
                label = f"{nodes:,} operators, top level"
                print(
                    f"{label:<28} {fmt(mi, ' s'):>12} {fmt(us, ' s'):>13} "
                    f"{fmt_ratio(ratio(us, mi)):>7}"
                )
                if nodes == max(sizes) and nodes >= PAN_NODES:
                    ok &= _pan_row(port)
            finally:
                ours.close()
                stop()
    return ok


def _pan_row(port: int) -> bool:
    """The largest view the page draws, laid out, then zoomed and dragged."""
    result = measure_pan(port, EXPANDED)
    print(
        f"every stage and 60 blocks open: laid out and drawn in {result.loaded_s:.1f} s "
        f"(longest task {result.load_longest_ms:.0f} ms); pan/zoom: "
        f"{len(result.pan_tasks_ms)} long tasks, ms {result.pan_tasks_ms}, "
        f"{result.verdict} (none over {LONG_TASK_MS} ms)"
    )
    print(toggles_line(result))
    toggled = all(seconds <= TARGET_LEVEL_S for seconds, _ in result.toggles)
    return result.verdict == "OK" and toggled
