"""Tag selection for the per-tag pages (scalars, parameter distribution, images, tensors).

MindInsight's "Tag Selection" row: an "All" checkbox, one checkbox per tag (long names cut with
"…", the full name on hover) and a regular-expression filter ("Enter tag (regular expression
supported)"); the page shows one chart per tag that is checked AND matches the filter, a page of
charts at a time ("Total N" pager).

API (``prefix`` is a short id prefix unique on the page, e.g. ``"hist"``):

* ``tag_select(prefix, tags, selected, pattern="")`` -> component. ``tags`` = every tag of the
  job in display order, ``selected`` = the checked ones (None = all). Holds these ids:
  ``{prefix}-tags`` (dcc.Checklist, ``value`` = the checked tags, including ones hidden by the
  filter), ``{prefix}-all`` (the "All" checklist), ``{prefix}-filter`` (dcc.Input, ``value`` =
  the pattern), ``{prefix}-tag-list`` (dcc.Store with ``tags``), ``{prefix}-tag-count`` and
  ``{prefix}-filter-error`` (spans).
* ``register_tag_select(app, prefix)``: call once per prefix in the page's ``register``; keeps
  "All", the checkboxes and the filter consistent (one server callback, no data access). "All"
  (un)checks every tag that matches the filter; it is ticked when all matching tags are checked;
  tags that do not match the filter are hidden from the list.
* Page state in the URL: ``tags`` (absent = all; a :class:`~dash_insight.web.url_state.Tags`
  field, a lone ``,`` = none) and ``filter`` (the pattern). :func:`selection` reads the wanted
  tags back and reports those the job does not have; :func:`selection_state` writes them.
* :func:`visible_tags` = what to draw (checked and matching, in ``tags`` order);
  :func:`page_of` / :func:`pager` cut it into pages (``page`` parameter, ``{prefix}-prev`` /
  ``{prefix}-next`` buttons).
* :func:`user_change`: False when a callback fires because its components were just rendered
  (Dash then reports every input as triggered, even with ``prevent_initial_call``); a page's
  "controls -> URL" callback should return ``no_update`` then, or it rewrites the URL it was
  built from (dropping unknown tags, resetting the page).

The scalar chart pages (scalars, comparison) select with All / None *buttons* instead of an All
checkbox, and write every click to the URL at once (the server then draws the row from the
URL): :func:`button_select` builds that row, :func:`pick` is its selection rule.

Everything except the component builders and :func:`register_tag_select` is pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import dash
from dash import Input, Output, State, ctx, dcc, html

from dash_insight.web.url_state import decode_tags

#: Tags longer than this are cut in the checkbox label (the full name stays in the tooltip).
LABEL_CHARS = 36


# --- selection -----------------------------------------------------------------------------------


def filter_tags(tags: Sequence[str], pattern: str) -> tuple[list[str], str | None]:
    """Tags matching ``pattern`` (a regular expression searched anywhere in the tag, case
    insensitive, as MindInsight's tag filter); an invalid expression keeps every tag and returns
    the error message."""
    if not pattern:
        return list(tags), None
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as error:
        return list(tags), f"invalid regular expression: {error}"
    return [tag for tag in tags if compiled.search(tag)], None


def visible_tags(tags: Sequence[str], selected: Iterable[str] | None, pattern: str) -> list[str]:
    """The tags to draw: checked (None = all) and matching the filter, in ``tags`` order."""
    matching, _ = filter_tags(tags, pattern)
    if selected is None:
        return matching
    chosen = set(selected)
    return [tag for tag in matching if tag in chosen]


def selection(wanted: Sequence[str] | None, tags: Sequence[str]
              ) -> tuple[list[str] | None, list[str]]:
    """``(selected, unknown)`` from the tags a URL names (None = all): the checked tags the job
    has (None = all) and the named tags the job does not have (for a message)."""
    if wanted is None:
        return None, []
    known = set(tags)
    return [t for t in wanted if t in known], [t for t in wanted if t not in known]


def selection_from_params(params: Mapping[str, str], tags: Sequence[str], key: str = "tags"
                          ) -> tuple[list[str] | None, list[str]]:
    """:func:`selection` of the tags named by the URL parameter ``key``."""
    return selection(decode_tags(params.get(key)), tags)


def selection_state(tags: Sequence[str], selected: Sequence[str] | None, pattern: str
                    ) -> dict[str, Any]:
    """The ``tags`` / ``filter`` fields of a page state for what the row shows: ``tags`` None
    when every tag is checked (the URL then leaves it out), else the checked ones in ``tags``
    order; ``filter`` the pattern."""
    chosen = None if selected is None or set(tags) <= set(selected) else [
        t for t in tags if t in set(selected)]
    return {"tags": chosen, "filter": pattern or ""}


def pick(names: Sequence[str], chosen: Sequence[str], checked: Sequence[str] | None,
         visible: Sequence[str], action: str | None) -> list[str]:
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


def short_label(tag: str, limit: int = LABEL_CHARS) -> str:
    """``tag`` cut to ``limit`` characters with "…" in the middle (both ends usually matter:
    ``conv1.weight/auto`` vs ``conv2.weight/auto``)."""
    if len(tag) <= limit:
        return tag
    head = (limit - 1) // 2
    return tag[:head] + "…" + tag[len(tag) - (limit - 1 - head):]


# --- paging --------------------------------------------------------------------------------------


def page_of(items: Sequence[Any], page: int, size: int) -> tuple[list[Any], int, int]:
    """``(items on the page, page clamped to 1..pages, pages)``."""
    pages = max(1, -(-len(items) // max(1, size)))
    page = max(1, min(page, pages))
    start = (page - 1) * size
    return list(items[start:start + size]), page, pages


def page_after(trigger: Any, prefix: str, page: int) -> tuple[int, bool]:
    """(the page to show, whether ``trigger`` was the pager) after a change of the controls:
    ``{prefix}-prev`` / ``{prefix}-next`` turn the page; a change of the tags or the filter goes
    back to page 1; anything else keeps it."""
    if trigger == f"{prefix}-prev":
        return max(1, page - 1), True
    if trigger == f"{prefix}-next":
        return page + 1, True
    if trigger in (f"{prefix}-tags", f"{prefix}-filter"):
        return 1, False
    return page, False


def tags_on_page(wanted: Sequence[str] | None, tags: Sequence[str], pattern: str, page: int,
                 page_size: int) -> tuple[list[str], int, int, list[str], str]:
    """What a per-tag page shows: (tags on the current page, that page, the number of pages,
    tags ``wanted`` by the URL (None = all) that the job does not have, the "Total N tags"
    text). Tags shown are the checked ones that match ``pattern``."""
    selected, unknown = selection(wanted, tags)
    visible = visible_tags(tags, selected, pattern)
    on_page, page, pages = page_of(visible, page, page_size)
    total = f"Total {len(visible)} tag{'' if len(visible) == 1 else 's'}"
    return on_page, page, pages, unknown, total


def pager(prefix: str, total: int | None = None, page: int = 1, pages: int = 1,
          noun: str = "tag") -> html.Div:
    """"Total N" and ‹ page / pages › buttons (``{prefix}-total``, ``{prefix}-prev``,
    ``{prefix}-page``, ``{prefix}-next``). ``total`` None: texts empty and buttons enabled, for
    a page whose callbacks fill in the texts only."""
    if total is None:
        return html.Div(className="di-pager", children=[
            html.Span(id=f"{prefix}-total"),
            html.Button("‹", id=f"{prefix}-prev", className="di-icon-button"),
            html.Span(id=f"{prefix}-page"),
            html.Button("›", id=f"{prefix}-next", className="di-icon-button"),
        ])
    return html.Div(className="di-pager", children=[
        html.Span(f"Total {total} {noun}{'' if total == 1 else 's'}", id=f"{prefix}-total"),
        html.Button("‹", id=f"{prefix}-prev", className="di-icon-button", disabled=page <= 1,
                    title="Previous page"),
        html.Span(f"{page} / {pages}", id=f"{prefix}-page"),
        html.Button("›", id=f"{prefix}-next", className="di-icon-button",
                    disabled=page >= pages, title="Next page"),
    ])


# --- component -----------------------------------------------------------------------------------


def tag_option(tag: str) -> dict[str, Any]:
    """A checklist option: the label cut by :func:`short_label`, the full name on hover."""
    return {"label": html.Span(short_label(tag), title=tag, className="di-tag-label"),
            "value": tag}


def _options(tags: Sequence[str], pattern: str) -> list[dict[str, Any]]:
    matching, _ = filter_tags(tags, pattern)
    return [tag_option(tag) for tag in matching]


def _state(tags: Sequence[str], selected: Sequence[str], pattern: str
           ) -> tuple[list[str], str, str | None]:
    """(``All`` value, "n of m" text, filter error) for a selection."""
    matching, error = filter_tags(tags, pattern)
    chosen = set(selected)
    shown = sum(1 for tag in matching if tag in chosen)
    everything = bool(matching) and shown == len(matching)
    text = f"{shown} of {len(tags)} shown" if pattern or shown != len(tags) else \
        f"{len(tags)} tag{'' if len(tags) == 1 else 's'}"
    return (["all"] if everything else []), text, error


def tag_select(prefix: str, tags: Sequence[str], selected: Sequence[str] | None,
               pattern: str = "", label: str = "Tag Selection") -> html.Div:
    """The tag selection row (see the module docstring for its ids)."""
    chosen = list(tags) if selected is None else [t for t in tags if t in set(selected)]
    all_value, count, error = _state(tags, chosen, pattern)
    return html.Div(className="di-tag-select", children=[
        dcc.Store(id=f"{prefix}-tag-list", data=list(tags)),
        html.Span(label, className="di-control-label"),
        dcc.Checklist(id=f"{prefix}-all", options=[{"label": " All", "value": "all"}],
                      value=all_value, className="di-tag-all"),
        dcc.Checklist(id=f"{prefix}-tags", options=_options(tags, pattern), value=chosen,
                      className="di-tag-list", inline=True),
        html.Div(className="di-tag-tools", children=[
            dcc.Input(id=f"{prefix}-filter", value=pattern, type="text", debounce=0.4,
                      placeholder="Filter tags (regular expression)",
                      className="di-input di-tag-filter"),
            html.Span(count, id=f"{prefix}-tag-count", className="di-muted"),
            html.Span(error or "", id=f"{prefix}-filter-error", className="di-error-text"),
        ]),
    ])


def sync_selection(trigger: str | None, tags: Sequence[str], selected: Sequence[str] | None,
                   all_value: Sequence[str] | None, pattern: str
                   ) -> tuple[list[str], list[str], str, str | None]:
    """What the row shows after a change: ``(checked tags, All value, count text, error)``.

    ``trigger`` is ``"all"`` when the All box was clicked: it then checks (ticked) or unchecks
    (cleared) every tag matching the filter and leaves the hidden ones as they were.
    """
    chosen = [t for t in tags if t in set(selected or [])]
    if trigger == "all":
        matching, _ = filter_tags(tags, pattern)
        if all_value:
            chosen = [t for t in tags if t in set(chosen) | set(matching)]
        else:
            chosen = [t for t in chosen if t not in set(matching)]
    all_state, count, error = _state(tags, chosen, pattern)
    return chosen, all_state, count, error


def user_change() -> bool:
    """True inside a callback fired by one changed input (a user action), False when Dash
    fired it for newly rendered components (all its inputs reported at once)."""
    return len(ctx.triggered) == 1 and ctx.triggered_id is not None


def register_tag_select(app: dash.Dash, prefix: str) -> None:
    """Keep the row of ``prefix`` consistent: All <-> checkboxes, filter -> visible options."""

    @app.callback(
        Output(f"{prefix}-tags", "value"), Output(f"{prefix}-all", "value"),
        Output(f"{prefix}-tags", "options"), Output(f"{prefix}-tag-count", "children"),
        Output(f"{prefix}-filter-error", "children"),
        Input(f"{prefix}-all", "value"), Input(f"{prefix}-tags", "value"),
        Input(f"{prefix}-filter", "value"), State(f"{prefix}-tag-list", "data"),
        prevent_initial_call=True,
    )
    def sync(all_value: list[str] | None, selected: list[str] | None, pattern: str | None,
             tags: list[str] | None) -> tuple:
        if not user_change():
            return (dash.no_update,) * 5
        tags = tags or []
        trigger = ctx.triggered_id
        kind = "all" if trigger == f"{prefix}-all" else None
        chosen, all_state, count, error = sync_selection(kind, tags, selected, all_value,
                                                         pattern or "")
        options = _options(tags, pattern or "") if trigger == f"{prefix}-filter" \
            else dash.no_update
        return (chosen if chosen != (selected or []) else dash.no_update,
                all_state if all_state != (all_value or []) else dash.no_update,
                options, count, error or "")


def button_select(list_id: str, label: str, filter_id: str, pattern: str, noun: str = "tags",
                  options: Sequence[dict[str, Any]] = (), value: Sequence[str] = (),
                  extra: Sequence[Any] = ()) -> list[html.Div]:
    """The selection rows of the scalar chart pages: ``label``, All / None buttons
    (``{list_id}-all``, ``{list_id}-none``), the regular-expression filter ``filter_id`` and
    ``extra`` (a message span) on one toolbar; the checklist ``list_id`` below. The page's
    callbacks apply :func:`pick` and fill the checklist from the URL."""
    return [
        html.Div(className="di-toolbar", children=[
            html.Span(label, className="di-muted"),
            html.Button("All", id=f"{list_id}-all", className="di-chip"),
            html.Button("None", id=f"{list_id}-none", className="di-chip"),
            dcc.Input(id=filter_id, value=pattern, debounce=0.3,
                      placeholder=f"Filter {noun} (regular expression)", className="di-input"),
            *extra,
        ]),
        html.Div(dcc.Checklist(id=list_id, options=list(options), value=list(value),
                               inline=True), className="di-tag-list"),
    ]


def button_action(trigger: Any, list_id: str) -> str | None:
    """The :func:`pick` action of a :func:`button_select` row that ``trigger`` (a component
    id) belongs to: ``"all"``, ``"none"``, ``"list"``, or None for another component."""
    return {f"{list_id}-all": "all", f"{list_id}-none": "none", list_id: "list"}.get(
        trigger if isinstance(trigger, str) else "")
