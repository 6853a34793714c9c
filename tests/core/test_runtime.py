"""Running servers: title, exported environment, pid records, status lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from dash_insight.core.runtime import (
    RunningServer,
    ServerRecord,
    find_servers,
    format_servers,
    format_uptime,
    load_state,
    process_title,
    record_path,
)
from dash_insight.core.settings import Settings
from tests.conftest import loaded_service

ANNOUNCE = """
import json, os, sys
from dash_insight.core.runtime import announce, find_servers, record_path
from dash_insight.core.settings import Settings
settings = Settings(sys.argv[1], workspace=sys.argv[2], port=8765, reload_interval=0)
record = announce(settings, "test")
with open("/proc/self/cmdline", "rb") as handle:
    title = handle.read().rstrip(b"\\0 ").decode()
found = [s.to_dict() for s in find_servers([sys.argv[2]]) if s.record.pid == os.getpid()]
print(json.dumps({"title": title, "port": os.environ["DASH_INSIGHT_PORT"],
                  "workspace": os.environ["DASH_INSIGHT_WORKSPACE"],
                  "record": os.path.exists(record_path(sys.argv[2], os.getpid())),
                  "found": found}))
"""


def test_announce_names_the_process_and_cleans_up(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    done = subprocess.run(
        [sys.executable, "-c", ANNOUNCE, str(tmp_path), str(workspace)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["title"] == f"dash-insight: port 8765, {os.path.realpath(tmp_path)}"
    assert seen["port"] == "8765" and seen["workspace"] == str(workspace)
    assert seen["record"]
    (found,) = seen["found"]
    assert found["launcher"] == "test" and found["port"] == 8765
    assert found["load"] == "no index yet" and found["url"] == "http://127.0.0.1:8765/"
    assert list((workspace / "pid").iterdir()) == []  # removed at exit


def test_stale_records_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    path = Path(record_path(str(tmp_path), pid))
    path.parent.mkdir(parents=True)
    record = ServerRecord(pid, 8080, "127.0.0.1", "/data", str(tmp_path), "/", "test", 0.0)
    path.write_text(json.dumps(record.__dict__))
    (path.parent / "process.1.json.partial").write_text("{")
    assert all(s.record.pid != pid for s in find_servers([str(tmp_path)]))
    assert not path.exists()


def test_load_state_reads_the_shared_index(corpus: Path, tmp_path: Path) -> None:
    assert load_state(str(tmp_path), str(corpus)) == "no index yet"
    service = loaded_service(corpus, tmp_path)
    service.close()
    assert load_state(str(tmp_path), str(corpus)) == "loaded: 9 jobs, 12.1 MB"


def test_titles_and_tables() -> None:
    settings = Settings("/", port=9000)
    assert process_title(settings) == "dash-insight: port 9000, /"
    assert [format_uptime(s) for s in (5, 307, 10920, 187200)] == ["5s", "5m07s", "3h02m", "2d04h"]
    assert format_servers([]) == "no dash-insight server is running"
    record = ServerRecord(42, 8080, "::1", "/data/summaries", "/ws", "/insight/", "app.py", 0.0)
    assert record.url == "http://[::1]:8080/insight/"
    table = format_servers([RunningServer(record, 61, "loaded: 1 jobs, 0.1 MB")]).splitlines()
    assert table[0].split() == [
        "PORT",
        "PID",
        "STARTED",
        "BY",
        "UPTIME",
        "BASE",
        "DIRECTORY",
        "WORKSPACE",
        "LOAD",
    ]
    assert table[1].split() == [
        "8080",
        "42",
        "app.py",
        "1m01s",
        "/data/summaries",
        "/ws",
        "loaded:",
        "1",
        "jobs,",
        "0.1",
        "MB",
    ]
