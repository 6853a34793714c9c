"""Histograms of several runs overlaid: the outline of the bars, the runs' steps and shared
grid, the figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.histograms.figures_overlay import (
    RunHistogram,
    histograms_at,
    outline,
    overlay_figure,
    run_steps,
)
from dash_insight.web.components.run_colours import PALETTE, run_colour


def test_outline_of_the_bars() -> None:
    buckets = np.array([[0.0, 1.0, 3.0], [1.0, 1.0, 5.0], [2.0, 0.5, 0.0]])
    xs, ys = outline(buckets)
    assert xs == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 2.5, 2.5]
    assert ys == [0.0, 3.0, 3.0, 5.0, 5.0, 0.0, 0.0, 0.0]
    assert outline(np.zeros((0, 3))) == ([], [])


def test_overlay_figure_one_outline_per_run_in_its_colour() -> None:
    buckets = np.array([[0.0, 1.0, 2.0]])
    entries = [
        RunHistogram("./a", 20, 0, buckets),
        RunHistogram("./b", None, 30),
        RunHistogram("./c", 15, 0, buckets),
    ]
    figure = overlay_figure("w", entries, {"./a": "#00a5a7", "./c": "#e8684a"})
    assert [(t.name, t.line.color, t.meta) for t in figure.data] == [
        ("./a · step 20", "#00a5a7", {"run": "./a", "step": 20}),
        ("./c · step 15", "#e8684a", {"run": "./c", "step": 15}),
    ]
    assert figure.layout.showlegend is False and figure.layout.xaxis.title.text == "w"
    # A run the map lacks: the palette colour the rule gives a run it does not place.
    [line] = overlay_figure("w", [RunHistogram("./z", 1, 0, buckets)], {}).data
    assert line.line.color == run_colour("./z", ()) in PALETTE


@pytest.fixture
def service(tmp_path: Path):
    rng = np.random.default_rng(3)
    for run, (centre, steps) in {"a": (0.0, (0, 10, 20)), "b": (5.0, (15,))}.items():
        with SummaryWriter(tmp_path / run, host="t", timestamp=1_700_000_000) as writer:
            for step in steps:
                writer.add_histogram("w", rng.normal(centre, 1.0, 400), step)
    data = DataService(
        Settings(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    data.start()
    assert data.loader.wait_rounds(1, timeout=60)
    yield data
    data.close()


def test_histograms_at_the_runs_own_steps_on_one_grid(service) -> None:
    provider = service.provider
    steps_of = {run: run_steps(provider, run, "w") for run in ("./a", "./b")}
    assert steps_of == {"./a": [0, 10, 20], "./b": [15]}
    assert run_steps(provider, "./a", "missing") == []
    a, b = histograms_at(provider, ["./a", "./b"], "w", 17, steps_of)
    assert (a.step, b.step) == (10, 15)
    # One grid for both: the same edges, each run's 400 values counted on it.
    assert np.array_equal(a.buckets[:, :2], b.buckets[:, :2])
    assert a.buckets[0, 0] < 0 < 5 < b.buckets[-1, 0] + b.buckets[-1, 1]
    assert a.buckets[:, 2].sum() >= 400 and b.buckets[:, 2].sum() >= 400
    a, b = histograms_at(provider, ["./a", "./b"], "w", 5, steps_of)
    assert (a.step, b.step, b.first, b.buckets) == (0, None, 15, None)
