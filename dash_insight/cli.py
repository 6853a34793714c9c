"""Command line: ``dash-insight start | stop | status | config show | inspect | export``.

``start`` runs the server in the background like ``mindinsight start``: its log goes to
``<workspace>/log/server.<port>.log`` and its pid to ``<workspace>/pid/server.<port>.pid``;
its settings (command line > ``DASH_INSIGHT_*`` environment > ``--config`` file > defaults) are
exported to its environment as ``DASH_INSIGHT_*``; the command returns once the server answers,
printing its URL. ``stop`` ends it; ``status`` lists the running servers however they were
started; ``config show`` prints the effective settings and where each came from; ``export``
(alias ``parse_summary``, MindInsight's spelling) writes every value of a base directory to
CSV/JSON/Parquet, PNG and ``.npz`` files.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from dash_insight import __version__
from dash_insight.core import i18n
from dash_insight.core.export import (
    FORMATS,
    PLUGINS,
    ExportError,
    export_summaries,
    find_jobs,
    parse_plugins,
    require_parquet,
    summary_bytes,
)
from dash_insight.core.format.inspect import format_file_entry, format_report, inspect_path
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.core.private_files import create_private_file, make_private_dirs
from dash_insight.core.runtime import (
    STOPPABLE_LAUNCHERS,
    find_servers,
    format_servers,
    is_server_process,
    servers_on_port,
)
from dash_insight.core.settings import (
    DEFAULT_PORT,
    DEFAULT_WORKSPACE,
    ENV_PREFIX,
    Settings,
    SettingsError,
    SuggestingParser,
    bind_problem,
    parse_size,
    source_table,
)
from dash_insight.core.startup import (
    empty_base_warning,
    environment_problem,
    index_problem,
    workspace_problem,
)
from dash_insight.core.vocabulary import PluginName

START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0


def _paths(workspace: str, port: int) -> tuple[str, str]:
    root = os.path.abspath(os.path.expanduser(workspace))
    return (
        os.path.join(root, "log", f"server.{port}.log"),
        os.path.join(root, "pid", f"server.{port}.pid"),
    )


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"


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


def _warn_if_empty(settings: Settings, base: str) -> None:
    """Say once, on stderr, that the base directory holds nothing to show yet (no mistake:
    the server starts and shows the jobs as they appear)."""
    warning = empty_base_warning(base, settings.max_depth)
    if warning is not None:
        print(f"dash-insight: {warning}", file=sys.stderr)


def _start(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_args(args)
        base = settings.checked_base_dir()
    except SettingsError as error:
        return _fail(str(error), 2)
    log_path, pid_path = _paths(settings.workspace, settings.port)
    problem = _start_problem(settings, pid_path)
    if problem is not None:
        return _fail(problem)
    if not settings.is_local:
        print(
            "dash-insight: "
            + _(
                "warning: listening on {host}: anyone who can reach it can "
                "read the summaries (there is no login)"
            ).format(host=settings.host),
            file=sys.stderr,
        )
    try:
        make_private_dirs(os.path.dirname(log_path))
        create_private_file(log_path)  # the server's output may quote values of the logs
        make_private_dirs(os.path.dirname(pid_path))
    except OSError as error:  # e.g. a file named log or pid in the workspace
        return _fail(
            _("cannot write {path} ({reason}); choose another workspace with --workspace").format(
                path=error.filename or log_path, reason=error.strerror or error
            )
        )
    process = _spawn_server(settings, log_path, pid_path)
    url = _url(settings.host, settings.port) + settings.url_base_pathname.lstrip("/")
    problem = _wait_until_served(process, url, log_path, pid_path)
    if problem is not None:
        return _fail(problem)
    # Said once it runs: a server that cannot start says only why.
    _warn_if_empty(settings, base)
    print(
        _("dash-insight is running at {url} (serving {base}; pid {pid}; log {log})").format(
            url=url, base=base, pid=process.pid, log=log_path
        )
    )
    return 0


def _start_problem(settings: Settings, pid_path: str) -> str | None:
    """Why a server of ``settings`` cannot start (an unusable workspace, a server already on
    the port, a taken port, an unusable index), or None; removes a stale pid file."""
    problem = workspace_problem(settings.workspace)
    if problem is not None:
        return problem
    if os.path.exists(pid_path):
        with open(pid_path) as handle:
            old = int(handle.read().strip() or 0)
        if old and _alive(old) and is_server_process(old):
            return _(
                "a dash-insight server (pid {pid}) already runs on port {port}; "
                "stop it with: dash-insight stop --port {port}"
            ).format(pid=old, port=settings.port)
        os.remove(pid_path)
    return bind_problem(settings.host, settings.port) or index_problem(settings.index)


def _spawn_server(settings: Settings, log_path: str, pid_path: str) -> subprocess.Popen[bytes]:
    """The server process, in a session of its own, its output appended to ``log_path``."""
    command = [
        sys.executable,
        "-m",
        "dash_insight.server",
        *settings.to_args(),
        "--launcher",
        "dash-insight start",
    ]
    # Like MindInsight's MINDINSIGHT_*: the settings are in the server's environment.
    environment = {**os.environ, **settings.to_env()}
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=environment,
        )
    with open(pid_path, "w") as handle:
        handle.write(str(process.pid))
    return process


def _wait_until_served(
    process: subprocess.Popen[bytes], url: str, log_path: str, pid_path: str
) -> str | None:
    """None once ``url`` answers its layout, else why not (the server exited: the end of its
    log; or START_TIMEOUT passed)."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            with contextlib.suppress(OSError):
                os.remove(pid_path)
            with open(log_path, errors="replace") as handle:
                tail = handle.read()[-2000:]
            return (
                _("the server exited (code {code}); end of {log}:").format(
                    code=process.returncode, log=log_path
                )
                + f"\n{tail}"
            )
        try:
            with urllib.request.urlopen(url + "_dash-layout", timeout=2) as response:
                if response.status == 200:
                    return None
        except OSError:
            time.sleep(0.2)
    return _("the server did not answer within {seconds} s; see {log}").format(
        seconds=f"{START_TIMEOUT:.0f}", log=log_path
    )


def _port_and_workspace(args: argparse.Namespace) -> Settings:
    """Settings for ``stop``/``status``: their --port/--workspace over the environment and the
    config file, as ``start`` resolved them."""
    given: dict[str, tuple[str, Any]] = {
        name: (f"command line (--{name})", vars(args)[name])
        for name in ("port", "workspace")
        if name in vars(args)
    }
    return Settings.resolve(given=given, config=getattr(args, "config", None))


def _stop(args: argparse.Namespace) -> int:
    """Stop the server of ``--port``: the one whose pid file is in ``--workspace``, else any
    dash-insight server of that port (found by its process title, whatever workspace it was
    started with). Only a dash-insight server is ever signalled, never a gunicorn worker."""
    try:
        settings = _port_and_workspace(args)
    except SettingsError as error:
        return _fail(str(error), 2)
    port = settings.port
    pid_path = _paths(settings.workspace, port)[1]
    pid = _read_pid(pid_path)
    if pid is not None and _alive(pid) and is_server_process(pid):
        _end(pid)
        with contextlib.suppress(OSError):
            os.remove(pid_path)
        print(_("dash-insight on port {port} stopped (pid {pid})").format(port=port, pid=pid))
        return 0
    stale = ""
    if pid is not None or os.path.exists(pid_path):
        with contextlib.suppress(OSError):
            os.remove(pid_path)
        stale = _("; removed the stale pid file {path}").format(path=pid_path)
    found = servers_on_port(port, [settings.workspace])
    if not found:
        return _fail(
            _("no dash-insight server is running on port {port}").format(port=port) + stale
        )
    others = [r for r in found if r.launcher not in STOPPABLE_LAUNCHERS]
    if others:
        pids = ", ".join(str(r.pid) for r in others)
        return _fail(
            _(
                "the dash-insight server on port {port} runs under {launcher} (pid {pids}); "
                "stop {launcher} itself"
            ).format(port=port, launcher=others[0].launcher, pids=pids)
        )
    for record in found:
        _end(record.pid)
        if record.workspace != "?":
            other_pid_path = _paths(record.workspace, port)[1]
            if _read_pid(other_pid_path) == record.pid:
                with contextlib.suppress(OSError):
                    os.remove(other_pid_path)
        print(
            _("dash-insight on port {port} stopped (pid {pid}, workspace {workspace})").format(
                port=port, pid=record.pid, workspace=record.workspace
            )
        )
    return 0


def _read_pid(path: str) -> int | None:
    try:
        with open(path) as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def _end(pid: int) -> None:
    """SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT` seconds."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while _alive(pid) and is_server_process(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _alive(pid) and is_server_process(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _status(args: argparse.Namespace) -> int:
    try:
        settings = _port_and_workspace(args)
    except SettingsError as error:
        return _fail(str(error), 2)
    servers = find_servers([settings.workspace])
    if args.json:
        json.dump([server.to_dict() for server in servers], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_servers(servers))
    return 0


def _worker(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_args(args)
        base = settings.checked_base_dir()
    except SettingsError as error:
        return _fail(str(error), 2)
    if not settings.index:
        return _fail(
            "worker: "
            + _("give the shared index: --index redis://host:6379/0 (or DASH_INSIGHT_INDEX)"),
            2,
        )
    try:
        from dash_insight.core.fleet.worker import run_worker
    except ImportError as error:
        return _fail(
            f"worker: {error}; " + _("install the fleet extra: pip install 'dash-insight[fleet]'"),
            2,
        )
    problem = environment_problem(settings)
    if problem is not None:
        return _fail("worker: " + problem)
    _warn_if_empty(settings, base)
    from dash_insight.core.store.index_api import IndexUnavailable

    try:
        return run_worker(
            settings,
            concurrency=args.concurrency or settings.load_workers,
            pool=args.pool,
            beat=args.beat,
            lease_seconds=args.lease_seconds,
            task_seconds=args.task_seconds,
            slice_bytes=args.slice_bytes,
            loglevel=args.loglevel,
        )
    except IndexUnavailable as error:
        return _fail(f"worker: {error}")


def _config_show(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_args(args)
    except SettingsError as error:
        return _fail(str(error), 2)
    if args.json:
        json.dump(
            {
                "settings": {
                    name: {"value": value, "source": source}
                    for name, value, source in settings.describe()
                },
                "config": settings.config,
                "ignored": list(settings.ignored),
            },
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        print(source_table(settings))
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
    files = report["files"] + [f for entry in report.get("profiler", []) for f in entry["files"]]
    return 1 if any(f["status"] in ("damaged", "unreadable") for f in files) else 0


def _export_to(args: argparse.Namespace, base: str, out: str) -> int:
    """Export ``base`` into ``out`` with a progress bar (on a terminal) and a closing line."""
    from tqdm import tqdm  # the bar only; imported here to keep the other commands lean

    try:
        plugins = parse_plugins(args.plugins)
        if args.format == "parquet" and PluginName.SCALAR in plugins:
            require_parquet()
        jobs = find_jobs(base, args.max_depth)
        if (
            os.path.exists(out)
            and (not os.path.isdir(out) or os.listdir(out))
            and not args.overwrite
        ):
            raise ExportError(
                f"{out} exists and is not an empty folder; choose another --to or pass --overwrite"
            )
    except (ExportError, OSError) as error:
        return _fail(f"export: {error}", 2)
    total = summary_bytes(jobs)
    started = time.perf_counter()
    with tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1000,
        desc="export",
        disable=True if args.quiet else None,
        file=sys.stderr,
    ) as bar:

        def advance(read: int) -> None:
            bar.update(read)

        try:
            report = export_summaries(
                base, out, plugins=plugins, fmt=args.format, jobs=jobs, progress=advance
            )
        except (ExportError, OSError) as error:
            return _fail(f"export: {error}", 1)
    seconds = max(time.perf_counter() - started, 1e-9)
    for entry in report.files:
        print("\n".join(format_file_entry(entry)), file=sys.stderr)
    print(
        _(
            "exported {jobs} of {seen} job(s) from {base} to {out}: {counts}; {mb} MB read in "
            "{seconds} s ({rate} MB/s)"
        ).format(
            jobs=len(report.jobs),
            seen=report.jobs_seen,
            base=base,
            out=out,
            counts=_export_counts(report.counts),
            mb=f"{report.bytes_read / 1e6:.2f}",
            seconds=f"{seconds:.1f}",
            rate=f"{report.bytes_read / 1e6 / seconds:.1f}",
        )
    )
    return 1 if report.damaged else 0


def _export_counts(counts: Mapping[str, int]) -> str:
    """What an export wrote, in words: "1,234 scalar points, 3 images" (the kinds of
    :attr:`ExportReport.counts`), or that there was nothing to export."""
    words = {
        "scalar points": lambda n: ngettext("{n} scalar point", "{n} scalar points", n),
        "images": lambda n: ngettext("{n} image", "{n} images", n),
        "histograms": lambda n: ngettext("{n} histogram", "{n} histograms", n),
        "tensors": lambda n: ngettext("{n} tensor", "{n} tensors", n),
    }
    listed = [words[kind](count).format(n=f"{count:,}") for kind, count in counts.items() if count]
    return ", ".join(listed) or _("nothing to export")


def _export(args: argparse.Namespace) -> int:
    return _export_to(
        args,
        os.path.abspath(os.path.expanduser(args.dir)),
        os.path.abspath(os.path.expanduser(args.to)),
    )


def _parse_summary(args: argparse.Namespace) -> int:
    """MindInsight's spelling: a new ``output_<date>_<time>`` folder inside ``--output``."""
    stamp = datetime.datetime.now().strftime("output_%Y%m%d_%H%M%S_%f")
    return _export_to(
        args,
        os.path.abspath(os.path.expanduser(args.summary_dir)),
        os.path.join(os.path.abspath(os.path.expanduser(args.output)), stamp),
    )


def _export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plugins",
        default=",".join(PLUGINS),
        metavar="PLUGIN,...",
        help=_("what to export, from {plugins} (all)").format(plugins=",".join(PLUGINS)),
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="csv",
        help=_("scalar tables as csv, json or parquet (needs pyarrow) (csv)"),
    )
    parser.add_argument(
        "--max-depth",
        type=int,
        default=None,
        help=_("job folders this many levels below DIR at most (all)"),
    )
    parser.add_argument(
        "--overwrite", action="store_true", help=_("write into an output folder that is not empty")
    )
    parser.add_argument("--quiet", action="store_true", help=_("no progress bar"))


def build_parser() -> argparse.ArgumentParser:
    # Subcommands are parsers of the same class: each refuses an unknown option with its own
    # usage and the closest option it has.
    parser = SuggestingParser(
        prog="dash-insight",
        description=_("Training visualization for MindSpore summary logs."),
    )
    _add_version(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_start(commands)
    _add_stop(commands)
    _add_status(commands)
    _add_worker(commands)
    config_commands = _add_config(commands)
    _add_inspect(commands)
    _add_export(commands)
    # `dash-insight start --version` as well as `dash-insight --version`.
    for command in (*commands.choices.values(), *config_commands.choices.values()):
        _add_version(command)
    return parser


def _add_start(commands: argparse._SubParsersAction) -> None:
    start = commands.add_parser(
        "start",
        help=_("start the web server in the background"),
        description=_(
            "Start dash-insight in the background and print its URL. The log and pid "
            "files go to <workspace>/log and <workspace>/pid. Settings: command line > "
            "DASH_INSIGHT_* environment > MindInsight's MINDINSIGHT_* environment > "
            "--config file > defaults ('dash-insight config show')."
        ),
    )
    Settings.add_arguments(start)
    start.set_defaults(handler=_start)


def _add_stop(commands: argparse._SubParsersAction) -> None:
    stop = commands.add_parser(
        "stop",
        help=_("stop the server on a port"),
        description=_(
            "Stop the dash-insight server on a port (started by 'start' or app.py, "
            "with any workspace: it is found by its process title)."
        ),
    )
    stop.add_argument(
        "--port",
        type=int,
        default=argparse.SUPPRESS,
        help=_("its port (default {port})").format(port=DEFAULT_PORT),
    )
    stop.add_argument(
        "--workspace",
        default=argparse.SUPPRESS,
        help=_(
            "the workspace it was started with, where its pid file is "
            "(default {workspace}; a server of another workspace is found "
            "too)"
        ).format(workspace=DEFAULT_WORKSPACE),
    )
    stop.add_argument(
        "--config",
        default=argparse.SUPPRESS,
        help=_("the config file it was started with, for its port and workspace"),
    )
    stop.set_defaults(handler=_stop)


def _add_status(commands: argparse._SubParsersAction) -> None:
    status = commands.add_parser(
        "status",
        help=_("list the running servers"),
        description=_(
            "List the running dash-insight servers (started by 'start', by app.py or "
            "as WSGI workers under gunicorn): port, pid, who started it, uptime, base "
            "directory, workspace and how far the logs are loaded. Servers are found "
            "by their process title and the pid records in their workspace."
        ),
    )
    status.add_argument(
        "--workspace",
        default=argparse.SUPPRESS,
        help=_("also look for pid records here (default {workspace})").format(
            workspace=DEFAULT_WORKSPACE
        ),
    )
    status.add_argument(
        "--config",
        default=argparse.SUPPRESS,
        help=_("a config file whose workspace to look in too"),
    )
    status.add_argument("--json", action="store_true", help=_("print the list as JSON"))
    status.set_defaults(handler=_status)


def _add_worker(commands: argparse._SubParsersAction) -> None:
    worker = commands.add_parser(
        "worker",
        help=_("load a base directory into a shared Redis index (a Celery worker)"),
        description=_(
            "Run a Celery worker that loads the summary base directory into the Redis "
            "index given by --index (Redis is also the broker). Web processes started "
            "with the same --index and --summary-base-dir serve what the workers load "
            "and load nothing themselves. Run one worker with --beat (or several: "
            "discovery is lease-guarded)."
        ),
    )
    Settings.add_arguments(worker)
    worker.add_argument(
        "--concurrency",
        type=int,
        default=0,
        metavar="N",
        help=_("tasks at once (default: --load-workers, the core count)"),
    )
    worker.add_argument(
        "--pool",
        default="prefork",
        choices=("prefork", "solo", "threads"),
        help=_(
            "Celery pool: prefork processes (default), solo (the tasks run in "
            "this process), threads"
        ),
    )
    worker.add_argument(
        "--beat",
        action="store_true",
        help=_("embed Celery beat: discover the jobs every --reload-interval seconds"),
    )
    worker.add_argument(
        "--lease-seconds",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help=_("a job whose worker died is loaded by another after this long (default 30)"),
    )
    worker.add_argument(
        "--task-seconds",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help=_("a load task queues its job again after this long (default 60)"),
    )
    worker.add_argument(
        "--slice-bytes",
        type=parse_size,
        default=32 << 20,
        metavar="SIZE",
        help=_("bytes of a file read (and committed) per pass (default 32M)"),
    )
    worker.add_argument("--loglevel", default="INFO", help=_("Celery's log level (default INFO)"))
    worker.set_defaults(handler=_worker)


def _add_config(commands: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """``config show``; returns the ``config`` subcommands."""
    config = commands.add_parser(
        "config", help=_("show the effective settings"), description=_("Settings commands.")
    )
    config_commands = config.add_subparsers(dest="config_command", metavar="COMMAND", required=True)
    show = config_commands.add_parser(
        "show",
        help=_("print the effective settings and where each came from"),
        description=_(
            "Print the settings 'start' would use with the same options, and where "
            "each value came from: command line, DASH_INSIGHT_* or MINDINSIGHT_* "
            "environment, config file or default."
        ),
    )
    Settings.add_arguments(show)
    show.add_argument("--json", action="store_true", help=_("print them as JSON"))
    show.set_defaults(handler=_config_show)
    return config_commands


def _add_inspect(commands: argparse._SubParsersAction) -> None:
    inspect = commands.add_parser(
        "inspect",
        help=_("show what a summary file or job directory holds, and any damage"),
        description=_(
            "For a summary/lineage/graph file or a job directory: each file's kind, "
            "record count, status and damage (offset + reason), and per plugin each "
            "tag with its number of values, distinct steps, first and last step. Exit "
            "status 1 when a file is damaged or unreadable."
        ),
    )
    inspect.add_argument("path", help=_("a summary, lineage or .pb file, or a job directory"))
    inspect.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    inspect.set_defaults(handler=_inspect)


def _add_export(commands: argparse._SubParsersAction) -> None:
    export_description = _(
        "Export every job under the summary directory, every tag and every step: scalars as "
        "one table per job (step, wall_time, tag, value; scalars.csv|json|parquet), images as "
        "images/<tag>_<step>.png, histograms and tensors as histograms/<tag>.npz and "
        "tensors/<tag>.npz, in OUT/<job path>/. Values are those the REST API answers (a job's "
        "files merged, nothing sampled). Damaged records are skipped and reported as "
        "'inspect' reports them (exit status 1)."
    )
    export = commands.add_parser(
        "export",
        help=_("write every value of a base directory to CSV/JSON/Parquet, PNG and .npz files"),
        description=export_description,
    )
    export.add_argument("dir", metavar="DIR", help=_("summary base directory (or one job)"))
    export.add_argument("--to", required=True, metavar="OUT", help=_("output folder"))
    _export_options(export)
    export.set_defaults(handler=_export)

    parse_summary = commands.add_parser(
        "parse_summary",
        help=_("MindInsight's name for 'export'"),
        description=export_description
        + " "
        + _(
            "MindInsight's spelling: the output goes to a new folder output_<date>_<time> "
            "inside --output."
        ),
    )
    parse_summary.add_argument(
        "--summary-dir", default=os.getcwd(), help=_("summary base directory (the current folder)")
    )
    parse_summary.add_argument(
        "--output",
        default=os.getcwd(),
        help=_("where to create the output folder (the current folder)"),
    )
    _export_options(parse_summary)
    parse_summary.set_defaults(handler=_parse_summary)


def _add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"dash-insight {__version__}")


def cli_locale(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    """The language of the command line's help and messages: ``--language`` (``zh-CN`` /
    ``en``), else ``DASH_INSIGHT_LANGUAGE``, else the POSIX locale (``LANGUAGE``, ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``), else English. Read before the parser is built, since the
    parser's help is translated."""
    chosen: str | None = None
    for position, arg in enumerate(argv):
        if arg == "--language" and position + 1 < len(argv):
            chosen = argv[position + 1]
        elif arg.startswith("--language="):
            chosen = arg.split("=", 1)[1]
    for candidate in (chosen, environ.get(ENV_PREFIX + "LANGUAGE")):
        locale = i18n.normalize_locale(candidate)
        if locale:
            return locale
    return i18n.locale_from_environ(environ) or i18n.ENGLISH


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    with i18n.use_locale(cli_locale(arguments, os.environ)):
        parser = build_parser()
        args = parser.parse_args(arguments)
        if getattr(args, "handler", None) is None:  # `dash-insight` alone: list the commands
            parser.print_help()
            return 2
        try:
            return int(args.handler(args))
        except BrokenPipeError:  # e.g. piped into head
            sys.stderr.close()
            return 0


if __name__ == "__main__":
    sys.exit(main())
