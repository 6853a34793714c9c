"""The byte budget that bounds concurrent decoding, and the LRU's shared computations."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from dash.testing.wait import until

from dash_insight.core.store.budget import ByteBudget
from dash_insight.core.store.lru import ByteLRU


def waiting(cache: ByteLRU, key: str) -> int:
    """Threads waiting for the computation of ``key`` (0 when none is running)."""
    computing = cache._computing.get(key)
    return len(computing.done._cond._waiters) if computing else 0  # type: ignore[attr-defined]


def test_small_shares_run_side_by_side_large_ones_take_turns() -> None:
    budget = ByteBudget(100)
    with budget.hold(30), budget.hold(30), budget.hold(40):
        assert budget.held == 100
        entered = threading.Event()

        def large() -> None:
            with budget.hold(60):
                entered.set()

        waiter = threading.Thread(target=large)
        waiter.start()
        assert not entered.wait(0.2)  # 100 held: 60 more must wait
    waiter.join(10)
    assert entered.is_set() and budget.held == 0


def test_a_share_larger_than_the_budget_runs_alone() -> None:
    budget = ByteBudget(100)
    with budget.hold(10**12):
        assert budget.held == 100
    assert budget.held == 0


def test_a_non_positive_budget_is_refused() -> None:
    with pytest.raises(ValueError):
        ByteBudget(0)


def test_concurrent_requests_for_one_key_share_one_computation() -> None:
    """Eight threads asking for the same large value while it is computed get the very same
    object, computed once, even when it is too large to be kept."""
    cache = ByteLRU(max_bytes=10)
    release = threading.Event()
    calls = []

    def compute() -> bytes:
        calls.append(1)
        release.wait(10)
        return bytes(1000)

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(cache.get_or_compute, "key", compute) for _ in range(8)]
        until(lambda: waiting(cache, "key") == 7, timeout=10)
        release.set()
        values = [future.result(10) for future in futures]
    assert len(calls) == 1
    assert all(value is values[0] for value in values)
    assert len(cache) == 0  # too large to keep: the next request computes it again
    assert cache.get_or_compute("key", lambda: b"again") == b"again"


def test_an_error_is_shared_and_not_kept() -> None:
    cache = ByteLRU(max_bytes=1000)
    started, release = threading.Event(), threading.Event()

    def failing() -> bytes:
        started.set()
        release.wait(10)
        raise ValueError("unreadable")

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(cache.get_or_compute, "key", failing)
        started.wait(10)
        second = pool.submit(cache.get_or_compute, "key", lambda: b"not called")
        until(lambda: waiting(cache, "key") == 1, timeout=10)
        release.set()
        for future in (first, second):
            with pytest.raises(ValueError, match="unreadable"):
                future.result(10)
    assert cache.get_or_compute("key", lambda: b"fine") == b"fine"
