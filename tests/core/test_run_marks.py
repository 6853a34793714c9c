"""The runs' archive state and labels in the workspace (issue 40 item 4): validation, bounded
sizes, the file beside the lineage remarks, atomic writes shared by several stores, private
permissions, and what the pickers offer."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from dash_insight.core.run_marks import (
    MAX_LABEL_CHARS,
    MAX_LABELS,
    RunMarkError,
    RunMarks,
    clean_labels,
    filter_text,
    offered_jobs,
    parse_labels,
    run_marks_path,
    validate_marks,
)
from dash_insight.plugins.lineage.service_remarks import remarks_path


def test_the_file_sits_beside_the_remarks(tmp_path: Path) -> None:
    marks = run_marks_path(str(tmp_path / "ws"), str(tmp_path / "base"))
    remarks = remarks_path(str(tmp_path / "ws"), str(tmp_path / "base"))
    assert os.path.dirname(marks) == os.path.dirname(remarks)
    assert marks.endswith("run_marks.json")


def test_archive_and_labels_persist_and_defaults_leave_the_file(tmp_path: Path) -> None:
    path = run_marks_path(str(tmp_path / "ws"), str(tmp_path / "base"))
    marks = RunMarks(path)
    assert marks.all() == {} and marks.archived() == set()
    assert marks.update("./a", {"archived": True}) == {"archived": True}
    assert marks.update("./a", {"labels": [" base ", "lr sweep", "base", ""]}) == {
        "archived": True,
        "labels": ["base", "lr sweep"],
    }
    marks.update("./b", {"labels": ["x"]})
    # Another store over the same file (another process, a restarted server) reads them.
    again = RunMarks(path)
    assert again.archived() == {"./a"}
    assert again.labels() == {"./a": ["base", "lr sweep"], "./b": ["x"]}
    # Back to the defaults: the run leaves the file.
    again.update("./a", {"archived": False, "labels": []})
    assert "./a" not in json.loads(Path(path).read_text())["jobs"]
    assert marks.archived() == set()
    # Private like the rest of the workspace.
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700


def test_concurrent_updates_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "marks" / "run_marks.json")
    stores = [RunMarks(path) for _ in range(4)]

    def mark(index: int) -> None:
        for n in range(10):
            stores[index].update(f"./j{index}-{n}", {"archived": True})

    threads = [threading.Thread(target=mark, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(RunMarks(path).archived()) == 40
    assert not [n for n in os.listdir(tmp_path / "marks") if n.endswith(".tmp")]


def test_a_damaged_file_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "m" / "run_marks.json"
    path.parent.mkdir()
    path.write_text("{not json")
    marks = RunMarks(str(path))
    assert marks.all() == {}
    marks.update("./a", {"archived": True})
    assert (tmp_path / "m" / "run_marks.json.damaged").read_text() == "{not json"
    assert marks.archived() == {"./a"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (None, "must be an object"),
        ({}, "must be an object"),
        ([], "must be an object"),
        ({"archived": 1}, "true or false"),
        ({"archived": "yes"}, "true or false"),
        ({"labels": "a,b"}, "list of strings"),
        ({"labels": [1]}, "list of strings"),
        ({"labels": ["x" * (MAX_LABEL_CHARS + 1)]}, "at most"),
        ({"labels": ["a,b"]}, "comma"),
        ({"labels": ["a\nb"]}, "control"),
        ({"labels": [f"l{i}" for i in range(MAX_LABELS + 1)]}, f"at most {MAX_LABELS} labels"),
        ({"labels": ["\ud800"]}, "Unicode"),
        ({"archived": True, "colour": "red"}, "Unknown keys"),
    ],
)
def test_invalid_changes_are_refused_with_a_reason(body: object, message: str) -> None:
    with pytest.raises(RunMarkError, match=message):
        validate_marks(body)


def test_labels_and_offered_jobs() -> None:
    assert parse_labels(" a, b ,,a ") == ["a", "b"]
    assert parse_labels(None) == []
    assert clean_labels(["x" * MAX_LABEL_CHARS]) == ["x" * MAX_LABEL_CHARS]
    jobs = ["./a", "./b", "./c"]
    assert offered_jobs(jobs, {"./b"}, False) == ["./a", "./c"]
    assert offered_jobs(jobs, {"./b"}, True) == jobs
    assert filter_text("./a", {"./a": ["base", "lr"]}) == "./a #base #lr"
    assert filter_text("./b", {}) == "./b"
