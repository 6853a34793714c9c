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
        return 56 + sum(approximate_bytes(getattr(value, name))
                        for name in value.__dataclass_fields__)
    if hasattr(value, "ByteSize"):  # protobuf message
        return 3 * int(value.ByteSize()) + 64
    return sys.getsizeof(value)


class ByteLRU:
    """Keeps recently used values while their total size stays under ``max_bytes``; a value
    larger than the budget is computed but not kept."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit[0]
        value = compute()  # outside the lock: several keys may be computed at once
        size = approximate_bytes(value)
        if size <= self.max_bytes:
            with self._lock:
                if key not in self._items:
                    self._items[key] = (value, size)
                    self._bytes += size
                while self._bytes > self.max_bytes:
                    _, (_, dropped) = self._items.popitem(last=False)
                    self._bytes -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)
