"""Named views (issue 40 item 8): a page's URL (its path below the app and its query, which
hold the page's whole state) saved under a name, kept in the workspace.

One JSON file per summary base directory (``<workspace>/views/<digest>.json``: a workspace may
serve several folders), written atomically (a temporary file renamed over it), with at most
:data:`MAX_VIEWS` views, names of at most :data:`MAX_NAME_CHARS` printable characters and URLs
of at most :data:`MAX_URL_CHARS`. Web-free: the REST routes and the header's menu
(``web/named_views.py``) use it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dash_insight.core.private_files import make_private_dirs

MAX_VIEWS = 100
MAX_NAME_CHARS = 80
MAX_URL_CHARS = 8192


class ViewError(ValueError):
    """A name or URL that cannot be saved, or a view that does not exist (``missing``)."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class NamedView:
    """A saved view: its ``name``, its ``url`` (path below the app, with its query) and when
    it was saved (seconds since the epoch)."""

    name: str
    url: str
    saved: float


def checked_name(name: Any) -> str:
    """A view's name, stripped: 1 to :data:`MAX_NAME_CHARS` printable characters."""
    if not isinstance(name, str):
        raise ViewError("a view's name is a string")
    name = name.strip()
    if not name:
        raise ViewError("a view needs a name")
    if len(name) > MAX_NAME_CHARS:
        raise ViewError(f"a view's name has at most {MAX_NAME_CHARS} characters")
    if not name.isprintable():
        raise ViewError("a view's name has only printable characters")
    return name


def checked_url(url: Any) -> str:
    """A page's URL below the app: a path starting with one ``/`` (no scheme, no host), its
    query, at most :data:`MAX_URL_CHARS` printable characters."""
    if not isinstance(url, str):
        raise ViewError("a view's URL is a string")
    if len(url) > MAX_URL_CHARS:
        raise ViewError(f"a view's URL has at most {MAX_URL_CHARS} characters")
    if not url.startswith("/") or url.startswith("//") or "\\" in url or not url.isprintable():
        raise ViewError("a view's URL is a path of this app, starting with one /")
    return url


class NamedViews:
    """The named views of one summary base directory, in ``workspace``."""

    def __init__(self, workspace: str | os.PathLike[str], base_dir: str) -> None:
        digest = hashlib.sha1(base_dir.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        self.folder = Path(workspace) / "views"
        self.path = self.folder / f"{digest}.json"
        self._lock = threading.Lock()

    def saved(self) -> list[NamedView]:
        """The views, in the order saved (a file that does not read or decode: none)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        views = []
        for entry in data.get("views", []) if isinstance(data, dict) else []:
            try:
                name, url = checked_name(entry["name"]), checked_url(entry["url"])
                saved = float(entry.get("saved", 0.0))
            except (ViewError, KeyError, TypeError, ValueError):
                continue  # an entry edited by hand into nonsense
            views.append(NamedView(name, url, saved))
        return views[:MAX_VIEWS]

    def save(self, name: Any, url: Any) -> NamedView:
        """Save ``url`` under ``name`` (replacing a view of that name); ViewError for a bad
        name or URL, or when :data:`MAX_VIEWS` views are kept already."""
        view = NamedView(checked_name(name), checked_url(url), time.time())
        with self._lock:
            views = [v for v in self.saved() if v.name != view.name]
            if len(views) >= MAX_VIEWS:
                raise ViewError(f"at most {MAX_VIEWS} views are kept: delete one first")
            self._write([*views, view])
        return view

    def delete(self, name: Any) -> None:
        """Delete the view ``name``; ViewError (``missing``) when there is none."""
        name = checked_name(name)
        with self._lock:
            views = self.saved()
            kept = [v for v in views if v.name != name]
            if len(kept) == len(views):
                raise ViewError(f"no view is named {name}", missing=True)
            self._write(kept)

    def _write(self, views: list[NamedView]) -> None:
        """The file replaced at once: written beside it, then renamed over it."""
        make_private_dirs(str(self.folder))
        text = json.dumps({"views": [asdict(v) for v in views]}, ensure_ascii=False, indent=1)
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".views-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
