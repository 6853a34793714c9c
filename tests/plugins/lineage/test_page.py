"""The lineage page (``/lineage``): its pure builders, and in headless Chromium: brushing an axis
filters the table, sorting a column, editing a remark that survives a restart, the data lineage
tab."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

import pytest
from dash.testing import errors as testing_errors
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from dash_insight.plugins.lineage import figures
from dash_insight.plugins.lineage import query as lineage_data
from dash_insight.plugins.lineage.service import LineageService
from dash_insight.web.url_state import parse_search
from tests.browser import until, wait_idle
from tests.conftest import console_errors
from tests.pages import callbacks_sent, hover_svg_mark
from tests.plugins.lineage import chart_driver as chart

# -- pure builders ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def entries(corpus: Path, tmp_path_factory: pytest.TempPathFactory):
    service = DataService(
        Settings(corpus, workspace=tmp_path_factory.mktemp("ws"), reload_interval=0)
    )
    service.loader.load_round()
    yield LineageService.from_data(service).lineages()
    service.close()


def test_state_round_trip_and_bad_parameters() -> None:
    state = figures.PageState(
        tab="dataset",
        columns=("a,b", "metric/Accuracy"),
        color="loss",
        sort=("user_defined/x:y", "desc"),
        filters={"epoch": [[1, None]], "network": ["LeNet5"]},
        show=("./a",),
        hide=("./b",),
        objective="loss",
        param="epoch",
    )
    search = figures.state_search(state)
    parsed, problems = figures.parse_state(parse_search(search))
    assert parsed == state and problems == []
    assert figures.state_search(figures.PageState()) == ""
    parsed, problems = figures.parse_state({"tab": "x", "sort": "epoch", "filters": "{nope"})
    assert parsed == figures.PageState() and len(problems) == 3
    parsed, _ = figures.parse_state({"filters": json.dumps({"epoch": [[1, "x"]]})})
    assert parsed.filters == {}


def test_model_tab_columns_and_rows(entries) -> None:
    data = figures.model_tab(entries)
    ids = [c.id for c in data.columns]
    assert ids[0] == "dataset_mark" and "metric/Accuracy" in ids and "user_defined/seed" in ids
    kinds = {c.id: c.kind for c in data.columns}
    assert kinds["learning_rate"] == "number" and kinds["network"] == "category"
    assert kinds["user_defined/seed"] == "number" and kinds["user_defined/notes"] == "category"
    sc = next(r for r in data.rows if r["train_id"] == "./lenet_sc")
    assert sc["model_size"] == 0.47 and sc["metric/Accuracy"] == 0.6953125
    assert [c.id for c in data.colour_columns] == ["metric/Accuracy", "metric/Loss", "loss"]
    assert "train_dataset_path" not in data.default_columns


def test_dataset_tab_stages_and_key_parameters(entries) -> None:
    data = figures.dataset_tab(entries)
    ids = [c.id for c in data.columns]
    assert ids[:2] == ["MnistDataset", "GeneratorDataset"]
    assert "Batch 1 · batch_size" in ids and "Map 1" in ids
    assert "Shuffle 1 · buffer_size" not in ids  # the same in every job
    labels = data.labels["Batch 1"]
    assert sorted(labels.values()) == ["batch_size=16", "batch_size=32", "batch_size=64"]
    adam = next(r for r in data.rows if r["train_id"] == "./lenet_adam_lr0.001_bs32")
    assert json.loads(adam["Batch 1"])["batch_size"] == 32 and "MnistDataset" not in adam


def test_filters_and_brush_ranges() -> None:
    column = figures.Column("x", "x", "number", "field")
    rows = [{"train_id": "a", "x": 1.0}, {"train_id": "b", "x": None}, {"train_id": "c", "x": 5}]
    axis = figures.axis_for(column, rows)
    assert axis.missing is not None and axis.missing < axis.low == 1.0
    assert figures.filter_from_ranges(axis, [[2, 6]]) == [[2.0, 6.0]]
    assert figures.filter_from_ranges(axis, [[axis.missing - 0.1, 1.5]]) == [[None, 1.5]]
    kinds = {"x": "number"}
    assert [r["train_id"] for r in rows if figures.row_passes(r, {"x": [[None, 1.5]]}, kinds)] == [
        "a",
        "b",
    ]
    assert figures.constraint_ranges(axis, [[2.0, 6.0]]) == [[2.0, 6.0]]
    category = figures.Column("n", "n", "category", "field")
    rows = [{"n": "b"}, {"n": None}, {"n": "a"}, {"n": "c"}]
    axis = figures.axis_for(category, rows)
    assert axis.categories == ("n/a", "a", "b", "c")
    assert figures.filter_from_ranges(axis, [[0.6, 2.2]]) == ["a", "b"]
    assert figures.constraint_ranges(axis, ["a", "b", "n/a"]) == [[-0.5, 2.5]]
    assert figures.row_passes({"n": None}, {"n": ["n/a"]}, {"n": "category"})
    assert figures.row_passes({"n": "z"}, {"other": ["q"]}, {"n": "category"})  # unknown column


def test_grid_helpers() -> None:
    rows = figures.grid_row_data(
        [{"train_id": "./a_[b]", "epoch": 3}],
        [figures.Column("epoch", "epoch", "number", "field")],
        {"./a_[b]": {"remark": "r", "tag": 2}},
        lambda train_id: f"/dashboard?train_id={train_id}",
    )
    # The link's target; its text is the train_id (LineageLink, no markdown to escape).
    assert rows == [
        {
            "train_id": "./a_[b]",
            "summary_dir": "/dashboard?train_id=./a_[b]",
            "remark": "r",
            "tag": 2,
            "labels": "",  # the run's labels (#40 item 4), none here
            "epoch": 3,
        }
    ]
    state = [
        {"colId": "epoch", "sort": "desc", "sortIndex": 1},
        {"colId": "loss", "sort": "asc", "sortIndex": 0},
        {"colId": "x", "sort": None},
    ]
    assert figures.sort_from_column_state(state) == ("loss", "asc")
    assert figures.sort_from_column_state([]) is None
    defs = figures.grid_column_defs(
        [figures.Column("epoch", "epoch", "number", "field")], ("epoch", "desc")
    )
    assert [d.get("colId", d.get("groupId")) for d in defs] == [
        "summary_dir",
        "group-hyper",
        "remark",
        "tag",
        "labels",
    ]
    epoch = defs[1]["children"][0]
    assert epoch["colId"] == "epoch" and epoch["sort"] == "desc"
    assert defs[2]["editable"] and defs[3]["editable"] and defs[4]["editable"]


def test_grid_headers_grouped(entries) -> None:
    """#38 item 8: a header row above the column names, as MindInsight's table: metrics,
    hyper-parameters, user-defined values, dataset, each over its columns only."""
    data = figures.model_tab(entries)
    defs = figures.grid_column_defs(data.columns, None)
    groups = {d["groupId"]: d for d in defs if "groupId" in d}
    assert list(groups) == ["group-metrics", "group-hyper", "group-user", "group-dataset"]
    assert [groups[g]["headerName"] for g in groups] == [
        "Metrics",
        "Hyper-parameters",
        "User-defined",
        "Dataset",
    ]
    children = {g: [c["colId"] for c in d["children"]] for g, d in groups.items()}
    assert children["group-metrics"] == ["metric/Accuracy", "metric/Loss", "loss"]
    assert all(c.startswith("user_defined/") for c in children["group-user"])
    assert "dataset_mark" in children["group-dataset"] and "epoch" in children["group-hyper"]
    leaves = [c for d in defs for c in d.get("children", [d])]
    assert sorted(c["colId"] for c in leaves) == sorted(
        ["summary_dir", "remark", "tag", "labels", *(c.id for c in data.columns)]
    )
    dataset = figures.grid_column_defs(figures.dataset_tab(entries).columns, None)
    assert [d["groupId"] for d in dataset if "groupId" in d] == ["group-dataset"]


def test_parallel_chart(entries) -> None:
    data = figures.model_tab(entries)
    state = figures.PageState(filters={"batch_size": [[30, 70]]})
    columns = figures.chosen_columns(data, state)
    shown = {r["train_id"] for r in figures.table_rows(data, state)}
    spec, axes = figures.parallel_chart(
        data.rows,
        columns,
        figures.colour_column(data, state),
        state.filters,
        data.labels,
        [r["train_id"] in shown for r in data.rows],
    )
    assert len(spec["axes"]) == len(columns) == len(axes)
    batch = next(a for a in spec["axes"] if a["title"] == ["batch_size"])
    assert batch["brushes"] == [[(30 - 16) / (64 - 16), 1.0]]  # 30..70 on an axis of 16..64
    assert spec["colourbar"]["title"] == "[M]Accuracy"
    assert len(spec["lines"]) == len(data.rows)
    assert {line["id"] for line in spec["lines"] if line["selected"]} == shown
    assert len(shown) == 4
    empty, _ = figures.parallel_chart([], columns, None, {})
    assert not empty["lines"] and empty["message"]


# -- browser ---------------------------------------------------------------------------------


def _table(dash_duo) -> list[str]:
    """Summary paths shown by the grid, top to bottom (read in one go)."""
    return dash_duo.driver.execute_script("""
        const rows = Array.from(document.querySelectorAll(
            '#lineage-grid .ag-pinned-left-cols-container [col-id="summary_dir"]'));
        return rows.map(c => [c.closest('.ag-row').getAttribute('row-index'), c.textContent])
                   .sort((a, b) => Number(a[0]) - Number(b[0])).map(x => x[1].trim());""")


def _wait_table(dash_duo, expected: list[str] | set[str], timeout: float = 20) -> None:
    def matches() -> bool:
        shown = _table(dash_duo)
        return (set(shown) == expected) if isinstance(expected, set) else shown == expected

    try:
        until(matches, timeout)
    except testing_errors.TestingTimeoutError:
        raise AssertionError(f"table shows {_table(dash_duo)}, expected {expected}") from None


def _copy_of_one_second(corpus: Path, dest: Path) -> Path:
    """A copy of the corpus whose files were all written in one second: a copy of the corpus
    (CI's checkout of ../shared) may straddle two, which reorders jobs that tie."""
    shutil.copytree(corpus, dest)
    for path in dest.rglob("*"):
        os.utime(path, (ONE_SECOND, ONE_SECOND))
    return dest


ONE_SECOND = 1_795_324_900


def _app(corpus: Path, workspace: Path):
    app = create_app(
        Settings(summary_base_dir=str(corpus), workspace=str(workspace), reload_interval=0)
    )
    assert app.data_service.loader.wait_rounds(1)
    return app


LINEAGE_JOBS = {
    "./lenet_sc",
    "./lenet_lr0.01_bs32",
    "./lenet_lr0.05_bs64",
    "./lenet_lr0.1_bs16",
    "./lenet_adam_lr0.001_bs32",
    "./ops_in_net",
}


def _click(dash_duo, selector: str) -> None:
    """Click an element that may be re-rendered at any moment (no stale references)."""
    until(
        lambda: dash_duo.driver.execute_script(
            "const e = document.querySelector(arguments[0]); if (e) { e.click(); } return !!e;",
            selector,
        ),
        10,
    )


def _search(dash_duo) -> dict[str, str]:
    return parse_search(dash_duo.driver.execute_script("return window.location.search"))


@pytest.mark.browser
def test_brush_filters_table_and_sorting(dash_duo, corpus: Path, tmp_path: Path) -> None:
    app = _app(_copy_of_one_second(corpus, tmp_path / "logs"), tmp_path / "ws")
    try:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        _wait_table(dash_duo, LINEAGE_JOBS)
        # The summary path links to the job's dashboard (LineageLink), its text shown as is.
        assert dash_duo.driver.execute_script("""
            const a = document.querySelector('#lineage-grid .ag-row[row-id="./lenet_sc"] '
                                              + '[col-id="summary_dir"] .agGrid-Markdown a');
            return [a.textContent, a.getAttribute('href'), a.target];""") == [
            "./lenet_sc",
            "/dashboard?train_id=.%2Flenet_sc",
            "_self",
        ]
        dash_duo.wait_for_element("#lineage-chart .di-pc-axis")
        # The overview's charts (SVG), as high as their specs: 5 buckets, 6
        # hyper-parameters' two bars, a dot per job with a batch size and the objective (4).
        until(
            lambda: (
                dash_duo.driver.execute_script("""
            return ['distribution', 'importance', 'scatter'].map(name => {
                const svg = document.querySelector(`#lineage-${name} svg.di-svg`);
                return svg ? [svg.getAttribute('height'),
                              svg.querySelectorAll('.di-svg-mark').length] : null; });""")
                == [["200", 5], [str(46 * 6 + 60), 12], ["240", 4]]
            )
        )
        # Hovering a bar says what it is.
        assert hover_svg_mark(dash_duo, "lineage-importance", 0, 0)[0] == "batch_size"
        assert hover_svg_mark(dash_duo, "lineage-importance", 1, 0)[1].startswith(
            "|Spearman ρ|: 0."
        )
        # The page came drawn: no callback at load, not even the grid's or a store's echo.
        wait_idle(dash_duo)
        assert callbacks_sent(dash_duo) == 0
        # Drag on the batch_size axis (16..64) from 30 to above its top.
        chart.drag_axis(dash_duo, "batch_size", (30 - 16) / 48, 1.1)
        _wait_table(
            dash_duo,
            {
                "./lenet_sc",
                "./lenet_lr0.01_bs32",
                "./lenet_lr0.05_bs64",
                "./lenet_adam_lr0.001_bs32",
            },
        )
        ((low, high),) = json.loads(_search(dash_duo)["filters"])["batch_size"]
        assert 29 < low < 31 and high == 64.0  # within a pixel of 30; the top is 64
        # The server's chart: the brush drawn, the lines outside it dimmed.
        until(lambda: len(dash_duo.find_elements("#lineage-chart .di-pc-line.is-dimmed")) == 2)
        ((foot, top),) = chart.brushes(dash_duo, "batch_size")
        assert abs(foot - (30 - 16) / 48) < 0.01 and top == pytest.approx(1.0, abs=0.01)
        until(
            lambda: (
                "4 of 6"
                in dash_duo.driver.execute_script(
                    "return document.querySelector('#lineage-count').textContent"
                )
            ),
            10,
        )

        # Sort by [M]Accuracy: click its header (ascending, then descending).
        header = '#lineage-grid .ag-header-cell[col-id="metric/Accuracy"] .ag-header-cell-label'
        _click(dash_duo, header)
        until(lambda: _search(dash_duo).get("sort") == "metric/Accuracy:asc", 10)
        _wait_table(
            dash_duo,
            [
                "./lenet_adam_lr0.001_bs32",
                "./lenet_lr0.01_bs32",
                "./lenet_lr0.05_bs64",
                "./lenet_sc",
            ],
        )
        _click(dash_duo, header)
        until(lambda: _search(dash_duo).get("sort") == "metric/Accuracy:desc", 10)
        _wait_table(
            dash_duo,
            [
                "./lenet_sc",
                "./lenet_lr0.05_bs64",
                "./lenet_lr0.01_bs32",
                "./lenet_adam_lr0.001_bs32",
            ],
        )

        # A click on the brushed axis clears the brush: every job again; the sort stays.
        chart.click_axis(dash_duo, "batch_size", 0.5)
        # The last two tie; the copy's jobs share one mtime second, so MindInsight's base order
        # (whole-second update time, then path) puts ./lenet_adam... before ./ops_in_net.
        _wait_table(
            dash_duo,
            [
                "./lenet_sc",
                "./lenet_lr0.1_bs16",
                "./lenet_lr0.05_bs64",
                "./lenet_lr0.01_bs32",
                "./lenet_adam_lr0.001_bs32",
                "./ops_in_net",
            ],
        )
        assert "filters" not in _search(dash_duo)

        # Tick two rows, hide them, then show everything again.
        for train_id in ("./ops_in_net", "./lenet_sc"):
            _click(
                dash_duo,
                f"#lineage-grid .ag-pinned-left-cols-container "
                f'.ag-row[row-id="{train_id}"] input[type="checkbox"]',
            )
        until(
            lambda: (
                dash_duo.driver.execute_script(
                    "return dash_ag_grid.getApi('lineage-grid').getSelectedRows().length"
                )
                == 2
            ),
            10,
        )
        _click(dash_duo, "#lineage-hide-selected")
        _wait_table(dash_duo, LINEAGE_JOBS - {"./ops_in_net", "./lenet_sc"})
        until(lambda: len(dash_duo.find_elements("#lineage-chart .di-pc-lines path")) == 4)
        assert not dash_duo.find_elements('#lineage-chart [data-job="./lenet_sc"]')
        assert set(_search(dash_duo)["hide"].split(",")) == {"./ops_in_net", "./lenet_sc"}
        _click(dash_duo, "#lineage-show-all")
        _wait_table(dash_duo, LINEAGE_JOBS)
        assert not dash_duo.find_elements("#lineage-chart .di-pc-brush")

        # A link with a filter draws its brush (a category filter: two of three optimizers).
        optimizers = {"filters": json.dumps({"optimizer": ["Momentum", "SGD"]})}
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage?" + urlencode(optimizers))
        _wait_table(dash_duo, LINEAGE_JOBS - {"./lenet_adam_lr0.001_bs32", "./ops_in_net"})
        until(lambda: chart.brushes(dash_duo, "optimizer"))
        ((foot, top),) = chart.brushes(dash_duo, "optimizer")  # Adam, Momentum, SGD
        assert abs(foot - 0.25) < 0.01 and abs(top - 1.0) < 0.01
        until(lambda: len(dash_duo.find_elements("#lineage-chart .di-pc-line.is-dimmed")) == 2)
        chart.click_axis(dash_duo, "optimizer")
        until(lambda: "filters" not in _search(dash_duo))
        _wait_table(dash_duo, LINEAGE_JOBS)

        # Sort by summary path: by the job id (lineageCompareTrainIds), not by the link.
        _click(
            dash_duo, '#lineage-grid .ag-header-cell[col-id="summary_dir"] .ag-header-cell-label'
        )
        until(lambda: _search(dash_duo).get("sort") == "summary_dir:asc", 10)
        _wait_table(dash_duo, sorted(LINEAGE_JOBS))

        # CSV export (lineageCsvCell): the summary path as the plain job id. The file the
        # browser would save is caught where AG Grid hands it over (URL.createObjectURL).
        dash_duo.driver.execute_script("""
            window._diCsv = null; const create = URL.createObjectURL;
            URL.createObjectURL = blob => {
                blob.text().then(text => { window._diCsv = text; });
                return create(blob);
            };""")
        _click(dash_duo, "#lineage-export")
        until(lambda: dash_duo.driver.execute_script("return window._diCsv;"), 10)
        lines = (
            dash_duo.driver.execute_script("return window._diCsv;").lstrip("\ufeff").splitlines()
        )
        assert lines[0].startswith('"Summary path"')
        assert [line.split(",")[0] for line in lines[1:]] == [
            f'"{train_id}"' for train_id in sorted(LINEAGE_JOBS)
        ]
        # "Save chart": the SVG as drawn, with the theme's colours written in.
        dash_duo.driver.execute_script("window._diCsv = null;")
        _click(dash_duo, "#lineage-save-chart")
        until(lambda: dash_duo.driver.execute_script("return window._diCsv;"), 10)
        saved = dash_duo.driver.execute_script("return window._diCsv;")
        assert saved.startswith("<?xml") and "<svg" in saved and ">batch_size<" in saved
        assert 'class="axis-title"' in saved and "fill:rgb(31, 35, 41)" in saved  # --text
        assert "di-pc-brush-area" not in saved
        # The tag column's formatter (lineageTagStars): 0 is no tag.
        assert dash_duo.driver.execute_script(
            "const f = window.dashAgGridFunctions.lineageTagStars;"
            "return [f({value: 3}), f({value: 0})];"
        ) == ["★ 3", ""]
        assert not console_errors(dash_duo)
    finally:
        app.data_service.close()


@pytest.mark.browser
def test_remark_survives_restart_and_data_lineage_tab(
    dash_duo, corpus: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    app = _app(corpus, workspace)
    try:
        dash_duo.start_server(app)
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        _wait_table(dash_duo, LINEAGE_JOBS)
        cell = '#lineage-grid .ag-row[row-id="./lenet_sc"] [col-id="remark"]'

        def start_editing() -> bool:
            try:
                ActionChains(dash_duo.driver).double_click(dash_duo.find_element(cell)).perform()
            except StaleElementReferenceException:
                return False
            return bool(dash_duo.driver.find_elements("css selector", f"{cell} input"))

        until(start_editing, 10)
        ActionChains(dash_duo.driver).send_keys("best run").send_keys(Keys.ENTER).perform()
        dash_duo.wait_for_contains_text("#lineage-status", "Saved the remark of ./lenet_sc")
        wait_idle(dash_duo)  # the overview and chart callbacks finish before the check
        assert not console_errors(dash_duo)
    finally:
        dash_duo.stop_server()  # after the page's callbacks, and away from the page
        app.data_service.close()

    restarted = _app(corpus, workspace)  # a new app on the same workspace
    try:
        dash_duo.start_server(restarted)
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
        until(
            lambda: (
                dash_duo.driver.execute_script(
                    'const c = document.querySelector(\'#lineage-grid .ag-row[row-id="./lenet_sc"] '
                    '[col-id="remark"]\'); return c && c.textContent;'
                )
                == "best run"
            ),
            20,
        )

        # The data lineage tab: pipeline stages as axes and columns.
        _click(dash_duo, "#lineage-tab-dataset")
        until(lambda: _search(dash_duo).get("tab") == "dataset", 10)
        until(
            lambda: (
                dash_duo.driver.execute_script(
                    "return Array.from(document.querySelectorAll('#lineage-grid "
                    ".ag-header-cell-text'))"
                    ".map(h => h.textContent).filter(t => t);"
                )[:4]
                == ["Summary path", "MnistDataset", "GeneratorDataset", "Map 1 [TypeCast]"]
            ),
            20,
        )
        until(lambda: chart.axis_titles(dash_duo)[:1] == ["MnistDataset"])
        labels = chart.axis_titles(dash_duo)
        assert labels[:2] == ["MnistDataset", "GeneratorDataset"]  # titles up to 22 characters
        assert any(label.startswith("Batch 1 · ") for label in labels)
        # A stage's hover is its short label (the parameters that differ), not its JSON.
        assert "Batch 1: batch_size=32" in chart.hover_line(dash_duo, "./lenet_sc").splitlines()
        assert dash_duo.find_element("#lineage-overview").value_of_css_property("display") == "none"
        _wait_table(dash_duo, LINEAGE_JOBS)
        wait_idle(dash_duo)
        assert not console_errors(dash_duo)
    finally:
        restarted.data_service.close()


def test_importance_with_one_job_says_why_it_is_empty(entries) -> None:
    """One job left in the table: every importance is 0 (MindInsight's reason 2), so the chart
    says why instead of drawing an empty axis."""
    objects = lineage_data.search_lineages(entries, {})["object"]
    every = lineage_data.LineageTable.from_objects(objects)
    one = lineage_data.LineageTable.from_objects(objects[:1])
    target = next(t for t in one.target_names if t in every.target_names)
    rows = figures.importance_rows(every, target)
    assert figures.importance_message(rows, len(objects)) is None
    assert len(figures.importance_chart(rows)["series"]) == 2
    rows = figures.importance_rows(one, target)
    message = figures.importance_message(rows, 1)
    assert message == "Parameter importance needs at least 3 jobs; the table shows 1."
    chart = figures.importance_chart(rows, message=message)
    assert "series" not in chart
    assert chart["message"] == figures.wrap_columns(message)


@pytest.mark.parametrize(
    "text",
    [
        "Parameter importance needs at least 3 jobs; the table shows 1.",
        "No hyper-parameter is known for 3 or more jobs that also have this objective.",
        "参数重要性至少需要 3 个作业；表格中有 1 个。",
        "没有哪个超参数在 3 个或更多同样具有该目标的作业中已知。",
    ],
)
def test_messages_wrap_to_the_overview(text: str) -> None:
    """#38 item 8: a chart's message in lines of at most 46 columns (a Chinese character two),
    every word kept, no line starting with closing punctuation."""
    lines = figures.wrap_columns(text)
    assert len(lines) == (1 if figures._columns(text) <= figures.MESSAGE_COLUMNS else 2)
    assert all(figures._columns(line) <= figures.MESSAGE_COLUMNS for line in lines)
    joiner = " " if text.isascii() else ""
    assert joiner.join(lines).replace(" ", "") == text.replace(" ", "")
    assert not any(line[0] in "，。；" for line in lines)


_TRUNCATED_HEADERS = """
    return [...document.querySelectorAll('#lineage-grid .ag-header-cell[col-id]')]
        .filter(c => c.offsetParent !== null)
        .map(c => [c.getAttribute('col-id'), c.querySelector('.ag-header-cell-text')])
        .filter(([, t]) => t && (t.scrollWidth > t.clientWidth + 1
                                 || t.scrollHeight > t.clientHeight + 1))
        .map(([id, t]) => id + ': ' + t.textContent);"""


@pytest.mark.browser
def test_headers_show_whole_names_at_1280(dash_duo, corpus: Path, tmp_path: Path) -> None:
    """#38 item 8.1: at 1280×800 no column header is cut ("[M]Accu…"), sorted or not."""
    app = _app(corpus, tmp_path / "ws")
    try:
        dash_duo.start_server(app)
        dash_duo.driver.set_window_size(1280, 800)
        dash_duo.wait_for_page(dash_duo.server_url + "/lineage?sort=metric%2FAccuracy%3Aasc")
        _wait_table(dash_duo, LINEAGE_JOBS)
        until(
            lambda: dash_duo.driver.execute_script(
                "return !!document.querySelector('#lineage-grid "
                '.ag-header-cell[col-id="metric/Accuracy"] '
                ".ag-sort-ascending-icon:not(.ag-hidden)')"
            ),
            10,
        )
        try:
            until(lambda: dash_duo.driver.execute_script(_TRUNCATED_HEADERS) == [], 10)
        except testing_errors.TestingTimeoutError:
            raise AssertionError(
                f"cut headers: {dash_duo.driver.execute_script(_TRUNCATED_HEADERS)}"
            ) from None
    finally:
        app.data_service.close()
