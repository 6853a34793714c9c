"""Images: one card per image tag with a step slider over every recorded step.

URL: ``/images?train_id=./job&tags=...&filter=...&b=50&c=50&steps=tag=12,other=40&page=N``.
MindInsight 2.3.1's page (ui-reference 05): Tag Selection, "Brightness" and "Contrast" sliders
(0-100, default 50, each with a Reset button disabled at the default) applied to every image as
the CSS filter ``brightness(b/50) contrast(c/50)``, a card per tag with the image scaled to the
card, the step and its time, and a step slider starting at the last step. MindInsight kept 10
sampled steps per tag; every step is kept here. Clicking an image opens it at its actual size.

Everything after the first render happens in the browser (``imagesPage`` in
``assets/per-tag-pages.js``): the sliders, the filter, the image ``src``
(``/v1/mindinsight/datavisual/image/single-image?train_id&tag=<tag>/image&step``, so the browser
loads only the step shown) and the URL; the server renders the cards again only when the job,
the tags or the page change (:mod:`dash_insight.web.per_tag_page`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import dash
from dash import ALL, MATCH, ClientsideFunction, Input, Output, State, dcc, html

from dash_insight.core.format.reasons import localize_reason
from dash_insight.core.i18n import format_wall_time, interpolate, lazy_gettext, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName
from dash_insight.web import per_tag_page
from dash_insight.web.components.native_inputs import RangeInput
from dash_insight.web.per_tag_page import CardContext, PerTagPage, PerTagUrl
from dash_insight.web.url_state import Int, TagMap, make_search

PATH = "/images"
PREFIX = "img"
PAGE_SIZE = 24
#: MindInsight's slider default (the CSS filter factor is value / 50); ``LEVEL`` in
#: ``assets/per-tag-pages.js``.
DEFAULT_LEVEL = 50


def empty() -> list[Any]:
    """What a job without images shows: how to record them."""
    return interpolate(
        _(
            "This job has no image yet. SummaryCollector records the first input batch with "
            "{specified}; in the network use {summary}, or {add_value}."
        ),
        specified=html.Code("collect_specified_data={'collect_input_data': True}"),
        summary=html.Code("ops.ImageSummary"),
        add_value=html.Code("SummaryRecord.add_value('image', name, nchw_tensor)"),
    )


@dataclass(frozen=True)
class ImagesUrl(PerTagUrl):
    """What the page's URL says (:data:`STATE`): the job, tags, filter and page of every
    per-tag page, ``b`` / ``c`` brightness and contrast (0-100), ``steps`` the step shown per
    tag (absent: the last; at most MAX_URL_LIST_ITEMS tags); all three change in the browser
    only."""

    b: int = DEFAULT_LEVEL
    c: int = DEFAULT_LEVEL
    steps: dict[str, str] = field(default_factory=dict)


#: Brightness and contrast in the URL (the image comparison's too).
BRIGHTNESS = Int("b", DEFAULT_LEVEL, 0, 100)
CONTRAST = Int("c", DEFAULT_LEVEL, 0, 100)
#: The page's URL state: each attribute of :class:`ImagesUrl` and its URL parameter.
STATE = per_tag_page.page_state(ImagesUrl, b=BRIGHTNESS, c=CONTRAST, steps=TagMap("steps"))


def image_filter(brightness: float, contrast: float) -> str:
    """MindInsight's CSS filter for the two slider values (0..100, 50 = unchanged)."""
    return f"brightness({brightness / DEFAULT_LEVEL:g}) contrast({contrast / DEFAULT_LEVEL:g})"


def step_position(steps: list[int], wanted: str | None) -> int:
    """Index of the step named in the URL; the last step when absent, not a number or not
    recorded (MindInsight starts every slider at the last step)."""
    if wanted is not None:
        try:
            return steps.index(int(wanted))
        except ValueError:
            pass
    return len(steps) - 1


def image_card(
    app: dash.Dash, provider: DataProvider, train_id: str, tag: str, wanted: str | None
) -> html.Section:
    """A card: the image at the chosen step, step and time, and a slider over every step."""
    try:
        steps = provider.value_steps(train_id, "image", tag)
    except DataError as error:
        return html.Section(
            className="di-panel di-card",
            children=[
                html.Div(tag, className="di-card-head"),
                html.Div(
                    localize_reason(str(error)), className="di-card-body di-empty di-error-text"
                ),
            ],
        )
    step_list = [int(s) for s in steps.step.tolist()]
    position = step_position(step_list, wanted)
    data = _card_data(app, train_id, tag, steps)
    return html.Section(
        className="di-panel di-card di-vi-card",
        children=[
            html.Div(
                className="di-card-head",
                children=[
                    html.Span(tag, title=tag, className="di-vp-tag"),
                    html.Span(
                        ngettext("{count} step", "{count} steps", len(step_list)).format(
                            count=len(step_list)
                        ),
                        className="di-muted di-vp-full",
                    ),
                ],
            ),
            _card_body(tag, data, position),
        ],
    )


def _card_data(app: dash.Dash, train_id: str, tag: str, steps: Any) -> dict[str, Any]:
    """What the card's browser code needs: each step, its wall time (the server's local time, as
    the tensors page and the summary list show it) and image size, and the image URL without
    its step."""
    step_list = [int(s) for s in steps.step.tolist()]
    sizes = (
        [[int(m.get("width", 0)), int(m.get("height", 0))] if m else [0, 0] for m in steps.meta]
        if steps.meta
        else [[0, 0]] * len(step_list)
    )
    source = (
        app.get_relative_path("/v1/mindinsight/datavisual/image/single-image")
        + make_search({"train_id": train_id, "tag": f"{tag}/image"})
        + "&step="
    )
    return {
        "tag": tag,
        "steps": step_list,
        "times": [format_wall_time(wall) for wall in steps.wall_time.tolist()],
        "sizes": sizes,
        "src": source,
        "last": len(step_list) - 1,
    }


def _card_body(tag: str, data: dict[str, Any], position: int) -> html.Div:
    """The image at ``position``, its step and time, and the step slider."""
    key = {"tag": tag}
    step_list, source = data["steps"], data["src"]
    return html.Div(
        className="di-card-body",
        children=[
            dcc.Store(id={"type": "img-data", **key}, data=data),
            html.Div(
                html.Img(
                    id={"type": "img-img", **key},
                    alt=tag,
                    className="di-vi-img",
                    src=source + str(step_list[position]),
                ),
                className="di-vi-frame",
                id={"type": "img-frame", **key},
                title=_("Click to see the actual size"),
            ),
            html.Div(
                className="di-vi-meta",
                children=[
                    html.Span(
                        _("Step: {step}").format(step=step_list[position]),
                        id={"type": "img-step", **key},
                    ),
                    html.Span(data["times"][position], id={"type": "img-time", **key}),
                ],
            ),
            html.Div(
                RangeInput(
                    id={"type": "img-slider", **key},
                    min=0,
                    max=max(1, len(step_list) - 1),
                    value=position,
                    updatemode="drag",
                    disabled=len(step_list) < 2,
                ),
                className="di-vi-slider",
            ),
        ],
    )


def _level_slider(name: str, label: str, value: int) -> html.Div:
    return html.Div(
        className="di-vi-adjust",
        children=[
            html.Span(label, className="di-control-label"),
            RangeInput(id=f"img-{name}", min=0, max=100, value=value, updatemode="drag"),
            html.Button(
                _("Reset"),
                id=f"img-{name}-reset",
                className="di-button secondary",
                disabled=value == DEFAULT_LEVEL,
            ),
        ],
    )


def root_style(state: ImagesUrl) -> dict[str, str]:
    """The CSS variable every image's filter reads."""
    return {"--di-image-filter": image_filter(state.b, state.c)}


def controls(state: ImagesUrl) -> list[html.Div]:
    """Brightness and contrast sliders with their Reset buttons."""
    return [
        html.Div(
            className="di-vp-row",
            children=[
                _level_slider("brightness", _("Brightness"), state.b),
                _level_slider("contrast", _("Contrast"), state.c),
            ],
        )
    ]


def modal(_state: ImagesUrl) -> list[html.Div]:
    """The actual-size view of a clicked image (hidden until then)."""
    return [
        html.Div(
            id="img-modal",
            className="di-modal-backdrop",
            style={"display": "none"},
            n_clicks=0,
            title=_("Click to close"),
            children=[
                html.Div(
                    className="di-vi-modal",
                    children=[
                        html.Img(id="img-modal-img", alt=_("actual size")),
                        html.Div(id="img-modal-caption", className="di-card-foot"),
                    ],
                ),
            ],
        )
    ]


def _card(context: CardContext[DataService, ImagesUrl], tag: str) -> html.Section:
    return image_card(
        context.app,
        context.service.provider,
        context.train_id,
        tag,
        context.state.steps.get(tag),
    )


PAGE: PerTagPage[DataService, ImagesUrl] = PerTagPage(
    prefix=PREFIX,
    plugin=PluginName.IMAGE,
    noun="image",
    title=lazy_gettext("Images"),
    kind=lazy_gettext("image"),
    empty=empty,
    state=STATE,
    page_size=PAGE_SIZE,
    card=_card,
    controls=controls,
    grid_class="di-vi-grid",
    root_style=root_style,
    extra=modal,
)


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    return per_tag_page.layout(PAGE, app, service, params)


def register(app: dash.Dash, service: DataService) -> None:
    per_tag_page.register(PAGE, app, service)

    def browser(name: str) -> ClientsideFunction:
        return ClientsideFunction(namespace="imagesPage", function_name=name)

    app.clientside_callback(
        browser("levels"),
        Output("img-root", "style"),
        Output("img-brightness-reset", "disabled"),
        Output("img-contrast-reset", "disabled"),
        Output("url", "search", allow_duplicate=True),
        Input("img-brightness", "value"),
        Input("img-contrast", "value"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    for name in ("brightness", "contrast"):
        app.clientside_callback(
            browser("reset"),
            Output(f"img-{name}", "value"),
            Input(f"img-{name}-reset", "n_clicks"),
            prevent_initial_call=True,
        )
    app.clientside_callback(
        browser("showStep"),
        Output({"type": "img-img", "tag": MATCH}, "src"),
        Output({"type": "img-step", "tag": MATCH}, "children"),
        Output({"type": "img-time", "tag": MATCH}, "children"),
        Input({"type": "img-slider", "tag": MATCH}, "value"),
        State({"type": "img-data", "tag": MATCH}, "data"),
        # Not at load: the layout holds each card's image, step and time (six runs of it were
        # 60 ms of the images page's load).
        prevent_initial_call=True,
    )
    app.clientside_callback(
        browser("stepsToUrl"),
        Output("url", "search", allow_duplicate=True),
        Input({"type": "img-slider", "tag": ALL}, "value"),
        State({"type": "img-data", "tag": ALL}, "data"),
        State("url", "search"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        browser("actualSize"),
        Output("img-modal", "style"),
        Output("img-modal-img", "src"),
        Output("img-modal-caption", "children"),
        Input({"type": "img-frame", "tag": ALL}, "n_clicks"),
        Input("img-modal", "n_clicks"),
        State({"type": "img-img", "tag": ALL}, "src"),
        State({"type": "img-data", "tag": ALL}, "data"),
        prevent_initial_call=True,
    )
