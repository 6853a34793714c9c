"""The index interface: what the loader, the provider, the service and ``status`` use of an index.

Two implementations: :class:`~.index.IndexStore` (diskcache in the workspace, the default: one
machine, its processes share it through SQLite) and :class:`~.redis_index.RedisIndexStore`
(``--index redis://...``: several machines share one Redis). :func:`open_index` picks one from
the settings; the Redis module (and the ``redis`` package) is imported only when asked for.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from dash_insight.core.store.state import FileState, JobState

if TYPE_CHECKING:
    from dash_insight.core.store.chunks import SummaryPoints
    from dash_insight.core.store.index import Columns, ColumnsT, PreparedChunk


class IndexConflict(Exception):
    """A transaction found a job changed by another writer since it was read (the versions
    given as ``expect`` differ, or Redis's WATCH saw a write): nothing of it was written; the
    writer reads the job again and starts over."""


class DamagedEntry(ValueError):
    """A coordination entry of the index (``versions``, ``generation``) holds what its writer
    never stores: readers keep what they hold, the loader rewrites it."""


def stored_versions(value: object) -> dict[str, int]:
    """``versions`` as stored: {train id: int version}; :class:`DamagedEntry` otherwise."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
        for k, v in value.items()
    ):
        raise DamagedEntry("the index entry 'versions' is damaged")
    return dict(value)


def stored_generation(value: object) -> int:
    """``generation`` as stored: an int; :class:`DamagedEntry` otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise DamagedEntry("the index entry 'generation' is damaged")


class IndexApi(Protocol):
    """Typed access to the index of one summary base directory (see :mod:`.index` for the
    entries). Writers group their writes in :meth:`transaction`; readers need no lock."""

    @property
    def epoch(self) -> int:
        """Which incarnation of the index is open: readers drop what they cached when it
        changes (a rebuilt diskcache, a flushed Redis)."""
        ...

    def close(self) -> None: ...

    def generation(self) -> int:
        """Bumped with every published change."""
        ...

    def bump_generation(self) -> int:
        """Publish this writer's job versions and tell readers to reload (inside
        :meth:`transaction`)."""
        ...

    def transaction(
        self, expect: Mapping[str, int | None] | None = None
    ) -> contextlib.AbstractContextManager[None]:
        """Group writes: all of them or none. ``expect`` ({train_id: published version, None
        for a job not stored}) makes it raise :class:`IndexConflict` when another writer
        published one of those jobs since."""
        ...

    def loader_lock(self, blocking: bool = False) -> contextlib.AbstractContextManager[bool]:
        """Yields True when this process holds the right to load (one loader per index)."""
        ...

    def rebuild(self, error: BaseException) -> None:
        """Start again empty after damage the index itself reported."""
        ...

    def expire_retired(self) -> int: ...

    # -- jobs --
    def job_list(self) -> list[tuple[str, float, float]]: ...

    def set_job_list(self, jobs: list[tuple[str, float, float]]) -> None: ...

    def has_job_list(self) -> bool: ...

    def load_job(self, train_id: str, repair: bool = True) -> JobState | None: ...

    def save_job(self, state: JobState) -> None: ...

    def publish_versions(self) -> None: ...

    def job_versions(self) -> dict[str, int]: ...

    def job_version(self, train_id: str) -> int | None:
        """The published version of one job (None: not stored)."""
        ...

    def delete_job(self, state: JobState) -> None: ...

    def request_rebuild(self, train_id: str) -> None: ...

    def take_rebuild_requests(self) -> set[str]: ...

    # -- chunks --
    def append_chunk(
        self,
        state: JobState,
        file_state: FileState,
        plugin: str,
        tag: str,
        columns: Columns,
        merge: bool = True,
    ) -> None: ...

    def append_prepared(
        self,
        state: JobState,
        file_state: FileState,
        tags: Sequence[tuple[str, str, Sequence[PreparedChunk]]],
    ) -> None:
        """Store chunks prepared by :func:`~.index.prepare_chunks` (a load worker computed
        and pickled them) for a file read for the first time: no merging. ``tags``: (plugin,
        tag, its chunks in order)."""
        ...

    def read_columns(
        self, state: JobState, plugin: str, tag: str, layout: type[ColumnsT]
    ) -> list[tuple[FileState, ColumnsT]]: ...

    def read_chunk(
        self, train_id: str, plugin: str, tag: str, name: str, serial: int, layout: type[ColumnsT]
    ) -> ColumnsT:
        """One chunk of a file's tag by its serial (a step-window read, :mod:`.chunks`)."""
        ...

    def read_summary(
        self, train_id: str, plugin: str, tag: str, name: str, serial: int, level: int
    ) -> SummaryPoints:
        """The level-``level`` summary of one ascending scalar chunk."""
        ...

    def drop_file(self, state: JobState, file_state: FileState) -> None: ...


def is_redis_url(index: str | None) -> bool:
    """``--index`` names a Redis server (``redis://``, ``rediss://`` or ``unix://``)."""
    return bool(index) and str(index).split("://", 1)[0] in ("redis", "rediss", "unix")


class IndexUnavailable(RuntimeError):
    """The index store cannot be opened: a wrong password, or still unreachable after the
    bounded retries. Its message is one line (the URL's password redacted) meant for the
    operator."""


def redacted(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``: what logs, errors and
    ``dash-insight status`` show."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urllib.parse.urlunsplit(parts._replace(netloc=user + netloc))


def open_index(
    index: str | None, workspace: str, base_dir: str, *, repair: bool = True
) -> IndexApi:
    """The index of ``base_dir``: in Redis when ``index`` is a Redis URL, otherwise the
    diskcache under ``workspace``."""
    if is_redis_url(index):
        from dash_insight.core.store.redis_index import RedisIndexStore

        assert index is not None
        return RedisIndexStore(index, base_dir)
    from dash_insight.core.store.index import IndexStore, index_directory

    return IndexStore(index_directory(workspace, base_dir), repair=repair)
