"""Loading speed, memory and restart cost of the loader + index + query layer.

Generates (once, cached under ``bench/data/``, which git ignores) with dash-insight's own
``SummaryWriter``:

* ``load_<size>mb/job/``: ONE summary file of ``--tags`` scalar tags (default 200) every step for
  ``--steps`` steps (default 50,000), plus histograms of 2,000-value float32 arrays (20 tags, at
  a frequency chosen so that the file is at least ``--size-mb`` MB, default 500; 1 MB = 10^6
  bytes). Its size is checked and printed.
* ``load_jobs_1200/``: 12 groups x 100 small jobs, each one tiny summary file (5 scalars x 10
  steps) and one lineage file (train + eval lineage).

Then measures (the summary file is first read through once so that it sits in the OS page cache:
the figures are parsing + indexing, not disk):

1. Cold load, in a FRESH subprocess with an empty workspace: ``IndexStore`` +
   ``Loader(base, store, reload_interval=0).load_round()`` followed by
   ``DataProvider.read_scalars`` of EVERY scalar tag's full series (each checked: ``--steps``
   points, last step ``--steps``), i.e. until every scalar point is queryable. Seconds and MB/s
   (file bytes / seconds): target >= 100 MB/s. Peak RSS of that process (``VmHWM``, see
   :func:`rss_mb`; it includes the interpreter, the imports and the provider's LRU cache of the
   series read): target < 500 MB.
   For reference, the same file is then framed and decoded without any index (what the index
   costs is the difference).
   Then the same cold load of ``--jobs`` jobs (default 4) that each hold that file (hard links
   into ``load_<size>mb_x<jobs>/``: no more disk), once with 1 load worker and once with
   ``--load-workers`` (default: the core count), each in a fresh subprocess with an empty
   index: MB/s of each, the ratio, and the peak RSS of the loader process alone (``VmHWM``) and
   of the loader with its worker processes (the sum of their RSS, sampled every 20 ms).
2. Warm restart, in a second fresh subprocess on the SAME workspace: from constructing
   ``IndexStore`` + ``Loader`` + ``load_round()`` (which must find nothing new) until one scalar
   tag's full series is returned: target < 2 s. Peak RSS reported too.
3. Listing, on the 1,200-job base directory: ``discover_jobs`` rescan (after a warm-up scan) and,
   after one ``load_round`` into a temporary workspace, ``DataProvider.list_jobs()`` (second,
   warm call): target < 1 s each.

4. With ``--long-tag [STEPS]`` instead: the cold load (fresh process, empty index,
   ``--load-workers``) of one file holding ONE scalar tag of STEPS steps (default 10,000,000;
   written once into ``~/.cache/dash-insight/load-1x<STEPS>/``) until every point is indexed
   and queryable: seconds (target <= 60 s) and peak RSS of the process and of it with its load
   workers (target <= 500 MB); then the whole series is read back in one array and checked
   (time and peak printed, not a target). A missed target says MISSED.

    python bench/load.py [--size-mb 500] [--steps 50000] [--tags 200] [--workspace DIR]
                         [--keep] [--skip-generate-check] [--jobs 4] [--load-workers N]
    python bench/load.py --long-tag [STEPS] [--load-workers N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from machine import machine, recorded  # bench/, beside this script

from dash_insight import SummaryWriter
from dash_insight.core.format.framing import RecordReader
from dash_insight.core.format.scan import EventScanner
from dash_insight.core.provider import DataProvider
from dash_insight.core.settings import default_load_workers
from dash_insight.core.store.discovery import discover_jobs
from dash_insight.core.store.index import IndexStore, index_directory
from dash_insight.core.store.loader import Loader

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
JOB_NAME = "job"
TRAIN_ID = f"./{JOB_NAME}"
HISTOGRAM_TAGS = 20
HISTOGRAM_VALUES = 2000
SIZE_MARGIN = 1.02  # aim 2% above --size-mb so the estimate of the record sizes may be off
JOB_GROUPS = 12
JOBS_PER_GROUP = 100
SMALL_SCALARS = 5
SMALL_STEPS = 10
MANIFEST = "manifest.json"  # not a summary/lineage/graph name: discovery ignores it

TARGET_MBPS = 100.0
TARGET_RSS_MB = 500.0
TARGET_WARM_S = 2.0
TARGET_LIST_S = 1.0
#: A one-tag file of 10M steps (issue #37 item 3): loaded and every point queryable within.
TARGET_LONG_TAG_S = 60.0
LONG_TAG_STEPS = 10_000_000
#: Where --long-tag writes its file once (outside the checkout: 568 MB).
CACHE_DIR = os.path.join(os.path.expanduser("~"), ".cache", "dash-insight")


@dataclass
class Plan:
    """What the large job holds."""

    steps: int
    tags: int
    histogram_tags: int
    histogram_every: int
    histogram_values: int = HISTOGRAM_VALUES


def scalar_tags(count: int) -> list[str]:
    return [f"train/metric_{i:03d}" for i in range(count)]


def histogram_tags(count: int) -> list[str]:
    return [f"weights/layer_{i:02d}" for i in range(count)]


def mb(size: float) -> float:
    return size / 1e6


def tree_bytes(path: str) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):  # vanished meanwhile
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def mark(ok: bool) -> str:
    return "OK    " if ok else "MISSED"


# --- generation ----------------------------------------------------------------------------------


def calibrate(tags: int) -> tuple[float, float]:
    """Bytes on disk of one step of ``tags`` scalars, and of one histogram value (measured by
    writing a few records with SummaryWriter into a scratch directory)."""
    rng = np.random.default_rng(1)
    names = scalar_tags(tags)
    steps, histograms = 200, 50
    with tempfile.TemporaryDirectory() as scratch, SummaryWriter(scratch, host="bench") as writer:
        writer.add_value("scalar", names[0], 0.0)
        writer.record(0)  # creates the file (version record + this one): not counted
        writer.flush()
        start = os.path.getsize(writer.summary_path)
        for step in range(1, steps + 1):
            for name, value in zip(names, rng.random(tags).tolist(), strict=True):
                writer.add_value("scalar", name, value)
            writer.record(step)
        writer.flush()
        after_scalars = os.path.getsize(writer.summary_path)
        weight = rng.standard_normal(HISTOGRAM_VALUES).astype(np.float32)
        for name in histogram_tags(histograms):
            writer.add_value("histogram", name, weight)
        writer.record(steps + 1)
        writer.flush()
        after_histograms = os.path.getsize(writer.summary_path)
    return ((after_scalars - start) / steps, (after_histograms - after_scalars) / histograms)


def make_plan(size_mb: int, steps: int, tags: int) -> Plan:
    """Histogram tags and frequency so that the file reaches ``size_mb`` (with a margin)."""
    per_step, per_histogram = calibrate(tags)
    missing = size_mb * 1e6 * SIZE_MARGIN - per_step * steps
    needed = max(0, int(np.ceil(missing / per_histogram)))
    if needed == 0:
        return Plan(steps, tags, 0, steps + 1)
    per_tag = int(np.ceil(needed / HISTOGRAM_TAGS))
    if per_tag <= steps:
        return Plan(steps, tags, HISTOGRAM_TAGS, max(1, steps // per_tag))
    return Plan(steps, tags, int(np.ceil(needed / steps)), 1)  # more tags, every step


def generate_large(directory: str, size_mb: int, steps: int, tags: int) -> dict[str, Any]:
    """Write ``directory/job/`` (into a scratch directory renamed at the end, so an interrupted
    generation never looks complete); returns the manifest."""
    plan = make_plan(size_mb, steps, tags)
    histograms = plan.histogram_tags * (plan.steps // plan.histogram_every)
    print(
        f"generating {directory}/{JOB_NAME}: {plan.tags} scalar tags x {plan.steps:,} steps, "
        f"{plan.histogram_tags} histogram tags every {plan.histogram_every} steps "
        f"({histograms:,} histograms of {plan.histogram_values} float32 values)",
        flush=True,
    )
    scratch = directory + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    rng = np.random.default_rng(0)
    names = scalar_tags(plan.tags)
    hist_names = histogram_tags(plan.histogram_tags)
    weights = [rng.standard_normal(plan.histogram_values).astype(np.float32) for _ in hist_names]
    offsets = np.arange(plan.tags)
    started = time.perf_counter()
    report_every = max(1, plan.steps // 10)
    with SummaryWriter(os.path.join(scratch, JOB_NAME), host="bench") as writer:
        for step in range(1, plan.steps + 1):
            values = np.sin(step / 100 + offsets) + rng.random(plan.tags) * 0.1
            for name, value in zip(names, values.tolist(), strict=True):
                writer.add_value("scalar", name, value)
            if step % plan.histogram_every == 0:
                for name, weight in zip(hist_names, weights, strict=True):
                    weight += rng.standard_normal(weight.shape, dtype=np.float32) * 0.01
                    writer.add_value("histogram", name, weight)
            writer.record(step)
            if step % report_every == 0 or step == plan.steps:
                writer.flush()
                elapsed = time.perf_counter() - started
                print(
                    f"  step {step:>9,} / {plan.steps:,}: "
                    f"{mb(os.path.getsize(writer.summary_path)):6.0f} MB, {elapsed:5.0f} s",
                    flush=True,
                )
        name = os.path.basename(writer.summary_path)
    seconds = time.perf_counter() - started
    size = os.path.getsize(os.path.join(scratch, JOB_NAME, name))
    manifest = {**asdict(plan), "file": name, "bytes": size, "seconds": round(seconds, 1)}
    with open(os.path.join(scratch, MANIFEST), "w") as handle:
        json.dump(manifest, handle, indent=1)
    shutil.rmtree(directory, ignore_errors=True)
    os.rename(scratch, directory)
    print(f"generated {mb(size):.1f} MB in {seconds:.0f} s", flush=True)
    return manifest


def check_large(
    directory: str, manifest: dict[str, Any], size_mb: int, steps: int, tags: int
) -> str | None:
    """Why the cached large job does not fit the options (None when it does)."""
    path = os.path.join(directory, JOB_NAME, manifest.get("file", "?"))
    if not os.path.isfile(path):
        return f"{path} is missing"
    if os.path.getsize(path) != manifest.get("bytes"):
        return f"{path} has changed size since it was generated"
    if (manifest.get("steps"), manifest.get("tags")) != (steps, tags):
        return f"it holds {manifest.get('tags')} tags x {manifest.get('steps')} steps"
    if manifest["bytes"] < size_mb * 1e6:
        return f"it is {mb(manifest['bytes']):.1f} MB < {size_mb} MB"
    others = [f for f in os.listdir(os.path.join(directory, JOB_NAME)) if f != manifest["file"]]
    if others:
        return f"unexpected files in the job: {others}"
    return None


def large_job(size_mb: int, steps: int, tags: int, skip_check: bool) -> tuple[str, dict[str, Any]]:
    """The cached (or newly generated) large base directory and its manifest."""
    name = f"load_{size_mb}mb"
    if (steps, tags) != (50_000, 200):
        name += f"_{steps}steps_{tags}tags"
    directory = os.path.join(DATA_DIR, name)
    manifest_path = os.path.join(directory, MANIFEST)
    if os.path.isfile(manifest_path):
        with open(manifest_path) as handle:
            manifest = json.load(handle)
        problem = None if skip_check else check_large(directory, manifest, size_mb, steps, tags)
        if problem is None:
            print(f"cached: {directory} (generated in {manifest.get('seconds', '?')} s)")
            return directory, manifest
        print(f"cached {directory} is not usable ({problem}): generating it again")
    manifest = generate_large(directory, size_mb, steps, tags)
    problem = check_large(directory, manifest, size_mb, steps, tags)
    if problem is not None and not skip_check:
        raise SystemExit(f"generated data does not fit the options: {problem}")
    return directory, manifest


def linked_jobs(base: str, manifest: dict[str, Any], count: int) -> str:
    """A base directory of ``count`` jobs that each hold the large job's file (hard links: the
    same bytes, no more disk; a copy where links are refused)."""
    directory = f"{base}_x{count}"
    source = os.path.join(base, JOB_NAME, manifest["file"])
    for number in range(count):
        job = os.path.join(directory, f"{JOB_NAME}_{number}")
        target = os.path.join(job, manifest["file"])
        if os.path.isfile(target) and os.path.getsize(target) == manifest["bytes"]:
            continue
        os.makedirs(job, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.remove(target)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
    return directory


def small_jobs() -> str:
    """The cached (or newly generated) base directory of 1,200 small jobs."""
    directory = os.path.join(DATA_DIR, f"load_jobs_{JOB_GROUPS * JOBS_PER_GROUP}")
    if os.path.isdir(directory):
        return directory
    print(f"generating {directory}: {JOB_GROUPS} x {JOBS_PER_GROUP} small jobs", flush=True)
    scratch = directory + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    rng = np.random.default_rng(2)
    started = time.perf_counter()
    for group in range(JOB_GROUPS):
        for job in range(JOBS_PER_GROUP):
            path = os.path.join(scratch, f"group_{group:02d}", f"job_{job:03d}")
            with SummaryWriter(path, host="bench") as writer:
                for step in range(1, SMALL_STEPS + 1):
                    for i in range(SMALL_SCALARS):
                        writer.add_value("scalar", f"metric_{i}", float(rng.random()))
                    writer.record(step)
                writer.add_train_lineage(
                    optimizer="Momentum",
                    learning_rate=0.01 * (job + 1),
                    loss_function="SoftmaxCrossEntropy",
                    epoch=10,
                    batch_size=32,
                    train_dataset_size=60_000,
                    network="LeNet5",
                    loss=float(rng.random()),
                )
                writer.add_eval_lineage(
                    {"accuracy": float(rng.random())}, valid_dataset_size=10_000
                )
                writer.flush()
    os.rename(scratch, directory)
    print(
        f"generated {JOB_GROUPS * JOBS_PER_GROUP} jobs ({mb(tree_bytes(directory)):.1f} MB) "
        f"in {time.perf_counter() - started:.1f} s",
        flush=True,
    )
    return directory


def warm_page_cache(path: str) -> float:
    """Read the file once so that the measurements do not depend on the disk."""
    started = time.perf_counter()
    with open(path, "rb", buffering=0) as handle:
        while handle.read(16 << 20):
            pass
    return time.perf_counter() - started


def scan_only(path: str, slice_bytes: int = 32 << 20) -> float:
    """Seconds to frame, check and decode the file as the loader does, without any index."""
    reader = RecordReader(path)
    scanner = EventScanner()
    started = time.perf_counter()
    while True:
        scanner.scan_from(reader, slice_bytes)
        if reader.result.bytes_consumed == 0:
            return time.perf_counter() - started


# --- the measured processes ----------------------------------------------------------------------


def rss_mb() -> float:
    """Peak resident set size of this process so far, in MB.

    ``VmHWM`` of ``/proc/self/status`` where available: on Linux ``ru_maxrss`` (RUSAGE_SELF, and
    so RUSAGE_CHILDREN too) of a process started by fork/vfork + exec starts at the PARENT's peak
    RSS (exec keeps the old memory map's high-water mark), which would charge this script's own
    memory to the loader. ``ru_maxrss`` (KiB on Linux) elsewhere."""
    with contextlib.suppress(OSError), open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e6
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


class TreeRss:
    """The largest sum of the RSS of process ``pid`` (default: this one) and its children (the
    load workers), and (:attr:`children_peak`) of its children alone, seen by a thread sampling
    every ``interval`` seconds."""

    def __init__(self, interval: float = 0.02, pid: int | None = None) -> None:
        import psutil  # a dependency of dash-insight (dash-insight status)

        self._process = psutil.Process(pid)
        self._error = psutil.Error
        self.peak = 0
        self.children_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(interval,), daemon=True)
        self._thread.start()

    def _rss(self, process: Any) -> int:
        with contextlib.suppress(self._error):
            return int(process.memory_info().rss)
        return 0

    def _sample(self, interval: float) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(self._error):
                children = sum(map(self._rss, self._process.children(recursive=True)))
                self.children_peak = max(self.children_peak, children)
                self.peak = max(self.peak, children + self._rss(self._process))
            self._stop.wait(interval)

    def stop(self) -> float:
        """Stop sampling; the peak of the whole tree in MB."""
        self._stop.set()
        self._thread.join()
        return self.peak / 1e6


def child_cold(
    base: str, workspace: str, steps: int, tags: int, hist_tags: int, workers: int = 1
) -> dict[str, Any]:
    baseline = rss_mb()
    tree = TreeRss()
    started = time.perf_counter()
    store = IndexStore(index_directory(workspace, base))
    loader = Loader(base, store, reload_interval=0, load_workers=workers)
    changed = loader.load_round()
    loaded = time.perf_counter()
    rss_load = rss_mb()
    tree_load = tree.peak / 1e6
    provider = DataProvider(base, store)
    train_ids = [job.train_id for job in provider.list_jobs()]
    problems = []
    points = 0
    names: list[str] = []
    for train_id in train_ids:
        names = provider.list_tags(train_id, "scalar")
        for tag in names:
            series = provider.read_scalars(train_id, tag)
            points += len(series)
            if len(series) != steps or int(series.step[-1]) != steps:
                problems.append(
                    f"{train_id} {tag}: {len(series)} points, last step "
                    f"{int(series.step[-1]) if len(series) else None}"
                )
        if len(names) != tags:
            problems.append(f"{train_id}: {len(names)} scalar tags, expected {tags}")
    done = time.perf_counter()
    # Not timed: the histograms were indexed too.
    histogram_steps = 0
    reasons = []
    statuses = set()
    for train_id in train_ids:
        histogram_names = provider.list_tags(train_id, "histogram")
        if len(histogram_names) != hist_tags:
            problems.append(
                f"{train_id}: {len(histogram_names)} histogram tags, expected {hist_tags}"
            )
        histogram_steps += sum(
            len(provider.value_steps(train_id, "histogram", t)) for t in histogram_names
        )
        job = provider.job(train_id)
        statuses.add(job.status)
        reasons += list(job.reasons)
    store.close()
    return {
        "changed": changed,
        "load_round_s": loaded - started,
        "query_s": done - loaded,
        "total_s": done - started,
        "points": points,
        "tags": len(names),
        "jobs": len(train_ids),
        "histogram_steps": histogram_steps,
        "status": ",".join(sorted(statuses)),
        "reasons": reasons,
        "problems": problems,
        "rss_baseline_mb": baseline,
        "rss_after_load_mb": rss_load,
        "rss_tree_after_load_mb": tree_load,
        "rss_peak_mb": rss_mb(),
        "rss_tree_peak_mb": tree.stop(),
        "pool_passes": loader.pool_passes,
        "workers": workers,
    }


def child_warm(base: str, workspace: str, steps: int) -> dict[str, Any]:
    baseline = rss_mb()
    started = time.perf_counter()
    store = IndexStore(index_directory(workspace, base))
    loader = Loader(base, store, reload_interval=0)
    changed = loader.load_round()
    loaded = time.perf_counter()
    provider = DataProvider(base, store)
    tag = provider.list_tags(TRAIN_ID, "scalar")[0]
    series = provider.read_scalars(TRAIN_ID, tag)
    done = time.perf_counter()
    problems = []
    if changed:
        problems.append("load_round() found something new (the index should be complete)")
    if len(series) != steps or int(series.step[-1]) != steps:
        problems.append(f"{tag}: {len(series)} points")
    store.close()
    return {
        "changed": changed,
        "load_round_s": loaded - started,
        "query_s": done - loaded,
        "total_s": done - started,
        "tag": tag,
        "points": len(series),
        "problems": problems,
        "rss_baseline_mb": baseline,
        "rss_peak_mb": rss_mb(),
    }


def run_child(
    mode: str, base: str, workspace: str, manifest: dict[str, Any], workers: int = 1
) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter; its result is the JSON on its last line."""
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        mode,
        "--child-base",
        base,
        "--workspace",
        workspace,
        "--steps",
        str(manifest["steps"]),
        "--tags",
        str(manifest["tags"]),
        "--child-histogram-tags",
        str(manifest["histogram_tags"]),
        "--load-workers",
        str(workers),
    ]
    started = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"{mode} subprocess failed with exit code {completed.returncode}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = wall
    return result


# --- listing (in this process) -------------------------------------------------------------------


def measure_listing(base: str, workspace: str) -> dict[str, Any]:
    discover_jobs(base)  # warm-up: directory entries into the OS cache
    rescans = []
    for _ in range(5):
        started = time.perf_counter()
        jobs = discover_jobs(base)
        rescans.append(time.perf_counter() - started)
    index = index_directory(workspace, base)
    shutil.rmtree(index, ignore_errors=True)
    store = IndexStore(index)
    loader = Loader(base, store, reload_interval=0)
    started = time.perf_counter()
    loader.load_round()
    first_round = time.perf_counter() - started
    started = time.perf_counter()
    changed = loader.load_round()
    idle_round = time.perf_counter() - started
    provider = DataProvider(base, store)
    started = time.perf_counter()
    listed = provider.list_jobs()
    list_first = time.perf_counter() - started
    list_warm = []
    for _ in range(5):
        started = time.perf_counter()
        listed = provider.list_jobs()
        list_warm.append(time.perf_counter() - started)
    loaded = sum(
        1
        for job in listed
        if job.status == "loaded"
        and job.is_intact
        and len(job.tags["scalar"]) == SMALL_SCALARS
        and job.lineage_files == 1
    )
    store.close()
    return {
        "jobs": len(jobs),
        "rescans": rescans,
        "first_round": first_round,
        "idle_round": idle_round,
        "idle_changed": changed,
        "list_first": list_first,
        "list_warm": list_warm,
        "listed": len(listed),
        "loaded_intact": loaded,
    }


# --- one tag of 10M steps (--long-tag) ------------------------------------------------------------


def report_long_tag(steps: int, workspace: str, load_workers: int) -> bool:
    """Cold load (a fresh process, an empty index, ``--load-workers`` workers as the server
    runs) of one summary file holding ONE scalar tag of ``steps`` steps, one record per step
    (written once with :func:`generate_series_job` into :data:`CACHE_DIR`): seconds until
    ``load_round`` returns (every point indexed and queryable) and the peak RSS of the process
    and of the process with its load workers until then; targets 60 s and 500 MB. Then (for the
    check, not the targets) the whole series is read back in one array and compared."""
    base = generate_series_job(os.path.join(CACHE_DIR, f"load-1x{steps}"), 1, steps)
    size = tree_bytes(base) - os.path.getsize(os.path.join(base, MANIFEST))
    path = os.path.join(base, JOB_NAME)
    print(
        f"\none tag x {steps:,} steps: {mb(size):.0f} MB in one file ({path}), "
        f"{load_workers} load worker(s)"
    )
    for name in os.listdir(path):
        warm_page_cache(os.path.join(path, name))
    print(f"   before: {machine()}")
    manifest = {"steps": steps, "tags": 1, "histogram_tags": 0}
    fresh_index(workspace, base)
    cold = run_child("cold", base, workspace, manifest, load_workers)
    fresh_index(workspace, base)
    seconds = cold["load_round_s"]
    peak, tree = cold["rss_after_load_mb"], cold["rss_tree_after_load_mb"]
    print(
        f"   load (load_round: read, indexed, every point queryable): {seconds:8.1f} s "
        f"({mb(size) / seconds:.0f} MB/s)   target <= {TARGET_LONG_TAG_S:.0f} s   "
        f"{mark(seconds <= TARGET_LONG_TAG_S)}"
    )
    print(
        f"   peak RSS while loading: process {peak:.0f} MB, with its load workers {tree:.0f} MB"
        f"   target <= {TARGET_RSS_MB:.0f} MB {mark(max(peak, tree) <= TARGET_RSS_MB)}"
    )
    print(
        f"     (then read_scalars of the whole series in one array, checked: "
        f"{cold['query_s']:.1f} s, {cold['points']:,} points; peak RSS of the process "
        f"{cold['rss_peak_mb']:.0f} MB, with its workers {cold['rss_tree_peak_mb']:.0f} MB)"
    )
    print(f"   after: {machine()}")
    for problem in cold["problems"] + cold["reasons"]:
        print(f"   PROBLEM: {problem}")
    return (
        seconds <= TARGET_LONG_TAG_S
        and max(peak, tree) <= TARGET_RSS_MB
        and not cold["problems"] + cold["reasons"]
    )


# --- main ----------------------------------------------------------------------------------------


def fresh_index(workspace: str, base: str) -> None:
    """The cold run needs an empty index for ``base`` (only that index is removed)."""
    index = index_directory(workspace, base)
    if os.path.exists(index):
        print(f"removing the previous index {index}")
        shutil.rmtree(index)


def report(args: argparse.Namespace, base: str, manifest: dict[str, Any], workspace: str) -> bool:
    path = os.path.join(base, JOB_NAME, manifest["file"])
    size = os.path.getsize(path)
    print(
        f"\nlarge job: {path}\n  {mb(size):.1f} MB (>= {args.size_mb} MB: "
        f"{'yes' if size >= args.size_mb * 1e6 else 'NO'}), {manifest['tags']} scalar tags x "
        f"{manifest['steps']:,} steps, {manifest['histogram_tags']} histogram tags every "
        f"{manifest['histogram_every']} steps"
    )
    print(f"  read once into the OS page cache in {warm_page_cache(path):.2f} s")
    print(f"workspace: {workspace}")
    ok = True

    fresh_index(workspace, base)
    cold = run_child("cold", base, workspace, manifest)
    mbps = mb(size) / cold["total_s"]
    index_mb = mb(tree_bytes(index_directory(workspace, base)))
    print("\n1. cold load (fresh process, empty index) until every scalar point is queryable")
    print(
        f"   load_round:             {cold['load_round_s']:8.2f} s "
        f"({mb(size) / cold['load_round_s']:.0f} MB/s)"
    )
    print(
        f"   read_scalars x {cold['tags']:<8} {cold['query_s']:8.2f} s ({cold['points']:,} points)"
    )
    print(
        f"   total:                  {cold['total_s']:8.2f} s  -> {mbps:7.1f} MB/s   "
        f"target >= {TARGET_MBPS:.0f} MB/s  {mark(mbps >= TARGET_MBPS)}"
    )
    print(
        f"   peak RSS:               {cold['rss_peak_mb']:8.0f} MB          "
        f"target <  {TARGET_RSS_MB:.0f} MB    {mark(cold['rss_peak_mb'] < TARGET_RSS_MB)}"
    )
    print(
        f"     (after imports {cold['rss_baseline_mb']:.0f} MB, peak during load_round "
        f"{cold['rss_after_load_mb']:.0f} MB; process wall incl. start-up "
        f"{cold['process_wall_s']:.2f} s; index on disk {index_mb:.0f} MB; "
        f"{cold['histogram_steps']:,} histogram values indexed; job {cold['status']})"
    )
    scan_s = scan_only(path)
    print(
        f"     (for reference, framing + CRC + decode alone, no index, in this process: "
        f"{scan_s:.2f} s, {mb(size) / scan_s:.0f} MB/s)"
    )
    ok &= mbps >= TARGET_MBPS and cold["rss_peak_mb"] < TARGET_RSS_MB

    ok &= report_workers(args, base, manifest, workspace, size)

    warm = run_child("warm", base, workspace, manifest)
    print("\n2. warm restart (fresh process, same workspace) until one tag's series is returned")
    print(
        f"   load_round (no-op):     {warm['load_round_s']:8.3f} s "
        f"(found something new: {warm['changed']})"
    )
    print(f"   read_scalars x 1:       {warm['query_s']:8.3f} s ({warm['points']:,} points)")
    print(
        f"   total:                  {warm['total_s']:8.3f} s              "
        f"target <  {TARGET_WARM_S:.0f} s      {mark(warm['total_s'] < TARGET_WARM_S)}"
    )
    print(
        f"   peak RSS:               {warm['rss_peak_mb']:8.0f} MB "
        f"(after imports {warm['rss_baseline_mb']:.0f} MB; process wall incl. start-up "
        f"{warm['process_wall_s']:.2f} s)"
    )
    ok &= warm["total_s"] < TARGET_WARM_S

    problems = cold["problems"] + cold["reasons"] + warm["problems"]
    for problem in problems:
        print(f"   PROBLEM: {problem}")
    ok &= not problems

    jobs_base = small_jobs()
    listing = measure_listing(jobs_base, workspace)
    rescan = statistics.median(listing["rescans"])
    warm_list = statistics.median(listing["list_warm"])
    print(f"\n3. listing {listing['jobs']:,} jobs ({jobs_base})")
    print(
        f"   discover_jobs rescan:   {rescan:8.3f} s (median of 5, max "
        f"{max(listing['rescans']):.3f})  target <  {TARGET_LIST_S:.0f} s      "
        f"{mark(rescan < TARGET_LIST_S)}"
    )
    print(
        f"   list_jobs (warm):       {warm_list:8.3f} s (median of 5, max "
        f"{max(listing['list_warm']):.3f})  target <  {TARGET_LIST_S:.0f} s      "
        f"{mark(warm_list < TARGET_LIST_S)}"
    )
    print(
        f"     (first list_jobs {listing['list_first']:.3f} s; load_round: first "
        f"{listing['first_round']:.2f} s, idle {listing['idle_round']:.3f} s; "
        f"{listing['loaded_intact']:,} / {listing['listed']:,} listed jobs loaded and intact)"
    )
    ok &= rescan < TARGET_LIST_S and warm_list < TARGET_LIST_S
    expected = JOB_GROUPS * JOBS_PER_GROUP
    if listing["jobs"] != expected or listing["loaded_intact"] != expected:
        print("   PROBLEM: not every small job was found, loaded and intact")
        ok = False
    if listing["idle_changed"]:
        print("   PROBLEM: a second load_round of the small jobs found something new")
        ok = False
    print(f"\n{'all targets met' if ok else 'some targets missed'}")
    return ok


def report_workers(
    args: argparse.Namespace, base: str, manifest: dict[str, Any], workspace: str, size: int
) -> bool:
    """Cold load of ``--jobs`` copies of the large job with 1 and with ``--load-workers``
    workers."""
    jobs_base = linked_jobs(base, manifest, args.jobs)
    total = mb(size * args.jobs)
    print(
        f"\n1b. cold load of {args.jobs} jobs holding that file ({total:.0f} MB, {jobs_base}) "
        f"with 1 and with {args.load_workers} load workers"
    )
    ok = True
    figures = {}
    for workers in sorted({1, args.load_workers}):
        fresh_index(workspace, jobs_base)
        result = run_child("cold", jobs_base, workspace, manifest, workers)
        figures[workers] = rate = total / result["total_s"]
        print(
            f"   {workers} worker{'s' if workers > 1 else ' '}: {result['total_s']:8.2f} s  "
            f"-> {rate:7.1f} MB/s (load_round {result['load_round_s']:.2f} s, "
            f"{result['pool_passes']} passes on worker processes); peak RSS: loader process "
            f"{result['rss_peak_mb']:.0f} MB ({result['rss_after_load_mb']:.0f} MB until "
            f"every job was loaded, the rest reading every series), with its workers "
            f"{result['rss_tree_peak_mb']:.0f} MB   target < {TARGET_RSS_MB:.0f} MB "
            f"{mark(result['rss_tree_peak_mb'] < TARGET_RSS_MB)}; {machine()}"
        )
        for problem in result["problems"] + result["reasons"]:
            print(f"   PROBLEM: {problem}")
            ok = False
        if result["jobs"] != args.jobs:
            print(f"   PROBLEM: {result['jobs']} jobs listed, expected {args.jobs}")
            ok = False
    if len(figures) > 1:
        print(
            f"   speed-up with {args.load_workers} workers over 1: "
            f"{figures[args.load_workers] / figures[1]:.2f}x"
        )
    fresh_index(workspace, jobs_base)
    return ok


# --- a job of long series (--series-job) ---------------------------------------------------------


def series_value(step: np.ndarray, tag: int) -> np.ndarray:
    """The float32 value of tag number ``tag`` at each step: deterministic, so a check can
    recompute it (a slow wave per tag plus hashed noise)."""
    noise = ((step * 2654435761 + tag * 40503) % 1000).astype(np.float64) / 1000.0 - 0.5
    return (np.sin(step / 1e6 + tag) + 2.0 + 0.05 * noise).astype(np.float32)


def generate_series_job(directory: str, tags: int, steps: int) -> str:
    """``directory/job/``: ONE summary file, one record per step holding ``tags`` scalars (steps
    1 .. ``steps``); skipped when a complete one is there. The records are built with one reused
    protobuf Event and framed directly (the ``SummaryWriter`` API, one value at a time, would
    take an hour for 200 million values); the file is named and started by ``SummaryWriter``.
    Returns the base directory."""
    from dash_insight.core.format.framing import frame_record
    from dash_insight.core.format.protos import summary_pb2

    done = os.path.join(directory, MANIFEST)
    if os.path.exists(done):
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    job = os.path.join(directory, JOB_NAME)
    print(f"generating {job}: {tags} scalar tags x {steps:,} steps (once) ...", flush=True)
    started = time.perf_counter()
    with SummaryWriter(job, host="bench") as writer:
        path = writer.summary_path
    event = summary_pb2.Event()
    values = [event.summary.value.add() for _ in range(tags)]
    for value, name in zip(values, scalar_tags(tags), strict=True):
        value.tag = name
    block = 100_000
    with open(path, "ab") as handle:
        for first in range(1, steps + 1, block):
            step_block = np.arange(first, min(first + block, steps + 1), dtype=np.int64)
            columns = [series_value(step_block, tag).tolist() for tag in range(tags)]
            frames = []
            for row, step in enumerate(step_block.tolist()):
                event.step = step
                event.wall_time = 1.7e9 + step * 0.01
                for tag, value in enumerate(values):
                    value.scalar_value = columns[tag][row]
                frames.append(frame_record(event.SerializeToString()))
            handle.write(b"".join(frames))
            if (first // block) % 10 == 0:
                print(
                    f"  step {int(step_block[-1]):>11,}: {mb(handle.tell()):7.0f} MB, "
                    f"{time.perf_counter() - started:5.0f} s",
                    flush=True,
                )
    with open(done, "w") as handle:
        json.dump({"tags": tags, "steps": steps, "bytes": os.path.getsize(path)}, handle)
    print(
        f"generated {mb(os.path.getsize(path)):.0f} MB in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return directory


def process_rss_mb(pid: int) -> tuple[float, float]:
    """(peak RSS ``VmHWM``, current RSS ``VmRSS``) of process ``pid``, in MB."""
    fields = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                fields[key] = int(rest.split()[0]) * 1024 / 1e6
    return fields["VmHWM"], fields["VmRSS"]


METADATA = "/v1/mindinsight/datavisual/scalar/metadata"
SCALARS = "/v1/mindinsight/datavisual/scalars"


def report_series_job(base: str, tags: int, steps: int, width: int, load_workers: int) -> bool:
    """Serve the long-series job (``python -m dash_insight.server``, as ``dash-insight start``)
    and print the server process's peak RSS (``VmHWM``) after loading it, after an overview of
    every tag at ``width`` points, after a page (``scalars`` of every tag at once) and after
    zooming 5 times into three tags down to 100 steps and panning; with the server time of
    each request (its access log) and the check that the last views hold the exact values
    written."""
    from rest import Server  # bench/, beside this script

    size = tree_bytes(base)
    print(
        f"\nlong series: {tags} tags x {steps:,} steps, {mb(size):.0f} MB ({base}), "
        f"{load_workers} load worker(s); {machine()}"
    )
    workspace = tempfile.mkdtemp(prefix="dash-insight-range-")
    server = Server(base, workspace, ["--load-workers", str(load_workers)])
    ok = True
    try:
        tree = TreeRss(0.05, pid=server.process.pid)
        started = time.perf_counter()
        server.wait_loaded(timeout=7200)
        seconds = time.perf_counter() - started
        peak, now = process_rss_mb(server.process.pid)
        tree_peak, workers_peak = tree.stop(), tree.children_peak / 1e6
        index_mb = mb(tree_bytes(os.path.join(workspace, "index")))
        wal = os.path.join(index_directory(workspace, base), "cache.db-wal")
        wal_mb = mb(os.path.getsize(wal)) if os.path.exists(wal) else 0.0
        print(
            f"   load: {seconds:.0f} s ({mb(size) / seconds:.0f} MB/s), index {index_mb:.0f} "
            f"MB (of which the write-ahead log {wal_mb:.0f} MB); server peak RSS {peak:.0f} "
            f"MB (now {now:.0f} MB), its load workers together {workers_peak:.0f} MB, the "
            f"server and its workers at once {tree_peak:.0f} MB   target < "
            f"{TARGET_RSS_MB:.0f} MB {mark(tree_peak < TARGET_RSS_MB)}; {machine()}"
        )
        ok &= peak < TARGET_RSS_MB and tree_peak < TARGET_RSS_MB
        names = scalar_tags(tags)
        train_id = f"./{JOB_NAME}"
        server.server_seconds()
        for name in names:
            status, body = server.get(
                METADATA, {"train_id": train_id, "tag": f"{name}/scalar", "max_points": width}
            )
            answer = json.loads(body)
            if status != 200 or answer["points_in_range"] != steps:
                print(f"   PROBLEM: overview of {name}: {status} {body[:200]!r}")
                ok = False
        times = [s * 1e3 for s in server.server_seconds()]
        peak, now = process_rss_mb(server.process.pid)
        print(
            f"   overview of each tag at {width} px ({len(names)} requests): server time p50 "
            f"{statistics.median(times):.0f} ms, max {max(times):.0f} ms; server peak RSS "
            f"{peak:.0f} MB (now {now:.0f} MB) {mark(peak < TARGET_RSS_MB)}; {machine()}"
        )
        ok &= peak < TARGET_RSS_MB
        for _ in range(3):
            status, body = server.get(
                SCALARS,
                [
                    ("train_id", train_id),
                    *[("tag", f"{n}/scalar") for n in names],
                    ("max_points", width),
                ],
            )
            ok &= status == 200
        times = [s * 1e3 for s in server.server_seconds()]
        peak, now = process_rss_mb(server.process.pid)
        print(
            f"   page: scalars of all {len(names)} tags at {width} px, 3 times: server time "
            f"p50 {statistics.median(times):.0f} ms, {len(body):,} bytes; server peak RSS "
            f"{peak:.0f} MB (now {now:.0f} MB) {mark(peak < TARGET_RSS_MB)}"
        )
        ok &= peak < TARGET_RSS_MB
        ok &= zoom_tags(server, names[:: max(1, len(names) // 3)][:3], steps, width)
        peak, now = process_rss_mb(server.process.pid)
        print(
            f"   after the zooms: server peak RSS {peak:.0f} MB (now {now:.0f} MB)   "
            f"target < {TARGET_RSS_MB:.0f} MB {mark(peak < TARGET_RSS_MB)}; {machine()}"
        )
        ok &= peak < TARGET_RSS_MB
    finally:
        server.close()
        shutil.rmtree(workspace, ignore_errors=True)
    return ok


def zoom_tags(server: Any, names: list[str], steps: int, width: int) -> bool:
    """Zoom 5 times (each a tenth of the window, centred at 73 % of the steps) down to 100
    steps, then pan left and right, on each of ``names``; checks the raw views."""
    ok = True
    for tag_name in names:
        tag, number = tag_name, int(tag_name.rsplit("_", 1)[1])
        middle = int(steps * 0.7314)
        views = []
        span = steps
        for _ in range(5):
            span = max(100, span // 10)
            start = max(1, middle - span // 2)
            views.append((start, min(steps, start + span - 1)))
        start, end = views[-1]
        views += [(start - 50, end - 50), (start + 50, end + 50)]
        server.server_seconds()
        raw_checks = []
        drawn = []
        for start, end in views:
            _, body = server.get(
                METADATA,
                {
                    "train_id": f"./{JOB_NAME}",
                    "tag": f"{tag}/scalar",
                    "start_step": start,
                    "end_step": end,
                    "max_points": width,
                },
            )
            answer = json.loads(body)
            points = answer["metadatas"]
            drawn.append(len(points))
            if answer["points_in_range"] == len(points):
                expected = series_value(np.arange(start, end + 1, dtype=np.int64), number)
                raw_checks.append(
                    [p["step"] for p in points] == list(range(start, end + 1))
                    and [p["value"] for p in points] == expected.astype(np.float64).tolist()
                )
        times = [s * 1e3 for s in server.server_seconds()]
        exact = bool(raw_checks) and all(raw_checks)
        ok &= exact and max(times) < 150
        print(
            f"   zoom {tag}: {len(views)} requests, server time "
            + " ".join(f"{t:.0f}" for t in times)
            + f" ms (max {max(times):.0f}, target < 150 "
            f"{mark(max(times) < 150)}); points drawn "
            + " ".join(map(str, drawn))
            + f"; last {len(raw_checks)} views exact raw values: {'yes' if exact else 'NO'}"
        )
    return ok


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
        "--skip-generate-check",
        action="store_true",
        help="use cached data as is (no check against the options and sizes)",
    )
    parser.add_argument(
        "--workspace", help="index workspace (default: a temporary directory, removed at the end)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary workspace")
    parser.add_argument(
        "--jobs",
        type=int,
        default=4,
        help="jobs of the multi-job cold load (each holds the large file)",
    )
    parser.add_argument(
        "--load-workers",
        type=int,
        default=default_load_workers(),
        help="load workers compared with 1 (default: the core count)",
    )
    parser.add_argument(
        "--series-job",
        metavar="DIR",
        help="instead: write (once) a job of --tags tags x --steps steps into "
        "DIR, serve it and print the server's peak RSS for the load, an "
        "overview per tag, a page and zooms (e.g. --tags 20 --steps "
        "10000000: 5.3 GB)",
    )
    parser.add_argument(
        "--width", type=int, default=1000, help="chart width in points for --series-job"
    )
    parser.add_argument(
        "--long-tag",
        type=int,
        nargs="?",
        const=LONG_TAG_STEPS,
        metavar="STEPS",
        help="instead: cold load of one file of ONE scalar tag x STEPS steps (default "
        f"{LONG_TAG_STEPS:,}: 568 MB, written once under {CACHE_DIR}); time and peak RSS",
    )
    parser.add_argument("--child", choices=("cold", "warm"), help=argparse.SUPPRESS)
    parser.add_argument("--child-base", help=argparse.SUPPRESS)
    parser.add_argument("--child-histogram-tags", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    print(f"machine: {machine()}")

    if args.child == "cold":
        print(
            json.dumps(
                child_cold(
                    args.child_base,
                    args.workspace,
                    args.steps,
                    args.tags,
                    args.child_histogram_tags,
                    args.load_workers,
                )
            )
        )
        return 0
    if args.child == "warm":
        print(json.dumps(child_warm(args.child_base, args.workspace, args.steps)))
        return 0

    if args.long_tag:
        workspace = args.workspace or tempfile.mkdtemp(prefix="dash-insight-load-")
        try:
            return 0 if report_long_tag(args.long_tag, workspace, args.load_workers) else 1
        finally:
            if args.workspace is None and not args.keep:
                shutil.rmtree(workspace, ignore_errors=True)
    if args.series_job:
        base = generate_series_job(args.series_job, args.tags, args.steps)
        return (
            0
            if report_series_job(base, args.tags, args.steps, args.width, args.load_workers)
            else 1
        )
    base, manifest = large_job(args.size_mb, args.steps, args.tags, args.skip_generate_check)
    small_jobs()
    workspace = args.workspace or tempfile.mkdtemp(prefix="dash-insight-load-")
    os.makedirs(workspace, exist_ok=True)
    try:
        ok = report(args, base, manifest, workspace)
    finally:
        if args.workspace is None and not args.keep:
            shutil.rmtree(workspace, ignore_errors=True)
        else:
            print(f"workspace kept: {workspace}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(recorded(main, __file__))
