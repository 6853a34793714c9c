"""The computational graph page (/graph) and the data graph page (/data-graph): their pure
helpers, and dash_duo browser tests on the corpus (expand a scope, search and locate a node,
see its details, readable mode, the data graph and a node's parameters)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.plugins.graphs import cards, figures_cytoscape
from dash_insight.plugins.graphs import data_graph_page as data_page
from dash_insight.plugins.graphs import page as graph_page
from dash_insight.plugins.graphs.figures import build_view
from dash_insight.plugins.graphs.figures_cytoscape import (
    DARK_CANVAS_RULES,
    SELECTION_RULES,
    apply_patch,
    graph_elements,
)
from dash_insight.plugins.graphs.query_dataset import pipeline
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.service import GraphService
from tests.bench_modules import load_bench_module
from tests.browser import until, wait_idle
from tests.conftest import console_errors, loaded_app
from tests.pages import callbacks_sent, until_no_frames, walk, watch_frames

LENET = "./lenet_sc"
NET = "Default/network-WithLossCell"
BACKBONE = f"{NET}/_backbone-LeNet5"
CONV = f"{BACKBONE}/conv1-Conv2d/Conv2D-op0"


def _small_model() -> GraphModel:
    graph = anf_ir_pb2.GraphProto()
    for index, (scope, op_type, inputs) in enumerate(
        [
            ("A/B", "Conv2D", ["w"]),
            ("A/B", "ReLU", ["1"]),
            ("A", "Add", ["2"]),
            ("C", "Mul", ["3"]),
        ],
        start=1,
    ):
        node = graph.node.add(name=str(index), op_type=op_type, scope=scope)
        for name in inputs:
            node.input.add(name=name)
        node.output_type.data_type = anf_ir_pb2.DT_TENSOR
        node.output_type.tensor_type.elem_type = anf_ir_pb2.DT_FLOAT32
        node.output_type.tensor_type.shape.dim.add(size=4)
    graph.parameters.add(name="w").type.data_type = anf_ir_pb2.DT_FLOAT32
    return GraphModel.build(graph)


# -- pure helpers -------------------------------------------------------------------------------


def test_parse_state_reads_and_repairs_the_url() -> None:
    state = graph_page.parse_state(
        {"train_id": "./j", "expanded": "A,A/B,", "node": "A/B", "mode": "optimize"}
    )
    assert (state.train_id, state.mode, state.expanded, state.node) == (
        "./j",
        "optimize",
        ["A", "A/B"],
        "A/B",
    )
    assert not state.problems
    bad = graph_page.parse_state({"train_id": "./j", "mode": "fancy"})
    assert bad.mode == "normal" and "Unknown mode" in bad.problems[0]
    tagged = graph_page.parse_state({"train_id": "./j", "tag": "x.pb (optimized)"})
    assert (tagged.tag, tagged.mode) == ("x.pb", "optimize")
    many = graph_page.parse_state({"expanded": ",".join(f"s{i}" for i in range(600))})
    assert len(many.expanded) == graph_page.MAX_EXPANDED_PARAM and many.problems
    # and back into a query string (normal mode and empty values are left out)
    assert state.search(mode="normal", expanded=["A"], node=None) == "?train_id=.%2Fj&expanded=A"


def test_toggle_and_reveal_scopes() -> None:
    model = _small_model()
    assert graph_page.toggle_scope(model, [], "A/B") == ["A", "A/B"]  # ancestors open too
    assert graph_page.toggle_scope(model, ["A", "A/B", "C"], "A") == ["C"]  # and close inside
    assert graph_page.toggle_scope(model, ["A"], "A/B/Conv2D-op1") == ["A"]  # not a scope
    assert graph_page.toggle_scope(model, [], "nope") == []
    assert graph_page.reveal(model, ["C"], "A/B/ReLU-op2") == ["C", "A", "A/B"]
    assert graph_page.reveal(model, [], "unknown") == []


def test_search_results_and_node_panel() -> None:
    model = _small_model()
    assert graph_page.search_results(model, "  ") is None
    assert "No node matches" in str(graph_page.search_results(model, "zzz"))
    found = str(graph_page.search_results(model, "relu"))
    assert "A/B/ReLU-op2" in found and "1 node" in found
    panel = str(graph_page.node_info(model, "A/B/ReLU-op2", []))
    assert (
        "Inputs (1)" in panel and "A/B/Conv2D-op1" in panel and "DT_TENSOR[DT_FLOAT32] 4" in panel
    )
    scope_panel = str(graph_page.node_info(model, "A", ["A"]))
    assert "Subnodes" in scope_panel and "Collapse" in scope_panel
    assert "No node" in str(graph_page.node_info(model, "missing", []))


def test_controls_offer_a_file_selector_only_for_several_graphs() -> None:
    single = str(graph_page.controls("a.pb", ["a.pb"], "normal"))
    assert "graph-mode" in single and "Dropdown" not in single and "a.pb" in single
    several = graph_page.controls("b.pb", ["a.pb", "b.pb"], "optimize")
    assert several[0].value == ["optimize"]
    assert several[1].value == "b.pb" and len(several[1].options) == 2


def _render(
    params: dict[str, str], shown: dict | None, version: int = 1, model: GraphModel | None = None
) -> tuple[Any, ...]:
    state = graph_page.parse_state({"train_id": "./j", **params})
    loaded = graph_page.LoadedGraph(model or _small_model(), "g.pb", ["g.pb"], None)
    return graph_page.render_page(state, loaded, version, shown)


def _unchanged(outputs: tuple[Any, ...]) -> list[int]:
    """Indexes of the outputs left as they are in the browser."""
    return [i for i, value in enumerate(outputs) if value is dash.no_update]


def test_render_page_sends_only_what_changed() -> None:
    model = _small_model()
    first = _render({}, None, model=model)
    (
        patch,
        style,
        _info,
        _controls,
        notices,
        shown,
        focus,
        canvas,
    ) = first
    assert patch["reset"] and patch["n"] == 1
    assert {e["data"]["id"] for e in patch["add"] if "source" not in e["data"]} == {"A", "C"}
    assert notices == [] and canvas == "gp-canvas-wrap"
    assert style is dash.no_update  # the layout's, light
    assert focus == {"fit": True, "node": None, "n": 1, "drawn": 1}  # a new graph is shown whole
    # A refresh tick with nothing new changes nothing (the viewport stays put).
    assert _unchanged(_render({}, shown, model=model)) == list(range(graph_page.RENDER_OUTPUTS))
    # Opening a scope sends what changed and looks at the scope just opened once it is drawn.
    opened = _render({"expanded": "A"}, shown, model=model)
    assert not opened[0]["reset"] and (opened[0]["base"], opened[0]["n"]) == (1, 2)
    added = {e["data"]["id"] for e in opened[0]["add"]}
    assert "A/B" in added and "A" not in added and "C" not in added
    assert [e["data"]["id"] for e in opened[0]["update"]] == ["A"]  # now drawn open
    assert opened[6] == {"fit": False, "node": "A", "n": 2, "drawn": 2}
    # the controls (same file, same mode) and the styles (same selection, same theme) stay
    assert _unchanged(opened) == [1, 3]
    # Selecting a drawn node keeps the elements and the styles (the browser outlines it, the
    # stylesheet's SELECTION_RULES) and centres it.
    selected = _render({"expanded": "A", "node": "A/Add-op3"}, opened[5], model=model)
    assert _unchanged(selected) == [0, 1, 3]
    assert selected[6]["node"] == "A/Add-op3" and not selected[6]["fit"]
    # The dark theme restyles the canvas, once (the overview is drawn from it).
    state = graph_page.parse_state({"train_id": "./j", "expanded": "A", "node": "A/Add-op3"})
    loaded = graph_page.LoadedGraph(model, "g.pb", ["g.pb"], None)
    dark = graph_page.render_page(state, loaded, 1, selected[5], "dark")
    assert {"selector": "edge", "style": DARK_CANVAS_RULES[0]["style"]} in dark[1]
    assert dark[1][-2:] == SELECTION_RULES
    again = graph_page.render_page(state, loaded, 1, dark[5], "dark")
    assert _unchanged(again) == list(range(graph_page.RENDER_OUTPUTS))
    # New data in the job redraws the same view, everything sent again.
    newer = _render({"expanded": "A", "node": "A/Add-op3"}, selected[5], version=2, model=model)
    assert newer[0]["reset"] and newer[0]["n"] == 3
    # An unknown node is reported; the graph stays drawn.
    ghost = _render({"node": "ghost"}, shown, model=model)
    assert "No node 'ghost'" in str(ghost[4]) and ghost[0] is dash.no_update


def _patched_views(model: GraphModel, views: list[list[str]]) -> Iterator[tuple[Any, ...]]:
    """(patch, elements drawn after it, the full render's elements) of each view of ``views``
    shown one after the other, as the page's render callback sends them."""
    shown: dict | None = None
    drawn: list[dict[str, Any]] = []
    for expanded in views:
        outputs = _render({"expanded": ",".join(expanded)}, shown, model=model)
        patch, shown = outputs[0], outputs[5]
        drawn = apply_patch(drawn, patch)
        yield patch, drawn, graph_elements(build_view(model, expanded))


def test_opening_and_closing_sends_what_changed_and_draws_the_full_render() -> None:
    # the 5,000-operator graph of bench/graph.py (10 stages of 20 blocks of 25 operators)
    model = GraphModel.build(load_bench_module("graph").make_graph(5000, 200))
    stages = [f"Default/stage{i}" for i in range(10)]
    blocks = [f"{s}/block{j}" for s in stages[:3] for j in range(20)]
    # the page's largest view (blocks past its node limit stay closed), its last block closed
    largest = build_view(model, ["Default", *stages, *blocks]).expanded
    views = [largest, largest[:-1], largest, ["Default", stages[0]], largest, []]
    answers = []
    for patch, drawn, full in _patched_views(model, views):
        assert drawn == full  # same elements, same order (ELK lays them out in it)
        answers.append((patch, len(json.dumps(patch)), len(json.dumps(full))))
    assert answers[0][0]["reset"] and len(answers[0][0]["add"]) > 3000  # the first: everything
    # a block closed, then opened again, in the 1,500-node view: its 25 operators' worth
    for patch, size, everything in answers[1:3]:
        assert not patch["reset"] and size < everything / 20
        assert len(patch["add"]) + len(patch["remove"]) + len(patch["update"]) < 100


def test_render_page_without_a_graph_says_why() -> None:
    state = graph_page.parse_state({"train_id": "./j", "mode": "fancy"})
    loaded = graph_page.LoadedGraph(None, "", [], "This job has no computational graph.")
    outputs = graph_page.render_page(state, loaded, None, None)
    assert outputs[0]["reset"] and outputs[0]["add"] == []
    assert outputs[7] == "gp-canvas-wrap gp-hidden"
    text = str(outputs[4])
    assert "no computational graph" in text and "Unknown mode" in text
    again = graph_page.render_page(state, loaded, None, outputs[5])
    assert _unchanged(again) == list(range(graph_page.RENDER_OUTPUTS))


def test_focus_request() -> None:
    model = _small_model()
    view = build_view(model, ["A", "A/B"])
    key = ["./j", "g.pb", "normal", view.expanded, 1]
    assert graph_page.focus_request({}, key, view, None) == {"fit": True, "node": None, "n": 1}
    shown = {"view": ["./j", "g.pb", "normal", ["A"], 1], "node": None, "n": 4}
    assert graph_page.focus_request(shown, key, view, None) == {"fit": False, "node": "A/B", "n": 5}
    # the selection wins over the scope just opened; a node not drawn is not a target
    assert graph_page.focus_request(shown, key, view, "A/B/ReLU-op2")["node"] == "A/B/ReLU-op2"
    assert graph_page.focus_request(shown, key, view, "C/Mul-op4")["node"] == "A/B"
    # another mode is another graph: shown whole
    other_mode = {**shown, "view": ["./j", "g.pb", "optimize", ["A"], 1]}
    assert graph_page.focus_request(other_mode, key, view, None)["fit"] is True
    assert graph_page.focus_request({"view": key, "node": None}, key, view, None) is None


def test_address_changes() -> None:
    model = _small_model()
    state = graph_page.parse_state({"train_id": "./j", "expanded": "A", "node": "A"})
    assert graph_page.select_search(state, "C") == "?train_id=.%2Fj&expanded=A&node=C"
    assert graph_page.select_search(state, "A") is None
    assert graph_page.select_search(state, None) is None
    assert (
        graph_page.toggle_search(model, state, "A/B")
        == "?train_id=.%2Fj&expanded=A%2CA%2FB&node=A%2FB"
    )
    assert graph_page.toggle_search(model, state, "A") == "?train_id=.%2Fj&node=A"
    assert graph_page.toggle_search(model, state, "A/Add-op3") is None  # a leaf
    assert graph_page.toggle_search(None, state, "A") is None  # no graph
    assert (
        graph_page.locate_search(model, state, "A/B/ReLU-op2")
        == "?train_id=.%2Fj&expanded=A%2CA%2FB&node=A%2FB%2FReLU-op2"
    )
    assert graph_page.locate_search(model, state, "A") is None  # shown and selected
    assert graph_page.locate_search(model, state, "nope") is None
    assert graph_page.mode_search(state, True) == "?train_id=.%2Fj&mode=optimize&expanded=A&node=A"
    assert graph_page.mode_search(state, False) is None
    assert graph_page.tag_search(state, "b.pb", "a.pb") == "?train_id=.%2Fj&tag=b.pb"
    assert graph_page.tag_search(state, "a.pb", "a.pb") is None
    assert graph_page.tag_search(state, None, "a.pb") is None


def test_canvas_buttons_carry_their_image_request() -> None:
    buttons = figures_cytoscape.canvas_buttons("graph", "computational-graph", {"scale": 2}, "Save")
    assert [b.id for b in buttons] == [
        "graph-fullscreen",
        "graph-download",
        "graph-download-svg",
        "graph-png-request",
    ]
    assert buttons[1].title == "Save"
    assert buttons[3].data == {
        "type": "png",
        "action": "download",
        "filename": "computational-graph",
        "options": {"scale": 2},
    }


def test_data_graph_parameters_are_decoded() -> None:
    rows = dict(
        data_page.parameter_rows(
            {
                "input_columns": ['"label"'],
                "num_parallel_workers": 2,
                "tensor_op_params": None,
                "sampler": {"sampler_name": "RandomSampler", "num_samples": 100},
            }
        )
    )
    assert rows["input_columns"] == '["label"]'
    assert rows["num_parallel_workers"] == "2" and rows["tensor_op_params"] == "None"
    assert '"sampler_name": "RandomSampler"' in rows["sampler"]
    graph = pipeline(
        {
            "op_type": "Batch",
            "batch_size": 2,
            "children": [
                {"op_type": "Map", "operations": [{"tensor_op_name": "TypeCast"}], "children": []}
            ],
        }
    )
    assert "TypeCast" in str(data_page.node_panel(graph, "0.0.op0"))
    assert "No node" in str(data_page.node_panel(graph, "9"))


# -- browser -----------------------------------------------------------------------------------


#: How many pixels of the overview's picture are painted.
OVERVIEW_INKED = """
const canvas = document.getElementById('graph-overview');
const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
let inked = 0;
for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) inked++;
return inked;
"""


def _cy_ids(dash_duo: Any, element_id: str = "graph-cy") -> list[str]:
    """Ids of the nodes cytoscape draws (read in one script: no stale elements)."""
    return (
        dash_duo.driver.execute_script(
            f"const el = document.getElementById('{element_id}');"
            "const cy = el && el._cyreg ? el._cyreg.cy : null;"
            "return cy ? cy.nodes().map(n => n.id()) : [];"
        )
        or []
    )


def _text(dash_duo: Any, selector: str) -> str:
    return dash_duo.driver.execute_script(
        f"const el = document.querySelector({selector!r}); return el ? el.innerText : '';"
    )


def _wait(condition: Any, timeout: float = 15, message: str = "") -> None:
    until(condition, timeout=timeout, msg=message)


def _check_canvas_tools(dash_duo: Any, prefix: str, png_options: dict[str, Any]) -> None:
    """Fit, Full screen and Download PNG of a graph page act on its cytoscape and frame
    (``assets/graph-pages.js``); the browser's full screen and image are recorded, not made."""
    dash_duo.driver.execute_script(
        "const cy = document.getElementById(arguments[0] + '-cy')._cyreg.cy;"
        "window._diPng = []; const png = cy.png.bind(cy);"
        "cy.png = options => { window._diPng.push(options); return png(options); };"
        "const wrap = document.getElementById(arguments[0] + '-canvas-wrap');"
        "wrap.requestFullscreen = () => { window._diFull = wrap.id; return Promise.resolve(); };"
        "cy.zoom(cy.maxZoom()); window._diZoom = cy.zoom();",
        prefix,
    )
    dash_duo.find_element(f"#{prefix}-fit").click()
    zoom = f"return document.getElementById('{prefix}-cy')._cyreg.cy.zoom();"
    _wait(
        lambda: (
            dash_duo.driver.execute_script(zoom)
            < dash_duo.driver.execute_script("return window._diZoom;")
        ),
        message="Fit zooms out to the whole graph",
    )
    dash_duo.find_element(f"#{prefix}-fullscreen").click()
    _wait(
        lambda: dash_duo.driver.execute_script("return window._diFull;") == f"{prefix}-canvas-wrap",
        message="full screen asked for the graph's frame",
    )
    dash_duo.find_element(f"#{prefix}-download").click()
    _wait(
        lambda: dash_duo.driver.execute_script("return window._diPng.length;") > 0,
        message="Download PNG draws the image",
    )
    options = dash_duo.driver.execute_script("return window._diPng[0];")
    assert {k: options.get(k) for k in png_options} == png_options
    # Download SVG: a file of the drawn graph, every node and edge in it
    dash_duo.driver.execute_script(
        "window._diSvg = [];"
        "HTMLAnchorElement.prototype.click = function () {"
        " window._diSvg.push(this.download); };"
    )
    dash_duo.find_element(f"#{prefix}-download-svg").click()
    _wait(
        lambda: dash_duo.driver.execute_script("return window._diSvg.length;") > 0,
        message="Download SVG saves a file",
    )
    assert dash_duo.driver.execute_script("return window._diSvg[0];").endswith(".svg")
    svg, nodes, edges = dash_duo.driver.execute_script(
        "const cy = document.getElementById(arguments[0] + '-cy')._cyreg.cy;"
        "return [window.diGraphSvg(cy, '#ffffff'), cy.nodes().length, cy.edges().length];",
        prefix,
    )
    assert svg.startswith("<svg") and svg.count("<path") == edges
    assert svg.count("<ellipse") + svg.count("<rect") == nodes + 1  # and the background


def test_the_layout_comes_drawn(corpus: Path, tmp_path: Path) -> None:
    """The layout holds what ``render`` and ``search_nodes`` answer for its URL (bound with
    prevent_initial_call); the first refresh with nothing new sends nothing."""
    with loaded_app(corpus, tmp_path) as app:
        service = GraphService(app.data_service.provider)
        params = {"train_id": LENET, "expanded": "Default"}
        drawn = {
            c.id: c
            for c in walk(graph_page.layout(dash.Dash(__name__), service, params))
            if isinstance(getattr(c, "id", None), str)
        }
        search = f"?train_id={LENET}&expanded=Default"
        answer = graph_page.render(service, search, None, None, "light", None)
        assert drawn["graph-patch"].data == answer[0] and answer[0]["add"]
        assert drawn["graph-shown"].data == answer[5]
        assert drawn["graph-canvas-wrap"].className == answer[7]
        again = graph_page.render(service, search, 1, None, "light", drawn["graph-shown"].data)
        assert again == (dash.no_update,) * len(answer)
        assert getattr(drawn["graph-search-results"], "children", None) == (
            graph_page.search_nodes(service, None, search)
        )


@pytest.mark.browser
def test_graph_page_expand_search_details_readable(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    _wait(lambda: set(_cy_ids(dash_duo)) == {"Default", "Gradients"}, message="top level")
    # The page came drawn: no callback at load.
    wait_idle(dash_duo)
    assert callbacks_sent(dash_duo) == 0

    # Expand "Default" with the arrow of the scope tree ...
    dash_duo.find_element('button[id*="graph-tree-toggle"][id*="\\"Default\\""]').click()
    _wait(lambda: NET in _cy_ids(dash_duo), message="Default opened")
    assert "expanded=Default" in dash_duo.driver.current_url
    # ... and its network cell with a double click on the graph.
    dash_duo.driver.execute_script(
        "document.getElementById('graph-cy')._cyreg.cy.getElementById(arguments[0])"
        ".emit('dbltap');",
        NET,
    )
    _wait(lambda: BACKBONE in _cy_ids(dash_duo), message="double click opened the cell")
    # A single click selects: the information panel shows the scope.
    dash_duo.driver.execute_script(
        "document.getElementById('graph-cy')._cyreg.cy.getElementById(arguments[0]).emit('tap');",
        BACKBONE,
    )
    _wait(lambda: BACKBONE in _text(dash_duo, "#graph-info-name"), message="selected scope")
    assert "Subnodes" in _text(dash_duo, "#graph-info")

    # Search a node and locate it: its scopes open, it is selected and described.
    search = dash_duo.find_element("#graph-search")
    search.send_keys("conv2d-op0")
    _wait(lambda: "Conv2D-op0" in _text(dash_duo, "#graph-search-results"), message="search")
    dash_duo.find_element(f'#graph-search-results button[title="{CONV}"]').click()
    _wait(lambda: CONV in _cy_ids(dash_duo), message="located node drawn")
    _wait(lambda: _text(dash_duo, "#graph-info-name") == CONV, message="details")
    info = _text(dash_duo, "#graph-info")
    assert "Conv2D" in info and "Inputs (2)" in info and "Outputs" in info
    assert "DT_TENSOR[DT_FLOAT32] 32×1×32×32" in info
    assert "node=" in dash_duo.driver.current_url and "conv1-Conv2d" in dash_duo.driver.current_url
    # An input of the node jumps to that node.
    dash_duo.find_element('#graph-info-inputs button[title*="Load-op0"]').click()
    _wait(
        lambda: _text(dash_duo, "#graph-info-name").endswith("Load[5]_0/Load-op0"),
        message="jump to an input",
    )
    _wait(
        lambda: any(n.endswith("Load-op0") for n in _cy_ids(dash_duo)),
        message="its aggregation scope opened",
    )

    # Readable mode: gradients and optimizer are gone from the top level.
    dash_duo.driver.execute_script("window.scrollTo(0, 0);")
    dash_duo.find_element("#graph-mode input").click()
    _wait(lambda: "mode=optimize" in dash_duo.driver.current_url, message="mode in URL")
    _wait(
        lambda: "Gradients" not in _cy_ids(dash_duo) and "Default" in _cy_ids(dash_duo),
        message="readable graph drawn",
    )
    assert not any("optimizer" in name for name in _cy_ids(dash_duo))
    # the overview draws the same view (a picture of the canvas), with the visible area marked
    key = "const cy = document.getElementById('graph-cy')._cyreg.cy;"
    _wait(
        lambda: dash_duo.driver.execute_script(
            key + "return document.getElementById('graph-overview').dataset.drawn"
            " === cy.nodes().length + ':' + cy.edges().length;"
        ),
        message="overview",
    )
    assert dash_duo.driver.execute_script(OVERVIEW_INKED) > 100  # pixels drawn
    assert (
        dash_duo.driver.execute_script(
            "return document.getElementById('graph-overview-box').style.display"
        )
        == "block"
    )
    # a click on the overview moves the main view there
    pan = dash_duo.driver.execute_script(key + "return cy.pan();")
    overview = dash_duo.find_element("#graph-overview")
    ActionChains(dash_duo.driver).move_to_element(overview).move_by_offset(
        -overview.size["width"] // 2 + 8, -overview.size["height"] // 2 + 8
    ).click().perform()
    _wait(lambda: dash_duo.driver.execute_script(key + "return cy.pan();") != pan, message="pans")
    _check_canvas_tools(dash_duo, "graph", graph_page.PNG_OPTIONS)
    assert console_errors(dash_duo) == []


#: Start a long move of the graph's view far from the graph, as an earlier request's animation
#: still under way (a node located in a large graph, a click on the overview).
_FAR_MOVE = """const cy = document.getElementById('graph-cy')._cyreg.cy;
cy.animate({pan: {x: -50000, y: -50000}}, {duration: 60000});
return cy.animated();"""
#: Whether the graph's view has stopped moving and holds the whole graph (a fit).
_SETTLED_ON_THE_GRAPH = """const cy = document.getElementById('graph-cy')._cyreg.cy;
const view = cy.extent(), box = cy.elements().boundingBox();
return !cy.animated() && box.x1 >= view.x1 - 1 && box.x2 <= view.x2 + 1
  && box.y1 >= view.y1 - 1 && box.y2 <= view.y2 + 1;"""


@pytest.mark.browser
def test_a_new_view_request_stops_the_move_still_under_way(dash_duo: Any, corpus_app: Any) -> None:
    """A focus request (the readable mode's fit) and the Fit button stop a move of the view
    still animated (assets/graph-pages.js applyFocus): the move went on over the fit, to the
    place it was started for, outside the graph then drawn (the overview's box hidden)."""
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    _wait(lambda: set(_cy_ids(dash_duo)) == {"Default", "Gradients"}, message="top level")
    _wait(lambda: dash_duo.driver.execute_script(_LAID_OUT), message="laid out")
    assert dash_duo.driver.execute_script(_FAR_MOVE)
    dash_duo.find_element("#graph-mode input").click()
    _wait(lambda: "Gradients" not in _cy_ids(dash_duo), message="readable graph drawn")
    _wait(lambda: dash_duo.driver.execute_script(_SETTLED_ON_THE_GRAPH), message="fitted, still")
    _wait(
        lambda: (
            dash_duo.driver.execute_script(
                "return document.getElementById('graph-overview-box').style.display"
            )
            == "block"
        ),
        message="the overview's box shown",
    )

    assert dash_duo.driver.execute_script(_FAR_MOVE)
    dash_duo.find_element("#graph-fit").click()
    _wait(lambda: dash_duo.driver.execute_script(_SETTLED_ON_THE_GRAPH), message="Fit: still")
    assert console_errors(dash_duo) == []


#: The graph canvas's viewport: [zoom, pan x, pan y].
VIEWPORT = (
    "const cy = document.getElementById('graph-cy')._cyreg.cy;"
    "return [cy.zoom(), cy.pan().x, cy.pan().y];"
)


@pytest.mark.browser
def test_the_graph_canvas_idles_and_still_pans_zooms_and_animates(
    dash_duo: Any, corpus_app: Any
) -> None:
    """Once drawn, the graph asks for no animation frame (cytoscape's loop asked for 60 a
    second to find nothing to draw: assets/cytoscape-idle.js); a drag still pans it, the wheel
    still zooms it and an animation of the view (assets/graph-pages.js moves the view so) still
    runs to its end, each drawn, and it idles again after each."""
    watch_frames(dash_duo)
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    _wait(lambda: set(_cy_ids(dash_duo)) == {"Default", "Gradients"}, message="top level")
    _wait(lambda: dash_duo.driver.execute_script(_LAID_OUT), message="laid out")
    drawn = until_no_frames(dash_duo)["draws"]
    assert drawn > 0
    canvas = dash_duo.find_element("#graph-cy")
    view = dash_duo.driver.execute_script(VIEWPORT)

    ActionChains(dash_duo.driver).move_to_element(canvas).click_and_hold().move_by_offset(
        30, 15
    ).move_by_offset(30, 15).release().perform()
    _wait(lambda: dash_duo.driver.execute_script(VIEWPORT)[1:] != view[1:], message="panned")
    panned = until_no_frames(dash_duo)["draws"]
    assert panned > drawn

    view = dash_duo.driver.execute_script(VIEWPORT)
    ActionChains(dash_duo.driver).scroll_from_origin(
        ScrollOrigin.from_element(canvas), 0, -200
    ).perform()
    _wait(lambda: dash_duo.driver.execute_script(VIEWPORT)[0] != view[0], message="zoomed")
    zoomed = until_no_frames(dash_duo)["draws"]
    assert zoomed > panned

    target = dash_duo.driver.execute_script(
        "const cy = document.getElementById('graph-cy')._cyreg.cy;"
        "const zoom = cy.zoom() / 2; cy.animate({zoom}, {duration: 250}); return zoom;"
    )
    _wait(
        lambda: abs(dash_duo.driver.execute_script(VIEWPORT)[0] - target) < 1e-9,
        message="the animation ran to its end",
    )
    assert until_no_frames(dash_duo)["draws"] > zoomed
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_graph_page_bad_addresses(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id=./multi_file")
    dash_duo.wait_for_contains_text("#graph-notice", "no computational graph")
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id=./nope")
    dash_duo.wait_for_contains_text("#graph-notice", "nope")
    dash_duo.wait_for_page(
        url=f"{dash_duo.server_url}/graph?train_id={LENET}&mode=x&node=ghost&tag=zz"
    )
    dash_duo.wait_for_contains_text("#graph-notice", "no graph 'zz'")
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}&mode=x&node=ghost")
    dash_duo.wait_for_contains_text("#graph-notice", "No node 'ghost'")
    assert "Unknown mode" in _text(dash_duo, "#graph-notice")
    _wait(lambda: "Default" in _cy_ids(dash_duo), message="graph still drawn")
    assert console_errors(dash_duo) == []


@pytest.mark.browser
def test_data_graph_page(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/data-graph?train_id={LENET}")
    _wait(lambda: len(_cy_ids(dash_duo, "data-graph-cy")) == 10, message="pipeline drawn")
    labels = dash_duo.driver.execute_script(
        "return document.getElementById('data-graph-cy')._cyreg.cy.nodes()"
        ".map(n => n.data('label'));"
    )
    assert {"GeneratorDataset", "Map", "TypeCast", "Resize", "Shuffle", "Batch"} <= set(labels)
    # Click TypeCast (inside the first Map): its parameters.
    dash_duo.driver.execute_script(
        "const cy = document.getElementById('data-graph-cy')._cyreg.cy;"
        "cy.nodes().filter(n => n.data('label') === 'TypeCast').emit('tap');"
    )
    _wait(lambda: "tensor_op_name" in _text(dash_duo, "#data-graph-info"), message="operator")
    info = _text(dash_duo, "#data-graph-info")
    assert "TypeCast" in info and '{"data_type": "int32"}' in info
    # The Map around it: columns decoded from MindSpore's JSON strings.
    dash_duo.driver.execute_script(
        "const cy = document.getElementById('data-graph-cy')._cyreg.cy;"
        "cy.getElementById('0.0.0.0').emit('tap');"
    )
    _wait(lambda: "input_columns" in _text(dash_duo, "#data-graph-info"), message="map node")
    assert '["label"]' in _text(dash_duo, "#data-graph-info")
    assert "node=0.0.0.0" in dash_duo.driver.current_url
    assert "Legend" in _text(dash_duo, "#data-graph-legend")
    _check_canvas_tools(dash_duo, "data-graph", data_page.PNG_OPTIONS)
    # A job without a pipeline says so.
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/data-graph?train_id=./multi_file")
    dash_duo.wait_for_contains_text("#data-graph-notice", "No data graph")
    assert console_errors(dash_duo) == []
    time.sleep(0)  # keep the import used when the browser tests are deselected


_LAID_OUT = """const e = document.getElementById('graph-cy'), cy = e._cyreg.cy;
return e.dataset.laidOut === cy.nodes().length + ':' + cy.edges().length;"""
#: Style applications while the graph is zoomed and panned over six frames, and dash-cytoscape's
#: listeners still writing a prop on pointer moves (mouseover) or viewport changes (extent).
_ZOOM_AND_COUNT = r"""
const done = arguments[arguments.length - 1];
const cy = document.getElementById('graph-cy')._cyreg.cy, style = cy.style();
const apply = style.apply;
let applied = 0;
style.apply = function (eles) { applied += eles.length || 1; return apply.apply(this, arguments); };
const writers = cy.emitter().listeners.filter(l => /mouseover(Node|Edge)Data|\.extent\(\)/
  .test(String(l.callback))).length;
let frame = 0;
(function step() {
  if (frame++ === 6) { style.apply = apply; done([applied, writers]); return; }
  cy.zoom({level: cy.zoom() * (frame <= 3 ? 1.25 : 0.8), renderedPosition: {x: 300, y: 200}});
  cy.panBy({x: 20, y: -10});
  requestAnimationFrame(() => requestAnimationFrame(step));
})();
"""


@pytest.mark.browser
def test_an_address_opening_every_scope_opens_the_graph(
    dash_duo: Any, corpus_app: Any, tmp_path: Path
) -> None:
    """The address of ``bench/graph.py``'s graph with its 211 scopes open is about 6,000
    characters: longer than the 4,096 of a ``Referer``, which browsers then cut to the bare
    origin (the Summary List's address, which the server rendered). The page of the address is
    drawn, with every scope of it open; zooming and panning its 611 nodes restyles none of them
    (cytoscape's background flag, ``assets/graph-layout.js``) and writes no prop to Dash (nor
    does the click that ends a drag)."""
    bench_graph = load_bench_module("graph")
    train_id = bench_graph.write_job(str(tmp_path / "logs"), bench_graph.make_graph(200, 200))
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        model = GraphService(app.data_service.provider).model(
            train_id, app.data_service.provider.graph_tags(train_id)[0]
        )
        scopes = [name for name in model.nodes if model.child_names(name)]
        assert len(scopes) == 211
        dash_duo.start_server(app)
        url = f"{dash_duo.server_url}/graph"
        url += graph_page.GraphState(train_id, None, "normal", scopes, None).search()
        assert len(url) > 4096, len(url)
        dash_duo.wait_for_page(url=url)
        _wait(lambda: set(scopes) <= set(_cy_ids(dash_duo)), timeout=60, message="every scope")
        closed = "const cy = document.getElementById('graph-cy')._cyreg.cy;"
        closed += "return arguments[0].filter(s => !cy.getElementById(s).isParent());"
        assert dash_duo.driver.execute_script(closed, scopes) == []
        assert dash_duo.driver.current_url == url
        # 611 nodes: a pan or zoom moves a picture of the graph (assets/graph-layout.js)
        fast = "const r = document.getElementById('graph-cy')._cyreg.cy.renderer();"
        fast += "return [r.textureOnViewport, r.hideEdgesOnViewport, r.hideLabelsOnViewport];"
        assert dash_duo.driver.execute_script(fast) == [True, True, True]
        # zoomed and panned, nothing is restyled and no prop is written back to Dash
        _wait(lambda: dash_duo.driver.execute_script(_LAID_OUT), timeout=60, message="laid out")
        restyled, writers = dash_duo.driver.execute_async_script(_ZOOM_AND_COUNT)
        assert restyled == 0 and writers == 0, (restyled, writers)
        # the click ending a drag stays in the canvas (no n_clicks write around it), a click not
        count = "window.__clicks = 0; document.addEventListener('click', () => window.__clicks++);"
        dash_duo.driver.execute_script(count)
        canvas = dash_duo.find_element("#graph-cy")
        ActionChains(dash_duo.driver).move_to_element(canvas).click_and_hold().move_by_offset(
            90, 40
        ).release().perform()
        assert dash_duo.driver.execute_script("return window.__clicks;") == 0
        ActionChains(dash_duo.driver).move_to_element(canvas).click().perform()
        _wait(lambda: dash_duo.driver.execute_script("return window.__clicks;") == 1)
        assert console_errors(dash_duo) == []


def test_the_card_draws_each_scope_with_its_operator_count() -> None:
    model = _small_model()
    elements = cards.card_elements(model, build_view(model))
    labels = {e["data"]["id"]: e["data"]["label"] for e in elements if "id" in e["data"]}
    assert labels == {"A": "A\n4 nodes", "C": "C\n1 node"}  # A/B/w, a parameter, too
    boxes = [e["data"] for e in elements if "id" in e["data"]]
    assert all(box["w"] >= 130 and box["h"] >= 44 for box in boxes)
    assert [e["data"]["source"] for e in elements if "source" in e["data"]] == ["A"]
    assert [rule["selector"] for rule in cards.card_stylesheet()] == ["node", "edge"]
