"""A train_id typed unencoded in the URL (``?train_id=./job``) is the state the pages write
(``.%2Fjob``): the page is built once, with its layout, not a second time after rewriting its
own URL."""

from __future__ import annotations

from dash.testing.wait import until
from selenium.common.exceptions import TimeoutException

from dash_insight.web.url_state import same_search
from tests.pages import run_js

#: Records, before the page's scripts run, the outputs of every callback request.
RECORDER = """
window.__outputs = [];
const originalFetch = window.fetch;
window.fetch = function (url, options) {
  const body = String((options && options.body) || '');
  if (body.startsWith('{')) {
    const request = JSON.parse(body);
    if (!(request.changedPropIds || []).some(p => p.startsWith('refresh-interval'))) {
      window.__outputs.push(request.output);
    }
  }
  return originalFetch.apply(this, arguments);
};
"""


def test_same_search_decodes_and_ignores_order() -> None:
    assert same_search("?train_id=.%2Fjob&tags=a", "?tags=a&train_id=./job")
    assert same_search("", None) and same_search("?", "")
    assert not same_search("?train_id=.%2Fjob", "?train_id=./other")
    assert not same_search("?train_id=./job&page=2", "?train_id=./job")


def _ready(dash_duo, script: str) -> bool:
    """``script``'s answer; False while the page is too busy to run it."""
    try:
        return bool(run_js(dash_duo, script))
    except TimeoutException:
        return False


def _card_builds(dash_duo, path: str) -> int:
    dash_duo.driver.get("about:blank")
    dash_duo.wait_for_page(dash_duo.server_url + path)
    until(
        lambda: _ready(
            dash_duo, "return document.querySelectorAll('.di-vp-graph .js-plotly-plot').length >= 2"
        ),
        90,
    )
    until(
        lambda: _ready(
            dash_duo,
            "return document.querySelectorAll('#hist-tags label[data-option-index]').length > 0",
        ),
        30,
    )
    until(
        lambda: _ready(
            dash_duo,
            """
        const callbacks = window.store.getState().callbacks || {};
        return ['requested', 'prioritized', 'blocked', 'executing', 'watched', 'executed']
            .every(name => !(callbacks[name] || []).length);""",
        ),
        30,
    )
    return _builds(dash_duo)


def _builds(dash_duo) -> int:
    """The requests for the histogram cards recorded since the page loaded."""
    outputs = run_js(dash_duo, "return window.__outputs;")
    return sum("hist-cards.children" in output for output in outputs)


def test_an_unencoded_train_id_builds_the_histograms_once(dash_duo, corpus_app) -> None:
    dash_duo.driver.set_window_size(1600, 1400)  # charts on screen: drawn (when they are)
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    dash_duo.start_server(corpus_app)
    encoded = _card_builds(dash_duo, "/histograms?train_id=.%2Flenet_sc")
    typed = _card_builds(dash_duo, "/histograms?train_id=./lenet_sc")
    # The layout brings the cards (tensors37): neither spelling asks for them again at load.
    assert encoded == typed == 0
    # What changes the cards does ask (the recorder sees the request): the theme.
    dash_duo.find_element("#theme-toggle").click()
    until(lambda: _builds(dash_duo) == 1, 30)
