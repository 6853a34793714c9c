"""Issue 36 item 2: the computational and data graph pages read their URL through a typed
``TypedUrlState`` (``GraphUrl``, ``DataGraphUrl``): every text and list bounded in one place,
malformed values repaired (and, on the graph page, reported), and the query strings the pages
have always written written again."""

from __future__ import annotations

import dataclasses

import pytest

from dash_insight.plugins.graphs import data_graph_page
from dash_insight.plugins.graphs import page as graph_page
from dash_insight.plugins.graphs.page import (
    MAX_EXPANDED_PARAM,
    MAX_MODE_CHARS,
    MAX_NAME_CHARS,
    GraphState,
    GraphUrl,
    parse_state,
)
from dash_insight.web.limits import MAX_URL_CHARS
from dash_insight.web.url_state import TypedUrlState, parse_search

MEGABYTE = "x" * (1 << 20)


def test_the_graph_url_is_a_typed_state_read_and_written_as_before() -> None:
    assert isinstance(graph_page.URL_STATE, TypedUrlState)
    search = "?train_id=.%2Fj&tag=g.pb&mode=optimize&expanded=A%2CA%2FB&node=A%2FB"
    assert graph_page.URL_STATE.parse_search(search) == GraphUrl(
        "./j", "g.pb", "optimize", ("A", "A/B"), "A/B"
    )
    state = parse_state(parse_search(search))
    assert state == GraphState("./j", "g.pb", "optimize", ["A", "A/B"], "A/B")
    assert state.search() == search  # the same parameters, in the same order
    assert parse_state(parse_search(state.search())) == state
    # normal mode, no tag, no scope open, no node: left out
    assert parse_state({}) == GraphState("", None, "normal", [], None)
    assert parse_state({}).search() == ""
    changed = state.search(mode="normal", tag=None, expanded=[], node=None)
    assert changed == "?train_id=.%2Fj"
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.node = "B"  # type: ignore[misc]


def test_optimized_tags_and_unknown_modes_are_repaired_and_said() -> None:
    tagged = parse_state({"tag": "g.pb (optimized)"})
    assert (tagged.tag, tagged.mode, tagged.problems) == ("g.pb", "optimize", ())
    assert tagged.search() == "?tag=g.pb&mode=optimize"  # written as a file and a mode
    fancy = parse_state({"mode": "fancy"})
    assert fancy.mode == "normal" and "Unknown mode 'fancy'" in fancy.problems[0]
    assert fancy.search() == ""


def test_megabyte_texts_are_cut() -> None:
    state = parse_state({"train_id": MEGABYTE, "tag": MEGABYTE, "mode": MEGABYTE, "node": MEGABYTE})
    assert len(state.train_id) == len(state.tag or "") == len(state.node or "") == MAX_NAME_CHARS
    assert state.mode == "normal"
    # the notice quotes the mode, cut: it stays short
    assert len(state.problems[0]) < MAX_MODE_CHARS + 200
    scopes = parse_state({"expanded": f"{MEGABYTE},A"}).expanded
    assert [len(scope) for scope in scopes] == [MAX_NAME_CHARS, 1]
    # a search is read at most MAX_URL_CHARS far
    read = parse_state(parse_search("?node=" + MEGABYTE + "&train_id=./j"))
    assert read.train_id == "" and len(read.node or "") == MAX_NAME_CHARS
    assert MAX_NAME_CHARS < MAX_URL_CHARS


def test_huge_scope_lists_are_cut_and_said() -> None:
    exactly = parse_state({"expanded": ",".join(f"s{i}" for i in range(MAX_EXPANDED_PARAM))})
    assert len(exactly.expanded) == MAX_EXPANDED_PARAM and exactly.problems == ()
    huge = parse_state({"expanded": ",".join(f"s{i}" for i in range(100_000))})
    assert huge.expanded == [f"s{i}" for i in range(MAX_EXPANDED_PARAM)]
    assert "first 500 open scopes" in huge.problems[0]
    # the URL keeps one scope more than it uses, to tell a cut list
    assert len(graph_page.URL_STATE.parse({"expanded": ",".join(["s"] * 10**5)}).expanded) == 501


def test_the_data_graph_url_is_a_typed_state() -> None:
    state = data_graph_page.STATE
    assert isinstance(state, TypedUrlState)
    url = state.parse_search("?train_id=.%2Fj&node=0.1&other=1")
    assert url == data_graph_page.DataGraphUrl("./j", "0.1")
    assert state.parse({}) == data_graph_page.DataGraphUrl()
    hostile = state.parse({"train_id": MEGABYTE, "node": MEGABYTE})
    assert len(hostile.train_id) == len(hostile.node) == data_graph_page.MAX_NAME_CHARS


def test_a_tap_writes_the_node_and_keeps_the_other_parameters() -> None:
    select = data_graph_page.select
    assert select({"id": "0.1"}, "?train_id=.%2Fj&x=1") == "?train_id=.%2Fj&x=1&node=0.1"
    assert select({"id": "0.2"}, "?node=0.1&train_id=b") == "?node=0.2&train_id=b"
    written = parse_search(select({"id": MEGABYTE}, "?train_id=b"))
    assert len(written["node"]) == data_graph_page.MAX_NAME_CHARS
