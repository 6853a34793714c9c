"""The tensors plugin: the tensor page (table and histogram views), its card and endpoint."""

from __future__ import annotations

from collections.abc import Mapping

from dash_insight.core.i18n import lazy_gettext
from dash_insight.core.service import DataService
from dash_insight.plugins.tensors import cards, page, rest
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web.page_bundles import PLOTLY
from dash_insight.web.plugin import Card, Page, Plugin


def _service(data: DataService) -> TensorQueries:
    return TensorQueries(data.provider)


def _query_bundles(query: Mapping[str, str]) -> frozenset[str]:
    """plotly.js for the histogram view (``view=histogram``); the table view, the default,
    draws no chart (a histogram view chosen later loads plotly.js then). Neither names AG Grid:
    a slice too large for a plain table loads it when its grid is first mounted
    (``assets/per-tag-pages.js``, :mod:`dash_insight.web.page_bundles`)."""
    return frozenset({PLOTLY}) if query.get("view") == "histogram" else frozenset()


PLUGIN: Plugin[TensorQueries] = Plugin(
    name="tensors",
    service=_service,
    routes=rest.routes,
    pages=(
        Page(
            page.PATH,
            page.layout,
            page.register,
            bundles=frozenset(),
            query_bundles=_query_bundles,
        ),
    ),
    cards=(Card("card-tensor", lazy_gettext("Tensors"), page.PATH, cards.tensor_card),),
)
