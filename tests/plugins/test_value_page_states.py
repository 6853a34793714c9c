"""Issue 36 item 1: the typed URL state of the per-tag pages (parameter distribution, images,
tensors) and of the histogram and image comparisons: frozen dataclasses read from the URL in one
place and written back the same, every list and string bounded, hostile values read as the
defaults or the nearest bound, unknown names dropped before any work, and hostile stores
refused (400) before any work."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import dash
import pytest

from dash_insight.core.service import DataService
from dash_insight.plugins.histograms import page as histograms
from dash_insight.plugins.images import compare_page as image_compare
from dash_insight.plugins.images import page as images
from dash_insight.plugins.tensors import page as tensors
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web import per_tag_page
from dash_insight.web.callback_types import CallbackValueError
from dash_insight.web.components import compare_runs
from dash_insight.web.limits import MAX_FILTER_CHARS, MAX_NAME_CHARS, MAX_URL_LIST_ITEMS
from dash_insight.web.url_state import (
    TypedUrlState,
    encode_map,
    encode_tags,
    make_search,
    parse_search,
)
from tests.pages import text

COMMON = {
    "train_id": "./job, with=odd&chars",
    "tags": encode_tags(["a,b", "w"]),
    "filter": "^w",
    "page": "3",
}
#: Every parameter of each page away from its default (in the order the page writes them).
PAGES: list[tuple[TypedUrlState[Any], dict[str, str]]] = [
    (histograms.STATE, {**COMMON, "view": "front", "axis": "relative", "raw": "1"}),
    (
        images.STATE,
        {**COMMON, "b": "75", "c": "0", "steps": encode_map({"a,b": "12", "w": "40"})},
    ),
    (
        tensors.STATE,
        {
            **COMMON,
            "view": "histogram",
            "hview": "front",
            "axis": "absolute",
            "fmt": "sci",
            "dec": "2",
            "steps": encode_map({"w": "7"}),
            "dims": encode_map({"w": "[0,:]"}),
        },
    ),
    (
        compare_runs.STATE,
        {
            "jobs": encode_tags(["./a", "./b"]),
            "job_filter": "a",
            "hidden": encode_tags(["./b"]),
            "tag": "w,x",
            "step": "40",
        },
    ),
    (image_compare.LEVELS, {"b": "0", "c": "100"}),
]
IDS = ["histograms", "images", "tensors", "compare-runs", "compare-levels"]


@pytest.mark.parametrize(("state", "params"), PAGES, ids=IDS)
def test_parse_and_write_round_trip(state: TypedUrlState[Any], params: dict[str, str]) -> None:
    parsed = state.parse(params)
    search = state.search(parsed)
    assert parse_search(search) == params  # every value written back as it was read
    assert list(parse_search(search)) == [f.name for f in state.fields.values()]  # URL order
    assert state.parse_search(search) == parsed
    assert state.parse({}) == state.cls()  # the dataclass's defaults are the URL's
    assert state.search(state.cls()) == ""  # defaults leave the URL empty
    assert state.parse_search("?unknown=1&page=&step=") == state.cls()
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.tags = []  # type: ignore[misc]


def test_the_urls_the_pages_wrote_before_read_the_same() -> None:
    """The parameters, their names and order did not change with the typing."""
    assert (
        histograms.STATE.search(histograms.HistogramsUrl(train_id="./j", raw=True, page=2))
        == "?train_id=.%2Fj&raw=1&page=2"
    )
    url = tensors.TensorsUrl(tags=[], fmt="sci", steps={"a": "1"}, dims={"a": "[0,:]"})
    assert tensors.STATE.search(url) == "?tags=%2C&fmt=sci&steps=a%3D1&dims=a%3D%5B0%5C%2C%3A%5D"
    assert tensors.PAGE.query_keys == [
        "train_id",
        "tags",
        "filter",
        "page",
        "view",
        "hview",
        "axis",
    ]
    # A comparison tab keeps its own parameters when the shared ones are written.
    runs = compare_runs.RunsUrl(tag="w", step=20)
    assert compare_runs.STATE.search(runs, {"b": "80", "step": "9"}) == "?tag=w&step=20&b=80"


HOSTILE = {
    "train_id": "x" * 10**6,
    "tags": ",".join(f"t{i}" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "filter": "(" * 10**6,
    "page": "-99999999999999999999",
    "view": "<script>",
    "hview": "side",
    "axis": "1e99",
    "raw": "yes",
    "fmt": "%s",
    "dec": "nan",
    "b": "99999999999",
    "c": "-1",
    "steps": ",".join(f"t{i}=1" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "dims": "=,==,\\" * 10**5,
    "jobs": ",".join(f"./j{i}" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "job_filter": "z" * 10**6,
    "hidden": ",".join(f"./h{i}" for i in range(10 * MAX_URL_LIST_ITEMS)),
    "tag": "y" * 10**6,
    "step": "99999999999999999999999",
}


def test_hostile_values_are_bounded() -> None:
    for state in (histograms.STATE, images.STATE, tensors.STATE):
        url = state.parse(HOSTILE)
        assert len(url.train_id) == MAX_NAME_CHARS and len(url.filter) == MAX_FILTER_CHARS
        assert url.tags is not None and len(url.tags) == MAX_URL_LIST_ITEMS
        assert url.page == 1
    histogram = histograms.STATE.parse(HOSTILE)
    assert (histogram.view, histogram.axis, histogram.raw) == ("top", "step", False)
    image = images.STATE.parse(HOSTILE)
    assert (image.b, image.c, len(image.steps)) == (100, 0, MAX_URL_LIST_ITEMS)
    tensor = tensors.STATE.parse(HOSTILE)
    assert (tensor.view, tensor.hview, tensor.axis, tensor.fmt, tensor.dec) == (
        "table",
        "top",
        "step",
        "value",
        tensors.DEFAULT_DECIMALS,
    )
    assert len(tensor.steps) == MAX_URL_LIST_ITEMS and tensor.dims == {}
    runs = compare_runs.STATE.parse(HOSTILE)
    assert runs.jobs is not None and len(runs.jobs) == MAX_URL_LIST_ITEMS
    assert runs.hidden is not None and len(runs.hidden) == MAX_URL_LIST_ITEMS
    assert len(runs.job_filter) == MAX_FILTER_CHARS and len(runs.tag) == MAX_NAME_CHARS
    assert runs.step == 2**62


def test_unknown_names_are_dropped_before_any_work(service: DataService) -> None:
    """A link naming 10,000 tags (or runs) the job lacks: linear work, nothing looked up, and
    the cards' key (sent to the browser) names five of them, not all."""
    app = dash.Dash(__name__)
    url = dataclasses.replace(histograms.STATE.parse(HOSTILE), train_id="./ops_all", filter="")
    started = time.perf_counter()
    update = per_tag_page.cards_update(histograms.PAGE, app, service, url, None, None)
    assert time.perf_counter() - started < 2
    assert update is not None and text(update.cards).startswith("No tag selected")
    assert "10000 tags in the link" in text(update.notice)
    assert len(repr(update.key)) < 1000
    jobs = [f"./real{i}" for i in range(1000)]
    started = time.perf_counter()
    runs = compare_runs.run_selection(compare_runs.STATE.parse(HOSTILE), jobs)
    view = compare_runs.tag_view(compare_runs.STATE.parse(HOSTILE), jobs, {}, lambda r, t: [])
    assert time.perf_counter() - started < 2
    assert runs.selected == runs.hidden == runs.shown == [] and view.tag is None
    eye = {"value": {"run": "./real3", "hidden": True}}
    new = compare_runs.eye_search(make_search({"hidden": HOSTILE["hidden"]}), jobs, eye)
    assert new == "?hidden=.%2Freal3"  # the unknown names leave the URL


def test_a_long_filter_from_the_box_is_cut() -> None:
    search = per_tag_page.controls_search(
        histograms.PAGE, "?train_id=./j", "hist-tags-filter", ["a"], None, "(" * 10**6, {}
    )
    assert search is not None
    assert histograms.STATE.parse_search(search).filter == "(" * MAX_FILTER_CHARS
    jobs = ["./a", "./b"]
    picked = compare_runs.picker_search("", jobs, "j-filter", None, "z" * 10**6, "j")
    assert compare_runs.STATE.parse_search(picked).job_filter == "z" * MAX_FILTER_CHARS


def test_a_page_naming_a_field_its_state_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="not fields of its state"):
        dataclasses.replace(histograms.PAGE, card_fields=("view", "zoom"))
    with pytest.raises(ValueError, match="not fields of its state"):
        dataclasses.replace(images.PAGE, control_fields=(("img-x", "brightness"),))


def _card(**changes: Any) -> dict[str, Any]:
    card = {"tag": "tensor/rank1_f32", "steps": [1, 2], "walls": [1.0, 2.0], "default": "[:]"}
    return {**card, **changes}


@pytest.mark.parametrize(
    "store",
    [
        None,
        [],
        "x",
        {},
        _card(tag=3),
        _card(default=None),
        _card(steps=[]),
        _card(steps="12"),
        _card(steps=[1, "2"]),
        _card(steps=[True, 2]),
        _card(walls=[1.0]),
        _card(walls=[1.0, "x"]),
    ],
)
def test_a_tensor_card_store_not_of_its_shape_is_refused(store: Any) -> None:
    with pytest.raises(CallbackValueError):
        tensors.TableStore.read(store)


def test_tensor_card_values_are_read_before_any_work(service: DataService) -> None:
    queries = TensorQueries(service.provider)
    store = tensors.TableStore.read(_card())
    assert store == tensors.TableStore("tensor/rank1_f32", [1, 2], [1.0, 2.0], "[:]")
    assert tensors.TableStore.read(store.data()) == store
    assert [tensors.slider_index(p, 5, 4) for p in (None, "2", float("nan"), 1e300, -3, 2.7)] == [
        4,
        4,
        4,
        4,
        0,
        2,
    ]
    search = "?train_id=./ops_all"
    many = [_card()] * 100_000
    started = time.perf_counter()
    with pytest.raises(CallbackValueError, match="at most 6 cards"):
        tensors.restyled_statistics(queries, "sci", 2, None, [0] * len(many), many, search)
    with pytest.raises(CallbackValueError, match="one per card"):
        tensors.restyled_statistics(queries, "sci", 2, None, [0], [_card(), _card()], search)
    with pytest.raises(CallbackValueError):
        tensors.card_state_search(["[:]"] * len(many), [0] * len(many), many, search)
    assert time.perf_counter() - started < 1  # refused before reading a tensor
    with pytest.raises(CallbackValueError):
        tensors.default_dims(1, {"default": 5}, [":"])


@pytest.mark.parametrize(
    "shown",
    [
        {"tags": "w"},
        {"tags": [1]},
        {"steps": [1, "2"]},
        {"steps": [True]},
        {"tag": 5},
        {"default": []},
        {"step": "3"},
    ],
)
def test_a_tab_store_not_of_its_shape_is_refused(shown: dict[str, Any]) -> None:
    with pytest.raises(CallbackValueError):
        compare_runs.tag_step_search("", "w", 0, {"tag": "w", "steps": [0, 1], **shown})


def test_a_tab_store_reads_back_what_the_tab_drew() -> None:
    view = compare_runs.tag_view(
        compare_runs.RunsUrl(), ["./a"], {"./a": ["w", "b"]}, lambda run, tag: [0, 10]
    )
    drawn = compare_runs.DrawnTab.read(view.store())
    assert drawn == compare_runs.DrawnTab("w", ["w", "b"], None, [0, 10], 10)
    assert compare_runs.DrawnTab.read(None) is None  # nothing drawn yet
    assert compare_runs.step_box_value(view.store()) == 10


def test_the_cards_key_follows_the_card_fields(service: DataService) -> None:
    """The cards are built again when a card field changes, not for a browser-only one."""
    app = dash.Dash(__name__)
    url = images.STATE.parse({"train_id": "./ops_all"})
    first = per_tag_page.cards_update(images.PAGE, app, service, url, None, None)
    assert first is not None and first.key is not None
    brighter = dataclasses.replace(url, b=80)  # applied in the browser
    assert per_tag_page.cards_update(images.PAGE, app, service, brighter, None, first.key) is None
    table = tensors.STATE.parse({"train_id": "./ops_all"})
    queries = TensorQueries(service.provider)
    shown = per_tag_page.cards_update(tensors.PAGE, app, queries, table, "dark", None)
    assert shown is not None
    decimals = dataclasses.replace(table, dec=2)
    assert per_tag_page.cards_update(tensors.PAGE, app, queries, decimals, "light", shown.key) is (
        None
    )  # a table does not follow the theme, and its decimals change in the browser
    chart = dataclasses.replace(table, view="histogram")
    assert per_tag_page.cards_update(tensors.PAGE, app, queries, chart, "dark", shown.key)
