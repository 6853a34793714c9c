"""Images page: helpers, URL state, cards on the corpus, and the page in the browser (sliders,
brightness and contrast, actual size)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import dash
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from dash_insight.core.i18n import format_wall_time
from dash_insight.core.service import DataService
from dash_insight.plugins.images import page as images
from dash_insight.web.per_tag_page import CardContext
from dash_insight.web.url_state import encode_map
from tests.browser import until
from tests.conftest import console_errors
from tests.pages import find, press, run_js, text, url_params


def test_image_helpers() -> None:
    assert images.image_filter(50, 50) == "brightness(1) contrast(1)"
    assert images.image_filter(75, 0) == "brightness(1.5) contrast(0)"
    assert images.step_position([1, 50, 100], "50") == 1
    assert images.step_position([1, 50, 100], "51") == 2
    assert images.step_position([1, 50, 100], "x") == 2
    assert images.step_position([1, 50, 100], None) == 2
    assert images.STATE.parse({"b": "300", "c": "-1"}).b == 100


def test_state_style_and_controls() -> None:
    state = images.STATE.parse({"b": "75", "c": "-1", "steps": "a=3,b\\,c=4"})
    assert (state.b, state.c, state.steps) == (75, 0, {"a": "3", "b,c": "4"})
    assert parse_qs(images.STATE.search(state)[1:]) == {
        "b": ["75"],
        "c": ["0"],
        "steps": ["a=3,b\\,c=4"],
    }
    assert images.root_style(state) == {"--di-image-filter": "brightness(1.5) contrast(0)"}
    [row] = images.controls(state)
    assert find(row, "img-brightness").value == 75
    assert not find(row, "img-brightness-reset").disabled  # not at the default
    [row] = images.controls(images.ImagesUrl())
    assert find(row, "img-contrast-reset").disabled
    [modal] = images.modal(state)
    assert modal.id == "img-modal" and modal.style == {"display": "none"}


def test_image_card_starts_at_the_step_of_the_link(service: DataService) -> None:
    app = dash.Dash(__name__)
    state = images.STATE.parse({"steps": encode_map({"images/rgb_8x32x32": "400"})})
    card = images.PAGE.card(CardContext(app, service, "./ops_all", state), "images/rgb_8x32x32")
    key = {"tag": "images/rgb_8x32x32"}
    data = find(card, {"type": "img-data", **key}).data
    assert data["steps"][-1] == 500 and data["last"] == len(data["steps"]) - 1
    assert find(card, {"type": "img-step", **key}).children == "Step: 400"
    # The step's time comes with the card (the browser runs no callback at load for it).
    at_400 = data["steps"].index(400)
    assert find(card, {"type": "img-time", **key}).children == data["times"][at_400]
    assert data["times"][at_400] == format_wall_time(
        service.provider.value_steps("./ops_all", "image", "images/rgb_8x32x32").wall_time[at_400]
    )
    source = find(card, {"type": "img-img", **key}).src
    assert source.startswith("/v1/mindinsight/datavisual/image/single-image?train_id=.%2Fops_all")
    assert source.endswith("&step=400")
    latest = images.image_card(app, service.provider, "./ops_all", "images/rgb_8x32x32", None)
    assert find(latest, {"type": "img-step", **key}).children == "Step: 500"
    missing = images.image_card(app, service.provider, "./ops_all", "no/such", None)
    assert text(missing) == "no/such no image tag 'no/such' in ./ops_all"


def test_the_step_callback_is_not_run_at_load() -> None:
    """The cards come with their image, step and time: the slider's callback (browser-side)
    runs when a slider moves, not once per card at each load."""
    app = dash.Dash(__name__)
    images.register(app, None)  # type: ignore[arg-type]
    [step] = [c for c in app._callback_list if '"type":"img-time"}.children' in c["output"]]
    assert step["prevent_initial_call"] is True


IMG = (
    "return Array.from(document.querySelectorAll('.di-vi-img')).map(i => [i.src, "
    "getComputedStyle(i).filter])"
)


TIMES = (
    "return [...document.querySelectorAll('.di-vi-meta span:last-child')].map(s => s.textContent)"
)
DATETIME = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"


def test_images_step_slider_brightness_and_reset(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/images?train_id=./ops_all&c=60")
    until(lambda: len(run_js(dash_duo, IMG)) == 6, 15)
    first = ".di-vi-card:first-child"
    dash_duo.wait_for_text_to_equal(f"{first} .di-vi-meta span", "Step: 500")
    times = run_js(dash_duo, TIMES)
    assert len(times) == 6 and all(re.fullmatch(DATETIME, t) for t in times), times
    assert run_js(dash_duo, IMG)[0][1] == "brightness(1) contrast(1.2)"
    until(
        lambda: run_js(dash_duo, "return document.querySelector('.di-vi-img').naturalWidth") == 256,
        10,
    )

    # The browser's encodeMap writes what the server's encode_map reads.
    pairs = [["a,b", "x=y"], ["back\\slash", "1"], ["images/rgb_8x32x32", 400]]
    assert run_js(
        dash_duo, "return window.dash_clientside.perTagPage.encodeMap(arguments[0]);", pairs
    ) == encode_map({k: v for k, v in pairs})

    # Step slider: every recorded step, the image loaded for the chosen one only.
    press(dash_duo, f"{first} .di-vi-slider input[type=range]", Keys.ARROW_LEFT, 2)
    dash_duo.wait_for_text_to_equal(f"{first} .di-vi-meta span", "Step: 400")
    assert run_js(dash_duo, IMG)[0][0].endswith("step=400")
    until(lambda: run_js(dash_duo, TIMES)[0] != times[0], 10)  # that step's time
    assert re.fullmatch(DATETIME, run_js(dash_duo, TIMES)[0])
    until(lambda: "steps" in url_params(dash_duo), 10)
    assert url_params(dash_duo)["steps"] == "images/rgb_8x32x32=400"

    assert console_errors(dash_duo) == []
    # Brightness and contrast work in the browser alone: take the network away first.
    dash_duo.driver.set_network_conditions(
        offline=True, latency=0, download_throughput=0, upload_throughput=0
    )
    try:
        assert (
            dash_duo.driver.execute_async_script(
                "const done = arguments[0]; fetch('/_dash-layout', {cache: 'no-store'})"
                ".then(() => done('online'), () => done('offline'));"
            )
            == "offline"
        )
        press(dash_duo, "#img-brightness", Keys.ARROW_RIGHT, 5)
        until(
            lambda: {f for _, f in run_js(dash_duo, IMG)} == {"brightness(1.1) contrast(1.2)"}, 10
        )
        assert dash_duo.find_element("#img-brightness-reset").is_enabled()
        dash_duo.find_element("#img-contrast-reset").click()
        until(lambda: {f for _, f in run_js(dash_duo, IMG)} == {"brightness(1.1) contrast(1)"}, 10)
        assert not dash_duo.find_element("#img-contrast-reset").is_enabled()
        dash_duo.find_element("#img-brightness-reset").click()
        until(lambda: {f for _, f in run_js(dash_duo, IMG)} == {"brightness(1) contrast(1)"}, 10)
        until(lambda: "b" not in url_params(dash_duo) and "c" not in url_params(dash_duo), 10)
    finally:
        dash_duo.driver.delete_network_conditions()

    # Actual size in a modal.
    dash_duo.find_element(f"{first} .di-vi-frame").click()
    dash_duo.wait_for_contains_text("#img-modal-caption", "step 400 · 256×32 px")
    dash_duo.find_element("#img-modal").click()
    until(
        lambda: (
            run_js(dash_duo, "return document.querySelector('#img-modal').style.display") == "none"
        ),
        10,
    )
    # Opened again, Esc closes it too (issue 38 item 9).
    dash_duo.find_element(f"{first} .di-vi-frame").click()
    until(
        lambda: (
            run_js(dash_duo, "return document.querySelector('#img-modal').style.display") != "none"
        ),
        10,
    )
    ActionChains(dash_duo.driver).send_keys(Keys.ESCAPE).perform()
    until(
        lambda: (
            run_js(dash_duo, "return document.querySelector('#img-modal').style.display") == "none"
        ),
        10,
    )

    # A reload keeps the chosen step (URL state).
    dash_duo.driver.refresh()
    dash_duo.wait_for_text_to_equal(f"{first} .di-vi-meta span", "Step: 400")
