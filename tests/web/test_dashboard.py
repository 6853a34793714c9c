"""Browser tests (dash_duo, headless Chromium) of the training dashboard and its cards."""

from __future__ import annotations

import pytest

from tests.browser import until
from tests.conftest import console_errors

pytestmark = pytest.mark.browser


def test_dashboard_cards(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_element("#job-table tbody tr")
    dash_duo.find_element('a[href*="train_id=.%2Flenet_sc"]').click()
    dash_duo.wait_for_contains_text(".di-subtitle", "./lenet_sc")
    for card in ("card-scalar", "card-histogram", "card-tensor", "card-graph", "card-dataset",
                 "card-image"):
        dash_duo.wait_for_element(f"#{card}")
    dash_duo.wait_for_element("#preview-scalar .main-svg")
    dash_duo.wait_for_element("#preview-histogram .main-svg")
    assert "GeneratorDataset" in dash_duo.find_element("#preview-dataset").text
    assert "No tensor yet" in dash_duo.find_element("#card-tensor").text
    dash_duo.wait_for_element("#preview-image")
    until(lambda: dash_duo.driver.execute_script(
        "return document.querySelector('#preview-image').naturalWidth") == 256, 10)
    # The graph card shows the top-level scopes.
    dash_duo.wait_for_element("#preview-graph canvas")
    # Back button returns to the list.
    dash_duo.driver.back()
    dash_duo.wait_for_element("#job-table tbody tr")
    assert console_errors(dash_duo) == []


def test_dashboard_of_ops_all_tensor_card(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./ops_all")
    dash_duo.wait_for_element("#card-tensor .di-heat")
    assert "tensor/rank1_f32" in dash_duo.find_element("#card-tensor").text
    assert "No data graph" in dash_duo.find_element("#card-dataset").text
    assert console_errors(dash_duo) == []


def test_unreachable_job_id_is_refused(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./../../etc")
    dash_duo.wait_for_contains_text("#dashboard-cards", "no training job")
