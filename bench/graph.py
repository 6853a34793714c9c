"""Computational graph: server time to open a 1,000- and a 5,000-node graph and to expand
scopes, and the layout time of each view.

Generates (in a temporary directory), for each size of ``--nodes`` (default 1,000 and 5,000), a
job whose summary file holds one ``GraphProto`` written with
``dash_insight.SummaryWriter.add_graph``: that many operators in leaf scopes of 25 operators
(``--per-scope``; 5,000 nodes = 200 scopes = ``Default/stage<i>/block<j>``, 10 stages of 20 blocks),
each block a chain of mixed operators (Conv2D, BiasAdd, ReLU, MatMul, Add, Mul, Cast,
Reshape...) with skip connections, two weights per block and a few constants; every block feeds
the next one. It is loaded with the real loader, then measured (server time only: what one
page update costs before the browser draws):

1. open: ``provider.read_graph`` (record decode) + MindInsight's graph model build + the
   layered layout of the top level + the cytoscape elements (JSON-encoded) - the model cache
   and the provider cache start empty;
2. expand ``Default`` (10 stages), then a stage (20 blocks), then a block (25 operators): layout
   of the new view and what the page sends of it (the model is cached): what changed since
   the view before (``answer``, JSON; every element when there is none before), each laid out
   after the one before (the page's scopes' cache, ``assets/graph-scopes.js``, holds its
   scopes: ELK lays out the opened scope and its ancestors);
3. every stage open at once (200 blocks drawn), and the largest view the page draws at once
   (an address with every block open): every block open until :data:`MAX_VISIBLE_NODES`
   nodes are drawn, every scope laid out; then that view but its last block, and the last
   block opened in it (one level opened in the largest view), and closed again (cached: no
   ELK call);
4. the same in readable mode (open).

Beside each server time: the layout of that view by the graph pages' engine (ELK layered,
``assets/graph-layout.js``, the same options) in Node.js (``bench/elk.py``; the V8 of Chromium
without its page), and the first layout of the run (JIT warm-up: what the first graph of a page
costs). Each figure is the median of ``--repeat`` runs (default 5); target: the server under
1 s, the layout under 1 s per scope opened or closed since the view before it (per open scope
for a view opened at once; MISSED beside a figure over it). Beside it, what ELK laid out: the
scopes (the top level counted) not in the scopes' cache.

Then the page in a browser, for each size beside MindInsight 2.3.1's graph page on the same job
(served as ``bench/vs_mindinsight.py`` serves it, from its venv in
``~/.cache/dash-insight/mindinsight-2.3.1``; when MindInsight is not installed there the bench
says so and times dash-insight alone): the seconds until the page is drawn (``pagetime.py`` of
``../shared/tools``, a fresh Chromium per load, ``--page-repeat`` alternating pairs), and for
the largest size the graph opened with every stage and the first three stages' blocks open
(the page's node limit): seconds until laid out and drawn, then every long task while it is
zoomed and dragged (``bench/graph_pan.py``; target: none over 100 ms). ``--no-page`` skips it.
The core count and load average are printed before each size and at the end.

    python bench/graph.py [--nodes 1000,5000] [--per-scope 25] [--repeat 5] [--page-repeat 1]
        [--no-page]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from elk import Laid, lay_out, node_binary, view_input  # bench/, beside this script
from machine import machine, recorded

from dash_insight import SummaryWriter
from dash_insight.core.format.protos import anf_ir_pb2
from dash_insight.core.provider import DataProvider
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader
from dash_insight.plugins.graphs.figures import build_view
from dash_insight.plugins.graphs.figures_cytoscape import element_patch, graph_elements
from dash_insight.plugins.graphs.service import GraphService

TARGET_S = 1.0
STAGES = 10
OP_TYPES = (
    "Conv2D",
    "BiasAdd",
    "ReLU",
    "MatMul",
    "Add",
    "Mul",
    "Cast",
    "Reshape",
    "BatchNorm",
    "Transpose",
)


def _tensor_type(target: anf_ir_pb2.TypeProto, dims: list[int]) -> None:
    target.data_type = anf_ir_pb2.DT_TENSOR
    target.tensor_type.elem_type = anf_ir_pb2.DT_FLOAT32
    for size in dims:
        target.tensor_type.shape.dim.add().size = size


def make_graph(nodes: int, scopes: int) -> anf_ir_pb2.GraphProto:
    """A GraphProto of ``nodes`` operators spread evenly over ``scopes`` blocks."""
    graph = anf_ir_pb2.GraphProto(name="bench_graph")
    per_block = nodes // scopes
    blocks_per_stage = max(1, scopes // STAGES)
    previous_output: str | None = None
    counter = 0
    for block in range(scopes):
        scope = f"Default/stage{block // blocks_per_stage}/block{block % blocks_per_stage}"
        weights = []
        for w in range(2):
            parameter = graph.parameters.add(
                name=f"stage{block // blocks_per_stage}.block{block % blocks_per_stage}.w{w}"
            )
            _tensor_type(parameter.type, [64, 64])
            weights.append(parameter.name)
        block_nodes: list[str] = []
        for i in range(per_block):
            counter += 1
            op_type = OP_TYPES[(i * 7 + block) % len(OP_TYPES)]
            node = graph.node.add(
                name=str(counter),
                op_type=op_type,
                scope=scope,
                full_name=f"{scope}/{op_type}-op{counter}",
            )
            source = block_nodes[-1] if block_nodes else previous_output
            if source is not None:
                node.input.add(name=source, type=anf_ir_pb2.InputProto.DATA_EDGE)
            if i % 6 == 3 and len(block_nodes) > 3:  # skip connection
                node.input.add(name=block_nodes[-4], type=anf_ir_pb2.InputProto.DATA_EDGE)
            if i % 12 == 0:
                node.input.add(name=weights[(i // 12) % 2], type=anf_ir_pb2.InputProto.DATA_EDGE)
            if i % 10 == 5:
                node.input.add(name="cst1", type=anf_ir_pb2.InputProto.DATA_EDGE)
            attribute = node.attribute.add(name="format")
            attribute.value.dtype = anf_ir_pb2.DT_STRING
            attribute.value.str_val = "NCHW"
            _tensor_type(node.output_type, [32, 64, 8, 8])
            block_nodes.append(node.name)
        previous_output = block_nodes[-1]
    const = graph.const_vals.add(key="cst1")
    const.value.dtype = anf_ir_pb2.DT_FLOAT32
    const.value.float_val = 1.0
    return graph


def write_job(base: str, graph: anf_ir_pb2.GraphProto) -> str:
    job = os.path.join(base, "job")
    os.makedirs(job)
    with SummaryWriter(job) as writer:
        writer.add_graph(graph)
        writer.add_scalar("loss", 1.0, step=1)
        writer.record(1)
    return "./job"


def timed(
    action: Callable[[], object], repeat: int, reset: Callable[[], None] | None = None
) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        if reset is not None:
            reset()
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def view_cost(
    graphs: GraphService,
    train_id: str,
    tag: str,
    mode: str,
    expanded: list[str],
    before: list[str] | None,
) -> tuple[int, int, int]:
    """Model (cached or built) + view + what the page sends for it, JSON-encoded: every element,
    or what changed since the view of the open scopes ``before`` (the page's
    ``element_patch``, that view built again as the page does): (drawn nodes, edges, JSON
    bytes)."""
    model = graphs.model(train_id, tag, mode, extended_types=True)
    view = build_view(model, expanded)
    drawn = None if before is None else graph_elements(build_view(model, before))
    payload = json.dumps(element_patch(drawn, graph_elements(view), 1, 2))
    return len(view.nodes), len(view.edges), len(payload)


def _open(view: dict[str, Any]) -> set[str]:
    return {node["id"] for node in view["nodes"] if node["compound"]}


def _levels(view: dict[str, Any], views: list[dict[str, Any]]) -> int:
    """The scopes opened or closed since the view laid out before it (all of its open scopes
    when none was), at least 1: the layout's target is 1 s per level."""
    after = view.get("after")
    changed = _open(view) ^ _open(views[after]) if after is not None else _open(view)
    return max(1, len(changed))


def _laid_scopes(done: Laid) -> str:
    """What ELK laid out for a view: its scopes (the top level counted), or none (cached)."""
    if done.elk_calls == 0:
        return "none, every scope cached"
    return f"{len(done.laid_out)} scope(s)"


def measure(nodes: int, per_scope: int, repeat: int) -> bool:
    """Print the cases for a graph of ``nodes`` operators; True when all are under target."""
    scopes = max(STAGES, nodes // per_scope)
    print(f"\nmachine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="dash-insight-graph-") as base:
        graph = make_graph(nodes, scopes)
        train_id = write_job(os.path.join(base, "logs"), graph)
        store = IndexStore(index_directory(os.path.join(base, "ws"), os.path.join(base, "logs")))
        Loader(os.path.join(base, "logs"), store, reload_interval=0).load_round()
        provider = DataProvider(os.path.join(base, "logs"), store)
        graphs = GraphService(provider)
        tag = provider.graph_tags(train_id)[0]
        print(
            f"\ngraph: {len(graph.node):,} operators, {len(graph.parameters)} parameters, "
            f"{scopes} leaf scopes; {graph.ByteSize() / 1e6:.1f} MB serialized"
        )

        def cold() -> None:
            graphs.cache.clear()
            provider._cache.clear()  # the decoded GraphProto too: a true first open

        model = graphs.model(train_id, tag, "normal", extended_types=True)
        print(
            f"model: {len(model):,} nodes after MindInsight's rules (parameter copies, "
            f"aggregation and name scopes)"
        )
        stage = "Default/stage0"
        block = f"{stage}/block0"
        every_stage = ["Default"] + [f"Default/stage{i}" for i in range(STAGES)]
        blocks = [b for s in every_stage[1:] for b in model.child_names(s)]
        # the blocks the node limit lets open, the last one opened on its own
        largest = build_view(model, every_stage + blocks)
        opened = [n.name for n in largest.nodes if n.expanded and n.name in set(blocks)]
        all_but_last = every_stage + opened[:-1]
        # (label, mode, open scopes, cache reset, index of the view laid out before: its
        # scopes cached, as when the page opens one scope more)
        cases: list[tuple[str, str, list[str], Callable[[], None] | None, int | None]] = [
            ("open (decode + build + view + elements)", "normal", [], cold, None),
            ("expand Default", "normal", ["Default"], None, 0),
            ("expand a stage", "normal", ["Default", stage], None, 1),
            ("expand a block (25 operators)", "normal", ["Default", stage, block], None, 2),
            ("every stage open, at once", "normal", every_stage, None, None),
            ("every block open, at once (node limit)", "normal", every_stage + blocks, None, None),
            ("  all but one block open", "normal", all_but_last, None, None),
            ("  then the last block opened", "normal", every_stage + opened, None, 6),
            ("  then closed again (cached)", "normal", all_but_last, None, 7),
            ("open readable mode", "optimize", [], cold, None),
            ("readable: a block open", "optimize", ["Default", stage, block], None, 9),
        ]
        ok = True
        views = []
        heads = f"{'server':>9} {'layout':>9}  {'nodes':>6} {'edges':>6} {'answer':>9}"
        print(f"\n{'case':<44} {heads}")
        rows = []
        for label, mode, expanded, reset, after in cases:
            graphs.model(train_id, tag, mode, extended_types=True)  # warm for views
            before = cases[after][2] if after is not None else None
            seconds, (drawn, edges, size) = timed(
                lambda mode=mode, expanded=expanded, before=before: view_cost(
                    graphs, train_id, tag, mode, expanded, before
                ),
                repeat,
                reset,
            )
            model = graphs.model(train_id, tag, mode, extended_types=True)
            views.append(view_input(label, build_view(model, expanded), after))
            rows.append((label, seconds, drawn, edges, size))
        first_ms, laid = lay_out(views, repeat) if node_binary() else (None, [None] * len(views))
        for (label, seconds, drawn, edges, size), view, done in zip(rows, views, laid, strict=True):
            levels = _levels(view, views)
            layout_s = done.ms / 1000 if done is not None else 0.0
            good = seconds < TARGET_S and layout_s < TARGET_S * levels
            ok &= good
            layout = f"{layout_s * 1000:7.1f} ms" if done is not None else "   no node"
            scopes = f"; ELK: {_laid_scopes(done)}" if done is not None else ""
            print(
                f"{label:<44} {seconds * 1000:7.1f} ms {layout}  {drawn:>6} {edges:>6} "
                f"{size / 1e3:7.1f} kB  {'OK' if good else 'MISSED'} "
                f"({levels} level(s) opened or closed: < {TARGET_S * levels:.0f} s{scopes})"
            )
        if first_ms is not None:
            print(f"first layout of the run (JIT warm-up included): {first_ms:.0f} ms")
        return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", default="1000,5000", help="sizes, comma-separated")
    parser.add_argument("--per-scope", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--page-repeat", type=int, default=1, help="page loads per app")
    parser.add_argument("--no-page", action="store_true", help="no browser, no MindInsight")
    args = parser.parse_args()
    sizes = [int(n) for n in args.nodes.split(",")]
    ok = True
    for nodes in sizes:
        ok &= measure(nodes, args.per_scope, args.repeat)
    if not args.no_page:
        from graph_page import page_times  # bench/, beside this script (imports this one)

        ok &= page_times(sizes, args.per_scope, args.page_repeat)
    print(f"\nmachine: {machine()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
