"""The skeleton of the per-tag value pages (parameter distribution, images, tensors): one card
per tag of a job, a page of cards at a time, everything in the URL.

A page module declares one :class:`PerTagPage` (its id prefix, the plugin whose tags it shows,
its URL state: a frozen dataclass extending :class:`PerTagUrl`, read and written by
:func:`page_state`; its card builder and its controls) and keeps only what is its own; this
module builds the rest:

* :func:`layout`: the head (title, summary path, × back to the job's dashboard), or the
  message for an unknown job or a job without such data; the controls panel (MindInsight's Tag
  Selection row, then the page's controls); the notice for tags of the link the job does not
  have; the cards; the pager; the page's extra components.
* :func:`register`: the tag selection row; the part of the URL the cards depend on (in the
  browser, so a slider move that only rewrites the URL asks the server nothing); controls ->
  URL; URL / refresh / theme -> cards (rebuilt only when what they show changed).

Ids, for prefix ``p``: ``p-root``, ``p-empty`` (no such data), the tag selection ids
(:mod:`~dash_insight.web.components.tag_select`), stores ``p-query-keys``, ``p-query`` and
``p-shown``, ``p-notice``, ``p-cards``, the pager's ids, and ``{noun}-unknown-tags``.

The callbacks' work is done by pure functions (:func:`controls_search`, :func:`cards_update`)
that tests call without a browser.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import dash
from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import LazyString, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.web.binding import triggered
from dash_insight.web.components.job_notice import job_error, job_notice
from dash_insight.web.components.page_head import job_page_head
from dash_insight.web.components.tag_select import (
    checked_names,
    echoed,
    filter_tags,
    page_after,
    pager,
    pick,
    picker,
    picker_action,
    picker_inputs,
    register_picker,
    selection,
    tags_on_page,
    ticked_tags,
)
from dash_insight.web.limits import MAX_FILTER_CHARS, MAX_NAME_CHARS
from dash_insight.web.theme import request_theme
from dash_insight.web.url_state import (
    MAX_PAGE,
    Field,
    Int,
    Tags,
    Text,
    TypedUrlState,
    same_search,
)


class ReadsData(Protocol):
    """A plugin service the skeleton can use: it reads through ``provider``."""

    provider: DataProvider


S = TypeVar("S", bound=ReadsData)


@dataclass(frozen=True)
class PerTagUrl:
    """What the URL of every per-tag page says: the job, the tags ticked (None: every tag;
    at most :data:`~dash_insight.web.limits.MAX_URL_LIST_ITEMS` names), the tag filter and
    the page of cards. A page's own state extends it (:func:`page_state`)."""

    train_id: str = ""
    tags: list[str] | None = None
    filter: str = ""
    page: int = 1


U = TypeVar("U", bound=PerTagUrl)

#: The URL parameters of every per-tag page: which job, which tags, which page of cards.
COMMON_PARAMETERS = ("train_id", "tags", "filter", "page")
#: The unknown tags of a link the notice names (then "…" and their count).
UNKNOWN_NAMED = 5
#: The tag filter, from the URL or the filter box: at most MAX_FILTER_CHARS characters.
FILTER = Text("filter", max_chars=MAX_FILTER_CHARS)


def page_state(cls: type[U], **fields: Field) -> TypedUrlState[U]:
    """The URL state of a per-tag page, the frozen dataclass ``cls``: job, tags and tag
    filter, the page's own ``fields`` (each attribute of ``cls`` beyond :class:`PerTagUrl`'s),
    the page number, in this order in the URL. A job id is cut at
    :data:`~dash_insight.web.limits.MAX_NAME_CHARS` characters, the filter at
    :data:`~dash_insight.web.limits.MAX_FILTER_CHARS`."""
    return TypedUrlState(
        cls,
        train_id=Text("train_id", max_chars=MAX_NAME_CHARS),
        tags=Tags("tags"),
        filter=FILTER,
        **fields,
        page=Int("page", 1, 1, MAX_PAGE),
    )


@dataclass(frozen=True)
class CardContext(Generic[S, U]):
    """What a page's card builder gets besides the tag: the app (for links), the plugin's
    service, the job, the page's URL state and the theme (for figures).
    ``first_paint``: the card is for the page's first paint (static HTML sent before Dash
    starts, :mod:`dash_insight.web.first_paint`: nothing in it reaches Dash, so no figure need
    be built); ``preview``: it is on the first screen, its chart drawn on the server."""

    app: dash.Dash
    service: S
    train_id: str
    state: U
    theme: str | None = None
    first_paint: bool = False
    preview: bool = False


def never(_state: PerTagUrl) -> bool:
    """For :attr:`PerTagPage.themed`: the cards look the same in both themes."""
    return False


def always(_state: PerTagUrl) -> bool:
    """For :attr:`PerTagPage.themed`: the cards are drawn for the theme (figures)."""
    return True


@dataclass(frozen=True)
class PerTagPage(Generic[S, U]):
    """One per-tag page, of the plugin service ``S`` and the URL state ``U``.

    ``card(context, tag)`` builds a tag's card (a :class:`DataError` it raises becomes a card
    saying so). ``controls(state)`` gives the page's rows below the tag selection;
    ``control_fields`` maps the ids of the controls whose ``value`` goes to the URL to their
    state attribute (its :meth:`Field.from_control` converts). ``card_fields`` are the state
    attributes the cards are built from besides the job, tags and page: a change of another
    (applied in the browser) does not rebuild them; ``themed(state)`` says whether they follow
    the theme. ``root_style(state)`` styles the page's root; ``extra(state)`` adds components
    after the pager. Both field lists must name attributes of ``state`` (checked when the page
    is declared)."""

    prefix: str
    plugin: str
    noun: str
    #: Shown in the current language: plain strings or :func:`lazy_gettext` ones.
    title: str | LazyString
    #: What an empty job shows (how to record such data): built per request, in its language.
    empty: Callable[[], Sequence[Any]]
    state: TypedUrlState[U]
    page_size: int
    card: Callable[[CardContext[S, U], str], Any]
    controls: Callable[[U], list[Any]]
    control_fields: tuple[tuple[str, str], ...] = ()
    card_fields: tuple[str, ...] = ()
    themed: Callable[[U], bool] = never
    grid_class: str = "di-vp-grid"
    loading: bool = False
    #: What the cards show, for "No ... yet." and the unknown-tags notice ("image", in the
    #: current language); default: "data".
    kind: str | LazyString = ""
    root_style: Callable[[U], dict[str, str]] | None = None
    extra: Callable[[U], list[Any]] | None = None
    #: What a card after the first ``first_cards`` (below the first screen) becomes, e.g. a
    #: card whose children wait until it comes on screen (``deferred_children``); None: as is.
    below_first_screen: Callable[[Any], Any] | None = None
    first_cards: int = 0

    def __post_init__(self) -> None:
        named = [*self.card_fields, *(name for _control, name in self.control_fields)]
        unknown = [name for name in named if name not in self.state.fields]
        if unknown:
            raise ValueError(f"{self.prefix}: {unknown} are not fields of its state")

    def id(self, name: str) -> str:
        """``{prefix}-{name}``: the id of one of the skeleton's components."""
        return f"{self.prefix}-{name}"

    @property
    def query_keys(self) -> list[str]:
        """The URL parameters the cards are built from."""
        return [self.state.fields[name].name for name in (*COMMON_PARAMETERS, *self.card_fields)]

    def card_key(self, state: U) -> list[Any]:
        """The values of :attr:`card_fields` in ``state``: with the job, its tags on the page
        and the theme, what the cards show (:func:`cards_update`)."""
        return [getattr(state, name) for name in self.card_fields]


# --- page pieces ----------------------------------------------------------------------------------


def head(app: dash.Dash, title: str | LazyString, train_id: str) -> html.Div:
    """Title, summary path and a × back to the job's dashboard (:func:`job_page_head`)."""
    return job_page_head(app, str(title), train_id)


def unknown_message(
    unknown: list[str], train_id: str, noun: str, kind: str | LazyString = ""
) -> Any:
    """A notice for tags named in the URL that the job does not have (``kind``: what the
    page shows, in the current language)."""
    if not unknown:
        return None
    names = ", ".join(repr(t) for t in unknown[:UNKNOWN_NAMED])
    names += " …" if len(unknown) > UNKNOWN_NAMED else ""
    text = ngettext(
        "{count} tag in the link is not a {kind} tag of {job}: {names}. It may have been "
        "renamed, or belong to another job; the other tags are shown.",
        "{count} tags in the link are not {kind} tags of {job}: {names}. They may have been "
        "renamed, or belong to another job; the other tags are shown.",
        len(unknown),
    )
    return html.Div(
        className="di-notice di-warning",
        id=f"{noun}-unknown-tags",
        children=[
            text.format(count=len(unknown), kind=str(kind) or noun, job=train_id, names=names)
        ],
    )


def plugin_tags(
    app: dash.Dash,
    provider: DataProvider,
    train_id: str,
    plugin: str,
    title: html.Div,
    empty: Any,
    empty_id: str,
) -> tuple[list[str], html.Div | None]:
    """The job's tags of ``plugin``, or a finished page (``title`` + message) when the job is
    unknown or has no such data yet (``empty`` says how to record it)."""
    try:
        tags = provider.job(train_id).tags[plugin]
    except DataError as error:
        return [], html.Div([title, job_error(app, error)])
    if not tags:
        return [], html.Div([title, html.Div(empty, className="di-panel di-empty", id=empty_id)])
    return tags, None


def segmented(component_id: str, options: Sequence[tuple[str, str]], value: str) -> dcc.RadioItems:
    """A row of segmented radio buttons (``options`` = (value, label) pairs)."""
    return dcc.RadioItems(
        id=component_id,
        value=value,
        inline=True,
        className="di-segmented",
        options=[{"label": label, "value": v} for v, label in options],
    )


def layout(
    page: PerTagPage[S, U],
    app: dash.Dash,
    service: S,
    params: Mapping[str, str],
    previews: int | None = None,
) -> html.Div:
    """The page for URL parameters ``params``; with ``previews``, its first paint (see
    :func:`cards_update`)."""
    state = page.state.parse(params)
    train_id = state.train_id
    title = head(app, page.title, train_id)
    tags, message = plugin_tags(
        app, service.provider, train_id, page.plugin, title, list(page.empty()), page.id("empty")
    )
    if message is not None:
        return message
    selected, _unknown = selection(state.tags, tags)
    # The cards come with the layout (in the theme of the browser's cookie): the cards
    # callback then finds them shown (the same key) and answers nothing new.
    first = cards_update(page, app, service, state, request_theme(), None, previews)
    assert first is not None  # nothing is shown yet
    cards: Any = html.Div(first.cards, id=page.id("cards"), className=page.grid_class)
    if page.loading:
        # shown at once, not hidden under the spinner until a timer after the first render
        # (its removal re-rendered the cards and resized their drawn charts)
        cards = dcc.Loading(cards, type="dot", delay_show=400, show_initially=False)
    root: dict[str, Any] = {"id": page.id("root")}
    if page.root_style is not None:
        root["style"] = page.root_style(state)
    return html.Div(
        **root,
        children=[
            title,
            job_notice(service.provider.job(train_id), page.id("job-notice")),
            html.Div(
                className="di-panel di-vp-controls",
                children=[
                    picker(page.id("tags"), _("Tag Selection"), tags, selected, state.filter),
                    *page.controls(state),
                ],
            ),
            dcc.Store(id=page.id("query-keys"), data=page.query_keys),
            # The query the browser reads from the URL at load (perTagPage.query): that it
            # finds it written already is what keeps the cards callback from asking the
            # server for the cards the layout brings.
            dcc.Store(id=page.id("query"), data=url_query(page.query_keys, params)),
            dcc.Store(id=page.id("shown"), data=first.key),
            html.Div(first.notice, id=page.id("notice")),
            cards,
            pager(page.prefix, texts=(first.total, first.page), disabled=(first.first, first.last)),
            *(page.extra(state) if page.extra is not None else []),
        ],
    )


def url_query(keys: Sequence[str], params: Mapping[str, str]) -> list[str | None]:
    """The value of each URL parameter of ``keys`` (None when absent), as
    ``perTagPage.query`` in ``assets/per-tag-pages.js`` reads them from the URL: a URL on
    which the two differ (a blank or repeated parameter) costs one cards callback at load."""
    return [params.get(key) for key in keys]


# --- callbacks' work ------------------------------------------------------------------------------


def controls_search(
    page: PerTagPage[Any, U],
    search: str | None,
    trigger: Any,
    tags: Sequence[str],
    checked: Sequence[str] | None,
    pattern: str | None,
    control_values: Mapping[str, Any],
) -> str | None:
    """The URL after a change of the controls (None: unchanged). ``trigger`` is the id of the
    control that changed: the pager turns the page (and applies nothing else), a change of the
    tag picker (``checked`` = the tags ticked in its list, All, None, the filter: at most
    :data:`~dash_insight.web.limits.MAX_FILTER_CHARS` of it) goes back to page 1 (tags hidden
    by the filter keep their selection); ``control_values`` are the page's controls' values by
    state attribute."""
    state = page.state.parse_search(search)
    selected, _unknown = selection(state.tags, tags)
    if echoed(trigger, page.id("tags"), checked or [], tags, selected, state.filter):
        return None
    number, paged = page_after(trigger, page.prefix, state.page)
    state = replace(state, page=number)
    if not paged:
        state = page.state.from_controls(state, control_values)
    typed = FILTER.from_control(pattern)
    matching, _error = filter_tags(tags, typed)
    chosen = pick(
        tags,
        list(tags) if selected is None else selected,
        checked,
        matching,
        picker_action(trigger, page.id("tags")),
    )
    state = replace(state, tags=ticked_tags(tags, chosen), filter=typed)
    new = page.state.search(state)
    return None if same_search(new, search) else new


class CardsUpdate(NamedTuple):
    """The outputs of the cards callback (``key`` = what the cards show, to skip a rebuild)."""

    cards: Any
    notice: Any
    total: str
    page: str
    first: bool
    last: bool
    key: list[Any] | None


def _card(page: PerTagPage[S, U], context: CardContext[S, U], tag: str) -> Any:
    try:
        return page.card(context, tag)
    except DataError as error:
        return html.Section(localize_reason(str(error)), className="di-panel di-empty")


def cards_update(
    page: PerTagPage[S, U],
    app: dash.Dash,
    service: S,
    state: U,
    theme: str | None,
    shown: list[Any] | None,
    previews: int | None = None,
) -> CardsUpdate | None:
    """The cards of the page of tags the URL's ``state`` asks for, or None when ``shown`` (the
    key of the cards on screen) says they show the same already. ``previews``: the cards are
    for the page's first paint, the first ``previews`` of them (the first screen's) with their
    charts drawn on the server (:attr:`CardContext.first_paint`, :attr:`CardContext.preview`)."""
    train_id = state.train_id
    try:
        job = service.provider.job(train_id)
    except DataError as error:
        return CardsUpdate(
            html.Div(localize_reason(str(error)), className="di-empty"),
            None,
            "",
            "",
            True,
            True,
            None,
        )
    tags = job.tags[page.plugin]
    on_page, number, pages, unknown, total = tags_on_page(
        state.tags, tags, state.filter, state.page, page.page_size
    )
    key = [
        train_id,
        job.version,
        on_page,
        # what the notice of unknown tags says (not the URL's up to 10,000 names again)
        [len(unknown), *unknown[:UNKNOWN_NAMED]],
        *page.card_key(state),
        theme if page.themed(state) else None,
    ]
    if shown == key:
        return None
    context = CardContext(app, service, train_id, state, theme)
    built = _cards(page, context, on_page, previews, bool(tags))
    return CardsUpdate(
        built,
        unknown_message(unknown, train_id, page.noun, page.kind),
        total,
        f"{number} / {pages}",
        number <= 1,
        number >= pages,
        key,
    )


def _cards(
    page: PerTagPage[S, U],
    context: CardContext[S, U],
    on_page: list[str],
    previews: int | None,
    has_tags: bool,
) -> Any:
    """The cards of ``on_page`` (see :func:`cards_update`'s ``previews``), or what the page
    says when it has none."""
    if previews is not None:
        built: Any = [
            _card(page, replace(context, first_paint=True, preview=i < previews), tag)
            for i, tag in enumerate(on_page)
        ]
    else:
        built = [_card(page, context, tag) for tag in on_page]
        later = page.below_first_screen
        if later is not None:
            built = [card if i < page.first_cards else later(card) for i, card in enumerate(built)]
    if built:
        return built
    return html.Div(
        _("No tag selected: tick tags above, or clear the filter.")
        if has_tags
        else _("No {kind} yet.").format(kind=str(page.kind) or page.noun),
        className="di-empty",
    )


# --- registration ---------------------------------------------------------------------------------


def picked(
    page: PerTagPage[Any, Any], service: Any, search: str | None
) -> tuple[list[str], list[str] | None, str]:
    """The tag picker's tags, selected tags (None: all) and filter for the URL ``search``."""
    state = page.state.parse_search(search)
    try:
        tags = service.provider.job(state.train_id).tags[page.plugin]
    except DataError:
        tags = []
    return tags, selection(state.tags, tags)[0], state.filter


def controls_to_url(
    page: PerTagPage[Any, Any],
    service: Any,
    trigger: Any,
    rows: Any,
    _all: Any,
    _none: Any,
    pattern: str | None,
    *rest: Any,
) -> Any:
    """The URL the tag picker, the page's controls (``rest``: their values in
    :attr:`PerTagPage.control_fields` order, then the pager's clicks and the URL) and the
    pager write; nothing when Dash fired this for controls just drawn (``trigger`` None)."""
    if trigger is None:
        return dash.no_update
    fields = [name for _, name in page.control_fields]
    values = dict(zip(fields, rest[: len(fields)], strict=True))
    search = rest[-1]
    tags = picked(page, service, search)[0]
    new = controls_search(page, search, trigger, tags, checked_names(rows), pattern, values)
    return dash.no_update if new is None else new


def shown_cards(
    page: PerTagPage[S, Any],
    app: dash.Dash,
    service: S,
    _query: Any,
    _ticks: int | None,
    _clicks: int | None,
    theme: str | None,
    search: str | None,
    shown: Any,
) -> tuple[Any, ...]:
    """The cards callback's outputs (:class:`CardsUpdate`) for the URL ``search``; nothing
    when ``shown`` says the cards on screen are those already."""
    state = page.state.parse_search(search)
    update = cards_update(
        page, app, service, state, theme, shown if isinstance(shown, list) else None
    )
    return (dash.no_update,) * len(CardsUpdate._fields) if update is None else tuple(update)


def register(page: PerTagPage[S, Any], app: dash.Dash, service: S) -> None:
    """The skeleton's callbacks of ``page`` (once per app)."""
    register_picker(app, page.id("tags"), functools.partial(picked, page, service))
    app.clientside_callback(
        ClientsideFunction(namespace="perTagPage", function_name="query"),
        Output(page.id("query"), "data"),
        Input("url", "search"),
        State(page.id("query"), "data"),
        State(page.id("query-keys"), "data"),
    )
    app.callback(
        Output("url", "search", allow_duplicate=True),
        *picker_inputs(page.id("tags")),
        *(Input(control, "value") for control, _ in page.control_fields),
        Input(page.id("prev"), "n_clicks"),
        Input(page.id("next"), "n_clicks"),
        State("url", "search"),
        prevent_initial_call=True,
    )(triggered(functools.partial(controls_to_url, page, service), single=True))
    app.callback(
        Output(page.id("cards"), "children"),
        Output(page.id("notice"), "children"),
        Output(page.id("total"), "children"),
        Output(page.id("page"), "children"),
        Output(page.id("prev"), "disabled"),
        Output(page.id("next"), "disabled"),
        Output(page.id("shown"), "data"),
        Input(page.id("query"), "data"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("theme", "data"),
        State("url", "search"),
        State(page.id("shown"), "data"),
        # Not at load: the layout brings the cards and the query they were built for.
        prevent_initial_call=True,
    )(functools.partial(shown_cards, page, app, service))
