"""The tab strip of the comparison pages ("Scalar Comparison", "Loss Graph Comparison", ...).

Each plugin contributes its comparison page as a tab (``Plugin.compare_tabs``); the application
installs the tabs of all plugins on the app once, and every comparison page draws the same strip
with :func:`tab_strip`, its own tab marked active. Plugins never learn about each other.

The tabs carry the URL parameters every comparison page reads alike (:data:`SHARED`: the jobs
chosen, the job filter, the hidden runs), so the runs chosen on one tab are those of the next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dash
from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataProvider
from dash_insight.core.run_marks import filter_text, offered_jobs
from dash_insight.web.plugin import NavLink
from dash_insight.web.url_state import Flag, TypedUrlState, make_search, parse_search, same_search

#: The app attribute holding the installed tabs (one app, one list: nothing process-wide).
ATTRIBUTE = "dash_insight_compare_tabs"
#: The URL parameter of the "show archived" switch (``archived=1``: archived runs are offered).
ARCHIVED = "archived"
#: The URL parameters a tab link carries from the page shown to the next tab.
SHARED = ("jobs", "job_filter", "hidden", ARCHIVED)
#: The "show archived" switch of every comparison page's head.
ARCHIVED_SWITCH = "compare-show-archived"


@dataclass(frozen=True)
class SwitchUrl:
    """What a comparison page's URL says of its head's switch (:data:`STATE`): ``archived``,
    whether archived runs are offered too."""

    archived: bool = False


#: The "show archived" switch's URL parameter (``archived=1``), as every comparison page
#: reads it (the scalar comparison's own state names this field too).
ARCHIVED_FLAG = Flag(ARCHIVED)
#: The URL state of the comparison pages' head.
STATE: TypedUrlState[SwitchUrl] = TypedUrlState(SwitchUrl, archived=ARCHIVED_FLAG)


def show_archived(params: Mapping[str, str]) -> bool:
    """Whether the URL's "show archived" switch is on (:data:`STATE`)."""
    return STATE.parse(params).archived


def offered(provider: DataProvider, jobs: Sequence[str], params: Mapping[str, str]) -> list[str]:
    """The ``jobs`` a page's job picker offers: without the runs the user archived
    (:mod:`~dash_insight.core.run_marks`) unless the URL's switch shows them."""
    marks = provider.run_marks
    return offered_jobs(jobs, marks.archived() if marks else (), show_archived(params))


def label_texts(provider: DataProvider, jobs: Sequence[str]) -> dict[str, str]:
    """What a job picker's filter searches for each of ``jobs`` that has labels: its name and
    ``#label`` per label (:func:`~dash_insight.core.run_marks.filter_text`); {} without
    labels."""
    labels = provider.run_marks.labels() if provider.run_marks else {}
    return {job: filter_text(job, labels) for job in jobs if job in labels}


def archived_search(value: list | None, search: str | None) -> Any:
    """The URL after the "show archived" switch changed, every other parameter kept."""
    params: dict[str, Any] = parse_search(search)
    params[ARCHIVED] = ARCHIVED_FLAG.text(ARCHIVED_FLAG.from_control(value))
    new = make_search(params)
    return dash.no_update if same_search(new, search) else new


def archived_switch(params: Mapping[str, str]) -> dcc.Checklist:
    """The switch offering archived runs in the job pickers too (the URL's ``archived``)."""
    return dcc.Checklist(
        id=ARCHIVED_SWITCH,
        value=[ARCHIVED] if show_archived(params) else [],
        options=[{"label": " " + _("show archived runs"), "value": ARCHIVED}],
        className="di-archived-switch",
    )


def tab_id(path: str) -> str:
    return f"compare-tab-{path.strip('/').replace('/', '-')}"


def shared_search(params: Mapping[str, str]) -> str:
    """The query string of the :data:`SHARED` parameters of ``params`` ("" without any)."""
    return make_search({name: params.get(name) for name in SHARED})


def install(app: dash.Dash, tabs: Sequence[NavLink]) -> None:
    """Remember the comparison tabs of ``app`` (sorted by rank by the caller), and keep their
    links' :data:`SHARED` parameters those of the URL (in the browser)."""
    setattr(app, ATTRIBUTE, tuple(tabs))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(ARCHIVED_SWITCH, "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(archived_search)
    if len(tabs) < 2:
        return
    app.clientside_callback(
        ClientsideFunction("compareTabs", "keepShared"),  # assets/compare-tabs.js
        *[Output(tab_id(tab.path), "href") for tab in tabs],
        Input("url", "search"),
        *[State(tab_id(tab.path), "href") for tab in tabs],
    )


def installed(app: dash.Dash) -> tuple[NavLink, ...]:
    return tuple(getattr(app, ATTRIBUTE, ()))


def tab_strip(
    app: dash.Dash, active_path: str, params: Mapping[str, str] | None = None
) -> html.Nav | None:
    """Links to every comparison page, ``active_path``'s marked, carrying the :data:`SHARED`
    parameters of ``params`` (the page's URL); None with fewer than two."""
    tabs = installed(app)
    if len(tabs) < 2:
        return None
    search = shared_search(params or {})
    return html.Nav(
        className="di-compare-tabs",
        id="compare-tabs",
        children=[
            dcc.Link(
                str(tab.label),
                href=app.get_relative_path(tab.path) + search,
                id=tab_id(tab.path),
                className="di-compare-tab active" if tab.path == active_path else "di-compare-tab",
            )
            for tab in tabs
        ],
    )


def compare_head(
    app: dash.Dash,
    active_path: str,
    params: Mapping[str, str],
    title: str,
    subtitle: str,
    *actions: Any,
) -> list[Any]:
    """The top of a comparison page: its :func:`tab_strip`, then its title, subtitle and
    ``actions`` (buttons at the right)."""
    extra = [html.Div(className="di-spacer"), archived_switch(params), *actions]
    return [
        tab_strip(app, active_path, params),
        html.Div(
            className="di-page-head",
            children=[
                html.H1(title, className="di-title"),
                html.Span(subtitle, className="di-subtitle"),
                *extra,
            ],
        ),
    ]
