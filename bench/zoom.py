"""Zoom into a 10M-step scalar tag through the REST API, as the scalars page does.

Writes (once; cached under ``bench/data/zoom-<steps>/``, git-ignored) a job with one scalar tag
``loss`` of ``--steps`` steps (default 10,000,000): a slow wave plus noise, a spike at
:func:`spike_step` and a NaN at :func:`nan_step`. Then serves it (``python -m dash_insight.server``,
:class:`rest.Server`), waits until it is loaded and, like a chart ``--width`` pixels wide, asks
``scalar/metadata`` for the whole range, zooms 5 times (each a tenth of the previous window,
centred on the spike) down to 100 steps, and pans twice. For each request it prints the server
time (the handler, measured around the WSGI call), the points drawn and the points in the range;
it checks that the spike is drawn at every zoom, and that the last views hold exactly the raw
values (the stored float32 values, every step).

    PYTHONPATH=. .venv/bin/python bench/zoom.py [--steps N] [--width PX]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time

import numpy as np

# bench/rest.py serves a base directory and reads its access log; a script's folder is not a
# package.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import recorded  # bench/, beside this script
from rest import Server, machine, serving

from dash_insight import SummaryWriter

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
JOB = "zoom"
TAG = "loss"


def spike_step(steps_total: int) -> int:
    """Where the spike is (7,314,021 of 10M steps): every zoom is centred on it."""
    return round(steps_total * 0.7314021)


def nan_step(steps_total: int) -> int:
    """Where the NaN is (2,500,001 of 10M steps)."""
    return steps_total // 4 + 1


TARGET_MS = 150.0


def values_of(steps: np.ndarray, steps_total: int) -> np.ndarray:
    """The float32 value written at each step: deterministic, so the check can recompute it."""
    noise = ((steps * 2654435761) % 1000).astype(np.float64) / 1000.0 - 0.5
    wave = np.sin(steps / max(1, steps_total) * 20.0) + 2.0
    out = (wave + 0.05 * noise).astype(np.float32)
    out[steps == spike_step(steps_total)] = 50.0
    out[steps == nan_step(steps_total)] = np.nan
    return out


def generate(base: str, steps_total: int) -> None:
    """``base/zoom/`` with one summary file (written into a scratch folder renamed at the end,
    so an interrupted run never looks complete). The file is named and started by
    ``SummaryWriter``; the records are built with one reused protobuf Event and framed directly
    (``add_value`` one step at a time took minutes for 10 million steps)."""
    from dash_insight.core.format.framing import frame_record
    from dash_insight.core.format.protos import summary_pb2

    if os.path.isdir(os.path.join(base, JOB)):
        return
    scratch = base + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"writing {steps_total:,} steps to {base} (once) ...", flush=True)
    started = time.perf_counter()
    with SummaryWriter(os.path.join(scratch, JOB), host="bench") as writer:
        path = writer.summary_path
    event = summary_pb2.Event()
    value = event.summary.value.add()
    value.tag = TAG
    block = 100_000
    with open(path, "ab") as handle:
        for first in range(1, steps_total + 1, block):
            steps = np.arange(first, min(first + block, steps_total + 1), dtype=np.int64)
            frames = []
            for step, scalar in zip(
                steps.tolist(), values_of(steps, steps_total).tolist(), strict=True
            ):
                event.step = step
                event.wall_time = 1.7e9 + step * 0.01
                value.scalar_value = scalar
                frames.append(frame_record(event.SerializeToString()))
            handle.write(b"".join(frames))
            if (first // block) % 10 == 0:
                print(
                    f"  step {int(steps[-1]):>11,}: {time.perf_counter() - started:6.0f} s",
                    flush=True,
                )
    os.makedirs(base, exist_ok=True)
    os.rename(os.path.join(scratch, JOB), os.path.join(base, JOB))
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"written in {time.perf_counter() - started:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10_000_000)
    parser.add_argument("--width", type=int, default=1000, help="chart width in pixels")
    parser.add_argument("--generate-only", action="store_true")
    args = parser.parse_args()
    base = os.path.join(DATA, f"zoom-{args.steps}")
    generate(base, args.steps)
    if args.generate_only:
        return
    print(f"machine: {machine()}")
    with serving(base) as server:
        started = time.perf_counter()
        server.wait_loaded()
        print(f"server up and the job loaded in {time.perf_counter() - started:.0f} s")
        run(server, args.steps, args.width)
    print(f"machine: {machine()}")


METADATA = "/v1/mindinsight/datavisual/scalar/metadata"
REPEATS = 5


def centred(middle: int, width: int, steps_total: int) -> tuple[int, int]:
    start = max(1, middle - width // 2)
    return start, min(steps_total, start + width - 1)


def request(server: Server, start: int, end: int, width: int) -> tuple[list[float], dict]:
    """(server seconds of ``REPEATS`` identical requests, the answer)."""
    params = {
        "train_id": f"./{JOB}",
        "tag": f"{TAG}/scalar",
        "start_step": start,
        "end_step": end,
        "max_points": width,
    }
    server.server_seconds()
    answer: dict = {}
    for _ in range(REPEATS):
        status, body = server.get(METADATA, params)
        if status != 200:
            raise RuntimeError(f"{status}: {body[:300]!r}")
        answer = json.loads(body)
    return server.server_seconds(), answer


def run(server: Server, steps_total: int, width: int) -> None:
    views = [("open", 1, steps_total)]
    span = steps_total
    for zoom in range(1, 6):
        span //= 10
        views.append(
            (f"zoom {zoom}", *centred(spike_step(steps_total), max(span, 100), steps_total))
        )
    last_start, last_end = views[-1][1], views[-1][2]
    half = (last_end - last_start + 1) // 2
    views += [
        ("pan left", last_start - half, last_end - half),
        ("pan right", last_start + half, last_end + half),
    ]
    status, _ = server.get(
        METADATA, {"train_id": f"./{JOB}", "tag": f"{TAG}/scalar", "max_points": width}
    )
    first = server.server_seconds()
    print(
        f"first request (the whole tag: reads the coarsest summary of each chunk, kept in "
        f"memory after): {first[-1] * 1e3:.0f} ms, status {status}"
    )
    print(
        f"{'view':10} {'steps':>23} {'in range':>11} {'drawn':>6} {'bytes':>9} "
        f"{'p50 ms':>7} {'max ms':>7}  checks"
    )
    worst = 0.0
    problems = []
    for name, start, end in views:
        seconds, answer = request(server, start, end, width)
        points = answer["metadatas"]
        steps = np.array([p["step"] for p in points], np.int64)
        checks = []
        if start <= spike_step(steps_total) <= end:
            spike = [p["value"] for p in points if p["step"] == spike_step(steps_total)]
            checks.append("spike drawn" if spike == [50.0] else "SPIKE MISSING")
        raw = answer["points_in_range"] == len(points)
        if raw:
            expected = values_of(np.arange(start, end + 1, dtype=np.int64), steps_total)
            exact = steps.tolist() == list(range(start, end + 1)) and [
                p["value"] for p in points
            ] == [None if np.isnan(v) else v for v in expected.astype(np.float64).tolist()]
            checks.append("exact raw values" if exact else "RAW VALUES DIFFER")
        problems += [c for c in checks if c.isupper()]
        p50, top = statistics.median(seconds) * 1e3, max(seconds) * 1e3
        worst = max(worst, p50)
        size = len(json.dumps(answer))
        print(
            f"{name:10} {start:>11,}-{end:<11,} {answer['points_in_range']:>11,} "
            f"{len(points):>6} {size:>9,} {p50:>7.1f} {top:>7.1f}  {', '.join(checks)}",
            flush=True,
        )
    last_raw = views[-1]
    verdict = "met" if worst < TARGET_MS else "MISSED"
    print(
        f"slowest view: {worst:.1f} ms server time p50 (target < {TARGET_MS:.0f} ms: "
        f"{verdict}); {REPEATS} requests per view at {width} px; the last views "
        f"({last_raw[1]:,}-{last_raw[2]:,}) checked against the values written"
    )
    if problems:
        print("PROBLEMS: " + "; ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    recorded(main, __file__)
