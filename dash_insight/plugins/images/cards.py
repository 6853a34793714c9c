"""The images card of the training dashboard."""

from __future__ import annotations

from typing import Any

from dash import html

from dash_insight.core.i18n import gettext as _
from dash_insight.core.i18n import interpolate, ngettext
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName, mindinsight_order, mindinsight_tag
from dash_insight.web.dashboard import no_data, switch_tag_button
from dash_insight.web.plugin import CardRequest
from dash_insight.web.url_state import make_search

SINGLE_IMAGE = "/v1/mindinsight/datavisual/image/single-image"


def no_images() -> list[Any]:
    """The card of a job without images: how to record them."""
    return interpolate(
        _(
            "No image yet. SummaryCollector records the first input batch with {collect}; or "
            "use {summary} / {add_value}."
        ),
        collect=html.Code("collect_input_data"),
        summary=html.Code("ImageSummary"),
        add_value=html.Code("add_value('image', name, nchw)"),
    )


def image_card(request: CardRequest, service: DataService) -> tuple[Any, Any]:
    """The last image of one tag; "Switch tag" turns to the next tag."""
    provider, train_id = service.provider, request.job.train_id
    tags = mindinsight_order(request.job.tags[PluginName.IMAGE], PluginName.IMAGE)  # as MindInsight
    if not tags:
        return no_data(no_images()), None
    tag = tags[request.turn % len(tags)]
    steps = provider.value_steps(train_id, PluginName.IMAGE, tag)
    step = int(steps.step[-1])
    src = request.app.get_relative_path(SINGLE_IMAGE) + make_search(
        {"train_id": train_id, "tag": mindinsight_tag(tag, PluginName.IMAGE), "step": step}
    )
    foot: list[Any] = [
        f"{tag} · "
        + _("step {step}").format(step=step)
        + " · "
        + ngettext("{count} tag", "{count} tags", len(tags)).format(count=len(tags))
    ]
    if len(tags) > 1:
        foot += [" · ", switch_tag_button()]
    return html.Img(src=src, className="di-card-image", id="preview-image", alt=tag), foot
