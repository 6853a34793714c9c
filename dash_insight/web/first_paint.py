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
- the copy comes ``hidden`` and is shown by the script that gives its shadow root the page's
  stylesheets (``assets/inline/first-paint-styles.js``), so that it is laid out once, styled
  (a frame drawn before that script ran laid the unstyled copy out in full, and its cards
  were laid out once more for ``content-visibility``, ``assets/first-paint.css``);
- Dash's scripts are held in a ``<template>`` and started once the frame that drew the copy is
  done (``assets/inline/first-paint-loader.js``, told by the styles' script), so the browser
  paints the copy before it compiles them;
- ``assets/first-paint.js`` removes the copy once Dash's page shows as much (the charts on its
  first screen drawn), or :data:`LONGEST_SHOWN_MS` after Dash's layout came into the page.

The page's HTML is the templates' (``dash_insight/web/templates/``, :class:`IndexPage`; the dcc
controls of the copy too, :data:`CONTROL_TEMPLATES`), filled through Dash's public hooks only:
``app.index_string`` and an ``interpolate_index`` override
(:class:`dash_insight.web.application.DashInsightApp`), with the parts Dash documents for it
(:data:`DASH_PARTS`); components are read in their public JSON form (``to_plotly_json``).
``tests/web/test_first_paint.py`` fails when the installed Dash no longer provides them, or no
longer draws its controls with the classes the templates use. The two scripts it puts inline
(the loader and the copy's styles) are ``assets/inline/``'s; their sha256 is in the pages'
Content-Security-Policy (:meth:`IndexPage.csp_sources`). Pages without a ``first_paint`` are
answered as Dash answers them. Every page's head preloads the layout and the callbacks'
dependencies (:data:`RENDERER_REQUESTS`): Dash's renderer asks for them only once all its
scripts have run, and its ``fetch`` gets the preload's answer, computed meanwhile. The
``<html>`` element of every page carries the language and the theme of the request
(``{%html_attributes%}``), so a dark page is dark from its first paint.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import dash
import flask
from dash.development.base_component import Component

from dash_insight.web.components import native_inputs
from dash_insight.web.plugin import NavLink

LOG = logging.getLogger(__name__)

#: The copy is removed this long after Dash's layout came into the page even if the page never
#: shows its charts (counted from the layout, not from the answer: on a loaded machine Dash's
#: start alone took longer, and the copy went while the page's charts were still empty).
LONGEST_SHOWN_MS = 10000
#: The ids :data:`FIRST_PAINT_TEMPLATE` gives the copy and the held scripts (the inline
#: scripts find them by these).
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


#: Dash draws a list of this many options or more a screenful at a time (a name picker of
#: 10,000 tags); the copy draws its first :data:`LONG_LIST_SHOWN` (more than a screenful of
#: the pickers' eight-row box), not 10,000 rows of HTML.
LONG_LIST = 100
LONG_LIST_SHOWN = 20


def _options(component: Component, kind: str) -> str:
    """A checklist or radio list as Dash 4 renders it (its classes, for its look); of a list of
    :data:`LONG_LIST` options or more, the first :data:`LONG_LIST_SHOWN`."""
    props = component.to_plotly_json()["props"]
    value = props.get("value")
    chosen = set(value) if isinstance(value, list) else {value}
    inline = " dash-radioitems-inline" if kind == "radio" and props.get("inline") else ""
    items = []
    options = props.get("options") or []
    if len(options) >= LONG_LIST:
        options = options[:LONG_LIST_SHOWN]
    for option in options:
        if not isinstance(option, dict):
            option = {"label": option, "value": option}
        checked = option.get("value") in chosen
        parts = {
            "selected": " selected" if checked else "",
            "inline": inline,
            "kind": kind,
            "input_class": html.escape(props.get("inputClassName") or ""),
            "checked": " checked" if checked else "",
            "label": _children(option.get("label")),
        }
        items.append(fill(control_template("option"), parts))
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
    inner = fill(control_template("input"), {"attributes": _attributes(attributes)})
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
    button = {
        "id": props.get("id"),
        "className": props.get("className"),
        "style": props.get("style"),
        "type": "button",
    }
    parts = {
        "attributes": _attributes(button, "dash-dropdown"),
        "placeholder": "" if shown else " dash-dropdown-placeholder",
        "text": html.escape(str(shown if shown else props.get("placeholder") or "")),
    }
    return fill(control_template("dropdown"), parts)


def _slider(component: Component) -> str:
    props = component.to_plotly_json()["props"]
    low, high = props.get("min") or 0, props.get("max") or 1
    value = props.get("value") or low
    share = 0.0 if high == low else (value - low) / (high - low) * 100
    return fill(control_template("slider"), {"share": f"{share:.1f}", "rest": f"{100 - share:.1f}"})


def _range(props: dict[str, Any]) -> str:
    """A :class:`~dash_insight.web.components.native_inputs.RangeInput`: the range input it is."""
    shown = {name: props.get(name) for name in ("min", "max", "step", "disabled", "className")}
    low, high, value = props["min"], props["max"], props["value"]
    fill = (value - low) / (high - low) * 100 if high > low else 0
    style = {"--di-range-fill": f"{fill:g}%"}  # as assets/native-inputs.js fills its track
    return _element(
        "input", {"type": "range", **shown, "value": _number_text(value), "style": style}
    )


def _select(props: dict[str, Any]) -> str:
    """A :class:`~dash_insight.web.components.native_inputs.SelectInput`: the select it is,
    with its chosen option (or its placeholder) only, which is all it shows."""
    value = props.get("value")
    labels = [
        label for label, v in native_inputs.option_pairs(props.get("options") or []) if v == value
    ]
    shown = labels[0] if labels else props.get("placeholder") or ""
    attributes = {name: props.get(name) for name in ("className", "style", "title", "disabled")}
    return _element("select", attributes, _element("option", {}, html.escape(shown)))


#: The components of :mod:`~dash_insight.web.components.native_inputs`, by type.
NATIVE: dict[str, Callable[[dict[str, Any]], str]] = {"RangeInput": _range, "SelectInput": _select}


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
    written = component.to_plotly_json()  # Dash's public form: namespace, type and props
    namespace, kind, props = written["namespace"], written["type"], written["props"]
    if namespace == "dash_html_components":
        tag = TAGS.get(kind, kind.lower())
        return _element(tag, props, _children(getattr(component, "children", None)))
    if namespace == "dash_core_components" and kind in CORE:
        return CORE[kind](component)
    if namespace == native_inputs.NAMESPACE and kind in NATIVE:
        return NATIVE[kind](props)
    return _element(
        "div",
        {"id": props.get("id"), "className": props.get("className"), "style": props.get("style")},
    )


#: Where the scripts the first paint puts inline in a page live: ``assets/inline/``, which Dash
#: does not put in the pages' own script tags (``assets_path_ignore`` in
#: :func:`dash_insight.web.application.create_app`).
INLINE_FOLDER = "inline"
#: Starts the scripts held in ``<template id=SCRIPTS_ID>`` (:data:`FIRST_PAINT_TEMPLATE`).
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


#: The pages' HTML outside Dash's components (``dash_insight/web/templates/``, read at start).
TEMPLATES = Path(__file__).with_name("templates")
#: Every page's index (``app.index_string``): Dash's placeholders and ``{%html_attributes%}``.
INDEX_TEMPLATE = "index.html"
#: The index of a page answered with its first screen painted.
FIRST_PAINT_TEMPLATE = "index-first-paint.html"
PRELOAD_TEMPLATE = "preload-script.html"
#: A preload of a request of Dash's renderer (``{%request_preloads%}`` of both indexes).
REQUEST_PRELOAD_TEMPLATE = "preload-request.html"
#: The requests Dash's renderer starts with once its scripts have run (below the app's
#: ``requests_pathname_prefix``): preloaded from the page's head, they are answered while the
#: scripts load instead of after (the layout is the page's own, its answer 0.1-0.3 s).
RENDERER_REQUESTS = ("_dash-layout", "_dash-dependencies")
FIRST_SCREEN_TEMPLATE = "first-screen.html"
#: The parts of a page Dash gives ``interpolate_index`` (its documented keywords, the
#: ``{%...%}`` placeholders of ``index_string``).
DASH_PARTS = ("metas", "title", "css", "config", "scripts", "app_entry", "favicon", "renderer")

_PLACEHOLDER = re.compile(r"\{%([a-z_]+)%\}")


def read_template(name: str) -> str:
    """A template of :data:`TEMPLATES` (without its final newline)."""
    return (TEMPLATES / name).read_text(encoding="utf-8").rstrip("\n")


#: The dcc controls drawn from a template (``control-<name>.html``: the markup Dash 4's
#: scripts give them, with their classes; tests/web/test_first_paint.py checks that the
#: installed Dash still uses those classes).
CONTROL_TEMPLATES = ("option", "input", "dropdown", "slider")


@functools.cache
def control_template(name: str) -> str:
    """The template of a dcc control (:data:`CONTROL_TEMPLATES`), read once."""
    return read_template(f"control-{name}.html")


def fill(template: str, parts: Mapping[str, str]) -> str:
    """``template`` with each ``{%name%}`` placeholder (Dash's syntax) replaced by
    ``parts[name]`` in one pass (a value holding such text is never filled again); a
    placeholder without a part is left as it is."""
    return _PLACEHOLDER.sub(lambda found: parts.get(found.group(1), found.group(0)), template)


class _ScriptTags(HTMLParser):
    """The tags of Dash's ``{%scripts%}`` part: plain ``<script src>`` and ``<script>``
    elements only, else :attr:`plain` is False."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sources: list[str] = []
        self.plain = True
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "script" or self._inside or (attrs and [name for name, _ in attrs] != ["src"]):
            self.plain = False
        elif attrs:
            self.sources.append(attrs[0][1] or "")
        self._inside = True

    def handle_endtag(self, tag: str) -> None:
        if tag != "script":
            self.plain = False
        self._inside = False

    def handle_data(self, data: str) -> None:
        if not self._inside and data.strip():
            self.plain = False


def external_scripts(scripts: str) -> list[str] | None:
    """The ``src`` of each external script of Dash's ``{%scripts%}`` part, in order; None
    when the part is empty or holds anything but plain external and inline scripts (such a
    page is left as Dash writes it)."""
    tags = _ScriptTags()
    tags.feed(scripts)
    tags.close()
    return tags.sources if tags.plain and tags.sources else None


@dataclass(frozen=True)
class IndexPage:
    """Writes every page's index from :data:`TEMPLATES`: with its first screen painted over
    it when ``first_screen()`` draws one (and the inline scripts could be read), else as
    Dash writes it (``index_template``, the app's ``index_string``)."""

    index_template: str
    first_paint_template: str
    preload_template: str
    inline: InlineScripts | None
    first_screen: Callable[[], str | None]
    #: The preloads of :data:`RENDERER_REQUESTS` (``{%request_preloads%}``).
    request_preloads: str = ""

    @classmethod
    def read(
        cls,
        inline: InlineScripts | None,
        first_screen: Callable[[], str | None],
        requests_prefix: str = "/",
    ) -> IndexPage:
        """The templates of :data:`TEMPLATES`; ``requests_prefix``: the app's
        ``requests_pathname_prefix``, below which Dash's renderer makes its requests."""
        preload = read_template(REQUEST_PRELOAD_TEMPLATE)
        return cls(
            read_template(INDEX_TEMPLATE),
            read_template(FIRST_PAINT_TEMPLATE),
            read_template(PRELOAD_TEMPLATE),
            inline,
            first_screen,
            "".join(
                fill(preload, {"href": html.escape(requests_prefix + path)})
                for path in RENDERER_REQUESTS
            ),
        )

    def csp_sources(self) -> tuple[str, ...]:
        """The ``script-src`` sources of the inline scripts the pages hold."""
        return () if self.inline is None else self.inline.csp_sources()

    def render(self, parts: Mapping[str, str], html_attributes: str) -> str:
        """The page of Dash's ``parts`` (``interpolate_index``'s keywords); ``html_attributes``
        go on its ``<html>`` element."""
        parts = {
            **parts,
            "html_attributes": html_attributes,
            "request_preloads": self.request_preloads,
        }
        painted = self._painted(parts)
        return fill(self.index_template, parts) if painted is None else painted

    def _painted(self, parts: dict[str, str]) -> str | None:
        if self.inline is None:
            return None
        sources = external_scripts(parts.get("scripts", ""))
        screen = None if sources is None else self.first_screen()
        if sources is None or screen is None:
            return None
        preloads = "".join(fill(self.preload_template, {"href": html.escape(s)}) for s in sources)
        painted = {
            **parts,
            "preloads": preloads,
            "longest_shown_ms": str(LONGEST_SHOWN_MS),
            "first_screen": screen,
            "adopt_styles": self.inline.adopt_styles,
            "loader": self.inline.loader,
        }
        return fill(self.first_paint_template, painted)


def install(
    app: dash.Dash,
    nav: Sequence[NavLink],
    first_paint: Callable[[str, str], Any | None],
    top_bar: Callable[[dash.Dash, Sequence[NavLink]], Component],
) -> IndexPage:
    """Answer each page URL with its first screen painted (see the module's docstring):
    ``first_paint(pathname, search)`` gives the page's static tree, or None for a page that
    has none; ``top_bar`` draws the frame's top bar. Sets ``app.index_string`` (Dash checks
    its placeholders) and returns the :class:`IndexPage` whose ``render`` the app's
    ``interpolate_index`` calls (as Dash documents overriding it)."""
    inline = read_inline_scripts(app.config.assets_folder)
    screen = read_template(FIRST_SCREEN_TEMPLATE)
    page = IndexPage.read(
        inline,
        lambda: _first_screen(first_paint, app, nav, top_bar, screen),
        app.config.requests_pathname_prefix,
    )
    app.index_string = page.index_template
    return page


def request_pathname(app: dash.Dash) -> str:
    """The path of the request being answered as the browser has it (a proxy in front may
    have stripped a prefix)."""
    path = flask.request.path
    routes, requests = app.config.routes_pathname_prefix, app.config.requests_pathname_prefix
    return requests + path[len(routes) :] if path.startswith(routes) else path


def _first_screen(
    first_paint: Callable[[str, str], Any | None],
    app: dash.Dash,
    nav: Iterable[NavLink],
    top_bar: Callable[[dash.Dash, Sequence[NavLink]], Component],
    screen_template: str,
) -> str | None:
    if not flask.has_request_context():
        return None
    request = flask.request
    search = "?" + request.query_string.decode("latin-1") if request.query_string else ""
    pathname = request_pathname(app)
    try:
        tree = first_paint(pathname, search)
        if tree is None:
            return None
        page = fill(screen_template, {"page": static_html(tree)})
        return static_html(top_bar(app, list(nav))) + page
    except Exception:  # the page then starts as Dash starts it
        LOG.exception(
            "first paint of %s%s failed; the page is served without it", request.path, search
        )
        return None
