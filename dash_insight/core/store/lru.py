"""A thread-safe LRU cache bounded by the bytes of what it holds."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def approximate_bytes(value: Any) -> int:
    """Rough memory size: numpy buffers and bytes counted exactly, containers recursively."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + 112
    if isinstance(value, (bytes, bytearray, str)):
        return len(value) + 49
    if isinstance(value, (list, tuple)):
        return 56 + sum(approximate_bytes(item) for item in value)
    if isinstance(value, dict):
        return 232 + sum(approximate_bytes(k) + approximate_bytes(v) for k, v in value.items())
    if hasattr(value, "__dataclass_fields__"):
        return 56 + sum(
            approximate_bytes(getattr(value, name)) for name in value.__dataclass_fields__
        )
    if hasattr(value, "ByteSize"):  # protobuf message
        return 3 * int(value.ByteSize()) + 64
    return sys.getsizeof(value)


class _Computing:
    """A value being computed by one thread, awaited by the others asking for the same key."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


class ByteLRU:
    """Keeps recently used values while their total size stays under ``max_bytes``; a value
    larger than the budget is computed but not kept. Concurrent requests for a key being
    computed wait for that computation and share its result (or its error): eight requests for
    the same large image decode it once and hold one copy, whether or not it fits the cache."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._computing: dict[Hashable, _Computing] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def get_or_compute(
        self, key: Hashable, compute: Callable[[], T], keep: Callable[[T], bool] | None = None
    ) -> T:
        """The value kept under ``key``, else ``compute()`` (kept unless ``keep`` says it must
        not be: a caller may compute something it only hands on, such as a window too large to
        keep encoded)."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit[0]
            computing = self._computing.get(key)
            owner = computing is None
            if computing is None:
                computing = self._computing[key] = _Computing()
        if not owner:
            computing.done.wait()
            if computing.error is not None:
                raise computing.error
            shared: T = computing.value
            return shared
        try:
            value = compute()  # outside the lock: several keys may be computed at once
        except BaseException as error:
            computing.error = error
            raise
        else:
            computing.value = value
            if keep is None or keep(value):
                self._keep(key, value)
        finally:
            with self._lock:
                del self._computing[key]
            computing.done.set()
        return value

    def _keep(self, key: Hashable, value: Any) -> None:
        size = approximate_bytes(value)
        if size <= self.max_bytes:
            with self._lock:
                if key not in self._items:
                    self._items[key] = (value, size)
                    self._bytes += size
                while self._bytes > self.max_bytes:
                    _, (_, dropped) = self._items.popitem(last=False)
                    self._bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)
