"""Speed on the inputs that are hard: damaged files, huge tensors, a wide graph level.

These figures used to be time limits inside unit tests; the tests now check only what comes out
(see ``tests/core/format/test_framing.py``, ``test_writer.py``, ``tests/plugins/tensors/``,
``tests/plugins/graphs/test_model.py``), and this script prints how long it takes. Everything is
generated in a temporary folder. Each figure is the median of ``--repeat`` runs (default 3):

1. framing a 4 MB file of 0x00 bytes, of 0xFF bytes and of random garbage (``RecordReader``:
   no record in any; the reader must step over the bytes, not stop or loop); target < 5 s each;
2. writing a 1000 x 1000 float32 tensor with ``SummaryWriter.add_tensor`` and flushing it;
   target < 1 s;
3. the tensor statistics (``plugins.tensors.algorithms.statistics``) of 10M float32 values with
   10 NaNs; target < 3 s;
4. a job holding a 1000 x 10,000 float32 tensor, loaded with the real loader: its statistics and
   the slice ``[0:10,0:1000]`` through ``TensorQueries`` (record read and decode included, every
   cache empty); target < 10 s;
5. the graph pages' layout (ELK layered, ``assets/graph-layout.js``, run in Node.js by
   ``bench/elk.py``) of one graph level of 1,400 nodes and 2,799 edges (a chain plus random
   edges, cycles included); target < 5 s (skipped without ``node``).

The machine's core count and load average are printed beside the figures.

    python bench/hard_inputs.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

import numpy as np
from elk import lay_out, node_binary  # bench/, beside this script
from machine import machine, recorded, timed

from dash_insight import SummaryWriter
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.plugins.tensors.query_tensor import statistics

FILLED_BYTES = 4 << 20


def frame_filled(folder: Path, content: bytes, repeat: int) -> float:
    path = folder / "filled"
    path.write_bytes(content)

    def scan() -> None:
        reader = RecordReader(path)
        assert not list(reader.read()) and reader.lost_at == 0

    return timed(scan, repeat)


def write_tensor(folder: Path, repeat: int) -> float:
    array = np.random.default_rng(0).standard_normal((1000, 1000), dtype=np.float32)

    def write() -> None:
        with SummaryWriter(tempfile.mkdtemp(dir=folder), host="bench") as writer:
            writer.add_tensor("big", array, 1)
            writer.flush()

    return timed(write, repeat)


def tensor_statistics(repeat: int) -> float:
    array = np.random.default_rng(0).standard_normal(10_000_000, dtype=np.float32)
    array[::1_000_003] = np.nan
    statistics(array[:1000])  # warm-up
    return timed(lambda: statistics(array.reshape(1000, 10_000)), repeat)


def open_tensor(folder: Path, repeat: int) -> float:
    base = folder / "logs"
    values = np.random.default_rng(0).standard_normal(10_000_000, dtype=np.float32)
    with SummaryWriter(base / "big", host="bench") as writer:
        writer.add_tensor("ten_million", values.reshape(1000, 10_000), step=1)

    services: list[DataService] = []

    def load() -> None:  # a new workspace each time: every cache empty; not timed
        services.append(
            DataService(
                Settings(str(base), workspace=tempfile.mkdtemp(dir=folder), reload_interval=0)
            )
        )
        services[-1].loader.load_round()

    def query() -> None:
        queries = TensorQueries(services[-1].provider)
        assert queries.statistics("./big", "ten_million", 1)["count"] == 10_000_000
        assert queries.slice("./big", "ten_million", 1, "[0:10,0:1000]").shape == (10, 1000)

    try:
        return timed(query, repeat, reset=load)
    finally:
        for service in services:
            service.close()


def graph_level_layout(repeat: int) -> float | None:
    """Seconds of ELK's layout of the level (the median of ``repeat`` runs after a warm-up),
    or None without ``node``."""
    if node_binary() is None:
        return None
    rng = random.Random(3)
    nodes = [f"n{i}" for i in range(1400)]
    edges = [(nodes[i], nodes[i + 1]) for i in range(1399)]
    edges += [(rng.choice(nodes), rng.choice(nodes)) for _ in range(1400)]
    view = {
        "name": "level",
        "nodes": [{"id": n, "parent": None, "w": 80, "h": 30, "compound": False} for n in nodes],
        "edges": [{"id": f"e{i}", "source": a, "target": b} for i, (a, b) in enumerate(edges)],
    }
    _first, (laid,) = lay_out([view], repeat + 1)
    return laid.ms / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        rows = [
            ("frame 4 MB of 0x00", frame_filled(folder, b"\x00" * FILLED_BYTES, args.repeat), 5),
            ("frame 4 MB of 0xFF", frame_filled(folder, b"\xff" * FILLED_BYTES, args.repeat), 5),
            (
                "frame 4 MB of random garbage",
                frame_filled(folder, random.Random(3).randbytes(FILLED_BYTES), args.repeat),
                5,
            ),
            ("write a 1000 x 1000 float32 tensor", write_tensor(folder, args.repeat), 1),
            ("statistics of 10M float32", tensor_statistics(args.repeat), 3),
            ("open a 10M-value tensor: statistics + slice", open_tensor(folder, args.repeat), 10),
            ("lay out a 1,400-node graph level", graph_level_layout(args.repeat), 5),
        ]
    for name, seconds, target in rows:
        if seconds is None:
            print(f"{name:<46} skipped (no node on the PATH)")
            continue
        verdict = "OK" if seconds < target else "SLOW"
        print(f"{name:<46} {seconds:7.3f} s  (target < {target} s)  {verdict}")
    print(machine())


if __name__ == "__main__":
    recorded(main, __file__)
