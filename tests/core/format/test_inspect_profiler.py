"""``dash-insight inspect`` reports profiler data: both layouts of the real corpus, a profiler
directory or file given directly, and truncated or damaged files (exit status 1 when damaged)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dash_insight.cli import main
from dash_insight.core.format.inspect import format_report, inspect_path


def test_corpus_job_reports_both_layouts(profiler_corpus: Path) -> None:
    report = inspect_path(profiler_corpus / "lenet_prof")
    assert report["files"] == [] and report["tags"] == {}
    classic, native = report["profiler"]
    assert (classic["layout"], classic["profiler_type"], classic["devices"]) == (
        "mindinsight",
        "cpu",
        ["0"],
    )
    assert native["layout"] == "mindspore"
    kinds = {Path(f["path"]).name: (f["rows"], f["launches"], f["status"]) for f in native["files"]}
    assert kinds == {
        "cpu_op_type_info_0.csv": (13, None, "ok"),
        "cpu_op_detail_info_0.csv": (43, None, "ok"),
        "cpu_framework_0.txt": (860, None, "ok"),
        "cpu_op_execute_timestamp_0.txt": (43, 860, "ok"),
        "trace_view.json": (43, 860, "ok"),
    }
    text = format_report(report)
    assert "profiler data (MindSpore >= 2.5 layout, cpu), device(s) 0" in text
    assert "cpu_op_execute_timestamp_0.txt: 43 operators, 860 launches, ok" in text
    # A job with summaries keeps its summary report and key set, plus the profiler entry.
    assert set(inspect_path(profiler_corpus / "lenet_summary_prof")) == {
        "files",
        "tags",
        "profiler",
    }


def test_truncated_and_damaged_files(
    profiler_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "profiler"
    shutil.copytree(profiler_corpus / "lenet_prof" / "profiler", folder)
    types = folder / "cpu_op_type_info_0.csv"
    types.write_text(types.read_text()[:-20])  # cut inside the last row
    report = inspect_path(folder)  # a profiler directory given directly
    by_name = {Path(f["path"]).name: f for f in report["profiler"][0]["files"]}
    assert by_name["cpu_op_type_info_0.csv"]["status"] == "truncated"
    assert by_name["cpu_op_type_info_0.csv"]["rows"] == 12
    assert main(["inspect", str(folder)]) == 0  # truncated: still being written, maybe
    detail = folder / "cpu_op_detail_info_0.csv"
    lines = detail.read_text().splitlines()
    lines[3] = "Host,Conv2D,Conv2D-op9,x,many,1,1,1,Default,1"
    detail.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["inspect", str(detail), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    [entry] = out["profiler"][0]["files"]
    assert (entry["status"], entry["rows"]) == ("damaged", 42)
    assert entry["errors"][0]["line"] == 4 and "not a number" in entry["errors"][0]["reason"]
    (folder / "profiler_info_0.json").write_text("{")
    assert main(["inspect", str(folder)]) == 1
    assert "! invalid JSON" in capsys.readouterr().out
