"""The head of a training job's page, the same on every page: title, summary path, the page's
own actions, and one × at the right that returns to the job's training dashboard (MindInsight's
sub-pages have that one control; a "‹ Dashboard" link on some pages and × on others made users
look for it)."""

from __future__ import annotations

from typing import Any

import dash
from dash import dcc, html

from dash_insight.core.i18n import gettext as _
from dash_insight.web.url_state import make_search

#: The class of the back-to-dashboard control (one per page).
BACK_CLASS = "di-close"


def job_page_head(app: dash.Dash, title: str, train_id: str, *actions: Any) -> html.Div:
    """``title``, ``Summary path: <train_id>``, ``actions`` (buttons, selectors) and the ×."""
    return html.Div(
        className="di-page-head",
        children=[
            html.H1(title, className="di-title"),
            html.Span(_("Summary path: {path}").format(path=train_id), className="di-subtitle"),
            html.Div(className="di-spacer"),
            *actions,
            dcc.Link(
                "×",
                href=app.get_relative_path("/dashboard") + make_search({"train_id": train_id}),
                className=BACK_CLASS,
                title=_("Back to the training dashboard"),
            ),
        ],
    )
