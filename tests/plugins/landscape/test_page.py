"""The landscape pages: state helpers, figures, and in a browser the dashboard card, the analysis
page (three views, intervals, colour scale) and the comparison tab (tile and overlay).

One app per module serves a copy of ``../shared/corpus-landscape`` plus ``lenet_epoch`` (written
with our SummaryWriter: unit epoch, overlapping intervals, no final landscape, no lineage) and a
job without landscapes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

from dash_insight import SummaryWriter
from dash_insight.core import i18n
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.landscape import compare_page, page
from dash_insight.plugins.landscape.figures import (
    DEFAULT_STYLE,
    Style,
    colour_values,
    contour_levels,
    landscape_figure,
    overlay_figure,
    style_from,
    style_params,
)
from dash_insight.plugins.landscape.query import Grid, LossPath, interval_id
from dash_insight.plugins.landscape.service import LandscapeService
from dash_insight.web.components.run_colours import run_colour
from tests.browser import point_until, until, wait_idle
from tests.conftest import CORPUS, console_errors
from tests.pages import (
    choose,
    count_chart_draws,
    count_draws,
    draws,
    frames,
    refresh,
    tick_name,
    until_no_frames,
    url_params,
    watch_frames,
)
from tests.plugins.landscape.test_rest import write_epoch_job
from tests.web.test_i18n_pages import VISIBLE_TEXTS, english_messages, untranslated

LANDSCAPE_CORPUS = CORPUS.parent / "corpus-landscape"
STEP_JOB, EPOCH_JOB = "./lenet_step", "./lenet_epoch"
GRAPH_DATA = "return document.querySelector('#{} .js-plotly-plot').data"


# --- helpers without a browser ---------------------------------------------------------------


def test_style_from_url_repairs_bad_values() -> None:
    assert style_from({}) == DEFAULT_STYLE
    style = style_from(
        {
            "scale": "Viridis",
            "levels": "500",
            "path_width": "x",
            "opacity": "0",
            "path_colour": "#FF0000",
            "log": "1",
        }
    )
    assert style == Style("viridis", 30, "#ff0000", 5, 0.1, True)
    assert style_from({"scale": "nope", "path_colour": "pink"}) == DEFAULT_STYLE
    assert style_params(DEFAULT_STYLE) == dict.fromkeys(style_params(DEFAULT_STYLE))
    assert style_params(style)["levels"] == "30" and style_params(style)["log"] == "1"


def test_colour_values_and_levels() -> None:
    z = np.array([[1.0, 10.0], [100.0, 1000.0]])
    assert colour_values(z, False)[0] is z
    logged, title = colour_values(z, True)
    assert logged.tolist() == [[0.0, 1.0], [2.0, 3.0]] and title == "log10(loss)"
    shifted, title = colour_values(np.array([[-1.0, 0.0], [1.0, 2.0]]), True)
    assert title == "log10(loss - min)" and np.isfinite(shifted).all()
    levels = contour_levels(np.array([0.0, 11.0]), 10)
    assert levels is not None and levels["size"] == 1.0 and levels["start"] == 1.0
    assert contour_levels(np.array([2.0, 2.0]), 10) is None  # flat: plotly picks


def _grid(n: int = 5) -> tuple[Grid, LossPath]:
    x, y = np.linspace(-1, 1, n), np.linspace(-2, 2, n + 1)
    z = 2 + np.add.outer(y**2, x**2)
    path = LossPath(np.array([-1.0, 0.0]), np.array([-2.0, 0.0]), np.array([7.0, 2.0]), (3, 4))
    return Grid(x, y, z), path


def test_figures_draw_the_path_on_every_view() -> None:
    cells, path = _grid()
    surface = landscape_figure(cells, path, "3d", DEFAULT_STYLE)
    assert [t.type for t in surface.data] == ["surface", "scatter3d", "scatter3d", "scatter3d"]
    assert list(surface.data[1].z) == [7.0, 2.0]  # the path at its own loss values
    assert list(surface.data[2].text) == ["Start", "End"]
    assert len(surface.frames) == 2 and surface.frames[1].traces == (3,)
    assert surface.layout.updatemenus[0].buttons[0].label == "▶ Play the path"
    # Readable in both themes (issue 38 item 9): no walls (Plotly's are an opaque light grey);
    # "Play the path" in the accent colour, white text (it looked disabled).
    for axis in ("xaxis", "yaxis", "zaxis"):
        assert surface.layout.scene[axis].showbackground is False
    play = surface.layout.updatemenus[0]
    assert play.bgcolor == "#00a5a7" and play.font.color == "#ffffff"
    lines = landscape_figure(cells, path, "contour", DEFAULT_STYLE)
    assert lines.data[0].contours.coloring == "lines" and lines.data[0].z.shape == (6, 5)
    filled = landscape_figure(
        cells, None, "filled", Style(log_colour=True), convergence=[0.0, 0.0, 2.0]
    )
    assert filled.data[0].contours.coloring == "fill" and filled.data[0].text.shape == (6, 5)
    assert filled.data[1].name == "Model Convergence Point" and not filled.frames
    # the hover names the loss once: no name box without a run's name
    assert surface.data[0].hovertemplate.endswith("<extra></extra>")
    assert filled.data[0].hovertemplate.endswith("<extra></extra>")
    both = overlay_figure(
        [("a", cells, [0, 0, 2]), ("b", cells, [0, 0, 2])], "contour", DEFAULT_STYLE
    )
    assert [t.type for t in both.data] == ["contour", "scatter"] * 2
    assert both.layout.coloraxis.cmin == cells.z.min() and both.data[2].xaxis == "x2"


def test_chooser_and_info_rows(tmp_path: Path) -> None:
    write_epoch_job(tmp_path / "e")
    app = create_app(
        Settings(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws"), reload_interval=0),
        start_loader=False,
    )
    app.data_service.loader.load_round()
    service = LandscapeService(app.data_service.provider)
    landscapes = service.landscapes("./e")
    # The URL names an interval by its steps (issue 38 item 9: it was an opaque hash).
    assert page.chooser_options(landscapes) == [
        {"label": "1-3", "value": "1-3"},
        {"label": "3-5", "value": "3-5"},
    ]
    assert page.chosen_ref(landscapes, "final").intervals == (1, 2, 3)  # no final: the first
    assert page.chosen_ref(landscapes, interval_id([3, 4, 5])).intervals == (3, 4, 5)  # old link
    choice = page.resolve(service, "./e", {"interval": "3-5", "view": "x"})
    assert choice.ref.intervals == (3, 4, 5) and choice.view == "3d"
    assert choice.loss_tag == "loss/auto"
    rendered = page.render(service, "./e", choice)
    shapes = rendered.steps.layout.shapes
    assert (shapes[0].x0, shapes[0].x1) == (12, 20)  # epochs 3-5, 4 steps per epoch
    assert rendered.unit == "Unit: epoch"
    rows = dict(
        page.info_rows({"decomposition": "PCA", "unit": "epoch", "step_per_epoch": 4}, "10x10x10")
    )
    assert rows["Network"] == "--" and rows["Step/Epoch"] == "4/1"
    final = compare_page.job_final(service, "./e")
    assert final.cells is None and final.problem == str(compare_page.NOT_EXIST_TEXT)
    app.data_service.close()


# --- in a browser ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def landscape_app(tmp_path_factory: pytest.TempPathFactory):
    if not LANDSCAPE_CORPUS.is_dir():
        pytest.skip(f"landscape corpus not found at {LANDSCAPE_CORPUS}")
    base = tmp_path_factory.mktemp("landscapes") / "base"
    shutil.copytree(LANDSCAPE_CORPUS, base)
    write_epoch_job(base / "lenet_epoch")
    with SummaryWriter(base / "plain") as writer:
        writer.add_scalar("loss", 1.0, step=1)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def _data(dash_duo: Any, graph_id: str) -> list[dict]:
    return dash_duo.driver.execute_script(
        f"const gd = document.querySelector('#{graph_id} .js-plotly-plot');"
        "return gd && gd.data ? gd.data.map(t => ({type: t.type, colorscale: t.colorscale, "
        "coloring: t.contours ? t.contours.coloring : null, name: t.name})) : null;"
    )


def _params(dash_duo: Any) -> dict[str, str]:
    query = urlparse(dash_duo.driver.current_url).query
    return {k: v[-1] for k, v in parse_qs(query).items()}


def _first_colour(dash_duo: Any, graph_id: str) -> str | None:
    """The lowest colour of the first trace's scale (plotly writes named scales out)."""
    data = _data(dash_duo, graph_id) or [{}]
    scale = data[0].get("colorscale")
    return scale[0][1] if isinstance(scale, list) and scale else None


def _trace_types(dash_duo: Any, graph_id: str) -> list[str]:
    data = _data(dash_duo, graph_id) or []
    return [t["type"] for t in data]


def test_card_opens_the_page_views_intervals_colours(dash_duo: Any, landscape_app: Any) -> None:
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/dashboard?train_id={STEP_JOB}")
    dash_duo.wait_for_element("#card-landscape #landscape-card-graph .js-plotly-plot", timeout=30)
    assert "2-16" in dash_duo.find_element("#card-landscape").text
    until(
        lambda: _trace_types(dash_duo, "landscape-card-graph")[:2] == ["surface", "scatter3d"], 30
    )
    dash_duo.find_element("#card-landscape .di-card-head a").click()
    until(lambda: urlparse(dash_duo.driver.current_url).path == page.PATH, 30)
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    dash_duo.wait_for_contains_text("#ls-info", "Network: LeNet5", timeout=30)
    dash_duo.wait_for_contains_text("#ls-info", "Learning Rate: 5.000000e-02", timeout=30)
    dash_duo.wait_for_contains_text("#ls-info", "Sampling Point resolution: 12x12x12", timeout=30)
    dash_duo.wait_for_contains_text("#ls-unit", "Unit: step", timeout=30)
    shaded = (
        "return document.querySelector('#ls-steps .js-plotly-plot').layout.shapes"
        ".map(s => [s.x0, s.x1])"
    )
    until(lambda: dash_duo.driver.execute_script(shaded) == [[2, 16]], 30)

    # the three views
    for label, coloring in (("Isoline Map", "lines"), ("Topographic Map", "fill")):
        view = "contour" if coloring == "lines" else "filled"
        dash_duo.find_element(f"#ls-view input[value='{view}']").click()
        until(lambda c=coloring: (_data(dash_duo, "ls-graph") or [{}])[0].get("coloring") == c, 15)
        assert label in dash_duo.find_element("#ls-view").text
    assert _params(dash_duo)["view"] == "filled"
    assert _trace_types(dash_duo, "ls-graph")[1:] == ["scatter"] * 3  # path, ends, marker
    dash_duo.find_element("#ls-view input[value='3d']").click()
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    assert "view" not in _params(dash_duo)

    # the second interval: the URL names it, the chart shades it
    choose(dash_duo, "#ls-interval", "18-32")
    until(lambda: _params(dash_duo).get("interval") == "18-32", 30)
    until(lambda: dash_duo.driver.execute_script(shaded) == [[18, 32]], 30)

    # the colour scale
    choose(dash_duo, "#ls-scale", "Viridis")
    until(lambda: _first_colour(dash_duo, "ls-graph") == "#440154", 30)  # viridis
    assert _params(dash_duo)["scale"] == "viridis"
    dash_duo.find_element("#ls-settings-reset").click()
    until(lambda: _first_colour(dash_duo, "ls-graph") == "rgb(0,0,131)", 30)  # jet
    assert "scale" not in _params(dash_duo)

    # play the path: plotly's animation moves the marker to the end point
    dash_duo.driver.execute_script(  # below the sticky top bar, then a real click
        "document.querySelector('#ls-graph .updatemenu-button').scrollIntoView({block: 'center'})"
    )
    dash_duo.find_element("#ls-graph .updatemenu-button").click()
    full = "const d = document.querySelector('#ls-graph .js-plotly-plot')._fullData;"
    end = dash_duo.driver.execute_script(full + "const x = d[1].x; return x[x.length - 1];")
    start = dash_duo.driver.execute_script(full + "return d[1].x[0];")
    marker = full + "return d[d.length - 1].x[0];"
    assert end != start
    until(lambda: dash_duo.driver.execute_script(marker) == end, 30)

    # reset view: a turned camera goes back to the starting one
    camera = (
        "return document.querySelector('#ls-graph .js-plotly-plot')._fullLayout.scene.camera.eye.x"
    )
    dash_duo.driver.execute_script(
        "Plotly.relayout(document.querySelector('#ls-graph .js-plotly-plot'),"
        " {'scene.camera.eye': {x: 0.2, y: 0.2, z: 2.5}})"
    )
    until(lambda: dash_duo.driver.execute_script(camera) == 0.2, 15)
    dash_duo.driver.execute_script(
        "document.getElementById('ls-reset-view').scrollIntoView({block: 'center'})"
    )
    dash_duo.find_element("#ls-reset-view").click()
    until(lambda: dash_duo.driver.execute_script(camera) == 1.5, 15)
    assert console_errors(dash_duo) == []


def test_the_page_draws_each_chart_once(dash_duo: Any, landscape_app: Any) -> None:
    """The landscape and the steps chart come with the layout: each is drawn once, as itself
    (a callback at load sent them after a "Loading…" placeholder had been drawn in each). The
    page's plotly.js build (contours and the 3D scene only) draws the other views too."""
    count_chart_draws(dash_duo)
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id={STEP_JOB}")
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    dash_duo.wait_for_element("#ls-steps .main-svg", timeout=30)
    wait_idle(dash_duo)
    assert dash_duo.driver.execute_script("return window.__draws;") == {
        "ls-graph": 1,
        "ls-steps": 1,
    }
    assert "Unit: step" in dash_duo.find_element("#ls-unit").text
    scripts = "return Array.from(document.scripts).map(s => s.src).join(' ')"
    assert "plotly-gl3d.min.js" in dash_duo.driver.execute_script(scripts)
    dash_duo.find_element("#ls-view input[value='filled']").click()
    dash_duo.wait_for_element("#ls-graph .contourlayer path", timeout=30)
    assert _trace_types(dash_duo, "ls-graph") == ["contour", "scatter", "scatter", "scatter"]
    assert console_errors(dash_duo) == []


SCENE_CANVAS = "#ls-graph .gl-container canvas"
#: Where the scene's camera is, as drawn: the 3D scene's own camera (the layout's copy follows
#: it only when Plotly's relayout handler reads it, which a wheel event may run before the
#: camera's next frame has moved).
EYE = (
    "const scene = document.querySelector('#ls-graph .js-plotly-plot')._fullLayout.scene;"
    "return scene._scene.getCamera().eye;"
)


def test_the_3d_scene_idles_and_still_turns_zooms_and_hovers(
    dash_duo: Any, landscape_app: Any
) -> None:
    """Once drawn, the 3D scene asks for no animation frame (gl-plot3d's loop asked for 60 a
    second to find nothing changed: scripts/patch_plotly_bundle.py); a drag still turns it,
    the wheel still zooms, the pointer still shows the hover, each drawn at once, and it idles
    again after each."""
    watch_frames(dash_duo)
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id={STEP_JOB}")
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    wait_idle(dash_duo)
    drawn = until_no_frames(dash_duo)["draws"]
    assert drawn > 0
    canvas = dash_duo.find_element(SCENE_CANVAS)
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    eye = dash_duo.driver.execute_script(EYE)

    ActionChains(dash_duo.driver).move_to_element(canvas).click_and_hold().move_by_offset(
        40, 0
    ).move_by_offset(40, 10).release().perform()
    until(lambda: dash_duo.driver.execute_script(EYE) != eye, 15)
    turned = until_no_frames(dash_duo)["draws"]
    assert turned > drawn

    eye = dash_duo.driver.execute_script(EYE)
    ActionChains(dash_duo.driver).scroll_from_origin(
        ScrollOrigin.from_element(canvas), 0, 300
    ).perform()
    until(lambda: dash_duo.driver.execute_script(EYE) != eye, 15)
    zoomed = until_no_frames(dash_duo)["draws"]
    assert zoomed > turned

    hover = "return document.querySelectorAll('#ls-graph .hovertext').length"
    point_until(dash_duo, SCENE_CANVAS, lambda: dash_duo.driver.execute_script(hover) > 0)
    assert frames(dash_duo)["draws"] > zoomed
    until_no_frames(dash_duo)
    assert console_errors(dash_duo) == []


#: The times (``performance.now()``) the 3D scene's canvas was cleared to draw a frame on screen
#: (the default framebuffer; its pick and transparency passes draw into framebuffers of their
#: own), in ``window.__sceneFrames``, and how many times its picking buffers were read back
#: (``readPixels``), in ``window.__scenePickReads``. Install it before the page's scripts.
_SCENE_FRAMES_PROBE = """
window.__sceneFrames = [];
window.__scenePickReads = 0;
for (const proto of [WebGLRenderingContext.prototype, WebGL2RenderingContext.prototype]) {
  const bind = proto.bindFramebuffer, clear = proto.clear, read = proto.readPixels;
  proto.readPixels = function () {
    if (this.canvas.closest && this.canvas.closest("#ls-graph")) window.__scenePickReads += 1;
    return read.apply(this, arguments);
  };
  proto.bindFramebuffer = function (target, framebuffer) {
    this.__framebuffer = framebuffer;
    return bind.apply(this, arguments);
  };
  proto.clear = function (mask) {
    if (!this.__framebuffer && (mask & this.COLOR_BUFFER_BIT) &&
        this.canvas.closest && this.canvas.closest("#ls-graph")) {
      window.__sceneFrames.push(performance.now());
    }
    return clear.apply(this, arguments);
  };
}
"""


def test_the_3d_scene_is_drawn_once_at_load(dash_duo: Any, landscape_app: Any) -> None:
    """The scene's first screen is one frame: Plotly's camera, made in orbit mode and then set
    to turntable with z up, no longer turns for 500 ms to the view it already shows
    (scripts/patch_plotly_bundle.py turntable_settled), which drew it two more times (each
    150-500 ms of CPU where the GPU is SwiftShader), and no picking pass is drawn or read
    before a pointer comes (lazy_pick); the first pointer on the scene shows its hover, and a
    drag still turns it."""
    dash_duo.driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _SCENE_FRAMES_PROBE}
    )
    watch_frames(dash_duo)
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id={STEP_JOB}")
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    wait_idle(dash_duo)
    until_no_frames(dash_duo)
    scene_frames = "return window.__sceneFrames.length"
    assert dash_duo.driver.execute_script(scene_frames) == 1
    assert dash_duo.driver.execute_script("return window.__scenePickReads") == 0
    assert dash_duo.driver.execute_script(
        "const s = document.querySelector('#ls-graph .js-plotly-plot')._fullLayout.scene;"
        "return [s.dragmode, s._scene.camera.mode];"
    ) == ["turntable", "turntable"]

    hover = "return document.querySelectorAll('#ls-graph .hovertext').length"
    point_until(dash_duo, SCENE_CANVAS, lambda: dash_duo.driver.execute_script(hover) > 0)
    assert dash_duo.driver.execute_script("return window.__scenePickReads") > 0

    canvas = dash_duo.find_element(SCENE_CANVAS)
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    eye = dash_duo.driver.execute_script(EYE)
    ActionChains(dash_duo.driver).move_to_element(canvas).click_and_hold().move_by_offset(
        60, 0
    ).release().perform()
    until(lambda: dash_duo.driver.execute_script(EYE) != eye, 15)
    until_no_frames(dash_duo)
    assert dash_duo.driver.execute_script(scene_frames) > 1
    assert console_errors(dash_duo) == []


#: The PNG button's export as it would be downloaded: Plotly.downloadImage replaced by
#: Plotly.toImage of the same figure, the image's size and the figure's in ``window.__png``.
SEE_THE_PNG = """
window.__png = null;
Plotly.downloadImage = (figure, options) => Plotly.toImage(figure, options).then(url => {
  const image = new Image();
  image.onload = () => {
    window.__png = [image.width, image.height, figure.layout.width, figure.layout.height,
                    figure.config.plotGlPixelRatio, options.scale];
  };
  image.src = url;
});
"""


def test_the_3d_scene_is_drawn_at_the_screen_pixel_ratio_and_exported_at_the_png_size(
    dash_duo: Any, landscape_app: Any
) -> None:
    """The scene's canvas has the screen's pixels (Plotly's default ratio of 2 shaded four
    times the pixels of a 1x screen); the page's PNG button exports the view at twice the
    chart's size, its scene drawn at that size; Plotly's own image button, which would draw
    it at the screen's, is not in the mode bar."""
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id={STEP_JOB}")
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    dash_duo.wait_for_element(SCENE_CANVAS, timeout=30)
    width, shown_width, ratio = dash_duo.driver.execute_script(
        f"const c = document.querySelector('{SCENE_CANVAS}');"
        "return [c.width, c.clientWidth, window.devicePixelRatio];"
    )
    assert shown_width > 300 and width == round(shown_width * ratio)
    buttons = (
        "return [...document.querySelectorAll('#ls-graph .modebar-btn')].map(b => b.dataset.title)"
    )
    titles = dash_duo.driver.execute_script(buttons)
    assert "Reset camera to default" in titles and not any("png" in t for t in titles)

    dash_duo.driver.execute_script(SEE_THE_PNG)
    dash_duo.find_element("#ls-download").click()
    until(lambda: dash_duo.driver.execute_script("return window.__png;") is not None, 30)
    image_w, image_h, chart_w, chart_h, gl_ratio, scale = dash_duo.driver.execute_script(
        "return window.__png;"
    )
    assert (gl_ratio, scale) == (2, 2) and chart_w > 300 and chart_h > 300
    assert (image_w, image_h) == (2 * chart_w, 2 * chart_h)
    assert console_errors(dash_duo) == []


#: Every WebGL program the page links, as the ids of its two shaders and the attribute
#: locations bound (none: gl-shader links it only to read the shaders), in ``window.__links``.
LINKS = """
window.__links = [];
const gl = WebGLRenderingContext.prototype, ids = new WeakMap();
let shaders = 0;
const create = gl.createProgram, attach = gl.attachShader, bind = gl.bindAttribLocation;
const link = gl.linkProgram;
gl.createProgram = function () {
  const program = create.apply(this, arguments);
  if (program) Object.assign(program, {probeShaders: [], probeBound: []});
  return program;
};
gl.attachShader = function (program, shader) {
  if (!ids.has(shader)) ids.set(shader, ++shaders);
  program.probeShaders.push(ids.get(shader));
  return attach.apply(this, arguments);
};
gl.bindAttribLocation = function (program, location, name) {
  program.probeBound.push(name + "@" + location);
  return bind.apply(this, arguments);
};
gl.linkProgram = function (program) {
  window.__links.push(program.probeShaders.join("+") + " " + program.probeBound.join(","));
  return link.apply(this, arguments);
};
"""


def test_the_3d_scene_links_each_program_once(dash_duo: Any, landscape_app: Any) -> None:
    """gl-shader linked a throwaway program to read each shader object's uniforms and
    attributes, and the program it draws with as soon as it made the shader, which the point
    clouds and lines dropped at once, moving their attributes: the page linked 64 programs.
    Now (scripts/patch_plotly_bundle.py) no program is linked twice, the throwaway ones only
    where the attributes are unknown, each pair of shaders once, and the rest when first drawn
    with; the scene drawn as before (the other tests of this page)."""
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LINKS})
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id={STEP_JOB}")
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    dash_duo.wait_for_element(SCENE_CANVAS, timeout=30)
    wait_idle(dash_duo)
    links = dash_duo.driver.execute_script("return window.__links;")
    probes = [link for link in links if link.endswith(" ")]
    assert len(links) == len(set(links)), sorted(links)
    assert 6 < len(links) < 20 and len(probes) <= 2, sorted(links)


def test_epoch_job_and_jobs_without_landscapes(dash_duo: Any, landscape_app: Any) -> None:
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id={EPOCH_JOB}")
    until(lambda: _trace_types(dash_duo, "ls-graph")[:1] == ["surface"], 30)
    dash_duo.wait_for_contains_text("#ls-unit", "Unit: epoch", timeout=30)
    shaded = (
        "return document.querySelector('#ls-steps .js-plotly-plot').layout.shapes"
        ".map(s => [s.x0, s.x1])"
    )
    until(lambda: dash_duo.driver.execute_script(shaded) == [[4, 12]], 30)  # epochs 1-3
    choose(dash_duo, "#ls-interval", "3-5")
    until(lambda: dash_duo.driver.execute_script(shaded) == [[12, 20]], 30)
    dash_duo.wait_for_contains_text("#ls-info", "Network: --", timeout=30)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/dashboard?train_id=./plain")
    dash_duo.wait_for_contains_text("#card-landscape", "No loss landscape", timeout=30)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id=./plain")
    dash_duo.wait_for_contains_text("#ls-empty", "no loss landscape", timeout=30)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{page.PATH}?train_id=./nope")
    dash_duo.wait_for_contains_text(".di-empty", "nope", timeout=30)
    assert console_errors(dash_duo) == []


def _rgb(colour: str) -> str:
    """``#rrggbb`` as the browser writes a style's colour."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_compare_tile_and_overlay(dash_duo: Any, landscape_app: Any) -> None:
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}/compare")
    dash_duo.wait_for_element("#compare-tab-compare-landscape", timeout=30).click()
    until(lambda: urlparse(dash_duo.driver.current_url).path == compare_page.PATH, 30)
    dash_duo.wait_for_element("#lc-tiles", timeout=30)
    active = dash_duo.find_element("#compare-tabs .active")
    assert active.text == "Loss Graph Comparison"
    # Read in one script: the tiles are drawn again as the page settles (a stale element).
    tiles = (
        "const out = {}; document.querySelectorAll('#lc-tiles .di-lc-card').forEach(c => {"
        " out[c.querySelector('.di-card-head').textContent] = c.innerText; }); return out;"
    )
    until(lambda: set(dash_duo.driver.execute_script(tiles)) == {STEP_JOB, EPOCH_JOB}, 30)
    cards = dash_duo.driver.execute_script(tiles)
    assert "Network: LeNet5" in cards[STEP_JOB]
    assert "loss value: 2.23881" in cards[STEP_JOB]
    assert str(compare_page.NOT_EXIST_TEXT) in cards[EPOCH_JOB]
    assert "loss value: --" in cards[EPOCH_JOB]
    # Each job's name in its run colour: the rule of the scalar comparison, then the user's.
    all_ids = [job.train_id for job in landscape_app.data_service.provider.list_jobs()]
    dots = dash_duo.driver.execute_script("""
        const out = {};
        document.querySelectorAll('#lc-tiles .di-card-head').forEach(head => {
            out[head.textContent] = head.querySelector('.di-run-dot').style.background; });
        return out;""")
    assert dots == {job: _rgb(run_colour(job, all_ids)) for job in (STEP_JOB, EPOCH_JOB)}
    dash_duo.driver.execute_script(
        "localStorage.setItem('run-colours', JSON.stringify(arguments[0]));", {STEP_JOB: "#123456"}
    )
    dash_duo.driver.refresh()
    until(
        lambda: (
            dash_duo.driver.execute_script(
                "const dot = document.querySelector('#lc-tiles .di-run-dot[id*=\"' + arguments[0]"
                " + '\"]'); return dot && dot.style.background;",
                STEP_JOB,
            )
            == _rgb("#123456")
        ),
        30,
    )
    # The job picker's filter decides the tiles.
    heads = (
        "return [...document.querySelectorAll('#lc-tiles .di-card-head')].map(h => h.textContent);"
    )
    search = dash_duo.find_element("#lc-jobs-filter")
    search.send_keys("epoch\ue007")
    until(lambda: dash_duo.driver.execute_script(heads) == [EPOCH_JOB], 30)
    assert _params(dash_duo)["job_filter"] == "epoch"
    search.send_keys("\ue009a\ue003\ue007")  # cleared
    until(lambda: sorted(dash_duo.driver.execute_script(heads)) == sorted(cards), 30)
    card = f"lc-card-{list(cards).index(STEP_JOB)}"
    until(lambda: _trace_types(dash_duo, card) == ["surface", "scatter3d"], 30)
    assert (_data(dash_duo, card) or [{}, {}])[1]["name"] == "Model Convergence Point"
    # the same in contour lines
    dash_duo.find_element("#lc-view input[value='contour']").click()
    until(lambda: (_data(dash_duo, card) or [{}])[0].get("coloring") == "lines", 30)

    # overlay: the one job with a final landscape, then the 3D scene
    dash_duo.find_element("#lc-mode input[value='overlay']").click()
    until(lambda: _trace_types(dash_duo, "lc-overlay-graph") == ["contour", "scatter"], 30)
    assert _params(dash_duo)["mode"] == "overlay"
    disabled = dash_duo.driver.execute_script(
        "return [...document.querySelectorAll('#lc-overlay input')].map(i => i.disabled)"
    )
    assert sorted(disabled) == [False, True]  # lenet_epoch has no final landscape
    dash_duo.find_element("#lc-view input[value='3d']").click()
    until(lambda: _trace_types(dash_duo, "lc-overlay-graph") == ["surface", "scatter3d"], 30)
    assert console_errors(dash_duo) == []


def test_compare_overlay_of_two_jobs(dash_duo: Any, landscape_app: Any, tmp_path: Path) -> None:
    """Two jobs with final landscapes share one colour range in one scene."""
    base = Path(landscape_app.data_service.summary_base_dir)
    target = base / "lenet_copy"
    if not target.exists():
        shutil.copytree(base / "lenet_step", target)
        landscape_app.data_service.loader.load_round()
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{compare_page.PATH}?mode=overlay")
    until(lambda: _trace_types(dash_duo, "lc-overlay-graph") == ["surface", "scatter3d"] * 2, 30)
    ranges = dash_duo.driver.execute_script(
        GRAPH_DATA.format("lc-overlay-graph") + ".filter(t => t.type === 'surface')"
        ".map(t => [t.cmin, t.cmax])"
    )
    assert ranges[0] == ranges[1] and ranges[0][0] < ranges[0][1]
    dash_duo.find_element("#lc-view input[value='filled']").click()
    until(lambda: _trace_types(dash_duo, "lc-overlay-graph") == ["contour", "scatter"] * 2, 30)
    assert console_errors(dash_duo) == []


def test_compare_refresh_draws_again_only_what_changed(dash_duo: Any, landscape_app: Any) -> None:
    """A refresh with nothing new leaves the tiles as drawn (each tick of the auto refresh drew
    every 3D scene again: a loaded browser never became idle); new data draws them again."""
    tile = "#lc-tiles .js-plotly-plot"
    dash_duo.start_server(landscape_app)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{compare_page.PATH}")
    count_draws(dash_duo, tile)
    refresh(dash_duo)
    assert draws(dash_duo, tile) == 0
    base = Path(landscape_app.data_service.summary_base_dir)
    with SummaryWriter(base / "plain") as writer:
        writer.add_scalar("loss", 0.5, step=2)
    assert landscape_app.data_service.loader.load_round()
    refresh(dash_duo)
    until(lambda: draws(dash_duo, tile) != 0, 30)
    assert console_errors(dash_duo) == []


def test_the_unit_is_in_the_page_language() -> None:
    assert page.unit_text("step") == "step" and page.unit_text("epoch") == "epoch"
    with i18n.use_locale(i18n.CHINESE):
        assert (page.unit_text("step"), page.unit_text("epoch")) == ("步骤", "轮次")
        assert page.unit_text("sample") == "sample"  # another unit: as written
        assert ("单位", "步骤") in page.info_rows({"unit": "step"}, "12x12")


def test_intervals_are_named_by_their_steps_in_the_url() -> None:
    from dash_insight.plugins.landscape.query import LandscapeRef
    from dash_insight.plugins.landscape.service import JobLandscapes

    same_ends = (LandscapeRef("l", 1, (2, 4, 16)), LandscapeRef("l", 2, (2, 16)))
    landscapes = JobLandscapes(
        (*same_ends, LandscapeRef("l", 3, (18, 32)), LandscapeRef("l", 4, ()))
    )
    second = f"2-16~{interval_id([2, 16])}"  # a second interval of the same ends stays apart
    assert page.interval_keys(landscapes) == {
        interval_id([2, 4, 16]): "2-16",
        interval_id([2, 16]): second,
        interval_id([18, 32]): "18-32",
    }
    assert [o["label"] for o in page.chooser_options(landscapes)] == [
        "2-16",
        "2-16",
        "18-32",
        "final",
    ]
    assert page.chosen_ref(landscapes, "2-16").intervals == (2, 4, 16)
    assert page.chosen_ref(landscapes, second).intervals == (2, 16)
    assert page.chosen_ref(landscapes, "final").final
    assert page.chosen_ref(landscapes, "99-100").intervals == (2, 4, 16)  # unknown: the first


# --- the comparison page at a laptop's window (issue 38: "Finish every page") -----------------

#: Every part of each tile drawn outside its card (1 px of rounding allowed): the chart box,
#: the 3D scene's WebGL canvas, the SVG ticks and colour bar, the training information.
TILE_PARTS_OUTSIDE = """
const inside = (part, card) => part.left >= card.left - 1 && part.right <= card.right + 1
    && part.top >= card.top - 1 && part.bottom <= card.bottom + 1;
const out = {};
document.querySelectorAll('#lc-tiles .di-lc-card').forEach(card => {
  const box = card.getBoundingClientRect();
  const parts = card.querySelectorAll('.di-lc-plot, .di-lc-none, canvas, .xtick text,'
      + ' .ytick text, .colorbar, .di-lc-info, .di-lc-info *');
  out[card.querySelector('.di-card-head').textContent] = [...parts]
      .filter(part => part.getClientRects().length
          && !inside(part.getBoundingClientRect(), box))
      .map(part => part.className.baseVal !== undefined
          ? part.className.baseVal || part.tagName : part.className || part.tagName);
});
return out;
"""


def _open_compare(dash_duo: Any, landscape_app: Any, query: str = "") -> None:
    dash_duo.start_server(landscape_app)
    dash_duo.driver.set_window_size(1280, 800)
    dash_duo.wait_for_page(url=f"{dash_duo.server_url}{compare_page.PATH}{query}")


def _tiles_drawn(dash_duo: Any, kind: str) -> bool:
    """Every tile with a landscape has drawn a chart of ``kind`` (surface or contour)."""
    return bool(
        dash_duo.driver.execute_script(
            "const cards = [...document.querySelectorAll('#lc-tiles .di-lc-card')];"
            "return cards.length > 0 && cards.every(c => c.querySelector('.di-lc-none')"
            " || (c.querySelector('.js-plotly-plot') || {}).data"
            " && c.querySelector('.js-plotly-plot').data[0].type === arguments[0]"
            " && c.querySelector('.js-plotly-plot')._fullLayout);",
            kind,
        )
    )


def test_compare_tiles_draw_everything_inside_their_cards(
    dash_duo: Any, landscape_app: Any
) -> None:
    """At 1280 x 800 the 3D scene, its ticks and colour bar and the training information of
    every tile stay inside the tile's card, in the 3D view and in contour lines (issue 38: the
    scenes were clipped by their cards, z ticks read ".25", and two of three tiles drew their
    training information below the card)."""
    _open_compare(dash_duo, landscape_app)
    for view, kind in (("3d", "surface"), ("contour", "contour")):
        if view != "3d":
            dash_duo.find_element(f"#lc-view input[value='{view}']").click()
        until(lambda k=kind: _tiles_drawn(dash_duo, k), 30)
        wait_idle(dash_duo)
        outside = dash_duo.driver.execute_script(TILE_PARTS_OUTSIDE)
        assert {STEP_JOB, EPOCH_JOB} <= set(outside)
        assert {job: parts for job, parts in outside.items() if parts} == {}, view
        # The chart has the box's whole height (it had what the grid row left it).
        heights = dash_duo.driver.execute_script(
            "return [...document.querySelectorAll('#lc-tiles .di-lc-card .js-plotly-plot')]"
            ".map(p => Math.round(p.getBoundingClientRect().height))"
        )
        assert heights and set(heights) == {compare_page.TILE_HEIGHT}, view
    assert console_errors(dash_duo) == []


def test_metric_text_in_the_page_language() -> None:
    assert compare_page.metric_text(2.2388088703155518) == "2.23881"
    assert compare_page.metric_text(None) == compare_page.metric_text("") == "--"
    assert compare_page.metric_text("n/a") == "n/a" and compare_page.metric_text(1) == "1"
    with i18n.use_locale(i18n.CHINESE):
        assert compare_page.metric_text(1234.56789) == "1,234.57"


def _card_texts(dash_duo: Any) -> dict[str, str]:
    return dash_duo.driver.execute_script(
        "const out = {}; document.querySelectorAll('#lc-tiles .di-lc-card').forEach(c => {"
        " out[c.querySelector('.di-card-head').textContent] = c.innerText; }); return out;"
    )


def _use_language(dash_duo: Any, language: str) -> None:
    """The language switch's cookie (``di_language``), then the page again."""
    dash_duo.driver.add_cookie({"name": i18n.COOKIE_NAME, "value": language})
    dash_duo.driver.refresh()


def test_compare_loss_is_rounded_and_every_text_translated(
    dash_duo: Any, landscape_app: Any
) -> None:
    """The card's loss is written as the app writes numbers (issue 38: "loss:
    2.2388088703155518"), and in Chinese no English message is left on Tile or Overlay."""
    _open_compare(dash_duo, landscape_app)
    until(lambda: STEP_JOB in _card_texts(dash_duo), 30)
    until(lambda: "loss value: 2.23881" in _card_texts(dash_duo)[STEP_JOB], 30)
    assert "2.2388088703155518" not in _card_texts(dash_duo)[STEP_JOB]
    messages = english_messages()
    _use_language(dash_duo, "zh_CN")
    for query, drawn in (
        ("", "#lc-tiles .js-plotly-plot .main-svg"),
        ("?mode=overlay", "#lc-overlay-graph .main-svg"),
    ):
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}{compare_page.PATH}{query}")
        dash_duo.wait_for_element(drawn, timeout=60)
        wait_idle(dash_duo)
        if not query:
            until(lambda: "损失值：2.23881" in _card_texts(dash_duo).get(STEP_JOB, ""), 30)
        texts = dash_duo.driver.execute_script(VISIBLE_TEXTS)
        assert untranslated(texts, messages) == {}, query
    assert console_errors(dash_duo) == []


#: The overlay's legend (text, colour of its mark) and, per trace, its type, name, colour scale
#: (surfaces) or marker colour (points), from the figure Plotly drew.
OVERLAY_DRAWN = """
const gd = document.querySelector('#lc-overlay-graph .js-plotly-plot');
if (!gd || !gd._fullData || !gd._fullLayout) return null;
const legend = [...gd.querySelectorAll('.legend .traces')].map(item => [
  item.querySelector('.legendtext').textContent,
  (item.querySelector('.legendpoints path') || {style: {}}).style.fill]);
const traces = gd._fullData.map(t => ({type: t.type, name: t.name,
  scale: t.colorscale ? t.colorscale.map(s => s[1]) : null,
  marker: t.marker ? t.marker.color : null}));
const titles = (gd._fullLayout.annotations || []).map(a => [a.text, a.font.color]);
return {legend: legend, traces: traces, titles: titles};
"""


def test_compare_overlay_names_and_colours_each_run(dash_duo: Any, landscape_app: Any) -> None:
    """Overlay tells the runs apart (issue 38: the legend said "Model Convergence Point" twice
    with no run names, and both surfaces shared one colour scale): the legend names each run
    once with a mark in its run colour, each surface is shaded in its run colour (the scales
    differ), and side by side each contour map is titled in its run colour."""
    base = Path(landscape_app.data_service.summary_base_dir)
    if not (base / "lenet_copy").exists():
        shutil.copytree(base / "lenet_step", base / "lenet_copy")
        landscape_app.data_service.loader.load_round()
    runs = ["./lenet_copy", STEP_JOB]
    all_ids = [job.train_id for job in landscape_app.data_service.provider.list_jobs()]
    colours = {run: run_colour(run, all_ids) for run in runs}
    assert len(set(colours.values())) == 2
    _open_compare(dash_duo, landscape_app, "?mode=overlay&overlay=" + ",".join(runs))
    drawn = until(lambda: dash_duo.driver.execute_script(OVERLAY_DRAWN), 30)
    until(lambda: len(dash_duo.driver.execute_script(OVERLAY_DRAWN)["legend"]) == 2, 30)
    drawn = dash_duo.driver.execute_script(OVERLAY_DRAWN)
    assert sorted(text for text, _fill in drawn["legend"]) == sorted(runs)
    assert {text: fill for text, fill in drawn["legend"]} == {
        r: _rgb(c) for r, c in colours.items()
    }
    surfaces = [t for t in drawn["traces"] if t["type"] == "surface"]
    assert sorted(t["name"] for t in surfaces) == sorted(runs)
    assert surfaces[0]["scale"] != surfaces[1]["scale"]
    assert {t["name"]: t["scale"][1] for t in surfaces} == colours  # the run colour halfway
    points = [t for t in drawn["traces"] if t["type"] == "scatter3d"]
    assert {t["name"]: t["marker"] for t in points} == colours

    dash_duo.find_element("#lc-view input[value='contour']").click()
    until(lambda: (dash_duo.driver.execute_script(OVERLAY_DRAWN) or {}).get("titles"), 30)
    until(lambda: len(dash_duo.driver.execute_script(OVERLAY_DRAWN)["legend"]) == 2, 30)
    drawn = dash_duo.driver.execute_script(OVERLAY_DRAWN)
    assert sorted(text for text, _fill in drawn["legend"]) == sorted(runs)
    assert dict(drawn["titles"]) == colours
    points = [t for t in drawn["traces"] if t["type"] == "scatter"]
    assert {t["name"]: t["marker"] for t in points} == colours
    assert console_errors(dash_duo) == []


#: The first job name of the picker: its text and its tooltip (a title the browser shows).
PICKER_NAME = (
    "const name = document.querySelector("
    "'#lc-jobs label[data-option-index=\"0\"] .dash-options-list-option-text');"
    "return name && [name.textContent, name.getAttribute('title')];"
)


def test_compare_job_name_has_its_tooltip(dash_duo: Any, landscape_app: Any) -> None:
    """A job name's tooltip is the browser's own (issue 38: AG Grid's tooltip stayed on screen
    for its 10 s hide delay after a click): the name carries its title, and a click on it
    unticks the job."""
    dash_duo.driver.set_window_size(1280, 800)
    _open_compare(dash_duo, landscape_app, "")
    until(lambda: dash_duo.driver.execute_script(PICKER_NAME), 30)
    name, title = dash_duo.driver.execute_script(PICKER_NAME)
    assert title == name
    tick_name(dash_duo, "lc-jobs", name)
    until(lambda: name not in (url_params(dash_duo).get("jobs") or name), 30)
    assert console_errors(dash_duo) == []
