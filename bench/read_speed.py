"""Read speed of the summary layer: framing + both CRCs + decoding, every scalar into columns.

Generates (once, cached under bench/data/) a scalar-heavy summary file with dash-insight's own
``SummaryWriter``: 200 scalar tags every step and 20 histograms every 5 steps, until the file is
at least ``--size-mb`` MB (default 500). Then times, best of ``--repeat`` runs:

* framing only: ``RecordReader`` (length + payload CRC32C of every record);
* full scan: framing + ``EventScanner`` (every scalar value into per-tag numpy columns, every
  histogram indexed by record offset with its metadata);
* protobuf's upb parse alone of the same records (each payload already in memory as bytes,
  ``Event.FromString``; the framing and the copies not timed): the limit of decoding through
  protobuf.

Targets: >= 200 MB/s for the full scan on a 2-core machine (issue #2), and the full scan at
>= 0.6x the upb parse alone (issue #37 item 4); a missed target says MISSED.

    python bench/read_speed.py [--size-mb 500] [--repeat 3] [--path FILE]
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

import numpy as np
from google.protobuf.internal import api_implementation
from machine import machine, recorded  # bench/, beside this script

from dash_insight import SummaryWriter
from dash_insight.core.format.framing import CHUNK_BYTES, RecordReader
from dash_insight.core.format.protos import summary_pb2
from dash_insight.core.format.scan import EventScanner

SCALAR_TAGS = 200
HISTOGRAM_TAGS = 20
HISTOGRAM_EVERY = 5
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def generate(directory: str, size_mb: int) -> str:
    """Write the benchmark file with SummaryWriter; returns its path."""
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(0)
    scalar_tags = [f"train/metric_{i:03d}" for i in range(SCALAR_TAGS)]
    histogram_tags = [f"weights/layer_{i:02d}" for i in range(HISTOGRAM_TAGS)]
    weights = [rng.standard_normal(2000).astype(np.float32) for _ in histogram_tags]
    target = size_mb * 1_000_000
    started = time.perf_counter()
    with SummaryWriter(directory, host="bench") as writer:
        step = 0
        while True:
            step += 1
            values = np.sin(step / 100 + np.arange(SCALAR_TAGS)) + rng.random(SCALAR_TAGS) * 0.1
            for tag, value in zip(scalar_tags, values.tolist(), strict=True):
                writer.add_value("scalar", tag, value)
            if step % HISTOGRAM_EVERY == 0:
                for tag, weight in zip(histogram_tags, weights, strict=True):
                    weight += rng.standard_normal(weight.shape, dtype=np.float32) * 0.01
                    writer.add_value("histogram", tag, weight)
            writer.record(step)
            if step % 1000 == 0:
                writer.flush()
                if os.path.getsize(writer.summary_path) >= target:
                    break
        path = writer.summary_path
    print(
        f"generated {path}: {os.path.getsize(path) / 1e6:.0f} MB, {step} steps "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return path


def time_framing(path: str) -> tuple[float, int]:
    reader = RecordReader(path)
    started = time.perf_counter()
    records = sum(1 for _ in reader.read())
    return time.perf_counter() - started, records


def time_scan(path: str) -> tuple[float, int, int]:
    reader = RecordReader(path)
    scanner = EventScanner()
    records = points = 0
    started = time.perf_counter()
    while True:
        result = scanner.scan_from(reader, CHUNK_BYTES)
        records += result.events
        points += sum(len(c) for c in result.scalars.values())
        if reader.result.bytes_consumed == 0:
            break
    return time.perf_counter() - started, records, points


def time_upb_parse(path: str) -> float:
    """Seconds protobuf (upb) takes to parse every record's payload into an ``Event``, parsing
    only: each 16 MB of records is framed and copied out first, untimed."""
    reader = RecordReader(path)
    seconds = 0.0
    while True:
        payloads = [bytes(record.payload) for record in reader.read(CHUNK_BYTES)]
        parse = summary_pb2.Event.FromString
        started = time.perf_counter()
        for payload in payloads:
            parse(payload)
        seconds += time.perf_counter() - started
        if reader.result.bytes_consumed == 0:
            return seconds


TARGET_MBPS = 200.0
TARGET_UPB_RATIO = 0.6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--path", help="time this summary file instead of the generated one")
    args = parser.parse_args()
    path = args.path
    if path is None:
        directory = os.path.join(DATA_DIR, f"read_speed_{args.size_mb}mb")
        existing = glob.glob(os.path.join(directory, "*_MS"))
        path = existing[0] if existing else generate(directory, args.size_mb)
    size_mb = os.path.getsize(path) / 1e6
    print(f"machine: {machine()}")
    print(f"file: {path} ({size_mb:.0f} MB)")

    framing = min(time_framing(path)[0] for _ in range(args.repeat))
    scans = [time_scan(path) for _ in range(args.repeat)]
    scan_time = min(s[0] for s in scans)
    _, records, points = scans[0]
    upb = min(time_upb_parse(path) for _ in range(args.repeat))
    ours, limit = size_mb / scan_time, size_mb / upb
    print(f"framing + CRC:                  {size_mb / framing:7.0f} MB/s")
    print(
        f"framing + CRC + decode/columns: {ours:7.0f} MB/s, "
        f"{records / scan_time:,.0f} records/s, {points / scan_time:,.0f} scalar points/s "
        f"({records:,} records, {points:,} scalar points, best of {args.repeat})   "
        f"target >= {TARGET_MBPS:.0f} MB/s {'OK' if ours >= TARGET_MBPS else 'MISSED'}"
    )
    print(
        f"upb parse alone ({api_implementation.Type()}): {limit:7.0f} MB/s "
        f"(Event.FromString of every payload, best of {args.repeat})"
    )
    ratio = ours / limit
    print(
        f"full scan / upb parse alone:    {ratio:7.2f}x   target >= {TARGET_UPB_RATIO}x "
        f"{'OK' if ratio >= TARGET_UPB_RATIO else 'MISSED'}"
    )
    print(f"machine: {machine()}")
    return 0 if ours >= TARGET_MBPS and ratio >= TARGET_UPB_RATIO else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
