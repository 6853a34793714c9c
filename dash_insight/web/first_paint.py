"""A page's first screen as plain HTML in the page's own answer, painted before Dash starts.

Dash draws nothing until the browser has compiled and run its scripts (React, dash-renderer,
the component libraries, plotly.js: about 3.5 MB) and fetched the layout: on a 2-core machine
that is 0.8 s of a warm scalars page, most of MindInsight's whole page (0.9 s; issue 18
item 5). A page that has a ``first_paint`` (:class:`~dash_insight.web.plugin.Page`) gets it
rendered here as static HTML (:func:`static_html`) in the answer to its URL:

- inside ``div#di-first-paint``, over the page and in a shadow root (declarative), so that no
  script or test selecting the page's elements finds this copy (its ids included); clicks go
  through it to the page below (``pointer-events: none``), whose controls are at the same
  places once Dash has drawn them;
- Dash's scripts are held in a ``<template>`` and started one frame after the first paint
  (:func:`_held_scripts`), so the browser paints the copy before it compiles them;
- ``assets/first-paint.js`` removes the copy once Dash's page shows as much (the charts on its
  first screen drawn), or :data:`LONGEST_SHOWN_MS` after Dash's layout came into the page.

The two scripts this puts inline (the loader and the copy's styles) are ``assets/inline/``'s;
their sha256 is in the pages' Content-Security-Policy (:func:`install` returns them).
Pages without a ``first_paint`` are answered as Dash answers them. The ``<html>`` element of
every page carries the theme of the browser's cookie (:mod:`dash_insight.web.theme`), so a dark
page is dark from its first paint.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dash
import flask
from dash.development.base_component import Component

from dash_insight.web import theme
from dash_insight.web.plugin import NavLink

LOG = logging.getLogger(__name__)

#: The copy is removed this long after Dash's layout came into the page even if the page never
#: shows its charts (counted from the layout, not from the answer: on a loaded machine Dash's
#: start alone took longer, and the copy went while the page's charts were still empty).
LONGEST_SHOWN_MS = 10000
OVERLAY_ID = "di-first-paint"
SCRIPTS_ID = "di-dash-scripts"

#: Elements without an end tag.
VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)
#: html components whose tag is not their lower-cased name.
TAGS = {"MapEl": "map", "ObjectEl": "object"}
#: Props that are not HTML attributes, or that only Dash and its scripts read. (Ids are kept:
#: the copy's shadow root is a document of its own for them, and the stylesheets use some.)
SKIPPED = frozenset(
    {
        "children",
        "n_clicks",
        "n_clicks_timestamp",
        "disable_n_clicks",
        "loading_state",
        "key",
        "setProps",
        "persistence",
        "persisted_props",
        "persistence_type",
    }
)
ATTRIBUTES = {
    "className": "class",
    "htmlFor": "for",
    "tabIndex": "tabindex",
    "accessKey": "accesskey",
    "contentEditable": "contenteditable",
    "spellCheck": "spellcheck",
}
#: CSS properties React leaves without a unit when given a number (others get px).
UNITLESS = frozenset(
    {
        "opacity",
        "zIndex",
        "flex",
        "flexGrow",
        "flexShrink",
        "order",
        "fontWeight",
        "lineHeight",
        "zoom",
    }
)


class Raw:
    """HTML given as it is (a chart drawn on the server), as a child in a tree for
    :func:`static_html`; never sent to Dash."""

    def __init__(self, markup: str) -> None:
        self.markup = markup


def _css_name(name: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


def css_text(style: dict[str, Any]) -> str:
    """A React style object as a ``style`` attribute's text (numbers in px, as React)."""
    out = []
    for name, value in style.items():
        if value is None or value == "":
            continue
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and name not in UNITLESS
            and value != 0
        ):
            value = f"{value}px"
        out.append(f"{_css_name(name)}:{value}")
    return ";".join(out)


def _attributes(props: dict[str, Any], class_name: str = "") -> str:
    parts = []
    classes = " ".join(filter(None, [class_name, props.get("className") or ""]))
    if classes:
        parts.append(f'class="{html.escape(classes)}"')
    for name, value in props.items():
        if name in SKIPPED or name == "className" or value is None or value is False:
            continue
        if name == "id" and isinstance(value, dict):
            value = json.dumps(value, sort_keys=True, separators=(",", ":"))  # as Dash's
        if name.startswith("data-") and isinstance(value, str) and len(value) > 200:
            continue  # a deferred component's JSON: nothing to draw
        if name == "style":
            if isinstance(value, dict) and value:
                parts.append(f'style="{html.escape(css_text(value))}"')
            continue
        if isinstance(value, dict | list):
            continue
        attribute = ATTRIBUTES.get(name, name)
        parts.append(attribute if value is True else f'{attribute}="{html.escape(str(value))}"')
    return (" " + " ".join(parts)) if parts else ""


def _children(value: Any) -> str:
    if value is None or value is False:
        return ""
    if isinstance(value, list | tuple):
        return "".join(_children(child) for child in value)
    if isinstance(value, Raw):
        return value.markup
    if isinstance(value, Component):
        return static_html(value)
    return html.escape(str(value))


def _element(tag: str, props: dict[str, Any], inner: str = "", class_name: str = "") -> str:
    if tag in VOID:
        return f"<{tag}{_attributes(props, class_name)}>"
    return f"<{tag}{_attributes(props, class_name)}>{inner}</{tag}>"


def _options(component: Component, kind: str) -> str:
    """A checklist or radio list as Dash 4 renders it (its classes, for its look)."""
    props = component.to_plotly_json()["props"]
    value = props.get("value")
    chosen = set(value) if isinstance(value, list) else {value}
    inline = " dash-radioitems-inline" if kind == "radio" and props.get("inline") else ""
    items = []
    for option in props.get("options") or []:
        if not isinstance(option, dict):
            option = {"label": option, "value": option}
        checked = " checked" if option.get("value") in chosen else ""
        selected = " selected" if checked else ""
        items.append(
            f'<label class="dash-options-list-option{selected}{inline}">'
            '<span class="dash-options-list-option-wrapper">'
            f'<input type="{kind}" class="dash-options-list-option-checkbox '
            f'{html.escape(props.get("inputClassName") or "")}" tabindex="-1"{checked}></span>'
            f'<span class="dash-options-list-option-text"><span>'
            f"{_children(option.get('label'))}</span></span></label>"
        )
    own = "dash-checklist" if kind == "checkbox" else "dash-radioitems"
    return _element(
        "div",
        {"id": props.get("id"), "className": props.get("className"), "style": props.get("style")},
        "".join(items),
        f"dash-options-list {own}",
    )


def _number_text(value: Any) -> str:
    """A value as the browser writes it in an input: 0.0 as "0", 0.6 as "0.6"."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _input(component: Component) -> str:
    props = component.to_plotly_json()["props"]
    value = props.get("value")
    attributes = {
        "id": props.get("id"),
        "type": props.get("type") or "text",
        "placeholder": props.get("placeholder"),
        "value": None if value is None else _number_text(value),
    }
    inner = f'<input class="dash-input-element" readonly tabindex="-1"{_attributes(attributes)}>'
    return _element(
        "div",
        {"className": props.get("className"), "style": props.get("style")},
        inner,
        "dash-input-container dash-input",
    )


def _dropdown(component: Component) -> str:
    props = component.to_plotly_json()["props"]
    value = props.get("value")
    shown = ", ".join(map(str, value)) if isinstance(value, list) else value
    text = (
        f'<span class="dash-dropdown-value">{html.escape(str(shown))}</span>'
        if shown
        else '<span class="dash-dropdown-value dash-dropdown-placeholder">'
        f"{html.escape(str(props.get('placeholder') or ''))}</span>"
    )
    button = _element(
        "button",
        {
            "id": props.get("id"),
            "className": props.get("className"),
            "style": props.get("style"),
            "type": "button",
        },
        f'<span class="dash-dropdown-grid-container dash-dropdown-trigger">{text}</span>',
        "dash-dropdown",
    )
    return f'<div class="dash-dropdown-wrapper">{button}</div>'


def _slider(component: Component) -> str:
    props = component.to_plotly_json()["props"]
    low, high = props.get("min") or 0, props.get("max") or 1
    value = props.get("value") or low
    share = 0.0 if high == low else (value - low) / (high - low) * 100
    return (
        '<div class="dash-slider-container"><div class="dash-slider-wrapper">'
        '<span class="dash-slider-root" style="position:relative">'
        f'<span class="dash-slider-track"><span class="dash-slider-range" '
        f'style="left:0%;right:{100 - share:.1f}%"></span></span>'
        f'<span style="position:absolute;left:calc({share:.1f}% + 10px);'
        'transform:translateX(-50%)"><span class="dash-slider-thumb"></span></span>'
        "</span></div></div>"
    )


def _nothing(_component: Component) -> str:
    return ""


def _link(component: Component) -> str:
    props = component.to_plotly_json()["props"]
    return _element(
        "a",
        {
            "id": props.get("id"),
            "href": props.get("href"),
            "className": props.get("className"),
            "style": props.get("style"),
            "title": props.get("title"),
        },
        _children(props.get("children")),
    )


def _loading(component: Component) -> str:
    """A loading wrapper as Dash 4 draws it when nothing is loading: its children in a div
    (``parent_className`` / ``parent_style``)."""
    props = component.to_plotly_json()["props"]
    return _element(
        "div",
        {"className": props.get("parent_className"), "style": props.get("parent_style")},
        _children(props.get("children")),
    )


#: dcc components drawn as Dash 4 draws them (looks only: read-only, no ids;
#: ``assets/first-paint.css`` gives them the styles Dash's scripts would).
CORE: dict[str, Callable[[Component], str]] = {
    "Link": _link,
    "Checklist": lambda c: _options(c, "checkbox"),
    "RadioItems": lambda c: _options(c, "radio"),
    "Input": _input,
    "Dropdown": _dropdown,
    "Slider": _slider,
    "Store": _nothing,
    "Location": _nothing,
    "Interval": _nothing,
    "Download": _nothing,
    "Tooltip": _nothing,
    "Loading": _loading,
}


def static_html(component: Component | Raw | Any) -> str:
    """``component`` (a Dash tree) as static HTML: html components as their elements (without
    Dash-only props), dcc controls as Dash 4 draws them (:data:`CORE`, read-only), stores
    and timers as nothing, any other component as an empty ``div`` with its class and style
    (its place kept, e.g. a grid's height); :class:`Raw` children as they are."""
    if not isinstance(component, Component):
        return _children(component)
    namespace, kind = component._namespace, component._type
    props = component.to_plotly_json()["props"]
    if namespace == "dash_html_components":
        tag = TAGS.get(kind, kind.lower())
        return _element(tag, props, _children(getattr(component, "children", None)))
    if namespace == "dash_core_components" and kind in CORE:
        return CORE[kind](component)
    return _element(
        "div",
        {"id": props.get("id"), "className": props.get("className"), "style": props.get("style")},
    )


#: Where the scripts the first paint puts inline in a page live: ``assets/inline/``, which Dash
#: does not put in the pages' own script tags (``assets_path_ignore`` in
#: :func:`dash_insight.web.application.create_app`).
INLINE_FOLDER = "inline"
#: Starts the scripts held in ``<template id=SCRIPTS_ID>`` (see :func:`_held_scripts`).
LOADER_FILE = "first-paint-loader.js"
#: Gives the copy's shadow root (``div#OVERLAY_ID``) the page's stylesheets.
ADOPT_STYLES_FILE = "first-paint-styles.js"


@dataclass(frozen=True)
class InlineScripts:
    """The text of the first paint's inline scripts, as the pages hold them."""

    loader: str
    adopt_styles: str

    def csp_sources(self) -> tuple[str, ...]:
        """The ``script-src`` sources that allow them (their sha256)."""
        return (csp_hash(self.loader), csp_hash(self.adopt_styles))


def csp_hash(source: str) -> str:
    """The CSP hash source (``'sha256-...'``) allowing an inline script whose text is
    ``source``."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def read_inline_scripts(assets_folder: str) -> InlineScripts | None:
    """The first paint's inline scripts from ``<assets_folder>/inline/``; None (and a warning:
    pages are then served as Dash serves them) when they cannot be read."""
    folder = Path(assets_folder) / INLINE_FOLDER
    try:
        return InlineScripts(
            loader=(folder / LOADER_FILE).read_text(encoding="utf-8"),
            adopt_styles=(folder / ADOPT_STYLES_FILE).read_text(encoding="utf-8"),
        )
    except OSError as error:
        LOG.warning("pages are served without their first paint: %s", error)
        return None


def _held_scripts(scripts: str, renderer: str, loader: str) -> str | None:
    """Dash's script tags in a ``<template>`` and the ``loader`` (:data:`LOADER_FILE`) that
    starts them after the first paint: the external ones in order, then the inline ones
    (clientside functions, then the renderer's start). None when a tag is neither a plain
    external nor a plain inline script (left as Dash wrote it)."""
    tags = re.findall(r"<script\b[^>]*>.*?</script>", scripts, flags=re.S)
    plain = r'<script src="[^"]+"></script>|<script>(?:(?!</script>).)*</script>'
    if not tags or any(not re.fullmatch(plain, t, flags=re.S) for t in tags):
        return None
    return f'<template id="{SCRIPTS_ID}">{scripts}{renderer}</template><script>{loader}</script>'


def _overlay(body: str, scripts: Sequence[str], adopt_styles: str) -> str:
    """The copy over the page, in a declarative shadow root given the page's stylesheets
    (``adopt_styles``, :data:`ADOPT_STYLES_FILE`), and a preload of each of Dash's
    ``scripts`` (fetched while the copy is painted)."""
    preloads = "".join(
        f'<link rel="preload" as="script" href="{html.escape(src)}">' for src in scripts
    )
    return (
        f'{preloads}<div id="{OVERLAY_ID}" aria-hidden="true" '
        f'data-longest-ms="{LONGEST_SHOWN_MS}" '
        'style="position:absolute;top:0;left:0;right:0;min-height:100vh;z-index:2000;'
        # contain: the page mounting below does not lay the copy out again
        'pointer-events:none;contain:layout paint style">'
        '<template shadowrootmode="open"><div class="di-first-paint-body">'
        f"{body}</div></template></div><script>{adopt_styles}</script>"
    )


def install(
    app: dash.Dash,
    nav: Sequence[NavLink],
    first_paint: Callable[[str, str], Any | None],
    top_bar: Callable[[dash.Dash, Sequence[NavLink]], Component],
) -> tuple[str, ...]:
    """Answer each page URL with its first screen painted (see the module's docstring):
    ``first_paint(pathname, search)`` gives the page's static tree, or None for a page that
    has none; ``top_bar`` draws the frame's top bar. Returns the ``script-src`` sources that
    allow the inline scripts this adds to the pages (:meth:`InlineScripts.csp_sources`)."""
    interpolate: Callable[..., str] = app.interpolate_index
    inline = read_inline_scripts(app.config.assets_folder)

    def interpolate_index(**kwargs: Any) -> str:
        if inline is not None:
            kwargs = _with_first_screen(
                kwargs, inline, lambda: _first_screen(first_paint, app, nav, top_bar)
            )
        page = interpolate(**kwargs)
        if theme.request_theme() != theme.DEFAULT_THEME:
            page = re.sub(
                r"<html(?=[\s>])", f'<html data-theme="{theme.request_theme()}"', page, count=1
            )
        return page

    app.interpolate_index = interpolate_index  # type: ignore[method-assign,assignment]
    return () if inline is None else inline.csp_sources()


def _with_first_screen(
    parts: dict[str, Any], inline: InlineScripts, draw: Callable[[], str | None]
) -> dict[str, Any]:
    """Dash's parts of a page (``interpolate_index``'s keywords) with the first screen
    ``draw()`` paints over it and Dash's scripts held until after that paint; ``parts`` as
    they are when the scripts cannot be held or the page has no first screen."""
    held = _held_scripts(parts.get("scripts", ""), parts.get("renderer", ""), inline.loader)
    painted = None if held is None else draw()
    if painted is None:
        return parts
    sources = re.findall(r'<script src="([^"]+)"></script>', parts.get("scripts", ""))
    entry = _overlay(painted, sources, inline.adopt_styles) + parts.get("app_entry", "")
    return {**parts, "app_entry": entry, "scripts": held, "renderer": ""}


def _first_screen(
    first_paint: Callable[[str, str], Any | None],
    app: dash.Dash,
    nav: Iterable[NavLink],
    top_bar: Callable[[dash.Dash, Sequence[NavLink]], Component],
) -> str | None:
    if not flask.has_request_context():
        return None
    request = flask.request
    search = "?" + request.query_string.decode("latin-1") if request.query_string else ""
    # The URL as the browser has it (a proxy in front may have stripped a prefix).
    routes, requests = app.config.routes_pathname_prefix, app.config.requests_pathname_prefix
    pathname = (
        requests + request.path[len(routes) :] if request.path.startswith(routes) else request.path
    )
    try:
        tree = first_paint(pathname, search)
        if tree is None:
            return None
        return (
            static_html(top_bar(app, list(nav)))
            + f'<main class="di-page">{static_html(tree)}</main>'
        )
    except Exception:  # the page then starts as Dash starts it
        LOG.exception(
            "first paint of %s%s failed; the page is served without it", request.path, search
        )
        return None
