"""Cytoscape elements and styles for the computational graph and the data graph.

The server sends the nodes with their sizes (:mod:`dash_insight.plugins.graphs.figures`,
:mod:`dash_insight.plugins.graphs.query_dataset`) and the edges; ELK's layered layout places them in
the browser (``assets/graph-layout.js``, on every canvas of class :data:`ELK_CLASS`): open scopes
hold their contents, edges are routed around the nodes. Colours
follow MindInsight's legend: name scopes teal boxes, aggregation scopes yellow, operators light
blue ellipses, constants small dots, parameters grey, dynamic-shape nodes green.
"""

from __future__ import annotations

import json
from typing import Any

from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.i18n import LazyString, lazy_gettext
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.graphs.figures import GraphView
from dash_insight.plugins.graphs.query_dataset import Pipeline

#: The ``window.dash_clientside`` namespace of ``assets/graph-pages.js`` (both graph pages).
CLIENTSIDE_NAMESPACE = "graphPages"
#: The class of a cytoscape canvas that ``assets/graph-layout.js`` lays out (top to bottom);
#: with :data:`ELK_RIGHT` left to right, with :data:`ELK_FIT` fitted once laid out.
ELK_CLASS = "di-elk"
ELK_RIGHT = "di-elk-right"
ELK_FIT = "di-elk-fit"
#: Legend entries: (kind, label, CSS class of the swatch).
GRAPH_LEGEND: tuple[tuple[str, str | LazyString, str], ...] = (
    ("name_scope", lazy_gettext("Name scope"), "gp-sw-scope"),
    ("aggregation_scope", lazy_gettext("Aggregation"), "gp-sw-aggregation"),
    ("operator", lazy_gettext("Operator"), "gp-sw-operator"),
    ("const", lazy_gettext("Constant"), "gp-sw-const"),
    ("parameter", lazy_gettext("Parameter"), "gp-sw-parameter"),
    ("dynamic", lazy_gettext("Dynamic shape"), "gp-sw-dynamic"),
)
DATA_LEGEND: tuple[tuple[str, str | LazyString, str], ...] = (
    ("create", lazy_gettext("Create"), "dg-sw-create"),
    ("map", lazy_gettext("Map"), "dg-sw-map"),
    ("operator", lazy_gettext("Operator"), "dg-sw-operator"),
    ("shuffle", lazy_gettext("Shuffle"), "dg-sw-shuffle"),
    ("batch", lazy_gettext("Batch"), "dg-sw-batch"),
    ("repeat", lazy_gettext("Repeat"), "dg-sw-repeat"),
)


def graph_elements(view: GraphView) -> list[dict[str, Any]]:
    """Nodes (parents before children; a scope with its subnode count, ``sub``) and edges of a
    view, for ``cyto.Cytoscape``."""
    elements: list[dict[str, Any]] = []
    for node in view.nodes:
        classes = [node.kind]
        if node.expanded:
            classes.append("expanded")
        if node.dynamic:
            classes.append("dynamic")
        data: dict[str, Any] = {
            "id": node.name,
            "label": node.label,
            "kind": node.kind,
            "w": round(node.width, 1),
            "h": round(node.height, 1),
        }
        if node.parent is not None:
            data["parent"] = node.parent
        if node.subnode_count:
            data["sub"] = node.subnode_count  # the scope tree offers to open it
        elements.append({"data": data, "classes": " ".join(classes)})
    for edge in view.edges:
        edge_data: dict[str, Any] = {
            "id": f"{edge.source}\u2192{edge.target}",
            "source": edge.source,
            "target": edge.target,
            "label": edge.label,
            "count": edge.count,
        }
        elements.append({"data": edge_data, "classes": "control" if edge.control else "data"})
    return elements


def _element_id(element: dict[str, Any]) -> str:
    return str(element["data"]["id"])


def element_patch(
    before: list[dict[str, Any]] | None, after: list[dict[str, Any]], base: int, serial: int
) -> dict[str, Any]:
    """What turns the canvas drawing ``before`` (the elements of the view drawn as ``base``)
    into ``after`` (``serial``), for ``assets/graph-scopes.js`` applyPatch: ``remove`` the ids
    no longer drawn (and a node whose parent changed), ``add`` the new elements with ``at``,
    each one's index in ``after``, ``update`` the kept elements whose data or classes changed.
    ``before`` None (nothing drawn, or another graph) is a ``reset``: everything in ``add``.

    The browser keeps each element's place in the list (the order ELK takes them in): the
    elements kept are in the same order in ``before`` and ``after`` (:func:`graph_elements`
    visits nodes depth first and bundles edges by their drawn ends, both in the model's
    order), so the kept ones with each added one put at its index are ``after``."""
    if before is None:
        return {"reset": True, "n": serial, "base": base, "add": after}
    old = {_element_id(e): e for e in before}
    new_ids = set()
    added, at, updated = [], [], []
    for index, element in enumerate(after):
        key = _element_id(element)
        new_ids.add(key)
        previous = old.get(key)
        if previous is None or previous["data"].get("parent") != element["data"].get("parent"):
            added.append(element)
            at.append(index)
        elif previous != element:
            updated.append(element)
    moved = {_element_id(e) for e in added} & old.keys()
    removed = [key for key in old if key not in new_ids or key in moved]
    return {
        "reset": False,
        "n": serial,
        "base": base,
        "remove": removed,
        "add": added,
        "at": at,
        "update": updated,
    }


def apply_patch(before: list[dict[str, Any]], patch: dict[str, Any]) -> list[dict[str, Any]]:
    """The elements ``patch`` (:func:`element_patch`) makes of ``before``, in their order: the
    Python twin of what the browser does (tests check it gives the full list)."""
    if patch["reset"]:
        return list(patch["add"])
    removed = set(patch["remove"])
    updates = {_element_id(e): e for e in patch["update"]}
    kept = [updates.get(_element_id(e), e) for e in before if _element_id(e) not in removed]
    for index, element in zip(patch["at"], patch["add"], strict=True):
        kept.insert(index, element)
    return kept


def _quoted(value: str) -> str:
    """A cytoscape selector string literal."""
    return json.dumps(value)


# The smallest labels (parameters, constants, edges) are 10 px in the model: opening a scope
# zooms to at least READABLE_ZOOM (0.92, assets/graph-pages.js), so every label is 9 px or more
# on screen (tests/plugins/graphs/test_layout_quality.py).
GRAPH_STYLESHEET: list[dict[str, Any]] = [
    {
        "selector": "node",
        "style": {
            "label": "data(label)",
            "width": "data(w)",
            "height": "data(h)",
            "font-size": 11,
            "text-valign": "center",
            "text-halign": "center",
            "color": "#1f2329",
            "border-width": 1,
            "text-max-width": "220px",
            "text-wrap": "ellipsis",
            "min-zoomed-font-size": 4,
        },
    },
    {
        "selector": "node.operator",
        "style": {"shape": "ellipse", "background-color": "#b9dcf7", "border-color": "#4f9bd9"},
    },
    {
        "selector": "node.parameter",
        "style": {
            "shape": "round-rectangle",
            "background-color": "#e4e7ec",
            "border-color": "#8d96a3",
            "font-size": 10,
        },
    },
    {
        "selector": "node.const",
        "style": {
            "shape": "ellipse",
            "background-color": "#b9dcf7",
            "border-color": "#4f9bd9",
            "text-valign": "bottom",
            "text-margin-y": 3,
            "font-size": 10,
        },
    },
    {
        "selector": "node.name_scope",
        "style": {"shape": "rectangle", "background-color": "#8fe9ec", "border-color": "#23a3a8"},
    },
    {
        "selector": "node.aggregation_scope",
        "style": {
            "shape": "round-rectangle",
            "background-color": "#fde9a1",
            "border-color": "#d9a520",
        },
    },
    {
        "selector": "node.dynamic",
        "style": {"background-color": "#17a05d", "border-color": "#0b6b3c", "color": "#ffffff"},
    },
    {
        "selector": "node.expanded",
        "style": {
            "background-opacity": 0.18,
            "border-width": 1.5,
            "text-valign": "top",
            "text-halign": "center",
            "text-margin-y": -3,
            "font-size": 12,
            "font-weight": "bold",
            "padding": "18px",
        },
    },
    {"selector": "node:selected", "style": {"overlay-opacity": 0}},
    {
        "selector": "edge",
        "style": {
            "width": 1.2,
            "curve-style": "bezier",
            "target-arrow-shape": "triangle",
            "arrow-scale": 0.8,
            "line-color": "#9aa0a8",
            "target-arrow-color": "#9aa0a8",
            "label": "data(label)",
            "font-size": 10,
            "color": "#6b7280",
            "text-background-color": "#ffffff",
            "text-background-opacity": 0.8,
            "text-rotation": "autorotate",
            "min-zoomed-font-size": 5,
        },
    },
    {"selector": "edge.control", "style": {"line-style": "dashed"}},
    # An edge follows the route ELK gave it around the nodes (assets/graph-layout.js).
    {
        "selector": "edge.routed",
        "style": {
            "curve-style": "segments",
            "edge-distances": "node-position",
            "segment-weights": "data(weights)",
            "segment-distances": "data(distances)",
            "text-rotation": "none",
        },
    },
    # Its label where ELK made room for it, clear of nodes and other labels.
    {
        "selector": "edge.placed",
        "style": {"text-margin-x": "data(lx)", "text-margin-y": "data(ly)"},
    },
]

#: What the dark theme changes on a canvas (the page's ``theme`` store): the canvas itself
#: takes the panel's colour (assets/graph-pages.css); texts drawn on it (scope titles,
#: constants' names, edge labels) get light colours and edges a lighter grey. Node fills and
#: the dark text inside them stay: they read on both.
DARK_CANVAS_RULES: list[dict[str, Any]] = [
    {
        "selector": "edge",
        "style": {
            "line-color": "#7d8590",
            "target-arrow-color": "#7d8590",
            "color": "#c9ced6",
            "text-background-color": "#20232a",
        },
    },
    {"selector": "node.expanded, node.box, node.const", "style": {"color": "#e6e8eb"}},
    {"selector": "node.expanded, node.box", "style": {"background-opacity": 0.12}},
]


def themed(rules: list[dict[str, Any]], theme: str | None) -> list[dict[str, Any]]:
    """``rules`` with :data:`DARK_CANVAS_RULES` after them in the dark theme."""
    return [*rules, *DARK_CANVAS_RULES] if theme == "dark" else list(rules)


#: The selected node (MindInsight's highlight: a red outline) and its edges (drawn in the
#: accent colour): classes ``assets/graph-pages.js`` markSelection gives them from the URL's
#: node, so that a selection restyles those elements only (a new stylesheet restyles all of
#: them: seconds in the 1,500-node view).
SELECTION_RULES: list[dict[str, Any]] = [
    {"selector": "node.di-selected", "style": {"border-color": "#e02020", "border-width": 3}},
    {
        "selector": "edge.di-selected",
        "style": {"line-color": "#e02020", "target-arrow-color": "#e02020", "width": 2},
    },
]


def graph_stylesheet(theme: str | None = None) -> list[dict[str, Any]]:
    """The base styles (:func:`themed`), then the selection's (:data:`SELECTION_RULES`)."""
    return [*themed(GRAPH_STYLESHEET, theme), *SELECTION_RULES]


def _data_kind(kind: str) -> dict[str, Any]:
    """The ``data-kind`` attribute of a legend entry (its node kind, for scripts and tests)."""
    return {"data-kind": kind}


def legend(entries: tuple[tuple[str, str | LazyString, str], ...], element_id: str) -> html.Details:
    """A collapsible legend (MindInsight's "Legend" box)."""
    return html.Details(
        open=True,
        id=element_id,
        className="gp-legend",
        children=[
            html.Summary(_("Legend")),
            html.Div(
                className="gp-legend-grid",
                children=[
                    html.Div(
                        [html.Span(className=f"gp-swatch {css}"), html.Span(str(label))],
                        className="gp-legend-item",
                        title=str(label),
                        **_data_kind(kind),
                    )
                    for kind, label, css in entries
                ],
            ),
        ],
    )


# -- data graph --------------------------------------------------------------------------------


def pipeline_elements(pipeline: Pipeline) -> list[dict[str, Any]]:
    """Nodes (a Map is a box around its operators) and edges of a dataset pipeline."""
    elements: list[dict[str, Any]] = []
    boxes = {n.parent for n in pipeline.nodes if n.parent is not None}
    for node in pipeline.nodes:
        data: dict[str, Any] = {
            "id": node.id,
            "label": node.label,
            "kind": node.kind,
            "w": round(node.width, 1),
            "h": round(node.height, 1),
        }
        if node.parent is not None:
            data["parent"] = node.parent
        classes = node.kind + (" box" if node.id in boxes else "")
        elements.append({"data": data, "classes": classes})
    for source, target in pipeline.edges:
        elements.append({"data": {"id": f"{source}->{target}", "source": source, "target": target}})
    return elements


DATA_STYLESHEET: list[dict[str, Any]] = [
    {
        "selector": "node",
        "style": {
            "label": "data(label)",
            "width": "data(w)",
            "height": "data(h)",
            "shape": "rectangle",
            "text-valign": "center",
            "text-halign": "center",
            "font-size": 14,
            "border-width": 1.5,
            "color": "#1f2329",
        },
    },
    {
        "selector": "node.create",
        "style": {"background-color": "#b9dcf7", "border-color": "#4f9bd9"},
    },
    {"selector": "node.map", "style": {"background-color": "#8fe9ec", "border-color": "#23a3a8"}},
    {
        "selector": "node.box",
        "style": {"text-valign": "top", "text-margin-y": -4, "font-size": 18, "padding": "14px"},
    },
    {
        "selector": "node.operator",
        "style": {"shape": "ellipse", "background-color": "#b9dcf7", "border-color": "#4f9bd9"},
    },
    {
        "selector": "node.shuffle",
        "style": {"background-color": "#fdd1a8", "border-color": "#e07b1a"},
    },
    {"selector": "node.batch", "style": {"background-color": "#fdb9b9", "border-color": "#d94848"}},
    {
        "selector": "node.repeat",
        "style": {"background-color": "#fde9a1", "border-color": "#d9a520"},
    },
    {"selector": "node.other", "style": {"background-color": "#e4e7ec", "border-color": "#8d96a3"}},
    {
        "selector": "edge",
        "style": {
            "width": 1.5,
            "curve-style": "bezier",
            "target-arrow-shape": "triangle",
            "line-color": "#a0a0a0",
            "target-arrow-color": "#a0a0a0",
        },
    },
]


def data_stylesheet(selected: str | None, theme: str | None = None) -> list[dict[str, Any]]:
    rules = themed(DATA_STYLESHEET, theme)
    if selected:
        rules.append(
            {
                "selector": f"node[id = {_quoted(selected)}]",
                "style": {"border-color": "#e02020", "border-width": 3},
            }
        )
    return rules


def png_request(filename: str, image_options: dict[str, Any]) -> dict[str, Any]:
    """dash-cytoscape's ``generateImage`` value that downloads the graph as ``filename``.png
    (``image_options`` go to cytoscape's ``cy.png``: ``full``, ``bg``, ``scale``, ...)."""
    return {"type": "png", "action": "download", "filename": filename, "options": image_options}


def canvas_buttons(
    prefix: str, filename: str, image_options: dict[str, Any], download_title: str | None = None
) -> list[Any]:
    """The "Full screen", "Download PNG" and "Download SVG" buttons of a graph page's toolbar
    (``{prefix}-fullscreen``, ``{prefix}-download``, ``{prefix}-download-svg``), with the image
    request the PNG download sends (store ``{prefix}-png-request``; the SVG file takes its
    name); :func:`register_canvas_tools` makes them work."""
    return [
        html.Button(_("Full screen"), id=f"{prefix}-fullscreen", className="di-button secondary"),
        html.Button(
            _("Download PNG"),
            id=f"{prefix}-download",
            className="di-button secondary",
            title=download_title,
        ),
        html.Button(
            _("Download SVG"),
            id=f"{prefix}-download-svg",
            className="di-button secondary",
            title=_("Save the drawn graph as a vector image"),
        ),
        dcc.Store(id=f"{prefix}-png-request", data=png_request(filename, image_options)),
    ]


def register_canvas_tools(app: Any, prefix: str) -> None:
    """Browser-side "full screen" and "download as PNG / SVG" (``assets/graph-pages.js``) of the
    :func:`canvas_buttons` with this ``prefix``: they act on ``{prefix}-canvas-wrap`` and the
    cytoscape ``{prefix}-cy``."""
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "downloadSvg"),
        Output(f"{prefix}-download-svg", "title"),
        Input(f"{prefix}-download-svg", "n_clicks"),
        State(f"{prefix}-png-request", "data"),
        State(f"{prefix}-cy", "id"),
        State(f"{prefix}-canvas-wrap", "id"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "downloadPng"),
        Output(f"{prefix}-cy", "generateImage"),
        Input(f"{prefix}-download", "n_clicks"),
        State(f"{prefix}-png-request", "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "toggleFullScreen"),
        Output(f"{prefix}-fullscreen", "title"),
        Input(f"{prefix}-fullscreen", "n_clicks"),
        State(f"{prefix}-canvas-wrap", "id"),
        prevent_initial_call=True,
    )
