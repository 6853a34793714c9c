"""Image queries over the corpus: the decoded PNG of a step, typed errors."""

from __future__ import annotations

import pytest

from dash_insight.core.provider import DataProvider, StepNotFound
from dash_insight.plugins.images.query import image as read_image


def test_corpus_image(corpus_provider: DataProvider) -> None:
    image = read_image(corpus_provider, "./ops_all", "images/rgb_1x64x96", -1)
    assert (image.height, image.width) == (64, 96) and image.encoded.startswith(b"\x89PNG")


def test_missing_step_is_typed(corpus_provider: DataProvider) -> None:
    with pytest.raises(StepNotFound):
        read_image(corpus_provider, "./lenet_sc", "input_data/auto", 999)
