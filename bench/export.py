"""Export speed: ``dash-insight export`` of a 500 MB job, in MB of summary files per second.

Uses the large job of ``bench/load.py`` (generated once and cached under ``bench/data/``: ONE
summary file of 200 scalar tags x 50,000 steps plus 2,000-value histograms, >= 500 MB) and a
smaller job of images and tensors generated here (``bench/data/export_media/``), so every
writer is measured. Each export runs in a FRESH subprocess (``export_summaries`` into an empty
folder, the summary files first read once into the OS page cache) and reports seconds, MB/s
(summary bytes / seconds), what it wrote and its peak RSS. The machine's core count and load
average are printed with the figures: the machine is shared, so a loaded one is slower.

    python bench/export.py [--size-mb 500] [--formats csv,parquet,json] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

# bench/load.py builds (and caches) the 500 MB job; a script's folder is not a package.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load
from machine import machine, recorded  # bench/, beside this script

from dash_insight import SummaryWriter
from dash_insight.core.export import export_summaries, find_jobs, summary_bytes

MEDIA_DIR = os.path.join(load.DATA_DIR, "export_media")
MEDIA_STEPS = 200
IMAGE_TAGS = 2  # 4 images of 3x64x64 tiled per step
TENSOR_TAGS = 3  # 256 x 256 float32 per step


def media_job() -> str:
    """The cached (or newly generated) base directory of images and tensors."""
    marker = os.path.join(MEDIA_DIR, load.MANIFEST)
    if os.path.isfile(marker):
        return MEDIA_DIR
    print(
        f"generating {MEDIA_DIR}: {IMAGE_TAGS} image tags and {TENSOR_TAGS} tensor tags x "
        f"{MEDIA_STEPS} steps",
        flush=True,
    )
    scratch = MEDIA_DIR + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    rng = np.random.default_rng(3)
    started = time.perf_counter()
    with SummaryWriter(os.path.join(scratch, "media"), host="bench") as writer:
        for step in range(1, MEDIA_STEPS + 1):
            for i in range(IMAGE_TAGS):
                writer.add_image(f"input/batch_{i}", rng.random((4, 3, 64, 64)), step=step)
            for i in range(TENSOR_TAGS):
                writer.add_tensor(
                    f"layer_{i}/activation",
                    rng.standard_normal((256, 256)).astype(np.float32),
                    step=step,
                )
            writer.add_scalar("loss", float(rng.random()), step)
    with open(os.path.join(scratch, load.MANIFEST), "w") as handle:
        json.dump(
            {"steps": MEDIA_STEPS, "seconds": round(time.perf_counter() - started, 1)}, handle
        )
    shutil.rmtree(MEDIA_DIR, ignore_errors=True)
    os.rename(scratch, MEDIA_DIR)
    print(
        f"generated {load.mb(load.tree_bytes(MEDIA_DIR)):.1f} MB in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return MEDIA_DIR


def child(base: str, out: str, fmt: str) -> dict[str, Any]:
    jobs = find_jobs(base)
    size = summary_bytes(jobs)
    started = time.perf_counter()
    report = export_summaries(base, out, fmt=fmt, jobs=jobs)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "bytes": size,
        "counts": report.counts,
        "damaged": [f["path"] for f in report.files],
        "written": len(report.written),
        "output_bytes": load.tree_bytes(out),
        "rss_peak_mb": load.rss_mb(),
    }


def run_child(base: str, out: str, fmt: str) -> dict[str, Any]:
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        base,
        "--child-out",
        out,
        "--child-format",
        fmt,
    ]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"export subprocess failed with exit code {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(name: str, base: str, fmt: str, scratch: str, keep: bool) -> bool:
    for job in find_jobs(base):
        for info in job.files:
            load.warm_page_cache(os.path.join(job.path, info.name))
    out = os.path.join(scratch, f"{name}_{fmt}")
    shutil.rmtree(out, ignore_errors=True)
    result = run_child(base, out, fmt)
    mbps = load.mb(result["bytes"]) / result["seconds"]
    counts = ", ".join(f"{n:,} {what}" for what, n in result["counts"].items() if n)
    print(
        f"  {name:<6} {fmt:<8} {load.mb(result['bytes']):7.1f} MB in {result['seconds']:6.2f} s"
        f"  -> {mbps:6.1f} MB/s   peak RSS {result['rss_peak_mb']:5.0f} MB"
    )
    print(
        f"         wrote {result['written']:,} files, {load.mb(result['output_bytes']):.1f} MB:"
        f" {counts}"
    )
    for path in result["damaged"]:
        print(f"   PROBLEM: damaged {path}")
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return not result["damaged"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--size-mb",
        type=int,
        default=500,
        help="minimum size of the large summary file (10^6 bytes)",
    )
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--tags", type=int, default=200, help="scalar tags")
    parser.add_argument(
        "--formats", default="csv,parquet", help="scalar formats to measure (csv, json, parquet)"
    )
    parser.add_argument("--skip-generate-check", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the output folder")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", help=argparse.SUPPRESS)
    parser.add_argument("--child-format", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.child_out, args.child_format)))
        return 0

    large, manifest = load.large_job(args.size_mb, args.steps, args.tags, args.skip_generate_check)
    media = media_job()
    formats = [f for f in args.formats.split(",") if f]
    if "parquet" in formats:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            print(
                "pyarrow is not installed: skipping parquet (pip install 'dash-insight[parquet]')"
            )
            formats.remove("parquet")
    scratch = tempfile.mkdtemp(prefix="dash-insight-export-")
    print(f"\nmachine: {machine()}")
    print(
        f"large job: {large} ({manifest['tags']} scalar tags x {manifest['steps']:,} steps, "
        f"{manifest['histogram_tags']} histogram tags every {manifest['histogram_every']} "
        "steps)"
    )
    print(f"media job: {media}\n")
    ok = True
    try:
        for fmt in formats:
            ok &= measure("large", large, fmt, scratch, args.keep)
        ok &= measure("media", media, "csv", scratch, args.keep)
    finally:
        if args.keep:
            print(f"output kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"\nmachine after: {machine()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
