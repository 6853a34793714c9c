"""The markers of a scalar chart's line (issue 40 item 7): its job's epoch boundaries and
restarts (:mod:`dash_insight.core.markers`), as the browser draws them (thin vertical lines
with a hover, on the step axis) and the first paint's preview too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dash_insight.core.i18n import format_number
from dash_insight.core.i18n import gettext as _
from dash_insight.core.lineage_rows import lineage_row
from dash_insight.core.markers import epoch_boundaries, restarts, steps_per_epoch
from dash_insight.core.provider import DataError, DataProvider


def job_steps_per_epoch(provider: DataProvider, train_id: str) -> int | None:
    """The steps of an epoch of the job as its lineage records them; None without."""
    try:
        if not provider.job(train_id).lineage_files:
            return None
        row = lineage_row(train_id, provider.lineage_records(train_id))
    except DataError:
        return None
    return steps_per_epoch(row)


def series_markers(
    provider: DataProvider, train_id: str, tag: str, epoch_steps: int = 0
) -> list[dict[str, Any]]:
    """The markers of a job's line of ``tag``: ``{"step", "kind": "epoch" | "restart",
    "label"}``, restarts first, each label in the reader's language; epochs of
    ``epoch_steps`` steps when given (else as the job's lineage records them)."""
    try:
        ranges = provider.scalar_file_ranges(train_id, tag)
    except DataError:
        return []
    out: list[dict[str, Any]] = [
        {
            "step": restart.step,
            "kind": "restart",
            "label": _("restart: resumed at step {step} after step {last}").format(
                step=format_number(restart.step), last=format_number(restart.previous_last)
            ),
        }
        for restart in restarts(ranges)
    ]
    per_epoch = epoch_steps or (job_steps_per_epoch(provider, train_id) if ranges else None)
    if per_epoch:
        first, last = min(r[0] for r in ranges), max(r[1] for r in ranges)
        out.extend(
            {
                "step": step,
                "kind": "epoch",
                "label": _("end of epoch {epoch} (step {step})").format(
                    epoch=epoch, step=format_number(step)
                ),
            }
            for step, epoch in epoch_boundaries(per_epoch, first, last)
        )
    return out


def group_markers(
    provider: DataProvider, members: Sequence[str], tag: str, epoch_steps: int = 0
) -> list[dict[str, Any]]:
    """The markers of a group's line (its runs aggregated): each run's
    (:func:`series_markers`), a restart's label naming its run, a marker several runs share
    (the same epoch boundary) once."""
    seen: set[tuple[str, int, str]] = set()
    out: list[dict[str, Any]] = []
    for train_id in members:
        for marker in series_markers(provider, train_id, tag, epoch_steps):
            if marker["kind"] == "restart":
                marker = {**marker, "label": f"{train_id}: {marker['label']}"}
            key = (marker["kind"], marker["step"], marker["label"])
            if key not in seen:
                seen.add(key)
                out.append(marker)
    return out
