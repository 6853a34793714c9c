"""What the three profiler pages share: URL parameters, the page head (job, tabs, device
selector), the problems panel and the sortable table builder."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import dash
from dash import Input, Output, State, dcc, html

from dash_insight.core.format.profiler import Problem, ProfilerDir
from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import format_number, lazy_gettext, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.profiler.query_profile import OpTables, Profile
from dash_insight.plugins.profiler.service import ProfilerService, ProfileUnavailable
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.components.page_head import job_page_head
from dash_insight.web.url_state import Text, TypedUrlState, make_search, parse_search

DASHBOARD_PATH = "/profiler"
OPERATOR_PATH = "/profiler/operator"
TIMELINE_PATH = "/profiler/timeline"
TABS = (
    (lazy_gettext("Dashboard"), DASHBOARD_PATH),
    (lazy_gettext("Operators"), OPERATOR_PATH),
    (lazy_gettext("Timeline"), TIMELINE_PATH),
)


@dataclass(frozen=True)
class SharedUrl:
    """The URL state every profiler page shares (and keeps when linking to another one): the
    job, its profiler directory ("": the job's own) and the device ("": the first)."""

    train_id: str = ""
    dir: str = ""
    device: str = ""


SHARED_STATE: TypedUrlState[SharedUrl] = TypedUrlState(
    SharedUrl, train_id=Text("train_id"), dir=Text("dir"), device=Text("device")
)
#: The URL parameters of :class:`SharedUrl`.
SHARED = tuple(field.name for field in SHARED_STATE.fields.values())


@dataclass(frozen=True)
class Loaded:
    """A page's profile: the directory, the chosen device and the parsed data."""

    found: ProfilerDir
    device: str
    profile: Profile


def locate(service: ProfilerService, params: dict[str, str]) -> tuple[ProfilerDir, str]:
    """The profiler directory and device the URL asks for (``train_id``, optional ``dir`` and
    ``device``: the first device by default), without parsing anything; ProfileUnavailable
    with a message for the user."""
    state = SHARED_STATE.parse(params)
    train_id = state.train_id
    if not train_id:
        raise ProfileUnavailable(_("No training job chosen: open Profiling from the summary list."))
    location = service.job_location(train_id, state.dir or None)
    found = service.directory(location)
    if not found.devices:
        raise ProfileUnavailable(
            _(
                "{folder} of {job} holds no CPU profiler file (cpu_op_type_info_<device>.csv ...)."
            ).format(folder=location.profile, job=train_id)
        )
    device = state.device or found.devices[0]
    if device not in found.devices:
        raise ProfileUnavailable(
            _("No device {device!r} in {folder} (devices: {devices}).").format(
                device=device, folder=location.profile, devices=", ".join(found.devices)
            )
        )
    return found, device


def load(service: ProfilerService, params: dict[str, str]) -> Loaded:
    """:func:`locate`, then the parsed profile (cached by the service)."""
    found, device = locate(service, params)
    return Loaded(found, device, service.profile(found, device))


def load_tables(service: ProfilerService, params: dict[str, str]) -> OpTables:
    """:func:`locate`, then only the operator tables (no launch file read)."""
    found, device = locate(service, params)
    return service.tables(found, device)


def is_page(app: dash.Dash, pathname: str | None, *paths: str) -> bool:
    """Whether the URL shows one of ``paths``: a click on a link changes the search before the
    page is replaced, and the leaving page must not render itself again for it."""
    return "/" + (app.strip_relative_path(pathname or "/") or "").strip("/") in paths


def href(app: dash.Dash, path: str, params: dict[str, str], **extra: Any) -> str:
    """A link to another profiler page keeping the job, directory and device."""
    kept: dict[str, Any] = {**SHARED_STATE.params(SHARED_STATE.parse(params)), **extra}
    return app.get_relative_path(path) + make_search(kept)


def head(app: dash.Dash, service: ProfilerService, params: dict[str, str], active: str) -> html.Div:
    """Title, job, the three tabs and the device selector (:func:`register` follows the URL)."""
    state = SHARED_STATE.parse(params)
    return html.Div(
        [
            job_page_head(
                app,
                _("Profiling - Single-host"),
                state.train_id,
                html.Span(state.dir, className="di-subtitle", id="prof-dir"),
                html.Div(
                    device_box(service, params), id="prof-device-box", className="di-prof-device"
                ),
            ),
            html.Nav(
                className="di-prof-tabs",
                children=[
                    dcc.Link(
                        str(label),
                        href=href(app, path, params),
                        id=f"prof-tab-{path.rsplit('/', 1)[-1]}",
                        className="active" if path == active else "",
                    )
                    for label, path in TABS
                ],
            ),
        ]
    )


def device_box(service: ProfilerService, params: dict[str, str]) -> Any:
    """The device selector of the URL's profile (:func:`device_selector`), None when the URL
    names none."""
    try:
        return device_selector(*locate(service, params))
    except ProfileUnavailable:
        return None


def device_selector(found: ProfilerDir, device: str) -> Any:
    """A device dropdown when there are several devices (MindInsight's "Rank ID")."""
    if len(found.devices) < 2:
        return html.Span(_("Device {device}").format(device=device), className="di-muted")
    return html.Label(
        [
            _("Device") + " ",
            SelectInput(
                id="prof-device",
                value=device,
                style={"width": "110px"},
                options=[{"label": d, "value": d} for d in found.devices],
            ),
        ],
        className="di-inline",
    )


def problems_panel(profile: Profile | OpTables, more: Sequence[Problem] = ()) -> Any:
    """What could not be read of the files shown (everything else is shown)."""
    problems = [*profile.problems, *more]
    if not problems:
        return None
    return html.Details(
        className="di-panel di-warning di-prof-problems",
        children=[
            html.Summary(
                "⚠ "
                + ngettext(
                    "{count} problem reading the profiler files; everything readable is shown.",
                    "{count} problems reading the profiler files; everything readable is shown.",
                    len(problems),
                ).format(count=len(problems))
            ),
            html.Ul([html.Li(str(problem)) for problem in problems[:50]]),
        ],
    )


def unavailable(app: dash.Dash, error: Exception) -> html.Div:
    return html.Div(
        className="di-panel di-empty",
        id="prof-unavailable",
        children=[
            html.P(localize_reason(str(error))),
            dcc.Link(_("Back to the summary list"), href=app.get_relative_path("/")),
        ],
    )


#: Fraction digits of a measure by its unit: one number format per unit on every profiler
#: page (the dashboard cards and the operator tables), with thousands separators.
UNIT_DECIMALS: dict[str, int] = {"times": 0, "us": 2, "us/time": 2, "ms": 2, "%": 2}


def unit_of(label: str) -> str | None:
    """The unit of a column label (``op_total_time (us)`` -> ``us``), None for none."""
    if label.endswith(")") and " (" in label:
        unit = label.rsplit(" (", 1)[1][:-1]
        return unit if unit in UNIT_DECIMALS else None
    return None


def format_measure(value: float | int, unit: str) -> str:
    """``value`` as shown for its ``unit`` (a key of :data:`UNIT_DECIMALS`): the locale's
    grouping and a fixed number of decimals (``5,076.19`` us/time, ``304,571`` times)."""
    return format_number(value, UNIT_DECIMALS[unit])


def element_id(prefix: str, *parts: str) -> str:
    """``prefix-part-part``: an element id from names that may hold any character (operator
    types, columns: kept letters, digits and ``_``; anything else becomes ``_``)."""
    return "-".join([prefix, *("".join(c if c.isalnum() else "_" for c in p) for p in parts)])


def sortable_table(
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[Any]],
    table: str,
    sort: str | None,
    descending: bool,
    cell: Callable[[str, Any], Any] | None = None,
    lead: Sequence[Any] | None = None,
    extra_rows: dict[int, Any] | None = None,
    sort_href: Callable[[str], str] | None = None,
) -> html.Table:
    """A table whose column heads link to the page sorted by that column (``sort_href``; the
    sort is URL state, so a head is a plain link: no callback per head) with an arrow on the
    sorted one; ``lead`` adds a first cell per row (e.g. an expand link), ``extra_rows[i]`` a
    full-width row after row i."""
    heads: list[Any] = [html.Th("")] if lead is not None else []
    for column, title in columns:
        arrow = (" ▼" if descending else " ▲") if column == sort else ""
        heads.append(
            html.Th(
                dcc.Link(
                    title + arrow,
                    href=sort_href(column),
                    id=element_id("prof-sort", table, column),
                    className="di-prof-sort",
                )
                if sort_href is not None
                else title
            )
        )
    body: list[Any] = []
    show = cell or (lambda _column, value: value)
    for i, row in enumerate(rows):
        cells = [html.Td(lead[i])] if lead is not None else []
        cells += [
            html.Td(show(column, value), className=f"di-prof-{column}")
            for (column, _), value in zip(columns, row, strict=False)
        ]
        body.append(html.Tr(cells))
        if extra_rows and i in extra_rows:
            body.append(
                html.Tr(html.Td(extra_rows[i], colSpan=len(heads)), className="di-prof-subrow")
            )
    if not rows:
        body.append(
            html.Tr(html.Td(_("No operator matches."), colSpan=len(heads), className="di-empty"))
        )
    return html.Table(
        className="di-table di-prof-table",
        id=element_id("prof", table) + "-table-body",
        children=[html.Thead(html.Tr(heads)), html.Tbody(body)],
    )


def device_and_tabs(
    app: dash.Dash, service: ProfilerService, search: str | None, pathname: str | None
) -> tuple[Any, ...]:
    """The device selector and the tabs' links for the URL (kept on another page)."""
    if not is_page(app, pathname, *(path for _, path in TABS)):
        return (dash.no_update,) * (1 + len(TABS))
    params = parse_search(search)
    links = tuple(href(app, path, params) for _, path in TABS)
    return (device_box(service, params), *links)


def choose_device(device: str | None, search: str | None) -> Any:
    """The URL after choosing a device (``no_update``: the one shown, or none)."""
    params = parse_search(search)
    if not device or SHARED_STATE.parse(params).device == str(device):
        return dash.no_update
    return make_search({**params, "device": str(device)})


def register(app: dash.Dash, service: ProfilerService) -> None:
    """The device selector and the tab links, shared by the three pages (registered once)."""
    app.callback(
        Output("prof-device-box", "children"),
        *(Output(f"prof-tab-{path.rsplit('/', 1)[-1]}", "href") for _, path in TABS),
        Input("url", "search"),
        State("url", "pathname"),
        prevent_initial_call=True,  # the page's layout has them (head)
    )(functools.partial(device_and_tabs, app, service))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("prof-device", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(choose_device)
