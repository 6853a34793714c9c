"""The summary list's callbacks called as plain functions (no browser, no Dash): the URL each
control writes, the table each URL draws, the details window, and bodies no page sends."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import pytest
from dash import html
from dash.exceptions import PreventUpdate

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.jobs import landing_page, page
from dash_insight.plugins.jobs.page import MAX_FILTER_CHARS, ListState
from dash_insight.web.url_state import MAX_PAGE, TypedUrlState, make_search, parse_search
from tests.pages import text as component_text


@pytest.fixture(scope="module")
def service(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DataService]:
    data = DataService(Settings(corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0))
    data.loader.load_round()
    yield data
    data.close()


def _url(service: DataService, trigger: Any, search: str = "", **values: Any) -> Any:
    args: dict[str, Any] = {
        "text": None,
        "regex": None,
        "sorts": [],
        "prev": None,
        "next": None,
        "size": 20,
        "goto": None,
    }
    clicked = values.pop("clicked", True)
    args.update(values)
    return page.controls_to_url(service, trigger, clicked, *args.values(), search)


def _cells(component: Any) -> list[str]:
    """The text of every cell in the second column (the summary paths)."""
    body = component.children[1]
    return [
        row.children[1].children.children
        if hasattr(row.children[1].children, "children")
        else row.children[1].children
        for row in body.children
    ]


def test_state_round_trip_and_bounds() -> None:
    assert isinstance(page.STATE, TypedUrlState)
    state = ListState(q="lenet", regex=True, sort="path", order="asc", page=3, size=50)
    # the parameters the list has always written, in the same order
    assert state.search() == "?q=lenet&regex=1&sort=path&order=asc&page=3&size=50"
    assert page.STATE.parse(parse_search(state.search())) == state
    assert ListState().search() == "" and page.STATE.parse({}) == ListState()
    hostile = page.STATE.parse(
        {"q": "x" * (1 << 20), "sort": "evil", "order": "up", "page": "-4", "size": "9000"}
    )
    assert hostile == ListState(q="x" * MAX_FILTER_CHARS, size=page.MAX_SIZE)
    assert page.STATE.parse({"page": "1e9", "size": "0", "regex": "yes"}) == ListState(size=1)
    assert page.STATE.parse({"page": str(10**30)}).page == MAX_PAGE
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.page = 2  # type: ignore[misc]


def test_the_landing_url_is_a_typed_state() -> None:
    assert isinstance(landing_page.STATE, TypedUrlState)
    written = landing_page.STATE.params(landing_page.LandingUrl("./a b"))
    assert make_search(written) == "?train_id=.%2Fa+b"
    assert landing_page.STATE.parse_search(make_search(written)) == landing_page.LandingUrl("./a b")
    long = landing_page.STATE.parse({"train_id": "x" * (1 << 20)})
    assert len(long.train_id) == landing_page.MAX_TRAIN_ID_CHARS


def test_megabyte_controls_and_urls_are_bounded(service: DataService) -> None:
    written = parse_search(_url(service, "job-filter", text="x" * (1 << 20)))
    assert written == {"q": "x" * MAX_FILTER_CHARS}
    search = "?q=" + "y" * (1 << 20) + "&page=" + "9" * 1000
    table, total, pages, error, _key = page.render_table(
        service, lambda path: path, search, None, None, None
    )
    assert (total, pages, error) == ("Total 0", "1 / 1", "")
    assert "No training job matches." in component_text(table)


def test_controls_write_the_url(service: DataService) -> None:
    assert parse_search(_url(service, "job-filter", "?page=3", text="lenet")) == {"q": "lenet"}
    assert parse_search(_url(service, "job-filter-regex", "?q=a.", text="a.", regex=["1"])) == {
        "q": "a.",
        "regex": "1",
    }
    sort = {"type": "sort", "column": "path"}
    assert parse_search(_url(service, sort)) == {"sort": "path", "order": "asc"}
    assert parse_search(_url(service, sort, "?sort=path&order=asc")) == {"sort": "path"}
    assert _url(service, sort, clicked=False) is dash.no_update  # drawn, not clicked
    assert _url(service, {"type": "sort", "column": "evil"}) is dash.no_update
    assert parse_search(_url(service, "job-page-size", "?page=2", size=50)) == {"size": "50"}
    assert _url(service, "job-page-size", size="junk") is dash.no_update  # the default again
    assert _url(service, "job-prev") is dash.no_update  # page 1 already
    # Past the last page: the last one (the corpus has fewer than 20 jobs: page 1).
    assert _url(service, "job-next") is dash.no_update
    assert _url(service, "job-goto", goto=9) is dash.no_update
    assert parse_search(_url(service, "job-goto", "?size=1", goto=2)) == {"page": "2", "size": "1"}
    assert _url(service, "job-goto", goto="junk") is dash.no_update
    assert _url(service, "nope") is dash.no_update


def test_render_table_filters_sorts_and_pages(service: DataService) -> None:
    def table(search: str, shown: str | None = None) -> tuple:
        return page.render_table(service, lambda path: "/p" + path, search, None, None, shown)

    everything = table("?sort=path&order=asc")
    paths = _cells(everything[0])
    assert paths == sorted(paths) and "./lenet_sc" in paths
    assert everything[1] == f"Total {len(paths)}"
    assert everything[2] == "1 / 1" and everything[3] == ""
    with pytest.raises(PreventUpdate):  # an auto refresh that finds the same
        table("?sort=path&order=asc", everything[4])
    lenets = _cells(table("?q=lenet_lr&size=2&page=2&sort=path&order=asc")[0])
    assert lenets == sorted(p for p in paths if "lenet_lr" in p)[2:4]
    broken = table("?q=(&regex=1")
    # The regular expression's error is said; the list stays whole.
    assert "invalid regular expression" in broken[3] and broken[1] == f"Total {len(paths)}"


def test_details_window(service: DataService) -> None:
    button = {"type": "param-details", "train_id": "./lenet_sc"}
    window = page.details(service, button, True, [1], "")
    assert window.id == "param-details-backdrop"
    text = component_text(window)
    assert "./lenet_sc Training Parameter Details" in text and "Learning Rate 0.05" in text
    assert page.details(service, "job-filter", False, [], "") is None  # the list changed
    assert page.details(service, button, False, [None], "") is dash.no_update  # drawn anew
    missing = page.details(service, {**button, "train_id": "./nope"}, True, [1], "")
    assert isinstance(missing, html.Div) and "./nope" in component_text(missing)
    assert page.details(service, {"type": "param-details"}, True, [1], "") is dash.no_update
