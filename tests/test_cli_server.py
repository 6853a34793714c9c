"""The real CLI: `dash-insight start` in the background, REST queries, `dash-insight stop`."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.ports import free_port
from tests.redis_server import REDIS_PASSWORD

CLI = [sys.executable, "-m", "dash_insight.cli"]
REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def _run(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def _get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def test_start_query_stop(corpus: Path, tmp_path: Path) -> None:
    port, workspace = free_port(), str(tmp_path / "ws")
    started = _run(
        "start",
        "--port",
        str(port),
        "--workspace",
        workspace,
        "--summary-base-dir",
        str(corpus),
        "--reload-interval",
        "0",
    )
    assert started.returncode == 0, started.stderr
    assert f"http://127.0.0.1:{port}/" in started.stdout
    pid_file = tmp_path / "ws" / "pid" / f"server.{port}.pid"
    assert pid_file.exists() and (tmp_path / "ws" / "log" / f"server.{port}.log").exists()
    # Like MINDINSIGHT_*: the settings are in the server's environment (ps e shows them).
    environ = Path(f"/proc/{pid_file.read_text()}/environ").read_bytes().split(b"\0")
    assert f"DASH_INSIGHT_PORT={port}".encode() in environ
    assert f"DASH_INSIGHT_WORKSPACE={workspace}".encode() in environ
    assert f"DASH_INSIGHT_SUMMARY_BASE_DIR={corpus.resolve()}".encode() in environ
    try:
        api = f"http://127.0.0.1:{port}/v1/mindinsight/datavisual"
        deadline = time.time() + 60
        while time.time() < deadline:
            jobs = _get_json(f"{api}/train-jobs?offset=0&limit=999")
            if jobs["total"] == 9 and jobs["load_status"] == "loaded":
                break  # every byte of every job read (a job of 3 files loads in 3 passes)
            time.sleep(0.3)
        assert jobs["total"] == 9
        scalars = _get_json(f"{api}/scalar/metadata?train_id=./multi_file&tag=loss/scalar")
        assert len(scalars["metadatas"]) == 300
        again = _run(
            "start",
            "--port",
            str(port),
            "--workspace",
            workspace,
            "--summary-base-dir",
            str(corpus),
        )
        assert again.returncode == 1 and "already runs" in again.stderr
    finally:
        stopped = _run("stop", "--port", str(port), "--workspace", workspace)
    assert stopped.returncode == 0, stopped.stderr
    assert not pid_file.exists()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
    assert _run("stop", "--port", str(port), "--workspace", workspace).returncode == 1


def test_clear_errors(tmp_path: Path) -> None:
    missing = _run(
        "start", "--summary-base-dir", str(tmp_path / "nope"), "--workspace", str(tmp_path / "ws")
    )
    assert missing.returncode == 2
    assert "summary base directory not found" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    a_file = tmp_path / "train.summary.1"
    a_file.write_bytes(b"")
    not_a_folder = _run(
        "start", "--summary-base-dir", str(a_file), "--workspace", str(tmp_path / "ws")
    )
    assert not_a_folder.returncode == 2
    assert not_a_folder.stderr == (
        f"dash-insight: summary base directory is a file, not a directory: {a_file}\n"
    )

    bad = _run("start", "--port", "abc")
    assert bad.returncode == 2 and "port must be an integer" in bad.stderr
    bad_interval = _run("start", "--reload-interval", "-1")
    assert bad_interval.returncode == 2 and "reload interval" in bad_interval.stderr
    bad_samples = _run("start", "--samples-per-plugin", "audio=3")
    assert bad_samples.returncode == 2 and "samples-per-plugin" in bad_samples.stderr

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run(
            "start",
            "--port",
            str(port),
            "--workspace",
            str(tmp_path / "ws"),
            "--summary-base-dir",
            str(tmp_path),
        )
    assert result.returncode == 1 and f"port {port} is already in use" in result.stderr


def test_version_and_help() -> None:
    version = _run("--version")
    assert version.returncode == 0 and version.stdout.startswith("dash-insight ")
    for command in ([], ["start"], ["stop"], ["inspect"]):
        shown = _run(*command, "--help")
        assert shown.returncode == 0 and "usage:" in shown.stdout


def test_command_alone_lists_the_commands() -> None:
    alone = _run()
    assert alone.returncode == 2 and alone.stdout.startswith("usage: dash-insight")
    for command in ("start", "stop", "status", "config", "inspect", "export", "parse_summary"):
        assert f"\n    {command}" in alone.stdout
    assert "Traceback" not in alone.stderr


def test_foreground_app_py_help() -> None:
    done = subprocess.run(
        [sys.executable, "app.py", "--help"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 0 and "--summary-base-dir" in done.stdout
    assert done.stdout.startswith("usage: app.py ")
    wrong = subprocess.run(
        [sys.executable, "app.py", "--port", "x"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert wrong.returncode == 2 and "app.py: error: argument --port" in wrong.stderr


def _read_until(process: subprocess.Popen[str], wanted: str, timeout: float) -> list[str]:
    """Lines of ``process``'s stdout up to the first holding ``wanted`` (AssertionError with
    what was printed when it ends or ``timeout`` passes first)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if wanted in line:
            return seen
    raise AssertionError(f"no line with {wanted!r} in {seen!r}")


def test_app_py_prints_its_url_and_a_port_taken_late_in_one_line(tmp_path: Path) -> None:
    """The foreground server prints the URL of the port it listens on; a port taken between
    the early check and the real bind (a second demo.sh) is one line, not a traceback."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "app.py",
            "--summary-base-dir",
            str(tmp_path),
            "--port",
            str(port),
            "--workspace",
            str(tmp_path / "ws"),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = _read_until(process, "running at", 120)
        assert lines[-1] == f"dash-insight is running at http://127.0.0.1:{port}/ (Ctrl-C stops it)"
    finally:
        process.terminate()
        process.wait(30)
    # Skip the early check so the real bind meets the busy port.
    late = (
        "import sys, dash_insight.server as server; server.bind_problem = lambda h, p: None;"
        " sys.exit(server.main(sys.argv[1:], prog='app.py'))"
    )
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                late,
                "--summary-base-dir",
                str(tmp_path),
                "--port",
                str(taken),
                "--workspace",
                str(tmp_path / "ws"),
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"dash-insight: port {taken} is already in use on 127.0.0.1; "
        "choose another one with --port\n"
    )


def _fake_setup(tmp_path: Path, installed: bool) -> dict[str, str]:
    """The environment for scripts/bootstrap.sh with a fake uv (``$UV``) that logs its arguments
    and "installs" by touching a mark, and a venv whose python is this one: the scripts run
    without touching any real environment."""
    venv, log, mark = tmp_path / "venv", tmp_path / "uv.log", tmp_path / "installed"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    uv = tmp_path / "uv"
    uv.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log}\n'
        f'case "$*" in *--check*) [ -e {mark} ] ;; *) touch {mark} ;; esac\n'
    )
    uv.chmod(0o755)
    if installed:
        mark.touch()
    # Not the settings of the run that runs this test (.ci/newest sets DASH_INSIGHT_DEPS).
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DASH_INSIGHT_")}
    return {**clean, "DASH_INSIGHT_VENV": str(venv), "UV": str(uv)}


def _bootstrap(environment: dict[str, str], extras: str = "") -> subprocess.CompletedProcess[str]:
    script = f"DASH_INSIGHT_EXTRAS='{extras}'; source {REPO / 'scripts' / 'bootstrap.sh'}"
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=60, env=environment
    )


def test_first_run_says_what_it_installs(tmp_path: Path) -> None:
    environment = _fake_setup(tmp_path, installed=False)
    done = _bootstrap(environment)
    assert done.returncode == 0, done.stderr
    assert "setup: installing dash-insight and the versions of uv.lock" in done.stdout
    assert "setup: done" in done.stdout
    # the app alone, from the lock, added to what is there
    assert (tmp_path / "uv.log").read_text().splitlines()[-1] == "sync --frozen --inexact"
    again = _bootstrap(environment)
    assert again.returncode == 0 and again.stdout == ""  # installed: silent
    test_script = (REPO / "scripts" / "test.sh").read_text()
    assert 'echo "setup: installing chromium' in test_script
    assert 'DASH_INSIGHT_EXTRAS="test dev' in test_script


def test_the_tests_get_exactly_the_lock_with_their_extras(tmp_path: Path) -> None:
    done = _bootstrap(_fake_setup(tmp_path, installed=False), extras="test dev")
    assert done.returncode == 0, done.stderr
    assert "extras: test dev" in done.stdout
    assert (tmp_path / "uv.log").read_text().splitlines()[-1] == (
        "sync --frozen --extra test --extra dev"
    )


def test_newest_mode_installs_unlocked_releases_with_the_extras(tmp_path: Path) -> None:
    environment = {**_fake_setup(tmp_path, installed=True), "DASH_INSIGHT_DEPS": "newest"}
    done = _bootstrap(environment, extras="test dev ")
    assert done.returncode == 0, done.stderr
    assert "with the newest releases of its packages" in done.stdout
    assert f"pip install --python {tmp_path}/venv/bin/python --upgrade -e {REPO}[test,dev]" in (
        (tmp_path / "uv.log").read_text().splitlines()
    )
    assert done.stdout.endswith("what differs from uv.lock:\n  nothing: the lock is the newest\n")


def test_bootstrap_refuses_an_unknown_dependency_mode(tmp_path: Path) -> None:
    done = _bootstrap({**_fake_setup(tmp_path, installed=True), "DASH_INSIGHT_DEPS": "latest"})
    assert done.returncode == 2
    assert done.stderr == "setup: DASH_INSIGHT_DEPS is 'latest'; use locked or newest\n"


def test_demo_sh_prints_the_port_used_and_a_busy_port_in_one_line(tmp_path: Path) -> None:
    environment = _fake_setup(tmp_path, installed=True)
    demo = [str(REPO / "scripts" / "demo.sh"), "--workspace", str(tmp_path / "ws")]
    port = free_port()
    process = subprocess.Popen(
        [*demo, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environment,
    )
    try:
        lines = _read_until(process, "running at", 120)
    finally:
        process.terminate()
        process.wait(30)
    assert lines[-1] == f"dash-insight is running at http://127.0.0.1:{port}/ (Ctrl-C stops it)"
    assert not any(":8080" in line for line in lines)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        done = subprocess.run(
            [*demo, "--port", str(taken)],
            capture_output=True,
            text=True,
            env=environment,
            timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr == (
        f"dash-insight: port {taken} is already in use on 127.0.0.1; "
        "choose another one with --port\n"
    )
    assert "http://" not in done.stdout


def test_stop_finds_the_server_of_a_port_started_with_another_workspace(tmp_path: Path) -> None:
    port, workspace = free_port(), tmp_path / "ws_started"
    started = _run(
        "start",
        "--port",
        str(port),
        "--workspace",
        str(workspace),
        "--summary-base-dir",
        str(tmp_path),
        "--reload-interval",
        "0",
    )
    assert started.returncode == 0, started.stderr
    pid = int((workspace / "pid" / f"server.{port}.pid").read_text())
    try:
        stopped = _run("stop", "--port", str(port), "--workspace", str(tmp_path / "ws_other"))
        assert stopped.returncode == 0, stopped.stderr
        assert stopped.stdout == (
            f"dash-insight on port {port} stopped (pid {pid}, workspace {workspace})\n"
        )
        assert not _answers(port)
        assert not (workspace / "pid" / f"server.{port}.pid").exists()
    finally:
        _run("stop", "--port", str(port), "--workspace", str(workspace))
    # Something else listening on a port is never signalled.
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        other_port = other.getsockname()[1]
        refused = _run("stop", "--port", str(other_port), "--workspace", str(workspace))
        assert refused.returncode == 1
        assert refused.stderr == (
            f"dash-insight: no dash-insight server is running on port {other_port}\n"
        )
        other.getsockname()  # still open: nothing was closed under us


def _wait_for(check: Callable[[], T | None], timeout: float, what: str) -> T:
    """Poll ``check`` until it returns something (no fixed sleeps: a loaded machine is slow)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_dash-layout", timeout=2):
            return True
    except OSError:
        return False


def _status_rows() -> list[dict]:
    # A deadline, not a wait: status asks every server on the machine, slow under load.
    done = _run("status", "--json", "--workspace", "/nonexistent-workspace", timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_status_and_ps_find_servers_however_started(corpus: Path, tmp_path: Path) -> None:
    """``dash-insight start``, ``python app.py`` and gunicorn workers, each with its own
    workspace that ``status`` is not told about: found by title and open access log."""
    ports = {"start": free_port(), "app.py": free_port(), "gunicorn": free_port()}
    workspaces = {name: str(tmp_path / f"ws_{name.replace('.', '_')}") for name in ports}
    started = _run(
        "start",
        "--port",
        str(ports["start"]),
        "--workspace",
        workspaces["start"],
        "--summary-base-dir",
        str(corpus),
        "--reload-interval",
        "0",
    )
    assert started.returncode == 0, started.stderr
    # app.py with a MindInsight-style Python config, gunicorn with a TOML one named by the
    # environment (its port: the socket it listens on).
    mindinsight_config = tmp_path / "mi_config.py"
    mindinsight_config.write_text(
        f"PORT = {ports['app.py']}\nWORKSPACE = 'ws_app_py'\n"
        f"SUMMARY_BASE_DIR = {str(corpus)!r}\nRELOAD_INTERVAL = 0\n"
    )
    toml_config = tmp_path / "insight.toml"
    toml_config.write_text(
        f'summary_base_dir = "{corpus}"\nworkspace = "ws_gunicorn"\nreload_interval = 0\n'
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "app.py", "--config", f"file:{mindinsight_config}"],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-w",
                "2",
                "-b",
                f"127.0.0.1:{ports['gunicorn']}",
                "dash_insight.wsgi:application",
            ],
            env={**os.environ, "DASH_INSIGHT_CONFIG": str(toml_config)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
    ]
    try:
        for port in ports.values():
            _wait_for(lambda port=port: _answers(port), 120, f"a server on port {port}")

        def every_server_loaded() -> list[dict] | None:
            rows = [row for row in _status_rows() if row["port"] in ports.values()]
            by_port = {port: [r for r in rows if r["port"] == port] for port in ports.values()}
            complete = (
                len(by_port[ports["start"]]) == 1
                and len(by_port[ports["app.py"]]) == 1
                and len(by_port[ports["gunicorn"]]) == 2
            )
            loaded = all(r["load"] == "loaded: 9 jobs, 12.1 MB" for r in rows)
            return rows if complete and loaded else None

        rows = _wait_for(every_server_loaded, 120, "status to list every server, loaded")
        for name, port in ports.items():
            for row in (r for r in rows if r["port"] == port):
                assert row["launcher"] == ("dash-insight start" if name == "start" else name)
                assert row["summary_base_dir"] == str(corpus.resolve())
                assert row["workspace"] == workspaces[name]
                assert row["url"] == f"http://127.0.0.1:{port}/"
                assert row["uptime"] >= 0
        pid_file = Path(workspaces["start"]) / "pid" / f"server.{ports['start']}.pid"
        assert [r["pid"] for r in rows if r["port"] == ports["start"]] == [
            int(pid_file.read_text())
        ]
        assert processes[0].pid in [r["pid"] for r in rows]

        # ww: unlimited width (ps cuts lines at $COLUMNS, which pytest may set)
        listing = subprocess.run(["ps", "-efww"], capture_output=True, text=True).stdout
        titled = [line for line in listing.splitlines() if "dash-insight: port" in line]
        for port in ports.values():
            expected = 2 if port == ports["gunicorn"] else 1
            assert (
                sum(f"dash-insight: port {port}, {corpus.resolve()}" in line for line in titled)
                == expected
            )

        table = _run("status", "--workspace", workspaces["start"])
        assert table.returncode == 0 and "STARTED BY" in table.stdout
        assert f"{ports['app.py']}" in table.stdout and "gunicorn" in table.stdout
    finally:
        _run("stop", "--port", str(ports["start"]), "--workspace", workspaces["start"])
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(30)
    # Every server removed its pid record when it stopped.
    for workspace in workspaces.values():
        assert list((Path(workspace) / "pid").glob("process.*.json")) == []
    assert all(row["port"] not in ports.values() for row in _status_rows())


def test_config_show_names_every_source_and_refuses_bad_files(tmp_path: Path) -> None:
    config = tmp_path / "insight.toml"
    config.write_text("port = 8001\nreload_interval = 1.5\n")
    env = {**os.environ, "DASH_INSIGHT_RELOAD_INTERVAL": "7"}
    shown = subprocess.run(
        [*CLI, "config", "show", "--config", str(config), "--port", "8003", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert shown.returncode == 0, shown.stderr
    settings = json.loads(shown.stdout)["settings"]
    assert settings["port"] == {"value": "8003", "source": "command line (--port)"}
    assert settings["reload_interval"] == {
        "value": "7",
        "source": "environment (DASH_INSIGHT_RELOAD_INTERVAL)",
    }
    assert settings["host"] == {"value": "127.0.0.1", "source": "default"}
    table = _run("config", "show", "--config", str(config))
    assert f"config {config} (port)" in table.stdout

    config.write_text("port = 80800\n")
    for command in (["config", "show"], ["start"]):
        refused = _run(*command, "--config", str(config), "--workspace", str(tmp_path / "ws"))
        assert refused.returncode == 2
        assert refused.stderr.strip().splitlines() == [
            f"dash-insight: {config}: port: port must be an integer in 1..65535, not '80800'"
        ]


# -- one line for every start-up mistake (exit status 2: usage, 1: environment) ----------------


def _one_line(result: subprocess.CompletedProcess[str], code: int) -> str:
    """The only line ``result`` printed on stderr, after checking its exit status."""
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def _app_py(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "app.py", *args], capture_output=True, text=True, cwd=REPO, timeout=90
    )


def test_an_unusable_workspace_is_one_line(tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("")
    is_a_file = f"the workspace {a_file} is not a folder; choose another one with --workspace"
    common = ("--workspace", str(a_file), "--port", str(free_port()), str(tmp_path))
    assert _one_line(_run("start", *common), 1) == f"dash-insight: {is_a_file}"
    assert _one_line(_app_py(*common), 1) == f"dash-insight: {is_a_file}"
    below = _run("start", "--workspace", str(a_file / "ws"), str(tmp_path))
    assert _one_line(below, 1) == (
        f"dash-insight: cannot use the workspace {a_file / 'ws'}: {a_file} is not a folder; "
        "choose another one with --workspace"
    )
    pytest.importorskip("celery", reason="the worker needs the [fleet] extra")
    worker = _run("worker", "--index", "redis://127.0.0.1:1/0", *common[:2], str(tmp_path))
    assert _one_line(worker, 1) == f"dash-insight: worker: {is_a_file}"


def test_an_unreachable_redis_index_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("celery", reason="the index and the worker need the [fleet] extra")
    port = free_port()  # nothing listens there
    index = f"redis://:hunter2@127.0.0.1:{port}/0"
    unreachable = (
        f"cannot reach the Redis index at redis://:***@127.0.0.1:{port}/0 (Error 111 "
        f"connecting to 127.0.0.1:{port}. Connection refused); start Redis there or correct "
        "--index or DASH_INSIGHT_INDEX"
    )
    common = ("--index", index, "--workspace", str(tmp_path / "ws"), str(tmp_path))
    started = _run("start", "--port", str(free_port()), *common)
    assert _one_line(started, 1) == f"dash-insight: {unreachable}"
    assert _one_line(_run("worker", *common), 1) == f"dash-insight: worker: {unreachable}"


@pytest.mark.fleet
def test_a_wrong_redis_password_is_one_line(redis_password_url: str, tmp_path: Path) -> None:
    wrong = redis_password_url.replace(REDIS_PASSWORD, "not-the-password")
    refused = (
        f"the Redis index at redis://:***@{wrong.split('@', 1)[1]} refused the password "
        "(AuthenticationError); check the password in --index or DASH_INSIGHT_INDEX"
    )
    common = ("--index", wrong, "--workspace", str(tmp_path / "ws"), str(tmp_path))
    started = _run("start", "--port", str(free_port()), *common)
    assert _one_line(started, 1) == f"dash-insight: {refused}"
    assert _one_line(_run("worker", *common), 1) == f"dash-insight: worker: {refused}"
    assert "not-the-password" not in started.stderr


def test_tensorboard_spellings_of_the_base_dir(tmp_path: Path) -> None:
    def shown(*args: str) -> dict[str, str]:
        done = _run("config", "show", "--json", *args)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["settings"]["summary_base_dir"]

    assert shown("--logdir", str(tmp_path)) == {
        "value": str(tmp_path.resolve()),
        "source": "command line (--summary-base-dir)",
    }
    assert shown(str(tmp_path)) == {
        "value": str(tmp_path.resolve()),
        "source": "command line (DIR)",
    }
    twice = _run("start", str(tmp_path), "--summary-base-dir", str(tmp_path / "other"))
    assert _one_line(twice, 2) == (
        f"dash-insight: the summary base directory is given twice, as {tmp_path} and as "
        f"--summary-base-dir {tmp_path / 'other'}; give only one"
    )


def test_an_unknown_option_gets_the_subcommands_usage_and_a_close_match() -> None:
    typo = _run("start", "--summary-base-dri", "runs")
    assert typo.returncode == 2 and "Traceback" not in typo.stderr
    assert typo.stderr.startswith("usage: dash-insight start [-h]")
    assert typo.stderr.splitlines()[-1] == (
        "dash-insight start: error: unrecognized arguments: --summary-base-dri; "
        "did you mean --summary-base-dir?"
    )
    stop = _run("stop", "--prot", "8080")
    assert stop.returncode == 2 and stop.stderr.startswith("usage: dash-insight stop [-h]")
    assert stop.stderr.endswith("did you mean --port?\n")
    app = _app_py("--summary-base-dri", "runs")
    assert app.returncode == 2 and app.stderr.startswith("usage: app.py [-h]")
    assert app.stderr.endswith("did you mean --summary-base-dir?\n")


def test_version_after_a_subcommand() -> None:
    expected = _run("--version").stdout
    assert expected.startswith("dash-insight ")
    for args in (["start", "--version"], ["worker", "--version"], ["config", "show", "--version"]):
        done = _run(*args)
        assert done.returncode == 0 and done.stdout == expected, args
    app = _app_py("--version")
    assert app.returncode == 0 and app.stdout == expected


def test_an_empty_base_directory_starts_with_a_warning(tmp_path: Path) -> None:
    base = tmp_path / "runs"
    base.mkdir()
    (base / "notes.txt").write_text("no summary here")
    port, workspace = free_port(), str(tmp_path / "ws")
    started = _run("start", str(base), "--port", str(port), "--workspace", workspace)
    try:
        assert _one_line(started, 0) == (
            f"dash-insight: warning: no summary files under {base} yet (looked for "
            "*.summary.*, *.summary.*_lineage, events.out.tfevents.*, *.pb); write them with "
            "MindSpore's SummaryCollector, or with dash_insight.SummaryWriter without MindSpore"
        )
        assert f"http://127.0.0.1:{port}/" in started.stdout and f"serving {base}" in started.stdout
    finally:
        assert _run("stop", "--port", str(port), "--workspace", workspace).returncode == 0


def test_mindinsight_variables_are_settings_below_dash_insights(tmp_path: Path) -> None:
    environ = {
        **os.environ,
        "MINDINSIGHT_PORT": "9001",
        "MINDINSIGHT_SUMMARY_BASE_DIR": str(tmp_path),
        "MINDINSIGHT_RELOAD_INTERVAL": "5",
        "DASH_INSIGHT_RELOAD_INTERVAL": "7",
        "MINDINSIGHT_ENABLE_DEBUGGER": "True",
    }
    done = subprocess.run(
        [*CLI, "config", "show"], capture_output=True, text=True, timeout=60, env=environ
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert rows["port"].split() == ["port", "9001", "environment", "(MINDINSIGHT_PORT)"]
    assert rows["summary_base_dir"].endswith("environment (MINDINSIGHT_SUMMARY_BASE_DIR)")
    assert rows["reload_interval"].split()[1:] == [
        "7",
        "environment",
        "(DASH_INSIGHT_RELOAD_INTERVAL)",
    ]
    assert "ignored (not dash-insight settings): MINDINSIGHT_ENABLE_DEBUGGER" in done.stdout
    wrong = subprocess.run(
        [*CLI, "config", "show"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**environ, "MINDINSIGHT_PORT": "x"},
    )
    assert _one_line(wrong, 2) == (
        "dash-insight: MINDINSIGHT_PORT: port must be an integer in 1..65535, not 'x'"
    )
