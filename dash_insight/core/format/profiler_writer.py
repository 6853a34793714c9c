"""Write CPU profiles in MindSpore's format without MindSpore (tests, benchmarks, demos).

:func:`write_cpu_profile` writes what MindSpore 2.10's CPU profiler writes for a run of
``steps`` steps over the given operators, in either layout (see
:mod:`dash_insight.core.format.profiler`): the four FRAMEWORK files, ``trace_view.json`` for
MindSpore's layout and ``profiler_info_<d>.json`` for MindInsight's. Numbers are printed as
MindSpore prints them (C++ stream defaults: 6 significant digits, ``9.56759e-05`` below 1e-4).
Launch durations are random (lognormal, seeded) around a per-type mean; every step runs the
operators in order with small gaps, and an ``AssignAdd`` marks each step's start as MindSpore's
global-step update does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dash_insight.core.format.profiler import (
    FRAMEWORK_DIR,
    LAYOUT_MINDINSIGHT,
    LAYOUT_MINDSPORE,
    OP_DETAIL_HEADER,
    OP_TYPE_HEADER,
    OUTPUT_DIR,
    TRACE_VIEW,
)

#: Operator types of a synthetic network with their mean launch time (us).
SYNTHETIC_TYPES: tuple[tuple[str, float], ...] = (
    ("Conv2D", 900.0),
    ("Conv2DBackpropInput", 1200.0),
    ("Conv2DBackpropFilter", 1100.0),
    ("BatchNorm", 150.0),
    ("BatchNormGrad", 180.0),
    ("ReLU", 40.0),
    ("ReluGrad", 60.0),
    ("MaxPool", 120.0),
    ("MaxPoolGrad", 300.0),
    ("MatMul", 80.0),
    ("BiasAdd", 10.0),
    ("BiasAddGrad", 25.0),
    ("Add", 12.0),
    ("Mul", 9.0),
    ("Cast", 5.0),
    ("Reshape", 2.0),
    ("Transpose", 30.0),
    ("ApplyMomentum", 15.0),
    ("SoftmaxCrossEntropyWithLogits", 20.0),
    ("ReduceMean", 8.0),
    ("Sub", 6.0),
    ("Sqrt", 4.0),
    ("RealDiv", 7.0),
    ("Concat", 35.0),
    ("Slice", 6.0),
    ("Tile", 11.0),
)


@dataclass(frozen=True)
class SyntheticOp:
    """An operator of a synthetic profile: full scope name and type; ``mean_us`` per launch."""

    full_name: str
    op_type: str
    mean_us: float

    @property
    def op_name(self) -> str:
        return self.full_name.rsplit("/", 1)[-1]


def synthetic_ops(
    count: int, types: Sequence[tuple[str, float]] = SYNTHETIC_TYPES
) -> list[SyntheticOp]:
    """``count`` operators (the first an ``AssignAdd``) in ``Default/block<i>/`` scopes, forward
    ones then ``Gradients/...`` ones, cycling through ``types``; op names are ``<type>-op<n>``
    numbered per type (so, as in MindSpore, names repeat across scopes)."""
    ops = [SyntheticOp("Default/optimizer-Momentum/AssignAdd-op0", "AssignAdd", 15.0)]
    per_type: dict[str, int] = {}
    for i in range(1, count):
        op_type, mean = types[(i * 7) % len(types)]
        number = per_type.get(op_type, 0)
        per_type[op_type] = number + 1
        block = (i // 12) % 40
        scope = (
            f"Default/network-WithLossCell/_backbone-Net/block{block}-Cell"
            if i < count // 2
            else f"Gradients/Default/network-WithLossCell/_backbone-Net/block{block}-Cell/"
            f"Grad_{op_type}"
        )
        ops.append(SyntheticOp(f"{scope}/{op_type}-op{number % 8}", op_type, mean))
    # Full names must stay unique (MindSpore's are): number a repeated one further.
    seen: dict[str, int] = {}
    unique = []
    for op in ops:
        n = seen.get(op.full_name, 0)
        seen[op.full_name] = n + 1
        unique.append(op if not n else SyntheticOp(f"{op.full_name}_{n}", op.op_type, op.mean_us))
    return unique


def _g(value: float) -> str:
    """C++ ``operator<<`` of a double with the default precision (6 significant digits)."""
    return f"{value:g}"


@dataclass(frozen=True)
class SyntheticLaunches:
    """Launch times of a synthetic run: ``start_ns[i, s]``/``duration_us[i, s]`` of operator i
    at step s."""

    start_ns: np.ndarray
    duration_us: np.ndarray


def synthetic_launches(
    ops: Sequence[SyntheticOp], steps: int, seed: int = 0, start_ns: int = 1_795_399_200_000_000_000
) -> SyntheticLaunches:
    """Every operator once per step, in order, with lognormal durations and 2-20 us gaps; the
    first step is slower (compilation), as in real runs."""
    rng = np.random.default_rng(seed)
    means = np.array([op.mean_us for op in ops])
    duration = means[:, None] * rng.lognormal(0.0, 0.35, (len(ops), steps))
    duration[:, 0] *= 3.0
    duration = np.round(duration, 3)
    gaps = rng.uniform(2.0, 20.0, (len(ops), steps))
    flat = (duration + gaps).T.reshape(-1)  # step-major launch order
    ends = np.cumsum(flat)
    starts_us = np.concatenate([[0.0], ends[:-1]]) + 1000.0 * np.repeat(np.arange(steps), len(ops))
    starts = start_ns + np.round(starts_us * 1000.0).astype(np.int64)
    return SyntheticLaunches(starts.reshape(steps, len(ops)).T, duration)


def write_cpu_profile(
    job_dir: str,
    ops: Sequence[SyntheticOp],
    steps: int,
    *,
    layout: str = LAYOUT_MINDINSIGHT,
    device: str = "0",
    seed: int = 0,
    pid: int = 4242,
    name: str | None = None,
    launches: SyntheticLaunches | None = None,
) -> str:
    """Write a CPU profile of ``ops`` over ``steps`` steps into ``job_dir``; returns the profiler
    directory (``profiler/`` or ``<host>_<pid>_<stamp>_ascend_ms/``; ``name`` overrides it)."""
    if layout not in (LAYOUT_MINDINSIGHT, LAYOUT_MINDSPORE):
        raise ValueError(f"layout must be {LAYOUT_MINDINSIGHT!r} or {LAYOUT_MINDSPORE!r}")
    times = launches or synthetic_launches(ops, steps, seed)
    if layout == LAYOUT_MINDINSIGHT:
        root = os.path.join(job_dir, name or "profiler")
        data_dir = root
    else:
        root = os.path.join(job_dir, name or f"bench_{pid}_20261123015957443_ascend_ms")
        data_dir = os.path.join(root, FRAMEWORK_DIR)
    os.makedirs(data_dir, exist_ok=True)
    _write_tables(data_dir, ops, times, steps, device, pid)
    if layout == LAYOUT_MINDINSIGHT:
        with open(os.path.join(root, f"profiler_info_{device}.json"), "w") as handle:
            json.dump(
                {
                    "context_mode": "graph",
                    "rank_id": int(device),
                    "ms_version": "2.10.0",
                    "profiling_start_time": "2026-11-23 01:59:57",
                    "profiling_stop_time": "2026-11-23 02:00:01",
                    "analyse_start_time": "2026-11-23 02:00:01",
                    "analyse_end_time": "2026-11-23 02:00:03",
                    "rank_size": 1,
                    "is_heterogeneous": False,
                },
                handle,
            )
    else:
        os.makedirs(os.path.join(root, OUTPUT_DIR), exist_ok=True)
        _write_trace_view(os.path.join(root, OUTPUT_DIR, TRACE_VIEW), ops, times)
    return root


def _write_tables(
    data_dir: str,
    ops: Sequence[SyntheticOp],
    times: SyntheticLaunches,
    steps: int,
    device: str,
    pid: int,
) -> None:
    total_ms = times.duration_us.sum(axis=1) / 1000.0
    grand = float(total_ms.sum()) or 1.0
    occurrences = times.duration_us.shape[1]
    with open(os.path.join(data_dir, f"cpu_op_detail_info_{device}.csv"), "w") as handle:
        handle.write(",".join(OP_DETAIL_HEADER) + "\n")
        for op, total in zip(ops, total_ms.tolist(), strict=True):
            handle.write(
                f"Host,{op.op_type},{op.op_name},{op.full_name},{occurrences},"
                f"{_g(total)},{_g(total / occurrences)},{_g(total / grand)},Default,"
                f"{pid}\n"
            )
    by_type: dict[str, list[float]] = {}
    for op, total in zip(ops, total_ms.tolist(), strict=True):
        by_type.setdefault(op.op_type, []).append(total)
    with open(os.path.join(data_dir, f"cpu_op_type_info_{device}.csv"), "w") as handle:
        handle.write(",".join(OP_TYPE_HEADER) + "\n")
        for op_type, totals in by_type.items():
            launched = len(totals) * occurrences
            total = sum(totals)
            handle.write(
                f"{op_type},{launched},{launched // steps},{_g(total)},"
                f"{_g(total / launched)},{_g(total / grand)}\n"
            )
    with open(os.path.join(data_dir, f"cpu_op_execute_timestamp_{device}.txt"), "w") as handle:
        for i, op in enumerate(ops):
            launches = " ".join(
                f"{start},{_g(duration / 1000.0)},0"
                for start, duration in zip(
                    times.start_ns[i].tolist(), times.duration_us[i].tolist(), strict=True
                )
            )
            handle.write(f"{op.full_name};HostCpuOps;{launches}\n")
    order = np.argsort(times.start_ns, axis=None, kind="stable")
    op_of = np.repeat(np.arange(len(ops)), times.start_ns.shape[1])
    with open(os.path.join(data_dir, f"cpu_framework_{device}.txt"), "w") as handle:
        lines = []
        for i in op_of[order].tolist():
            op = ops[i]
            lines.append(f"{op.op_type};{op.op_name};2172595607;input_1:[32, 16, 10, 10];\n")
        handle.writelines(lines)


def _write_trace_view(path: str, ops: Sequence[SyntheticOp], times: SyntheticLaunches) -> None:
    events: list[dict[str, object]] = [
        {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "CPU OP"}},
        {"ph": "M", "name": "process_labels", "pid": 2, "tid": 0, "args": {"labels": "CPU"}},
        {"ph": "M", "name": "thread_name", "pid": 2, "tid": 0, "args": {"name": "Thread 0"}},
    ]
    for i, op in enumerate(ops):
        for start, duration in zip(
            times.start_ns[i].tolist(), times.duration_us[i].tolist(), strict=True
        ):
            events.append(
                {
                    "ph": "X",
                    "name": op.full_name,
                    "pid": 2,
                    "tid": 0,
                    "ts": f"{start // 1000}.{start % 1000:03d}",
                    "dur": f"{duration:.3f}",
                    "cat": "",
                    "args": {"type": "HostCpuOps"},
                }
            )
    events.append(
        {"ph": "M", "name": "process_name", "pid": 3, "tid": 0, "args": {"name": "Scope Layer"}}
    )
    with open(path, "w") as handle:
        json.dump(events, handle)
