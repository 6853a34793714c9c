"""dash-insight: training visualization for MindSpore summary logs, built with Plotly Dash.

``SummaryWriter`` writes summaries as MindSpore does; ``create_app`` builds the web app. Both
are imported on first use: writing summaries does not load Dash, and a server starting does not
load the writer (numpy and protobuf modules it does not need yet). ``%load_ext dash_insight``
adds the ``%dash_insight`` notebook magic (:mod:`dash_insight.notebook`).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dash_insight.core.format.writer import SummaryWriter
    from dash_insight.default import create_app

try:
    __version__ = version("dash-insight")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = ["SummaryWriter", "__version__", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from dash_insight.default import create_app

        return create_app
    if name == "SummaryWriter":
        from dash_insight.core.format.writer import SummaryWriter

        return SummaryWriter
    raise AttributeError(f"module 'dash_insight' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext dash_insight`` (IPython calls this): imports the notebook support only now."""
    from dash_insight.notebook import load_ipython_extension as load

    load(ipython)
