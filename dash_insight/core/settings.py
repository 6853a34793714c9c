"""The server's settings: one set of defaults, one validation, three sources.

``dash-insight start``, ``python app.py`` / ``python -m dash_insight.server`` (command line:
:meth:`Settings.add_arguments` + :meth:`Settings.from_args`), ``dash_insight.wsgi``
(environment: :meth:`Settings.from_env`) and ``create_app`` (keyword arguments) all build a
:class:`Settings`, so a value refused by one is refused by all, with the same message. Kept free
of Dash imports so the CLI starts fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dash_insight.core.store.sampling import format_samples_per_plugin, parse_samples_per_plugin

DEMO_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "demo")
DEFAULT_WORKSPACE = os.path.join("~", "dash-insight")
DEFAULT_RELOAD_INTERVAL = 3.0
MAX_RELOAD_INTERVAL = 300.0
DEFAULT_PORT = 8080
DEFAULT_HOST = "127.0.0.1"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Bytes of decoded values (images, tensors, histograms) each process keeps in memory.
DEFAULT_CACHE_BYTES = 256 << 20
ENV_PREFIX = "DASH_INSIGHT_"


class SettingsError(ValueError):
    """A setting that cannot be used; ``str()`` is a one-line message naming it."""


# -- one parser per value, shared by every source ----------------------------------------------


def parse_port(text: str) -> int:
    value = int(text) if str(text).isdigit() else -1
    if not 1 <= value <= 65535:
        raise SettingsError(f"port must be an integer in 1..65535, not {text!r}")
    return value


def parse_reload_interval(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = -1.0
    if not 0 <= value <= MAX_RELOAD_INTERVAL:
        raise SettingsError("reload interval must be a number of seconds in "
                            f"0..{MAX_RELOAD_INTERVAL:g}, not {text!r}")
    return value


def parse_max_depth(text: str) -> int:
    if not str(text).isdigit():
        raise SettingsError(f"max depth must be an integer >= 0, not {text!r}")
    return int(text)


def parse_samples(text: str) -> dict[str, int]:
    try:
        return parse_samples_per_plugin(text)
    except ValueError as error:
        raise SettingsError(str(error)) from None


def parse_url_base_pathname(text: str) -> str:
    if not text.startswith("/") or not text.endswith("/"):
        raise SettingsError(f"url_base_pathname must start and end with '/', not {text!r}")
    return text


def parse_host(text: str) -> str:
    """An address or host name to bind; an empty one is refused (waitress would fail on it
    with a traceback; ``0.0.0.0`` is how to say every address)."""
    if not str(text).strip():
        raise SettingsError("host must be an address or host name to bind, e.g. 127.0.0.1 "
                            "(this machine only) or 0.0.0.0 (every address), not ''")
    return str(text).strip()


def bind_problem(host: str, port: int) -> str | None:
    """Why a server could not listen on ``host``:``port``, as one line, or None when it can:
    an unresolvable host is said to be one (not a port in use)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, socket.gaierror) else str(error)
        return (f"cannot resolve host {host!r} ({reason}); give an address or name of this "
                "machine with --host")
    family, kind, protocol, _, address = infos[0]
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return (f"port {port} is already in use on {host}; choose another one with "
                        "--port")
            return f"cannot listen on {host} port {port}: {error.strerror or error}"
    return None


def parse_allowed_hosts(text: str) -> tuple[str, ...]:
    """``"a.example,b.example"`` -> the host names a request's ``Host`` header may name besides
    the bound address and ``localhost`` (``*`` = any: only behind a proxy that checks it)."""
    names = tuple(name.strip().lower().rstrip(".") for name in str(text).split(","))
    names = tuple(name for name in names if name)
    for name in names:
        if name != "*" and not all(part.replace("-", "").replace("_", "").isalnum()
                                   for part in name.removeprefix("*.").split(".")):
            raise SettingsError(f"allowed hosts must be host names separated by commas, "
                                f"not {text!r}")
    return names


@dataclass(frozen=True)
class Settings:
    """Everything a dash-insight server needs to know; validated when built."""

    summary_base_dir: str = "."
    workspace: str = DEFAULT_WORKSPACE
    reload_interval: float = DEFAULT_RELOAD_INTERVAL
    max_depth: int | None = None
    samples_per_plugin: Mapping[str, int] = field(default_factory=dict)
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    url_base_pathname: str = "/"
    cache_bytes: int = DEFAULT_CACHE_BYTES
    #: Extra names the ``Host`` header may carry (see :mod:`dash_insight.web.host_check`).
    allowed_hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Values given as numbers (create_app's keywords) go through the same parsers as text.
        set_ = object.__setattr__
        set_(self, "summary_base_dir", os.fspath(self.summary_base_dir))
        set_(self, "workspace", os.path.abspath(os.path.expanduser(os.fspath(self.workspace))))
        set_(self, "reload_interval", parse_reload_interval(str(self.reload_interval)))
        if self.max_depth is not None:
            set_(self, "max_depth", parse_max_depth(str(self.max_depth)))
        samples = self.samples_per_plugin
        set_(self, "samples_per_plugin",
             parse_samples(format_samples_per_plugin(samples)) if samples else {})
        set_(self, "port", parse_port(str(self.port)))
        set_(self, "host", parse_host(self.host))
        parse_url_base_pathname(self.url_base_pathname)
        set_(self, "allowed_hosts", parse_allowed_hosts(",".join(self.allowed_hosts)))
        if self.cache_bytes < 0:
            raise SettingsError(f"cache bytes must be >= 0, not {self.cache_bytes}")

    @property
    def base_dir(self) -> str:
        """The summary base directory as an absolute real path."""
        return os.path.realpath(os.path.expanduser(self.summary_base_dir))

    @property
    def is_local(self) -> bool:
        """Only this machine can connect (dash-insight has no login)."""
        return self.host in LOCAL_HOSTS

    def checked_base_dir(self) -> str:
        """:attr:`base_dir`; SettingsError with a one-line reason if it cannot be served."""
        path = self.base_dir
        if not os.path.isdir(path):
            raise SettingsError(f"summary base directory not found: {path}")
        if not os.access(path, os.R_OK | os.X_OK):
            raise SettingsError(f"summary base directory is not readable: {path}")
        return path

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    # -- command line --
    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """Options of ``dash-insight start`` and ``python -m dash_insight.server``."""
        parser.add_argument("--port", type=_argument(parse_port), default=DEFAULT_PORT,
                            help=f"port to listen on ({DEFAULT_PORT})")
        parser.add_argument("--host", default=DEFAULT_HOST,
                            help=f"address to bind ({DEFAULT_HOST}: this machine only)")
        parser.add_argument("--summary-base-dir", default=".",
                            help="folder whose sub-folders hold summary files (current folder)")
        parser.add_argument("--demo", action="store_true",
                            help="serve the bundled demo of real MindSpore summaries instead")
        parser.add_argument("--reload-interval", type=_argument(parse_reload_interval),
                            default=DEFAULT_RELOAD_INTERVAL,
                            help="seconds between reloads of the logs, 0 = load once "
                                 f"({DEFAULT_RELOAD_INTERVAL:g})")
        parser.add_argument("--workspace", default=DEFAULT_WORKSPACE,
                            help=f"folder for the index, logs and pid files ({DEFAULT_WORKSPACE})")
        parser.add_argument("--max-depth", type=_argument(parse_max_depth), default=None,
                            help="how many folder levels below the base to look for jobs (all)")
        parser.add_argument("--samples-per-plugin", type=_argument(parse_samples), default=None,
                            metavar="PLUGIN=N,...",
                            help="keep only N sampled values per tag, like MindInsight "
                                 "(e.g. scalar=1000,image=10; 'mindinsight' for its sizes); "
                                 "default: keep everything")
        parser.add_argument("--allowed-hosts", type=_argument(parse_allowed_hosts), default=(),
                            metavar="NAME,...",
                            help="host names the browser may use to reach the server besides "
                                 "the bound address, its IP addresses and localhost (they are "
                                 "checked against DNS rebinding)")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        """Settings from options added by :meth:`add_arguments` (``--demo`` serves the demo)."""
        return cls(summary_base_dir=DEMO_DIR if args.demo else args.summary_base_dir,
                   workspace=args.workspace, reload_interval=args.reload_interval,
                   max_depth=args.max_depth, samples_per_plugin=args.samples_per_plugin or {},
                   host=args.host, port=args.port,
                   allowed_hosts=getattr(args, "allowed_hosts", ()))

    def to_args(self) -> list[str]:
        """Command-line options that give these settings back (for the background server)."""
        args = ["--port", str(self.port), "--host", self.host,
                "--summary-base-dir", self.base_dir,
                "--reload-interval", f"{self.reload_interval:g}", "--workspace", self.workspace]
        if self.max_depth is not None:
            args += ["--max-depth", str(self.max_depth)]
        if self.samples_per_plugin:
            args += ["--samples-per-plugin", format_samples_per_plugin(self.samples_per_plugin)]
        if self.allowed_hosts:
            args += ["--allowed-hosts", ",".join(self.allowed_hosts)]
        return args

    # -- environment --
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``DASH_INSIGHT_*`` variables: ``SUMMARY_BASE_DIR`` (required),
        ``WORKSPACE``, ``RELOAD_INTERVAL``, ``MAX_DEPTH``, ``SAMPLES_PER_PLUGIN``,
        ``URL_BASE_PATHNAME``, ``ALLOWED_HOSTS``; SettingsError naming the variable for a bad
        value."""
        environ = os.environ if environ is None else environ
        found: dict[str, Any] = {}
        for name, parse in _ENVIRONMENT.items():
            text = environ.get(ENV_PREFIX + name.upper())
            if text is None or text == "":
                continue
            try:
                found[name] = parse(text)
            except SettingsError as error:
                raise SettingsError(f"{ENV_PREFIX}{name.upper()}: {error}") from None
        if "summary_base_dir" not in found:
            raise SettingsError(f"set {ENV_PREFIX}SUMMARY_BASE_DIR to the summary base directory")
        return cls(**found)


def _text(text: str) -> str:
    return text


#: The settings the environment can give, with their parsers.
_ENVIRONMENT: dict[str, Callable[[str], Any]] = {
    "summary_base_dir": _text,
    "workspace": _text,
    "reload_interval": parse_reload_interval,
    "max_depth": parse_max_depth,
    "samples_per_plugin": parse_samples,
    "url_base_pathname": parse_url_base_pathname,
    "allowed_hosts": parse_allowed_hosts,
}


def _argument(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse ``type``: its SettingsError becomes argparse's usage error."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except SettingsError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = parse.__name__
    return convert
