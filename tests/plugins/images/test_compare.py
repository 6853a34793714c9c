"""Issue 17 item 10: images of several runs side by side at one step, on jobs this test writes
(the comparison dashboard's images tab)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlparse

import numpy as np
import pytest
from dash import html
from dash.exceptions import PreventUpdate

from dash_insight.core.format.writer import SummaryWriter
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.images import compare_page
from dash_insight.web.components.compare_runs import most_shared_tag
from dash_insight.web.components.run_colours import run_colour
from dash_insight.web.url_state import encode_tags
from tests.browser import until, wait_idle
from tests.pages import run_js, text, type_into, url_params

#: ./i0 has ``input`` at steps 1, 2, 3; ./i1 at 2 only; ./i2 only ``other``.
STEPS = {"i0": (1, 2, 3), "i1": (2,), "i2": (1,)}
RUNS = ["./i0", "./i1", "./i2"]


@pytest.fixture(scope="module")
def image_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    base = tmp_path_factory.mktemp("icmp")
    for run, steps in STEPS.items():
        with SummaryWriter(base / run, host="test", timestamp=1_700_000_000) as writer:
            for step in steps:
                pixels = np.full((1, 3, 8, 8), 40 * step, dtype=np.uint8)
                writer.add_image("other" if run == "i2" else "input", pixels, step)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    yield app
    app.data_service.close()


def _columns(dash_duo) -> dict[str, dict] | None:
    """Each run column: its head's colour, its image (run, tag, step, loaded) and its note."""
    return run_js(
        dash_duo,
        """
        const out = {};
        document.querySelectorAll('#icmp-columns .di-icmp-col').forEach(col => {
            const img = col.querySelector('img');
            const name = col.querySelector('.di-card-head b').textContent;
            out[name] = {colour: col.querySelector('.di-run-dot').style.background,
                         src: img ? img.getAttribute('src') : null,
                         loaded: img ? img.complete && img.naturalWidth > 0 : false,
                         note: col.querySelector('.di-icmp-note').textContent};
        });
        return out;""",
    )


def _rgb(colour: str) -> str:
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_images_of_several_runs_side_by_side(dash_duo, image_app) -> None:
    dash_duo.start_server(image_app)
    every = sorted(job.train_id for job in image_app.data_service.provider.list_jobs())
    search = f"?jobs={quote(encode_tags(RUNS))}&tag=input"
    dash_duo.wait_for_page(dash_duo.server_url + "/compare/images" + search + "&step=3")

    # One column per run with the tag, its name in its colour, its image at its own step.
    until(lambda: set(_columns(dash_duo) or {}) == {"./i0", "./i1"}, 30)
    until(lambda: all(c["loaded"] for c in _columns(dash_duo).values()), 20)
    columns = _columns(dash_duo)
    for run, step in (("./i0", "3"), ("./i1", "2")):
        query = parse_qs(urlparse(columns[run]["src"]).query)
        assert (query["train_id"], query["tag"], query["step"]) == ([run], ["input/image"], [step])
        assert columns[run]["colour"] == _rgb(run_colour(run, every))
    assert columns["./i0"]["note"] == "step 3"
    assert columns["./i1"]["note"] == "step 2 (the last at or before 3)"
    assert dash_duo.find_element("#icmp-missing").text == "No input in: ./i2"

    # Brightness as on the images page: every image's filter, and the URL.
    wait_idle(dash_duo)
    dash_duo.driver.get(dash_duo.server_url + "/compare/images" + search + "&step=3&b=80")
    until(
        lambda: (
            "brightness(1.6)"
            in run_js(
                dash_duo,
                "const i = document.querySelector('#icmp-columns img');"
                "return i ? getComputedStyle(i).filter : '';",
            )
        ),
        30,
    )

    # The slider's first step: ./i1 has nothing yet and says so.
    wait_idle(dash_duo)
    dash_duo.driver.get(dash_duo.server_url + "/compare/images" + search + "&step=1")
    until(
        lambda: (
            (_columns(dash_duo) or {}).get("./i1", {}).get("note")
            == "nothing at or before step 1 (first: step 2)"
        ),
        30,
    )
    assert _columns(dash_duo)["./i0"]["note"] == "step 1"


def test_the_step_box_shows_and_takes_the_step(dash_duo, image_app) -> None:
    """#38 item 1 on the image comparison: the box beside the slider shows the step itself
    (not the slider's 0-based position) and Enter selects the recorded step typed."""
    dash_duo.start_server(image_app)
    search = f"?jobs={quote(encode_tags(RUNS))}&tag=input&step=3"
    dash_duo.wait_for_page(dash_duo.server_url + "/compare/images" + search)
    box, label = "#icmp-step-box", "#icmp-step-label"
    until(lambda: dash_duo.find_element(box).get_attribute("value") == "3", 30)
    until(lambda: (_columns(dash_duo) or {}).get("./i0", {}).get("note") == "step 3", 30)
    wait_idle(dash_duo)
    type_into(dash_duo, box, "2")
    until(lambda: (_columns(dash_duo) or {}).get("./i0", {}).get("note") == "step 2", 30)
    until(lambda: url_params(dash_duo).get("step") == "2", 10)
    assert "2" in dash_duo.find_element(label).text
    assert dash_duo.find_element(box).get_attribute("value") == "2"
    assert _columns(dash_duo)["./i1"]["note"] == "step 2"


def test_most_shared_tag_counts_the_runs_and_ties_go_to_the_first() -> None:
    tags_of = {"a": ["x", "y"], "b": ["y", "z"], "c": ["z", "y"], "d": ["x"]}
    assert most_shared_tag(["x", "y", "z"], tags_of, ["a", "b", "c"]) == "y"
    assert most_shared_tag(["x", "y", "z"], tags_of, ["a", "d"]) == "x"
    # A tie between x and y (two runs each): the first in the order given.
    assert most_shared_tag(["y", "x", "z"], tags_of, ["a", "b", "d"]) == "y"
    assert most_shared_tag(["x", "y", "z"], tags_of, ["a", "b", "d"]) == "x"
    assert most_shared_tag([], tags_of, ["a"]) is None


def test_the_default_tag_is_the_one_most_runs_have(dash_duo, tmp_path_factory) -> None:
    """#38 item 9: without a tag in the URL the tab showed the first tag of the first run (one
    only that run has); it shows the tag every run has."""
    base = tmp_path_factory.mktemp("icmp-shared")
    for run in ("s0", "s1", "s2"):
        with SummaryWriter(base / run, host="test", timestamp=1_700_000_000) as writer:
            pixels = np.full((1, 3, 8, 8), 90, dtype=np.uint8)
            writer.add_image(f"a_{run}", pixels, 1)  # a tag of one run, first of its tags
            writer.add_image("shared", pixels, 1)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1, timeout=120)
    try:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/compare/images")
        until(lambda: len(_columns(dash_duo) or {}) == 3, 30)
        for column in _columns(dash_duo).values():
            assert parse_qs(urlparse(column["src"]).query)["tag"] == ["shared/image"]
        assert dash_duo.find_element("#icmp-missing").text == ""
    finally:
        wait_idle(dash_duo)
        app.data_service.close()


def test_body_is_a_plain_function(image_app) -> None:
    """The tab's callback without a browser: one column per run with the tag, its image from
    the single-image route under the app's prefix, the run without the tag named, nothing sent
    again for the same URL."""
    service = image_app.data_service
    search = f"?jobs={quote(encode_tags(RUNS))}&tag=input&step=2"
    answer = compare_page.body(service, lambda path: "/p" + path, search, 0, 0, None, None)
    options, tag, *_slider, label, _store, columns, missing, key = answer
    assert "input" in options and tag == "input" and label == "step 2"
    assert sorted(column.id["run"] for column in columns) == ["./i0", "./i1"]
    sources = [image.src for column in columns for image in _images(column)]
    assert sources and all(
        src.startswith("/p/v1/mindinsight/datavisual/image/single-image?") for src in sources
    )
    assert "./i2" in text(missing)
    with pytest.raises(PreventUpdate):
        compare_page.body(service, str, search, 0, 0, None, key)
    none = compare_page.body(service, str, f"?jobs={quote(encode_tags(['./nope']))}", 0, 0, 0, 0)
    assert none[1] is None and "No image" in text(none[8])


def _images(component) -> list:
    """Every html.Img inside a component tree."""
    if isinstance(component, html.Img):
        return [component]
    children = getattr(component, "children", None)
    if children is None or isinstance(children, str):
        return []
    items = children if isinstance(children, list | tuple) else [children]
    return [image for child in items for image in _images(child)]
