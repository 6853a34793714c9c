"""The comparison pages' shared tab strip: tabs come from the plugins, sorted by rank."""

from __future__ import annotations

from pathlib import Path

import dash

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.components.compare_tabs import (
    install,
    installed,
    shared_search,
    tab_strip,
)
from dash_insight.web.plugin import NavLink


def test_tabs_from_the_plugins_in_rank_order(tmp_path: Path) -> None:
    app = create_app(
        Settings(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws")), start_loader=False
    )
    assert [(str(t.label), t.path) for t in installed(app)] == [
        ("Scalar Comparison", "/compare"),
        ("Loss Graph Comparison", "/compare/landscape"),
        ("Histogram Comparison", "/compare/histograms"),
        ("Image Comparison", "/compare/images"),
    ]
    strip = tab_strip(app, "/compare/landscape")
    assert strip is not None
    links = {link.id: link.className for link in strip.children}
    assert links == {
        "compare-tab-compare": "di-compare-tab",
        "compare-tab-compare-landscape": "di-compare-tab active",
        "compare-tab-compare-histograms": "di-compare-tab",
        "compare-tab-compare-images": "di-compare-tab",
    }
    app.data_service.close()


def test_one_tab_or_none_draws_nothing() -> None:
    app = dash.Dash(__name__)
    assert tab_strip(app, "/compare") is None
    install(app, [NavLink("Scalar Comparison", "/compare", 10)])
    assert tab_strip(app, "/compare") is None


def test_tabs_carry_the_runs_chosen(tmp_path: Path) -> None:
    app = create_app(
        Settings(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws")), start_loader=False
    )
    strip = tab_strip(
        app, "/compare", {"jobs": "./a,./b", "hidden": "./b", "tags": "loss", "smoothing": "0.5"}
    )
    assert strip is not None
    hrefs = {link.id: link.href for link in strip.children}
    assert (
        hrefs["compare-tab-compare-images"] == "/compare/images?jobs=.%2Fa%2C.%2Fb&hidden=.%2Fb"
    )  # the runs only, not the tags
    assert shared_search({}) == ""
    app.data_service.close()
