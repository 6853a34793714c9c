"""A job's change mark: what discovery compares instead of the job's whole state.

:func:`needs_load <dash_insight.core.fleet.loading.needs_load>` tells whether a job's files on
disk differ from its indexed state. A fleet's discovery runs every few seconds over every job;
reading and decoding every job's state for it cost a round trip of all states and their
decoding per round (issue #41 item 6). Instead, the index keeps beside each caught-up job state
a short digest of what ``needs_load`` compares (:func:`state_fingerprint`: the job's times,
problems and profiler, each file's name, identity, size and mtime), and discovery computes the
same digest from the listing (:func:`job_fingerprint`): equal digests mean nothing to load, so
only the jobs whose digest differs (or that have none: new, or not read to the end) have their
state read and compared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from dash_insight.core.store.discovery import JobInfo
from dash_insight.core.store.state import JobState


def _digest(
    times: tuple[float, float],
    problems: Iterable[str],
    profiler: tuple[Any, ...],
    files: Iterable[tuple[str, Any, int, float]],
) -> str:
    # repr of plain tuples of str, int, float and None: exact (floats round-trip) and several
    # times cheaper than JSON, at 10,000 jobs per discovery round.
    text = repr((times, tuple(problems), profiler, sorted(files)))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def state_fingerprint(state: JobState) -> str | None:
    """The digest of a job state whose every file is read to the end and readable; None for a
    job with more to read (discovery must then look at it every round)."""
    if any(f.needs_reading or f.unreadable is not None for f in state.files.values()):
        return None
    return _digest(
        (state.create_time, state.update_time),
        state.problems,
        (state.profiler_dir, state.profiler_type, state.profiler_graph_mode),
        ((f.name, tuple(f.identity), f.size, f.mtime) for f in state.files.values()),
    )


def job_fingerprint(job: JobInfo) -> str:
    """The digest of a job as listed: equal to its indexed state's exactly when
    ``needs_load`` would find nothing to load."""
    return _digest(
        (job.create_time, job.update_time),
        job.errors,
        (job.profiler_dir, job.profiler_type, job.profiler_graph_mode),
        ((f.name, tuple(f.identity), f.size, f.mtime) for f in job.files),
    )
