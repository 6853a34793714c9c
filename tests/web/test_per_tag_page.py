"""The per-tag page skeleton (dash_insight.web.per_tag_page): layout, controls -> URL and the
cards, on a small page of its own and on the three value pages over the corpus."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import dash
from dash import html

from dash_insight.core.provider import DataError
from dash_insight.core.service import DataService
from dash_insight.core.vocabulary import PluginName
from dash_insight.default import DEFAULT_PLUGINS as PLUGINS
from dash_insight.plugins.histograms import page as histograms
from dash_insight.plugins.images import page as images
from dash_insight.plugins.tensors import page as tensors
from dash_insight.plugins.tensors import query_table
from dash_insight.web import per_tag_page as ptp
from dash_insight.web.url_state import Flag
from tests.browser import wait_idle
from tests.conftest import console_errors
from tests.pages import find, text


@dataclasses.dataclass(frozen=True)
class RawUrl(ptp.PerTagUrl):
    raw: bool = False


def _card(context: ptp.CardContext[DataService, RawUrl], tag: str) -> html.Section:
    if tag == "hist/all_nan":
        raise DataError("cannot draw this one")
    return html.Section(f"{tag} for {context.train_id}, raw {context.state.raw}")


PAGE: ptp.PerTagPage[DataService, RawUrl] = ptp.PerTagPage(
    prefix="t",
    plugin=PluginName.HISTOGRAM,
    noun="histogram",
    title="Test",
    empty=lambda: ["Nothing"],
    state=ptp.page_state(RawUrl, raw=Flag("raw")),
    page_size=4,
    card=_card,
    controls=lambda state: [html.Div("raw" if state.raw else "cooked", id="t-raw")],
    control_fields=(("t-raw", "raw"),),
    card_fields=("raw",),
)


def _cards(
    app: dash.Dash, service: DataService, search: str, theme: str | None, shown: list | None
) -> ptp.CardsUpdate | None:
    return ptp.cards_update(PAGE, app, service, PAGE.state.parse_search(search), theme, shown)


def test_unknown_message_names_the_tags() -> None:
    assert ptp.unknown_message([], "./a", "image") is None
    message = ptp.unknown_message([f"t{i}" for i in range(7)], "./a", "image")
    assert message.id == "image-unknown-tags"
    assert "7 tags in the link are not image tags of ./a: 't0', 't1'" in text(message)
    assert "'t4' …" in text(message)


def test_layout_of_the_skeleton(service: DataService) -> None:
    app = dash.Dash(__name__)
    page = ptp.layout(
        PAGE, app, service, {"train_id": "./ops_all", "raw": "1", "tags": "hist/int32,gone"}
    )
    assert find(page, "t-root") is not None and find(page, "t-raw").children == "raw"
    assert find(page, "t-tags").value == ["hist/int32"]
    assert find(page, "t-query-keys").data == ["train_id", "tags", "filter", "page", "raw"]
    # The query the browser reads from the URL at load is there already (perTagPage.query
    # finds nothing new: the cards callback is not asked for the cards the layout brings).
    assert find(page, "t-query").data == ["./ops_all", "hist/int32,gone", None, None, "1"]
    for name in ("query", "shown", "notice", "cards", "prev", "next", "total"):
        assert find(page, f"t-{name}") is not None, name
    # The cards come with the layout, with the key the cards callback compares: no rebuild.
    first = _cards(app, service, "?train_id=./ops_all&raw=1&tags=hist/int32,gone", "light", None)
    assert find(page, "t-shown").data == first.key
    assert (
        _cards(app, service, "?train_id=./ops_all&raw=1&tags=hist/int32,gone", "light", first.key)
        is None
    )
    assert len(find(page, "t-cards").children) == 1  # hist/int32's card
    assert find(page, "t-page").children == "1 / 1" and find(page, "t-next").disabled
    assert "Summary path: ./ops_all" in text(page)
    tensor_page = dataclasses.replace(PAGE, plugin=PluginName.TENSOR)
    empty = ptp.layout(tensor_page, app, service, {"train_id": "./lenet_sc"})  # no tensor
    assert find(empty, "t-empty").children == ["Nothing"] and find(empty, "t-cards") is None
    missing = ptp.layout(PAGE, app, service, {"train_id": "./nope"})
    assert "no training job" in text(missing) and find(missing, "t-cards") is None


def test_controls_search() -> None:
    search = "?train_id=.%2Fa&page=3"
    tags = ["a", "b", "c"]
    # A page control: applied, the page kept, every tag checked = no tags parameter.
    assert (
        ptp.controls_search(PAGE, search, "t-raw", tags, tags, "", {"raw": ["1"]})
        == "?train_id=.%2Fa&raw=1&page=3"
    )
    # The tags or the filter: back to page 1.
    assert (
        ptp.controls_search(PAGE, search, "t-tags", tags, ["b"], "", {"raw": []})
        == "?train_id=.%2Fa&tags=b"
    )
    assert (
        ptp.controls_search(PAGE, search, "t-tags-filter", tags, None, "^a", {"raw": []})
        == "?train_id=.%2Fa&filter=%5Ea"
    )
    # None and All act on the tags the filter shows; the others keep their state.
    none = ptp.controls_search(
        PAGE, search + "&filter=%5E%5Bab%5D", "t-tags-none", tags, None, "^[ab]", {"raw": []}
    )
    assert none == "?train_id=.%2Fa&tags=c&filter=%5E%5Bab%5D"
    assert (
        ptp.controls_search(PAGE, none, "t-tags-all", tags, None, "^[ab]", {"raw": []})
        == "?train_id=.%2Fa&filter=%5E%5Bab%5D"
    )
    # Unticking a shown tag keeps the hidden ones selected.
    assert (
        ptp.controls_search(PAGE, search, "t-tags", tags, ["b"], "^[ab]", {"raw": []})
        == "?train_id=.%2Fa&tags=b%2Cc&filter=%5E%5Bab%5D"
    )
    # The pager turns the page and applies nothing else.
    assert (
        ptp.controls_search(PAGE, search, "t-next", tags, tags, "", {"raw": ["1"]})
        == "?train_id=.%2Fa&page=4"
    )
    assert (
        ptp.controls_search(PAGE, "?train_id=.%2Fa&page=2", "t-prev", tags, tags, "", {"raw": []})
        == "?train_id=.%2Fa"
    )
    # The list reporting the ticks the link gave it changes nothing (unknown tags stay).
    assert (
        ptp.controls_search(PAGE, search + "&tags=b%2Czz", "t-tags", tags, ["b"], "", {"raw": []})
        is None
    )
    # Nothing changed: None (no new history entry).
    assert ptp.controls_search(PAGE, search, "t-raw", tags, tags, "", {"raw": []}) is None


def test_callbacks_as_plain_functions(service: DataService) -> None:
    """The skeleton's callbacks without Dash: the picker's tags, the URL the controls write
    (nothing for controls just drawn), the cards and nothing again for the same cards."""
    search = "?train_id=./ops_all&tags=hist/int32,gone"
    tags, selected, pattern = ptp.picked(PAGE, service, search)
    assert "hist/int32" in tags and selected == ["hist/int32"] and pattern == ""
    assert ptp.picked(PAGE, service, "?train_id=./nope") == ([], None, "")
    assert ptp.controls_to_url(
        PAGE, service, None, None, None, None, "", [], None, None, search
    ) is (dash.no_update)
    written = ptp.controls_to_url(PAGE, service, "t-raw", None, None, None, "", ["1"], 0, 0, search)
    assert "raw=1" in written
    app = dash.Dash(__name__)
    outputs = ptp.shown_cards(PAGE, app, service, None, 0, None, "light", search, "junk")
    assert len(outputs) == len(ptp.CardsUpdate._fields) and outputs[2] == "Total 1 tag"
    again = ptp.shown_cards(PAGE, app, service, None, 1, None, "light", search, outputs[-1])
    assert again == (dash.no_update,) * len(ptp.CardsUpdate._fields)


def test_cards_update(service: DataService) -> None:
    app = dash.Dash(__name__)
    search = "?train_id=./ops_all&tags=hist/int32,hist/all_nan,gone&raw=1"
    update = _cards(app, service, search, "dark", None)
    assert update is not None
    # In the job's order; a card that cannot be drawn says why.
    assert [text(card) for card in update.cards] == [
        "cannot draw this one",
        "hist/int32 for ./ops_all, raw True",
    ]
    assert update.total == "Total 2 tags" and update.page == "1 / 1"
    assert update.first and update.last
    assert "gone" in text(update.notice)
    # The same view again: nothing to rebuild; the theme does not matter to these cards.
    assert _cards(app, service, search, "light", update.key) is None
    changed = _cards(app, service, search.replace("&raw=1", ""), "dark", update.key)
    assert changed is not None and "raw False" in text(changed.cards)
    nothing = _cards(app, service, "?train_id=./ops_all&tags=,", None, None)
    assert text(nothing.cards) == "No tag selected: tick tags above, or clear the filter."
    unknown = _cards(app, service, "?train_id=./nope", None, None)
    assert "no training job" in text(unknown.cards) and unknown.key is None


def test_a_first_paint_draws_its_first_cards_on_the_server(service: DataService) -> None:
    """``previews``: every card is built for the first paint, the first ``previews`` of them
    (the first screen's) with their charts drawn on the server."""
    app = dash.Dash(__name__)
    seen: list[tuple[str, bool, bool]] = []

    def card(context: ptp.CardContext[DataService, RawUrl], tag: str) -> html.Section:
        seen.append((tag, context.first_paint, context.preview))
        return html.Section(tag)

    page = dataclasses.replace(PAGE, card=card)
    state = page.state.parse_search("?train_id=./ops_all")
    ptp.cards_update(page, app, service, state, None, None, previews=3)
    assert [flags for _tag, *flags in seen] == [[True, True]] * 3 + [[True, False]]
    seen.clear()
    ptp.layout(page, app, service, {"train_id": "./ops_all"})  # the page itself
    assert [flags for _tag, *flags in seen] == [[False, False]] * 4


def test_paging_of_cards(service: DataService) -> None:
    app = dash.Dash(__name__)
    update = _cards(app, service, "?train_id=./ops_all&page=2", None, None)
    assert update.total == "Total 9 tags" and update.page == "2 / 3"
    assert len(update.cards) == 4 and not update.first and not update.last


def test_layouts_explain_missing_jobs_and_data(service: DataService) -> None:
    app = dash.Dash(__name__)
    for page in (histograms, images, tensors):
        assert "no training job" in text(page.layout(app, service, {"train_id": "./nope"}))
    assert "no tensor yet" in text(tensors.layout(app, service, {"train_id": "./lenet_sc"}))
    empty = tensors.layout(app, service, {"train_id": "./multi_file"})
    assert "TensorSummary" in text(empty)


def test_page_modules_are_registered() -> None:
    assert {"/histograms", "/images", "/tensors"} <= {
        page.path for plugin in PLUGINS for page in plugin.pages
    }
    assert isinstance(tensors.empty()[0], str) and isinstance(images.empty()[1], html.Code)


def test_empty_states_and_unknown_job(dash_duo, corpus_app) -> None:
    dash_duo.start_server(corpus_app)
    dash_duo.wait_for_page(dash_duo.server_url + "/tensors?train_id=./lenet_sc")
    dash_duo.wait_for_contains_text("#tensor-empty", "no tensor yet")
    dash_duo.wait_for_page(dash_duo.server_url + "/images?train_id=./nope")
    dash_duo.wait_for_contains_text("#page", "no training job")
    dash_duo.wait_for_page(dash_duo.server_url + "/histograms?train_id=./ops_all&tags=zzz")
    dash_duo.wait_for_contains_text("#histogram-unknown-tags", "zzz")
    dash_duo.wait_for_contains_text("#hist-cards", "No tag selected")
    wait_idle(dash_duo)
    assert console_errors(dash_duo) == []


def test_browser_functions_exist(corpus_app) -> None:
    """Every ClientsideFunction the value pages register, and every grid function the tensor
    table names, is defined in ``assets/`` (a typo would only show as a console error)."""
    assets = Path(__file__).resolve().parents[2] / "assets"
    pages_js = (assets / "per-tag-pages.js").read_text()
    grid_js = (assets / "dashAgGridFunctions-tensors.js").read_text()
    named = {
        (c["clientside_function"]["namespace"], c["clientside_function"]["function_name"])
        for c in corpus_app._callback_list
        if c.get("clientside_function")
    }
    ours = {
        (ns, name)
        for ns, name in named
        if ns in ("perTagPage", "histogramsPage", "imagesPage", "tensorsPage")
    }
    assert {ns for ns, _ in ours} == {"perTagPage", "histogramsPage", "imagesPage", "tensorsPage"}
    for namespace, name in ours:
        assert re.search(rf"\b{name}: function", pages_js), (namespace, name)
    for function in (query_table.VALUE_FORMATTER, query_table.CELL_STYLE, query_table.ROW_INDEX):
        name = function["function"].split("(")[0]
        assert f"dagfuncs.{name} = function (params)" in grid_js
