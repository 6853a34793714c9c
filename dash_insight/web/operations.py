"""Probes and metrics for operators: ``/healthz``, ``/readyz`` and ``/metrics`` below the
app's prefix.

* ``/healthz``: liveness, ``{"status": "ok"}`` while the process answers requests at all;
* ``/readyz``: ``{"ready", "checks": {"index", "store", "discovery"}}`` (each ``{"ok",
  "detail"}``, the discovery's ``age_seconds``): 200 when the index answers and the summary
  store can be listed, else 503. A stale discovery (no worker published one for a while:
  :func:`~dash_insight.core.operations.stale_after`) is reported but does not make a web
  process unready: it still serves what the index holds;
* ``/metrics``: Prometheus' text format (0.0.4): jobs, each job's bytes not read yet and bytes
  read, the index reachable, the last discovery's age, the tasks a fleet's workers finished
  (by task and outcome: they count them in Redis, so any web process shows them), request
  latency per route (a histogram), requests and errors per route and status.

``/healthz`` and ``/readyz`` hold nothing of the logs, so they answer any ``Host`` (probes use
the pod's address); ``/metrics`` names jobs and is checked like any other path (a scraper
from another host needs ``--allowed-hosts``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import defaultdict
from collections.abc import Iterable

import flask

from dash_insight.core.operations import discovery_check, index_check
from dash_insight.core.service import DataService
from dash_insight.web.http import json_response

#: The upper bounds (seconds) of the request latency histogram's buckets.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
PROBES = ("healthz", "readyz")
_START_KEY = "dash_insight.operations.start"


class RequestMetrics:
    """Counts and latencies of the requests answered, per route (the URL rule, so the label
    set stays small) and status."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.buckets: dict[str, list[int]] = defaultdict(lambda: [0] * len(LATENCY_BUCKETS))
        self.sums: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)
        self.statuses: dict[tuple[str, int], int] = defaultdict(int)

    def observe(self, route: str, status: int, seconds: float) -> None:
        with self._lock:
            buckets = self.buckets[route]
            for i, bound in enumerate(LATENCY_BUCKETS):
                if seconds <= bound:
                    buckets[i] += 1
            self.sums[route] += seconds
            self.counts[route] += 1
            self.statuses[(route, status)] += 1

    def lines(self) -> Iterable[str]:
        with self._lock:
            yield "# HELP dash_insight_request_duration_seconds Time to answer a request."
            yield "# TYPE dash_insight_request_duration_seconds histogram"
            for route in sorted(self.counts):
                label = _label(route)
                for bound, count in zip(LATENCY_BUCKETS, self.buckets[route], strict=True):
                    yield (
                        f'dash_insight_request_duration_seconds_bucket{{route="{label}",'
                        f'le="{bound}"}} {count}'
                    )
                yield (
                    f'dash_insight_request_duration_seconds_bucket{{route="{label}",le="+Inf"}} '
                    f"{self.counts[route]}"
                )
                total = self.sums[route]
                yield f'dash_insight_request_duration_seconds_sum{{route="{label}"}} {total}'
                yield (
                    f'dash_insight_request_duration_seconds_count{{route="{label}"}} '
                    f"{self.counts[route]}"
                )
            yield "# HELP dash_insight_requests_total Requests answered, by route and status."
            yield "# TYPE dash_insight_requests_total counter"
            for (route, status), count in sorted(self.statuses.items()):
                labels = f'route="{_label(route)}",status="{status}"'
                yield f"dash_insight_requests_total{{{labels}}} {count}"
            yield "# HELP dash_insight_errors_total Requests answered with a 5xx status."
            yield "# TYPE dash_insight_errors_total counter"
            errors: dict[str, int] = defaultdict(int)
            for (route, status), count in self.statuses.items():
                if status >= 500:
                    errors[route] += count
            for route in sorted(errors):
                yield f'dash_insight_errors_total{{route="{_label(route)}"}} {errors[route]}'


def _label(value: str) -> str:
    """A Prometheus label value: backslash, quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def install(server: flask.Flask, prefix: str, data: DataService) -> RequestMetrics:
    """Mount the three endpoints below ``prefix`` and time every request under it."""
    metrics = RequestMetrics()
    probe = data.store_probe
    base = prefix.rstrip("/")

    @server.before_request
    def start_clock() -> None:
        flask.request.environ[_START_KEY] = time.perf_counter()

    @server.after_request
    def observe(response: flask.Response) -> flask.Response:
        started = flask.request.environ.get(_START_KEY)
        if started is not None and flask.request.path.startswith(prefix):
            rule = flask.request.url_rule
            metrics.observe(
                rule.rule if rule is not None else "other",
                response.status_code,
                time.perf_counter() - started,
            )
        return response

    def healthz() -> flask.Response:
        """Liveness: ``{"status": "ok"}`` while the process answers ([Fleet](../fleet.md))."""
        return json_response({"status": "ok"})

    def readyz() -> flask.Response:
        """Readiness: ``{"ready", "checks": {"index", "store", "discovery"}}``, 503 when the
        index or the summary store cannot be read ([Fleet](../fleet.md))."""
        checks = {
            "index": index_check(data.store),
            "store": probe.check(),
            "discovery": discovery_check(data.store, data.settings.reload_interval),
        }
        ready = checks["index"].ok and checks["store"].ok
        body = {"ready": ready, "checks": {name: c.to_dict() for name, c in checks.items()}}
        return json_response(body, 200 if ready else 503)

    def metrics_text() -> flask.Response:
        """Prometheus' text format: jobs, load lag, tasks, request latency and errors
        ([Fleet](../fleet.md))."""
        lines = list(_service_lines(data))
        lines += metrics.lines()
        return flask.Response(
            "\n".join(lines) + "\n", mimetype="text/plain", content_type=PROMETHEUS_TYPE
        )

    server.add_url_rule(f"{base}/healthz", "dash_insight_healthz", healthz)
    server.add_url_rule(f"{base}/readyz", "dash_insight_readyz", readyz)
    server.add_url_rule(f"{base}/metrics", "dash_insight_metrics", metrics_text)
    return metrics


PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _service_lines(data: DataService) -> Iterable[str]:
    """The gauges of the index: jobs, per-job load lag and bytes read, reachability and the
    last discovery's age."""
    check = index_check(data.store)
    yield "# HELP dash_insight_index_reachable 1 when the index answers."
    yield "# TYPE dash_insight_index_reachable gauge"
    yield f"dash_insight_index_reachable {int(check.ok)}"
    discovery = discovery_check(data.store, data.settings.reload_interval)
    if discovery.age_seconds is not None:
        yield "# HELP dash_insight_discovery_age_seconds Seconds since the last discovery."
        yield "# TYPE dash_insight_discovery_age_seconds gauge"
        yield f"dash_insight_discovery_age_seconds {discovery.age_seconds:.3f}"
    counts = getattr(data.store, "task_counts", None)
    if counts is not None and check.ok:
        yield "# HELP dash_insight_fleet_tasks_total Tasks the fleet's workers finished."
        yield "# TYPE dash_insight_fleet_tasks_total counter"
        with contextlib.suppress(Exception):
            for (task, outcome), count in sorted(counts().items()):
                labels = f'task="{_label(task)}",outcome="{_label(outcome)}"'
                yield f"dash_insight_fleet_tasks_total{{{labels}}} {count}"
    try:
        jobs = data.provider.list_jobs()
    except Exception:  # the index is unreachable: said by dash_insight_index_reachable
        return
    yield "# HELP dash_insight_jobs Jobs in the index."
    yield "# TYPE dash_insight_jobs gauge"
    yield f"dash_insight_jobs {len(jobs)}"
    yield "# HELP dash_insight_job_load_lag_bytes Bytes on disk not read into the index yet."
    yield "# TYPE dash_insight_job_load_lag_bytes gauge"
    for job in jobs:
        lag = max(0, job.bytes_on_disk - job.bytes_read)
        yield f'dash_insight_job_load_lag_bytes{{train_id="{_label(job.train_id)}"}} {lag}'
    yield "# HELP dash_insight_bytes_read Bytes of summary files read into the index."
    yield "# TYPE dash_insight_bytes_read gauge"
    yield f"dash_insight_bytes_read {sum(job.bytes_read for job in jobs)}"
