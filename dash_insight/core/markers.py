"""Markers of a scalar chart (issue 40 item 7), web-free: epoch boundaries and restarts.

* **Epoch boundaries** every ``steps_per_epoch`` steps: from what a job's lineage records (its
  training set's sample count over the batch size and the devices: MindSpore's
  ``train_dataset_size`` counts samples, e.g. 512 samples in batches of 32 = 16 steps an
  epoch), or as the user gives it.
* **Restarts**: a summary file of the job whose first step is earlier than the last step of
  the file before it (in file order), i.e. training resumed from an earlier checkpoint.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

#: The most epoch boundaries a chart marks; past it, every k-th epoch (k as small as fits).
MAX_EPOCH_MARKERS = 100


@dataclass(frozen=True)
class Restart:
    """A file that resumed at ``step``, earlier than ``previous_last``, the last step of the
    file before it."""

    step: int
    previous_last: int


def restarts(ranges: Sequence[tuple[int, int]]) -> list[Restart]:
    """The restarts among files whose steps span ``ranges`` (each file's first and last step,
    in file order; a file without steps left out by the caller): each file that starts at an
    earlier step than the file before it ended."""
    return [
        Restart(first, previous_last)
        for (_previous_first, previous_last), (first, _last) in pairwise(ranges)
        if first < previous_last
    ]


def steps_per_epoch(row: Mapping[str, Any] | None) -> int | None:
    """The steps of one epoch from a job's lineage row (``train_dataset_count`` samples,
    ``batch_size``, ``device_num``): ceil(samples / (batch size x devices)); None when the row
    lacks them or they are not positive numbers."""
    if not row:
        return None
    numbers = [row.get("train_dataset_count"), row.get("batch_size"), row.get("device_num") or 1]
    checked = [
        float(n)
        for n in numbers
        if isinstance(n, int | float) and not isinstance(n, bool) and math.isfinite(n) and n > 0
    ]
    if len(checked) != len(numbers):
        return None
    samples, batch, devices = checked
    return max(1, math.ceil(samples / (batch * devices)))


def epoch_boundaries(
    per_epoch: int, first: int, last: int, most: int = MAX_EPOCH_MARKERS
) -> list[tuple[int, int]]:
    """``(step, epoch)`` of each epoch boundary strictly inside the steps ``first``..``last``
    (the step that ends epoch ``epoch``: ``epoch * per_epoch``), at most ``most`` (then every
    k-th epoch, k the smallest that fits)."""
    if per_epoch <= 0 or last <= first:
        return []
    low = first // per_epoch + 1
    high = (last - 1) // per_epoch
    if high < low:
        return []
    every = max(1, math.ceil((high - low + 1) / most))
    start = math.ceil(low / every) * every
    return [(epoch * per_epoch, epoch) for epoch in range(start, high + 1, every)]
