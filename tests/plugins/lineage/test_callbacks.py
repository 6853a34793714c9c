"""The lineage page's callbacks called as plain functions (no browser, no Dash): what each
answers for the URLs and clicks a user makes, and for bodies no page sends."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import dash
import pytest
from dash.exceptions import PreventUpdate

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.lineage import figures, page
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.web.binding import triggered
from dash_insight.web.url_state import parse_search
from tests.pages import walk

DASHBOARD = "/prefix/dashboard"
#: The outputs of ``render`` by name, in the order it answers them.
RENDER_OUTPUTS = (
    "spec",
    "axes",
    "table",
    "column_options",
    "columns",
    "summary",
    "colour_options",
    "colour",
    "count",
    "problems",
    "overview_style",
    "model_tab",
    "dataset_tab",
    "signature",
    "auto_colour",
)


@pytest.fixture(scope="module")
def service(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    data = DataService(Settings(corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0))
    data.loader.load_round()
    yield LineageService.from_data(data)
    data.close()


def _render(service: LineageService, search: str, previous: Any = None) -> dict[str, Any]:
    answer = page.render(service, DASHBOARD, search, None, None, 0, previous)
    return dict(zip(RENDER_OUTPUTS, answer, strict=True))


def test_render_draws_the_model_tab_and_links_each_job(service: LineageService) -> None:
    shown = _render(service, "")
    rows = shown["table"]["rows"]
    jobs = {row["train_id"] for row in rows}
    assert {"./lenet_sc", "./lenet_lr0.01_bs32"} <= jobs
    assert all(row["summary_dir"].startswith(DASHBOARD + "?train_id=") for row in rows)
    assert shown["table"]["defs"]  # the first answer sends the columns
    assert shown["count"] == f"{len(rows)} of {len(rows)} jobs"
    assert shown["model_tab"] == "active" and shown["overview_style"] is None
    assert shown["problems"] == ""
    # Nothing changed since: the auto refresh sends nothing.
    with pytest.raises(PreventUpdate):
        _render(service, "", shown["signature"])


def test_render_hides_rows_and_names_unknown_columns(service: LineageService) -> None:
    search = figures.state_search(
        figures.PageState(tab="dataset", columns=("nope",), hide=("./lenet_sc",))
    )
    shown = _render(service, search)
    assert "./lenet_sc" not in {row["train_id"] for row in shown["table"]["rows"]}
    assert "1 hidden" in shown["count"]
    assert "nope" in shown["problems"]
    assert shown["dataset_tab"] == "active" and shown["overview_style"] == {"display": "none"}


def test_overview_over_the_jobs_in_the_table(service: LineageService) -> None:
    targets, target, params, param, note, auto, *charts = page.overview(service, "", None, None)
    assert target in [t["value"] for t in targets]
    # Each chart's box is as high as its chart before it is drawn.
    specs, places = charts[:3], charts[3:]
    assert [spec["height"] for spec in specs] == [200, 46 * len(params) + 60, 240]
    assert places[1] == {"height": f"{specs[1]['height']}px"} and len(places) == 3
    assert param in [p["value"] for p in params]
    assert auto == {"objective": target, "param": param}
    assert note.startswith("Over the")
    with pytest.raises(PreventUpdate):
        page.overview(service, "?tab=dataset", None, None)


def test_controls_write_only_what_the_user_chose(service: LineageService) -> None:
    def url(trigger: str, **values: Any) -> Any:
        args = {"columns": None, "colour": None, "objective": None, "param": None}
        args.update(values)
        return page.controls_to_url(
            service, trigger, *args.values(), "loss", {"objective": "loss", "param": "epoch"}, ""
        )

    assert parse_search(url("lineage-color", colour="metric/Accuracy")) == {
        "color": "metric/Accuracy"
    }
    assert url("lineage-color", colour="loss") is dash.no_update  # what the page chose
    assert url("lineage-objective", objective="loss") is dash.no_update
    assert parse_search(url("lineage-param", param="batch_size")) == {"param": "batch_size"}
    chosen = parse_search(url("lineage-columns", columns=["epoch", "loss"]))
    assert figures.split_ids(chosen["columns"]) == ("epoch", "loss")
    # A hostile body: a million columns keeps the first MAX_STATE_ITEMS.
    many = url("lineage-columns", columns=[f"c{i}" for i in range(10**6)])
    assert len(figures.split_ids(parse_search(many)["columns"])) == figures.MAX_STATE_ITEMS


def test_all_or_no_columns() -> None:
    options = [{"label": "a", "value": "a"}, {"label": "b", "value": "b"}, "junk"]
    assert page.all_or_no_columns("lineage-columns-all", 1, None, options) == ["a", "b"]
    assert page.all_or_no_columns("lineage-columns-none", None, 1, options) == []


def test_brush_to_url_filters_and_clears(service: LineageService) -> None:
    axes = [{"id": "epoch", "kind": "number", "low": 0.0, "high": 10.0}]
    brushed = page.brush_to_url({"axis": 0, "id": "epoch", "ranges": [[0.5, 1.0]]}, axes, "")
    assert json.loads(parse_search(brushed)["filters"]) == {"epoch": [[5.0, 10.0]]}
    assert page.brush_to_url({"axis": 0, "id": "epoch", "ranges": None}, axes, brushed) == ""
    for event, shown in (
        ({"axis": 0, "id": "loss", "ranges": None}, axes),  # the chart changed under the drag
        ({"axis": 3, "id": "epoch", "ranges": None}, axes),
        ("junk", axes),
        ({"axis": 0, "id": "epoch", "ranges": None}, "junk"),
    ):
        with pytest.raises(PreventUpdate):
            page.brush_to_url(event, shown, "")


def test_sort_and_selection_to_url() -> None:
    sorted_state = [{"colId": "epoch", "sort": "desc", "sortIndex": 0}]
    assert parse_search(page.sort_to_url(sorted_state, "")) == {"sort": "epoch:desc"}
    assert page.sort_to_url([], "") is dash.no_update
    assert page.sort_to_url(["junk", {"sort": "sideways"}], "") is dash.no_update
    with pytest.raises(PreventUpdate):
        page.sort_to_url(None, "")

    rows = [{"train_id": "./a"}, {"train_id": "./b"}, {"nope": 1}, "junk"]
    show = page.selection_to_url("lineage-show-selected", 1, None, None, rows, "?hide=./c")
    assert parse_search(show) == {"show": "./a,./b"}
    hide = page.selection_to_url("lineage-hide-selected", None, 1, None, rows, "?hide=./c")
    assert figures.split_ids(parse_search(hide)["hide"]) == ("./c", "./a", "./b")
    assert page.selection_to_url("lineage-show-all", None, None, 1, [], show) == ""
    for selected in ([], "junk", None):
        with pytest.raises(PreventUpdate):
            page.selection_to_url("lineage-hide-selected", None, 1, None, selected, "")
    many = [{"train_id": f"./j{i}"} for i in range(10**5)]
    hidden = page.selection_to_url("lineage-hide-selected", None, 1, None, many, "")
    assert len(figures.split_ids(parse_search(hidden)["hide"])) == figures.MAX_STATE_ITEMS


def test_show_archived_switch_to_url() -> None:
    shown = page.show_archived_to_url(["on"], "?hide=./c")
    assert parse_search(shown) == {"hide": "./c", "archived": "1"}
    assert page.show_archived_to_url([], shown) == "?hide=.%2Fc"
    assert page.show_archived_to_url(True, shown) is dash.no_update  # says the same
    assert page.show_archived_to_url(None, "?hide=./c") is dash.no_update


def test_save_edit_saves_remarks_and_tags_of_jobs_with_lineage(service: LineageService) -> None:
    changes = [
        {"colId": "remark", "data": {"train_id": "./lenet_sc"}, "value": "best so far"},
        {"colId": "tag", "data": {"train_id": "./lenet_sc"}, "value": "3"},
        {"colId": "remark", "data": {"train_id": "./nope"}, "value": "x"},
        {"colId": "epoch", "data": {"train_id": "./lenet_sc"}, "value": 9},  # not editable
        "junk",
    ]
    status, saves = page.save_edit(service, changes, 4)
    assert saves == 5
    assert "Saved the remark of ./lenet_sc." in status
    assert "Saved the tag of ./lenet_sc." in status
    assert "./nope: no lineage of this train job; nothing saved." in status
    assert service.remarks.all()["./lenet_sc"] == {"remark": "best so far", "tag": 3}
    status, saves = page.save_edit(
        service, [{"colId": "tag", "data": {"train_id": "./lenet_sc"}, "value": "x"}], True
    )
    assert saves == 1 and "./lenet_sc: " in status  # a tag must be 0..10
    assert page.save_edit(service, "junk", None) == ("", 1)  # type: ignore[arg-type]


def test_triggered_callbacks_take_the_trigger_from_dash() -> None:
    """A callback bound with ``triggered`` shows Dash (and ``web.callback_types``) the
    function's parameters without the trigger."""
    bound = triggered(page.all_or_no_columns)
    assert list(inspect.signature(bound).parameters) == ["_all", "_none", "options"]


@pytest.mark.parametrize("search", ["", "?tab=dataset&sort=loss%3Adesc"])
def test_the_layout_comes_drawn(service: LineageService, search: str) -> None:
    """The layout holds what ``render``, ``overview`` and ``compare_links`` answer for its URL
    (bound with prevent_initial_call: no round trip before the first screen); the first
    refresh with nothing new sends nothing."""
    drawn = {
        json.dumps(c.id, sort_keys=True) if isinstance(c.id, dict) else c.id: c
        for c in walk(page.layout(dash.Dash(__name__), service, parse_search(search)))
        if getattr(c, "id", None) is not None
    }
    answer = page.render(service, "/dashboard", search, None, None, None, None)
    shown = dict(zip(RENDER_OUTPUTS, answer, strict=True))
    assert drawn["lineage-chart-spec"].data == shown["spec"]
    assert drawn["lineage-table"].data == shown["table"] and shown["table"]["rows"]
    assert drawn["lineage-columns"].value == shown["columns"]
    assert drawn["lineage-count"].children == shown["count"]
    with pytest.raises(PreventUpdate):
        _render(service, search, drawn["lineage-signature"].data)
    distribution = getattr(drawn["lineage-distribution"], "spec", None)
    objective = getattr(drawn["lineage-objective"], "value", None)
    if search:  # the data lineage tab has no overview
        assert distribution is None and objective is None
    else:
        assert distribution == page.overview(service, search, None, None)[6]
        assert objective == page.overview(service, search, None, None)[1]
    assert drawn["lineage-compare-filtered"].href.startswith("/compare?jobs=")
