"""Pieces shared by the per-tag value pages (parameter distribution, images, tensors): the
page head, the messages for an unknown job or tags, and the job's tags of one plugin."""

from __future__ import annotations

from typing import Any

import dash
from dash import dcc, html

from dash_insight.core.provider import DataError, DataProvider
from dash_insight.web.url_state import make_search

GRAPH_CONFIG = {"displaylogo": False, "responsive": True,
                "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"]}


def head(app: dash.Dash, title: str, train_id: str) -> html.Div:
    """Title, summary path and a × back to the job's dashboard (shared by the value pages)."""
    return html.Div(className="di-page-head", children=[
        html.H1(title, className="di-title"),
        html.Span(f"Summary path: {train_id}", className="di-subtitle"),
        html.Div(className="di-spacer"),
        dcc.Link("×", href=app.get_relative_path("/dashboard") + make_search(
            {"train_id": train_id}), className="di-close", title="Back to the training dashboard"),
    ])


def job_error(app: dash.Dash, message: str) -> html.Div:
    return html.Div(className="di-panel di-empty", children=[
        html.P(message), dcc.Link("Back to the summary list", href=app.get_relative_path("/"))])


def unknown_message(unknown: list[str], train_id: str, kind: str) -> Any:
    """A notice for tags named in the URL that the job does not have."""
    if not unknown:
        return None
    names = ", ".join(repr(t) for t in unknown[:5]) + (" …" if len(unknown) > 5 else "")
    return html.Div(className="di-notice di-warning", id=f"{kind}-unknown-tags", children=[
        f"{len(unknown)} tag(s) in the link are not {kind} tags of {train_id}: {names}. "
        "They may have been renamed, or belong to another job; the other tags are shown."])


def plugin_tags(app: dash.Dash, provider: DataProvider, train_id: str, plugin: str,
                title: html.Div, empty: Any, empty_id: str) -> tuple[list[str], html.Div | None]:
    """The job's tags of ``plugin``, or a finished page (``title`` + message) when the job is
    unknown or has no such data yet (``empty`` says how to record it)."""
    try:
        tags = provider.job(train_id).tags[plugin]
    except DataError as error:
        return [], html.Div([title, job_error(app, str(error))])
    if not tags:
        return [], html.Div([title, html.Div(empty, className="di-panel di-empty", id=empty_id)])
    return tags, None
