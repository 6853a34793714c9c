"""Helpers of the page tests: the text of a component tree, and driving a page in the browser
(dash_duo, headless Chromium)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import dash
from dash import Output, State, ctx
from dash.testing.errors import TestingTimeoutError
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from dash_insight.web.components import tag_select
from tests.browser import until, wait_idle

#: The view of every histogram chart drawn (``layout.meta`` of the figures), one JSON per chart.
HIST_META = (
    "return Array.from(document.querySelectorAll('.di-vp-graph .js-plotly-plot'))"
    ".map(g => g.layout && g.layout.meta ? JSON.stringify(g.layout.meta) : '')"
)

#: Per drawn chart inside ``arguments[0]`` (a CSS selector): what Plotly's automargin added to
#: the figure's margins (left, right, top, bottom, px). The figures' margins should hold their
#: labels: when automargin adds to them, Plotly draws the chart a second time.
MARGINS_ADDED = """return Array.from(document.querySelectorAll(arguments[0] + ' .js-plotly-plot'))
  .filter(g => g._fullLayout && g._fullLayout._size)
  .map(g => { const s = g._fullLayout._size, m = g.layout.margin;
              return [s.l - m.l, s.r - m.r, s.t - m.t, s.b - m.b]; });"""


#: Per drawn chart inside ``arguments[0]``: its axes' ``ticklabeloverflow`` (Plotly's, after
#: defaults), and its tick labels that are hidden or pass the graph's box (px, 0.5 slack).
TICK_LABELS = """
return Array.from(document.querySelectorAll(arguments[0] + ' .js-plotly-plot'))
  .filter(p => p._fullLayout && p.data && p.data.length)
  .map(p => {
    const box = p.getBoundingClientRect();
    const labels = Array.from(p.querySelectorAll('.xtick text, .ytick text, .y2tick text'));
    const out = labels.filter(t => {
      const r = t.getBoundingClientRect();
      return getComputedStyle(t).display === 'none' || r.left < box.left - 0.5 ||
        r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5;
    });
    return {overflow: ['xaxis', 'yaxis'].map(k => p._fullLayout[k].ticklabeloverflow),
            labels: labels.length, out: out.map(t => t.textContent)};
  });"""


def _raw_text(component: Any) -> str:
    if component is None or isinstance(component, bool):
        return ""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(_raw_text(c) for c in component)
    return _raw_text(getattr(component, "children", None))


def text(component: Any) -> str:
    """All text inside a Dash component tree, runs of spaces collapsed."""
    return " ".join(_raw_text(component).split())


def find_props(layout: Any, component_id: str) -> dict[str, Any] | None:
    """The props of the component ``component_id`` in a layout as Dash serialises it (the
    JSON of ``/_dash-layout``); None when absent."""
    if isinstance(layout, dict):
        props = layout.get("props", {})
        if props.get("id") == component_id:
            return props
        return find_props(props.get("children"), component_id)
    if isinstance(layout, list):
        for child in layout:
            found = find_props(child, component_id)
            if found is not None:
                return found
    return None


def find(component: Any, component_id: Any) -> Any:
    """The component with ``id`` == ``component_id`` inside a tree (None when absent)."""
    if component is None or isinstance(component, str | int | float | bool):
        return None
    if isinstance(component, list | tuple):
        for child in component:
            found = find(child, component_id)
            if found is not None:
                return found
        return None
    if getattr(component, "id", None) == component_id:
        return component
    # A holder of web/components/deferred.py: its component arrives later in the browser.
    children = [getattr(component, "children", None), getattr(component, "deferred_child", None)]
    return find(children, component_id)


def walk(component: Any) -> Iterator[Any]:
    """Every component of a Dash component tree, depth first (a deferred holder's component,
    which arrives later in the browser, not included)."""
    if isinstance(component, list | tuple):
        for child in component:
            yield from walk(child)
        return
    if component is None or isinstance(component, str | int | float | bool):
        return
    yield component
    yield from walk(getattr(component, "children", None))


def url_params(dash_duo) -> dict[str, str]:
    """The query parameters of the page shown (the last value of each)."""
    return {k: v[-1] for k, v in parse_qs(urlparse(dash_duo.driver.current_url).query).items()}


def run_js(dash_duo, script: str, *args: Any) -> Any:
    return dash_duo.driver.execute_script(script, *args)


def click_option(dash_duo, container: str, label: str) -> None:
    """Click the option of a Dash 4 RadioItems / Checklist by its text."""
    dash_duo.driver.execute_script(
        "const [sel, text] = arguments; const option = Array.from(document.querySelectorAll("
        "sel + ' .dash-options-list-option')).find(o => o.textContent.trim() === text);"
        "option.click();",
        container,
        label,
    )


#: The rows of a name picker's list drawn in the page, in order (a list of 100 names or more
#: draws only those near the view; its sizer row, index -1, is no row), and the ticked ones.
_PICKER_ROWS = """
const rows = Array.from(document.querySelectorAll(
    '#' + arguments[0] + ' label[data-option-index]'))
  .filter(r => Number(r.getAttribute('data-option-index')) >= 0);
rows.sort((a, b) => a.getAttribute('data-option-index') - b.getAttribute('data-option-index'));
const name = r => r.querySelector('input').value;
return {rows: rows.map(name), ticked: rows.filter(r => r.querySelector('input').checked).map(name)};
"""


def picker_rows(dash_duo, list_id: str) -> dict[str, list[str]]:
    """The names a picker's list (web/components/tag_select.py) shows: ``rows``, in order,
    and the ``ticked`` ones among them."""
    return run_js(dash_duo, _PICKER_ROWS, list_id)


def picker_row(list_id: str, name: str) -> str:
    """The CSS selector of the name of ``name``'s row in a picker's list: a click on it ticks
    or unticks the row."""
    return (
        f'#{list_id} label[data-option-index]:not([data-option-index="-1"])'
        f':has(input[value="{name}"]) .dash-options-list-option-text'
    )


def bind_picker_url(
    app: dash.Dash, list_id: str, answer: Callable[[Any, str | None, str | None], object]
) -> None:
    """Bind a test page's URL writer for the picker ``list_id`` as the pages bind theirs:
    ``answer(rows, pattern, search)`` when the list, its filter or its all / none buttons
    change; a button's ``n_clicks`` set when it mounts is no click and changes nothing."""

    def to_url(
        rows: object, _all: object, _none: object, pattern: str | None, search: str | None
    ) -> object:
        if not ctx.triggered[0]["value"] and str(ctx.triggered_id).endswith(("-all", "-none")):
            return dash.no_update
        return answer(rows, pattern, search)

    app.callback(
        Output("url", "search"),
        *tag_select.picker_inputs(list_id),
        State("url", "search"),
        prevent_initial_call=True,
    )(to_url)


def tick_name(dash_duo, list_id: str, name: str) -> None:
    """Tick (or untick) ``name`` in a picker's list, as a user clicks its row's name."""
    dash_duo.find_element(picker_row(list_id, name)).click()


def choose(dash_duo, selector: str, label: str | None = None, index: int | None = None) -> None:
    """Choose the option of a menu (a ``SelectInput``, the browser's select) by its ``label``
    or its ``index``, as a user does."""
    menu = Select(dash_duo.find_element(selector))
    if index is not None:
        menu.select_by_index(index)
    else:
        menu.select_by_visible_text(str(label))


def press(dash_duo, selector: str, key: str, times: int = 1) -> None:
    """Send ``key`` to an element (a slider's thumb) ``times`` times."""
    element = dash_duo.find_element(selector)
    for _ in range(times):
        element.send_keys(key)


def type_into(dash_duo, selector: str, typed: str) -> None:
    """Type ``typed`` in a text box over what it holds, and press Enter (a comparison's step
    box)."""
    box = dash_duo.find_element(selector)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(typed, Keys.ENTER)


def first_paint_probe(card: str, preview: str, title: str, plot: str) -> str:
    """A script for ``Page.addScriptToEvaluateOnNewDocument`` that follows a page's first
    paint (``dash_insight/web/first_paint.py``) once per animation frame from the page's first
    one, in ``window.__paint``: ``previewFrames``, the frames the copy showed (not hidden)
    with a chart drawn (an element matching ``preview`` in its shadow root); ``titles``, the
    ``title`` of each ``card`` of the copy holding a preview; ``removed``, at the frame the
    copy was gone, the titles of the page's own cards on screen (``onScreen``) and how many of
    those held a drawn Plotly chart (``drawn``; ``plot`` selects it in a card); ``errors``,
    what the probe itself met."""
    return """
window.__paint = {previewFrames: 0, titles: [], removed: null, errors: []};
(function tick() {
 try {
  const paint = window.__paint;
  const overlay = document.getElementById('di-first-paint');
  // The copy as shown: it comes hidden until styled (assets/inline/first-paint-styles.js).
  const copy = overlay && !overlay.hidden && overlay.shadowRoot;
  const titleOf = card => (card.querySelector(%(title)s) || {}).textContent || '';
  if (copy && copy.querySelector(%(preview)s)) {
    paint.previewFrames += 1;
    paint.titles = Array.from(copy.querySelectorAll(%(card)s))
      .filter(card => card.querySelector(%(preview)s)).map(titleOf);
  }
  if (!overlay && paint.previewFrames && !paint.removed) {
    const cards = Array.from(document.querySelectorAll('#page ' + %(card)s)).filter(card => {
      const r = card.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    });
    paint.removed = {onScreen: cards.map(titleOf), drawn: cards.filter(card => {
      const chart = card.querySelector(%(plot)s);
      return Boolean(chart && chart._fullLayout);
    }).length};
  }
 } catch (error) {  // recorded, and the probe goes on
  window.__paint.errors.push(String(error));
 }
  window.requestAnimationFrame(tick);
})();
""" % {
        name: json.dumps(value)
        for name, value in {"card": card, "preview": preview, "title": title, "plot": plot}.items()
    }


def first_paint_handed_over(dash_duo: Any) -> dict[str, Any]:
    """``window.__paint`` of :func:`first_paint_probe` once the copy was shown and removed."""
    try:
        until(lambda: dash_duo.driver.execute_script("return window.__paint.removed;"))
    except TestingTimeoutError as error:
        paint = dash_duo.driver.execute_script("return window.__paint || null;")
        raise TestingTimeoutError(
            f"the first paint was never shown, or never removed: {paint}"
        ) from error
    return dash_duo.driver.execute_script("return window.__paint;")


#: Dash callbacks the page has sent to the server so far.
_POSTS = (
    "return performance.getEntriesByType('resource')"
    ".filter(e => e.name.includes('_dash-update-component')).length;"
)


def count_draws(dash_duo: Any, selector: str) -> None:
    """Once the Plotly chart ``selector`` is drawn and the page idle: count its draws from now
    on (see :func:`draws`)."""
    until(
        lambda: dash_duo.driver.execute_script(
            "const plot = document.querySelector(arguments[0]);"
            "return Boolean(plot && plot._fullLayout);",
            selector,
        ),
        30,
    )
    wait_idle(dash_duo)
    dash_duo.driver.execute_script(
        """
        const plot = document.querySelector(arguments[0]);
        plot.__draws = 0;
        plot.on('plotly_afterplot', () => { plot.__draws += 1; });
        window.__counted = plot;""",
        selector,
    )


def draws(dash_duo: Any, selector: str) -> int | None:
    """The draws of the chart ``selector`` since :func:`count_draws`; None when it is not the
    same element any more (drawn anew)."""
    return dash_duo.driver.execute_script(
        "const plot = document.querySelector(arguments[0]);"
        "return plot && plot === window.__counted ? plot.__draws : null;",
        selector,
    )


#: How often each Plotly chart of ``#page`` was drawn (Plotly's ``plotly_afterplot``), by its
#: graph's id, in ``window.__draws``: install it before the page's scripts with
#: :func:`count_chart_draws`.
_DRAWS_PROBE = """
window.__draws = {};
new MutationObserver(() => document.querySelectorAll("#page .js-plotly-plot").forEach(gd => {
  if (gd.__drawsCounted || !gd.on) return;
  gd.__drawsCounted = true;
  const id = gd.parentNode.id || gd.id;
  gd.on("plotly_afterplot", () => { window.__draws[id] = (window.__draws[id] || 0) + 1; });
})).observe(document, {subtree: true, childList: true, attributes: true,
                       attributeFilter: ["class"]});
// An SVG chart (assets/svg-chart.js) draws a new <svg> into its box each time.
new MutationObserver(records => records.forEach(record => record.addedNodes.forEach(node => {
  if (node.classList && node.classList.contains("di-svg") && record.target.id) {
    window.__draws[record.target.id] = (window.__draws[record.target.id] || 0) + 1;
  }
}))).observe(document, {subtree: true, childList: true});
"""


def count_chart_draws(dash_duo: Any) -> None:
    """Count every chart's draws (Plotly's and the SVG charts') in ``window.__draws`` from the
    next page load on."""
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _DRAWS_PROBE}
    )


#: Whether the element ``__ID__`` was ever inside a hidden container (``dcc.Loading`` with its
#: spinner shown hides its children), in ``window.__everHidden``: see :func:`watch_hidden`.
_HIDDEN_PROBE = """
window.__everHidden = false;
new MutationObserver(() => {
  for (let el = document.getElementById(__ID__); el; el = el.parentElement) {
    if (el.style && el.style.visibility === "hidden") window.__everHidden = true;
  }
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


def watch_hidden(dash_duo: Any, element_id: str) -> None:
    """From the next page load on, note in ``window.__everHidden`` whether the element
    ``element_id`` was ever inside a container hidden by its ``visibility`` style."""
    source = _HIDDEN_PROBE.replace("__ID__", json.dumps(element_id))
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})


def assert_cards_shown_at_once(
    dash_duo: Any, app: Any, url: str, cards_id: str, drawn: str
) -> None:
    """The page at ``url`` shows its cards (``cards_id``) at once: never inside a hidden
    container (dcc.Loading's spinner hides its children unless show_initially=False) up to
    when ``drawn`` (a selector of a drawn chart) is there and the page idle."""
    watch_hidden(dash_duo, cards_id)
    dash_duo.start_server(app)
    dash_duo.wait_for_page(dash_duo.server_url + url)
    dash_duo.wait_for_element(drawn, timeout=30)
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return window.__everHidden;") is False


def callbacks_sent(dash_duo: Any) -> int:
    """How many Dash callbacks the page has sent to the server since it was loaded."""
    return dash_duo.driver.execute_script(_POSTS)


def refresh(dash_duo: Any, callbacks: int = 2) -> None:
    """Click the top bar's Refresh, wait until at least ``callbacks`` of the callbacks it fires
    have answered and the page is idle."""
    sent = callbacks_sent(dash_duo)
    dash_duo.find_element("#refresh-now").click()
    until(lambda: callbacks_sent(dash_duo) >= sent + callbacks, 30)
    wait_idle(dash_duo)


def accept_language(dash_duo: Any, language: str) -> None:
    """What the browser sends as ``Accept-Language`` (as ``--lang`` / ``intl.accept_languages``
    would set it), through the DevTools protocol."""
    agent = dash_duo.driver.execute_script("return navigator.userAgent")
    dash_duo.driver.execute_cdp_cmd(
        "Network.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": language}
    )


#: Animation frames run and canvas draws made by the page, in ``window.__frames``: ``count``
#: and ``last`` (``performance.now()`` of the latest) of the ``requestAnimationFrame``
#: callbacks, and ``draws`` (WebGL ``drawArrays`` / ``drawElements`` and 2D ``fill`` /
#: ``stroke`` / ``drawImage`` calls). Install it before the page's scripts: :func:`watch_frames`.
_FRAMES_PROBE = """
window.__frames = {count: 0, last: 0, draws: 0};
const raf = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = function (callback) {
  return raf(time => {
    window.__frames.count += 1;
    window.__frames.last = performance.now();
    return callback(time);
  });
};
const countDraws = (proto, names) => {
  for (const name of proto ? names : []) {
    const draw = proto[name];
    proto[name] = function () { window.__frames.draws += 1; return draw.apply(this, arguments); };
  }
};
countDraws(window.WebGLRenderingContext && WebGLRenderingContext.prototype,
           ["drawArrays", "drawElements"]);
countDraws(window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype,
           ["fill", "stroke", "drawImage"]);
"""

#: How long a page must ask for no animation frame to count as idle (ms): a render loop that
#: polls asks for 60 a second.
FRAMES_QUIET_MS = 1000


def watch_frames(dash_duo: Any) -> None:
    """From the next page load on, count its animation frames and draws (``window.__frames``)."""
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _FRAMES_PROBE}
    )


def frames(dash_duo: Any) -> dict[str, float]:
    """``window.__frames`` of :func:`watch_frames`, with ``quiet``: ms since the last frame."""
    return dash_duo.driver.execute_script(
        "return Object.assign({quiet: performance.now() - window.__frames.last}, window.__frames);"
    )


def until_no_frames(dash_duo: Any) -> dict[str, float]:
    """Once the page has asked for no animation frame for :data:`FRAMES_QUIET_MS`: its
    :func:`frames`. A render loop that never idles fails here."""
    return until(
        lambda: (seen := frames(dash_duo))["quiet"] > FRAMES_QUIET_MS and seen,
        msg="the page kept asking for animation frames",
    )


#: The middle of an SVG chart's mark (client px, scrolled to), if it is the element drawn there.
_MARK_POINT = """
const mark = document.querySelector(
    `#${CSS.escape(arguments[0])} .di-svg-mark[data-series="${arguments[1]}"]` +
    `[data-point="${arguments[2]}"]`);
if (!mark) { return null; }
mark.scrollIntoView({block: "center"});
const box = mark.getBoundingClientRect();
const x = Math.round(box.left + box.width / 2), y = Math.round(box.top + box.height / 2);
return document.elementFromPoint(x, y) === mark ? [x, y] : null;"""


def hover_svg_mark(dash_duo: Any, chart_id: str, series: int, point: int) -> list[str]:
    """Move the pointer onto a mark of the SVG chart ``chart_id`` (assets/svg-chart.js: the
    ``point``-th of its ``series``-th series, or of a pie's slices with series 0); the lines
    of its tooltip once it shows."""
    where = until(lambda: dash_duo.driver.execute_script(_MARK_POINT, chart_id, series, point), 20)
    actions = ActionBuilder(dash_duo.driver)
    actions.pointer_action.move_to_location(*where)
    actions.perform()
    text = until(
        lambda: dash_duo.driver.execute_script(
            "const t = document.querySelector(`#${CSS.escape(arguments[0])} .di-svg-tooltip`);"
            "return t && !t.hidden ? t.innerText : null;",
            chart_id,
        ),
        10,
    )
    return str(text).splitlines()
