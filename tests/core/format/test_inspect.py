"""``dash-insight inspect`` on the real corpus agrees with the corpus MANIFEST, file by file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dash_insight.cli import main
from dash_insight.core.format.framing import frame_record
from dash_insight.core.format.inspect import inspect_path
from tests.conftest import CORPUS

_JOB = re.compile(r"^## `(?P<job>[^`]+)/`")
_FILE = re.compile(
    r"^`(?P<name>[^`]+)` \((?P<kind>summary|lineage) file\)"
    r"(?:: (?P<records>\d+) records)?"
)
_PLUGIN = re.compile(r"^  - \*\*(?P<plugin>\w+)\*\*: ")
_TAG = re.compile(
    r"^    - `(?P<tag>[^`]+)`: steps (?P<first>-?\d+)\.\.(?P<last>-?\d+), "
    r"(?P<n>\d+) values(?: \((?P<values>\d+) values on (?P<steps>\d+) distinct)?"
)
_LINEAGE_ITEM = re.compile(
    r"^  - (?P<kind>dataset_graph|user_defined_info|train_lineage|"
    r"evaluation_lineage)\b"
)


def parse_manifest(text: str) -> dict[str, dict[str, Any]]:
    """{relative file path: {"kind", "records", "tags": {plugin: {tag: stats}}}}."""
    files: dict[str, dict[str, Any]] = {}
    job = current = plugin = None
    for line in text.splitlines():
        if match := _JOB.match(line):
            job = match["job"]
        elif match := _FILE.match(line):
            current = {"kind": match["kind"], "records": match["records"], "tags": {}}
            files[f"{job}/{match['name']}"] = current
            plugin = None
            if match["kind"] == "lineage":
                current["tags"]["lineage"] = {}
                current["records"] = 0
        elif current is None:
            continue
        elif (match := _PLUGIN.match(line)) and current["kind"] == "summary":
            plugin = match["plugin"]
            if plugin == "graph":
                name = next(n for n, f in files.items() if f is current).split("/")[-1]
                current["tags"]["graph"] = {
                    name: {"values": 1, "steps": 1, "first_step": 0, "last_step": 0}
                }
            else:
                current["tags"][plugin] = {}
        elif (match := _TAG.match(line)) and plugin:
            n = int(match["n"])
            current["tags"][plugin][match["tag"]] = {
                "values": int(match["values"] or n),
                "steps": int(match["steps"] or n),
                "first_step": int(match["first"]),
                "last_step": int(match["last"]),
            }
        elif (match := _LINEAGE_ITEM.match(line)) and current["kind"] == "lineage":
            current["records"] += 1
            current["tags"]["lineage"][match["kind"]] = {
                "values": 1,
                "steps": 1,
                "first_step": 0,
                "last_step": 0,
            }
    return files


def _manifest() -> dict[str, dict[str, Any]]:
    path = CORPUS / "MANIFEST.md"
    return parse_manifest(path.read_text()) if path.exists() else {}


MANIFEST = _manifest()


def test_manifest_parsed(corpus: Path) -> None:
    assert len(MANIFEST) == 22  # 11 summary files + 11 lineage files
    assert sum(1 for f in MANIFEST.values() if f["kind"] == "summary") == 11


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_inspect_file_agrees_with_manifest(corpus: Path, name: str) -> None:
    expected = MANIFEST[name]
    report = inspect_path(corpus / name)
    [entry] = report["files"]
    assert entry["kind"] == expected["kind"]
    assert entry["status"] == "ok" and entry["errors"] == []
    assert entry["records"] == int(expected["records"])
    assert report["tags"] == expected["tags"]


def test_inspect_job_directory_merges_files(corpus: Path) -> None:
    report = inspect_path(corpus / "multi_file")
    assert [Path(f["path"]).name for f in report["files"]] == sorted(
        p.name for p in (corpus / "multi_file").iterdir()
    )
    assert report["tags"]["scalar"]["loss"] == {
        "values": 360,
        "steps": 300,
        "first_step": 1,
        "last_step": 300,
    }
    lenet = inspect_path(corpus / "lenet_sc")
    assert set(lenet["tags"]) == {"graph", "histogram", "image", "lineage", "scalar"}
    assert lenet["tags"]["lineage"]["evaluation_lineage"]["values"] == 1


def test_cli_json_and_exit_status(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(corpus / "ops_all"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"files", "tags"}
    assert set(report["files"][0]) == {"path", "kind", "records", "status", "errors"}
    assert report["tags"]["tensor"]["tensor/big_1m_f32"]["values"] == 1

    damaged = tmp_path / "events.out.events.summary.1.0.h_MS"
    data = bytearray(
        (
            corpus / "multi_file" / sorted(p.name for p in (corpus / "multi_file").iterdir())[0]
        ).read_bytes()
    )
    data[200] ^= 0xFF
    damaged.write_bytes(bytes(data))
    assert main(["inspect", str(damaged)]) == 1
    out = capsys.readouterr().out
    assert "damaged" in out and "CRC mismatch" in out
    assert main(["inspect", str(tmp_path / "missing")]) == 2


@pytest.mark.parametrize(
    ("content", "status", "reason"),
    [
        (b"", "empty", "empty file"),
        (b"\x00" * 5000, "damaged", "no valid record"),
        (bytes(range(256)) * 4, "damaged", "no valid record"),
        (frame_record(b"\x09" + b"\x00" * 8)[:-3], "truncated", "incomplete record"),
    ],
    ids=["empty", "zeros", "garbage", "truncated"],
)
def test_bad_files_get_a_clear_reason(
    tmp_path: Path, content: bytes, status: str, reason: str
) -> None:
    path = tmp_path / "events.out.events.summary.1.0.h_MS"
    path.write_bytes(content)
    [entry] = inspect_path(path)["files"]
    assert entry["status"] == status
    assert any(reason in error["reason"] for error in entry["errors"])


def test_console_script_runs(corpus: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dash_insight.cli",
            "inspect",
            str(corpus / "nested" / "grp" / "job_a"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["tags"]["scalar"]["loss"]["values"] == 200
