"""Landing where the charts are (issue 38 item 10): with exactly one job, ``/`` opens its
training dashboard; the summary list stays one click away."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dash_insight import SummaryWriter
from dash_insight.core.provider import JobSummary
from dash_insight.plugins.jobs.landing_page import landing_job
from dash_insight.web.shell import app_referrer
from tests.browser import until
from tests.conftest import console_errors, loaded_app
from tests.plugins.jobs.test_page import _wait_rows


def _job(train_id: str, summary: bool = True, graph: bool = False) -> JobSummary:
    job = JobSummary.__new__(JobSummary)
    object.__setattr__(job, "train_id", train_id)
    object.__setattr__(job, "summary_files", ["x.summary.1"] if summary else [])
    object.__setattr__(job, "graph_files", ["x.pb"] if graph else [])
    return job


def test_landing_job_only_with_exactly_one_job_with_a_dashboard() -> None:
    assert landing_job([]) is None
    assert landing_job([_job("./a")]) == "./a"
    assert landing_job([_job("./g", summary=False, graph=True)]) == "./g"
    assert landing_job([_job("./a"), _job("./b")]) is None
    assert landing_job([_job("./lineage_only", summary=False)]) is None


def _from_the_app(referrer: str | None, host: str, prefix: str) -> bool:
    return app_referrer(referrer, host, prefix) is not None


def test_a_referrer_from_the_app_is_one_of_its_pages() -> None:
    assert _from_the_app("http://h:8/scalars?x=1", "h:8", "/")
    assert _from_the_app("http://h:8/app", "h:8", "/app/")
    assert _from_the_app("http://h:8/app/lineage", "h:8", "/app/")
    assert not _from_the_app("http://h:8/application/x", "h:8", "/app/")
    assert not _from_the_app("http://other:8/app/", "h:8", "/app/")
    assert not _from_the_app(None, "h:8", "/") and not _from_the_app("", "h:8", "/")


def test_home_redirects_only_a_bare_home_with_one_job(corpus: Path, tmp_path: Path) -> None:
    base = tmp_path / "logs"
    shutil.copytree(corpus / "multi_file", base / "only")
    with loaded_app(base, tmp_path / "ws") as app:
        client = app.server.test_client()
        answer = client.get("/")
        assert answer.status_code == 302
        assert answer.headers["Location"] == "/dashboard?train_id=.%2Fonly"
        assert answer.headers["Cache-Control"] == "no-store"
        assert client.get("/?q=only").status_code == 200  # the list, explicitly
        # the list asked for from a page of the app (a new document for the menu's link)
        inside = {"Referer": "http://localhost/scalars?train_id=.%2Fonly"}
        assert client.get("/", headers=inside).status_code == 200
        outside = {"Referer": "http://elsewhere.example/localhost/"}
        assert client.get("/", headers=outside).status_code == 302
        assert client.get("/dashboard?train_id=.%2Fonly").status_code == 200
    shutil.copytree(corpus / "multi_file", base / "second")
    with loaded_app(base, tmp_path / "ws2") as app:
        assert app.server.test_client().get("/").status_code == 200  # two jobs: the list


@pytest.mark.browser
def test_one_job_lands_on_its_dashboard_and_the_list_stays_reachable(
    dash_duo, tmp_path: Path
) -> None:
    with SummaryWriter(str(tmp_path / "logs" / "only")) as writer:
        writer.add_scalar("loss", 1.0, 1)
        writer.record(1)
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        dash_duo.start_server(app)
        until(lambda: "/dashboard?train_id=.%2Fonly" in dash_duo.driver.current_url)
        dash_duo.wait_for_element("#dashboard-cards")
        # "Summary List" shows the list (no bounce back to the dashboard).
        dash_duo.find_element("#nav-home").click()
        _wait_rows(dash_duo, {"./only"})
        assert dash_duo.driver.current_url.rstrip("/") == dash_duo.server_url.rstrip("/")
        # Back: the dashboard; Forward: the list again, not redirected.
        dash_duo.driver.back()
        until(lambda: "/dashboard" in dash_duo.driver.current_url)
        dash_duo.wait_for_element("#dashboard-cards")
        dash_duo.driver.forward()
        _wait_rows(dash_duo, {"./only"})
        assert "/dashboard" not in dash_duo.driver.current_url
        # The job's link in the list opens its dashboard as before.
        dash_duo.find_element("#job-table tbody a").click()
        until(lambda: "/dashboard?train_id=.%2Fonly" in dash_duo.driver.current_url)
        assert console_errors(dash_duo) == []
