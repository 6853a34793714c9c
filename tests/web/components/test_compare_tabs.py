"""The comparison pages' shared tab strip: tabs come from the plugins, sorted by rank."""

from __future__ import annotations

from pathlib import Path

import dash

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.scalars import compare_page
from dash_insight.web.components.compare_tabs import (
    ARCHIVED_FLAG,
    archived_search,
    install,
    installed,
    shared_search,
    show_archived,
    tab_strip,
)
from dash_insight.web.components.compare_tabs import STATE as compare_tabs_state
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


def test_the_archived_switch_is_read_as_the_scalar_comparison_reads_it() -> None:
    """Every comparison page reads ``archived`` through the head's typed URL state, the field
    the scalar comparison's own state holds too: both say the same for any value."""
    assert compare_page.STATE.fields["archived"] is ARCHIVED_FLAG
    for params in ({}, {"archived": "1"}, {"archived": "0"}, {"archived": "true"}, {"a": "1"}):
        assert show_archived(params) == compare_page.STATE.parse(params).archived
    assert show_archived({"archived": "1"}) and not show_archived({"archived": "yes"})
    assert compare_tabs_state.parse_search("?jobs=a&archived=1").archived
    # The switch writes the parameter back as the typed state does.
    assert archived_search(["archived"], "?jobs=a") == "?jobs=a&archived=1"
    assert archived_search([], "?archived=1&jobs=a") == "?jobs=a"
    assert archived_search([], "?jobs=a") is dash.no_update
