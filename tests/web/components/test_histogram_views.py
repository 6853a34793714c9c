"""Top / Front histogram figures (dash_insight.web.components.histogram_views)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest

from dash_insight.core.format.events import HistogramValue
from dash_insight.core.service import DataService
from dash_insight.core.settings import Settings
from dash_insight.plugins.histograms.query import histograms
from dash_insight.plugins.tensors.query import TensorQueries
from dash_insight.web.components import histogram_views as hv
from dash_insight.web.components.figures import histogram_ridge_figure, step_colours


def _outline(path: str) -> tuple[list[float], list[float]]:
    """The x and y of a band's SVG path ("Mx,y Lx,y ...")."""
    points = [point.split(",") for point in path.lstrip("M").split(" L")]
    return [float(x) for x, _ in points], [float(y) for _, y in points]


def _value(nan: int = 0, pos: int = 0, neg: int = 0) -> HistogramValue:
    return HistogramValue(
        buckets=np.zeros((0, 3)),
        nan_count=nan,
        pos_inf_count=pos,
        neg_inf_count=neg,
        max=0.0,
        min=0.0,
        sum=0.0,
        count=0,
    )


def _steps(
    counts: list[list[float]], walls: list[float] | None = None, steps: list[int] | None = None
) -> list[SimpleNamespace]:
    """HistogramStep-like items on a grid of unit-wide buckets starting at 0."""
    out = []
    for i, row in enumerate(counts):
        buckets = np.column_stack(
            [np.arange(len(row), dtype=float), np.ones(len(row)), np.asarray(row, dtype=float)]
        )
        out.append(
            SimpleNamespace(
                step=(steps or list(range(1, len(counts) + 1)))[i],
                wall_time=(walls or [100.0 + i for i in range(len(counts))])[i],
                buckets=buckets,
                value=_value(nan=i),
            )
        )
    return out


def test_series_from_histograms_keeps_steps_times_and_non_finite_counts() -> None:
    series = hv.series_from_histograms(_steps([[1, 2], [3, 4], [5, 6]]), total_steps=10)
    assert series.steps == (1, 2, 3)
    assert series.wall_times == (100.0, 101.0, 102.0)
    assert series.nan == (0, 1, 2) and series.pos_inf == (0, 0, 0)
    assert series.non_finite == {"NaN": 2, "+Inf": 0, "-Inf": 0}
    assert hv.shown_text(series) == "3 of 10 steps shown (evenly spread, last kept)"
    assert hv.shown_text(hv.series_from_histograms(_steps([[1]]))) == "1 step"


def test_series_from_tensor_histograms() -> None:
    buckets = np.array([[0.0, 1.0, 4.0], [1.0, 1.0, 2.0]])
    series = hv.series_from_tensor_histograms([(5, 10.0, buckets), (6, 11.0, buckets)])
    assert series.steps == (5, 6) and series.nan is None
    assert series.non_finite == {"NaN": 0, "+Inf": 0, "-Inf": 0}
    assert hv.shown_text(series) == "2 steps"


def test_offsets_follow_the_axis_quantity() -> None:
    """Earliest at 1 (back, top), latest at 0 (front), spaced by the axis value."""
    assert hv.offsets(np.array([1.0, 2.0, 11.0])).tolist() == [1.0, 0.9, 0.0]
    assert hv.offsets(np.array([5.0, 5.0, 5.0])).tolist() == [1.0, 0.5, 0.0]  # same second
    assert hv.offsets(np.array([7.0])).tolist() == [0.0]
    assert hv.offsets(np.array([])).tolist() == []


def test_axis_values_and_labels() -> None:
    series = hv.series_from_histograms(
        _steps([[1], [1], [1]], walls=[50.0, 52.5, 60.0], steps=[10, 20, 40])
    )
    assert hv.axis_values(series, "step").tolist() == [10, 20, 40]
    assert hv.axis_values(series, "relative").tolist() == [0.0, 2.5, 10.0]
    assert hv.axis_values(series, "absolute").tolist() == [50.0, 52.5, 60.0]
    assert hv.axis_label(40.0, "step") == "40"
    assert hv.axis_label(2.5, "relative") == "2.5s"
    assert len(hv.axis_label(60.0, "absolute")) == 8  # HH:MM:SS


def test_top_figure_bands_later_steps_in_front() -> None:
    series = hv.series_from_histograms(_steps([[1, 4, 2], [2, 8, 1], [0, 2, 6]]))
    figure = go.Figure(hv.top_figure(series, "step", height=300, theme="light"))
    fills = figure.layout.shapes
    hovers = [t for t in figure.data if t.mode == "none"]
    # One band per step (a path shape); one invisible trace tells the bucket under the
    # pointer of every band; an empty one carries the count scale.
    assert len(fills) == 3 and len(hovers) == 1 and len(figure.data) == 2
    outlines = [_outline(band.path) for band in fills]
    # Drawn earliest first so later bands cover earlier ones; bases go down with the step.
    bases = [ys[0] for _, ys in outlines]
    assert bases == sorted(bases, reverse=True) and bases[0] == 1.0 and bases[-1] == 0.0
    # Heights: the tag's tallest bucket (8) rises RIDGE_HEIGHT above its base.
    xs, ys = outlines[1]
    assert max(ys) - ys[0] == pytest.approx(hv.RIDGE_HEIGHT)
    # A band spans the buckets' outer edges, its top passes through the bucket centres; the
    # path stays open (its stroke not along the base line; SVG fills it as closed).
    assert xs == [0.0, 0.5, 1.5, 2.5, 3.0] and "Z" not in fills[1].path
    # Colours: later darker, opaque fills on the light theme.
    assert [band.line.color for band in fills] == step_colours(3)
    assert all(band.fillcolor.startswith("rgb(") for band in fills)
    # Step labels on the right axis.
    assert list(figure.layout.yaxis.ticktext) == ["1", "2", "3"]
    assert figure.layout.yaxis.side == "right"
    # Hover: centre, count, step and times, on the bucket centres of every band in turn,
    # labelled in the band's colour.
    hover = hovers[0]
    assert "center" in hover.hovertemplate and "count" in hover.hovertemplate
    assert hover.hoveron == "points"
    assert list(hover.x) == [0.5, 1.5, 2.5] * 3
    assert list(hover.y[6:]) == pytest.approx(_outline(fills[2].path)[1][1:-1])
    last = hover.customdata[8]  # the third bucket of the third step
    assert last[0] == 6 and last[1] == 3
    assert last[2] == 2.0  # seconds since the first step
    assert hover.text[8].endswith("<br>NaN 2") and "NaN" not in hover.text[0]
    assert list(hover.hoverlabel.bgcolor) == [c for c in step_colours(3) for _ in range(3)]


def test_margins_hold_the_labels() -> None:
    """The right margin grows with the longest step label (Top) or count label (Front), so
    Plotly's automargin does not draw the chart a second time."""
    short = hv.series_from_histograms(_steps([[1], [2]], steps=[1, 2]))
    long = hv.series_from_histograms(_steps([[1], [2]], steps=[1, 1234567]))
    right = {
        name: hv.top_figure(series)["layout"]["margin"]["r"]
        for name, series in (("long", long), ("short", short))
    }
    assert right["long"] - right["short"] == 6 * hv.LABEL_CHAR_PX
    assert (
        hv.front_figure(short)["layout"]["margin"]["r"] == hv.label_margin(3, right_title=True)["r"]
    )
    assert [hv.count_label_chars(peak) for peak in (0, 8, 150, 15000, 2e6)] == [3, 3, 3, 4, 4]


def test_top_figure_relative_axis_spacing_and_ticks() -> None:
    series = hv.series_from_histograms(_steps([[1], [1], [1]], walls=[0.0, 1.0, 10.0]))
    figure = go.Figure(hv.top_figure(series, "relative"))
    assert [round(_outline(band.path)[1][0], 3) for band in figure.layout.shapes] == [1.0, 0.9, 0.0]
    assert list(figure.layout.yaxis.ticktext) == ["0s", "2s", "4s", "6s", "8s", "10s"]
    assert list(figure.layout.yaxis.tickvals) == pytest.approx([1.0, 0.8, 0.6, 0.4, 0.2, 0.0])
    assert figure.layout.meta == {"view": "top", "axis": "relative"}
    assert go.Figure(hv.top_figure(series, "bogus")).layout.meta["axis"] == "step"


def test_top_figure_labels_at_most_max_ticks() -> None:
    series = hv.series_from_histograms(_steps([[i % 3 + 1] for i in range(60)]))
    ticks = list(go.Figure(hv.top_figure(series)).layout.yaxis.ticktext)
    assert ticks == ["10", "20", "30", "40", "50", "60"]


def test_top_figure_step_labels_are_evenly_spaced() -> None:
    """Steps 1, 2, 4, ..., 32 (MindSpore's collect_freq after the first step) were labelled
    1, 4, 8, 10, 14, ... at uneven gaps; round steps sit at even gaps."""
    steps = [1, *range(2, 33, 2)]
    series = hv.series_from_histograms(_steps([[1, 2]] * len(steps), steps=steps))
    axis = go.Figure(hv.top_figure(series)).layout.yaxis
    assert list(axis.ticktext) == ["5", "10", "15", "20", "25", "30"]
    gaps = np.diff(axis.tickvals)
    assert gaps == pytest.approx([gaps[0]] * len(gaps))


def test_nice_ticks() -> None:
    assert hv.nice_ticks(1, 32, 10, integer=True) == [5, 10, 15, 20, 25, 30]
    assert hv.nice_ticks(1, 3, 10, integer=True) == [1, 2, 3]  # never between steps
    assert hv.nice_ticks(0, 0.37, 4) == pytest.approx([0, 0.1, 0.2, 0.3])
    assert hv.nice_ticks(0, 1234, 3, integer=True) == [0, 500, 1000]
    assert hv.nice_ticks(-7, 7, 5) == [-5, 0, 5]
    assert hv.nice_ticks(5, 5, 3) == [] and hv.nice_ticks(0, float("inf"), 3) == []
    for end in (3, 17, 99, 1e6, 0.003):
        assert 1 <= len(hv.nice_ticks(0, end, 4)) <= 4


def test_top_figure_count_scale_on_the_left() -> None:
    """The height of a band is a count: a scale on the left from the front band's base line,
    shared by every band (each rises from its own base line as much)."""
    series = hv.series_from_histograms(_steps([[100, 400], [1200, 1500]]))
    figure = go.Figure(hv.top_figure(series))
    scale = figure.layout.yaxis2
    assert scale.side == "left" and scale.overlaying == "y"
    assert list(scale.ticktext) == ["0", "500", "1k", "1.5k"]
    view = hv.top_view(series)
    assert list(scale.tickvals) == pytest.approx([c * view.scale for c in (0, 500, 1000, 1500)])
    assert scale.tickvals[-1] == pytest.approx(hv.RIDGE_HEIGHT)  # the tallest bucket's top
    assert list(scale.range) == list(figure.layout.yaxis.range)
    assert figure.layout.margin.l >= 14 + hv.LABEL_CHAR_PX * 4
    assert hv.count_tick_text(2_000_000) == "2M" and hv.count_tick_text(40) == "40"


def test_front_figure_overlays_lines_with_count_axis() -> None:
    series = hv.series_from_histograms(_steps([[1, 4.7], [2, 8]]))
    figure = go.Figure(hv.front_figure(series, height=None))
    assert [t.mode for t in figure.data] == ["lines", "lines"]
    assert list(figure.data[0].y) == [1.0, 4.0]  # floor(count), as MindInsight draws
    assert list(figure.data[1].x) == [0.5, 1.5]
    assert figure.data[1].line.color == step_colours(2)[1]  # the later one darker
    assert figure.layout.yaxis.side == "right"
    assert figure.layout.height is None  # fills its container (full screen)
    assert go.Figure(hv.histogram_figure(series, "front")).layout.meta == {"view": "front"}
    assert hv.histogram_figure(series, "top", "absolute")["layout"]["meta"]["axis"] == "absolute"


def test_raw_buckets_of_different_widths_are_drawn() -> None:
    items = [
        SimpleNamespace(
            step=1,
            wall_time=1.0,
            value=_value(),
            buckets=np.array([[0.0, 1.0, 3.0], [1.0, 1.0, 1.0]]),
        ),
        SimpleNamespace(
            step=2,
            wall_time=2.0,
            value=_value(),
            buckets=np.array([[-1.0, 0.5, 2.0], [-0.5, 0.5, 2.0], [0.0, 0.5, 1.0]]),
        ),
    ]
    series = hv.series_from_histograms(items)
    figure = go.Figure(hv.front_figure(series))
    assert len(figure.data[0].x) == 2 and len(figure.data[1].x) == 3
    assert list(figure.layout.xaxis.range) == [-1.0, 2.0]


def test_empty_series_and_empty_steps() -> None:
    empty = hv.HistogramSeries(steps=(), wall_times=(), buckets=())
    for figure in (go.Figure(hv.top_figure(empty)), go.Figure(hv.front_figure(empty))):
        assert figure.layout.annotations[0].text == "no data"
    series = hv.series_from_histograms(
        [SimpleNamespace(step=1, wall_time=0.0, value=_value(20), buckets=np.zeros((0, 3)))]
    )
    assert go.Figure(hv.top_figure(series)).data == ()
    assert series.non_finite["NaN"] == 20


def test_band_fill() -> None:
    assert hv.band_fill("rgb(0, 120, 122)", None, 0.5) == "rgba(0, 120, 122, 0.5)"
    assert hv.band_fill("rgb(0, 0, 0)", "light", 0.25) == "rgb(191, 191, 191)"
    assert hv.band_fill("rgb(255, 255, 255)", "dark", 0.0) == "rgb(32, 35, 42)"


def test_dashboard_ridge_figure_still_works() -> None:
    """figures.histogram_ridge_figure keeps its signature for the dashboard card."""
    figure = go.Figure(histogram_ridge_figure(_steps([[1, 2], [2, 1]]), height=240))
    assert figure.layout.height == 240
    assert len(figure.layout.shapes) == 2  # static: no hover trace, the count scale only
    assert [trace.yaxis for trace in figure.data] == ["y2"]
    assert go.Figure(histogram_ridge_figure([], height=200)).data == ()


def test_figures_from_the_corpus(corpus: Path, tmp_path: Path) -> None:
    service = DataService(Settings(str(corpus), workspace=str(tmp_path / "ws"), reload_interval=0))
    service.start()
    try:
        assert service.loader.wait_rounds(1)
        provider = service.provider
        steps = histograms(provider, "./ops_all", "hist/with_nan_inf", max_steps=20)
        series = hv.series_from_histograms(
            steps, len(provider.value_steps("./ops_all", "histogram", "hist/with_nan_inf"))
        )
        assert len(series) == 20 and series.total_steps == 51
        assert series.non_finite == {"NaN": 7, "+Inf": 3, "-Inf": 2}
        assert {len(b) for b in series.buckets} == {30}  # one shared grid, at most 30 bins
        figure = go.Figure(hv.top_figure(series))
        assert len(figure.layout.shapes) == 20 and len(figure.data) == 2  # bands; scale, hover
        tensor = hv.series_from_tensor_histograms(
            TensorQueries(provider).histograms("./ops_in_net", "op/logits").rows
        )
        assert len(go.Figure(hv.front_figure(tensor)).data) == len(tensor) == 17
    finally:
        service.close()


def test_unvalidated_figures_pass_plotly_validation() -> None:
    """The builders answer plain dicts, unvalidated for speed; what they build is valid."""
    series = hv.series_from_histograms(_steps([[1, 4, 2], [2, 8, 1]]))
    for figure in (hv.top_figure(series, "absolute", theme="dark"), hv.front_figure(series)):
        checked = go.Figure(figure)  # validates every property
        assert len(checked.data) == len(figure["data"])
        assert checked.to_plotly_json()["layout"]["meta"] == figure["layout"]["meta"]


def test_layout_updates_merge_as_update_layout_does() -> None:
    """``_figure`` merges its layout updates before building the figure (no validation pass);
    the layout is the one ``update_layout`` on the built figure gave."""
    from dash_insight.web.components.figures import small_layout

    layout = small_layout(height=200)
    updates = {
        "hovermode": "closest",
        "margin": {"l": 3, "r": 40},
        "xaxis": {"range": [0, 1], "title": {"text": "x"}},
        "yaxis": {"side": "right", "ticktext": ["a"], "tickvals": [0.5]},
        "meta": {"view": "top"},
    }
    expected = go.Figure(layout=layout)
    expected.update_layout(**updates)
    assert hv._figure([], layout, **updates)["layout"] == expected.to_dict()["layout"]
    assert hv._merged({"a": {"b": 1, "c": 2}, "d": 1}, {"a": {"c": 3}, "d": {"e": 1}}) == {
        "a": {"b": 1, "c": 3},
        "d": {"e": 1},
    }
