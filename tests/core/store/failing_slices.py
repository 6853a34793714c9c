"""Slice readers that fail on purpose, run by the load workers of tests/core/store/test_load_pool.py
(``Loader(pool_target="tests.core.store.failing_slices:...")``): a worker process that dies, one
that raises. Each fails only on a slice after a file's first one, so the first slice's points are
there to stay visible."""

from __future__ import annotations

import os

from dash_insight.core.store.load_pool import SliceResult, SliceTask, read_slice

#: Files whose job folder has this in its name make the worker fail.
VICTIM = "victim"


def _targeted(task: SliceTask) -> bool:
    return VICTIM in task.path and task.offset > 0


def crash_on_victim(task: SliceTask) -> SliceResult:
    """Ends the worker process without an answer (as the OOM killer or a native crash would)."""
    if _targeted(task):
        os._exit(9)
    return read_slice(task)


def raise_on_victim(task: SliceTask) -> SliceResult:
    if _targeted(task):
        raise ValueError("a reader bug")
    return read_slice(task)


def raise_on_pieces(task: SliceTask) -> SliceResult:
    """Fails on every piece that starts where framing must be found (a slice's pieces after
    its first, ``following_slices``): all of them are dropped and read again as first pieces."""
    if task.lost_at is not None and task.lost_at == task.offset:
        raise ValueError("a piece that cannot be read")
    return read_slice(task)
