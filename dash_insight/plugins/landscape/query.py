"""Loss landscapes: pure functions over decoded ``LossLandscapeValue`` records.

What MindInsight 2.3.1 does (``datavisual/processors/landscape_processor.py``,
``loss_landscape_container.py``; ``../shared/spec/loss-landscape.md``):

* a landscape is **final** iff its ``loss_path.intervals`` is empty, else an **interval**
  landscape listed as ``{"id", "value": [first, last]}``;
* tags are visited sorted as strings, each tag's values in step order; the intervals list is
  sorted by ``value[0]`` (stable); a request takes the first matching landscape;
* ``points`` = x [N], y [M], z [M][N] (``z[i][j]`` = loss at ``(x[j], y[i])``: rows follow y),
  ``path`` = the training path's x / y / z plus ``intervals``, ``convergence_point`` =
  ``[x[0], y[0], z[0]]`` (``[0, 0, 0]`` when one is empty), ``metadata`` = the record's
  decomposition, unit and step_per_epoch plus the job's lineage (network, learning rate,
  optimizer, metric, loss; rates formatted ``format(v, '6e')``).

The one deliberate difference: MindInsight's interval id was ``str(hash(str(intervals)))``,
salted per process, so it changed at every start. Here it is :func:`interval_id`, a keyed
BLAKE2b of the same string: the same kind of signed 64-bit decimal, stable across restarts and
machines.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dash_insight.core.format.events import LossLandscapeValue
from dash_insight.core.i18n import lazy_gettext

TYPE_INTERVAL = "interval"
TYPE_FINAL = "final"
#: MindInsight's i18n text of error 50545017 (no such landscape); shown in the request's
#: language (``str()``).
NOT_EXIST_TEXT = lazy_gettext(
    "Collect summary data in the training script and save the Loss Multi graph data."
)
#: MindInsight's ``interval_id`` default: no landscape has it.
DEFAULT_INTERVAL_ID = "0"
UNIT_EPOCH = "epoch"


class LandscapeError(ValueError):
    """A landscape record whose arrays do not fit together; the message says how."""


@dataclass(frozen=True)
class LandscapeRef:
    """Where one landscape is (tag, step) and what it covers (its interval entries)."""

    tag: str
    step: int
    intervals: tuple[int, ...]

    @property
    def final(self) -> bool:
        return not self.intervals

    @property
    def interval_id(self) -> str:
        return interval_id(self.intervals)

    @property
    def value(self) -> list[int]:
        """``[first, last]`` of the interval (MindInsight's ``value``)."""
        return [self.intervals[0], self.intervals[-1]] if self.intervals else []

    @property
    def label(self) -> str:
        """The interval chooser's text, MindInsight's ``"<first>-<last>"`` (``2-16``)."""
        return interval_label(self.value)


@dataclass(frozen=True)
class Grid:
    """A landscape's grid: ``z[i][j]`` is the loss at ``(x[j], y[i])``."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray


@dataclass(frozen=True)
class LossPath:
    """The training path drawn on an interval landscape: one point per interval entry."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    intervals: tuple[int, ...]


def interval_id(intervals: Sequence[int]) -> str:
    """The id of an interval: ``BLAKE2b-64(str(list(intervals)))`` read as a signed big-endian
    integer, in decimal. Deterministic (MindInsight's ``str(hash(str(intervals)))`` changed at
    every start); ``str`` of the list is MindInsight's hashed text (``"[2, 4, 6]"``)."""
    digest = hashlib.blake2b(
        str([int(v) for v in intervals]).encode("utf-8"), digest_size=8, person=b"landscape"
    ).digest()
    return str(int.from_bytes(digest, "big", signed=True))


def interval_label(value: Sequence[int]) -> str:
    """``[2, 16]`` -> ``"2-16"``; ``"final"`` for the final landscape."""
    return f"{value[0]}-{value[-1]}" if len(value) else "final"


def catalogue(entries: Iterable[tuple[str, int, Sequence[int]]]) -> list[LandscapeRef]:
    """Every landscape of a job in MindInsight's visiting order: tags sorted as strings, each
    tag's values in step order. ``entries`` are (tag, step, interval entries)."""
    refs = [
        LandscapeRef(tag, int(step), tuple(int(v) for v in intervals))
        for tag, step, intervals in entries
    ]
    return sorted(refs, key=lambda ref: (ref.tag, ref.step))


def list_intervals(refs: Sequence[LandscapeRef]) -> list[dict[str, Any]]:
    """MindInsight's ``intervals`` answer: every interval landscape as ``{"id", "value"}``,
    sorted by ``value[0]`` (stable, so equal starts keep tag order)."""
    found = [{"id": ref.interval_id, "value": ref.value} for ref in refs if not ref.final]
    return sorted(found, key=lambda item: item["value"][0])


def find_landscape(
    refs: Sequence[LandscapeRef], kind: str, wanted_id: str | None
) -> LandscapeRef | None:
    """The landscape a request names: ``final`` = the first final one (the id is ignored),
    ``interval`` = the first interval one whose id is ``wanted_id``; None otherwise
    (MindInsight: 50545017 LandscapeNotExist), also for an unknown ``kind``."""
    for ref in refs:
        if kind == TYPE_FINAL and ref.final:
            return ref
        if kind == TYPE_INTERVAL and not ref.final and ref.interval_id == wanted_id:
            return ref
    return None


def step_range(value: Sequence[int], unit: str, step_per_epoch: int) -> tuple[int, int]:
    """The training steps an interval covers, as the step-selection chart shades them:
    ``[first, last]`` for unit step, ``[first * step_per_epoch, last * step_per_epoch]`` for
    unit epoch (MindInsight: epochs 3-5 with 4 steps per epoch -> steps 12-20)."""
    first, last = int(value[0]), int(value[-1])
    if unit == UNIT_EPOCH and step_per_epoch > 0:
        return first * step_per_epoch, last * step_per_epoch
    return first, last


def grid(value: LossLandscapeValue) -> Grid:
    """The landscape's axes and losses; :class:`LandscapeError` unless z is ``[len(y),
    len(x)]`` (``np.meshgrid(x, y)`` on the MindSpore side: rows follow y)."""
    points = value.landscape
    missing = [axis for axis in "xyz" if axis not in points]
    if missing:
        raise LandscapeError(f"the landscape has no {', '.join(missing)} values")
    x = np.asarray(points["x"], dtype=np.float64).reshape(-1)
    y = np.asarray(points["y"], dtype=np.float64).reshape(-1)
    z = np.asarray(points["z"], dtype=np.float64)
    if z.shape != (len(y), len(x)):
        raise LandscapeError(
            f"z has shape {list(z.shape)}, expected [len(y), len(x)] = [{len(y)}, {len(x)}]"
        )
    return Grid(x, y, z)


def loss_path(value: LossLandscapeValue) -> LossPath | None:
    """The training path of an interval landscape (None for the final one);
    :class:`LandscapeError` when its three coordinates differ in length."""
    if not value.loss_path_intervals:
        return None
    points = value.loss_path_points
    x, y, z = (np.asarray(points.get(a, ()), dtype=np.float64).reshape(-1) for a in "xyz")
    if not len(x) == len(y) == len(z):
        raise LandscapeError(f"the loss path has {len(x)} x, {len(y)} y and {len(z)} z values")
    return LossPath(x, y, z, tuple(value.loss_path_intervals))


def convergence_point(value: LossLandscapeValue) -> list[float | int]:
    """``[x[0], y[0], z[0]]`` as floats (the PCA x/y are DT_INT64 in the file and come out
    ``0.0``); ``[0, 0, 0]`` when any of the three is absent or empty (MindInsight)."""
    point = value.convergence_point
    arrays = [np.asarray(point.get(axis, ()), dtype=np.float64).reshape(-1) for axis in "xyz"]
    if any(not len(a) for a in arrays):
        return [0, 0, 0]
    return [float(a[0]) for a in arrays]


def record_metadata(value: LossLandscapeValue) -> dict[str, Any]:
    """The record's own metadata with proto defaults for absent fields."""
    meta = value.metadata
    return {
        "decomposition": str(meta.get("decomposition", "")),
        "unit": str(meta.get("unit", "")),
        "step_per_epoch": int(meta.get("step_per_epoch", 0)),
    }


def _scientific(value: Any) -> Any:
    """MindInsight's ``format(v, '6e')`` (``0.05`` -> ``"5.000000e-02"``); non-numbers kept."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return format(float(value), "6e") if math.isfinite(value) else str(value)


def lineage_metadata(row: Mapping[str, Any] | None) -> dict[str, Any]:
    """The lineage part of ``metadata``: network, learning rate, optimizer, metric and loss of
    the job's lineage row; without lineage ``null``s, ``{}`` and no ``loss`` key (MindInsight's
    ``filter_summary_lineage`` found nothing)."""
    if row is None:
        return {"network": None, "learning_rate": None, "optimizer": None, "metric": {}}
    metric = row.get("metric")
    return {
        "network": row.get("network"),
        "learning_rate": _scientific(row.get("learning_rate")),
        "optimizer": row.get("optimizer"),
        "metric": dict(metric) if isinstance(metric, Mapping) else {},
        "loss": _scientific(row.get("loss")),
    }


def landscape_entry(
    train_id: str, value: LossLandscapeValue, row: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One successful entry of MindInsight's ``landscapes`` answer, keys in its order."""
    cells = grid(value)
    entry: dict[str, Any] = {
        "train_id": train_id,
        "points": {"x": cells.x.tolist(), "y": cells.y.tolist(), "z": cells.z.tolist()},
    }
    path = loss_path(value)
    if path is not None:
        entry["path"] = {
            "x": path.x.tolist(),
            "y": path.y.tolist(),
            "z": path.z.tolist(),
            "intervals": list(path.intervals),
        }
    entry["metadata"] = {**record_metadata(value), **lineage_metadata(row)}
    entry["convergence_point"] = convergence_point(value)
    return entry


def resolution(cells: Grid) -> str:
    """MindInsight's "Sampling Point resolution": the lengths of x, y and z joined by "x"
    (``12x12x12``; z counts its rows)."""
    return f"{len(cells.x)}x{len(cells.y)}x{len(cells.z)}"


def evaluation_metric(
    metadata: Mapping[str, Any], point: Sequence[float | int]
) -> tuple[str | None, Any]:
    """The comparison card's "Evaluation Metrics": the first metric of the lineage (name,
    value), else ``(None, loss)``: the convergence point's loss (MindInsight:
    ``loss:2.2388088703155518``), ``None`` without a convergence point. Values as recorded;
    the page writes them in its language."""
    metric = metadata.get("metric") or {}
    if metric:
        name = next(iter(metric))
        return str(name), metric[name]
    return None, float(point[2]) if len(point) == 3 else None


def default_loss_tag(tags: Sequence[str]) -> str | None:
    """The scalar tag the step-selection chart plots unless the user picks another:
    MindInsight's hard-coded ``loss/auto`` (``loss/auto/scalar``) when the job has it, else
    ``loss``, else the first tag naming a loss, else the first tag (MindInsight: an empty chart
    for any job without ``loss/auto``)."""
    for wanted in ("loss/auto", "loss"):
        if wanted in tags:
            return wanted
    named = [t for t in tags if "loss" in t.lower()]
    candidates = named or list(tags)
    return candidates[0] if candidates else None
