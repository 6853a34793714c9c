"""The landscape plugin's service: each job's catalogue of landscapes and its lineage row, cached
per job version (a job that changed has a new version, so nothing stale is served). The decoded
landscapes themselves stay in the provider's value cache."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dash_insight.core.format.events import LossLandscapeValue
from dash_insight.core.lineage_rows import lineage_row
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.store.lru import ByteLRU
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.landscape.query import (
    LandscapeError,
    LandscapeRef,
    catalogue,
    find_landscape,
    landscape_entry,
)

#: Catalogues and lineage rows are a few hundred bytes per job.
CACHE_BYTES = 8 << 20


@dataclass(frozen=True)
class JobLandscapes:
    """A job's landscapes in MindInsight's order, and the ones that could not be read."""

    refs: tuple[LandscapeRef, ...]
    problems: tuple[str, ...] = ()

    @property
    def intervals(self) -> list[LandscapeRef]:
        return [ref for ref in self.refs if not ref.final]

    @property
    def finals(self) -> list[LandscapeRef]:
        return [ref for ref in self.refs if ref.final]


class LandscapeService:
    """What the landscape routes, pages and card share."""

    def __init__(self, provider: DataProvider, cache_bytes: int = CACHE_BYTES) -> None:
        self.provider = provider
        self._cache = ByteLRU(cache_bytes)

    @classmethod
    def from_data(cls, data: DataService) -> LandscapeService:
        return cls(data.provider)

    def landscapes(self, train_id: str) -> JobLandscapes:
        """The job's landscapes (raises the provider's JobNotFound). A record that cannot be
        read is left out and named in ``problems``; the others stay."""
        job = self.provider.job(train_id)

        def build() -> JobLandscapes:
            entries: list[tuple[str, int, list[int]]] = []
            problems: list[str] = []
            for tag in job.tags.get(PluginName.LOSS_LANDSCAPE, []):
                try:
                    steps = self.provider.value_steps(train_id, PluginName.LOSS_LANDSCAPE, tag)
                except DataError as error:
                    problems.append(str(error))
                    continue
                for step in steps.step.tolist():
                    try:
                        value = self.value(train_id, LandscapeRef(tag, int(step), ()))
                    except DataError as error:
                        problems.append(str(error))
                        continue
                    entries.append((tag, int(step), value.loss_path_intervals))
            return JobLandscapes(tuple(catalogue(entries)), tuple(problems))

        return self._cache.get_or_compute(("landscapes", train_id, job.version), build)

    def value(self, train_id: str, ref: LandscapeRef) -> LossLandscapeValue:
        value: LossLandscapeValue = self.provider.read_value(
            train_id, PluginName.LOSS_LANDSCAPE, ref.tag, ref.step
        )
        return value

    def lineage(self, train_id: str) -> dict[str, Any] | None:
        """The job's lineage row (None without lineage)."""
        job = self.provider.job(train_id)
        return self._cache.get_or_compute(
            ("lineage", train_id, job.version),
            lambda: lineage_row(train_id, self.provider.lineage_records(train_id)),
        )

    def find(self, train_id: str, kind: str, wanted_id: str | None) -> LandscapeRef | None:
        return find_landscape(self.landscapes(train_id).refs, kind, wanted_id)

    def entry(self, train_id: str, ref: LandscapeRef) -> dict[str, Any]:
        """MindInsight's answer entry for one landscape; LandscapeError or the provider's
        DataError when its record is unreadable or inconsistent."""
        return landscape_entry(train_id, self.value(train_id, ref), self.lineage(train_id))


__all__ = ["JobLandscapes", "LandscapeError", "LandscapeService"]
