"""Compressed answers (zstd, br, gzip or deflate, as the browser accepts) for everything below
the app's prefix: callback answers, pages, REST answers (streamed ones chunk by chunk), scripts.

Flask-Compress does the work; it is hooked in for the app's own paths only, so a host Flask
app that mounts dash-insight keeps its other routes as they are. Dash's component bundles
(``_dash-component-suites``) and the assets are the same bytes for the life of the process, so
each is compressed once per algorithm and kept (:class:`StaticCache`); every other answer is
compressed as it goes. Flask answers an asset as a stream of its file, which Flask-Compress
compresses chunk by chunk on every request and never keeps (plotly.js's 1.3 MB: 13 ms of the
server's CPU for each page load): such an answer is read whole first, so that it is kept too.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import flask
from flask_compress import Compress

#: Paths whose answers never change while the process runs (fingerprinted bundles, assets).
STATIC_PARTS = ("/_dash-component-suites/", "/assets/")
#: Compressed static answers kept (a bundle in three algorithms is three entries).
STATIC_ENTRIES = 96

#: Flask-Compress settings (a host app's own ``COMPRESS_*`` settings win). zstd level 3 and
#: brotli quality 4 compress JSON about as well as gzip -6 at a fraction of its CPU.
SETTINGS: dict[str, Any] = {
    "COMPRESS_REGISTER": False,  # installed by install() for the app's prefix only
    "COMPRESS_MIMETYPES": [
        "text/html",
        "text/css",
        "text/plain",
        "text/csv",
        "text/javascript",
        "application/javascript",
        "application/json",
        "image/svg+xml",
    ],
    "COMPRESS_MIN_SIZE": 500,
}


class StaticCache:
    """Flask-Compress' cache backend: keeps the compressed bytes of static answers (their key
    names the path) and nothing else (the key of any other answer ends in ``;``)."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str) -> bytes | None:
        return None if key.endswith(";") else self.entries.get(key)

    def set(self, key: str, value: bytes) -> None:
        if key.endswith(";"):
            return
        self.entries[key] = value
        self.entries.move_to_end(key)
        while len(self.entries) > STATIC_ENTRIES:
            self.entries.popitem(last=False)


def static_key(request: flask.Request) -> str:
    """The cache key of a request's answer: its path and query for a GET of a static path,
    "" (not kept) for anything else."""
    if request.method == "GET" and any(part in request.path for part in STATIC_PARTS):
        return request.full_path
    return ""


def install(server: flask.Flask, prefix: str) -> None:
    """Compress the answers to requests below ``prefix`` that ask for it (Accept-Encoding)."""
    for name, value in {
        **SETTINGS,
        "COMPRESS_CACHE_BACKEND": StaticCache,
        "COMPRESS_CACHE_KEY": static_key,
    }.items():
        server.config.setdefault(name, value)
    server.config["COMPRESS_REGISTER"] = False
    compress = Compress(server)

    @server.after_request
    def compressed(response: flask.Response) -> flask.Response:
        if not flask.request.path.startswith(prefix):
            return response
        if response.is_streamed and response.status_code == 200 and static_key(flask.request):
            response.direct_passthrough = False
            response.make_sequence()  # a file read whole: compressed once and kept
        return compress.after_request(response)
