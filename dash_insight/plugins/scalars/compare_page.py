"""Comparison dashboard: scalars of several jobs, one chart per tag, one colour per job (the
same on every chart and page, see :mod:`~dash_insight.web.components.run_colours`; the user can
pick it).

URL: ``/compare?jobs=[...]&job_filter=re&tags=[...]&filter=re&axis=step&smoothing=0.6&page=1
&hidden=[...]&x_tag=epoch&tag_map=train/loss=loss``. A hidden run (the eye in the job list)
stays selected but leaves every chart, the colour choices and the downloads of the page, until
its eye is opened again. ``tag_map`` (:mod:`.tag_map`) puts differently named tags on one chart.
"Download CSV / JSON" saves the raw points (not smoothed) of the charts the selection and the
filters show, on every page of the grid, without the hidden runs.

Any job can be compared (MindInsight: only the 15 cached ones, 5 at a time); past
:data:`WARN_JOBS` selected jobs the page warns that charts get crowded. Without ``jobs`` the
5 most recently updated jobs are selected (as MindInsight preselects 5).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dash
from dash import Input, Output, State, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.core.lineage_rows import (
    METRIC_PREFIX,
    USER_DEFINED_PREFIX,
    lineage_row,
    row_columns,
)
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.store.series import ScalarSeries
from dash_insight.plugins.scalars.page_charts import (
    AXIS,
    CHART_FIELDS,
    SMOOTHING,
    ChartSpec,
    ChartUrl,
    SeriesSpec,
    chart_card,
    chart_ids,
    chart_plan,
    chart_stores,
    controls,
    register_chart_callbacks,
)
from dash_insight.plugins.scalars.page_pins import page_pins, pinned_first
from dash_insight.plugins.scalars.query_groups import (
    BANDS,
    CENTRES,
    MAX_GROUP_BY,
    REGEX_PREFIX,
    Group,
    GroupBy,
    aggregate,
    assign_groups,
    parse_group_by,
    value_label,
)
from dash_insight.plugins.scalars.query_tag_map import (
    MAX_ENTRIES,
    MAX_NAME_CHARS,
    chart_of,
    chart_tags,
    clean_tag_map,
    describe,
    format_lines,
    merged,
    originals,
    parse_lines,
    series_name,
    suggest_tag_map,
)
from dash_insight.plugins.scalars.query_x_tag import x_of
from dash_insight.plugins.scalars.rest_export import (
    Found,
    GroupFound,
    XValues,
    csv_rows,
    grouped_csv_rows,
    grouped_json_pieces,
    json_pieces,
)
from dash_insight.web.binding import triggered
from dash_insight.web.clicks import picker_button_drawn
from dash_insight.web.components import compare_runs
from dash_insight.web.components.compare_tabs import (
    ARCHIVED_FLAG,
    compare_head,
    label_texts,
    offered,
)
from dash_insight.web.components.run_colours import (
    MISSING_COLOUR,
    PALETTE,
    STORE_ID,
    VALUE_SCALE,
    colour_at,
    run_colours,
    run_dot,
    set_colour,
)
from dash_insight.web.components.tag_select import (
    checked_names,
    echoed,
    filter_tags,
    page_of,
    pager,
    pick,
    picker,
    picker_action,
    picker_inputs,
    register_picker,
    visible_tags,
)
from dash_insight.web.limits import MAX_FILTER_CHARS
from dash_insight.web.url_state import (
    MAX_PAGE,
    Choice,
    Flag,
    Int,
    TagMap,
    Tags,
    Text,
    TypedUrlState,
    make_search,
    parse_search,
    same_search,
)

IDS = chart_ids("compare")  # this page's axis, smoothing, data and thresholds components
PATH = "/compare"
CHARTS_PER_PAGE = 12
DEFAULT_JOBS = 5
WARN_JOBS = 20
#: The longest group-by and colour-by text a URL may give (longer ones are cut; a group-by
#: longer than MAX_GROUP_BY is refused by :func:`checked_group_by`).
MAX_TEXT_CHARS = 4096


@dataclass(frozen=True)
class CompareUrl(ChartUrl):
    """What the page's URL says (:data:`STATE`): ``jobs`` absent = the :data:`DEFAULT_JOBS` newest;
    ``tags`` absent = all of theirs; ``hidden`` = the runs whose eye is closed (absent = none);
    the chart settings of :class:`~.page_charts.ChartUrl`. Groups (:mod:`.groups`):
    ``group_by=<lineage column>`` or ``re:<regex>`` (checked by :func:`page_state`: at most
    MAX_GROUP_BY characters, a regex that compiles), their ``centre`` and ``band``, and ``runs``
    to draw each group's runs under it. ``colour_by``: runs coloured by a lineage column (not
    grouped): a scale for numbers, the palette else. ``tag_map``: tags across runs
    (:mod:`.tag_map`, ``tag_map=train/loss=loss,loss/auto=loss``). ``archived``: the "show
    archived" switch of the comparison pages' head (archived runs offered too)."""

    jobs: list[str] | None = None
    job_filter: str = ""
    tags: list[str] | None = None
    filter: str = ""
    page: int = 1
    hidden: list[str] | None = None
    group_by: str = ""
    centre: str = "mean"
    band: str = "std"
    runs: bool = False
    colour_by: str = ""
    tag_map: dict[str, str] = dataclasses.field(default_factory=dict)
    archived: bool = False


#: The page's URL state: each attribute of :class:`CompareUrl` and its URL parameter; lists
#: hold at most MAX_URL_LIST_ITEMS names (:func:`~dash_insight.web.url_state.decode_tags`).
STATE: TypedUrlState[CompareUrl] = TypedUrlState(
    CompareUrl,
    jobs=Tags("jobs"),
    job_filter=Text("job_filter", max_chars=MAX_FILTER_CHARS),
    tags=Tags("tags"),
    filter=Text("filter", max_chars=MAX_FILTER_CHARS),
    page=Int("page", 1, 1, MAX_PAGE),
    hidden=compare_runs.HIDDEN,
    group_by=Text("group_by", max_chars=MAX_TEXT_CHARS),
    centre=Choice("centre", "mean", CENTRES),
    band=Choice("band", "std", BANDS),
    runs=Flag("runs"),
    colour_by=Text("colour_by", max_chars=MAX_TEXT_CHARS),
    tag_map=TagMap("tag_map"),
    archived=ARCHIVED_FLAG,
    **CHART_FIELDS,
)


@dataclass(frozen=True)
class CompareState:
    """Everything the page shows (:func:`page_state`). ``url``: the URL's state, its
    ``tag_map`` cleaned, its ``group_by`` checked ("" unless it groups) and its ``x_tag`` ""
    unless a tag of a selected job. The selected ``jobs`` (in the jobs' order) and ``tags``
    (among ``all_tags``, the union of theirs), whether the URL named them (``explicit_jobs``,
    ``explicit_tags``), and what is drawn: ``shown_jobs`` and ``shown_tags``, the selected
    ones that match their filter (the filters decide the charts and their lines, as
    TensorBoard's run and tag filters), less the ``hidden`` runs (known jobs whose eye is
    closed, in the jobs' order) and the tags only hidden runs have.

    With a tag map (:mod:`.tag_map`) the "tags" of the pickers and charts are chart names
    (``charts_of``: each job's); ``raw_tags`` are the selected jobs' own tags (the x axis
    offers those). ``job_texts``: what the job filter searches per job (its name and labels,
    :func:`~dash_insight.web.components.compare_tabs.label_texts`). ``group``: the URL's
    grouping, None with ``group_problem`` saying why when it cannot be used."""

    url: CompareUrl
    jobs: list[str] = dataclasses.field(default_factory=list)
    tags: list[str] = dataclasses.field(default_factory=list)
    hidden: list[str] = dataclasses.field(default_factory=list)
    all_tags: list[str] = dataclasses.field(default_factory=list)
    raw_tags: list[str] = dataclasses.field(default_factory=list)
    charts_of: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    job_texts: dict[str, str] = dataclasses.field(default_factory=dict)
    explicit_jobs: bool = False
    explicit_tags: bool = False
    shown_jobs: list[str] = dataclasses.field(default_factory=list)
    shown_tags: list[str] = dataclasses.field(default_factory=list)
    group: GroupBy | None = None
    group_problem: str = ""


def scalar_jobs(
    provider: DataProvider, params: Mapping[str, str] | None = None
) -> tuple[list[str], dict[str, list[str]]]:
    """Jobs with scalar data (newest first) and their scalar tags; with the URL ``params``,
    those its job picker offers (:func:`~dash_insight.web.components.compare_tabs.offered`:
    archived runs left out unless shown)."""
    jobs = [job for job in provider.list_jobs() if job.tags.get("scalar")]
    names = [job.train_id for job in jobs]
    if params is not None:
        names = offered(provider, names, params)
    return names, {job.train_id: job.tags["scalar"] for job in jobs}


def union_tags(selected: list[str], tags_of: dict[str, list[str]]) -> list[str]:
    """The union of the selected jobs' tags, in first-seen order."""
    seen: dict[str, None] = {}
    for train_id in selected:
        for tag in tags_of.get(train_id, []):
            seen.setdefault(tag)
    return list(seen)


def page_state(
    params: Mapping[str, str],
    jobs: list[str],
    tags_of: dict[str, list[str]],
    job_texts: Mapping[str, str] | None = None,
) -> CompareState:
    """The page's :class:`CompareState` of the URL ``params``: the scalar ``jobs``, their
    tags (``tags_of``) and what the job filter searches per job (``job_texts``)."""
    url = STATE.parse(params)
    tag_map = clean_tag_map(url.tag_map)
    charts_of = chart_tags(tags_of, tag_map)
    chosen, chosen_tags = url.jobs, url.tags
    wanted_jobs, wanted_tags = set(chosen or ()), set(chosen_tags or ())
    selected_jobs = jobs[:DEFAULT_JOBS] if chosen is None else [j for j in jobs if j in wanted_jobs]
    all_tags = union_tags(selected_jobs, charts_of)
    raw_tags = union_tags(selected_jobs, tags_of)
    tags = all_tags if chosen_tags is None else [t for t in all_tags if t in wanted_tags]
    closed = set(url.hidden or ())
    shown_jobs = [
        j for j in visible_tags(jobs, selected_jobs, url.job_filter, job_texts) if j not in closed
    ]
    drawn_tags = set(union_tags(shown_jobs, charts_of))
    group, group_problem = checked_group_by(url.group_by)
    return CompareState(
        url=dataclasses.replace(
            url,
            tag_map=tag_map,
            group_by=group.text if group else "",
            # no selected job has it: the step or time axis
            x_tag=url.x_tag if url.x_tag in raw_tags else "",
        ),
        jobs=selected_jobs,
        tags=tags,
        hidden=[j for j in jobs if j in closed],
        all_tags=all_tags,
        raw_tags=raw_tags,
        charts_of=charts_of,
        job_texts=dict(job_texts or {}),
        explicit_jobs=chosen is not None,
        explicit_tags=chosen_tags is not None,
        shown_jobs=shown_jobs,
        shown_tags=[t for t in visible_tags(all_tags, tags, url.filter) if t in drawn_tags],
        group=group,
        group_problem=group_problem,
    )


def checked_group_by(text: str) -> tuple[GroupBy | None, str]:
    """The URL's ``group_by`` (:func:`~.query_groups.parse_group_by`), and what is wrong with it
    (then no grouping)."""
    try:
        return parse_group_by(text), ""
    except ValueError as error:
        return None, _("Cannot group by {text}: {error}").format(
            text=text[:40] + ("…" if len(text) > 40 else ""), error=error
        )


def controls_search(
    state: CompareState,
    jobs: list[str],
    tags_of: dict[str, list[str]],
    trigger: Any,
    checked_jobs: list[str] | None,
    job_pattern: str | None,
    checked_tags: list[str] | None,
    tag_pattern: str | None,
    axis: str | None,
    smoothing: float | None,
    x_tag: str | None = None,
) -> str:
    """The URL after the control ``trigger`` changed (the other arguments are the controls'
    values). Names hidden by a filter keep their selection; ``jobs`` is written once the user
    changed the default selection, ``tags`` when not every tag of the selected jobs; what
    other controls than these set is kept."""
    matching_jobs, _unused = filter_tags(jobs, job_pattern or "", state.job_texts)
    selected_jobs = pick(
        jobs, state.jobs, checked_jobs, matching_jobs, picker_action(trigger, "compare-jobs")
    )
    raw_tags = union_tags(selected_jobs, tags_of)
    all_tags = union_tags(selected_jobs, chart_tags(tags_of, state.url.tag_map))
    matching_tags, _unused = filter_tags(all_tags, tag_pattern or "")
    tags = [t for t in all_tags if t in state.tags or not state.explicit_tags]
    tags = pick(all_tags, tags, checked_tags, matching_tags, picker_action(trigger, "compare-tags"))
    page = state.url.page
    if trigger == "compare-prev":
        page = max(1, page - 1)
    elif trigger == "compare-next":
        page += 1
    elif (
        selected_jobs != state.jobs
        or tags != state.tags
        or (job_pattern or "") != state.url.job_filter
        or (tag_pattern or "") != state.url.filter
    ):
        page = 1  # what is drawn changed: back to its first page
    explicit = selected_jobs != jobs[:DEFAULT_JOBS] or state.explicit_jobs
    url = dataclasses.replace(
        state.url,
        jobs=selected_jobs if explicit else None,
        job_filter=job_pattern or "",
        tags=None if tags == all_tags else tags,
        filter=tag_pattern or "",
        axis=AXIS.from_control(axis),
        smoothing=SMOOTHING.from_control(smoothing),
        page=page,
        hidden=state.hidden or None,
        x_tag=x_tag if x_tag in raw_tags else "",
    )
    return make_search(STATE.params(url))


def crowd_warning(jobs: int, shown: int) -> str:
    """The warning beside the job picker: no job at all, or too many lines per chart."""
    if not jobs:
        return _("No job with scalar data yet.")
    if shown > WARN_JOBS:
        return "⚠ " + _(
            "{shown} jobs drawn: charts with more than {most} lines are hard to read"
        ).format(shown=shown, most=WARN_JOBS)
    return ""


def chart_specs(
    state: CompareState,
    tags_of: dict[str, list[str]],
    colours: Mapping[str, str] | None = None,
    groups: Sequence[Group] | None = None,
) -> tuple[list[ChartSpec], int]:
    """The charts of the current page: one per tag shown, one line per shown job that has the
    tag, in the job's colour (``colours``: train_id -> colour, the same on every chart); the
    legend always names the jobs (also a chart of one job). With ``groups``: one line and band
    per group instead (:func:`group_series`). With a tag map a chart is a chart name: a line
    per job and original tag mapped to it, named by both (:func:`~.query_tag_map.series_name`)."""
    on_page, _unused, pages = page_of(state.shown_tags, state.url.page, CHARTS_PER_PAGE)
    charts = []
    for tag in on_page:
        mapped = is_mapped(state, tag)
        series = tuple(
            SeriesSpec(
                job, raw, series_name(job, raw, tag, mapped), colour=(colours or {}).get(job)
            )
            for job in state.shown_jobs
            for raw in drawn_originals(state, tags_of, job, tag)
        )
        if groups is not None:
            series = group_series(state, groups, tag, tags_of)
        charts.append(ChartSpec(f"compare|{tag}", tag, series, legend=True))
    return charts, pages


def drawn_originals(
    state: CompareState, tags_of: Mapping[str, list[str]], job: str, chart: str
) -> list[str]:
    """The original tags of ``job`` (``tags_of``: the jobs' own tags) drawn on ``chart``
    through the URL's tag map (:func:`~.query_tag_map.originals`)."""
    return originals(tags_of.get(job, []), chart, state.url.tag_map)


def is_mapped(state: CompareState, chart: str) -> bool:
    """Whether the URL's tag map puts some tag on ``chart`` (its lines then name their tags)."""
    return chart in state.url.tag_map.values()


# -- groups ---------------------------------------------------------------------------------------


def lineage_columns(provider: DataProvider, train_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The lineage columns (:func:`~dash_insight.core.lineage_rows.row_columns`) of those of
    ``train_ids`` that have lineage."""
    with_lineage = {job.train_id for job in provider.list_jobs() if job.lineage_files}
    out = {}
    for train_id in train_ids:
        if train_id not in with_lineage:
            continue
        try:
            row = lineage_row(train_id, provider.lineage_records(train_id))
        except DataError:
            continue
        if row is not None:
            out[train_id] = row_columns(row)
    return out


def column_label(column: str) -> str:
    """A lineage column as the lineage table names it: ``[U]seed``, ``[M]accuracy``, fields
    by their id."""
    for prefix, mark in ((USER_DEFINED_PREFIX, "[U]"), (METRIC_PREFIX, "[M]")):
        if column.startswith(prefix):
            return mark + column[len(prefix) :]
    return column


def group_options(columns: Mapping[str, Mapping[str, Any]], group_by: str) -> list[dict[str, str]]:
    """The group-by menu: the lineage columns some of the jobs have a value of (in the order
    first seen), and the URL's regular expression when it groups by one."""
    seen: dict[str, None] = {}
    for values in columns.values():
        for column, value in values.items():
            if value is not None:
                seen.setdefault(column)
    options = [{"label": column_label(c), "value": c} for c in seen]
    if group_by.startswith(REGEX_PREFIX) or (group_by and group_by not in seen):
        options.append({"label": group_by, "value": group_by})
    return options


def run_groups(
    provider: DataProvider,
    state: CompareState,
    columns: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[list[Group] | None, str]:
    """The drawn jobs in the URL's groups (None: not grouped), and a problem to show: the
    URL's (a regex that does not compile), or a column none of them has. ``columns``: the jobs'
    lineage columns when already read."""
    by: GroupBy | None = state.group
    if by is None:
        return None, state.group_problem
    if columns is None:
        columns = lineage_columns(provider, state.shown_jobs) if by.column else {}
    problem = ""
    if by.column and not any(values.get(by.column) is not None for values in columns.values()):
        problem = _("No job drawn has a value of the lineage column {column}.").format(
            column=by.column
        )
    return assign_groups(state.shown_jobs, by, columns), problem


def group_label(by: GroupBy | None, group: Group) -> str:
    """A group's name: ``<column>=<value>``, the regex's capture, or "no group"."""
    if group.name is None:
        return _("no group")
    return f"{column_label(by.column)}={group.name}" if by and by.column else group.name


def group_series(
    state: CompareState, groups: Sequence[Group], tag: str, tags_of: Mapping[str, list[str]]
) -> tuple[SeriesSpec, ...]:
    """A chart's lines when runs are grouped: per group with the tag, its line and band in the
    group's colour (the palette by the group's place), the legend saying how many runs it
    holds; with ``runs``, each run first as a thin line in its group's colour. With a tag map,
    a group's runs are aggregated per original tag (:func:`tag_members`), each line naming it."""
    lines: list[SeriesSpec] = []
    thin: list[SeriesSpec] = []
    mapped = is_mapped(state, tag)
    for index, group in enumerate(groups):
        colour = PALETTE[index % len(PALETTE)]
        for raw, runs in tag_members(state, group.runs, tag, tags_of).items():
            name = ngettext("{group} ({count} run)", "{group} ({count} runs)", len(runs)).format(
                group=group_label(state.group, group), count=len(runs)
            )
            lines.append(
                SeriesSpec(
                    runs[0],
                    raw,
                    series_name(name, raw, tag, mapped),
                    colour=colour,
                    members=runs,
                    centre=state.url.centre,
                    band=state.url.band,
                )
            )
            if state.url.runs:
                thin.extend(
                    SeriesSpec(
                        job, raw, series_name(job, raw, tag, mapped), colour=colour, thin=True
                    )
                    for job in runs
                )
    return (*thin, *lines)


def tag_members(
    state: CompareState, runs: Sequence[str], chart: str, tags_of: Mapping[str, list[str]]
) -> dict[str, tuple[str, ...]]:
    """The ``runs`` drawn on ``chart`` by original tag (one entry without a tag map), in the
    order first seen."""
    out: dict[str, list[str]] = {}
    for job in runs:
        for raw in drawn_originals(state, tags_of, job, chart):
            out.setdefault(raw, []).append(job)
    return {raw: tuple(jobs) for raw, jobs in out.items()}


def lineage_colours(
    columns: Mapping[str, Mapping[str, Any]], jobs: Sequence[str], column: str
) -> tuple[dict[str, str], dict[str, Any] | None]:
    """Each of ``jobs`` in a colour by its value of the lineage ``column``, and the legend: all
    values numbers -> a colour scale from the lowest to the highest (``{"low", "high"}``),
    else one palette colour per value (``{"items": [[value, colour]]}``); grey without a value.
    No job with a value: no colours, no legend."""
    values = {job: (columns.get(job) or {}).get(column) for job in jobs}
    present = {job: v for job, v in values.items() if value_label(v) is not None}
    if not present:
        return {}, None
    numbers = {
        job: float(v)
        for job, v in present.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    if len(numbers) == len(present):
        low, high = min(numbers.values()), max(numbers.values())
        colours = {
            job: colour_at((v - low) / (high - low) if high > low else 0.5)
            for job, v in numbers.items()
        }
        legend: dict[str, Any] = {"low": low, "high": high}
    else:
        labels = list(dict.fromkeys(str(value_label(v)) for v in present.values()))
        palette = {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(labels)}
        colours = {job: palette[str(value_label(v))] for job, v in present.items()}
        legend = {"items": list(palette.items())}
    return {job: colours.get(job, MISSING_COLOUR) for job in jobs}, legend


def colour_legend(column: str, legend: Mapping[str, Any] | None) -> list[Any]:
    """The legend of the runs' colours: a colour bar from the lowest to the highest value, or
    a swatch per value."""
    if legend is None:
        return []
    if "items" in legend:
        return [
            html.Span(
                [html.Span(className="di-run-dot", style={"background": colour}), label],
                className="di-colour-item",
            )
            for label, colour in legend["items"]
        ]
    stops = ", ".join(f"{colour} {fraction * 100:g}%" for fraction, colour in VALUE_SCALE)
    return [
        html.Span(f"{legend['low']:g}", className="di-muted"),
        html.Span(
            className="di-colour-bar",
            title=column_label(column),
            style={"background": f"linear-gradient(to right, {stops})"},
        ),
        html.Span(f"{legend['high']:g}", className="di-muted"),
    ]


#: The group-by and colour-by menus' looks: options, value, note; options, value, legend.
GroupLooks = tuple[
    list[dict[str, str]], str | None, str, list[dict[str, str]], str | None, list[Any]
]


def colour_by_row(
    state: CompareState, options: Sequence[Mapping[str, str]] = (), legend: Sequence[Any] = ()
) -> html.Div:
    """Colour the runs by a lineage column (its options and legend: :func:`group_looks`; the
    layout's, then :func:`group_controls`)."""
    return html.Div(
        className="di-toolbar di-compare-groups",
        children=[
            html.Span(_("Colour runs by"), className="di-control-label"),
            dcc.Dropdown(
                id="compare-colour-by",
                options=list(options),
                value=state.url.colour_by or None,
                placeholder=_("a lineage column"),
                className="di-compose",
            ),
            html.Div(list(legend), id="compare-colour-legend", className="di-colour-legend"),
        ],
    )


def group_downloads(
    state: CompareState,
    groups: Sequence[Group],
    found: Sequence[Found],
    xs: XValues | None = None,
) -> list[GroupFound]:
    """The aggregates of the download: per tag shown, per group, of the raw series ``found``
    (:func:`downloads`) of its runs; with a tag map, per original tag of the chart (as drawn).
    ``xs`` (on the URL's x tag, :func:`x_values`): each run's points placed on it, as the
    chart places them (:func:`~.query_groups.aggregate`)."""
    series = {(job, tag): points for job, tag, points in found}
    raws = list(dict.fromkeys(tag for _job, tag, _points in found))
    out: list[GroupFound] = []
    for chart in state.shown_tags:
        for group in groups:
            for tag in (t for t in raws if chart_of(t, state.url.tag_map) == chart):
                runs = tuple(job for job in group.runs if (job, tag) in series)
                if runs:
                    points = aggregate(
                        [series[j, tag] for j in runs],
                        state.url.centre,
                        state.url.band,
                        None if xs is None else [xs[j, tag] for j in runs],
                    )
                    out.append((group_label(state.group, group), tag, points, runs))
    return out


def x_values(provider: DataProvider, state: CompareState, found: Sequence[Found]) -> XValues | None:
    """On the URL's x tag (None without one): the value the tag of each series' job has at
    each of its steps (:func:`~.query_x_tag.values_at_steps`: NaN where it has none; all NaN
    for a job without the tag), by (job, tag)."""
    if not state.url.x_tag:
        return None
    read: dict[str, ScalarSeries | None] = {}
    out: XValues = {}
    for job, tag, points in found:
        if job not in read:
            try:
                read[job] = provider.read_scalars(job, state.url.x_tag)
            except DataError:
                read[job] = None
        out[job, tag] = x_of(points.step, read[job])
    return out


def downloads(
    provider: DataProvider, state: CompareState, tags_of: dict[str, list[str]]
) -> list[Found]:
    """What "Download" saves: for each tag the page shows (every page of the grid), the raw
    points of each drawn run that has it (hidden runs and runs the job filter hides left out),
    in chart order then run order; a series that cannot be read any more is left out. Each
    series is named by its original tag (a tag map draws it on a chart of another name)."""
    found: list[Found] = []
    for chart in state.shown_tags:
        for job in state.shown_jobs:
            for tag in drawn_originals(state, tags_of, job, chart):
                try:
                    found.append((job, tag, provider.read_scalars(job, tag)))
                except DataError:
                    continue
    return found


def download_file(
    found: list[Found],
    fmt: str,
    groups: Sequence[GroupFound] | None = None,
    xs: XValues | None = None,
    x_tag: str = "",
) -> dict[str, Any]:
    """The ``dcc.Download`` data of the points ``found`` as ``csv`` or ``json``
    (:mod:`~dash_insight.plugins.scalars.rest_export`, the REST download's format); with ``groups``
    (runs grouped), the grouped formats: the runs' points and the groups' aggregates, with
    each point's x on the x tag ``x_tag`` (``xs``: :func:`x_values`)."""
    if groups is not None:
        if fmt == "json":
            return {
                "content": b"".join(grouped_json_pieces(found, groups, xs, x_tag)).decode(),
                "filename": "scalars_comparison_groups.json",
                "type": "application/json",
            }
        return {
            "content": "".join(grouped_csv_rows(found, groups, xs)),
            "filename": "scalars_comparison_groups.csv",
            "type": "text/csv",
        }
    if fmt == "json":
        return {
            "content": b"".join(json_pieces(found)).decode(),
            "filename": "scalars_comparison.json",
            "type": "application/json",
        }
    return {
        "content": "".join(csv_rows(found)),
        "filename": "scalars_comparison.csv",
        "type": "text/csv",
    }


def eye_colours(
    provider: DataProvider, jobs: list[str], overrides: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """The colour of each of ``jobs``: the colour of its lines (by its place among every job,
    not only scalar ones, so that a run has the same colour on the loss landscape comparison;
    ``overrides``: the user's colours), also that of its eye in the job list, which is thus
    the charts' legend, as TensorBoard's runs list."""
    return run_colours(jobs, [job.train_id for job in provider.list_jobs()], overrides)


def colour_row(choices: tuple[list[dict[str, Any]], str | None] = ([], None)) -> html.Div:
    """Pick a run's colour: the run (one of those drawn), a palette swatch, or its default
    (``choices``: the menu's options and value, :func:`run_choices`)."""
    return html.Div(
        className="di-toolbar di-run-colours",
        children=[
            html.Span(_("Run colour"), className="di-control-label"),
            dcc.Dropdown(
                id="compare-colour-run",
                options=choices[0],
                value=choices[1],
                placeholder=_("run"),
                className="di-compose",
                clearable=False,
            ),
            *(
                html.Button(
                    id={"type": "run-swatch", "colour": colour},
                    className="di-swatch",
                    style={"background": colour},
                    title=_("Draw the run in {colour}").format(colour=colour),
                )
                for colour in PALETTE
            ),
            html.Button(
                _("Default"),
                id="compare-colour-reset",
                className="di-chip",
                title=_("Back to the run's own colour"),
            ),
        ],
    )


def group_row(
    state: CompareState, options: Sequence[Mapping[str, str]] = (), note: str = ""
) -> html.Div:
    """Group runs by a lineage column or a regular expression on their names; each group's
    centre (mean or median), band (± std or min–max), and whether its runs are drawn too.
    The menu's options and the note follow the URL (:func:`group_looks`: the layout's, then
    :func:`group_controls`)."""
    by = state.url.group_by
    pattern = by[len(REGEX_PREFIX) :] if by.startswith(REGEX_PREFIX) else ""
    return html.Div(
        className="di-toolbar di-compare-groups",
        children=[
            html.Span(_("Group runs by"), className="di-control-label"),
            dcc.Dropdown(
                id="compare-group-by",
                options=list(options),
                value=state.url.group_by or None,
                placeholder=_("a lineage column"),
                className="di-compose di-group-by",
            ),
            html.Div(
                dcc.Input(
                    id="compare-group-regex",
                    type="text",
                    value=pattern,
                    debounce=True,
                    maxLength=MAX_GROUP_BY,
                    placeholder=_("or a regex on run names"),
                    className="di-input di-group-regex",
                ),
                title=_("Its first capture group names the group, e.g. lr([0-9.]+)"),
                className="di-group-regex-box",
            ),
            dcc.RadioItems(
                id="compare-centre",
                value=state.url.centre,
                inline=True,
                options=[
                    {"label": _("mean"), "value": "mean"},
                    {"label": _("median"), "value": "median"},
                ],
            ),
            dcc.RadioItems(
                id="compare-band",
                value=state.url.band,
                inline=True,
                options=[
                    {"label": _("± std"), "value": "std"},
                    {"label": _("min–max"), "value": "minmax"},
                ],
            ),
            dcc.Checklist(
                id="compare-group-runs",
                value=["runs"] if state.url.runs else [],
                options=[{"label": " " + _("show runs"), "value": "runs"}],
            ),
            html.Span(note, id="compare-group-note", className="di-muted di-group-note"),
        ],
    )


def side_tools(
    state: CompareState,
    looks: GroupLooks | None = None,
    tag_note: str = "",
    choices: tuple[list[dict[str, Any]], str | None] = ([], None),
) -> list[html.Div]:
    """Below the pickers: the runs' colours, then the groups, then the tags across runs
    (``looks``: the group and colour-by menus' options, note and legend,
    :func:`group_looks`; ``tag_note``: the tag map's note, :func:`tag_map_looks`;
    ``choices``: the run colour menu's, :func:`run_choices`)."""
    if looks is None:
        return [colour_row(), group_row(state), colour_by_row(state), tag_map_row(state)]
    options, _value, note, colour_options, _colour, legend = looks
    return [
        colour_row(choices),
        group_row(state, options, note),
        colour_by_row(state, colour_options, legend),
        tag_map_row(state, tag_note),
    ]


# -- tags across runs (:mod:`.tag_map`) ----------------------------------------------------------

#: The browser's store of the last mapping per base directory (localStorage).
TAG_MAPS_STORE = "compare-tag-maps"


def base_key(service: DataService) -> str:
    """The key of this base directory's mapping in the browser's store (a digest of its path,
    so the store does not hold paths)."""
    return hashlib.sha256(service.summary_base_dir.encode()).hexdigest()[:16]


def tag_map_row(state: CompareState, note: str = "") -> html.Div:
    """The mapping as text (``original → chart`` per line), Apply, the suggested mapping added
    by one click, Clear; the note says what is suggested (:func:`tag_map_controls`)."""
    return html.Div(
        className="di-compare-tag-map",
        children=[
            html.Span(_("Tags across runs"), className="di-control-label"),
            dcc.Textarea(
                id="compare-tag-map-text",
                value=format_lines(state.url.tag_map),
                rows=3,
                maxLength=MAX_ENTRIES * (2 * MAX_NAME_CHARS + 4),
                placeholder=_("one per line: train/loss → loss"),
                className="di-input di-tag-map-text",
            ),
            html.Div(
                className="di-toolbar",
                children=[
                    html.Button(_("Apply"), id="compare-tag-map-apply", className="di-chip"),
                    html.Button(
                        _("Add suggested"),
                        id="compare-tag-map-suggest",
                        className="di-chip",
                        title=_("Map tags whose last path parts agree onto one chart"),
                    ),
                    html.Button(_("Clear"), id="compare-tag-map-clear", className="di-chip"),
                ],
            ),
            html.Span(note, id="compare-tag-map-note", className="di-muted"),
            dcc.Store(id=TAG_MAPS_STORE, storage_type="local", data={}),
        ],
    )


def tag_map_controls(
    provider: DataProvider, search: str | None, _ticks: Any, _clicks: Any
) -> tuple[str, str]:
    """:func:`tag_map_looks` of the URL ``search``."""
    state, _jobs, tags_of = current_state(provider, search)
    return tag_map_looks(state, tags_of)


def tag_map_looks(state: CompareState, tags_of: Mapping[str, list[str]]) -> tuple[str, str]:
    """The text box (the URL's mapping) and the note: what the mapping merges, and the tags
    of the selected jobs :func:`~.query_tag_map.suggest_tag_map` would merge besides."""
    tag_map = state.url.tag_map
    notes = []
    if tag_map:
        notes.append(_("Shared charts: {charts}").format(charts="; ".join(describe(tag_map))))
    extra = {
        tag: chart
        for tag, chart in suggest_tag_map({j: tags_of.get(j, []) for j in state.jobs}).items()
        if tag not in tag_map
    }
    if extra:
        notes.append(_("Suggested: {charts}").format(charts="; ".join(describe(extra))))
    elif tag_map:
        notes.append(_("Nothing more to suggest."))
    else:
        notes.append(
            _("Nothing to suggest: no tags of the selected jobs share their last path part.")
        )
    return format_lines(tag_map), " · ".join(notes)


def tag_map_search(
    provider: DataProvider,
    key: str,
    trigger: Any,
    clicked: bool,
    _apply: Any,
    _suggest: Any,
    _clear: Any,
    text: str | None,
    search: str | None,
    stored: Any,
) -> tuple[Any, Any]:
    """The URL and the browser's store after Apply (the text box's mapping), Add suggested
    (the suggested entries added) or Clear (no mapping; the store keeps the empty one, so that
    it is not restored). Buttons drawn, not clicked: nothing."""
    if not clicked:
        return dash.no_update, dash.no_update
    state, _jobs, tags_of = current_state(provider, search)
    if trigger == "compare-tag-map-apply":
        tag_map = parse_lines(text)
    elif trigger == "compare-tag-map-suggest":
        selected = {j: tags_of.get(j, []) for j in state.jobs}
        tag_map = merged(state.url.tag_map, suggest_tag_map(selected))
    else:
        tag_map = {}
    params: dict[str, Any] = parse_search(search)
    params["tag_map"] = STATE.fields["tag_map"].text(tag_map)
    params["page"] = None
    new = make_search(params)
    kept = dict(stored) if isinstance(stored, Mapping) else {}
    return (dash.no_update if same_search(new, search) else new), {**kept, key: tag_map}


def restore_tag_map(key: str, stored: Any, search: str | None) -> Any:
    """The URL with the browser's mapping of this base directory when the URL has none (the
    page opened from the top bar or a bookmark without one)."""
    params: dict[str, Any] = parse_search(search)
    saved = clean_tag_map(stored.get(key) if isinstance(stored, Mapping) else None)
    if "tag_map" in params or not saved:
        return dash.no_update
    params["tag_map"] = STATE.fields["tag_map"].text(saved)
    return make_search(params)


def _bind_tag_map(app: dash.Dash, service: DataService) -> None:
    """The tag map's text box and note follow the URL; its buttons write the URL and store;
    the store fills a URL without a mapping."""
    provider, key = service.provider, base_key(service)
    app.callback(
        Output("compare-tag-map-text", "value"),
        Output("compare-tag-map-note", "children"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(tag_map_controls, provider))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Output(TAG_MAPS_STORE, "data"),
        Input("compare-tag-map-apply", "n_clicks"),
        Input("compare-tag-map-suggest", "n_clicks"),
        Input("compare-tag-map-clear", "n_clicks"),
        State("compare-tag-map-text", "value"),
        State("url", "search"),
        State(TAG_MAPS_STORE, "data"),
        prevent_initial_call=True,
    )(triggered(functools.partial(tag_map_search, provider, key), clicked=True))
    # Not at the layout's load, whose store is empty: the store's mount sets what the browser
    # kept, which fires it (an initial call was a round trip answering nothing at each load).
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(TAG_MAPS_STORE, "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(functools.partial(restore_tag_map, key))


def controls_panel(state: CompareState) -> html.Div:
    """The charts' controls (:func:`~.page_charts.controls`)."""
    return html.Div(
        className="di-panel",
        children=controls("compare", state.url, state.raw_tags),
    )


def job_picker(provider: DataProvider, jobs: list[str], state: CompareState) -> html.Div:
    """The job list: an eye per run in its colour, its filter searching names and labels."""
    return picker(
        "compare-jobs",
        _("Job Selection"),
        jobs,
        state.jobs,
        state.url.job_filter,
        noun="job",
        extra=[
            html.Span(
                crowd_warning(len(jobs), len(state.shown_jobs)),
                id="compare-warning",
                className="di-warning",
            )
        ],
        hidden=state.hidden,
        colours=eye_colours(provider, jobs),
        filter_texts=state.job_texts,
    )


def side_panel(
    provider: DataProvider, jobs: list[str], state: CompareState, tags_of: dict[str, list[str]]
) -> html.Aside:
    """The side panel: the job and tag pickers, then :func:`side_tools`."""
    return html.Aside(
        className="di-panel di-compare-side",
        id="compare-side",
        children=[
            job_picker(provider, jobs, state),
            picker(
                "compare-tags",
                _("Tag Selection"),
                state.all_tags,
                state.tags,
                state.url.filter,
            ),
            *side_tools(
                state,
                group_looks(provider, state),
                tag_map_looks(state, tags_of)[1],
                run_choices(provider, state, None),
            ),
        ],
    )


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    jobs, tags_of = scalar_jobs(service.provider, params)
    state = page_state(params, jobs, tags_of, label_texts(service.provider, jobs))
    # The first grid is the layout's: no callback round trip before the charts are planned
    # (the grid callback answers only what changes after; the plan is in the HTML too).
    content = grid_content(service.provider, state, tags_of)
    return html.Div(
        [
            *compare_head(
                app,
                PATH,
                params,
                _("Scalar Comparison"),
                _("scalars of several training jobs in one chart per tag"),
                html.Button(
                    _("Download CSV"),
                    id="compare-download-csv",
                    className="di-button secondary",
                    title=_("The raw points of the charts shown, without hidden runs"),
                ),
                html.Button(
                    _("Download JSON"),
                    id="compare-download-json",
                    className="di-button secondary",
                    title=_("The raw points of the charts shown, without hidden runs"),
                ),
                dcc.Download(id="compare-download"),
            ),
            html.Div(
                className="di-compare-body",
                children=[
                    side_panel(service.provider, jobs, state, tags_of),
                    html.Div(
                        className="di-compare-main",
                        children=[
                            controls_panel(state),
                            *chart_stores("compare", content.plan, service.summary_base_dir),
                            html.Div(content.cards, id="compare-grid", className="di-chart-grid"),
                            pager("compare", texts=(content.total, content.page)),
                        ],
                    ),
                ],
            ),
        ]
    )


# -- callbacks (plain functions: register() binds them) ---------------------------------------


def current_state(
    provider: DataProvider, search: str | None
) -> tuple[CompareState, list[str], dict[str, list[str]]]:
    """:func:`page_state` of the URL ``search``, the scalar jobs and their tags."""
    params = parse_search(search)
    jobs, tags_of = scalar_jobs(provider, params)
    return page_state(params, jobs, tags_of, label_texts(provider, jobs)), jobs, tags_of


def download(
    provider: DataProvider, trigger: Any, clicked: bool, _csv: Any, _json: Any, search: str | None
) -> Any:
    """The download of the button clicked (``trigger``): the charts' raw points, and the
    groups' aggregates when runs are grouped (on the URL's x tag, with the x of each point:
    :func:`x_values`)."""
    if not clicked:
        return dash.no_update
    state, _jobs, tags_of = current_state(provider, search)
    found = downloads(provider, state, tags_of)
    groups, _problem = run_groups(provider, state)
    if groups is None:
        return download_file(found, "json" if trigger == "compare-download-json" else "csv")
    xs = x_values(provider, state, found)
    return download_file(
        found,
        "json" if trigger == "compare-download-json" else "csv",
        group_downloads(state, groups, found, xs),
        xs,
        state.url.x_tag,
    )


@dataclasses.dataclass(frozen=True)
class GridContent:
    """What the grid shows: its cards (or the empty note), the counts, the pager's text, the
    charts' plan and the ids of the charts."""

    cards: Any
    total: str
    page: str
    plan: dict[str, Any]
    ids: list[str]


def grid_content(
    provider: DataProvider, state: CompareState, tags_of: dict[str, list[str]], pins: Any = None
) -> GridContent:
    """The grid of the page's layout and of its callback (``pins``: the page's pins store, the
    pinned tags first, :mod:`.page_pins`; the layout has none)."""
    state = dataclasses.replace(state, shown_tags=pinned_first(state.shown_tags, page_pins(pins)))
    groups, _problem = run_groups(provider, state)
    colours = eye_colours(provider, state.shown_jobs)
    colours.update(column_colours(provider, state, groups))
    charts, pages = chart_specs(state, tags_of, colours, groups)
    total = _("{shown} of {count} tags, {jobs} jobs").format(
        shown=len(state.shown_tags),
        count=len(state.all_tags),
        jobs=len(state.shown_jobs),
    )
    if state.hidden:
        total += _(", {hidden} hidden").format(hidden=len(state.hidden))
    page = f"{min(state.url.page, pages)} / {pages}"
    plan = chart_plan(provider, charts, state.url.x_tag, state.url.epoch_steps)
    ids = [c.chart_id for c in charts]
    if not charts:
        empty = _("Select jobs and tags in the selection panel.")
        return GridContent(html.Div(empty, className="di-panel di-empty"), total, page, plan, ids)
    flipped, log_x = set(state.url.best_flip or ()), set(state.url.log_x or ())
    cards = [
        chart_card(
            chart,
            with_thresholds=False,
            flipped=chart.chart_id in flipped,
            log_x=chart.chart_id in log_x,
            pin=chart.title,
        )
        for chart in charts
    ]
    return GridContent(cards, total, page, plan, ids)


def grid(
    provider: DataProvider,
    search: str | None,
    _ticks: Any,
    _clicks: Any,
    shown: list[dict],
    drawn: dict | None,
    pins: Any = None,
) -> tuple:
    """The chart cards of the page (only when the charts change), the counts, the pager and
    the charts' plan (:func:`~.page_charts.chart_plan`; nothing new: no update). ``pins``: the
    page's pins store (the pinned tags first, :mod:`.page_pins`)."""
    state, _unused, tags_of = current_state(provider, search)
    content = grid_content(provider, state, tags_of, pins)
    payload: Any = content.plan
    if drawn and drawn.get("stamp") == payload["stamp"]:
        payload = dash.no_update  # nothing new since the charts were planned
    if content.ids == [s["chart"] for s in shown]:
        return dash.no_update, content.total, content.page, payload
    return content.cards, content.total, content.page, payload


def group_controls(
    provider: DataProvider, search: str | None, _ticks: Any, _clicks: Any
) -> GroupLooks:
    """:func:`group_looks` of the URL ``search``."""
    return group_looks(provider, current_state(provider, search)[0])


def group_looks(provider: DataProvider, state: CompareState) -> GroupLooks:
    """The group-by menu's options and value (the URL's), and the note: how many groups, that
    bands cover only the steps where two runs or more have values, or what is wrong; the
    colour-by menu's options and value, and its legend."""
    columns = lineage_columns(provider, state.shown_jobs)
    groups, problem = run_groups(provider, state, columns)
    note = problem
    if groups is not None and not problem:
        note = (
            ngettext("{count} group", "{count} groups", len(groups)).format(count=len(groups))
            + " · "
            + _("bands cover the steps where at least two runs of a group have values")
        )
    colour_by = state.url.colour_by
    legend = lineage_colours(columns, state.shown_jobs, colour_by)[1] if colour_by else None
    return (
        group_options(columns, state.url.group_by),
        state.url.group_by or None,
        note,
        group_options(columns, ""),
        colour_by or None,
        colour_legend(colour_by, legend) if groups is None else [],
    )


def group_search(
    trigger: Any,
    column: str | None,
    pattern: str | None,
    centre: str | None,
    band: str | None,
    runs: list | None,
    search: str | None,
    colour_by: str | None = None,
) -> Any:
    """The URL after a group control changed (``trigger``): the menu's column (or the
    regex it lists), the regex typed (empty: back to the menu's column), the centre, the band,
    whether runs are drawn; every other parameter kept."""
    params: dict[str, Any] = parse_search(search)
    url = STATE.parse(params)
    group_by = url.group_by
    if trigger == "compare-group-by":
        group_by = column or ""
    elif trigger == "compare-group-regex":
        group_by = REGEX_PREFIX + pattern if pattern else ""
    values = {
        "colour_by": (colour_by or "")[:MAX_GROUP_BY]
        if trigger == "compare-colour-by"
        else url.colour_by,
        "group_by": group_by[:MAX_GROUP_BY],
        "centre": centre,
        "band": band,
        "runs": STATE.fields["runs"].from_control(runs),
    }
    for name, value in values.items():
        params[name] = STATE.fields[name].text(value)  # None at the default: left out
    new = make_search(params)
    return dash.no_update if same_search(new, search) else new


def _bind_groups(app: dash.Dash, service: DataService) -> None:
    """The callbacks of the grid, the download, the group controls and the tag map."""
    provider = service.provider
    _bind_tag_map(app, service)
    app.callback(
        Output("compare-grid", "children"),
        Output("compare-total", "children"),
        Output("compare-page", "children"),
        Output(IDS["data"], "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        State({"type": "graph-slot", "chart": dash.ALL}, "id"),
        State(IDS["data"], "data"),
        Input({"type": "chart-pins", "page": "compare", "base": dash.ALL}, "data"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(grid, provider))
    app.callback(
        Output("compare-download", "data"),
        Input("compare-download-csv", "n_clicks"),
        Input("compare-download-json", "n_clicks"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(download, provider), clicked=True))
    app.callback(
        Output("compare-group-by", "options"),
        Output("compare-group-by", "value"),
        Output("compare-group-note", "children"),
        Output("compare-colour-by", "options"),
        Output("compare-colour-by", "value"),
        Output("compare-colour-legend", "children"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(group_controls, provider))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("compare-group-by", "value"),
        Input("compare-group-regex", "value"),
        Input("compare-centre", "value"),
        Input("compare-band", "value"),
        Input("compare-group-runs", "value"),
        State("url", "search"),
        Input("compare-colour-by", "value"),
        prevent_initial_call=True,
    )(triggered(group_search))


def picked_jobs(provider: DataProvider, search: str | None) -> tuple[Any, ...]:
    """The job picker's names, ticked names, filter and what the filter searches per job."""
    state, jobs, _unused = current_state(provider, search)
    return jobs, state.jobs, state.url.job_filter, state.job_texts


def picked_tags(provider: DataProvider, search: str | None) -> tuple[list[str], list[str], str]:
    """The tag picker's names, ticked names and filter."""
    state, _jobs, _tags = current_state(provider, search)
    return state.all_tags, state.tags, state.url.filter


def hidden_jobs(provider: DataProvider, search: str | None) -> list[str]:
    """The runs whose eye is closed."""
    state, _jobs, _tags = current_state(provider, search)
    return state.hidden


def job_colours(provider: DataProvider, search: str | None, overrides: Any) -> dict[str, str]:
    """The colours of the job picker's eyes, those of the runs' lines: by the lineage column
    the URL colours runs by (:func:`column_colours`), else by their place; a colour the user
    chose (``overrides``) wins over both, as on the charts."""
    state, _offered, _tags = current_state(provider, search)
    jobs, _tags = scalar_jobs(provider)
    own = overrides if isinstance(overrides, Mapping) else {}
    colours = eye_colours(provider, jobs, own or None)
    by_column = column_colours(provider, state, run_groups(provider, state)[0])
    colours.update({job: colour for job, colour in by_column.items() if job not in own})
    return colours


def column_colours(provider: DataProvider, state: CompareState, groups: Any) -> dict[str, str]:
    """The colours of the runs drawn by the lineage column the URL colours them by
    (:func:`lineage_colours`; runs without a value grey); {} without ``colour_by`` or when the
    runs are grouped (``groups`` not None: each group has its own colour)."""
    if not state.url.colour_by or groups is not None:
        return {}
    columns = lineage_columns(provider, state.shown_jobs)
    return lineage_colours(columns, state.shown_jobs, state.url.colour_by)[0]


def controls_to_url(
    provider: DataProvider,
    trigger: Any,
    clicked: bool,
    job_rows: Any,
    _a: Any,
    _b: Any,
    job_pattern: str | None,
    tag_rows: Any,
    _c: Any,
    _d: Any,
    tag_pattern: str | None,
    axis: str,
    smoothing: float | None,
    _prev: Any,
    _next: Any,
    x_tag: str | None,
    search: str | None,
) -> Any:
    """The URL after a control changed (``trigger``): the pickers, the axis, the smoothing,
    the pager, the x tag; ``no_update`` when it says the same."""
    if picker_button_drawn(trigger, clicked):
        return dash.no_update
    state, jobs, tags_of = current_state(provider, search)
    ticked_jobs, ticked_tags = checked_names(job_rows), checked_names(tag_rows)
    job_pattern = None if job_pattern is None else str(job_pattern)[:MAX_FILTER_CHARS]
    tag_pattern = None if tag_pattern is None else str(tag_pattern)[:MAX_FILTER_CHARS]
    if echoed(
        trigger, "compare-jobs", ticked_jobs, jobs, state.jobs, state.url.job_filter
    ) or echoed(trigger, "compare-tags", ticked_tags, state.all_tags, state.tags, state.url.filter):
        return dash.no_update
    new = controls_search(
        state,
        jobs,
        tags_of,
        trigger,
        ticked_jobs,
        job_pattern,
        ticked_tags,
        tag_pattern,
        axis,
        smoothing,
        x_tag,
    )
    return dash.no_update if same_search(new, search) else new


def eye_clicked(provider: DataProvider, report: Any, search: str | None) -> Any:
    """A run's eye closed or opened: the URL's ``hidden`` says so."""
    jobs, _tags = scalar_jobs(provider)
    new = compare_runs.eye_search(search, jobs, report)
    return dash.no_update if new is None or same_search(new, search) else new


def warning(provider: DataProvider, search: str | None, _ticks: Any, _clicks: Any) -> str:
    """The warning beside the job picker (:func:`crowd_warning`)."""
    state, jobs, _unused = current_state(provider, search)
    return crowd_warning(len(jobs), len(state.shown_jobs))


def colour_choices(
    provider: DataProvider, search: str | None, _overrides: Any, chosen: str | None
) -> tuple:
    """:func:`run_choices` of the URL ``search``."""
    return run_choices(provider, current_state(provider, search)[0], chosen)


def run_choices(
    provider: DataProvider, state: CompareState, chosen: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """The runs drawn, each with a swatch of its colour; the first chosen at first."""
    drawn = state.shown_jobs
    options = [
        {
            "label": html.Span([run_dot(job, colour), job], className="di-run-option"),
            "value": job,
            "search": job,
        }
        for job, colour in eye_colours(provider, drawn).items()
    ]
    return options, chosen if chosen in drawn else (drawn[0] if drawn else None)


def pick_colour(
    trigger: Any,
    clicked: bool,
    _swatches: list,
    _reset: Any,
    run: str | None,
    overrides: dict | None,
) -> Any:
    """The user's run colours after a swatch (its colour) or "Default" (none) was clicked."""
    if not clicked or not run:
        return dash.no_update
    colour = trigger.get("colour") if isinstance(trigger, dict) else None
    return set_colour(overrides, run, colour)


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_picker(
        app,
        "compare-jobs",
        functools.partial(picked_jobs, provider),
        noun="job",
        read_hidden=functools.partial(hidden_jobs, provider),
        read_colours=functools.partial(job_colours, provider),
    )
    register_picker(app, "compare-tags", functools.partial(picked_tags, provider))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        *picker_inputs("compare-jobs"),
        *picker_inputs("compare-tags"),
        Input(IDS["axis"], "value"),
        Input(IDS["smoothing"], "value"),
        Input("compare-prev", "n_clicks"),
        Input("compare-next", "n_clicks"),
        Input(IDS["xtag"], "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(controls_to_url, provider), clicked=True))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input("compare-jobs-eye", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(functools.partial(eye_clicked, provider))
    app.callback(
        Output("compare-warning", "children"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        prevent_initial_call=True,  # the layout has it
    )(functools.partial(warning, provider))
    _bind_colours(app, provider)
    _bind_groups(app, service)
    register_chart_callbacks(app)


def _bind_colours(app: dash.Dash, provider: DataProvider) -> None:
    """The run colour menu follows the runs drawn; its swatches set the user's colours."""
    app.callback(
        Output("compare-colour-run", "options"),
        Output("compare-colour-run", "value"),
        Input("url", "search"),
        Input(STORE_ID, "data"),
        State("compare-colour-run", "value"),
        prevent_initial_call=True,  # the layout has them
    )(functools.partial(colour_choices, provider))
    app.callback(
        Output(STORE_ID, "data"),
        Input({"type": "run-swatch", "colour": dash.ALL}, "n_clicks"),
        Input("compare-colour-reset", "n_clicks"),
        State("compare-colour-run", "value"),
        State(STORE_ID, "data"),
        prevent_initial_call=True,
    )(triggered(pick_colour, clicked=True))
