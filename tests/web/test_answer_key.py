"""Unit tests of the keys that let an auto refresh with nothing new send nothing."""

from __future__ import annotations

from pathlib import Path

from dash import html

from dash_insight.web.answer_key import answer_key, content_key
from tests.conftest import loaded_service


def _table(*cells: str) -> html.Table:
    return html.Table(html.Tbody([html.Tr([html.Td(cell) for cell in cells])]))


def test_content_key_is_equal_for_the_same_answer_only() -> None:
    key = content_key(_table("a", "b"), "Total 2", "1 / 1")
    assert key == content_key(_table("a", "b"), "Total 2", "1 / 1")
    assert key != content_key(_table("a", "c"), "Total 2", "1 / 1")
    assert key != content_key(_table("a", "b"), "Total 2", "1 / 2")
    assert key != content_key(_table("a", "b"), "Total 2")
    assert len(key) == 16


def test_answer_key_follows_the_inputs_and_the_data(corpus: Path, tmp_path: Path) -> None:
    service = loaded_service(corpus, tmp_path / "ws")
    try:
        key = answer_key(service.provider, "?train_id=a", {"a": "#123456"})
        assert key == answer_key(service.provider, "?train_id=a", {"a": "#123456"})
        assert key != answer_key(service.provider, "?train_id=b", {"a": "#123456"})
        assert key != answer_key(service.provider, "?train_id=a", {})
    finally:
        service.close()
