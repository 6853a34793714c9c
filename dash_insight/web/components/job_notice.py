"""The banner a job's pages show above their content when its logs are damaged, or may be.

One component for the training dashboard and the value pages, so a damaged job says so on
every page that draws its data: the problems (``JobSummary.reasons``) in a warning that opens
to list them, or, when nothing is known to be wrong yet, the hints (an incomplete last record
that may still be being written, ``JobSummary.hints``) in a quieter note. Long file names break
between words only (``overflow-wrap``), never inside a word.
"""

from __future__ import annotations

from typing import Any

import dash
from dash import dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import ngettext
from dash_insight.core.provider import JobSummary

#: The most reasons listed; the rest are counted.
MAX_LISTED = 50


def job_notice(job: JobSummary, element_id: str | None = None) -> Any:
    """The warning (problems) or note (hints) of ``job``; None for a healthy job."""
    identity: dict[str, Any] = {"id": element_id} if element_id else {}
    if job.reasons:
        listed = [html.Li(reason) for reason in job.reasons[:MAX_LISTED]]
        if len(job.reasons) > MAX_LISTED:
            listed.append(
                html.Li(_("... and {count} more").format(count=len(job.reasons) - MAX_LISTED))
            )
        return html.Details(
            className="di-panel di-warning di-job-notice",
            **identity,
            children=[
                html.Summary(
                    "⚠ "
                    + ngettext(
                        "This job has {count} problem; everything readable is shown.",
                        "This job has {count} problems; everything readable is shown.",
                        len(job.reasons),
                    ).format(count=len(job.reasons))
                ),
                html.Ul(listed),
            ],
        )
    if job.hints:
        return html.Div(
            className="di-panel di-note di-job-notice",
            **identity,
            children=[html.Span("ⓘ ", className="di-muted"), html.Span(" ".join(job.hints))],
        )
    return None


def job_error(app: dash.Dash, error: BaseException | str) -> html.Div:
    """The panel a page shows instead of a job it cannot read (``error``: why, in the
    request's language), with the way back to the summary list."""
    return html.Div(
        className="di-panel di-empty",
        children=[
            html.P(localize_reason(str(error))),
            dcc.Link(_("Back to the summary list"), href=app.get_relative_path("/")),
        ],
    )
