"""Computational graph of one job (MindInsight's "Computational Graph" page).

URL: ``/graph?train_id=./job&tag=<graph file>&mode=normal|optimize&expanded=A,A/B&node=<name>``.
The top level is drawn first; a scope opens in place on double click (or with the "Expand"
button of the node information panel, or its arrow in the scope tree) and only the open levels
are drawn (:mod:`dash_insight.plugins.graphs.figures`), laid out top-down by ELK in the browser
(``assets/graph-layout.js``). The search box
lists matching nodes; choosing one (or an input/output of the selected node) opens its scopes
and centres it. "Readable" is MindInsight's optimized graph: gradient and optimizer logic
removed, Load/TupleGetItem/MakeTuple/UpdateState spliced out. The overview shows the whole
view with the visible area marked (click it to move there); fit, full screen and PNG download
sit above the graph.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import dash
import dash_cytoscape as cyto
from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.vocabulary import (
    GRAPH_MODES,
    OPTIMIZED_SUFFIX,
    GraphMode,
    ordered_graph_tags,
)
from dash_insight.plugins.graphs.figures import GraphView, base_name, build_view, kind_of
from dash_insight.plugins.graphs.figures_cytoscape import (
    CLIENTSIDE_NAMESPACE,
    ELK_CLASS,
    GRAPH_LEGEND,
    canvas_buttons,
    element_patch,
    graph_elements,
    graph_stylesheet,
    legend,
    register_canvas_tools,
)
from dash_insight.plugins.graphs.query_graph import GraphModel
from dash_insight.plugins.graphs.query_nodes import GraphBuildError, Node
from dash_insight.plugins.graphs.service import GraphService
from dash_insight.web.binding import preset, triggered
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.components.page_head import job_page_head
from dash_insight.web.theme import request_theme
from dash_insight.web.url_state import Names, Text, TypedUrlState, make_search, parse_search

PATH = "/graph"
#: Prefix of the canvas ids (``graph-cy``, ``graph-canvas-wrap``, its buttons).
CANVAS = "graph"
#: cytoscape ``png()`` options of "Download PNG": the whole graph, white, twice the pixels,
#: at most 8000 px a side (browsers fail on larger canvases).
PNG_OPTIONS = {"full": True, "bg": "#ffffff", "scale": 2, "maxWidth": 8000, "maxHeight": 8000}
#: At most this many scopes are read from ``expanded`` (longer lists are cut).
MAX_EXPANDED_PARAM = 500
#: Search results listed (MindInsight pages them by 100 in its tree).
MAX_SEARCH_RESULTS = 200
#: Inputs/outputs listed in the node information panel.
MAX_EDGES_LISTED = 200


#: The longest job id, graph file name or node name read from the URL (longer ones are cut).
MAX_NAME_CHARS = 4096
#: The longest mode read from the URL (a mode it does not know is quoted in a notice).
MAX_MODE_CHARS = 64


@dataclass(frozen=True)
class GraphUrl:
    """What the URL says (:data:`URL_STATE`), each value bounded and not yet checked against
    the graph modes (:func:`parse_state` does, and reports): ``""`` is no tag, no node;
    ``expanded`` keeps one scope more than :data:`MAX_EXPANDED_PARAM`, so that
    :func:`parse_state` tells a list that was cut."""

    train_id: str = ""
    tag: str = ""
    mode: str = GraphMode.NORMAL.value
    expanded: tuple[str, ...] = ()
    node: str = ""


#: :class:`GraphUrl` in the URL, each attribute under its own name, in the order the page has
#: always written them (``?train_id&tag&mode&expanded&node``, normal mode left out).
URL_STATE: TypedUrlState[GraphUrl] = TypedUrlState(
    GraphUrl,
    train_id=Text("train_id", max_chars=MAX_NAME_CHARS),
    tag=Text("tag", max_chars=MAX_NAME_CHARS),
    mode=Text("mode", GraphMode.NORMAL.value, max_chars=MAX_MODE_CHARS),
    expanded=Names("expanded", limit=MAX_EXPANDED_PARAM + 1),
    node=Text("node", max_chars=MAX_NAME_CHARS),
)


@dataclass(frozen=True)
class GraphState:
    """The page state (:func:`parse_state`): the URL's, repaired, with what was wrong in it.
    ``tag`` None: the job's first graph file; ``node`` None: no selection."""

    train_id: str
    tag: str | None
    mode: str
    expanded: list[str]
    node: str | None
    problems: tuple[str, ...] = ()

    def url(self) -> GraphUrl:
        return GraphUrl(
            self.train_id, self.tag or "", self.mode, tuple(self.expanded), self.node or ""
        )

    def search(self, **changes: Any) -> str:
        """The query string of this state with ``changes`` (attribute -> value: a list of
        scopes for ``expanded``, None for no tag or node); defaults and empty values left
        out."""
        return make_search(URL_STATE.params(dataclasses.replace(self, **changes).url()))


def _mode_problem(mode: str) -> str:
    return _(
        "Unknown mode {mode!r} in the address: showing the normal graph "
        "(mode is 'normal' or 'optimize')."
    ).format(mode=mode)


def parse_state(params: Mapping[str, str]) -> GraphState:
    """The state of ``?train_id&tag&mode&expanded&node`` (:data:`URL_STATE`, every value
    bounded): an unknown mode falls back to ``normal`` (reported); a tag ending in
    `` (optimized)`` (MindInsight's optimized tag) means that file in readable mode; at most
    :data:`MAX_EXPANDED_PARAM` open scopes (more: reported and cut), each at most
    :data:`MAX_NAME_CHARS` long."""
    url = URL_STATE.parse(params)
    problems = []
    mode = url.mode
    if mode not in GRAPH_MODES:
        problems.append(_mode_problem(mode))
        mode = GraphMode.NORMAL.value
    tag = url.tag or None
    if tag and tag.endswith(OPTIMIZED_SUFFIX):
        tag, mode = tag[: -len(OPTIMIZED_SUFFIX)], GraphMode.OPTIMIZE.value
    expanded = [scope[:MAX_NAME_CHARS] for scope in url.expanded]
    if len(expanded) > MAX_EXPANDED_PARAM:
        problems.append(
            _("Only the first {count} open scopes of the address are used.").format(
                count=MAX_EXPANDED_PARAM
            )
        )
        expanded = expanded[:MAX_EXPANDED_PARAM]
    return GraphState(url.train_id, tag, mode, expanded, url.node or None, tuple(problems))


def toggle_scope(model: GraphModel, expanded: list[str], scope: str) -> list[str]:
    """Open ``scope`` (and its ancestors) if closed; close it and everything open inside it if
    open. Unknown names and leaves change nothing."""
    node = model.nodes.get(scope)
    if node is None or not node.is_scope:
        return expanded
    if scope in expanded:
        prefix = scope + "/"
        return [s for s in expanded if s != scope and not s.startswith(prefix)]
    return _with(expanded, [*model.ancestors(scope), scope])


def reveal(model: GraphModel, expanded: list[str], name: str) -> list[str]:
    """``expanded`` plus every scope around ``name`` (so that it is drawn)."""
    return _with(expanded, model.ancestors(name)) if name in model.nodes else expanded


def _with(expanded: list[str], scopes: list[str]) -> list[str]:
    result = list(expanded)
    for scope in scopes:
        if scope not in result:
            result.append(scope)
    return result


def resolve_tag(provider: DataProvider, state: GraphState) -> tuple[str | None, list[str]]:
    """(tag to show, the job's graph tags): the requested one, or MindInsight's first."""
    tags = ordered_graph_tags(provider.graph_tags(state.train_id))
    if state.tag is None:
        return (tags[0] if tags else None), tags
    return (state.tag if state.tag in tags else None), tags


class LoadedGraph(NamedTuple):
    """What :func:`load_model` found: the model (None when there is none to show, ``message``
    says why), the tag shown and the job's graph tags."""

    model: GraphModel | None
    tag: str
    tags: list[str]
    message: str | None


def load_model(service: GraphService, state: GraphState) -> LoadedGraph:
    """The model of the state's graph, or why there is none."""
    try:
        tag, tags = resolve_tag(service.provider, state)
    except DataError as error:
        return LoadedGraph(None, "", [], localize_reason(str(error)))
    if not tags:
        return LoadedGraph(
            None,
            "",
            tags,
            _(
                "This job has no computational graph. SummaryCollector records it in GRAPH_MODE "
                "({collect}); a MindSpore .pb graph file in the job folder is shown too."
            ).format(collect="collect_specified_data={'collect_graph': True}"),
        )
    if tag is None:
        return LoadedGraph(
            None,
            "",
            tags,
            _("This job has no graph {tag!r}. Its graphs: {tags}.").format(
                tag=state.tag, tags=", ".join(tags)
            ),
        )
    try:
        model = service.model(state.train_id, tag, state.mode, extended_types=True)
    except (DataError, GraphBuildError) as error:
        return LoadedGraph(
            None,
            tag,
            tags,
            _("The graph {tag!r} cannot be shown: {error}").format(tag=tag, error=error),
        )
    if model.is_empty:
        return LoadedGraph(
            None,
            tag,
            tags,
            _(
                "The readable graph has no node left: everything in it is gradient or optimizer "
                "logic. Switch readable mode off."
            ),
        )
    return LoadedGraph(model, tag, tags, None)


# -- panels --------------------------------------------------------------------------------------


def _shape_text(attr: dict[str, Any]) -> str:
    shapes = attr.get("shape") or []
    text = "; ".join("×".join(str(d) for d in dims) if dims else _("scalar") for dims in shapes)
    return " ".join(part for part in (attr.get("data_type") or "", text) if part)


def _edge_list(title: str, edges: dict[str, dict[str, Any]], element_id: str) -> html.Div:
    items = []
    for name, attr in list(edges.items())[:MAX_EDGES_LISTED]:
        items.append(
            html.Li(
                [
                    html.Button(
                        name,
                        id={"type": "graph-locate", "name": name},
                        className="di-link-button gp-edge-name",
                        title=_("Show {name}").format(name=name),
                    ),
                    html.Div(
                        _shape_text(attr)
                        + (" " + _("(control)") if attr.get("edge_type") == "control" else ""),
                        className="gp-edge-type",
                    ),
                ]
            )
        )
    more = len(edges) - len(items)
    return html.Div(
        id=element_id,
        className="gp-edges",
        children=[
            html.Div(f"{title} ({len(edges)})", className="gp-info-label"),
            html.Ul(items) if items else html.Div(_("none"), className="di-muted"),
            html.Div(_("... and {count} more").format(count=more), className="di-muted")
            if more > 0
            else None,
        ],
    )


def node_info(model: GraphModel, name: str | None, expanded: list[str]) -> Any:
    """The "Node Information" panel of ``name``: its table, the scope's open/close button,
    its attributes, its inputs and outputs."""
    if not name:
        return html.Div(
            _("Click a node to see its details; double-click a scope to open it."),
            className="di-muted gp-info-empty",
        )
    node = model.nodes.get(name)
    if node is None:
        return html.Div(
            _("No node {name!r} in this graph.").format(name=name), className="di-error-text"
        )
    children: list[Any] = [_info_table(_info_rows(node))]
    if node.is_scope:
        children.append(_scope_button(name, name in expanded))
    attributes = node.attributes()
    if attributes:
        children.append(_attribute_details(attributes))
    children.append(_edge_list(_("Inputs"), node.inputs, "graph-info-inputs"))
    children.append(_edge_list(_("Outputs"), node.outputs, "graph-info-outputs"))
    return children


def _info_rows(node: Node) -> list[tuple[str, Any]]:
    """(label, value) of the panel's table: name and type, then what the node has of full
    name, subnode count, output type and shape, dynamic shape."""
    rows: list[tuple[str, Any]] = [
        (_("Name"), html.Span(node.name, id="graph-info-name", className="gp-info-name")),
        (_("Type"), node.type),
    ]
    if node.full_name and node.full_name != node.name:
        rows.append((_("Full name"), node.full_name))
    if node.is_scope:
        rows.append((_("Subnodes"), str(node.subnode_count)))
    if node.output_data_type:
        output = {"shape": node.output_shape, "data_type": node.output_data_type}
        rows.append((_("Output"), _shape_text(output)))
    if node.is_dynamic_shape_node:
        rows.append((_("Shape"), _("dynamic")))
    return rows


def _info_table(rows: list[tuple[str, Any]]) -> html.Table:
    return html.Table(
        className="gp-info-table",
        children=[html.Tbody([html.Tr([html.Th(label), html.Td(value)]) for label, value in rows])],
    )


def _scope_button(name: str, is_open: bool) -> html.Button:
    """The panel's button opening or closing scope ``name``."""
    return html.Button(
        "− " + _("Collapse") if is_open else "+ " + _("Expand"),
        id={"type": "graph-toggle", "name": name},
        className="di-button secondary gp-toggle-button",
        title=_("Open or close this scope in the graph"),
    )


def _attribute_details(attributes: dict[str, str]) -> html.Details:
    """A node's attributes, folded when there are more than six."""
    rows = [
        html.Tr([html.Th(key), html.Td(html.Pre(value.strip()))])
        for key, value in attributes.items()
    ]
    return html.Details(
        open=len(attributes) <= 6,
        className="gp-attrs",
        children=[
            html.Summary(_("Attributes ({count})").format(count=len(attributes))),
            html.Table(className="gp-info-table", children=[html.Tbody(rows)]),
        ],
    )


def _shortest_unique(parts: list[str], others: list[list[str]]) -> tuple[int, int]:
    """(head, tail): the fewest first and last segments of ``parts`` (the last one always, the
    last ones preferred) that no path of ``others`` begins and ends with too."""
    for total in range(1, len(parts)):
        for head in range(total):
            tail = total - head
            if not any(
                other[:head] == parts[:head]
                and len(other) >= total
                and other[-tail:] == parts[-tail:]
                for other in others
            ):
                return head, tail
    return len(parts), 0


def distinguishing_parts(scopes: list[str]) -> dict[str, str]:
    """What tells each scope path from the others: the fewest of its first and last segments
    that no other scope begins and ends with (its last one always, the last ones preferred),
    ``…`` for the segments left out; the top level is ``""``."""
    split = {scope: scope.split("/") if scope else [] for scope in scopes}
    shown = {}
    for scope, parts in split.items():
        head, tail = _shortest_unique(parts, [p for s, p in split.items() if s != scope])
        if head + tail >= len(parts):
            shown[scope] = scope
        else:
            shown[scope] = "/".join([*parts[:head], "…", *parts[-tail:]])
    return shown


def search_results(model: GraphModel, text: str | None) -> Any:
    """Nodes whose last name segment contains ``text`` (MindInsight's node search), grouped by
    scope; each group is named by what tells its scope from the others
    (:func:`distinguishing_parts`, the whole path in its tooltip)."""
    if not text or not text.strip():
        return None
    matches = model.search(text.strip())
    if not matches:
        return html.Div(
            _("No node matches {text!r}.").format(text=text.strip()),
            className="di-muted gp-no-match",
        )
    groups: dict[str, list[Any]] = {}
    for node in matches[:MAX_SEARCH_RESULTS]:
        groups.setdefault(node.name.rpartition("/")[0], []).append(node)
    shown = distinguishing_parts(list(groups))
    items = []
    for scope, nodes in groups.items():
        rows = [
            html.Li(
                html.Button(
                    [
                        html.Span(className=f"gp-swatch gp-sw-{kind_of(node)}"),
                        html.B(base_name(node.name)),
                    ],
                    id={"type": "graph-locate", "name": node.name},
                    className="gp-result",
                    title=node.name,
                )
            )
            for node in nodes
        ]
        items.append(
            html.Li(
                [
                    html.Div(
                        [
                            html.Span(shown[scope] or _("top level"), className="gp-group-scope"),
                            html.Span(str(len(nodes)), className="gp-group-count"),
                        ],
                        className="gp-result-group",
                        title=scope or _("top level"),
                    ),
                    html.Ul(rows),
                ]
            )
        )
    more = len(matches) - MAX_SEARCH_RESULTS
    return [
        html.Div(
            ngettext("{count} node", "{count} nodes", len(matches)).format(count=len(matches))
            + " · "
            + ngettext("{count} scope", "{count} scopes", len(groups)).format(count=len(groups)),
            className="di-muted gp-result-count",
        ),
        html.Ul(items, className="gp-results"),
        html.Div(_("... {count} more: refine the search").format(count=more), className="di-muted")
        if more > 0
        else None,
    ]


def controls(tag: str, tags: list[str], mode: str) -> list[Any]:
    """Readable-mode switch and graph file selector (rebuilt from the URL)."""
    items: list[Any] = [
        dcc.Checklist(
            id="graph-mode",
            options=[
                {"label": " " + _("Readable (optimized graph)"), "value": GraphMode.OPTIMIZE.value}
            ],
            value=[GraphMode.OPTIMIZE.value] if mode == GraphMode.OPTIMIZE else [],
            className="di-inline",
            inputClassName="di-checkbox",
        )
    ]
    if len(tags) > 1:
        items.append(
            SelectInput(
                id="graph-tag",
                options=[{"label": t, "value": t} for t in tags],
                value=tag,
                className="gp-tag-select",
            )
        )
    elif tag:
        items.append(html.Span(tag, className="di-muted gp-tag-name", title=_("Graph file")))
    return items


# -- page ----------------------------------------------------------------------------------------


def guide() -> html.Div:
    """The first-visit guide over the graph (MindInsight's user guide): the gestures and what
    the drawing says. ``assets/graph-pages.js`` shows it until it is closed once (remembered in
    the browser's localStorage); the toolbar's "?" shows it again."""
    return html.Div(
        id="graph-guide",
        className="di-panel gp-guide",
        hidden=True,
        children=[
            html.Div(_("How to read the graph"), className="gp-box-title"),
            html.Ul(
                [
                    html.Li(
                        _("Double-click a scope (a box) to open it in place, again to close it.")
                    ),
                    html.Li(_("Click a node for its information; its edges turn red.")),
                    html.Li(
                        _("Scroll to zoom, drag to move; the overview shows the part in view.")
                    ),
                    html.Li(
                        _(
                            "Edges say the type and shape of the tensor they carry, or how many "
                            "tensors they bundle."
                        )
                    ),
                    html.Li(
                        _(
                            "Search finds nodes by name, grouped by scope. In the scope tree, "
                            "↑ ↓ move, → opens, ← closes, Enter shows the node."
                        )
                    ),
                    html.Li(_("The legend on the right names the colours of the node kinds.")),
                ]
            ),
            html.Button(_("Got it"), id="graph-guide-close", className="di-button"),
        ],
    )


def toolbar() -> html.Div:
    """Above the graph: the mode and file controls, then its buttons."""
    return html.Div(
        className="di-toolbar gp-toolbar",
        children=[
            html.Div(id="graph-controls", className="gp-controls"),
            html.Div(className="di-spacer"),
            html.Button(
                _("Collapse all"),
                id="graph-collapse-all",
                className="di-button secondary",
                title=_("Close every scope"),
            ),
            html.Button(
                "?",
                id="graph-guide-open",
                className="di-button secondary",
                title=_("How to read the graph"),
            ),
            html.Button(
                _("Fit"),
                id="graph-fit",
                className="di-button secondary",
                title=_("Fit the graph to the window"),
            ),
            *canvas_buttons(
                CANVAS,
                "computational-graph",
                PNG_OPTIONS,
                _("Save the whole drawn graph as an image"),
            ),
        ],
    )


def layout(app: dash.Dash, service: GraphService, params: dict[str, str]) -> html.Div:
    """The page, drawn: its frame (:func:`frame`) with what the render and search callbacks
    answer for the URL (no round trip before the first screen; the browser lays the elements
    out and draws them, ``assets/graph-pages.js`` applyPatch)."""
    search = make_search(params)
    page = frame(app, params)
    preset(page, _RENDER_OUTPUTS, render(service, search, None, None, request_theme(), None))
    preset(page, _SEARCH_OUTPUTS, (search_nodes(service, None, search),))
    return page


def frame(app: dash.Dash, params: dict[str, str]) -> html.Div:
    """The page's frame: the job's head, the canvas with its toolbar, and the side column
    (search and scope tree, overview, node information, legend)."""
    train_id = URL_STATE.parse(params).train_id
    return html.Div(
        className="gp-page",
        children=[
            job_page_head(app, _("Computational Graph"), train_id),
            dcc.Store(id="graph-shown"),
            dcc.Store(id="graph-focus"),
            dcc.Store(id="graph-dbltap"),
            dcc.Store(id="graph-patch"),
            dcc.Store(id="graph-tree-pick"),
            html.Div(className="gp-layout", children=[main_panel(), side_panel()]),
        ],
    )


def main_panel() -> html.Section:
    """The toolbar, the notices and the canvas (with the guide over it)."""
    return html.Section(
        className="di-panel gp-main",
        children=[
            toolbar(),
            html.Div(id="graph-notice", className="gp-notice"),
            html.Div(
                id="graph-canvas-wrap",
                className="gp-canvas-wrap",
                children=[
                    guide(),
                    cyto.Cytoscape(
                        id="graph-cy",
                        elements=[],
                        layout={"name": "preset", "fit": False},
                        # ELK places the elements (assets/graph-layout.js): dash-cytoscape's
                        # own layout run after each change wrote every node's position again,
                        # which re-measured the whole graph (the 1,500-node view).
                        autoRefreshLayout=False,
                        stylesheet=graph_stylesheet(),
                        minZoom=0.05,
                        maxZoom=4,
                        boxSelectionEnabled=False,
                        autoungrabify=True,
                        className=f"gp-cy {ELK_CLASS}",
                        style={"width": "100%", "height": "100%"},
                    ),
                ],
            ),
        ],
    )


def side_panel() -> html.Aside:
    """The column beside the graph: search and scope tree, overview, node information,
    legend."""
    return html.Aside(
        className="gp-side",
        children=[
            search_box(),
            overview_box(),
            html.Div(
                className="di-panel gp-box gp-info-box",
                children=[
                    html.Div(_("Node Information"), className="gp-box-title"),
                    html.Div(id="graph-info", className="gp-info"),
                ],
            ),
            html.Div(className="di-panel gp-box", children=legend(GRAPH_LEGEND, "graph-legend")),
        ],
    )


def tree_words() -> dict[str, Any]:
    """The words of the scope tree's arrows, as attributes of its element: the tree is drawn
    in the browser from the canvas (``assets/graph-pages.js`` drawTree)."""
    return {"data-open": _("Open"), "data-close": _("Close")}


def search_box() -> html.Div:
    """The node search, its results and the scope tree."""
    return html.Div(
        className="di-panel gp-box gp-search-box",
        children=[
            dcc.Input(
                id="graph-search",
                type="search",
                debounce=0.3,
                placeholder=_("Search node name"),
                className="di-input gp-search",
            ),
            html.Div(id="graph-search-results"),
            html.Div(
                id="graph-tree",
                className="gp-tree-wrap",
                title=_("Keys: ↑ ↓ move, → opens, ← closes, Enter shows the node"),
                **tree_words(),
            ),
        ],
    )


def overview_box() -> html.Div:
    """The whole view in small, with the visible area marked (``graph-overview-box``): a
    picture of the canvas that ``assets/graph-pages.js`` draws from its elements."""
    return html.Div(
        className="di-panel gp-box",
        children=[
            html.Div(_("Overview"), className="gp-box-title"),
            html.Div(
                id="graph-overview-wrap",
                className="gp-overview",
                children=[
                    html.Canvas(id="graph-overview", className="gp-overview-picture"),
                    html.Div(id="graph-overview-box", className="gp-overview-box"),
                ],
            ),
        ],
    )


#: How many outputs the render callback has (:func:`render_page`).
RENDER_OUTPUTS = 8


class Drawn(NamedTuple):
    """What the browser has (the ``graph-shown`` store) and what the controls now are: the
    key of the controls (file, mode, files) and their components, ``dash.no_update`` when the
    key is the one drawn."""

    shown: dict[str, Any]
    controls_key: list[Any]
    controls: Any
    theme: str | None


def render_page(
    state: GraphState,
    loaded: LoadedGraph,
    version: int | None,
    shown: dict[str, Any] | None,
    theme: str | None = None,
) -> tuple[Any, ...]:
    """The 8 outputs of the page's render callback (what changed in the elements, stylesheet,
    node panel, controls, notices, what is shown, focus request, canvas class) for ``state``
    and its ``loaded`` graph (``version``: the job's, so new data redraws).

    ``shown`` is what the browser has (the ``graph-shown`` store): what did not change is
    ``dash.no_update``, so a refresh tick with nothing new costs nothing and the viewport stays
    where the user put it. ``theme`` (the shell's store) styles the canvas."""
    shown = shown or {}
    controls_key: list[Any] = [loaded.tag, state.mode, loaded.tags]
    new_controls = (
        dash.no_update
        if shown.get("controls") == controls_key
        else controls(loaded.tag, loaded.tags, state.mode)
    )
    drawn = Drawn(shown, controls_key, new_controls, theme)
    if loaded.model is None:
        return message_outputs(list(state.problems), loaded.message, drawn)
    return graph_outputs(state, loaded.model, loaded.tag, version, drawn)


def _notices(problems: list[str]) -> list[Any]:
    return [html.Div(problem, className="di-warning") for problem in problems]


def message_outputs(problems: list[str], message: str | None, drawn: Drawn) -> tuple[Any, ...]:
    """The render outputs without a graph: the canvas hidden, ``problems`` and ``message``
    (why there is no graph) said; nothing when the browser already says so."""
    signature: list[Any] = [None, message, drawn.controls_key, problems, drawn.theme]
    if drawn.shown.get("signature") == signature:
        return (dash.no_update,) * RENDER_OUTPUTS
    notices = _notices(problems)
    notices.append(html.Div(message, className="di-empty gp-message"))
    serial = (drawn.shown.get("drawn") or 0) + 1
    return (
        element_patch(None, [], drawn.shown.get("drawn") or 0, serial),
        graph_stylesheet(drawn.theme),
        None,
        drawn.controls,
        notices,
        {
            "controls": drawn.controls_key,
            "signature": signature,
            "drawn": serial,
            "theme": drawn.theme,
        },
        None,
        "gp-canvas-wrap gp-hidden",
    )


def graph_outputs(
    state: GraphState, model: GraphModel, tag: str, version: int | None, drawn: Drawn
) -> tuple[Any, ...]:
    """The render outputs of ``model``'s view with the state's scopes open: elements only when
    the view changed (job, file, mode, open scopes, data version), a focus request only when
    the view or the selection did, nothing at all when the browser shows just that."""
    view = build_view(model, state.expanded)
    problems = [*state.problems, *view.notices]
    selected = state.node if state.node in model.nodes else None
    if state.node and selected is None:
        problems.append(_("No node {name!r} in this graph.").format(name=state.node))
    view_key: list[Any] = [state.train_id, tag, state.mode, view.expanded, version]
    signature = [view_key, selected, drawn.controls_key, problems, drawn.theme]
    shown = drawn.shown
    if shown.get("signature") == signature:
        return (dash.no_update,) * RENDER_OUTPUTS
    patch: Any = dash.no_update
    drawn_serial = shown.get("drawn") or 0
    if shown.get("view") != view_key:
        before = previous_elements(model, shown.get("view"), view_key)
        patch = element_patch(before, graph_elements(view), drawn_serial, drawn_serial + 1)
        drawn_serial += 1
    focus = focus_request(shown, view_key, view, selected)
    if focus is not None:
        focus["drawn"] = drawn_serial  # shown once the browser draws that patch
    new_shown = {
        "view": view_key,
        "node": selected,
        "controls": drawn.controls_key,
        "signature": signature,
        "n": (shown.get("n") or 0) + 1,
        "drawn": drawn_serial,
        "theme": drawn.theme,
    }
    # A new stylesheet restyles every element of its canvas: sent only for another theme (the
    # layout's are the light theme's); the selection is marked in the browser.
    same_style = (shown.get("theme") == "dark") == (drawn.theme == "dark")
    return (
        patch,
        dash.no_update if same_style else graph_stylesheet(drawn.theme),
        node_info(model, selected, view.expanded),
        drawn.controls,
        _notices(problems),
        new_shown,
        _or_no_update(focus),
        "gp-canvas-wrap",
    )


def previous_elements(
    model: GraphModel, drawn: list[Any] | None, view_key: list[Any]
) -> list[dict[str, Any]] | None:
    """The elements the browser draws (the view of ``drawn``, the ``graph-shown`` store's view
    key), when it is a view of this model (same job, file, mode and data version as
    ``view_key``): the new view is sent as what changed since (:func:`element_patch`). None
    otherwise: everything is sent."""
    if not drawn or len(drawn) != len(view_key):
        return None
    if drawn[:3] != view_key[:3] or drawn[4] != view_key[4]:
        return None
    return graph_elements(build_view(model, drawn[3] or []))


def focus_request(
    shown: dict[str, Any], view_key: list[Any], view: GraphView, selected: str | None
) -> dict[str, Any] | None:
    """Where the browser should look after a redraw (``assets/graph-pages.js`` followFocus), or
    None to leave the viewport alone (same view, same selection).

    Another job, graph file or mode shows the whole graph (``fit``); otherwise the selected node
    when it is drawn, else the scope that was just opened (so a double click shows what it
    opened). ``n`` changes every time, so the same request twice still moves the view."""
    if shown.get("view") == view_key and shown.get("node") == selected:
        return None
    previous = shown.get("view") or [None] * 5
    fit = previous[:3] != view_key[:3]
    target = selected if selected and view.node(selected) else None
    if target is None and not fit:
        opened = [s for s in view.expanded if s not in (previous[3] or [])]
        target = opened[-1] if opened else None
    return {"fit": fit, "node": target, "n": (shown.get("n") or 0) + 1}


def select_search(state: GraphState, name: str | None) -> str | None:
    """The address after a click on node ``name``, or None when nothing changes."""
    return state.search(node=name) if name and name != state.node else None


def toggle_search(model: GraphModel | None, state: GraphState, scope: str | None) -> str | None:
    """The address after opening or closing ``scope`` (:func:`toggle_scope`, the scope becomes
    the selection), or None when nothing changes (no graph, a leaf, an unknown name)."""
    if model is None or not scope:
        return None
    expanded = toggle_scope(model, state.expanded, scope)
    if expanded == state.expanded:
        return None
    return state.search(expanded=expanded, node=scope)


def locate_search(model: GraphModel | None, state: GraphState, name: str | None) -> str | None:
    """The address that shows and selects node ``name`` (its scopes opened), or None when it
    is unknown or already shown and selected."""
    if model is None or not name or name not in model.nodes:
        return None
    expanded = reveal(model, state.expanded, name)
    if expanded == state.expanded and name == state.node:
        return None
    return state.search(expanded=expanded, node=name)


def mode_search(state: GraphState, readable: bool) -> str | None:
    """The address in readable (``optimize``) or normal mode, or None when already so."""
    mode = (GraphMode.OPTIMIZE if readable else GraphMode.NORMAL).value
    return None if mode == state.mode else state.search(mode=mode)


def tag_search(state: GraphState, tag: str | None, shown_tag: str | None) -> str | None:
    """The address showing graph file ``tag`` from its top level, or None when it is the file
    shown (``shown_tag``) or no file."""
    if not tag or tag == shown_tag:
        return None
    return state.search(tag=tag, expanded=[], node=None)


def _or_no_update(value: Any) -> Any:
    return dash.no_update if value is None else value


def _clicked_name(trigger: Any, clicked: bool) -> str | None:
    """The ``name`` of the pattern-matching button that fired the callback (``trigger``), when
    it was a click rather than the button being drawn."""
    if not clicked or not isinstance(trigger, dict):
        return None
    name = trigger.get("name")
    return name if isinstance(name, str) else None


def _current(search: str | None) -> GraphState:
    return parse_state(parse_search(search))


# -- callbacks (plain functions: register() only binds them) -------------------------------------


def render(
    service: GraphService,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    theme: str | None,
    shown: dict | None,
) -> Any:
    """The graph, overview, tree, node information and controls for the URL."""
    state = _current(search)
    loaded = load_model(service, state)
    version = None
    if loaded.model is not None:
        # the job may go away after its model was read: the next tick says so
        with contextlib.suppress(DataError):
            version = service.provider.job(state.train_id).version
    return render_page(state, loaded, version, shown, theme)


def select_node(data: dict | None, search: str | None) -> Any:
    """A tapped node becomes the URL's selection."""
    node = data.get("id") if isinstance(data, dict) else None
    return _or_no_update(select_search(_current(search), node))


def toggle(
    service: GraphService,
    trigger: Any,
    clicked: bool,
    dbltap: dict | None,
    _button: Any,
    search: str | None,
) -> Any:
    """Open or close a scope: double click or the tree's arrow (both write ``graph-dbltap``),
    or the panel's button."""
    if not clicked:
        return dash.no_update
    if trigger == "graph-dbltap":
        scope = dbltap.get("id") if isinstance(dbltap, dict) else None
    else:
        scope = _clicked_name(trigger, clicked)
    state = _current(search)
    return _or_no_update(toggle_search(load_model(service, state).model, state, scope))


def locate(
    service: GraphService,
    trigger: Any,
    clicked: bool,
    _located: Any,
    picked: dict | None,
    search: str | None,
) -> Any:
    """A search hit or a tree row (``graph-tree-pick``, written by the tree's script): open
    its scopes and select it."""
    if trigger == "graph-tree-pick":
        name = picked.get("id") if isinstance(picked, dict) and clicked else None
    else:
        name = _clicked_name(trigger, clicked)
    if name is None:
        return dash.no_update
    state = _current(search)
    return _or_no_update(locate_search(load_model(service, state).model, state, name))


def search_nodes(service: GraphService, text: str | None, search: str | None) -> Any:
    """The nodes whose names hold the search text."""
    model = load_model(service, _current(search)).model
    return search_results(model, text) if model is not None else None


def set_mode(value: list[str] | None, search: str | None) -> Any:
    """The "readable" (optimized) mode into the URL."""
    readable = isinstance(value, list) and GraphMode.OPTIMIZE in value
    return _or_no_update(mode_search(_current(search), readable))


def set_tag(service: GraphService, tag: str | None, search: str | None) -> Any:
    """The graph file chosen into the URL (the one shown by default stays out of it)."""
    state = _current(search)
    shown_tag = resolve_tag(service.provider, state)[0] if state.train_id else None
    return _or_no_update(tag_search(state, tag, shown_tag))


def collapse_all(clicks: int | None, search: str | None) -> Any:
    """Close every scope."""
    state = _current(search)
    return state.search(expanded=[]) if clicks and state.expanded else dash.no_update


#: What :func:`render` answers, in its order.
_RENDER_OUTPUTS = (
    Output("graph-patch", "data"),
    Output("graph-cy", "stylesheet"),
    Output("graph-info", "children"),
    Output("graph-controls", "children"),
    Output("graph-notice", "children"),
    Output("graph-shown", "data"),
    Output("graph-focus", "data"),
    Output("graph-canvas-wrap", "className"),
)
#: What :func:`search_nodes` answers.
_SEARCH_OUTPUTS = (Output("graph-search-results", "children"),)


def register(app: dash.Dash, service: GraphService) -> None:
    app.callback(
        *_RENDER_OUTPUTS,
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("theme", "data"),
        State("graph-shown", "data"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(render, service))
    _bind_url_writers(app, service)
    app.callback(
        *_SEARCH_OUTPUTS,
        Input("graph-search", "value"),
        Input("url", "search"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(search_nodes, service))
    register_canvas_tools(app, CANVAS)
    # The elements: what changed applied to the canvas in the browser (the overview is drawn
    # from it), the layout's first patch too.
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "applyPatch"),
        Output("graph-overview-wrap", "title"),
        Input("graph-patch", "data"),
        State("graph-cy", "id"),
        State("graph-shown", "id"),
    )
    # Viewport: fit / centre on request, the overview box, double taps, clicks on the overview.
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "followFocus"),
        Output("graph-overview-box", "title"),
        Input("graph-focus", "data"),
        Input("graph-fit", "n_clicks"),
        State("graph-cy", "id"),
        State("graph-overview", "id"),
        State("graph-overview-box", "id"),
        State("graph-dbltap", "id"),
    )


def _bind_url_writers(app: dash.Dash, service: GraphService) -> None:
    """The callbacks that write a user's choice into the URL."""
    url = Output("url", "search", allow_duplicate=True)
    search = State("url", "search")
    app.callback(url, Input("graph-cy", "tapNodeData"), search, prevent_initial_call=True)(
        select_node
    )
    app.callback(
        url,
        Input("graph-dbltap", "data"),
        Input({"type": "graph-toggle", "name": ALL}, "n_clicks"),
        search,
        prevent_initial_call=True,
    )(triggered(functools.partial(toggle, service), clicked=True))
    app.callback(
        url,
        Input({"type": "graph-locate", "name": ALL}, "n_clicks"),
        Input("graph-tree-pick", "data"),
        search,
        prevent_initial_call=True,
    )(triggered(functools.partial(locate, service), clicked=True))
    app.callback(url, Input("graph-mode", "value"), search, prevent_initial_call=True)(set_mode)
    app.callback(url, Input("graph-tag", "value"), search, prevent_initial_call=True)(
        functools.partial(set_tag, service)
    )
    app.callback(url, Input("graph-collapse-all", "n_clicks"), search, prevent_initial_call=True)(
        collapse_all
    )


__all__ = [
    "PATH",
    "GraphState",
    "LoadedGraph",
    "focus_request",
    "layout",
    "load_model",
    "locate_search",
    "mode_search",
    "parse_state",
    "register",
    "render_page",
    "reveal",
    "search_results",
    "select_search",
    "tag_search",
    "toggle_scope",
    "toggle_search",
]
