"""Command line: ``dash-insight start | stop | inspect``.

``start`` runs the server in the background like ``mindinsight start``: its log goes to
``<workspace>/log/server.<port>.log`` and its pid to ``<workspace>/pid/server.<port>.pid``;
the command returns once the server answers, printing its URL. ``stop`` ends it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence

from dash_insight import __version__
from dash_insight.core.format.inspect import format_report, inspect_path
from dash_insight.core.settings import (
    DEFAULT_PORT,
    DEFAULT_WORKSPACE,
    Settings,
    SettingsError,
    bind_problem,
)

START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0


def _paths(workspace: str, port: int) -> tuple[str, str]:
    root = os.path.abspath(os.path.expanduser(workspace))
    return (os.path.join(root, "log", f"server.{port}.log"),
            os.path.join(root, "pid", f"server.{port}.pid"))


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"


def _is_our_server(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"dash_insight.server" in handle.read()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fail(message: str, code: int = 1) -> int:
    print(f"dash-insight: {message}", file=sys.stderr)
    return code


def _start(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_args(args)
        base = settings.checked_base_dir()
    except SettingsError as error:
        return _fail(str(error), 2)
    log_path, pid_path = _paths(settings.workspace, settings.port)
    if os.path.exists(pid_path):
        with open(pid_path) as handle:
            old = int(handle.read().strip() or 0)
        if old and _alive(old) and _is_our_server(old):
            return _fail(f"a dash-insight server (pid {old}) already runs on port {settings.port}; "
                         f"stop it with: dash-insight stop --port {settings.port}")
        os.remove(pid_path)
    problem = bind_problem(settings.host, settings.port)
    if problem is not None:
        return _fail(problem)
    if not settings.is_local:
        print(f"dash-insight: warning: listening on {settings.host}: anyone who can reach it can "
              "read the summaries (there is no login)", file=sys.stderr)
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    os.makedirs(os.path.dirname(pid_path), exist_ok=True)
    command = [sys.executable, "-m", "dash_insight.server", *settings.to_args()]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    with open(pid_path, "w") as handle:
        handle.write(str(process.pid))
    url = _url(settings.host, settings.port)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            with contextlib.suppress(OSError):
                os.remove(pid_path)
            with open(log_path, errors="replace") as handle:
                tail = handle.read()[-2000:]
            return _fail(f"the server exited (code {process.returncode}); end of {log_path}:\n"
                         f"{tail}")
        try:
            with urllib.request.urlopen(url + "_dash-layout", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
    else:
        return _fail(f"the server did not answer within {START_TIMEOUT:.0f} s; see {log_path}")
    print(f"dash-insight is running at {url} (serving {base}; pid {process.pid}; "
          f"log {log_path})")
    return 0


def _stop(args: argparse.Namespace) -> int:
    _, pid_path = _paths(args.workspace, args.port)
    try:
        with open(pid_path) as handle:
            pid = int(handle.read().strip())
    except (OSError, ValueError):
        return _fail(f"no dash-insight server started on port {args.port} "
                     f"(no pid file {pid_path})")
    if not (_alive(pid) and _is_our_server(pid)):
        os.remove(pid_path)
        return _fail(f"the dash-insight server on port {args.port} (pid {pid}) is not running; "
                     "removed its stale pid file")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while _alive(pid) and _is_our_server(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _alive(pid) and _is_our_server(pid):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.remove(pid_path)
    print(f"dash-insight on port {args.port} stopped (pid {pid})")
    return 0


def _inspect(args: argparse.Namespace) -> int:
    try:
        report = inspect_path(args.path)
    except FileNotFoundError as error:
        return _fail(f"inspect: {error}", 2)
    try:
        if args.json:
            json.dump(report, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print(format_report(report))
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
    # Non-zero when something is wrong, so scripts can check logs: 1 = damage found.
    return 1 if any(f["status"] in ("damaged", "unreadable") for f in report["files"]) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dash-insight",
        description="Training visualization for MindSpore summary logs.",
    )
    parser.add_argument("--version", action="version", version=f"dash-insight {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    start = commands.add_parser(
        "start", help="start the web server in the background",
        description="Start dash-insight in the background and print its URL. The log and pid "
        "files go to <workspace>/log and <workspace>/pid.")
    Settings.add_arguments(start)
    start.set_defaults(handler=_start)

    stop = commands.add_parser("stop", help="stop a server started with 'start'",
                               description="Stop the dash-insight server on a port.")
    stop.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"its port ({DEFAULT_PORT})")
    stop.add_argument("--workspace", default=DEFAULT_WORKSPACE,
                      help=f"the workspace it was started with ({DEFAULT_WORKSPACE})")
    stop.set_defaults(handler=_stop)

    inspect = commands.add_parser(
        "inspect",
        help="show what a summary file or job directory holds, and any damage",
        description="For a summary/lineage/graph file or a job directory: each file's kind, "
        "record count, status and damage (offset + reason), and per plugin each tag with its "
        "number of values, distinct steps, first and last step. Exit status 1 when a file is "
        "damaged or unreadable.",
    )
    inspect.add_argument("path", help="a summary, lineage or .pb file, or a job directory")
    inspect.add_argument("--json", action="store_true", help="print the report as JSON")
    inspect.set_defaults(handler=_inspect)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
