"""Each page's document gets the callbacks of its own plugin's pages only (issue 37 item 2).

Dash answers ``_dash-dependencies`` with every callback of the app, and its renderer builds
its callback graph from all of them and matches each against the layout before the first
screen's callbacks run: the images page's 156 components were matched against the 160
callbacks of every page, where its plugin's and the frame's are 34. With its own only
(alternating pairs, fresh Chromium each, medians), the images page's renderer main thread
worked 0.66 -> 0.60 s (8 pairs, load 0.5-1.2) and the profiler's 0.80 -> 0.74 s, drawn
0.98 -> 0.91 s (6 pairs, load 1.2-2.1); the scalars page (47 callbacks with the comparison's)
did not change.

The answer is per page as the layout is (:func:`dash_insight.web.shell.shell_layout`): the
renderer asks for it from the page it opens, so the request's ``Referer`` names the page. A
callback belongs to the pages of the plugin whose page's ``register`` added it
(:func:`by_page`); callbacks added by anything else (the frame, saved views, the comparison
tabs, components that pages of several plugins draw, plugins' installs) are in every answer.
A request without a usable ``Referer``, or with the home page's (:data:`HOME`), gets every
callback, as its layout may then come through the routing callback, which can draw any page.

Such a document can draw its plugin's pages only (:meth:`PageCallbacks.drawable`):
``assets/page-bundles.js`` opens a URL of any other page as a new document
(``data-page-bundles``' ``drawable``, :meth:`PageBundles.html_attribute
<dash_insight.web.page_bundles.PageBundles.html_attribute>`), as it does for a page that
needs a script bundle the document lacks. A URL change within the page (another job, a
control written to the URL) stays in the document. The cost: moving to a page of another
plugin loads a new document where it was one callback's round trip (as moves to a page
that needs another script bundle already did).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dash


def registered(app: dash.Dash, register: Callable[[], None]) -> frozenset[str]:
    """The callbacks ``register()`` adds to ``app``, by their ``output`` key (the key of
    ``app.callback_map`` and of each ``_dash-dependencies`` entry)."""
    before = set(app.callback_map)
    register()
    return frozenset(set(app.callback_map) - before)


def by_page(
    app: dash.Dash, groups: Iterable[Sequence[tuple[str, Callable[[], None]]]]
) -> dict[str, frozenset[str]]:
    """Runs each page's ``register`` (``(path, register)`` pairs, grouped by plugin) and
    gives each page the callbacks its plugin's pages added: a plugin's pages may share
    callbacks that one of them registers (the profiler's three pages, its tabs)."""
    owned: dict[str, frozenset[str]] = {}
    for group in groups:
        added = registered(app, functools.partial(_register_all, group))
        owned.update((path, added) for path, _ in group)
    return owned


def _register_all(group: Sequence[tuple[str, Callable[[], None]]]) -> None:
    for _path, register in group:
        register()


#: The home page's path. Its documents get every callback: the home page's own ``Referer``
#: (the app's root) is also what a page whose address is longer than 4,096 characters sends
#: (browsers cut such a ``Referer`` to the bare origin), whose layout then comes through the
#: routing callback, which can draw any page.
HOME = "/"


@dataclass(frozen=True)
class PageCallbacks:
    """The callbacks (``output`` keys) of each page, by page path (below the app's prefix):
    those its plugin's pages registered (:func:`by_page`); ``requested_page()`` gives the page
    path of the request's ``Referer``, None without a usable one."""

    by_path: Mapping[str, frozenset[str]]
    requested_page: Callable[[], str | None]

    def owned(self) -> frozenset[str]:
        """Every callback that belongs to a page."""
        return frozenset().union(*self.by_path.values())

    def select(self, callbacks: Iterable[Mapping[str, Any]], page: str | None) -> list[Any]:
        """The ``callbacks`` (``_dash-dependencies`` entries) a document of ``page`` gets:
        those of no page and those of ``page`` (a path no page has: those of no page); every
        one when ``page`` is None or :data:`HOME`."""
        if page is None or page == HOME:
            return list(callbacks)
        owned, own = self.owned(), self.by_path.get(page, frozenset())
        return [c for c in callbacks if c["output"] not in owned or c["output"] in own]

    def for_request(self, callbacks: Sequence[Mapping[str, Any]]) -> list[Any]:
        """:meth:`select` for the page of the request's ``Referer``."""
        return self.select(callbacks, self.requested_page())

    def drawable(self, page: str) -> list[str] | None:
        """The pages a document of ``page`` can draw: those whose callbacks it has (every
        page of its plugin, and pages of no callbacks); none for a path no page has; None (any
        page) for :data:`HOME`, whose document has every callback."""
        if page == HOME:
            return None
        own = self.by_path.get(page)
        if own is None:
            return []
        return [path for path, callbacks in self.by_path.items() if callbacks <= own]
