"""The order in which the app's parts are installed is code (``Step.after``), not comments."""

from __future__ import annotations

from pathlib import Path

import flask
import pytest

from dash_insight.core.settings import DEMO_DIR, Settings
from dash_insight.default import DEFAULT_PLUGINS, create_app
from dash_insight.web import application
from dash_insight.web.application import (
    EVERY_OTHER_STEP,
    STEPS,
    Build,
    DashInsightApp,
    Features,
    Step,
    StepOrderError,
    ordered,
    plugin_steps,
)


def _noop(_build: Build) -> None:
    return None


def test_ordered_puts_each_step_after_what_it_names_and_keeps_the_rest_in_order() -> None:
    steps = [
        Step("log", _noop, after=(EVERY_OTHER_STEP,)),
        Step("landing", _noop, after=("host",)),
        Step("a", _noop),
        Step("host", _noop),
        Step("b", _noop),
    ]
    assert [s.name for s in ordered(steps)] == ["a", "host", "landing", "b", "log"]


@pytest.mark.parametrize(
    "steps",
    [
        [Step("a", _noop, after=("b",)), Step("b", _noop, after=("a",))],
        [Step("a", _noop, after=("nowhere",))],
        [Step("a", _noop), Step("a", _noop)],
    ],
)
def test_ordered_refuses_cycles_unknown_names_and_twins(steps: list[Step]) -> None:
    with pytest.raises(StepOrderError):
        ordered(steps)


def _every_step() -> list[Step]:
    data = type("Data", (), {"provider": None})()
    features = Features(data, tuple((p, data) for p in DEFAULT_PLUGINS))  # type: ignore[arg-type]
    return ordered([*STEPS, *plugin_steps(features)])


def test_the_default_steps_are_ordered_as_their_dependencies_say() -> None:
    names = [step.name for step in _every_step()]
    assert names[-1] == "access-log"  # the outermost middleware
    for step in _every_step():
        for before in step.after:
            if before != EVERY_OTHER_STEP:
                assert names.index(before) < names.index(step.name), (before, step.name)
    assert names.index("host-check") < names.index("jobs-landing")
    assert names.index("body-limit") < names.index("dash-requests")


def test_request_hooks_run_in_the_declared_order(tmp_path: Path) -> None:
    """The hooks Flask holds are in that order: the host check refuses before the jobs plugin's
    landing redirect could name a job, the body limit before Dash's body is read."""
    app = create_app(
        Settings(summary_base_dir=DEMO_DIR, workspace=str(tmp_path / "ws"), reload_interval=0),
        start_loader=False,
        warm_up_pages=False,
    )
    try:
        assert isinstance(app, DashInsightApp)
        modules = [f.__module__ for f in app.server.before_request_funcs[None]]
        assert modules.index("dash_insight.web.host_check") < modules.index(
            "dash_insight.plugins.jobs.landing_page"
        )
        assert modules.index("dash_insight.web.body_limit") < modules.index(
            "dash_insight.web.dash_requests"
        )
        assert app.data_service is not None and app.warm_up is not None
        assert app.access_log is not None
    finally:
        app.data_service.close()


def test_create_app_takes_settings_plugins_and_a_server(tmp_path: Path) -> None:
    """``create_app(settings, plugins, server)``: an app of only the jobs plugin on a host
    Flask app has the jobs pages and REST routes, and no scalars."""
    server = flask.Flask("host")
    jobs = next(p for p in DEFAULT_PLUGINS if p.name == "jobs")
    app = create_app(
        Settings(summary_base_dir=DEMO_DIR, workspace=str(tmp_path / "ws"), reload_interval=0),
        (jobs,),
        server,
        start_loader=False,
        warm_up_pages=False,
    )
    try:
        assert app.server is server
        rules = {rule.rule for rule in server.url_map.iter_rules()}
        assert "/v1/mindinsight/datavisual/train-jobs" in rules
        assert not any("scalar" in rule for rule in rules)
    finally:
        app.data_service.close()


def test_web_application_lists_no_plugin() -> None:
    assert not hasattr(application, "PLUGINS")
