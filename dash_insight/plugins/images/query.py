"""Images: the decoded value of an image tag at one step."""

from __future__ import annotations

from dash_insight.core.format.events import ImageValue
from dash_insight.core.provider import DataProvider
from dash_insight.core.vocabulary import PluginName


def image(provider: DataProvider, train_id: str, tag: str, step: int) -> ImageValue:
    """The image of ``tag`` at ``step`` (``-1`` = the last), as written (PNG from MindSpore)."""
    value: ImageValue = provider.read_value(train_id, PluginName.IMAGE, tag, step)
    return value
