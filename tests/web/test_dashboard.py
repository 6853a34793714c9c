"""Browser tests (dash_duo, headless Chromium) of the training dashboard and its cards."""

from __future__ import annotations

from pathlib import Path

import pytest

from dash_insight.core.format.writer import SummaryWriter
from tests.browser import until
from tests.conftest import console_errors, loaded_app

pytestmark = pytest.mark.browser

#: True when every arrow of the dataset card has an operation box right of it on its line.
ARROWS_BESIDE_THEIR_OPERATION = """
const arrows = Array.from(document.querySelectorAll('#preview-dataset .di-arrow'));
return arrows.length > 0 && arrows.every(arrow => {
  const a = arrow.getBoundingClientRect();
  const box = arrow.nextElementSibling;
  if (!box || !box.classList.contains('di-op')) return false;
  const b = box.getBoundingClientRect();
  return b.left >= a.right && b.top < a.bottom && b.bottom > a.top;
});
"""


def test_dashboard_cards(dash_duo, corpus_app) -> None:
    dash_duo.driver.set_window_size(1600, 1000)  # three cards a row: the pipeline wraps
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_element("#job-table tbody tr")
    dash_duo.find_element('a[href*="train_id=.%2Flenet_sc"]').click()
    dash_duo.wait_for_contains_text(".di-subtitle", "./lenet_sc")
    for card in (
        "card-scalar",
        "card-histogram",
        "card-tensor",
        "card-graph",
        "card-dataset",
        "card-image",
    ):
        dash_duo.wait_for_element(f"#{card}")
    dash_duo.wait_for_element("#preview-scalar .main-svg")
    dash_duo.wait_for_element("#preview-histogram .main-svg")
    assert "GeneratorDataset" in dash_duo.find_element("#preview-dataset").text
    assert "No tensor yet" in dash_duo.find_element("#card-tensor").text
    dash_duo.wait_for_element("#preview-image")
    until(
        lambda: (
            dash_duo.driver.execute_script(
                "return document.querySelector('#preview-image').naturalWidth"
            )
            == 256
        ),
        10,
    )
    # A wrapped pipeline never ends a line with an arrow: each arrow is on the line of the
    # operation it points to (issue 38 item 9).
    assert dash_duo.driver.execute_script(ARROWS_BESIDE_THEIR_OPERATION)
    # The image fills its card's width (as wide as the card body, its height kept at 230 px).
    image, body = dash_duo.driver.execute_script(
        "const img = document.querySelector('#preview-image');"
        "return [img.getBoundingClientRect().width,"
        " img.parentElement.getBoundingClientRect().width];"
    )
    assert image >= 0.9 * body, (image, body)
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
    # MindInsight's first tensor tag (sorted names), not the first one written.
    assert "tensor/big_1m_f32" in dash_duo.find_element("#card-tensor").text
    assert "No data graph" in dash_duo.find_element("#card-dataset").text
    assert console_errors(dash_duo) == []


def test_unreachable_job_id_is_refused(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./../../etc")
    dash_duo.wait_for_contains_text("#dashboard-cards", "no training job")


#: Words of the job notice's list items that the browser drew on more than one line.
BROKEN_WORDS = """
const broken = [];
let wrapped = 0;
for (const item of document.querySelectorAll('.di-job-notice li')) {
  const node = item.firstChild;
  const range = document.createRange();
  range.selectNodeContents(item);
  if (new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size > 1) {
    wrapped += 1;
  }
  const pattern = /\\S+/g;
  let match;
  while ((match = pattern.exec(node.textContent))) {
    const word = document.createRange();
    word.setStart(node, match.index);
    word.setEnd(node, match.index + match[0].length);
    const tops = new Set(Array.from(word.getClientRects()).filter(r => r.width > 0)
                         .map(r => Math.round(r.top)));
    if (tops.size > 1) { broken.push(match[0]); }
  }
}
return [wrapped, broken];
"""


def test_damage_banner_wraps_between_words(dash_duo, tmp_path: Path) -> None:
    """The dashboard's damage list wraps long reasons between words ("(pa|yload" was cut by
    word-break: break-all)."""
    with SummaryWriter(str(tmp_path / "logs" / "bad")) as writer:
        for step in range(1, 200):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.record(step)
    summary = Path(writer.summary_path)
    data = bytearray(summary.read_bytes())
    for position in range(len(data) // 4, len(data), len(data) // 4):
        data[position] ^= 0xFF  # three damaged records: three reasons
    summary.write_bytes(bytes(data))
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/dashboard?train_id=./bad")
        dash_duo.wait_for_contains_text(".di-job-notice summary", "problems; everything readable")
        dash_duo.driver.execute_script("document.querySelector('.di-job-notice').open = true;")
        for width in range(480, 760, 23):  # wherever the lines happen to end
            dash_duo.driver.set_window_size(width, 900)  # synchronous: the layout follows
            wrapped, broken = dash_duo.driver.execute_script(BROKEN_WORDS)
            assert wrapped >= 1, f"no reason wrapped at {width} px: the check proves nothing"
            assert broken == [], f"words broken at {width} px"
        assert console_errors(dash_duo) == []
