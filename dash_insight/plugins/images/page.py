"""Images: one card per image tag with a step slider over every recorded step.

URL: ``/images?train_id=./job&tags=...&filter=...&b=50&c=50&steps=tag=12,other=40&page=N``.
MindInsight 2.3.1's page (ui-reference 05): Tag Selection, "Brightness" and "Contrast" sliders
(0-100, default 50, each with a Reset button disabled at the default) applied to every image as
the CSS filter ``brightness(b/50) contrast(c/50)``, a card per tag with the image scaled to the
card, the step and its time, and a step slider starting at the last step. MindInsight kept 10
sampled steps per tag; every step is kept here. Clicking an image opens it at its actual size.

Everything after the first render happens in the browser: the sliders, the filter, the image
``src`` (``/v1/mindinsight/datavisual/image/single-image?train_id&tag=<tag>/image&step``, so the
browser loads only the step shown) and the URL; the server renders the cards again only when the
job, the tags or the page change.
"""

from __future__ import annotations

from typing import Any

import dash
from dash import ALL, MATCH, Input, Output, State, ctx, dcc, html

from dash_insight.core.provider import DataError, DataProvider
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import Plugin
from dash_insight.web.components.tag_select import (
    decode_map,
    page_after,
    pager,
    register_tag_select,
    selection_from_params,
    tag_select,
    tags_on_page,
    tags_to_params,
    user_change,
)
from dash_insight.web.components.value_pages import head, plugin_tags, unknown_message
from dash_insight.web.url_state import int_param, make_search, parse_search

PATH = "/images"
PREFIX = "img"
PAGE_SIZE = 24
#: MindInsight's slider default (the CSS filter factor is value / 50).
DEFAULT_LEVEL = 50

EMPTY = ["This job has no image yet. SummaryCollector records the first input batch with ",
         html.Code("collect_specified_data={'collect_input_data': True}"), "; in the network "
         "use ", html.Code("ops.ImageSummary"), ", or ",
         html.Code("SummaryRecord.add_value('image', name, nchw_tensor)"), "."]

#: JavaScript: ``setParams(search, {name: value or null})`` -> the new query string (put inside
#: a clientside callback's body: Dash accepts a single function expression there).
SET_PARAMS_JS = """
function setParams(search, updates) {
    const params = new URLSearchParams(search || '');
    Object.keys(updates).forEach(name => {
        const value = updates[name];
        if (value === null || value === undefined || value === '') { params.delete(name); }
        else { params.set(name, String(value)); }
    });
    const text = params.toString();
    return text ? '?' + text : '';
}
"""

#: JavaScript: the same escaping as ``tag_select.encode_map``.
ENCODE_MAP_JS = r"""
function encodeMap(pairs) {
    const esc = s => String(s).replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
    return pairs.map(p => esc(p[0]) + '=' + esc(p[1])).join(',');
}
"""


def image_filter(brightness: float, contrast: float) -> str:
    """MindInsight's CSS filter for the two slider values (0..100, 50 = unchanged)."""
    return f"brightness({brightness / DEFAULT_LEVEL:g}) contrast({contrast / DEFAULT_LEVEL:g})"


def page_state(params: dict[str, str]) -> dict[str, Any]:
    return {
        "b": int_param(params, "b", DEFAULT_LEVEL, 0, 100),
        "c": int_param(params, "c", DEFAULT_LEVEL, 0, 100),
        "page": int_param(params, "page", 1, 1, 10**6),
        "filter": params.get("filter", ""),
        "steps": decode_map(params.get("steps")),
    }


def step_position(steps: list[int], wanted: str | None) -> int:
    """Index of the step named in the URL; the last step when absent, not a number or not
    recorded (MindInsight starts every slider at the last step)."""
    if wanted is not None:
        try:
            return steps.index(int(wanted))
        except ValueError:
            pass
    return len(steps) - 1


def image_card(app: dash.Dash, provider: DataProvider, train_id: str, tag: str,
               wanted: str | None) -> html.Section:
    """A card: the image at the chosen step, step and time, and a slider over every step."""
    try:
        steps = provider.value_steps(train_id, "image", tag)
    except DataError as error:
        return html.Section(className="di-panel di-card", children=[
            html.Div(tag, className="di-card-head"),
            html.Div(str(error), className="di-card-body di-empty di-error-text")])
    step_list = [int(s) for s in steps.step.tolist()]
    position = step_position(step_list, wanted)
    sizes = [[int(m.get("width", 0)), int(m.get("height", 0))] if m else [0, 0]
             for m in steps.meta] if steps.meta else [[0, 0]] * len(step_list)
    source = app.get_relative_path("/v1/mindinsight/datavisual/image/single-image") + \
        make_search({"train_id": train_id, "tag": f"{tag}/image"}) + "&step="
    data = {"tag": tag, "steps": step_list, "walls": steps.wall_time.tolist(), "sizes": sizes,
            "src": source, "last": len(step_list) - 1}
    key = {"tag": tag}
    return html.Section(className="di-panel di-card di-vi-card", children=[
        html.Div(className="di-card-head", children=[
            html.Span(tag, title=tag, className="di-vp-tag"),
            html.Span(f"{len(step_list)} step{'' if len(step_list) == 1 else 's'}",
                      className="di-muted di-vp-full"),
        ]),
        html.Div(className="di-card-body", children=[
            dcc.Store(id={"type": "img-data", **key}, data=data),
            html.Div(html.Img(id={"type": "img-img", **key}, alt=tag, className="di-vi-img",
                              src=source + str(step_list[position])),
                     className="di-vi-frame", id={"type": "img-frame", **key},
                     title="Click to see the actual size"),
            html.Div(className="di-vi-meta", children=[
                html.Span(f"Step: {step_list[position]}", id={"type": "img-step", **key}),
                html.Span("", id={"type": "img-time", **key}),
            ]),
            html.Div(dcc.Slider(id={"type": "img-slider", **key}, min=0,
                                max=max(1, len(step_list) - 1), step=1, value=position,
                                marks=None, updatemode="drag", allow_direct_input=False,
                                disabled=len(step_list) < 2),
                     className="di-vi-slider"),
        ]),
    ])


def _level_slider(name: str, label: str, value: int) -> html.Div:
    return html.Div(className="di-vi-adjust", children=[
        html.Span(label, className="di-control-label"),
        dcc.Slider(id=f"img-{name}", min=0, max=100, step=1, value=value, marks=None,
                   updatemode="drag"),
        html.Button("Reset", id=f"img-{name}-reset", className="di-button secondary",
                    disabled=value == DEFAULT_LEVEL),
    ])


def layout(app: dash.Dash, service: DataService, params: dict[str, str]) -> html.Div:
    train_id = params.get("train_id", "")
    title = head(app, "Images", train_id)
    tags, message = plugin_tags(app, service.provider, train_id, Plugin.IMAGE, title, EMPTY,
                                "img-empty")
    if message is not None:
        return message
    state = page_state(params)
    selected, _ = selection_from_params(params, tags)
    return html.Div(id="img-root", style={"--di-image-filter": image_filter(state["b"],
                                                                              state["c"])},
                    children=[
        title,
        html.Div(className="di-panel di-vp-controls", children=[
            tag_select(PREFIX, tags, selected, state["filter"]),
            html.Div(className="di-vp-row", children=[
                _level_slider("brightness", "Brightness", state["b"]),
                _level_slider("contrast", "Contrast", state["c"]),
            ]),
        ]),
        dcc.Store(id="img-query"),
        dcc.Store(id="img-shown"),
        html.Div(id="img-notice"),
        html.Div(id="img-cards", className="di-vi-grid"),
        pager(PREFIX, 0, 1, 1),
        html.Div(id="img-modal", className="di-modal-backdrop", style={"display": "none"},
                 n_clicks=0, title="Click to close", children=[
            html.Div(className="di-vi-modal", children=[
                html.Img(id="img-modal-img", alt="actual size"),
                html.Div(id="img-modal-caption", className="di-card-foot"),
            ]),
        ]),
    ])


def register(app: dash.Dash, service: DataService) -> None:
    provider = service.provider
    register_tag_select(app, PREFIX)

    # The part of the URL the cards depend on; slider moves leave it unchanged (no server call).
    app.clientside_callback(
        """function(search, current) {
            const params = new URLSearchParams(search || '');
            const query = ['train_id', 'tags', 'filter', 'page'].map(k => params.get(k));
            if (JSON.stringify(query) === JSON.stringify(current)) {
                return window.dash_clientside.no_update;
            }
            return query;
        }""",
        Output("img-query", "data"), Input("url", "search"), State("img-query", "data"),
    )

    # Brightness / contrast: the CSS variable every image's filter reads, resets, the URL.
    app.clientside_callback(
        """function(b, c, search) {""" + SET_PARAMS_JS + """
            b = (b === null || b === undefined) ? 50 : b;
            c = (c === null || c === undefined) ? 50 : c;
            const filter = 'brightness(' + (b / 50) + ') contrast(' + (c / 50) + ')';
            const next = setParams(search, {b: b === 50 ? null : b, c: c === 50 ? null : c});
            return [{'--di-image-filter': filter}, b === 50, c === 50,
                    next === (search || '') ? window.dash_clientside.no_update : next];
        }""",
        Output("img-root", "style"), Output("img-brightness-reset", "disabled"),
        Output("img-contrast-reset", "disabled"),
        Output("url", "search", allow_duplicate=True),
        Input("img-brightness", "value"), Input("img-contrast", "value"),
        State("url", "search"), prevent_initial_call=True,
    )
    for name in ("brightness", "contrast"):
        app.clientside_callback(
            "function(clicks) { return clicks ? 50 : window.dash_clientside.no_update; }",
            Output(f"img-{name}", "value"), Input(f"img-{name}-reset", "n_clicks"),
            prevent_initial_call=True,
        )

    # Step slider: image source, step and time of one card.
    app.clientside_callback(
        """function(position, data) {
            if (!data) { return window.dash_clientside.no_update; }
            const i = Math.max(0, Math.min(data.steps.length - 1, position || 0));
            const pad = n => String(n).padStart(2, '0');
            const d = new Date(data.walls[i] * 1000);
            const time = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate())
                + ' ' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':'
                + pad(d.getSeconds());
            return [data.src + data.steps[i], 'Step: ' + data.steps[i], time];
        }""",
        Output({"type": "img-img", "tag": MATCH}, "src"),
        Output({"type": "img-step", "tag": MATCH}, "children"),
        Output({"type": "img-time", "tag": MATCH}, "children"),
        Input({"type": "img-slider", "tag": MATCH}, "value"),
        State({"type": "img-data", "tag": MATCH}, "data"),
    )

    # Steps chosen away from the last one go to the URL (``steps=tag=12,...``).
    app.clientside_callback(
        """function(positions, data, search) {""" + SET_PARAMS_JS + ENCODE_MAP_JS + """
            const pairs = [];
            (data || []).forEach((d, k) => {
                const i = positions[k];
                if (d && i !== null && i !== undefined && i !== d.last) {
                    pairs.push([d.tag, d.steps[i]]);
                }
            });
            const next = setParams(search, {steps: pairs.length ? encodeMap(pairs) : null});
            return next === (search || '') ? window.dash_clientside.no_update : next;
        }""",
        Output("url", "search", allow_duplicate=True),
        Input({"type": "img-slider", "tag": ALL}, "value"),
        State({"type": "img-data", "tag": ALL}, "data"), State("url", "search"),
        prevent_initial_call=True,
    )

    # Actual size: a click on an image opens it in a modal; a click on the modal closes it.
    app.clientside_callback(
        """function(frames, closeClicks, sources, data) {
            const no = window.dash_clientside.no_update;
            const ctx = window.dash_clientside.callback_context;
            if (!ctx.triggered.length) { return [no, no, no]; }
            const trigger = ctx.triggered[0];
            if (trigger.prop_id === 'img-modal.n_clicks') {
                return [{display: 'none'}, no, no];
            }
            if (!trigger.value) { return [no, no, no]; }
            const id = JSON.parse(trigger.prop_id.split('.')[0]);
            const k = data.findIndex(d => d && d.tag === id.tag);
            if (k < 0) { return [no, no, no]; }
            const src = sources[k];
            const step = new URLSearchParams(src.split('?')[1]).get('step');
            const i = data[k].steps.indexOf(Number(step));
            const size = i >= 0 ? data[k].sizes[i] : null;
            const caption = id.tag + ' · step ' + step
                + (size && size[0] ? ' · ' + size[0] + '×' + size[1] + ' px' : '');
            return [{}, src, caption];
        }""",
        Output("img-modal", "style"), Output("img-modal-img", "src"),
        Output("img-modal-caption", "children"),
        Input({"type": "img-frame", "tag": ALL}, "n_clicks"), Input("img-modal", "n_clicks"),
        State({"type": "img-img", "tag": ALL}, "src"),
        State({"type": "img-data", "tag": ALL}, "data"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("url", "search", allow_duplicate=True),
        Input(f"{PREFIX}-tags", "value"), Input(f"{PREFIX}-filter", "value"),
        Input(f"{PREFIX}-prev", "n_clicks"), Input(f"{PREFIX}-next", "n_clicks"),
        State(f"{PREFIX}-tag-list", "data"), State("url", "search"),
        prevent_initial_call=True,
    )
    def controls_to_url(selected: list[str] | None, pattern: str | None, _prev: int | None,
                        _next: int | None, tags: list[str] | None, search: str | None) -> Any:
        if not user_change():
            return dash.no_update
        params = parse_search(search)
        page = int_param(params, "page", 1, 1, 10**6)
        page, _ = page_after(ctx.triggered_id, PREFIX, page)
        params.update(tags_to_params(tags or [], selected, pattern or ""))
        params["page"] = None if page == 1 else page  # type: ignore[assignment]
        new = make_search(params)
        return dash.no_update if new == (search or "") else new

    @app.callback(
        Output("img-cards", "children"), Output("img-notice", "children"),
        Output(f"{PREFIX}-total", "children"), Output(f"{PREFIX}-page", "children"),
        Output(f"{PREFIX}-prev", "disabled"), Output(f"{PREFIX}-next", "disabled"),
        Output("img-shown", "data"),
        Input("img-query", "data"), Input("refresh-interval", "n_intervals"),
        Input("refresh-now", "n_clicks"), State("url", "search"), State("img-shown", "data"),
    )
    def cards(_query: list | None, _ticks: int | None, _clicks: int | None,
              search: str | None, shown: list | None) -> Any:
        params = parse_search(search)
        train_id = params.get("train_id", "")
        try:
            job = provider.job(train_id)
        except DataError as error:
            return (html.Div(str(error), className="di-empty"), None, "", "", True, True,
                    None)
        tags = job.tags["image"]
        state = page_state(params)
        on_page, page, pages, unknown, total = tags_on_page(params, tags, state["filter"],
                                                            state["page"], PAGE_SIZE)
        key = [train_id, job.version, on_page, unknown]
        if shown == key:
            return (dash.no_update,) * 7
        built: Any = [image_card(app, provider, train_id, tag, state["steps"].get(tag))
                      for tag in on_page]
        if not built:
            built = html.Div("No tag selected: tick tags above, or clear the filter.",
                             className="di-empty")
        return (built, unknown_message(unknown, train_id, "image"), total, f"{page} / {pages}",
                page <= 1, page >= pages, key)
