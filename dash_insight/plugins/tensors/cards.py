"""The tensor card of the training dashboard: a corner of the first tensor's last step."""

from __future__ import annotations

from typing import Any

import numpy as np
from dash import html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate
from dash_insight.core.provider import DataError
from dash_insight.core.vocabulary import PluginName, mindinsight_order
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web.dashboard import no_data
from dash_insight.web.plugin import CardRequest


def no_tensors() -> list[Any]:
    """The card of a job without tensors: how to record them."""
    return interpolate(
        _(
            "No tensor yet. In the training script, add {summary} or {add_value} to save tensor "
            "data."
        ),
        summary=html.Code("ops.TensorSummary"),
        add_value=html.Code("add_value('tensor', name, tensor)"),
    )


def tensor_card(request: CardRequest, queries: TensorQueries) -> tuple[Any, Any]:
    """A corner (at most 3x3) of the first tensor tag's last step, cells coloured by value."""
    provider, train_id = queries.provider, request.job.train_id
    tags = mindinsight_order(
        request.job.tags[PluginName.TENSOR], PluginName.TENSOR
    )  # as MindInsight
    if not tags:
        return no_data(no_tensors()), None
    tag = tags[0]
    steps = provider.value_steps(train_id, PluginName.TENSOR, tag)
    step = int(steps.step[-1])
    meta = steps.meta[-1] or {}
    dims = list(meta.get("dims", []))
    index = ",".join(["0"] * max(0, len(dims) - 2) + [f"0:{min(3, d)}" for d in dims[-2:]])
    try:
        corner = np.atleast_2d(queries.slice(train_id, tag, step, f"[{index}]"))
    except DataError as error:
        return html.Div(localize_reason(str(error)), className="di-empty"), tag
    if corner.dtype.kind in "OUS":  # text (TensorBoard): the strings, uncoloured
        table = html.Table(
            className="di-heat",
            children=[
                html.Tbody([html.Tr([html.Td(str(v)) for v in row]) for row in corner.tolist()])
            ],
        )
        return table, f"{tag} · " + _("step {step} · shape {dims} · text").format(
            step=step, dims=dims
        )
    finite = corner[np.isfinite(corner)] if corner.dtype.kind == "f" else corner.astype(float)
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)

    def cell(value: Any) -> html.Td:
        share = (
            0.5
            if high == low or not np.isfinite(float(value))
            else ((float(value) - low) / (high - low))
        )
        colour = f"rgba(0, 165, 167, {0.1 + 0.5 * share:.2f})"
        # Five decimals of the exact value, as MindInsight's card and the tensor page's table
        # (a float16 1.0048828125 is 1.00488).
        text = str(value) if corner.dtype.kind in "biu" else f"{float(value):.5f}"
        return html.Td(text, style={"background": colour})

    table = html.Table(
        className="di-heat",
        children=[html.Tbody([html.Tr([cell(v) for v in row]) for row in corner.tolist()])],
    )
    return (
        html.Div([table], style={"display": "flex", "justifyContent": "center"}),
        f"{tag} · "
        + _("step {step} · shape {dims}").format(step=step, dims=dims)
        + f" · {meta.get('data_type', '')}",
    )
