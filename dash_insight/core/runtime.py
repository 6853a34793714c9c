"""Running servers: how a server names itself and how ``dash-insight status`` finds it.

MindInsight's operators found the server with ``ps -ef | grep mindinsight``, its workspace with
``lsof -p <PID> | grep access`` and its settings in the ``MINDINSIGHT_*`` environment. A
dash-insight server (``dash-insight start``, ``python app.py`` or a WSGI worker under gunicorn)
calls :func:`announce`, which

* sets its process title to ``dash-insight: port 8080, /data/summaries`` (what ``ps`` and
  ``top`` show; setproctitle rewrites the command line, so the title is also in
  ``/proc/<pid>/cmdline``);
* exports its settings as ``DASH_INSIGHT_*`` variables (:meth:`Settings.to_env`);
* writes ``<workspace>/pid/process.<pid>.json`` (removed when the process exits).

:func:`find_servers` lists the running servers: the records of the given workspaces plus those
of every workspace a titled process has its access log open in (the ``lsof`` trick), so a server
started with another workspace, by ``app.py`` or by gunicorn, is found too. A record whose
process is gone is stale and removed.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import re
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from dash_insight.core.private_files import make_private_dirs
from dash_insight.core.provider import DataProvider
from dash_insight.core.settings import Settings
from dash_insight.core.store.health import one_line
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.index_api import IndexApi, is_redis_url, redacted

LOG = logging.getLogger(__name__)

if TYPE_CHECKING:  # imported where processes are looked at: a starting server does not need it
    import psutil

TITLE_PREFIX = "dash-insight:"
_TITLE = re.compile(r"^dash-insight: port (\d+), (.*)$")
_ACCESS_LOG = re.compile(r"^(.*)/log/access\.\d+\.log$")
_RECORD = re.compile(r"^process\.(\d+)\.json$")


def process_title(settings: Settings) -> str:
    """``dash-insight: port 8080, /data/summaries``."""
    return f"{TITLE_PREFIX} port {settings.port}, {settings.base_dir}"


@dataclass(frozen=True)
class ServerRecord:
    """What a running server writes about itself in ``<workspace>/pid/process.<pid>.json``."""

    pid: int
    port: int
    host: str
    summary_base_dir: str
    workspace: str
    url_base_pathname: str
    launcher: str  # "dash-insight start", "app.py", "gunicorn", ...
    started: float
    index: str = ""  # a fleet's Redis index, its password redacted ("": the workspace's)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}{self.url_base_pathname}"


def record_path(workspace: str, pid: int) -> str:
    return os.path.join(workspace, "pid", f"process.{pid}.json")


def announce(settings: Settings, launcher: str) -> ServerRecord:
    """Make this process findable as the server of ``settings``: process title, exported
    ``DASH_INSIGHT_*`` environment and a pid record removed at exit."""
    title = process_title(settings)
    if len(title) <= _command_line_length():
        # The title fits where the command line was: leave /proc/<pid>/environ alone, so that
        # `ps e` shows the DASH_INSIGHT_* variables `dash-insight start` passed.
        os.environ.setdefault("SPT_NOENV", "1")
    import setproctitle  # only servers need it; keeps the CLI's start-up lean

    setproctitle.setproctitle(title)
    os.environ.update(settings.to_env())
    record = ServerRecord(
        pid=os.getpid(),
        port=settings.port,
        host=settings.host,
        summary_base_dir=settings.base_dir,
        workspace=settings.workspace,
        url_base_pathname=settings.url_base_pathname,
        launcher=launcher,
        started=time.time(),
        index=redacted(settings.index) if is_redis_url(settings.index) else "",
    )
    if write_record(record_path(settings.workspace, record.pid), record):
        atexit.register(retire, record, settings.workspace)
    return record


def write_record(path: str, record: ServerRecord) -> bool:
    """Write ``record`` to ``path`` (atomically); False with one warning when the workspace
    refuses it (read-only, full, ``pid`` a file): the server still serves, only ``status`` and
    ``stop`` cannot find it."""
    try:
        make_private_dirs(os.path.dirname(path))  # the workspace is 0700 when we create it
        partial = f"{path}.partial"
        with open(partial, "w") as handle:
            json.dump(asdict(record), handle)
        os.replace(partial, path)
    except OSError as error:
        LOG.warning(
            "cannot record this server in %s (%s): `dash-insight status` and `stop` "
            "will not list it",
            path,
            error.strerror or error,
        )
        return False
    return True


def retire(record: ServerRecord, workspace: str) -> None:
    """Remove the pid record :func:`announce` wrote (also run at exit; a process that ends
    with ``os._exit`` calls it itself)."""
    _remove_record(record_path(workspace, record.pid), record.pid)


def _command_line_length() -> int:
    """Bytes of this process's original command line (0 when unknown)."""
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            return len(handle.read())
    except OSError:
        return 0


def _remove_record(path: str, pid: int) -> None:
    if os.getpid() == pid:  # not in a child forked after announce()
        with contextlib.suppress(OSError):
            os.remove(path)


def is_server_process(pid: int) -> bool:
    """The process ``pid`` runs a dash-insight server (titled, or not yet titled)."""
    import psutil

    try:
        command = " ".join(psutil.Process(pid).cmdline())
    except (psutil.Error, OSError):
        return False
    return command.startswith(TITLE_PREFIX) or "dash_insight.server" in command


def listening_ports(pid: int | None = None) -> list[int]:
    """TCP ports the process listens on (a gunicorn worker: the sockets its master bound)."""
    import psutil

    try:
        connections = psutil.Process(pid).net_connections(kind="inet")
    except (psutil.Error, OSError):
        return []
    return sorted({c.laddr.port for c in connections if c.status == psutil.CONN_LISTEN})


# -- finding running servers -------------------------------------------------------------------


@dataclass(frozen=True)
class RunningServer:
    """A live server: its record (or what its title says), uptime and load state."""

    record: ServerRecord
    uptime: float  # seconds
    load: str

    def to_dict(self) -> dict[str, object]:
        return {
            **asdict(self.record),
            "url": self.record.url,
            "uptime": round(self.uptime, 1),
            "load": self.load,
        }


def _titled_processes() -> dict[int, psutil.Process]:
    import psutil

    found = {}
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info.get("cmdline") or ())
        if command.startswith(TITLE_PREFIX):
            found[process.pid] = process
    return found


def _open_workspaces(process: psutil.Process) -> set[str]:
    """Workspaces whose access log the process has open (None readable: another user's)."""
    import psutil

    try:
        files = process.open_files()
    except (psutil.Error, OSError):
        return set()
    return {m.group(1) for f in files if (m := _ACCESS_LOG.match(f.path))}


def _records(workspace: str) -> list[tuple[str, ServerRecord]]:
    folder = os.path.join(workspace, "pid")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in names:
        if not _RECORD.match(name):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path) as handle:
                out.append((path, ServerRecord(**json.load(handle))))
        except (OSError, ValueError, TypeError):
            continue  # being written, or not ours
    return out


def _from_title(process: psutil.Process) -> ServerRecord | None:
    """What a server's title tells when its record cannot be found."""
    import psutil

    try:
        match = _TITLE.match(" ".join(process.cmdline()))
        started = process.create_time()
    except (psutil.Error, OSError):
        return None
    if match is None:
        return None
    return ServerRecord(
        pid=process.pid,
        port=int(match.group(1)),
        host="?",
        summary_base_dir=match.group(2),
        workspace="?",
        url_base_pathname="/",
        launcher="?",
        started=started,
    )


def load_state(workspace: str, base_dir: str, index: str = "") -> str:
    """How far the servers of ``workspace`` have read ``base_dir``, from their shared index
    (``index``: a fleet's Redis index, its password redacted)."""
    if index:
        return f"fleet index {index}: " + _fleet_load_state(index, base_dir)
    directory = index_directory(workspace, base_dir)
    if not os.path.isdir(directory):
        return "no index yet"
    try:
        store: IndexApi = IndexStore(directory, repair=False)  # never delete a running index
    except Exception as error:  # a status line must not fail on a damaged index
        return f"index unreadable ({type(error).__name__})"
    return _load_state(store, base_dir)


def _fleet_load_state(index: str, base_dir: str) -> str:
    """The load state of a fleet's index: reached with this command's ``DASH_INSIGHT_INDEX``
    when it names the same Redis (the password is not in the record), else the record's URL."""
    given = os.environ.get("DASH_INSIGHT_INDEX", "")
    url = given if given and redacted(given) == index else index
    try:
        from dash_insight.core.store.redis_index import RedisIndexStore

        store: IndexApi = RedisIndexStore(url, base_dir)
    except Exception as error:
        return f"unreachable ({one_line(error)})"
    return _load_state(store, base_dir)


def _load_state(store: IndexApi, base_dir: str) -> str:
    try:
        provider = DataProvider(base_dir, store)
        if not provider.ready:
            return (
                f"unreachable ({provider.unreachable})"
                if provider.unreachable is not None
                else "discovering jobs"
            )
        jobs = provider.list_jobs()
    except Exception as error:  # a status line must not fail on a damaged index
        return f"index unreadable ({type(error).__name__})"
    finally:
        store.close()
    if provider.unreachable is not None:
        return f"unreachable ({provider.unreachable})"
    loaded = sum(1 for job in jobs if job.status == "loaded")
    on_disk = sum(job.bytes_on_disk for job in jobs)
    read = sum(job.bytes_read for job in jobs)
    size = f"{on_disk / 1e6:.1f} MB"
    if loaded == len(jobs):
        return f"loaded: {len(jobs)} jobs, {size}"
    percent = 100.0 * read / on_disk if on_disk else 0.0
    return f"loading {percent:.0f}%: {loaded} of {len(jobs)} jobs, {size}"


def find_servers(workspaces: Iterable[str] = (), with_load: bool = True) -> list[RunningServer]:
    """Every running server whose record is in ``workspaces`` or in the workspace of a titled
    process, sorted by port and pid. Stale records (the process is gone) are removed.
    ``with_load=False`` skips reading the index for the load state (``"?"``)."""
    import psutil

    titled = _titled_processes()
    folders = {os.path.abspath(os.path.expanduser(w)) for w in workspaces}
    for process in titled.values():
        folders |= _open_workspaces(process)
    records: dict[int, ServerRecord] = {}
    for folder in sorted(folders):
        for path, record in _records(folder):
            if record.pid in titled:
                records[record.pid] = record
            elif not psutil.pid_exists(record.pid) or not is_server_process(record.pid):
                with contextlib.suppress(OSError):
                    os.remove(path)
    for pid, process in titled.items():
        if pid not in records and (found := _from_title(process)) is not None:
            records[pid] = found
    states: dict[tuple[str, str, str], str] = {}
    now = time.time()
    servers = []
    for record in records.values():
        key = (record.workspace, record.summary_base_dir, record.index)
        if key not in states:
            states[key] = (
                "?"
                if not with_load
                else "workspace unknown"
                if record.workspace == "?" and not record.index
                else load_state(*key)
            )
        try:
            started = titled[record.pid].create_time() if record.pid in titled else record.started
        except (psutil.Error, OSError):
            started = record.started
        servers.append(RunningServer(record, max(0.0, now - started), states[key]))
    return sorted(servers, key=lambda s: (s.record.port, s.record.pid))


#: Launchers whose server is one process that SIGTERM ends (gunicorn would restart a worker).
STOPPABLE_LAUNCHERS = ("dash-insight start", "app.py", "python -m dash_insight.server")


def servers_on_port(port: int, workspaces: Iterable[str] = ()) -> list[ServerRecord]:
    """The running servers of ``port``, whatever workspace they were started with: the titled
    processes (``dash-insight: port <port>, ...``) with their records, so ``dash-insight stop
    --port`` finds a server without being told its workspace. A server known only by its
    title whose parent is gunicorn is reported as a gunicorn worker."""
    found = []
    for server in find_servers(workspaces, with_load=False):
        record = server.record
        if record.port != port:
            continue
        if record.launcher == "?" and _parent_is_gunicorn(record.pid):
            record = replace(record, launcher="gunicorn")
        found.append(record)
    return found


def _parent_is_gunicorn(pid: int) -> bool:
    import psutil

    try:
        parent = psutil.Process(pid).parent()
        return parent is not None and "gunicorn" in " ".join(parent.cmdline())
    except (psutil.Error, OSError):
        return False


def format_uptime(seconds: float) -> str:
    """``42s``, ``5m07s``, ``3h02m``, ``2d04h``."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 86400:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d{seconds % 86400 // 3600:02d}h"


def format_servers(servers: list[RunningServer]) -> str:
    """The table ``dash-insight status`` prints."""
    if not servers:
        return "no dash-insight server is running"
    rows = [("PORT", "PID", "STARTED BY", "UPTIME", "BASE DIRECTORY", "WORKSPACE", "LOAD")]
    rows += [
        (
            str(s.record.port),
            str(s.record.pid),
            s.record.launcher,
            format_uptime(s.uptime),
            s.record.summary_base_dir,
            s.record.workspace,
            s.load,
        )
        for s in servers
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(f"{cell:<{w}}" for cell, w in zip(row, widths, strict=False)) + "  " + row[-1]
        for row in rows
    )
