"""Tensors: whole values within MindInsight's size limit, their statistics, slices and
histograms, for the REST API, the page and the dashboard card."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dash_insight.core import histogram_bins
from dash_insight.core.format.events import TensorValue
from dash_insight.core.provider import (
    DataError,
    DataProvider,
    LeftOutStep,
    TensorTooLarge,
    ValueUnreadable,
)
from dash_insight.core.store.lru import ByteLRU
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.tensors import query_tensor

#: Statistics of this many bytes of tensors are kept (they are small: a dict per step).
STATISTICS_CACHE_BYTES = 8 << 20


class NotNumeric(DataError):
    """A tensor of strings asked for what only numbers have (a histogram)."""


class TensorQueries:
    """The tensors plugin's service: the provider plus a cache of statistics per job version."""

    def __init__(self, provider: DataProvider, cache_bytes: int = STATISTICS_CACHE_BYTES) -> None:
        self.provider = provider
        self._statistics = ByteLRU(cache_bytes)

    def tensor(self, train_id: str, tag: str, step: int) -> TensorValue:
        """A whole tensor; TensorTooLarge above MindInsight's 10,000,000 values and
        ValueUnreadable for negative dims (both checked on the indexed shape, before anything is
        decoded: a header claiming 10**8 x 10**8 values costs nothing)."""
        steps = self.provider.value_steps(train_id, PluginName.TENSOR, tag)
        meta = steps.meta[steps.position(step)] if steps.meta else None
        if meta is not None:
            try:
                count = query_tensor.value_count(meta["dims"])
            except ValueError as error:
                raise ValueUnreadable(
                    f"cannot read tensor {tag!r} at step {step}: {error}"
                ) from None
            if count > query_tensor.MAX_TENSOR_VALUES:
                raise TensorTooLarge(
                    f"tensor {tag!r} at step {step} has {count:,} values; at most "
                    f"{query_tensor.MAX_TENSOR_VALUES:,} can be shown"
                )
        value: TensorValue = self.provider.read_value(train_id, PluginName.TENSOR, tag, step)
        return value

    def statistics(self, train_id: str, tag: str, step: int) -> dict[str, Any]:
        """:func:`~.query_tensor.statistics` of the whole tensor at ``step``
        (:func:`~.query_tensor.text_statistics` for a tensor of strings)."""
        version = self.provider.job(train_id).version

        def compute() -> dict[str, Any]:
            array = self.tensor(train_id, tag, step).array
            if query_tensor.is_text(array):
                return query_tensor.text_statistics(array)
            return query_tensor.statistics(array)

        stats: dict[str, Any] = self._statistics.get_or_compute(
            (train_id, tag, step, version), compute
        )
        return stats

    def slice(self, train_id: str, tag: str, step: int, dims: str) -> np.ndarray:
        """Values selected by MindInsight's dims grammar (``[0,:,2:5]``); DimsError (with a
        message for the user) for a bad string or more than 100,000 values."""
        return query_tensor.slice_tensor(self.tensor(train_id, tag, step).array, dims)

    def histograms(self, train_id: str, tag: str, max_steps: int | None = None) -> TensorHistograms:
        """(step, wall time, buckets) per step, on one grid shared by the tag's steps. A step
        whose value cannot be read (damaged, negative dims) is left out, and a step over
        :data:`~.query_tensor.MAX_TENSOR_VALUES` is named in ``too_large`` (MindInsight fails the
        whole tag with 50545016; here the other steps are still shown); NotNumeric for a
        tensor of strings."""
        steps = self.provider.value_steps(train_id, PluginName.TENSOR, tag)
        readable: list[tuple[int, histogram_bins.OriginalHistogram]] = []
        too_large: list[LeftOutStep] = []
        for position in histogram_bins.spread(len(steps), max_steps):
            step = int(steps.step[position])
            try:
                array = self.tensor(train_id, tag, step).array
            except ValueUnreadable:
                continue
            except TensorTooLarge as error:
                too_large.append(LeftOutStep(step, float(steps.wall_time[position]), str(error)))
                continue
            if query_tensor.is_text(array):
                raise NotNumeric(f"tensor {tag!r} holds text: it has no histogram")
            readable.append((position, query_tensor.tensor_original_histogram(array)))
        unified = histogram_bins.unify([original for _, original in readable])
        rows = [
            (int(steps.step[p]), float(steps.wall_time[p]), b)
            for (p, _), b in zip(readable, unified, strict=True)
        ]
        return TensorHistograms(rows, tuple(too_large))


@dataclass(frozen=True)
class TensorHistograms:
    """What :meth:`TensorQueries.histograms` found: ``rows`` of (step, wall time, buckets) on
    one grid, and the steps left out for their size."""

    rows: list[tuple[int, float, np.ndarray]]
    too_large: tuple[LeftOutStep, ...] = ()
