"""One definition of the scalar chart (issue #36 item 5): every function of
``assets/scalar-charts.js`` that has a Python twin gives the twin's answer over many generated
inputs (a seeded random set: NaN, ±inf and null points, single points, constant series, huge
and tiny values, offsets far larger than the spread, values at or below 0 on a log axis).

The twins (JavaScript, Python):

- ``smooth``: :func:`~dash_insight.plugins.scalars.query_smoothing.smooth_ema` (TensorBoard's
  debiased EMA); ``movingAverage``: ``moving_average``; ``smoothWith``: the page's smoother
  (``ema`` / ``ma`` / ``none``) dispatched to them; ``smoothBand``: ``smooth_band`` (a group's
  band smoothed as its line); ``isSmoothed``: ``smoothing > 0`` (the first
  paint fades its raw line and notes "smoothed as drawn" by it);
- ``outlierRange``: ``outlier_range`` ("ignore outliers"); ``thresholdMask``:
  ``threshold_mask``;
- ``drawnValues`` on a log axis: the values above 0, the others gaps (what the smoothers then
  receive);
- ``niceStep``, ``niceRange``, ``alignedRanges``: :mod:`dash_insight.core.axis_scale`'s
  ``nice_step``, ``nice_range``, ``aligned_ranges``; ``finiteExtent``:
  ``web.components.figures._finite_extent``;
- ``tickChars`` / ``labelMargin``: the left margin of the server's first paint
  (``14 + ceil(6.5 * y_label_chars)``, :mod:`dash_insight.plugins.scalars.figures_preview`);
- the ticks: the first paint's labels (``preview.tick_text``, ``axis_scale.tick_label``) are
  those Plotly draws on the same nice axis, on every axis (SI prefixes, powers of ten).

Every case runs in one ``execute_script`` call, so the test costs one page load."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dash_insight.core.axis_scale import AxisRange, aligned_ranges, nice_range, nice_step
from dash_insight.plugins.scalars.figures_preview import (
    _inside_ticks,
    tick_text,
    widest_end,
    y_label_chars,
)
from dash_insight.plugins.scalars.query_smoothing import (
    Smoother,
    moving_average,
    outlier_range,
    smooth_band,
    smooth_ema,
    threshold_mask,
)
from dash_insight.web.components.figures import _finite_extent
from tests.browser import until
from tests.conftest import console_errors, loaded_app

#: Runs ``[name, args]`` cases (JSON, non-finite numbers as "NaN" / "Infinity" strings) through
#: ``window.dash_clientside.scalarCharts`` and answers their values (or errors) the same way.
RUN_CASES = """
const charts = window.dash_clientside.scalarCharts;
const NON_FINITE = ["NaN", "Infinity", "-Infinity"];
const cases = JSON.parse(arguments[0], (k, v) => (NON_FINITE.includes(v) ? Number(v) : v));
const answers = cases.map(([name, args]) => {
  try {
    return {value: charts[name](...args)};
  } catch (error) {
    return {error: String(error)};
  }
});
return JSON.stringify(answers, (k, v) =>
  (typeof v === "number" && !Number.isFinite(v) ? String(v) : v));
"""

#: How close a JavaScript answer must be to the Python one (the two differ only where
#: Math.pow and numpy's quantile round differently in the last bits).
RTOL = 1e-9

SERIES_LENGTHS = (0, 1, 2, 3, 7, 50, 301)


def _encode(value: Any) -> Any:
    """``value`` for JSON: non-finite floats as the strings JavaScript's ``Number`` reads."""
    if isinstance(value, float | np.floating) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, np.floating | np.integer):
        return value.item()
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _decode(value: Any) -> Any:
    """A JavaScript answer back: the non-finite strings as floats."""
    if value in ("NaN", "Infinity", "-Infinity"):
        return float(value.lower().replace("infinity", "inf"))
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    return value


def _floats(values: list[Any]) -> np.ndarray:
    """A JavaScript series as floats (null: NaN, a gap)."""
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


def _series(rng: np.random.Generator) -> Iterator[tuple[np.ndarray, bool]]:
    """Series to smooth and range, each with whether its gaps travel as null (as the server
    sends them) rather than as NaN / ±inf."""
    fixed = [
        [],
        [1.0],
        [math.nan],
        [math.inf],
        [2.5, 2.5, 2.5],
        [math.nan, math.nan],
        [math.inf, math.inf],
        [0.0, -0.0, 0.0],
        [1e-300, 2e-300, 5e-324],
        [1e300, -1e300, 1e300],
        [1e6, 1e6 + 1e-9, 1e6 - 1e-9],
        [math.nan, 1.0, math.inf, 2.0, -math.inf, 3.0],
    ]
    for values in fixed:
        yield np.array(values, dtype=np.float64), False
    for _ in range(60):
        length = int(rng.choice(SERIES_LENGTHS))
        scale = 10.0 ** int(rng.integers(-300, 300))
        offset = float(rng.choice([0.0, 1.0, -50.0, 1e6])) * scale * 10.0 ** int(rng.integers(0, 9))
        values = offset + scale * rng.standard_normal(length)
        if length and rng.random() < 0.3:
            values[rng.integers(0, length)] *= 1e6  # a spike
        gaps = rng.random(length) < float(rng.choice([0.0, 0.05, 0.5]))
        values[gaps] = rng.choice([math.nan, math.inf, -math.inf], size=int(gaps.sum()))
        if rng.random() < 0.2:
            values = np.round(values / scale) * scale  # many equal values
        yield values, bool(rng.random() < 0.5)


def _sent(values: np.ndarray, as_null: bool) -> list[Any]:
    return [None if as_null and not math.isfinite(v) else float(v) for v in values]


Check = Callable[[Any], None]


def _close(expected: Any) -> Check:
    """A check that a JavaScript series equals ``expected`` (NaN where it has a gap)."""
    want = np.asarray(expected, dtype=np.float64)

    def check(got: Any) -> None:
        np.testing.assert_allclose(_floats(got), want, rtol=RTOL, atol=0, equal_nan=True)

    return check


def _same_gaps(expected: np.ndarray) -> np.ndarray:
    """``expected`` with ±inf as NaN: a series sent with null gaps gets null back for them."""
    return np.where(np.isfinite(expected), expected, math.nan)


def _range_of(expected: tuple[float, float] | None) -> Check:
    def check(got: Any) -> None:
        if expected is None:
            assert got is None
        else:
            np.testing.assert_allclose(_floats(got), expected, rtol=RTOL, atol=0)

    return check


def _axis(expected: AxisRange) -> Check:
    def check(got: Any) -> None:
        np.testing.assert_allclose(
            _floats([got["low"], got["high"], got["step"]]),
            [expected.low, expected.high, expected.step],
            rtol=RTOL,
            atol=0,
        )

    return check


def _equal(expected: Any) -> Check:
    def check(got: Any) -> None:
        assert got == expected

    return check


def _smoothing_cases(rng: np.random.Generator) -> Iterator[tuple[str, list[Any], Check]]:
    # The bands draw from their own generator: the other cases stay those they were.
    band_rng = np.random.default_rng(40)
    for values, as_null in _series(rng):
        sent = _sent(values, as_null)

        def back(expected: np.ndarray, as_null: bool = as_null) -> Check:
            """A check of a smoothed series: a gap sent as null comes back null."""
            return _close(_same_gaps(expected) if as_null else expected)

        for weight in (0.0, 0.3, 0.9, 0.99, float(rng.random()), 1.0, -0.5):
            yield "smooth", [sent, weight], back(smooth_ema(values, weight))
        for window in (0, 1, 2, 3, 10, int(rng.integers(2, 400))):
            yield "movingAverage", [sent, window], back(moving_average(values, window))
        weight, window = float(rng.random()), int(rng.integers(2, 30))
        ma = {"kind": "ma", "window": window}
        yield "smoothWith", [sent, weight, {"kind": "ema"}], back(smooth_ema(values, weight))
        yield "smoothWith", [sent, weight, ma], back(moving_average(values, window))
        yield "smoothWith", [sent, weight, {"kind": "none"}], back(values)
        # A log y axis draws the values above 0; the others are gaps the smoother skips.
        received = _floats(sent)
        logged = np.where(received > 0, received, math.nan)
        yield "drawnValues", [{"y": sent}, True], _close(logged)
        drawn_log = [None if math.isnan(v) else float(v) for v in logged]
        yield "smoothWith", [drawn_log, weight, None], _close(smooth_ema(logged, weight))
        yield "outlierRange", [sent], _range_of(outlier_range(values))
        yield "finiteExtent", [sent], _range_of(_finite_extent(values))
        finite = values[np.isfinite(values)]
        limits = sorted(rng.choice(finite, 2)) if len(finite) else [-1.0, 1.0]
        for conditions in ([], [(">", limits[0])], [(">", limits[0]), ("<", limits[1])]):
            for combine in ("and", "or"):
                threshold = {"conditions": [list(c) for c in conditions], "combine": combine}
                mask = threshold_mask(values, conditions, combine).tolist()
                yield "thresholdMask", [sent, threshold], _equal(mask)
        yield from _band_cases(band_rng, values, as_null)
    for weight in (0.0, 0.5, 0.99):
        yield "isSmoothed", [weight, {"kind": "ema"}], _equal(weight > 0)


def _band_cases(
    rng: np.random.Generator, centre: np.ndarray, as_null: bool
) -> Iterator[tuple[str, list[Any], Check]]:
    """A group's band around ``centre``: edges at random distances (within the centre's own
    scale), missing at random points (steps with one run), smoothed by each smoother."""
    scale = np.abs(np.where(np.isfinite(centre), centre, 1.0)) + 1e-300
    low = centre - scale * rng.random(len(centre))
    high = centre + scale * rng.random(len(centre))
    missing = rng.random(len(centre)) < float(rng.choice([0.0, 0.2, 0.6]))
    low[missing] = high[missing] = np.nan
    weight, window = float(rng.random()), int(rng.integers(2, 30))
    for smoother, sent_smoother in (
        (Smoother("ema", weight), {"kind": "ema"}),
        (Smoother("ma", weight, window), {"kind": "ma", "window": window}),
        (Smoother("none", weight), {"kind": "none"}),
    ):
        expected = smooth_band(centre, low, high, smoother)
        sent = [_sent(v, as_null) for v in (centre, low, high)]
        # null or NaN, a point without an edge comes back null
        yield "smoothBand", [*sent, weight, sent_smoother], _edges(expected)


def _edges(expected: tuple[np.ndarray, np.ndarray]) -> Check:
    """A check of a band's [low, high] edges (NaN where it has none)."""

    def check(got: Any) -> None:
        assert len(got) == 2
        for edge, want in zip(got, expected, strict=True):
            _close(want)(edge)

    return check


def _bounds(rng: np.random.Generator) -> Iterator[tuple[float, float]]:
    """(low, high) of data on an axis: constant, zero, reversed, tiny and huge, a small spread
    on a large offset."""
    yield from [
        (0.05, 0.05),
        (0.0, 0.0),
        (-0.0, 0.0),
        (2.35, 1.2),
        (-3.0, 1e6),
        (1.74, 2.371),
        (1e-9, 3e-9),
        (5e-324, 5e-324),
        (-1e300, 1e300),
        (1e-300, 1e300),
        (1e6, 1e6 + 1e-6),
        (-7.0, -7.0),
        (0.1, 0.30000000000000004),
    ]
    for number in range(200):
        # Half anywhere a float reaches, half in the ranges charts usually show.
        scale = 10.0 ** int(rng.integers(-300, 300) if number % 2 else rng.integers(-6, 4))
        offset = float(rng.choice([0.0, 0.0, 1.0, -3.0, 1e4])) * scale
        a, b = offset + scale * rng.standard_normal(2)
        yield float(a), float(b)


def _plain(axis: AxisRange) -> bool:
    """Whether the browser's margin estimate (``tickChars``) holds the axis' labels: Plotly
    writes them as plain decimals, its widest end from 10^-3 to below 10^4 (beyond, an SI
    suffix or a power of ten), no decimals from 1,000 (Plotly writes "1,000.05", a comma the
    estimate does not count). Beyond, the estimate is short and Plotly's automargin widens
    the chart."""
    widest = max(abs(axis.low), abs(axis.high))
    return 1e-3 <= widest < 1e4 and 1e-6 <= axis.step < 1000 and (widest < 1000 or axis.step >= 1)


def _axis_cases(rng: np.random.Generator) -> Iterator[tuple[str, list[Any], Check]]:
    raws = [1.0, 2.0, 2.5, 5.0, 10.0, 0.3, 7.0, 2.5e-7, 1e-300, 1e300, 5e-324]
    raws += [10.0 ** float(rng.uniform(-300, 300)) for _ in range(100)]
    for raw in raws:
        expected = nice_step(raw)
        yield (
            "niceStep",
            [raw],
            lambda got, expected=expected: np.testing.assert_allclose(
                got, expected, rtol=RTOL, atol=0
            ),
        )
    bounds = list(_bounds(rng))
    for low, high in bounds:
        for intervals in (None, 3, 4, 5, 6, 8):
            axis = nice_range(low, high) if intervals is None else nice_range(low, high, intervals)
            yield (
                "niceRange",
                [low, high] if intervals is None else [low, high, intervals],
                _axis(axis),
            )
            if intervals is None and _plain(axis):
                # The first paint's left margin is the browser's for the same axis.
                left = 14 + math.ceil(6.5 * y_label_chars(axis))
                yield (
                    "labelMargin",
                    [{"left": {"low": axis.low, "high": axis.high, "step": axis.step}}, False],
                    lambda got, left=left: _equal(left)(got["l"]),
                )
    for left, right in zip(bounds[::2], bounds[1::2], strict=False):
        for choices in (None, (4, 5, 6), (3,), (2, 7)):
            pair = (
                aligned_ranges(left, right)
                if choices is None
                else aligned_ranges(left, right, choices)
            )
            args: list[Any] = [list(left), list(right)]
            if choices is not None:
                args.append(list(choices))
            yield (
                "alignedRanges",
                args,
                lambda got, pair=pair: [
                    _axis(want)(have) for want, have in zip(pair, got, strict=True)
                ],
            )


@pytest.fixture
def empty_app(tmp_path: Path) -> Iterator[Any]:
    """The app over no job: the lightest pages, with the chart's script."""
    (tmp_path / "logs").mkdir()
    with loaded_app(tmp_path / "logs", tmp_path / "ws") as app:
        yield app


def test_every_twin_gives_the_python_answer(dash_duo, empty_app) -> None:
    rng = np.random.default_rng(36)
    cases = [*_smoothing_cases(rng), *_axis_cases(rng)]
    dash_duo.start_server(empty_app)
    # The scalars page (over no job): it links plotly.js, which the summary list does not
    # (web/page_bundles.py), and the tick comparison below draws with it.
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars")
    until(
        lambda: dash_duo.driver.execute_script(
            "return !!(window.dash_clientside && window.dash_clientside.scalarCharts"
            " && window.Plotly);"
        ),
        10,
    )
    sent = json.dumps([[name, _encode(args)] for name, args, _ in cases], allow_nan=False)
    answers = _decode(json.loads(dash_duo.driver.execute_script(RUN_CASES, sent)))
    failures = []
    for (name, args, check), answer in zip(cases, answers, strict=True):
        try:
            assert "error" not in answer, answer.get("error")
            check(answer["value"])
        except (AssertionError, TypeError, KeyError) as failure:
            failures.append(f"{name}{tuple(_encode(args))!r:.300}: {failure}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(
        failures[:200]
    )
    assert len(cases) > 3000
    # The ticks: the first paint writes Plotly's labels on the axes where it draws them alike.
    plain = [nice_range(*b) for b in _bounds(rng)]
    dash_duo.driver.set_script_timeout(60)
    drawn = dash_duo.driver.execute_async_script(
        PLOTLY_TICKS, [[a.low, a.high, a.step] for a in plain]
    )
    wrong = [
        (axis, labels, written)
        for axis, labels in zip(plain, drawn, strict=True)
        if labels != (written := _written_ticks(axis))
    ]
    assert wrong == [], f"{len(wrong)} of {len(plain)} axes:\n" + "\n".join(
        f"{axis}: Plotly {labels}, first paint {written}" for axis, labels, written in wrong
    )
    assert len(plain) > 50
    assert console_errors(dash_duo) == []


#: The y tick labels Plotly draws on each axis of ``arguments[0]`` ((low, high, step): ticks
#: at the multiples of step, as the chart's nice axes pin them), in a 400 x 260 chart.
PLOTLY_TICKS = """
const [axes, done] = arguments;
const div = document.createElement("div");
document.body.appendChild(div);
(async () => {
  const labels = [];
  for (const [low, high, step] of axes) {
    await window.Plotly.newPlot(div, [{x: [0, 1], y: [low, high], type: "scatter"}],
      {width: 400, height: 260, yaxis: {range: [low, high], tickmode: "linear", tick0: low,
                                        dtick: step}}, {staticPlot: true});
    // Without the zero-width spaces Plotly puts around a power of ten's exponent.
    labels.push(Array.from(div.querySelectorAll(".ytick text"))
      .map(t => t.textContent.replace(/\u200b/g, "")));
  }
  window.Plotly.purge(div);
  div.remove();
  done(labels);
})();
"""


def _written_ticks(axis: AxisRange) -> list[str]:
    """The first paint's labels of ``axis`` (:func:`~dash_insight.plugins.scalars.figures_preview.
    tick_text` of each tick inside it)."""
    ticks = _inside_ticks(axis)
    return [re.sub("</?sup>", "", tick_text(t, axis.step, widest_end(axis))) for t in ticks]


def test_first_paint_writes_ticks_as_plotly() -> None:
    """Plotly writes a tick as plain digits up to 9999 and with an SI suffix from 10^4, every
    decimal of a small step, a thousands separator in a number with decimals (its
    ``numSeparate``); far beyond its prefixes, as a power of ten (a label of about 9
    characters, ``tickChars``)."""
    assert tick_text(3000, 1000, 3000) == "3000"
    assert tick_text(0.0100005, 5e-7) == "0.0100005"
    assert tick_text(1000.05, 0.05) == "1,000.05"
    assert y_label_chars(nice_range(0, 1e300)) <= 10
    assert y_label_chars(nice_range(1e-300, 3e-300)) >= 5
