"""Each page's document gets its own plugin's callbacks and the frame's only
(dash_insight/web/page_callbacks.py; issue 37 item 2): the selection, the registration record,
and on the corpus that no page's answer leaves out a callback that listens to or writes one
of the components its layout draws."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import pytest
from dash import Input, Output, html

from dash_insight.default import page_paths
from dash_insight.web.page_callbacks import PageCallbacks, by_page, registered
from tests.conftest import loaded_app

CALLBACKS = [{"output": name} for name in ("frame.a", "scalars.b", "scalars.c", "images.d")]


def _outputs(callbacks: list[Any]) -> list[str]:
    return [c["output"] for c in callbacks]


def test_a_page_gets_the_frames_callbacks_and_its_own() -> None:
    owned = {"/scalars": frozenset({"scalars.b", "scalars.c"}), "/images": frozenset({"images.d"})}
    pages = PageCallbacks(owned, lambda: "/images")
    assert _outputs(pages.select(CALLBACKS, "/scalars")) == ["frame.a", "scalars.b", "scalars.c"]
    assert _outputs(pages.for_request(CALLBACKS)) == ["frame.a", "images.d"]
    # a path no page has: the frame's only; no page known, or the home page (whose Referer
    # is also a long address's, cut to the origin): every callback
    assert _outputs(pages.select(CALLBACKS, "/nowhere")) == ["frame.a"]
    assert pages.select(CALLBACKS, None) == pages.select(CALLBACKS, "/") == CALLBACKS
    assert pages.owned() == {"scalars.b", "scalars.c", "images.d"}


def test_registered_names_the_callbacks_a_register_added() -> None:
    app = dash.Dash(__name__)
    app.layout = html.Div()
    app.callback(Output("a", "children"), Input("b", "n_clicks"))(lambda n: n)

    def register() -> None:
        app.callback(Output("c", "children"), Input("d", "n_clicks"))(lambda n: n)
        app.clientside_callback("x => x", Output("e", "children"), Input("f", "n_clicks"))

    assert registered(app, register) == {"c.children", "e.children"}


def test_a_plugins_pages_share_what_any_of_them_registered() -> None:
    app = dash.Dash(__name__)
    app.layout = html.Div()

    def tabs() -> None:  # the first page registers what both pages draw
        app.callback(Output("tab", "children"), Input("t", "n_clicks"))(lambda n: n)

    def chart() -> None:
        app.callback(Output("chart", "children"), Input("c", "n_clicks"))(lambda n: n)

    owned = by_page(app, [[("/prof", tabs), ("/prof/op", lambda: None)], [("/chart", chart)]])
    assert owned == {
        "/prof": {"tab.children"},
        "/prof/op": {"tab.children"},
        "/chart": {"chart.children"},
    }
    pages = PageCallbacks({**owned, "/about": frozenset()}, lambda: None)
    # a document draws the pages whose callbacks it has: its plugin's, and pages of none
    assert pages.drawable("/prof/op") == ["/prof", "/prof/op", "/about"]
    assert pages.drawable("/chart") == ["/chart", "/about"]
    assert pages.drawable("/nowhere") == []
    assert pages.drawable("/") is None  # any page: the home page's document has them all


@pytest.fixture(scope="module")
def app(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with loaded_app(corpus, tmp_path_factory.mktemp("ws")) as app:
        yield app


def _layout_ids(node: Any, found: set[str]) -> set[str]:
    """Each component id of a layout (as JSON): a string id, or a dict id's ``type``."""
    if isinstance(node, list):
        for child in node:
            _layout_ids(child, found)
    elif isinstance(node, dict) and "props" in node:
        component_id = node["props"].get("id")
        if component_id is not None:
            found.add(component_id["type"] if isinstance(component_id, dict) else component_id)
        for value in node["props"].values():
            _layout_ids(value, found)
    return found


def _callback_ids(callback: dict[str, Any]) -> set[str]:
    """The ids a callback listens to or writes (dict ids by their ``type``)."""
    ids = [d["id"] for d in callback["inputs"]]
    ids += [output.rsplit(".", 1)[0] for output in callback["output"].strip(".").split("...")]
    parsed = [json.loads(i) if i.startswith("{") else i for i in ids]
    return {i["type"] if isinstance(i, dict) else i for i in parsed}


@pytest.mark.parametrize("path", page_paths())
def test_no_page_misses_a_callback_of_its_components(app: Any, path: str) -> None:
    client = app.server.test_client()
    referrer = {"Referer": f"http://localhost{path}?train_id=./lenet_sc"}
    layout = client.get("/_dash-layout", headers=referrer).get_json()
    ids = _layout_ids(layout, set())
    frame = _layout_ids(
        client.get("/_dash-layout", headers={"Referer": "http://localhost/nowhere"}).get_json(),
        set(),
    )
    every = client.get("/_dash-dependencies").get_json()
    own = client.get("/_dash-dependencies", headers=referrer).get_json()
    # A callback whose inputs and outputs are all drawn, some of them by the page itself.
    wanted = [c["output"] for c in every if _callback_ids(c) <= ids and _callback_ids(c) - frame]
    assert set(wanted) - set(_outputs(own)) == set()
    # and the answer is the page's: not every callback of the app (the home page's is)
    assert len(own) == len(every) if path == "/" else len(own) < len(every) / 2
    assert len(ids) > 10  # the layout is the page's (the id scan finds its components)
