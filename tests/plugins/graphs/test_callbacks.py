"""The computational graph page's callbacks called as plain functions (no browser, no Dash) on
the corpus's LeNet job: the URL each gesture writes, what the page draws, and bodies no page
sends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dash
import pytest

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.graphs import data_graph_page, page
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.web.url_state import parse_search
from tests.pages import text

LENET = "./lenet_sc"
NET = "Default/network-WithLossCell"
AT_LENET = "?train_id=.%2Flenet_sc"


@pytest.fixture(scope="module")
def service(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GraphService]:
    data = DataService(Settings(corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0))
    data.loader.load_round()
    yield GraphService(data.provider)
    data.close()


def test_render_draws_the_graph_and_says_what_is_missing(service: GraphService) -> None:
    answer = page.render(service, AT_LENET, None, None, "light", None)
    patch = answer[0]
    assert patch["reset"] and any(e["data"].get("id") == "Default" for e in patch["add"])
    missing = page.render(service, "?train_id=./nope", None, None, "light", None)
    assert "./nope" in text(missing[4])  # the notice names the job


def test_gestures_write_the_url(service: GraphService) -> None:
    opened = page.toggle(service, "graph-dbltap", True, {"id": "Default"}, [], AT_LENET)
    assert parse_search(opened)["expanded"] == "Default"
    button = {"type": "graph-toggle", "name": "Default"}
    assert page.toggle(service, button, False, None, [None], AT_LENET) is dash.no_update
    assert page.toggle(service, "graph-dbltap", True, "junk", [], AT_LENET) is dash.no_update
    hit = {"type": "graph-locate", "name": f"{NET}/_backbone-LeNet5"}
    located = parse_search(page.locate(service, hit, True, [1], None, AT_LENET))
    assert located["node"] == f"{NET}/_backbone-LeNet5"
    assert NET in located["expanded"]
    assert page.locate(service, hit, False, [None], None, AT_LENET) is dash.no_update
    assert page.locate(service, {"name": 3}, True, [1], None, AT_LENET) is dash.no_update
    # a row of the scope tree (its script writes graph-tree-pick)
    row = {"id": f"{NET}/_backbone-LeNet5", "t": 1}
    picked = parse_search(page.locate(service, "graph-tree-pick", True, [], row, AT_LENET))
    assert picked["node"] == row["id"] and NET in picked["expanded"]
    assert parse_search(page.select_node({"id": "Default"}, AT_LENET))["node"] == "Default"
    assert page.select_node("junk", AT_LENET) is dash.no_update  # type: ignore[arg-type]
    assert parse_search(page.set_mode(["optimize"], AT_LENET))["mode"] == "optimize"
    assert page.set_mode("junk", AT_LENET) is dash.no_update  # type: ignore[arg-type]
    assert page.set_tag(service, None, AT_LENET) is dash.no_update
    assert page.collapse_all(1, AT_LENET + "&expanded=Default") == AT_LENET
    assert page.collapse_all(None, AT_LENET + "&expanded=Default") is dash.no_update


def test_search_nodes_lists_the_hits(service: GraphService) -> None:
    found = text(page.search_nodes(service, "conv1", AT_LENET))
    assert found.startswith("5 nodes") and "conv1.weight" in found
    assert page.search_nodes(service, "conv1", "?train_id=./nope") is None


def test_data_graph_draws_the_pipeline_and_a_chosen_node(service: GraphService) -> None:
    elements, _style, panel, notice, summary, shown = data_graph_page.render(
        service, AT_LENET, None, None, "light", None
    )
    assert elements and notice is None
    assert "dataset operation(s)" in summary
    assert panel is not None
    again = data_graph_page.render(service, AT_LENET, None, None, "light", shown)
    assert again == (dash.no_update,) * 6  # nothing changed: nothing sent
    ghost = data_graph_page.render(service, AT_LENET + "&node=ghost", None, None, "dark", shown)
    assert ghost[0] is dash.no_update  # the same pipeline stays drawn
    assert "ghost" in text(ghost[3])
    missing = data_graph_page.render(service, "?train_id=./nope", None, None, "light", None)
    assert missing[0] == [] and "./nope" in text(missing[3])


def test_data_graph_tap_writes_the_node() -> None:
    assert parse_search(data_graph_page.select({"id": "3"}, AT_LENET))["node"] == "3"
    assert data_graph_page.select({"id": "3"}, AT_LENET + "&node=3") is dash.no_update
    for junk in (None, "junk", {"id": 7}, {"id": ""}):
        assert data_graph_page.select(junk, AT_LENET) is dash.no_update  # type: ignore[arg-type]


def test_a_megabyte_url_is_read_bounded(service: GraphService) -> None:
    """A search longer than a callback takes (cut at MAX_URL_CHARS): 30,000 scopes and a
    megabyte mode draw the job's graph with the first 500 scopes and two short notices."""
    scopes = [f"s{i}" for i in range(30_000)]
    search = "?train_id=.%2Flenet_sc&expanded=" + ",".join(scopes) + "&mode="
    search += "m" * (1 << 20)
    answer = page.render(service, search, None, None, "light", None)
    assert any(e["data"].get("id") == "Default" for e in answer[0]["add"])
    notices = text(answer[4])
    assert "Unknown mode" in notices and "first 500 open scopes" in notices
    assert len(notices) < 2_000
    opened = parse_search(page.toggle(service, "graph-dbltap", True, {"id": "Default"}, [], search))
    assert opened["expanded"].split(",") == [*scopes[:500], "Default"]
    assert opened["node"] == "Default" and "mode" not in opened  # the mode repaired
    assert page.search_nodes(service, "x" * (1 << 20), search) is not None  # says: no match
    elements, *_rest = data_graph_page.render(service, search, None, None, "light", None)
    assert elements


def test_switching_the_graph_file_starts_from_its_top_level(service: GraphService) -> None:
    opened = AT_LENET + "&expanded=Default&node=Default"
    assert page.set_tag(service, "other.pb", opened) == AT_LENET + "&tag=other.pb"
    shown = page.resolve_tag(service.provider, page.parse_state(parse_search(AT_LENET)))[0]
    assert page.set_tag(service, shown, opened) is dash.no_update  # the file shown
