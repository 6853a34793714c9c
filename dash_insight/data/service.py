"""One object that owns the index, the background loader and the query API of a base dir."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .index import IndexStore, index_directory
from .loader import Loader
from .provider import DataProvider

DEFAULT_WORKSPACE = os.path.join(os.path.expanduser("~"), "dash-insight")


class DataService:
    """Index + loader + provider for one summary base directory.

    Every web worker process makes one; their loaders share the index through a file lock, so
    exactly one of them reads the logs at a time while all of them answer queries.
    """

    def __init__(
        self,
        summary_base_dir: str | os.PathLike[str],
        *,
        workspace: str | os.PathLike[str] | None = None,
        reload_interval: float = 3.0,
        max_depth: int | None = None,
        samples_per_plugin: Mapping[str, int] | None = None,
        cache_bytes: int = 256 << 20,
    ) -> None:
        self.summary_base_dir = os.path.realpath(os.fspath(summary_base_dir))
        if not os.path.isdir(self.summary_base_dir):
            raise NotADirectoryError(f"summary base directory not found: {summary_base_dir}")
        self.workspace = os.path.abspath(os.fspath(workspace or DEFAULT_WORKSPACE))
        self.reload_interval = reload_interval
        self.store = IndexStore(index_directory(self.workspace, self.summary_base_dir))
        self.loader = Loader(self.summary_base_dir, self.store, max_depth=max_depth,
                             reload_interval=reload_interval)
        self.provider = DataProvider(self.summary_base_dir, self.store,
                                     samples_per_plugin=samples_per_plugin,
                                     cache_bytes=cache_bytes)

    @property
    def name(self) -> str:
        """What MindInsight shows as "Current folder": the base directory's name."""
        return os.path.basename(self.summary_base_dir) or self.summary_base_dir

    def start(self) -> None:
        self.loader.start()

    def close(self) -> None:
        self.loader.stop()
        self.store.close()
