"""The lineage chart is readable (issue #17 item 3), on 12 jobs this test writes with 24
user-defined values (5 differ between the jobs), training fields and two metrics: MindInsight's
default columns, metrics first in the table, 4 significant digits with the whole value on
hover (table and chart), axis titles and ticks that never overlap, no row of "n/a", the theme's
colours in dark mode.
"""

from __future__ import annotations

import json
from pathlib import Path

from dash_insight import SummaryWriter
from dash_insight.plugins.lineage import figures
from dash_insight.web.url_state import parse_search
from tests.browser import point_until, until
from tests.conftest import console_errors, loaded_app
from tests.plugins.lineage import chart_driver as chart

JOBS = 12
VARYING = ["[U]dropout", "[U]warmup_steps", "[U]weight_decay", "[U]scheduler", "[U]seed"]


def _write_jobs(base: Path) -> None:
    for i in range(JOBS):
        with SummaryWriter(base / f"run_{i:02d}", timestamp=1_700_000_000 + i) as writer:
            writer.add_scalar("loss", 1.0 / (i + 1), step=1)
            custom: dict[str, object] = {f"constant_{k:02d}": "same" for k in range(19)}
            custom.update(
                {
                    "dropout": 0.1 * (i % 4),
                    "warmup_steps": 100 * (i % 3),
                    "weight_decay": 1e-4 * (1 + i % 5),
                    "scheduler": ["cosine", "linear", "a_very_long_scheduler_name"][i % 3],
                    "seed": i,
                }
            )
            writer.add_custom_lineage(custom)
            writer.add_train_lineage(
                network="ResNet50",
                optimizer="Momentum",
                learning_rate=0.1,
                epoch=90,
                batch_size=256,
                loss_function="SoftmaxCrossEntropyWithLogits",
                train_dataset_size=1_281_167,
                loss=2.0 / (i + 3),
            )
            metric = {"Top1Accuracy": 0.7123456789 + i / 1000}
            if i != 5:  # one job without Top5Accuracy: a missing value
                metric["Top5Accuracy"] = 0.9 + i / 997
            writer.add_eval_lineage(metric=metric)


# Rotated SVG texts overlap when their rotated boxes do (separating axis test on the corners
# of each text's box in screen coordinates).
_TEXT_BOXES = """
return Array.from(document.querySelectorAll(arguments[0])).filter(t => t.textContent)
  .map(t => {
    const b = t.getBBox(), m = t.getScreenCTM();
    const corner = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    return {text: t.textContent, corners: [corner(b.x, b.y), corner(b.x + b.width, b.y),
            corner(b.x + b.width, b.y + b.height), corner(b.x, b.y + b.height)]};
  });"""


def _separated(first: list[list[float]], second: list[list[float]]) -> bool:
    for polygon in (first, second):
        for i in range(4):
            (x1, y1), (x2, y2) = polygon[i], polygon[(i + 1) % 4]
            normal = (y1 - y2, x2 - x1)
            a = [normal[0] * x + normal[1] * y for x, y in first]
            b = [normal[0] * x + normal[1] * y for x, y in second]
            if max(a) <= min(b) + 0.5 or max(b) <= min(a) + 0.5:
                return True
    return False


def _overlapping(dash_duo, selector: str) -> list[tuple[str, str]]:
    boxes = dash_duo.driver.execute_script(_TEXT_BOXES, selector)
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if not _separated(a["corners"], b["corners"])
    ]


def _search(dash_duo) -> dict[str, str]:
    return parse_search(dash_duo.driver.execute_script("return window.location.search"))


def _url_ranges(dash_duo, column: str, count: int) -> list[list[float]] | None:
    """The URL's filter ranges of ``column`` once there are ``count`` of them, else None."""
    ranges = json.loads(_search(dash_duo).get("filters", "{}")).get(column, [])
    return ranges if len(ranges) == count else None


def test_lineage_chart_is_readable(dash_duo, tmp_path: Path) -> None:
    _write_jobs(tmp_path / "logs")
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.driver.set_window_size(1600, 1000)
        dash_duo.start_server(app)
        dash_duo.wait_for_page(url=f"{dash_duo.server_url}/lineage")
        until(lambda: len(chart.axis_titles(dash_duo)) > 0, 30)

        # MindInsight's defaults: the hyper-parameters that differ, then the metrics.
        labels = chart.axis_titles(dash_duo)
        assert labels == [*VARYING, "[M]Top1Accuracy", "[M]Top5Accuracy", "loss"]
        # Ticks at nice values, 4 significant digits; no "n/a" row: a missing value has no
        # tick label.
        ticks = chart.tick_texts(dash_duo)
        assert ticks[labels.index("[U]weight_decay")] == [
            "0.0001",
            "0.0002",
            "0.0003",
            "0.0004",
            "0.0005",
        ]
        assert ticks[labels.index("[U]scheduler")] == ["a_very_lo…", "cosine", "linear"]
        assert not [t for axis in ticks for t in axis if t == "n/a"]
        assert "n/a" not in dash_duo.driver.execute_script(
            "return document.querySelector('#lineage-chart').textContent;"
        )
        # Axis titles and tick labels never overlap.
        assert _overlapping(dash_duo, "#lineage-chart .axis-title") == []
        assert _overlapping(dash_duo, "#lineage-chart .di-pc-axis .tick text") == []
        # The colour bar: the first metric, its ticks at nice values.
        assert (
            dash_duo.driver.execute_script(
                "return document.querySelector('#lineage-chart .di-pc-colourbar-title')"
                ".firstChild.nodeValue;"
            )
            == "[M]Top1Accuracy"
        )

        # Hovering a line names its job and shows its values whole.
        tooltip = chart.hover_line(dash_duo, "./run_00").splitlines()
        assert tooltip[0] == "./run_00"
        assert "[M]Top1Accuracy: 0.7123456789" in tooltip and "[U]seed: 0" in tooltip
        assert "[M]Top5Accuracy: no value" in chart.hover_line(dash_duo, "./run_05")

        # The table: metrics first, 4 significant digits, the whole value on hover.
        headers = dash_duo.driver.execute_script(
            "return Array.from(document.querySelectorAll('#lineage-grid .ag-header-cell'))"
            ".map(h => h.getAttribute('col-id'));"
        )
        headers = [h for h in headers if not h.startswith("ag-Grid")]  # the tick box column
        assert headers[:4] == ["summary_dir", "metric/Top1Accuracy", "metric/Top5Accuracy", "loss"]
        cell = (
            '#lineage-grid .ag-center-cols-container .ag-row[row-id="./run_00"] '
            '.ag-cell[col-id="metric/Top1Accuracy"]'
        )
        until(lambda: dash_duo.find_element(cell).text == "0.7123", 10)
        point_until(
            dash_duo,
            cell,
            lambda: (
                "0.7123456789"
                in dash_duo.driver.execute_script(
                    "const t = document.querySelector('.ag-tooltip');return t ? t.textContent : '';"
                )
            ),
            10,
        )
        assert dash_duo.driver.execute_script(
            "const f = window.dashAgGridFunctions.lineageNumber;"
            "return [0.0009765625, 123456, 0.05, 2.5e-7, -1234.56, 0, null]"
            ".map(v => f({value: v}));"
        ) == [
            figures.number_text(0.0009765625),
            figures.number_text(123456),
            "0.05",
            "2.5e-07",
            "-1235",
            "0",
            "",
        ]

        # Two brushes on one axis: a drag, then a drag with Shift held.
        chart.drag_axis(dash_duo, "user_defined/seed", 0.0, 2.5 / 11)
        until(
            lambda: (
                json.loads(_search(dash_duo).get("filters", "{}")).get(
                    "user_defined/seed", [[0, 0]]
                )[0][1]
                > 2
            )
        )
        chart.drag_axis(dash_duo, "user_defined/seed", 8.5 / 11, 1.05, shift=True)
        until(lambda: len(chart.brushes(dash_duo, "user_defined/seed")) == 2)
        # The chart draws the brush at once; the URL follows after a round trip.
        ranges = until(lambda: _url_ranges(dash_duo, "user_defined/seed", 2))
        assert [[round(low), round(high)] for low, high in ranges] == [[0, 2], [9, 11]]
        until(
            lambda: dash_duo.driver.execute_script(
                "return document.querySelector('#lineage-count').textContent;"
            ).startswith("6 of")
        )
        assert len(dash_duo.find_elements("#lineage-chart .di-pc-line.is-dimmed")) == 6

        # Dark mode: the chart's texts in the theme's colours, haloed in the panel's colour.
        dash_duo.driver.execute_script("document.querySelector('#theme-toggle').click();")
        until(
            lambda: (
                dash_duo.driver.execute_script("return document.documentElement.dataset.theme;")
                == "dark"
            ),
            10,
        )
        title, tick, shadow, panel = dash_duo.driver.execute_script(
            "const t = document.querySelector('#lineage-chart .axis-title');"
            "const k = document.querySelector('#lineage-chart .tick text');"
            "const p = document.querySelector('.di-lineage-main');"
            "return [getComputedStyle(t).fill, getComputedStyle(k).fill,"
            " getComputedStyle(t).textShadow, getComputedStyle(p).backgroundColor];"
        )
        assert title == "rgb(230, 232, 235)" and tick == "rgb(154, 160, 168)"  # --text, --muted
        assert panel == "rgb(32, 35, 42)" and panel in shadow
        assert not console_errors(dash_duo)
