"""A counting semaphore measured in bytes: bounds the memory of work done at the same time."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ByteBudget:
    """At most ``max_bytes`` of work held at once; :meth:`hold` waits until its share fits.

    Requests reading large values hold the size of the record they read while they read and
    decode it: many small images are read side by side, while eight requests for 100 MB images
    take turns instead of holding eight records (and their decoded copies) at once. A share
    larger than the whole budget is clamped to it (it runs alone), so nothing waits forever.
    """

    def __init__(self, max_bytes: int) -> None:
        if max_bytes <= 0:
            raise ValueError(f"a byte budget must be positive, not {max_bytes}")
        self.max_bytes = max_bytes
        self._held = 0
        self._changed = threading.Condition()

    def acquire(self, size: int) -> int:
        """Wait until ``size`` bytes (clamped to the budget) fit, take them; returns the share
        to give back to :meth:`release`."""
        share = max(0, min(int(size), self.max_bytes))
        with self._changed:
            self._changed.wait_for(lambda: self._held + share <= self.max_bytes)
            self._held += share
        return share

    def release(self, share: int) -> None:
        with self._changed:
            self._held -= share
            self._changed.notify_all()

    @contextmanager
    def hold(self, size: int) -> Iterator[None]:
        """``size`` bytes held for the ``with`` block."""
        share = self.acquire(size)
        try:
            yield
        finally:
            self.release(share)

    @property
    def held(self) -> int:
        """Bytes held right now."""
        return self._held
