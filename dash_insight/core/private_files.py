"""Files and directories only their owner can read: the index and the server's logs.

MindSpore writes summary files 0400 (owner read-only); the index holds their values and the logs
name their jobs and tags, so what dash-insight writes in its workspace must not be readable by
other users either: directories 0700, files 0600 (whatever the umask, which may only narrow
them). The process umask is left alone: it is shared by every thread, and an embedding
application owns it.
"""

from __future__ import annotations

import contextlib
import os

PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600


def make_private_dirs(path: str) -> None:
    """Create ``path`` and its missing parents with mode 0700; directories that already exist
    keep their mode (a workspace may be a folder the user shares on purpose)."""
    missing = []
    current = os.path.abspath(path)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            os.mkdir(directory, PRIVATE_DIRECTORY)


def restrict(path: str, mode: int = PRIVATE_FILE) -> None:
    """Narrow an existing file (or directory, with ``mode`` 0700) of ours to its owner; made by
    an earlier version with the umask's 0644, or by another user (then left as it is)."""
    with contextlib.suppress(FileNotFoundError, PermissionError):
        if os.stat(path).st_mode & 0o777 & ~mode:
            os.chmod(path, mode)


def create_private_file(path: str) -> None:
    """Make sure ``path`` exists with mode 0600 before it is opened to append to (or by
    SQLite, which gives its WAL and shared-memory files the mode of the database file)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    restrict(path)
