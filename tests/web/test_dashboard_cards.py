"""The training dashboard's cards choose their tags as MindInsight does (no browser)."""

from __future__ import annotations

import dash

from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName, mindinsight_order
from dash_insight.plugins.scalars.cards import scalar_card
from dash_insight.plugins.tensors.cards import tensor_card
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web import dashboard
from dash_insight.web.plugin import Card, CardRequest
from tests.pages import text


def test_mindinsight_order_sorts_by_the_suffixed_name() -> None:
    # "a/scalar" sorts after "a/b/scalar" ('s' > 'b'): MindInsight sorts its own names.
    assert mindinsight_order(["op/x", "loss", "a", "a/b"], PluginName.SCALAR) == [
        "a/b",
        "a",
        "loss",
        "op/x",
    ]


def test_scalar_card_draws_the_first_two_tags_of_mindinsight(service: DataService) -> None:
    """ops_in_net wrote its activation tags before loss; MindInsight's card (spec screenshot
    02b_dashboard_ops_in_net) shows loss/auto and op/activation_max."""
    job = service.provider.job("./ops_in_net")
    assert job.tags[PluginName.SCALAR][0] != "loss/auto"  # the written order differs
    body, foot = scalar_card(CardRequest(dash.Dash(__name__), job), service)
    assert [trace.name for trace in body.figure.data] == ["loss/auto", "op/activation_max"]
    assert foot == "3 scalar tags"


def test_tensor_card_shows_five_decimals_as_mindinsight(service: DataService) -> None:
    """MindInsight's card of ops_in_net (02b_dashboard_ops_in_net) starts -0.10534 -0.19657
    0.10414: the first tensor tag, five decimals."""
    job = service.provider.job("./ops_in_net")
    body, foot = tensor_card(CardRequest(dash.Dash(__name__), job), TensorQueries(service.provider))
    assert foot.startswith("op/conv_weight · ")
    assert text(body).split()[:3] == ["-0.10534", "-0.19657", "0.10414"]


def test_show_cards_sends_only_what_changed(service: DataService) -> None:
    """The dashboard's callbacks as plain functions: the cards of the URL's job, nothing on a
    refresh that changes nothing, a readable message for a job that is not there."""
    app = dash.Dash(__name__)
    cards = [(scalar_card_of(), service)]
    search = "?train_id=.%2Fops_in_net"
    built, shown = dashboard.show_cards(app, service.provider, cards, search, 0, None, 0, None)
    assert "3 scalar tags" in text(built) and shown[0] == "./ops_in_net"
    again = dashboard.show_cards(app, service.provider, cards, search, 1, None, 0, shown)
    assert again == (dash.no_update, dash.no_update)
    turned = dashboard.show_cards(app, service.provider, cards, search, 1, None, "x", shown)
    assert turned == (dash.no_update, dash.no_update)  # a hostile turn is turn 0
    missing, shown = dashboard.show_cards(
        app, service.provider, cards, "?train_id=./nowhere", 0, None, 0, None
    )
    assert "Back to the summary list" in text(missing) and shown is None
    assert dashboard.switch_tag(None, 3) is dash.no_update  # drawn, not clicked
    assert dashboard.switch_tag(1, 3) == 4 and dashboard.switch_tag(1, "junk") == 1  # type: ignore[arg-type]


def scalar_card_of() -> Card[DataService]:
    """The scalars plugin's dashboard card."""
    return Card(card_id="scalar-card", title="Scalars", page="/scalars", build=scalar_card)


def test_a_job_that_cannot_be_read_is_one_panel_on_every_page(service: DataService) -> None:
    """The scalars page and the dashboard show the same panel for a job not there (one
    definition: job_notice.job_error)."""
    from dash_insight.plugins.scalars import page as scalars

    app = dash.Dash(__name__)
    panel = scalars.layout(app, service, {"train_id": "./nowhere"})
    assert "Back to the summary list" in text(panel) and "./nowhere" in text(panel)
