"""Each page request answered in the user's language.

Before every request the locale is negotiated (:func:`dash_insight.core.i18n.negotiate`): the
``di_language`` cookie the top bar's switch sets, else the browser's ``Accept-Language``, else
the server's ``--language``; :mod:`dash_insight.core.i18n`'s ``gettext`` then translates to it
while the request is answered. Page layouts are built per request (Dash calls them in the
``/_dash-layout`` and callback requests), so the server renders the chosen language and a
page's URL is the same in both. REST answers do not depend on it.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import dash
import flask
from dash import ClientsideFunction, Input, Output, State, html

from dash_insight.core import i18n
from dash_insight.core.i18n import gettext as _
from dash_insight.core.settings import Settings

#: The ``window.dash_clientside`` namespace of ``assets/shell.js``.
CLIENTSIDE_NAMESPACE = "shell"
#: ``<html lang>`` per locale: Chromium picks CJK fonts by the document's language.
HTML_LANG = {i18n.ENGLISH: "en", i18n.CHINESE: "zh-CN"}
_G_TOKEN = "_dash_insight_locale_token"


def request_locale(default: str) -> str:
    """The locale of the Flask request being answered (see :func:`i18n.negotiate`)."""
    request = flask.request
    return i18n.negotiate(
        request.cookies.get(i18n.COOKIE_NAME), request.headers.get("Accept-Language"), default
    )


def html_lang() -> str:
    """The ``<html lang>`` of the page being answered (in its request's locale)."""
    return HTML_LANG.get(i18n.current_locale(), "en")


def install(app: dash.Dash, settings: Settings) -> None:
    """Set the locale for every request of ``app``'s server (and so the ``lang`` of its pages,
    :func:`html_lang`)."""
    server = app.server
    default = i18n.normalize_locale(settings.language) or i18n.ENGLISH

    @server.before_request
    def set_request_locale() -> None:
        setattr(flask.g, _G_TOKEN, i18n.set_locale(request_locale(default)))

    @server.teardown_request
    def reset_request_locale(_error: BaseException | None) -> None:
        token = flask.g.pop(_G_TOKEN, None)
        if token is not None:
            # ValueError: set in another context; RuntimeError: already reset (a streamed,
            # compressed answer tears its request down twice). Either way nothing to undo, and
            # raising here would cut the answer short.
            with contextlib.suppress(ValueError, RuntimeError):
                i18n.reset_locale(token)


#: The id of the element whose ``data-texts`` give the browser scripts their words.
CLIENT_TEXTS_ID = "di-client-texts"


def client_texts() -> dict[str, str]:
    """The words the browser scripts draw themselves (chart axes, hovers, notes, buttons),
    English -> current language; ``window.dashInsightText(english, values)``
    (``assets/shell.js``) looks them up and fills ``{name}`` placeholders. Each is written
    out here so that ``pybabel extract`` finds it."""
    english = [
        # assets/scalar-charts.js
        ("step", _("step")),
        ("relative time (s)", _("relative time (s)")),
        ("time", _("time")),
        ("value", _("value")),
        ("smoothed", _("smoothed")),
        ("{shown} of {total} points drawn", _("{shown} of {total} points drawn")),
        (" (smoothed as drawn)", _(" (smoothed as drawn)")),
        ("raw: all {total} points of the range", _("raw: all {total} points of the range")),
        (
            "log scale: {count} non-positive value(s) not drawn",
            _("log scale: {count} non-positive value(s) not drawn"),
        ),
        ("{name}: {kind} at step {step}", _("{name}: {kind} at step {step}")),
        ("best: min", _("best: min")),
        ("best: max", _("best: max")),
        (
            "log x: {count} point(s) at or below 0 not drawn",
            _("log x: {count} point(s) at or below 0 not drawn"),
        ),
        (
            "log x needs the step or relative time axis",
            _("log x needs the step or relative time axis"),
        ),
        (
            "{count} point(s) without a value of {tag} at their step not drawn",
            _("{count} point(s) without a value of {tag} at their step not drawn"),
        ),
        ("{name} (own scale)", _("{name} (own scale)")),
        ("runs at this step", _("runs at this step")),
        (
            "band: steps with at least 2 runs ({count} of {total})",
            _("band: steps with at least 2 runs ({count} of {total})"),
        ),
        (
            "{tag} differs between the runs here: drawn at their mean",
            _("{tag} differs between the runs here: drawn at their mean"),
        ),
        (
            "groups: {count} point(s) without {tag} left out",
            _("groups: {count} point(s) without {tag} left out"),
        ),
        # assets/per-tag-pages.js
        ("✕ Exit full screen", _("✕ Exit full screen")),
        ("Full screen", _("Full screen")),
        ("Step: {step}", _("Step: {step}")),
    ]
    return dict(english)


def client_texts_element() -> html.Div:
    """A hidden element carrying :func:`client_texts` (rendered with the page frame)."""
    data: dict[str, Any] = {
        "data-texts": json.dumps(client_texts(), ensure_ascii=False),
        "data-locale": i18n.current_locale(),
    }
    return html.Div(id=CLIENT_TEXTS_ID, hidden=True, **data)


def language_switch() -> html.Div:
    """中文 / English in the top bar: the current language is marked; a click sets the cookie
    and reloads the same URL (``assets/shell.js`` ``setLanguage``)."""
    current = i18n.current_locale()
    return html.Div(
        className="di-language",
        id="language-switch",
        children=[
            html.Button(
                name,
                id={"type": "language", "locale": locale},
                className="di-language-option" + (" active" if locale == current else ""),
                lang=HTML_LANG[locale],
                title=name,
                n_clicks=0,
            )
            for locale, name in i18n.LOCALE_NAMES.items()
        ],
    )


def register(app: dash.Dash) -> None:
    """The switch's click: a clientside callback (no server round trip before the reload)."""
    app.clientside_callback(
        ClientsideFunction(CLIENTSIDE_NAMESPACE, "setLanguage"),
        Output("language-switch", "title"),
        Input({"type": "language", "locale": dash.ALL}, "n_clicks"),
        State({"type": "language", "locale": dash.ALL}, "id"),
        prevent_initial_call=True,
    )
