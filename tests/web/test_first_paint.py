"""Issue 18 item 5: a page's first screen as static HTML in the page's own answer, painted
before Dash starts (dash_insight/web/first_paint.py)."""

from __future__ import annotations

import importlib.resources
import inspect
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import dash_ag_grid as dag
import numpy as np
import pytest
from dash import dcc, html

from dash_insight import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.web import first_paint
from dash_insight.web.application import assets_folder
from dash_insight.web.components.histogram_views import band_fill, step_colours
from dash_insight.web.first_paint import Raw, css_text, static_html


def test_html_components_become_their_elements() -> None:
    tree = html.Div(
        [
            html.Span("a < b", title='say "hi"'),
            html.Br(),
            html.A("go", href="/x"),
            html.Img(src="/i.png"),
        ],
        className="box",
        id="root",
        style={"minHeight": 327, "opacity": 0.5, "marginTop": "4px"},
    )
    assert static_html(tree) == (
        '<div class="box" id="root" style="min-height:327px;opacity:0.5;margin-top:4px">'
        '<span title="say &quot;hi&quot;">a &lt; b</span><br><a href="/x">go</a>'
        '<img src="/i.png"></div>'
    )


def test_pattern_ids_are_written_as_dash_writes_them() -> None:
    div = html.Div(id={"type": "chart-card", "chart": "./a|loss"})
    assert static_html(div) == (
        '<div id="{&quot;chart&quot;:&quot;./a|loss&quot;,'
        '&quot;type&quot;:&quot;chart-card&quot;}"></div>'
    )


def test_dash_only_props_and_held_json_are_left_out() -> None:
    div = html.Div(
        "x", n_clicks=3, hidden=True, **{"data-component": "{" + "a" * 300 + "}", "data-batch": "3"}
    )
    assert static_html(div) == '<div hidden data-batch="3">x</div>'


def test_raw_markup_is_kept_as_it_is() -> None:
    assert (
        static_html(html.Div(Raw("<svg><path d='M0 0'/></svg>")))
        == "<div><svg><path d='M0 0'/></svg></div>"
    )


def test_core_controls_are_drawn_read_only() -> None:
    radios = static_html(
        dcc.RadioItems(
            id="axis",
            options=[{"label": "Step", "value": "s"}, {"label": "Time", "value": "t"}],
            value="t",
            inline=True,
            className="di-axis",
        )
    )
    assert radios.startswith('<div class="dash-options-list dash-radioitems di-axis" id="axis">')
    assert radios.count('type="radio"') == 2
    assert re.search(r"selected dash-radioitems-inline.*checked></span>.*<span>Time</span>", radios)
    assert "<span>Step</span>" in radios
    box = static_html(dcc.Input(id="n", type="number", value=0.0, className="di-number"))
    assert box == (
        '<div class="dash-input-container dash-input di-number">'
        '<input class="dash-input-element" readonly tabindex="-1" id="n" '
        'type="number" value="0"></div>'
    )
    empty = static_html(dcc.Dropdown(id="d", options=["a"], placeholder="pick one"))
    assert "dash-dropdown-placeholder" in empty and "pick one" in empty
    chosen = static_html(dcc.Dropdown(id="d", options=["a", "b"], value=["a", "b"], multi=True))
    assert '<span class="dash-dropdown-value">a, b</span>' in chosen
    slider = static_html(dcc.Slider(id="s", min=0, max=1, value=0.25))
    assert "right:75.0%" in slider and "dash-slider-thumb" in slider
    link = static_html(dcc.Link("Summary", href="/", className="di-brand"))
    assert link == '<a class="di-brand" href="/">Summary</a>'


def test_a_long_checklist_draws_its_first_rows_only() -> None:
    """A name picker of 10,000 tags: Dash draws a screenful of its rows, the copy its first
    rows, not 10,000 rows of HTML; a shorter list every row."""
    names = [f"t{i}" for i in range(10_000)]
    long = static_html(dcc.Checklist(id="c", options=names, value=names))
    assert long.count('type="checkbox"') == first_paint.LONG_LIST_SHOWN
    assert "<span>t0</span>" in long and "<span>t20</span>" not in long
    short = static_html(dcc.Checklist(id="c", options=names[:99], value=[]))
    assert short.count('type="checkbox"') == 99


def test_stores_and_timers_draw_nothing_other_components_keep_their_place() -> None:
    assert (
        static_html(
            html.Div([dcc.Store(id="s", data={"a": 1}), dcc.Location(id="u"), dcc.Interval(id="i")])
        )
        == "<div></div>"
    )
    grid = dag.AgGrid(id="g", className="di-grid", rowData=[{"a": 1}], style={"height": 240})
    assert static_html(grid) == '<div class="di-grid" id="g" style="height:240px"></div>'


def test_a_loading_wrapper_draws_its_children_as_dash_does_when_idle() -> None:
    """The per-tag pages' cards sit in a dcc.Loading: its children in a div."""
    assert (
        static_html(
            dcc.Loading(html.Div("x", id="cards"), type="dot", parent_style={"minHeight": 20})
        )
        == '<div style="min-height:20px"><div id="cards">x</div></div>'
    )


def test_css_text_writes_numbers_as_react_does() -> None:
    assert (
        css_text({"zIndex": 3, "width": 0, "height": 12.5, "display": None})
        == "z-index:3;width:0;height:12.5px"
    )


def _dash_scripts() -> tuple[str, str]:
    app = dash.Dash(__name__)
    app.layout = html.Div()
    app.clientside_callback(
        "function (a) { return a; }", dash.Output("x", "children"), dash.Input("y", "children")
    )
    with app.server.test_request_context("/"):
        return app._generate_scripts_html(), app._generate_renderer()


def _inline_scripts() -> first_paint.InlineScripts:
    inline = first_paint.read_inline_scripts(assets_folder())
    assert inline is not None
    return inline


def _painted_page(scripts: str, renderer: str) -> str | None:
    page = first_paint.IndexPage.read(_inline_scripts(), lambda: "<p>copy</p>")
    parts = dict.fromkeys(first_paint.DASH_PARTS, "")
    return page._painted({**parts, "scripts": scripts, "renderer": renderer})


def test_the_scripts_are_held_and_started_in_order_after_the_first_paint() -> None:
    scripts, renderer = _dash_scripts()
    held = _painted_page(scripts, renderer)
    assert held is not None
    template = re.search(r'<template id="di-dash-scripts">(.*)</template><script>', held, re.S)
    assert template and template.group(1) == scripts + renderer  # every tag, in Dash's order
    loader = held[template.end() - len("<script>") :]
    assert "requestAnimationFrame" in loader and "script.async = false" in loader
    assert held.count('<template id="di-dash-scripts">') == 1
    # each external script preloaded, in Dash's order
    sources = first_paint.external_scripts(scripts)
    assert sources and all(f'<link rel="preload" as="script" href="{s}">' in held for s in sources)


def test_scripts_it_does_not_know_are_left_as_dash_wrote_them() -> None:
    scripts, renderer = _dash_scripts()
    odd = scripts + '<script type="module" src="/x.js"></script>'
    assert first_paint.external_scripts(odd) is None
    assert _painted_page(odd, renderer) is None
    assert first_paint.external_scripts(scripts + "<div></div>") is None
    assert first_paint.external_scripts("") is None


def test_placeholders_are_filled_in_one_pass() -> None:
    """A value holding a placeholder's text (a tag named ``{%scripts%}``) is not filled."""
    assert first_paint.fill("<a>{%x%}</a>{%y%}{%z%}", {"x": "{%y%}", "y": "2"}) == (
        "<a>{%y%}</a>2{%z%}"
    )


def test_the_installed_dash_gives_what_the_first_paint_needs() -> None:
    """Fails when the installed Dash no longer provides the public hooks the pages are built
    through: ``interpolate_index`` with the parts it documents, called by the index;
    ``index_string`` checked for Dash's placeholders; the ``{%scripts%}`` part made of plain
    script tags (else every first paint would silently be dropped)."""
    parameters = list(inspect.signature(dash.Dash.interpolate_index).parameters)
    assert parameters == ["self", *first_paint.DASH_PARTS]
    assert isinstance(inspect.getattr_static(dash.Dash, "index_string"), property)
    app = dash.Dash(__name__)
    with pytest.raises(dash.exceptions.InvalidIndexException):
        app.index_string = "<html><body></body></html>"
    template = first_paint.read_template(first_paint.INDEX_TEMPLATE)
    app.index_string = template  # Dash accepts the template
    for name in first_paint.DASH_PARTS:
        assert "{%" + name + "%}" in template
        assert "{%" + name + "%}" in first_paint.read_template(first_paint.FIRST_PAINT_TEMPLATE)
    seen: dict[str, str] = {}

    class Recording(dash.Dash):
        def interpolate_index(self, **parts: str) -> str:
            seen.update(parts)
            return str(super().interpolate_index(**parts))

    recording = Recording(__name__)
    recording.layout = html.Div()
    assert recording.server.test_client().get("/").status_code == 200
    assert set(seen) == set(first_paint.DASH_PARTS)
    assert first_paint.external_scripts(seen["scripts"])  # plain tags, holdable
    assert 'id="_dash-renderer"' in seen["renderer"]


def test_the_installed_dash_draws_its_controls_as_the_templates_do() -> None:
    """Fails when the installed Dash no longer gives a component's namespace and type in its
    public JSON form, or no longer draws its controls with a class the copy's templates use
    (``web/templates/control-*.html``: the copy would then look unlike the page it covers)."""
    written = dcc.Slider(id="s", min=0, max=1).to_plotly_json()
    assert (written["namespace"], written["type"]) == ("dash_core_components", "Slider")
    assert html.Div().to_plotly_json()["namespace"] == "dash_html_components"
    scripts = "".join(
        entry.read_text(encoding="utf-8")
        for entry in importlib.resources.files("dash.dcc").iterdir()
        if entry.name.endswith(".js")
    )
    classes: set[str] = set()
    for name in first_paint.CONTROL_TEMPLATES:
        for value in re.findall(r'class="([^"{]*)', first_paint.control_template(name)):
            classes.update(value.split())
    assert len(classes) >= 15
    assert sorted(c for c in classes if c not in scripts) == []


def test_the_templates_hold_the_ids_the_inline_scripts_look_for() -> None:
    painted = first_paint.read_template(first_paint.FIRST_PAINT_TEMPLATE)
    assert f'<div id="{first_paint.OVERLAY_ID}"' in painted
    assert f'<template id="{first_paint.SCRIPTS_ID}">' in painted


def test_the_inline_scripts_name_the_elements_of_the_page() -> None:
    """assets/inline/ holds the first paint's inline scripts; they find the template and the
    copy by the ids this module writes."""
    inline = _inline_scripts()
    assert f'getElementById("{first_paint.SCRIPTS_ID}")' in inline.loader
    assert f'getElementById("{first_paint.OVERLAY_ID}")' in inline.adopt_styles
    assert "</script" not in inline.loader + inline.adopt_styles
    assert inline.csp_sources() == (
        first_paint.csp_hash(inline.loader),
        first_paint.csp_hash(inline.adopt_styles),
    )


def test_the_copy_is_hidden_until_styled_and_tells_the_loader_when_drawn() -> None:
    """The copy comes hidden (a frame drawn before its stylesheets were adopted laid it out
    unstyled); the styles' script shows it and, after the frame that draws it, sends the event
    the loader starts Dash's scripts on."""
    painted = first_paint.read_template(first_paint.FIRST_PAINT_TEMPLATE)
    host = re.search(rf'<div id="{first_paint.OVERLAY_ID}"[^>]*>', painted)
    assert host and " hidden " in host.group(0)
    inline = _inline_scripts()
    shown = inline.adopt_styles.index("copy.hidden = false")
    assert inline.adopt_styles.index("adoptedStyleSheets") < shown
    sent = inline.adopt_styles.index('new Event("di-painted")')
    assert inline.adopt_styles.index("requestAnimationFrame") < sent
    assert 'addEventListener("di-painted", start)' in inline.loader
    assert 'hasAttribute("data-painted")' in inline.loader
    assert 'setAttribute("data-painted", "")' in inline.adopt_styles


def test_a_page_without_its_inline_scripts_is_served_as_dash_serves_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=first_paint.LOG.name):
        assert first_paint.read_inline_scripts(str(tmp_path)) is None
    assert "without their first paint" in caplog.text


def test_csp_hash_is_the_base64_sha256_of_the_text() -> None:
    # echo -n "alert(1)" | openssl dgst -sha256 -binary | base64
    assert first_paint.csp_hash("alert(1)") == (
        "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"
    )


# The app's answers --------------------------------------------------------------------------


#: The ``./hist`` job: more histogram tags than the first row's cards.
HIST_TAGS, HIST_STEPS = 4, 6


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("first_paint")
    with SummaryWriter(base / "run", host="test", timestamp=1_700_000_000) as writer:
        for step in range(1, 2001):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.add_scalar("accuracy", 1 - 1.0 / step, step)
    rng = np.random.default_rng(0)
    with SummaryWriter(base / "hist", host="test", timestamp=1_700_000_000) as writer:
        for step in range(1, HIST_STEPS + 1):
            for i in range(HIST_TAGS):
                writer.add_histogram(f"layer{i}.weight", rng.standard_normal(500) * step, step)
    built = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert built.data_service.loader.wait_rounds(1, timeout=120)
    yield built
    built.data_service.close()


def _page(app: Any, url: str, **cookies: str) -> str:
    client = app.server.test_client()
    for name, value in cookies.items():
        client.set_cookie(name, value)
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_the_scalars_page_answer_holds_its_first_screen_and_holds_the_scripts(app: Any) -> None:
    page = _page(app, "/scalars?train_id=./run")
    overlay = re.search(
        r'<div id="di-first-paint"[^>]*><template shadowrootmode="open">'
        r"(.*?)</template></div>",
        page,
        re.S,
    )
    assert overlay, "no first paint"
    painted = overlay.group(1)
    # Styled by the page's stylesheets, adopted by its shadow root before the first paint.
    assert "adoptedStyleSheets" in page[overlay.end() : overlay.end() + 800]
    # Dash's scripts are fetched while the copy is painted.
    assert re.search(r'<link rel="preload" as="script" href="[^"]*dash_renderer', page)
    assert 'class="di-topbar"' in painted and "Scalars" in painted
    # The first row of charts drawn, with their lines; the other cards as frames.
    assert painted.count('class="di-chart-preview"') == 2  # the job has two tags
    assert painted.count('stroke-width="1.8"') == 2
    # At most PREVIEW_POINTS (each pixel column's extremes, as the browser's own charts).
    shown = [int(n) for n in re.findall(r"(\d+) of 2000 points drawn", painted)]
    assert len(shown) == 2 and all(300 < n <= 400 for n in shown)
    # Dash's scripts wait in a template; Dash's own checks of the index pass (it answered).
    assert re.search(r'<template id="di-dash-scripts"><script src="[^"]*react@', page)
    # The renderer's first requests are asked for from the head, before any script ran.
    head = page[: page.index("</head>")]
    for request in ("_dash-layout", "_dash-dependencies"):
        assert f'<link rel="preload" as="fetch" crossorigin="anonymous" href="/{request}">' in head
    assert page.index('id="di-first-paint"') < page.index('id="react-entry-point"')


def test_pages_without_a_first_paint_are_answered_as_dash_answers_them(app: Any) -> None:
    for url in ("/", "/lineage", "/images?train_id=./run", "/nowhere"):
        page = _page(app, url)
        assert "di-first-paint" not in page.replace("first-paint.js", "").replace(
            "first-paint.css", ""
        )
        assert "di-dash-scripts" not in page
        assert re.search(r'<script src="[^"]*dash_renderer[^"]*"></script>', page)


def test_a_job_that_does_not_exist_paints_its_message(app: Any) -> None:
    page = _page(app, "/scalars?train_id=./missing")
    assert "di-first-paint" in page and "di-chart-preview" not in page


def test_the_page_is_dark_from_its_first_paint_with_the_theme_cookie(app: Any) -> None:
    dark = _page(app, "/scalars?train_id=./run", di_theme="dark")
    assert re.search(r'<html lang="en" data-theme="dark"[ >]', dark)
    assert "#c9ced6" in dark  # the charts' dark text colour
    light = _page(app, "/scalars?train_id=./run")
    assert "data-theme" not in light.split(">", 2)[1]


def test_a_failing_first_paint_leaves_the_page_as_dash_starts_it(
    app: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from dash_insight.plugins.scalars import page as scalars_page

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(scalars_page, "chart_preview", broken)
    with caplog.at_level(logging.ERROR, logger="dash_insight.web.first_paint"):
        page = _page(app, "/scalars?train_id=./run")
    assert "di-dash-scripts" not in page
    assert re.search(r'<script src="[^"]*dash_renderer[^"]*"></script>', page)
    assert "first paint of /scalars?train_id=./run failed" in caplog.text


def test_behind_a_proxy_that_strips_a_prefix(tmp_path: Path) -> None:
    """JupyterHub's proxy: the server sees ``/scalars``, the browser has
    ``/user/a/proxy/8050/scalars``; the first paint's links and stylesheets carry the
    browser's prefix."""
    base = tmp_path / "logs"
    with SummaryWriter(base / "run", host="test", timestamp=1_700_000_000) as writer:
        writer.add_scalar("loss", 1.0, 1)
        writer.add_scalar("loss", 0.5, 2)
    prefixed = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0),
        requests_pathname_prefix="/user/a/proxy/8050/",
    )
    try:
        assert prefixed.data_service.loader.wait_rounds(1, timeout=120)
        page = _page(prefixed, "/scalars?train_id=./run")
        painted = re.search(r'<template shadowrootmode="open">(.*?)</template>', page, re.S)
        assert painted and "di-chart-preview" in painted.group(1)
        assert re.search(r'<link rel="preload" as="script" href="/user/a/proxy/8050/', page)
        assert 'class="di-brand" href="/user/a/proxy/8050/"' in painted.group(1)
    finally:
        prefixed.data_service.close()


def _painted(page: str) -> str:
    overlay = re.search(
        r'<div id="di-first-paint"[^>]*><template shadowrootmode="open">'
        r"(.*?)</template></div>",
        page,
        re.S,
    )
    assert overlay, "no first paint"
    return overlay.group(1)


def _card_bands(painted: str) -> list[list[str]]:
    """The fills of the bands drawn in each card of the copy, card by card."""
    cards = re.split(r'<section class="di-panel di-card di-vp-card"', painted)[1:]
    return [re.findall(r'<path d="M[^"]*" fill="([^"]*)" stroke=', card) for card in cards]


def test_the_distribution_page_answer_holds_its_first_row_drawn(app: Any) -> None:
    """The parameter distribution page paints its first row of charts (the Top view's bands
    drawn by the server) before Dash starts; the other cards keep their places, empty; no
    figure is sent in the copy."""
    page = _page(app, "/histograms?train_id=./hist")
    painted = _painted(page)
    assert "Parameter Distribution" in painted and 'class="di-vp-grid"' in painted
    colours = step_colours(HIST_STEPS)
    assert _card_bands(painted) == [[band_fill(c, "light") for c in colours]] * 3 + [[]]
    assert painted.count('class="di-hist-preview"') == 3
    for tag in range(HIST_TAGS):
        assert f'title="layer{tag}.weight"' in painted
    assert "lazy-graph-figure" not in painted and '"figure"' not in painted
    assert re.search(r'<template id="di-dash-scripts"><script src="[^"]*react@', page)
    # The renderer's first requests are asked for from the head, before any script ran.
    head = page[: page.index("</head>")]
    for request in ("_dash-layout", "_dash-dependencies"):
        assert f'<link rel="preload" as="fetch" crossorigin="anonymous" href="/{request}">' in head


def test_the_distribution_page_paints_its_view_and_theme(app: Any) -> None:
    front = _painted(_page(app, "/histograms?train_id=./hist&view=front"))
    assert front.count('fill="none" stroke="rgb(') == 3 * HIST_STEPS  # a line per step
    assert ">count</span>" in front
    dark = _painted(_page(app, "/histograms?train_id=./hist", di_theme="dark"))
    assert _card_bands(dark)[0] == [band_fill(c, "dark") for c in step_colours(HIST_STEPS)]


def test_a_job_without_histograms_paints_its_message(app: Any) -> None:
    painted = _painted(_page(app, "/histograms?train_id=./run"))
    assert "no parameter distribution" in painted and "di-hist-preview" not in painted
