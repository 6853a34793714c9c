"""Issue 36 items 1 and 6: the landscape and profiler pages read their URL through a typed
``TypedUrlState`` (``web/url_state.py``), as every other page: malformed values become
defaults, in one place, into frozen dataclasses mypy checks."""

from __future__ import annotations

from dataclasses import replace

from dash_insight.plugins.landscape import page as landscape
from dash_insight.plugins.landscape.figures import DEFAULT_VIEW, VIEW_CONTOUR
from dash_insight.plugins.profiler import page_shared, timeline_page
from dash_insight.plugins.profiler.query_timeline import ROWS_SCOPE, ROWS_TYPE
from dash_insight.web.url_state import TypedUrlState, parse_search


def test_the_landscape_page_state_is_a_url_state() -> None:
    assert isinstance(landscape.STATE, TypedUrlState)
    state = landscape.STATE.parse_search("?train_id=./a&view=sideways&interval=2-16&loss=l")
    assert state == landscape.PageUrl("./a", DEFAULT_VIEW, "2-16", "l")
    assert landscape.STATE.parse_search(f"?view={VIEW_CONTOUR}").view == VIEW_CONTOUR
    # the default view is left out of the URL the controls write
    written = landscape.STATE.params(replace(state, train_id=""))
    assert written == {"train_id": None, "view": None, "interval": "2-16", "loss": "l"}


def test_the_profiler_pages_share_one_url_state() -> None:
    assert isinstance(page_shared.SHARED_STATE, TypedUrlState)
    assert page_shared.SHARED == ("train_id", "dir", "device")
    shared = page_shared.SHARED_STATE.parse_search("?train_id=./a&q=x")
    assert shared == page_shared.SharedUrl("./a", "", "")


def test_the_timeline_state_drops_what_it_does_not_know() -> None:
    assert timeline_page._params(parse_search("?rows=diagonal&step=abc")) == (ROWS_SCOPE, None)
    assert timeline_page._params(parse_search("?rows=type&step=-3")) == (ROWS_TYPE, None)
    assert timeline_page._params(parse_search("?rows=type&step=12")) == (ROWS_TYPE, 12)


def test_the_landscape_comparison_state_is_a_url_state() -> None:
    from dash_insight.plugins.landscape import compare_page

    assert isinstance(compare_page.STATE, TypedUrlState)
    jobs = ["./a", "./b", "./c"]
    state = compare_page.page_state(
        parse_search("?jobs=./a,./c&view=nowhere&mode=overlay&scale=bogus&overlay=./c,./x"), jobs
    )
    assert state.selected == ["./a", "./c"] and state.explicit_jobs
    assert (state.view, state.mode, state.scale) == (DEFAULT_VIEW, "overlay", "jet")
    assert state.overlay == ["./c"]
