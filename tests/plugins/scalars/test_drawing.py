"""Issue 17 item 8 / issue 18 item 5 in the browser: the scalars page draws what is on screen
first, each chart when its own points arrive, at no more points than its plot's pixel width,
with compressed answers; a train_id spelt unencoded in the URL builds the page once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import first_paint_handed_over, first_paint_probe, picker_rows, run_js

TAGS = 24
STEPS = 3000

#: Counts, before any script of the page runs, every fetch of a chart's points and every
#: callback request of the page, by its outputs.
RECORDER = """
window.__requests = [];
window.__urls = [];
const originalFetch = window.fetch;
window.fetch = function (url, options) {
  const body = String((options && options.body) || '');
  if (body.startsWith('{')) {
    const request = JSON.parse(body);
    window.__requests.push(request.output + ' <- ' + (request.changedPropIds || []).join(' '));
  } else {
    window.__requests.push(String(url));
  }
  return originalFetch.apply(this, arguments);
};
const originalPush = window.history.pushState;
window.history.pushState = function (state, title, url) {
  window.__urls.push(String(url));
  return originalPush.apply(this, arguments);
};
"""


@pytest.fixture(scope="module")
def wide_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Job ``./many``: 24 tags of 3,000 steps (more steps than any chart has pixels)."""
    base = tmp_path_factory.mktemp("drawing")
    rng = np.random.default_rng(0)
    with SummaryWriter(base / "many", host="test", timestamp=1_700_000_000) as writer:
        for step in range(1, STEPS + 1):
            for i in range(TAGS):
                writer.add_scalar(
                    f"tag_{i:02d}", float(i + np.sin(step / 100) + rng.random() * 0.1), step
                )
    return base


@pytest.fixture
def wide_app(wide_base: Path, tmp_path: Path) -> Iterator:
    app = create_app(
        Settings(summary_base_dir=str(wide_base), workspace=str(tmp_path / "ws"), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    yield app
    app.data_service.close()


#: A screen that holds the page's head and the first rows of charts, not all 24 of them
#: (headless Chromium's default window, 800 x 600, shows the page's head only: no chart would
#: be on screen, none drawn until scrolled to).
WINDOW = (1280, 1100)


def _open(dash_duo, app, path: str) -> None:
    dash_duo.driver.set_window_size(*WINDOW)
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    dash_duo.start_server(app)
    dash_duo.wait_for_page(dash_duo.server_url + path)


def _cards(dash_duo) -> list[dict]:
    """Each chart card: its title, whether it is on screen, whether its chart is drawn, the
    points of its first line and the pixel width of its plot area."""
    return run_js(
        dash_duo,
        """
        return Array.from(document.querySelectorAll('.di-chart-card')).map(card => {
            const rect = card.getBoundingClientRect();
            const plot = card.querySelector('.js-plotly-plot');
            const drawn = Boolean(plot && plot.data && plot._fullLayout);
            return {title: card.querySelector('.di-chart-title').textContent,
                    onScreen: rect.bottom > 0 && rect.top < window.innerHeight,
                    below: rect.top - window.innerHeight,
                    held: card.hasAttribute('data-component'),
                    drawn, points: drawn ? plot.data[0].x.length : 0,
                    width: drawn ? plot._fullLayout._size.w : 0};
        });""",
    )


def _point_fetches(dash_duo) -> list[str]:
    return [
        r
        for r in run_js(dash_duo, "return window.__requests;")
        if "/v1/dash-insight/chart/scalar" in r
    ]


def _settled(dash_duo) -> bool:
    """No callback pending and no chart's points on their way."""
    return run_js(
        dash_duo,
        """
        const state = window.store && window.store.getState();
        if (!state) return false;
        const callbacks = state.callbacks || {};
        return ['requested', 'prioritized', 'blocked', 'executing', 'watched', 'executed']
            .every(name => !(callbacks[name] || []).length);""",
    )


def _on_screen_drawn(dash_duo) -> list[dict]:
    """The cards, once some are on screen (the picker's list filled: the grid's place is
    settled) and every one of those is drawn."""
    until(lambda: picker_rows(dash_duo, "scalar-tags")["rows"], 60)
    until(
        lambda: any(c["onScreen"] for c in _cards(dash_duo)),
        60,
        msg="no chart card on screen: the window is too small for this test",
    )
    until(lambda: all(c["drawn"] for c in _cards(dash_duo) if c["onScreen"]), 60)
    return _cards(dash_duo)


#: Waits three animation frames: a card the page would mount or a chart it would fetch after
#: those on screen are drawn is asked for by then (assets/deferred.js looks once a frame).
FRAMES = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));
"""


def test_charts_on_screen_first_and_the_others_when_scrolled_to(dash_duo, wide_app) -> None:
    """Issue 37 item 2: the first screen mounts and draws the cards it shows and nothing below
    it; once scrolled, the cards a few rows ahead (assets/graph-slots.js MARGIN_PX) are mounted
    and drawn before they show."""
    _open(dash_duo, wide_app, "/scalars?train_id=.%2Fmany")
    until(lambda: len(_cards(dash_duo)) == TAGS, 60)
    _on_screen_drawn(dash_duo)
    dash_duo.driver.execute_async_script(FRAMES)
    cards = _cards(dash_duo)
    below = [c for c in cards if not c["onScreen"]]
    assert below and all(c["held"] and not c["drawn"] for c in below)
    drawn = [c["title"] for c in cards if c["drawn"]]
    assert drawn == [c["title"] for c in cards if c["onScreen"]]
    assert len(_point_fetches(dash_duo)) == len(drawn)  # only what is drawn is read
    # Scrolled until the next card is 100 px below the window: it is filled and drawn unseen.
    run_js(dash_duo, f"window.scrollBy(0, {max(1, round(below[0]['below']) - 100)});")
    until(lambda: _cards(dash_duo)[len(drawn)]["drawn"], 60)
    ahead = _cards(dash_duo)[len(drawn)]
    assert ahead["title"] == below[0]["title"] and not ahead["onScreen"] and not ahead["held"]
    assert not _cards(dash_duo)[-1]["drawn"]  # the last rows wait until they are scrolled to
    # Every chart: at most one point per pixel column of its plot area (3,000 steps each).
    for card in cards:
        if card["drawn"]:
            assert 0 < card["points"] <= card["width"] < STEPS
    # Scrolled to the bottom: the last chart is fetched and drawn.
    run_js(dash_duo, "window.scrollTo(0, document.body.scrollHeight);")
    until(lambda: _cards(dash_duo)[-1]["drawn"], 60)
    last = _cards(dash_duo)[-1]
    assert last["title"] == f"tag_{TAGS - 1:02d}" and 0 < last["points"] <= last["width"]
    assert console_errors(dash_duo) == []


def test_answers_are_compressed(dash_duo, wide_app) -> None:
    """The browser asks for compressed answers (Accept-Encoding) and gets them: the points of
    each chart and the page's callback answers travel in fewer bytes than they decode to."""
    _open(dash_duo, wide_app, "/scalars?train_id=.%2Fmany")
    assert any(c["drawn"] for c in _on_screen_drawn(dash_duo))
    sizes = run_js(
        dash_duo,
        """
        return performance.getEntriesByType('resource')
            .filter(e => e.name.includes('/chart/scalar') || e.name.includes('_dash-layout'))
            .map(e => [e.name, e.encodedBodySize, e.decodedBodySize]);""",
    )
    assert any("/chart/scalar" in name for name, _, _ in sizes)
    for name, encoded, decoded in sizes:
        assert 0 < encoded < decoded / 2, name


def _grid_builds(dash_duo, path: str) -> tuple[list[str], list[str]]:
    """Open ``path`` and let it settle: (the inputs that made the grid callback run, except
    refresh ticks; the URLs of each chart's points fetched)."""
    dash_duo.driver.get("about:blank")
    dash_duo.wait_for_page(dash_duo.server_url + path)
    until(lambda: len(_cards(dash_duo)) == TAGS, 60)
    # Settled: the picker's list is filled (what rewrote the URL), the charts on screen are
    # drawn and nothing is pending.
    _on_screen_drawn(dash_duo)
    until(lambda: _settled(dash_duo), 60)
    builds = [
        r.split(" <- ")[1]
        for r in run_js(dash_duo, "return window.__requests;")
        if "scalar-grid.children" in r and "refresh-interval" not in r
    ]
    return builds, _point_fetches(dash_duo)


def test_an_unencoded_train_id_builds_the_page_once(dash_duo, wide_app) -> None:
    """``?train_id=./many`` as typed by hand builds the grid as often as ``.%2Fmany`` and reads
    each chart's points once (the URL was rewritten to ``.%2Fmany``, which ran the grid's
    callback, with all its points, a second time)."""
    _open(dash_duo, wide_app, "/scalars?train_id=.%2Fmany")
    encoded, _ = _grid_builds(dash_duo, "/scalars?train_id=.%2Fmany")
    typed, fetches = _grid_builds(dash_duo, "/scalars?train_id=./many")
    assert typed == encoded
    assert len(fetches) == len(set(fetches)) > 0  # no chart read twice
    assert console_errors(dash_duo) == []


#: The page's first paint, followed (tests/pages.py first_paint_probe).
PAINT_PROBE = first_paint_probe(
    ".di-chart-card", ".di-chart-preview path[stroke-width]", ".di-chart-title", ".js-plotly-plot"
)


def test_the_first_screen_is_painted_before_dash_and_handed_over_drawn(dash_duo, wide_app) -> None:
    """Issue 18 item 5: the page's answer paints its first row of charts (drawn by the server)
    before Dash starts; the copy lies over the page until the page's own charts on screen are
    drawn, so no frame shows an empty chart; the copy is invisible to the page's scripts."""
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": PAINT_PROBE}
    )
    _open(dash_duo, wide_app, "/scalars?train_id=.%2Fmany")
    paint = first_paint_handed_over(dash_duo)
    assert paint["previewFrames"] >= 1
    assert paint["titles"] == ["tag_00", "tag_01", "tag_02"]  # the first row
    removed = paint["removed"]
    assert removed["onScreen"] and removed["drawn"] == len(removed["onScreen"])
    # The page's scripts never saw the copy's elements (ids and classes are in a shadow root).
    assert len(_cards(dash_duo)) == TAGS
    assert console_errors(dash_duo) == []
