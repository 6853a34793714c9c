"""The runs of a comparison tab that shows one value tag of several runs (the histograms and
images tabs): which jobs are chosen, which are hidden, the tag and the step.

The same URL parameters as the scalar comparison: ``jobs`` (absent = the :data:`DEFAULT_RUNS`
newest jobs that have the kind of data), ``job_filter`` and ``hidden`` (the runs whose eye is
closed: still chosen, not drawn), plus ``tag`` (absent = the first tag of the runs drawn) and
``step`` (absent = the last step any run drawn has): :class:`RunsUrl`, read and written by
:data:`STATE`. Each run shows its own step at or below the chosen one
(:func:`step_at_or_below`), as TensorBoard's step slider does when runs were recorded at
different steps.

Everything but :func:`run_picker` and :func:`register_run_picker` is pure.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import dash
from dash import Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataProvider
from dash_insight.core.vocabulary import PluginName
from dash_insight.web.answer_key import answer_key
from dash_insight.web.binding import triggered
from dash_insight.web.callback_types import CallbackValueError
from dash_insight.web.clicks import picker_button_drawn
from dash_insight.web.components.compare_tabs import offered
from dash_insight.web.components.run_colours import STORE_ID as RUN_COLOURS_STORE
from dash_insight.web.components.tag_select import (
    checked_names,
    echoed,
    filter_tags,
    pick,
    picker,
    picker_action,
    picker_inputs,
    register_picker,
    visible_tags,
)
from dash_insight.web.limits import MAX_FILTER_CHARS, MAX_NAME_CHARS
from dash_insight.web.url_state import (
    Int,
    Tags,
    Text,
    TypedUrlState,
    make_search,
    parse_search,
    same_search,
)

#: Runs chosen when the URL names none (the scalar comparison's default too).
DEFAULT_RUNS = 5


@dataclass(frozen=True)
class RunsUrl:
    """What a tag-and-step tab's URL says (:data:`STATE`): the ``jobs`` chosen (None: the
    default runs) and their filter, the ``hidden`` runs (at most MAX_URL_LIST_ITEMS names
    each), the ``tag`` ("" = the default tag) and the ``step`` (-1 = the last)."""

    jobs: list[str] | None = None
    job_filter: str = ""
    hidden: list[str] | None = None
    tag: str = ""
    step: int = -1


#: The runs closed by their eye: the URL parameter every comparison page shares.
HIDDEN = Tags("hidden")
#: The URL state of the tabs: each attribute of :class:`RunsUrl` and its URL parameter. A
#: tab's own parameters (the images tab's brightness) are kept when these are written.
STATE: TypedUrlState[RunsUrl] = TypedUrlState(
    RunsUrl,
    jobs=Tags("jobs"),
    job_filter=Text("job_filter", max_chars=MAX_FILTER_CHARS),
    hidden=HIDDEN,
    tag=Text("tag", max_chars=MAX_NAME_CHARS),
    step=Int("step", -1, -1, 2**62),
)


def jobs_with(
    provider: DataProvider, plugin: PluginName, params: Mapping[str, str] | None = None
) -> tuple[list[str], dict[str, list[str]]]:
    """The jobs that have tags of ``plugin`` (newest first, the job list's order) and those
    tags per job: the runs a comparison tab of that kind can draw; with the URL ``params``,
    those its job picker offers (archived runs left out unless shown,
    :func:`~dash_insight.web.components.compare_tabs.offered`)."""
    jobs = [job for job in provider.list_jobs() if job.tags.get(plugin)]
    names = [job.train_id for job in jobs]
    if params is not None:
        names = offered(provider, names, params)
    return names, {job.train_id: job.tags[plugin] for job in jobs}


@dataclass(frozen=True)
class RunSelection:
    """The runs of a comparison tab: ``jobs`` (every job offered, newest first), ``selected``
    (ticked, in ``jobs`` order), ``shown`` (ticked, matching ``pattern`` and not ``hidden``: the
    runs drawn), whether the URL named the jobs (``explicit``)."""

    jobs: list[str]
    selected: list[str]
    pattern: str
    hidden: list[str]
    shown: list[str]
    explicit: bool
    texts: Mapping[str, str] = field(default_factory=dict)


def run_selection(
    url: RunsUrl, jobs: list[str], texts: Mapping[str, str] | None = None
) -> RunSelection:
    """The runs of the URL state ``url`` among ``jobs`` (unknown names are dropped, through
    sets: work linear in the URL's lists); ``texts``: what the job filter searches for a run
    with labels (its name and ``#label`` per label,
    :func:`~dash_insight.web.components.compare_tabs.label_texts`)."""
    chosen = None if url.jobs is None else set(url.jobs)
    selected = jobs[:DEFAULT_RUNS] if chosen is None else [j for j in jobs if j in chosen]
    closed = set(url.hidden or ())
    hidden = [j for j in jobs if j in closed]
    pattern = url.job_filter
    shown = [j for j in visible_tags(jobs, selected, pattern, texts) if j not in closed]
    return RunSelection(jobs, selected, pattern, hidden, shown, chosen is not None, texts or {})


def union_names(lists: Iterable[Sequence[str]]) -> list[str]:
    """The union of ``lists`` in first-seen order (the tags of several runs)."""
    seen: dict[str, None] = {}
    for names in lists:
        for name in names:
            seen.setdefault(name)
    return list(seen)


def chosen_tag(wanted: str, tags: Sequence[str], default: str | None = None) -> str | None:
    """The tag shown: ``wanted`` when a run drawn has it, else ``default`` (when given), else
    the first tag (None: none)."""
    if wanted in tags:
        return wanted
    if default is not None:
        return default
    return tags[0] if tags else None


def most_shared_tag(
    tags: Sequence[str], tags_of: Mapping[str, Sequence[str]], runs: Sequence[str]
) -> str | None:
    """The tag of ``tags`` that most of ``runs`` have (``tags_of``: each run's tags); a tie goes
    to the first of them in ``tags`` order (None: no tags). The image comparison's default tag
    (#38 item 9)."""
    counts = {tag: sum(tag in tags_of.get(run, ()) for run in runs) for tag in tags}
    return max(tags, key=lambda tag: counts[tag]) if tags else None


def union_steps(step_lists: Iterable[Iterable[int]]) -> list[int]:
    """Every step any run has, ascending, once each (the step slider's positions)."""
    return sorted({int(step) for steps in step_lists for step in steps})


def chosen_step(wanted: int, steps: Sequence[int]) -> int | None:
    """The step of the slider: ``wanted`` when it is one of ``steps`` (ascending), else the
    last step at or below it, else the last step (``-1`` or a step before them all: the last,
    as MindInsight's sliders start); None without steps."""
    if not steps:
        return None
    if wanted < 0:
        return steps[-1]
    found = step_at_or_below(steps, wanted)
    return steps[-1] if found is None else found


def step_at_or_below(steps: Sequence[int], wanted: int) -> int | None:
    """The largest of ``steps`` (ascending) that is ``<= wanted``: what a run shows at the
    slider's step when it was not recorded at that very step (the last value it had then);
    None when every step is after ``wanted`` (the run had nothing yet)."""
    position = bisect.bisect_right(steps, wanted)
    return int(steps[position - 1]) if position else None


def step_note(wanted: int, shown: int | None, first: int | None) -> str:
    """What a run's step note says: the step shown, marked when it is not the slider's (a run
    whose steps could not be read, ``first`` None, says so)."""
    if first is None:
        return _("no readable step")
    if shown is None:
        return _("nothing at or before step {step} (first: step {first})").format(
            step=wanted, first=first
        )
    if shown == wanted:
        return _("step {step}").format(step=shown)
    return _("step {step} (the last at or before {wanted})").format(step=shown, wanted=wanted)


def missing_text(tag: str, missing: Sequence[str]) -> str:
    """The line naming the runs drawn that lack the tag shown ("" when none does)."""
    if not missing:
        return ""
    return _("No {tag} in: {runs}").format(tag=tag, runs=", ".join(missing))


def toggle_hidden(hidden: list[str], run: str, hide: bool) -> list[str]:
    """The hidden runs after the eye of ``run`` was closed (``hide``) or opened."""
    kept = [name for name in hidden if name != run]
    return [*kept, run] if hide else kept


def eye_search(search: str | None, jobs: list[str], report: Any) -> str | None:
    """The URL after a click on a run's eye (``report``: the job list's ``{list_id}-eye`` store,
    ``{"value": {"run", "hidden"}}``) on any comparison page: its :data:`HIDDEN` runs (known
    ones only) with the run added or taken out, every other parameter kept as it was; None for
    a report naming no known job."""
    value = report.get("value") if isinstance(report, dict) else None
    run = value.get("run") if isinstance(value, dict) else None
    known = set(jobs)
    if not isinstance(value, dict) or not isinstance(run, str) or run not in known:
        return None
    params: dict[str, str | None] = {**parse_search(search)}
    closed = [j for j in HIDDEN.parse(params.get(HIDDEN.name)) or [] if j in known]
    params[HIDDEN.name] = HIDDEN.text(toggle_hidden(closed, run, bool(value.get("hidden"))) or None)
    return make_search(params)


def picker_search(
    search: str | None,
    jobs: list[str],
    trigger: Any,
    checked: list[str] | None,
    pattern: str | None,
    list_id: str,
    texts: Mapping[str, str] | None = None,
) -> str:
    """The URL after the job picker ``list_id`` changed (``trigger``: its component); ``jobs``
    is written once the selection differs from the default. ``texts``: what the filter
    searches (:func:`run_selection`); the filter is cut at
    :data:`~dash_insight.web.limits.MAX_FILTER_CHARS` characters."""
    params = parse_search(search)
    url = STATE.parse(params)
    runs = run_selection(url, jobs, texts)
    typed = STATE.fields["job_filter"].from_control(pattern)
    matching, _unused = filter_tags(jobs, typed, texts)
    selected = pick(jobs, runs.selected, checked, matching, picker_action(trigger, list_id))
    explicit = runs.explicit or selected != jobs[:DEFAULT_RUNS]
    return STATE.search(replace(url, jobs=selected if explicit else None, job_filter=typed), params)


def run_picker(list_id: str, runs: RunSelection) -> html.Div:
    """The job list of the tab, with an eye per run (as on the scalar comparison)."""
    return picker(
        list_id,
        _("Job Selection"),
        runs.jobs,
        runs.selected,
        runs.pattern,
        noun="job",
        hidden=runs.hidden,
        filter_texts=runs.texts,
    )


@dataclass(frozen=True)
class RunPicker:
    """The job list ``list_id`` of a comparison tab over the jobs ``jobs_of(params)`` gives
    for the URL's parameters: what it shows for a URL, and the URL its ticks, filter and eyes
    write. ``texts_of(jobs)``: what the filter searches for each (:func:`run_selection`)."""

    list_id: str
    jobs_of: Callable[[Mapping[str, str]], list[str]]
    texts_of: Callable[[list[str]], Mapping[str, str]] | None = None

    def current(self, search: str | None) -> RunSelection:
        params = parse_search(search)
        jobs = self.jobs_of(params)
        texts = self.texts_of(jobs) if self.texts_of else None
        return run_selection(STATE.parse(params), jobs, texts)

    def picked(self, search: str | None) -> tuple[list[str], list[str], str, Mapping[str, str]]:
        """The picker's jobs, ticked jobs, filter and what the filter searches for the URL."""
        runs = self.current(search)
        return runs.jobs, runs.selected, runs.pattern, runs.texts

    def hidden(self, search: str | None) -> list[str]:
        """The jobs whose eye is closed."""
        return self.current(search).hidden

    def picker_to_url(
        self,
        trigger: Any,
        clicked: bool,
        rows: Any,
        _all: Any,
        _none: Any,
        pattern: str | None,
        search: str | None,
    ) -> Any:
        """The URL after a tick, All, None or the filter (``no_update``: a button drawn, the
        list echoing the URL, or the same page)."""
        if picker_button_drawn(trigger, clicked):
            return dash.no_update
        runs = self.current(search)
        checked = checked_names(rows)
        if echoed(trigger, self.list_id, checked, runs.jobs, runs.selected, runs.pattern):
            return dash.no_update
        new = picker_search(search, runs.jobs, trigger, checked, pattern, self.list_id, runs.texts)
        return dash.no_update if same_search(new, search) else new

    def eye_clicked(self, report: Any, search: str | None) -> Any:
        """The URL after a click on a run's eye (:func:`eye_search`)."""
        new = eye_search(search, self.jobs_of(parse_search(search)), report)
        return dash.no_update if new is None or same_search(new, search) else new


def register_run_picker(
    app: dash.Dash,
    list_id: str,
    jobs_of: Callable[[Mapping[str, str]], list[str]],
    texts_of: Callable[[list[str]], Mapping[str, str]] | None = None,
) -> None:
    """The job list follows the URL, and its ticks, filter and eyes write the URL
    (:class:`RunPicker`)."""
    runs = RunPicker(list_id, jobs_of, texts_of)
    register_picker(app, list_id, runs.picked, noun="job", read_hidden=runs.hidden)
    app.callback(
        Output("url", "search", allow_duplicate=True),
        *picker_inputs(list_id),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(runs.picker_to_url, clicked=True))
    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(f"{list_id}-eye", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(runs.eye_clicked)


def slider_props(steps: list[int], step: int | None) -> dict[str, Any]:
    """The step slider over ``steps`` (positions 0..n-1) at ``step``: ``max``, ``value``,
    ``marks`` (the first and last step) and ``disabled`` (fewer than two steps)."""
    if not steps:
        return {"max": 0, "value": 0, "marks": None, "disabled": True}
    last = len(steps) - 1
    return {
        "max": max(1, last),
        "value": steps.index(step) if step in steps else last,
        "marks": {0: str(steps[0]), last: str(steps[-1])},
        "disabled": last < 1,
    }


@dataclass(frozen=True)
class DrawnTab:
    """What a tab drew, as its ``<prefix>-steps`` store keeps it (:meth:`data`): the
    ``tag`` shown, the ``tags`` offered, the ``default`` tag, the slider's ``steps``
    (ascending) and the ``step`` drawn."""

    tag: str | None
    tags: list[str]
    default: str | None
    steps: list[int]
    step: int | None

    def data(self) -> dict[str, Any]:
        """The store's JSON value (:meth:`read` reads it back)."""
        return asdict(self)

    @staticmethod
    def read(shown: object) -> DrawnTab | None:
        """The store a callback was given: None when it holds no object (nothing drawn yet);
        CallbackValueError (400) when its values are not of the types :meth:`data` writes (a
        value it lacks: none)."""
        if not isinstance(shown, dict):
            return None
        tag, default, step = (shown.get(key) for key in ("tag", "default", "step"))
        tags, steps = (shown.get(key, []) for key in ("tags", "steps"))
        if not all(isinstance(name, str | None) for name in (tag, default)):
            raise CallbackValueError("a tab's store names its tags by text")
        if not isinstance(tags, list) or not all(isinstance(name, str) for name in tags):
            raise CallbackValueError("a tab's store lists its tags by text")
        if not isinstance(steps, list) or not all(_is_int(number) for number in steps):
            raise CallbackValueError("a tab's store lists its steps as integers")
        if step is not None and not _is_int(step):
            raise CallbackValueError("a tab's store has its step as an integer")
        return DrawnTab(tag, tags, default, steps, step)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def tag_step_search(
    search: str | None, tag: str | None, position: int | None, shown: Mapping[str, Any] | None
) -> str | None:
    """The URL after the tag list or the step slider changed. ``shown``: what the page drew
    (:class:`DrawnTab`). A new tag keeps the step; the slider's position becomes its step.
    Defaults are left out (the default tag, else the first; the last step); None when nothing
    is drawn yet, or when the tag is not text."""
    drawn = DrawnTab.read(shown)
    if drawn is None or not isinstance(tag, str):
        return None
    params = parse_search(search)
    url = STATE.parse(params)
    union = drawn.steps
    first = drawn.default or (drawn.tags[0] if drawn.tags else None)
    step = url.step
    if tag == drawn.tag and union:
        moved = (
            int(position) if isinstance(position, int | float) and math.isfinite(position) else 0
        )
        step = url_step(union[min(max(moved, 0), len(union) - 1)], union)
    return STATE.search(replace(url, tag="" if tag == first else tag, step=step), params)


def url_step(step: int, steps: Sequence[int]) -> int:
    """``step`` as the URL keeps it: -1 (left out) for the last of ``steps``, the default."""
    return -1 if step == steps[-1] else step


def nearest_step(steps: Sequence[int], wanted: int) -> int | None:
    """The recorded step of ``steps`` (ascending) nearest ``wanted``: the step typed in the
    step box when it is one, else the closer of its neighbours (a tie goes to the earlier),
    the first or last step past either end; None without steps."""
    if not steps:
        return None
    position = bisect.bisect_left(steps, wanted)
    if position == len(steps):
        return int(steps[-1])
    if steps[position] == wanted or position == 0:
        return int(steps[position])
    before, after = steps[position - 1], steps[position]
    return int(before if wanted - before <= after - wanted else after)


def typed_step(typed: Any) -> int | None:
    """The step a user typed in the step box (a number, or its text), rounded; None for an
    empty box or anything else."""
    if isinstance(typed, bool) or typed is None:
        return None
    try:
        number = float(typed)
    except (TypeError, ValueError):
        return None
    return round(number) if number == number and abs(number) < 2**62 else None


def step_box_search(
    search: str | None, typed: Any, shown: Mapping[str, Any] | None
) -> tuple[str | None, int | None]:
    """After Enter (or leaving) in the step box: the URL at the recorded step nearest the step
    typed (:func:`nearest_step`; the last step is left out, as the slider does), and that step,
    which the box then shows. An empty or unreadable box shows the step drawn again (URL None:
    unchanged); (None, None) when nothing is drawn."""
    drawn = DrawnTab.read(shown)
    steps = drawn.steps if drawn is not None else []
    wanted = typed_step(typed)
    if drawn is None or not steps:
        return None, None
    if wanted is None:
        return None, drawn.step
    step = nearest_step(steps, wanted)
    assert step is not None  # steps is not empty
    params = parse_search(search)
    new = STATE.search(replace(STATE.parse(params), step=url_step(step, steps)), params)
    return new, step


def tab_body_inputs(prefix: str) -> list[Any]:
    """The inputs of a tag-and-step tab's body callback (``body(search, ticks, clicks,
    overrides, shown)``): the URL, the auto refresh, Refresh, the user's run colours, and the
    :func:`tab_answer_key` of what ``<prefix>`` shows."""
    return [
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input(RUN_COLOURS_STORE, "data"),
        State(f"{prefix}-shown", "data"),
    ]


def tab_answer_key(
    provider: DataProvider, search: str | None, overrides: Any, shown: str | None
) -> str:
    """The key of a tab's answer for its URL and run colours (written to ``<prefix>-shown``
    with it); PreventUpdate when it is the key of what the tab shows (a refresh with nothing
    new: the body is not drawn again)."""
    key = answer_key(provider, search or "", overrides)
    if key == shown:
        raise PreventUpdate
    return key


def step_box_to_url(
    _submits: Any, _blurs: Any, typed: Any, shown: dict | None, search: str | None
) -> tuple[Any, Any]:
    """Enter or leaving the step box: the URL at the nearest recorded step and the box showing
    it (:func:`step_box_search`)."""
    new, step = step_box_search(search, typed, shown)
    url = dash.no_update if new is None or same_search(new, search) else new
    return url, step if step is not None else dash.no_update


def step_box_value(shown: dict | None) -> int | None:
    """The step box shows the step drawn (the real training step, not the slider's position)."""
    drawn = DrawnTab.read(shown)
    return None if drawn is None else drawn.step


def register_tag_step(app: dash.Dash, prefix: str) -> None:
    """``<prefix>-tag`` and ``<prefix>-step`` write the URL (:func:`tag_step_search`);
    ``<prefix>-steps`` is the store of what the page drew."""

    app.callback(
        Output("url", "search", allow_duplicate=True),
        Output(f"{prefix}-step-box", "value", allow_duplicate=True),
        Input(f"{prefix}-step-box", "n_submit"),
        Input(f"{prefix}-step-box", "n_blur"),
        State(f"{prefix}-step-box", "value"),
        State(f"{prefix}-steps", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(step_box_to_url)
    app.callback(
        Output(f"{prefix}-step-box", "value"),
        Input(f"{prefix}-steps", "data"),
    )(step_box_value)

    app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(f"{prefix}-tag", "value"),
        Input(f"{prefix}-step", "value"),
        State(f"{prefix}-steps", "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )(tag_step_to_url)


def tag_step_to_url(
    tag: str | None, position: int | None, shown: dict | None, search: str | None
) -> Any:
    """The URL the tag list and the step slider write (:func:`tag_step_search`)."""
    new = tag_step_search(search, tag, position, shown)
    return dash.no_update if new is None or same_search(new, search) else new


def tag_step_controls(prefix: str, placeholder: str) -> html.Div:
    """The tag list (it searches as one types) and the step slider with the step's label."""
    return html.Div(
        className="di-toolbar",
        children=[
            html.Span(_("Tag"), className="di-control-label"),
            dcc.Dropdown(
                id=f"{prefix}-tag", clearable=False, className="di-compose", placeholder=placeholder
            ),
            html.Span(_("Step"), className="di-control-label"),
            html.Div(
                dcc.Slider(
                    id=f"{prefix}-step",
                    min=0,
                    max=1,
                    step=1,
                    value=0,
                    updatemode="mouseup",
                    allow_direct_input=False,  # its box holds the position: ours the step
                ),
                className="di-slider di-cmp-step",
            ),
            dcc.Input(
                id=f"{prefix}-step-box",
                type="number",
                n_submit=0,
                n_blur=0,
                className="di-cmp-step-box",
            ),
            html.Span(id=f"{prefix}-step-label", className="di-muted"),
            dcc.Store(id=f"{prefix}-steps"),
            dcc.Store(id=f"{prefix}-shown"),  # the answer_key of what the tab shows
        ],
    )


@dataclass(frozen=True)
class TagView:
    """What a tab draws: the ``runs``, the ``tags`` the runs drawn have, the ``tag`` shown
    (None: none), the runs drawn ``having`` it and those ``missing`` it, each run's steps of
    it (``steps_of``, ascending), the slider's ``steps`` (their union) and ``step`` (None:
    no step)."""

    runs: RunSelection
    tags: list[str]
    tag: str | None
    having: list[str]
    missing: list[str]
    steps_of: dict[str, list[int]]
    steps: list[int]
    step: int | None
    default: str | None = None

    def store(self) -> dict[str, Any]:
        """What :func:`tag_step_search` needs to know of the page drawn (:class:`DrawnTab`)."""
        return DrawnTab(self.tag, self.tags, self.default, self.steps, self.step).data()


def tag_view(
    url: RunsUrl,
    jobs: list[str],
    tags_of: Mapping[str, Sequence[str]],
    steps_of: Callable[[str, str], list[int]],
    shared_default: bool = False,
    texts: Mapping[str, str] | None = None,
) -> TagView:
    """The :class:`TagView` of the URL state ``url``: ``jobs`` offered, ``tags_of`` each job's
    tags, ``steps_of(run, tag)`` a run's steps of a tag, ascending. Without a tag in the URL
    the first tag is shown, or with ``shared_default`` the one most runs drawn have
    (:func:`most_shared_tag`). ``texts``: what the job filter searches (:func:`run_selection`)."""
    runs = run_selection(url, jobs, texts)
    tags = union_names(tags_of.get(j, ()) for j in runs.shown)
    default = most_shared_tag(tags, tags_of, runs.shown) if shared_default else None
    tag = chosen_tag(url.tag, tags, default)
    having = [j for j in runs.shown if tag is not None and tag in tags_of.get(j, ())]
    steps = {j: steps_of(j, tag) for j in having} if tag is not None else {}
    union = union_steps(steps.values())
    return TagView(
        runs,
        tags,
        tag,
        having,
        [j for j in runs.shown if j not in having],
        steps,
        union,
        chosen_step(url.step, union),
        default,
    )
