"""The server's settings: one set of defaults, one validation, four sources.

``dash-insight start``, ``python app.py`` / ``python -m dash_insight.server`` (command line:
:meth:`Settings.add_arguments` + :meth:`Settings.from_args`), ``dash_insight.wsgi``
(:meth:`Settings.from_env`) and ``create_app`` (keyword arguments) all build a :class:`Settings`,
so a value refused by one is refused by all, with the same message.

Sources, strongest first: the command line (``--port``; the summary base directory also as
``--logdir`` or a positional ``DIR``, TensorBoard's spellings), the environment
(``DASH_INSIGHT_PORT``, then MindInsight's ``MINDINSIGHT_PORT``), a config file (``--config``,
``DASH_INSIGHT_CONFIG`` or ``MINDINSIGHT_CONFIG``), the defaults.
A config file is TOML (``port = 8080``, the names of the table below in lower case) or, as
``mindinsight start --config`` took it, a Python file ``file:/path/config.py`` or module
``python:package.module`` whose upper-case names are the settings (``PORT``, ``WORKSPACE``,
``SUMMARY_BASE_DIR``, ``RELOAD_INTERVAL``, ``URL_PATH_PREFIX``, ...; other upper-case names, such
as MindInsight's ``ENABLE_DEBUGGER``, are ignored and listed as such). Relative paths in a config
file are relative to the file's folder. Every value remembers where it came from
(:attr:`Settings.sources`, shown by ``dash-insight config show``).

Kept free of Dash imports so the CLI starts fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import errno
import importlib
import os
import re
import runpy
import socket
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dash_insight.core import i18n
from dash_insight.core.format.framing import MAX_PAYLOAD_BYTES as DEFAULT_MAX_RECORD_BYTES
from dash_insight.core.format.remote import check_base_url, is_url, local_path_of, normalise_url
from dash_insight.core.i18n import N_
from dash_insight.core.store.sampling import format_samples_per_plugin, parse_samples_per_plugin

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEMO_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "demo")
DEFAULT_WORKSPACE = os.path.join("~", "dash-insight")
DEFAULT_RELOAD_INTERVAL = 3.0
MAX_RELOAD_INTERVAL = 300.0
DEFAULT_PORT = 8080
DEFAULT_HOST = "127.0.0.1"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Bytes of decoded values (images, tensors, histograms) each process keeps in memory.
DEFAULT_CACHE_BYTES = 256 << 20
#: The interface's language for a browser that asks for neither (no switch cookie, no
#: ``Accept-Language`` naming English or Chinese).
DEFAULT_LANGUAGE = "en"
#: The values ``--language`` takes (BCP 47 spellings of :data:`dash_insight.core.i18n.LOCALES`).
LANGUAGES = ("zh-CN", "en")
#: The access log is rotated when it would grow past this size (0 = never).
DEFAULT_ACCESS_LOG_MAX_BYTES = 10 << 20
#: Records (and ``.pb`` graph files) longer than DEFAULT_MAX_RECORD_BYTES (128M) are reported
#: and skipped unread; the same number bounds the records requests decode at once. The smallest
#: limit accepted: a summary's version record and small values must fit.
MIN_MAX_RECORD_BYTES = 1 << 10
#: More load worker processes than this would only cost memory (each holds a slice).
MAX_LOAD_WORKERS = 64
ENV_PREFIX = "DASH_INSIGHT_"
#: Names the config file (``--config`` takes precedence).
CONFIG_ENV = ENV_PREFIX + "CONFIG"
#: MindInsight's environment variables, ``MINDINSIGHT_<NAME>`` (its ``conf/__init__.py``): read
#: below ``DASH_INSIGHT_*``, so that a MindInsight user's environment keeps working.
MINDINSIGHT_ENV_PREFIX = "MINDINSIGHT_"
#: Where MindInsight reads its config file from (``file:/path/config.py``, ``python:module``).
MINDINSIGHT_CONFIG_ENV = MINDINSIGHT_ENV_PREFIX + "CONFIG"
#: The command line's positional summary base directory (``dash-insight start runs``).
BASE_DIR_ARGUMENT = "base_dir_argument"

#: Where a value came from when no source gave it.
DEFAULT_SOURCE = "default"


class SettingsError(ValueError):
    """A setting that cannot be used; ``str()`` is a one-line message naming it."""


# -- one parser per value, shared by every source ----------------------------------------------
# Each takes the text of the command line or environment, or a value of a TOML or Python config
# file (a number, a string, a table), and raises SettingsError with a message naming the value.


def parse_port(value: Any) -> int:
    text = str(value)
    number = int(text) if text.isdigit() and not isinstance(value, bool) else -1
    if not 1 <= number <= 65535:
        raise SettingsError(f"port must be an integer in 1..65535, not {text!r}")
    return number


def parse_reload_interval(value: Any) -> float:
    try:
        number = -1.0 if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        number = -1.0
    if not 0 <= number <= MAX_RELOAD_INTERVAL:
        raise SettingsError(
            "reload interval must be a number of seconds in "
            f"0..{MAX_RELOAD_INTERVAL:g}, not {str(value)!r}"
        )
    return number


def default_load_workers() -> int:
    """The cores this process may run on (``sched_getaffinity``; ``cpu_count`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def parse_load_workers(value: Any) -> int:
    text = str(value)
    number = int(text) if text.isdigit() and not isinstance(value, bool) else -1
    if not 1 <= number <= MAX_LOAD_WORKERS:
        raise SettingsError(
            f"load workers must be an integer in 1..{MAX_LOAD_WORKERS}, not {text!r}"
        )
    return number


def parse_index(value: Any) -> str:
    """``--index``: empty or ``diskcache`` (the default: an index file in the workspace), or a
    Redis URL (``redis://host:6379/0``, ``rediss://``, ``unix://``) shared by a fleet."""
    text = _text(value).strip()
    if text in ("", "diskcache"):
        return ""
    scheme, _, rest = text.partition("://")
    if scheme not in ("redis", "rediss", "unix") or not rest:
        raise SettingsError(
            f"index must be 'diskcache' or a Redis URL (redis://host:6379/0), not {text!r}"
        )
    return text


def parse_max_depth(value: Any) -> int:
    text = str(value)
    if not text.isdigit() or isinstance(value, bool):
        raise SettingsError(f"max depth must be an integer >= 0, not {text!r}")
    return int(text)


def parse_samples(value: Any) -> dict[str, int]:
    """``scalar=1000,image=all`` or ``mindinsight``; a config file may give a table
    (``{scalar = 1000, image = "all"}``)."""
    if isinstance(value, Mapping):
        value = ",".join(f"{plugin}={size}" for plugin, size in value.items())
    try:
        return parse_samples_per_plugin(str(value))
    except ValueError as error:
        raise SettingsError(str(error)) from None


def parse_url_base_pathname(value: Any) -> str:
    text = str(value)
    if not text.startswith("/") or not text.endswith("/"):
        raise SettingsError(f"url_base_pathname must start and end with '/', not {text!r}")
    return text


_URL_SEGMENT = re.compile(r"^[A-Za-z0-9_\-.]+$")


def parse_url_path_prefix(value: Any) -> str:
    """MindInsight's ``URL_PATH_PREFIX`` (``''``, ``insight`` or ``/a/b``: segments of letters,
    digits, ``_-.``, never ``.`` or ``..``) as a url_base_pathname (``/``, ``/insight/``)."""
    text = str(value)
    segments = [s for s in text.strip("/").split("/") if s] if text.strip("/") else []
    if any(not _URL_SEGMENT.match(s) or s in (".", "..") for s in segments) or "//" in text.strip(
        "/"
    ):
        raise SettingsError(
            "url path prefix must be segments of letters, digits, '_', '-' and "
            f"'.' separated by '/' (not '.' or '..'), not {text!r}"
        )
    return "/" + "".join(s + "/" for s in segments)


_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]?)(i?b)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(value: Any) -> int:
    """A size in bytes: ``1048576``, ``512K``, ``10M``, ``1GiB`` (K/M/G = 2**10/20/30)."""
    match = None if isinstance(value, bool) else _SIZE.match(str(value))
    if match is None:
        raise SettingsError(
            f"size must be a number of bytes such as 10485760 or 10M, not {str(value)!r}"
        )
    return int(match.group(1)) * _SIZE_UNITS[match.group(2).lower()]


def _text(value: Any) -> str:
    if not isinstance(value, str | os.PathLike):
        raise SettingsError(f"expected a string, not {value!r}")
    return os.fspath(value)


def parse_host(text: Any) -> str:
    """An address or host name to bind; an empty one is refused (waitress would fail on it
    with a traceback; ``0.0.0.0`` is how to say every address)."""
    if not str(text).strip():
        raise SettingsError(
            "host must be an address or host name to bind, e.g. 127.0.0.1 "
            "(this machine only) or 0.0.0.0 (every address), not ''"
        )
    return str(text).strip()


def bind_problem(host: str, port: int) -> str | None:
    """Why a server could not listen on ``host``:``port``, as one line, or None when it can:
    an unresolvable host is said to be one (not a port in use)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, socket.gaierror) else str(error)
        return (
            f"cannot resolve host {host!r} ({reason}); give an address or name of this "
            "machine with --host"
        )
    family, kind, protocol, _, address = infos[0]
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            return bind_failure(host, port, error)
    return None


def bind_failure(host: str, port: int, error: OSError) -> str:
    """One line saying why listening on ``host``:``port`` failed with ``error``."""
    if error.errno == errno.EADDRINUSE:
        return f"port {port} is already in use on {host}; choose another one with --port"
    return f"cannot listen on {host} port {port}: {error.strerror or error}"


def parse_allowed_hosts(value: Any) -> tuple[str, ...]:
    """``"a.example,b.example"`` (or a list of names, from a config file) -> the host names a
    request's ``Host`` header may name besides the bound address and ``localhost`` (``*`` =
    any: only behind a proxy that checks it)."""
    text = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    names = tuple(name.strip().lower().rstrip(".") for name in text.split(","))
    names = tuple(name for name in names if name)
    for name in names:
        if name != "*" and not all(
            part.replace("-", "").replace("_", "").isalnum()
            for part in name.removeprefix("*.").split(".")
        ):
            raise SettingsError(
                f"allowed hosts must be host names separated by commas, not {text!r}"
            )
    return names


def parse_language(value: Any) -> str:
    """``zh-CN`` or ``en`` (also ``zh``, ``zh_CN``, ``en-US``, ...) -> ``zh-CN`` / ``en``."""
    locale = i18n.normalize_locale(str(value))
    if locale is None:
        raise SettingsError(f"language must be one of {', '.join(LANGUAGES)}, not {str(value)!r}")
    return locale.replace("_", "-")


@dataclass(frozen=True)
class Option:
    """One setting and how every source names it: ``--summary-base-dir`` on the command line,
    ``DASH_INSIGHT_SUMMARY_BASE_DIR`` in the environment, ``summary_base_dir`` in TOML,
    ``SUMMARY_BASE_DIR`` in a Python config."""

    name: str
    parse: Callable[[Any], Any]
    help: str
    metavar: str | None = None
    is_path: bool = False  # a relative value in a config file is relative to the file's folder
    aliases: tuple[str, ...] = ()  # other spellings on the command line (``--logdir``)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def upper(self) -> str:
        return self.name.upper()


OPTIONS: tuple[Option, ...] = (
    Option(
        "summary_base_dir",
        _text,
        N_(
            "folder whose sub-folders hold summary files, or a "
            "URL such as s3://bucket/prefix read through fsspec "
            "(default: the current folder)"
        ),
        "DIR",
        is_path=True,
        aliases=("--logdir",),  # TensorBoard's name, everyone's habit
    ),
    Option("port", parse_port, N_("port to listen on (default {port})"), "PORT"),
    Option("host", parse_host, N_("address to bind (default {host}: this machine only)"), "HOST"),
    Option(
        "reload_interval",
        parse_reload_interval,
        N_("seconds between reloads of the logs, 0 = load once (default {reload_interval})"),
        "SECONDS",
    ),
    Option(
        "workspace",
        _text,
        N_("folder for the index, logs and pid files (default {workspace})"),
        "DIR",
        is_path=True,
    ),
    Option(
        "max_depth",
        parse_max_depth,
        N_("how many folder levels below the base to look for jobs (default: all)"),
        "N",
    ),
    Option(
        "samples_per_plugin",
        parse_samples,
        N_(
            "keep only N sampled values per tag, like MindInsight (e.g. "
            "scalar=1000,image=10; 'mindinsight' for its sizes); default: keep everything"
        ),
        "PLUGIN=N,...",
    ),
    Option(
        "url_base_pathname",
        parse_url_base_pathname,
        N_("URL path of the pages and the REST API, starting and ending with '/' (default /)"),
        "PATH",
    ),
    Option(
        "cache_bytes",
        parse_size,
        N_(
            "memory for decoded images, histograms and tensors "
            "per process, and an eighth of it more for encoded "
            "scalar answers (default {cache_bytes})"
        ),
        "SIZE",
    ),
    Option(
        "max_record_bytes",
        parse_size,
        N_(
            "records larger than this are skipped unread and reported as damage; bounds the "
            "memory reading takes: about 4x this for loading and 4x this for all requests "
            "together, besides --cache-bytes (default {max_record_bytes})"
        ),
        "SIZE",
    ),
    Option(
        "access_log_max_bytes",
        parse_size,
        N_(
            "rotate <workspace>/log/access.<port>.log at this size, 0 = never "
            "(default {access_log_max_bytes})"
        ),
        "SIZE",
    ),
    Option(
        "load_workers",
        parse_load_workers,
        N_(
            "processes reading summary files at once when a load has 64 MB or more to read "
            "(one large file is read in pieces); 1 = read in the server process only "
            "(default: the core count)"
        ),
        "N",
    ),
    Option(
        "index",
        parse_index,
        N_(
            "where the index lives: 'diskcache' in the workspace (default), or a Redis URL "
            "(redis://host:6379/0) shared by several web processes and 'dash-insight worker' "
            "loaders; a web process on Redis does no loading of its own"
        ),
        "URL",
    ),
    Option(
        "allowed_hosts",
        parse_allowed_hosts,
        N_(
            "host names the browser may use besides the bound one, IP addresses and "
            "localhost (any other Host header is refused against DNS rebinding; '*.domain' "
            "matches sub-domains)"
        ),
        "NAME,...",
    ),
    Option(
        "language",
        parse_language,
        N_(
            "interface language for browsers whose Accept-Language names neither English "
            "nor Chinese and that did not choose one with the switch, and of the command "
            "line's messages: {languages} (default {language})"
        ),
        "LANG",
    ),
)
#: The defaults the help texts name (``{port}`` ...).
HELP_VALUES = {
    "port": DEFAULT_PORT,
    "host": DEFAULT_HOST,
    "reload_interval": f"{DEFAULT_RELOAD_INTERVAL:g}",
    "workspace": DEFAULT_WORKSPACE,
    "cache_bytes": f"{DEFAULT_CACHE_BYTES >> 20}M",
    "max_record_bytes": f"{DEFAULT_MAX_RECORD_BYTES >> 20}M",
    "access_log_max_bytes": f"{DEFAULT_ACCESS_LOG_MAX_BYTES >> 20}M",
    "languages": " | ".join(LANGUAGES),
    "language": DEFAULT_LANGUAGE,
}


def option_help(option: Option) -> str:
    """``option``'s help text in the current language, with the defaults filled in."""
    return i18n.gettext(option.help).format(**HELP_VALUES)


OPTIONS_BY_NAME = {option.name: option for option in OPTIONS}
#: MindInsight's names in a Python config that map onto another setting, with their parser.
MINDINSIGHT_NAMES: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "URL_PATH_PREFIX": ("url_base_pathname", parse_url_path_prefix),
}
#: The ``MINDINSIGHT_*`` variables read, with their setting and parser: the names of
#: MindInsight's ``conf/defaults.py`` that dash-insight has. MindInsight reads no other (its
#: ``HOST`` is a constant, so ``MINDINSIGHT_HOST`` binds nothing here either); any other
#: ``MINDINSIGHT_*`` variable (``MINDINSIGHT_ENABLE_DEBUGGER``) is listed as ignored.
MINDINSIGHT_ENV: dict[str, tuple[str, Callable[[Any], Any]]] = {
    MINDINSIGHT_ENV_PREFIX + name.upper(): (name, OPTIONS_BY_NAME[name].parse)
    for name in ("summary_base_dir", "workspace", "port", "reload_interval")
} | {MINDINSIGHT_ENV_PREFIX + key: value for key, value in MINDINSIGHT_NAMES.items()}


# -- config files ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigValues:
    """The settings one config file gives: name -> (key as written, parsed value)."""

    origin: str  # "/abs/config.toml", "/abs/config.py" or "python:package.module"
    values: dict[str, tuple[str, Any]]
    ignored: tuple[str, ...] = ()  # upper-case names of a Python config that are not settings

    def source(self, key: str) -> str:
        return f"config {self.origin} ({key})"


def read_config(spec: str) -> ConfigValues:
    """The settings of ``spec``: ``path.toml`` (any path not ending in ``.py``),
    ``file:/path/config.py`` or ``path.py``, or ``python:package.module``. SettingsError with one
    line naming the file (or module) and the key for anything wrong."""
    if spec.startswith("python:"):
        return _python_module(spec[len("python:") :].strip())
    path = spec[len("file:") :] if spec.startswith("file:") else spec
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.isfile(path):
        raise SettingsError(f"config file not found: {path}")
    if path.endswith(".py"):
        return _python_file(path)
    return _toml_file(path)


def _toml_file(path: str) -> ConfigValues:
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise SettingsError(f"config file {path} cannot be read: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: not valid TOML: not UTF-8 text") from None
    values: dict[str, tuple[str, Any]] = {}
    for key, value in document.items():
        option = OPTIONS_BY_NAME.get(key)
        if option is None:
            known = ", ".join(OPTIONS_BY_NAME)
            raise SettingsError(f"{path}: unknown setting {key!r} (known: {known})")
        values[option.name] = (
            key,
            _parse_in(path, key, option.parse, value, option.is_path, os.path.dirname(path)),
        )
    return ConfigValues(path, values)


def _python_file(path: str) -> ConfigValues:
    try:
        namespace = runpy.run_path(path, run_name="dash_insight_config")
    except Exception as error:
        raise SettingsError(f"{path}: the config file failed: {_one_line(error)}") from None
    return _upper_case_settings(path, namespace, os.path.dirname(path))


def _python_module(name: str) -> ConfigValues:
    origin = f"python:{name}"
    if not name:
        raise SettingsError("python: needs a module name, e.g. python:mypackage.insight_config")
    try:
        module = importlib.import_module(name)
    except Exception as error:
        raise SettingsError(
            f"{origin}: the config module cannot be imported: {_one_line(error)}"
        ) from None
    return _upper_case_settings(origin, vars(module), None)


def _upper_case_settings(
    origin: str, namespace: Mapping[str, Any], folder: str | None
) -> ConfigValues:
    """MindInsight's rule: every upper-case name of the file or module is a setting."""
    values: dict[str, tuple[str, Any]] = {}
    ignored = []
    for key, value in namespace.items():
        if not key.isupper() or key.startswith("_"):
            continue
        if key in MINDINSIGHT_NAMES:
            name, parse = MINDINSIGHT_NAMES[key]
            values[name] = (key, _parse_in(origin, key, parse, value, False, folder))
            continue
        option = OPTIONS_BY_NAME.get(key.lower())
        if option is None:
            ignored.append(key)
            continue
        values[option.name] = (
            key,
            _parse_in(origin, key, option.parse, value, option.is_path, folder),
        )
    return ConfigValues(origin, values, tuple(sorted(ignored)))


def _parse_in(
    origin: str,
    key: str,
    parse: Callable[[Any], Any],
    value: Any,
    is_path: bool,
    folder: str | None,
) -> Any:
    try:
        parsed = parse(value)
    except SettingsError as error:
        raise SettingsError(f"{origin}: {key}: {error}") from None
    if is_path and folder is not None and not is_url(parsed):  # s3://... is not relative
        parsed = os.path.join(folder, os.path.expanduser(parsed))
    return parsed


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# -- the settings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Everything a dash-insight server needs to know; validated when built.

    ``sources`` says where each value came from (a name missing there is a default); ``config``
    is the config file that was read, ``ignored`` its upper-case names that are not settings
    and the ``MINDINSIGHT_*`` variables that are not either.
    """

    summary_base_dir: str = "."
    workspace: str = DEFAULT_WORKSPACE
    reload_interval: float = DEFAULT_RELOAD_INTERVAL
    max_depth: int | None = None
    samples_per_plugin: Mapping[str, int] = field(default_factory=dict)
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    url_base_pathname: str = "/"
    cache_bytes: int = DEFAULT_CACHE_BYTES
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    access_log_max_bytes: int = DEFAULT_ACCESS_LOG_MAX_BYTES
    #: Worker processes of a cold load (:mod:`dash_insight.core.store.load_pool`).
    load_workers: int = field(default_factory=default_load_workers)
    #: Extra names the ``Host`` header may carry (see :mod:`dash_insight.web.host_check`).
    allowed_hosts: tuple[str, ...] = ()
    #: The pages' language when the browser names none (``zh-CN`` or ``en``).
    language: str = DEFAULT_LANGUAGE
    #: "" (diskcache in the workspace) or a Redis URL (:mod:`dash_insight.core.fleet`).
    index: str = ""
    config: str | None = field(default=None, compare=False)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    ignored: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # Values given as numbers (create_app's keywords) go through the same parsers as text.
        set_ = object.__setattr__
        set_(self, "summary_base_dir", os.fspath(self.summary_base_dir))
        set_(self, "workspace", os.path.abspath(os.path.expanduser(os.fspath(self.workspace))))
        set_(self, "reload_interval", parse_reload_interval(self.reload_interval))
        if self.max_depth is not None:
            set_(self, "max_depth", parse_max_depth(self.max_depth))
        samples = self.samples_per_plugin
        set_(
            self,
            "samples_per_plugin",
            parse_samples(format_samples_per_plugin(samples)) if samples else {},
        )
        set_(self, "port", parse_port(self.port))
        set_(self, "host", parse_host(self.host))
        parse_url_base_pathname(self.url_base_pathname)
        set_(self, "allowed_hosts", parse_allowed_hosts(self.allowed_hosts))
        set_(self, "load_workers", parse_load_workers(self.load_workers))
        set_(self, "language", parse_language(self.language))
        set_(self, "index", parse_index(self.index))
        for name in ("cache_bytes", "access_log_max_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise SettingsError(f"{name.replace('_', ' ')} must be >= 0, not {value}")
        if (
            not isinstance(self.max_record_bytes, int)
            or self.max_record_bytes < MIN_MAX_RECORD_BYTES
        ):
            raise SettingsError(
                f"max record bytes must be at least {MIN_MAX_RECORD_BYTES} "
                f"(1K), not {self.max_record_bytes}"
            )
        set_(self, "sources", dict(self.sources))

    @property
    def base_dir(self) -> str:
        """The summary base directory as an absolute real path, or a URL without trailing
        slashes (``s3://bucket/prefix``: read through fsspec); ``file://`` is a local path."""
        path = self.summary_base_dir
        if is_url(path):
            local = local_path_of(path)
            if local is None:
                return normalise_url(path)
            path = local
        return os.path.realpath(os.path.expanduser(path))

    @property
    def is_local(self) -> bool:
        """Only this machine can connect (dash-insight has no login)."""
        return self.host in LOCAL_HOSTS

    def source(self, name: str) -> str:
        """Where the value of ``name`` came from: ``command line (--port)``, ``environment
        (DASH_INSIGHT_PORT)``, ``config /etc/insight.toml (port)``, ``default``, ..."""
        return self.sources.get(name, DEFAULT_SOURCE)

    def checked_base_dir(self) -> str:
        """:attr:`base_dir`; SettingsError with a one-line reason if it cannot be served."""
        path = self.base_dir
        if is_url(path):
            try:
                check_base_url(path)
            except OSError as error:  # RemoteError: already one line
                raise SettingsError(str(error)) from None
            return path
        if os.path.exists(path) and not os.path.isdir(path):
            raise SettingsError(f"summary base directory is a file, not a directory: {path}")
        if not os.path.isdir(path):
            raise SettingsError(f"summary base directory not found: {path}")
        if not os.access(path, os.R_OK | os.X_OK):
            raise SettingsError(f"summary base directory is not readable: {path}")
        return path

    def replace(self, source: str = "program", **changes: Any) -> Settings:
        """These settings with ``changes``, whose source is ``source``."""
        sources = {**self.sources, **dict.fromkeys(changes, source)}
        return dataclasses.replace(self, sources=sources, **changes)

    def describe(self) -> list[tuple[str, str, str]]:
        """(name, value as text, source) of every setting, for ``dash-insight config show``."""
        return [
            (option.name, self.text(option.name), self.source(option.name)) for option in OPTIONS
        ]

    def text(self, name: str) -> str:
        """The value of ``name`` as the command line and the environment spell it."""
        if name == "summary_base_dir":
            return self.base_dir
        value = getattr(self, name)
        if name == "samples_per_plugin":
            return format_samples_per_plugin(value)
        if name == "allowed_hosts":
            return ",".join(value)
        if name == "max_depth" and value is None:
            return ""
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)

    # -- resolving the four sources --
    @classmethod
    def resolve(
        cls,
        *,
        given: Mapping[str, tuple[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
        config: str | None = None,
    ) -> Settings:
        """Settings from, strongest first, ``given`` (name -> (source, parsed value): the
        command line), the ``DASH_INSIGHT_*`` variables of ``environ`` (default
        ``os.environ``), MindInsight's ``MINDINSIGHT_*`` ones, the config file ``config``
        (default: ``$DASH_INSIGHT_CONFIG``, else ``$MINDINSIGHT_CONFIG``) and the defaults."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        config = config or environ.get(CONFIG_ENV) or environ.get(MINDINSIGHT_CONFIG_ENV) or None
        ignored: tuple[str, ...] = ()
        if config:
            found = read_config(config)
            ignored = found.ignored
            for name, (key, value) in found.values.items():
                values[name], sources[name] = value, found.source(key)
        variables = [
            *((variable, *MINDINSIGHT_ENV[variable]) for variable in MINDINSIGHT_ENV),
            *((option.env, option.name, option.parse) for option in OPTIONS),
        ]
        for variable, name, parse in variables:  # weaker first: DASH_INSIGHT_* wins
            text = environ.get(variable)
            if text is None or text == "":
                continue
            try:
                values[name] = parse(text)
            except SettingsError as error:
                raise SettingsError(f"{variable}: {error}") from None
            sources[name] = f"environment ({variable})"
        ignored += tuple(
            sorted(
                variable
                for variable in environ
                if variable.startswith(MINDINSIGHT_ENV_PREFIX)
                and variable not in MINDINSIGHT_ENV
                and variable != MINDINSIGHT_CONFIG_ENV
            )
        )
        for name, (source, value) in (given or {}).items():
            values[name], sources[name] = value, source
        return cls(**values, config=config, sources=sources, ignored=ignored)

    # -- command line --
    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """Options of ``dash-insight start`` / ``config show`` and ``python -m
        dash_insight.server``, and the summary base directory as a positional ``DIR``. An
        option not given is left out of the namespace, so the environment and the config file
        can give it."""
        parser.add_argument(
            BASE_DIR_ARGUMENT,
            nargs="?",
            default=argparse.SUPPRESS,
            metavar="DIR",
            help=i18n.gettext("the summary base directory, as --summary-base-dir (or --logdir)"),
        )
        parser.add_argument(
            "--config",
            default=argparse.SUPPRESS,
            metavar="CONFIG",
            help=i18n.gettext(
                "settings file: a TOML file, file:/path/config.py or "
                "python:package.module (default: ${variable}, else ${mindinsight}); the "
                "command line and DASH_INSIGHT_* (then MINDINSIGHT_*) variables override it"
            ).format(variable=CONFIG_ENV, mindinsight=MINDINSIGHT_CONFIG_ENV),
        )
        parser.add_argument(
            "--demo",
            action="store_true",
            default=argparse.SUPPRESS,
            help=i18n.gettext("serve the bundled demo of real MindSpore summaries instead"),
        )
        for option in OPTIONS:
            parser.add_argument(
                option.flag,
                *option.aliases,
                type=_argument(option.parse),
                default=argparse.SUPPRESS,
                metavar=option.metavar,
                help=option_help(option),
            )

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> Settings:
        """Settings from options added by :meth:`add_arguments` over the environment and the
        config file (``--demo`` serves the demo). A positional ``DIR`` that is not the
        ``--summary-base-dir`` also given is a SettingsError."""
        given = {
            option.name: (f"command line ({option.flag})", vars(args)[option.name])
            for option in OPTIONS
            if option.name in vars(args)
        }
        positional = vars(args).get(BASE_DIR_ARGUMENT)
        if positional is not None:
            flag = given.get("summary_base_dir")
            if flag is None:
                given["summary_base_dir"] = ("command line (DIR)", positional)
            elif not _same_place(flag[1], positional):
                raise SettingsError(
                    f"the summary base directory is given twice, as {positional} and as "
                    f"--summary-base-dir {flag[1]}; give only one"
                )
        if getattr(args, "demo", False):
            given["summary_base_dir"] = ("command line (--demo)", DEMO_DIR)
        return cls.resolve(given=given, environ=environ, config=getattr(args, "config", None))

    def to_args(self) -> list[str]:
        """Command-line options that give these settings back (for the background server)."""
        args = []
        for option in OPTIONS:
            text = self.text(option.name)
            if text != "":  # max_depth None, samples_per_plugin {}: the defaults
                args += [option.flag, text]
        return args

    # -- environment --
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``DASH_INSIGHT_*`` variables over the config file
        ``$DASH_INSIGHT_CONFIG``; the summary base directory must be given by one of them.
        SettingsError naming the variable (or the file and key) for a bad value."""
        settings = cls.resolve(environ=environ)
        if "summary_base_dir" not in settings.sources:
            raise SettingsError(
                f"set {ENV_PREFIX}SUMMARY_BASE_DIR (or summary_base_dir in the "
                f"config file {CONFIG_ENV} names) to the summary base directory"
            )
        return settings

    def to_env(self) -> dict[str, str]:
        """The settings as ``DASH_INSIGHT_*`` variables, exported by a running server like
        MindInsight's ``MINDINSIGHT_*`` so that operators (and child processes) find them."""
        exported = {
            option.env: self.text(option.name) for option in OPTIONS if self.text(option.name) != ""
        }
        if self.config:
            exported[CONFIG_ENV] = self.config
        return exported


def source_table(settings: Settings) -> str:
    """``dash-insight config show``: one aligned line per setting with its source."""
    rows = [("setting", "value", "source"), *settings.describe()]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = [f"{name:<{widths[0]}}  {value:<{widths[1]}}  {source}" for name, value, source in rows]
    if settings.config:
        lines.append(f"config: {settings.config}")
    if settings.ignored:
        lines.append("ignored (not dash-insight settings): " + ", ".join(settings.ignored))
    return "\n".join(lines)


def _same_place(first: str, second: str) -> bool:
    """Two spellings of one folder (``runs`` and ``./runs/``) or of one URL."""
    if is_url(first) or is_url(second):
        return normalise_url(first) == normalise_url(second)
    return os.path.realpath(os.path.expanduser(first)) == os.path.realpath(
        os.path.expanduser(second)
    )


class SuggestingParser(argparse.ArgumentParser):
    """An ArgumentParser whose (sub)command refuses an unknown option itself, with its own usage
    and the closest option it has (``did you mean --summary-base-dir?``). argparse's own
    refusal of an option given to a subcommand showed the top-level usage and no hint."""

    def parse_known_args(  # type: ignore[override]  # one signature for typeshed's overloads
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        # argparse's subparsers action calls this for the subcommand: refusing the leftovers
        # here makes the subcommand answer, not the top-level parser.
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(unrecognized(extras, self._option_string_actions))
        return parsed, extras


def unrecognized(extras: Sequence[str], options: Iterable[str]) -> str:
    """argparse's "unrecognized arguments" message for ``extras``, with the option of
    ``options`` closest to the first unknown option that has a close one."""
    arguments = " ".join(extras)
    known = [option for option in options if option.startswith("--")]
    for extra in extras:
        if extra.startswith("-"):
            close = difflib.get_close_matches(extra.split("=", 1)[0], known, n=1)
            if close:
                return i18n.gettext(
                    "unrecognized arguments: {arguments}; did you mean {option}?"
                ).format(arguments=arguments, option=close[0])
    return i18n.gettext("unrecognized arguments: {arguments}").format(arguments=arguments)


def _argument(parse: Callable[[Any], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse ``type``: its SettingsError becomes argparse's usage error."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except SettingsError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = parse.__name__
    return convert
