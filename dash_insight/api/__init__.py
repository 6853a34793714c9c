"""HTTP APIs over the data layer: MindInsight 2.3.1's REST API and dash-insight's export.

``register_rest_api(server, provider)`` mounts both on a Flask server (``dash_app.server``);
``rest_blueprint(provider, summary_base_dir_name=...)`` returns the blueprint to register
yourself. See :mod:`dash_insight.api.rest`.
"""

from __future__ import annotations

from .errors import ApiError
from .rest import API_PREFIX, EXPORT_PREFIX, register_rest_api, rest_blueprint

__all__ = ["API_PREFIX", "EXPORT_PREFIX", "ApiError", "register_rest_api", "rest_blueprint"]
