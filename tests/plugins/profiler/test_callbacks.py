"""The profiler pages' callbacks called as plain functions (no browser, no Dash), over
``../shared/corpus-profiler``: the URL the controls write, what each page draws and when it
draws nothing, the drill-down pages and the CSV export."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dash
import pytest

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.profiler import dashboard_page, operator_page, page_shared, timeline_page
from dash_insight.plugins.profiler.service import ProfilerService
from dash_insight.web.url_state import parse_search
from tests.pages import text

LENET = "?train_id=.%2Flenet_prof"


@pytest.fixture(scope="module")
def service(profiler_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    data = DataService(
        Settings(profiler_corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0)
    )
    data.loader.load_round()
    yield ProfilerService(data.provider)
    data.close()


APP = dash.Dash(__name__)


def _controls(trigger: Any, search: str = LENET, **values: Any) -> Any:
    args: dict[str, Any] = {
        "chart": "pie",
        "measure": None,
        "view": "type",
        "type_search": None,
        "op_search": None,
        "prev": None,
        "next": None,
        "size": None,
        "goto": None,
    }
    args.update(values)
    return operator_page.controls_to_url(trigger, *args.values(), search)


def test_operator_controls_write_the_url() -> None:
    assert parse_search(_controls("prof-view", view="all"))["view"] == "all"
    assert parse_search(_controls("prof-op-search", op_search=" Conv "))["q"] == "Conv"
    assert parse_search(_controls("prof-next"))["page"] == "2"
    assert "page" not in parse_search(_controls("prof-prev", LENET + "&page=2"))
    assert parse_search(_controls("prof-goto", goto=7))["page"] == "7"
    assert _controls(None, view="all") is dash.no_update  # controls just drawn
    assert _controls("prof-goto", goto="x") is dash.no_update  # a hostile page number
    assert _controls("prof-view", view="type") is dash.no_update  # the state shown
    assert _controls("prof-size", size=10**9) is dash.no_update  # not a page size: default


def test_operator_chart_and_table_redraw_only_when_asked(service: ProfilerService) -> None:
    page = operator_page.PATH
    figure, title, _legend, key = operator_page.render_chart(
        APP, service, "url", True, LENET, None, page, None
    )
    assert figure["data"] and title and key
    # The URL it was drawn for: nothing; a click on Refresh: drawn again.
    assert operator_page.render_chart(APP, service, "url", True, LENET, None, page, key) == (
        (dash.no_update,) * 4
    )
    again = operator_page.render_chart(APP, service, "refresh-now", True, LENET, 1, page, key)
    assert again[3] == key and again[0] is not dash.no_update
    assert operator_page.render_chart(APP, service, "url", True, LENET, None, "/x", None) == (
        (dash.no_update,) * 4
    )
    table, total, *_rest, drawn = operator_page.render_table(
        APP, service, "url", True, LENET, None, None, page, None
    )
    assert "AssignAdd" in text(table) and total == "" and drawn  # no total in the type view
    unchanged = operator_page.render_table(APP, service, "url", True, LENET, None, {}, page, drawn)
    assert unchanged == (dash.no_update,) * 8


def test_drill_down_pages_and_export(service: ProfilerService) -> None:
    trigger = {"type": "prof-sub-page", "op_type": "MatMul", "step": 1}
    assert operator_page.sub_page(trigger, True, [1], None) == {"MatMul": 1}
    assert operator_page.sub_page(trigger, True, [1], {"MatMul": 1}) == {"MatMul": 2}
    assert operator_page.sub_page({**trigger, "step": -1}, True, [1], "junk") == {"MatMul": 0}
    assert operator_page.sub_page(trigger, False, [None], None) is dash.no_update  # drawn
    assert operator_page.export(service, None, LENET) is dash.no_update
    sent = operator_page.export(service, 1, LENET)
    assert sent["filename"] == "lenet_prof_op_types_device0.csv"
    assert sent["content"].splitlines()[0].startswith("op_type,")
    everything = operator_page.export(service, 1, LENET + "&view=all")
    assert everything["filename"].startswith("lenet_prof_operators_device")
    assert operator_page.export(service, 1, "?train_id=./nowhere") is dash.no_update


def test_timeline_controls_zoom_and_render(service: ProfilerService) -> None:
    assert timeline_page.controls_to_url(None, 2, "scope", LENET) is dash.no_update
    assert parse_search(timeline_page.controls_to_url("prof-step", 2, None, LENET))["step"] == "2"
    assert timeline_page.zoom("prof-reset", None, 1, LENET) == {"search": LENET, "window": None}
    assert timeline_page.zoom("prof-timeline", {"autosize": True}, None, LENET) is dash.no_update
    assert timeline_page.zoom("prof-timeline", "junk", None, LENET) is dash.no_update  # type: ignore[arg-type]
    zoomed = timeline_page.zoom(
        "prof-timeline", {"xaxis.range[0]": 1.0, "xaxis.range[1]": 2.0}, None, LENET
    )
    assert zoomed == {"search": LENET, "window": [1000.0, 2000.0]}  # ms on the axis, µs kept
    path = timeline_page.PATH
    figure, info, steps, _problems, _style = timeline_page.render(
        APP, service, LENET, None, None, path
    )
    assert figure["data"] and " ms · " in info and steps[0]["value"] == 0
    _figure, info, *_rest = timeline_page.render(APP, service, LENET, zoomed, None, path)
    assert info.startswith("1.000 – 2.000 ms")
    assert timeline_page.render(APP, service, LENET, None, None, "/x") == (dash.no_update,) * 5
    missing = timeline_page.render(APP, service, "?train_id=./nowhere", None, None, path)
    assert missing[0] == {"data": [], "layout": {"height": 60}}


def test_dashboard_and_device_selector(service: ProfilerService) -> None:
    cards = dashboard_page.show(APP, service, LENET, None, dashboard_page.PATH)
    assert len(cards) >= 3
    assert dashboard_page.show(APP, service, LENET, None, "/x") is dash.no_update
    nowhere = dashboard_page.show(APP, service, "?train_id=./nowhere", None, dashboard_page.PATH)
    assert len(nowhere) == 1
    _selector, *links = page_shared.device_and_tabs(APP, service, LENET, dashboard_page.PATH)
    assert all(LENET[1:] in link for link in links) and len(links) == len(page_shared.TABS)
    assert page_shared.choose_device("0", LENET + "&device=0") is dash.no_update  # shown
    assert parse_search(page_shared.choose_device("1", LENET))["device"] == "1"
    assert page_shared.choose_device(None, LENET) is dash.no_update
