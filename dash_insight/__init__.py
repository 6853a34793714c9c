"""dash-insight: training visualization for MindSpore summary logs, built with Plotly Dash."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .summary.writer import SummaryWriter

try:
    __version__ = version("dash-insight")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = ["SummaryWriter", "__version__"]
