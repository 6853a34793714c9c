"""dash-insight in notebooks (Jupyter, JupyterLab, VS Code): the ``%dash_insight`` magic and
:func:`show`, as TensorBoard's ``%tensorboard``.

::

    %load_ext dash_insight
    %dash_insight --summary-base-dir runs/        # the summary list in the output cell
    %dash_insight --demo --page scalars --train-id ./lenet_sc --height 900

    import dash_insight.notebook
    dash_insight.notebook.show("runs/run1", page="scalars", tags=["loss/auto"])

The server runs inside the kernel, started by Dash's own Jupyter support (``app.run`` with
``jupyter_mode="_none"``: a threaded werkzeug server in a daemon thread, waited for until it
answers). The output cell then shows the page in an ``<iframe>`` (``mode="inline"``) or as a
link (``"external"``). There is one server per summary base directory and kernel: a later call
for the same folder, or for a job folder below it, shows the running server (its loader keeps
reading new data) instead of starting another; :func:`servers` lists them.

Under JupyterHub the kernel cannot be reached directly: the browser goes through
jupyter-server-proxy at ``$JUPYTERHUB_SERVICE_PREFIX/proxy/<port>/``, which must be installed
on the single-user server (Dash's own Jupyter support needs it too). ``DASH_INSIGHT_NOTEBOOK_PROXY``
names any other proxy path (``/custom/proxy/{port}/``).
"""

from __future__ import annotations

import argparse
import html
import os
import shlex
import socket
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dash

from dash_insight.core.settings import Settings, SettingsError, bind_problem
from dash_insight.core.store.discovery import discover_jobs, train_id_of
from dash_insight.default import create_app, page_paths
from dash_insight.web.url_state import encode_tags, make_search

#: The environment variable naming the proxy path, ``{port}`` standing for the port.
PROXY_ENV = "DASH_INSIGHT_NOTEBOOK_PROXY"
DEFAULT_HEIGHT = 800
MODES = ("inline", "external")
#: Origins whose pages may frame the app besides its own: a notebook server on this machine
#: (Jupyter's ``localhost:8888``), VS Code's notebook webviews (desktop and web). Under
#: JupyterHub the page comes through the notebook's own origin ('self').
NOTEBOOK_FRAME_ANCESTORS = (
    "'self'",
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "vscode-webview:",
    "vscode-file:",
    "https://*.vscode-cdn.net",
)
SOURCE = "notebook"
#: Pages about every job, which take no ``train_id``.
PAGES_OF_ALL_JOBS = ("/", "/lineage", "/compare", "/compare/landscape")


@dataclass(frozen=True, repr=False)
class NotebookServer:
    """A server running in this kernel: its settings, its app and the URL the browser uses
    (``http://127.0.0.1:<port>/``, or a path below the notebook's origin behind a proxy)."""

    settings: Settings
    app: dash.Dash
    url: str

    @property
    def base_dir(self) -> str:
        return self.settings.base_dir

    def __repr__(self) -> str:
        return f"NotebookServer({self.base_dir!r}, url={self.url!r})"


class ServerRegistry:
    """This kernel's servers by real base directory path. It lives as long as the kernel, as
    Dash's own record of its Jupyter servers does: the servers are the kernel's threads, not a
    cache of data (each app keeps its data in its own DataService)."""

    def __init__(self) -> None:
        self._servers: dict[str, NotebookServer] = {}
        self._lock = threading.Lock()

    def find(self, path: str) -> NotebookServer | None:
        """The server of ``path`` as base directory, else of the innermost base directory
        holding ``path``, else None."""
        real = os.path.realpath(os.path.expanduser(path))
        with self._lock:
            holding = [
                base
                for base in self._servers
                if real == base or real.startswith(base.rstrip(os.sep) + os.sep)
            ]
            return self._servers[max(holding, key=len)] if holding else None

    def serve(self, settings: Settings) -> tuple[NotebookServer, bool]:
        """The server of ``settings``' base directory, started unless it runs; True when it was
        started now. SettingsError when the directory cannot be served."""
        with self._lock:
            running = self._servers.get(settings.base_dir)
            if running is not None:
                return running, False
            server = _start(settings)
            self._servers[server.base_dir] = server
            return server, True

    def all(self) -> list[NotebookServer]:
        with self._lock:
            return list(self._servers.values())


REGISTRY = ServerRegistry()


def proxy_path(port: int, environ: Mapping[str, str]) -> str | None:
    """The path the browser reaches ``port`` through, or None to connect directly.

    ``$DASH_INSIGHT_NOTEBOOK_PROXY`` with ``{port}`` replaced, else JupyterHub's
    jupyter-server-proxy path ``$JUPYTERHUB_SERVICE_PREFIX`` + ``proxy/<port>/`` (the proxy
    strips it: the server sees ``/``). Always one leading and one trailing slash.
    """
    template = environ.get(PROXY_ENV, "").strip()
    if template:
        path = template.replace("{port}", str(port))
    elif environ.get("JUPYTERHUB_SERVICE_PREFIX", "").strip():
        path = environ["JUPYTERHUB_SERVICE_PREFIX"].strip().rstrip("/") + f"/proxy/{port}/"
    else:
        return None
    return "/" + path.strip("/") + "/"


def page_path(page: str | None) -> str:
    """A page name as :func:`show` takes it (``"scalars"``, ``"/profiler/timeline"``, ``""``
    or None for the summary list) as the app's page path; ValueError naming the pages."""
    path = "/" + (page or "").strip().strip("/")
    known = page_paths()
    if path not in known:
        names = ", ".join(repr(p.strip("/")) for p in known if p != "/")
        raise ValueError(f"unknown page {page!r}: use one of {names} (or None: the summary list)")
    return path


def page_url(
    server_url: str,
    page: str | None = None,
    train_id: str | None = None,
    tags: Sequence[str] | None = None,
) -> str:
    """The URL of one page of a running server with its job and tags in the query string, as
    the page itself writes them (``train_id``, ``tags``: :func:`encode_tags`)."""
    query = make_search({"train_id": train_id, "tags": encode_tags(list(tags)) if tags else None})
    return server_url + page_path(page).lstrip("/") + query


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host if host not in ("0.0.0.0", "::", "") else "127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(settings: Settings) -> NotebookServer:
    """Start an app for ``settings`` in the kernel through Dash's Jupyter support."""
    settings.checked_base_dir()
    if not dash.jupyter_dash.active:
        raise RuntimeError(
            "dash_insight.notebook serves from a Jupyter or IPython kernel; "
            "outside one run `dash-insight start`"
        )
    if "port" not in settings.sources:  # no --port, no DASH_INSIGHT_PORT: any free port
        settings = settings.replace(SOURCE, port=_free_port(settings.host))
    # Checked here: Dash's Jupyter support would shut down its own server on a taken port (the
    # server of another base directory) and take the port over.
    problem = bind_problem(settings.host, settings.port)
    if problem is not None:
        raise SettingsError(problem)
    proxy = proxy_path(settings.port, os.environ)
    if proxy is not None and not settings.allowed_hosts:
        # jupyter-server-proxy forwards the browser's Host (the hub's public name, unknown
        # here); the proxy admits only the logged-in user, which a DNS-rebinding page is not.
        settings = settings.replace(SOURCE, allowed_hosts=("*",))
    prefix = settings.url_base_pathname
    requests_prefix = None if proxy is None else proxy.rstrip("/") + prefix
    app = create_app(
        settings, frame_ancestors=NOTEBOOK_FRAME_ANCESTORS, requests_pathname_prefix=requests_prefix
    )
    # The kernel's own cells may build plotly figures: pandas is imported whole before they run.
    app.warm_up.wait()
    try:
        app.run(jupyter_mode="_none", host=settings.host, port=settings.port)
    except BaseException:  # e.g. the port is taken: stop the loader create_app started
        app.data_service.close()
        raise
    if requests_prefix is not None:
        url = requests_prefix  # below the notebook's own origin
    else:
        host = settings.host if settings.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        url = f"http://{host}:{settings.port}{prefix}"
    return NotebookServer(settings, app, url)


def _display(url: str, mode: str, height: int) -> None:
    from IPython.display import HTML, IFrame, display

    if mode == "inline":
        display(IFrame(url, width="100%", height=height))
    else:
        link = html.escape(url)
        display(HTML(f'<a href="{link}" target="_blank" rel="noopener">dash-insight: {link}</a>'))


def show(
    path: str | os.PathLike[str] = ".",
    page: str | None = None,
    *,
    train_id: str | None = None,
    tags: Sequence[str] | None = None,
    height: int = DEFAULT_HEIGHT,
    mode: str = "inline",
    settings: Settings | None = None,
) -> None:
    """Show dash-insight for ``path`` in the output cell.

    ``path``: a summary base directory, or a job folder. A folder below the base directory of a
    running server is shown by that server, as its job (``train_id`` defaults to the folder);
    otherwise a server for ``path`` is started (other settings: ``settings``, else the
    ``DASH_INSIGHT_*`` variables and the config file, as ``dash-insight start`` reads them).
    ``page``: ``"scalars"``, ``"images"``, ... (None: the summary list; a job's pages without a
    job open at its folder when ``path`` holds summaries itself); ``tags``: the tags to draw.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    target = os.fspath(path)
    path_of_page = page_path(page)
    server = REGISTRY.find(target)
    started = False
    if server is None:
        if settings is None:
            settings = Settings.resolve(given={"summary_base_dir": (SOURCE, target)})
        server, started = REGISTRY.serve(settings)
    real = os.path.realpath(os.path.expanduser(target))
    is_job = real != server.base_dir or bool(discover_jobs(real, max_depth=0))
    if train_id is None and path_of_page not in PAGES_OF_ALL_JOBS and is_job:
        train_id = train_id_of(server.base_dir, real)
    url = page_url(server.url, page, train_id, tags)
    if not started:
        print(f"dash-insight: showing the running server of {server.base_dir}")
    _display(url, mode, height)


def servers() -> list[NotebookServer]:
    """This kernel's running servers (one per summary base directory)."""
    return REGISTRY.all()


def magic_parser() -> argparse.ArgumentParser:
    """``%dash_insight``'s options: those of ``dash-insight start`` and the display's."""
    parser = argparse.ArgumentParser(
        prog="%dash_insight",
        description="Show dash-insight in the output cell (one server per "
        "summary base directory and kernel, reused by later calls).",
    )
    Settings.add_arguments(parser)
    parser.add_argument(
        "--page",
        default=None,
        help="a single page: scalars, images, histograms, tensors, graph, ... "
        "(default: the summary list)",
    )
    parser.add_argument("--train-id", default=None, help="the job of the page (./run1)")
    parser.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=None,
        help="a tag to draw (repeat the option for several)",
    )
    parser.add_argument(
        "--height",
        type=int,
        default=DEFAULT_HEIGHT,
        help=f"height of the output cell's frame in pixels ({DEFAULT_HEIGHT})",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="inline",
        help="inline: the app in the output cell; external: a link",
    )
    return parser


def dash_insight_magic(line: str) -> None:
    """``%dash_insight [options]``: see :func:`magic_parser` (``%dash_insight --help``)."""
    parser = magic_parser()
    try:
        args = parser.parse_args(shlex.split(line))
    except SystemExit:  # --help, or a wrong option: argparse has printed why
        return
    try:
        settings = Settings.from_args(args)
        show(
            settings.summary_base_dir,
            args.page,
            train_id=args.train_id,
            tags=args.tags,
            height=args.height,
            mode=args.mode,
            settings=settings,
        )
    except (SettingsError, ValueError, OSError, RuntimeError) as error:
        print(f"dash-insight: {error}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext dash_insight``: registers the ``%dash_insight`` line magic."""
    ipython.register_magic_function(
        dash_insight_magic, magic_kind="line", magic_name="dash_insight"
    )
