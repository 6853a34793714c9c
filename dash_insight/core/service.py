"""One object that owns the index, the background loader and the query API of a base dir."""

from __future__ import annotations

import os
import time

from dash_insight.core.format.remote import is_url
from dash_insight.core.named_views import NamedViews
from dash_insight.core.operations import StoreProbe
from dash_insight.core.provider import DataProvider
from dash_insight.core.run_marks import RunMarks, run_marks_path
from dash_insight.core.settings import Settings
from dash_insight.core.store.health import (
    CAUGHT_UP,
    FAILED,
    LOADING,
    PERMISSION,
    REBUILDING,
    STALLED,
    STORE_UNREACHABLE,
    LoaderFailure,
    LoaderHealth,
    SharedFailure,
    failure_reason,
    one_line,
    unreadable_failure,
)
from dash_insight.core.store.index import index_directory
from dash_insight.core.store.index_api import is_redis_url, open_index
from dash_insight.core.store.loader import Loader
from dash_insight.core.store.state import STATUS_LOADED

#: The suffix of the shared loader failure record (:class:`~.store.health.SharedFailure`).
FAILURE = ".loader.failure"


class DataService:
    """Index + loader + provider for the summary base directory of ``settings``.

    Every web worker process makes one; their loaders share the index through a file lock, so
    exactly one of them reads the logs at a time while all of them answer queries. With
    ``--index redis://...`` the index is shared by a fleet and loaded by ``dash-insight
    worker`` processes (:mod:`dash_insight.core.fleet`): :meth:`start` starts no loader. Plugins
    build their own services (caches, stores) from this one: :attr:`provider` to read,
    :attr:`settings` for the workspace and limits.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.summary_base_dir = settings.base_dir
        if not is_url(self.summary_base_dir) and not os.path.isdir(self.summary_base_dir):
            raise NotADirectoryError(
                f"summary base directory not found: {settings.summary_base_dir}"
            )
        self.workspace = settings.workspace
        #: The views saved under a name (the header's "Views" menu), kept in the workspace.
        self.named_views = NamedViews(self.workspace, self.summary_base_dir)
        #: True when the index is in Redis, loaded by fleet workers, not by this process.
        self.fleet = is_redis_url(settings.index)
        self.store = open_index(settings.index, self.workspace, self.summary_base_dir)
        self.shared_failure = self._shared_failure()
        #: Whether the summary store can be listed (``/readyz``; a fleet's pages' banner).
        self.store_probe = StoreProbe(self.summary_base_dir)
        self.loader = Loader(
            self.summary_base_dir,
            self.store,
            max_depth=settings.max_depth,
            reload_interval=settings.reload_interval,
            max_record_bytes=settings.max_record_bytes,
            load_workers=settings.load_workers,
            shared_failure=self.shared_failure,
        )
        self.provider = DataProvider(
            self.summary_base_dir,
            self.store,
            samples_per_plugin=settings.samples_per_plugin,
            cache_bytes=settings.cache_bytes,
            max_record_bytes=settings.max_record_bytes,
            run_marks=RunMarks(run_marks_path(self.workspace, self.summary_base_dir)),
        )

    def _shared_failure(self) -> SharedFailure | None:
        """Where the worker process holding the loader lock says why its rounds fail, for the
        other processes (beside the index in the workspace); None in fleet mode (no loader
        here)."""
        if self.fleet:
            return None
        shared = SharedFailure(index_directory(self.workspace, self.summary_base_dir) + FAILURE)
        shared.reserve()
        return shared

    @property
    def name(self) -> str:
        """What MindInsight shows as "Current folder": the base directory's name."""
        return os.path.basename(self.summary_base_dir.rstrip("/")) or self.summary_base_dir

    def loader_health(self) -> LoaderHealth:
        """Stalled (with why) while this process's loader fails its rounds, the index cannot be
        read or a job's file cannot be (permissions, I/O errors); caught up when every job's
        bytes on disk are read; loading before."""
        failure = self.loader.failure
        if failure is None and self.shared_failure is not None:
            failure = self.shared_failure.read()  # the process holding the loader lock
        if failure is not None:
            return LoaderHealth(STALLED, failure)
        try:
            jobs = self.provider.list_jobs()
            ready = self.provider.ready
        except Exception as error:  # the store itself: say so instead of failing the page
            return LoaderHealth(
                STALLED, LoaderFailure(failure_reason(error), one_line(error), time.time())
            )
        if self.fleet:  # the workers' failures are theirs: say what this process sees
            listing = self.store_probe.check()
            if not listing.ok:  # e.g. object-storage keys revoked while running
                reason = PERMISSION if _refused(listing.detail) else FAILED
                return LoaderHealth(STALLED, LoaderFailure(reason, listing.detail, None))
        if self.provider.unreachable is not None:  # answering from what this process holds
            return LoaderHealth(
                STALLED, LoaderFailure(STORE_UNREACHABLE, self.provider.unreachable, None)
            )
        unreadable = unreadable_failure(
            [f"{job.train_id}/{file}" for job in jobs for file in job.unreadable]
        )
        if unreadable is not None:
            return LoaderHealth(STALLED, unreadable)
        loaded = sum(job.status == STATUS_LOADED for job in jobs)
        caught_up = ready and loaded == len(jobs)
        if self.provider.rebuilding:
            if not caught_up:
                return LoaderHealth(REBUILDING, progress=(loaded, len(jobs)))
            self.provider.rebuilt()
        return LoaderHealth(CAUGHT_UP if caught_up else LOADING)

    @property
    def unreachable_errors(self) -> tuple[type[BaseException], ...]:
        """What the index store raises while it cannot be reached (none for diskcache)."""
        errors: tuple[type[BaseException], ...] = getattr(self.store, "unreachable_errors", ())
        return errors

    def start(self) -> None:
        if not self.fleet:
            self.loader.start()

    def close(self) -> None:
        self.loader.stop()
        self.store.close()


def _refused(detail: str) -> bool:
    """Whether a one-line error says access was refused (a local permission, S3's
    ``AccessDenied`` / ``InvalidAccessKeyId``, an HTTP 403)."""
    text = detail.lower()
    return any(
        word in text
        for word in ("permission", "denied", "forbidden", "403", "invalidaccesskeyid", "signature")
    )
