"""Loss landscape: server time to open the analysis page of a 256 x 256 grid.

Generates (in a temporary directory) a job whose summary file holds, written with
``dash_insight.SummaryWriter.add_landscape``, ``--intervals`` PCA interval landscapes of
``--size`` x ``--size`` (default 256, the largest MindSpore allows) with a 10-point path each, a
final landscape and a 2,000-step loss scalar; it is loaded with the real loader, then measured
(server time only: what the page costs before the browser draws):

1. open: the page layout (the job's catalogue: every landscape decoded once), then the figures
   of the first interval (record decode + grid + 3D surface with path and animation frames +
   step-selection chart + info), JSON-encoded as Dash sends them - every cache empty;
2. the same for the contour-line, filled-contour and log-coloured views (caches warm, as when the
   user switches views);
3. the REST answer ``landscape/landscapes?type=interval`` (cold).

Each figure is the median of ``--repeat`` runs (default 5), printed with the machine's core count
and load average (the machine may be shared); target: under 1 s each.

    python bench/landscape.py [--size 256] [--intervals 4] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable

import numpy as np
import plotly.io
from machine import machine, recorded, timed  # bench/, beside this script

from dash_insight import SummaryWriter
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader
from dash_insight.plugins.landscape import page
from dash_insight.plugins.landscape.service import LandscapeService

TARGET_S = 1.0
PATH_POINTS = 10


def write_job(directory: str, size: int, intervals: int) -> str:
    """A job like MindSpore's: loss scalar, ``intervals`` PCA landscapes, one final one."""
    rng = np.random.default_rng(0)
    axis = np.linspace(-1, 1, size)
    with SummaryWriter(directory, host="bench") as writer:
        for step in range(1, 2001):
            writer.add_scalar("loss/auto", 2.3 * np.exp(-step / 800) + rng.normal(0, 0.01), step)
        for k in range(intervals):
            first = 1 + k * 500
            steps = np.linspace(first, first + 450, PATH_POINTS).astype(int).tolist()
            z = (
                2
                + np.add.outer(axis**2, 0.5 * axis**2)
                + 0.05 * np.sin(np.add.outer(3 * axis, 5 * axis))
                + k * 0.1
            )
            path = (
                np.linspace(-0.8, 0, PATH_POINTS).astype(np.float32),
                np.linspace(0.6, 0, PATH_POINTS).astype(np.float32),
                np.linspace(2.9, 2.0, PATH_POINTS) + k * 0.1,
            )
            writer.add_landscape(
                f"landscape_[{steps[0]}, {steps[-1]}]",
                axis.astype(np.float32),
                axis.astype(np.float32),
                z,
                intervals=steps,
                path=path,
                convergence_point=(
                    np.zeros(1, np.int64),
                    np.zeros(1, np.int64),
                    z[size // 2, size // 2],
                ),
                step_per_epoch=100,
            )
        writer.add_landscape(
            "landscape_[2000]",
            axis,
            axis,
            2 + np.add.outer(axis**2, axis**2),
            convergence_point=(0.0, 0.0, 2.0),
            decomposition="Random",
            step_per_epoch=100,
        )
    return "./" + os.path.basename(directory)


def open_page(service: LandscapeService, train_id: str, params: dict[str, str]) -> int:
    """Layout + figures of the page, encoded as Dash sends them; returns the JSON size."""
    page.layout(_App(), service, {"train_id": train_id, **params})
    choice = page.resolve(service, train_id, params)
    rendered = page.render(service, train_id, choice)
    return len(plotly.io.to_json(rendered.figure)) + len(plotly.io.to_json(rendered.steps))


class _App:
    """The two Dash app methods a page layout calls."""

    def get_relative_path(self, path: str) -> str:
        return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--intervals", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="dash-insight-landscape-") as base:
        logs = os.path.join(base, "logs")
        train_id = write_job(os.path.join(logs, "job"), args.size, args.intervals)
        store = IndexStore(index_directory(os.path.join(base, "ws"), logs))
        Loader(logs, store, reload_interval=0).load_round()
        provider = DataProvider(logs, store)
        service = LandscapeService(provider)
        size_mb = sum(e.stat().st_size for e in os.scandir(os.path.join(logs, "job"))) / 1e6
        print(
            f"job: {args.intervals} interval landscapes + 1 final, {args.size} x {args.size} "
            f"grid each, {size_mb:.1f} MB of summary"
        )

        def cold() -> None:
            provider._cache.clear()
            service._cache.clear()

        from flask import Flask

        from dash_insight.plugins.landscape.rest import routes

        flask_app = Flask(__name__)
        views = {r.path: r.view for r in routes(service)}
        first_id = service.landscapes(train_id).intervals[0].interval_id

        def rest() -> int:
            with flask_app.test_request_context(
                query_string={"train_id": train_id, "type": "interval", "interval_id": first_id}
            ):
                return len(views["datavisual/landscape/landscapes"]().get_data())

        cases: list[tuple[str, Callable[[], int], Callable[[], None] | None]] = [
            ("open the page (3D Map, cold caches)", lambda: open_page(service, train_id, {}), cold),
            (
                "switch to Isoline Map",
                lambda: open_page(service, train_id, {"view": "contour"}),
                None,
            ),
            (
                "switch to Topographic Map",
                lambda: open_page(service, train_id, {"view": "filled"}),
                None,
            ),
            (
                "log-scaled colours (Topographic Map)",
                lambda: open_page(service, train_id, {"view": "filled", "log": "1"}),
                None,
            ),
            ("REST landscapes?type=interval (cold)", rest, cold),
        ]
        ok = True
        print(f"\n{'case':<42} {'median':>9}  {'JSON':>9}")
        for label, run, reset in cases:
            size = run()
            seconds = timed(run, args.repeat, reset)
            good = seconds < TARGET_S
            ok &= good
            print(
                f"{label:<42} {seconds * 1000:7.1f} ms  {size / 1e6:6.2f} MB  "
                f"{'OK' if good else 'MISS'} (< {TARGET_S:.0f} s)"
            )
        print(f"\nmachine after the runs: {machine()}")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
