"""The lineage plugin's service: the provider, this app's lineage rows and remarks store."""

from __future__ import annotations

from dash_insight.core.provider import DataProvider
from dash_insight.core.service import DataService
from dash_insight.plugins.lineage.query import LineageEntry, RowCache, job_lineages
from dash_insight.plugins.lineage.service_remarks import RemarkStore, remarks_path


class LineageService:
    """What the lineage page and routes share: rows cached per job version, remarks on disk."""

    def __init__(self, provider: DataProvider, remarks: RemarkStore) -> None:
        self.provider = provider
        self.remarks = remarks
        self._rows = RowCache()

    @classmethod
    def from_data(cls, data: DataService) -> LineageService:
        """The service of ``data``'s base directory, its remarks in ``data``'s workspace."""
        return cls(data.provider, RemarkStore(remarks_path(data.workspace, data.summary_base_dir)))

    def lineages(self) -> list[LineageEntry]:
        """:func:`~.query.job_lineages` with this service's row cache."""
        return job_lineages(self.provider, self._rows)
