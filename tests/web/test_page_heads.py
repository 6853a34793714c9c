"""Every page of a training job has the same head: one × back to the job's dashboard, no
"‹ Dashboard" link (#17 item 9), and a damaged job says so on its value pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dash
import pytest

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.service import DataService
from dash_insight.default import DEFAULT_PLUGINS
from dash_insight.web.application import Features
from dash_insight.web.components.page_head import BACK_CLASS
from tests.conftest import loaded_service
from tests.pages import text, walk

#: The pages that show one job (the profiler's needs profiler data, which ./lenet_sc lacks;
#: tests/plugins/profiler checks its head).
JOB_PAGES = (
    "/scalars",
    "/histograms",
    "/tensors",
    "/images",
    "/graph",
    "/data-graph",
    "/loss-landscape",
)


@pytest.fixture(scope="module")
def features(service: DataService) -> Features:
    return Features.build(service, DEFAULT_PLUGINS)


def _backs(tree: Any) -> list[Any]:
    return [c for c in walk(tree) if BACK_CLASS in (getattr(c, "className", "") or "").split()]


@pytest.mark.parametrize("path", JOB_PAGES)
def test_one_back_to_dashboard_control(features: Features, path: str) -> None:
    app = dash.Dash(__name__)
    ((page, service),) = [(p, s) for p, s in features.pages() if p.path == path]
    tree = page.layout(app, service, {"train_id": "./ops_all"})
    backs = _backs(tree)
    assert len(backs) == 1, path
    assert backs[0].href == "/dashboard?train_id=.%2Fops_all" and backs[0].children == "×"
    assert "‹ Dashboard" not in text(tree)


def test_profiler_head_has_the_same_back_control(corpus: Path, tmp_path: Path) -> None:
    from dash_insight.core.service import DataService
    from dash_insight.core.settings import Settings
    from dash_insight.plugins.profiler import page_shared
    from dash_insight.plugins.profiler.service import ProfilerService

    data = DataService(Settings(corpus, workspace=tmp_path / "ws", reload_interval=0))
    try:
        service = ProfilerService(data.provider)
        head = page_shared.head(dash.Dash(__name__), service, {"train_id": "./p"}, "/profiler")
        assert len(_backs(head)) == 1
    finally:
        data.close()


def _write_job(folder: Path) -> Path:
    """A job of 50 loss values; its summary file."""
    with SummaryWriter(str(folder)) as writer:
        for step in range(1, 51):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.record(step)
    return Path(writer.summary_path)


def _scalars_page_text(base: Path, workspace: Path, train_id: str) -> str:
    data: DataService = loaded_service(base, workspace)
    try:
        ((page, service),) = [
            (p, s) for p, s in Features.build(data, DEFAULT_PLUGINS).pages() if p.path == "/scalars"
        ]
        return text(page.layout(dash.Dash(__name__), service, {"train_id": train_id}))
    finally:
        data.close()


def test_scalars_page_of_a_damaged_job_says_so(tmp_path: Path) -> None:
    """A record whose payload was changed: the scalars page opens with the dashboard's
    warning listing the damage, and still draws what is readable."""
    summary = _write_job(tmp_path / "logs" / "bad")
    data = bytearray(summary.read_bytes())
    data[len(data) // 2] ^= 0xFF
    summary.write_bytes(bytes(data))
    shown = _scalars_page_text(tmp_path / "logs", tmp_path / "ws", "./bad")
    assert "⚠ This job has 1 problem; everything readable is shown." in shown
    assert summary.name in shown


def test_a_freshly_truncated_job_gets_a_hint_at_once(tmp_path: Path) -> None:
    """A file cut inside its last record, just written: not yet damage (a writer may be in
    the middle of that record), but said at once instead of after 600 s."""
    summary = _write_job(tmp_path / "logs" / "cut")
    summary.write_bytes(summary.read_bytes()[:-7])
    shown = _scalars_page_text(tmp_path / "logs", tmp_path / "ws", "./cut")
    assert "problem" not in shown
    assert (
        "the last record is incomplete (still being written, or the file was cut short)" in shown
        and summary.name in shown
    )
