"""The jobs plugin's REST routes: MindInsight's ``train-jobs``, ``train-job-caches``,
``plugins`` and ``single-job`` (``TrainTaskManager``, spec §3).

Deliberate differences from MindInsight 2.3.1: every job is listed, at any depth
(``./nested/grp/job_a``), with no 999-job cap and no 15-job detail cache, so every listed job is
queryable and ``cache_status`` is ``CACHED`` once the loader has read all its bytes (``CACHING``
before); ``load_status`` is ``loaded`` when every job is; every tag is listed (no
300-tags-per-job or 6-tensor-tags cap); ``create_time`` is the job's oldest file-name timestamp
and ``update_time`` its newest file modification time (MindInsight: both from the newest-named
file).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, request

from dash_insight.core.provider import DataProvider, JobSummary
from dash_insight.core.service import DataService
from dash_insight.core.store.health import LoaderHealth
from dash_insight.core.vocabulary import (
    MINDINSIGHT_PLUGINS,
    OPTIMIZED_GRAPH,
    GraphMode,
    PluginName,
    graph_tags_for_mode,
    mindinsight_tag,
)
from dash_insight.web import errors
from dash_insight.web.http import (
    JsonBodyError,
    check_train_id,
    json_body,
    json_response,
    known_job,
    local_time,
    required_args,
    resolve_job,
    str_to_bool,
    to_int,
)
from dash_insight.web.plugin import DASH_INSIGHT_API, Route

#: ``limit`` of ``/train-jobs`` (``SummaryWatcher.MAX_SUMMARY_DIR_COUNT``).
MAX_TRAIN_JOBS_LIMIT = 999


def cache_status(job: JobSummary) -> str:
    """``CACHED`` once every byte on disk has been read (and from then on, also while the job
    grows), ``CACHING`` before."""
    return "CACHED" if job.loaded_once or job.status == "loaded" else "CACHING"


def routes(service: DataService) -> list[Route]:
    views = _JobViews(service.provider, service.name, service.loader_health)
    return [
        Route("datavisual/train-jobs", views.train_jobs),
        Route("datavisual/train-job-caches", views.train_job_caches, ("POST",)),
        Route("datavisual/plugins", views.plugins),
        Route("datavisual/single-job", views.single_job),
        Route("loader", views.loader, api=DASH_INSIGHT_API),
    ]


#: ``load_status`` while the index store cannot be reached (dash-insight's addition): the jobs
#: are listed as this process last read them.
INDEX_UNREACHABLE = "index_unreachable"

#: The most ids one ``train-job-caches`` request may name (MindInsight lists at most 999 jobs).
MAX_CACHE_IDS = 1000


class _JobViews:
    def __init__(
        self, provider: DataProvider, base_name: str, health: Callable[[], LoaderHealth]
    ) -> None:
        self.provider = provider
        self.base_name = base_name
        self.health = health

    def loader(self) -> Response:
        """``GET /v1/dash-insight/loader`` -> ``{"state": "loading" | "caught_up" | "stalled" |
        "rebuilding", "reason", "detail", "since"}`` (dash-insight's addition: MindInsight's
        ``load_status`` cannot say that loading stopped, nor why, nor that an emptied index is
        read again)."""
        return json_response(self.health().to_dict())

    def _plugins(self, job: JobSummary) -> dict[str, list[str]]:
        """``{plugin: sorted MindInsight tags}`` for the 7 plugins (``get_plugins``): graph tags
        are file names, optimized ones ``"<file> (optimized)"``,
        ``ms_output_optimize.pb`` first."""
        graphs = job.tags.get(PluginName.GRAPH, [])
        plugins = {}
        for plugin in MINDINSIGHT_PLUGINS:
            if plugin == PluginName.GRAPH:
                tags = graph_tags_for_mode(graphs, GraphMode.NORMAL)
            elif plugin == OPTIMIZED_GRAPH:
                tags = graph_tags_for_mode(graphs, GraphMode.OPTIMIZE)
            else:
                tags = sorted(mindinsight_tag(tag, plugin) for tag in job.tags.get(plugin, []))
            plugins[plugin] = tags
        return plugins

    def _job_item(self, job: JobSummary) -> dict[str, Any]:
        """One ``train_jobs`` entry (``TrainTaskManager._get_train_job_item``, same key order):
        ``profiler_dir`` (``./profiler``) and ``profiler_type`` (``cpu``) of a profiled job, and
        then, only for one, ``graph_mode`` (``static``, or ``dynamic`` with a
        ``dynamic_shape_info*`` file)."""
        item = {
            "train_id": job.train_id,
            "relative_path": job.train_id,
            "create_time": local_time(job.create_time),
            "update_time": local_time(job.update_time),
            "profiler_dir": job.profiler_dir,
            "cache_status": cache_status(job),
            "profiler_type": job.profiler_type,
            "summary_files": job.summary_files,
            "graph_files": job.graph_files,
            "lineage_files": job.lineage_files,
            "dump_dir": None,
            "is_integrity": job.is_intact,
            "plugins": self._plugins(job),
        }
        if job.profiler_type:
            item["graph_mode"] = job.profiler_graph_mode or "static"
        return item

    # -- train jobs --
    def train_jobs(self) -> Response:
        """``GET /datavisual/train-jobs?offset=&limit=&train_id=``: page ``offset`` (a page
        index, default 0) of ``limit`` (1..999, default 10) jobs, newest update first; with
        ``train_id`` only that job (``total`` 0 and no entry if unknown). MindInsight's
        ``query_train_jobs``."""
        offset = to_int(request.args.get("offset", "0"), "offset")
        if offset < 0:
            raise errors.param_value_error("'offset' should be greater than or equal to 0.")
        limit = to_int(request.args.get("limit", "10"), "limit")
        if not 1 <= limit <= MAX_TRAIN_JOBS_LIMIT:
            raise errors.param_value_error(f"'limit' should in [1, {MAX_TRAIN_JOBS_LIMIT}].")
        jobs = self.provider.list_jobs()
        load_status = (
            "loaded"
            if self.provider.ready
            and all(job.loaded_once or job.status == "loaded" for job in jobs)
            else "loading"
        )
        if self.provider.unreachable is not None:  # the jobs as this process last read them
            load_status = INDEX_UNREACHABLE
        train_id = request.args.get("train_id")
        if train_id is not None:
            job = known_job(self.provider, train_id)
            selected = [job] if job is not None else []
            total = len(selected)
        else:
            total = len(jobs)
            selected = jobs[offset * limit : (offset + 1) * limit]
        return json_response(
            {
                "name": self.base_name,
                "total": total,
                "train_jobs": [self._job_item(job) for job in selected],
                "load_status": load_status,  # after the jobs, as in MindInsight's answers
            }
        )

    def train_job_caches(self) -> Response:
        """``POST /datavisual/train-job-caches {"train_ids": [...]}`` -> each known job's
        ``cache_status`` (unknown ids skipped). Every job is always readable here, so this only
        reports; MindInsight's ``cache_train_jobs``. A body over 1 MiB is refused (413), and
        more than :data:`MAX_CACHE_IDS` ids (400); the index is read once, and an id not in
        the listing costs a set lookup and a syntax check (a malformed one answers 400)."""
        try:
            data = json_body() if request.is_json else None
        except JsonBodyError:
            data = None
        train_ids = data.get("train_ids") if isinstance(data, dict) else None
        if train_ids is None:
            raise errors.param_missing("train_ids")
        if not isinstance(train_ids, list):
            raise errors.param_type_error("train_ids", str(list))
        if not all(isinstance(train_id, str) for train_id in train_ids):
            raise errors.param_type_error("train_id", str(str))
        if len(train_ids) > MAX_CACHE_IDS:
            raise errors.param_value_error(
                f"train_ids names {len(train_ids):,} jobs; at most {MAX_CACHE_IDS:,} at once."
            )
        listed = {job.train_id: job for job in self.provider.list_jobs()}
        result = []
        for train_id in train_ids:
            job = listed.get(train_id)  # every job is listed: the others are unknown
            if job is None:
                check_train_id(train_id)  # a malformed id is still refused, with no I/O
                continue
            result.append({"train_id": train_id, "cache_status": cache_status(job)})
        return json_response({"cache_result": result})

    def plugins(self) -> Response:
        """``GET /datavisual/plugins?train_id=&manual_update=`` -> ``{"plugins": {plugin:
        [sorted tags]}}`` (``TrainTaskManager.get_plugins``; ``manual_update`` is validated, and
        has nothing to do: the loader keeps every job current)."""
        str_to_bool(request.args.get("manual_update", "false"), "manual_update")
        (train_id,) = required_args("train_id")
        return json_response({"plugins": self._plugins(resolve_job(self.provider, train_id))})

    def single_job(self) -> Response:
        """``GET /datavisual/single-job?train_id=&plugin_name=`` -> ``{"train_jobs": [{"id",
        "name", "tags"}]}`` (``TrainTaskManager.get_single_train_task``)."""
        plugin_name, train_id = required_args("plugin_name", "train_id")
        if plugin_name not in MINDINSIGHT_PLUGINS:
            raise errors.plugin_not_available(
                f"'plugin_name' only can be one of {list(MINDINSIGHT_PLUGINS)}"
            )
        job = resolve_job(self.provider, train_id)
        tags = self._plugins(job)[plugin_name]
        return json_response({"train_jobs": [{"id": train_id, "name": train_id, "tags": tags}]})
