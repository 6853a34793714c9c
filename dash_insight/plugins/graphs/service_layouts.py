"""Graph canvases laid out once, kept in the workspace (issue 37 item 2: "the graph laid out once
and cached").

The browser lays a graph canvas (the computational graph scope by scope, the data graph in one
piece) out with ELK (``assets/graph-layout.js`` and ``assets/graph-scopes.js``): a Web Worker
that compiles 1.6 MB of ELK and runs it, on every load of the page. The picture of a canvas
(where each box, edge piece and label goes) depends on the canvas's contents only, which the
page digests into a key; the page keeps each picture it laid out here under that key (``PUT``)
and asks for it before it loads ELK (``GET``). A graph opened again, in any browser, is drawn
without ELK.

The store keeps the pictures as the JSON they came in (re-encoded once parsed and checked: an
object of the parts a picture has), at most :data:`MAX_PICTURE_BYTES` each and
:data:`SIZE_LIMIT` in all, the least recently stored dropped first (diskcache's eviction).
Nothing read back is run: the page parses it as JSON and checks that it places every node
before it draws it, else lays the canvas out again.
"""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any

import diskcache

from dash_insight.core.private_files import PRIVATE_DIRECTORY, restrict

#: A picture's key as the page writes it: its layout's version and the digest of its contents.
KEY = re.compile(r"[0-9a-z][0-9a-z.-]{0,63}")
#: The largest picture kept (the 1,500-node view's is about 1 MB).
MAX_PICTURE_BYTES = 8 << 20
#: The pictures kept in all.
SIZE_LIMIT = 256 << 20
#: What every picture holds: objects by id (``graph-scopes.js``' picture of a canvas has its
#: ``pieces`` and ``labels`` too, ``graph-layout.js``' of a data graph its ``routes``).
PARTS = ("boxes", "centres")
FOLDER = "graph-layouts"


class PictureError(ValueError):
    """A key or a picture the store refuses (the REST route answers 400)."""


def checked_key(key: Any) -> str:
    """``key`` when it is one (:data:`KEY`), else PictureError."""
    if not isinstance(key, str) or not KEY.fullmatch(key):
        raise PictureError("key: 1-64 characters of a-z, 0-9, '.' and '-'")
    return key


def checked_picture(picture: Any) -> str:
    """``picture`` (parsed JSON) as the JSON text kept: an object whose :data:`PARTS` are
    objects; PictureError otherwise."""
    if not isinstance(picture, dict) or not all(isinstance(picture.get(p), dict) for p in PARTS):
        raise PictureError(f"a picture is a JSON object with {' and '.join(PARTS)} (objects)")
    return json.dumps(picture, separators=(",", ":"), allow_nan=False)


class LayoutStore:
    """The pictures of graph canvases in ``<workspace>/graph-layouts`` (opened on first use)."""

    def __init__(self, workspace: str | os.PathLike[str]) -> None:
        self.directory = os.path.join(os.fspath(workspace), FOLDER)
        self._cache: diskcache.Cache | None = None
        self._lock = threading.Lock()

    def _opened(self) -> diskcache.Cache:
        with self._lock:
            if self._cache is None:
                os.makedirs(self.directory, exist_ok=True)
                restrict(self.directory, PRIVATE_DIRECTORY)
                self._cache = diskcache.Cache(
                    self.directory, size_limit=SIZE_LIMIT, eviction_policy="least-recently-stored"
                )
            return self._cache

    def get(self, key: str) -> str | None:
        """The picture kept under ``key`` (JSON text), None when there is none."""
        text = self._opened().get(checked_key(key))
        return text if isinstance(text, str) else None

    def put(self, key: str, picture: Any) -> None:
        """Keep ``picture`` (parsed JSON, :func:`checked_picture`) under ``key``."""
        text = checked_picture(picture)
        if len(text) > MAX_PICTURE_BYTES:
            raise PictureError(f"a picture is at most {MAX_PICTURE_BYTES} bytes")
        self._opened().set(checked_key(key), text)

    def close(self) -> None:
        with self._lock:
            if self._cache is not None:
                self._cache.close()
                self._cache = None
