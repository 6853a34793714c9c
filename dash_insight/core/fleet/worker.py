"""``dash-insight worker``: a Celery worker loading a base directory into a Redis index.

Redis is the broker and the result backend (the engine Dash's background callbacks use). Two
tasks, on a queue of the base directory's own (``dash-insight-<digest>``), so workers of other
base directories sharing the Redis never take them:

* :data:`DISCOVER`, sent every ``--reload-interval`` seconds by Celery beat (embedded with
  ``--beat`` in any number of workers: the first discovery of each round takes that round's
  lease in Redis and the others return, so killing any worker keeps discovery running; the
  time of the last discovery is in Redis, shown by ``/readyz`` and ``/metrics``), sends one
  :data:`LOAD` task per job whose files changed;
* :data:`LOAD` loads one job under its lease (:class:`.loading.FleetLoading`).

Both are ``acks_late`` (a task whose worker died is delivered again once the broker's
visibility timeout passes) and retried with backoff when the index or Redis fails them (a
version conflict, a lost lease, a dropped connection); a retried or repeated task finds the
offsets its predecessor committed and reads from there.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from celery import Celery
from celery.signals import beat_embedded_init

from dash_insight.core.fleet.loading import FLEET_SLICE_BYTES, FleetLoading, LeaseLost, Outcome
from dash_insight.core.settings import Settings
from dash_insight.core.store.index_api import IndexConflict
from dash_insight.core.store.redis_index import RedisIndexStore, key_prefix

log = logging.getLogger(__name__)

DISCOVER = "dash_insight.discover"
LOAD = "dash_insight.load_job"
#: How long the broker waits for the ack of a delivered task before delivering it again (a
#: worker killed mid-task): longer than any task runs (see ``task_seconds``).
VISIBILITY_TIMEOUT_SECONDS = 300
#: The share of the discovery interval a beat's round lease lasts: every worker may run the
#: beat, the first discovery of each round wins it and the others return (FleetLoading.discover).
ROUND_SHARE = 0.8
_RETRIED = (IndexConflict, LeaseLost, redis.ConnectionError, redis.TimeoutError)
#: How often an embedded beat checks that its worker is alive (seconds).
PARENT_POLL_SECONDS = 1.0


def stop_when_orphaned(
    stop: Callable[[], object], parent: int, poll_seconds: float = PARENT_POLL_SECONDS
) -> threading.Thread:
    """A daemon thread calling ``stop()`` once this process's parent is no longer ``parent``
    (killed, even with SIGKILL: the process is then re-parented). An embedded beat is its
    worker's child; without this, a worker killed with SIGKILL leaves its beat running on its
    own, sending discoveries for a worker that is gone (issue #41 item 3)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        log.warning("the worker of this beat (pid %d) is gone: the beat stops", parent)
        stop()

    thread = threading.Thread(target=watch, name="dash-insight-beat-parent", daemon=True)
    thread.start()
    return thread


def _beat_stops_with_its_worker(sender: Any = None, **_kwargs: Any) -> None:
    """``beat_embedded_init``: in the embedded beat's process (``sender``: its Service),
    stop it when the worker that started it is gone."""
    if sender is not None:
        stop_when_orphaned(sender.stop, os.getppid())


def queue_name(settings: Settings) -> str:
    return "dash-insight-" + key_prefix(settings.base_dir).split(":")[1]


class _PerProcess:
    """The loading of this worker process: opened on first use after the fork (a Redis
    connection must not be shared between the prefork pool's processes)."""

    def __init__(
        self, settings: Settings, lease_seconds: float, task_seconds: float, slice_bytes: int
    ) -> None:
        self.settings = settings
        self.lease_seconds, self.task_seconds = lease_seconds, task_seconds
        self.slice_bytes = slice_bytes
        self._pid = -1
        self._loading: FleetLoading | None = None
        self._lock = threading.Lock()

    def get(self) -> FleetLoading:
        with self._lock:
            if self._loading is None or self._pid != os.getpid():
                store = RedisIndexStore(self.settings.index, self.settings.base_dir)
                self._loading = FleetLoading(
                    self.settings,
                    store,
                    lease_seconds=self.lease_seconds,
                    task_seconds=self.task_seconds,
                    slice_bytes=self.slice_bytes,
                )
                self._pid = os.getpid()
            return self._loading


def _celery_config(queue: str, interval: float) -> dict[str, Any]:
    """The Celery settings of a fleet's app: JSON only (nothing a broker hands back is
    executed), late acknowledgement, the discovery beat every ``interval`` seconds."""
    return dict(
        task_default_queue=queue,
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_SECONDS},
        broker_connection_retry_on_startup=True,
        # Bounded: a broker gone for good ends the worker with Celery's message (its
        # supervisor restarts it) instead of retrying forever.
        broker_connection_max_retries=20,
        beat_schedule={
            "discover": {
                "task": DISCOVER,
                "schedule": interval,
                "options": {"queue": queue, "expires": interval * 2},
            }
        },
    )


def create_celery(
    settings: Settings,
    *,
    lease_seconds: float = 30.0,
    task_seconds: float = 60.0,
    slice_bytes: int = FLEET_SLICE_BYTES,
) -> Celery:
    """The Celery app of ``settings``' base directory and Redis index, with its two tasks."""
    if not settings.index:
        raise ValueError("the fleet needs --index redis://host:port/db")
    app = Celery("dash_insight", broker=settings.index, backend=settings.index)
    queue = queue_name(settings)
    interval = settings.reload_interval or 3.0
    app.conf.update(_celery_config(queue, interval))
    loading = _PerProcess(settings, lease_seconds, task_seconds, slice_bytes)

    @app.task(
        name=DISCOVER, autoretry_for=_RETRIED, retry_backoff=1, retry_backoff_max=10, max_retries=5
    )
    def discover() -> int:
        """Publish the job list and queue the jobs that changed; how many were queued."""
        fleet = loading.get()
        try:
            train_ids = fleet.discover(round_seconds=interval * ROUND_SHARE)
        except Exception:
            fleet.store.count_task("discover", "error")
            raise
        fleet.store.count_task("discover", "skipped" if train_ids is None else "done")
        for train_id in train_ids or ():
            load_job.delay(train_id)
        return len(train_ids or ())

    @app.task(
        name=LOAD, autoretry_for=_RETRIED, retry_backoff=1, retry_backoff_max=10, max_retries=10
    )
    def load_job(train_id: str) -> str:
        """Load what is new in one job; queued again when its time ran out."""
        fleet = loading.get()
        try:
            outcome = fleet.load(train_id)
        except Exception:
            fleet.store.count_task("load_job", "error")
            raise
        fleet.store.count_task("load_job", outcome.value)
        if outcome is Outcome.MORE:
            fleet.mark_queued(train_id)
            load_job.delay(train_id)
        return outcome.value

    return app


def run_worker(
    settings: Settings,
    *,
    concurrency: int,
    pool: str = "prefork",
    beat: bool = False,
    lease_seconds: float = 30.0,
    task_seconds: float = 60.0,
    slice_bytes: int = FLEET_SLICE_BYTES,
    loglevel: str = "INFO",
    extra: list[str] | None = None,
) -> int:
    """Run a Celery worker in this process until it is stopped (Ctrl-C, SIGTERM)."""
    # The index first: a wrong password or an unreachable Redis is one line and an exit
    # (IndexUnavailable), not Celery's endless reconnection.
    RedisIndexStore(settings.index, settings.base_dir).close()
    app = create_celery(
        settings, lease_seconds=lease_seconds, task_seconds=task_seconds, slice_bytes=slice_bytes
    )
    argv = [
        "worker",
        "--loglevel",
        loglevel,
        "--concurrency",
        str(concurrency),
        "--pool",
        pool,
        "--queues",
        queue_name(settings),
        "--hostname",
        f"dash-insight-{os.getpid()}@%h",
        "--without-gossip",
        "--without-mingle",
    ]
    schedule = os.path.join(settings.workspace, "fleet", f"beat-{os.getpid()}")
    if beat:
        # Beat's schedule (a shelve file) is this worker's own: the schedule is in the code.
        os.makedirs(os.path.dirname(schedule), mode=0o700, exist_ok=True)
        argv += ["--beat", "--schedule", schedule]
        beat_embedded_init.connect(_beat_stops_with_its_worker, weak=False)
    try:
        app.worker_main(argv + list(extra or ()))
    finally:
        for path in glob.glob(glob.escape(schedule) + "*"):
            with contextlib.suppress(OSError):
                os.remove(path)
    return 0
