"""A full page load gets its page inside the layout (from the ``Referer`` of ``_dash-layout``),
saving the routing callback's round trip; without a usable ``Referer`` routing still works."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from dash.testing.wait import until

from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web.shell import location_props
from tests.conftest import console_errors
from tests.pages import find_props


def _layout(client, referrer: str | None) -> dict:
    headers = {"Referer": referrer} if referrer else {}
    answer = client.get(_layout.path, headers=headers)  # type: ignore[attr-defined]
    assert answer.status_code == 200
    return json.loads(answer.data)


@pytest.fixture(params=["/", "/insight/"])
def app_client(request, corpus: Path, tmp_path: Path):
    app = create_app(
        Settings(
            summary_base_dir=str(corpus),
            workspace=str(tmp_path / "ws"),
            reload_interval=0,
            url_base_pathname=request.param,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    _layout.path = request.param + "_dash-layout"  # type: ignore[attr-defined]
    yield app.server.test_client(), request.param
    app.data_service.close()


def test_the_page_of_the_referrer_is_in_the_layout(app_client) -> None:
    client, prefix = app_client
    layout = _layout(client, f"http://localhost{prefix}scalars?train_id=.%2Flenet_sc&smooth=0.5")
    assert find_props(layout, "route")["data"] == {"path": "/scalars", "train_id": "./lenet_sc"}
    page = find_props(layout, "page")
    assert page is not None and page.get("children"), "the scalars page is rendered"
    # The location starts where the browser is: mounting it changes nothing, so the URL's
    # callbacks do not all fire on load.
    location = find_props(layout, "url")
    assert (location["pathname"], location["search"]) == (
        f"{prefix}scalars",
        "?train_id=.%2Flenet_sc&smooth=0.5",
    )
    # Its whole address too: the location sets no href when it mounts, and the callback that
    # follows the window's address (for a Referer a browser cut) is not called.
    assert location["href"] == f"http://localhost{prefix}scalars?train_id=.%2Flenet_sc&smooth=0.5"
    bare = find_props(_layout(client, f"http://localhost{prefix}scalars"), "url")
    assert (bare["pathname"], bare["search"]) == (f"{prefix}scalars", "")
    home = find_props(_layout(client, f"http://localhost{prefix}"), "url")
    assert home["pathname"] == prefix and ("href" in home) == (prefix != "/")  # "/": maybe cut
    unknown = _layout(client, f"http://localhost{prefix}no-such-page")
    assert "Page not found" in json.dumps(find_props(unknown, "page"))


@pytest.mark.parametrize(
    "referrer", [None, "http://elsewhere.example/scalars?train_id=./x", "not a url"]
)
def test_without_a_usable_referrer_the_page_comes_by_routing(app_client, referrer) -> None:
    client, _ = app_client
    layout = _layout(client, referrer)
    assert find_props(layout, "route").get("data") is None
    assert "pathname" not in find_props(layout, "url"), "the location sets itself when it mounts"
    assert not find_props(layout, "page").get("children")


def test_a_page_outside_the_mount_prefix_is_not_rendered(app_client) -> None:
    client, prefix = app_client
    layout = _layout(client, "http://localhost/insightful/scalars")
    rendered = find_props(layout, "route").get("data") is not None
    assert rendered == (prefix == "/")  # below "/insight/" it is another application's page


@pytest.mark.browser
def test_full_load_and_in_app_navigation_show_their_pages(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./lenet_sc")
    dash_duo.wait_for_element("#dashboard-cards .di-card")
    dash_duo.wait_for_element("#page .js-plotly-plot", timeout=30)  # the cards' charts
    # plotly.js is dash-insight's partial bundle, loaded once as an asset.
    assert (
        dash_duo.driver.execute_script("return window.Plotly && window.Plotly.version")
        == _plotly_version()
    )
    full = dash_duo.driver.execute_script("""
        return performance.getEntriesByType('resource')
            .filter(e => e.name.includes('package_data/plotly.min.js')).length;""")
    assert full == 0, "Dash loaded the full plotly.js bundle as well"
    dash_duo.find_element("#nav-lineage").click()  # in-app navigation still routes
    until(lambda: "/lineage" in dash_duo.driver.current_url, 10)
    dash_duo.wait_for_element("#lineage-tab-model")
    dash_duo.wait_for_element("#lineage-overview svg.di-svg", timeout=30)  # its charts
    assert console_errors(dash_duo) == []


def _plotly_version() -> str:
    from plotly.offline import get_plotlyjs_version

    return str(get_plotlyjs_version())


#: Runs ``assets/shell.js`` in Node.js with a window at the address ``argv[2]`` and prints what
#: its ``followWindowAddress`` answers for the location's pathname and search ``argv[3:5]``.
FOLLOW_JS = """
const [file, href, pathname, search] = process.argv.slice(1);
const noUpdate = {no_update: true};
global.window = {location: new URL(href), dash_clientside: {no_update: noUpdate}};
require(file);
const answer = window.dash_clientside.shell.followWindowAddress(href, pathname, search);
console.log(JSON.stringify(answer.map(v => (v === noUpdate ? null : v))));
"""


def _follow(href: str, pathname: str, search: str) -> list[str | None]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on the PATH")
    shell_js = Path(__file__).parents[2] / "assets" / "shell.js"
    answer = subprocess.run(
        [node, "-e", FOLLOW_JS, str(shell_js), href, pathname, search],
        capture_output=True,
        text=True,
        check=True,
    )
    return list(json.loads(answer.stdout))


def test_the_location_has_the_whole_address_unless_it_may_be_cut() -> None:
    whole = "http://h:8080/graph?train_id=.%2Fa"
    assert location_props(whole, ("/graph", "?train_id=.%2Fa")) == {
        "pathname": "/graph",
        "search": "?train_id=.%2Fa",
        "href": whole,
    }
    # A browser cuts a Referer over 4,096 characters to this: the window may be elsewhere.
    assert location_props("http://h:8080/", ("/", "")) == {"pathname": "/", "search": ""}
    assert location_props("http://h:8080/?x=1", ("/", "?x=1"))["href"] == "http://h:8080/?x=1"
    assert location_props(None, None) == location_props("http://h/", None) == {}


def test_a_layout_of_another_address_follows_the_window() -> None:
    """Browsers cut a ``Referer`` over 4,096 characters to the origin, so the layout of a long
    address is the home page's, its location at ``/``: once mounted, the location takes the
    window's address (which routes to its page); a location at the window's address stays."""
    long_search = "?train_id=.%2Fjob&expanded=" + "%2CDefault%2Fstage0%2Fblock1" * 200
    href = "http://localhost/graph" + long_search
    assert _follow(href, "/", "") == ["/graph", long_search]
    assert _follow(href, "/graph", long_search) == [None, None]
    assert _follow("http://localhost/", "/", "") == [None, None]
    assert _follow("http://localhost/insight/", "/insight/", "") == [None, None]
