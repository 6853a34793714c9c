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
  ``{}`` without a dataset pipeline;
* ours, ``/v1/dash-insight/graph-layout?key``: ``GET`` the picture of a graph canvas the pages
  kept under ``key`` (204 without one), ``PUT`` one (JSON; 400 for a bad key or picture, 413
  past :data:`~.service_layouts.MAX_PICTURE_BYTES`): :mod:`~.service_layouts`.

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

from flask import Response, request

from dash_insight.core.provider import TagNotFound, ValueUnreadable
from dash_insight.core.vocabulary import (
    GRAPH_MODES,
    GraphMode,
    graph_file_of_tag,
    graph_tags_for_mode,
)
from dash_insight.plugins.graphs.query_dataset import mindinsight_order
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.query_nodes import GraphBuildError
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.plugins.graphs.service_layouts import MAX_PICTURE_BYTES, PictureError
from dash_insight.web import errors
from dash_insight.web.http import (
    JsonBodyError,
    json_body,
    json_response,
    required_args,
    resolve_job,
    to_int,
)
from dash_insight.web.plugin import DASH_INSIGHT_API, Route

#: ``limit`` of the node-name search (``Validation.check_limit(1, 1000)``).
MAX_SEARCH_LIMIT = 1000


def routes(service: GraphService) -> list[Route]:
    views = _GraphViews(service)
    return [
        Route("datavisual/graphs/nodes", views.nodes),
        Route("datavisual/graphs/nodes/names", views.node_names),
        Route("datavisual/graphs/single-node", views.single_node),
        Route("datavisual/graphs/nodes/all", views.all_nodes),
        Route("datasets/dataset_graph", views.dataset_graph),
        Route("graph-layout", views.layout, ("GET", "PUT"), api=DASH_INSIGHT_API),
    ]


class _GraphViews:
    def __init__(self, service: GraphService) -> None:
        self.service = service
        self.provider = service.provider

    def layout(self) -> Response:
        """``GET``: the picture kept under ``key`` (204 when none); ``PUT`` a JSON picture."""
        store = self.service.layouts
        key = request.args.get("key", "")
        try:
            if request.method == "PUT":
                if store is not None:
                    store.put(key, json_body(MAX_PICTURE_BYTES))
                return Response(status=204)
            text = store.get(key) if store is not None else None
        except (PictureError, JsonBodyError) as error:
            raise errors.param_value_error(str(error)) from None
        if text is None:
            return Response(status=204)
        return Response(text, mimetype="application/json")

    def _graph(self) -> GraphModel:
        """The graph the request names (``GraphProcessor.__init__``)."""
        (train_id,) = required_args("train_id")
        mode = request.args.get("mode", GraphMode.NORMAL.value)
        if mode not in GRAPH_MODES:
            raise errors.param_value_error(
                f"The value of mode must be 'normal' or 'optimize', got {mode!r}."
            )
        tag = request.args.get("tag")
        if tag is not None and "\x00" in tag:
            raise errors.null_byte("tag contains null byte.")
        resolve_job(self.provider, train_id)
        tags = graph_tags_for_mode(self.provider.graph_tags(train_id), mode)
        if not tags or (tag is not None and tag not in tags):
            raise errors.graph_not_exist()
        tag = tags[0] if tag is None else tag
        try:
            model = self.service.model(train_id, graph_file_of_tag(tag, mode), mode)
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
        return json_response({"nodes": model.search_tree(matches[start : start + limit])})

    def single_node(self) -> Response:
        """``/graphs/single-node``: ``GraphProcessor.search_single_node``."""
        model = self._graph()
        (name,) = required_args("name")
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
        (train_id,) = required_args("train_id")
        resolve_job(self.provider, train_id)
        graph = self.provider.dataset_graph(train_id)
        if not graph:
            return json_response({})
        return json_response({"dataset_graph": mindinsight_order(graph), "summary_dir": train_id})
