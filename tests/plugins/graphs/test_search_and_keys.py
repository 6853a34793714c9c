"""Finding a node in a large graph (issue #39 items 3 and 4): search results grouped by scope,
each group named by what tells its scope from the others; choosing one centres it and shows
its Node Information without scrolling the page (1280x800 and 1600x1000); the scope tree
moves with the keyboard."""

from __future__ import annotations

from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from dash_insight.plugins.graphs import page as graph_page
from tests.browser import until, wait_idle
from tests.plugins.graphs.test_layout_quality import LENET, _drawn
from tests.plugins.graphs.test_page import _small_model


def test_distinguishing_parts_name_scopes_by_what_differs() -> None:
    parts = graph_page.distinguishing_parts(
        [
            "Default/net/backbone/layer1-0/conv2-Conv2d",
            "Default/net/backbone/layer2-1/conv2-Conv2d",
            "Gradients/Default/net/backbone/layer2-1/conv2-Conv2d",
            "",
        ]
    )
    assert parts == {
        "Default/net/backbone/layer1-0/conv2-Conv2d": "…/layer1-0/conv2-Conv2d",
        "Default/net/backbone/layer2-1/conv2-Conv2d": "Default/…/layer2-1/conv2-Conv2d",
        "Gradients/Default/net/backbone/layer2-1/conv2-Conv2d": "Gradients/…/conv2-Conv2d",
        "": "",
    }
    assert graph_page.distinguishing_parts(["A/B"]) == {"A/B": "…/B"}


def test_search_results_are_grouped_by_scope() -> None:
    found = graph_page.search_results(_small_model(), "-op")
    count, groups, _more = found
    assert "4 nodes" in count.children and "3 scopes" in count.children
    names = [group.children[0].title for group in groups.children]
    assert names == ["A/B", "A", "C"]
    assert [len(group.children[1].children) for group in groups.children] == [2, 1, 1]


#: The page's scroll offset, and where the Node Information's name is in the window.
INFO_JS = """
const name = document.getElementById('graph-info-name');
const box = name ? name.getBoundingClientRect() : null;
return {scroll: window.scrollY, text: name ? name.textContent : null,
        top: box && box.top, bottom: box && box.bottom, height: window.innerHeight};
"""
#: Where node ``arguments[0]`` is drawn, as a share of the canvas (0.5, 0.5 is its centre).
PLACE_JS = """
const cy = document.getElementById('graph-cy')._cyreg.cy;
const node = cy.getElementById(arguments[0]);
const laidOut = cy.container().dataset.laidOut === cy.nodes().length + ':' + cy.edges().length;
if (!node.length || !laidOut || cy.animated()) return null;
const p = node.renderedPosition();
return [p.x / cy.width(), p.y / cy.height()];
"""


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_a_search_hit_is_centred_with_its_information_in_view(
    dash_duo: Any, corpus_app: Any, size: tuple[int, int]
) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(*size)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    _drawn(dash_duo, ())
    dash_duo.find_element("#graph-search").send_keys("conv2")
    until(lambda: len(dash_duo.find_elements(".gp-result-group")) >= 2)
    groups = [
        g.get_attribute("textContent")
        for g in dash_duo.find_elements(".gp-result-group .gp-group-scope")
    ]
    assert len(set(groups)) == len(groups) and all(len(g) < 40 for g in groups), groups
    hit = dash_duo.find_elements(".gp-result")[-1]
    name = hit.get_attribute("title")
    hit.click()
    until(lambda: dash_duo.driver.execute_script(INFO_JS)["text"] == name)

    def centred() -> bool:  # once its scopes are open, laid out and the view has moved
        place = dash_duo.driver.execute_script(PLACE_JS, name)
        return place is not None and all(0.3 < share < 0.7 for share in place)

    until(centred)
    info = dash_duo.driver.execute_script(INFO_JS)
    assert info["scroll"] == 0 and info["top"] >= 0 and info["bottom"] <= info["height"], info


#: The name of the tree row whose label has the keyboard focus (None when none has).
FOCUSED_JS = """
const label = document.activeElement;
if (!label || !label.classList.contains('gp-tree-label')) return null;
return JSON.parse(label.id).name;
"""
#: Whether scope ``arguments[0]`` is drawn open (its children inside it).
OPEN_JS = """
const node = document.getElementById('graph-cy')._cyreg.cy.getElementById(arguments[0]);
return Boolean(node.length && node.isParent());
"""


def test_the_scope_tree_by_keyboard(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.driver.set_window_size(1280, 800)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    _drawn(dash_duo, ())
    until(lambda: dash_duo.find_elements(".gp-tree-label"))
    dash_duo.find_elements(".gp-tree-label")[0].click()  # Default: selected, focused
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default")

    def press(key: str) -> None:
        # Each key after the page has answered the last one (on a loaded machine a redraw
        # still on its way would land after the key and undo what it did).
        wait_idle(dash_duo)
        until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) is not None)
        ActionChains(dash_duo.driver).send_keys(key).perform()

    press(Keys.ARROW_RIGHT)  # opens Default, the row keeps the focus
    until(lambda: dash_duo.driver.execute_script(OPEN_JS, "Default"))
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default")
    press(Keys.ARROW_RIGHT)  # into it
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default/MakeTuple-op0")
    press(Keys.ARROW_DOWN)
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default/UpdateState-op0")
    press(Keys.ARROW_UP)
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default/MakeTuple-op0")
    press(Keys.ENTER)  # shows the node
    until(lambda: dash_duo.driver.execute_script(INFO_JS)["text"] == "Default/MakeTuple-op0")
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default/MakeTuple-op0")
    press(Keys.ARROW_LEFT)  # to its scope
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default")
    press(Keys.ARROW_LEFT)  # closes it
    until(lambda: not dash_duo.driver.execute_script(OPEN_JS, "Default"))
    until(lambda: dash_duo.driver.execute_script(FOCUSED_JS) == "Default")


GUIDE_SHOWN_JS = "const g = document.getElementById('graph-guide'); return g && !g.hidden;"


def test_a_first_visit_guide_is_shown_until_closed(dash_duo: Any, corpus_app: Any) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")
    until(lambda: dash_duo.driver.execute_script(GUIDE_SHOWN_JS))
    assert "Double-click a scope" in dash_duo.find_element("#graph-guide").text
    dash_duo.find_element("#graph-guide-close").click()
    until(lambda: not dash_duo.driver.execute_script(GUIDE_SHOWN_JS))
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/graph?train_id={LENET}")  # remembered
    _drawn(dash_duo, ())
    assert not dash_duo.driver.execute_script(GUIDE_SHOWN_JS)
    dash_duo.find_element("#graph-guide-open").click()  # shown again on request
    until(lambda: dash_duo.driver.execute_script(GUIDE_SHOWN_JS))
