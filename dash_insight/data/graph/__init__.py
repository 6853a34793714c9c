"""Computational graphs as MindInsight builds and serves them (pure: no Dash, no Flask).

* :mod:`.nodes`: the node model, data type names, attribute texts;
* :mod:`.builder`: MindInsight 2.3.1's graph building rules (normal and readable mode);
* :mod:`.model`: :class:`GraphModel`, the built graph and MindInsight's queries on it;
* :mod:`.cache`: built graphs in an LRU keyed by job version (:func:`graph_model`);
* :mod:`.layout`: a layered (Sugiyama-style) layout; :mod:`.view`: what the page draws;
* :mod:`.dataset`: the dataset pipeline (data graph).
"""

from .cache import GRAPHS, GraphCache, graph_model
from .model import (
    MODES,
    NORMAL,
    OPTIMIZED_SUFFIX,
    READABLE,
    GraphModel,
    ordered_graph_tags,
)
from .nodes import GraphBuildError, Node

__all__ = ["GRAPHS", "MODES", "NORMAL", "OPTIMIZED_SUFFIX", "READABLE", "GraphBuildError",
           "GraphCache", "GraphModel", "Node", "graph_model", "ordered_graph_tags"]
