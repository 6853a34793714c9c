"""The small files of ``assets/`` as a few content-named files (issue 37 item 2).

Dash writes each ``.js`` and ``.css`` file of ``assets/`` into every page as its own element
(``/assets/<file>?m=<modification time>``): a page asked for 25 scripts and 7 stylesheets of
0.4-60 kB, which Chrome fetches six at a time over HTTP/1.1 before it runs any of them. Here
each run of such files that Dash writes one after another (its order: alphabetical) is served
as one file, their texts joined in that order, named by the sha256 of what it holds
(``/assets/di-bundle-<sha256>.js``; :class:`AssetBundles`) and kept a year, immutable: a
changed file makes a new name, and a returning browser runs the scripts from its cache
without asking. The runs are cut at the scripts :mod:`~dash_insight.web.page_bundles` leaves
out of some pages (the plotly.js builds, which stay files of their own), so that every page's
runs are runs known when the app starts: any process of a server answers any bundle a page
of another one names. The files left alone (the plotly.js builds) are linked with their
content's sha256 instead of their modification time (Dash's ``?m=``).

``assets/`` stays the source: the bundles are read from its files when the app starts (the
files are served as they are too). Under Dash's hot reload (``debug=True``) the pages are left
as Dash writes them, each file its own element, so that an edited stylesheet or script is
reloaded as Dash does. A page whose scripts are not exactly a sequence of known runs keeps
Dash's elements for them. The bundles are served from the assets' folder path (stylesheets'
``url()`` and the scripts' own URLs resolve as from the files; ``assets/graph-layout.js``
finds ``vendor/`` beside it), so the pages' Content-Security-Policy (``script-src 'self'``)
allows them as it allows the files.
"""

from __future__ import annotations

import hashlib
import html
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import flask

from dash_insight.web.first_paint import fill, read_template

LOG = logging.getLogger(__name__)

#: The file name of a bundle below the assets' URL: its kind's extension after its digest.
NAME_PREFIX = "di-bundle-"
#: A year, as Dash gives its fingerprinted component bundles; the name never holds other bytes.
MAX_AGE_SECONDS = 31_536_000
#: The kinds of files joined, with their answers' media types.
MEDIA_TYPES: Mapping[str, str] = {"js": "text/javascript", "css": "text/css"}
#: Written between two joined files: a file's last line may be a ``//`` comment or lack its
#: ``;`` (for scripts), and a stylesheet's last rule its newline.
SEPARATOR = {"js": b"\n;\n", "css": b"\n"}
#: Characters of the sha256 (hex) in a name: 64 bits, as a fingerprint not a signature.
DIGEST_CHARS = 16

#: The element of an asset of each kind, as Dash writes it (``{%href%}``: its URL; in
#: ``dash_insight/web/templates/``).
TEMPLATES: Mapping[str, str] = {"js": "asset-script.html", "css": "asset-stylesheet.html"}
_TEMPLATE = {kind: read_template(name) for kind, name in TEMPLATES.items()}
#: Dash's element of an asset of each kind: the template, its URL ``url?m=<fingerprint>``.
_ELEMENT = {
    kind: re.compile(
        "^" + re.escape(template).replace(re.escape("{%href%}"), r'(?P<url>[^"?]*)\?m=[^"]*') + "$"
    )
    for kind, template in _TEMPLATE.items()
}


@dataclass(frozen=True)
class Bundle:
    """One served file: ``files`` (paths below the assets' folder) joined, named ``name``."""

    kind: str
    files: tuple[str, ...]
    body: bytes

    @property
    def name(self) -> str:
        digest = hashlib.sha256(self.body).hexdigest()[:DIGEST_CHARS]
        return f"{NAME_PREFIX}{digest}.{self.kind}"


def digest(body: bytes) -> str:
    """The fingerprint of a file's bytes (its sha256, :data:`DIGEST_CHARS` hex digits)."""
    return hashlib.sha256(body).hexdigest()[:DIGEST_CHARS]


def runs(files: Sequence[str], alone: Callable[[str], bool]) -> list[tuple[str, ...]]:
    """``files`` (in Dash's order) cut into runs of neighbours, each file for which ``alone``
    is true left out and ending a run."""
    cut: list[tuple[str, ...]] = []
    run: list[str] = []
    for name in files:
        if alone(name):
            if run:
                cut.append(tuple(run))
            run = []
        else:
            run.append(name)
    if run:
        cut.append(tuple(run))
    return cut


def join(folder: str, files: Iterable[str], kind: str) -> bytes:
    """The bytes of ``files`` of ``folder``, in order, each ending in :data:`SEPARATOR`."""
    parts = []
    for name in files:
        with open(os.path.join(folder, name), "rb") as file:
            parts.append(file.read().rstrip(b"\n") + SEPARATOR[kind])
    return b"".join(parts)


class AssetBundles:
    """The bundles of an assets folder's top-level files (read at construction) and the
    rewriting of Dash's ``{%scripts%}`` and ``{%css%}`` parts to link them. ``alone(url)``:
    the asset URLs (without query) that stay files of their own; ``url_of(path)``: an asset's
    URL as the pages link it (Dash's ``get_asset_url``)."""

    def __init__(
        self, folder: str, alone: Callable[[str], bool], url_of: Callable[[str], str]
    ) -> None:
        self.folder = folder
        self.url_of = url_of
        names = sorted(
            name for name in os.listdir(folder) if os.path.isfile(os.path.join(folder, name))
        )
        self.by_name: dict[str, Bundle] = {}
        #: Each run's first file's URL -> the run's files' URLs and its bundle.
        self._starting: dict[str, tuple[tuple[str, ...], Bundle]] = {}
        for kind in MEDIA_TYPES:
            of_kind = [name for name in names if name.endswith("." + kind)]
            for run in runs(of_kind, lambda name: alone(url_of(name))):
                bundle = Bundle(kind, run, join(folder, run, kind))
                self.by_name[bundle.name] = bundle
                self._starting[url_of(run[0])] = (tuple(url_of(f) for f in run), bundle)
        #: Each top-level file's URL -> its URL with its content's fingerprint.
        self.fingerprinted = {
            url_of(name): f"{url_of(name)}?m={digest(_read(folder, name))}" for name in names
        }

    def rewrite(self, part: str, kind: str) -> str:
        """Dash's ``{%scripts%}`` (``kind`` "js") or ``{%css%}`` ("css") part (one element a
        line) with each known run of assets' elements replaced by its bundle's and every other
        asset linked by its content's fingerprint."""
        lines = part.split("\n")
        urls = [_asset_url(line, kind) for line in lines]
        out: list[str] = []
        at = 0
        while at < len(lines):
            known = self._starting.get(urls[at] or "")
            if known is not None and tuple(urls[at : at + len(known[0])]) == known[0]:
                out.append(_element(self.url_of(known[1].name), kind))
                at += len(known[0])
                continue
            url = urls[at]
            if url is not None and url in self.fingerprinted:
                out.append(_element(self.fingerprinted[url], kind))
            else:
                out.append(lines[at])
            at += 1
        return "\n".join(out)

    def answer(self, name: str) -> flask.Response:
        """The bundle named ``name``, kept :data:`MAX_AGE_SECONDS` and immutable; 404 for a
        name no bundle has."""
        bundle = self.by_name.get(name)
        if bundle is None:
            flask.abort(404)
        response = flask.Response(bundle.body, mimetype=MEDIA_TYPES[bundle.kind])
        response.cache_control.public = True
        response.cache_control.max_age = MAX_AGE_SECONDS
        response.cache_control.immutable = True
        response.set_etag(bundle.name)
        response.make_conditional(flask.request)  # 304 to a browser that has it
        return response


def _read(folder: str, name: str) -> bytes:
    with open(os.path.join(folder, name), "rb") as file:
        return file.read()


def _asset_url(line: str, kind: str) -> str | None:
    found = _ELEMENT[kind].match(line.strip())
    return None if found is None else html.unescape(found.group("url"))


def _element(url: str, kind: str) -> str:
    return fill(_TEMPLATE[kind], {"href": html.escape(url)})
