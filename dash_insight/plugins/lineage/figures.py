"""Pure builders of the lineage page (``/lineage``): columns and rows per tab, URL state, table
filters, the parallel-coordinates figure and its brushes, the grid's columns and rows, and the
overview figures. Data in, plain values or figures out: the page module only wires callbacks.

Model lineage columns follow MindInsight's model-traceback page (``Data processing`` = the
dataset mark, ``[U]`` user-defined, ``[M]`` metrics, loss, network, optimizer, sample counts,
learning rate, epoch, batch size, devices, model size in MB, loss function); data lineage columns
are the aligned pipeline stages (:func:`~dash_insight.plugins.lineage.query.align_stages`) plus the
scalar parameters of a stage that differ between jobs ("key parameters").
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard
from urllib.parse import quote, unquote

import numpy as np

from dash_insight.core.i18n import LazyString, lazy_gettext, ngettext
from dash_insight.core.i18n import gettext as _
from dash_insight.core.lineage_rows import METRIC_PREFIX, USER_DEFINED_PREFIX, row_columns
from dash_insight.core.run_marks import MAX_LABEL_CHARS, MAX_LABELS
from dash_insight.plugins.lineage import query as lineage_data
from dash_insight.plugins.lineage.service_remarks import MAX_REMARK_LENGTH
from dash_insight.web.components.run_colours import MISSING_COLOUR, VALUE_SCALE, colour_at
from dash_insight.web.components.svg_chart import (
    category_axis,
    label_room,
    message_chart,
    nice_ticks,
    number_axis,
    number_text,
)

TABS = ("model", "dataset")
MISSING = "n/a"
#: Label and field of the fixed model-lineage columns, in MindInsight's chart order.
#: Labels are translated when a tab's columns are built (per request); "loss", "epoch" and
#: "batch_size" are MindInsight's field names, shown as they are in both languages.
MODEL_FIELDS: tuple[tuple[str, str | LazyString], ...] = (
    ("dataset_mark", lazy_gettext("Data processing")),
    ("loss", "loss"),
    ("network", lazy_gettext("Network")),
    ("optimizer", lazy_gettext("Optimizer")),
    ("train_dataset_count", lazy_gettext("Training samples")),
    ("test_dataset_count", lazy_gettext("Test samples")),
    ("learning_rate", lazy_gettext("Learning rate")),
    ("epoch", "epoch"),
    ("batch_size", "batch_size"),
    ("device_num", lazy_gettext("Devices")),
    ("model_size", lazy_gettext("Model size (MB)")),
    ("loss_function", lazy_gettext("Loss function")),
    ("train_dataset_path", lazy_gettext("Training set path")),
    ("test_dataset_path", lazy_gettext("Test set path")),
)
#: Model columns not displayed until chosen (MindInsight has no such columns at all).
HIDDEN_BY_DEFAULT = ("train_dataset_path", "test_dataset_path")
#: Hyper-parameter axes the chart starts with at most (the metrics come after them).
MAX_DEFAULT_PARAMETERS = 10
#: Characters of a category tick (longer values end in "…"; the table has them whole).
_TICK_LABEL_LENGTH = 10
#: Columns of a line of an axis title, drawn at :data:`_LABEL_ANGLE` degrees so neighbours never
#: overlap (rotated titles are parallel: they stay apart while the axes are > 20 px apart); a
#: longer title wraps onto more lines (:func:`title_lines`), cut to nothing no more (#38 item 8).
_AXIS_TITLE_LENGTH = 22
#: Height of a line of an axis title (px, 11 px font).
_TITLE_LINE_HEIGHT = 13
_LABEL_ANGLE = -40
_LABEL_FONT_SIZE = 11
_COLOURSCALE = VALUE_SCALE
_MISSING_COLOUR = MISSING_COLOUR
_SINGLE_COLOUR = "#00a5a7"


@dataclass(frozen=True)
class Column:
    """One column of a tab: ``kind`` is ``number`` or ``category`` (strings, booleans...)."""

    id: str
    label: str
    kind: str
    group: str  # field, metric, user, stage, param
    hint: str = ""


@dataclass
class TabData:
    """Everything a tab shows: its columns and one row per job (``train_id`` + column ids)."""

    tab: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    default_columns: list[str]
    colour_columns: list[Column] = field(default_factory=list)
    #: Short tick labels of category values, per column (long JSON values of stages).
    labels: dict[str, dict[str, str]] = field(default_factory=dict)

    def column(self, column_id: str) -> Column | None:
        return next((c for c in [*self.columns, *self.colour_columns] if c.id == column_id), None)


# -- values ----------------------------------------------------------------------------------


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def cell_value(value: Any) -> Any:
    """A value as the table and the chart take it: finite numbers and strings as they are,
    booleans and containers as text (JSON), NaN/inf/None as None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return value if math.isfinite(value) else None
    return json.dumps(value, sort_keys=True, default=str)


def _kind(values: Iterable[Any]) -> str:
    present = [v for v in values if v is not None]
    return "number" if present and all(_is_number(v) for v in present) else "category"


def model_tab(entries: Sequence[lineage_data.LineageEntry]) -> TabData:
    """Model lineage: one row per job with the MindInsight fields, ``metric/<k>`` and
    ``user_defined/<k>`` (model size in MB, rounded to 0.01 as MindInsight shows it)."""
    marks = lineage_data.dataset_marks([e.row.get("dataset_graph") for e in entries])
    rows: list[dict[str, Any]] = []
    metric_keys: dict[str, None] = {}
    user_keys: dict[str, None] = {}
    for entry, mark in zip(entries, marks, strict=True):
        row: dict[str, Any] = {"train_id": entry.train_id, "dataset_mark": mark}
        stored = row_columns(entry.row)
        for field_id, _unused in MODEL_FIELDS[1:]:
            row[field_id] = cell_value(stored.get(field_id))
        size = stored.get("model_size")
        row["model_size"] = round(size / 1024 / 1024, 2) if _is_number(size) else None
        for column_id, value in stored.items():
            for prefix, keys in ((METRIC_PREFIX, metric_keys), (USER_DEFINED_PREFIX, user_keys)):
                if column_id.startswith(prefix):
                    keys[column_id[len(prefix) :]] = None
                    row[column_id] = cell_value(value)
        rows.append(row)

    def column(column_id: str, label: str | LazyString, group: str) -> Column:
        return Column(column_id, str(label), _kind(r.get(column_id) for r in rows), group)

    columns = [column("dataset_mark", MODEL_FIELDS[0][1], "field")]
    columns[0] = replace(
        columns[0],
        kind="category",
        hint=_("Jobs with the same mark used the same dataset pipeline"),
    )
    columns += [column(USER_DEFINED_PREFIX + k, f"[U]{k}", "user") for k in user_keys]
    columns += [column(METRIC_PREFIX + k, f"[M]{k}", "metric") for k in metric_keys]
    columns += [column(f, label, "field") for f, label in MODEL_FIELDS[1:]]
    defaults = default_columns([c for c in columns if c.id not in HIDDEN_BY_DEFAULT], rows)
    colour = [c for c in columns if c.kind == "number" and (c.group == "metric" or c.id == "loss")]
    return TabData("model", columns, rows, defaults, colour)


def is_metric(column: Column) -> bool:
    """Metrics (``[M]`` columns) and the training loss: what the jobs are compared by."""
    return column.group == "metric" or column.id == "loss"


def _distinct(rows: Sequence[Mapping[str, Any]], column_id: str) -> int:
    return len({_category_key(r.get(column_id)) for r in rows if r.get(column_id) is not None})


def default_columns(
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Any]],
    limit: int = MAX_DEFAULT_PARAMETERS,
) -> list[str]:
    """The chart's and table's columns before the user chooses: as MindInsight's model
    lineage, the hyper-parameters (fields, user-defined values, the data-processing mark)
    whose values differ between the jobs, then the metrics. A parameter the same in every job
    (or never given) tells nothing in a comparison. At most ``limit`` parameters, those given
    by the most jobs first (ties in column order); with a single job (nothing differs), the
    parameters it has. Metrics with no value in any job are left out too."""
    parameters = [c for c in columns if not is_metric(c)]
    present = {c.id: sum(r.get(c.id) is not None for r in rows) for c in columns}
    varying = [c for c in parameters if _distinct(rows, c.id) > 1]
    if not varying:
        varying = [c for c in parameters if present[c.id]]
    chosen = {c.id for c in sorted(varying, key=lambda c: -present[c.id])[:limit]}
    return [c.id for c in parameters if c.id in chosen] + [
        c.id for c in columns if is_metric(c) and present[c.id]
    ]


def dataset_tab(entries: Sequence[lineage_data.LineageEntry]) -> TabData:
    """Data lineage: one column per aligned pipeline stage (its parameters as JSON) and one per
    scalar stage parameter whose value differs between jobs; metrics and loss only colour."""
    pipelines = [lineage_data.pipeline_stages(e.row.get("dataset_graph")) for e in entries]
    stage_ids, assigned = lineage_data.align_stages(pipelines)
    rows: list[dict[str, Any]] = []
    params: dict[str, dict[str, list[Any]]] = {sid: {} for sid in stage_ids}
    names: dict[str, dict[str, None]] = {sid: {} for sid in stage_ids}
    for entry, stages, ids in zip(entries, pipelines, assigned, strict=True):
        row: dict[str, Any] = {"train_id": entry.train_id}
        for stage, stage_id in zip(stages, ids, strict=True):
            row[stage_id] = lineage_data.stage_text(stage.params)
            names[stage_id][stage.name] = None
            for key, value in stage.params.items():
                if key != "op_type" and (value is None or isinstance(value, str | int | float)):
                    params[stage_id].setdefault(key, []).append(value)
                    row[f"{stage_id} · {key}"] = cell_value(value)
        rows.append(row)
    columns = []
    labels = {}
    for stage_id in stage_ids:
        stage_names = list(names[stage_id])
        label = stage_id
        if len(stage_names) == 1 and "[" in stage_names[0]:
            label += " " + stage_names[0][stage_names[0].index("[") :]
        columns.append(Column(stage_id, label, "category", "stage", " / ".join(stage_names)))
        labels[stage_id] = stage_labels(
            [r[stage_id] for r in rows if stage_id in r],
            stage_names[0] if len(stage_names) == 1 else stage_id,
        )
        with_stage = [r for r in rows if stage_id in r]
        for key, values in params[stage_id].items():
            # A key parameter: its value differs between the jobs that have this stage.
            if len(values) < len(with_stage) or len({json.dumps(v) for v in values}) > 1:
                column_id = f"{stage_id} · {key}"
                columns.append(
                    Column(column_id, column_id, _kind(r.get(column_id) for r in rows), "param")
                )
    model = model_tab(entries)
    for row, model_row in zip(rows, model.rows, strict=True):
        row.update({c.id: model_row.get(c.id) for c in model.colour_columns})
    return TabData("dataset", columns, rows, [c.id for c in columns], model.colour_columns, labels)


def stage_labels(texts: Sequence[str], name: str) -> dict[str, str]:
    """Short labels for a stage's distinct parameter sets (JSON texts): the parameters that
    differ between them (``batch_size=64``), or the stage's name when there is only one."""
    distinct = list(dict.fromkeys(texts))
    if len(distinct) <= 1:
        return {text: name for text in distinct}
    parsed = []
    for text in distinct:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        parsed.append(value if isinstance(value, dict) else {"": text})
    keys = list(dict.fromkeys(k for p in parsed for k in p))
    differing = [
        k
        for k in keys
        if len({json.dumps(p.get(k), sort_keys=True, default=str) for p in parsed}) > 1
    ]
    out = {}
    for text, params in zip(distinct, parsed, strict=True):
        parts = [
            f"{k}={json.dumps(params.get(k), default=str)}" if k else str(params.get(k))
            for k in differing
            if k != "op_type"
        ]
        out[text] = ", ".join(parts) or name
    return out


def tab_data(tab: str, entries: Sequence[lineage_data.LineageEntry]) -> TabData:
    return dataset_tab(entries) if tab == "dataset" else model_tab(entries)


# -- URL state -------------------------------------------------------------------------------


#: Most ids a URL list (columns, show, hide) or filters it keeps: a hostile URL naming a million
#: jobs costs no more than a long real one.
MAX_STATE_ITEMS = 10_000


@dataclass(frozen=True)
class PageState:
    """The page's URL state (``?tab=&columns=&color=&sort=&filters=&show=&hide=&objective=
    &param=``); ``None`` = the default. Built and bounded in one place, :func:`parse_state`;
    changed with :func:`dataclasses.replace`."""

    tab: str = "model"
    columns: tuple[str, ...] | None = None
    color: str | None = None
    sort: tuple[str, str] | None = None
    filters: Mapping[str, list[Any]] = field(default_factory=dict)
    show: tuple[str, ...] | None = None
    hide: tuple[str, ...] = ()
    objective: str | None = None
    param: str | None = None
    #: The "show archived runs" switch: archived runs stay in the table and chart.
    archived: bool = False


def join_ids(ids: Iterable[str]) -> str:
    """Comma-separated ids, each with ``%`` and ``,`` escaped (ids may hold commas)."""
    return ",".join(quote(i, safe=" ./[]_-:·()") for i in ids)


def split_ids(text: str | None, limit: int = MAX_STATE_ITEMS) -> tuple[str, ...]:
    """The ids of :func:`join_ids`, at most ``limit`` of them (the first ones)."""
    if not text:
        return ()
    parts = text.split(",", limit)[:limit]
    return tuple(unquote(part) for part in parts if part)


def _valid_filter(value: Any) -> bool:
    if not isinstance(value, list) or len(value) > MAX_STATE_ITEMS:
        return False
    if value and all(isinstance(r, list) for r in value):  # numeric ranges
        return all(len(r) == 2 and all(b is None or _is_number(b) for b in r) for r in value)
    return all(v is None or isinstance(v, str | int | float) for v in value)


def _parse_sort(text: str | None, problems: list[str]) -> tuple[str, str] | None:
    if not text:
        return None
    column, _unused, direction = text.rpartition(":")
    if column and direction in ("asc", "desc"):
        return (column, direction)
    problems.append(_("sort must be <column>:asc or <column>:desc"))
    return None


def _parse_filters(text: str | None, problems: list[str]) -> dict[str, list[Any]]:
    if not text:
        return {}
    try:
        filters = json.loads(text)
    except ValueError:
        filters = None
    if (
        isinstance(filters, dict)
        and len(filters) <= MAX_STATE_ITEMS
        and all(isinstance(k, str) and _valid_filter(v) for k, v in filters.items())
    ):
        return filters
    problems.append(_("filters must be a JSON object of column -> ranges or values"))
    return {}


def parse_state(params: Mapping[str, str]) -> tuple[PageState, list[str]]:
    """The state from URL parameters and the problems found (ignored parameters)."""
    problems: list[str] = []
    tab = params.get("tab", "model")
    if tab not in TABS:
        problems.append(_("unknown tab {tab!r} (model or dataset)").format(tab=tab))
        tab = "model"
    state = PageState(
        tab=tab,
        columns=split_ids(params["columns"]) if "columns" in params else None,
        color=params.get("color") or None,
        sort=_parse_sort(params.get("sort"), problems),
        filters=_parse_filters(params.get("filters"), problems),
        show=split_ids(params["show"]) if "show" in params else None,
        hide=split_ids(params.get("hide")),
        objective=params.get("objective") or None,
        param=params.get("param") or None,
        archived=params.get("archived") == "1",
    )
    return state, problems


def state_search(state: PageState) -> str:
    """The query string of a state (defaults left out); inverse of :func:`parse_state`."""
    from dash_insight.web.url_state import make_search

    return make_search(
        {
            "tab": None if state.tab == "model" else state.tab,
            "columns": None if state.columns is None else (join_ids(state.columns) or ","),
            "color": state.color,
            "sort": f"{state.sort[0]}:{state.sort[1]}" if state.sort else None,
            "filters": json.dumps(state.filters, separators=(",", ":")) if state.filters else None,
            "show": None if state.show is None else (join_ids(state.show) or ","),
            "hide": join_ids(state.hide) if state.hide else None,
            "objective": state.objective,
            "param": state.param,
            "archived": "1" if state.archived else None,
        }
    )


def chosen_columns(data: TabData, state: PageState) -> list[Column]:
    """The displayed columns: the URL's (unknown ids dropped), else the tab's defaults."""
    known = {c.id: c for c in data.columns}
    ids = data.default_columns if state.columns is None else state.columns
    return [known[i] for i in ids if i in known]


def colour_column(data: TabData, state: PageState) -> Column | None:
    """The metric colouring the lines: the URL's, else the first metric, else loss."""
    if state.color:
        chosen = next((c for c in data.colour_columns if c.id == state.color), None)
        if chosen:
            return chosen
    return data.colour_columns[0] if data.colour_columns else None


# -- filters ---------------------------------------------------------------------------------


def _category_key(value: Any) -> str:
    return MISSING if value is None else str(value)


def row_passes(
    row: Mapping[str, Any], filters: Mapping[str, list[Any]], kinds: Mapping[str, str]
) -> bool:
    """Whether a row is inside every brush: numeric filters are ``[[low, high], ...]`` (``None``
    low = also rows without a value), category filters are lists of values (``"n/a"`` =
    missing). Filters on columns the tab does not have are ignored."""
    for column_id, wanted in filters.items():
        kind = kinds.get(column_id)
        if kind is None:
            continue
        value = row.get(column_id)
        if kind == "number" and wanted and all(isinstance(r, list) for r in wanted):
            if value is None:
                ok = any(low is None for low, _ in wanted)
            else:
                ok = any(
                    (low is None or value >= low) and (high is None or value <= high)
                    for low, high in wanted
                )
        else:
            ok = _category_key(value) in {_category_key(v) for v in wanted}
        if not ok:
            return False
    return True


def visible_rows(data: TabData, state: PageState) -> list[dict[str, Any]]:
    """Rows after "show selected" / "hide selected" (the chart's lines)."""
    rows = data.rows
    if state.show is not None:
        shown = set(state.show)
        rows = [r for r in rows if r["train_id"] in shown]
    hidden = set(state.hide)
    return [r for r in rows if r["train_id"] not in hidden]


def table_rows(data: TabData, state: PageState) -> list[dict[str, Any]]:
    """Visible rows inside every brush (the table)."""
    kinds = {c.id: c.kind for c in data.columns}
    return [r for r in visible_rows(data, state) if row_passes(r, state.filters, kinds)]


# -- parallel coordinates ------------------------------------------------------------------


def short_label(text: str, length: int = _TICK_LABEL_LENGTH) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


@dataclass(frozen=True)
class Axis:
    """How a column is drawn: ``categories`` for category axes (index = position), ``missing``
    the position of "n/a" on number axes with missing values (below the lowest value)."""

    id: str
    kind: str
    categories: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    missing: float | None = None
    low: float = 0.0
    high: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "categories": list(self.categories),
            "missing": self.missing,
            "low": self.low,
            "high": self.high,
        }  # no labels

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Axis:
        return cls(
            str(data["id"]),
            str(data["kind"]),
            tuple(data.get("categories") or ()),
            (),
            data.get("missing"),
            float(data.get("low", 0.0)),
            float(data.get("high", 1.0)),
        )


def axis_for(
    column: Column, rows: Sequence[Mapping[str, Any]], labels: Mapping[str, str] | None = None
) -> Axis:
    """The axis of a column over ``rows``: number axes span the values (an "n/a" position
    below them when some are missing); category axes list the values sorted, "n/a" first."""
    values = [r.get(column.id) for r in rows]
    if column.kind == "number":
        present = [float(v) for v in values if v is not None]
        low, high = (min(present), max(present)) if present else (0.0, 1.0)
        if high == low:
            pad = abs(low) * 0.1 or 1.0
            low, high = low - pad, high + pad
        missing = low - 0.12 * (high - low) if any(v is None for v in values) else None
        return Axis(column.id, "number", (), (), missing, low, high)
    categories = sorted({_category_key(v) for v in values if v is not None})
    if any(v is None for v in values):
        categories.insert(0, MISSING)
    labels = labels or {}
    return Axis(
        column.id, "category", tuple(categories), tuple(labels.get(c, c) for c in categories)
    )


def _axis_position(axis: Axis, value: Any) -> float:
    if axis.kind == "number":
        return axis.missing if value is None else float(value)  # type: ignore[return-value]
    return float(axis.categories.index(_category_key(value)))


def constraint_ranges(axis: Axis, wanted: list[Any] | None) -> list[list[float]] | None:
    """A filter as ranges of axis positions (None = no brush): number ranges as they are (a
    ``None`` low reaching the "n/a" position), categories +- half a step, neighbours merged."""
    if not wanted:
        return None
    ranges: list[list[float]] = []
    if axis.kind == "number":
        for low, high in (r for r in wanted if isinstance(r, list)):
            bottom = (
                (axis.missing if axis.missing is not None else axis.low)
                - 1e-9 * (axis.high - axis.low)
                if low is None
                else low
            )
            ranges.append([bottom, axis.high if high is None else high])
        return ranges or None
    chosen = sorted(
        axis.categories.index(_category_key(v))
        for v in wanted
        if _category_key(v) in axis.categories
    )
    if not chosen:
        return [[-0.4, -0.3]]  # a brush that keeps nothing, as the filter does
    for index in chosen:
        if ranges and index - 0.5 <= ranges[-1][1] + 1e-9:
            ranges[-1][1] = index + 0.5
        else:
            ranges.append([index - 0.5, index + 0.5])
    return ranges


def filter_from_ranges(axis: Axis, ranges: Sequence[Sequence[float]]) -> list[Any]:
    """Ranges of axis positions as a URL filter; inverse of :func:`constraint_ranges`."""
    if axis.kind == "number":
        out = []
        for low, high in ranges:
            low_value: float | None = float(low)
            if axis.missing is not None and low <= (axis.missing + axis.low) / 2:
                low_value = None  # the brush reaches the "n/a" position
            out.append([low_value, float(high)])
        return out
    chosen = []
    for index, category in enumerate(axis.categories):
        if any(low <= index <= high for low, high in ranges):
            chosen.append(category)
    return chosen


def axis_span(axis: Axis) -> tuple[float, float]:
    """The positions at the foot and the top of an axis: a number axis runs from its "n/a"
    position (or its lowest value) to its highest value; a category axis from its first to
    its last category (index), or -1..1 around a single category so it sits mid-height."""
    if axis.kind == "number":
        return (axis.missing if axis.missing is not None else axis.low), axis.high
    count = len(axis.categories)
    return (0.0, float(count - 1)) if count > 1 else (-1.0, 1.0)


def to_fraction(axis: Axis, position: float) -> float:
    """A position on an axis as its height above the foot: (position - foot) / (top - foot),
    0 at the foot, 1 at the top (the chart draws fractions, so every axis fills its height)."""
    bottom, top = axis_span(axis)
    return (position - bottom) / (top - bottom)


def from_fraction(axis: Axis, fraction: float) -> float:
    """Inverse of :func:`to_fraction`: foot + fraction * (top - foot)."""
    bottom, top = axis_span(axis)
    return bottom + fraction * (top - bottom)


def value_fraction(axis: Axis, value: Any) -> float:
    """Where a job's value sits on an axis (a missing number at the foot, below the ticks)."""
    return to_fraction(axis, _axis_position(axis, value))


def brush_fractions(axis: Axis, wanted: list[Any] | None) -> list[list[float]] | None:
    """The brushes (fraction ranges, foot = 0) that draw a URL filter on an axis; None = no
    brush. The ranges are :func:`constraint_ranges`' (a category brush spans its categories
    +- half a step, as Plotly's parcoords snapped them), clipped to the axis."""
    ranges = constraint_ranges(axis, wanted)
    if ranges is None:
        return None
    out = []
    for low, high in ranges:
        first, second = sorted((to_fraction(axis, low), to_fraction(axis, high)))
        out.append([min(max(first, 0.0), 1.0), min(max(second, 0.0), 1.0)])
    return out


def filter_from_fractions(axis: Axis, fractions: Sequence[Sequence[float]]) -> list[Any]:
    """A brush dragged on an axis (fraction ranges, foot = 0, in any order) as a URL filter;
    inverse of :func:`brush_fractions` up to the drag's precision. A short brush between two
    categories keeps the category nearest its middle (a filter that keeps nothing would have
    no brush to show it)."""
    ranges = [
        sorted((from_fraction(axis, float(a)), from_fraction(axis, float(b)))) for a, b in fractions
    ]
    wanted = filter_from_ranges(axis, ranges)
    if not wanted and ranges and axis.kind == "category" and axis.categories:
        middle = (ranges[0][0] + ranges[0][1]) / 2
        wanted = [axis.categories[min(max(round(middle), 0), len(axis.categories) - 1)]]
    return wanted


def brush_from_event(data: Any) -> tuple[int, str, list[list[float]] | None] | None:
    """The axis index, axis id and fraction ranges (None = cleared) of a brush event that
    ``assets/lineage-chart.js`` writes into the ``lineage-brush`` store (``{"axis": i, "id":
    ..., "ranges": [[a, b], ...] | null}``); None for anything malformed."""
    if not isinstance(data, dict):
        return None
    index, axis_id, ranges = data.get("axis"), data.get("id"), data.get("ranges")
    if (
        not isinstance(index, int)
        or isinstance(index, bool)
        or index < 0
        or not isinstance(axis_id, str)
    ):
        return None
    if ranges is None or ranges == []:
        return index, axis_id, None
    if not isinstance(ranges, list) or not all(
        isinstance(r, list) and len(r) == 2 and all(_is_number(v) for v in r) for r in ranges
    ):
        return None
    return index, axis_id, [[float(a), float(b)] for a, b in ranges]


def line_colours(
    rows: Sequence[Mapping[str, Any]], colour: Column | None
) -> tuple[list[str], dict[str, Any] | None]:
    """Each row's line colour and the colour bar: with a colour metric, value -> colour by
    (value - min) / (max - min) on the scale (grey for jobs without it), the bar listing the
    scale and nice ticks as fractions of it; without one, every line in the single colour."""
    if colour is None:
        return [_SINGLE_COLOUR] * len(rows), None
    values = [r.get(colour.id) for r in rows]
    present = [float(v) for v in values if _is_number(v)]
    if not present:
        return [_MISSING_COLOUR] * len(rows), None
    low, high = min(present), max(present)
    span = high - low
    colours = [
        _MISSING_COLOUR
        if not _is_number(v)
        else colour_at((float(v) - low) / span if span else 0.5)
        for v in values
    ]
    ticks = nice_ticks(low, high) if span else [low]
    bar = {
        "title": short_label(colour.label, 18),
        "fullTitle": colour.label,
        "stops": [[stop, hex_colour] for stop, hex_colour in _COLOURSCALE]
        if span
        else [[0.0, colour_at(0.5)], [1.0, colour_at(0.5)]],
        "ticks": [[(t - low) / span if span else 0.5, number_text(t)] for t in ticks],
        "missing": _MISSING_COLOUR if len(present) < len(values) else None,
    }
    return colours, bar


def value_text(value: Any) -> str:
    """A value whole, as the chart's hover shows it (ticks and cells round to 4 digits)."""
    if value is None:
        return _("no value")
    return repr(value) if isinstance(value, float) else str(value)


def hover_value(value: Any, labels: Mapping[str, str] | None = None) -> str:
    """A job's value in the chart's hover: whole (:func:`value_text`), or the short label of
    a pipeline stage's parameters (``batch_size=64``; the table has the JSON whole)."""
    if labels and isinstance(value, str) and value in labels:
        return labels[value]
    return value_text(value)


def axis_ticks(axis: Axis) -> list[list[Any]]:
    """An axis' ticks as ``[fraction, text, whole text]``: number axes at nice values inside
    the data, 4 significant digits (a job without a value draws its line to the axis' foot,
    below the lowest tick, unlabelled: a label there on every axis made a row of "n/a"); a
    category axis one tick per category, shortened to 10 characters ("n/a" unlabelled)."""
    if axis.kind == "number":
        return [
            [to_fraction(axis, t), number_text(t), number_text(t)]
            for t in nice_ticks(axis.low, axis.high)
        ]
    return [
        [to_fraction(axis, float(index)), short_label(label), label]
        for index, (category, label) in enumerate(
            zip(axis.categories, axis.labels or axis.categories, strict=True)
        )
        if category != MISSING
    ]


def title_lines(label: str) -> list[str]:
    """An axis title in lines of at most :data:`_AXIS_TITLE_LENGTH` columns, whole."""
    return wrap_columns(label, _AXIS_TITLE_LENGTH, hard=True) or [label]


def chart_margins(columns: Sequence[Column], coloured: bool) -> dict[str, int]:
    """Room around the axes: above them for the titles rotated :data:`_LABEL_ANGLE` degrees
    (sin(angle) * characters * 0.62 em of the longest line, and cos(angle) * line height for
    each line above the first), right of them for the colour bar and the last titles."""
    wrapped = [title_lines(c.label) for c in columns]
    longest = max((_columns(line) for lines in wrapped for line in lines), default=0)
    lines = max((len(lines) for lines in wrapped), default=1)
    angle = math.radians(-_LABEL_ANGLE)
    title_room = math.sin(angle) * longest * _LABEL_FONT_SIZE * 0.62
    title_room += math.cos(angle) * _TITLE_LINE_HEIGHT * (lines - 1)
    return {"l": 70, "r": 110 if coloured else 50, "t": int(title_room) + 28, "b": 24}


def parallel_chart(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[Column],
    colour: Column | None,
    filters: Mapping[str, list[Any]],
    labels: Mapping[str, Mapping[str, str]] | None = None,
    passing: Sequence[bool] | None = None,
    height: int = 440,
) -> tuple[dict[str, Any], list[Axis]]:
    """The parallel-coordinates chart that ``assets/lineage-chart.js`` draws in SVG (Plotly's
    WebGL parcoords froze the page for seconds without a GPU): one axis per column, one line
    per row at fractions of each axis' height, coloured by ``colour`` (grey = no value); the
    URL's filters drawn as brushes, rows outside them (``passing`` False) dimmed; each line's
    hover text (job and every value whole). With the axes, for turning brushes into filters."""
    labels = labels or {}
    axes = [axis_for(c, rows, labels.get(c.id)) for c in columns]
    message = None
    if not rows:
        message = _("No job to draw")
    elif not columns:
        message = _("No column chosen")
    colours, bar = line_colours(rows, colour)
    passing = list(passing) if passing is not None else [True] * len(rows)
    spec: dict[str, Any] = {
        "height": height,
        "margin": chart_margins(columns, bar is not None),
        "labelAngle": _LABEL_ANGLE,
        "message": message,
        "brushHint": _(
            "Drag along an axis to keep the jobs in a range (Shift: one more range); "
            "click a brushed axis to clear it"
        ),
        "axes": [] if message else _chart_axes(columns, axes, filters),
        "lines": []
        if message
        else [
            _chart_line(row, line_colour, bool(keep), columns, axes, labels)
            for row, line_colour, keep in zip(rows, colours, passing, strict=True)
        ],
        "colourbar": bar if message is None else None,
    }
    return spec, axes


def _chart_axes(
    columns: Sequence[Column], axes: Sequence[Axis], filters: Mapping[str, list[Any]]
) -> list[dict[str, Any]]:
    """The chart's axes as ``assets/lineage-chart.js`` draws them: title, ticks and the URL's
    filters as brushes (fractions of the axis)."""
    return [
        {
            "id": a.id,
            "kind": a.kind,
            "title": title_lines(c.label),
            "fullTitle": c.label,
            "ticks": axis_ticks(a),
            "brushes": brush_fractions(a, filters.get(c.id)) or [],
        }
        for c, a in zip(columns, axes, strict=True)
    ]


def _chart_line(
    row: Mapping[str, Any],
    colour: str,
    selected: bool,
    columns: Sequence[Column],
    axes: Sequence[Axis],
    labels: Mapping[str, Mapping[str, str]],
) -> dict[str, Any]:
    """One job's line: its place on each axis (a fraction of its height) and its hover text
    (the job, then every value whole)."""
    return {
        "id": row["train_id"],
        "colour": colour,
        "selected": selected,
        "points": [
            round(value_fraction(a, row.get(c.id)), 6) for c, a in zip(columns, axes, strict=True)
        ],
        "hover": [
            str(row["train_id"]),
            *(f"{c.label}: {hover_value(row.get(c.id), labels.get(c.id))}" for c in columns),
        ],
    }


# -- grid ------------------------------------------------------------------------------------


#: The table's header groups (a row above the column names), in their order: the metrics,
#: the hyper-parameters, the user-defined values, the dataset (its mark, sizes and paths on the
#: model tab; every column of the data lineage tab).
COLUMN_GROUPS: dict[str, LazyString] = {
    "metrics": lazy_gettext("Metrics"),
    "hyper": lazy_gettext("Hyper-parameters"),
    "user": lazy_gettext("User-defined"),
    "dataset": lazy_gettext("Dataset"),
}
_DATASET_FIELDS = frozenset(
    {
        "dataset_mark",
        "train_dataset_count",
        "test_dataset_count",
        "train_dataset_path",
        "test_dataset_path",
    }
)


def column_group(column: Column) -> str:
    """The header group of a column (a key of :data:`COLUMN_GROUPS`)."""
    if is_metric(column):
        return "metrics"
    if column.group == "user":
        return "user"
    if column.group in ("stage", "param") or column.id in _DATASET_FIELDS:
        return "dataset"
    return "hyper"


def grid_column_defs(columns: Sequence[Column], sort: tuple[str, str] | None) -> list[dict]:
    """AG Grid columns: the summary path (a link to the job's dashboard, drawn by
    ``LineageLink`` of ``assets/dashAgGridComponentFunctions-lineage.js``), the chosen columns
    under their group's header (:func:`column_group`), remark and tag (editable, pinned
    right), the labels. The column ``sort`` names (id, direction) is sorted. The functions
    named in ``{"function": ...}`` are in ``assets/dashAgGridFunctions-lineage.js``."""

    def with_sort(definition: dict[str, Any]) -> dict[str, Any]:
        if sort and sort[0] == definition["colId"]:
            definition["sort"] = sort[1]
        return definition

    groups: dict[str, list[dict[str, Any]]] = {group: [] for group in COLUMN_GROUPS}
    for column in columns:
        groups[column_group(column)].append(with_sort(_value_column_def(column)))
    # One header above the names per group, MindInsight's table: metrics first (what the jobs
    # are compared by), then the hyper-parameters, the user-defined values, the dataset.
    grouped = [
        {
            "groupId": f"group-{group}",
            "headerName": str(COLUMN_GROUPS[group]),
            "headerClass": "di-lineage-group",
            "children": children,
        }
        for group, children in groups.items()
        if children
    ]
    edges = (_summary_column_def(), _remark_column_def(), _tag_column_def(), labels_column_def())
    first, *last = (with_sort(definition) for definition in edges)
    return [first, *grouped, *last]


def _summary_column_def() -> dict[str, Any]:
    """The summary path: a link to the job's dashboard, pinned left."""
    return {
        "colId": "summary_dir",
        "field": "summary_dir",
        "headerName": _("Summary path"),
        "cellRenderer": "LineageLink",
        "pinned": "left",
        "minWidth": 200,
        "filter": "agTextColumnFilter",
        "filterValueGetter": {"function": "lineageTrainId(params)"},
        "comparator": {"function": "lineageCompareTrainIds"},
    }


def _value_column_def(column: Column) -> dict[str, Any]:
    """A chosen column: numbers filtered as numbers and shown to 4 significant digits, the
    others filtered as text."""
    definition: dict[str, Any] = {
        "colId": column.id,
        "field": column.id,
        "headerName": column.label,
        "headerTooltip": column.hint or column.label,
        "tooltipField": column.id,
        "filter": "agNumberColumnFilter" if column.kind == "number" else "agTextColumnFilter",
    }
    if column.kind == "number":
        definition["type"] = "numericColumn"
        # 4 significant digits in the cell (assets/dashAgGridFunctions-lineage.js, the
        # twin of number_text), the whole value in its tooltip and in the CSV.
        definition["valueFormatter"] = {"function": "lineageNumber(params)"}
    if column.group == "stage":
        definition["minWidth"] = 220
    return definition


def _remark_column_def() -> dict[str, Any]:
    """The remark: free text edited in the grid, pinned right."""
    return {
        "colId": "remark",
        "field": "remark",
        "headerName": _("Remark"),
        "editable": True,
        "pinned": "right",
        "minWidth": 160,
        "filter": "agTextColumnFilter",
        "cellEditor": "agTextCellEditor",
        "cellEditorParams": {"maxLength": MAX_REMARK_LENGTH},
        "headerTooltip": _("Double-click to edit; saved in the workspace"),
    }


def _tag_column_def() -> dict[str, Any]:
    """The tag: 0..10 stars chosen in the grid, pinned right."""
    return {
        "colId": "tag",
        "field": "tag",
        "headerName": _("Tag"),
        "editable": True,
        "pinned": "right",
        "width": 90,
        "filter": "agNumberColumnFilter",
        "cellEditor": "agSelectCellEditor",
        "cellEditorParams": {"values": list(range(11))},
        "valueFormatter": {"function": "lineageTagStars(params)"},
        "headerTooltip": _("Double-click to choose 1..10 (0 = none)"),
    }


def labels_column_def() -> dict[str, Any]:
    """The runs' labels (:mod:`~dash_insight.core.run_marks`): comma-separated, editable,
    filtered as text."""
    return {
        "colId": "labels",
        "field": "labels",
        "headerName": _("Labels"),
        "editable": True,
        "pinned": "right",
        "minWidth": 120,
        "filter": "agTextColumnFilter",
        "cellEditor": "agTextCellEditor",
        "cellEditorParams": {"maxLength": MAX_LABELS * (MAX_LABEL_CHARS + 2)},
        "headerTooltip": _("Short labels of the run, separated by commas; saved in the workspace"),
    }


def grid_row_data(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[Column],
    added_info: Mapping[str, Mapping[str, Any]],
    dashboard_href: Any,
    labels: Mapping[str, Sequence[str]] | None = None,
) -> list[dict[str, Any]]:
    """Row objects for the grid: ``train_id`` (the row id and the link's text), ``summary_dir``
    (the address of the job's dashboard, the link's target), the chosen columns' values,
    remark, tag and the run's ``labels`` (comma-separated)."""
    out = []
    for row in rows:
        train_id = row["train_id"]
        info = added_info.get(train_id) or {}
        item = {
            "train_id": train_id,
            "summary_dir": dashboard_href(train_id),
            "remark": info.get("remark", ""),
            "tag": info.get("tag", 0),
            "labels": ", ".join((labels or {}).get(train_id, ())),
        }
        item.update({c.id: row.get(c.id) for c in columns})
        out.append(item)
    return out


def sort_from_column_state(state: Sequence[Mapping[str, Any]] | None) -> tuple[str, str] | None:
    """The sorted column of an AG Grid ``columnState`` (the first by sort index)."""
    sorted_columns = [
        c for c in state or () if isinstance(c, Mapping) and c.get("sort") in ("asc", "desc")
    ]
    if not sorted_columns:
        return None
    first = min(sorted_columns, key=lambda c: c.get("sortIndex") or 0)
    return str(first["colId"]), str(first["sort"])


# -- overview (model tab) ------------------------------------------------------------------


#: The overview's charts are SVG charts (web.components.svg_chart; Plotly's build was loaded for
#: them alone): these build their specs.
_IMPORTANCE_COLOURS = (_SINGLE_COLOUR, "#e4b33a")
_SCATTER_COLOUR = "#d1495b"
#: Characters of a parameter's name beside its importance bars (the hover has it whole).
_BAR_LABEL_LENGTH = 18


def _bucket_label(left: float, width: float) -> str:
    return f"{left:.4g}~{left + width:.4g}"


def distribution_chart(target: Mapping[str, Any], height: int = 200) -> dict[str, Any]:
    """The objective's 5-bucket distribution (MindInsight's pie, drawn as bars): jobs per
    bucket, its range under it."""
    buckets = target.get("buckets") or []
    labels = [_bucket_label(b[0], b[1]) for b in buckets]
    counts = [int(b[2]) for b in buckets]
    return {
        "height": height,
        "margin": {"l": 36, "r": 8, "t": 8, "b": 60},
        "message": None,
        "legend": False,
        "x": category_axis(labels, angle=-30),
        "y": number_axis(0, max([1, *counts]) * 1.05, _("jobs"), integers=True),
        "series": [
            {
                "name": _("jobs"),
                "colour": _SINGLE_COLOUR,
                "mark": "bar",
                "points": [
                    [
                        i,
                        count,
                        [
                            ngettext("{range}: {count} job", "{range}: {count} jobs", count).format(
                                range=label, count=count
                            )
                        ],
                    ]
                    for i, (label, count) in enumerate(zip(labels, counts, strict=True))
                ],
            }
        ],
    }


def importance_rows(table: lineage_data.LineageTable, target: str) -> list[dict[str, Any]]:
    """Per hyper-parameter: |Pearson r| (MindInsight's importance, with its reason code) and
    |Spearman rho|, in MindInsight's order (-importance, user-defined last, name)."""
    out: list[dict[str, Any]] = []
    for name in table.hyper_param_names:
        value, reason = lineage_data.importance(table.frame, name, target)
        out.append(
            {
                "name": name,
                "pearson": value,
                "reason": reason,
                "spearman": lineage_data.spearman_importance(table.frame, name, target),
            }
        )
    out.sort(key=lambda p: (-p["pearson"], p["name"].startswith("["), p["name"]))
    return out


#: The fewest jobs with both values for which MindInsight computes an importance.
MIN_IMPORTANCE_JOBS = 3


def importance_message(rows: Sequence[Mapping[str, Any]], jobs: int) -> str | None:
    """Why there are no importance bars to read, or None when there are: below
    :data:`MIN_IMPORTANCE_JOBS` jobs MindInsight answers 0 for every parameter (reason 2),
    which drawn as bars is an empty chart."""
    if jobs < MIN_IMPORTANCE_JOBS:
        return _(
            "Parameter importance needs at least {least} jobs; the table shows {jobs}."
        ).format(least=MIN_IMPORTANCE_JOBS, jobs=jobs)
    if not rows:
        return _("No numeric hyper-parameter in the jobs shown.")
    if all(r["reason"] == lineage_data.REASON_SAMPLES_NOT_ENOUGH for r in rows):
        return _(
            "No hyper-parameter is known for {least} or more jobs that also have this objective."
        ).format(least=MIN_IMPORTANCE_JOBS)
    return None


#: Columns of a line of a chart's message (:func:`wrap_columns`): at 11 px it fits the
#: overview's 300 px plots, which cut one long line at both edges (#38 item 8).
MESSAGE_COLUMNS = 46


def _columns(text: str) -> int:
    """How many columns ``text`` takes: wide (CJK) characters two, the others one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


#: Where :func:`wrap_columns` cuts a word longer than a line.
_BREAK_AFTER = "_/.-,"
#: Punctuation that never starts a line (it stays with the character before it).
_NO_LINE_START = frozenset("、。，；：！？）」』")


def wrap_columns(text: str, columns: int = MESSAGE_COLUMNS, hard: bool = False) -> list[str]:
    """``text`` in lines of at most ``columns`` columns (:func:`_columns`), broken at spaces
    and between two wide characters (Chinese has no spaces, its closing punctuation never
    starts a line); a longer word keeps its line, or with ``hard`` is cut after its last
    ``_``, ``/``, ``.`` or ``-`` that fits (else at ``columns``)."""
    tokens = re.findall(r"\s+|[^\s\u2e80-\uffef]+|[\u2e80-\uffef]", text)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if token.isspace():
            line += " " if line else ""
            continue
        while hard and _columns(token) > columns:  # after its last "_", "/"... if it has one
            cut = max((token.rfind(ch, 0, columns) for ch in _BREAK_AFTER), default=-1) + 1
            cut = cut if cut > columns // 2 else columns
            if line.strip():
                lines.append(line.rstrip())
            lines.append(token[:cut])
            line, token = "", token[cut:]
        if line and _columns(line + token) > columns and token not in _NO_LINE_START:
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def importance_chart(
    rows: Sequence[Mapping[str, Any]], height: int | None = None, message: str | None = None
) -> dict[str, Any]:
    """Horizontal bars: |Pearson r| and |Spearman rho| per hyper-parameter, most important on
    top; parameters with too few samples show 0 and say so on hover. With ``message``
    (:func:`importance_message`) the chart says it instead."""
    if message is not None:
        return message_chart(wrap_columns(message), height or 140)
    names = [str(r["name"]) for r in rows]
    notes = {
        lineage_data.REASON_SAMPLES_NOT_ENOUGH: " " + _("(≤ 2 jobs with both values)"),
        lineage_data.REASON_CORRELATION_NAN: " " + _("(a constant column)"),
    }
    labels = [short_label(n, _BAR_LABEL_LENGTH) for n in names]
    series = []
    for (name, key), colour in zip(
        (("|Pearson r|", "pearson"), ("|Spearman ρ|", "spearman")), _IMPORTANCE_COLOURS, strict=True
    ):
        points = []
        for i, row in enumerate(rows):
            value = float(row[key] or 0)
            note = notes.get(row["reason"], "") if key == "pearson" else ""
            points.append([value, i, [names[i], f"{name}: {value:.4f}{note}"]])
        series.append({"name": name, "colour": colour, "mark": "bar", "points": points})
    return {
        # The legend sits in the top margin, above the plot: over it, it covered the top bars.
        "height": height or max(140, 46 * len(rows) + 60),
        "margin": {"l": label_room(labels), "r": 8, "t": 32, "b": 24},
        "message": None,
        "legend": True,
        "x": number_axis(0, 1.05),
        "y": category_axis(labels),
        "series": series,
    }


def scatter_chart(
    train_ids: Sequence[str],
    xs: Sequence[Any],
    ys: Sequence[Any],
    x_label: str,
    y_label: str,
    height: int = 240,
) -> dict[str, Any]:
    """One dot per job with both values: parameter (x) against objective (y), each axis
    widened by a twentieth of its span (the dots at its ends are drawn whole)."""
    jobs = [
        (str(t), x, y)
        for t, x, y in zip(train_ids, xs, ys, strict=True)
        if _is_number(x) and _is_number(y)
    ]
    x_values = [float(x) for _t, x, _y in jobs] or [0.0]
    y_values = [float(y) for _t, _x, y in jobs] or [0.0]
    points = [
        [float(x), float(y), [t, f"{x_label}: {value_text(x)}", f"{y_label}: {value_text(y)}"]]
        for t, x, y in jobs
    ]
    return {
        "height": height,
        "margin": {"l": 48, "r": 8, "t": 8, "b": 40},
        "message": None,
        "legend": False,
        "x": number_axis(min(x_values), max(x_values), x_label or None, pad=0.05),
        "y": number_axis(min(y_values), max(y_values), y_label or None, pad=0.05),
        "series": [{"name": y_label, "colour": _SCATTER_COLOUR, "mark": "dot", "points": points}],
    }


def finite_or_none(values: Iterable[Any]) -> list[Any]:
    return [v if v is None or not isinstance(v, float) or np.isfinite(v) else None for v in values]
