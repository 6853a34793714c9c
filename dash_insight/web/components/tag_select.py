"""Name pickers: the tag selection of every per-tag page (scalars, comparison, parameter
distribution, images, tensors) and the job selection of the comparison pages (scalars, loss
landscapes), one component.

A picker (:func:`picker`) is a toolbar (label, All / None buttons, a regular-expression filter
searched anywhere in the name, case-insensitive as MindInsight's, the "n of m selected" count)
over a list with a checkbox per name that matches the filter. The list is Dash's checklist in a
box of at most :data:`VISIBLE_ROWS` rows that scrolls: a checklist of 100 or more options draws
only the rows in view, so it stays usable for 10,000 names (in a wrapping row of chips it
collapsed to an empty box: it needs the fixed height it has here). It replaced an AG Grid whose
1.3 MB script, styles and mount cost each of these pages a few hundred milliseconds of the
browser's main thread. It takes the keyboard: Tab reaches it, the arrow keys move from row to
row (``assets/pickers.js``), Space ticks. A page shows what is selected AND matches the filter
(as TensorBoard: the filter decides what is drawn), a page at a time ("Total N" pager).

The URL holds the state: ``tags`` (absent = all; a :class:`~dash_insight.web.url_state.Tags`
field, a lone ``,`` = none) and ``filter`` (the pattern). A page's "controls -> URL" callback
listens to :func:`picker_inputs`, ignores the list's :func:`echoed` ticks and applies
:func:`pick` (names hidden by the filter keep their state); :func:`register_picker` sets the
picker from the URL (rows and ticks only when they changed). :func:`selection` reads wanted
tags back and reports those the job does not have.

:func:`visible_tags` = what to draw; :func:`page_of` / :func:`pager` cut it into pages.

Everything except the component builders and :func:`register_picker` is pure.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import dash
from dash import ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.core.user_regex import compile_user_regex
from dash_insight.web.components.run_colours import STORE_ID as RUN_COLOURS_STORE

# --- selection -----------------------------------------------------------------------------------


def filter_tags(
    tags: Sequence[str], pattern: str, texts: Mapping[str, str] | None = None
) -> tuple[list[str], str | None]:
    """Tags matching ``pattern`` (a regular expression searched anywhere in the tag, case
    insensitive, as MindInsight's tag filter); an invalid expression keeps every tag and returns
    the error message. ``texts``: what is searched instead of a name (a run's name and its
    labels, :func:`~dash_insight.core.run_marks.filter_text`)."""
    if not pattern:
        return list(tags), None
    try:
        compiled = compile_user_regex(pattern, re.IGNORECASE)
    except re.error as error:
        return list(tags), f"invalid regular expression: {error}"
    if texts:
        return [tag for tag in tags if compiled.search(texts.get(tag, tag))], None
    return [tag for tag in tags if compiled.search(tag)], None


def visible_tags(
    tags: Sequence[str],
    selected: Iterable[str] | None,
    pattern: str,
    texts: Mapping[str, str] | None = None,
) -> list[str]:
    """The tags to draw: checked (None = all) and matching the filter (searching ``texts``,
    :func:`filter_tags`), in ``tags`` order."""
    matching, _error = filter_tags(tags, pattern, texts)
    if selected is None:
        return matching
    chosen = set(selected)
    return [tag for tag in matching if tag in chosen]


def selection(
    wanted: Sequence[str] | None, tags: Sequence[str]
) -> tuple[list[str] | None, list[str]]:
    """``(selected, unknown)`` from the tags a URL names (None = all): the checked tags the job
    has (None = all) and the named tags the job does not have (for a message)."""
    if wanted is None:
        return None, []
    known = set(tags)
    return [t for t in wanted if t in known], [t for t in wanted if t not in known]


def ticked_tags(tags: Sequence[str], selected: Sequence[str] | None) -> list[str] | None:
    """The ``tags`` a page's URL state keeps for what the row shows checked: None when every
    tag is (the URL then leaves it out), else the checked ones in ``tags`` order."""
    chosen = None if selected is None else set(selected)
    if chosen is None or set(tags) <= chosen:
        return None
    return [t for t in tags if t in chosen]


def pick(
    names: Sequence[str],
    chosen: Sequence[str],
    checked: Sequence[str] | None,
    visible: Sequence[str],
    action: str | None,
) -> list[str]:
    """The selection of a :func:`button_select` row after ``action``: ``"all"`` adds every
    visible name, ``"none"`` removes them, ``"list"`` takes the checklist's ``checked`` value for
    the visible names; names hidden by the filter keep their state, and any other action keeps
    ``chosen``. "all" and "list" give ``names`` order, "none" keeps the order of ``chosen``."""
    visible_set = set(visible)
    if action == "all":
        keep = set(chosen) | visible_set
    elif action == "list":
        keep = {n for n in chosen if n not in visible_set} | set(checked or [])
    elif action == "none":
        return [n for n in chosen if n not in visible_set]
    else:
        return list(chosen)
    return [n for n in names if n in keep]


# --- paging --------------------------------------------------------------------------------------


def page_of(items: Sequence[Any], page: int, size: int) -> tuple[list[Any], int, int]:
    """``(items on the page, page clamped to 1..pages, pages)``."""
    pages = max(1, -(-len(items) // max(1, size)))
    page = max(1, min(page, pages))
    start = (page - 1) * size
    return list(items[start : start + size]), page, pages


def page_after(trigger: Any, prefix: str, page: int) -> tuple[int, bool]:
    """(the page to show, whether ``trigger`` was the pager) after a change of the controls:
    ``{prefix}-prev`` / ``{prefix}-next`` turn the page; a change of the picker ``{prefix}-tags``
    (ticks, All, None, filter) goes back to page 1; anything else keeps it."""
    if trigger == f"{prefix}-prev":
        return max(1, page - 1), True
    if trigger == f"{prefix}-next":
        return page + 1, True
    if trigger in (
        f"{prefix}-tags",
        f"{prefix}-tags-all",
        f"{prefix}-tags-none",
        f"{prefix}-tags-filter",
    ):
        return 1, False
    return page, False


def tags_on_page(
    wanted: Sequence[str] | None, tags: Sequence[str], pattern: str, page: int, page_size: int
) -> tuple[list[str], int, int, list[str], str]:
    """What a per-tag page shows: (tags on the current page, that page, the number of pages,
    tags ``wanted`` by the URL (None = all) that the job does not have, the "Total N tags"
    text). Tags shown are the checked ones that match ``pattern``."""
    selected, unknown = selection(wanted, tags)
    visible = visible_tags(tags, selected, pattern)
    on_page, page, pages = page_of(visible, page, page_size)
    total = ngettext("Total {count} tag", "Total {count} tags", len(visible)).format(
        count=len(visible)
    )
    return on_page, page, pages, unknown, total


def goto_box(
    component_id: str,
    input_class: str = "di-goto",
    label_class: str | None = None,
    placeholder: str | None = None,
) -> html.Label:
    """MindInsight's "Go to" box of a pager: a page number; Enter (or leaving the box) opens
    that page."""
    box = dcc.Input(
        id=component_id,
        type="number",
        min=1,
        step=1,
        debounce=True,
        className=input_class,
        placeholder=placeholder,
    )
    return html.Label([_("Go to") + " ", box], className=label_class)


def pager(
    prefix: str,
    total: int | None = None,
    page: int = 1,
    pages: int = 1,
    noun: str = "tag",
    texts: tuple[str, str] = ("", ""),
    disabled: tuple[bool, bool] = (False, False),
) -> html.Div:
    """ "Total N" and ‹ page / pages › buttons (``{prefix}-total``, ``{prefix}-prev``,
    ``{prefix}-page``, ``{prefix}-next``). ``total`` None: the texts are ``texts`` (total,
    page; empty by default) and the buttons' ``disabled`` those given (enabled by default), for
    a page whose callbacks keep them."""
    if total is None:
        return html.Div(
            className="di-pager",
            children=[
                html.Span(texts[0], id=f"{prefix}-total"),
                html.Button(
                    "‹", id=f"{prefix}-prev", className="di-icon-button", disabled=disabled[0]
                ),
                html.Span(texts[1], id=f"{prefix}-page"),
                html.Button(
                    "›", id=f"{prefix}-next", className="di-icon-button", disabled=disabled[1]
                ),
            ],
        )
    return html.Div(
        className="di-pager",
        children=[
            html.Span(noun_texts(noun, total)["total"], id=f"{prefix}-total"),
            html.Button(
                "‹",
                id=f"{prefix}-prev",
                className="di-icon-button",
                disabled=page <= 1,
                title=_("Previous page"),
            ),
            html.Span(f"{page} / {pages}", id=f"{prefix}-page"),
            html.Button(
                "›",
                id=f"{prefix}-next",
                className="di-icon-button",
                disabled=page >= pages,
                title=_("Next page"),
            ),
        ],
    )


# --- component -----------------------------------------------------------------------------------

#: Rows of the picker list shown at once (the list scrolls past them; a list of 100 names or
#: more draws only the rows in view, so 10,000 names cost no more than 10).
VISIBLE_ROWS = 8
#: The height of a row, as ``assets/dash-insight.css`` draws it (``.di-picker-checklist``).
ROW_PX = 26


def picker_height(rows: int) -> int:
    """Pixel height of the list's box: ``rows`` rows, between 2 and :data:`VISIBLE_ROWS` (a
    short list takes little room, an empty one still shows its "no match" line). The list in
    it is always :data:`VISIBLE_ROWS` rows high (a virtualised list measures its height once,
    when it is mounted); the box shows the part of it with rows."""
    return ROW_PX * max(2, min(rows, VISIBLE_ROWS)) + 2


def count_text(
    names: Sequence[str],
    selected: Sequence[str],
    pattern: str,
    noun: str = "tag",
    texts: Mapping[str, str] | None = None,
) -> str:
    """ "3 of 400 tags selected, 10 match": how many are ticked and, with a filter, how many
    the filter shows."""
    chosen = set(selected)
    ticked = sum(1 for name in names if name in chosen)
    text = noun_texts(noun, len(names))["selected"].format(ticked=ticked, count=len(names))
    if pattern:
        matching, error = filter_tags(names, pattern, texts)
        if error is None:
            text += _(", {count} match").format(count=len(matching))
    return text


def noun_texts(noun: str, count: int = 0) -> dict[str, str]:
    """The picker's and pager's texts for ``noun`` (``tag`` or ``job``) in the current
    language: whole sentences per noun, as translations need them (a noun pasted into an
    English sentence cannot be translated). ``count`` chooses the plural forms."""
    if noun == "job":
        return {
            "total": ngettext("Total {count} job", "Total {count} jobs", count).format(count=count),
            "selected": ngettext(
                "{ticked} of {count} job selected", "{ticked} of {count} jobs selected", count
            ),
            "all": _("Select every job the filter shows"),
            "none": _("Unselect every job the filter shows"),
            "filter": _("Filter jobs (regular expression)"),
            "no_match": _("No job matches the filter."),
        }
    if noun != "tag":  # another noun: its English words (the catalog has tags and jobs)
        nouns = noun if count == 1 else f"{noun}s"
        return {
            "total": f"Total {count} {nouns}",
            "selected": "{ticked} of {count} " + nouns + " selected",
            "all": f"Select every {noun} the filter shows",
            "none": f"Unselect every {noun} the filter shows",
            "filter": f"Filter {noun}s (regular expression)",
            "no_match": f"No {noun} matches the filter.",
        }
    return {
        "total": ngettext("Total {count} tag", "Total {count} tags", count).format(count=count),
        "selected": ngettext(
            "{ticked} of {count} tag selected", "{ticked} of {count} tags selected", count
        ),
        "all": _("Select every tag the filter shows"),
        "none": _("Unselect every tag the filter shows"),
        "filter": _("Filter tags (regular expression)"),
        "no_match": _("No tag matches the filter."),
    }


class PickerView(NamedTuple):
    """What a picker shows for a selection: the matching names (the list's rows, in order),
    the ticked ones among them, the "n of m selected" summary, the filter's error, a key of
    the rows, ticks and hidden names (to send only what changed), the names whose eye is
    closed (None: a picker without the eye column), and the colour of each name's open eye
    (a run's colour, as TensorBoard colours its runs list; None: the accent colour)."""

    rows: list[str]
    ticked: list[str]
    summary: str
    error: str
    key: list[str]
    hidden: list[str] | None = None
    colours: Mapping[str, str] | None = None

    def options(self) -> list[dict[str, Any]]:
        """The checklist's options: a row per name (its ``title`` the whole name, which a
        narrow list cuts), with its eye (:func:`eye_button`) when the list has eyes."""
        if self.hidden is None:
            return [{"label": name, "value": name, "title": name} for name in self.rows]
        closed = set(self.hidden)
        colours = self.colours or {}
        return [
            {
                "label": [eye_button(name, name in closed, colours.get(name)), html.Span(name)],
                "value": name,
                "title": name,
            }
            for name in self.rows
        ]


def eye_button(name: str, closed: bool, colour: str | None) -> html.Button:
    """The eye of a job's row: open = the run is drawn (in ``colour``, the run's colour; the
    accent colour when None), closed = hidden, though it stays selected. A click on it does
    not tick the row (a button in a label does not activate the label's checkbox);
    ``assets/pickers.js`` reports it in the picker's ``{list_id}-eye`` store."""
    hint = (
        _("Show everywhere on this page")
        if closed
        else _("Hide everywhere on this page (stays selected)")
    )
    props: dict[str, Any] = {
        "aria-pressed": "true" if closed else "false",
        "aria-label": f"{hint}: {name}",
        "data-run": name,
    }
    if colour and not closed:
        props["style"] = {"color": colour}
    return html.Button(
        type="button", className="di-eye di-eye-closed" if closed else "di-eye", title=hint, **props
    )


def picker_view(
    names: Sequence[str],
    selected: Sequence[str] | None,
    pattern: str,
    noun: str = "tag",
    hidden: Sequence[str] | None = None,
    colours: Mapping[str, str] | None = None,
    texts: Mapping[str, str] | None = None,
) -> PickerView:
    """The :class:`PickerView` of ``names`` with ``selected`` ticked (None = all) and the
    filter ``pattern`` (an invalid expression shows every name and says why); ``hidden``:
    the names whose eye is closed, for a picker with the eye column (None: without);
    ``colours``: the colours of their eyes (name -> ``#rrggbb``); ``texts``: what the filter
    searches (:func:`filter_tags`)."""
    chosen = list(names) if selected is None else list(selected)
    rows, error = filter_tags(names, pattern, texts)
    shown = set(chosen)
    ticked = [name for name in rows if name in shown]
    key = [_digest(rows), _digest(ticked)]
    if hidden is not None:
        hidden = [name for name in names if name in set(hidden)]
        painted = [f"{name}={(colours or {}).get(name, '')}" for name in rows]
        key.append(_digest([*hidden, "\x1e", *painted]))
    return PickerView(
        rows,
        ticked,
        count_text(names, chosen, pattern, noun, texts),
        error or "",
        key,
        hidden,
        colours,
    )


def _digest(names: Sequence[str]) -> str:
    return hashlib.sha1("\x1f".join(names).encode()).hexdigest()[:16]


def picker(
    list_id: str,
    label: str,
    names: Sequence[str],
    selected: Sequence[str] | None,
    pattern: str = "",
    noun: str = "tag",
    extra: Sequence[Any] = (),
    hidden: Sequence[str] | None = None,
    colours: Mapping[str, str] | None = None,
    filter_texts: Mapping[str, str] | None = None,
) -> html.Div:
    """The name picker of every page that selects tags or jobs: ``label``, All / None buttons
    (``{list_id}-all`` ticks every name the filter shows, ``{list_id}-none`` unticks them), the
    regular-expression filter ``{list_id}-filter``, the count ``{list_id}-count``, the filter's
    error ``{list_id}-error``, ``extra``; below, in the box ``{list_id}-box``, the list
    ``{list_id}``: a checklist with a checkbox per name the filter shows (its ``value``: the
    ticked ones). A list of 100 names or more draws only the rows in view (Dash's checklist),
    so 10,000 names scroll smoothly; keyboard: Tab reaches the list, the arrow keys move
    (``assets/pickers.js``), Space ticks. ``{list_id}-key`` remembers what the list shows (see
    :func:`register_picker`). ``hidden`` (not None) adds an eye per row before the name
    (:func:`eye_button`): a click on it reports ``{"value": {"run": name, "hidden": bool}}`` in
    ``{list_id}-eye`` without ticking the row; the eyes of ``hidden`` are closed, the open ones
    drawn in the name's ``colours`` (name -> colour; the accent colour for a name without
    one); ``filter_texts``: :func:`filter_tags`."""
    view = picker_view(names, selected, pattern, noun, hidden, colours, filter_texts)
    texts = noun_texts(noun)
    eyes = [dcc.Store(id=f"{list_id}-eye")] if hidden is not None else []
    return html.Div(
        className="di-picker",
        id=f"{list_id}-picker",
        children=[
            _picker_tools(list_id, label, pattern, texts, view, extra),
            dcc.Store(id=f"{list_id}-key", data=view.key),
            *eyes,
            html.Div(
                id=f"{list_id}-box",
                className="di-picker-list",
                style=_box_style(view),
                children=[
                    dcc.Checklist(
                        id=list_id,
                        options=view.options(),
                        value=view.ticked,
                        className="di-picker-checklist",
                    ),
                    html.Div(texts["no_match"], className="di-picker-empty di-muted"),
                ],
            ),
        ],
    )


def _box_style(view: PickerView) -> dict[str, str]:
    return {"height": f"{picker_height(len(view.rows))}px"}


def _picker_tools(
    list_id: str,
    label: str,
    pattern: str,
    texts: Mapping[str, str],
    view: PickerView,
    extra: Sequence[Any],
) -> html.Div:
    """The row above a picker's list: its label, All / None, the filter, the count, the
    filter's error and ``extra``."""
    return html.Div(
        className="di-toolbar di-picker-tools",
        children=[
            html.Span(label, className="di-control-label"),
            html.Button(_("All"), id=f"{list_id}-all", className="di-chip", title=texts["all"]),
            html.Button(_("None"), id=f"{list_id}-none", className="di-chip", title=texts["none"]),
            dcc.Input(
                id=f"{list_id}-filter",
                value=pattern,
                type="text",
                debounce=0.3,
                placeholder=texts["filter"],
                className="di-input di-tag-filter",
            ),
            html.Span(view.summary, id=f"{list_id}-count", className="di-muted"),
            html.Span(view.error, id=f"{list_id}-error", className="di-error-text"),
            *extra,
        ],
    )


def checked_names(value: Any) -> list[str]:
    """The names ticked in a picker's list, from its checklist's ``value`` (anything else than
    a list of names, as a forged request may send, ticks none)."""
    if not isinstance(value, list | tuple):
        return []
    return [name for name in value if isinstance(name, str)]


def picker_action(trigger: Any, list_id: str) -> str | None:
    """The :func:`pick` action of the picker ``list_id`` that ``trigger`` (a component id)
    belongs to: ``"all"``, ``"none"``, ``"list"`` (a tick in the list), or None for another
    component."""
    return {
        f"{list_id}-all": "all",
        f"{list_id}-none": "none",
        list_id: "list",
    }.get(trigger if isinstance(trigger, str) else "")


def echoed(
    trigger: Any,
    list_id: str,
    checked: Sequence[str],
    names: Sequence[str],
    selected: Sequence[str] | None,
    pattern: str,
) -> bool:
    """True when the list ``list_id`` reports (``trigger``) exactly the ticks the URL gives it
    (``names``, ``selected``, ``pattern``): the list echoing what the server set, not a user's
    click. A page's "controls -> URL" callback then changes nothing, so that a link keeps what
    it names (tags the job lacks, its order)."""
    if picker_action(trigger, list_id) != "list":
        return False
    return set(checked) == set(picker_view(names, selected, pattern).ticked)


def picker_inputs(list_id: str) -> list[Input]:
    """The inputs of a picker a page's "controls -> URL" callback listens to, in this order:
    the ticked names (the checklist's ``value``), All, None, the filter."""
    return [
        Input(list_id, "value"),
        Input(f"{list_id}-all", "n_clicks"),
        Input(f"{list_id}-none", "n_clicks"),
        Input(f"{list_id}-filter", "value"),
    ]


def picker_update(view: PickerView, shown: Sequence[str] | None) -> tuple:
    """The outputs of :func:`register_picker`'s callback: count, error, the key of what the
    list shows, then the list's options (when its rows, or with eyes its eyes, differ from
    ``shown``, the key of what the list shows), its ticks (when they or the rows differ) and
    its box's height (when the rows differ); ``dash.no_update`` for each that did not."""
    shown = list(shown or ["", ""])
    rows_changed = shown[0] != view.key[0]
    ticks_changed = rows_changed or shown[1:2] != view.key[1:2]
    options_changed = rows_changed or (view.hidden is not None and shown[2:3] != view.key[2:3])
    return (
        view.summary,
        view.error,
        view.key if view.key != shown else dash.no_update,
        view.options() if options_changed else dash.no_update,
        list(view.ticked) if ticks_changed else dash.no_update,
        _box_style(view) if rows_changed else dash.no_update,
    )


@dataclass(frozen=True)
class PickerSource:
    """Where a picker's names come from (the parameters of :func:`register_picker`)."""

    read: Callable[[str | None], tuple[Any, ...]]
    noun: str = "tag"
    read_hidden: Callable[[str | None], Sequence[str]] | None = None
    read_colours: Callable[[str | None, Any], Mapping[str, str]] | None = None

    def follow_url(
        self, search: str | None, _ticks: Any, _clicks: Any, *rest: Any
    ) -> tuple[Any, ...]:
        """:func:`picker_update` for the URL ``search`` (``rest``: the user's run colours when
        the eyes are painted, then the key of what the picker shows)."""
        shown = rest[-1] if rest and isinstance(rest[-1], list) else None
        names, selected, pattern, *more = self.read(search)
        texts = more[0] if more else None  # what the filter searches (filter_tags)
        hidden = None if self.read_hidden is None else self.read_hidden(search)
        colours = None
        if self.read_colours is not None:
            colours = self.read_colours(search, rest[0] if len(rest) > 1 else None)
        view = picker_view(names, selected, pattern, self.noun, hidden, colours, texts)
        return picker_update(view, shown)


def register_picker(
    app: dash.Dash,
    list_id: str,
    read: Callable[[str | None], tuple[Any, ...]],
    noun: str = "tag",
    read_hidden: Callable[[str | None], Sequence[str]] | None = None,
    read_colours: Callable[[str | None, Any], Mapping[str, str]] | None = None,
) -> None:
    """The picker ``list_id`` follows the URL: ``read(search)`` gives its names, the selected ones
    (None = all), the filter (and maybe :func:`filter_tags`' ``texts``); on every URL change,
    refresh and "Refresh" the list is set to them, sending rows and ticks only when they changed
    (:func:`picker_update`). ``read_hidden``: the hidden names of a picker with eyes (see
    :func:`picker`); ``read_colours(search, overrides)`` the colours of their eyes
    (``overrides``: the user's run colours, the
    :data:`~dash_insight.web.components.run_colours.STORE_ID` store)."""
    painted = [Input(RUN_COLOURS_STORE, "data")] if read_colours is not None else []
    source = PickerSource(read, noun, read_hidden, read_colours)
    app.callback(
        Output(f"{list_id}-count", "children"),
        Output(f"{list_id}-error", "children"),
        Output(f"{list_id}-key", "data"),
        Output(list_id, "options"),
        Output(list_id, "value"),
        Output(f"{list_id}-box", "style"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        *painted,
        State(f"{list_id}-key", "data"),
        prevent_initial_call=True,
    )(source.follow_url)
    # New rows (the box's height is sent with them): the list starts again at its first row,
    # as a new filter's matches should (assets/pickers.js).
    app.clientside_callback(
        ClientsideFunction("pickers", "toTop"),
        Input(f"{list_id}-box", "style"),
        prevent_initial_call=True,
    )
