"""Training dashboard of one job: a card per kind of data, each opening its page.

URL: ``/dashboard?train_id=./job``. The cards come from the plugins (each plugin's ``cards``, in
the order the application lists the plugins); a card without data says how to record it, and a
card that fails says why while the others stay.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import dash
from dash import Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.web.components.job_notice import job_error, job_notice
from dash_insight.web.plugin import Card, CardRequest, Page
from dash_insight.web.url_state import make_search, parse_search

PATH = "/dashboard"
#: The id of a card's "Switch tag" button; each click turns :attr:`CardRequest.turn` by one.
SWITCH_TAG_ID = "switch-image-tag"

#: A card with the service it is built with.
BoundCard = tuple[Card[Any], Any]


def switch_tag_button() -> html.Button:
    """ "Switch tag" for a card that shows one of several tags (one such card per dashboard)."""
    return html.Button(_("Switch tag"), id=SWITCH_TAG_ID, className="di-link-button")


def no_data(children: Any) -> html.Div:
    """A card body for a job without this kind of data (``children`` say how to record it)."""
    return html.Div(children, className="di-empty")


def card_frame(
    app: dash.Dash, card: Card[Any], train_id: str, body: Any, foot: Any, has_data: bool
) -> html.Section:
    """A card: title with an "Open ›" link to its page (when there is data), body, footer."""
    head: list[Any] = [html.Span(str(card.title))]
    if has_data:
        head.append(
            dcc.Link(
                _("Open") + " ›",
                href=app.get_relative_path(card.page) + make_search({"train_id": train_id}),
            )
        )
    return html.Section(
        className="di-panel di-card",
        id=card.card_id,
        children=[
            html.Div(head, className="di-card-head"),
            html.Div(body, className="di-card-body"),
            html.Div(foot, className="di-card-foot") if foot else None,
        ],
    )


def build_cards(request: CardRequest, cards: Sequence[BoundCard]) -> list[Any]:
    """Every card for ``request.job``, plus a warning panel when the job has problems."""
    built: list[Any] = []
    for card, service in cards:
        try:
            body, foot = card.build(request, service)
        except DataError as error:  # e.g. a file changed under us: say so, keep the rest
            body, foot = (
                html.Div(localize_reason(str(error)), className="di-empty di-error-text"),
                None,
            )
        built.append(
            card_frame(request.app, card, request.job.train_id, body, foot, foot is not None)
        )
    notice = job_notice(request.job)
    if notice is not None:
        built.insert(0, notice)
    return built


def page(provider: DataProvider, cards: Sequence[BoundCard]) -> Page[Any]:
    """The dashboard page over ``cards`` (each with its plugin's service)."""

    def layout(app: dash.Dash, _service: Any, params: dict[str, str]) -> html.Div:
        train_id = params.get("train_id", "")
        return html.Div(
            [
                html.Div(
                    className="di-page-head",
                    children=[
                        html.H1(_("Training Dashboard"), className="di-title"),
                        html.Span(
                            _("Summary path: {path}").format(path=train_id), className="di-subtitle"
                        ),
                    ],
                ),
                dcc.Store(id="image-tag-index", data=0),
                dcc.Store(id="dashboard-shown"),  # (train_id, version, turn, problems) on screen
                html.Div(id="dashboard-cards", className="di-cards"),
            ]
        )

    def register(app: dash.Dash, _service: Any) -> None:
        _register(app, provider, cards)

    return Page(PATH, layout, register)


def show_cards(
    app: dash.Dash,
    provider: DataProvider,
    cards: Sequence[BoundCard],
    search: str | None,
    _ticks: int | None,
    _clicks: int | None,
    turn: int | None,
    shown: Any,
) -> tuple[Any, Any]:
    """The cards of the URL's job and what they show (job, version, tag turn, problems);
    nothing is sent when that did not change since ``shown``, and a job that cannot be read
    gives its reason and a way back."""
    train_id = parse_search(search).get("train_id", "")
    try:
        job = provider.job(train_id)
    except DataError as error:
        return job_error(app, error), None
    turn = turn if isinstance(turn, int) else 0
    current = [train_id, job.version, turn, len(job.reasons)]
    if shown == current:
        return dash.no_update, dash.no_update  # nothing new: keep the cards as they are
    return build_cards(CardRequest(app, job, turn), cards), current


def switch_tag(clicks: int | None, index: int | None) -> Any:
    """ "Switch tag": the next turn of the card's tags (a drawn button: none)."""
    if not clicks:
        return dash.no_update
    return (index if isinstance(index, int) else 0) + 1


def _register(app: dash.Dash, provider: DataProvider, cards: Sequence[BoundCard]) -> None:
    app.callback(
        Output("dashboard-cards", "children"),
        Output("dashboard-shown", "data"),
        Input("url", "search"),
        Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"),
        Input("image-tag-index", "data"),
        State("dashboard-shown", "data"),
    )(functools.partial(show_cards, app, provider, cards))
    app.callback(
        Output("image-tag-index", "data"),
        Input(SWITCH_TAG_ID, "n_clicks"),
        State("image-tag-index", "data"),
        prevent_initial_call=True,
    )(switch_tag)
