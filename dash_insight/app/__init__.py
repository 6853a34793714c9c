"""The Dash application: ``create_app`` builds it; one module per page under ``pages/``."""

from __future__ import annotations

from .factory import create_app

__all__ = ["create_app"]
