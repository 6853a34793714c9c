"""Start-up checks: why a server or a worker cannot start, as one line that says what to do.

``dash-insight start``, ``dash-insight worker`` and ``python app.py`` run them once the settings
are read (a wrong value there is a usage error, exit status 2) and before anything is started:
a workspace that cannot be created or written, a Redis index that refuses the password or cannot
be reached. These are mistakes of the environment, not of the command line: exit status 1. A
base directory holding no summary is no mistake (the training may not have written any yet),
but it is said once, with the file names looked for and how to write such files.

Kept free of Dash imports (the CLI imports it); redis is imported only for a Redis index.
"""

from __future__ import annotations

import os
import urllib.parse

from dash_insight.core.format.files import NAME_PATTERNS
from dash_insight.core.i18n import gettext as _
from dash_insight.core.private_files import make_private_dirs
from dash_insight.core.settings import Settings
from dash_insight.core.store.discovery import holds_no_job
from dash_insight.core.store.index_api import is_redis_url

#: Seconds the Redis check waits for a connection and for the answer to its PING.
REDIS_CHECK_TIMEOUT = 5.0
#: What a password is shown as.
MASK = "***"


def environment_problem(settings: Settings) -> str | None:
    """The first of :func:`workspace_problem` and :func:`index_problem` of ``settings``."""
    return workspace_problem(settings.workspace) or index_problem(settings.index)


def workspace_problem(workspace: str) -> str | None:
    """Why ``workspace`` cannot hold the index, the logs and the pid files, as one line, or
    None once it is a folder this process may write (created 0700 with its parents when
    missing, as the server would create it)."""
    blocker = _not_a_folder(workspace)
    if blocker == os.path.abspath(workspace):
        return _(
            "the workspace {path} is not a folder; choose another one with --workspace"
        ).format(path=workspace)
    if blocker is not None:
        return _(
            "cannot use the workspace {path}: {blocker} is not a folder; "
            "choose another one with --workspace"
        ).format(path=workspace, blocker=blocker)
    try:
        make_private_dirs(workspace)
    except OSError as error:
        return _(
            "cannot create the workspace {path} ({reason}); choose another one with --workspace"
        ).format(path=workspace, reason=error.strerror or error)
    if not os.access(workspace, os.W_OK | os.X_OK):
        return _(
            "the workspace {path} is not writable; choose another one with --workspace"
        ).format(path=workspace)
    return None


def _not_a_folder(path: str) -> str | None:
    """``path``, or the nearest of its parents that exists, when that is not a folder (a file,
    a broken symbolic link): creating the workspace would fail there."""
    current = os.path.abspath(path)
    while not os.path.isdir(current):
        if os.path.lexists(current):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def masked_url(url: str) -> str:
    """``url`` with its password (``redis://user:secret@host``, ``?password=secret``) shown as
    ``***``: a message may be read by others (a terminal, a CI log, a log file)."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    userinfo, at, hostport = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc = f"{userinfo.split(':', 1)[0]}:{MASK}@{hostport}"
    query = "&".join(
        f"password={MASK}" if item.split("=", 1)[0] == "password" else item
        for item in parts.query.split("&")
    )
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query))


def _has_password(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    return bool(parts.password) or "password" in urllib.parse.parse_qs(parts.query)


def index_problem(index: str) -> str | None:
    """Why the Redis index ``index`` cannot be used, as one line that never shows its
    password, or None when it answers (and for the workspace's diskcache, the default)."""
    if not is_redis_url(index):
        return None
    shown = masked_url(index)
    try:
        import redis
    except ImportError:
        return _(
            "the Redis index {url} needs the redis package: pip install 'dash-insight[fleet]'"
        ).format(url=shown)
    try:
        client = redis.Redis.from_url(
            index, socket_connect_timeout=REDIS_CHECK_TIMEOUT, socket_timeout=REDIS_CHECK_TIMEOUT
        )
    except ValueError as error:  # a port that is no number, an unknown option
        return _(
            "the index {url} is not a valid Redis URL ({reason}); correct --index or "
            "DASH_INSIGHT_INDEX"
        ).format(url=shown, reason=_reason(error))
    try:
        client.ping()
    except redis.AuthenticationError:
        if _has_password(index):
            return _(
                "the Redis index at {url} refused the password (AuthenticationError); "
                "check the password in --index or DASH_INSIGHT_INDEX"
            ).format(url=shown)
        return _(
            "the Redis index at {url} needs a password; give it in --index or "
            "DASH_INSIGHT_INDEX as redis://:PASSWORD@host:port/db"
        ).format(url=shown)
    except (redis.ConnectionError, redis.TimeoutError) as error:
        return _(
            "cannot reach the Redis index at {url} ({reason}); start Redis there or correct "
            "--index or DASH_INSIGHT_INDEX"
        ).format(url=shown, reason=_reason(error))
    except redis.RedisError as error:  # e.g. a database number the server does not have
        return _(
            "the Redis index at {url} answered an error ({reason}); correct --index or "
            "DASH_INSIGHT_INDEX"
        ).format(url=shown, reason=_reason(error))
    finally:
        client.close()
    return None


def _reason(error: Exception) -> str:
    """redis-py's message as part of a line: one line, no closing full stop."""
    return " ".join(str(error).split()).rstrip(".") or type(error).__name__


def empty_base_warning(base: str, max_depth: int | None) -> str | None:
    """A warning when the local base directory ``base`` holds no summary, lineage, TensorBoard
    or graph file (nor profiler data) down to ``max_depth``, naming the file names looked for
    and how to write such files; None otherwise (and for a URL)."""
    if not holds_no_job(base, max_depth):
        return None
    return _(
        "warning: no summary files under {base} yet (looked for {patterns}); write them with "
        "MindSpore's SummaryCollector, or with dash_insight.SummaryWriter without MindSpore"
    ).format(base=base, patterns=", ".join(NAME_PATTERNS))
