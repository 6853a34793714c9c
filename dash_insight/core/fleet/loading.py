"""What fleet workers do, without Celery: discover the jobs and load one job.

* :meth:`FleetLoading.discover` (one at a time: the ``discovery`` lease) lists the base
  directory, publishes the job list (deleting the jobs that are gone or that readers found
  damaged) and returns the jobs whose files changed since they were indexed, each marked
  ``queued`` for a while (SET NX PX) so that a job waiting in the queue is not queued again.
* :meth:`FleetLoading.load` (one worker per job: the ``job|<train_id>`` lease, renewed after
  every pass) lists the job's directory again and runs :meth:`.Loader.load_job`: the same
  reading code as the single-machine loader, each pass committed with its offsets in one
  MULTI/EXEC that expects the job at the version this worker last saw.

Leases are per job, not per file: a job's files share one state (:class:`.JobState`), which
one writer at a time updates; jobs load in parallel. A worker killed mid-task leaves its lease
to expire (``lease_seconds``) and its pass uncommitted: the next worker reads that pass again
from the committed offsets, so nothing is lost and nothing is indexed twice.
"""

from __future__ import annotations

import enum
import logging
import time

from dash_insight.core.settings import Settings
from dash_insight.core.store.discovery import JobInfo, discover_job, discover_jobs
from dash_insight.core.store.fingerprint import job_fingerprint
from dash_insight.core.store.loader import Loader
from dash_insight.core.store.redis_index import RedisIndexStore
from dash_insight.core.store.state import JobState

log = logging.getLogger(__name__)

#: How long a job stays marked as queued (a queued load task that was lost is re-queued after).
QUEUED_SECONDS = 60.0
#: Slices read per pass by fleet workers: smaller than the single loader's, so that a pass (and
#: what a killed worker loses) stays short and the lease is renewed often.
FLEET_SLICE_BYTES = 32 << 20


class LeaseLost(Exception):
    """This worker's lease on a job expired (it stalled longer than the lease): it stops; its
    last pass was committed only if the lease still held (versions are checked)."""


class Outcome(str, enum.Enum):
    DONE = "done"  # the job is read to the end of its files
    MORE = "more"  # the task's time is up: queue the job again
    BUSY = "busy"  # another worker holds the job's lease
    GONE = "gone"  # the job's directory is gone (the next discovery drops it)


def needs_load(job: JobInfo, state: JobState | None) -> bool:
    """True when the index's state of ``job`` differs from its files on disk (a file new,
    gone, grown, replaced, unreadable, or not read to its end; the job's times, problems or
    profiler changed): what :meth:`.Loader._reconcile` would change, without writing."""
    if state is None:
        return True
    if (
        (state.create_time, state.update_time) != (job.create_time, job.update_time)
        or state.problems != job.errors
        or (state.profiler_dir, state.profiler_type, state.profiler_graph_mode)
        != (job.profiler_dir, job.profiler_type, job.profiler_graph_mode)
    ):
        return True
    if {f.name for f in job.files} != set(state.files):
        return True
    for info in job.files:
        file_state = state.files[info.name]
        if (
            file_state.identity != info.identity
            or (file_state.size, file_state.mtime) != (info.size, info.mtime)
            or file_state.needs_reading
            or file_state.unreadable is not None
        ):
            return True
    return False


class FleetLoading:
    """Discovery and job loading of one base directory into a Redis index."""

    def __init__(
        self,
        settings: Settings,
        store: RedisIndexStore,
        *,
        lease_seconds: float = 30.0,
        task_seconds: float = 60.0,
        slice_bytes: int = FLEET_SLICE_BYTES,
    ) -> None:
        self.settings = settings
        self.store = store
        self.base_dir = settings.base_dir
        self.lease_seconds = lease_seconds
        self.task_seconds = task_seconds
        self.slice_bytes = slice_bytes
        #: Kept between discoveries: it remembers which unlistable directories it logged.
        self._discovery = self._loader()

    def _loader(self) -> Loader:
        return Loader(
            self.base_dir,
            self.store,
            max_depth=self.settings.max_depth,
            reload_interval=0,
            slice_bytes=self.slice_bytes,
            max_record_bytes=self.settings.max_record_bytes,
            load_workers=1,
        )

    def discover(self, round_seconds: float | None = None) -> list[str] | None:
        """Publish the job list; the train_ids to load now (each marked queued), or None when
        another worker is discovering — or, with ``round_seconds`` (what the beat sends: a
        little less than its interval), when another worker's beat already won this round:
        every worker may run the beat, the first discovery of a round takes the round's
        lease (SET NX PX, never released, it expires), the others return. A dead beat's
        rounds are taken by the next beat after at most ``round_seconds``."""
        if round_seconds is not None and not self.store.try_mark("discovery-round", round_seconds):
            return None
        with self.store.lease("discovery", max(self.lease_seconds, 60.0)) as lease:
            if lease is None:
                return None
            found = discover_jobs(self.base_dir, self.settings.max_depth)
            with self.store.transaction():
                if self._discovery.publish_listing(found):
                    self.store.bump_generation()
            jobs = [job for job in found if job.listed]
            # Incremental: one HMGET of the jobs' change marks; only the jobs whose mark
            # differs from their listing (new, changed, not read to the end) have their
            # state read and compared.
            marks = self.store.fingerprints([job.train_id for job in jobs])
            changed = [job for job in jobs if marks.get(job.train_id) != job_fingerprint(job)]
            states = self.store.load_jobs([job.train_id for job in changed])
            self.store.mark_discovered()
            return [
                job.train_id
                for job in changed
                if needs_load(job, states.get(job.train_id))
                and self.store.try_mark(_queued(job.train_id), QUEUED_SECONDS)
            ]

    def mark_queued(self, train_id: str) -> None:
        """Mark a job queued again (a load task that ran out of time queues its job again)."""
        self.store.try_mark(_queued(train_id), QUEUED_SECONDS)

    def load(self, train_id: str) -> Outcome:
        """Load what is new in one job, holding its lease (see the module)."""
        self.store.unmark(_queued(train_id))  # a change from now on queues the job again
        with self.store.lease(f"job|{train_id}", self.lease_seconds) as lease:
            if lease is None:
                return Outcome.BUSY
            job = discover_job(self.base_dir, train_id)
            if job is None:
                return Outcome.GONE

            def renew() -> None:
                if not lease.renew():
                    raise LeaseLost(f"the lease on {train_id} expired")

            done = self._loader().load_job(
                job, deadline=time.time() + self.task_seconds, after_pass=renew
            )
            return Outcome.DONE if done else Outcome.MORE


def _queued(train_id: str) -> str:
    return f"queued|{train_id}"
