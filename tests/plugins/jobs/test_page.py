"""Browser tests (dash_duo, headless Chromium) of the summary list (the jobs plugin's page)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from dash.testing import errors as testing_errors
from selenium.webdriver.common.keys import Keys

from dash_insight import SummaryWriter
from dash_insight.core.i18n import ENGLISH, use_locale
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.jobs.page import clamp_page, empty_list_message, goto_page, page_count
from tests.browser import PATIENCE, until, wait_idle
from tests.conftest import console_errors, loaded_app
from tests.core.store.test_discovery import CORPUS_JOBS
from tests.pages import choose

pytestmark = pytest.mark.browser


def _rows(dash_duo) -> list[str]:
    """Summary paths shown, read in one go (the table may re-render meanwhile)."""
    return dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll('#job-table tbody tr td:nth-child(2)'))"
        ".map(cell => cell.textContent);"
    )


def _wait_rows(dash_duo, expected: set[str], timeout: float = PATIENCE) -> None:
    try:
        until(lambda: set(_rows(dash_duo)) == expected, timeout)
    except testing_errors.TestingTimeoutError:
        raise AssertionError(f"rows {_rows(dash_duo)}, expected {expected}") from None


def test_summary_list_filter_sort_and_details(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_element("#job-table tbody tr")
    _wait_rows(dash_duo, CORPUS_JOBS)
    assert dash_duo.find_element("#job-total").text == "Total 9"
    assert "./nested/grp/job_a" in _rows(dash_duo)

    search = dash_duo.find_element("#job-filter")
    search.send_keys("lenet")
    _wait_rows(dash_duo, {j for j in CORPUS_JOBS if "lenet" in j})
    assert "q=lenet" in dash_duo.driver.current_url

    search.send_keys(Keys.CONTROL, "a")
    search.send_keys("^\\./ops")
    dash_duo.find_element("#job-filter-regex input").click()
    _wait_rows(dash_duo, {"./ops_all", "./ops_in_net"})

    # Sort by path, ascending, and back.
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.DELETE)
    dash_duo.find_element("#job-filter-regex input").click()
    _wait_rows(dash_duo, CORPUS_JOBS)
    dash_duo.find_element('button[id*="\\"column\\":\\"path\\""]').click()
    dash_duo.wait_for_text_to_equal(
        "#job-table tbody tr td:nth-child(2)", "./lenet_adam_lr0.001_bs32"
    )
    assert "sort=path" in dash_duo.driver.current_url

    # Parameter details of a job with lineage.
    dash_duo.find_element('button[id*="lenet_sc"]').click()
    dash_duo.wait_for_contains_text("#param-details-modal", "Momentum")
    assert "SoftmaxCrossEntropyWithLogits" in dash_duo.find_element("#param-details-modal").text
    dash_duo.find_element("#param-details-close").click()
    dash_duo.wait_for_no_elements("#param-details-backdrop")
    assert console_errors(dash_duo) == []


def test_url_state_is_restored(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/?q=multi")
    _wait_rows(dash_duo, {"./multi_file"})
    assert dash_duo.find_element("#job-filter").get_attribute("value") == "multi"


def test_empty_list_says_what_it_looks_for() -> None:
    with use_locale(ENGLISH):
        found_nothing = empty_list_message(ready=True, query="")
        assert empty_list_message(ready=False, query="") == "Looking for training jobs…"
        assert empty_list_message(ready=True, query="lenet") == "No training job matches."
    for pattern in ("*.summary.*", "*.summary.*_lineage", "events.out.tfevents.*"):
        assert pattern in found_nothing
    assert "dash_insight.SummaryWriter" in found_nothing


def test_new_job_appears_after_auto_refresh(dash_duo, corpus: Path, tmp_path: Path) -> None:
    base = tmp_path / "logs"
    base.mkdir()
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0.5)
    )
    try:
        dash_duo.start_server(app)
        # An empty base directory: the list names the files it looks for.
        dash_duo.wait_for_contains_text("#job-table .di-empty", "events.out.tfevents.*")
        shutil.copytree(corpus / "multi_file", base / "first")
        refresh = dash_duo.find_element("#refresh-seconds")
        refresh.send_keys(Keys.CONTROL, "a")
        refresh.send_keys("3", Keys.ENTER)
        _wait_rows(dash_duo, {"./first"})
        # The timer's [disabled, ms]: the box's bounds (MindInsight's 3..300 s); the current
        # interval (here 7 s) when the box is empty.
        auto = (
            "return window.dash_clientside.shell.autoRefresh(arguments[0], arguments[1], "
            "Number(arguments[2].min), Number(arguments[2].max), 7000);"
        )
        assert [
            dash_duo.driver.execute_script(auto, *case, refresh)
            for case in ((["on"], 3), (["on"], 1), ([], 500), (["on"], None), (["on"], 12.7))
        ] == [[False, 3000], [False, 3000], [True, 300000], [False, 7000], [False, 12000]]
        with SummaryWriter(base / "second", host="t") as writer:
            writer.add_scalar("loss", 1.0, 1)
        _wait_rows(dash_duo, {"./first", "./second"}, timeout=15)
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()


def test_details_stay_open_while_the_list_refreshes(dash_duo, corpus: Path, tmp_path: Path) -> None:
    """A refresh with nothing new leaves the table as drawn; one with a new job draws the rows
    anew, and the open details window stays (it closed at the next auto refresh, 10 s)."""
    base = tmp_path / "logs"
    shutil.copytree(corpus / "lenet_sc", base / "lenet_sc")
    app = create_app(
        Settings(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0.5)
    )
    try:
        # One job: "/" lands on its dashboard (issue 38 item 10); "Summary List" opens the list.
        dash_duo.start_server(app)
        dash_duo.wait_for_element("#dashboard-cards")
        dash_duo.find_element("#nav-home").click()
        _wait_rows(dash_duo, {"./lenet_sc"})
        wait_idle(dash_duo)
        mark = "document.querySelector('#job-table tbody tr').dataset.mark = 'first'"
        dash_duo.driver.execute_script(mark)
        dash_duo.find_element('button[id*="lenet_sc"]').click()
        dash_duo.wait_for_contains_text("#param-details-modal", "Momentum")

        # What an auto refresh does (the details window's backdrop covers the button).
        def refresh() -> None:
            dash_duo.driver.execute_script("document.getElementById('refresh-now').click()")

        refresh()
        wait_idle(dash_duo)
        assert dash_duo.find_elements('#job-table tbody tr[data-mark="first"]')
        assert "Momentum" in dash_duo.find_element("#param-details-modal").text

        with SummaryWriter(base / "second", host="t") as writer:
            writer.add_scalar("loss", 1.0, 1)
        until(lambda: (refresh(), set(_rows(dash_duo)) == {"./lenet_sc", "./second"})[1], poll=0.5)
        wait_idle(dash_duo)
        assert not dash_duo.find_elements('#job-table tbody tr[data-mark="first"]')
        assert "Momentum" in dash_duo.find_element("#param-details-modal").text
        assert console_errors(dash_duo) == []
    finally:
        app.data_service.close()


def test_goto_page_box(dash_duo, tmp_path: Path) -> None:
    """MindInsight's "Go to" box: a page number and Enter opens that page."""
    for number in range(12):
        with SummaryWriter(str(tmp_path / "logs" / f"job{number:02d}")) as writer:
            writer.add_scalar("loss", 1.0, 1)
            writer.record(1)
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/?sort=path&order=asc&size=10")
        dash_duo.wait_for_text_to_equal("#job-page", "1 / 2")
        box = dash_duo.find_element("#job-goto")
        box.send_keys("2", Keys.ENTER)
        dash_duo.wait_for_text_to_equal("#job-page", "2 / 2")
        _wait_rows(dash_duo, {"./job10", "./job11"})
        assert "page=2" in dash_duo.driver.current_url
        assert console_errors(dash_duo) == []


def test_goto_page_reads_whole_numbers_only() -> None:
    assert [goto_page(v) for v in (2, "3", 4.0, None, "", "x", 0, -1, 2.5)] == [
        2,
        3,
        4,
        None,
        None,
        None,
        None,
        None,
        None,
    ]


def _twelve_jobs(base: Path) -> None:
    for number in range(12):
        with SummaryWriter(str(base / f"job{number:02d}")) as writer:
            writer.add_scalar("loss", 1.0, 1)
            writer.record(1)


def test_goto_past_the_last_page_writes_the_last_page(dash_duo, tmp_path: Path) -> None:
    """ "Go to 9" on a 2-page list shows page 2 and the URL says page 2 (issue 38 item 9)."""
    _twelve_jobs(tmp_path / "logs")
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/?sort=path&order=asc&size=10")
        dash_duo.wait_for_text_to_equal("#job-page", "1 / 2")
        dash_duo.find_element("#job-goto").send_keys("9", Keys.ENTER)
        dash_duo.wait_for_text_to_equal("#job-page", "2 / 2")
        until(lambda: "page=2" in dash_duo.driver.current_url)
        _wait_rows(dash_duo, {"./job10", "./job11"})
        assert "page=9" not in dash_duo.driver.current_url
        # "Next" on the last page stays there.
        dash_duo.find_element("#job-next").click()
        wait_idle(dash_duo)
        assert "page=3" not in dash_duo.driver.current_url
        assert dash_duo.find_element("#job-page").text == "2 / 2"
        assert console_errors(dash_duo) == []


def test_clamp_page_to_the_pages_there_are() -> None:
    assert [page_count(t, 10) for t in (0, 1, 10, 11, 20, 21)] == [1, 1, 1, 2, 2, 3]
    assert page_count(5, 0) == 5
    assert [clamp_page(p, 12, 10) for p in (0, 1, 2, 3, 9, 10**6)] == [1, 1, 2, 2, 2, 2]
    assert clamp_page(4, 0, 20) == 1


def test_page_size_menu_has_no_search_box(dash_duo, corpus_app) -> None:
    """The page-size menu is a plain choice of four sizes (the browser's select): no text box
    to search them."""
    dash_duo.start_server(corpus_app)
    _wait_rows(dash_duo, CORPUS_JOBS)
    sizes = [o.text for o in dash_duo.find_elements("select#job-page-size option")]
    assert sizes == [f"{n} / page" for n in (10, 20, 50, 100)]
    assert not dash_duo.find_elements(".di-pager input[type=search]")
    choose(dash_duo, "#job-page-size", "10 / page")
    until(lambda: "size=10" in dash_duo.driver.current_url)
    dash_duo.wait_for_text_to_equal("#job-page", "1 / 1")
    assert console_errors(dash_duo) == []


def test_analysis_links_are_one_tab_stop_each(dash_duo, corpus_app) -> None:
    """ "Lineage Analysis" and "Comparison Analysis" are one focusable element each (a button
    inside a link took two Tab presses), drawn as the secondary buttons they were."""
    dash_duo.start_server(corpus_app)
    _wait_rows(dash_duo, CORPUS_JOBS)
    head = ".di-page-head"
    focusable = dash_duo.driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' a, ' + arguments[0] +"
        " ' button')).map(e => e.textContent);",
        head,
    )
    assert focusable == ["Lineage Analysis", "Comparison Analysis"]
    first = dash_duo.driver.execute_script(
        "const a = document.querySelector(arguments[0] + ' a'); a.focus(); return a;", head
    )
    first.send_keys(Keys.TAB)
    active = dash_duo.driver.switch_to.active_element
    assert active.text == "Comparison Analysis"
    look = (
        "const s = getComputedStyle(arguments[0]);"
        "return [s.borderTopStyle, s.borderTopWidth, s.paddingLeft, s.textDecorationLine];"
    )
    assert dash_duo.driver.execute_script(look, active) == ["solid", "1px", "14px", "none"]
    active.send_keys(Keys.ENTER)
    until(lambda: dash_duo.driver.current_url.endswith("/compare"))
    assert console_errors(dash_duo) == []
