"""URL state (dash_insight.web.url_state): encodings and the declared page state."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs

import pytest

from dash_insight.web import url_state as us
from dash_insight.web.url_state import (
    MAX_PAGE,
    Choice,
    Flag,
    Float,
    Int,
    TagMap,
    Tags,
    Text,
    TypedUrlState,
)


@dataclass(frozen=True)
class Sample:
    """A page state of every kind of field, as a per-tag page's."""

    train_id: str = ""
    tags: list[str] | None = None
    filter: str = ""
    view: str = "top"
    raw: bool = False
    dec: int = 5
    smoothing: float = 0.0
    steps: dict[str, str] = field(default_factory=dict)
    page: int = 1


STATE = TypedUrlState(
    Sample,
    train_id=Text("train_id"),
    tags=Tags("tags"),
    filter=Text("filter"),
    view=Choice("view", "top", ("top", "front")),
    raw=Flag("raw"),
    dec=Int("dec", 5, 0, 10),
    smoothing=Float("smoothing", 0.0, 0.0, 0.99),
    steps=TagMap("steps"),
    page=Int("page", 1, 1, MAX_PAGE),
)


def test_tag_encoding_round_trips() -> None:
    tags = ["conv1.weight/auto", "a,b", "back\\slash", "x=y"]
    assert us.decode_tags(us.encode_tags(tags)) == tags
    assert us.decode_tags(us.encode_tags([])) == []
    assert us.decode_tags(None) is None
    mapping = {"tensor/a": "[0,:,2:5]", "odd,=tag": "12"}
    assert us.decode_map(us.encode_map(mapping)) == mapping
    assert us.decode_map("broken,=x,ok=1") == {"ok": "1"}
    assert us.decode_map(None) == {}


def test_search_helpers() -> None:
    assert us.parse_search("?a=1&b=&a=2") == {"a": "2"}
    assert us.make_search({"a": 1, "b": None, "c": "", "d": False}) == "?a=1"
    assert us.make_search({}) == ""
    assert us.int_param({"n": "x"}, "n", 3, 0, 9) == 3
    assert us.int_param({"n": "99"}, "n", 3, 0, 9) == 9


def test_defaults_and_an_empty_search() -> None:
    assert STATE.parse({}) == Sample()
    assert STATE.search(Sample()) == ""
    assert STATE.parse_search("") == Sample()
    names = [f.name for f in STATE.fields.values()]
    assert names[0] == "train_id" and names[-1] == "page"  # the URL's order


def test_bad_values_become_defaults_or_bounds() -> None:
    state = STATE.parse(
        {
            "view": "sideways",
            "raw": "yes",
            "dec": "12",
            "smoothing": "nan",
            "page": "0",
            "steps": "broken",
        }
    )
    assert (state.view, state.raw, state.dec) == ("top", False, 10)
    assert (state.smoothing, state.page, state.steps) == (0.0, 1, {})
    assert STATE.parse({"dec": "x", "smoothing": "7", "page": "-3"}).dec == 5
    assert STATE.parse({"smoothing": "7"}).smoothing == 0.99
    assert STATE.parse({"smoothing": "inf"}).smoothing == 0.0
    assert STATE.parse({"smoothing": "-1"}).smoothing == 0.0


@pytest.mark.parametrize(
    "state",
    [
        Sample(
            train_id="./group/run 1",
            tags=["a,b", "c\\d"],
            filter="^conv.*[0-9]",
            view="front",
            raw=True,
            dec=0,
            smoothing=0.6,
            steps={"x=y": "12"},
            page=7,
        ),
        Sample(train_id="./a", tags=[], dec=10, smoothing=0.99),
    ],
)
def test_parse_of_search_round_trips(state: Sample) -> None:
    assert STATE.parse_search(STATE.search(state)) == state


def test_search_leaves_defaults_out_and_keeps_field_order() -> None:
    search = STATE.search(Sample(train_id="./a", view="front", page=2, tags=["b"]))
    assert search == "?train_id=.%2Fa&tags=b&view=front&page=2"
    assert parse_qs(STATE.search(Sample(tags=[]))[1:]) == {"tags": [","]}  # none, not all
    assert STATE.search(Sample(view="nonsense", smoothing=0.25)) == "?smoothing=0.25"
    # The URL's other parameters, kept after the state's when given.
    kept = STATE.search(Sample(page=2), {"other": "x", "page": "9"})
    assert kept == "?page=2&other=x"


def test_values_from_controls() -> None:
    state = STATE.from_controls(
        Sample(),
        {"view": "front", "raw": ["1"], "dec": 12, "smoothing": None, "filter": None},
    )
    assert (state.view, state.raw, state.dec) == ("front", True, 10)
    assert (state.smoothing, state.filter) == (0.0, "")
    assert STATE.from_controls(state, {"raw": [], "view": None, "dec": "x"}).raw is False
    assert STATE.from_controls(state, {"view": None}).view == "top"
    assert STATE.from_controls(state, {"dec": None}).dec == 5
    assert STATE.from_controls(state, {"smoothing": 2}).smoothing == 0.99
    assert STATE.from_controls(state, {"tags": ("a", "b")}).tags == ["a", "b"]
    bounded = TypedUrlState(Sample, **{**STATE.fields, "filter": Text("filter", max_chars=3)})
    assert bounded.from_controls(state, {"filter": "abcdef"}).filter == "abc"  # the box too


def test_two_attributes_on_one_parameter_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        TypedUrlState(Sample, **{**STATE.fields, "filter": Text("train_id")})


def test_typed_state_reads_and_writes_a_dataclass() -> None:
    """TypedUrlState: each attribute through its field and URL parameter; bounded text,
    allowed sizes, sort orders and plain name lists; unknown attributes refused."""
    import dataclasses

    import pytest

    from dash_insight.web.url_state import (
        Descending,
        Names,
        TypedUrlState,
        make_search,
        parse_search,
    )

    @dataclasses.dataclass(frozen=True)
    class Sorted:
        query: str = ""
        descending: bool = True
        size: int = 10
        opened: tuple[str, ...] = ()

    state = TypedUrlState(
        Sorted,
        query=Text("q", max_chars=5),
        descending=Descending("order"),
        size=Int("size", 10, 1, 50, allowed=(10, 20, 50)),
        opened=Names("open", limit=2),
    )
    parsed = state.parse({"q": "x" * 99, "order": "asc", "size": "30", "open": "a,,b,c"})
    assert parsed == Sorted("xxxxx", False, 10, ("a", "b"))
    assert state.params(parsed) == {"q": "xxxxx", "order": "asc", "size": None, "open": "a,b"}
    assert state.parse(parse_search(make_search(state.params(parsed)))) == parsed
    assert state.params(Sorted()) == dict.fromkeys(("q", "order", "size", "open"))
    assert state.from_controls(parsed, {"size": 20.0, "descending": None}).size == 20
    assert state.from_controls(parsed, {"size": "junk"}).size == 10
    with pytest.raises(ValueError, match="Sorted has"):
        TypedUrlState(Sorted, query=Text("q"))
