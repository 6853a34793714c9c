"""The graphs plugin's service: built graphs, kept in a small LRU. Building is pure CPU work on a
GraphProto the provider already caches, and the same graph is asked for on every expand, search
or REST call.

Keyed by (summary base dir, train_id, tag, mode, type names, job version): a job that changed
(new graph record, rewritten file) has a new version, so a stale graph is never served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Protocol

from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.core.provider import DataProvider
from dash_insight.core.vocabulary import GRAPH_MODES, GraphMode
from dash_insight.plugins.graphs.query_builder import build_nodes
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.service_layouts import LayoutStore

#: How many built graphs one process keeps, and how many nodes in all (a node with its edges
#: is about 1-2 kB: a 5,000-node graph is a few MB, MindInsight's 100,000-node limit ~150 MB).
MAX_GRAPHS = 12
MAX_NODES = 400_000


class GraphSource(Protocol):
    """What :meth:`GraphCache.get` needs from a :class:`~.provider.DataProvider`."""

    base_dir: str

    def job(self, train_id: str) -> object: ...

    def read_graph(self, train_id: str, tag: str) -> anf_ir_pb2.GraphProto: ...


class GraphCache:
    """A thread-safe LRU of built :class:`GraphModel` objects, bounded in graphs and in nodes
    (the graph just built is always kept)."""

    def __init__(self, max_graphs: int = MAX_GRAPHS, max_nodes: int = MAX_NODES) -> None:
        self.max_graphs = max_graphs
        self.max_nodes = max_nodes
        self._items: OrderedDict[Hashable, GraphModel] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0

    def get(
        self,
        provider: GraphSource,
        train_id: str,
        tag: str,
        mode: str = GraphMode.NORMAL,
        extended_types: bool = False,
    ) -> GraphModel:
        """The graph ``tag`` of ``train_id`` built in ``mode`` ("normal" or "optimize");
        raises the provider's errors (unknown job or tag, unreadable record) and
        :class:`~.query_nodes.GraphBuildError`."""
        if mode not in GRAPH_MODES:
            raise ValueError(f"mode must be one of {GRAPH_MODES}, got {mode!r}")
        version = getattr(provider.job(train_id), "version", None)
        key = (provider.base_dir, train_id, tag, mode, extended_types, version)
        with self._lock:
            model = self._items.get(key)
            if model is not None:
                self._items.move_to_end(key)
                return model
        proto = provider.read_graph(train_id, tag)
        model = GraphModel(
            build_nodes(proto, readable=mode == GraphMode.OPTIMIZE, extended_types=extended_types),
            mode,
        )
        with self._lock:
            self.builds += 1
            self._items[key] = model
            while len(self._items) > 1 and (
                len(self._items) > self.max_graphs
                or sum(len(m) for m in self._items.values()) > self.max_nodes
            ):
                self._items.popitem(last=False)
        return model

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class GraphService:
    """The graphs plugin's service: the provider, this app's cache of built graphs and the
    canvases' pictures kept in the workspace (None: none kept)."""

    def __init__(
        self,
        provider: DataProvider,
        cache: GraphCache | None = None,
        layouts: LayoutStore | None = None,
    ) -> None:
        self.provider = provider
        self.cache = cache or GraphCache()
        self.layouts = layouts

    def model(
        self, train_id: str, tag: str, mode: str = GraphMode.NORMAL, extended_types: bool = False
    ) -> GraphModel:
        """:meth:`GraphCache.get` on this service's cache."""
        return self.cache.get(self.provider, train_id, tag, mode, extended_types)
