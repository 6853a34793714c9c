"""Every AG Grid of the app speaks the page's language, its loading overlay included (a
stress run found "Loading..." on a Chinese tensors page: the tag picker, then a grid, waited
for its rows after the charts on screen, and showed AG Grid's English overlay meanwhile)."""

from __future__ import annotations

from typing import Any

import dash_ag_grid as dag

from dash_insight.core.i18n import use_locale
from dash_insight.core.provider import DataProvider
from dash_insight.plugins.lineage.page import lineage_grid
from dash_insight.plugins.tensors import page as tensors
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web.components.grid_text import grid_locale_text
from tests.pages import find


def _words(grid: dag.AgGrid) -> dict[str, str]:
    return grid.dashGridOptions["localeText"]


def test_grid_words_are_all_translated() -> None:
    with use_locale("en"):
        english = grid_locale_text("none")
    with use_locale("zh_CN"):
        chinese = grid_locale_text("无")
    assert chinese["loadingOoo"] == "加载中……"
    same = {key for key, word in chinese.items() if word == english[key]}
    assert not same, f"untranslated grid words: {same}"


def test_every_grid_has_its_words_in_chinese(corpus_provider: DataProvider) -> None:
    tag = "tensor/big_1m_f32"  # a slice too large for a plain table: a grid
    with use_locale("zh_CN"):
        words = grid_locale_text("-")
        table, _, _ = tensors.table_view(
            TensorQueries(corpus_provider), "./ops_all", tag, 100, "[0:5,:]", "value", 5
        )
        grids: list[Any] = [
            find(table, {"type": "tensor-grid", "tag": tag}),
            lineage_grid(),
        ]
    assert all(isinstance(grid, dag.AgGrid) for grid in grids)
    for grid in grids:
        assert {key: _words(grid).get(key) for key in words if key != "noRowsToShow"} == {
            key: word for key, word in words.items() if key != "noRowsToShow"
        }, grid.id
        assert _words(grid)["noRowsToShow"] not in {"No Rows To Show", ""}
