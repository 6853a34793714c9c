"""Tensor algorithms for the tensor page: dims strings, slicing, statistics, histograms, JSON.

MindInsight 2.3.1 behaviour (``utils/tensor.py::TensorUtils``, ``tensor_container.py``,
``processors/tensor_processor.py``; spec §3.5, §4.2, §4.3):

* the table view asks for one step and a ``dims`` string such as ``[0, :, 2:5]``: one item per
  dimension, an ``int`` or a Python slice, at most two slices, at most 100,000 values returned;
* statistics count NaN/±Inf apart and take min/max/avg over the finite values;
* a tensor's histogram is binned from its values, then re-binned like histogram steps.

Arrays keep the dtype they were recorded with (:class:`~.events.TensorValue`);
MindInsight turned every tensor into float64, which shows here only where stated. Everything here
is pure: no file reading, no Dash.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dash_insight.core.histogram_bins import OriginalHistogram, display_bins

#: MindInsight's table view answers at most this many values (error 50545013,
#: ``MaxResponseDataExceeded``; ``MAX_TENSOR_RESPONSE_DATA_SIZE``).
MAX_RESPONSE_VALUES = 100_000
#: At most this many items of a dims string may be slices (``MAX_DIMENSIONS_FOR_TENSOR``).
MAX_SLICED_DIMS = 2
#: The table shows at most this many columns; the default dims cut the last dimension to it.
MAX_DISPLAY_COLUMNS = 1000
#: MindInsight replaces tensors with more values by an empty array at load (error 50545016,
#: ``TensorTooLarge``; ``MAX_TENSOR_COUNT``).
MAX_TENSOR_VALUES = 10_000_000

_INT = re.compile(r"[+-]?\d+")


def value_count(dims: Sequence[int]) -> int:
    """How many values a tensor of ``dims`` holds: ``prod(dims)`` in Python integers (1 for a
    rank-0 tensor), exact for any dims a file can hold, where ``np.prod`` wraps around in int64
    (``[2**62, 2**62, 16]`` gave 0, so an absurd tensor passed the size check). ValueError for a
    negative dim: no tensor has that shape (MindInsight failed to reshape such a value)."""
    if any(int(d) < 0 for d in dims):
        raise ValueError(f"the tensor has negative dims {[int(d) for d in dims]}")
    return math.prod(int(d) for d in dims)


class DimsError(ValueError):
    """A dims string that cannot select data from the tensor; the message says why and how to fix
    it (MindInsight answers these with ParamValueError, ``50540002``)."""


class ResponseTooLargeError(DimsError):
    """A valid dims string selecting more values than one answer may hold (MindInsight
    ``50545013``, ``MaxResponseDataExceeded``)."""


# --- dims strings --------------------------------------------------------------------------------


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _parse_int(text: str, spec: str, what: str) -> int:
    """``text`` as a decimal integer (optional sign, surrounding spaces allowed) or DimsError."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise DimsError(
            f"Invalid dims {spec!r}: {what} {text!r} is not an integer. Each item must be an "
            "integer index (0, -1) or a slice start:stop[:step] such as ':' or '2:5'."
        )
    return int(text)


def _parse_item(item: str, position: int, spec: str) -> int | slice:
    """One dims item: ``int`` or ``start:stop[:step]`` with empty parts as None."""
    text = item.strip()
    if not text:
        raise DimsError(
            f"Invalid dims {spec!r}: item {position + 1} is empty. Give an index such as 0 or a "
            "slice such as ':' for every dimension."
        )
    if ":" not in text:
        return _parse_int(text, spec, f"item {position + 1}")
    parts = text.split(":")
    if len(parts) > 3:
        raise DimsError(
            f"Invalid dims {spec!r}: item {position + 1} {text!r} has more than two ':'. "
            "A slice is start:stop or start:stop:step."
        )
    bounds = [
        None if not part.strip() else _parse_int(part, spec, f"slice bound in item {position + 1}")
        for part in parts
    ]
    if len(bounds) == 3 and bounds[2] == 0:
        raise DimsError(f"Invalid dims {spec!r}: item {position + 1} {text!r} has step 0.")
    return slice(*bounds)


def parse_dims(spec: str, shape: tuple[int, ...]) -> tuple[int | slice, ...]:
    """Parse a dims string for a tensor of ``shape`` into a numpy index.

    Grammar (MindInsight ``TensorUtils.parse_shape`` + ``get_specific_dims_data``): the string,
    spaces allowed anywhere around items, starts with ``[`` and ends with ``]``; items are
    comma-separated, each an ``int`` or a Python slice ``a:b[:c]`` (empty parts = None, negatives
    allowed); at most :data:`MAX_SLICED_DIMS` items contain ``:``; the item count equals the rank
    (``[]`` for a rank-0 tensor). Checked in that order, then (doing better than MindInsight's
    bare IndexError) each integer index must lie in ``-size <= i < size`` and a step must not be
    0. Any failure raises :class:`DimsError` with a message meant for the user.

    ``parse_dims("[0, 0, :-1, :]", (2, 3, 4, 5)) == (0, 0, slice(None, -1), slice(None))``;
    ``[0,:]`` on rank 4 (rank mismatch) and ``[0,:,:,:]`` (three slices) are errors.
    """
    if not isinstance(spec, str):
        raise DimsError(f"Invalid dims: expected a string such as '[0, :, :]', got {spec!r}.")
    text = spec.strip()
    if not text:
        raise DimsError(
            "Invalid dims: the string is empty. Give one item per dimension, e.g. '[0, :, :]'."
        )
    if not (text.startswith("[") and text.endswith("]")) or len(text) < 2:
        raise DimsError(
            f"Invalid dims {spec!r}: it must start with '[' and end with ']', e.g. '[0, :, :]'."
        )
    inner = text[1:-1].strip()
    items = inner.split(",") if inner else []
    sliced = sum(1 for item in items if ":" in item)
    if sliced > MAX_SLICED_DIMS:
        raise DimsError(
            f"Invalid dims {spec!r}: {sliced} dimensions are sliced with ':', at most "
            f"{MAX_SLICED_DIMS} can be (the table shows up to 2 dimensions). Fix the other "
            "dimensions to a single index such as 0."
        )
    parsed = tuple(_parse_item(item, i, spec) for i, item in enumerate(items))
    rank = len(shape)
    if len(parsed) != rank:
        raise DimsError(
            f"Invalid dims {spec!r}: it has {len(parsed)} item(s) but the tensor has "
            f"{rank} dimension(s) (shape {_shape_text(shape)}). Give exactly one item per "
            "dimension."
        )
    for axis, (index, size) in enumerate(zip(parsed, shape, strict=True)):
        if isinstance(index, int) and not -size <= index < size:
            valid = f"{-size}..{size - 1}" if size else "none, the dimension is empty"
            raise DimsError(
                f"Invalid dims {spec!r}: index {index} is out of range for dimension "
                f"{axis + 1} of size {size} (valid indices: {valid})."
            )
    return parsed


def default_dims(shape: tuple[int, ...], max_values: int | None = None) -> str:
    """The dims string the tensor table starts with (MindInsight UI).

    Leading dimensions ``0``, the last two ``:``; the last one ``0:1000`` when longer than
    :data:`MAX_DISPLAY_COLUMNS`. Rank 0 -> ``[]``; rank 1 -> ``[:]`` (``[0:1000]`` if longer).
    With ``max_values`` (dash-insight's option, e.g. :data:`MAX_RESPONSE_VALUES`) the rows are
    cut too, to ``0:n``, so the default selection fits ``max_values`` (whenever that is at least
    1000); MindInsight's own default ``[:, :]`` on a 1000x1000 tensor fails with 50545013.
    """
    rank = len(shape)
    if rank == 0:
        return "[]"
    columns = shape[-1]
    last = f"0:{MAX_DISPLAY_COLUMNS}" if columns > MAX_DISPLAY_COLUMNS else ":"
    if rank == 1:
        return f"[{last}]"
    rows_item = ":"
    shown_columns = min(columns, MAX_DISPLAY_COLUMNS)
    if max_values is not None and shown_columns and shape[-2] * shown_columns > max_values:
        rows_item = f"0:{max(1, max_values // shown_columns)}"
    return "[" + ",".join(["0"] * (rank - 2) + [rows_item, last]) + "]"


def slice_tensor(array: np.ndarray, spec: str, max_values: int = MAX_RESPONSE_VALUES) -> np.ndarray:
    """``array[parse_dims(spec, array.shape)]`` as a new array (0-d when every item is an index).

    More than ``max_values`` values selected -> :class:`ResponseTooLargeError` (a
    :class:`DimsError`) saying how many were asked and the limit, as MindInsight's 50545013
    ``MaxResponseDataExceeded`` ("the size of response data: N exceed max value: 100000").
    The size is checked on the view, before anything is copied.
    """
    index = parse_dims(spec, tuple(array.shape))
    view = np.asarray(array)[index]
    size = int(np.size(view))
    if size > max_values:
        raise ResponseTooLargeError(
            f"The dims {spec!r} select {size:,} values, more than the {max_values:,} one answer "
            "may hold. Narrow a sliced dimension, e.g. '0:100' instead of ':'."
        )
    return np.array(view, copy=True)


# --- statistics ----------------------------------------------------------------------------------


def is_text(array: np.ndarray) -> bool:
    """True for a tensor of strings (TensorBoard's text summaries), which has no numbers."""
    return np.asarray(array).dtype.kind in "OUS"


def text_statistics(array: np.ndarray) -> dict[str, Any]:
    """What a tensor of strings has to count: ``{"count", "is_text": True}``."""
    return {"count": int(np.asarray(array).size), "is_text": True}


def _check_real(array: np.ndarray) -> None:
    """TypeError unless ``array`` is bool, integer or float (complex values have no order)."""
    if array.dtype.kind not in "biuf":
        raise TypeError(f"statistics need a bool, integer or float tensor, got {array.dtype}")


def _flat_real(array: np.ndarray) -> np.ndarray:
    """1-D view of the values to compute on: bool as uint8 (0/1, as MindInsight's floats), and
    float16 widened to float32 (exact; numpy has no SIMD loops for float16, 10x slower)."""
    flat = array.reshape(-1)
    if flat.dtype == np.bool_:
        return flat.view(np.uint8)
    if flat.dtype == np.float16:
        return flat.astype(np.float32)
    return flat


def _non_finite(flat: np.ndarray) -> tuple[np.ndarray | None, int, int, int]:
    """``(finite_mask or None when every value is finite, nan, +inf, -inf counts)``."""
    if flat.dtype.kind != "f":
        return None, 0, 0, 0
    finite = np.isfinite(flat)
    invalid = int(flat.size - np.count_nonzero(finite))
    if not invalid:
        return None, 0, 0, 0
    nan_count = int(np.count_nonzero(np.isnan(flat)))
    pos_inf_count = int(np.count_nonzero(np.isposinf(flat)))
    return finite, nan_count, pos_inf_count, invalid - nan_count - pos_inf_count


def statistics(array: np.ndarray) -> dict[str, Any]:
    """Statistics of a tensor (MindInsight ``TensorUtils.get_statistics_from_tensor``, §4.3).

    ``count`` = all values (NaN/±Inf included); ``nan_count``, ``pos_inf_count``,
    ``neg_inf_count``; over the finite values: ``max``, ``min``, ``avg = Σ(float64) / valid``
    (the sum is that of the float64 array with non-finite values set to 0, as MindInsight's
    masked sum, so ``avg`` matches to the last bit); ``neg_zero_count`` / ``pos_zero_count`` /
    ``zero_count`` = how many finite values are < 0 / > 0 / == 0 (MindInsight's misleading
    names). No finite value -> ``max = min = avg = 0`` and the three sign counts 0.
    ``is_bool``; bool tensors also get ``true_count`` (= ``pos_zero_count``) and ``false_count``
    (= ``zero_count``), with max/min/avg of 1/0 as MindInsight shows them (it reads bools as
    floats). No masked arrays: that sidesteps numpy#15077 (float16 masked max = inf) and takes
    about 25 ms for 10,000,000 float32 values. Complex tensors raise TypeError. Counts are
    ``int``, values ``float``.
    """
    values = np.asarray(array)
    _check_real(values)
    flat = _flat_real(values)
    finite, nan_count, pos_inf_count, neg_inf_count = _non_finite(flat)
    total = int(flat.size)
    valid = total - nan_count - pos_inf_count - neg_inf_count
    result: dict[str, Any] = {
        "max": 0.0,
        "min": 0.0,
        "avg": 0.0,
        "count": total,
        "nan_count": nan_count,
        "pos_inf_count": pos_inf_count,
        "neg_inf_count": neg_inf_count,
        "neg_zero_count": 0,
        "pos_zero_count": 0,
        "zero_count": 0,
        "is_bool": values.dtype == np.bool_,
    }
    if valid:
        if finite is None:
            low, high = flat.min(), flat.max()
            total_sum = flat.astype(np.float64, copy=False).sum()
        else:
            low = np.min(flat, where=finite, initial=np.inf)
            high = np.max(flat, where=finite, initial=-np.inf)
            total_sum = np.where(finite, flat, 0).astype(np.float64, copy=False).sum()
        # -inf < 0 and +inf > 0: take them back out so only finite values are counted.
        negative = int(np.count_nonzero(flat < 0)) - neg_inf_count
        positive = int(np.count_nonzero(flat > 0)) - pos_inf_count
        result.update(
            max=float(high),
            min=float(low),
            avg=float(total_sum) / valid,
            neg_zero_count=negative,
            pos_zero_count=positive,
            zero_count=valid - negative - positive,
        )
    if result["is_bool"]:
        result["true_count"] = result["pos_zero_count"]
        result["false_count"] = result["zero_count"]
    return result


# --- histogram -----------------------------------------------------------------------------------


def tensor_histogram(array: np.ndarray, stats: Mapping[str, Any] | None = None) -> np.ndarray:
    """Original buckets of a tensor (MindInsight ``tensor_container.calc_original_buckets``).

    ``bins = display_bins(valid)`` (MindInsight's 30-bin rule, applied to the finite values);
    edges ``np.linspace(min, max, bins + 1)`` in float64 (``min - 0.5, max + 0.5`` when
    ``min == max``); counts as ``np.histogram`` (last bucket closed); NaN/±Inf are not counted.
    Returns ``(bins, 3)`` ``(left, width = right - left, count)``, or ``(0, 3)`` when no value is
    finite. ``stats`` (from :func:`statistics`) saves recomputing min/max/count.
    MindInsight's test: ``[1, 2, 3, 4, 5, -inf, inf, nan]`` -> ``(1, 2, 2), (3, 2, 3)``.
    """
    values = np.asarray(array)
    _check_real(values)
    stats = statistics(values) if stats is None else stats
    valid = stats["count"] - stats["nan_count"] - stats["pos_inf_count"] - stats["neg_inf_count"]
    if not valid:
        return np.zeros((0, 3))
    first, last = float(stats["min"]), float(stats["max"])
    if not first < last:
        first -= 0.5
        last += 0.5
    flat = values.reshape(-1).astype(np.float64)
    if valid < flat.size:
        flat = flat[np.isfinite(flat)]
    # bins=int with range uses numpy's equal-width path: edges are linspace(first, last, n + 1)
    # in float64 and each value is placed against those edges, as with explicit edges, faster.
    counts, edges = np.histogram(flat, bins=display_bins(valid), range=(first, last))
    return np.column_stack([edges[:-1], np.diff(edges), counts.astype(np.float64)])


def tensor_original_histogram(
    array: np.ndarray, stats: Mapping[str, Any] | None = None
) -> OriginalHistogram:
    """A tensor step ready for :func:`dash_insight.core.histogram_bins.unify`: its
    :func:`tensor_histogram` buckets with the statistics' finite min/max (0 when none), as
    MindInsight's ``TensorContainer`` builds its ``Histogram``."""
    stats = statistics(array) if stats is None else stats
    return OriginalHistogram(
        buckets=tensor_histogram(array, stats), min=float(stats["min"]), max=float(stats["max"])
    )


# --- JSON ----------------------------------------------------------------------------------------


def encode_for_json(array: np.ndarray) -> Any:
    """Nested lists (a scalar for a 0-d array) that ``json.dumps`` accepts.

    NaN -> ``"NAN"``, +Inf -> ``"INF"``, -Inf -> ``"-INF"`` as MindInsight's tensor data answer
    (only float arrays can hold them; arrays without any are converted directly). Unlike
    MindInsight, which sends every value as a float, bools stay ``bool`` and integers ``int``;
    floats become Python floats of the same value (float32 ``0.1`` -> ``0.10000000149011612``).
    An array without any value is ``[]`` whatever its shape, as MindInsight answers a ``(3, 0)``
    tensor sliced ``[:, :]`` (numpy's ``tolist`` would give ``[[], [], []]``).
    """
    values = np.asarray(array)
    if values.ndim and values.size == 0:
        return []
    if values.dtype.kind != "f" or bool(np.isfinite(values).all()):
        return values.tolist()
    encoded = values.astype(object)
    encoded[np.isnan(values)] = "NAN"
    encoded[np.isposinf(values)] = "INF"
    encoded[np.isneginf(values)] = "-INF"
    return encoded.tolist()
