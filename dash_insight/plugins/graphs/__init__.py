"""The computational graph and data graph pages, and MindInsight's graph endpoints.

* :mod:`.nodes`: the node model, data type names, attribute texts;
* :mod:`.builder`: MindInsight 2.3.1's graph building rules (normal and readable mode);
* :mod:`.model`: :class:`~.query_graph.GraphModel`, the built graph and MindInsight's queries on it;
* :mod:`.service`: :class:`~.service.GraphService`, built graphs in an LRU keyed by job version;
* :mod:`.view`: what the page draws (nodes, sizes, edge bundles; ELK lays them out in the
  browser, `assets/graph-layout.js`);
* :mod:`.dataset`: the dataset pipeline (data graph);
* :mod:`.rest`, :mod:`.page`, :mod:`.data_graph_page`, :mod:`.cards`: the web side;
  :mod:`.plugin`: the plugin object.
"""
