"""Runs you can put away (issue 40 item 4): the REST routes of the runs' archive state and
labels, the lineage page's archive buttons and labels column, the job pickers leaving archived
runs out unless "show archived runs" is on, and the archive surviving a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from dash_insight.core.run_marks import RunMarks, run_marks_path
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.histograms import compare_page as histograms
from dash_insight.plugins.images import compare_page as images
from dash_insight.plugins.lineage import figures, page
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.plugins.scalars import compare_page as scalars
from dash_insight.web.components.compare_runs import RunPicker, jobs_with
from dash_insight.web.components.compare_tabs import archived_search, label_texts
from dash_insight.web.components.tag_select import filter_tags, picker_view
from dash_insight.web.url_state import encode_tags
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import picker_rows
from tests.plugins.lineage.test_page import LINEAGE_JOBS, _app, _table, _wait_table

MARKS = "/v1/dash-insight/lineage/run-marks"


@pytest.fixture
def app(corpus: Path, tmp_path: Path) -> Any:
    built = _app(corpus, tmp_path / "ws")
    yield built
    built.data_service.close()


def test_rest_reads_and_sets_marks(app: Any) -> None:
    client = app.server.test_client()
    assert client.get(MARKS).get_json() == {"runs": {}}
    answer = client.put(MARKS + "?train_id=./lenet_sc", json={"archived": True})
    assert answer.status_code == 200
    assert answer.get_json() == {"train_id": "./lenet_sc", "archived": True, "labels": []}
    answer = client.put(MARKS + "?train_id=./lenet_sc", json={"labels": ["baseline", " lr "]})
    assert answer.get_json()["labels"] == ["baseline", "lr"]
    assert client.get(MARKS).get_json() == {
        "runs": {"./lenet_sc": {"archived": True, "labels": ["baseline", "lr"]}}
    }


@pytest.mark.parametrize(
    ("query", "body", "status", "words"),
    [
        ("", {"archived": True}, 400, "train_id"),
        ("?train_id=./nope", {"archived": True}, 400, "Can not find the train job"),
        ("?train_id=../x", {"archived": True}, 400, "relative"),
        ("?train_id=./lenet_sc", {"archived": "yes"}, 400, "true or false"),
        ("?train_id=./lenet_sc", {"labels": ["x" * 40]}, 400, "at most 32 characters"),
        ("?train_id=./lenet_sc", {"labels": [str(i) for i in range(9)]}, 400, "at most 8"),
        ("?train_id=./lenet_sc", {"other": 1}, 400, "Unknown keys"),
        ("?train_id=./lenet_sc", [1], 400, "must be an object"),
    ],
)
def test_rest_refuses_bad_input_with_a_reason(
    app: Any, query: str, body: Any, status: int, words: str
) -> None:
    answer = app.server.test_client().put(MARKS + query, json=body)
    assert answer.status_code == status
    assert words in answer.get_json()["error_msg"]
    assert app.data_service.provider.run_marks.all() == {}


def test_rest_refuses_a_body_that_is_not_json(app: Any) -> None:
    answer = app.server.test_client().put(
        MARKS + "?train_id=./lenet_sc", data=b"{", content_type="application/json"
    )
    assert answer.status_code == 400
    assert "Json data parse failed" in answer.get_json()["error_msg"]


def test_archived_runs_leave_every_picker_unless_shown(app: Any) -> None:
    provider = app.data_service.provider
    provider.run_marks.update("./lenet_sc", {"archived": True})
    state, jobs, _tags = scalars.current_state(provider, "")
    assert "./lenet_sc" not in jobs and "./lenet_sc" not in state.jobs
    state, jobs, _tags = scalars.current_state(provider, "?archived=1")
    assert "./lenet_sc" in jobs
    # The switch is kept by the scalar comparison's own controls.
    search = scalars.controls_search(
        state, jobs, {}, "compare-next", None, "", None, "", "step", 0.0
    )
    assert "archived=1" in search
    # The histogram and image comparisons (their pickers and bodies).
    assert "./lenet_sc" not in jobs_with(provider, PluginName.HISTOGRAM, {})[0]
    assert "./lenet_sc" in jobs_with(provider, PluginName.HISTOGRAM, {"archived": "1"})[0]
    assert "./lenet_sc" in jobs_with(provider, PluginName.HISTOGRAM)[0]  # colours: every run
    picker = RunPicker(
        "hcmp-jobs", lambda params: jobs_with(provider, PluginName.HISTOGRAM, params)[0]
    )
    assert "./lenet_sc" not in picker.current("").jobs
    assert "./lenet_sc" in picker.current("?archived=1").jobs
    # The switch writes the URL, keeping every other parameter.
    assert archived_search(["archived"], "?jobs=a") == "?jobs=a&archived=1"
    assert archived_search([], "?jobs=a&archived=1") == "?jobs=a"


@pytest.mark.parametrize(
    ("plugin", "module"),
    [(PluginName.HISTOGRAM, histograms), (PluginName.IMAGE, images)],
    ids=["histograms", "images"],
)
def test_labels_are_searched_by_the_tag_comparisons(app: Any, plugin: PluginName, module) -> None:
    """The histogram and image comparisons' job filter finds runs by their labels (#40 item
    4): in the picker, the URL it writes and the runs the body draws."""
    service = app.data_service
    provider = service.provider
    jobs = jobs_with(provider, plugin, {})[0]
    labelled, other = jobs[0], jobs[1]
    provider.run_marks.update(labelled, {"labels": ["sweep-b"]})
    picker = RunPicker(
        "cmp-jobs",
        lambda params: jobs_with(provider, plugin, params)[0],
        lambda names: label_texts(provider, names),
    )
    search = "?job_filter=%23sweep&jobs=" + quote(encode_tags([labelled, other]))
    names, ticked, pattern, texts = picker.picked(search)
    assert texts[labelled] == f"{labelled} #sweep-b" and pattern == "#sweep"
    assert picker.current(search).shown == [labelled]
    assert picker_view(names, ticked, pattern, "job", texts=texts).rows == [labelled]
    # "None" unticks only the runs the filter finds.
    after = picker.picker_to_url("cmp-jobs-none", True, None, None, 1, "#sweep", search)
    assert picker.current(after).selected == [other]
    # The page drawn: its picker and the runs its body draws.
    layout = str(module.layout(app, service, {"job_filter": "sweep-b"}))
    assert labelled in layout
    extra = (str,) if module is images else ()  # the images' relative path
    drawn = str(module.body(service, *extra, search, None, None, None, None)[8])
    assert labelled in drawn and other not in drawn


def test_lineage_table_and_its_labels(app: Any) -> None:
    service = app.data_service
    lineage = LineageService.from_data(service)
    assert figures.parse_state({"archived": "1"})[0].archived
    assert "archived=1" in figures.state_search(figures.PageState(archived=True))
    # A labels cell edited in the table is saved (and refused with a reason when too long).
    change = {"colId": "labels", "data": {"train_id": "./lenet_sc"}, "value": "base, lr sweep"}
    status, _count = page.save_edit(lineage, [change], 0)
    assert "./lenet_sc" in status
    assert service.provider.run_marks.labels() == {"./lenet_sc": ["base", "lr sweep"]}
    status, _count = page.save_edit(lineage, [{**change, "value": "x" * 40}], 0)
    assert "at most 32 characters" in status
    rows = figures.grid_row_data([{"train_id": "./lenet_sc"}], [], {}, str, {"./lenet_sc": ["a"]})
    assert rows[0]["labels"] == "a"
    # Archive the ticked rows, then restore them.
    ticked = [{"train_id": "./lenet_sc"}, {"train_id": "./nope"}, "junk"]
    status, count = page.archive_selected(lineage, "lineage-archive", True, 1, None, ticked, 3)
    assert (status, count) == ("Archived 1 run.", 4)
    assert service.provider.run_marks.archived() == {"./lenet_sc"}
    page.archive_selected(lineage, "lineage-unarchive", True, None, 1, ticked, 4)
    assert service.provider.run_marks.archived() == set()
    # The file is the one beside the remarks.
    path = run_marks_path(service.workspace, service.summary_base_dir)
    assert RunMarks(path).labels() == {"./lenet_sc": ["base", "lr sweep"]}


@pytest.mark.browser
def test_archive_survives_a_restart(dash_duo, corpus: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    app = _app(corpus, workspace)
    try:
        dash_duo.start_server(app)
        dash_duo.driver.add_cookie({"name": "di_language", "value": "zh_CN"})
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        _wait_table(dash_duo, LINEAGE_JOBS)
        button = dash_duo.find_element("#lineage-archive")
        assert button.text == "归档所选"
        until(
            lambda: dash_duo.driver.execute_script(
                "const api = window.dash_ag_grid && dash_ag_grid.getApi('lineage-grid');"
                "const node = api && api.getRowNode('./lenet_sc');"
                "if (node) node.setSelected(true); return !!node;"
            ),
            20,
        )
        button.click()
        archived = "已归档 1 个运行。"
        dash_duo.wait_for_contains_text("#lineage-status", archived)
        _wait_table(dash_duo, LINEAGE_JOBS - {"./lenet_sc"})
        wait_idle(dash_duo)
        assert not console_errors(dash_duo)
    finally:
        dash_duo.stop_server()
        app.data_service.close()

    restarted = _app(corpus, workspace)  # a new app on the same workspace
    try:
        dash_duo.start_server(restarted)
        dash_duo.wait_for_page(dash_duo.server_url + "/compare")

        def picker() -> set[str]:
            return set(picker_rows(dash_duo, "compare-jobs")["rows"])

        every = set(scalars.scalar_jobs(restarted.data_service.provider)[0])
        assert "./lenet_sc" in every
        until(lambda: picker() == every - {"./lenet_sc"}, 30)
        switch = dash_duo.find_element("#compare-show-archived")
        assert "显示已归档的运行" in switch.text
        switch.find_element("css selector", "input").click()
        until(lambda: "archived=1" in dash_duo.driver.current_url, 20)
        until(lambda: picker() == every, 30)
        # The lineage table still leaves it out; its switch brings it back.
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        _wait_table(dash_duo, LINEAGE_JOBS - {"./lenet_sc"})
        dash_duo.find_element("#lineage-show-archived input").click()
        _wait_table(dash_duo, LINEAGE_JOBS)
        assert set(_table(dash_duo)) == LINEAGE_JOBS
        wait_idle(dash_duo)
        assert not console_errors(dash_duo)
    finally:
        restarted.data_service.close()


def test_the_scalar_comparison_job_filter_finds_labels(app: Any) -> None:
    provider = app.data_service.provider
    provider.run_marks.update("./lenet_sc", {"labels": ["baseline"]})
    provider.run_marks.update("./ops_all", {"labels": ["Baseline-2"]})
    every = f"?jobs={quote(encode_tags(scalars.scalar_jobs(provider)[0]))}"
    state, jobs, _tags = scalars.current_state(provider, every + "&job_filter=%23baseline")
    assert state.shown_jobs == [j for j in jobs if j in {"./lenet_sc", "./ops_all"}]
    assert len(state.shown_jobs) == 2
    # A plain word finds a name or a label; the picker's list and count search the same.
    state, _jobs, _tags = scalars.current_state(provider, every + "&job_filter=lenet_sc")
    assert state.shown_jobs == ["./lenet_sc"]
    view = picker_view(jobs, None, "#baseline", "job", texts=label_texts(provider, jobs))
    assert set(view.rows) == {"./lenet_sc", "./ops_all"}
    assert filter_tags(["./a", "./b"], "#x", {"./b": "./b #x"}) == (["./b"], None)
    assert filter_tags(["./a", "./b"], "#x") == ([], None)
