"""Landing where the charts are (issue 38 item 10): with exactly one training job, opening the
bare home URL answers with a redirect to that job's training dashboard, as TensorBoard opens
on its charts.

Only a load of the bare home URL (no query) opened from outside the app (typed, bookmarked,
a link of another site) is redirected, on the server (302): the "Summary List" link and the
brand still show the list, whether they move inside the document or open the list as a new
document (``assets/page-bundles.js``: the list's answer is asked for with a ``Referer`` of the
app's own), and the redirect leaves no entry of its own in the browser's history (Back from
the dashboard never comes back to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import dash
import flask
from werkzeug.wrappers import Response

from dash_insight.core.provider import DataProvider, JobSummary
from dash_insight.web.shell import app_referrer
from dash_insight.web.url_state import Text, TypedUrlState, make_search

DASHBOARD_PATH = "/dashboard"
#: The longest job id read from a landing URL: a job id is a folder's path, at most PATH_MAX
#: (4096 on Linux).
MAX_TRAIN_ID_CHARS = 4096


@dataclass(frozen=True)
class LandingUrl:
    """The URL state the landing writes: the job of the training dashboard it opens. (What it
    reads of the home URL is only whether it has a query at all: any query is the list's.)"""

    train_id: str = ""


#: :class:`LandingUrl` in the URL: ``?train_id=<job>``.
STATE: TypedUrlState[LandingUrl] = TypedUrlState(
    LandingUrl, train_id=Text("train_id", max_chars=MAX_TRAIN_ID_CHARS)
)


def landing_job(jobs: Sequence[JobSummary]) -> str | None:
    """The train_id the home page lands on: that of the only job when there is exactly one and
    it has a training dashboard (a summary or graph file); None otherwise (the list)."""
    if len(jobs) != 1:
        return None
    job = jobs[0]
    return job.train_id if job.summary_files or job.graph_files else None


def landing_url(app: dash.Dash, train_id: str) -> str:
    """The URL (below the app's prefix as the browser sees it) of a job's dashboard."""
    return app.get_relative_path(DASHBOARD_PATH) + make_search(STATE.params(LandingUrl(train_id)))


def install(app: dash.Dash, provider: DataProvider) -> None:
    """Redirect a GET of the bare home URL from outside the app to the only job's dashboard
    (see the module). Installed after the host check, so a refused host learns no job name."""
    home = app.config.routes_pathname_prefix
    prefix = app.config.requests_pathname_prefix

    @app.server.before_request
    def land_on_charts() -> Response | None:
        request = flask.request
        if request.method != "GET" or request.path != home or request.query_string:
            return None
        if app_referrer(request.referrer, request.host, prefix) is not None:
            return None  # the list, asked for from a page of the app
        if not provider.ready:
            return None  # still looking: the list says so
        train_id = landing_job(provider.list_jobs())
        if train_id is None:
            return None
        answer = flask.redirect(landing_url(app, train_id), code=302)
        answer.headers["Cache-Control"] = "no-store"  # the number of jobs changes
        return answer
