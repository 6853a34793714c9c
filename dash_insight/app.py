"""``from dash_insight.app import create_app`` (the import path of earlier releases) keeps
working; the app is built in :mod:`dash_insight.default`."""

from __future__ import annotations

from dash_insight.default import create_app

__all__ = ["create_app"]
