"""Fingerprinted assets from the browser's cache, without asking the server again.

Dash links every file of ``assets/`` as ``/assets/<file>?m=<modification time>``: a changed
file gets a new URL. Flask serves them without a lifetime, so on every full page load the
browser revalidates each one (16 requests answered 304) and runs none of the page's scripts
until the last answer is in: on a busy server that is a few hundred milliseconds of every
page's load. An asset requested with its fingerprint is therefore answered with a year's
lifetime (as Dash answers its fingerprinted component bundles), immutable (a reload asks no
question either); one requested without it keeps Flask's revalidation. The pages link the
files left out of :mod:`~dash_insight.web.asset_bundles`' bundles with their content's
fingerprint in place of Dash's modification time, so a URL never names other bytes.
"""

from __future__ import annotations

import flask

#: The lifetime of a fingerprinted asset: a year, as Dash gives its component bundles.
MAX_AGE_SECONDS = 31_536_000
#: The query parameter Dash adds to an asset's URL (the file's modification time).
FINGERPRINT = "m"


def is_fingerprinted_asset(request: flask.Request, assets_path: str) -> bool:
    """A GET of a file below ``assets_path`` with Dash's fingerprint in its query."""
    return (
        request.method in ("GET", "HEAD")
        and request.path.startswith(assets_path)
        and bool(request.args.get(FINGERPRINT))
    )


def install(server: flask.Flask, assets_path: str) -> None:
    """Fingerprinted answers below ``assets_path`` (``<prefix>assets/``) are kept a year,
    immutable."""

    @server.after_request
    def cache_fingerprinted(response: flask.Response) -> flask.Response:
        if response.status_code in (200, 304) and is_fingerprinted_asset(
            flask.request, assets_path
        ):
            response.cache_control.no_cache = None  # Flask's default for files: revalidate
            response.cache_control.public = True
            response.cache_control.max_age = MAX_AGE_SECONDS
            response.cache_control.immutable = True
        return response
