"""Summary list: every training job, filter (text or regex), sort, pages, parameter details.

URL state: ``?q=<filter>&regex=1&sort=update|create|path&order=desc|asc&page=N&size=20``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import dash
from dash import ALL, ClientsideFunction, Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dash_insight.core.format.files import NAME_PATTERNS
from dash_insight.core.i18n import (
    format_number,
    format_wall_time,
    lazy_gettext,
    ngettext,
)
from dash_insight.core.i18n import gettext as _
from dash_insight.core.lineage_rows import lineage_row, parameter_details
from dash_insight.core.provider import DataError, JobSummary
from dash_insight.core.service import DataService
from dash_insight.core.user_regex import compile_user_regex
from dash_insight.web.answer_key import content_key
from dash_insight.web.binding import triggered
from dash_insight.web.components.native_inputs import SelectInput
from dash_insight.web.components.tag_select import goto_box
from dash_insight.web.limits import MAX_FILTER_CHARS
from dash_insight.web.url_state import (
    MAX_PAGE,
    Choice,
    Flag,
    Int,
    Text,
    TypedUrlState,
    make_search,
    same_search,
)

PATH = "/"
PAGE_SIZES = (10, 20, 50, 100)
SORT_COLUMNS = {
    "path": lazy_gettext("Summary Path"),
    "create": lazy_gettext("Create Time"),
    "update": lazy_gettext("Update Time"),
}
DATA_KINDS = ("scalar", "image", "histogram", "tensor", "graph")
#: The badges' words for the kinds of data (and a job's loading status), per language.
KIND_LABELS = {
    "scalar": lazy_gettext("scalar"),
    "image": lazy_gettext("image"),
    "histogram": lazy_gettext("histogram"),
    "tensor": lazy_gettext("tensor"),
    "graph": lazy_gettext("graph"),
    "lineage": lazy_gettext("lineage"),
    "profiler": lazy_gettext("profiler"),
}
STATUS_LABELS = {
    "pending": lazy_gettext("pending"),
    "loading": lazy_gettext("loading"),
    "loaded": lazy_gettext("loaded"),
}
#: Where the "Profiling" link goes: the profiler plugin's performance dashboard.
PROFILING_PATH = "/profiler"


def format_time(seconds: float) -> str:
    """Local time as MindInsight shows it (in both languages): ``YYYY-MM-DD HH:MM:SS``."""
    return format_wall_time(seconds) if seconds else "-"


def filter_jobs(
    jobs: Sequence[JobSummary], text: str, regex: bool
) -> tuple[list[JobSummary], str | None]:
    """Jobs whose path contains ``text`` (case-insensitive), or matches it as a regular
    expression; with an invalid expression, every job and the error message."""
    if not text:
        return list(jobs), None
    if regex:
        try:
            pattern = compile_user_regex(text, re.IGNORECASE)
        except re.error as error:
            return list(jobs), _("invalid regular expression: {error}").format(error=error)
        return [j for j in jobs if pattern.search(j.train_id)], None
    lowered = text.lower()
    return [j for j in jobs if lowered in j.train_id.lower()], None


def sort_jobs(jobs: Sequence[JobSummary], column: str, descending: bool) -> list[JobSummary]:
    """Sorted by path, create time or update time (ties by path)."""
    key = {
        "path": lambda j: j.train_id,
        "create": lambda j: (j.create_time, j.train_id),
        "update": lambda j: (j.update_time, j.train_id),
    }.get(column, lambda j: (j.update_time, j.train_id))
    return sorted(jobs, key=key, reverse=descending)


def empty_list_message(ready: bool, query: str) -> str:
    """The summary list's line when it shows no job: still looking, nothing matches the filter,
    or nothing found, with the file names looked for and how to write such files."""
    if not ready:
        return _("Looking for training jobs…")
    if query:
        return _("No training job matches.")
    return _(
        "No training job found yet: files named {patterns} are looked for in "
        "every folder under the summary base directory. MindSpore's "
        "SummaryCollector writes them, or dash_insight.SummaryWriter without "
        "MindSpore."
    ).format(patterns=", ".join(NAME_PATTERNS))


DEFAULT_SIZE = 20


#: The largest page size a URL may ask for (the control offers PAGE_SIZES).
MAX_SIZE = 500


@dataclass(frozen=True)
class ListState:
    """The summary list's URL state (``?q=&regex=1&sort=&order=&page=&size=``), read and
    bounded in one place (:data:`STATE`); changed with :func:`dataclasses.replace`."""

    q: str = ""
    regex: bool = False
    sort: str = "update"
    order: str = "desc"
    page: int = 1
    size: int = DEFAULT_SIZE

    def search(self) -> str:
        """The query string, defaults left out (``STATE.parse_search`` reads it back)."""
        return make_search(STATE.params(self))


#: :class:`ListState` in the URL, each attribute under its own name: a filter of at most
#: MAX_FILTER_CHARS, a known sort column, ``asc`` or ``desc``, a page in [1, MAX_PAGE], a page
#: size in [1, MAX_SIZE]; anything else reads as the default.
STATE: TypedUrlState[ListState] = TypedUrlState(
    ListState,
    q=Text("q", max_chars=MAX_FILTER_CHARS),
    regex=Flag("regex"),
    sort=Choice("sort", "update", tuple(SORT_COLUMNS)),
    order=Choice("order", "desc", ("desc", "asc")),
    page=Int("page", 1, 1, MAX_PAGE),
    size=Int("size", DEFAULT_SIZE, 1, MAX_SIZE),
)


def _state(search: str | None) -> ListState:
    return STATE.parse_search(search)


def _data_badges(job: JobSummary) -> list[Any]:
    badges = [
        html.Span(str(KIND_LABELS[kind]), className="di-badge")
        for kind in DATA_KINDS
        if job.tags.get(kind)
    ]
    if job.lineage_files:
        badges.append(html.Span(str(KIND_LABELS["lineage"]), className="di-badge"))
    if job.profiler_dir:
        badges.append(html.Span(str(KIND_LABELS["profiler"]), className="di-badge"))
    return badges or [html.Span(_("no data yet"), className="di-muted")]


def _status(job: JobSummary) -> Any:
    status = str(STATUS_LABELS.get(job.status, job.status))
    if job.status == "loaded":
        return html.Span(status, className="di-muted di-nowrap")
    percent = round(100 * job.progress)
    return html.Span(
        [
            html.Span(html.Div(style={"width": f"{percent}%"}), className="di-progress"),
            f"{status} {percent}%",
        ],
        className="di-nowrap",
        title=_("{read} of {total} bytes read").format(
            read=format_number(job.bytes_read), total=format_number(job.bytes_on_disk)
        ),
    )


def _integrity(job: JobSummary) -> Any:
    if job.is_intact:
        return ""
    return html.Details(
        className="di-warning",
        children=[
            html.Summary(
                "⚠ "
                + ngettext("{count} problem", "{count} problems", len(job.reasons)).format(
                    count=len(job.reasons)
                )
            ),
            html.Ul([html.Li(reason) for reason in job.reasons[:20]]),
        ],
    )


def _row(relative_path: Callable[[str], str], number: int, job: JobSummary) -> html.Tr:
    has_dashboard = job.summary_files or job.graph_files
    dashboard_href = relative_path("/dashboard") + make_search({"train_id": job.train_id})
    # The profiler plugin's performance dashboard (MindInsight's "Profiling" link).
    profiling_href = relative_path(PROFILING_PATH) + make_search(
        {"train_id": job.train_id, "dir": job.profiler_dir}
    )
    return html.Tr(
        [
            html.Td(number),
            html.Td(dcc.Link(job.train_id, href=dashboard_href) if has_dashboard else job.train_id),
            html.Td(format_time(job.create_time)),
            html.Td(format_time(job.update_time)),
            html.Td(_data_badges(job)),
            html.Td([_status(job), _integrity(job)]),
            html.Td(
                html.Div(
                    className="di-ops",
                    children=[
                        dcc.Link(
                            _("Training Dashboard"),
                            href=dashboard_href,
                            className="" if has_dashboard else "disabled",
                            title=""
                            if has_dashboard
                            else _("no summary or graph file in this job"),
                        ),
                        dcc.Link(
                            _("Profiling"),
                            href=profiling_href,
                            id={"type": "profiling-link", "train_id": job.train_id},
                            className="" if job.profiler_dir else "disabled",
                            title=_("profiler data in {folder}").format(folder=job.profiler_dir)
                            if job.profiler_dir
                            else _("no profiler data in this job"),
                        ),
                        html.Button(
                            _("Parameter Details"),
                            className="di-link-button",
                            id={"type": "param-details", "train_id": job.train_id},
                            disabled=not job.lineage_files,
                            title="" if job.lineage_files else _("no lineage file in this job"),
                        ),
                    ],
                )
            ),
        ]
    )


def _header(state: ListState) -> html.Tr:
    cells = [html.Th(_("No."))]
    for column in ("path", "create", "update"):
        arrow = ""
        if state.sort == column:
            arrow = " ▼" if state.order == "desc" else " ▲"
        cells.append(
            html.Th(
                html.Button(
                    str(SORT_COLUMNS[column]) + arrow, id={"type": "sort", "column": column}
                )
            )
        )
    cells += [html.Th(_("Data")), html.Th(_("Status")), html.Th(_("Operation"))]
    return html.Tr(cells)


def _head(app: dash.Dash, service: DataService) -> html.Div:
    return html.Div(
        className="di-page-head",
        children=[
            html.H1(_("Summary List"), className="di-title"),
            html.Span(
                _("Current folder: {folder}").format(folder=service.name),
                className="di-subtitle",
            ),
            html.Div(className="di-spacer"),
            # Links that look like buttons: one Tab stop each (a button inside a link
            # was two).
            dcc.Link(
                _("Lineage Analysis"),
                href=app.get_relative_path("/lineage"),
                id="open-lineage",
                className="di-button secondary",
            ),
            dcc.Link(
                _("Comparison Analysis"),
                href=app.get_relative_path("/compare"),
                id="open-compare",
                className="di-button secondary",
            ),
        ],
    )


def _filter_bar(state: ListState) -> html.Div:
    return html.Div(
        className="di-toolbar",
        children=[
            dcc.Input(
                id="job-filter",
                value=state.q,
                debounce=0.3,
                type="text",
                placeholder=_("Filter summary paths"),
                className="di-input",
            ),
            dcc.Checklist(
                id="job-filter-regex",
                options=[{"label": " " + _("regular expression"), "value": "1"}],
                value=["1"] if state.regex else [],
            ),
            html.Span(id="job-filter-error", className="di-error-text"),
        ],
    )


def _pager(state: ListState) -> html.Div:
    return html.Div(
        className="di-pager",
        children=[
            html.Span(id="job-total"),
            SelectInput(
                id="job-page-size",
                value=state.size,
                options=[
                    {"label": _("{count} / page").format(count=n), "value": n} for n in PAGE_SIZES
                ],
                style={"width": "120px"},
            ),
            html.Button("‹", id="job-prev", className="di-icon-button di-page-button"),
            html.Span(id="job-page"),
            html.Button("›", id="job-next", className="di-icon-button di-page-button"),
            goto_box("job-goto", placeholder=_("page")),
        ],
    )


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    state = STATE.parse(params)
    return html.Div(
        [
            _head(app, service),
            html.Div(
                className="di-panel",
                children=[_filter_bar(state), html.Div(id="job-table"), _pager(state)],
            ),
            html.Div(id="param-details-modal"),
            dcc.Store(id="job-table-shown"),  # the content_key of what the table shows
        ]
    )


def goto_page(value: Any) -> int | None:
    """The page the "Go to" box asks for: a whole number >= 1 (a page past the last shows the
    last, as the table clamps it); None for an empty box or anything else."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if not number.is_integer() or number < 1:
        return None
    return min(int(number), 10**6)


def page_count(total: int, size: int) -> int:
    """How many pages ``total`` jobs fill at ``size`` a page (at least 1: an empty list is one
    empty page)."""
    return max(1, -(-total // max(1, size)))


def clamp_page(page: int, total: int, size: int) -> int:
    """``page`` within the pages ``total`` jobs fill at ``size`` a page: the page the table
    shows, so the URL names that one ("Go to 9" of 2 pages is page 2)."""
    return min(max(1, page), page_count(total, size))


def _moved(state: ListState, trigger: Any, size: Any, goto: Any) -> ListState | None:
    """The state after a sort, pager or page-size control changed (None: nothing to do)."""
    if isinstance(trigger, dict) and trigger.get("type") == "sort":
        column = str(trigger.get("column"))
        if column not in SORT_COLUMNS:
            return None
        if state.sort == column:
            return replace(state, order="asc" if state.order == "desc" else "desc")
        return replace(state, sort=column, order="asc" if column == "path" else "desc")
    if trigger == "job-prev":
        return replace(state, page=max(1, state.page - 1))
    if trigger == "job-next":
        return replace(state, page=min(MAX_PAGE, state.page + 1))
    if trigger == "job-page-size":
        valid = isinstance(size, int) and not isinstance(size, bool) and 1 <= size <= MAX_SIZE
        return replace(state, size=size if valid else DEFAULT_SIZE, page=1)
    if trigger == "job-goto":
        wanted = goto_page(goto)
        return None if wanted is None else replace(state, page=wanted)
    return None


def controls_to_url(
    service: DataService,
    trigger: Any,
    clicked: bool,
    text: str | None,
    regex: list[str] | None,
    _sorts: list[int | None],
    _prev: int | None,
    _next: int | None,
    size: int | None,
    goto: Any,
    search: str | None,
) -> Any:
    """The URL after a control of the list changed (``trigger`` = its id): the filter goes back
    to page 1; "next" and "go to" stop at the last page."""
    state = _state(search)
    if isinstance(trigger, dict) and not clicked:
        return dash.no_update  # sort buttons just rendered, not clicked
    if trigger in ("job-filter", "job-filter-regex"):
        query = text[:MAX_FILTER_CHARS] if isinstance(text, str) else ""
        new: ListState | None = replace(state, q=query, regex=bool(regex), page=1)
    else:
        new = _moved(state, trigger, size, goto)
    if new is None:
        return dash.no_update
    if trigger in ("job-next", "job-goto"):  # past the last page: the last one
        jobs, _error = filter_jobs(service.provider.list_jobs(), new.q, new.regex)
        new = replace(new, page=clamp_page(new.page, len(jobs), new.size))
    # Unchanged: write nothing, so a late answer never overwrites a newer URL.
    return dash.no_update if same_search(new.search(), search) else new.search()


def render_table(
    service: DataService,
    relative_path: Callable[[str], str],
    search: str | None,
    _ticks: int | None,
    _clicks: int | None,
    shown: str | None,
) -> tuple:
    """The list's page of jobs for the URL, its total, page number and filter error; nothing
    when an auto refresh finds the same."""
    provider = service.provider
    state = _state(search)
    jobs, error = filter_jobs(provider.list_jobs(), state.q, state.regex)
    jobs = sort_jobs(jobs, state.sort, state.order == "desc")
    pages = page_count(len(jobs), state.size)
    page = clamp_page(state.page, len(jobs), state.size)
    start = (page - 1) * state.size
    rows = [
        _row(relative_path, start + i + 1, job)
        for i, job in enumerate(jobs[start : start + state.size])
    ]
    if not rows:
        message = empty_list_message(provider.ready, state.q)
        rows = [html.Tr(html.Td(message, colSpan=7, className="di-empty"))]
    table = html.Table(
        className="di-table", children=[html.Thead(_header(state)), html.Tbody(rows)]
    )
    answer = (
        table,
        _("Total {count}").format(count=format_number(len(jobs))),
        f"{page} / {pages}",
        error or "",
    )
    # An auto refresh with nothing new draws nothing: the rows drawn anew would also reset
    # every "Parameter Details" button under an open details window.
    key = content_key(*answer)
    if key == shown:
        raise PreventUpdate
    return (*answer, key)


def _details_body(service: DataService, train_id: str) -> Any:
    try:
        row = lineage_row(train_id, service.provider.lineage_records(train_id))
    except DataError as error:
        return html.P(str(error), className="di-error-text")
    pairs = parameter_details(row)
    if not pairs:
        return html.P(_("This job has no lineage data."), className="di-empty")
    return html.Table(
        className="di-table",
        children=[
            html.Thead(html.Tr([html.Th(_("Key")), html.Th(_("Value"))])),
            html.Tbody([html.Tr([html.Td(k), html.Td(v)]) for k, v in pairs]),
        ],
    )


def details(
    service: DataService,
    trigger: Any,
    clicked: bool,
    _clicks: list[int | None],
    _search: str | None,
) -> Any:
    """The "Parameter Details" window of the job whose button was clicked (``trigger``)."""
    if not isinstance(trigger, dict):
        return None  # another list (filter, sort, page): its details close
    if not clicked:
        return dash.no_update  # the rows drawn anew (new data), not a click
    train_id = trigger.get("train_id")
    if not isinstance(train_id, str):
        return dash.no_update
    head = html.Div(
        className="di-card-head",
        children=[
            html.Span(_("{job} Training Parameter Details").format(job=train_id)),
            html.Button("×", id="param-details-close", title=_("Close")),
        ],
    )
    return html.Div(
        className="di-modal-backdrop",
        id="param-details-backdrop",
        children=[
            html.Div(
                className="di-panel di-modal",
                children=[
                    head,
                    html.Div(_details_body(service, train_id), className="di-card-body"),
                ],
            ),
        ],
    )


def register(app: dash.Dash, service: DataService) -> None:
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("job-filter", "value"),
        Input("job-filter-regex", "value"),
        Input({"type": "sort", "column": ALL}, "n_clicks"),
        Input("job-prev", "n_clicks"),
        Input("job-next", "n_clicks"),
        Input("job-page-size", "value"),
        Input("job-goto", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(controls_to_url, service), clicked=True))
    app.callback(
        Output("job-table", "children"),
        Output("job-total", "children"),
        Output("job-page", "children"),
        Output("job-filter-error", "children"),
        Output("job-table-shown", "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        State("job-table-shown", "data"),
    )(functools.partial(render_table, service, app.get_relative_path))
    app.callback(
        Output("param-details-modal", "children"),
        Input({"type": "param-details", "train_id": ALL}, "n_clicks"),
        Input("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(details, service), clicked=True))
    app.clientside_callback(
        ClientsideFunction("jobsPage", "closeDetails"),  # assets/jobs-page.js
        Output("param-details-modal", "children", allow_duplicate=True),
        Input("param-details-close", "n_clicks"),
        prevent_initial_call=True,
    )
