"""Pinned charts (issue 40 item 6): pinned tags first, in the order pinned, kept in the browser
per page and base directory."""

from __future__ import annotations

from pathlib import Path

from dash import no_update

from dash_insight.core.i18n import use_locale
from dash_insight.plugins.scalars import page_pins
from tests.browser import until, wait_idle
from tests.conftest import console_errors, loaded_app
from tests.pages import run_js

TAGS = ("alpha", "beta", "gamma", "delta")


def test_pinned_first_keeps_the_pin_order_then_the_others() -> None:
    names = ["a", "b", "c", "d"]
    assert page_pins.pinned_first(names, []) == names
    assert page_pins.pinned_first(names, ["c", "a"]) == ["c", "a", "b", "d"]
    # Pins of tags not shown are ignored; a pin listed twice counts once.
    assert page_pins.pinned_first(names, ["x", "d", "d"]) == ["d", "a", "b", "c"]
    assert page_pins.pinned_first([], ["a"]) == []


def test_toggle_and_what_the_browser_may_hold() -> None:
    assert page_pins.toggled([], "a") == ["a"]
    assert page_pins.toggled(["a", "b"], "a") == ["b"]
    assert page_pins.toggled(["a"], "b") == ["a", "b"]
    full = [f"t{i}" for i in range(page_pins.MAX_PINS)]
    assert page_pins.toggled(full, "new")[-1] == "new" and len(
        page_pins.toggled(full, "new")
    ) == len(full)
    assert page_pins.checked_pins(None) == page_pins.checked_pins({"a": 1}) == []
    assert page_pins.checked_pins(["a", 3, None, "a", "b", "x" * 2000]) == ["a", "b"]
    assert page_pins.page_pins([["a"]]) == ["a"] and page_pins.page_pins("junk") == []


def test_pins_are_kept_per_page_and_base_directory() -> None:
    one, other = page_pins.pins_id("scalars", "/data/a"), page_pins.pins_id("scalars", "/data/b")
    assert one != other and one["page"] == "scalars"
    assert page_pins.pins_id("compare", "/data/a") != one
    assert page_pins.pins_store("scalars", "/data/a").storage_type == "local"


def test_a_pin_click_toggles_its_chart_and_a_drawn_button_changes_nothing() -> None:
    ids = [{"type": page_pins.PIN_TYPE, "chart": "c0"}, {"type": page_pins.PIN_TYPE, "chart": "c1"}]
    values, stores = ["loss", "acc"], [["acc"]]
    assert page_pins.pin_clicked(ids[0], True, [1, None], values, ids, stores) == [["acc", "loss"]]
    assert page_pins.pin_clicked(ids[1], True, [None, 1], values, ids, stores) == [[]]
    unchanged = [no_update]
    assert page_pins.pin_clicked(ids[0], False, [None, None], values, ids, stores) == unchanged
    # Junk the browser could send: no trigger, an unknown chart, an oversized name, no store.
    assert page_pins.pin_clicked(None, True, [1], values, ids, stores) == unchanged
    assert page_pins.pin_clicked({"chart": "c9"}, True, [1], values, ids, stores) == unchanged
    huge = ["x" * (page_pins.MAX_PIN_CHARS + 1), "acc"]
    assert page_pins.pin_clicked(ids[0], True, [1], huge, ids, stores) == unchanged
    assert page_pins.pin_clicked(ids[0], True, [1], values, ids, "junk") == []


def test_pin_looks_and_tooltips_in_both_languages() -> None:
    labels, classes, titles = page_pins.pin_looks(1, [["b"]], [{}, {}], ["a", "b"])
    assert labels == ["pin", "pinned"]
    assert classes == [page_pins.PIN_CLASS, page_pins.PINNED_CLASS]
    assert titles == [
        "Pin this chart to the top of the page",
        "Unpin this chart (pinned charts come first)",
    ]
    with use_locale("zh_CN"):
        assert page_pins.pin_title(False) == "将此图表固定到页面顶部"
        assert page_pins.pin_title(True) == "取消固定此图表（固定的图表排在最前）"
        assert (page_pins.pin_label(False), page_pins.pin_label(True)) == ("固定", "已固定")


def _write_job(base: Path) -> None:
    from dash_insight import SummaryWriter

    with SummaryWriter(base / "pins", host="test") as writer:
        for step in range(1, 6):
            for i, tag in enumerate(TAGS):
                writer.add_value("scalar", tag, float(step * (i + 1)))
            writer.record(step)


#: The titles of the chart cards, in the page's order.
TITLES = (
    "return Array.from(document.querySelectorAll('.di-chart-card .di-chart-title'))"
    ".map(t => t.textContent);"
)
#: The tooltip of each pin button, by its chart's title.
PIN_TITLES = """const out = {};
document.querySelectorAll('.di-chart-card').forEach(card => {
  const pin = card.querySelector('.di-pin');
  out[card.querySelector('.di-chart-title').textContent] = pin ? pin.title : null;
});
return out;"""


def _pin(dash_duo, title: str) -> None:
    button = dash_duo.driver.execute_script(
        """return Array.from(document.querySelectorAll('.di-chart-card')).find(c =>
             c.querySelector('.di-chart-title').textContent === arguments[0])
           .querySelector('.di-pin');""",
        title,
    )
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()


def _order(dash_duo, expected: list[str]) -> None:
    until(lambda: run_js(dash_duo, TITLES) == expected, msg=f"charts never in order {expected}")


def test_pinned_charts_come_first_and_stay_after_a_reload(dash_duo, tmp_path: Path) -> None:
    _write_job(tmp_path / "logs")
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.driver.add_cookie({"name": "di_language", "value": "zh_CN"})
        url = f"{dash_duo.server_url}/scalars?train_id=./pins"
        dash_duo.wait_for_page(url)
        _order(dash_duo, list(TAGS))
        _pin(dash_duo, "delta")
        _order(dash_duo, ["delta", "alpha", "beta", "gamma"])
        _pin(dash_duo, "gamma")
        _order(dash_duo, ["delta", "gamma", "alpha", "beta"])
        unpin, pin = ("取消固定此图表（固定的图表排在最前）", "将此图表固定到页面顶部")
        until(lambda: run_js(dash_duo, PIN_TITLES)["gamma"] == unpin)
        assert run_js(dash_duo, PIN_TITLES)["alpha"] == pin
        wait_idle(dash_duo)
        dash_duo.driver.refresh()  # kept in the browser: the same order after a reload
        _order(dash_duo, ["delta", "gamma", "alpha", "beta"])
        until(lambda: run_js(dash_duo, PIN_TITLES)["delta"] == unpin)
        _pin(dash_duo, "delta")  # unpinned: back among the others in their order
        _order(dash_duo, ["gamma", "alpha", "beta", "delta"])
        # The comparison keeps its own pins.
        dash_duo.wait_for_page(f"{dash_duo.server_url}/compare")
        _order(dash_duo, list(TAGS))
        _pin(dash_duo, "beta")
        _order(dash_duo, ["beta", "alpha", "gamma", "delta"])
        wait_idle(dash_duo)
        dash_duo.driver.refresh()
        _order(dash_duo, ["beta", "alpha", "gamma", "delta"])
        assert console_errors(dash_duo) == []
