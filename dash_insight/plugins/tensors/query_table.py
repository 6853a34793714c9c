"""The tensor table's data (pure): dims boxes, the values of a slice as AG Grid rows and
columns or, for a small slice, as a plain table's, the grid's context, the statistics panel
and the limit message.

The grid (and the plain table) formats and colours cells in the browser with the functions of
``assets/dashAgGridFunctions-tensors.js`` named below; ``json_values`` sends values those
functions understand (bools, ints, floats, and MindInsight's "NAN" / "INF" / "-INF" strings).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dash_insight.core.i18n import format_number
from dash_insight.core.i18n import gettext as _
from dash_insight.plugins.tensors.query_tensor import MAX_RESPONSE_VALUES, default_dims, parse_dims

#: The grid's cells: functions of ``assets/dashAgGridFunctions-tensors.js`` (they read the
#: tensor's kind, the format, the decimals and the colour scale from the grid's context).
VALUE_FORMATTER = {"function": "tensorValue(params)"}
CELL_STYLE = {"function": "tensorCellStyle(params)"}
ROW_INDEX = {"function": "tensorRowIndex(params)"}
#: The most values of a slice shown in a plain HTML table (:func:`plain_table`: every cell in
#: the page, drawn in a few milliseconds); a larger slice is an AG Grid, which creates only the
#: cells on screen but costs the page 0.1-0.2 s of main thread to mount.
PLAIN_MAX_VALUES = 2_000


def start_dims(shape: tuple[int, ...]) -> str:
    """The dims a card opens with: MindInsight's defaults, rows cut to fit 100,000 values."""
    return default_dims(shape, max_values=MAX_RESPONSE_VALUES)


def dims_items(dims: str, rank: int) -> list[str]:
    """The per-dimension boxes of a dims string (``"[0, :, 2:5]"`` -> ``["0", ":", "2:5"]``);
    padded with ``":"`` / cut to ``rank`` boxes when the string does not fit."""
    inner = dims.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    items = [item.strip() for item in inner.split(",")] if inner.strip() else []
    return (items + [":"] * rank)[:rank]


def dims_from_items(items: list[str | None]) -> str:
    """``["0", ":", ""]`` -> ``"[0,:,]"`` (empty boxes kept so the grammar reports them)."""
    return "[" + ",".join((item or "").strip() for item in items) + "]"


def selected_count(shape: tuple[int, ...], dims: str) -> int:
    """How many values ``dims`` selects from a tensor of ``shape`` (no data touched)."""
    index = parse_dims(dims, shape)
    return int(np.broadcast_to(np.zeros((), np.uint8), shape)[index].size)


def axis_indices(item: int | slice, size: int) -> list[int]:
    """The tensor indices a sliced dimension shows (``slice(2, 5)`` -> ``[2, 3, 4]``)."""
    if isinstance(item, slice):
        return list(range(*item.indices(size)))
    return [item % size if size else item]


def json_values(array: np.ndarray) -> list[Any]:
    """The values of ``array`` (flattened) for the browser: bools as bools, integers as ints,
    float32 as their shortest representation at the recorded precision (``0.1`` -> 0.1, not
    0.10000000149011612), float16 and float64 as their exact binary values, NaN / ±Inf as
    "NAN" / "INF" / "-INF" (MindInsight's strings).

    float16 is sent exactly, as MindInsight does (``float(value)``): its shortest form has only
    3-4 digits (1.0048828125 is "1.005"), which the table's 5 decimals would show as 1.00500, a
    precision the value does not have; the exact value shows as MindInsight shows it, 1.00488."""
    flat = np.asarray(array).reshape(-1)
    if flat.dtype.kind != "f":
        return flat.tolist()
    finite = np.isfinite(flat)
    if flat.dtype == np.float32:
        values: list[Any] = (
            [float(text) for text in flat.astype(str)]
            if finite.all()
            else [
                float(text) if ok else None
                for text, ok in zip(flat.astype(str), finite, strict=True)
            ]
        )
    else:
        values = flat.tolist()
    if not finite.all():
        for position in np.flatnonzero(~finite).tolist():
            value = flat[position]
            values[position] = "NAN" if np.isnan(value) else ("INF" if value > 0 else "-INF")
    return values


def value_kind(dtype: np.dtype) -> str:
    """``"b"`` (bool), ``"i"`` (integer), ``"s"`` (text) or ``"f"`` (float) for the grid's
    formatter."""
    if dtype.kind in "OUS":
        return "s"
    return "b" if dtype.kind == "b" else ("i" if dtype.kind in "iu" else "f")


def colour_scale(values: np.ndarray) -> float:
    """Largest finite |value| (0 when none, or for bool tensors): the colour scale's end."""
    flat = np.asarray(values).reshape(-1)
    if flat.dtype.kind in "bOUS" or not flat.size:  # bools and text are not coloured
        return 0.0
    if flat.dtype.kind == "f":
        flat = flat[np.isfinite(flat)]
        if not flat.size:
            return 0.0
    return float(np.abs(flat.astype(np.float64)).max())


def slice_axes(
    values: np.ndarray, index: tuple[int | slice, ...], shape: tuple[int, ...]
) -> tuple[list[int], list[int], np.ndarray]:
    """(row indices, column indices, values as rows x columns) of a slice: a 2-D slice as rows
    x columns, 1-D as one column, 0-D as one cell; the indices are the tensor's own, -1 where
    the slice has no such axis (one column "value", one row without an index)."""
    sliced = [(axis, item) for axis, item in enumerate(index) if isinstance(item, slice)]
    if len(sliced) >= 2:
        rows = axis_indices(sliced[0][1], shape[sliced[0][0]])
        columns = axis_indices(sliced[1][1], shape[sliced[1][0]])
    elif len(sliced) == 1:
        rows, columns = axis_indices(sliced[0][1], shape[sliced[0][0]]), [-1]
    else:
        rows, columns = [-1], [-1]
    return rows, columns, np.asarray(values).reshape(len(rows), len(columns))


def column_header(column: int) -> str:
    """A value column's header: the tensor's index, "value" for a slice of one column."""
    return "value" if column < 0 else str(column)


def plain_table(
    values: np.ndarray,
    selection: tuple[tuple[int | slice, ...], tuple[int, ...]],
    context: dict[str, Any],
    empty: str,
) -> dict[str, Any]:
    """A small slice (at most :data:`PLAIN_MAX_VALUES`) as ``assets/tensor-tables.js`` draws it
    in a plain HTML table: ``rows`` (row indices, -1: none), ``columns`` (headers),
    ``values`` (row after row, :func:`json_values`), the grid's ``context``
    (:func:`grid_context`: the same cell functions format and colour it) and the text shown
    when the slice has no values (``empty``). ``selection`` is the parsed dims and the
    tensor's shape."""
    rows, columns, grid = slice_axes(values, *selection)
    return {
        "rows": rows,
        "columns": [column_header(c) for c in columns],
        "values": json_values(grid),
        "context": context,
        "empty": empty,
    }


def table_data(
    values: np.ndarray, index: tuple[int | slice, ...], shape: tuple[int, ...]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """AG Grid ``rowData`` and ``columnDefs`` of a slice (:func:`slice_axes`); row and column
    headers are the tensor's own indices."""
    rows, columns, grid = slice_axes(values, index, shape)
    flat = json_values(grid)
    width = len(columns)
    keys = [f"c{j}" for j in range(width)]
    row_data = [
        dict(zip(keys, flat[i * width : (i + 1) * width], strict=True), row=r)
        for i, r in enumerate(rows)
    ]
    column_defs: list[dict[str, Any]] = [
        {
            "field": "row",
            "headerName": "",
            "pinned": "left",
            "width": 64,
            "valueFormatter": ROW_INDEX,
            "cellStyle": None,
            "cellClass": "di-vt-index",
        }
    ]
    column_defs += [
        {"field": key, "headerName": column_header(c)} for key, c in zip(keys, columns, strict=True)
    ]
    return row_data, column_defs


def grid_context(kind: str, fmt: str, dec: int, scale: float) -> dict[str, Any]:
    return {"kind": kind, "fmt": fmt, "dec": dec, "scale": scale}


def too_large_message(dims: str, count: int) -> str:
    """MindInsight's limit message, with the size asked for (in the current language)."""
    return _(
        "The requested data exceeds the upper limit {limit}: the dims {dims} select "
        "{count} values. Shard or query other dimensions, e.g. '0:100' instead of ':'."
    ).format(limit=format_number(MAX_RESPONSE_VALUES), dims=dims, count=format_number(count))


def format_statistic(value: float, kind: str = "f", fmt: str = "value", dec: int = 5) -> str:
    """A statistic in the style of the table's cells (``dagfuncs.tensorValue``), so that the
    panel and the table read alike: an integer tensor's extremes exactly, every other value
    with ``dec`` decimals, fixed or, with ``fmt`` "sci", scientific as JavaScript's
    ``toExponential`` writes it (``3.45726e+0``). Fixed values group thousands like the
    counts beside them (``29,750.00000`` beside ``59,500``); NaN and infinities by name."""
    if kind != "f" and float(value).is_integer():
        return f"{int(value):,}"
    if fmt == "sci" and math.isfinite(value):
        mantissa, exponent = f"{value:.{dec}e}".split("e")
        return f"{mantissa}e{exponent[0]}{int(exponent[1:])}"
    return f"{value:,.{dec}f}"


def statistics_items(
    stats: dict[str, Any], kind: str, fmt: str = "value", dec: int = 5
) -> list[tuple[str, str]]:
    """(label, text) pairs of the statistics panel (MindInsight's max/min/mean/count/NaN/±Inf
    and sign counts, named for what they count), values in the table's format ``fmt`` with
    ``dec`` decimals (:func:`format_statistic`); a tensor of strings has its count only."""
    if stats.get("is_text"):
        return [("count", f"{stats['count']:,}"), ("type", "text")]
    items = [
        ("max", format_statistic(stats["max"], kind, fmt, dec)),
        ("min", format_statistic(stats["min"], kind, fmt, dec)),
        ("mean", format_statistic(stats["avg"], "f", fmt, dec)),
        ("count", f"{stats['count']:,}"),
    ]
    if stats.get("is_bool"):
        items += [("true", f"{stats['true_count']:,}"), ("false", f"{stats['false_count']:,}")]
    else:
        items += [
            ("negative", f"{stats['neg_zero_count']:,}"),
            ("zero", f"{stats['zero_count']:,}"),
            ("positive", f"{stats['pos_zero_count']:,}"),
        ]
    if kind == "f":
        items += [
            ("NaN", f"{stats['nan_count']:,}"),
            ("+Inf", f"{stats['pos_inf_count']:,}"),
            ("-Inf", f"{stats['neg_inf_count']:,}"),
        ]
    return items
