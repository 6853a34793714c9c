"""The tensors plugin's REST route: MindInsight's ``tensors`` (``TensorProcessor``).

Deliberate differences from MindInsight 2.3.1: every step is served (no 20-step reservoir) unless
the server was started with ``--samples-per-plugin``; ``detail=data`` validates ``dims`` against
the tensor (index ranges, step 0) with messages that say how to fix them; ``step=-1`` means the
last step there too; errors are checked in the order step, tensor size, dims (MindInsight: dims
syntax first). A tensor of strings (TensorBoard text, ``data_type`` ``DT_STRING``) has
``statistics`` null, its ``data`` as strings, and no histogram (ParamValueError). A step whose
value cannot be read (negative dims, a damaged record) is a null ``statistics`` with
``detail=stats``, left out with ``detail=histogram`` and 50545014 saying why with
``detail=data``; the other steps of the tag are answered as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from flask import Response, request

from dash_insight.core.provider import StepNotFound, TensorTooLarge, ValueSteps, ValueUnreadable
from dash_insight.core.vocabulary import PluginName
from dash_insight.plugins.tensors import query_tensor
from dash_insight.plugins.tensors.query import NotNumeric, TensorQueries
from dash_insight.web import errors
from dash_insight.web.http import (
    bucket_rows,
    json_response,
    require,
    required_args,
    resolve_job,
    to_int,
    value_steps_or,
)
from dash_insight.web.plugin import Route

_TENSOR_DETAILS = ("stats", "histogram", "data")


def routes(queries: TensorQueries) -> list[Route]:
    return [Route("datavisual/tensors", _TensorViews(queries).tensors)]


def statistics_answer(stats: Mapping[str, Any], overall: Mapping[str, Any]) -> dict[str, Any]:
    """``TensorUtils.get_statistics_dict(stats, overall_stats)``: the keys and types MindInsight
    sends (its tensors were always float, so never the bool variant)."""
    return {
        "max": float(stats["max"]),
        "min": float(stats["min"]),
        "avg": float(stats["avg"]),
        "count": int(stats["count"]),
        "nan_count": int(stats["nan_count"]),
        "neg_inf_count": int(stats["neg_inf_count"]),
        "pos_inf_count": int(stats["pos_inf_count"]),
        "overall_max": float(overall["max"]),
        "overall_min": float(overall["min"]),
        "overall_avg": float(overall["avg"]),
        "overall_count": int(overall["count"]),
        "overall_nan_count": int(overall["nan_count"]),
        "overall_neg_inf_count": int(overall["neg_inf_count"]),
        "overall_pos_inf_count": int(overall["pos_inf_count"]),
        "overall_zero_count": float(overall["zero_count"]),
        "overall_neg_zero_count": float(overall["neg_zero_count"]),
        "overall_pos_zero_count": float(overall["pos_zero_count"]),
    }


def selected_size(dims: str, shape: tuple[int, ...]) -> int:
    """How many values ``dims`` selects from a tensor of ``shape`` (no data touched)."""
    index = query_tensor.parse_dims(dims, shape)
    return int(np.broadcast_to(np.empty((), np.int8), shape)[index].size)


class _TensorViews:
    def __init__(self, queries: TensorQueries) -> None:
        self.queries = queries

    def tensors(self) -> Response:
        """``GET /datavisual/tensors?train_id=..&tag=..[&detail=stats|histogram|data&step=&dims=]``
        -> ``{"tensors": [{train_id, tag, values}]}`` for every job x tag
        (``TensorProcessor.get_tensors``): no detail = dims and data type per step; ``stats``
        adds statistics (null for a tensor too large to load); ``histogram`` adds buckets unified
        across steps; ``data`` = one step's ``dims`` slice (<= 100,000 values, NaN/±Inf as
        strings) with the slice's statistics and the whole tensor's ``overall_*``."""
        train_ids = request.args.getlist("train_id")
        tags = request.args.getlist("tag")
        require(train_id=train_ids, tag=tags)
        detail = request.args.get("detail")
        if detail is not None and detail not in _TENSOR_DETAILS:
            raise errors.param_value_error(f"Can not support this value: {detail} of detail.")
        result = []
        for train_id in train_ids:
            resolve_job(self.queries.provider, train_id)
            for tag in tags:
                raw, steps = value_steps_or(
                    self.queries.provider, train_id, PluginName.TENSOR, tag, errors.tensor_not_exist
                )
                if detail == "data":
                    values = self._tensor_data(train_id, raw, steps)
                elif detail == "histogram":
                    values = self._tensor_histograms(train_id, raw, steps)
                else:
                    values = self._tensor_summaries(train_id, raw, steps, detail == "stats")
                result.append({"train_id": train_id, "tag": tag, "values": values})
        return json_response({"tensors": result})

    def _tensor_value(
        self, train_id: str, raw: str, steps: ValueSteps, position: int
    ) -> dict[str, Any]:
        """``{"dims", "data_type"}`` of one step, from the index (the tensor is not decoded)."""
        meta = steps.meta[position] if position < len(steps.meta) else None
        if meta is None:
            tensor = self.queries.tensor(train_id, raw, int(steps.step[position]))
            meta = {"dims": list(tensor.dims), "data_type": tensor.data_type}
        return {"dims": [int(d) for d in meta["dims"]], "data_type": meta["data_type"]}

    def _tensor_summaries(
        self, train_id: str, raw: str, steps: ValueSteps, with_stats: bool
    ) -> list[dict[str, Any]]:
        values = []
        for position, (step, wall_time) in enumerate(
            zip(steps.step.tolist(), steps.wall_time.tolist(), strict=True)
        ):
            value = self._tensor_value(train_id, raw, steps, position)
            if with_stats:
                try:
                    stats = self.queries.statistics(train_id, raw, step)
                    value["statistics"] = (
                        None if stats.get("is_text") else statistics_answer(stats, stats)
                    )
                except (TensorTooLarge, ValueUnreadable):
                    # MindInsight's null for a step it dropped; the other steps keep theirs
                    value["statistics"] = None
            values.append({"wall_time": wall_time, "step": step, "value": value})
        return values

    def _tensor_histograms(
        self, train_id: str, raw: str, steps: ValueSteps
    ) -> list[dict[str, Any]]:
        try:
            histograms = self.queries.histograms(train_id, raw)
        except NotNumeric as error:
            raise errors.param_value_error(str(error)) from None
        positions = {step: position for position, step in enumerate(steps.step.tolist())}
        values = []
        for step, wall_time, buckets in histograms.rows:
            value = self._tensor_value(train_id, raw, steps, positions[step])
            stats = self.queries.statistics(train_id, raw, step)
            value["histogram_buckets"] = bucket_rows(buckets)
            value["statistics"] = statistics_answer(stats, stats)
            values.append({"wall_time": wall_time, "step": step, "value": value})
        for large in histograms.too_large:
            # the step stays listed, empty, with why: one oversized step no longer fails the tag
            value = self._tensor_value(train_id, raw, steps, positions[large.step])
            value.update(histogram_buckets=[], statistics=None, error=large.message)
            values.append({"wall_time": large.wall_time, "step": large.step, "value": value})
        values.sort(key=lambda entry: positions[entry["step"]])
        return values

    def _tensor_data(self, train_id: str, raw: str, steps: ValueSteps) -> list[dict[str, Any]]:
        step_text, dims = required_args("step", "dims")
        step = to_int(step_text, "step")
        try:
            position = steps.position(step)
            step = int(steps.step[position])
            sliced = self.queries.slice(train_id, raw, step, dims)
        except StepNotFound:
            raise errors.step_not_in_cache(step) from None
        except TensorTooLarge as error:
            raise errors.tensor_too_large(str(error)) from None
        except ValueUnreadable as error:
            raise errors.value_unreadable(str(error)) from None
        except query_tensor.ResponseTooLargeError:
            value = self._tensor_value(train_id, raw, steps, position)
            size = selected_size(dims, tuple(value["dims"]))
            raise errors.response_too_large(size, query_tensor.MAX_RESPONSE_VALUES) from None
        except query_tensor.DimsError as error:
            raise errors.param_value_error(str(error)) from None
        value = self._tensor_value(train_id, raw, steps, position)
        overall = self.queries.statistics(train_id, raw, step)
        if query_tensor.is_text(sliced):
            value["data"] = np.asarray(sliced, dtype=object).tolist()
            value["statistics"] = None
        else:
            # MindInsight's tensors were float32 arrays: every value is sent as a float.
            value["data"] = query_tensor.encode_for_json(sliced.astype(np.float64, copy=False))
            value["statistics"] = statistics_answer(query_tensor.statistics(sliced), overall)
        return [{"wall_time": float(steps.wall_time[position]), "step": step, "value": value}]
