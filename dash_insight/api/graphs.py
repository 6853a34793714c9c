"""MindInsight 2.3.1's graph and dataset-graph REST endpoints (``/v1/mindinsight/...``).

* ``GET datavisual/graphs/nodes?train_id&tag&mode&name`` -> ``{"nodes": [...]}``: the direct
  children of scope ``name`` (the top level when absent);
* ``GET datavisual/graphs/nodes/names?train_id&tag&mode&search&offset&limit`` ->
  ``{"nodes": [nested tree of the matches]}`` (page ``offset`` of ``limit`` matches);
* ``GET datavisual/graphs/single-node?train_id&tag&mode&name`` -> the children of every scope
  on the way to ``name``, nested;
* ``GET datavisual/graphs/nodes/all?train_id&tag&mode&name`` -> ``{"all_nodes_detail": [...]}``:
  every operator, parameter and constant below ``name``, depth first;
* ``GET datasets/dataset_graph?train_id`` -> ``{"dataset_graph": {...}, "summary_dir": id}`` or
  ``{}`` without a dataset pipeline.

``mode`` is ``normal`` (default) or ``optimize`` (MindInsight's optimized graph: the readable
mode); graph tags are file names, optimized ones ``"<file> (optimized)"`` (as ``/plugins``
lists them), the default the first one. Errors as MindInsight's: ParamMissError (50540003) for a
missing ``train_id`` (or ``name`` of single-node), ParamTypeError / ParamValueError for bad
``mode``, ``offset``, ``limit``; TrainJobNotExist (50545005); GraphNotExist (5054500C) for a job
without graphs or an unknown tag; NodeNotInGraph (50545009) for an unknown node name.

Deliberate differences: a graph whose record cannot be read any more, or that MindInsight would
refuse to build (``<``, ``>`` or ``"`` in a node name), answers GraphNotExist with the reason;
an unknown ``train_id`` on ``dataset_graph`` answers TrainJobNotExist like every other endpoint.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Response, request

from ..data.graph import (
    OPTIMIZED_SUFFIX,
    GraphBuildError,
    GraphModel,
    graph_model,
    ordered_graph_tags,
)
from ..data.graph.dataset import mindinsight_order
from ..data.provider import DataProvider, TagNotFound, ValueUnreadable
from . import errors
from .rest import json_response, require, resolve_job, to_int

#: ``limit`` of the node-name search (``Validation.check_limit(1, 1000)``).
MAX_SEARCH_LIMIT = 1000
MODES = ("normal", "optimize")


def graph_tags(provider: DataProvider, train_id: str, mode: str) -> list[str]:
    """The job's graph tags as ``/plugins`` lists them for ``mode`` (sorted, the
    ``ms_output_optimize.pb`` dump first; optimized tags carry the suffix)."""
    tags = ordered_graph_tags(provider.graph_tags(train_id))
    return [tag + OPTIMIZED_SUFFIX for tag in tags] if mode == "optimize" else tags


def file_tag(tag: str, mode: str) -> str:
    """The graph file name of a MindInsight tag (the optimized suffix removed)."""
    if mode == "optimize" and tag.endswith(OPTIMIZED_SUFFIX):
        return tag[:-len(OPTIMIZED_SUFFIX)]
    return tag


class _GraphViews:
    def __init__(self, provider: DataProvider) -> None:
        self.provider = provider

    def routes(self) -> list[tuple[str, Callable[[], Response], list[str]]]:
        return [
            ("datavisual/graphs/nodes", self.nodes, ["GET"]),
            ("datavisual/graphs/nodes/names", self.node_names, ["GET"]),
            ("datavisual/graphs/single-node", self.single_node, ["GET"]),
            ("datavisual/graphs/nodes/all", self.all_nodes, ["GET"]),
            ("datasets/dataset_graph", self.dataset_graph, ["GET"]),
        ]

    def _graph(self) -> GraphModel:
        """The graph the request names (``GraphProcessor.__init__``)."""
        train_id = request.args.get("train_id")
        require(train_id=train_id)
        mode = request.args.get("mode", "normal")
        if mode not in MODES:
            raise errors.param_value_error(
                f"The value of mode must be 'normal' or 'optimize', got {mode!r}.")
        tag = request.args.get("tag")
        if tag is not None and "\x00" in tag:
            raise errors.null_byte("tag contains null byte.")
        resolve_job(self.provider, train_id)
        tags = graph_tags(self.provider, train_id, mode)
        if not tags or (tag is not None and tag not in tags):
            raise errors.graph_not_exist()
        tag = tags[0] if tag is None else tag
        try:
            model = graph_model(self.provider, train_id, file_tag(tag, mode), mode)
        except TagNotFound:
            raise errors.graph_not_exist() from None
        except (ValueUnreadable, GraphBuildError) as error:
            raise errors.graph_not_exist(str(error)) from None
        if model.is_empty:
            raise errors.graph_not_exist("the graph has no node in this mode.")
        return model

    def _scope(self, model: GraphModel) -> str:
        name = request.args.get("name") or ""
        if name and name not in model:
            raise errors.node_not_in_graph(name)
        return name

    def nodes(self) -> Response:
        """``/graphs/nodes``: ``GraphProcessor.list_nodes(scope=name)``."""
        model = self._graph()
        return json_response({"nodes": model.list_nodes(self._scope(model))})

    def node_names(self) -> Response:
        """``/graphs/nodes/names``: ``GraphProcessor.search_node_names``."""
        offset = to_int(request.args.get("offset", "0"), "offset")
        if offset < 0:
            raise errors.param_value_error("'offset' should be greater than or equal to 0.")
        limit = to_int(request.args.get("limit", "100"), "limit")
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise errors.param_value_error(f"'limit' should in [1, {MAX_SEARCH_LIMIT}].")
        model = self._graph()
        matches = model.search(request.args.get("search"))
        start = offset * limit
        return json_response({"nodes": model.search_tree(matches[start:start + limit])})

    def single_node(self) -> Response:
        """``/graphs/single-node``: ``GraphProcessor.search_single_node``."""
        model = self._graph()
        name = request.args.get("name")
        require(name=name)
        if name not in model:
            raise errors.node_not_in_graph(name)
        return json_response(model.single_node(name))

    def all_nodes(self) -> Response:
        """``/graphs/nodes/all``: every leaf node below ``name`` (all of them without)."""
        model = self._graph()
        scope = self._scope(model)
        return json_response({"all_nodes_detail": [n.to_dict() for n in model.leaves(scope)]})

    def dataset_graph(self) -> Response:
        """``/datasets/dataset_graph``: the job's dataset pipeline (``organize_graph`` form, in
        MindInsight's key order), or ``{}``."""
        train_id = request.args.get("train_id")
        require(train_id=train_id)
        resolve_job(self.provider, train_id)
        graph = self.provider.dataset_graph(train_id)
        if not graph:
            return json_response({})
        return json_response({"dataset_graph": mindinsight_order(graph),
                              "summary_dir": train_id})


def routes(provider: DataProvider) -> list[tuple[str, Callable[[], Response], list[str]]]:
    """The graph routes below ``/v1/mindinsight`` (see ``rest.route_modules``)."""
    return _GraphViews(provider).routes()

