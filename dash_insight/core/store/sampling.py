"""Opt-in reservoir sampling (``--samples-per-plugin``), exactly as MindInsight 2.3.1 samples.

dash-insight keeps every value by default. Users who want MindInsight's or TensorBoard's
bounded memory can ask for ``scalar=1000,image=10,histogram=50,tensor=20``; the kept samples are
then the ones MindInsight would keep (``datavisual/data_transform/reservoir.py`` together with
``EventsData.add_tensor_event``), which is also TensorBoard's ``Reservoir(always_keep_last)``:

* deterministic (one ``random.Random(0)`` per tag), the newest sample always kept;
* a new sample whose step is not above the last kept one first purges: kept samples survive if
  ``x.step < new.step`` or (``x.step > new.step`` and x's file is not older than the new one's);
  the seen-counter is rescaled by the fraction kept.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from dash_insight.core.vocabulary import PluginName

#: MindInsight's fixed sizes, for reference and for ``--samples-per-plugin mindinsight``.
MINDINSIGHT_SAMPLES = {
    PluginName.SCALAR.value: 1000,
    PluginName.IMAGE.value: 10,
    PluginName.HISTOGRAM.value: 50,
    PluginName.TENSOR.value: 20,
}
#: Plugins a sample size can be given for.
SAMPLED_PLUGINS = tuple(MINDINSIGHT_SAMPLES)


class Reservoir:
    """One tag's reservoir of at most ``size`` samples (0 = unbounded), sorted by step."""

    def __init__(self, size: int, seed: int = 0) -> None:
        if size < 0:
            raise ValueError("reservoir size must be >= 0")
        self.size = size
        self._rng = random.Random(seed)
        self._steps: list[int] = []
        self._ranks: list[int] = []
        self._items: list[Any] = []
        self._counter = 0

    def add(self, step: int, item: Any, file_rank: int = 0) -> None:
        """Offer a sample from the file ranked ``file_rank`` (files in timestamp order)."""
        if self._steps and step <= self._steps[-1]:
            keep = [
                i
                for i, (s, r) in enumerate(zip(self._steps, self._ranks, strict=True))
                if s < step or (s > step and r >= file_rank)
            ]
            before = len(self._steps)
            self._steps = [self._steps[i] for i in keep]
            self._ranks = [self._ranks[i] for i in keep]
            self._items = [self._items[i] for i in keep]
            self._counter = round(self._counter * len(keep) / before)
        if self.size and len(self._steps) >= self.size:
            r = self._rng.randint(0, self._counter)
            drop = r if r < self.size else len(self._steps) - 1
            del self._steps[drop], self._ranks[drop], self._items[drop]
        position = bisect.bisect_right(self._steps, step)
        self._steps.insert(position, step)
        self._ranks.insert(position, file_rank)
        self._items.insert(position, item)
        self._counter += 1

    def items(self) -> list[Any]:
        """Kept items, sorted by step."""
        return list(self._items)

    def steps(self) -> list[int]:
        return list(self._steps)


def sample_indices(steps: Iterable[int], file_ranks: Iterable[int], size: int) -> np.ndarray:
    """Indices (into the arrival order) of the samples a size-``size`` reservoir keeps, sorted
    by step. ``size`` 0 keeps what the purge rule keeps without sampling."""
    reservoir = Reservoir(size)
    for index, (step, rank) in enumerate(zip(steps, file_ranks, strict=True)):
        reservoir.add(int(step), index, int(rank))
    return np.asarray(reservoir.items(), dtype=np.int64)


def parse_samples_per_plugin(text: str) -> dict[str, int]:
    """Parse ``scalar=1000,image=10,histogram=all`` (``all`` = keep every value, the default;
    ``mindinsight`` = MindInsight's sizes for every plugin). Raises ValueError with a clear
    message on a bad item."""
    text = text.strip()
    if text == "mindinsight":
        return dict(MINDINSIGHT_SAMPLES)
    sizes: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        plugin, sep, value = item.partition("=")
        plugin, value = plugin.strip(), value.strip()
        if not sep or plugin not in SAMPLED_PLUGINS:
            raise ValueError(
                f"bad --samples-per-plugin item {item!r}: expected PLUGIN=N or "
                f"PLUGIN=all with PLUGIN one of {', '.join(SAMPLED_PLUGINS)}"
            )
        if value == "all":
            sizes[plugin] = 0
            continue
        if not value.isdigit() or int(value) < 1:
            raise ValueError(
                f"bad --samples-per-plugin item {item!r}: the sample count must be "
                f"a positive integer or 'all'"
            )
        sizes[plugin] = int(value)
    return sizes


def format_samples_per_plugin(sizes: Mapping[str, int]) -> str:
    """Inverse of :func:`parse_samples_per_plugin`."""
    return ",".join(f"{p}={'all' if n == 0 else n}" for p, n in sizes.items())
